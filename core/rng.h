/*
 * rng.h — the seeded generator kept inside every game state (xoshiro256**,
 * seeded through splitmix64). Deterministic across platforms: the same seed
 * gives the same game everywhere.
 */
#ifndef TAPIS_CORE_RNG_H
#define TAPIS_CORE_RNG_H

#include <stdint.h>

typedef struct rng {
    uint64_t s[4];
} rng_t;

void rng_seed(rng_t *r, uint64_t seed);
uint64_t rng_next(rng_t *r);
/* Uniform in [0, n), without modulo bias; n > 0. */
uint32_t rng_below(rng_t *r, uint32_t n);
/* Fisher–Yates shuffle of n bytes. */
void rng_shuffle_u8(rng_t *r, uint8_t *a, int n);

#endif
