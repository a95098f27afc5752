/*
 * test_alloc_fail.c — every allocation fails once, in turn (SQLite's
 * test/malloc.test, STYLE.md).
 *
 * All allocation of core/ and protocol/ goes through tapis_alloc.h, and this
 * test routes jansson through the same hooks (json_set_alloc_funcs). The
 * hooks (tests/lib/alloc_fail.c, shared with tapisd_allocfail) count
 * allocation calls, make the Nth one fail, and count the blocks alive. Each part below is a fixed
 * script; it runs once with no failure (the reference), then for N = 1, 2, 3, ... with the Nth
 * allocation failing, until a run reaches its end without having failed any. Every run must:
 *  - not crash (and, in the sanitizer build, touch no freed or unowned memory);
 *  - free everything: no block alive at the end of the run;
 *  - report the failure: each step of the script gives the reference's
 *    outcome, or an out-of-memory outcome (NULL, or the code "internal", the
 *    one out-of-memory code of every layer) in the step during which the
 *    allocation failed, never
 *    another outcome (a view missing a key, a wrong error code, a changed
 *    state after a refused action).
 * A game action refused for lack of memory must leave the state as it was
 * (same dump); the script then retries it, so later steps are checked too.
 *
 * The parts: protocol (framing, request parsing in both forms, valid and
 * invalid, replies and their encoding, events, help, inline rendering), and
 * one per game of the registry (game_new with options, the first legal
 * action each time for a few moves with views for every seat and the
 * spectator and legal lists, then, played to its end without failures,
 * result, views, legal, dump and free).
 *
 * Environment: TAPIS_ALLOC_MOVES=M moves under failure per game (default 6,
 * 3 under AddressSanitizer), TAPIS_ALLOC_STRIDE=K fails every Kth N only
 * (1, 1+K, 1+2K, ...; default 1: every N),
 * TAPIS_ALLOC_VERBOSE=1 prints each part's allocation count.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/game.h"
#include "json/json_plain.h"
#include "json/json_text.h"
#include "protocol/protocol.h"
#include "include/tapis_alloc.h"
#include "tests/lib/alloc_fail.h"

/* ------------------------------------------------------------------ hooks --- */

/* tests/lib/alloc_fail.c counts and fails; jansson goes through the same wrapper. */
static int install(void **state)
{
    (void)state;
    alloc_fail_install(true);
    json_set_alloc_funcs(tapis_malloc, tapis_free);
    return 0;
}

static int uninstall(void **state)
{
    (void)state;
    json_set_alloc_funcs(malloc, free);
    alloc_fail_install(false);
    return 0;
}

/* ---------------------------------------------------------------- scripts --- */

/*
 * A script records one outcome per step as text. In the reference run
 * (fail_at == 0) the outcomes are kept; in a failing run each is checked
 * against the reference.
 */
#define MAX_STEPS 4096
#define OUT_SIZE 512

typedef struct script {
    const char *part;
    char (*ref)[OUT_SIZE]; /* reference outcomes */
    int nref;
    int step;              /* steps taken in this run */
    long errors;           /* mismatches over all runs */
    unsigned long at_step; /* alloc_fail.failed when the current step began */
} script_t;

static void script_begin_step(script_t *s)
{
    s->at_step = alloc_fail.failed;
}

/* True if an allocation failed since script_begin_step(). */
static bool script_failed_in_step(const script_t *s)
{
    return alloc_fail.failed != s->at_step;
}

/*
 * Record the outcome `out` of the step; `oom` says it is an out-of-memory
 * outcome. Returns true if the step should be retried (it failed for lack of
 * memory, as it may).
 */
static bool script_outcome(script_t *s, const char *out, bool oom)
{
    int i = s->step;
    if (alloc_fail.fail_at == 0) {
        if (i >= MAX_STEPS) fail_msg("%s: more than %d steps", s->part, MAX_STEPS);
        if (oom) fail_msg("%s step %d: out of memory without a failure: %s", s->part, i, out);
        snprintf(s->ref[i], OUT_SIZE, "%s", out);
        s->nref = ++s->step;
        return false;
    }
    bool failed = script_failed_in_step(s);
    if (oom && failed) return true; /* reported: the caller retries the step */
    s->step++;
    char got[OUT_SIZE];
    snprintf(got, sizeof got, "%s", out);
    if (i < s->nref && strcmp(got, s->ref[i]) == 0) return false;
    if (s->errors++ < 20)
        print_error("%s N=%lu step %d%s: %s\n    got:      %s\n    expected: %s\n", s->part,
                    alloc_fail.fail_at, i, failed ? " (allocation failed in it)" : "",
                    oom ? "out of memory reported without a failure" : "failure not reported", got,
                    i < s->nref ? s->ref[i] : "(no such step)");
    return false;
}

/* Compact text of v (paused), cut to fit an outcome. */
static void text_of(const json_t *v, char *buf, size_t size)
{
    alloc_fail_pause();
    size_t n = json_text(v, buf, size - 1);
    buf[n < size - 1 ? n : size - 1] = '\0';
    alloc_fail_resume();
}

/*
 * A hash of v's text, so that long values (views, dumps) compare whole in a
 * short outcome.
 */
static void digest_of(const json_t *v, char *buf, size_t size)
{
    alloc_fail_pause();
    size_t n = json_text(v, NULL, 0);
    char *t = malloc(n + 1); /* the test's own memory: libc */
    assert_non_null(t);
    json_text(v, t, n);
    t[n] = '\0';
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)t[i]) * 1099511628211ULL;
    snprintf(buf, size, "%zu:%016llx:%.60s", n, (unsigned long long)h, t);
    free(t);
    alloc_fail_resume();
}

/*
 * Run `part` with the Nth allocation failing, N = 1, 1 + stride, ... until a
 * run makes no failure; every run must end with no block alive. Returns the
 * largest N.
 */
static unsigned long run_all(script_t *s, void (*part)(script_t *))
{
    static char ref[MAX_STEPS][OUT_SIZE];
    s->ref = ref;
    alloc_fail_reset(0);
    s->step = 0;
    part(s);
    assert_int_equal(alloc_fail.live, 0);
    unsigned long total = alloc_fail.calls;
    const char *k = getenv("TAPIS_ALLOC_STRIDE");
    unsigned long stride = k && atol(k) > 0 ? (unsigned long)atol(k) : 1, n;
    for (n = 1;; n += stride) {
        alloc_fail_reset(n);
        s->step = 0;
        part(s);
        if (alloc_fail.live != 0 && s->errors++ < 20)
            print_error("%s N=%lu: %ld blocks leaked\n", s->part, n, alloc_fail.live);
        if (alloc_fail.failed == 0) break;
        if (s->step != s->nref && s->errors++ < 20)
            print_error("%s N=%lu: %d steps, the reference has %d\n", s->part, n, s->step, s->nref);
    }
    if (getenv("TAPIS_ALLOC_VERBOSE"))
        print_message("%s: %lu allocations, %d steps, N up to %lu\n", s->part, total, s->nref, n);
    /* The first N past the last allocation is the first run with no failure. */
    assert_true(n > total && n - stride <= total);
    return n;
}

/* --------------------------------------------------------------- protocol --- */

static const char *const lines[] = {
    "{\"cmd\":\"hello\",\"name\":\"alice\",\"id\":1}",
    ("{\"cmd\":\"create\",\"game\":\"233\",\"players\":4,\"options\":{\"rounds\":2},\"id\":"
     "{\"k\":[1,2,\"x\"]}}"), /* one line, wrapped */
    "{\"cmd\":\"join\",\"room\":12}",
    "{\"cmd\":\"act\",\"room\":\"3\",\"action\":{\"type\":\"discard\",\"card\":\"Y3\"}}",
    "{\"cmd\":\"say\",\"text\":\"h\\u00e9llo \\ud83d\\ude00\",\"room\":null}",
    "{\"cmd\":\"ping\",\"id\":\"p\",\"extra\":[true,false,null,1.5]}",
    "{\"cmd\":\"nosuch\",\"id\":7}",
    "{\"cmd\":5}",
    "{\"id\":3}",
    "[1,2,3]",
    "{\"cmd\":\"ping\",\"cmd\":\"ping\"}",
    "{\"cmd\":\"join\"",
    "{\"cmd\":\"create\",\"game\":\"233\",\"players\":\"4\"}",
    "{\"cmd\":\"act\",\"action\":{\"type\":\"\"}}",
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
    "hello bob",
    "create 233 4 private rounds=2 name=x",
    "join 12 seat=1",
    "say hello   there  ",
    "act discard card=Y3 room=3",
    "discard card=Y3 declare=true",
    "claim cards=Y3,Y3 x=, y=1, z=-0",
    "play 1 2 three null true",
    "act {\"type\":\"pass\",\"n\":[1,{\"a\":2}]}",
    "act {\"type\":\"pass\"",
    "act type=x",
    "act",
    "join 1 2 3",
    "join room=1 room=2",
    "Hello",
    "n\xc3\xa9! x",
    "bad\x01line",
    "help act",
    "   ",
    "ping",
};

static const char *const actions[] = {
    "{\"type\":\"discard\",\"card\":\"Y3\",\"declare\":true}",
    "{\"type\":\"claim\",\"cards\":[\"Y3\",\"Y3\"],\"args\":[1,\"a\"]}",
    "{\"type\":\"join\",\"n\":1}",
    "{\"type\":\"say it\",\"x\":{\"y\":1}}",
    "{\"type\":\"del\",\"s\":\"a\\u007fb\"}",
};

static bool is_oom_code(const char *code)
{
    return code && strcmp(code, TAPIS_E_INTERNAL) == 0;
}

/* True (in a failing run) unless the reference gave `out` at this step: a NULL is out of memory. */
static bool null_is_oom(const script_t *s, const char *out)
{
    return alloc_fail.fail_at != 0 && !(s->step < s->nref && strcmp(s->ref[s->step], out) == 0);
}

/* Step: encode msg (or report NULL) and record it. Consumes msg. Returns: retry. */
static bool step_encode(script_t *s, json_t *msg)
{
    char out[OUT_SIZE];
    size_t len = 0;
    char *line = proto_encode(msg, &len);
    if (!line)
        snprintf(out, sizeof out, "encode NULL%s", msg ? "" : " (no message)");
    else
        snprintf(out, sizeof out, "encode %zu %.400s", len, line);
    bool oom = !line;
    tapis_free(line);
    json_decref(msg);
    return script_outcome(s, out, oom);
}

/* Framing: every line through one splitter, fed with its "\r\n". Returns: retry. */
static bool step_frame(script_t *s)
{
    frame_t f;
    frame_init(&f, 200);
    int lines_out = 0;
    bool oom = false;
    for (size_t i = 0; i < sizeof lines / sizeof lines[0] && !oom; i++) {
        const char *l = lines[i];
        oom = frame_feed(&f, l, strlen(l)) < 0 || frame_feed(&f, "\r\n", 2) < 0;
        const char *got;
        size_t n;
        while (frame_next(&f, &got, &n) == FRAME_LINE)
            lines_out++;
    }
    frame_free(&f);
    char out[OUT_SIZE];
    snprintf(out, sizeof out, "frame %d lines", lines_out);
    return script_outcome(s, out, oom);
}

/* What a parsed request holds: msg, or for one read without it (CMD_F_ARGS)
   its arguments by name; NULL when memory ran out. */
static json_t *request_echo(const proto_request_t *req)
{
    if (req->msg) return json_deep_copy(req->msg);
    json_t *o = json_object();
    for (int i = 0; o && i < CMD_MAX_ARGS && req->command->args[i].name; i++)
        if (req->args[i] &&
            json_object_set_new(o, req->command->args[i].name, json_deep_copy(req->args[i])) < 0) {
            json_decref(o);
            o = NULL;
        }
    return o;
}

/* The reply to a parsed request, encoded. Returns: retry. */
static bool step_reply(script_t *s, const proto_request_t *req, const tapis_error_t *err, int r)
{
    json_t *reply;
    if (r == PROTO_EMPTY) {
        reply = proto_event("empty");
    } else if (r == PROTO_OK) {
        reply = proto_reply(req->re, req->id);
        if (reply && json_object_set_new(reply, "echo", request_echo(req)) < 0) {
            json_decref(reply);
            reply = NULL;
        }
    } else {
        reply = proto_reply_from_error(req, err);
    }
    return step_encode(s, reply);
}

static void protocol_part(script_t *s)
{
    char out[OUT_SIZE];
    do
        script_begin_step(s);
    while (step_frame(s));

    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        const char *l = lines[i];
        proto_request_t req;
        tapis_error_t err = {0};
        int r;
        bool retry;
        do {
            script_begin_step(s);
            r = proto_request_parse(&req, l, strlen(l), &err);
            char msg[300];
            alloc_fail_pause();
            json_t *echo = r == PROTO_OK ? request_echo(&req) : json_incref(req.msg);
            alloc_fail_resume();
            text_of(echo, msg, sizeof msg);
            json_decref(echo);
            snprintf(out, sizeof out, "parse %d %s re=%s msg=%s", r,
                     r == PROTO_ERROR ? err.code : "-", req.re ? req.re : "(null)", msg);
            retry = script_outcome(s, out, r == PROTO_ERROR && is_oom_code(err.code));
            if (retry) proto_request_free(&req);
        } while (retry);
        do
            script_begin_step(s);
        while (step_reply(s, &req, &err, r));
        proto_request_free(&req);

        /* The inline form alone. */
        if (l[0] != '{' && l[0] != '[' && l[strspn(l, " ")] != '\0') {
            do {
                script_begin_step(s);
                tapis_error_t e2 = {0};
                json_t *m = inline_parse(l, strlen(l), &e2);
                char msg[300];
                text_of(m, msg, sizeof msg);
                snprintf(out, sizeof out, "inline %s %s", m ? "ok" : e2.code, msg);
                retry = script_outcome(s, out, !m && is_oom_code(e2.code));
                json_decref(m);
            } while (retry);
        }
    }

    /* An error reply whose message is not UTF-8, and an event. */
    do
        script_begin_step(s);
    while (step_encode(s, proto_reply_error("say", NULL, TAPIS_E_BAD_TEXT, "bad \xff text")));
    bool retry;
    do {
        script_begin_step(s);
        json_t *ev = proto_event("state");
        if (ev && json_object_set_new(ev, "n", json_integer(3)) < 0) {
            json_decref(ev);
            ev = NULL;
        }
        retry = step_encode(s, ev);
    } while (retry);

    /* Help texts (NULL for no command). */
    const char *const help_names[] = {NULL, "act", "nosuch"};
    for (int i = 0; i < 3; i++) {
        do {
            script_begin_step(s);
            char *h = command_help(help_names[i]);
            snprintf(out, sizeof out, "help %s %zu", help_names[i] ? help_names[i] : "-",
                     h ? strlen(h) : 0);
            retry = script_outcome(s, out, !h && null_is_oom(s, out));
            tapis_free(h);
        } while (retry);
    }

    /* Actions rendered as words: whatever road, they must parse back equal. */
    for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++) {
        alloc_fail_pause();
        json_t *a = json_loads(actions[i], 0, NULL);
        alloc_fail_resume();
        assert_non_null(a);
        do {
            script_begin_step(s);
            char *w = inline_render_action(a);
            bool back = false;
            if (w) {
                alloc_fail_pause();
                tapis_error_t e3;
                json_t *m = inline_parse(w, strlen(w), &e3);
                back = m && json_equal(json_object_get(m, "action"), a);
                json_decref(m);
                alloc_fail_resume();
            }
            snprintf(out, sizeof out, "render %zu %s", i, w ? (back ? "parses back" : w) : "NULL");
            retry = script_outcome(s, out, !w);
            tapis_free(w);
        } while (retry);
        alloc_fail_pause();
        json_decref(a);
        alloc_fail_resume();
    }
    /* The actions the requests shared (json_plain_shared()): every run starts
       with none, and ends with no block alive. */
    json_plain_shared_clear();
}

static void alloc_fail_protocol(void **state)
{
    (void)state;
    script_t s = {.part = "protocol"};
    run_all(&s, protocol_part);
    assert_int_equal(s.errors, 0);
}

/* ------------------------------------------------------------------ games --- */

static const game_desc_t *current_game;
/* The work grows as the square of the moves: fewer under AddressSanitizer (6 take 7 minutes). */
#if defined(__SANITIZE_ADDRESS__)
static int moves_under_failure = 3;
#else
static int moves_under_failure = 6;
#endif

/* Record a json result (NULL = out of memory when the reference had one). */
static bool step_json(script_t *s, const char *what, json_t *v)
{
    char out[OUT_SIZE], d[200];
    if (v) digest_of(v, d, sizeof d);
    snprintf(out, sizeof out, "%s %s", what, v ? d : "NULL");
    /* NULL is an out-of-memory outcome unless the reference says NULL too. */
    bool retry = script_outcome(s, out, !v && null_is_oom(s, out));
    json_decref(v);
    return retry;
}

/*
 * The view of seat as the server writes it, with the writer's text end (whose
 * one allocation is a finished game's result), parsed back with failures
 * paused: NULL when the writer failed, never a view with a part missing.
 */
static json_t *text_view(const game_t *g, int seat)
{
    static char buf[1 << 17];
    jw_t w;
    jw_text(&w, buf, sizeof buf);
    game_write_view(g, seat, &w);
    if (!jw_ok(&w)) return NULL;
    alloc_fail_pause();
    json_t *v = json_loadb(buf, jw_len(&w), 0, NULL);
    alloc_fail_resume();
    return v;
}

/* The views of every seat and the spectator (tree and text), and every seat's legal list. */
static void look(script_t *s, const game_t *g)
{
    char what[48];
    for (int seat = GAME_SPECTATOR; seat < g->seats; seat++) {
        snprintf(what, sizeof what, "view %d", seat);
        do
            script_begin_step(s);
        while (step_json(s, what, game_view(g, seat)));
        snprintf(what, sizeof what, "text view %d", seat);
        do
            script_begin_step(s);
        while (step_json(s, what, text_view(g, seat)));
    }
    for (int seat = 0; seat < g->seats; seat++) {
        snprintf(what, sizeof what, "legal %d", seat);
        do
            script_begin_step(s);
        while (step_json(s, what, game_legal(g, seat)));
    }
}

/* The first seat with a legal action and that action (paused: the test's choice), or -1. */
static int choose(const game_t *g, json_t **action)
{
    alloc_fail_pause();
    int found = -1;
    for (int seat = 0; seat < g->seats && found < 0; seat++) {
        json_t *legal = game_legal(g, seat);
        if (json_array_size(legal) > 0) {
            *action = json_incref(json_array_get(legal, 0));
            found = seat;
        }
        json_decref(legal);
    }
    alloc_fail_resume();
    return found;
}

/* The state's dump, taken with failures paused (an allocation of the test's own). */
static json_t *dump_paused(const game_t *g)
{
    alloc_fail_pause();
    json_t *d = game_dump(g);
    alloc_fail_resume();
    return d;
}

/* json_decref() with failures paused. */
static void decref_paused(json_t *j)
{
    alloc_fail_pause();
    json_decref(j);
    alloc_fail_resume();
}

/*
 * A change under failures: apply `action` for `seat`, or tick when action is
 * NULL, at `now`. A refusal of apply for lack of memory must leave the state
 * as it was. tick() has no way to say it ran out of memory: then it must
 * change nothing (and say false), so that the deadline stays due.
 */
static void change(script_t *s, game_t *g, int seat, json_t *action, int64_t now)
{
    bool retry;
    do {
        json_t *before = dump_paused(g);
        script_begin_step(s);
        game_error_t err = {0};
        int r = action ? game_apply(g, seat, action, now, &err) : game_tick(g, now);
        json_t *after = dump_paused(g);
        alloc_fail_pause();
        bool same = json_equal(before, after);
        alloc_fail_resume();
        char out[OUT_SIZE], d[200];
        digest_of(after, d, sizeof d);
        bool oom;
        if (action) {
            snprintf(out, sizeof out, "apply %d %s %s", r, r < 0 ? err.code : "-", d);
            oom = r < 0 && is_oom_code(err.code);
            if (oom && !same && s->errors++ < 20)
                print_error("%s N=%lu step %d: apply refused (%s) but changed the state\n", s->part,
                            alloc_fail.fail_at, s->step, err.code);
        } else {
            snprintf(out, sizeof out, "tick %d %s", r, d);
            oom = !r && same && alloc_fail.fail_at != 0 && script_failed_in_step(s);
        }
        retry = script_outcome(s, out, oom);
        decref_paused(before);
        decref_paused(after);
    } while (retry);
}

/*
 * The next change: the first seat with a legal action (*seat, *action) at
 * *now + 700, or else a tick at the next deadline (*seat -1, *action NULL).
 * False when there is neither.
 */
static bool next_change(const game_t *g, int64_t *now, int *seat, json_t **action)
{
    *action = NULL;
    *seat = choose(g, action);
    if (*seat >= 0) {
        *now += 700;
        return true;
    }
    int64_t t = game_next_deadline(g);
    if (t == GAME_NO_DEADLINE) return false;
    *now = t > *now ? t : *now;
    return true;
}

static void game_part(script_t *s)
{
    const game_desc_t *d = current_game;
    int seats = d->min_seats;
    alloc_fail_pause();
    json_t *opts = game_default_options(d);
    alloc_fail_resume();

    game_t *g;
    game_error_t err;
    bool retry;
    do {
        script_begin_step(s);
        err = (game_error_t){0};
        g = game_new(d, seats, opts, 233, &err);
        char out[OUT_SIZE];
        snprintf(out, sizeof out, "new %s", g ? "ok" : err.code);
        retry = script_outcome(s, out, !g && is_oom_code(err.code));
    } while (retry);
    alloc_fail_pause();
    json_decref(opts);
    alloc_fail_resume();
    assert_non_null(g);

    int64_t now = 0;
    int seat;
    json_t *a;
    look(s, g);
    for (int m = 0; m < moves_under_failure && next_change(g, &now, &seat, &a); m++) {
        change(s, g, seat, a, now);
        decref_paused(a);
        look(s, g);
    }

    /* To the end without failures: the first legal action, or the next deadline. */
    alloc_fail_pause();
    for (int steps = 0; steps < 20000 && !game_is_over(g) && next_change(g, &now, &seat, &a);
         steps++) {
        if (!a) {
            game_tick(g, now);
            continue;
        }
        game_error_t e;
        int r = game_apply(g, seat, a, now, &e);
        json_decref(a);
        if (r < 0) fail_msg("%s: the first legal action refused: %s", d->id, e.code);
    }
    alloc_fail_resume();

    do
        script_begin_step(s);
    while (step_json(s, "result", game_result(g)));
    look(s, g);
    do
        script_begin_step(s);
    while (step_json(s, "dump", game_dump(g)));
    game_free(g);
}

static void alloc_fail_game(void **state)
{
    current_game = *state;
    const char *m = getenv("TAPIS_ALLOC_MOVES");
    if (m) moves_under_failure = atoi(m);
    char part[64];
    snprintf(part, sizeof part, "game %s", current_game->id);
    script_t s = {.part = part};
    run_all(&s, game_part);
    assert_int_equal(s.errors, 0);
}

/* ------------------------------------------------------------------- main --- */

int main(void)
{
    int n;
    const game_desc_t *const *games = game_registry(&n);
    struct CMUnitTest tests[1 + 16];
    int k = 0;
    tests[k++] =
        (struct CMUnitTest)cmocka_unit_test_setup_teardown(alloc_fail_protocol, install, uninstall);
    for (int i = 0; i < n && k < 17; i++) {
        struct CMUnitTest t = cmocka_unit_test_prestate_setup_teardown(alloc_fail_game, install,
                                                                       uninstall, (void *)games[i]);
        t.name = games[i]->id;
        tests[k++] = t;
    }
    return _cmocka_run_group_tests("alloc_fail", tests, (size_t)k, NULL, NULL);
}
