/* internal.h — what the files of core/seqnum share and nobody else needs. */
#ifndef TAPIS_SEQNUM_INTERNAL_H
#define TAPIS_SEQNUM_INTERNAL_H

#include "core/seqnum/seqnum.h"

typedef enum seqnum_act_type {
    SEQNUM_ACT_PLAY,
    SEQNUM_ACT_TRADE,
    SEQNUM_ACT_DRAW,
    SEQNUM_ACT_PASS
} seqnum_act_type_t;

/* An action, parsed. */
typedef struct seqnum_act {
    seqnum_act_type_t type;
    int card; /* play, trade: a card kind */
    int cell; /* play: 0..99, or -1 when out of range */
} seqnum_act_t;

/* actions.c */
int seqnum_parse(const json_t *action, seqnum_act_t *a, game_error_t *err);
game_seat_write_fn seqnum_legal;
/* Calls out(a) for every play the turn seat may make, in the order legal()
   lists them; stops (and returns true) when out returns true. */
bool seqnum_each_play(const seqnum_t *g, int seat, bool (*out)(const seqnum_act_t *, void *),
                      void *ctx);
/* Has the turn seat a card it can play now? */
bool seqnum_can_play(const seqnum_t *g, int seat);

/* seqnum.c */
/* A snapshot of g into copy: the struct, and a reference on its shared parts. */
int seqnum_check(const seqnum_t *g, int seat, const seqnum_act_t *a, game_error_t *err);
void seqnum_run(seqnum_t *g, int seat, const seqnum_act_t *a);
bool seqnum_holds(const seqnum_player_t *p, int kind);
/* Hands are kept sorted by kind. */
void seqnum_hand_add(seqnum_player_t *p, int kind);
void seqnum_hand_remove(seqnum_player_t *p, int kind);

/* view.c: the descriptor's view_public, view_seat, dump, resample and audit */
game_write_fn seqnum_view_public;
game_seat_write_fn seqnum_view_seat;
game_dump_fn seqnum_dump;
game_resample_fn seqnum_resample;
game_audit_fn seqnum_audit;

/* search.c: the kit's search (core/search.h) over the game: the "easy" and
   "hard" levels; bot.c: its greedy strategy, the playouts' policy */
extern const struct game_search seqnum_search;
game_strategy_fn seqnum_greedy;
/* The greedy strategy's action for seat, read from the state (the search's
   playouts: the same choice as seqnum_greedy() on seat's view, without it). */
void seqnum_greedy_act(const seqnum_t *g, int seat, seqnum_act_t *a);

#endif
