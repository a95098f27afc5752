/*
 * test_store.c — the store alone (server/store/), against a temporary
 * database: what rooms and sessions write through the durability sink comes
 * back, field by field, as the records a restart hands up (durable.h), and a
 * journal that does not replay is quarantined with its reason.
 *
 * No room or lobby is linked: the test hands the sink the plain records
 * rooms and sessions hand it (durable.h), and plays the room side of a
 * restore with hooks of its own. The wall clock the store stamps rows with is the test's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "core/journal.h"
#include "server/durable/durable.h"
#include "server/store/store.h"
#include "tests/lib/test_main.h"

/* The wall clock (main.c's in tapisd): fixed, so rows are stamped alike. */
int64_t server_wall_ms(void)
{
    return 1700000000000;
}

#define HASH_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define HASH_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

typedef struct fixture {
    char dir[64];
    server_t srv;
    durable_room_t room;
    uint64_t journal_n;
} fixture_t;

/* What a restore handed up, copied. */
typedef struct seen {
    durable_session_rec_t sessions[8];
    int nsessions;
    durable_room_rec_t rooms[4]; /* options and entries copied (freed by the test) */
    int nrooms;
    bool replay; /* play the room side: replay each journal through core */
    char why[400];
} seen_t;

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->dir, sizeof f->dir, "/tmp/test_store.XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->srv.opts.db_path, sizeof f->srv.opts.db_path, "%s/tapis.db", f->dir);
    assert_int_equal(durable_add(&f->srv.durable, &store_durable, &f->srv), 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    if (f->srv.store) store_close(&f->srv);
    char path[128];
    static const char *const files[] = {"tapis.db", "tapis.db-wal", "tapis.db-shm",
                                        "tapis.db.lock"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", f->dir, files[i]);
        unlink(path);
    }
    rmdir(f->dir);
    free(f);
    return 0;
}

static void make_session(fixture_t *f, uint64_t id, const char *name, const char *hash)
{
    durable_session_t s = {.id = id,
                           .name = name,
                           .name_key = name,
                           .token_hash = hash,
                           .created = 1234 + (int64_t)id};
    durable_session_new(&f->srv.durable, &s);
}

static void entry(fixture_t *f, const char *kind, int seat, int64_t at, const char *data)
{
    json_t *d = data ? json_loads(data, 0, NULL) : NULL;
    assert_true(!data || d);
    durable_journal(&f->srv.durable, &f->room, ++f->journal_n, kind, seat, at, d);
    json_decref(d);
}

/* Room 3: a game of 233 for ana and a bot, started. */
static void write_room(fixture_t *f)
{
    assert_int_equal(store_open(&f->srv), 0);
    make_session(f, 7, "ana", HASH_A);
    make_session(f, 9, "Bob", HASH_B);
    const game_desc_t *d = game_find("233");
    assert_non_null(d);
    durable_room_t *r = &f->room;
    *r = (durable_room_t){.rid = 3, .id = "3", .game = d->id, .title = d->title, .players = 2};
    json_t *options = json_pack("{s:i}", "target", 40);
    game_deal_t deal;
    deal_v0(&deal, 42);
    durable_room_new(&f->srv.durable, r, options, &deal);
    json_decref(options);
    durable_seat(&f->srv.durable, r, 0, &(durable_seat_t){.session = 7, .name = "ana"});
    entry(f, "seat", 0, 5, "{\"name\":\"ana\",\"session\":7}");
    durable_seat(&f->srv.durable, r, 1,
                 &(durable_seat_t){.bot = true, .strategy = "greedy", .bot_name = "greedy"});
    entry(f, "seat", 1, 5, "{\"bot\":\"greedy\"}");
    durable_room_started(&f->srv.durable, r);
    entry(f, "start", -1, 6, NULL);
    assert_int_equal(durable_commit(&f->srv.durable), 0);
    store_close(&f->srv);
    assert_null(f->srv.store);
}

static bool on_session(void *ctx, const durable_session_rec_t *rec)
{
    seen_t *s = ctx;
    assert_true(s->nsessions < 8);
    s->sessions[s->nsessions++] = *rec;
    return true;
}

static durable_verdict_t on_room(void *ctx, durable_room_rec_t *rec, struct room **out,
                                 json_t **result, char *why, size_t whylen)
{
    seen_t *s = ctx;
    *out = NULL;
    *result = NULL;
    assert_true(s->nrooms < 4);
    durable_room_rec_t *c = &s->rooms[s->nrooms++];
    *c = *rec;
    c->options = strdup(rec->options);
    c->entries = calloc(rec->nentries + 1, sizeof *c->entries);
    for (size_t i = 0; i < rec->nentries; i++) {
        c->entries[i] = rec->entries[i];
        c->entries[i].data = rec->entries[i].data ? strdup(rec->entries[i].data) : NULL;
    }
    c->watchers = NULL;
    if (!s->replay) return DURABLE_ROOM_REBUILT;
    /* The room side, as room_rebuild() does it: core's replay, entry by entry. */
    journal_replay_t jr;
    if (journal_replay_start(&jr, game_find(rec->game), rec->players, rec->options, &rec->deal, why,
                             whylen) < 0)
        return DURABLE_ROOM_BAD;
    for (size_t i = 0; i < rec->nentries; i++) {
        const durable_entry_t *e = &rec->entries[i];
        if (journal_replay_entry(&jr, e->n, e->kind, e->seat, e->at, e->data, why, whylen) < 0) {
            snprintf(s->why, sizeof s->why, "%s", why);
            journal_replay_abandon(&jr);
            return DURABLE_ROOM_BAD;
        }
    }
    journal_replay_abandon(&jr);
    return DURABLE_ROOM_REBUILT;
}

static int on_done(void *ctx)
{
    return ((seen_t *)ctx)->nsessions;
}

static int restore(fixture_t *f, seen_t *s, int *kept, int *quarantined)
{
    assert_int_equal(store_open(&f->srv), 0);
    durable_restore_hooks_t h = {.ctx = s, .session = on_session, .room = on_room, .done = on_done};
    return durable_restore(&f->srv.durable, &h, kept, quarantined);
}

static void seen_free(seen_t *s)
{
    for (int i = 0; i < s->nrooms; i++) {
        for (size_t k = 0; k < s->rooms[i].nentries; k++)
            free(s->rooms[i].entries[k].data);
        free(s->rooms[i].entries);
        free(s->rooms[i].options);
    }
}

/* One column of the database, as text ("" for NULL). */
static void db_text(const fixture_t *f, const char *sql, char *out, size_t n)
{
    sqlite3 *db;
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_open(f->srv.opts.db_path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &q, NULL), SQLITE_OK);
    out[0] = 0;
    if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
        snprintf(out, n, "%s", (const char *)sqlite3_column_text(q, 0));
    sqlite3_finalize(q);
    sqlite3_close(db);
}

static void db_exec(const fixture_t *f, const char *sql)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(f->srv.opts.db_path, &db), SQLITE_OK);
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) fail_msg("%s: %s", sql, err);
    sqlite3_close(db);
}

/* ------------------------------------------------------------------------ */
/* Tests                                                                    */
/* ------------------------------------------------------------------------ */

static void a_room_and_its_sessions_come_back_as_records(void **state)
{
    fixture_t *f = *state;
    write_room(f);
    seen_t s = {0};
    int kept, quarantined;
    assert_int_equal(restore(f, &s, &kept, &quarantined), 1);
    assert_int_equal(quarantined, 0);
    assert_int_equal(kept, 2);
    assert_int_equal(f->srv.rooms_created, 3);
    assert_int_equal(f->srv.next_session_id, 9);

    assert_int_equal(s.nsessions, 2); /* by id */
    assert_int_equal(s.sessions[0].id, 7);
    assert_string_equal(s.sessions[0].name, "ana");
    assert_string_equal(s.sessions[0].token_hash, HASH_A);
    assert_int_equal(s.sessions[0].created, 1241);
    assert_int_equal(s.sessions[1].id, 9);
    assert_string_equal(s.sessions[1].name, "Bob");
    assert_string_equal(s.sessions[1].token_hash, HASH_B);

    assert_int_equal(s.nrooms, 1);
    const durable_room_rec_t *r = &s.rooms[0];
    assert_int_equal(r->rid, 3);
    assert_string_equal(r->id, "3");
    assert_string_equal(r->game, "233");
    assert_int_equal(r->players, 2);
    assert_string_equal(r->options, "{\"target\":40}");
    assert_int_equal(r->deal.version, 0);
    assert_int_equal(r->deal.seed, 42);
    assert_false(r->private_room);
    assert_true(r->playing);
    assert_string_equal(r->error, "");
    assert_int_equal(r->seats[0].session, 7);
    assert_string_equal(r->seats[0].name, "ana");
    assert_false(r->seats[0].bot);
    assert_true(r->seats[1].bot);
    assert_string_equal(r->seats[1].strategy, "greedy");
    assert_int_equal(r->seats[1].session, 0);
    assert_int_equal(r->nwatchers, 0);

    assert_int_equal(r->nentries, 3);
    static const struct {
        const char *kind;
        int seat;
        int64_t at;
        const char *data;
    } want[] = {{"seat", 0, 5, "{\"name\":\"ana\",\"session\":7}"},
                {"seat", 1, 5, "{\"bot\":\"greedy\"}"},
                {"start", -1, 6, NULL}};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(r->entries[i].n, i + 1);
        assert_string_equal(r->entries[i].kind, want[i].kind);
        assert_int_equal(r->entries[i].seat, want[i].seat);
        assert_int_equal(r->entries[i].at, want[i].at);
        if (want[i].data)
            assert_string_equal(r->entries[i].data, want[i].data);
        else
            assert_null(r->entries[i].data);
    }
    seen_free(&s);
}

/*
 * Room 3's journal was damaged: a restore hands it up with its `entries`,
 * refused for a reason that names `what`, and the store quarantines it with
 * that reason (the database is closed after).
 */
static void quarantined_for(fixture_t *f, seen_t *s, size_t entries, const char *what)
{
    int kept, quarantined;
    assert_int_equal(restore(f, s, &kept, &quarantined), 0);
    assert_int_equal(quarantined, 1);
    assert_int_equal(s->nrooms, 1);
    assert_int_equal(s->rooms[0].nentries, entries);
    if (!strstr(s->why, what)) fail_msg("the refusal names %s: %s", what, s->why);
    store_close(&f->srv);
    char status[32], note[400];
    db_text(f, "SELECT status FROM rooms WHERE rid = 3", status, sizeof status);
    db_text(f, "SELECT note FROM rooms WHERE rid = 3", note, sizeof note);
    assert_string_equal(status, "quarantined");
    assert_string_equal(note, s->why); /* the reason, kept with it */
}

static void a_cut_journal_is_quarantined_with_its_reason(void **state)
{
    fixture_t *f = *state;
    write_room(f);
    /* Entry 2 lost: wherever the store keeps it (the journal, or a tail part). */
    db_exec(f, "DELETE FROM journal WHERE rid = 3 AND n = 2;"
               "DELETE FROM journal_tail0 WHERE rid = 3 AND n = 2;"
               "DELETE FROM journal_tail1 WHERE rid = 3 AND n = 2;"
               "DELETE FROM journal_tail2 WHERE rid = 3 AND n = 2;"
               "DELETE FROM journal_tail3 WHERE rid = 3 AND n = 2;");
    seen_t s = {.replay = true};
    quarantined_for(f, &s, 2, "entry 2 is missing");
    seen_free(&s);

    /* Not handed up again. */
    seen_t again = {.replay = true};
    int kept, quarantined;
    assert_int_equal(restore(f, &again, &kept, &quarantined), 0);
    assert_int_equal(again.nrooms, 0);
    assert_int_equal(quarantined, 0);
}

static void a_corrupt_entry_is_quarantined_with_its_reason(void **state)
{
    fixture_t *f = *state;
    write_room(f);
    /* An action that is not JSON, after the start. */
    db_exec(f, "INSERT INTO journal (rid, n, kind, seat, at, data) "
               "VALUES (3, 4, 'act', 0, 7, '{not json')");
    seen_t s = {.replay = true};
    quarantined_for(f, &s, 4, "entry 4 (act): the action is not a JSON object");
    assert_string_equal(s.rooms[0].entries[3].data, "{not json"); /* handed up as it is */
    seen_free(&s);
}

TEST_MAIN(cmocka_unit_test_setup_teardown(a_room_and_its_sessions_come_back_as_records, setup,
                                          teardown),
          cmocka_unit_test_setup_teardown(a_cut_journal_is_quarantined_with_its_reason, setup,
                                          teardown),
          cmocka_unit_test_setup_teardown(a_corrupt_entry_is_quarantined_with_its_reason, setup,
                                          teardown))
