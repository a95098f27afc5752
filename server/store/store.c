/*
 * store.c — the SQLite store: schema and migrations, open, commit, close.
 * The writes of a turn are in store_write.c, the restore in
 * store_restore.c, finished games in store_games.c. See store.h; the
 * format is in docs/STORE.md.
 */
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
/* Schema                                                                   */
/* ------------------------------------------------------------------------ */

/*
 * migrations[i] takes the schema from version i to i + 1 (PRAGMA
 * user_version). Append, never edit: a database of any earlier version is
 * brought up to date at open.
 */
#define TAIL_TABLE(k)                                                                              \
    "CREATE TABLE journal_tail" #k " (rid INTEGER NOT NULL, n INTEGER NOT NULL,"                   \
    " kind TEXT NOT NULL, seat INTEGER NOT NULL, at INTEGER NOT NULL, data TEXT);"
#define TAIL_UNION(k) " UNION ALL SELECT rid, n, kind, seat, at, data FROM journal_tail" #k
_Static_assert(TAIL_PARTS == 4, "migration 3 -> 4 makes four parts");

static const char *const migrations[] = {
    /* 0 -> 1 */
    "CREATE TABLE sessions ("
    "  id INTEGER PRIMARY KEY,"
    "  name TEXT NOT NULL,"
    "  token_hash TEXT NOT NULL,"  /* hex BLAKE2b-256 of the token; never the token */
    "  created INTEGER NOT NULL);" /* wall time, ms since the epoch */
    "CREATE TABLE rooms ("
    "  rid INTEGER PRIMARY KEY,"  /* the room's number (a public room's id) */
    "  code TEXT NOT NULL,"       /* the id clients use (a private room's join code) */
    "  game TEXT NOT NULL,"       /* the game's protocol id, e.g. '233' */
    "  players INTEGER NOT NULL," /* seats */
    "  options TEXT NOT NULL,"    /* the complete options object (JSON) */
    "  seed INTEGER NOT NULL,"    /* the game's seed (uint64 stored as int64) */
    "  private INTEGER NOT NULL,"
    "  title TEXT NOT NULL,"
    "  status TEXT NOT NULL,"           /* waiting, playing, over, closed, quarantined */
    "  seq INTEGER NOT NULL DEFAULT 0," /* state events sent */
    "  created INTEGER NOT NULL,"
    "  ended INTEGER,"
    "  result TEXT," /* the game's result (JSON) once over */
    "  note TEXT);"  /* why it was quarantined */
    "CREATE INDEX rooms_by_status ON rooms(status);"
    "CREATE TABLE seats ("
    "  rid INTEGER NOT NULL,"
    "  seat INTEGER NOT NULL,"
    "  name TEXT," /* NULL: a free seat */
    "  session INTEGER,"
    "  bot INTEGER NOT NULL DEFAULT 0,"
    "  strategy TEXT," /* a bot's strategy as given: 'greedy', 'fast:100-400' */
    "  level TEXT,"    /* the strategy its level runs */
    "  pace_min INTEGER, pace_max INTEGER,"
    "  PRIMARY KEY (rid, seat));"
    "CREATE TABLE journal ("
    "  rid INTEGER NOT NULL,"
    "  n INTEGER NOT NULL," /* 1, 2, 3... in the order of the room's changes */
    "  kind TEXT NOT NULL," /* start, act, tick, seat */
    "  seat INTEGER NOT NULL,"
    "  at INTEGER NOT NULL," /* room time, ms */
    "  data TEXT,"           /* act: the action (JSON); seat: who sits (JSON) */
    "  PRIMARY KEY (rid, n));",
    /* 1 -> 2: match history (finished games, newest first; a session's games) */
    "CREATE INDEX rooms_by_end ON rooms(status, ended);"
    "CREATE INDEX seats_by_session ON seats(session);",
    /* 2 -> 3: the journal clustered by (rid, n), WITHOUT ROWID: one b-tree an
       entry is written into, not a table and its key's index */
    "CREATE TABLE journal3 ("
    "  rid INTEGER NOT NULL, n INTEGER NOT NULL, kind TEXT NOT NULL,"
    "  seat INTEGER NOT NULL, at INTEGER NOT NULL, data TEXT,"
    "  PRIMARY KEY (rid, n)) WITHOUT ROWID;"
    "INSERT INTO journal3 SELECT rid, n, kind, seat, at, data FROM journal;"
    "DROP TABLE journal;"
    "ALTER TABLE journal3 RENAME TO journal;",
    /* 3 -> 4: new entries may be appended to a tail of 4 parts (the part is rid % 4,
       rowid tables: an append writes the part's last page, not one page per room)
       and moved into journal a part at a time; journal_all is both. */
    /* clang-format off */
    TAIL_TABLE(0) TAIL_TABLE(1) TAIL_TABLE(2) TAIL_TABLE(3)
    "CREATE VIEW journal_all AS SELECT rid, n, kind, seat, at, data FROM journal"
    TAIL_UNION(0) TAIL_UNION(1) TAIL_UNION(2) TAIL_UNION(3) ";",
    /* clang-format on */
    /* 4 -> 5: accounts, their ratings per game and their rated results (store_accounts.c) */
    STORE_ACCOUNTS_SCHEMA,
    /* 5 -> 6: provable deals (docs/FAIRNESS.md): the deal's version (0: the game's
       generator is seeded with rooms.seed, as every game before) and, from version 1,
       the server seed (hex), secret until the game is over; the players' seeds are
       the journal's "seed" entries */
    "ALTER TABLE rooms ADD COLUMN deal INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE rooms ADD COLUMN server_seed TEXT;",
    /* 6 -> 7: how the room settles its races (its race= option: "reaction", "arrival");
       NULL in a room recorded before: it takes the restarted server's --race */
    "ALTER TABLE rooms ADD COLUMN race TEXT;",
};
#define SCHEMA_VERSION ((int)(sizeof migrations / sizeof migrations[0]))

static const char *const statements[S_COUNT] = {
    [S_SESSION_NEW] = "INSERT OR REPLACE INTO sessions (id, name, token_hash, created) "
                      "VALUES (?1, ?2, ?3, ?4)",
    [S_SESSION_RENAME] = "UPDATE sessions SET name = ?2 WHERE id = ?1",
    [S_SESSION_END] = "DELETE FROM sessions WHERE id = ?1",
    [S_ROOM_NEW] = "INSERT OR REPLACE INTO rooms (rid, code, game, players, options, seed, "
                   "private, title, status, created, deal, server_seed, race) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'waiting', ?9, ?10, ?11, ?12)",
    [S_ROOM_STATUS] = "UPDATE rooms SET status = ?2 WHERE rid = ?1",
    [S_ROOM_END] = "UPDATE rooms SET status = ?2, ended = ?3, result = ?4, note = ?5 "
                   "WHERE rid = ?1",
    [S_SEAT] = "INSERT OR REPLACE INTO seats (rid, seat, name, session, bot, strategy, level, "
               "pace_min, pace_max) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    [S_JOURNAL] = "INSERT INTO journal (rid, n, kind, seat, at, data) "
                  "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    [S_BEGIN] = "BEGIN",
    [S_COMMIT] = "COMMIT",
};

/*
 * Checkpoints (copying the WAL back into the database, and its fsync) run on
 * a thread of their own with a connection of its own, never on the loop: the
 * loop's connection has wal_autocheckpoint off, and its WAL hook wakes the
 * thread once CKPT_PAGES frames (8 MB of 1 KiB pages) wait. Pages are 1 KiB
 * in a new database: a commit writes every page it changed, and the journal
 * entries of one turn land in as many pages as there are rooms in it, so a
 * small page is a small write (4 KiB pages cost 30 % more at 500 tables). The thread also wakes
 * every CKPT_IDLE_MS, and runs PASSIVE checkpoints, which never block the writer; when a checkpoint
 * has copied every frame, the loop's next write starts the WAL over. One tapisd per database: an
 * flock() on the database file, taken at open and held to the end (SQLite's own locks are per
 * transaction now).
 */
#define CKPT_PAGES 8000
#define CKPT_IDLE_MS 1000
#define CKPT_NICE 10

/*
 * The journal's tail. A room's entries are clustered in journal by (rid, n),
 * so a turn that wrote one entry in each of 500 rooms changed 500 pages, and a
 * commit writes every page it changed (twice: the WAL, then the checkpoint).
 * A turn's entries are kept in memory until its commit; a turn of
 * TAIL_MIN_ENTRIES entries or more appends them to journal_tailK (K = rid %
 * TAIL_PARTS) instead, a page or two per part, and one part every
 * TAIL_ROUND_MS / TAIL_PARTS is moved into journal in the transaction of a
 * turn: a busy room's page is then written once a second, whatever its number
 * of entries. A quiet server's turns are small and write into journal
 * directly, so it has no moves to wait for. The tail is as durable as the
 * rest; it is moved whole at open and at close, and readers read journal_all.
 */

/* ------------------------------------------------------------------------ */
/* Open, commit, close                                                      */
/* ------------------------------------------------------------------------ */

static int exec(store_t *st, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        log_error("store %s: %s (%.60s...)", st->srv->opts.db_path, msg ? msg : "?", sql);
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

static int user_version(store_t *st)
{
    sqlite3_stmt *s;
    int v = -1;
    if (sqlite3_prepare_v2(st->db, "PRAGMA user_version", -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    return v;
}

static int migrate(store_t *st)
{
    int v = user_version(st);
    if (v < 0) return -1;
    if (v > SCHEMA_VERSION) {
        log_error("store %s: schema version %d is newer than this tapisd knows (%d)",
                  st->srv->opts.db_path, v, SCHEMA_VERSION);
        return -1;
    }
    for (; v < SCHEMA_VERSION; v++) {
        char bump[64];
        snprintf(bump, sizeof bump, "PRAGMA user_version = %d", v + 1);
        if (exec(st, "BEGIN IMMEDIATE") < 0) return -1;
        if (exec(st, migrations[v]) < 0 || exec(st, bump) < 0) {
            exec(st, "ROLLBACK");
            return -1;
        }
        if (exec(st, "COMMIT") < 0) return -1;
        log_debug("store %s: schema migrated to version %d", st->srv->opts.db_path, v + 1);
    }
    return 0;
}

/* The checkpointer thread: a PASSIVE checkpoint when woken or every CKPT_IDLE_MS. */
static void checkpointer(void *arg)
{
    store_t *st = arg;
    /* On a core shared with the loop, the loop comes first (nice is per thread on Linux). */
    setpriority(PRIO_PROCESS, (id_t)gettid(), CKPT_NICE);
    uv_mutex_lock(&st->ckpt_mu);
    while (!st->ckpt_stop) {
        if (!st->ckpt_wanted)
            uv_cond_timedwait(&st->ckpt_cv, &st->ckpt_mu, (uint64_t)CKPT_IDLE_MS * 1000000);
        if (st->ckpt_stop) break;
        st->ckpt_wanted = false;
        uv_mutex_unlock(&st->ckpt_mu);
        int frames = 0, copied = 0;
        int rc = sqlite3_wal_checkpoint_v2(st->ckpt_db, "main", SQLITE_CHECKPOINT_PASSIVE, &frames,
                                           &copied);
        if (rc != SQLITE_OK && rc != SQLITE_BUSY)
            log_warn("store: checkpoint: %s", sqlite3_errmsg(st->ckpt_db));
        uv_mutex_lock(&st->ckpt_mu);
        /* Frames came meanwhile: go on at once rather than let the WAL grow. */
        if (rc == SQLITE_OK && copied < frames && frames >= CKPT_PAGES) st->ckpt_wanted = true;
    }
    uv_mutex_unlock(&st->ckpt_mu);
}

/* After each commit of the loop's connection: wake the checkpointer when the WAL is long. */
static int on_wal(void *arg, sqlite3 *db, const char *name, int pages)
{
    store_t *st = arg;
    (void)db;
    (void)name;
    if (pages >= CKPT_PAGES && st->ckpt_running) {
        uv_mutex_lock(&st->ckpt_mu);
        st->ckpt_wanted = true;
        uv_cond_signal(&st->ckpt_cv);
        uv_mutex_unlock(&st->ckpt_mu);
    }
    return SQLITE_OK;
}

static int start_checkpointer(store_t *st, const char *path)
{
    if (sqlite3_open_v2(path, &st->ckpt_db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        log_error("store %s: cannot open for checkpoints: %s", path,
                  st->ckpt_db ? sqlite3_errmsg(st->ckpt_db) : "out of memory");
        return -1;
    }
    sqlite3_busy_timeout(st->ckpt_db, 100);
    /* A connection learns the database is in WAL mode when it first reads it. */
    if (sqlite3_exec(st->ckpt_db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL) != SQLITE_OK) {
        log_error("store %s: checkpoint connection: %s", path, sqlite3_errmsg(st->ckpt_db));
        return -1;
    }
    if (uv_mutex_init(&st->ckpt_mu) < 0) return -1;
    if (uv_cond_init(&st->ckpt_cv) < 0) {
        uv_mutex_destroy(&st->ckpt_mu);
        return -1;
    }
    if (uv_thread_create(&st->ckpt_thread, checkpointer, st) < 0) {
        uv_cond_destroy(&st->ckpt_cv);
        uv_mutex_destroy(&st->ckpt_mu);
        return -1;
    }
    st->ckpt_running = true;
    sqlite3_wal_hook(st->db, on_wal, st);
    return 0;
}

static void store_free(store_t *st)
{
    if (st->ckpt_running) {
        uv_mutex_lock(&st->ckpt_mu);
        st->ckpt_stop = true;
        uv_cond_signal(&st->ckpt_cv);
        uv_mutex_unlock(&st->ckpt_mu);
        uv_thread_join(&st->ckpt_thread);
        uv_cond_destroy(&st->ckpt_cv);
        uv_mutex_destroy(&st->ckpt_mu);
    }
    sqlite3_close(st->ckpt_db);
    tapis_free(st->pend);
    tapis_free(st->texts);
    for (int i = 0; i < S_COUNT; i++)
        sqlite3_finalize(st->stmt[i]);
    for (int k = 0; k < TAIL_PARTS; k++) {
        sqlite3_finalize(st->tail_put[k]);
        sqlite3_finalize(st->tail_move[k]);
        sqlite3_finalize(st->tail_clear[k]);
    }
    sqlite3_close(st->db); /* the last connection: checkpoints what is left */
    if (st->lock_fd >= 0) close(st->lock_fd);
    tapis_free(st);
}

static int prepare(store_t *st, sqlite3_stmt **out, const char *fmt, int k)
{
    char sql[256];
    snprintf(sql, sizeof sql, fmt, k);
    return sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, out, NULL) == SQLITE_OK
               ? 0
               : -1;
}

static int prepare_tail(store_t *st)
{
    for (int k = 0; k < TAIL_PARTS; k++)
        if (prepare(st, &st->tail_put[k],
                    "INSERT INTO journal_tail%d (rid, n, kind, seat, at, data) "
                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    k) < 0 ||
            prepare(st, &st->tail_move[k],
                    "INSERT INTO journal SELECT rid, n, kind, seat, at, data "
                    "FROM journal_tail%d ORDER BY rid, n",
                    k) < 0 ||
            prepare(st, &st->tail_clear[k], "DELETE FROM journal_tail%d", k) < 0)
            return -1;
    return 0;
}

static int step_reset(sqlite3_stmt *s)
{
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc;
}

/* Move part k of the tail into journal, inside the open transaction: all of it or nothing. */
static int move_part(store_t *st, int k)
{
    if (exec(st, "SAVEPOINT tail") < 0) return -1;
    int rc = step_reset(st->tail_move[k]);
    if (rc == SQLITE_DONE) rc = step_reset(st->tail_clear[k]);
    if (rc != SQLITE_DONE) {
        log_error("store %s: journal_tail%d stays as it is: %s", st->srv->opts.db_path, k,
                  sqlite3_errmsg(st->db));
        exec(st, "ROLLBACK TO tail");
    } else {
        st->tail_rows[k] = 0;
    }
    exec(st, "RELEASE tail");
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Move the whole tail into journal, in a transaction of its own (at open and at close). */
static int move_tail(store_t *st)
{
    if (exec(st, "BEGIN IMMEDIATE") < 0) return -1;
    int bad = 0;
    for (int k = 0; k < TAIL_PARTS; k++)
        bad |= move_part(st, k);
    return exec(st, "COMMIT") < 0 || bad ? -1 : 0;
}

int store_open(server_t *srv)
{
    store_t *st = tapis_calloc(1, sizeof *st);
    if (!st) return -1;
    st->srv = srv;
    st->lock_fd = -1;
    const char *path = srv->opts.db_path;
    if (sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK) {
        log_error("store %s: cannot open: %s", path,
                  st->db ? sqlite3_errmsg(st->db) : "out of memory");
        store_free(st);
        return -1;
    }
    sqlite3_busy_timeout(st->db, 2000);
    /* One server per database (the file exists now: sqlite3_open_v2 made it). */
    st->lock_fd = open(path, O_RDONLY | O_CLOEXEC);
    if (st->lock_fd < 0 || flock(st->lock_fd, LOCK_EX | LOCK_NB) < 0) {
        log_error("store %s: %s", path,
                  errno == EWOULDBLOCK ? "another tapisd is using it" : strerror(errno));
        store_free(st);
        return -1;
    }
    if (exec(st, "PRAGMA page_size = 1024") < 0 || /* a new file only; see CKPT_PAGES */
        exec(st, "PRAGMA journal_mode = WAL") < 0 ||
        exec(st, "PRAGMA wal_autocheckpoint = 0") < 0 ||
        exec(st, "PRAGMA journal_size_limit = 67108864") < 0 ||
        exec(st, srv->opts.fsync_always ? "PRAGMA synchronous = FULL"
                                        : "PRAGMA synchronous = NORMAL") < 0 ||
        exec(st, "PRAGMA cache_size = -32768") < 0 || /* 32 MiB: the rooms' pages and the tail */
        exec(st, "PRAGMA foreign_keys = OFF") < 0 || migrate(st) < 0) {
        log_error("store %s: not usable", path);
        store_free(st);
        return -1;
    }
    for (int i = 0; i < S_COUNT; i++)
        if (sqlite3_prepare_v3(st->db, statements[i], -1, SQLITE_PREPARE_PERSISTENT, &st->stmt[i],
                               NULL) != SQLITE_OK) {
            log_error("store %s: %s", path, sqlite3_errmsg(st->db));
            store_free(st);
            return -1;
        }
    if (prepare_tail(st) < 0) {
        log_error("store %s: %s", path, sqlite3_errmsg(st->db));
        store_free(st);
        return -1;
    }
    /* A part that cannot be moved (logged) stays where it is: journal_all reads it. */
    move_tail(st);
    if (start_checkpointer(st, path) < 0) {
        log_error("store %s: cannot start the checkpoint thread", path);
        store_free(st);
        return -1;
    }
    srv->store = st;
    return 0;
}

int store__commit(server_t *srv)
{
    store_t *st = srv->store;
    if (!st || !st->in_txn) return 0;
    uint64_t t0 = uv_hrtime();
    store__write_pending(st);
    if (t0 >= st->tail_next_ns) {
        if (st->tail_rows[st->tail_next] > 0) move_part(st, st->tail_next);
        st->tail_next = (st->tail_next + 1) % TAIL_PARTS;
        st->tail_next_ns = t0 + (uint64_t)TAIL_ROUND_MS * 1000000 / TAIL_PARTS;
    }
    st->in_txn = false;
    st->failed_txn = false;
    int rc = sqlite3_step(st->stmt[S_COMMIT]);
    sqlite3_reset(st->stmt[S_COMMIT]);
    if (rc != SQLITE_DONE) {
        log_error("store %s: %s: the last turn's writes are NOT durable", srv->opts.db_path,
                  sqlite3_errmsg(st->db));
        exec(st, "ROLLBACK");
        return -1;
    }
    histogram_observe(&srv->metrics.journal_commit, (double)(uv_hrtime() - t0) / 1e9);
    return 0;
}

void store_close(server_t *srv)
{
    if (!srv->store) return;
    store__commit(srv);
    move_tail(srv->store);
    store_free(srv->store);
    srv->store = NULL;
}
