/*
 * words.h — a hand's counts read eight at a time (internal to core/233/).
 *
 * A hand is a count per kind, and the kinds of one colour are eight bytes in
 * a row (Y1..Y8, B1..B8, G1..G8): a colour is one 64-bit word, and the
 * scans a winning combination makes (how many cards, which kind is held
 * next, one card per number) are a few word operations instead of a loop
 * over the kinds.
 */
#ifndef TAPIS_233_WORDS_H
#define TAPIS_233_WORDS_H

#include <stdint.h>
#include <string.h>

#include "core/233/cards.h"

/* The counts a word scan reads: the kinds rounded up to whole words. */
#define G233_WORDS_BYTES 32

/* Bit set in a word's byte when that count is 2 or more. */
#define G233_WORD_ABOVE_ONE 0xFEFEFEFEFEFEFEFEull

static inline uint64_t g233_word(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

/* The sum of a word's eight bytes, exact for any counts. */
static inline int g233_bytes_sum(uint64_t w)
{
    const uint64_t even = 0x00FF00FF00FF00FFull;
    uint64_t pairs = (w & even) + (w >> 8 & even); /* four 16-bit sums, each < 511 */
    return (int)((pairs * 0x0001000100010001ull) >> 48);
}

/* 0x01 in each byte of w that is not 0. */
static inline uint64_t g233_bytes_nonzero(uint64_t w)
{
    const uint64_t low7 = 0x7F7F7F7F7F7F7F7Full;
    return ((((w & low7) + low7) | w) >> 7) & 0x0101010101010101ull;
}

/* A word's bytes as bits: bit i set when byte i is not 0. The multiplier
   moves byte i's 0x01 to bit 56 + i, and no two products meet. */
static inline unsigned g233_bytes_bits(uint64_t w)
{
    return (unsigned)((g233_bytes_nonzero(w) * 0x0102040810204080ull) >> 56);
}

/* The first kind from `from` on whose count is not 0 in n[0, G233_WORDS_BYTES),
   or G233_WORDS_BYTES. */
static inline int g233_next_held(const uint8_t *n, int from)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (int b = from & ~7; b < G233_WORDS_BYTES; b += 8) {
        uint64_t w = g233_word(n + b);
        if (b < from) w &= ~(uint64_t)0 << 8 * (from - b);
        if (w) return b + __builtin_ctzll(w) / 8;
    }
    return G233_WORDS_BYTES;
#else
    while (from < G233_WORDS_BYTES && !n[from])
        from++;
    return from;
#endif
}

#endif
