/* store_games.c — finished games: the history, a game's record, and
   --export-game. See store.h. */
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/deal.h"
#include "core/journal.h"
#include "json/json_text.h"
#include "server/base/log.h"
#include "server/store/store_int.h"

/* ------------------------------------------------------------------------ */
/* Finished games: history, records, export                                 */
/* ------------------------------------------------------------------------ */

/* The names by seat of room rid ([name or "bot" or null] of length players). */
static json_t *seat_names(sqlite3 *db, uint64_t rid, int players)
{
    json_t *names = json_array();
    for (int i = 0; i < players; i++)
        json_array_append_new(names, json_null());
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, "SELECT seat, name FROM seats WHERE rid = ?1", -1, &s, NULL) !=
        SQLITE_OK)
        return names;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)rid);
    while (sqlite3_step(s) == SQLITE_ROW) {
        int i = sqlite3_column_int(s, 0);
        if (i >= 0 && i < players && sqlite3_column_type(s, 1) != SQLITE_NULL)
            json_array_set_new(names, (size_t)i, json_string(store__col_text(s, 1)));
    }
    sqlite3_finalize(s);
    return names;
}

/* Column i as JSON (its text parsed), or null when NULL or not JSON. */
static json_t *col_json(sqlite3_stmt *s, int i)
{
    if (sqlite3_column_type(s, i) == SQLITE_NULL) return json_null();
    json_t *j = json_loads(store__col_text(s, i), JSON_DECODE_ANY, NULL);
    return j ? j : json_null();
}

json_t *store_history(server_t *srv, uint64_t viewer, bool all, int limit, long long offset,
                      long long *total)
{
    store_t *st = srv->store;
    *total = 0;
    if (!st) return json_array();
    /* Both walk an index: rooms_by_end (status, ended) for every game, seats_by_session
       for a session's; a page reads limit + offset rows at most. */
    const char *where = all ? "r.status = 'over' AND r.private = 0"
                            : "r.status = 'over' AND r.rid IN "
                              "(SELECT rid FROM seats WHERE session = ?1)";
    char sql[512];
    sqlite3_stmt *s;
    snprintf(sql, sizeof sql, "SELECT count(*) FROM rooms r WHERE %s", where);
    if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) goto fail;
    if (!all) sqlite3_bind_int64(s, 1, (sqlite3_int64)viewer);
    if (sqlite3_step(s) == SQLITE_ROW) *total = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    snprintf(sql, sizeof sql,
             "SELECT r.rid, r.code, r.game, r.players, r.result, r.ended FROM rooms r "
             "WHERE %s ORDER BY r.ended DESC, r.rid DESC LIMIT ?2 OFFSET ?3",
             where);
    if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) goto fail;
    if (!all) sqlite3_bind_int64(s, 1, (sqlite3_int64)viewer);
    sqlite3_bind_int(s, 2, limit);
    sqlite3_bind_int64(s, 3, offset);
    json_t *games = json_array();
    while (sqlite3_step(s) == SQLITE_ROW) {
        uint64_t rid = (uint64_t)sqlite3_column_int64(s, 0);
        json_array_append_new(
            games, json_pack("{s:s, s:s, s:o, s:o, s:I}", "id", store__col_text(s, 1), "game",
                             store__col_text(s, 2), "players",
                             seat_names(st->db, rid, sqlite3_column_int(s, 3)), "result",
                             col_json(s, 4), "ended", (json_int_t)sqlite3_column_int64(s, 5)));
    }
    sqlite3_finalize(s);
    return games;
fail:
    log_error("store %s: history: %s", srv->opts.db_path, sqlite3_errmsg(st->db));
    return NULL;
}

/* Does session `viewer` sit in room rid? */
static bool sits_in(sqlite3 *db, uint64_t rid, uint64_t viewer)
{
    sqlite3_stmt *s;
    bool yes = false;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM seats WHERE rid = ?1 AND session = ?2", -1, &s,
                           NULL) != SQLITE_OK)
        return false;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)rid);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)viewer);
    yes = sqlite3_step(s) == SQLITE_ROW;
    sqlite3_finalize(s);
    return yes;
}

/* The seats of a record: [{seat, name, bot, strategy}] for every seat. */
static json_t *record_seats(sqlite3 *db, uint64_t rid, int players)
{
    json_t *seats = json_array();
    for (int i = 0; i < players; i++)
        json_array_append_new(
            seats, json_pack("{s:i, s:n, s:b, s:n}", "seat", i, "name", "bot", 0, "strategy"));
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, "SELECT seat, name, bot, strategy FROM seats WHERE rid = ?1", -1, &s,
                           NULL) != SQLITE_OK)
        return seats;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)rid);
    while (sqlite3_step(s) == SQLITE_ROW) {
        int i = sqlite3_column_int(s, 0);
        if (i < 0 || i >= players) continue;
        json_t *seat = json_array_get(seats, (size_t)i);
        if (sqlite3_column_type(s, 1) != SQLITE_NULL)
            json_object_set_new(seat, "name", json_string(store__col_text(s, 1)));
        json_object_set_new(seat, "bot", json_boolean(sqlite3_column_int(s, 2) != 0));
        if (sqlite3_column_type(s, 3) != SQLITE_NULL)
            json_object_set_new(seat, "strategy", json_string(store__col_text(s, 3)));
    }
    sqlite3_finalize(s);
    return seats;
}

/* The journal of room rid: [{n, kind, seat, at, data}], or NULL. */
static json_t *record_actions(sqlite3 *db, uint64_t rid)
{
    sqlite3_stmt *s;
    if (store__prepare_journal(db, &s) != SQLITE_OK) return NULL;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)rid);
    json_t *actions = json_array();
    while (sqlite3_step(s) == SQLITE_ROW)
        json_array_append_new(
            actions,
            json_pack("{s:I, s:s, s:i, s:I, s:o}", "n", (json_int_t)sqlite3_column_int64(s, 0),
                      "kind", store__col_text(s, 1), "seat", sqlite3_column_int(s, 2), "at",
                      (json_int_t)sqlite3_column_int64(s, 3), "data", col_json(s, 4)));
    sqlite3_finalize(s);
    return actions;
}

/*
 * The record of finished game `id` (the code clients use). With check, the
 * journal is replayed first (game_new, then every entry through
 * game_apply/game_tick, as a restore does) and must end the game with the
 * stored result. A private game is only shown to a session seated in it
 * (viewer), unless any_viewer.
 */
static int game_record(sqlite3 *db, const char *id, bool any_viewer, uint64_t viewer, bool check,
                       json_t **out, char *why, size_t whylen)
{
    sqlite3_stmt *s;
    *out = NULL;
    snprintf(why, whylen, "no game %s", id);
    /* A database of schema 5 or older (--export-game reads it without migrating
       it) has no deal columns: its games are all of deal version 0. */
    static const char *const sql[] = {
        "SELECT rid, code, game, players, options, private, status, result, created, ended, "
        "seed, deal, server_seed FROM rooms WHERE code = ?1 ORDER BY rid DESC LIMIT 1",
        "SELECT rid, code, game, players, options, private, status, result, created, ended, "
        "seed, 0, NULL FROM rooms WHERE code = ?1 ORDER BY rid DESC LIMIT 1",
    };
    if (sqlite3_prepare_v2(db, sql[0], -1, &s, NULL) != SQLITE_OK &&
        sqlite3_prepare_v2(db, sql[1], -1, &s, NULL) != SQLITE_OK) {
        snprintf(why, whylen, "cannot read the database: %s", sqlite3_errmsg(db));
        return STORE_REC_ERROR;
    }
    sqlite3_bind_text(s, 1, id, -1, SQLITE_TRANSIENT);
    int step = sqlite3_step(s);
    if (step != SQLITE_ROW) {
        if (step != SQLITE_DONE)
            snprintf(why, whylen, "cannot read the database: %s", sqlite3_errmsg(db));
        sqlite3_finalize(s);
        return step == SQLITE_DONE ? STORE_REC_NOT_FOUND : STORE_REC_ERROR;
    }
    room_row_t row = {.rid = (uint64_t)sqlite3_column_int64(s, 0),
                      .players = sqlite3_column_int(s, 3)};
    snprintf(row.code, sizeof row.code, "%s", store__col_text(s, 1));
    snprintf(row.game, sizeof row.game, "%s", store__col_text(s, 2));
    bool priv = sqlite3_column_int(s, 5) != 0;
    if (priv && !any_viewer && !sits_in(db, row.rid, viewer)) {
        sqlite3_finalize(s);
        return STORE_REC_NOT_FOUND;
    }
    if (strcmp(store__col_text(s, 6), "over") != 0) {
        snprintf(why, whylen, "game %s is not finished (%s)", id, store__col_text(s, 6));
        sqlite3_finalize(s);
        return STORE_REC_NOT_FINISHED;
    }
    int rc = STORE_REC_OK;
    if (store__col_deal(s, 10, row.code, &row.deal, why, whylen) < 0) {
        sqlite3_finalize(s);
        return STORE_REC_ERROR;
    }
    json_t *result = col_json(s, 7);
    if (check) {
        row.options = (char *)store__col_text(s, 4);
        const game_desc_t *d = game_find(row.game);
        game_t *g = NULL;
        if (!d)
            snprintf(why, whylen, "this server has no game \"%s\"", row.game);
        else if (row.players < d->min_seats || row.players > d->max_seats ||
                 row.players > GAME_MAX_SEATS)
            snprintf(why, whylen, "%d players is not a table of %s", row.players, d->id);
        else
            g = store__replay(db, &row, d, why, whylen);
        if (!g) {
            rc = STORE_REC_BAD;
        } else {
            json_t *replayed = game_result(g);
            if (!replayed) {
                snprintf(why, whylen, "its journal does not end the game");
                rc = STORE_REC_BAD;
            } else if (!json_equal(replayed, result)) {
                char *a = json_dumps(replayed, JSON_COMPACT | JSON_ENCODE_ANY);
                snprintf(why, whylen, "its journal gives the result %.150s, not the one stored",
                         a ? a : "?");
                tapis_free(a);
                rc = STORE_REC_BAD;
            }
            json_decref(replayed);
            game_free(g);
        }
        if (rc != STORE_REC_OK) {
            char tmp[300];
            snprintf(tmp, sizeof tmp, "%s", why);
            snprintf(why, whylen, "game %.40s does not replay: %.299s", id, tmp);
            json_decref(result);
            sqlite3_finalize(s);
            return rc;
        }
    }
    char seed[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)row.deal.seed);
    json_t *options = json_loads(store__col_text(s, 4), 0, NULL);
    json_t *actions = record_actions(db, row.rid);
    if (!actions) {
        snprintf(why, whylen, "cannot read the journal of game %s: %s", id, sqlite3_errmsg(db));
        json_decref(options);
        json_decref(result);
        sqlite3_finalize(s);
        return STORE_REC_ERROR;
    }
    *out = json_pack("{s:s, s:s, s:i, s:o, s:s, s:o, s:o, s:o, s:I, s:I}", "id", row.code, "game",
                     row.game, "players", row.players, "options", options ? options : json_null(),
                     "seed", seed, "seats", record_seats(db, row.rid, row.players), "actions",
                     actions, "result", result, "started", (json_int_t)sqlite3_column_int64(s, 8),
                     "ended", (json_int_t)sqlite3_column_int64(s, 9));
    if (*out && row.deal.version > 0)
        json_object_set_new(*out, "deal", deal_json(&row.deal, 0, true));
    sqlite3_finalize(s);
    if (!*out) {
        snprintf(why, whylen, "out of memory");
        return STORE_REC_ERROR;
    }
    return rc;
}

int store_game_record(server_t *srv, const char *id, uint64_t viewer, json_t **out)
{
    char why[400];
    *out = NULL;
    if (!srv->store) return STORE_REC_NOT_FOUND;
    int rc = game_record(srv->store->db, id, false, viewer, false, out, why, sizeof why);
    if (rc == STORE_REC_ERROR) log_error("store %s: replay: %s", srv->opts.db_path, why);
    return rc;
}

int store_export_game(const char *path, const char *id)
{
    sqlite3 *db = NULL;
    if (!path[0]) {
        fprintf(stderr, "tapisd: --export-game needs a database (--db PATH, not none)\n");
        return 1;
    }
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        fprintf(stderr, "tapisd: %s: cannot open: %s\n", path,
                db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return 1;
    }
    sqlite3_busy_timeout(db, 1000);
    json_t *record = NULL;
    char why[400];
    int rc = game_record(db, id, true, 0, true, &record, why, sizeof why);
    if (rc != STORE_REC_OK) {
        fprintf(stderr, "tapisd: %s: %s\n", path, why);
        json_decref(record);
        sqlite3_close(db);
        return 1;
    }
    int bad = json_dumpf(record, stdout, JSON_COMPACT) < 0 || fputc('\n', stdout) == EOF ||
              fflush(stdout) != 0;
    json_decref(record);
    sqlite3_close(db);
    if (bad) {
        fprintf(stderr, "tapisd: cannot write the record\n");
        return 1;
    }
    return 0;
}
