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
 * The seat a table's move comes from first: one of the seats the game waits
 * on, drawn at random (with several, as in a race, none is favoured), or of
 * all seats when it waits on none.
 */
static int first_seat(unsigned w, int n, rng_t *r)
{
    int count = w ? __builtin_popcount(w) : n, pick = (int)rng_below(r, (uint32_t)count);
    if (!w) return pick;
    for (int t = 0;; t++)
        if ((w >> t & 1u) && pick-- == 0) return t;
}

json_t *game_search_next_move(const game_t *g, rng_t *order, game_decide_fn *decide, void *ctx,
                              int *actor)
{
    int n = g->seats, now = -1;
    int first = first_seat(game_waiting(g), n, order);
    for (int t = 0; t < n && now < 0; t++)
        if (game_at_once(g, t)) now = t;
    *actor = -1;
    for (int k = 1; k <= n; k++) {
        int t = now >= 0 ? now : (first + k) % n;
        if (now < 0 && k < n && rng_below(order, 4) != 0) continue;
        json_t *view = game_view(g, t);
        json_t *a = json_array_size(json_object_get(view, "legal")) ? decide(ctx, t, view) : NULL;
        json_decref(view);
        if (a) {
            *actor = t;
            return a;
        }
    }
    return NULL;
}

typedef struct {
    const game_search_t *s;
    rng_t *r;
} greedy_ctx_t;

/* A playout's seat: the game's greedy strategy. */
static json_t *greedy_decide(void *ctx, int seat, const json_t *view)
{
    (void)seat;
    greedy_ctx_t *c = ctx;
    return c->s->policy(view, json_object_get(view, "legal"), "greedy", c->r);
}

/* The stage g is in (game_search_t's stage_at), 0 for a game without stages. */
static int stage_of(const game_t *g, const game_search_t *s)
{
    return s->stage_at ? *(const int *)(const void *)((const char *)g + s->stage_at) : 0;
}

/* Play g on from *now with every seat's greedy strategy; the end's value for seat. */
static double playout(game_t *g, int seat, const game_search_t *s, int stage, int64_t now, rng_t *r)
{
    for (int m = 0; m < s->max_moves; m++) {
        if (game_is_over(g) || stage_of(g, s) != stage) break;
        now += PLAYOUT_STEP_MS;
        if (game_next_deadline(g) <= now) game_tick(g, now);
        if (game_is_over(g) || stage_of(g, s) != stage) break;
        int actor;
        greedy_ctx_t c = {s, r};
        json_t *a = game_search_next_move(g, r, greedy_decide, &c, &actor);
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
 * others drawn at random; the greedy choice first either way. Their indexes
 * into pick[]; their count. *has_greedy: the greedy choice is pick[0].
 */
static size_t candidates(const json_t *legal, const json_t *greedy, const game_search_t *s,
                         rng_t *rng, size_t *pick, bool *has_greedy)
{
    size_t n = json_array_size(legal), m = 0, g = n;
    for (size_t i = 0; i < n; i++) {
        if (g == n && json_equal(json_array_get(legal, i), greedy)) g = i;
        pick[i] = i;
    }
    *has_greedy = g < n;
    if (g < n) {
        pick[g] = pick[0];
        pick[0] = g;
        m = 1;
    }
    size_t most = s->max_actions > 0 && (size_t)s->max_actions < n ? (size_t)s->max_actions : n;
    for (; m < most; m++) {
        size_t at = m + rng_below(rng, (uint32_t)(n - m));
        size_t t = pick[m];
        pick[m] = pick[at];
        pick[at] = t;
    }
    return most;
}

/*
 * Which of the m candidates to play, from their playouts' values
 * val[j * m + k] (sample j, candidate k; ok[] says which ran). The greedy
 * choice (k = 0) stays unless another beats it clearly: on the same draws
 * (common random numbers), by a mean difference over twice its standard
 * error (s->margin times it, when the game sets one). The largest such gain
 * wins. Taking the best of noisy means instead would leave greedy for
 * whichever action was luckiest, a worse move as often as a better one.
 * Without a greedy choice, the best mean.
 */
static size_t choose(const double *val, const bool *ok, int samples, size_t m, bool has_greedy,
                     double margin)
{
    size_t best = 0;
    double best_gain = 0;
    for (size_t k = has_greedy ? 1 : 0; k < m; k++) {
        double sum = 0, sq = 0;
        int n = 0;
        for (int j = 0; j < samples; j++) {
            size_t a = (size_t)j * m + k, g = (size_t)j * m;
            if (!ok[a] || (has_greedy && !ok[g])) continue;
            double d = val[a] - (has_greedy ? val[g] : 0);
            sum += d;
            sq += d * d;
            n++;
        }
        if (n == 0) continue;
        double mean = sum / n, var = n > 1 ? (sq - sum * mean) / (n - 1) : 0;
        bool clear = !has_greedy || (n > 1 && mean > 0 && mean * mean > margin * margin * var / n);
        if (clear && (best_gain == 0 || mean > best_gain)) {
            best = k;
            best_gain = mean;
        }
    }
    return best;
}

json_t *game_search_run(const json_t *view, const json_t *legal, const game_search_t *s, int budget,
                        rng_t *rng)
{
    size_t n = json_array_size(legal);
    json_t *exact = s->exact && n > 1 ? s->exact(view, legal, rng) : NULL;
    if (exact) return exact;
    json_t *greedy = s->policy(view, legal, "greedy", rng);
    if (n <= 1 || !greedy) return greedy;
    int seat = (int)json_integer_value(json_object_get(view, "seat"));
    size_t *pick = tapis_calloc(n, sizeof *pick);
    bool has_greedy;
    size_t m = pick ? candidates(legal, greedy, s, rng, pick, &has_greedy) : 1;
    int samples = budget / (int)m > 0 ? budget / (int)m : 1;
    double *val = pick ? tapis_calloc((size_t)samples * m, sizeof *val) : NULL;
    bool *ok = pick ? tapis_calloc((size_t)samples * m, sizeof *ok) : NULL;
    if (!val || !ok) {
        tapis_free(pick);
        tapis_free(val);
        tapis_free(ok);
        return greedy;
    }
    for (int j = 0; j < samples; j++) {
        rng_t drawn;
        rng_seed(&drawn, rng_next(rng));
        game_t *state = s->from_view(view, &drawn);
        for (size_t k = 0; k < m && state; k++) {
            rng_t r = drawn; /* every action's playout from the same draw and generator */
            game_t *g = game_copy(state);
            if (!g) continue;
            game_error_t err;
            int stage = stage_of(g, s);
            if (game_apply(g, seat, json_array_get(legal, pick[k]), 0, &err) == 0) {
                val[(size_t)j * m + k] = s->playout ? s->playout(g, seat, s->max_moves, &r)
                                                    : playout(g, seat, s, stage, 0, &r);
                ok[(size_t)j * m + k] = true;
            }
            game_free(g);
        }
        game_free(state);
    }
    size_t best = pick[choose(val, ok, samples, m, has_greedy, s->margin > 0 ? s->margin : 2)];
    tapis_free(pick);
    tapis_free(val);
    tapis_free(ok);
    if (has_greedy && json_equal(json_array_get(legal, best), greedy)) return greedy;
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
    if (rng_below(rng, GAME_EASY_GREEDY_EVERY) != 0)
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

json_t *game_bot(const game_desc_t *d, const json_t *view, const char *strategy, rng_t *rng)
{
    if (d->search) return game_bot_search(view, strategy, rng, d->search);
    return d->bot ? d->bot(view, strategy, rng) : game_bot_random(view, rng);
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
