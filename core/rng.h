/*
 * rng.h — the seeded generator kept inside every game state. Two kinds, each
 * deterministic across platforms (the same seed or key gives the same game
 * everywhere):
 *
 * - RNG_XOSHIRO: xoshiro256** seeded through splitmix64 from a 64-bit seed;
 *   the games of deal version 0 (before docs/FAIRNESS.md), the tests' seeds,
 *   the bots' and the searches' generators.
 * - RNG_CHACHA: the keystream of ChaCha20 (the original cipher, 64-bit nonce
 *   of zeros, block counter from 0: libsodium's crypto_stream_chacha20) under
 *   a 32-byte key, read 4 bytes at a time as little-endian 32-bit words; the
 *   deals of version 1 (core/deal.h, docs/FAIRNESS.md). rng_below() takes a
 *   word u and keeps u % n when u < 2^32 - (2^32 % n), else draws again.
 *
 * rng_shuffle_u8() is the same Fisher–Yates for both: for i = n-1 down to 1,
 * j = rng_below(i + 1), swap a[i] and a[j].
 */
#ifndef TAPIS_CORE_RNG_H
#define TAPIS_CORE_RNG_H

#include <stdint.h>

enum { RNG_XOSHIRO = 0, RNG_CHACHA = 1 };

typedef struct rng {
    uint64_t s[4];   /* xoshiro256**'s state */
    uint64_t block;  /* ChaCha20: the next block's counter */
    uint8_t kind;    /* RNG_XOSHIRO or RNG_CHACHA */
    uint8_t pos;     /* ChaCha20: bytes of buf already read (64: none left) */
    uint8_t key[32]; /* ChaCha20's key */
    uint8_t buf[64]; /* ChaCha20: the current block of keystream */
} rng_t;

void rng_seed(rng_t *r, uint64_t seed);
/* A ChaCha20 generator under `key`, at the start of its stream. */
void rng_seed_chacha(rng_t *r, const uint8_t key[32]);
uint64_t rng_next(rng_t *r);
/* Uniform in [0, n), without modulo bias; n > 0. */
uint32_t rng_below(rng_t *r, uint32_t n);
/* Fisher–Yates shuffle of n bytes. */
void rng_shuffle_u8(rng_t *r, uint8_t *a, int n);

#endif
