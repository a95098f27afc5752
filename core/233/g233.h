/*
 * g233.h — the state of a 233 table, exposed for the game's own files and
 * its tests (hand-built states). Everyone else uses core/game.h.
 *
 * Rules: ../../shared/seeds/000 (French, authoritative) and 001 (English);
 * what is implemented, and every interpretation, is in RULES.md beside this.
 * Options (the table g233_options in g233.c):
 *   dispute_ms       claims received within this many ms of the first make a dispute (200)
 *   max_rebuilds     a round ends with no winner when the draw pile runs out after
 *                    this many rebuilds (3)
 *   target           the game ends after a round in which a total passes this (233)
 *   claim_sequences  out-of-turn claims may also form a sequence (English text; false)
 *   declare          "must": a winning combination at the end of a turn is declared by
 *                    the game; "may": declaring is the player's choice ("must")
 *   take             "claim": the turn player takes the top discard on a claim's
 *                    conditions (a meld laid at once, or a winning combination);
 *                    "draw": as a plain draw ("claim")
 */
#ifndef TAPIS_233_G233_H
#define TAPIS_233_G233_H

#include "core/game.h"
#include "core/233/cards.h"
#include "core/233/score.h"

#define G233_MAX_SEATS 6
#define G233_MAX_MELDS 6
#define G233_EVENTS 8

typedef enum g233_phase {
    G233_PH_DRAW,    /* the turn player draws (or takes the discard, or declares) */
    G233_PH_GIFT,    /* the turn player holds a drawn gift to place */
    G233_PH_DISCARD, /* the turn player discards (or lays a square) */
    G233_PH_OVER,
} g233_phase_t;

typedef enum g233_claim_kind {
    G233_CLAIM_TAKE, /* the turn player's plain take (option take = "draw") */
    G233_CLAIM_MELD,
    G233_CLAIM_FINAL
} g233_claim_kind_t;

typedef struct g233_claim {
    int seat;
    g233_claim_kind_t kind;
    bool take;         /* made by the turn player (action take), not out of turn */
    g233_group_t meld; /* G233_CLAIM_MELD: the cards from hand plus the discard */
    int64_t at;
} g233_claim_t;

typedef struct g233_player {
    g233_hand_t hand;
    g233_group_t melds[G233_MAX_MELDS];
    int nmelds;
    int squares;    /* squares laid this round: each lets the player hold one card more */
    int gifts_plus; /* gift cards lying face up in front of the player this round */
    int gifts_minus;
    int score;      /* game total; gifts count at once */
    int last_drawn; /* kind of the last card this player drew from the pile this round, or -1 */
    int to_place;   /* dealt -5 gifts still in hand, to give before the dealer's first draw */
    bool last_done; /* made their last draw after a declaration */
} g233_player_t;

typedef struct g233 {
    game_t base;
    /* options */
    int dispute_ms, max_rebuilds, target;
    bool claim_sequences;
    bool declare_must; /* option declare: "must" (true) or "may" */
    bool take_draw;    /* option take: "draw" (true) or "claim" */

    rng_t rng;
    g233_card_t draw[G233_DECK]; /* top is draw[ndraw - 1] */
    int ndraw;
    g233_card_t discard[G233_DECK]; /* top is discard[ndiscard - 1] */
    int ndiscard;
    int discarder; /* seat that discarded the top card; -1 for the turned-up card */
    g233_player_t p[G233_MAX_SEATS];

    int round, dealer, turn, dir, rebuilds;
    g233_phase_t phase;
    bool open;     /* the top discard may still be taken or claimed */
    bool must_win; /* the turn player claimed the discard to complete a combination */
    int drawn;     /* cards the turn player drew (or took) this turn */

    g233_claim_t claims[G233_MAX_SEATS]; /* pending claims, in order received */
    int nclaims;
    int64_t window_end;

    int declarer; /* -1 until a player declares */
    g233_combo_t declared;

    game_shared_t last_round; /* summary of the previous round (hands revealed), or none */
    game_log_t events;        /* the last public events, oldest first (as text) */
    int winners;              /* bit mask, once over */
} g233_t;

extern const game_desc_t g233_desc;

/* --- for tests: hand-built states --- */

/* Parse "Y1 Y2 red joker" into a hand; returns -1 on an unknown name. */
int g233_hand_parse(g233_hand_t *h, const char *names);
/*
 * Give `seat` exactly the cards named, taking them from the draw pile and
 * putting the seat's old hand back into it (so every card stays accounted
 * for). A "gift-5" named is a dealt -5 still to place (to_place). Returns -1
 * if the pile lacks a card.
 */
int g233_give_hand(g233_t *g, int seat, const char *names);
/* Put the named card on top of the draw pile (taken from the pile). */
int g233_stack_draw(g233_t *g, const char *name);
/* Put the named card on top of the discard pile (taken from the draw pile). */
int g233_stack_discard(g233_t *g, const char *name, int discarder);

/* Bit mask of the seats holding a dealt -5 still to place (0 once all are
   placed). Inline: every check and view asks. */
static inline unsigned g233_placing(const g233_t *g)
{
    unsigned mask = 0;
    for (int s = 0; s < g->base.seats; s++)
        if (g->p[s].to_place) mask |= 1u << s;
    return mask;
}

#endif
