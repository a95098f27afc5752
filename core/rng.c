#include "core/rng.h"

#include <sodium.h>
#include <string.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void rng_seed(rng_t *r, uint64_t seed)
{
    memset(r, 0, sizeof *r);
    r->kind = RNG_XOSHIRO;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

void rng_seed_chacha(rng_t *r, const uint8_t key[32])
{
    memset(r, 0, sizeof *r);
    r->kind = RNG_CHACHA;
    memcpy(r->key, key, sizeof r->key);
    r->pos = sizeof r->buf;
}

/* The next 32-bit little-endian word of the ChaCha20 keystream. */
static uint32_t chacha_word(rng_t *r)
{
    static const uint8_t zeros[64], nonce[8];
    if (r->pos >= sizeof r->buf) {
        crypto_stream_chacha20_xor_ic(r->buf, zeros, sizeof r->buf, nonce, r->block++, r->key);
        r->pos = 0;
    }
    const uint8_t *b = &r->buf[r->pos];
    r->pos += 4;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint64_t xoshiro_next(rng_t *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t rng_next(rng_t *r)
{
    if (r->kind == RNG_CHACHA) {
        uint64_t lo = chacha_word(r);
        return lo | (uint64_t)chacha_word(r) << 32;
    }
    return xoshiro_next(r);
}

uint32_t rng_below(rng_t *r, uint32_t n)
{
    if (r->kind == RNG_CHACHA) { /* the rule docs/FAIRNESS.md gives: reject the top remainder */
        uint64_t limit = 0x100000000ULL - 0x100000000ULL % n;
        uint32_t u;
        do
            u = chacha_word(r);
        while (u >= limit);
        return u % n;
    }
    /* Lemire's multiply-and-reject. */
    uint64_t m = (uint64_t)(uint32_t)(xoshiro_next(r) >> 32) * n;
    uint32_t low = (uint32_t)m;
    if (low < n) {
        uint32_t threshold = (uint32_t)(-n) % n;
        while (low < threshold) {
            m = (uint64_t)(uint32_t)(xoshiro_next(r) >> 32) * n;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

void rng_shuffle_u8(rng_t *r, uint8_t *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rng_below(r, (uint32_t)i + 1);
        uint8_t t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}
