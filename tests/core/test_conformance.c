/*
 * test_conformance.c — one suite over every game of game_registry(), with no
 * game-specific code (OpenSpiel's conformance idea; the contract checked is
 * core/game.h, comment by comment). About 1,300 lines, one campaign shared
 * by thirteen tests: what knows no playout is in conformance_util.h.
 *
 * A campaign of seeded random playouts per game drives each table from
 * game_new() to its end on a virtual clock that advances 0..400 ms per step
 * (sometimes 0, sometimes a few ms), so that dispute windows and deadlines are
 * crossed both ways; due deadlines are ticked before acting. At each step a
 * seat with legal actions acts (mostly one the game waits on, sometimes
 * another: out-of-turn claims) with a uniformly drawn legal action, the greedy
 * bot's choice or its default action; every listed action must apply, and the
 * audit must pass after every change. When nobody can act, the clock jumps to
 * the next deadline; with none, the game is stuck. Sampled checks try illegal
 * actions, resample hidden information, ask both bots, compare views with
 * legal(), hold every view across later steps (it must not change), and
 * replay the log (at the end of every playout, midway in some).
 * Every check counts its runs and keeps its first failures; each test below
 * reports one behaviour over that shared campaign, so a failing test names what
 * broke, and its message names the game, seed and step to reproduce it.
 *
 * Playout seeds are 1..N. The seed alone gives the seat count (seed modulo the
 * number of seat counts game_new accepts), the options, the clock and every
 * choice; the checks draw from other
 * generators (one per check and step), so they never change a game's course,
 * and running one seed with every check at every step finds the same failure
 * at the same step.
 *
 * Length: over 800 lines on purpose: one campaign of playouts feeds every
 * check, and each check is read beside the test that reports it.
 *
 * Environment:
 *   TAPIS_CONFORMANCE_GAMES=N   playouts per game (default 10000; 2000 under
 *                               AddressSanitizer)
 *   TAPIS_CONFORMANCE_GAME=ID   only that game
 *   TAPIS_CONFORMANCE_SEED=S    only the playout of seed S, with every check at
 *                               every step and a trace of every step
 *   TAPIS_CONFORMANCE_TRACE=1   print each playout as it starts (to find the
 *                               seed of a crash)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/game.h"
#include "tests/core/conformance_util.h"

/*
 * Playouts per game: 10,000 (about a minute for 233 at -O2). Under
 * AddressSanitizer, where a playout costs six to ten times as much, 2,000 keep
 * the run within a few minutes; TAPIS_CONFORMANCE_GAMES overrides both. The
 * meson suites set it (tests/core/meson.build): 2,000 in the default suite
 * (500 in a sanitizer build), 10,000 in the suite 'soak'.
 */
#if defined(__SANITIZE_ADDRESS__)
#define DEFAULT_PLAYOUTS 2000
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DEFAULT_PLAYOUTS 2000
#endif
#endif
#ifndef DEFAULT_PLAYOUTS
#define DEFAULT_PLAYOUTS 10000
#endif
#define MAX_STEPS 200000 /* actions, ticks and idle waits of one playout */
#define MAX_STEP_MS 400
#define SEEN_MAX 64 /* legal actions kept from earlier steps and other seats */
#define TICK (-100) /* the seat of a log entry that is a tick */

/* ------------------------------------------------------------------------ */
/* Checks and their findings                                                */
/* ------------------------------------------------------------------------ */

enum {
    CK_CREATE,   /* same (seats, options, seed), same state; refusals well formed */
    CK_END,      /* every playout reaches its end, never stuck */
    CK_APPLY,    /* legal lists are action objects, and each one applies */
    CK_DEFAULT,  /* a waiting seat's default action is one of its legal ones */
    CK_STATE,    /* audit after every change, honest ticks, waiting mask */
    CK_VIEW,     /* views are objects, carry the seat and its legal list; text = tree */
    CK_ILLEGAL,  /* anything not listed is refused and changes nothing */
    CK_REPLAY,   /* (options, seed, log) rebuilds the same state */
    CK_RESAMPLE, /* redrawing what a seat cannot see leaves its view as it was */
    CK_BOT,      /* bots choose listed actions, as pure functions of a view */
    CK_RESULT,   /* result NULL until over, then winners; nothing left to play */
    CK_HELD,     /* a view held across later actions never changes */
    CK_COUNT
};

#define EXAMPLES 3 /* failures kept per check and game */

typedef struct check {
    long runs, fails;
    char example[EXAMPLES][1792];
} check_t;

typedef struct game_run {
    const game_desc_t *d;
    check_t ck[CK_COUNT];
    long playouts, defaults, finished, steps, actions, ticks, idle, longest;
    long illegal_tried, resampled, resample_differs, replays;
    int tables[GAME_MAX_SEATS], ntables; /* seat counts game_new accepts */
    long by_seats[GAME_MAX_SEATS + 1];
    double seconds;
} game_run_t;

/* How often the costly checks run: 1 in N steps (or playouts); 0 never. */
typedef struct rates {
    uint32_t views, bots, illegal, resample, tick_dump, idle_tick, settle, mid_replay, end_replay;
    int illegal_tries;
    uint32_t held;     /* 1 in N steps, hold every view (when none is held) */
    uint32_t held_for; /* ...for 1..N steps (actions, ticks, idle waits) */
} rates_t;

static const rates_t campaign_rates = {
    .views = 128,
    .bots = 64,
    .illegal = 64,
    .resample = 128,
    .tick_dump = 32,
    .idle_tick = 256,
    .settle = 256,
    .mid_replay = 16,
    .end_replay = 1,
    .illegal_tries = 6,
    .held = 64,
    .held_for = 24,
};

static const rates_t every_step = {1, 1, 1, 1, 1, 1, 1, 1, 1, 12, 1, 24};

typedef struct entry {
    int seat;       /* TICK for a tick */
    json_t *action; /* NULL for a tick */
    int64_t now;
    bool changed; /* a tick's return value */
} entry_t;

typedef struct playout {
    game_run_t *run;
    const game_desc_t *d;
    const rates_t *rt;
    bool trace;
    int seats;
    uint64_t seed;
    json_t *options; /* NULL: the defaults */
    game_t *g;
    rng_t play, bots, ring; /* the course of the game */
    rng_t check;            /* which checks run (not what they do: see step_rng) */
    int64_t now;
    long step;
    entry_t *log;
    size_t nlog, caplog;
    json_t *legal[GAME_MAX_SEATS];
    json_t *seen;
    game_t *settle; /* the table before a due tick, by replay (see check_settle) */
    bool stop;      /* a finding that makes going on meaningless */
    /* Views held (index seat + 1; [0] the spectator's) and their deep copies. */
    json_t *held[GAME_MAX_SEATS + 1], *held_copy[GAME_MAX_SEATS + 1];
    long held_at, held_until; /* steps */
} playout_t;

static void finding(playout_t *p, int ck, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Record a failure of check ck; the first EXAMPLES per game keep their message. */
static void finding(playout_t *p, int ck, const char *fmt, ...)
{
    check_t *c = &p->run->ck[ck];
    char msg[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char *keep = c->example[c->fails < EXAMPLES ? c->fails : EXAMPLES - 1];
    if (c->fails++ < EXAMPLES || p->trace)
        snprintf(keep, sizeof c->example[0],
                 "game %s, seats %d, seed %" PRIu64 ", step %ld, now %" PRId64 ": %s"
                 " (reproduce: TAPIS_CONFORMANCE_GAME=%s TAPIS_CONFORMANCE_SEED=%" PRIu64 ")",
                 p->d->id, p->seats, p->seed, p->step, p->now, msg, p->d->id, p->seed);
    if (p->trace) print_message("FINDING %s\n", keep);
}

static void ran(playout_t *p, int ck)
{
    p->run->ck[ck].runs++;
}

static bool sample(playout_t *p, uint32_t one_in)
{
    return one_in && rng_below(&p->check, one_in) == 0;
}

/*
 * The generator of one check at one step, from (seed, step, check): a check run
 * again with TAPIS_CONFORMANCE_SEED draws the same candidates at the same step.
 */
static rng_t step_rng(const playout_t *p, uint64_t salt)
{
    rng_t r;
    rng_seed(&r, p->seed * 0x9e3779b97f4a7c15ULL ^ (uint64_t)p->step * 0xbf58476d1ce4e5b9ULL ^
                     (salt + 1) * 0x94d049bb133111ebULL);
    return r;
}

static void log_push(playout_t *p, int seat, const json_t *action, bool changed)
{
    if (p->nlog == p->caplog) {
        p->caplog = p->caplog ? p->caplog * 2 : 256;
        p->log = realloc(p->log, p->caplog * sizeof *p->log);
        if (!p->log) abort();
    }
    p->log[p->nlog++] =
        (entry_t){seat, action ? json_incref((json_t *)action) : NULL, p->now, changed};
    if (p->trace) {
        if (action)
            print_message("  step %ld now %" PRId64 " seat %d %s\n", p->step, p->now, seat,
                          cu_show(action));
        else
            print_message("  step %ld now %" PRId64 " tick -> %s\n", p->step, p->now,
                          changed ? "changed" : "unchanged");
    }
}

/* ------------------------------------------------------------------------ */
/* State checks: audit, ticks, legal lists                                  */
/* ------------------------------------------------------------------------ */

static bool audit_ok(playout_t *p, const game_t *g, const char *after)
{
    game_error_t err = {0};
    ran(p, CK_STATE);
    if (p->d->audit(g, &err) == 0) return true;
    finding(p, CK_STATE, "audit failed after %s: %s: %s", after, err.code ? err.code : "(no code)",
            err.message);
    return false;
}

/*
 * tick(now), logged. Checks that it settled everything due (next_deadline is
 * then later than now), that its return value tells whether the state changed
 * (on a sample: two dumps), and the audit.
 */
static void do_tick(playout_t *p, bool dump)
{
    json_t *before = dump ? game_dump(p->g) : NULL;
    bool changed = game_tick(p->g, p->now);
    log_push(p, TICK, NULL, changed);
    p->run->ticks++;
    ran(p, CK_STATE);
    if (before) {
        json_t *after = game_dump(p->g);
        bool differs = !json_equal(before, after);
        if (differs != changed)
            finding(p, CK_STATE, "tick returned %s but the state %s", changed ? "true" : "false",
                    differs ? "changed" : "did not change");
        json_decref(before);
        json_decref(after);
    }
    int64_t next = game_next_deadline(p->g);
    if (next <= p->now) {
        finding(p, CK_STATE, "after tick(%" PRId64 "), next_deadline is still %" PRId64, p->now,
                next);
        p->stop = true;
    }
    if (!audit_ok(p, p->g, "a tick")) p->stop = true;
}

static void free_legal(playout_t *p)
{
    for (int s = 0; s < p->seats; s++) {
        json_decref(p->legal[s]);
        p->legal[s] = NULL;
    }
}

/*
 * legal(s), asked once per step and only when needed (a table of six asks for
 * few lists at most steps): an array of objects with a string "type". A bad
 * list is a finding, stops the playout, and reads as empty.
 */
static json_t *legal_of(playout_t *p, int s)
{
    if (p->legal[s]) return p->legal[s];
    json_t *l = game_legal(p->g, s);
    ran(p, CK_APPLY);
    bool ok = json_is_array(l);
    size_t i;
    json_t *a;
    if (ok) json_array_foreach(l, i, a) ok = ok && json_is_string(json_object_get(a, "type"));
    if (!ok) {
        finding(p, CK_APPLY, "legal(%d) is not a list of action objects with a type: %s", s,
                cu_show(l));
        json_decref(l);
        l = json_array();
        p->stop = true;
    }
    return p->legal[s] = l;
}

static unsigned waiting_of(playout_t *p)
{
    unsigned w = game_waiting(p->g);
    ran(p, CK_STATE);
    if (p->seats < 32 && (w >> p->seats) != 0) {
        finding(p, CK_STATE, "waiting() is %#x, beyond %d seats", w, p->seats);
        p->stop = true;
        return 0;
    }
    return w;
}

static void remember(playout_t *p, json_t *a)
{
    if (json_array_size(p->seen) < SEEN_MAX)
        json_array_append(p->seen, a);
    else
        json_array_set(p->seen, rng_below(&p->ring, SEEN_MAX), a);
}

/* ------------------------------------------------------------------------ */
/* Views and bots                                                           */
/* ------------------------------------------------------------------------ */

/*
 * The view of seat s as the server writes it, with the writer's text end
 * (json/jw.h) into a buffer of its own: NULL if it failed.
 */
static const char *view_text(const game_t *g, int s, size_t *n)
{
    static char buf[1 << 18];
    jw_t w;
    jw_text(&w, buf, sizeof buf);
    game_write_view(g, s, &w);
    *n = jw_len(&w);
    return jw_ok(&w) ? buf : NULL;
}

/*
 * Every view (spectator's too) is a JSON object; a seat's has "seat" and
 * "legal" equal to legal(seat). Its text, as the server writes it, is byte
 * for byte what jansson writes for game_view()'s tree: the writer's two ends
 * agree, so every check of the tree holds for what clients receive.
 */
static void check_views(playout_t *p)
{
    for (int s = GAME_SPECTATOR; s < p->seats; s++) {
        json_t *v = game_view(p->g, s);
        ran(p, CK_VIEW);
        char *text = v ? json_dumps(v, JSON_COMPACT) : NULL;
        size_t n;
        const char *wire = view_text(p->g, s, &n);
        if (!json_is_object(v) || !text) {
            finding(p, CK_VIEW, "view(%d) is not a printable JSON object: %s", s, cu_show(v));
        } else if (!wire || n != strlen(text) || memcmp(wire, text, n) != 0) {
            finding(p, CK_VIEW, "view(%d)'s text is %.*s, its tree %s", s, wire ? (int)n : 0,
                    wire ? wire : "", text);
        } else if (s != GAME_SPECTATOR) {
            json_t *seat = json_object_get(v, "seat");
            json_t *legal = json_object_get(v, "legal");
            if (!json_is_integer(seat) || json_integer_value(seat) != s)
                finding(p, CK_VIEW, "view(%d) has \"seat\": %s", s, cu_show(seat));
            else if (!json_equal(legal, legal_of(p, s)))
                finding(p, CK_VIEW, "view(%d) has \"legal\": %s but legal(%d) is %s", s,
                        cu_show(legal), s, cu_show(legal_of(p, s)));
        }
        free(text);
        json_decref(v);
    }
}

/*
 * Both strategies on the view of the acting seat (or, one time in two, any
 * seat): a listed action (NULL only when the list is empty), and the same one
 * again from the same view and generator state.
 */
static void check_bots(playout_t *p, int acting)
{
    static const char *const strategies[] = {"greedy", "random"};
    rng_t r = step_rng(p, CK_BOT);
    int s = rng_below(&r, 2) ? acting : (int)rng_below(&r, (uint32_t)p->seats);
    json_t *v = game_view(p->g, s);
    for (int i = 0; i < 2; i++) {
        rng_t r1 = r, r2 = r;
        json_t *a = game_bot(p->d, v, strategies[i], &r1);
        json_t *b = game_bot(p->d, v, strategies[i], &r2);
        ran(p, CK_BOT);
        bool none = json_array_size(legal_of(p, s)) == 0;
        if (none ? a != NULL : !cu_contains(legal_of(p, s), a))
            finding(p, CK_BOT, "bot \"%s\" for seat %d chose %s; legal: %s", strategies[i], s,
                    cu_show(a), cu_show(legal_of(p, s)));
        else if (!(a == NULL && b == NULL) && !json_equal(a, b))
            finding(p, CK_BOT, "bot \"%s\" for seat %d chose %s then %s from the same view and rng",
                    strategies[i], s, cu_show(a), cu_show(b));
        json_decref(a);
        json_decref(b);
        rng_next(&r);
    }
    json_decref(v);
}

/*
 * A view is a value (game.h): it may share immutable parts with the state,
 * but nothing the state does later may change it; a client, a journal or a
 * bot may hold it as long as it likes. hold_views() takes every seat's view
 * and the spectator's with a deep copy made at the time; some steps later (or
 * at the end of the playout) check_held_views() requires each to equal its
 * copy. An alias (an array the state appends to in place, shared with the
 * views) fails here.
 */
static void hold_views(playout_t *p)
{
    rng_t r = step_rng(p, CK_HELD);
    for (int s = GAME_SPECTATOR; s < p->seats; s++) {
        p->held[s + 1] = game_view(p->g, s);
        p->held_copy[s + 1] = json_deep_copy(p->held[s + 1]);
    }
    p->held_at = p->step;
    p->held_until = p->step + 1 + (long)rng_below(&r, p->rt->held_for ? p->rt->held_for : 1);
}

/* The first top-level key whose value differs between two views (or ""). */
static const char *first_difference(const json_t *a, const json_t *b)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)a, k, v) if (!json_equal(v, json_object_get(b, k))) return k;
    json_object_foreach((json_t *)b, k, v) if (!json_object_get(a, k)) return k;
    return "";
}

static void release_views(playout_t *p)
{
    for (int i = 0; i <= GAME_MAX_SEATS; i++) {
        json_decref(p->held[i]);
        json_decref(p->held_copy[i]);
        p->held[i] = p->held_copy[i] = NULL;
    }
}

static void check_held_views(playout_t *p)
{
    if (!p->held[0]) return;
    for (int s = GAME_SPECTATOR; s < p->seats; s++) {
        const json_t *v = p->held[s + 1], *c = p->held_copy[s + 1];
        ran(p, CK_HELD);
        if (json_equal(v, c)) continue;
        const char *k = first_difference(v, c);
        finding(p, CK_HELD,
                "view(%d), held since step %ld, changed under its holder: \"%s\" is now %s, "
                "was %s",
                s, p->held_at, k, cu_show(json_object_get(v, k)), cu_show(json_object_get(c, k)));
    }
    release_views(p);
}

/* ------------------------------------------------------------------------ */
/* Illegal actions                                                          */
/* ------------------------------------------------------------------------ */

/* A listed action of another seat, or one seen earlier; NULL if none (borrowed). */
static json_t *elsewhere(playout_t *p, int s, rng_t *r)
{
    if (rng_below(r, 2) && p->seats > 1) {
        int o = (s + 1 + (int)rng_below(r, (uint32_t)p->seats - 1)) % p->seats;
        size_t n = json_array_size(legal_of(p, o));
        if (n) return json_array_get(legal_of(p, o), rng_below(r, (uint32_t)n));
    }
    size_t n = json_array_size(p->seen);
    return n ? json_array_get(p->seen, rng_below(r, (uint32_t)n)) : NULL;
}

/* One candidate illegal action for seat s (a new reference). */
static json_t *make_candidate(playout_t *p, int s, rng_t *r)
{
    size_t n = json_array_size(legal_of(p, s));
    json_t *own = n ? json_array_get(legal_of(p, s), rng_below(r, (uint32_t)n)) : NULL;
    return cu_candidate(own, elsewhere(p, s, r), r);
}

static game_t *replay(playout_t *p, size_t n, char *why, size_t size);

/*
 * The listed action of `seat` that has the same effect as the unlisted c (the
 * same dump after it), or NULL: tells an alias of a legal move (another
 * spelling) from a move that should not exist. Rebuilds the table by replay.
 */
static json_t *same_effect(playout_t *p, int seat, const json_t *c)
{
    char why[256];
    game_error_t err = {0};
    json_t *found = NULL, *want = NULL;
    game_t *x = replay(p, p->nlog, why, sizeof why);
    if (x && game_apply(x, seat, c, p->now, &err) == 0) want = game_dump(x);
    game_free(x);
    size_t i;
    json_t *a;
    if (want && seat >= 0) json_array_foreach(legal_of(p, seat), i, a)
        {
            game_t *y = replay(p, p->nlog, why, sizeof why);
            if (y && game_apply(y, seat, a, p->now, &err) == 0) {
                json_t *got = game_dump(y);
                if (json_equal(got, want)) found = a;
                json_decref(got);
            }
            game_free(y);
            if (found) break;
        }
    json_decref(want);
    return found;
}

/*
 * After refusals that changed the state: which candidate did it? Replays the
 * table and applies them one by one. Returns its index, or -1.
 */
static int blame(playout_t *p, const json_t *before, json_t **tried, const int *seat, int n)
{
    char why[256];
    game_error_t err = {0};
    game_t *x = replay(p, p->nlog, why, sizeof why);
    int culprit = -1;
    for (int k = 0; x && k < n && culprit < 0; k++) {
        game_apply(x, seat[k], tried[k], p->now, &err);
        json_t *d = game_dump(x);
        if (!json_equal(d, before)) culprit = k;
        json_decref(d);
    }
    game_free(x);
    return culprit;
}

/*
 * Refusal: -1, a snake_case code, a message, and a state whose dump is the one
 * from before (one dump after all the tries; the culprit is found by replay).
 * A candidate equal to a listed action up to the order of its lists is skipped.
 * Also: a spectator's action is refused. The seat is the acting one, or one
 * time in four any seat (often one with nothing to play). An unlisted action
 * that is accepted is a finding; it is logged and the playout goes on from the
 * new state (returns true).
 */
static bool check_illegal(playout_t *p, int acting, int tries)
{
    rng_t rng = step_rng(p, CK_ILLEGAL), *r = &rng;
    int s = rng_below(r, 4) ? acting : (int)rng_below(r, (uint32_t)p->seats);
    json_t *canon_items = json_array(), *tried[16];
    int seat[16], n = 0;
    size_t i;
    json_t *a;
    json_array_foreach(legal_of(p, s), i, a) json_array_append_new(canon_items, cu_canon(a));
    json_t *before = game_dump(p->g);
    bool accepted = false;
    for (int k = 0; k < tries && k < 16 && !accepted; k++) {
        json_t *c;
        seat[n] = s;
        if (k == 0 && rng_below(r, 4) == 0) {
            seat[n] = GAME_SPECTATOR;
            json_t *any = elsewhere(p, s, r);
            c = any ? json_incref(any) : json_pack("{s:s}", "type", "zzz");
        } else {
            c = make_candidate(p, s, r);
            json_t *cc = cu_canon(c);
            bool listed = cu_contains(canon_items, cc);
            json_decref(cc);
            if (listed) {
                json_decref(c);
                continue;
            }
        }
        game_error_t err = {0};
        int rc = game_apply(p->g, seat[n], c, p->now, &err);
        ran(p, CK_ILLEGAL);
        p->run->illegal_tried++;
        if (rc == 0) {
            const json_t *alias =
                p->run->ck[CK_ILLEGAL].fails < 3 ? same_effect(p, seat[n], c) : NULL;
            finding(p, CK_ILLEGAL,
                    "seat %d sent %s, which legal(%d) does not list (%s), and it was accepted%s%s",
                    seat[n], cu_show(c), seat[n], cu_show(legal_of(p, s)),
                    alias ? ": the same effect as listed " : "", alias ? cu_show(alias) : "");
            log_push(p, seat[n], c, false);
            if (!audit_ok(p, p->g, "an accepted unlisted action")) p->stop = true;
            accepted = true;
            json_decref(c);
            break;
        }
        if (rc != -1 || !cu_snake_case(err.code) || !err.message[0])
            finding(p, CK_ILLEGAL,
                    "seat %d sent %s: apply returned %d, code \"%s\", message \"%s\"", seat[n],
                    cu_show(c), rc, err.code ? err.code : "(null)", err.message);
        tried[n++] = c;
    }
    if (!accepted) {
        json_t *after = game_dump(p->g);
        if (!json_equal(before, after)) {
            int k = blame(p, before, tried, seat, n);
            finding(p, CK_ILLEGAL, "a refused action changed the state: seat %d sent %s",
                    k >= 0 ? seat[k] : s,
                    k >= 0 ? cu_show(tried[k]) : "(one of several; not found by replay)");
            p->stop = true;
        }
        json_decref(after);
    }
    for (int k = 0; k < n; k++)
        json_decref(tried[k]);
    json_decref(before);
    json_decref(canon_items);
    return accepted;
}

/* ------------------------------------------------------------------------ */
/* Replay and resampling                                                    */
/* ------------------------------------------------------------------------ */

/* A new table from (options, seed) and the first n log entries; NULL + why. */
static game_t *replay(playout_t *p, size_t n, char *why, size_t size)
{
    game_error_t err = {0};
    game_t *r = game_new(p->d, p->seats, p->options, p->seed, &err);
    if (!r) {
        snprintf(why, size, "game_new refused the same options: %s", err.message);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        const entry_t *e = &p->log[i];
        if (!e->action) {
            if (game_tick(r, e->now) != e->changed) {
                snprintf(why, size, "log entry %zu, tick(%" PRId64 "), returned %s this time", i,
                         e->now, e->changed ? "false" : "true");
                game_free(r);
                return NULL;
            }
        } else if (game_apply(r, e->seat, e->action, e->now, &err) != 0) {
            snprintf(why, size, "log entry %zu, seat %d %s at %" PRId64 ", refused: %s: %s", i,
                     e->seat, cu_show(e->action), e->now, err.code, err.message);
            game_free(r);
            return NULL;
        }
    }
    return r;
}

static void check_replay(playout_t *p, const char *when)
{
    char why[768] = "";
    game_t *r = replay(p, p->nlog, why, sizeof why);
    ran(p, CK_REPLAY);
    p->run->replays++;
    if (!r) {
        finding(p, CK_REPLAY, "replay (%s, %zu entries) failed: %s", when, p->nlog, why);
        return;
    }
    json_t *x = game_dump(p->g), *y = game_dump(r);
    if (!json_equal(x, y))
        finding(p, CK_REPLAY, "replay (%s, %zu entries) gives another dump: %s vs %s", when,
                p->nlog, cu_show(x), cu_show(y));
    json_decref(x);
    json_decref(y);
    for (int s = GAME_SPECTATOR; s < p->seats; s++) {
        x = game_view(p->g, s);
        y = game_view(r, s);
        if (!json_equal(x, y))
            finding(p, CK_REPLAY, "replay (%s): view(%d) %s vs %s", when, s, cu_show(x),
                    cu_show(y));
        json_decref(x);
        json_decref(y);
    }
    x = game_result(p->g);
    y = game_result(r);
    bool same_result = (!x && !y) || (x && y && json_equal(x, y));
    if (game_is_over(p->g) != game_is_over(r) || !same_result ||
        game_next_deadline(p->g) != game_next_deadline(r) || game_waiting(p->g) != game_waiting(r))
        finding(p, CK_REPLAY, "replay (%s): is_over, result, next_deadline or waiting differ",
                when);
    json_decref(x);
    json_decref(y);
    game_free(r);
}

/*
 * resample(g, s): view(s) and legal(s) unchanged, audit passes, g untouched,
 * and the copy is playable (a listed action of any seat applies to it).
 */
static void check_resample(playout_t *p)
{
    rng_t r = step_rng(p, CK_RESAMPLE);
    int s = (int)rng_below(&r, (uint32_t)p->seats + 1) - 1;
    json_t *before = game_dump(p->g);
    game_t *c = p->d->resample(p->g, s, rng_next(&r));
    ran(p, CK_RESAMPLE);
    p->run->resampled++;
    if (!c || c->desc != p->d || c->seats != p->seats) {
        finding(p, CK_RESAMPLE, "resample(%d) gave %s", s, c ? "a table of another shape" : "NULL");
        json_decref(before);
        game_free(c);
        return;
    }
    json_t *x = game_view(p->g, s), *y = game_view(c, s);
    if (!json_equal(x, y))
        finding(p, CK_RESAMPLE, "resample(%d) changed view(%d): %s became %s", s, s, cu_show(x),
                cu_show(y));
    json_decref(x);
    json_decref(y);
    if (s != GAME_SPECTATOR) {
        y = game_legal(c, s);
        if (!json_equal(legal_of(p, s), y))
            finding(p, CK_RESAMPLE, "resample(%d) changed legal(%d): %s became %s", s, s,
                    cu_show(legal_of(p, s)), cu_show(y));
        json_decref(y);
    }
    game_error_t err = {0};
    if (p->d->audit(c, &err) != 0)
        finding(p, CK_RESAMPLE, "audit of resample(%d) failed: %s: %s", s, err.code, err.message);
    x = game_dump(p->g);
    y = game_dump(c);
    if (!json_equal(before, x)) finding(p, CK_RESAMPLE, "resample(%d) changed the original", s);
    if (!json_equal(before, y)) p->run->resample_differs++;
    json_decref(x);
    json_decref(y);
    int t = (int)rng_below(&r, (uint32_t)p->seats);
    for (int k = 0; k < p->seats; k++, t = (t + 1) % p->seats) {
        json_t *l = game_legal(c, t);
        size_t n = json_array_size(l);
        if (n) {
            json_t *a = json_array_get(l, rng_below(&r, (uint32_t)n));
            if (game_apply(c, t, a, p->now, &err) != 0)
                finding(p, CK_RESAMPLE, "in resample(%d), seat %d's listed %s is refused: %s: %s",
                        s, t, cu_show(a), err.code, err.message);
            else if (p->d->audit(c, &err) != 0)
                finding(p, CK_RESAMPLE, "in resample(%d), audit after seat %d's %s: %s: %s", s, t,
                        cu_show(a), err.code, err.message);
            json_decref(l);
            break;
        }
        json_decref(l);
    }
    json_decref(before);
    game_free(c);
}

/* ------------------------------------------------------------------------ */
/* One playout                                                              */
/* ------------------------------------------------------------------------ */

/*
 * The options of a playout. One in OPTIONS_EVERY uses the defaults, one in
 * OPTIONS_EVERY draws them around the defaults, the others at the small end.
 * Why: a full-length game is long (233 with its defaults: about 5,000 steps,
 * some 30 ms without any check), so 10,000 of them would take minutes; small
 * values (a target of 0, no dispute window, no rebuild) make short games and
 * reach the edge cases. An option set the game refuses is drawn again, then
 * replaced by the defaults; the refusal must be well formed.
 */
#define OPTIONS_EVERY 100

static game_t *create(playout_t *p)
{
    game_error_t err = {0};
    uint32_t tier = rng_below(&p->play, OPTIONS_EVERY);
    int kind = tier == 0 ? OPTIONS_DEFAULT : tier == 1 ? OPTIONS_AROUND : OPTIONS_SMALL;
    for (int attempt = 0; kind != OPTIONS_DEFAULT && attempt < 4; attempt++) {
        p->options = cu_options(p->d, kind, &p->play);
        game_t *g = game_new(p->d, p->seats, p->options, p->seed, &err);
        if (g) return g;
        ran(p, CK_CREATE);
        if (!cu_snake_case(err.code) || !err.message[0])
            finding(p, CK_CREATE, "options %s refused with code \"%s\", message \"%s\"",
                    cu_show(p->options), err.code ? err.code : "(null)", err.message);
        json_decref(p->options);
        p->options = NULL;
    }
    p->run->defaults++;
    game_t *g = game_new(p->d, p->seats, NULL, p->seed, &err);
    if (!g)
        finding(p, CK_END, "game_new with default options refused: %s: %s", err.code, err.message);
    return g;
}

/*
 * Four times in five, a seat the game waits on that has something to play;
 * otherwise (or if none has) any seat that has. -1 when nobody can act.
 */
static int choose_seat(playout_t *p, unsigned waiting)
{
    int seats[GAME_MAX_SEATS], n = 0;
    if (waiting && rng_below(&p->play, 5) != 0) {
        for (int s = 0; s < p->seats; s++)
            if (waiting & (1u << s)) seats[n++] = s;
        uint32_t first = rng_below(&p->play, (uint32_t)n);
        for (int k = 0; k < n; k++) {
            int s = seats[(first + (uint32_t)k) % (uint32_t)n];
            if (json_array_size(legal_of(p, s))) return s;
        }
        n = 0;
    }
    for (int s = 0; s < p->seats; s++)
        if (json_array_size(legal_of(p, s))) seats[n++] = s;
    return n ? seats[rng_below(&p->play, (uint32_t)n)] : -1;
}

/* mode 0: uniform, 1: greedy bot, 2: either, per action; sometimes the default action. */
static json_t *choose_action(playout_t *p, int s, unsigned waiting, int mode)
{
    json_t *legal = legal_of(p, s);
    if ((waiting & (1u << s)) && rng_below(&p->play, 32) == 0) {
        json_t *a = game_default_action(p->g, s);
        ran(p, CK_DEFAULT);
        if (a && cu_contains(legal, a)) return a;
        if (a)
            finding(p, CK_DEFAULT, "default_action(%d) is %s, not among legal: %s", s, cu_show(a),
                    cu_show(legal));
        json_decref(a);
    }
    if (mode == 1 || (mode == 2 && rng_below(&p->play, 2))) {
        json_t *v = game_view(p->g, s);
        json_t *a = game_bot(p->d, v, "greedy", &p->bots);
        json_decref(v);
        ran(p, CK_BOT);
        if (a && cu_contains(legal, a)) return a;
        finding(p, CK_BOT, "greedy bot for seat %d chose %s; legal: %s", s, cu_show(a),
                cu_show(legal));
        json_decref(a);
    }
    return json_incref(
        json_array_get(legal, rng_below(&p->play, (uint32_t)json_array_size(legal))));
}

/* Once over: a result naming winners, no seat left to play or wait for. */
static void check_over(playout_t *p)
{
    json_t *res = game_result(p->g);
    json_t *winners = json_object_get(res, "winners");
    ran(p, CK_RESULT);
    bool ok = json_is_object(res) && json_is_array(winners);
    size_t i;
    json_t *w;
    json_array_foreach(winners, i, w) ok =
        ok && json_is_integer(w) && json_integer_value(w) >= 0 && json_integer_value(w) < p->seats;
    if (!ok) finding(p, CK_RESULT, "result once over: %s", cu_show(res));
    json_decref(res);
    free_legal(p);
    if (game_waiting(p->g) != 0)
        finding(p, CK_RESULT, "the game is over but waiting() is %#x", game_waiting(p->g));
    for (int s = 0; s < p->seats; s++)
        if (json_array_size(legal_of(p, s)))
            finding(p, CK_RESULT, "the game is over but legal(%d) is %s", s,
                    cu_show(legal_of(p, s)));
    check_views(p);
    if (!check_illegal(p, 0, p->rt->illegal_tries) && sample(p, p->rt->bots)) check_bots(p, 0);
}

static void playout_free(playout_t *p)
{
    free_legal(p);
    for (size_t i = 0; i < p->nlog; i++)
        json_decref(p->log[i].action);
    free(p->log);
    json_decref(p->seen);
    json_decref(p->options);
    release_views(p);
    game_free(p->g);
    game_free(p->settle);
}

/*
 * apply() settles the deadlines due at `now` first, as tick(now) does: on the
 * copy from before the due tick, the same action alone gives the same state as
 * tick then action did on the table.
 */
static void check_settle(playout_t *p, int s, const json_t *a)
{
    game_error_t err = {0};
    ran(p, CK_STATE);
    if (game_apply(p->settle, s, a, p->now, &err) != 0) {
        finding(p, CK_STATE,
                "with a deadline due and no tick first, seat %d's %s is refused (%s: %s), "
                "but accepted after tick(%" PRId64 ")",
                s, cu_show(a), err.code ? err.code : "(null)", err.message, p->now);
    } else {
        json_t *x = game_dump(p->g), *y = game_dump(p->settle);
        if (!json_equal(x, y))
            finding(p, CK_STATE,
                    "seat %d's %s with a deadline due: tick then apply gives %s, apply alone %s", s,
                    cu_show(a), cu_show(x), cu_show(y));
        json_decref(x);
        json_decref(y);
    }
    game_free(p->settle);
    p->settle = NULL;
}

static void playout(game_run_t *run, uint64_t seed, const rates_t *rt, bool trace)
{
    const game_desc_t *d = run->d;
    playout_t p = {.run = run, .d = d, .rt = rt, .trace = trace, .seed = seed};
    p.seats = run->tables[seed % (uint64_t)run->ntables];
    rng_seed(&p.play, seed * 0x9e3779b97f4a7c15ULL + 0x7a915);
    rng_seed(&p.bots, rng_next(&p.play));
    rng_seed(&p.ring, rng_next(&p.play));
    rng_seed(&p.check, seed ^ 0xc0ffee5eed5ULL);
    p.seen = json_array();
    run->playouts++;
    run->by_seats[p.seats]++;
    if (trace) print_message("playout: game %s seats %d seed %" PRIu64 "\n", d->id, p.seats, seed);
    p.g = create(&p);
    if (!p.g || !audit_ok(&p, p.g, "create")) {
        playout_free(&p);
        return;
    }
    static const int modes[] = {0, 1, 2, 2}; /* uniform, greedy, mixed twice as often */
    int mode = modes[rng_below(&p.play, 4)];
    p.now = rng_below(&p.play, 4) == 0 ? 0 : (int64_t)(rng_next(&p.play) >> 24);
    long midpoint = sample(&p, rt->mid_replay) ? 1 + (long)rng_below(&p.check, 400) : -1;

    for (p.step = 0; !p.stop && !game_is_over(p.g); p.step++) {
        if (p.step >= MAX_STEPS) {
            finding(&p, CK_END, "not over after %d steps", MAX_STEPS);
            break;
        }
        uint32_t pace = rng_below(&p.play, 8); /* same ms, a few ms, up to MAX_STEP_MS */
        p.now += pace == 0 ? 0 : rng_below(&p.play, pace < 3 ? 41 : MAX_STEP_MS + 1);
        game_free(p.settle);
        p.settle = NULL;
        if (game_next_deadline(p.g) <= p.now) {
            char why[256];
            if (sample(&p, rt->settle)) p.settle = replay(&p, p.nlog, why, sizeof why);
            do_tick(&p, sample(&p, rt->tick_dump));
        } else if (sample(&p, rt->idle_tick))
            do_tick(&p, true); /* nothing due: no change */
        if (p.held[0] && p.step >= p.held_until)
            check_held_views(&p);
        else if (!p.held[0] && sample(&p, rt->held))
            hold_views(&p);
        if (p.stop || game_is_over(p.g)) break;
        ran(&p, CK_RESULT);
        json_t *res = game_result(p.g);
        if (res) finding(&p, CK_RESULT, "result() before the end: %s", cu_show(res));
        json_decref(res);
        free_legal(&p);
        unsigned waiting = waiting_of(&p);
        int s = choose_seat(&p, waiting);
        if (p.stop) break;
        if (s < 0) { /* nobody can act: wait for the next deadline */
            int64_t next = game_next_deadline(p.g);
            ran(&p, CK_END);
            if (next == GAME_NO_DEADLINE) {
                finding(&p, CK_END, "stuck: no seat has a legal action and there is no deadline");
                break;
            }
            if (next > p.now) p.now = next;
            run->idle++;
            do_tick(&p, sample(&p, rt->tick_dump));
            continue;
        }
        if (sample(&p, rt->views)) check_views(&p);
        if (sample(&p, rt->bots)) check_bots(&p, s);
        if (sample(&p, rt->illegal) && check_illegal(&p, s, rt->illegal_tries)) continue;
        if (p.stop) break;
        if (sample(&p, rt->resample)) check_resample(&p);
        if (p.step == midpoint) check_replay(&p, "midway");

        json_t *a = choose_action(&p, s, waiting, mode);
        game_error_t err = {0};
        ran(&p, CK_APPLY);
        if (game_apply(p.g, s, a, p.now, &err) != 0) {
            finding(&p, CK_APPLY, "seat %d's listed action %s refused: %s: %s (legal: %s)", s,
                    cu_show(a), err.code ? err.code : "(null)", err.message,
                    cu_show(legal_of(&p, s)));
            json_decref(a);
            p.stop = true;
            break;
        }
        log_push(&p, s, a, false);
        if (p.settle) check_settle(&p, s, a);
        remember(&p, a);
        json_decref(a);
        run->actions++;
        if (!audit_ok(&p, p.g, "an action")) p.stop = true;
    }
    check_held_views(&p); /* the last actions (a game's end) too */
    run->steps += p.step;
    ran(&p, CK_END);
    if (p.step > run->longest) run->longest = p.step;
    if (game_is_over(p.g) && !p.stop) {
        run->finished++;
        check_over(&p);
        if (sample(&p, rt->end_replay)) check_replay(&p, "at the end");
    }
    playout_free(&p);
}

/* ------------------------------------------------------------------------ */
/* The campaign, run once and shared by the tests                           */
/* ------------------------------------------------------------------------ */

static struct {
    bool done, single;
    int n;
    game_run_t *runs;
    long per_game;
} camp;

static long env_long(const char *name, long dflt)
{
    const char *s = getenv(name);
    if (!s || !*s) return dflt;
    char *end;
    long v = strtol(s, &end, 10);
    return *end == 0 && v > 0 ? v : dflt;
}

/*
 * Every row of the option table is well formed: a name, a known type, a
 * default the table itself accepts (within min..max, among the choices),
 * and where it lands (`at`), if anywhere, a field of its size inside the
 * state, past its game_t.
 */
static bool options_well_formed(const game_desc_t *d)
{
    json_t *def = game_default_options(d);
    bool ok = json_is_object(def);
    for (const game_option_t *o = d->options; ok && o->name; o++) {
        ok = o->type == GAME_OPT_INT || o->type == GAME_OPT_BOOL ||
             (o->type == GAME_OPT_STRING && o->choices && o->def_string);
        ok = ok && o->help && (o->type != GAME_OPT_INT || o->min <= o->max);
        ok = ok && game_option_check(d, o->name, json_object_get(def, o->name), NULL) == 0;
        ok = ok && (o->at == 0 ||
                    (o->at >= sizeof(game_t) &&
                     o->at + (o->type == GAME_OPT_BOOL ? sizeof(bool) : sizeof(int)) <= d->size));
    }
    json_decref(def);
    return ok;
}

/* The state's held parts lie inside it, past its game_t. */
static bool held_parts_within(const game_desc_t *d)
{
    for (int i = 0; i < GAME_MAX_HELD; i++)
        if ((d->logs[i] &&
             (d->logs[i] < sizeof(game_t) || d->logs[i] + sizeof(game_log_t) > d->size)) ||
            (d->shared[i] &&
             (d->shared[i] < sizeof(game_t) || d->shared[i] + sizeof(game_shared_t) > d->size)))
            return false;
    return true;
}

/* What game.h requires; the optional functions (tick, waiting, bot...) may be NULL. */
static bool descriptor_complete(const game_desc_t *d)
{
    return d->id && d->title && d->min_seats >= 1 && d->min_seats <= d->max_seats &&
           d->max_seats <= GAME_MAX_SEATS && options_well_formed(d) && d->create && d->apply &&
           d->legal && d->view_public && d->is_over && d->result && d->dump && d->resample &&
           d->audit && d->size >= sizeof(game_t) && held_parts_within(d);
}

/*
 * The seat counts of min..max that game_new accepts (a game may skip some:
 * seqnum is played by 2, 3, 4 or 6); the others must be refused as
 * "bad_players". Returns their number.
 */
static int tables_of(const game_desc_t *d, int *tables, char *why, size_t size)
{
    int n = 0;
    *why = 0;
    for (int seats = d->min_seats; seats <= d->max_seats; seats++) {
        game_error_t err = {0};
        game_t *g = game_new(d, seats, NULL, 1, &err);
        if (g)
            tables[n++] = seats;
        else if (!err.code || strcmp(err.code, "bad_players") != 0)
            snprintf(why, size, "%d seats refused with \"%s\": %s", seats,
                     err.code ? err.code : "(null)", err.message);
        game_free(g);
    }
    return n;
}

static void run_campaign(void)
{
    if (camp.done) return;
    camp.done = true;
    const game_desc_t *const *games = game_registry(&camp.n);
    camp.runs = calloc((size_t)camp.n, sizeof *camp.runs);
    camp.per_game = env_long("TAPIS_CONFORMANCE_GAMES", DEFAULT_PLAYOUTS);
    const char *only = getenv("TAPIS_CONFORMANCE_GAME");
    long seed = env_long("TAPIS_CONFORMANCE_SEED", 0);
    bool trace = env_long("TAPIS_CONFORMANCE_TRACE", 0) > 0;
    camp.single = seed > 0;
    for (int i = 0; i < camp.n; i++) {
        game_run_t *run = &camp.runs[i];
        run->d = games[i];
        if (only && *only && strcmp(only, games[i]->id) != 0) continue;
        char why[256];
        /* descriptors_are_complete reports these */
        if (!descriptor_complete(run->d)) continue;
        run->ntables = tables_of(run->d, run->tables, why, sizeof why);
        if (!run->ntables || *why) continue;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        if (camp.single) {
            playout(run, (uint64_t)seed, &every_step, true);
        } else {
            for (long k = 1; k <= camp.per_game; k++)
                playout(run, (uint64_t)k, &campaign_rates, trace);
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        run->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    }
}

/*
 * The report of check ck for every game: a summary line, and a failure with the
 * first findings' messages. A check that never ran fails too (except when a
 * single seed is replayed), so that a silent campaign does not pass.
 */
static void expect_no_findings(int ck, const char *what)
{
    run_campaign();
    int failed = 0;
    for (int i = 0; i < camp.n; i++) {
        const game_run_t *run = &camp.runs[i];
        if (!run->playouts) continue;
        const check_t *c = &run->ck[ck];
        print_message("[%s] %s: %ld checks, %ld failures\n", run->d->id, what, c->runs, c->fails);
        if (c->fails) {
            for (long k = 0; k < c->fails && k < EXAMPLES; k++)
                print_message("[%s] failure %ld: %s\n", run->d->id, k + 1, c->example[k]);
            failed++;
        } else if (c->runs == 0 && !camp.single && ck != CK_CREATE && ck != CK_DEFAULT) {
            print_message("[%s] %s: never checked\n", run->d->id, what);
            failed++;
        }
    }
    if (failed) fail_msg("%s: %d game(s) fail, see above", what, failed);
}

/* ------------------------------------------------------------------------ */
/* Tests                                                                    */
/* ------------------------------------------------------------------------ */

/* A check of the campaign that must have no finding: its class, what it counts. */
typedef struct no_findings {
    int ck;
    const char *what;
} no_findings_t;

static void no_findings(void **state)
{
    const no_findings_t *n = *state;
    expect_no_findings(n->ck, n->what);
}

/* The test `name`: no finding of class ck over the campaign (`what` in messages). */
#define NO_FINDINGS_TEST(name, ck, what)                                                           \
    {                                                                                              \
#name, no_findings, NULL, NULL, (void *)&(const no_findings_t)                             \
        {                                                                                          \
            (ck), (what)                                                                           \
        }                                                                                          \
    }

static void descriptors_are_complete(void **state)
{
    (void)state;
    int n;
    const game_desc_t *const *games = game_registry(&n);
    assert_true(n > 0);
    for (int i = 0; i < n; i++) {
        if (!descriptor_complete(games[i]))
            fail_msg("game %s: incomplete descriptor (id, title, seat range within 1..%d, "
                     "a well-formed option table, every required function)",
                     games[i]->id ? games[i]->id : "(no id)", GAME_MAX_SEATS);
        assert_ptr_equal(game_find(games[i]->id), games[i]);
        for (int j = 0; j < i; j++)
            assert_string_not_equal(games[i]->id, games[j]->id);
        int tables[GAME_MAX_SEATS];
        char why[256];
        int nt = tables_of(games[i], tables, why, sizeof why);
        if (*why) fail_msg("game %s: %s", games[i]->id, why);
        if (nt == 0 || tables[0] != games[i]->min_seats || tables[nt - 1] != games[i]->max_seats)
            fail_msg("game %s: game_new refuses %d or %d seats with the default options",
                     games[i]->id, games[i]->min_seats, games[i]->max_seats);
    }
}

/* Same (seats, options, seed): same dump and views; different seeds deal differently. */
static void creation_is_deterministic(void **state)
{
    (void)state;
    int n;
    const game_desc_t *const *games = game_registry(&n);
    for (int i = 0; i < n; i++) {
        const game_desc_t *d = games[i];
        int tables[GAME_MAX_SEATS];
        char why[256];
        int nt = descriptor_complete(d) ? tables_of(d, tables, why, sizeof why) : 0;
        for (int t = 0; t < nt; t++) {
            int seats = tables[t];
            json_t *first = NULL;
            int distinct = 0;
            for (uint64_t seed = 1; seed <= 40; seed++) {
                rng_t r;
                rng_seed(&r, seed);
                json_t *opts =
                    seed % 2 ? NULL
                             : cu_options(d, seed / 2 % 2 ? OPTIONS_SMALL : OPTIONS_AROUND, &r);
                game_error_t e1 = {0}, e2 = {0};
                game_t *a = game_new(d, seats, opts, seed, &e1);
                game_t *b = game_new(d, seats, opts, seed, &e2);
                if (!a || !b) {
                    if (a || b)
                        fail_msg("game %s seats %d seed %" PRIu64
                                 ": one of two identical game_new calls failed",
                                 d->id, seats, seed);
                    if (!opts)
                        fail_msg("game %s seats %d seed %" PRIu64 ": defaults refused: %s", d->id,
                                 seats, seed, e1.message);
                    if (!cu_snake_case(e1.code) || !e1.message[0])
                        fail_msg("game %s: options %s refused with code \"%s\"", d->id,
                                 cu_show(opts), e1.code ? e1.code : "(null)");
                    json_decref(opts);
                    continue;
                }
                json_t *x = game_dump(a), *y = game_dump(b);
                if (!json_equal(x, y))
                    fail_msg("game %s seats %d seed %" PRIu64 ": two dumps: %s vs %s", d->id, seats,
                             seed, cu_show(x), cu_show(y));
                for (int s = GAME_SPECTATOR; s < seats; s++) {
                    json_t *v = game_view(a, s), *w = game_view(b, s);
                    if (!json_equal(v, w))
                        fail_msg("game %s seats %d seed %" PRIu64 ": view(%d) differs", d->id,
                                 seats, seed, s);
                    json_decref(v);
                    json_decref(w);
                }
                if (!opts) {
                    if (!first)
                        first = json_incref(x);
                    else if (!json_equal(first, x))
                        distinct++;
                }
                json_decref(x);
                json_decref(y);
                game_free(a);
                game_free(b);
                json_decref(opts);
            }
            json_decref(first);
            if (distinct == 0)
                fail_msg("game %s seats %d: every seed gives the same table", d->id, seats);
        }
    }
    expect_no_findings(CK_CREATE, "refused options");
}

static void every_playout_reaches_the_end(void **state)
{
    (void)state;
    run_campaign();
    int played = 0;
    for (int i = 0; i < camp.n; i++) {
        const game_run_t *r = &camp.runs[i];
        if (!r->playouts) continue;
        played++;
        print_message("[%s] %ld playouts (%ld with default options, %ld finished) in %.1f s; "
                      "steps %ld (mean %.0f, longest %ld), actions %ld, ticks %ld, idle waits "
                      "%ld\n",
                      r->d->id, r->playouts, r->defaults, r->finished, r->seconds, r->steps,
                      (double)r->steps / (double)r->playouts, r->longest, r->actions, r->ticks,
                      r->idle);
        for (int k = 0; k < r->ntables; k++)
            print_message("[%s]   %d seats: %ld playouts\n", r->d->id, r->tables[k],
                          r->by_seats[r->tables[k]]);
    }
    if (!played) fail_msg("no game was played (TAPIS_CONFORMANCE_GAME names none?)");
    expect_no_findings(CK_END, "reaching the end");
}

static void views_hide_what_resampling_changes(void **state)
{
    (void)state;
    expect_no_findings(CK_RESAMPLE, "resamplings");
    /*
     * Every game of tapis deals from a face-down deck, so a resampling that
     * never changes anything means resample() does not redraw at all.
     */
    for (int i = 0; i < camp.n; i++) {
        const game_run_t *r = &camp.runs[i];
        if (!r->playouts) continue;
        print_message("[%s] %ld resamplings, %ld changed the hidden state\n", r->d->id,
                      r->resampled, r->resample_differs);
        if (!camp.single && r->resample_differs == 0)
            fail_msg("game %s: resample() never changed the state", r->d->id);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(descriptors_are_complete),
        cmocka_unit_test(every_playout_reaches_the_end),
        cmocka_unit_test(creation_is_deterministic),
        NO_FINDINGS_TEST(legal_actions_always_apply, CK_APPLY, "listed actions applied"),
        NO_FINDINGS_TEST(default_actions_are_legal, CK_DEFAULT, "default actions"),
        NO_FINDINGS_TEST(state_stays_consistent, CK_STATE, "audits, ticks and waiting masks"),
        NO_FINDINGS_TEST(views_show_the_seat_and_its_legal_actions, CK_VIEW, "views"),
        NO_FINDINGS_TEST(illegal_actions_change_nothing, CK_ILLEGAL, "illegal actions refused"),
        NO_FINDINGS_TEST(replay_gives_identical_state, CK_REPLAY, "replays"),
        cmocka_unit_test(views_hide_what_resampling_changes),
        NO_FINDINGS_TEST(bots_choose_legal_actions, CK_BOT, "bot choices"),
        NO_FINDINGS_TEST(results_name_the_winners, CK_RESULT, "results"),
        NO_FINDINGS_TEST(held_views_never_change, CK_HELD, "held views"),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    free(camp.runs);
    return rc;
}
