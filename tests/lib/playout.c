/* playout.c — see playout.h. */
#include "tests/lib/playout.h"

/* One step at *now (playout_play()): the action chosen, with *seat, or NULL
   (the game is over, or the clock has jumped to the next deadline, or to
   GAME_NO_DEADLINE when there is none). */
static json_t *step(game_t *g, int64_t *now, rng_t *order, playout_move_t *move, void *ctx,
                    int *seat)
{
    *now += 50;
    if (game_next_deadline(g) <= *now) game_tick(g, *now);
    if (game_is_over(g)) return NULL;
    unsigned w = game_waiting(g);
    int first = w ? __builtin_ctz(w) : (int)rng_below(order, 2);
    int now_seat = game_at_once(g, 0) ? 0 : game_at_once(g, 1) ? 1 : -1;
    json_t *a = NULL;
    for (int k = 1; k <= 2 && !a; k++) {
        int s = now_seat >= 0 ? now_seat : (first + k) % 2;
        if (now_seat < 0 && k < 2 && rng_below(order, 4) != 0) continue;
        json_t *view = game_view(g, s);
        if (json_array_size(json_object_get(view, "legal"))) {
            a = move(ctx, g, s, view);
            *seat = s;
        }
        json_decref(view);
    }
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
