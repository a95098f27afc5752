/*
 * session.h — a player's identity across connections: its token, its
 * name, the rooms it sits or watches in (opaque here: rooms hold sessions,
 * not the other way round), its hold timer.
 *
 * `hello` creates a session with a reconnect token (128 random bits from the
 * OS, hex). When its connection drops, a session that sits at an unfinished
 * table is held for --reconnect-window: its seats stay, the table is told,
 * and `hello` with the token on a new connection takes them back. When the
 * window passes, built-in bots take the seats and the session ends. A
 * session that holds no seat ends with its connection. What that does to
 * its rooms is the lobby's (server/lobby/sessions.h); this part only keeps
 * the session and tells the durability sink.
 *
 * Names are unique among live sessions (held ones included), compared with
 * ASCII letters folded to lower case. Tokens and names are found through
 * hash tables (tokens by their hash: the store keeps only that). Logs name a
 * session by its number, never by its token.
 */
#ifndef TAPIS_SERVER_SESSION_SESSION_H
#define TAPIS_SERVER_SESSION_SESSION_H

#include "server/server.h"

#define TOKEN_LEN 32              /* hex characters of a reconnect token (128 bits) */
#define TOKEN_HASH_LEN 64         /* hex characters of its hash (BLAKE2b-256): what is stored */
#define SESSION_RACE_QUOTA_CAPS 2 /* a session's race quota holds this many --race-cap */
#define SESSION_MAX_ROOMS 64      /* rooms one session may sit or watch in at once */
#define SESSION_ROOMS_HERE 2      /* ...of which the session holds this many in itself */

/* ------------------------------------------------------------------------ */
/* Session                                                                  */
/* ------------------------------------------------------------------------ */

/* What an act reads first, in one cache line (at 2,000 tables sessions are out
   of the cache: each line read is a miss), then what a hello, a name or a
   close reads. */
struct session {
    server_t *srv;
    conn_t *conn;         /* NULL while disconnected (seats held) */
    struct room **rooms;  /* rooms seated in or watched: rooms_here, */
    int nrooms, caprooms; /* or allocated once they are more */
    struct room *rooms_here[SESSION_ROOMS_HERE];
    uint64_t race_quota_us;    /* round trip its races may still be credited (room_play.c) */
    struct {                   /* a line came sooner than its round trip allows (room_race.c): */
        bool open;             /* a ping sent since will say why */
        uint64_t since_us;     /* the line's arrival */
        uint64_t shortfall_us; /* the round trip less the line's response (the most of them) */
        uint64_t response_us;  /* the line's response (the least of them) */
    } race_doubt;
    bool hold_open;            /* hold handle initialised and not yet closed */
    bool gone;                 /* session_close() ran, or is under way */
    bool admin;                /* said `admin TOKEN` (admin.c) */
    struct account *account;   /* logged in to this account (account.h), or NULL: a guest */
    uint64_t id;               /* for logs: the token is a secret and is never logged */
    char token[TOKEN_LEN + 1]; /* empty for a restored session until its hello */
    char token_hash[TOKEN_HASH_LEN + 1];
    int64_t created; /* wall time, ms since the epoch */
    char name[64];
    uv_timer_t hold;                  /* the reconnect window */
    void (*on_expired)(session_t *s); /* when it passes (session_hold()) */
    budget_t chat_budget, create_budget;
    char name_key[64];      /* the name folded to lower case: names are unique by it */
    UT_hash_handle hh;      /* srv->by_token, keyed by token_hash */
    UT_hash_handle hh_name; /* srv->by_name */
    queue_t node;           /* in srv->sessions */
};

/* A new session named `name`, attached to c. NULL on failure (logged). */
session_t *session_create(server_t *srv, conn_t *c, const char *name);
/*
 * A session as a backend kept it (durable_session_rec_t): no connection,
 * not held yet (the lobby holds it). NULL when out of memory, when the hash
 * is not one or when the name is taken.
 */
session_t *session_restore(server_t *srv, uint64_t id, const char *name, const char *token_hash,
                           int64_t created);
/* The hex BLAKE2b-256 of a token: the key sessions are found by, and what the store keeps. */
void session_token_hash(const char *token, char out[TOKEN_HASH_LEN + 1]);
/* The session holding `token`, or NULL. */
session_t *session_find(server_t *srv, const char *token);
/* The session named `name` (case-folded), or NULL. */
session_t *session_find_name(server_t *srv, const char *name);
/* The lookup key of a name: ASCII letters folded to lower case. */
void session_name_key(char out[64], const char *name);
/*
 * Rename s. When the name's key changes, claim(s, key) runs first (the
 * lobby's: the cluster's claim of the name; NULL: none) and may refuse (-1).
 * Returns 0, or -1 when the name is another's, refused or out of memory (s
 * keeps its old name).
 */
typedef int (*session_claim_fn)(session_t *s, const char *key);
int session_rename(session_t *s, const char *name, session_claim_fn claim);
/* Start the hold: on_expired(s) runs after ms unless session_unhold() came first. */
typedef void (*session_expired_fn)(session_t *s);
void session_hold(session_t *s, uint64_t ms, session_expired_fn on_expired);
void session_unhold(session_t *s);
/* The session ends: its connection detached, its end told to the sink, out of
   the indexes; freed once its timer closed. Once, after it left its rooms. */
void session_close(session_t *s);

/* Membership bookkeeping (rooms call these, and tell the sink): 1 when r was
   added, 0 when s was in it already, -1 out of memory; true when r was removed. */
int session_add_room(session_t *s, struct room *r);
bool session_remove_room(session_t *s, struct room *r);
/* What the durability sink is told of s (durable.h), borrowing its names. */
durable_session_t session_durable(const session_t *s);
/* The only room s is in, or NULL when it is in none or several. */
struct room *session_single_room(const session_t *s);

#endif
