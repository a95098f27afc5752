/*
 * bench_233_score.c — cost of g233_score_best and g233_score_combo on random 233 hands
 * dealt from the real 140-card deck (fixed seed), 8 and 10 cards, plus 8-card
 * hands rich in groups and holding both jokers (the search's harder case).
 * Hands are dealt before the clock starts; each line is the mean over all.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "core/233/cards.h"
#include "core/233/score.h"
#include "core/rng.h"

enum { HANDS = 200000, ROUNDS = 5 };

static g233_hand_t hands[HANDS];
static volatile long sink; /* keeps the calls from being optimised away */

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The first `size` cards of a partial shuffle of pool[0..n). */
static void deal(rng_t *r, g233_card_t *pool, int n, int size, g233_hand_t *h)
{
    *h = (g233_hand_t){{0}};
    for (int i = 0; i < size; i++) {
        int j = i + (int)rng_below(r, (uint32_t)(n - i));
        g233_card_t c = pool[j];
        pool[j] = pool[i];
        pool[i] = c;
        h->n[c]++;
    }
}

static void deal_deck(uint64_t seed, int size)
{
    g233_card_t deck[G233_DECK];
    int n = 0;
    for (int k = 0; k < G233_KINDS; k++)
        for (int i = 0; i < g233_card_copies((g233_card_t)k); i++)
            deck[n++] = (g233_card_t)k;
    rng_t r;
    rng_seed(&r, seed);
    for (int i = 0; i < HANDS; i++)
        deal(&r, deck, n, size, &hands[i]);
}

/* 6 cards from one colour's numbers and two symbols, plus both jokers. */
static void deal_dense(uint64_t seed)
{
    g233_card_t pool[64];
    int n = 0;
    for (int v = 1; v <= 8; v++)
        for (int i = 0; i < 4; i++)
            pool[n++] = g233_card_number(1, v);
    for (int i = 0; i < 5; i++) {
        pool[n++] = G233_CARD_SYMBOL;
        pool[n++] = G233_CARD_SYMBOL + 2;
    }
    rng_t r;
    rng_seed(&r, seed);
    for (int i = 0; i < HANDS; i++) {
        deal(&r, pool, n, 6, &hands[i]);
        hands[i].n[G233_CARD_JOKER] = 2;
    }
}

static void report(const char *what, double ns)
{
    double per = ns / ((double)HANDS * ROUNDS);
    printf("%s: %.0f ns/hand (%.0f hands/s)\n", what, per, 1e9 / per);
}

static int best(const g233_hand_t *h)
{
    return g233_score_best(h, NULL, NULL);
}

static int combo(const g233_hand_t *h)
{
    return (int)g233_score_combo(h, NULL, 0, -1);
}

/* Times ROUNDS passes of fn over the hands, after one untimed pass. */
static void bench(const char *what, int (*fn)(const g233_hand_t *))
{
    long sum = 0;
    for (int i = 0; i < HANDS; i++)
        sum += fn(&hands[i]);
    double t0 = now_ns();
    for (int k = 0; k < ROUNDS; k++)
        for (int i = 0; i < HANDS; i++)
            sum += fn(&hands[i]);
    double t1 = now_ns();
    sink = sum;
    report(what, t1 - t0);
}

int main(void)
{
    deal_deck(8, 8);
    bench("g233_score_best 8 cards", best);
    bench("g233_score_combo 8 cards", combo);
    deal_deck(10, 10);
    bench("g233_score_best 10 cards", best);
    bench("g233_score_combo 10 cards", combo);
    deal_dense(82);
    bench("g233_score_best 8 dense cards, 2 jokers", best);
    bench("g233_score_combo 8 dense cards, 2 jokers", combo);
    return 0;
}
