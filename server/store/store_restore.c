/* store_restore.c — at a start, the records of every stored session and
   unfinished room, handed up to be rebuilt (durable.h), and what becomes of
   each (quarantined, over); and the journal query. See store.h. */
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

int store__col_deal(sqlite3_stmt *s, int i, const char *code, game_deal_t *out, char *why,
                    size_t whylen)
{
    int version = sqlite3_column_int(s, i + 1);
    if (version == 0) {
        deal_v0(out, (uint64_t)sqlite3_column_int64(s, i));
        return 0;
    }
    uint8_t server[32];
    if (version != DEAL_VERSION || deal_unhex(store__col_text(s, i + 2), server) < 0) {
        snprintf(why, whylen, "its deal (version %d, server seed \"%.70s\") is not one of %d",
                 version, store__col_text(s, i + 2), DEAL_VERSION);
        return -1;
    }
    deal_v1(out, server, code);
    return 0;
}

/*
 * Replay the journal of finished game `row` into a new game (store_games.c
 * checks a record with it). Returns it, or NULL with `why` filled (the entry
 * that does not replay and the reason).
 */
game_t *store__replay(sqlite3 *db, const room_row_t *row, const game_desc_t *d, char *why,
                      size_t whylen)
{
    journal_replay_t jr;
    if (journal_replay_start(&jr, d, row->players, row->options, &row->deal, why, whylen) < 0)
        return NULL;
    sqlite3_stmt *s;
    if (store__prepare_journal(db, &s) != SQLITE_OK) {
        snprintf(why, whylen, "cannot read its journal: %s", sqlite3_errmsg(db));
        journal_replay_abandon(&jr);
        return NULL;
    }
    sqlite3_bind_int64(s, 1, (sqlite3_int64)row->rid);
    int rc, ok = 0;
    while (ok == 0 && (rc = sqlite3_step(s)) == SQLITE_ROW)
        ok = journal_replay_entry(&jr, (uint64_t)sqlite3_column_int64(s, 0), store__col_text(s, 1),
                                  sqlite3_column_int(s, 2), sqlite3_column_int64(s, 3),
                                  (const char *)sqlite3_column_text(s, 4), why, whylen);
    if (ok == 0 && rc != SQLITE_DONE) {
        snprintf(why, whylen, "cannot read its journal: %s", sqlite3_errmsg(db));
        ok = -1;
    }
    sqlite3_finalize(s);
    if (ok < 0) {
        journal_replay_abandon(&jr);
        return NULL;
    }
    return journal_replay_take(&jr);
}

/* The seats of rec (their session numbers: the lobby finds the sessions). */
static int read_seats(store_t *st, durable_room_rec_t *rec)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(st->db,
                           "SELECT seat, session, bot, strategy, name FROM seats WHERE rid = ?1",
                           -1, &s, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)rec->rid);
    while (sqlite3_step(s) == SQLITE_ROW) {
        int i = sqlite3_column_int(s, 0);
        if (i < 0 || i >= rec->players || i >= GAME_MAX_SEATS) continue;
        if (sqlite3_column_int(s, 2)) {
            rec->seats[i].bot = true;
            snprintf(rec->seats[i].strategy, sizeof rec->seats[i].strategy, "%s",
                     store__col_text(s, 3));
        } else if (sqlite3_column_type(s, 1) != SQLITE_NULL) {
            rec->seats[i].session = (uint64_t)sqlite3_column_int64(s, 1);
            snprintf(rec->seats[i].name, sizeof rec->seats[i].name, "%s", store__col_text(s, 4));
        }
    }
    sqlite3_finalize(s);
    return 0;
}

/* rec's journal, in order of n; a read that fails leaves its reason in rec->error. */
static void read_journal(store_t *st, durable_room_rec_t *rec)
{
    sqlite3_stmt *s;
    if (store__prepare_journal(st->db, &s) != SQLITE_OK) {
        snprintf(rec->error, sizeof rec->error, "cannot read its journal: %s",
                 sqlite3_errmsg(st->db));
        return;
    }
    sqlite3_bind_int64(s, 1, (sqlite3_int64)rec->rid);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        if (durable_rec_add_entry(rec, (uint64_t)sqlite3_column_int64(s, 0), store__col_text(s, 1),
                                  sqlite3_column_int(s, 2), sqlite3_column_int64(s, 3),
                                  (const char *)sqlite3_column_text(s, 4)) < 0) {
            snprintf(rec->error, sizeof rec->error, "cannot read its journal: out of memory");
            break;
        }
    if (!rec->error[0] && rc != SQLITE_DONE)
        snprintf(rec->error, sizeof rec->error, "cannot read its journal: %s",
                 sqlite3_errmsg(st->db));
    sqlite3_finalize(s);
}

static void quarantine(store_t *st, const durable_room_rec_t *rec, const char *why)
{
    log_error("room %s (%s): its journal does not replay: %s; quarantined, not loaded", rec->id,
              rec->game, why);
    store__room_end(st, rec->rid, "quarantined", NULL, why);
}

/* Hand every stored session to h (sorted by id). Returns 0, or -1. */
static int restore_sessions(store_t *st, const durable_restore_hooks_t *h)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(st->db, "SELECT id, name, token_hash, created FROM sessions ORDER BY id",
                           -1, &s, NULL) != SQLITE_OK)
        return -1;
    while (sqlite3_step(s) == SQLITE_ROW) {
        durable_session_rec_t rec = {.id = (uint64_t)sqlite3_column_int64(s, 0),
                                     .created = sqlite3_column_int64(s, 3)};
        snprintf(rec.name, sizeof rec.name, "%s", store__col_text(s, 1));
        snprintf(rec.token_hash, sizeof rec.token_hash, "%s", store__col_text(s, 2));
        if (strlen(store__col_text(s, 2)) != DURABLE_TOKEN_HASH_LEN || !h->session(h->ctx, &rec))
            log_warn("session %lld (%s): cannot be restored", (long long)rec.id,
                     store__col_text(s, 1));
    }
    sqlite3_finalize(s);
    return 0;
}

/* The rooms to restore, read whole before any is touched (their journals are
   read one room at a time). Returns their number, or -1. */
static int read_rooms(store_t *st, durable_room_rec_t **out)
{
    sqlite3_stmt *s;
    int n = 0, cap = 0;
    durable_room_rec_t *v = NULL;
    if (sqlite3_prepare_v2(st->db,
                           "SELECT rid, code, game, players, options, seed, deal, server_seed, "
                           "private, status, seq, race "
                           "FROM rooms WHERE status IN ('waiting', 'playing') ORDER BY rid",
                           -1, &s, NULL) != SQLITE_OK)
        return -1;
    while (sqlite3_step(s) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            durable_room_rec_t *nv = tapis_realloc(v, (size_t)cap * sizeof *nv);
            if (!nv) break;
            v = nv;
        }
        durable_room_rec_t *r = &v[n];
        memset(r, 0, sizeof *r);
        r->rid = (uint64_t)sqlite3_column_int64(s, 0);
        snprintf(r->id, sizeof r->id, "%s", store__col_text(s, 1));
        snprintf(r->game, sizeof r->game, "%s", store__col_text(s, 2));
        r->players = sqlite3_column_int(s, 3);
        r->options = tapis_strdup(store__col_text(s, 4));
        if (store__col_deal(s, 5, r->id, &r->deal, r->error, sizeof r->error) < 0)
            deal_v0(&r->deal, 0); /* the replay refuses it: r->error says why */
        r->private_room = sqlite3_column_int(s, 8) != 0;
        r->playing = strcmp(store__col_text(s, 9), "playing") == 0;
        r->seq = (uint64_t)sqlite3_column_int64(s, 10);
        snprintf(r->race, sizeof r->race, "%s", store__col_text(s, 11));
        if (!r->options) break;
        n++;
    }
    sqlite3_finalize(s);
    *out = v;
    return n;
}

int store__restore(store_t *st, const durable_restore_hooks_t *h, int *sessions_kept,
                   int *quarantined)
{
    server_t *srv = st->srv;
    *sessions_kept = *quarantined = 0;
    srv->rooms_created = (uint64_t)query_int(st, "SELECT max(rid) FROM rooms");
    int64_t a = query_int(st, "SELECT max(id) FROM sessions");
    int64_t b = query_int(st, "SELECT max(session) FROM seats");
    srv->next_session_id = (uint64_t)(a > b ? a : b);

    int sessions_ok = restore_sessions(st, h);
    durable_room_rec_t *recs = NULL;
    int nrecs = read_rooms(st, &recs);
    if (sessions_ok < 0 || nrecs < 0) {
        log_error("store %s: cannot read: %s", srv->opts.db_path, sqlite3_errmsg(st->db));
        tapis_free(recs);
        *sessions_kept = h->done(h->ctx);
        return -1;
    }
    int restored = 0;
    for (int i = 0; i < nrecs; i++) {
        durable_room_rec_t *rec = &recs[i];
        char why[400];
        struct room *r;
        json_t *result;
        read_journal(st, rec);
        if (read_seats(st, rec) < 0) {
            durable_rec_clear(rec);
            continue;
        }
        switch (h->room(h->ctx, rec, &r, &result, why, sizeof why)) {
        case DURABLE_ROOM_REBUILT: restored++; break;
        case DURABLE_ROOM_OVER: /* over, and killed before it was marked so */
            store__room_end(st, rec->rid, "over", result, NULL);
            json_decref(result);
            break;
        case DURABLE_ROOM_BAD:
            quarantine(st, rec, why);
            (*quarantined)++;
            break;
        case DURABLE_ROOM_NO_ROOM: break;
        }
        durable_rec_clear(rec);
    }
    tapis_free(recs);
    /* Sessions that sit nowhere any more are not worth holding. */
    *sessions_kept = h->done(h->ctx);
    store__commit(srv);
    return restored;
}
