/* internal.h — what the files of core/slap share and nobody else needs. */
#ifndef TAPIS_SLAP_INTERNAL_H
#define TAPIS_SLAP_INTERNAL_H

#include "core/slap/slap.h"

typedef enum slap_act_type {
    SLAP_ACT_PLAY, /* a column's face-up top card onto a discard pile */
    SLAP_ACT_TURN, /* turn up a column's face-down top card */
    SLAP_ACT_MOVE, /* a column's face-up top card into an empty column */
    SLAP_ACT_SLAP, /* slap a discard pile at the end of the round */
} slap_act_type_t;

/* An action, parsed. */
typedef struct slap_act {
    slap_act_type_t type;
    int column; /* play, turn, move */
    int pile;   /* play, slap */
    int to;     /* move */
} slap_act_t;

/* actions.c */
int slap_parse(const json_t *action, slap_act_t *a, game_error_t *err);
game_seat_write_fn slap_legal;
/* Does `seat` have any legal action? (what legal() lists, without building it) */
bool slap_can_act(const slap_t *g, int seat);

/* slap.c */
/* A snapshot of g into copy: the struct, and a reference on its shared parts. */
int slap_check(const slap_t *g, int seat, const slap_act_t *a, game_error_t *err);
void slap_event(slap_t *g, json_t *ev);
void slap_update_stall(slap_t *g, int64_t t);

/* view.c: the descriptor's view_public, view_seat, dump, resample and audit */
game_write_fn slap_view_public;
game_seat_write_fn slap_view_seat;
game_dump_fn slap_dump;
game_resample_fn slap_resample;
game_audit_fn slap_audit;

/* search.c: the kit's search (core/search.h) over the game: the "easy" and
   "hard" levels; bot.c: its greedy strategy, the playouts' policy */
extern const struct game_search slap_search;
game_strategy_fn slap_greedy;

#endif
