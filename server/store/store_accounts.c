/*
 * store_accounts.c — the accounts' backend (server/account/account.h) in
 * the store: accounts, ratings per game and rated results, written in the
 * turn's transaction (so a game's new ratings are durable before its
 * game_over is sent) and read back at start. Tables: docs/STORE.md,
 * "Accounts". Writes are rare (a register, a rated game's end): their
 * statements are prepared when used.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/account/account.h"
#include "server/base/log.h"
#include "server/store/store_int.h"

/* ------------------------------------------------------------------------ */
/* Writes                                                                   */
/* ------------------------------------------------------------------------ */

/* sql prepared inside the turn's transaction, or NULL when nothing is written. */
static sqlite3_stmt *prepare_write(store_t *st, const char *sql)
{
    sqlite3_stmt *s = NULL;
    if (!st || !store__open_txn(st)) return NULL;
    if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
        log_error("store %s: %s", st->srv->opts.db_path, sqlite3_errmsg(st->db));
        return NULL;
    }
    return s;
}

static void run_write(store_t *st, sqlite3_stmt *s)
{
    if (sqlite3_step(s) != SQLITE_DONE && !st->failed_txn) {
        st->failed_txn = true;
        log_error("store %s: account write failed: %s", st->srv->opts.db_path,
                  sqlite3_errmsg(st->db));
    }
    sqlite3_finalize(s);
}

static void put(void *ctx, const account_t *a)
{
    store_t *st = ((server_t *)ctx)->store;
    sqlite3_stmt *s = prepare_write(st, "INSERT OR REPLACE INTO accounts (name_key, name, pwhash, "
                                        "key_hash, created) VALUES (?1, ?2, ?3, ?4, ?5)");
    if (!s) return;
    store__bind(s, 1, "ttooI", a->name_key, a->name, a->pwhash, a->key_hash, a->created);
    run_write(st, s);
}

static void rating(void *ctx, const account_t *a, const account_rating_t *r)
{
    store_t *st = ((server_t *)ctx)->store;
    sqlite3_stmt *s = prepare_write(st, "INSERT OR REPLACE INTO ratings (name_key, game, mu, "
                                        "sigma, games, wins) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    if (!s) return;
    store__bind(s, 1, "ttffii", a->name_key, r->game, r->mu, r->sigma, r->games, r->wins);
    run_write(st, s);
}

static void result(void *ctx, const account_t *a, const account_result_t *res)
{
    store_t *st = ((server_t *)ctx)->store;
    sqlite3_stmt *s = prepare_write(
        st, "INSERT INTO rated_results (name_key, game, room, place, sides, "
            "abandoned, before, after, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
    if (!s) return;
    store__bind(s, 1, "tttiiiffI", a->name_key, res->game, res->room, res->place, res->sides,
                (int)res->abandoned, res->before, res->after, res->at);
    run_write(st, s);
}

static void rated_room(void *ctx, const char *room_id, const json_t *data)
{
    store_t *st = ((server_t *)ctx)->store;
    char *text = data ? json_dumps(data, JSON_COMPACT) : NULL;
    if (data && !text) return; /* no memory: logged by the caller's check */
    sqlite3_stmt *s =
        prepare_write(st, text ? "INSERT OR REPLACE INTO rated_rooms (room, data) VALUES (?1, ?2)"
                               : "DELETE FROM rated_rooms WHERE room = ?1");
    if (s) {
        sqlite3_bind_text(s, 1, room_id, -1, SQLITE_TRANSIENT);
        if (text) sqlite3_bind_text(s, 2, text, -1, SQLITE_TRANSIENT);
        run_write(st, s);
    }
    free(text);
}

/* ------------------------------------------------------------------------ */
/* The load                                                                 */
/* ------------------------------------------------------------------------ */

static const char *col(sqlite3_stmt *s, int i)
{
    const char *t = (const char *)sqlite3_column_text(s, i);
    return t ? t : "";
}

/* Run sql, handing each row to row(); -1 when a row() refused or the query failed. */
static int each_row(store_t *st, const char *sql, int (*row)(server_t *srv, sqlite3_stmt *s))
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
        log_error("store %s: %s", st->srv->opts.db_path, sqlite3_errmsg(st->db));
        return -1;
    }
    int rc, bad = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        bad |= row(st->srv, s);
    if (rc != SQLITE_DONE) log_error("store %s: %s", st->srv->opts.db_path, sqlite3_errmsg(st->db));
    sqlite3_finalize(s);
    return rc == SQLITE_DONE && !bad ? 0 : -1;
}

static int account_row(server_t *srv, sqlite3_stmt *s)
{
    if (!accounts_loaded(srv, col(s, 0), col(s, 1), col(s, 2), sqlite3_column_int64(s, 3))) {
        log_error("store: account %s cannot be loaded", col(s, 0));
        return -1;
    }
    return 0;
}

/* The account of a row's name_key (column 0), or NULL (logged). */
static account_t *owner(server_t *srv, sqlite3_stmt *s)
{
    account_t *a = account_find(srv, col(s, 0));
    if (!a) log_warn("store: a rating row of unknown account %s is skipped", col(s, 0));
    return a;
}

static int rating_row(server_t *srv, sqlite3_stmt *s)
{
    account_t *a = owner(srv, s);
    if (a &&
        !account_rating_set(a, col(s, 1), sqlite3_column_double(s, 2), sqlite3_column_double(s, 3),
                            sqlite3_column_int(s, 4), sqlite3_column_int(s, 5)))
        return -1;
    return 0;
}

static int result_row(server_t *srv, sqlite3_stmt *s)
{
    account_t *a = owner(srv, s);
    if (!a) return 0;
    account_result_t res = {.place = sqlite3_column_int(s, 3),
                            .sides = sqlite3_column_int(s, 4),
                            .abandoned = sqlite3_column_int(s, 5) != 0,
                            .before = sqlite3_column_double(s, 6),
                            .after = sqlite3_column_double(s, 7),
                            .at = sqlite3_column_int64(s, 8)};
    snprintf(res.game, sizeof res.game, "%s", col(s, 1));
    snprintf(res.room, sizeof res.room, "%s", col(s, 2));
    account_recent_add(a, &res);
    return 0;
}

/* Accounts, then ratings, then each account's last ACCOUNT_RECENT results, oldest first. */
static int load(void *ctx, server_t *srv)
{
    (void)ctx; /* the server itself */
    store_t *st = srv->store;
    if (!st) return 0;
    char recent[512];
    snprintf(recent, sizeof recent,
             "SELECT name_key, game, room, place, sides, abandoned, before, after, at "
             "FROM rated_results r WHERE id >= COALESCE((SELECT id FROM rated_results "
             "WHERE name_key = r.name_key ORDER BY id DESC LIMIT 1 OFFSET %d), 0) ORDER BY id",
             ACCOUNT_RECENT - 1);
    return each_row(st, "SELECT name, pwhash, key_hash, created FROM accounts", account_row) < 0 ||
                   each_row(st,
                            "SELECT name_key, game, mu, sigma, games, wins FROM ratings "
                            "ORDER BY name_key, game",
                            rating_row) < 0 ||
                   each_row(st, recent, result_row) < 0
               ? -1
               : 0;
}

/* Every rated room kept, to each(); a row that is not JSON is skipped (logged). */
static int rated_rooms(void *ctx, server_t *srv,
                       void (*each)(server_t *srv, const char *room_id, const json_t *data))
{
    (void)ctx;
    sqlite3_stmt *s;
    if (!srv->store || sqlite3_prepare_v2(srv->store->db, "SELECT room, data FROM rated_rooms", -1,
                                          &s, NULL) != SQLITE_OK)
        return srv->store ? -1 : 0;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        json_t *data = json_loads(col(s, 1), 0, NULL);
        if (data)
            each(srv, col(s, 0), data);
        else
            log_warn("store: rated room %s is not JSON: played casual", col(s, 0));
        json_decref(data);
    }
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : -1;
}

const account_backend_t store_accounts_backend = {
    ACCOUNT_OP(load),   ACCOUNT_OP(put),        ACCOUNT_OP(rating),
    ACCOUNT_OP(result), ACCOUNT_OP(rated_room), ACCOUNT_OP(rated_rooms),
};
