/*
 * store_int.h — what the store's files share (store.c: schema, open, commit,
 * close; store_write.c: a turn's writes and the durability backend;
 * store_restore.c: the restore; store_games.c: finished games). Not for use
 * outside server/store/.
 */
#ifndef TAPIS_SERVER_STORE_INT_H
#define TAPIS_SERVER_STORE_INT_H

#include <sqlite3.h>

#include "server/store/store.h"

#define TAIL_PARTS 4

/* The accounts' tables (store_accounts.c; docs/STORE.md): a migration step of store.c. */
#define STORE_ACCOUNTS_SCHEMA                                                                      \
    "CREATE TABLE accounts ("                                                                      \
    "  name_key TEXT PRIMARY KEY," /* the name folded to lower case */                             \
    "  name TEXT NOT NULL,"                                                                        \
    "  pwhash TEXT,"   /* crypto_pwhash_str (Argon2id); NULL for a bot level */                    \
    "  key_hash TEXT," /* hex BLAKE2b-256 of the account key; never the key */                     \
    "  created INTEGER NOT NULL) WITHOUT ROWID;"                                                   \
    "CREATE TABLE ratings ("                                                                       \
    "  name_key TEXT NOT NULL, game TEXT NOT NULL,"                                                \
    "  mu REAL NOT NULL, sigma REAL NOT NULL, games INTEGER NOT NULL, wins INTEGER NOT NULL,"      \
    "  PRIMARY KEY (name_key, game)) WITHOUT ROWID;"                                               \
    "CREATE TABLE rated_results ("                                                                 \
    "  id INTEGER PRIMARY KEY, name_key TEXT NOT NULL, game TEXT NOT NULL, room TEXT NOT NULL,"    \
    "  place INTEGER NOT NULL, sides INTEGER NOT NULL, abandoned INTEGER NOT NULL,"                \
    "  before REAL NOT NULL, after REAL NOT NULL, at INTEGER NOT NULL);"                           \
    "CREATE INDEX rated_results_by_name ON rated_results(name_key, id);"                           \
    "CREATE TABLE rated_rooms (room TEXT PRIMARY KEY, data TEXT NOT NULL) WITHOUT ROWID;"

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

#define TAIL_MIN_ENTRIES 16
#define TAIL_ROUND_MS 1000

struct store {
    server_t *srv;
    sqlite3 *db;
    sqlite3_stmt *stmt[S_COUNT];
    bool in_txn;     /* BEGIN ran: store__commit() has work */
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

/* One row of rooms to restore, read before any of them is touched. */
typedef struct room_row {
    uint64_t rid;
    char code[DURABLE_ROOM_ID_LEN + 1];
    char game[32];
    int players;
    char *options;
    game_deal_t deal;
    bool private_room, playing;
    uint64_t seq;
} room_row_t;

/* Between the files (store__ names are the store's own). */
/* The backend's commit: commit the writes made since the last one (durable_commit() alone
   calls it from outside, through store_durable). Returns 0 or -1 (logged). */
int store__commit(server_t *srv);
/* Open the turn's transaction if it is not open yet. False: nothing is written. */
bool store__open_txn(store_t *st);
void store__write_pending(store_t *st); /* the turn's journal entries (store_write.c) */
/*
 * Bind the arguments after `types` to s's parameters first, first + 1, ..., one per letter
 * (store_write.c): 't' a const char * (NULL: SQL NULL), 'o' an optional one (NULL or "": SQL
 * NULL), 'i' an int (a bool too), 'I' an int64_t, 'f' a double, 'j' a const json_t * as its
 * compact JSON text (NULL: SQL NULL); another letter aborts (a bug). Texts are copied.
 */
void store__bind(sqlite3_stmt *s, int first, const char *types, ...);
void store__room_end(store_t *st, uint64_t rid, const char *status, const json_t *result,
                     const char *note);
const char *store__col_text(sqlite3_stmt *s, int i); /* store_restore.c */
/* The deal of room `code` from columns seed, deal, server_seed at i, i + 1, i + 2
   (store_restore.c). Returns 0, or -1 when they do not make one (why). */
int store__col_deal(sqlite3_stmt *s, int i, const char *code, game_deal_t *out, char *why,
                    size_t whylen);
int store__prepare_journal(sqlite3 *db, sqlite3_stmt **s);
/* Replay row's journal through the core (store_restore.c, which says more). */
game_t *store__replay(sqlite3 *db, const room_row_t *row, const game_desc_t *d, char *why,
                      size_t whylen);
/* The restart: the sink's restore (store_restore.c; durable.h says what it does). */
int store__restore(store_t *st, const durable_restore_hooks_t *h, int *sessions_kept,
                   int *quarantined);

#endif
