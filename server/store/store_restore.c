/* store_restore.c — rebuilding every unfinished room (replaying its journal)
   and the sessions seated in them at a start. See store.h. */
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/journal.h"
#include "json/json_text.h"
#include "server/base/log.h"
#include "server/room/room.h"
#include "server/lobby/session.h"
#include "server/store/store_int.h"

/* ------------------------------------------------------------------------ */
/* Restore                                                                  */
/* ------------------------------------------------------------------------ */

static int64_t query_int(store_t *st, const char *sql)
{
    sqlite3_stmt *s;
    int64_t v = 0;
    if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
}

const char *store__col_text(sqlite3_stmt *s, int i)
{
    const unsigned char *t = sqlite3_column_text(s, i);
    return t ? (const char *)t : "";
}

/* The query of a room's journal (?1: rid), in order of n: journal_all, or in a
   database of schema 3 or older (read by --export-game, which opens it read-only
   and does not migrate it) journal. */
int store__prepare_journal(sqlite3 *db, sqlite3_stmt **s)
{
    static const char *const sql[] = {
        "SELECT n, kind, seat, at, data FROM journal_all WHERE rid = ?1 ORDER BY n",
        "SELECT n, kind, seat, at, data FROM journal WHERE rid = ?1 ORDER BY n",
    };
    int rc = sqlite3_prepare_v2(db, sql[0], -1, s, NULL);
    if (rc != SQLITE_OK) rc = sqlite3_prepare_v2(db, sql[1], -1, s, NULL);
    return rc;
}

/*
 * Replay the journal of `row` into a new game. Returns it, or NULL with `why`
 * filled (the entry that does not replay and the reason). Sets the room time
 * of the last entry and the number of entries in rec.
 */
game_t *store__replay(sqlite3 *db, const room_row_t *row, const game_desc_t *d, room_record_t *rec,
                      json_t *collect, char *why, size_t whylen)
{
    journal_replay_t jr;
    if (journal_replay_start(&jr, d, row->players, row->options, row->seed, why, whylen) < 0)
        return NULL;
    sqlite3_stmt *s;
    if (store__prepare_journal(db, &s) != SQLITE_OK) {
        snprintf(why, whylen, "cannot read its journal: %s", sqlite3_errmsg(db));
        journal_replay_abandon(&jr);
        return NULL;
    }
    sqlite3_bind_int64(s, 1, (sqlite3_int64)row->rid);
    int rc, ok = 0;
    while (ok == 0 && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        uint64_t n = (uint64_t)sqlite3_column_int64(s, 0);
        const char *kind = store__col_text(s, 1), *data = (const char *)sqlite3_column_text(s, 4);
        int seat = sqlite3_column_int(s, 2);
        int64_t at = sqlite3_column_int64(s, 3);
        ok = journal_replay_entry(&jr, n, kind, seat, at, data, why, whylen);
        if (collect) /* the cluster keeps a copy to write to Redis again */
            json_array_append_new(collect, json_pack("[I, s, i, I, s?]", (json_int_t)n, kind, seat,
                                                     (json_int_t)at, data));
    }
    if (ok == 0 && rc != SQLITE_DONE) {
        snprintf(why, whylen, "cannot read its journal: %s", sqlite3_errmsg(db));
        ok = -1;
    }
    sqlite3_finalize(s);
    if (ok < 0) {
        journal_replay_abandon(&jr);
        return NULL;
    }
    rec->last_at = jr.last_at;
    rec->journal_n = jr.n;
    /* Each change of a room is one journal entry and one state event: the count
       is the room's seq (rooms.seq, kept by databases of schema 2 written before
       this counted, is never more). */
    if (jr.changes > rec->seq) rec->seq = jr.changes;
    return jr.g;
}

/* The restored session numbered id (sessions sorted by id), or NULL. */
static session_t *find_session(session_t **v, int n, uint64_t id)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (v[mid]->id == id) return v[mid];
        if (v[mid]->id < id)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

static int read_seats(store_t *st, room_record_t *rec, session_t **sessions, int nsessions)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(st->db,
                           "SELECT seat, session, bot, strategy, name FROM seats WHERE rid = ?1",
                           -1, &s, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)rec->rid);
    while (sqlite3_step(s) == SQLITE_ROW) {
        int i = sqlite3_column_int(s, 0);
        if (i < 0 || i >= rec->nseats) continue;
        if (sqlite3_column_int(s, 2)) {
            rec->seats[i].bot = true;
            snprintf(rec->seats[i].strategy, sizeof rec->seats[i].strategy, "%s",
                     store__col_text(s, 3));
        } else if (sqlite3_column_type(s, 1) != SQLITE_NULL) {
            rec->seats[i].session =
                find_session(sessions, nsessions, (uint64_t)sqlite3_column_int64(s, 1));
            if (!rec->seats[i].session)
                log_warn("room %s: seat %d: session %lld (%s) is gone", rec->id, i,
                         (long long)sqlite3_column_int64(s, 1), store__col_text(s, 4));
        }
    }
    sqlite3_finalize(s);
    return 0;
}

static void quarantine(store_t *st, const room_row_t *row, const char *why)
{
    log_error("room %s (%s): its journal does not replay: %s; quarantined, not loaded", row->code,
              row->game, why);
    store__room_end(st, row->rid, "quarantined", NULL, why);
}

/* Read the sessions (sorted by id) into *out. Returns their number, or -1. */
static int restore_sessions(store_t *st, session_t ***out)
{
    sqlite3_stmt *s;
    int n = 0, cap = 0;
    session_t **v = NULL;
    if (sqlite3_prepare_v2(st->db, "SELECT id, name, token_hash, created FROM sessions ORDER BY id",
                           -1, &s, NULL) != SQLITE_OK)
        return -1;
    while (sqlite3_step(s) == SQLITE_ROW) {
        session_t *ses =
            session_restore(st->srv, (uint64_t)sqlite3_column_int64(s, 0), store__col_text(s, 1),
                            store__col_text(s, 2), sqlite3_column_int64(s, 3));
        if (!ses) {
            log_warn("session %lld (%s): cannot be restored", (long long)sqlite3_column_int64(s, 0),
                     store__col_text(s, 1));
            continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            session_t **nv = tapis_realloc(v, (size_t)cap * sizeof *nv);
            if (!nv) break;
            v = nv;
        }
        v[n++] = ses;
    }
    sqlite3_finalize(s);
    *out = v;
    return n;
}

/* The rooms to restore, read whole before any is touched. Returns their number, or -1. */
static int read_rooms(store_t *st, room_row_t **out)
{
    sqlite3_stmt *s;
    int n = 0, cap = 0;
    room_row_t *v = NULL;
    if (sqlite3_prepare_v2(st->db,
                           "SELECT rid, code, game, players, options, seed, private, status, seq "
                           "FROM rooms WHERE status IN ('waiting', 'playing') ORDER BY rid",
                           -1, &s, NULL) != SQLITE_OK)
        return -1;
    while (sqlite3_step(s) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            room_row_t *nv = tapis_realloc(v, (size_t)cap * sizeof *nv);
            if (!nv) break;
            v = nv;
        }
        room_row_t *r = &v[n];
        memset(r, 0, sizeof *r);
        r->rid = (uint64_t)sqlite3_column_int64(s, 0);
        snprintf(r->code, sizeof r->code, "%s", store__col_text(s, 1));
        snprintf(r->game, sizeof r->game, "%s", store__col_text(s, 2));
        r->players = sqlite3_column_int(s, 3);
        r->options = tapis_strdup(store__col_text(s, 4));
        r->seed = (uint64_t)sqlite3_column_int64(s, 5);
        r->private_room = sqlite3_column_int(s, 6) != 0;
        r->playing = strcmp(store__col_text(s, 7), "playing") == 0;
        r->seq = (uint64_t)sqlite3_column_int64(s, 8);
        if (!r->options) break;
        n++;
    }
    sqlite3_finalize(s);
    *out = v;
    return n;
}

int store_restore(server_t *srv, int *sessions_restored, int *quarantined)
{
    store_t *st = srv->store;
    *sessions_restored = *quarantined = 0;
    if (!st) return 0;
    srv->rooms_created = (uint64_t)query_int(st, "SELECT max(rid) FROM rooms");
    int64_t a = query_int(st, "SELECT max(id) FROM sessions");
    int64_t b = query_int(st, "SELECT max(session) FROM seats");
    srv->next_session_id = (uint64_t)(a > b ? a : b);

    session_t **sessions = NULL;
    int nsessions = restore_sessions(st, &sessions);
    room_row_t *rows = NULL;
    int nrows = read_rooms(st, &rows);
    if (nsessions < 0 || nrows < 0) {
        log_error("store %s: cannot read: %s", srv->opts.db_path, sqlite3_errmsg(st->db));
        tapis_free(sessions);
        tapis_free(rows);
        return -1;
    }
    int restored = 0;
    for (int i = 0; i < nrows; i++) {
        room_row_t *row = &rows[i];
        char why[400];
        const game_desc_t *d = game_find(row->game);
        room_record_t rec = {.rid = row->rid,
                             .private_room = row->private_room,
                             .playing = row->playing,
                             .seq = row->seq,
                             .nseats = row->players};
        snprintf(rec.id, sizeof rec.id, "%s", row->code);
        game_t *g = NULL;
        if (!d) {
            snprintf(why, sizeof why, "this server has no game \"%s\"", row->game);
        } else if (row->players < d->min_seats || row->players > d->max_seats ||
                   row->players > GAME_MAX_SEATS) {
            snprintf(why, sizeof why, "%d players is not a table of %s", row->players, d->id);
        } else {
            if (srv->cluster) rec.journal = json_array();
            rec.options = row->options;
            rec.seed = row->seed;
            g = store__replay(st->db, row, d, &rec, rec.journal, why, sizeof why);
        }
        if (!g) {
            quarantine(st, row, why);
            (*quarantined)++;
        } else if (game_is_over(g)) { /* over, and killed before it was marked so */
            json_t *result = d->result(g);
            store__room_end(st, row->rid, "over", result, NULL);
            json_decref(result);
            game_free(g);
        } else if (read_seats(st, &rec, sessions, nsessions) < 0) {
            game_free(g);
        } else if (room_restore(srv, d, g, &rec)) {
            restored++;
        }
        json_decref(rec.journal);
        tapis_free(row->options);
    }
    tapis_free(rows);
    /* Sessions that sit nowhere any more are not worth holding. */
    for (int i = 0; i < nsessions; i++)
        if (sessions[i]->nrooms == 0) {
            session_destroy(sessions[i]);
        } else {
            (*sessions_restored)++;
        }
    tapis_free(sessions);
    store_commit(srv);
    return restored;
}
