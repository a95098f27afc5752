/*
 * xorshift.h — the random numbers of the tests that draw random input
 * (documents, lines, values, orders): xorshift64, seeded by the test, the
 * same on every run.
 */
#ifndef TAPIS_TESTS_XORSHIFT_H
#define TAPIS_TESTS_XORSHIFT_H

#include <stdint.h>

/* The next number from *state (never 0), which it becomes. */
static inline uint64_t xorshift_next(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* A number in [0, n), from *state. */
static inline unsigned xorshift_below(uint64_t *state, unsigned n)
{
    return (unsigned)(xorshift_next(state) % n);
}

#endif
