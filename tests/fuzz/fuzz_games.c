/*
 * fuzz_games.c — every registered game (core/game.h) driven by the input:
 * listed actions, their mutations, garbage and raw JSON, at times the input
 * chooses. The conformance suite (tests/core/test_conformance.c) plays seeded
 * random games; here the fuzzer steers, and its mutation helpers
 * (conformance_util.h) are reused.
 *
 * Input:
 *   byte      the game (index in game_registry(), modulo their count)
 *   byte      the seat count (among those game_new accepts)
 *   byte      the options: 0 the defaults, 1 around them, 2 at the small end
 *             (cu_options, from 8 more bytes), 3 hostile (a byte per option:
 *             0, 1, -1, huge, a raw 32-bit value...); refused options must
 *             be refused with a code (then the defaults are used), and
 *             accepted ones beyond 32 bits must be played as given
 *   8 bytes   the seed
 *   byte      the clock's start: 0 at 0, else 4 more bytes
 *   then steps until the input runs out (at most MAX_STEPS):
 *     byte    time passing: 0-63 none (races), 64-159 a few ms, 160-223 25 ms
 *             steps, 224-254 2 s steps, 255 up to the next deadline
 *     byte    what to do, modulo 16: 0-6 a listed action (next bytes: the
 *             seat, the index), 7 the default action, 8 a bot's choice,
 *             9-10 a conformance candidate (cu_candidate), 11-12 a listed
 *             action with fields replaced or removed by the input, 13 an
 *             action built from the input (types, keys and strings the game
 *             listed, or raw bytes), 14 JSON text from the input (a length
 *             byte, then the text), 15 a tick, or a resample
 *
 * Checked at every step:
 *  - a listed action applies; the default action of a seat the game waits on
 *    and a bot's choice are listed;
 *  - a refusal returns -1 with a snake_case code and a message, and changes
 *    nothing: the dump, the spectator's view and every seat's view are
 *    json_equal before and after;
 *  - the audit passes after every change; nothing is accepted once over;
 *  - due deadlines are ticked (as the server does before an action); after
 *    tick(now), next_deadline() > now, and tick() says whether it changed
 *    the dump; a table where nobody can act has a deadline;
 *  - every view (each seat, the spectator) is an object (printable, at the
 *    end), a seat's with "seat" and "legal" equal to legal(seat); waiting()
 *    names seats;
 *  - once over: a result with winners, nothing legal, nobody waited on;
 *  - resample(seat) keeps view(seat) and passes the audit;
 *  - at the end, (options, seed, log of accepted actions and ticks) replays
 *    to the same dump and views: refusals left no trace anywhere.
 */
#include <inttypes.h>

#include "tests/fuzz/fuzz.h"

#include "tests/core/conformance_util.h"
#include "core/game.h"

#define MAX_STEPS 3000
#define AFTER_OVER 6 /* steps tried once the game is over: all must be refused */
#define SEEN_MAX 64  /* listed actions kept, for garbage made of real words */

typedef struct entry {
    int seat;
    json_t *action; /* NULL: a tick */
    int64_t now;
    bool changed; /* a tick's result */
} entry_t;

typedef struct table {
    const game_desc_t *d;
    game_t *g;
    int seats;
    json_t *options; /* NULL: the defaults */
    uint64_t seed;
    int64_t now;
    long step;
    bool changed;                  /* since the views were last checked */
    json_t *legal[GAME_MAX_SEATS]; /* legal(seat) of the current state, once asked */
    json_t *seen;
    entry_t *log;
    size_t nlog, caplog;
} table_t;

#define CHECK(t, cond, ...)                                                                        \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(                                                                               \
                stderr,                                                                            \
                "game %s, %d seats, seed %" PRIu64 ", options %s, step %ld, now %" PRId64 ": ",    \
                (t)->d->id, (t)->seats, (t)->seed, cu_show((t)->options), (t)->step, (t)->now);    \
            FZ_CHECK(cond, __VA_ARGS__);                                                           \
        }                                                                                          \
    } while (0)

/* ------------------------------------------------------------------------ */
/* The table                                                                */
/* ------------------------------------------------------------------------ */

/* The state changed (or may have): legal lists are asked again. */
static void forget_legal(table_t *t)
{
    for (int s = 0; s < GAME_MAX_SEATS; s++) {
        json_decref(t->legal[s]);
        t->legal[s] = NULL;
    }
}

static void log_push(table_t *t, int seat, const json_t *action, bool changed)
{
    if (t->nlog == t->caplog) {
        t->caplog = t->caplog ? t->caplog * 2 : 64;
        t->log = realloc(t->log, t->caplog * sizeof *t->log);
        FZ_CHECK(t->log != NULL, "out of memory");
    }
    t->log[t->nlog++] =
        (entry_t){seat, action ? json_incref((json_t *)action) : NULL, t->now, changed};
    forget_legal(t);
    t->changed = true;
}

static void audit_ok(table_t *t, const game_t *g, const char *after)
{
    game_error_t err = {0};
    CHECK(t, t->d->audit(g, &err) == 0, "audit after %s: %s: %s", after,
          err.code ? err.code : "(null)", err.message);
}

/* tick(now): next_deadline() moves past now, and the result says whether the dump changed. */
static void do_tick(table_t *t)
{
    json_t *before = game_dump(t->g);
    bool changed = game_tick(t->g, t->now);
    json_t *after = game_dump(t->g);
    CHECK(t, changed == !json_equal(before, after), "tick returned %d but the dump %s", changed,
          changed ? "did not change" : "changed");
    json_decref(before);
    json_decref(after);
    int64_t next = game_next_deadline(t->g);
    CHECK(t, next > t->now, "after tick(%" PRId64 "), next_deadline is %" PRId64, t->now, next);
    log_push(t, -1, NULL, changed);
    audit_ok(t, t->g, "a tick");
}

/*
 * legal(seat): a list of action objects with a string type (a new reference).
 * Asked of the game once per state: a refusal changes nothing (act() checks
 * it), so the list stays valid until an action is accepted or a tick runs.
 */
static json_t *legal_of(table_t *t, int seat)
{
    if (!t->legal[seat]) {
        json_t *l = game_legal(t->g, seat);
        CHECK(t, json_is_array(l), "legal(%d) is %s", seat, cu_show(l));
        size_t i;
        json_t *a;
        json_array_foreach(l, i, a) CHECK(t, json_is_string(json_object_get(a, "type")),
                                          "legal(%d) lists %s", seat, cu_show(a));
        t->legal[seat] = l;
    }
    return json_incref(t->legal[seat]);
}

static void remember(table_t *t, const json_t *legal)
{
    size_t i;
    json_t *a;
    json_array_foreach(legal, i, a)
    {
        if (json_array_size(t->seen) < SEEN_MAX && !cu_contains(t->seen, a))
            json_array_append(t->seen, a);
    }
}

/*
 * Every view an object (printable, with `print`: json_dumps is most of the
 * cost, so only at the end); a seat's with its seat and legal list;
 * waiting() and the end.
 */
static void check_views(table_t *t, bool print)
{
    unsigned waiting = game_waiting(t->g);
    CHECK(t, (waiting >> t->seats) == 0, "waiting() is %#x with %d seats", waiting, t->seats);
    bool over = game_is_over(t->g);
    for (int s = GAME_SPECTATOR; s < t->seats; s++) {
        json_t *v = game_view(t->g, s);
        char *text = print && v ? json_dumps(v, JSON_COMPACT) : NULL;
        CHECK(t, json_is_object(v) && (text || !print), "view(%d) is not a printable object", s);
        free(text);
        if (s != GAME_SPECTATOR) {
            json_t *legal = legal_of(t, s);
            json_t *seat = json_object_get(v, "seat");
            CHECK(t, json_is_integer(seat) && json_integer_value(seat) == s, "view(%d) seat %s", s,
                  cu_show(seat));
            CHECK(t, json_equal(json_object_get(v, "legal"), legal),
                  "view(%d) has legal %s, legal(%d) is %s", s, cu_show(json_object_get(v, "legal")),
                  s, cu_show(legal));
            CHECK(t, !over || json_array_size(legal) == 0, "over, yet legal(%d) is %s", s,
                  cu_show(legal));
            remember(t, legal);
            json_decref(legal);
        }
        json_decref(v);
    }
    json_t *res = game_result(t->g);
    if (over) {
        CHECK(t, waiting == 0, "over, yet waiting() is %#x", waiting);
        json_t *winners = json_object_get(res, "winners");
        CHECK(t, json_is_object(res) && json_is_array(winners), "result once over: %s",
              cu_show(res));
        size_t i;
        json_t *w;
        json_array_foreach(winners, i, w) CHECK(
            t, json_is_integer(w) && json_integer_value(w) >= 0 && json_integer_value(w) < t->seats,
            "result once over: %s", cu_show(res));
    } else {
        CHECK(t, res == NULL, "result before the end: %s", cu_show(res));
    }
    json_decref(res);
}

/* What a refusal must leave as it was: the whole state and every view. */
typedef struct snapshot {
    json_t *dump;
    json_t *views[GAME_MAX_SEATS + 1]; /* [0]: the spectator */
} snapshot_t;

static void snap_take(table_t *t, snapshot_t *s)
{
    s->dump = game_dump(t->g);
    for (int k = GAME_SPECTATOR; k < t->seats; k++)
        s->views[k + 1] = game_view(t->g, k);
}

static void snap_check_free(table_t *t, snapshot_t *s, int seat, const json_t *a)
{
    for (int k = GAME_SPECTATOR; k < t->seats; k++) {
        json_t *v = game_view(t->g, k);
        CHECK(t, json_equal(v, s->views[k + 1]),
              "seat %d's refused %s changed view(%d): %s became %s", seat, cu_show(a), k,
              cu_show(s->views[k + 1]), cu_show(v));
        json_decref(v);
        json_decref(s->views[k + 1]);
    }
    json_t *d = game_dump(t->g);
    CHECK(t, json_equal(d, s->dump), "seat %d's refused %s changed the state: %s became %s", seat,
          cu_show(a), cu_show(s->dump), cu_show(d));
    json_decref(d);
    json_decref(s->dump);
}

/*
 * Apply a for seat. `listed`: legal(seat) has it, so it must apply. A refusal
 * must be well formed and change nothing; an acceptance passes the audit.
 */
static void act(table_t *t, int seat, const json_t *a, bool listed)
{
    bool over = game_is_over(t->g);
    snapshot_t snap;
    if (!listed) snap_take(t, &snap);
    game_error_t err = {0};
    int rc = game_apply(t->g, seat, a, t->now, &err);
    if (rc == 0) {
        CHECK(t, !over, "seat %d's %s accepted after the end", seat, cu_show(a));
        log_push(t, seat, a, false);
        audit_ok(t, t->g, "an action");
        if (!listed) {
            for (int k = GAME_SPECTATOR; k < t->seats; k++)
                json_decref(snap.views[k + 1]);
            json_decref(snap.dump);
        }
        return;
    }
    CHECK(t, !listed, "seat %d's listed %s refused: %s: %s", seat, cu_show(a),
          err.code ? err.code : "(null)", err.message);
    CHECK(t, rc == -1 && cu_snake_case(err.code) && err.message[0],
          "seat %d's %s: apply returned %d, code \"%s\", message \"%s\"", seat, cu_show(a), rc,
          err.code ? err.code : "(null)", err.message);
    snap_check_free(t, &snap, seat, a);
}

/*
 * Is a listed for seat, exactly? (One that differs by the order of a list
 * only, or another spelling, may be accepted or refused: it is not listed.)
 */
static bool is_listed(table_t *t, int seat, const json_t *a)
{
    if (seat < 0) return false;
    json_t *legal = legal_of(t, seat);
    bool found = cu_contains(legal, a);
    json_decref(legal);
    return found;
}

/* ------------------------------------------------------------------------ */
/* Values from the input                                                    */
/* ------------------------------------------------------------------------ */

/* A short string of raw input bytes (ASCII-folded if not valid UTF-8). */
static json_t *fz_string(fz_t *in)
{
    const uint8_t *p;
    size_t n = fz_take(in, fz_below(in, 12), &p);
    json_t *s = json_stringn((const char *)p, n);
    if (s) return s;
    char buf[16];
    for (size_t i = 0; i < n; i++)
        buf[i] = (char)(p[i] & 0x7f);
    return json_stringn(buf, n);
}

/* A string found in the actions listed so far, or "" when none. */
static json_t *seen_word(table_t *t, fz_t *in)
{
    const char *words[64];
    int n = 0;
    cu_strings(t->seen, words, &n, 64);
    return json_string(n ? words[fz_below(in, (uint32_t)n)] : "");
}

/* A key: one of the listed actions', one every game knows of, or raw bytes. */
static json_t *fz_key(table_t *t, fz_t *in)
{
    static const char *const common[] = {"type", "args", "card", "cards", "to", "seat"};
    const char *keys[40];
    int n = 0;
    for (int i = 0; i < 6; i++)
        keys[n++] = common[i];
    size_t i;
    json_t *a;
    json_array_foreach(t->seen, i, a)
    {
        const char *k;
        json_t *v;
        json_object_foreach(a, k, v) if (n < 40) keys[n++] = k;
    }
    uint32_t pick = fz_below(in, (uint32_t)n + 2);
    return pick < (uint32_t)n ? json_string(keys[pick]) : fz_string(in);
}

static json_t *fz_value(table_t *t, fz_t *in, int depth)
{
    static const json_int_t ints[] = {
        0,  1,         2,         3,       4,         5,         6,         7,   8,
        9,  10,        11,        12,      13,        99,        100,       233, -1,
        -2, INT32_MAX, INT32_MIN, 1 << 16, 1LL << 32, INT64_MAX, INT64_MIN, -100};
    uint32_t nints = sizeof ints / sizeof ints[0];
    switch (fz_below(in, depth >= 3 ? 7 : 10)) {
    case 0: return json_null();
    case 1: return json_boolean(fz_u8(in) & 1);
    case 2: {
        uint32_t k = fz_below(in, nints + 1);
        return json_integer(k < nints ? ints[k] : (json_int_t)fz_u64(in));
    }
    case 3:
    case 4: return seen_word(t, in);
    case 5: return fz_string(in);
    case 6: return json_real((double)(int8_t)fz_u8(in) / 4.0);
    case 7: {
        json_t *a = json_array();
        for (uint32_t n = fz_below(in, 5); n > 0; n--)
            json_array_append_new(a, fz_value(t, in, depth + 1));
        return a;
    }
    case 8: {
        json_t *o = json_object();
        for (uint32_t n = fz_below(in, 4); n > 0; n--) {
            json_t *k = fz_key(t, in);
            json_object_set_new(o, json_string_value(k), fz_value(t, in, depth + 1));
            json_decref(k);
        }
        return o;
    }
    default: {
        size_t n = json_array_size(t->seen);
        return n ? json_deep_copy(json_array_get(t->seen, fz_below(in, (uint32_t)n)))
                 : json_object();
    }
    }
}

/* An action made from the input: a type the game listed (mostly), keys and values. */
static json_t *fz_action(table_t *t, fz_t *in)
{
    if (fz_below(in, 8) == 0) return fz_value(t, in, 0);
    json_t *a = json_object();
    size_t n = json_array_size(t->seen);
    switch (fz_below(in, 8)) {
    case 0: break; /* no type */
    case 1: json_object_set_new(a, "type", fz_value(t, in, 1)); break;
    case 2: json_object_set_new(a, "type", fz_string(in)); break;
    default: {
        json_t *type =
            n ? json_object_get(json_array_get(t->seen, fz_below(in, (uint32_t)n)), "type") : NULL;
        json_object_set_new(a, "type", type ? json_incref(type) : json_string("draw"));
    }
    }
    for (uint32_t k = fz_below(in, 4); k > 0; k--) {
        json_t *key = fz_key(t, in);
        if (strcmp(json_string_value(key), "type") != 0)
            json_object_set_new(a, json_string_value(key), fz_value(t, in, 1));
        json_decref(key);
    }
    return a;
}

/* A copy of a with one to three places replaced (by input values) or removed. */
static json_t *fz_mutate(table_t *t, fz_t *in, const json_t *a)
{
    json_t *c = json_deep_copy(a);
    for (uint32_t k = 1 + fz_below(in, 3); k > 0; k--) {
        cu_slot_t s[CU_MAX_SLOTS];
        int n = 0;
        cu_slots(c, s, &n);
        if (n == 0) break;
        cu_slot_t *slot = &s[fz_below(in, (uint32_t)n)];
        bool remove = fz_below(in, 4) == 0;
        if (json_is_object(slot->parent)) {
            if (remove)
                json_object_del(slot->parent, slot->key);
            else
                json_object_set_new(slot->parent, slot->key, fz_value(t, in, 1));
        } else if (remove) {
            json_array_remove(slot->parent, slot->index);
        } else {
            json_array_set_new(slot->parent, slot->index, fz_value(t, in, 1));
        }
    }
    return c;
}

static rng_t fz_rng(fz_t *in)
{
    rng_t r;
    rng_seed(&r, fz_u32(in));
    return r;
}

/* ------------------------------------------------------------------------ */
/* Setting up                                                               */
/* ------------------------------------------------------------------------ */

/* The seat counts game_new accepts, per game (computed once). */
static int tables_of(const game_desc_t *d, int *tables)
{
    int n = 0;
    for (int seats = d->min_seats; seats <= d->max_seats && seats <= GAME_MAX_SEATS; seats++) {
        game_error_t err = {0};
        game_t *g = game_new(d, seats, NULL, 1, &err);
        if (g) tables[n++] = seats;
        game_free(g);
    }
    return n;
}

/* Every option moved by the input: small, negative, huge or raw values. */
static json_t *hostile_options(const game_desc_t *d, fz_t *in)
{
    json_t *def = game_default_options(d), *o = json_object();
    const char *k;
    json_t *v;
    json_object_foreach(def, k, v)
    {
        uint8_t b = fz_u8(in);
        if (json_is_boolean(v)) {
            json_object_set_new(o, k, json_boolean(b & 1));
        } else if (json_is_integer(v)) {
            json_int_t n = json_integer_value(v);
            json_int_t choice[] = {n,         0,         1,        -1,        n / 2,
                                   n * 2,     n + 1,     n - 1,    INT32_MAX, INT32_MIN,
                                   1LL << 32, INT64_MAX, INT64_MIN};
            uint32_t nc = sizeof choice / sizeof choice[0];
            json_int_t x = b % (nc + 2) < nc    ? choice[b % (nc + 2)]
                           : b % (nc + 2) == nc ? (json_int_t)fz_u32(in)
                                                : (json_int_t)fz_u64(in);
            json_object_set_new(o, k, json_integer(x));
        } else if (json_is_real(v)) {
            json_object_set_new(o, k, json_real(json_real_value(v) * (double)(int8_t)b));
        }
    }
    json_decref(def);
    return o;
}

/*
 * An option game_new accepted is the one the game plays with: a value beyond
 * 32 bits (which an int cannot hold) is refused, or found unchanged under the
 * dump's "options" (when the dump shows them).
 */
static void check_options_kept(table_t *t)
{
    json_t *d = game_dump(t->g), *kept = json_object_get(d, "options");
    const char *k;
    json_t *v;
    if (json_is_object(kept)) json_object_foreach(t->options, k, v)
        {
            json_int_t x = json_integer_value(v);
            json_t *w = json_object_get(kept, k);
            if (!json_is_integer(v) || (x >= INT32_MIN && x <= INT32_MAX) || !w) continue;
            CHECK(t, json_equal(v, w), "option %s = %s accepted, but the game plays with %s", k,
                  cu_show(v), cu_show(w));
        }
    json_decref(d);
}

static bool table_open(table_t *t, fz_t *in)
{
    static int ntables[64], tables[64][GAME_MAX_SEATS];
    static bool known[64];
    int ngames;
    const game_desc_t *const *games = game_registry(&ngames);
    FZ_CHECK(ngames > 0 && ngames <= 64, "%d games", ngames);
    int gi = (int)fz_below(in, (uint32_t)ngames);
    t->d = games[gi];
    if (!known[gi]) {
        ntables[gi] = tables_of(t->d, tables[gi]);
        known[gi] = true;
    }
    if (ntables[gi] == 0) return false;
    t->seats = tables[gi][fz_below(in, (uint32_t)ntables[gi])];
    uint8_t kind = fz_u8(in) % 4;
    if (kind == 1 || kind == 2) {
        rng_t r;
        rng_seed(&r, fz_u64(in));
        t->options = cu_options(t->d, kind == 1 ? OPTIONS_AROUND : OPTIONS_SMALL, &r);
    } else if (kind == 3) {
        t->options = hostile_options(t->d, in);
    }
    t->seed = fz_u64(in);
    t->now = fz_u8(in) ? (int64_t)fz_u32(in) : 0;
    t->seen = json_array();
    game_error_t err = {0};
    t->g = game_new(t->d, t->seats, t->options, t->seed, &err);
    if (!t->g) {
        CHECK(t, t->options && cu_snake_case(err.code) && err.message[0],
              "game_new refused with \"%s\": %s", err.code ? err.code : "(null)", err.message);
        json_decref(t->options);
        t->options = NULL;
        t->g = game_new(t->d, t->seats, NULL, t->seed, &err);
        CHECK(t, t->g != NULL, "game_new refused the defaults: %s", err.message);
    }
    check_options_kept(t);
    audit_ok(t, t->g, "create");
    return true;
}

/* (options, seed, log) again: the same dump and views. */
static void check_replay(table_t *t)
{
    game_error_t err = {0};
    game_t *r = game_new(t->d, t->seats, t->options, t->seed, &err);
    CHECK(t, r != NULL, "game_new refused the same options again: %s", err.message);
    for (size_t i = 0; i < t->nlog; i++) {
        const entry_t *e = &t->log[i];
        if (!e->action) {
            CHECK(t, game_tick(r, e->now) == e->changed, "replay: tick %zu returned otherwise", i);
        } else {
            CHECK(t, game_apply(r, e->seat, e->action, e->now, &err) == 0,
                  "replay: seat %d's %s (entry %zu) refused: %s: %s", e->seat, cu_show(e->action),
                  i, err.code ? err.code : "(null)", err.message);
        }
    }
    json_t *x = game_dump(t->g), *y = game_dump(r);
    CHECK(t, json_equal(x, y), "replay gives another state: %s vs %s", cu_show(x), cu_show(y));
    json_decref(x);
    json_decref(y);
    for (int s = GAME_SPECTATOR; s < t->seats; s++) {
        x = game_view(t->g, s);
        y = game_view(r, s);
        CHECK(t, json_equal(x, y), "replay gives another view(%d)", s);
        json_decref(x);
        json_decref(y);
    }
    game_free(r);
}

static void check_resample(table_t *t, fz_t *in)
{
    int s = (int)fz_below(in, (uint32_t)t->seats + 1) - 1;
    game_t *c = t->d->resample(t->g, s, fz_u64(in));
    CHECK(t, c && c->desc == t->d && c->seats == t->seats, "resample(%d)", s);
    json_t *x = game_view(t->g, s), *y = game_view(c, s);
    CHECK(t, json_equal(x, y), "resample(%d) changed view(%d): %s became %s", s, s, cu_show(x),
          cu_show(y));
    json_decref(x);
    json_decref(y);
    audit_ok(t, c, "resample");
    game_free(c);
}

/* ------------------------------------------------------------------------ */
/* Steps                                                                    */
/* ------------------------------------------------------------------------ */

static void pass_time(table_t *t, fz_t *in)
{
    uint8_t b = fz_u8(in);
    int64_t next = game_next_deadline(t->g);
    if (b < 64)
        ;
    else if (b < 160)
        t->now += b - 64;
    else if (b < 224)
        t->now += (int64_t)(b - 159) * 25;
    else if (b < 255)
        t->now += (int64_t)(b - 223) * 2000;
    else if (next != GAME_NO_DEADLINE && next > t->now)
        t->now = next;
    /* As the server does: what is due is settled before anything else. */
    if (game_next_deadline(t->g) <= t->now) do_tick(t);
}

/*
 * A seat: with an odd byte, one the game waits on (if any qualifies); with
 * `with_legal`, one that has something to play (-1 if none has).
 */
static int pick_seat(table_t *t, fz_t *in, bool with_legal)
{
    uint8_t b = fz_u8(in);
    unsigned waiting = game_waiting(t->g);
    int cand[GAME_MAX_SEATS], n = 0;
    for (int pass = (b & 1) ? 0 : 1; pass < 2 && n == 0; pass++) {
        for (int s = 0; s < t->seats; s++) {
            if (pass == 0 && !(waiting & (1u << s))) continue;
            if (with_legal) {
                json_t *l = legal_of(t, s);
                bool some = json_array_size(l) > 0;
                json_decref(l);
                if (!some) continue;
            }
            cand[n++] = s;
        }
    }
    if (n == 0) return -1;
    return cand[(b >> 1) % (unsigned)n];
}

/* A listed action of seat s (a new reference), or NULL. */
static json_t *listed_action(table_t *t, fz_t *in, int s)
{
    json_t *l = legal_of(t, s);
    size_t n = json_array_size(l);
    json_t *a = n ? json_incref(json_array_get(l, fz_below(in, (uint32_t)n))) : NULL;
    json_decref(l);
    return a;
}

/* Nobody can act: the game must have a deadline, and time jumps to it. */
static void idle(table_t *t)
{
    int64_t next = game_next_deadline(t->g);
    CHECK(t, next != GAME_NO_DEADLINE, "stuck: nobody can act and there is no deadline");
    if (next > t->now) t->now = next;
    do_tick(t);
}

static void step(table_t *t, fz_t *in)
{
    pass_time(t, in);
    uint8_t op = fz_u8(in) % 16;
    bool over = game_is_over(t->g);
    if (op <= 6) {
        int s = pick_seat(t, in, true);
        if (s < 0) {
            if (!over) idle(t);
            return;
        }
        json_t *a = listed_action(t, in, s);
        act(t, s, a, true);
        json_decref(a);
    } else if (op == 7) {
        int s = pick_seat(t, in, false);
        json_t *a = game_default_action(t->g, s);
        if (!a) return;
        bool listed = is_listed(t, s, a);
        CHECK(t, listed || !(game_waiting(t->g) & (1u << s)),
              "default_action(%d) is %s, not listed", s, cu_show(a));
        act(t, s, a, listed);
        json_decref(a);
    } else if (op == 8) {
        static const char *const strategies[] = {"greedy", "random", "greedy:250", "zzz"};
        int s = pick_seat(t, in, false);
        const char *strategy = strategies[fz_below(in, 4)];
        rng_t r = fz_rng(in);
        json_t *v = game_view(t->g, s), *legal = legal_of(t, s);
        json_t *a = game_bot(t->d, v, strategy, &r);
        CHECK(t, json_array_size(legal) ? cu_contains(legal, a) : a == NULL,
              "bot \"%s\" for seat %d chose %s; legal: %s", strategy, s, cu_show(a),
              cu_show(legal));
        if (a) act(t, s, a, true);
        json_decref(a);
        json_decref(legal);
        json_decref(v);
    } else if (op <= 12) {
        int s = fz_below(in, 8) == 0 ? GAME_SPECTATOR : pick_seat(t, in, false);
        json_t *own = s >= 0 ? listed_action(t, in, s) : NULL;
        json_t *a;
        if (op <= 10) {
            size_t n = json_array_size(t->seen);
            json_t *other = n ? json_array_get(t->seen, fz_below(in, (uint32_t)n)) : NULL;
            rng_t r = fz_rng(in);
            a = cu_candidate(own, other, &r);
        } else {
            a = own ? fz_mutate(t, in, own) : fz_action(t, in);
        }
        act(t, s, a, is_listed(t, s, a));
        json_decref(own);
        json_decref(a);
    } else if (op == 13) {
        int s = fz_below(in, 8) == 0 ? GAME_SPECTATOR : pick_seat(t, in, false);
        json_t *a = fz_action(t, in);
        act(t, s, a, is_listed(t, s, a));
        json_decref(a);
    } else if (op == 14) {
        int s = pick_seat(t, in, false);
        const uint8_t *text;
        size_t n = fz_take(in, fz_u8(in), &text);
        json_t *a = json_loadb((const char *)text, n, JSON_DECODE_ANY, NULL);
        if (!a) return;
        act(t, s, a, is_listed(t, s, a));
        json_decref(a);
    } else if (fz_u8(in) & 1) {
        check_resample(t, in);
    } else {
        do_tick(t);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_t in = fz_init(data, size);
    table_t t = {0};
    if (!table_open(&t, &in)) return 0;
    check_views(&t, false);
    int after = 0;
    for (t.step = 0; !fz_empty(&in) && t.step < MAX_STEPS && after < AFTER_OVER; t.step++) {
        if (game_is_over(t.g)) after++;
        step(&t, &in);
        /* A refusal was compared view by view already: views change with the state only. */
        if (t.changed) check_views(&t, false);
        t.changed = false;
    }
    check_views(&t, true);
    check_replay(&t);

    for (size_t i = 0; i < t.nlog; i++)
        json_decref(t.log[i].action);
    free(t.log);
    forget_legal(&t);
    json_decref(t.seen);
    json_decref(t.options);
    game_free(t.g);
    return 0;
}
