/*
 * aspoint3.h — the state of an As.point3 table, exposed for the game's own
 * files and its tests (hand-built states). Everyone else uses core/game.h.
 *
 * Rules: ../../shared/seeds/002 (French); what is implemented, and every
 * interpretation, is in RULES.md beside this.
 * Options (the table ap3_options in aspoint3.c):
 *   rounds        rounds ("manches") of the points game (3; the text: 3 or 5;
 *                 1..15 as an option beyond the text)
 *   target        a round is won by the first total over this (350; 0..10000)
 *   packs         0: the points game; N > 0: the "packs" variant, one point per
 *                 deal won (0..20)
 *   pack_scoring  the packs variant's count: "manche" (default), each pack is a
 *                 round won by more deals won on it, the first to win N packs
 *                 wins; "total", N packs are played, more deals won wins
 */
#ifndef TAPIS_ASPOINT3_ASPOINT3_H
#define TAPIS_ASPOINT3_ASPOINT3_H

#include "core/game.h"

/* A card: suit * 13 + rank, rank 0 = ace, 1..9 = 2..10, 10 J, 11 Q, 12 K;
 * suits S, H, D, C. Names: "AS", "10H", "QD", "2C"... */
typedef uint8_t ap3_card_t;

enum {
    AP3_DECK = 52,
    AP3_RANKS = 13,
    AP3_ACE = 0,
    AP3_THREE = 2,
    AP3_NONE = 0xff,       /* no card */
    AP3_BONUS_AT = 210,    /* the first to reach this in a round... */
    AP3_BONUS_UNDER = 200, /* ...gives an opponent under this... */
    AP3_BONUS = 30,        /* ...these points, once per round */
    AP3_CHALLENGE_EXTRA = 5,
    AP3_MAX_ROUNDS = 15,
};

static inline int ap3_rank(ap3_card_t c)
{
    return c % AP3_RANKS;
}

/* A card's value: ace 30, king 20, queen 15, jack 12, others their number. */
int ap3_card_value(ap3_card_t c);
/* Points of n cards: the sum, or with aces, aces * (30 + 3 * threes). */
int ap3_points(const ap3_card_t *cards, int n);
/* The name of a card ("AS", "10H"), or NULL when out of range. */
const char *ap3_card_name(ap3_card_t c);
/* The card a name stands for (case-insensitive), or -1. */
int ap3_card_parse(const char *name);

typedef enum ap3_phase {
    AP3_SWAP, /* the starter swaps one hidden card with the face-down card, or keeps */
    AP3_PICK, /* the other player takes the face-down or the face-up card */
    AP3_OVER,
} ap3_phase_t;

/* How the packs variant counts (option pack_scoring: its choices, in order). */
typedef enum ap3_pack_scoring {
    AP3_PACK_MANCHE, /* each pack is a round; the first to win `packs` of them wins */
    AP3_PACK_TOTAL,  /* `packs` packs; the most deals won in all wins */
} ap3_pack_scoring_t;

typedef struct ap3 {
    game_t base;
    /* options */
    int rounds, target, packs;
    ap3_pack_scoring_t pack_scoring;

    rng_t rng;
    ap3_card_t stock[AP3_DECK]; /* top is stock[nstock - 1] */
    int nstock;
    ap3_card_t discard[AP3_DECK]; /* the cards of the deals since the last shuffle */
    int ndiscard;
    ap3_card_t hand[2][2]; /* each player's two hidden cards, sorted */
    ap3_card_t up, down;   /* the centre cards */

    int starter; /* the seat that starts this deal */
    ap3_phase_t phase;
    ap3_card_t swapped_out; /* the card the starter put face down, or AP3_NONE */

    int score[2];     /* this round's totals (packs: deals won in this pack, or
                         in the game when pack_scoring is total) */
    int total[2];     /* the sum of round scores (packs by manche: packs won) */
    int round;        /* 1-based (packs by manche: the pack) */
    int deal;         /* deals dealt in the game */
    int deal_in_pack; /* deals dealt since the last shuffle */
    int pack;         /* packs opened (packs variant: the current one) */
    int bonus_by;     /* the seat that reached 210 first this round, or -1 */

    /* Both immutable once stored (views and results share them): replaced,
     * never changed in place. */
    game_shared_t last_deal; /* the reveal of the last deal, or none */
    game_log_t history;      /* one entry per finished round (packs by manche: per pack) */
    int winners;             /* bit mask, once over */
} ap3_t;

extern const game_desc_t aspoint3_desc;

/* --- for tests: hand-built states --- */

/*
 * Set the current deal: seat 0's two cards, seat 1's two, the face-up and the
 * face-down centre cards (names such as "AS 3H"). The cards in hand and in the
 * centre go back to the stock, then the named ones are taken from it, so every
 * card stays accounted for. Only in the swap phase. Returns -1 if a card is
 * unknown or not in the stock.
 */
int ap3_set_deal(ap3_t *g, const char *hand0, const char *hand1, const char *up, const char *down);
/* Put the named cards on top of the stock (the last named on top). */
int ap3_stack(ap3_t *g, const char *names);

#endif
