/*
 * fuzz.h — what every harness of tests/fuzz shares: the libFuzzer entry
 * point, a reader that takes typed values off the input (the C cousin of
 * libFuzzer's FuzzedDataProvider), and the check that turns a broken
 * invariant into a crash the fuzzer keeps.
 *
 * A harness reads its whole behaviour from the input: every choice is a
 * few bytes taken here, and an input that runs out reads as zeros, so any
 * byte string is a valid input and a short one a short run.
 */
#ifndef TAPIS_TESTS_FUZZ_H
#define TAPIS_TESTS_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The entry point libFuzzer calls (and driver.c, without libFuzzer). Returns 0. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * A broken invariant: print where and why, then abort() so that libFuzzer (or
 * the driver) saves the input that did it. Always give a message.
 */
#define FZ_CHECK(cond, ...)                                                                        \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

typedef struct fz {
    const uint8_t *p;
    size_t n; /* bytes left */
} fz_t;

static inline fz_t fz_init(const uint8_t *data, size_t size)
{
    return (fz_t){data, size};
}

static inline bool fz_empty(const fz_t *f)
{
    return f->n == 0;
}

static inline uint8_t fz_u8(fz_t *f)
{
    if (f->n == 0) return 0;
    f->n--;
    return *f->p++;
}

static inline uint16_t fz_u16(fz_t *f)
{
    uint16_t v = fz_u8(f);
    return (uint16_t)(v << 8 | fz_u8(f));
}

static inline uint32_t fz_u32(fz_t *f)
{
    uint32_t v = fz_u16(f);
    return v << 16 | fz_u16(f);
}

static inline uint64_t fz_u64(fz_t *f)
{
    uint64_t v = fz_u32(f);
    return v << 32 | fz_u32(f);
}

/* A value in [0, n) (n > 0), from as few bytes as n needs. */
static inline uint32_t fz_below(fz_t *f, uint32_t n)
{
    if (n <= 1) return 0;
    uint32_t v = n <= 256 ? fz_u8(f) : n <= 65536 ? fz_u16(f) : fz_u32(f);
    return v % n;
}

/* Up to max bytes off the input (fewer when it runs out); *out points into it. */
static inline size_t fz_take(fz_t *f, size_t max, const uint8_t **out)
{
    size_t n = max < f->n ? max : f->n;
    *out = f->p;
    f->p += n;
    f->n -= n;
    return n;
}

#endif
