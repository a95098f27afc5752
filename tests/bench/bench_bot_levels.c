/*
 * bench_bot_levels.c — the strength of the bot levels (core/search.h): per
 * game at 2 players, `hard` against `normal` and `normal` against `easy`,
 * N games each (1,000 by default) with the seats alternated, every seat
 * deciding from its own view as the server's bots do. Prints the stronger
 * level's share of the games (a draw counts half) with its 95% confidence
 * interval, its share of the points where a game ends in points, and the time
 * of the hard level's moves (p50, p99), by the wall clock and in CPU time
 * (the machine may be shared: the CPU time is the move's own cost). Benchmarks may read the clock;
 * core/ may not.
 *
 *   bench_bot_levels [GAMES [GAME_ID [STRONG WEAK [FROM]]]]
 *
 * FROM (0 by default) skips the games before it: a long run split in two
 * (0..N/2 and N/2..N, both of N games) plays the same games as one run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/game.h"
#include "tests/lib/playout.h"

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double seconds(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

typedef struct {
    double *ms; /* the hard level's move times */
    size_t n, cap;
} times_t;

static void time_add(times_t *t, double ms)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 1024;
        t->ms = realloc(t->ms, t->cap * sizeof *t->ms);
        if (!t->ms) exit(2);
    }
    t->ms[t->n++] = ms;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double quantile(const times_t *t, double q)
{
    return t->n ? t->ms[(size_t)(q * (double)(t->n - 1))] : 0;
}

/* The seats of one game: their strategies, generators and the hard move's times. */
typedef struct {
    const game_desc_t *d;
    const char *const *strategy;
    rng_t bots[2];
    times_t *hard; /* [2]: wall clock, CPU */
} table_t;

/* Seat's choice from its view, timed when it is the hard level's with a choice. */
static json_t *decide(void *ctx, game_t *g, int seat, json_t *view)
{
    table_t *t = ctx;
    (void)g;
    bool timed = strncmp(t->strategy[seat], "hard", 4) == 0 &&
                 json_array_size(json_object_get(view, "legal")) > 1;
    double t0 = seconds(), c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    json_t *a = game_bot(t->d, view, t->strategy[seat], &t->bots[seat]);
    if (timed) {
        time_add(&t->hard[0], (seconds() - t0) * 1000);
        time_add(&t->hard[1], (clock_s(CLOCK_THREAD_CPUTIME_ID) - c0) * 1000);
    }
    return a;
}

/*
 * One game: strategy[s] plays seat s. Returns seat 0's share of the win (1,
 * 0.5 for a draw or a shared win, 0) and sets *points to its share of the
 * points (when the result has two non-negative "scores").
 */
static double play(const game_desc_t *d, uint64_t seed, const char *const strategy[2],
                   times_t hard[2], double *points)
{
    game_error_t err;
    game_t *g = game_new(d, 2, NULL, seed, &err);
    if (!g) {
        fprintf(stderr, "%s: %s\n", d->id, err.message);
        exit(1);
    }
    table_t c = {.d = d, .strategy = strategy, .hard = hard};
    rng_t order;
    rng_seed(&c.bots[0], seed * 2 + 1);
    rng_seed(&c.bots[1], seed * 2 + 2);
    rng_seed(&order, seed ^ 0x9e3779b97f4a7c15u);
    /* The order of the search's own playouts (core/search.h): a move that
       follows the last one at once first (seqnum's draw: the server's bots
       make it without their reaction time); then one of the seats the game
       waits on, drawn at random, unless the other comes first (a claim, a
       slap), one time in four. */
    json_t *refused;
    int seat;
    if (playout_play(g, 100000, &order, decide, &c, &refused, &seat, &err)) {
        fprintf(stderr, "%s: %s refused: %s\n", d->id, strategy[seat], err.message);
        exit(1);
    }
    json_t *r = game_result(g);
    json_t *win = json_object_get(r, "winners");
    bool w0 = false, w1 = false;
    size_t i;
    json_t *x;
    json_array_foreach(win, i, x)
    {
        w0 |= json_integer_value(x) == 0;
        w1 |= json_integer_value(x) == 1;
    }
    json_t *sc = json_object_get(r, "scores");
    json_int_t s0 = json_integer_value(json_array_get(sc, 0));
    json_int_t s1 = json_integer_value(json_array_get(sc, 1));
    if (json_array_size(sc) == 2 && s0 >= 0 && s1 >= 0 && s0 + s1 > 0) {
        *points = (double)s0 / (double)(s0 + s1);
    }
    json_decref(r);
    game_free(g);
    return w0 == w1 ? 0.5 : w0 ? 1 : 0;
}

/* A row of the table after `games` games (sorts the times). */
static void row(FILE *f, const game_desc_t *d, const char *strong, const char *weak, int games,
                double share, double points, int pointed, times_t hard[2], double t0)
{
    double p = share / games, half = 1.96 * sqrt(p * (1 - p) / games);
    for (int k = 0; k < 2; k++)
        qsort(hard[k].ms, hard[k].n, sizeof *hard[k].ms, by_value);
    fprintf(f, "| %s | %s vs %s | %d | %.1f%% ± %.1f |", d->id, strong, weak, games, 100 * p,
            100 * half);
    if (pointed == games)
        fprintf(f, " %.1f%% |", 100 * points / pointed);
    else
        fprintf(f, " – |");
    for (int k = 0; k < 2; k++)
        if (hard[k].n)
            fprintf(f, " %.1f / %.1f ms |", quantile(&hard[k], 0.5), quantile(&hard[k], 0.99));
        else
            fprintf(f, " – |");
    fprintf(f, " %.0f s |\n", seconds() - t0);
    fflush(f);
}

/* Games from..games-1, the stronger level at seat 0 then 1 on each seed; a row on
   stderr every 2 games (a long run can be read while it goes), the last on stdout. */
static void match(const game_desc_t *d, const char *strong, const char *weak, int from, int games)
{
    times_t hard[2] = {{0}}; /* wall clock, CPU */
    double share = 0, points = 0, t0 = seconds();
    int pointed = 0;
    for (int i = from; i < games; i++) {
        int at = i % 2; /* the stronger level's seat */
        const char *strategy[2];
        strategy[at] = strong;
        strategy[1 - at] = weak;
        double p = -1, s0 = play(d, (uint64_t)(i / 2) + 1, strategy, hard, &p);
        share += at == 0 ? s0 : 1 - s0;
        if (p >= 0) {
            points += at == 0 ? p : 1 - p;
            pointed++;
        }
        if ((i + 1) % 2 == 0 && i + 1 < games)
            row(stderr, d, strong, weak, i + 1 - from, share, points, pointed, hard, t0);
    }
    row(stdout, d, strong, weak, games - from, share, points, pointed, hard, t0);
    free(hard[0].ms);
    free(hard[1].ms);
}

int main(int argc, char **argv)
{
    int games = argc > 1 ? atoi(argv[1]) : 1000;
    const char *only = argc > 2 ? argv[2] : NULL;
    int n;
    const game_desc_t *const *all = game_registry(&n);
    printf("| game | levels | games | stronger's wins (95%% CI) | stronger's points | hard move "
           "p50 / p99, wall | the same, CPU | run |\n|---|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < n; k++) {
        if (only && strcmp(only, all[k]->id) != 0) continue;
        if (argc > 4) {
            int from = argc > 5 ? atoi(argv[5]) : 0;
            match(all[k], argv[3], argv[4], from >= 0 && from < games ? from : 0, games);
            continue;
        }
        match(all[k], "hard", "greedy", 0, games);
        match(all[k], "greedy", "easy", 0, games);
    }
    return 0;
}
