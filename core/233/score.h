/*
 * score.h — groups, winning combinations and points of 233 (seed 000's tables).
 *
 * Groups (jokers stand for any card in any of them):
 *   double    2 identical symbol cards                       5
 *   triple    3 identical cards (symbols, or numbers of one colour)  10
 *   sequence  3 consecutive numbers of one colour             10
 *   square    4 identical cards                               20
 * Winning combinations, made of ALL of a player's cards (hand + locked melds):
 *   2-3-3   a double + two groups of three (triples and/or sequences)   25 bonus
 *   2-3-4   a double + a group of three + a square                    25 bonus
 *   2-4-4   a double + two squares                                    25 bonus
 *   super sequence  the 8 numbers 1..8 of one colour                  50 bonus
 *   rainbow  the 4 symbols, the 3 number colours, 1 special card      100 flat
 * The maker of a combination scores its fixed total (g233_combo_points): 50, 60, 70,
 * 70 and 100; everyone else scores the best grouping of their cards.
 * Reverse, gift and stop cards form no group. In a rainbow the special card is a
 * joker or a reverse, or a gift or stop only when it is the last card drawn.
 */
#ifndef TAPIS_233_SCORE_H
#define TAPIS_233_SCORE_H

#include "core/233/cards.h"

typedef enum g233_group_kind {
    G233_GROUP_DOUBLE,
    G233_GROUP_TRIPLE,
    G233_GROUP_SEQUENCE,
    G233_GROUP_SQUARE,
} g233_group_kind_t;

/* A group as held: its cards (jokers appear as G233_CARD_JOKER). */
typedef struct g233_group {
    uint8_t kind; /* g233_group_kind_t */
    uint8_t n;    /* 2, 3 or 4 */
    g233_card_t cards[4];
} g233_group_t;

typedef enum g233_combo {
    G233_COMBO_NONE,
    G233_COMBO_233,
    G233_COMBO_234,
    G233_COMBO_244,
    G233_COMBO_SUPER,
    G233_COMBO_RAINBOW,
} g233_combo_t;

#define G233_MAX_GROUPS 8

/* Points of one group kind: 5, 10, 10, 20. */
int g233_group_points(g233_group_kind_t k);
/* Bonus of a combination: 25, 25, 25, 50; a rainbow is 100 flat; NONE is 0. */
int g233_combo_bonus(g233_combo_t c);
/*
 * What a combination pays its maker, fixed by seed 000's table: the bonus plus
 * the groups the combination is made of — 2-3-3 50, 2-3-4 60, 2-4-4 70,
 * super sequence 70, rainbow 100; NONE is 0.
 */
int g233_combo_points(g233_combo_t c);
/* "2-3-3", "2-3-4", "2-4-4", "super sequence", "rainbow", or "none". */
const char *g233_combo_name(g233_combo_t c);

/*
 * Is `cards` (2..4 cards, any order) a group of kind k? Used to check a meld a
 * player lays or claims with.
 */
bool g233_group_check(g233_group_kind_t k, const g233_card_t *cards, int n);

/*
 * The best grouping of hand h: the largest total of points of disjoint groups.
 * Returns that total; when out is not NULL, stores the groups there (at most
 * G233_MAX_GROUPS) and their count in *nout.
 */
int g233_score_best(const g233_hand_t *h, g233_group_t *out, int *nout);

/*
 * The winning combination formed by ALL of: hand h plus the locked melds
 * (fixed groups, which stay as they were laid). `last_drawn` is the kind of the
 * last card drawn from the draw pile, or -1: a gift or stop in h counts as a
 * rainbow's special card only when it is that card. Returns G233_COMBO_NONE if the
 * cards form no winning combination. When several fit, the best-scoring one.
 */
g233_combo_t g233_score_combo(const g233_hand_t *h, const g233_group_t *melds, int nmelds,
                              int last_drawn);
/* The same for a hand whose size (g233_hand_size()) the caller knows: the
   rules try one hand less each card in turn, all of one size. */
g233_combo_t g233_score_combo_sized(const g233_hand_t *h, int size, const g233_group_t *melds,
                                    int nmelds, int last_drawn);

/*
 * The kinds among `kinds` (bit x: h holds an x) whose discard leaves a
 * winning combination: bit x is set when g233_score_combo_sized(h less one x,
 * size - 1, melds, nmelds, last_drawn) is not NONE, or is a rainbow when
 * `rainbow_only`. `size` is h's. What a hand holds rules out most kinds at
 * once (the discards of a legal list, a claim that completes a combination).
 */
uint64_t g233_score_combo_discards(const g233_hand_t *h, int size, const g233_group_t *melds,
                                   int nmelds, int last_drawn, uint64_t kinds, bool rainbow_only);

/*
 * Round points of a player holding h and melds: with combo != G233_COMBO_NONE (the
 * declared winner, or anyone holding a rainbow), exactly g233_combo_points(combo),
 * whatever else the same cards could be regrouped into (two jokers beside a
 * double of symbols do not make it a square); otherwise the locked melds as
 * laid plus the best grouping of the hand. Gifts are not counted here (they
 * are scored when placed).
 */
int g233_score_round(const g233_hand_t *h, const g233_group_t *melds, int nmelds,
                     g233_combo_t combo);

#endif
