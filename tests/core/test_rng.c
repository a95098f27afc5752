/*
 * test_rng.c — the seeded generator of core/rng.h (splitmix64 seeding,
 * xoshiro256**, Lemire's bounded draw, Fisher–Yates).
 *
 * A game is (options, seed, action log), so the generator's output is part of
 * every journal and replay: "same seed, same game on every platform". The
 * known-answer vectors below pin it. They were computed once from core/rng.c
 * and agree with an independent implementation of the published algorithms
 * (the state after rng_seed(0) is the first four outputs of splitmix64 from 0,
 * e220a8397b1dcdaf...). A change that breaks one of them changes every dealt
 * game: it is a format break, not a test to update.
 *
 * Every other test draws from fixed seeds, so a bound that holds once holds
 * on every run; the bounds are loose all the same (several standard
 * deviations), so that they also hold for any correct generator.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/rng.h"
#include "tests/lib/test_main.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------------ */
/* Known answers                                                            */
/* ------------------------------------------------------------------------ */

static const struct {
    uint64_t seed;
    uint64_t state[4]; /* after rng_seed */
    uint64_t next[6];  /* the first rng_next outputs */
} kat[] = {
    {0,
     {0xe220a8397b1dcdafULL, 0x6e789e6aa1b965f4ULL, 0x06c45d188009454fULL, 0xf88bb8a8724c81ecULL},
     {0x99ec5f36cb75f2b4ULL, 0xbf6e1f784956452aULL, 0x1a5f849d4933e6e0ULL, 0x6aa594f1262d2d2cULL,
      0xbba5ad4a1f842e59ULL, 0xffef8375d9ebcacaULL}},
    {1,
     {0x910a2dec89025cc1ULL, 0xbeeb8da1658eec67ULL, 0xf893a2eefb32555eULL, 0x71c18690ee42c90bULL},
     {0xb3f2af6d0fc710c5ULL, 0x853b559647364ceaULL, 0x92f89756082a4514ULL, 0x642e1c7bc266a3a7ULL,
      0xb27a48e29a233673ULL, 0x24c123126ffda722ULL}},
    {7233,
     {0x877e4563af9530f7ULL, 0xb96dc38baa2b7b17ULL, 0xaaa74704972ed084ULL, 0x0f4994039d9fa494ULL},
     {0x25afc674d2518847ULL, 0xe30b4ae1b5a84e0bULL, 0x5bb5503d370ab4cdULL, 0xa137be2c3085f09fULL,
      0x8006a27bbd8311abULL, 0x0eabbad52733e0aeULL}},
    {UINT64_MAX,
     {0xe4d971771b652c20ULL, 0xe99ff867dbf682c9ULL, 0x382ff84cb27281e9ULL, 0x6d1db36ccba982d2ULL},
     {0x8f5520d52a7ead08ULL, 0xc476a018caa1802dULL, 0x81de31c0d260469eULL, 0xbf658d7e065f3c2fULL,
      0x913593fda1bca32aULL, 0xbb535e93941ba525ULL}},
};

static void seeding_and_next_match_the_known_answers(void **state)
{
    (void)state;
    for (size_t k = 0; k < ARRAY_LEN(kat); k++) {
        rng_t r;
        rng_seed(&r, kat[k].seed);
        for (int i = 0; i < 4; i++)
            assert_int_equal(r.s[i], kat[k].state[i]);
        for (size_t i = 0; i < ARRAY_LEN(kat[k].next); i++)
            assert_int_equal(rng_next(&r), kat[k].next[i]);
    }
}

/* Seed 42, one draw per bound, in this order (the large bounds reject some draws). */
static void below_matches_the_known_answers(void **state)
{
    (void)state;
    static const uint32_t n[] = {1, 2, 3, 6, 10, 52, 1000, 0x80000001u, UINT32_MAX};
    static const uint32_t want[] = {0, 0, 2, 5, 9, 40, 719, 1635039033u, 2505466206u};
    rng_t r;
    rng_seed(&r, 42);
    for (size_t i = 0; i < ARRAY_LEN(n); i++)
        assert_int_equal(rng_below(&r, n[i]), want[i]);
}

/* Seed 1: the order of a 52-card deck 0..51 after one shuffle. */
static void shuffle_matches_the_known_answer(void **state)
{
    (void)state;
    static const uint8_t want[52] = {9,  25, 34, 48, 20, 31, 30, 51, 13, 16, 24, 47, 46,
                                     43, 12, 45, 4,  27, 7,  8,  42, 0,  40, 29, 21, 49,
                                     5,  11, 10, 18, 15, 14, 35, 1,  44, 2,  32, 22, 50,
                                     37, 41, 39, 23, 38, 17, 3,  6,  33, 19, 28, 26, 36};
    uint8_t deck[52];
    for (int i = 0; i < 52; i++)
        deck[i] = (uint8_t)i;
    rng_t r;
    rng_seed(&r, 1);
    rng_shuffle_u8(&r, deck, 52);
    assert_memory_equal(deck, want, sizeof want);
}

/* ------------------------------------------------------------------------ */
/* rng_below                                                                */
/* ------------------------------------------------------------------------ */

static void below_one_is_always_zero(void **state)
{
    (void)state;
    rng_t r;
    rng_seed(&r, 3);
    for (int i = 0; i < 10000; i++)
        assert_int_equal(rng_below(&r, 1), 0);
}

static void below_never_reaches_n(void **state)
{
    (void)state;
    static const uint32_t n[] = {2,           3,           5,           7,           52,
                                 100,         1000,        65537,       0x40000001u, 0x80000000u,
                                 0x80000001u, 0xC0000000u, 0xFFFFFFFEu, UINT32_MAX};
    rng_t r;
    rng_seed(&r, 5);
    for (size_t k = 0; k < ARRAY_LEN(n); k++)
        for (int i = 0; i < 20000; i++) {
            uint32_t v = rng_below(&r, n[k]);
            if (v >= n[k]) fail_msg("rng_below(%u) gave %u at draw %d", n[k], v, i);
        }
}

/*
 * Every value of [0, n) comes out within 20 n draws, for each n up to 64 (a
 * uniform draw needs about n ln n on average; 20 n is far above it).
 */
static void below_covers_every_value_for_small_n(void **state)
{
    (void)state;
    rng_t r;
    rng_seed(&r, 11);
    for (uint32_t n = 1; n <= 64; n++) {
        uint64_t seen = 0;
        for (uint32_t i = 0; i < 20 * n; i++)
            seen |= 1ULL << rng_below(&r, n);
        uint64_t all = n == 64 ? UINT64_MAX : (1ULL << n) - 1;
        if (seen != all) fail_msg("rng_below(%u): values seen 0x%llx", n, (unsigned long long)seen);
    }
}

/*
 * Roughly uniform for a small n: 60,000 draws of a die, each face within 10%
 * of 10,000 (the standard deviation is about 91).
 */
static void below_is_roughly_uniform(void **state)
{
    (void)state;
    int count[6] = {0};
    rng_t r;
    rng_seed(&r, 17);
    for (int i = 0; i < 60000; i++)
        count[rng_below(&r, 6)]++;
    for (int v = 0; v < 6; v++)
        if (count[v] < 9000 || count[v] > 11000) fail_msg("face %d came %d times", v, count[v]);
}

/*
 * No modulo bias: for n = 3 * 2^30, "a 32-bit draw modulo n" would land in
 * [0, 2^30) half the time; the uniform share is a third. 30,000 draws, within
 * 0.30..0.37 (the standard deviation is about 0.003).
 */
static void below_has_no_modulo_bias(void **state)
{
    (void)state;
    const uint32_t n = 0xC0000000u;
    int low = 0, draws = 30000;
    rng_t r;
    rng_seed(&r, 23);
    for (int i = 0; i < draws; i++)
        low += rng_below(&r, n) < 0x40000000u;
    if (low < draws * 30 / 100 || low > draws * 37 / 100)
        fail_msg("%d of %d draws below 2^30 (a third expected)", low, draws);
}

/* ------------------------------------------------------------------------ */
/* rng_shuffle_u8                                                           */
/* ------------------------------------------------------------------------ */

static void shuffle_is_a_permutation(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        for (int n = 0; n <= 108; n += 1 + (int)(seed % 7)) {
            uint8_t a[108];
            for (int i = 0; i < n; i++)
                a[i] = (uint8_t)i;
            rng_t r;
            rng_seed(&r, seed);
            rng_shuffle_u8(&r, a, n);
            int seen[108] = {0};
            for (int i = 0; i < n; i++) {
                assert_in_range(a[i], 0, n - 1);
                seen[a[i]]++;
            }
            for (int i = 0; i < n; i++)
                if (seen[i] != 1)
                    fail_msg("seed %llu, %d cards: card %d appears %d times",
                             (unsigned long long)seed, n, i, seen[i]);
        }
    }
}

/* Same seed, same order (and same generator state after); another seed, another order. */
static void shuffle_is_determined_by_the_seed(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 100; seed++) {
        uint8_t a[52], b[52], c[52];
        for (int i = 0; i < 52; i++)
            a[i] = b[i] = c[i] = (uint8_t)i;
        rng_t ra, rb, rc;
        rng_seed(&ra, seed);
        rng_seed(&rb, seed);
        rng_seed(&rc, seed + 1000);
        rng_shuffle_u8(&ra, a, 52);
        rng_shuffle_u8(&rb, b, 52);
        rng_shuffle_u8(&rc, c, 52);
        assert_memory_equal(a, b, sizeof a);
        assert_memory_equal(ra.s, rb.s, sizeof ra.s);
        assert_memory_not_equal(a, c, sizeof a);
    }
}

/* Index of the permutation of 0..3 in a (Lehmer code), 0..23. */
static int perm4_index(const uint8_t *a)
{
    int index = 0;
    for (int i = 0; i < 4; i++) {
        int smaller = 0;
        for (int j = i + 1; j < 4; j++)
            smaller += a[j] < a[i];
        index = index * (4 - i) + smaller;
    }
    return index;
}

/*
 * Every order of 4 cards equally often: 240,000 shuffles, each of the 24
 * orders within 10% of 10,000 (the standard deviation is about 98).
 */
static void shuffle_gives_every_order_of_four_equally_often(void **state)
{
    (void)state;
    int count[24] = {0};
    rng_t r;
    rng_seed(&r, 29);
    for (int k = 0; k < 240000; k++) {
        uint8_t a[4] = {0, 1, 2, 3};
        rng_shuffle_u8(&r, a, 4);
        count[perm4_index(a)]++;
    }
    for (int p = 0; p < 24; p++)
        if (count[p] < 9000 || count[p] > 11000) fail_msg("order %d came %d times", p, count[p]);
}

/*
 * In a 52-card deck, each card lands at each position about equally often:
 * 52,000 shuffles from fresh seeds (as the games deal), each (card, position)
 * within 1000 +- 250 for the first and last cards (the standard deviation is
 * about 31).
 */
static void shuffle_places_cards_uniformly(void **state)
{
    (void)state;
    static int at[2][52];
    memset(at, 0, sizeof at);
    for (uint64_t seed = 1; seed <= 52000; seed++) {
        uint8_t a[52];
        for (int i = 0; i < 52; i++)
            a[i] = (uint8_t)i;
        rng_t r;
        rng_seed(&r, seed);
        rng_shuffle_u8(&r, a, 52);
        for (int pos = 0; pos < 52; pos++) {
            if (a[pos] == 0) at[0][pos]++;
            if (a[pos] == 51) at[1][pos]++;
        }
    }
    for (int c = 0; c < 2; c++)
        for (int pos = 0; pos < 52; pos++)
            if (at[c][pos] < 750 || at[c][pos] > 1250)
                fail_msg("card %d at position %d %d times", c ? 51 : 0, pos, at[c][pos]);
}

TEST_MAIN(cmocka_unit_test(seeding_and_next_match_the_known_answers),
          cmocka_unit_test(below_matches_the_known_answers),
          cmocka_unit_test(shuffle_matches_the_known_answer),
          cmocka_unit_test(below_one_is_always_zero), cmocka_unit_test(below_never_reaches_n),
          cmocka_unit_test(below_covers_every_value_for_small_n),
          cmocka_unit_test(below_is_roughly_uniform), cmocka_unit_test(below_has_no_modulo_bias),
          cmocka_unit_test(shuffle_is_a_permutation),
          cmocka_unit_test(shuffle_is_determined_by_the_seed),
          cmocka_unit_test(shuffle_gives_every_order_of_four_equally_often),
          cmocka_unit_test(shuffle_places_cards_uniformly))
