/* test_below.h — the unit tests' fixed pseudo-random numbers (xorshift64). */
#ifndef TAPIS_TEST_BELOW_H
#define TAPIS_TEST_BELOW_H

#include <stdint.h>

static uint64_t rng = 0x853c49e6748fea9bull;

/* The next number in [0, n): the same sequence at every run. */
static unsigned below(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

#endif
