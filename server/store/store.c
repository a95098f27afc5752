/*
 * store.c — the SQLite store: schema and migrations, the writes of a turn in
 * one transaction, and the restore (replaying every unfinished room's
 * journal). See store.h; the format is in docs/STORE.md.
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
#include "server/room/room.h"
#include "server/lobby/session.h"
#include "server/store/store.h"

/* ------------------------------------------------------------------------ */
/* Schema                                                                   */
/* ------------------------------------------------------------------------ */

/*
 * migrations[i] takes the schema from version i to i + 1 (PRAGMA
 * user_version). Append, never edit: a database of any earlier version is
 * brought up to date at open.
 */
#define TAIL_PARTS 4
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
};
#define SCHEMA_VERSION ((int)(sizeof migrations / sizeof migrations[0]))

enum {
    S_SESSION_NEW,
    S_SESSION_RENAME,
    S_SESSION_END,
    S_ROOM_NEW,
    S_ROOM_STATUS,
    S_ROOM_END,
    S_SEAT,
    S_JOURNAL,
    S_BEGIN, /* a turn's transaction: prepared once, not parsed a thousand times a second */
    S_COMMIT,
    S_COUNT,
};

static const char *const statements[S_COUNT] = {
    [S_SESSION_NEW] = "INSERT OR REPLACE INTO sessions (id, name, token_hash, created) "
                      "VALUES (?1, ?2, ?3, ?4)",
    [S_SESSION_RENAME] = "UPDATE sessions SET name = ?2 WHERE id = ?1",
    [S_SESSION_END] = "DELETE FROM sessions WHERE id = ?1",
    [S_ROOM_NEW] = "INSERT OR REPLACE INTO rooms (rid, code, game, players, options, seed, "
                   "private, title, status, created) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'waiting', ?9)",
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
#define TAIL_MIN_ENTRIES 16
#define TAIL_ROUND_MS 1000

struct store {
    server_t *srv;
    sqlite3 *db;
    sqlite3_stmt *stmt[S_COUNT];
    bool in_txn;     /* BEGIN ran: store_commit() has work */
    bool failed_txn; /* a write of this transaction failed (logged once) */

    sqlite3_stmt *tail_put[TAIL_PARTS];   /* INSERT INTO journal_tailK */
    sqlite3_stmt *tail_move[TAIL_PARTS];  /* INSERT INTO journal SELECT ... FROM journal_tailK */
    sqlite3_stmt *tail_clear[TAIL_PARTS]; /* DELETE FROM journal_tailK (the truncate) */
    unsigned tail_rows[TAIL_PARTS];       /* put since the part was last moved */
    struct pending {                      /* the turn's journal entries, written at commit */
        uint64_t rid, n;
        int64_t at;
        int seat;
        char kind[8];
        size_t text, len; /* data: its JSON text in texts; len SIZE_MAX: NULL */
    } * pend;
    size_t npend, cappend;
    char *texts;
    size_t ntexts, captexts;
    int tail_next;         /* the part the next move moves */
    uint64_t tail_next_ns; /* when (uv_hrtime) */
    int lock_fd;           /* flock()ed: one server per database */

    uv_thread_t ckpt_thread;
    bool ckpt_running;
    uv_mutex_t ckpt_mu;
    uv_cond_t ckpt_cv;
    bool ckpt_wanted, ckpt_stop; /* under ckpt_mu */
    sqlite3 *ckpt_db;            /* the thread's own connection */
};

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

static void write_pending(store_t *st);

int store_commit(server_t *srv)
{
    store_t *st = srv->store;
    if (!st || !st->in_txn) return 0;
    uint64_t t0 = uv_hrtime();
    write_pending(st);
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
    store_commit(srv);
    move_tail(srv->store);
    store_free(srv->store);
    srv->store = NULL;
}

/* ------------------------------------------------------------------------ */
/* Writes                                                                   */
/* ------------------------------------------------------------------------ */

/* Open the turn's transaction if it is not open yet. False: nothing is written. */
static bool open_txn(store_t *st)
{
    if (!st || st->srv->stopping) return false;
    if (!st->in_txn) {
        int rc = sqlite3_step(st->stmt[S_BEGIN]);
        sqlite3_reset(st->stmt[S_BEGIN]);
        if (rc != SQLITE_DONE) {
            log_error("store %s: BEGIN: %s", st->srv->opts.db_path, sqlite3_errmsg(st->db));
            return false;
        }
        st->in_txn = true;
    }
    return true;
}

/* The statement `which`, reset, inside the turn's transaction; NULL when nothing is written. */
static sqlite3_stmt *begin(store_t *st, int which)
{
    if (!open_txn(st)) return NULL;
    sqlite3_stmt *s = st->stmt[which];
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return s;
}

static void run(store_t *st, sqlite3_stmt *s)
{
    int rc = sqlite3_step(s);
    if (rc != SQLITE_DONE && !st->failed_txn) {
        st->failed_txn = true;
        log_error("store %s: write failed: %s", st->srv->opts.db_path, sqlite3_errmsg(st->db));
    }
    sqlite3_reset(s);
}

static void bind_text(sqlite3_stmt *s, int i, const char *text)
{
    if (text)
        sqlite3_bind_text(s, i, text, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(s, i);
}

/* Bind j's compact JSON text (NULL: SQL NULL): json_text(), the same bytes as
   json_dumps(), in a stack buffer when it fits (an action always does). */
static void bind_json(sqlite3_stmt *s, int i, const json_t *j)
{
    char small[1024];
    size_t n = j ? json_text(j, small, sizeof small) : 0;
    if (!j) {
        sqlite3_bind_null(s, i);
    } else if (n <= sizeof small) {
        sqlite3_bind_text(s, i, small, (int)n, SQLITE_TRANSIENT);
    } else {
        char *text = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
        bind_text(s, i, text);
        tapis_free(text);
    }
}

void store_session_new(const session_t *s)
{
    store_t *st = s->srv->store;
    sqlite3_stmt *q = begin(st, S_SESSION_NEW);
    if (!q) return;
    sqlite3_bind_int64(q, 1, (sqlite3_int64)s->id);
    bind_text(q, 2, s->name);
    bind_text(q, 3, s->token_hash);
    sqlite3_bind_int64(q, 4, s->created);
    run(st, q);
}

void store_session_rename(const session_t *s)
{
    store_t *st = s->srv->store;
    sqlite3_stmt *q = begin(st, S_SESSION_RENAME);
    if (!q) return;
    sqlite3_bind_int64(q, 1, (sqlite3_int64)s->id);
    bind_text(q, 2, s->name);
    run(st, q);
}

void store_session_end(const session_t *s)
{
    store_t *st = s->srv->store;
    sqlite3_stmt *q = begin(st, S_SESSION_END);
    if (!q) return;
    sqlite3_bind_int64(q, 1, (sqlite3_int64)s->id);
    run(st, q);
}

void store_room_new(const room_t *r, const json_t *options, uint64_t seed)
{
    store_t *st = r->srv->store;
    sqlite3_stmt *q = begin(st, S_ROOM_NEW);
    if (!q) return;
    sqlite3_bind_int64(q, 1, (sqlite3_int64)r->rid);
    bind_text(q, 2, r->id);
    bind_text(q, 3, r->desc->id);
    sqlite3_bind_int(q, 4, r->nseats);
    bind_json(q, 5, options);
    sqlite3_bind_int64(q, 6, (sqlite3_int64)seed);
    sqlite3_bind_int(q, 7, r->private_room);
    bind_text(q, 8, r->desc->title);
    sqlite3_bind_int64(q, 9, server_wall_ms());
    run(st, q);
}

static void room_status(const room_t *r, const char *status)
{
    store_t *st = r->srv->store;
    sqlite3_stmt *q = begin(st, S_ROOM_STATUS);
    if (!q) return;
    sqlite3_bind_int64(q, 1, (sqlite3_int64)r->rid);
    bind_text(q, 2, status);
    run(st, q);
}

void store_room_started(const room_t *r)
{
    room_status(r, "playing");
}

static void room_end(store_t *st, uint64_t rid, const char *status, const json_t *result,
                     const char *note)
{
    sqlite3_stmt *q = begin(st, S_ROOM_END);
    if (!q) return;
    sqlite3_bind_int64(q, 1, (sqlite3_int64)rid);
    bind_text(q, 2, status);
    sqlite3_bind_int64(q, 3, server_wall_ms());
    bind_json(q, 4, result);
    bind_text(q, 5, note);
    run(st, q);
}

void store_room_over(const room_t *r, const json_t *result)
{
    room_end(r->srv->store, r->rid, "over", result, NULL);
}

void store_room_closed(const room_t *r)
{
    room_end(r->srv->store, r->rid, "closed", NULL, NULL);
}

void store_journal(room_t *r, uint64_t n, const char *kind, int seat, int64_t at,
                   const json_t *data)
{
    store_t *st = r->srv->store;
    if (!open_txn(st)) return;
    if (st->npend == st->cappend) {
        size_t cap = st->cappend ? 2 * st->cappend : 64;
        struct pending *v = tapis_realloc(st->pend, cap * sizeof *v);
        if (!v) goto oom;
        st->pend = v;
        st->cappend = cap;
    }
    struct pending *e = &st->pend[st->npend];
    *e = (struct pending){.rid = r->rid, .n = n, .at = at, .seat = seat, .len = SIZE_MAX};
    snprintf(e->kind, sizeof e->kind, "%s", kind);
    if (data) {
        /* Most actions fit in what is left; a longer one is written again. */
        size_t room = st->captexts - st->ntexts;
        size_t len = json_text(data, room ? st->texts + st->ntexts : NULL, room);
        if (len > room) {
            size_t cap = st->captexts ? st->captexts : 4096;
            while (cap - st->ntexts < len)
                cap *= 2;
            char *t = tapis_realloc(st->texts, cap);
            if (!t) goto oom;
            st->texts = t;
            st->captexts = cap;
            json_text(data, st->texts + st->ntexts, cap - st->ntexts);
        }
        e->text = st->ntexts;
        e->len = len;
        st->ntexts += len;
    }
    st->npend++;
    return;
oom:
    if (!st->failed_txn) {
        st->failed_txn = true;
        log_error("store %s: out of memory for the journal", st->srv->opts.db_path);
    }
}

/* Write the turn's journal entries: into journal, or with many, into the tail. */
static void write_pending(store_t *st)
{
    bool tail = st->npend >= TAIL_MIN_ENTRIES;
    for (size_t i = 0; i < st->npend; i++) {
        const struct pending *e = &st->pend[i];
        int k = (int)(e->rid % TAIL_PARTS);
        sqlite3_stmt *q = tail ? st->tail_put[k] : st->stmt[S_JOURNAL];
        sqlite3_clear_bindings(q);
        sqlite3_bind_int64(q, 1, (sqlite3_int64)e->rid);
        sqlite3_bind_int64(q, 2, (sqlite3_int64)e->n);
        sqlite3_bind_text(q, 3, e->kind, -1, SQLITE_STATIC);
        sqlite3_bind_int(q, 4, e->seat);
        sqlite3_bind_int64(q, 5, e->at);
        if (e->len != SIZE_MAX)
            sqlite3_bind_text(q, 6, st->texts + e->text, (int)e->len, SQLITE_STATIC);
        run(st, q);
        if (tail) st->tail_rows[k]++;
    }
    st->npend = st->ntexts = 0;
}

void store_seat(room_t *r, int seat)
{
    store_t *st = r->srv->store;
    sqlite3_stmt *q = begin(st, S_SEAT);
    if (!q) return;
    const seat_t *t = &r->seats[seat];
    sqlite3_bind_int64(q, 1, (sqlite3_int64)r->rid);
    sqlite3_bind_int(q, 2, seat);
    if (t->bot) {
        bind_text(q, 3, "bot");
        sqlite3_bind_int(q, 5, 1);
        bind_text(q, 6, t->bot_strategy);
        bind_text(q, 7, t->bot_name);
        sqlite3_bind_int64(q, 8, t->bot_delay_min);
        sqlite3_bind_int64(q, 9, t->bot_delay_max);
    } else if (t->session) {
        bind_text(q, 3, t->session->name);
        sqlite3_bind_int64(q, 4, (sqlite3_int64)t->session->id);
        sqlite3_bind_int(q, 5, 0);
    } else {
        sqlite3_bind_int(q, 5, 0);
    }
    run(st, q);
}

/* ------------------------------------------------------------------------ */
/* The durability backend                                                   */
/* ------------------------------------------------------------------------ */

static int d_commit(void *srv)
{
    return store_commit(srv);
}

static void d_session_new(void *srv, const session_t *s)
{
    (void)srv;
    store_session_new(s);
}

static void d_session_rename(void *srv, const session_t *s)
{
    (void)srv;
    store_session_rename(s);
}

static void d_session_end(void *srv, const session_t *s)
{
    (void)srv;
    store_session_end(s);
}

static void d_room_new(void *srv, room_t *r, const json_t *options, uint64_t seed)
{
    (void)srv;
    store_room_new(r, options, seed);
}

static void d_room_started(void *srv, const room_t *r)
{
    (void)srv;
    store_room_started(r);
}

static void d_room_over(void *srv, const room_t *r, const json_t *result)
{
    (void)srv;
    store_room_over(r, result);
}

/* A room that ended keeps its "over" row (its result, for the history). */
static void d_room_closed(void *srv, room_t *r, bool over)
{
    (void)srv;
    if (!over) store_room_closed(r);
}

static void d_seat(void *srv, room_t *r, int i)
{
    (void)srv;
    store_seat(r, i);
}

static void d_journal(void *srv, room_t *r, uint64_t n, const char *kind, int seat, int64_t at,
                      const json_t *data)
{
    (void)srv;
    store_journal(r, n, kind, seat, at, data);
}

static json_t *d_history(void *srv, uint64_t viewer, bool all, int limit, long long offset,
                         long long *total)
{
    return store_history(srv, viewer, all, limit, offset, total);
}

static int d_game_record(void *srv, const char *id, uint64_t viewer, json_t **out)
{
    return store_game_record(srv, id, viewer, out);
}

const durable_backend_t store_durable = {
    .name = "store",
    .commit = d_commit,
    .session_new = d_session_new,
    .session_rename = d_session_rename,
    .session_end = d_session_end,
    .room_new = d_room_new,
    .room_started = d_room_started,
    .room_over = d_room_over,
    .room_closed = d_room_closed,
    .seat = d_seat,
    .journal = d_journal,
    .history = d_history,
    .game_record = d_game_record,
};

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

static const char *col_text(sqlite3_stmt *s, int i)
{
    const unsigned char *t = sqlite3_column_text(s, i);
    return t ? (const char *)t : "";
}

/* One row of rooms to restore, read before any of them is touched. */
typedef struct room_row {
    uint64_t rid;
    char code[ROOM_ID_LEN + 1];
    char game[32];
    int players;
    char *options;
    uint64_t seed;
    bool private_room, playing;
    uint64_t seq;
} room_row_t;

/* The query of a room's journal (?1: rid), in order of n: journal_all, or in a
   database of schema 3 or older (read by --export-game, which opens it read-only
   and does not migrate it) journal. */
static int prepare_journal(sqlite3 *db, sqlite3_stmt **s)
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
static game_t *replay(sqlite3 *db, const room_row_t *row, const game_desc_t *d, room_record_t *rec,
                      json_t *collect, char *why, size_t whylen)
{
    journal_replay_t jr;
    if (journal_replay_start(&jr, d, row->players, row->options, row->seed, why, whylen) < 0)
        return NULL;
    sqlite3_stmt *s;
    if (prepare_journal(db, &s) != SQLITE_OK) {
        snprintf(why, whylen, "cannot read its journal: %s", sqlite3_errmsg(db));
        journal_replay_abandon(&jr);
        return NULL;
    }
    sqlite3_bind_int64(s, 1, (sqlite3_int64)row->rid);
    int rc, ok = 0;
    while (ok == 0 && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        uint64_t n = (uint64_t)sqlite3_column_int64(s, 0);
        const char *kind = col_text(s, 1), *data = (const char *)sqlite3_column_text(s, 4);
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
            snprintf(rec->seats[i].strategy, sizeof rec->seats[i].strategy, "%s", col_text(s, 3));
        } else if (sqlite3_column_type(s, 1) != SQLITE_NULL) {
            rec->seats[i].session =
                find_session(sessions, nsessions, (uint64_t)sqlite3_column_int64(s, 1));
            if (!rec->seats[i].session)
                log_warn("room %s: seat %d: session %lld (%s) is gone", rec->id, i,
                         (long long)sqlite3_column_int64(s, 1), col_text(s, 4));
        }
    }
    sqlite3_finalize(s);
    return 0;
}

static void quarantine(store_t *st, const room_row_t *row, const char *why)
{
    log_error("room %s (%s): its journal does not replay: %s; quarantined, not loaded", row->code,
              row->game, why);
    room_end(st, row->rid, "quarantined", NULL, why);
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
            session_restore(st->srv, (uint64_t)sqlite3_column_int64(s, 0), col_text(s, 1),
                            col_text(s, 2), sqlite3_column_int64(s, 3));
        if (!ses) {
            log_warn("session %lld (%s): cannot be restored", (long long)sqlite3_column_int64(s, 0),
                     col_text(s, 1));
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
        snprintf(r->code, sizeof r->code, "%s", col_text(s, 1));
        snprintf(r->game, sizeof r->game, "%s", col_text(s, 2));
        r->players = sqlite3_column_int(s, 3);
        r->options = tapis_strdup(col_text(s, 4));
        r->seed = (uint64_t)sqlite3_column_int64(s, 5);
        r->private_room = sqlite3_column_int(s, 6) != 0;
        r->playing = strcmp(col_text(s, 7), "playing") == 0;
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
            g = replay(st->db, row, d, &rec, rec.journal, why, sizeof why);
        }
        if (!g) {
            quarantine(st, row, why);
            (*quarantined)++;
        } else if (game_is_over(g)) { /* over, and killed before it was marked so */
            json_t *result = d->result(g);
            room_end(st, row->rid, "over", result, NULL);
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
            json_array_set_new(names, (size_t)i, json_string(col_text(s, 1)));
    }
    sqlite3_finalize(s);
    return names;
}

/* Column i as JSON (its text parsed), or null when NULL or not JSON. */
static json_t *col_json(sqlite3_stmt *s, int i)
{
    if (sqlite3_column_type(s, i) == SQLITE_NULL) return json_null();
    json_t *j = json_loads(col_text(s, i), JSON_DECODE_ANY, NULL);
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
        json_array_append_new(games, json_pack("{s:s, s:s, s:o, s:o, s:I}", "id", col_text(s, 1),
                                               "game", col_text(s, 2), "players",
                                               seat_names(st->db, rid, sqlite3_column_int(s, 3)),
                                               "result", col_json(s, 4), "ended",
                                               (json_int_t)sqlite3_column_int64(s, 5)));
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
            json_object_set_new(seat, "name", json_string(col_text(s, 1)));
        json_object_set_new(seat, "bot", json_boolean(sqlite3_column_int(s, 2) != 0));
        if (sqlite3_column_type(s, 3) != SQLITE_NULL)
            json_object_set_new(seat, "strategy", json_string(col_text(s, 3)));
    }
    sqlite3_finalize(s);
    return seats;
}

/* The journal of room rid: [{n, kind, seat, at, data}], or NULL. */
static json_t *record_actions(sqlite3 *db, uint64_t rid)
{
    sqlite3_stmt *s;
    if (prepare_journal(db, &s) != SQLITE_OK) return NULL;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)rid);
    json_t *actions = json_array();
    while (sqlite3_step(s) == SQLITE_ROW)
        json_array_append_new(actions, json_pack("{s:I, s:s, s:i, s:I, s:o}", "n",
                                                 (json_int_t)sqlite3_column_int64(s, 0), "kind",
                                                 col_text(s, 1), "seat", sqlite3_column_int(s, 2),
                                                 "at", (json_int_t)sqlite3_column_int64(s, 3),
                                                 "data", col_json(s, 4)));
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
    if (sqlite3_prepare_v2(db,
                           "SELECT rid, code, game, players, options, seed, private, status, "
                           "result, created, ended FROM rooms WHERE code = ?1 "
                           "ORDER BY rid DESC LIMIT 1",
                           -1, &s, NULL) != SQLITE_OK) {
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
                      .players = sqlite3_column_int(s, 3),
                      .seed = (uint64_t)sqlite3_column_int64(s, 5)};
    snprintf(row.code, sizeof row.code, "%s", col_text(s, 1));
    snprintf(row.game, sizeof row.game, "%s", col_text(s, 2));
    bool priv = sqlite3_column_int(s, 6) != 0;
    if (priv && !any_viewer && !sits_in(db, row.rid, viewer)) {
        sqlite3_finalize(s);
        return STORE_REC_NOT_FOUND;
    }
    if (strcmp(col_text(s, 7), "over") != 0) {
        snprintf(why, whylen, "game %s is not finished (%s)", id, col_text(s, 7));
        sqlite3_finalize(s);
        return STORE_REC_NOT_FINISHED;
    }
    int rc = STORE_REC_OK;
    json_t *result = col_json(s, 8);
    if (check) {
        row.options = (char *)col_text(s, 4);
        const game_desc_t *d = game_find(row.game);
        room_record_t rec = {0};
        game_t *g = NULL;
        if (!d)
            snprintf(why, whylen, "this server has no game \"%s\"", row.game);
        else if (row.players < d->min_seats || row.players > d->max_seats ||
                 row.players > GAME_MAX_SEATS)
            snprintf(why, whylen, "%d players is not a table of %s", row.players, d->id);
        else
            g = replay(db, &row, d, &rec, NULL, why, whylen);
        if (!g) {
            rc = STORE_REC_BAD;
        } else {
            json_t *replayed = game_is_over(g) ? d->result(g) : NULL;
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
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)row.seed);
    json_t *options = json_loads(col_text(s, 4), 0, NULL);
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
                     actions, "result", result, "started", (json_int_t)sqlite3_column_int64(s, 9),
                     "ended", (json_int_t)sqlite3_column_int64(s, 10));
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
