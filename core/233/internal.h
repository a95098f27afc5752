/* internal.h — what the files of core/233 share and nobody else needs. */
#ifndef TAPIS_233_INTERNAL_H
#define TAPIS_233_INTERNAL_H

#include "core/233/g233.h"

typedef enum g233_act_type {
    G233_ACT_DRAW,
    G233_ACT_TAKE,
    G233_ACT_DECLARE,
    G233_ACT_DISCARD,
    G233_ACT_LAY,
    G233_ACT_CLAIM,
    G233_ACT_GIFT,
} g233_act_type_t;

/* An action, parsed. */
typedef struct g233_act {
    g233_act_type_t type;
    g233_card_t cards[4]; /* claim (cards from hand), lay */
    int ncards;
    int card;     /* discard */
    bool declare; /* discard and declare */
    bool final;   /* claim to complete a winning combination */
    int to;       /* gift: target seat, or -1 */
} g233_act_t;

/* actions.c */
int g233_parse(const json_t *action, g233_act_t *a, game_error_t *err);
game_seat_write_fn g233_legal;

/* deal.c */
/* A new round: every card back, shuffled and dealt; `dealer` opens. */
void g233_start_round(g233_t *g, int dealer);

/* g233.c */
/* A snapshot of g into copy: the struct, and a reference on its shared parts. */
/* The claim-independent conditions of an out-of-turn claim. */
int g233_claim_gate(const g233_t *g, int seat, game_error_t *err);
int g233_check(const g233_t *g, int seat, const g233_act_t *a, game_error_t *err);
/*
 * Which discards leave the turn player a combination a discard may declare,
 * worked out once for a whole legal list: checking each candidate discard
 * alone tried every other discard (declare=must), about 150 combinations
 * per list. g233_check_with() is g233_check() with such a memo (zeroed by
 * the caller, filled on first use, for one state and seat).
 */
/* A JSON text made at compile time, and its length. */
typedef struct g233_text {
    const char *text;
    size_t n;
} g233_text_t;

typedef struct g233_discard_memo {
    bool known;
    uint64_t wins; /* bit c: discarding card kind c (held, not a gift) wins */
} g233_discard_memo_t;
int g233_check_with(const g233_t *g, int seat, const g233_act_t *a, game_error_t *err,
                    g233_discard_memo_t *memo);
void g233_run(g233_t *g, int seat, const g233_act_t *a, int64_t now);
int g233_next(const g233_t *g, int seat, int k);
void g233_event(g233_t *g, json_t *ev);
g233_combo_t g233_combo(const g233_t *g, int seat, const g233_hand_t *h);

/* view.c: the descriptor's view_public, view_seat, dump, resample and audit */
json_t *g233_cards_json(const g233_card_t *cards, int n);
void g233_write_cards(jw_t *w, const char *key, const g233_card_t *cards, int n);
json_t *g233_hand_json(const g233_hand_t *h);
game_write_fn g233_view_public;
game_seat_write_fn g233_view_seat;
game_dump_fn g233_dump;
game_resample_fn g233_resample;
game_audit_fn g233_audit;

/* search.c: the kit's search (core/search.h) over the game: the "easy" and
   "hard" levels; bot.c: its greedy strategy, the playouts' policy */
extern const struct game_search g233_search;
game_strategy_fn g233_greedy;

#endif
