/* internal.h — what the files of core/aspoint3 share and nobody else needs. */
#ifndef TAPIS_ASPOINT3_INTERNAL_H
#define TAPIS_ASPOINT3_INTERNAL_H

#include "core/aspoint3/aspoint3.h"

typedef enum ap3_act_type { AP3_ACT_SWAP, AP3_ACT_KEEP, AP3_ACT_PICK } ap3_act_type_t;

/* An action, parsed. */
typedef struct ap3_act {
    ap3_act_type_t type;
    int card; /* swap: the card given up */
    bool up;  /* pick: the face-up card (a challenge) */
} ap3_act_t;

/* actions.c */
int ap3_parse(const json_t *action, ap3_act_t *a, game_error_t *err);
json_t *ap3_act_json(const ap3_act_t *a);
game_seat_write_fn ap3_legal;

/* aspoint3.c */
/* A snapshot of g into copy: the struct, and a reference on its shared parts. */
int ap3_check(const ap3_t *g, int seat, const ap3_act_t *a, game_error_t *err);
void ap3_run(ap3_t *g, int seat, const ap3_act_t *a);
/* The seat the game waits on, or -1 once over. */
int ap3_turn(const ap3_t *g);
/* The option pack_scoring's value: "manche" or "total". */
const char *ap3_pack_scoring_name(const ap3_t *g);

/* view.c: the descriptor's view_public, view_seat, dump, resample and audit */
json_t *ap3_cards_json(const ap3_card_t *cards, int n);
json_t *ap3_card_json(ap3_card_t c); /* a name, or null for AP3_NONE */
game_write_fn ap3_view_public;
game_seat_write_fn ap3_view_seat;
game_dump_fn ap3_dump;
game_resample_fn ap3_resample;
game_audit_fn ap3_audit;

/* search.c: the kit's search (core/search.h) over the game: the "easy" and
   "hard" levels; bot.c: its greedy strategy, the playouts' policy */
extern const struct game_search ap3_search;
game_strategy_fn ap3_greedy;
/* greedy's value of the starter's choice: keep (give < 0) or give card `give`
   for the face-down one, over the n cards the starter cannot see */
long ap3_starter_value(const ap3_card_t h[2], int up, int give, const ap3_card_t *unseen, int n);
/* greedy's choice as the picker holding h, the face-up card up, the cards it
   cannot see unseen[0..n-1] (reordered; n >= 3): true to challenge */
bool ap3_picker_challenges(const ap3_card_t h[2], int up, ap3_card_t *unseen, int n, bool packs,
                           rng_t *rng);
/*
 * hard's weighing (search.c) of the points game's move from `view` over every
 * deal it allows, the other seat playing greedy: each choice into act[] (the
 * starter: keep, give hand[0], give hand[1]; the picker: the face-down card,
 * the challenge), its mean value into mean[] (all 0 where no deal fits what
 * the starter did); their count, 0 when the view has no such choice (the
 * packs variant, not its turn). The value is the win chance, or with
 * `margin` the lead the deal leaves.
 */
int ap3_exact_means(const json_t *view, bool margin, rng_t *rng, double mean[3], ap3_act_t act[3]);

#endif
