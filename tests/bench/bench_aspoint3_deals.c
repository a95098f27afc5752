/*
 * bench_aspoint3_deals.c — what a bot level gains over greedy in As.point3,
 * deal by deal: GAMES games of greedy against greedy are played (2 players,
 * the points game); at each deal, the deal is played from the same cards
 * twice in one seat, once with STRATEGY and once with greedy (the other seat
 * greedy, with the same generator both times), as the starter and as the
 * picker. Prints the mean gain of the seat's lead (the totals and this
 * round's scores) a deal, with its 95% interval, per role, and how often the
 * level chose otherwise than greedy. Far less noisy than games won
 * (bench_bot_levels): most deals' choices agree, and the cards are the same.
 *
 * STRATEGY "bound": no level is played; at each choice of those games, what
 * the best reply to greedy gains over greedy's own choice in expectation, by
 * hard's weighing of every deal the seat's view allows (ap3_exact_means,
 * the lead the deal leaves): the most points a deal that any bot deciding
 * from its view can gain against greedy, which plays the same whatever the
 * scores (every card of a deal is discarded whatever is chosen, so no choice
 * changes the deals to come).
 *
 *   bench_aspoint3_deals [GAMES [STRATEGY]]     (20, "hard")
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/aspoint3/internal.h"

/* seat's lead over the game: the totals, then this round's scores */
static int lead(const ap3_t *a, int seat)
{
    return a->total[seat] - a->total[1 - seat] + a->score[seat] - a->score[1 - seat];
}

/* The deal of g played with `me` at `strategy`: the change of its lead;
 *other += 1 when its first choice was not greedy's. */
static int deal(const game_t *g0, int me, const char *strategy, uint64_t seed, int *other)
{
    game_t *g = game_copy(g0);
    if (!g) exit(2);
    ap3_t *a = (ap3_t *)g;
    int before = lead(a, me), at = a->deal;
    rng_t r[2];
    rng_seed(&r[0], seed);
    rng_seed(&r[1], seed + 1);
    while (!game_is_over(g) && a->deal == at) {
        int seat = ap3_turn(a);
        json_t *v = game_view(g, seat);
        json_t *act = game_bot(&aspoint3_desc, v, seat == me ? strategy : "greedy", &r[seat == me]);
        if (other && seat == me) {
            rng_t q;
            rng_seed(&q, seed);
            json_t *gr = ap3_greedy(v, json_object_get(v, "legal"), "greedy", &q);
            *other += !json_equal(gr, act);
            json_decref(gr);
            other = NULL;
        }
        game_error_t err;
        if (game_apply(g, seat, act, 0, &err)) {
            fprintf(stderr, "refused: %s\n", err.message);
            exit(1);
        }
        json_decref(act);
        json_decref(v);
    }
    int d = lead(a, me) - before;
    game_free(g);
    return d;
}

/* The expected gain of the best reply over greedy's choice `gr` from view v. */
static double best_gain(const json_t *v, const json_t *gr, rng_t *rng, int *other)
{
    double mean[3];
    ap3_act_t act[3];
    int m = ap3_exact_means(v, true, rng, mean, act), at = -1, best = 0;
    for (int k = 0; k < m; k++) {
        json_t *a = ap3_act_json(&act[k]);
        if (json_equal(a, gr)) at = k;
        json_decref(a);
        if (mean[k] > mean[best]) best = k;
    }
    if (at < 0) exit(3);
    *other += mean[best] > mean[at];
    return mean[best] - mean[at];
}

int main(int argc, char **argv)
{
    int games = argc > 1 ? atoi(argv[1]) : 20;
    const char *strategy = argc > 2 ? argv[2] : "hard";
    bool bound = strcmp(strategy, "bound") == 0;
    double sum[2] = {0}, sq[2] = {0};
    int n[2] = {0}, other[2] = {0};
    for (int i = 0; i < games; i++) {
        game_error_t err;
        game_t *g = game_new(&aspoint3_desc, 2, NULL, 1000 + (uint64_t)i, &err);
        if (!g) return 1;
        ap3_t *a = (ap3_t *)g;
        rng_t r;
        rng_seed(&r, (uint64_t)i * 7 + 3);
        while (!game_is_over(g)) {
            for (int role = 0; role < 2 && a->phase == AP3_SWAP && !bound; role++) {
                int me = role == 0 ? a->starter : 1 - a->starter;
                uint64_t seed = (uint64_t)i * 100003 + (uint64_t)a->deal * 17 + (uint64_t)role;
                double x =
                    deal(g, me, strategy, seed, &other[role]) - deal(g, me, "greedy", seed, NULL);
                sum[role] += x;
                sq[role] += x * x;
                n[role]++;
            }
            int seat = ap3_turn(a);
            json_t *v = game_view(g, seat);
            json_t *act = ap3_greedy(v, json_object_get(v, "legal"), "greedy", &r);
            if (bound) {
                int role = a->phase == AP3_PICK;
                double x = best_gain(v, act, &r, &other[role]);
                sum[role] += x;
                sq[role] += x * x;
                n[role]++;
            }
            game_apply(g, seat, act, 0, &err);
            json_decref(act);
            json_decref(v);
        }
        game_free(g);
    }
    for (int role = 0; role < 2; role++) {
        double m = sum[role] / n[role], se = sqrt((sq[role] / n[role] - m * m) / n[role]);
        printf("%s as %s: %+.2f ± %.2f points a deal over greedy (%d deals, %d choices not "
               "greedy's)\n",
               strategy, role ? "picker" : "starter", m, 1.96 * se, n[role], other[role]);
    }
    if (n[0] && n[1])
        printf("a deal, as either (each seat is each one deal in two): %+.2f points\n",
               (sum[0] / n[0] + sum[1] / n[1]) / 2);
    return 0;
}
