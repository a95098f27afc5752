/*
 * xorshift.h — the random numbers of the tests that draw random documents
 * (tests/json/): xorshift64, seeded by the test, the same on every run.
 */
#ifndef TAPIS_TESTS_JSON_XORSHIFT_H
#define TAPIS_TESTS_JSON_XORSHIFT_H

#include <stdint.h>

/* A number in [0, n), from *state (never 0). */
static inline unsigned xorshift_below(uint64_t *state, unsigned n)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return (unsigned)(*state % n);
}

#endif
