/*
 * game_test.h — what every game's rule tests need, over the generic game
 * interface: create a table, apply a JSON action, check a refusal changes
 * nothing, look for an action in a legal list (or any JSON list); the same
 * under short names over a game's own state. Include after <cmocka.h>. With "233/g233.h" included
 * first: 233's plain deals.
 */
#ifndef TAPIS_TESTS_GAME_TEST_H
#define TAPIS_TESTS_GAME_TEST_H

#include <stdarg.h>
#include <string.h>

#include "core/game.h"

/*
 * A catalogue of cases: for each pair (text, value) of the NULL-ended list,
 * of(text) must be value (`what` names the value in a failure):
 * gt_values(points_of, "points", "KS QH JD", 47, "3S 3H 3D", 9, NULL).
 */
static inline void gt_values(int (*of)(const char *), const char *what, ...)
{
    va_list ap;
    va_start(ap, what);
    for (const char *text; (text = va_arg(ap, const char *));) {
        int want = va_arg(ap, int), got = of(text);
        if (got != want) fail_msg("%s: %s %d, not %d", text, what, got, want);
    }
    va_end(ap);
}

/* The refusal of the last gt_act() that failed. */
static game_error_t gt_err;

/* A log's entries as a tree, borrowed: the last few are kept and released
   as later calls replace them (a test may hold two at once). */
static inline json_t *gt_log(const game_log_t *l)
{
    static json_t *kept[8];
    static unsigned next;
    json_decref(kept[next % 8]);
    json_t *t = kept[next++ % 8] = game_log_json(l);
    if (!t) fail_msg("out of memory parsing a log");
    return t;
}

static inline game_t *gt_table(const game_desc_t *d, int seats, const char *opts, uint64_t seed)
{
    game_error_t err = {0};
    json_t *o = opts ? json_loads(opts, 0, NULL) : NULL;
    game_t *g = game_new(d, seats, o, seed, &err);
    json_decref(o);
    if (!g) fail_msg("create: %s %s", err.code, err.message);
    return g;
}

static inline void gt_audit_ok(game_t *g)
{
    game_error_t err = {0};
    if (g->desc->audit(g, &err)) fail_msg("audit: %s", err.message);
}

/* Creating a table of `seats` with `opts` (JSON text, or NULL) is refused with `code`. */
static inline void gt_new_refused(const game_desc_t *d, int seats, const char *opts,
                                  const char *code)
{
    game_error_t err = {0};
    json_t *o = opts ? json_loads(opts, 0, NULL) : NULL;
    if (opts && !o) fail_msg("bad test JSON: %s", opts);
    assert_null(game_new(d, seats, o, 1, &err));
    assert_string_equal(err.code, code);
    json_decref(o);
}

/* Apply `action` (JSON text); "ok", or the refusal's code. The state is audited. */
static inline const char *gt_act(game_t *g, int seat, const char *action, int64_t now)
{
    json_t *a = json_loads(action, 0, NULL);
    if (!a) fail_msg("bad test JSON: %s", action);
    int rc = game_apply(g, seat, a, now, &gt_err);
    json_decref(a);
    if (rc == 0) gt_audit_ok(g);
    return rc == 0 ? "ok" : gt_err.code;
}

/* A refusal must carry the code and a message, and leave the state exactly as it was. */
static inline void gt_refused(game_t *g, int seat, const char *action, int64_t now,
                              const char *code)
{
    json_t *before = game_dump(g);
    assert_string_equal(gt_act(g, seat, action, now), code);
    assert_true(gt_err.message[0] != '\0');
    json_t *after = game_dump(g);
    assert_true(json_equal(before, after));
    json_decref(before);
    json_decref(after);
}

/* Is `a` equal to one of the items of the JSON array `list`? */
static inline bool gt_json_in(const json_t *list, const json_t *a)
{
    bool found = false;
    size_t i;
    json_t *x;
    json_array_foreach(list, i, x) found |= json_equal(x, a);
    return found;
}

/* `got` and `want` (new references, both released) are equal JSON: a failure
   prints both. */
static inline void gt_json_same(json_t *got, json_t *want)
{
    if (!json_equal(got, want)) {
        char *a = got ? json_dumps(got, JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;
        char *b = want ? json_dumps(want, JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;
        fail_msg("got %s, want %s", a ? a : "(null)", b ? b : "(null)");
    }
    json_decref(got);
    json_decref(want);
}

/* `got` (a new reference, released) is the JSON text `want`. */
static inline void gt_json_is(json_t *got, const char *want)
{
    json_t *w = json_loads(want, JSON_DECODE_ANY, NULL);
    if (!w) fail_msg("bad test JSON: %s", want);
    gt_json_same(got, w);
}

static inline bool gt_legal_has(game_t *g, int seat, const char *action)
{
    json_t *want = json_loads(action, 0, NULL), *legal = game_legal(g, seat);
    bool found = gt_json_in(legal, want);
    json_decref(want);
    json_decref(legal);
    return found;
}

/* `action` is not among seat's legal actions and is refused with `code` (gt_refused()):
   the list and the referee agree. */
static inline void gt_forbidden(game_t *g, int seat, const char *action, int64_t now,
                                const char *code)
{
    assert_false(gt_legal_has(g, seat, action));
    gt_refused(g, seat, action, now, code);
}

/* The finished game's result names `want` (JSON text, "[0,2]") as its winners. */
static inline void gt_winners(game_t *g, const char *want)
{
    json_t *res = game_result(g), *w = json_loads(want, 0, NULL);
    assert_non_null(w);
    assert_true(json_equal(json_object_get(res, "winners"), w));
    json_decref(w);
    json_decref(res);
}

static inline size_t gt_legal_count(game_t *g, int seat)
{
    json_t *legal = game_legal(g, seat);
    size_t n = json_array_size(legal);
    json_decref(legal);
    return n;
}

/*
 * s's view (a new reference), with the frame every view has: a spectator's
 * (GAME_SPECTATOR) shows no "hand" and no "legal"; a seat's says "seat": s
 * and lists "legal".
 */
static inline json_t *gt_view(game_t *g, int s)
{
    json_t *v = game_view(g, s);
    if (s < 0) {
        assert_null(json_object_get(v, "hand"));
        assert_null(json_object_get(v, "legal"));
    } else {
        assert_int_equal(json_integer_value(json_object_get(v, "seat")), s);
        assert_true(json_is_array(json_object_get(v, "legal")));
    }
    return v;
}

/* Every string of j at any depth, but those under the key `skip` (NULL:
   none), appended to the array out: what a view names, to look for cards it
   must not show. */
static inline void gt_strings(const json_t *j, const char *skip, json_t *out)
{
    const char *k;
    json_t *v;
    size_t i;
    if (json_is_string(j)) json_array_append(out, (json_t *)j);
    if (json_is_object(j))
        json_object_foreach((json_t *)j, k, v) if (!skip || strcmp(k, skip) != 0)
            gt_strings(v, skip, out);
    if (json_is_array(j)) json_array_foreach(j, i, v) gt_strings(v, skip, out);
}

/*
 * Hidden information: redrawing what seat s cannot see (the game's
 * resample(g, s, seed)) leaves s's view `v` as it was, and the redrawn state
 * passes its audit. With `differs`, adds 1 to it when the redrawn state's
 * dump differs from g's (something hidden was drawn again).
 */
static inline void gt_resample_keeps_view(const game_t *g, int s, uint64_t seed, const json_t *v,
                                          int *differs)
{
    game_t *r = g->desc->resample(g, s, seed);
    if (!r) fail_msg("resample(%d) failed", s);
    json_t *w = game_view(r, s);
    if (!json_equal(v, w)) {
        char *a = json_dumps(v, JSON_SORT_KEYS), *b = json_dumps(w, JSON_SORT_KEYS);
        fail_msg("resample(%d) changed its view: %s became %s", s, a, b);
    }
    json_decref(w);
    game_error_t err;
    if (r->desc->audit(r, &err))
        fail_msg("audit of resample(%d): %s: %s", s, err.code, err.message);
    if (differs) {
        json_t *d1 = game_dump(g), *d2 = game_dump(r);
        *differs += !json_equal(d1, d2);
        json_decref(d1);
        json_decref(d2);
    }
    game_free(r);
}

/* What the bot `strategy` answers for seat s from s's view, drawing from
   rng: a new action, or NULL for none. */
static inline json_t *gt_bot_choice(game_t *g, int s, const char *strategy, rng_t *rng)
{
    json_t *v = game_view(g, s), *a = game_bot(g->desc, v, strategy, rng);
    json_decref(v);
    return a;
}

/*
 * The bot `strategy` plays for seat s from s's view, drawing from rng, at
 * `now`: what it answers is one of the view's legal actions (NULL only when
 * there are none), it applies, and the state passes its audit. Whether it
 * played.
 */
static inline bool gt_bot_plays(game_t *g, int s, const char *strategy, rng_t *rng, int64_t now)
{
    json_t *v = game_view(g, s), *a = game_bot(g->desc, v, strategy, rng);
    const json_t *legal = json_object_get(v, "legal");
    if (a ? !gt_json_in(legal, a) : json_array_size(legal) != 0)
        fail_msg("seat %d's bot (%s) answered %s", s, strategy,
                 a ? "an unlisted action" : "nothing");
    if (a && game_apply(g, s, a, now, &gt_err))
        fail_msg("seat %d's bot (%s) was refused: %s: %s", s, strategy, gt_err.code,
                 gt_err.message);
    gt_audit_ok(g);
    bool played = a != NULL;
    json_decref(a);
    json_decref(v);
    return played;
}

/*
 * The same over a game's own state `g` (a struct that starts with
 * `game_t base`), under the short names the rule tests use: act(), OK(),
 * refused(), forbidden() take the time of the action, `now`; a game without
 * time defines GT_UNTIMED before including this file, and its actions take
 * none (they happen at 0).
 */
#ifdef GT_UNTIMED
#define act(g, seat, action) gt_act(&(g)->base, seat, action, 0)
#define OK(g, seat, action) assert_string_equal(act(g, seat, action), "ok")
#define refused(g, seat, action, code) gt_refused(&(g)->base, seat, action, 0, code)
#define forbidden(g, seat, action, code) gt_forbidden(&(g)->base, seat, action, 0, code)
#else
#define act(g, seat, action, now) gt_act(&(g)->base, seat, action, now)
#define OK(g, seat, action, now) assert_string_equal(act(g, seat, action, now), "ok")
#define refused(g, seat, action, now, code) gt_refused(&(g)->base, seat, action, now, code)
#define forbidden(g, seat, action, now, code) gt_forbidden(&(g)->base, seat, action, now, code)
#endif
#define audit_ok(g) gt_audit_ok(&(g)->base)
#define legal_has(g, seat, action) gt_legal_has(&(g)->base, seat, action)
#define legal_count(g, seat) gt_legal_count(&(g)->base, seat)

#ifdef TAPIS_233_G233_H
/* Did the deal leave the table plain: no gift laid or to give, no stop in a hand? */
static inline bool gt_233_plain_deal(const g233_t *g)
{
    for (int s = 0; s < g->base.seats; s++) {
        const g233_player_t *p = &g->p[s];
        if (p->gifts_plus || p->gifts_minus || p->to_place || p->hand.n[G233_CARD_STOP])
            return false;
    }
    return g->declarer < 0;
}

/* A table of 233 whose deal was plain, the first such seed from `seed` up:
 * a test's hands and scores start clean. */
static inline g233_t *gt_233_plain_table(int seats, const char *opts, uint64_t seed)
{
    for (uint64_t end = seed + 100000; seed < end; seed++) {
        g233_t *g = (g233_t *)gt_table(&g233_desc, seats, opts, seed);
        if (gt_233_plain_deal(g)) return g;
        game_free(&g->base);
    }
    fail_msg("no plain deal for %d seats", seats);
    return NULL;
}
#endif

#endif
