/*
 * playout.h — the 2-seat playout that the bot levels' benchmark (tests/bench/bench_bot_levels.c)
 * and test (tests/core/ test_bot_levels.c) share: the same order of seats, so that what the test
 * checks is what the benchmark measures.
 */
#ifndef TAPIS_TESTS_PLAYOUT_H
#define TAPIS_TESTS_PLAYOUT_H

#include <stdint.h>

#include "core/game.h"

/* The action seat `seat` takes from its `view` (which has legal actions): a
   new reference, or NULL (the seat passes its turn to the other). */
typedef json_t *playout_move_t(void *ctx, game_t *g, int seat, json_t *view);

/*
 * Play g out, at most `max_moves` steps, from room time 0. Each step the
 * clock goes on 50 ms (a deadline that falls due is ticked); then the
 * seats come in the order of the search's own playouts
 * (game_search_next_move() in core/search.h), drawn from `order`. move() is
 * asked for the action of the first of them whose view has legal actions,
 * and it is applied; when there is none,
 * the clock jumps to the next deadline, and the game ends there when there
 * is none.
 *
 * Returns 0, or -1 when the game refused an action: then *refused is that
 * action (the caller's to free), *seat the seat that chose it, err why.
 */
int playout_play(game_t *g, long max_moves, rng_t *order, playout_move_t *move, void *ctx,
                 json_t **refused, int *seat, game_error_t *err);

#endif
