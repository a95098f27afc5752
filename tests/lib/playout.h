/*
 * playout.h — the step of a 2-seat random playout that the bot levels'
 * benchmark (tests/bench/bench_bot_levels.c) and test (tests/core/
 * test_bot_levels.c) share: the same order of seats, so that what the test
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
 * One step at room time *now: the clock goes on 50 ms (a deadline that falls
 * due is ticked); then a move that follows the last one at once comes first
 * (seqnum's draw: the server's bots make it without their reaction time),
 * else the seat the game waits on, unless the other comes first (a claim, a
 * slap) one time in four, as `order` draws it. move() is asked for the
 * action of the first of them whose view has legal actions.
 *
 * Returns that action (a new reference: the caller applies it at *now) with
 * its *seat, or NULL when there is none: the game is over, or the clock has
 * jumped to the next deadline and ticked it, or there is none
 * (*now == GAME_NO_DEADLINE: nothing more will happen).
 */
json_t *playout_step(game_t *g, int64_t *now, rng_t *order, playout_move_t *move, void *ctx,
                     int *seat);

#endif
