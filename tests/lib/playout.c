/* playout.c — see playout.h. */
#include "tests/lib/playout.h"

#include "core/search.h"

typedef struct {
    playout_move_t *move;
    void *ctx;
    game_t *g;
} adapter_t;

static json_t *decide(void *ctx, int seat, const json_t *view)
{
    adapter_t *a = ctx;
    return a->move(a->ctx, a->g, seat, (json_t *)view);
}

/* One step at *now (playout_play()): the action chosen, with *seat, or NULL
   (the game is over, or the clock has jumped to the next deadline, or to
   GAME_NO_DEADLINE when there is none). The order of the seats is the
   search's own (core/search.h: game_search_next_move()). */
static json_t *step(game_t *g, int64_t *now, rng_t *order, playout_move_t *move, void *ctx,
                    int *seat)
{
    *now += 50;
    if (game_next_deadline(g) <= *now) game_tick(g, *now);
    if (game_is_over(g)) return NULL;
    adapter_t ad = {move, ctx, g};
    json_t *a = game_search_next_move(g, order, decide, &ad, seat);
    if (!a) {
        *now = game_next_deadline(g);
        if (*now != GAME_NO_DEADLINE) game_tick(g, *now);
    }
    return a;
}

int playout_play(game_t *g, long max_moves, rng_t *order, playout_move_t *move, void *ctx,
                 json_t **refused, int *seat, game_error_t *err)
{
    int64_t now = 0;
    for (long moves = 0; !game_is_over(g) && moves < max_moves; moves++) {
        json_t *a = step(g, &now, order, move, ctx, seat);
        if (!a) {
            if (now == GAME_NO_DEADLINE) break;
            continue;
        }
        if (game_apply(g, *seat, a, now, err)) {
            *refused = a;
            return -1;
        }
        json_decref(a);
    }
    return 0;
}
