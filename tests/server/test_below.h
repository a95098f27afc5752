/* test_below.h — the unit tests' fixed pseudo-random numbers (xorshift64). */
#ifndef TAPIS_TEST_BELOW_H
#define TAPIS_TEST_BELOW_H

#include <stdint.h>

#include "tests/lib/xorshift.h"

static uint64_t rng = 0x853c49e6748fea9bull;

/* The next number in [0, n): the same sequence at every run. */
static unsigned below(unsigned n)
{
    return xorshift_below(&rng, n);
}

#endif
