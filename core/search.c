/*
 * search.c — the kit's "hard" (a determinized Monte Carlo search) and "easy"
 * (greedy with mistakes) levels of bot. search.h says what they do and why.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/search.h"
#include "include/tapis_alloc.h"

/* The time a playout's clock moves at each move (ms): a brisk table, as the
   games' benchmarks play it. */
#define PLAYOUT_STEP_MS 50

/* ------------------------------------------------------------------ */
/* Playouts                                                             */
/* ------------------------------------------------------------------ */

/*
 * The next move of a playout: a seat whose move follows its last one at once
 * (game_at_once: seqnum's draw) makes it, as built-in bots do; otherwise the
 * seat the game waits on plays, unless another seat with something to do (a
 * claim, a slap) comes first, each with odds of one in four, as bots racing
 * at a table would. NULL with *actor -1 when nobody can act (the table waits
 * for a deadline).
 */
static json_t *next_move(const game_t *g, const game_search_t *s, rng_t *r, int *actor)
{
    int n = g->seats;
    unsigned w = game_waiting(g);
    int first = w ? __builtin_ctz(w) : (int)rng_below(r, (uint32_t)n), now = -1;
    for (int t = 0; t < n && now < 0; t++)
        if (game_at_once(g, t)) now = t;
    *actor = -1;
    for (int k = 1; k <= n; k++) {
        int t = now >= 0 ? now : (first + k) % n;
        if (now < 0 && k < n && rng_below(r, 4) != 0) continue;
        json_t *view = game_view(g, t);
        const json_t *legal = json_object_get(view, "legal");
        json_t *a = json_array_size(legal) ? s->policy(view, legal, "greedy", r) : NULL;
        json_decref(view);
        if (a) {
            *actor = t;
            return a;
        }
    }
    return NULL;
}

/* Play g on from *now with every seat's greedy strategy; the end's value for seat. */
static double playout(game_t *g, int seat, const game_search_t *s, int stage, int64_t now, rng_t *r)
{
    for (int m = 0; m < s->max_moves; m++) {
        if (game_is_over(g) || (s->stage && s->stage(g) != stage)) break;
        now += PLAYOUT_STEP_MS;
        if (game_next_deadline(g) <= now) game_tick(g, now);
        if (game_is_over(g) || (s->stage && s->stage(g) != stage)) break;
        int actor;
        json_t *a = next_move(g, s, r, &actor);
        if (!a) {
            int64_t at = game_next_deadline(g);
            if (at == GAME_NO_DEADLINE) break; /* stuck: value it as it stands */
            now = at > now ? at : now;
            game_tick(g, now);
            continue;
        }
        game_error_t err;
        int refused = game_apply(g, actor, a, now, &err);
        json_decref(a);
        if (refused) break;
    }
    return s->value(g, seat);
}

/* ------------------------------------------------------------------ */
/* The search                                                           */
/* ------------------------------------------------------------------ */

/*
 * The actions searched: all of legal, or at most s->max_actions of it, the
 * greedy choice first and the others drawn at random. Their indexes into
 * pick[]; their count.
 */
static size_t candidates(const json_t *legal, const json_t *greedy, const game_search_t *s,
                         rng_t *rng, size_t *pick)
{
    size_t n = json_array_size(legal), m = 0, g = n;
    for (size_t i = 0; i < n; i++) {
        if (g == n && json_equal(json_array_get(legal, i), greedy)) g = i;
        pick[i] = i;
    }
    if (s->max_actions <= 0 || n <= (size_t)s->max_actions) return n;
    if (g < n) {
        pick[g] = pick[0];
        pick[0] = g;
        m = 1;
    }
    for (; m < (size_t)s->max_actions; m++) {
        size_t at = m + rng_below(rng, (uint32_t)(n - m));
        size_t t = pick[m];
        pick[m] = pick[at];
        pick[at] = t;
    }
    return m;
}

json_t *game_search_run(const json_t *view, const json_t *legal, const game_search_t *s, int budget,
                        rng_t *rng)
{
    size_t n = json_array_size(legal);
    json_t *greedy = s->policy(view, legal, "greedy", rng);
    if (n <= 1 || !greedy) return greedy;
    int seat = (int)json_integer_value(json_object_get(view, "seat"));
    double *sum = tapis_calloc(n, sizeof *sum);
    int *count = tapis_calloc(n, sizeof *count);
    size_t *pick = tapis_calloc(n, sizeof *pick);
    if (!sum || !count || !pick) {
        tapis_free(sum);
        tapis_free(count);
        tapis_free(pick);
        return greedy;
    }
    size_t m = candidates(legal, greedy, s, rng, pick);
    int samples = budget / (int)m > 0 ? budget / (int)m : 1;
    for (int j = 0; j < samples; j++) {
        uint64_t seed = rng_next(rng);
        for (size_t k = 0; k < m; k++) {
            size_t i = pick[k];
            rng_t r;
            rng_seed(&r, seed);
            game_t *g = s->from_view(view, &r);
            if (!g) continue;
            game_error_t err;
            int stage = s->stage ? s->stage(g) : 0;
            if (game_apply(g, seat, json_array_get(legal, i), 0, &err) == 0) {
                sum[i] += playout(g, seat, s, stage, 0, &r);
                count[i]++;
            }
            game_free(g);
        }
    }
    /* The best mean; the greedy choice keeps a tie (and wins when nothing ran). */
    size_t best = n;
    double best_mean = 0;
    for (size_t i = 0; i < n; i++) {
        if (!count[i]) continue;
        double mean = sum[i] / count[i];
        bool is_greedy = json_equal(json_array_get(legal, i), greedy);
        if (best == n || mean > best_mean || (mean == best_mean && is_greedy)) {
            best = i;
            best_mean = mean;
        }
    }
    tapis_free(sum);
    tapis_free(count);
    tapis_free(pick);
    if (best == n) return greedy;
    json_decref(greedy);
    return json_deep_copy(json_array_get(legal, best));
}

int game_search_budget(const char *strategy, int def)
{
    if (!strategy || strncmp(strategy, "hard", 4) != 0) return -1;
    if (strategy[4] == 0) return def;
    if (strategy[4] != '/') return -1;
    char *end;
    long n = strtol(strategy + 5, &end, 10);
    if (end == strategy + 5 || *end || n < 1 || n > GAME_SEARCH_MAX_PLAYOUTS) return -1;
    return (int)n;
}

/* ------------------------------------------------------------------ */
/* Levels                                                               */
/* ------------------------------------------------------------------ */

json_t *game_bot_easy(const json_t *view, const json_t *legal, rng_t *rng, game_strategy_fn *greedy)
{
    if (rng_below(rng, GAME_EASY_MISTAKE_EVERY) == 0)
        return json_deep_copy(
            json_array_get(legal, rng_below(rng, (uint32_t)json_array_size(legal))));
    return greedy(view, legal, "greedy", rng);
}

json_t *game_bot_search(const json_t *view, const char *strategy, rng_t *rng,
                        const game_search_t *s)
{
    char name[32];
    const char *colon = strategy ? strchr(strategy, ':') : NULL;
    snprintf(name, sizeof name, "%.*s", colon ? (int)(colon - strategy) : 31,
             strategy ? strategy : "greedy");
    const json_t *legal = json_object_get(view, "legal");
    if (json_array_size(legal) == 0) return NULL;
    if (strcmp(name, "random") == 0) return game_bot_random(view, rng);
    int budget = game_search_budget(name, s->playouts);
    if (budget > 0) return game_search_run(view, legal, s, budget, rng);
    if (strcmp(name, "easy") == 0) return game_bot_easy(view, legal, rng, s->policy);
    return s->policy(view, legal, strategy, rng);
}

/* ------------------------------------------------------------------ */
/* Reading a view                                                       */
/* ------------------------------------------------------------------ */

int game_search_int(const json_t *o, const char *key)
{
    return (int)json_integer_value(json_object_get(o, key));
}

int game_search_seat(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (int)json_integer_value(v) : -1;
}

bool game_search_deal(uint8_t *out, int n, uint8_t *pool, int *npool)
{
    if (n < 0 || n > *npool) return false;
    *npool -= n;
    memcpy(out, pool + *npool, (size_t)n);
    return true;
}
