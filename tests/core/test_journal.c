/*
 * test_journal.c — core's journal replay (core/journal.h), the one the
 * store, the cluster and `tapis replay` rebuild a game with.
 *
 * A journal is made here the way the server makes one: seat entries, a
 * start, then the acts of the seats the game waits on (their default
 * actions) and the ticks of its deadlines, each stamped with a clock that
 * never goes back. Replayed entry by entry, in both forms (JSON text, as the
 * store keeps it; parsed, as a record comes to the client), it must give
 * the state and the result of the direct run. Then one case per kind of
 * trouble: each is refused at the entry it is in, with the server's sentence
 * (`why`, the words docs/STORE.md and the quarantine log promise) and a
 * stable code (jr->error, the client's words), the same in both forms.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/game.h"
#include "core/journal.h"

#define STEP_MS 13         /* between two moves of the direct run */
#define MAX_ENTRIES 4000   /* a direct run stops there if the game has not ended */
#define TEST_SEED 20240611 /* any seed: the run and the replay share it */

/* A deal of version 0 (the seed alone), as the tests' fixed games have. */
static const game_deal_t *v0(uint64_t seed)
{
    static game_deal_t deal;
    deal_v0(&deal, seed);
    return &deal;
}

/* The tables the tests play: short options, so that each game ends. */
typedef struct table {
    const char *game;
    int seats;
    const char *options;
} table_t;

static const table_t TABLES[] = {
    {"233", 2, "{\"target\": 40}"},
    {"aspoint3", 2, "{\"rounds\": 1}"},
    {"seqnum", 2, "{\"max_turns\": 20}"},
    /* slap's countdowns run out: tick entries */
    {"slap", 3, "{\"go_ms\": 50, \"stall_ms\": 300, \"max_stalls\": 3, \"max_rounds\": 1}"},
};

static const table_t *SEQNUM = &TABLES[2];

/* ------------------------------------------------------------------------ */
/* A direct run, and its journal                                            */
/* ------------------------------------------------------------------------ */

static void add_entry(json_t *journal, const char *kind, int seat, int64_t at, json_t *data)
{
    json_t *e =
        json_pack("{s:I, s:s, s:i, s:I, s:o?}", "n", (json_int_t)json_array_size(journal) + 1,
                  "kind", kind, "seat", seat, "at", (json_int_t)at, "data", data);
    if (!e) fail_msg("cannot build an entry");
    json_array_append_new(journal, e);
}

static game_t *new_game(const game_desc_t *d, const table_t *t)
{
    json_t *o = json_loads(t->options, 0, NULL);
    game_error_t err = {0};
    game_t *g = game_new(d, t->seats, o, TEST_SEED, &err);
    json_decref(o);
    if (!g) fail_msg("%s: game_new: %s: %s", t->game, err.code, err.message);
    return g;
}

/* The first seat the game waits on that has a move now, or -1; *action is that move. */
static int next_mover(const game_t *g, json_t **action)
{
    unsigned waiting = game_waiting(g);
    for (int s = 0; s < g->seats; s++) {
        if (!(waiting & (1u << s))) continue;
        *action = game_default_action(g, s);
        if (*action) return s;
    }
    *action = NULL;
    return -1;
}

/*
 * Play a table of t: returns the game as the run left it, and in *journal its
 * entries ({n, kind, seat, at, data}, as in a record).
 */
static game_t *direct_run(const table_t *t, json_t **journal)
{
    const game_desc_t *d = game_find(t->game);
    assert_non_null(d);
    game_t *g = new_game(d, t);
    json_t *j = json_array();
    int64_t clock = 3;
    for (int s = 0; s < t->seats; s++)
        add_entry(j, "seat", s, clock, json_pack("{s:s}", "bot", "greedy"));
    add_entry(j, "start", -1, clock, NULL);
    while (!game_is_over(g) && json_array_size(j) < MAX_ENTRIES) {
        json_t *action;
        int seat = next_mover(g, &action);
        int64_t due = game_next_deadline(g);
        if (due != GAME_NO_DEADLINE && (seat < 0 || due <= clock + STEP_MS)) {
            json_decref(action);
            if (due > clock) clock = due;
            if (game_tick(g, clock))
                add_entry(j, "tick", -1, clock, NULL);
            else
                clock++; /* nothing yet: try again a little later */
            continue;
        }
        if (seat < 0) fail_msg("%s: nobody can move and nothing is due", t->game);
        clock += STEP_MS;
        game_error_t err = {0};
        if (game_apply(g, seat, action, clock, &err) < 0)
            fail_msg("%s: the default action is refused: %s: %s", t->game, err.code, err.message);
        add_entry(j, "act", seat, clock, action);
    }
    *journal = j;
    return g;
}

/* ------------------------------------------------------------------------ */
/* Replaying a journal                                                      */
/* ------------------------------------------------------------------------ */

typedef enum { AS_TEXT, AS_TREE } form_t;

/*
 * Replay `journal` for a table of t (of descriptor d) in one form. Returns the
 * index of the entry that did not replay, or -1 when all did; jr keeps the
 * game (the caller abandons it) and, on a refusal, jr->error; `why` the
 * server's sentence.
 */
static long replay(const game_desc_t *d, const table_t *t, const json_t *journal, form_t form,
                   journal_replay_t *jr, char *why, size_t whylen)
{
    int rc;
    if (form == AS_TEXT) {
        rc = journal_replay_start(jr, d, t->seats, t->options, v0(TEST_SEED), why, whylen);
    } else {
        json_t *o = json_loads(t->options, 0, NULL);
        rc = journal_replay_start_tree(jr, d, t->seats, o, v0(TEST_SEED), why, whylen);
        json_decref(o);
    }
    if (rc < 0) fail_msg("%s: the start does not replay: %s", t->game, why);
    size_t i;
    const json_t *e;
    json_array_foreach(journal, i, e)
    {
        uint64_t n = (uint64_t)json_integer_value(json_object_get(e, "n"));
        const char *kind = json_string_value(json_object_get(e, "kind"));
        int seat = (int)json_integer_value(json_object_get(e, "seat"));
        int64_t at = json_integer_value(json_object_get(e, "at"));
        const json_t *data = json_object_get(e, "data");
        if (json_is_null(data)) data = NULL;
        if (form == AS_TEXT) {
            char *text = data ? json_dumps(data, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
            rc = journal_replay_entry(jr, n, kind, seat, at, text, why, whylen);
            free(text);
        } else {
            rc = journal_replay_entry_tree(jr, n, kind, seat, at, data, why, whylen);
        }
        if (rc < 0) return (long)i;
    }
    return -1;
}

static void assert_same_json(const json_t *got, const json_t *want, const char *what)
{
    if (json_equal(got, want)) return;
    char *g = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    char *w = json_dumps(want, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    fail_msg("%s differs:\n  replayed %.600s\n  direct   %.600s", what, g ? g : "(null)",
             w ? w : "(null)");
}

/* ------------------------------------------------------------------------ */
/* Entries in order                                                         */
/* ------------------------------------------------------------------------ */

static void entries_in_order_replay_to_the_state_and_result_of_a_direct_run(void **state)
{
    (void)state;
    bool ticked = false;
    for (size_t k = 0; k < sizeof TABLES / sizeof TABLES[0]; k++) {
        const table_t *t = &TABLES[k];
        json_t *journal;
        game_t *g = direct_run(t, &journal);
        if (!game_is_over(g)) fail_msg("%s: the direct run did not end", t->game);
        json_t *dump = game_dump(g), *result = game_result(g);
        uint64_t changes = 0;
        int64_t last_at = 0;
        size_t i;
        const json_t *e;
        json_array_foreach(journal, i, e)
        {
            const char *kind = json_string_value(json_object_get(e, "kind"));
            if (strcmp(kind, "seat") != 0) changes++;
            if (strcmp(kind, "tick") == 0) ticked = true;
            json_int_t at = json_integer_value(json_object_get(e, "at"));
            if (at > last_at) last_at = at;
        }
        for (form_t form = AS_TEXT; form <= AS_TREE; form++) {
            journal_replay_t jr;
            char why[400] = "";
            long bad = replay(g->desc, t, journal, form, &jr, why, sizeof why);
            if (bad >= 0) fail_msg("%s: entry %ld does not replay: %s", t->game, bad + 1, why);
            assert_int_equal(jr.n, json_array_size(journal));
            assert_int_equal(jr.changes, changes); /* the room's seq */
            assert_int_equal(jr.last_at, last_at);
            assert_true(game_is_over(jr.g));
            json_t *rdump = game_dump(jr.g), *rresult = game_result(jr.g);
            assert_same_json(rdump, dump, "the dump");
            assert_same_json(rresult, result, "the result");
            json_decref(rdump);
            json_decref(rresult);
            journal_replay_abandon(&jr);
            assert_null(jr.g);
        }
        json_decref(dump);
        json_decref(result);
        json_decref(journal);
        game_free(g);
    }
    assert_true(ticked); /* the ticks were replayed too */
}

/* ------------------------------------------------------------------------ */
/* One journal of seqnum, and a fresh copy of it for each test               */
/* ------------------------------------------------------------------------ */

static json_t *SEQNUM_JOURNAL;
static const game_desc_t *SEQNUM_DESC;

static int play_seqnum(void **state)
{
    (void)state;
    game_t *g = direct_run(SEQNUM, &SEQNUM_JOURNAL);
    SEQNUM_DESC = g->desc;
    game_free(g);
    return 0;
}

static int forget_seqnum(void **state)
{
    (void)state;
    json_decref(SEQNUM_JOURNAL);
    return 0;
}

/* *state: a copy of the journal the test may tamper with. */
static int copy_journal(void **state)
{
    *state = json_deep_copy(SEQNUM_JOURNAL);
    return *state ? 0 : -1;
}

static int drop_journal(void **state)
{
    json_decref(*state);
    return 0;
}

/* The index of the k-th act (from 0) of a journal. */
static size_t nth_act(const json_t *journal, int k)
{
    size_t i;
    const json_t *e;
    json_array_foreach(journal, i, e)
    {
        if (strcmp(json_string_value(json_object_get(e, "kind")), "act") == 0 && k-- == 0) return i;
    }
    fail_msg("the journal has too few acts");
    return 0;
}

static json_int_t field(const json_t *journal, size_t i, const char *key)
{
    return json_integer_value(json_object_get(json_array_get(journal, i), key));
}

static void set_field(json_t *journal, size_t i, const char *key, json_t *value)
{
    json_object_set_new(json_array_get(journal, i), key, value);
}

/* Put a tick at `at` before index i, and number the entries 1, 2, 3... again. */
static void insert_tick(json_t *journal, size_t i, json_int_t at)
{
    json_array_insert_new(journal, i,
                          json_pack("{s:I, s:s, s:i, s:I, s:n}", "n", (json_int_t)0, "kind", "tick",
                                    "seat", -1, "at", at, "data"));
    size_t k;
    json_t *e;
    json_array_foreach(journal, k, e) json_object_set_new(e, "n", json_integer((json_int_t)k + 1));
}

/* Only act and tick are the game's clock: a seat entry may come at any time. */
static void a_seat_entry_does_not_move_the_games_clock(void **state)
{
    json_t *journal = *state;
    json_int_t last = field(journal, json_array_size(journal) - 1, "at");
    add_entry(journal, "seat", 0, 0, json_object());
    journal_replay_t jr;
    char why[400] = "";
    assert_int_equal(replay(SEQNUM_DESC, SEQNUM, journal, AS_TEXT, &jr, why, sizeof why), -1);
    assert_int_equal(jr.game_at, last);
    journal_replay_abandon(&jr);
}

/* ------------------------------------------------------------------------ */
/* Refusals: one case per kind of trouble                                   */
/* ------------------------------------------------------------------------ */

/*
 * The seqnum journal must be refused at index `at`, in both forms alike:
 * jr->error's code is `code`, and `why` is the sentence of fmt (or starts
 * with it, when `prefix`: the rest is the game's message).
 */
static void refused_at(const json_t *journal, long at, const char *code, bool prefix,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void refused_at(const json_t *journal, long at, const char *code, bool prefix,
                       const char *fmt, ...)
{
    char want[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(want, sizeof want, fmt, ap);
    va_end(ap);
    for (form_t form = AS_TEXT; form <= AS_TREE; form++) {
        journal_replay_t jr;
        char why[400] = "";
        long bad = replay(SEQNUM_DESC, SEQNUM, journal, form, &jr, why, sizeof why);
        const char *f = form == AS_TEXT ? "text" : "tree";
        if (bad != at) fail_msg("%s form: refused at index %ld, not %ld (%s)", f, bad, at, why);
        if (prefix ? strncmp(why, want, strlen(want)) != 0 : strcmp(why, want) != 0)
            fail_msg("%s form: why is\n  \"%s\", not\n  \"%s\"%s", f, why, want,
                     prefix ? "..." : "");
        assert_non_null(jr.error.code);
        assert_string_equal(jr.error.code, code);
        assert_true(jr.error.message[0] != '\0');
        journal_replay_abandon(&jr);
    }
}

static void a_missing_entry_is_refused_at_the_one_after_it(void **state)
{
    json_t *journal = *state;
    size_t k = nth_act(journal, 3);
    json_array_remove(journal, k); /* entry k + 1 is gone: k + 2 comes next */
    refused_at(journal, (long)k, JOURNAL_E_MISSING_ENTRY, false, "entry %zu is missing (found %zu)",
               k + 1, k + 2);
}

static void a_duplicate_entry_is_refused(void **state)
{
    json_t *journal = *state;
    size_t k = nth_act(journal, 3);
    /* entry k + 1 twice: the second stands where k + 2 is expected */
    json_array_insert_new(journal, k + 1, json_deep_copy(json_array_get(journal, k)));
    refused_at(journal, (long)k + 1, JOURNAL_E_MISSING_ENTRY, false,
               "entry %zu is missing (found %zu)", k + 2, k + 1);
}

static void an_act_going_back_in_time_is_refused(void **state)
{
    json_t *journal = *state;
    size_t k = nth_act(journal, 4);
    json_int_t then = field(journal, nth_act(journal, 3), "at");
    set_field(journal, k, "at", json_integer(then - 1));
    refused_at(journal, (long)k, JOURNAL_E_TIME_GOES_BACK, false,
               "entry %zu: time goes back (%lld < %lld)", k + 1, (long long)then - 1,
               (long long)then);
}

/* The game's clock is the acts' and the ticks' alike. */
static void a_tick_going_back_in_time_is_refused(void **state)
{
    json_t *journal = *state;
    size_t k = nth_act(journal, 3);
    json_int_t then = field(journal, k, "at");
    insert_tick(journal, k + 1, then - 1);
    refused_at(journal, (long)k + 1, JOURNAL_E_TIME_GOES_BACK, false,
               "entry %zu: time goes back (%lld < %lld)", k + 2, (long long)then - 1,
               (long long)then);
}

static void an_illegal_action_is_refused_with_the_games_code(void **state)
{
    json_t *journal = *state;
    size_t k = nth_act(journal, 2);
    set_field(journal, k, "data", json_pack("{s:s}", "type", "bogus"));
    refused_at(journal, (long)k, "unknown_action", true,
               "entry %zu (act seat %d): the game refuses it: unknown_action: ", k + 1,
               (int)field(journal, k, "seat"));
}

static void an_act_without_an_action_is_refused(void **state)
{
    json_t *journal = *state;
    size_t k = nth_act(journal, 1);
    set_field(journal, k, "data", json_null());
    refused_at(journal, (long)k, JOURNAL_E_BAD_ENTRY, false,
               "entry %zu (act): the action is not a JSON object: no data", k + 1);
    set_field(journal, k, "data", json_pack("[s]", "draw"));
    refused_at(journal, (long)k, JOURNAL_E_BAD_ENTRY, true,
               "entry %zu (act): the action is not a JSON object: ", k + 1);
}

static void an_act_of_a_seat_the_table_has_not_is_refused(void **state)
{
    json_t *journal = *state;
    size_t k = nth_act(journal, 1);
    set_field(journal, k, "seat", json_integer(2)); /* a table of 2 */
    refused_at(journal, (long)k, JOURNAL_E_BAD_ENTRY, false, "entry %zu (act): no seat 2", k + 1);
}

static void a_tick_with_nothing_due_is_refused(void **state)
{
    json_t *journal = *state; /* seqnum has no timers */
    size_t k = nth_act(journal, 1);
    json_int_t at = field(journal, k, "at");
    insert_tick(journal, k + 1, at);
    refused_at(journal, (long)k + 1, JOURNAL_E_NOTHING_DUE, false,
               "entry %zu (tick at %lld): nothing was due", k + 2, (long long)at);
}

static void an_unknown_kind_is_refused(void **state)
{
    json_t *journal = *state;
    size_t k = nth_act(journal, 2);
    set_field(journal, k, "kind", json_string("jump"));
    refused_at(journal, (long)k, JOURNAL_E_BAD_ENTRY, false, "entry %zu: unknown kind \"jump\"",
               k + 1);
}

/* seqnum's rules with an audit that fails from its AUDIT_FAILS_AT-th call on. */
#define AUDIT_FAILS_AT 5
static int AUDITS;

static int failing_audit(const game_t *g, game_error_t *err)
{
    (void)g;
    if (++AUDITS < AUDIT_FAILS_AT) return 0;
    return game_fail(err, "bad_count", "a card is missing");
}

static void a_failed_audit_is_refused_with_its_message(void **state)
{
    json_t *journal = *state;
    game_desc_t broken = *SEQNUM_DESC;
    broken.audit = failing_audit;
    /* the audit runs after each act and tick: the 5th act fails it */
    size_t k = nth_act(journal, AUDIT_FAILS_AT - 1);
    char want[80];
    snprintf(want, sizeof want, "entry %zu: the state fails its audit: a card is missing", k + 1);
    for (form_t form = AS_TEXT; form <= AS_TREE; form++) {
        AUDITS = 0;
        journal_replay_t jr;
        char why[400] = "";
        assert_int_equal(replay(&broken, SEQNUM, journal, form, &jr, why, sizeof why), (long)k);
        assert_string_equal(why, want);
        assert_string_equal(jr.error.code, "bad_count");
        assert_string_equal(jr.error.message, "a card is missing");
        journal_replay_abandon(&jr);
    }
}

static void a_start_the_game_refuses_is_refused(void **state)
{
    (void)state;
    journal_replay_t jr;
    char why[400] = "";
    int rc =
        journal_replay_start(&jr, SEQNUM_DESC, 2, "{\"max_turns\": 0}", v0(1), why, sizeof why);
    assert_int_equal(rc, -1);
    assert_null(jr.g);
    assert_true(strncmp(why, "game_new refuses it: bad_option: ", 33) == 0);
    assert_string_equal(jr.error.code, "bad_option");
    json_t *o = json_pack("{s:i}", "max_turns", 0);
    assert_int_equal(journal_replay_start_tree(&jr, SEQNUM_DESC, 2, o, v0(1), NULL, 0), -1);
    assert_string_equal(jr.error.code, "bad_option");
    json_decref(o);
    assert_int_equal(journal_replay_start(&jr, SEQNUM_DESC, 2, "[1, 2", v0(1), why, sizeof why),
                     -1);
    assert_true(strncmp(why, "its options are not a JSON object: ", 35) == 0);
    assert_int_equal(journal_replay_start(&jr, SEQNUM_DESC, 7, "{}", v0(1), why, sizeof why), -1);
    assert_string_equal(jr.error.code, "bad_players");
}

#define WITH_JOURNAL(test) cmocka_unit_test_setup_teardown(test, copy_journal, drop_journal)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(entries_in_order_replay_to_the_state_and_result_of_a_direct_run),
        WITH_JOURNAL(a_seat_entry_does_not_move_the_games_clock),
        WITH_JOURNAL(a_missing_entry_is_refused_at_the_one_after_it),
        WITH_JOURNAL(a_duplicate_entry_is_refused),
        WITH_JOURNAL(an_act_going_back_in_time_is_refused),
        WITH_JOURNAL(a_tick_going_back_in_time_is_refused),
        WITH_JOURNAL(an_illegal_action_is_refused_with_the_games_code),
        WITH_JOURNAL(an_act_without_an_action_is_refused),
        WITH_JOURNAL(an_act_of_a_seat_the_table_has_not_is_refused),
        WITH_JOURNAL(a_tick_with_nothing_due_is_refused),
        WITH_JOURNAL(an_unknown_kind_is_refused),
        WITH_JOURNAL(a_failed_audit_is_refused_with_its_message),
        cmocka_unit_test(a_start_the_game_refuses_is_refused),
    };
    return cmocka_run_group_tests(tests, play_seqnum, forget_seqnum);
}
