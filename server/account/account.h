/*
 * account.h — players who last: registered names, their credentials, their
 * ratings per game and their recent results; and the built-in bots' levels,
 * rated like players ("bot:normal").
 *
 * A guest's name lives as long as its session; an account's is kept: no
 * guest may take it (name_taken). An account logs in with its password
 * (kept only as libsodium's crypto_pwhash_str, Argon2id) or with the key
 * `register` returned once (kept only as its BLAKE2b-256 hash, like a
 * reconnect token). Neither is ever logged.
 *
 * The accounts live in memory (one hash table by the folded name) and are
 * written through to a backend (the store: store_accounts.c) in the turn's
 * transaction, so a rating change is durable before its game_over is sent.
 * At start the backend hands every account back (accounts_load()).
 *
 * Ratings are core/rating.h's (Weng–Lin, Plackett–Luce). A rated room
 * (rated_room_t) notes who sat where when its game started and who
 * abandoned; at its end rated_room_over() ranks the seats (the game's
 * winners first, the rest tied, abandoned seats last), updates every
 * account and bot level at the table and returns what changed for the
 * game_over event.
 */
#ifndef TAPIS_SERVER_ACCOUNT_H
#define TAPIS_SERVER_ACCOUNT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/rating.h"
#include "server/server.h"

#define ACCOUNT_RECENT 10         /* recent results kept per account */
#define ACCOUNT_KEY_LEN 32        /* hex characters of an account key (128 bits) */
#define ACCOUNT_HASH_LEN 64       /* hex characters of its BLAKE2b-256 */
#define ACCOUNT_PWHASH_SIZE 128   /* crypto_pwhash_STRBYTES */
#define ACCOUNT_PASSWORD_MIN 8    /* bytes */
#define ACCOUNT_PASSWORD_MAX 128  /* bytes */
#define ACCOUNT_PROVISIONAL 6.0   /* σ above this: provisional (about 10 two-player games) */
#define ACCOUNT_BOT_PREFIX "bot:" /* a bot level's account: "bot:normal" */

typedef struct account_rating {
    char game[32];
    double mu, sigma;
    int games, wins;
    long long ver; /* the cluster's version of it (account_shared_t.rate), 0 alone */
} account_rating_t;

typedef struct account_result {
    char game[32];
    char room[20];
    int place;            /* 1 = first; equal places tie */
    int sides;            /* sides at the table */
    bool abandoned;       /* the seat left the game: counted last */
    double before, after; /* displayed ratings (μ − 3σ) */
    int64_t at;           /* wall time, ms since the epoch */
} account_result_t;

typedef struct account {
    char name[64];
    char name_key[64];                /* session_name_key() of the name */
    char pwhash[ACCOUNT_PWHASH_SIZE]; /* "" for a bot level, or while a register hashes */
    char key_hash[ACCOUNT_HASH_LEN + 1];
    bool bot;     /* a built-in bot level: no credentials, never logs in */
    bool pending; /* register under way: the name is reserved, no login yet */
    int64_t created;
    account_rating_t *ratings;
    int nratings;
    account_result_t recent[ACCOUNT_RECENT]; /* a ring, newest at recent_head - 1 */
    int nrecent, recent_head;
    budget_t login_budget;
    UT_hash_handle hh;
} account_t;

/* Where accounts are kept beyond the process: every entry may be NULL. */
typedef struct account_backend {
    /* Hand every account to accounts_loaded(), its ratings to account_rating_set(),
       its results (oldest first) to account_recent_add(). Returns 0 or -1 (logged). */
    int (*load)(void *ctx, server_t *srv);
    /* A new account, or its credentials changed. */
    void (*put)(void *ctx, const account_t *a);
    /* A rating after a game, and the result that made it. */
    void (*rating)(void *ctx, const account_t *a, const account_rating_t *r);
    void (*result)(void *ctx, const account_t *a, const account_result_t *res);
    /* A rated room under way (rated_room_json()), so that a restart keeps it rated;
       data NULL: it ended. */
    void (*rated_room)(void *ctx, const char *room_id, const json_t *data);
    /* At a restart: each rated room kept, to each(). Returns 0 or -1 (logged). */
    int (*rated_rooms)(void *ctx, server_t *srv,
                       void (*each)(server_t *srv, const char *room_id, const json_t *data));
} account_backend_t;

/* The answers of account_shared_t's reads that do not wait: fetch_async()'s `found` as
   fetch() returns it; board()'s page (NULL: unreachable), the callee's. */
typedef void (*account_fetched_fn)(server_t *srv, int found, void *arg);
typedef void (*account_board_fn)(server_t *srv, json_t *page, void *arg);
/* rate_async()'s answer: rate()'s return value. */
typedef void (*account_rated_fn)(server_t *srv, int rc, void *arg);

/*
 * In a cluster, the one truth about accounts, shared by the nodes (Redis:
 * cluster_accounts.c). Every entry may be NULL.
 */
typedef struct account_shared {
    /* Bring the account named `name` into memory from the cluster (added, or its
       credentials and ratings refreshed). 1 found, 0 none, -1 unreachable. */
    int (*fetch)(void *ctx, server_t *srv, const char *name);
    /* The same without waiting: done(srv, found, arg) later, on the loop. Returns 0, or -1
       (Redis cannot be reached now; done never runs). */
    int (*fetch_async)(void *ctx, server_t *srv, const char *name, account_fetched_fn done,
                       void *arg);
    /* Reserve a's name for a register under way by session sid (0: none): 1 done, 0 an
       account's, -2 a session's other than sid (a guest's, on any node), -1 unreachable;
       release() gives it back when the register fails. */
    int (*claim)(void *ctx, const account_t *a, uint64_t sid);
    void (*release)(void *ctx, const account_t *a);
    /* a's credentials are set (the end of a register). */
    void (*put)(void *ctx, const account_t *a);
    /*
     * One game's new ratings, all or none: the n accounts' ratings in `game` become now[i]
     * and res[i] joins each one's results, only if each rating is still at version ver[i]
     * (then each version is ver[i] + 1). 1 written, 0 another node changed one meanwhile
     * (fetch again and recompute), -1 unreachable.
     */
    int (*rate)(void *ctx, const char *game, account_t *const *who, const account_rating_t *now,
                const account_result_t *res, int n);
    /* The same without waiting: done(srv, rc, arg) later, on the loop. Returns 0, or -1 (done
       never runs). */
    int (*rate_async)(void *ctx, const char *game, account_t *const *who,
                      const account_rating_t *now, const account_result_t *res, int n,
                      account_rated_fn done, void *arg);
    /* One page of the leaderboard of `game`, as the `leaderboard` reply has it (without
       "game"), to done() later, on the loop. Returns 0, or -1 (done never runs). */
    int (*board)(void *ctx, const char *game, int limit, long long offset, account_board_fn done,
                 void *arg);
    /* A rated room under way, as the backend's rated_room() (data NULL: it ended), so that
       the node taking it over after its host's death keeps it rated; and that data back. */
    void (*rated_room)(void *ctx, const char *room_id, const json_t *data);
    json_t *(*rated_room_get)(void *ctx, const char *room_id);
} account_shared_t;

/* An entry of an account_backend_t or account_shared_t table bound to the backend's function of
   the entry's name (store_accounts.c, cluster_accounts.c name theirs so). */
#define ACCOUNT_OP(entry) .entry = entry

typedef struct address_budget address_budget_t;

typedef struct accounts {
    account_t *by_key;
    int n;
    const account_backend_t *backend;
    void *backend_ctx;
    const account_shared_t *shared; /* the cluster's, or NULL alone */
    void *shared_ctx;
    address_budget_t *addresses; /* login attempts per client address */
    int naddresses;
    queue_t jobs; /* password hashes under way on libuv's threads (lobby/accounts.c) */
} accounts_t;

/* srv->accounts, empty. Returns 0 or -1 (out of memory). */
int accounts_init(server_t *srv);
void accounts_free(server_t *srv);
void accounts_set_backend(server_t *srv, const account_backend_t *b, void *ctx);
/* Every account the backend keeps. Returns how many, or -1 (logged). */
int accounts_load(server_t *srv);

/* The account named `name` (folded as session names are), or NULL. In a cluster, one not
   in memory is fetched from the cluster. */
account_t *account_find(server_t *srv, const char *name);
/* The same, its credentials and ratings read again from the cluster first (profile, a
   rated game's end); in memory only when alone or the cluster is unreachable. */
account_t *account_fresh(server_t *srv, const char *name);
/* The key an account is found by: its name with ASCII letters folded to lower case. */
void account_name_key(char out[64], const char *name);
/* Memory only: the account named `name` this node holds, or NULL. */
account_t *account_here(server_t *srv, const char *name);
void accounts_set_shared(server_t *srv, const account_shared_t *sh, void *ctx);
/* A new account (pending: credentials to come), or NULL when out of memory. */
account_t *account_create(server_t *srv, const char *name, int64_t created);
/* Forget a pending account whose register failed. */
void account_drop(server_t *srv, account_t *a);
/* Its credentials are set: no longer pending; written to the backend. */
void account_saved(server_t *srv, account_t *a);
/* The backend's load: an account as kept. NULL when out of memory or a duplicate. */
account_t *accounts_loaded(server_t *srv, const char *name, const char *pwhash,
                           const char *key_hash, int64_t created);

/* The rating of a in game (NULL: none yet). */
account_rating_t *account_rating(const account_t *a, const char *game);
/* Set (or add) a's rating in game. Returns it, or NULL when out of memory. */
account_rating_t *account_rating_set(account_t *a, const char *game, double mu, double sigma,
                                     int games, int wins);
/* Append a result to a's recent ones (the oldest goes). */
void account_recent_add(account_t *a, const account_result_t *res);
/* A bot level's account ("bot:LEVEL") by a bot's strategy ("LEVEL" or "LEVEL:PACE"), made
   on first use; NULL when out of memory. */
account_t *account_bot(server_t *srv, const char *bot_strategy);

/* The hex BLAKE2b-256 of an account key. */
void account_key_hash(const char *key, char out[ACCOUNT_HASH_LEN + 1]);
/* Does `key` open a? (constant time) */
bool account_key_ok(const account_t *a, const char *key);

/* One login attempt for a from address `addr`: false when either budget is spent. */
bool account_attempt(server_t *srv, account_t *a, const char *addr, uint64_t now_us);

/* {"game","rating","mu","sigma","games","wins","provisional"} */
json_t *account_rating_json(const account_rating_t *r);
/* A leaderboard's row: account_rating_json() without "game", with "name" and "bot". */
json_t *account_board_row(const account_t *a, const account_rating_t *r);
/* {"name","bot","ratings":[...],"recent":[...newest first]} */
json_t *account_profile_json(const account_t *a);

/* ------------------------------------------------------------------------ */
/* Rated rooms                                                              */
/* ------------------------------------------------------------------------ */

typedef struct rated_room {
    char game[32];
    bool started;
    int nseats;
    struct {
        account_t *who; /* the account or bot level that sat here at the start, or NULL */
        bool abandoned;
    } seats[GAME_MAX_SEATS];
} rated_room_t;

rated_room_t *rated_room_new(const char *game);
void rated_room_free(rated_room_t *rr);
/* The game starts: seat i is a's (a person's account, or NULL for a guest) or bot level's. */
void rated_room_seat(server_t *srv, rated_room_t *rr, int i, account_t *a,
                     const char *bot_strategy);
/* Every seat is known: the room is kept rated across a restart (the backend). */
void rated_room_begin(server_t *srv, rated_room_t *rr, const char *room_id);
/* The person at seat i left a game under way: that seat loses. */
void rated_room_abandon(server_t *srv, rated_room_t *rr, const char *room_id, int i);
/* {"game","seats":[{"name","abandoned"}...]}, and back (NULL: not a rated room, or no memory). */
json_t *rated_room_json(const rated_room_t *rr);
rated_room_t *rated_room_from_json(server_t *srv, const json_t *data);
/*
 * The game ended with `result`: rank the seats, update every rating, write
 * them through. Returns the changes [{"seat","name","before","after","place"}...]
 * for the game_over event (NULL when nothing was rated or out of memory).
 * Seqnum's teams (result "teams": T, seat s plays for s % T) are one side each.
 * result NULL: the room closes unfinished because everyone left; rated
 * only when someone abandoned (those who stayed tie, ahead of them).
 */
json_t *rated_room_over(server_t *srv, rated_room_t *rr, const char *room_id, const json_t *result);
/*
 * The same in a cluster without waiting for Redis: the accounts are read
 * and the ratings written on the cluster's asynchronous context, and
 * done(srv, room_id, changes, arg) gets the changes later, on the loop
 * (NULL: out of memory, or the server is stopping: its restart rates the
 * game from the journal). rr is copied: the room may go meanwhile. Returns
 * 0, or -1 when it cannot (alone, Redis away, or the game is not rated):
 * then rated_room_over() is the answer.
 */
typedef void (*rated_over_fn)(server_t *srv, const char *room_id, json_t *changes, void *arg);
int rated_room_over_async(server_t *srv, rated_room_t *rr, const char *room_id,
                          const json_t *result, rated_over_fn done, void *arg);
/* A bot level's account by the bot's strategy ("greedy:250": bot:greedy), or NULL. */
account_t *account_bot_find(server_t *srv, const char *bot_strategy);
/* The displayed rating of a seat (a person's account or a bot level) in game; false: none. */
bool account_shown_rating(const account_t *a, const char *game, double *out);

#endif
