/*
 * bench_233_games.c — whole games of 233 per second, through the public game
 * interface: every seat played by the greedy bot from its own view (what the
 * server's bots do), and every seat playing uniformly random legal actions.
 * Prints games/s and actions/s. Benchmarks may read the clock; core/ may not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/game.h"

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Play one game; returns the number of actions applied. */
static long play(const game_desc_t *d, int seats, uint64_t seed, const char *strategy)
{
    game_error_t err;
    game_t *g = game_new(d, seats, NULL, seed, &err);
    rng_t r;
    rng_seed(&r, seed);
    long actions = 0;
    int64_t now = 0;
    while (!game_is_over(g)) {
        now += 50;
        if (game_next_deadline(g) <= now) game_tick(g, now);
        /* Out-of-turn claims first (seats with a legal action other than the
         * turn player), as server bots would race for a discard. */
        unsigned w = game_waiting(g);
        int seat = w ? __builtin_ctz(w) : 0;
        json_t *a = NULL;
        for (int k = 1; k <= seats && !a; k++) {
            seat = (__builtin_ctz(w ? w : 1) + k) % seats;
            json_t *legal = game_legal(g, seat);
            if (json_array_size(legal) && (k == seats || rng_below(&r, 4) == 0)) {
                json_t *view = game_view(g, seat);
                a = game_bot(d, view, strategy, &r);
                json_decref(view);
            }
            json_decref(legal);
        }
        if (!a) { /* waiting for a deadline */
            now = game_next_deadline(g);
            game_tick(g, now);
            continue;
        }
        if (game_apply(g, seat, a, now, &err)) {
            fprintf(stderr, "refused: %s\n", err.message);
            exit(1);
        }
        json_decref(a);
        actions++;
    }
    game_free(g);
    return actions;
}

int main(void)
{
    const game_desc_t *d = game_find("233");
    const char *strategies[] = {"greedy", "random"};
    int games[] = {100, 10};
    for (int k = 0; k < 2; k++)
        for (int seats = 2; seats <= 6; seats += 2) {
            double t0 = seconds();
            long actions = 0;
            for (int i = 0; i < games[k]; i++)
                actions += play(d, seats, (uint64_t)i + 1, strategies[k]);
            double dt = seconds() - t0;
            printf("233 %d seats, %s bots: %.1f games/s, %.0f actions/s (%d games, %ld actions)\n",
                   seats, strategies[k], games[k] / dt, actions / dt, games[k], actions);
        }
    return 0;
}
