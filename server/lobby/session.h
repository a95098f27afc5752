/*
 * session.h — a player's identity across connections.
 *
 * `hello` creates a session with a reconnect token (128 random bits from the
 * OS, hex). When its connection drops, a session that sits at an unfinished
 * table is held for --reconnect-window: its seats stay, the table is told,
 * and `hello` with the token on a new connection takes them back. When the
 * window passes, built-in bots take the seats and the session ends. A
 * session that holds no seat ends with its connection.
 *
 * Names are unique among live sessions (held ones included), compared with
 * ASCII letters folded to lower case. Tokens and names are found through
 * hash tables (tokens by their hash: the store keeps only that). Logs name a
 * session by its number, never by its token.
 */
#ifndef TAPIS_SERVER_SESSION_H
#define TAPIS_SERVER_SESSION_H

#include "server/server.h"

/* A new session named `name`, attached to c. NULL on failure (logged). */
session_t *session_create(server_t *srv, conn_t *c, const char *name);
/*
 * A session as the store kept it (store_restore): no connection, its seats
 * held for --reconnect-window from now. NULL when out of memory or when the
 * name is taken.
 */
session_t *session_restore(server_t *srv, uint64_t id, const char *name, const char *token_hash,
                           int64_t created);
/* The hex BLAKE2b-256 of a token: the key sessions are found by, and what the store keeps. */
void session_token_hash(const char *token, char out[TOKEN_HASH_LEN + 1]);
/* The session holding `token`, or NULL. */
session_t *session_find(server_t *srv, const char *token);
/* The session named `name` (case-folded), or NULL. */
session_t *session_find_name(server_t *srv, const char *name);
/* Rename s. Returns 0, or -1 when out of memory (s keeps its old name). */
int session_rename(session_t *s, const char *name);
/* Bind s (detached) to connection c, stop its hold, tell its tables. */
void session_attach(session_t *s, conn_t *c);
/* Its connection is gone: hold the session or end it. */
void session_detach(session_t *s);
/* End the session: leave every room, free it (after its timer closes). */
void session_destroy(session_t *s);
/* An operator's kick: send {"ev":"kicked","message"} and close s's connection,
   leave its rooms (bots take seats in play) and destroy s: its token is dead. */
void session_kick(session_t *s, const char *message);

/* Membership bookkeeping (rooms call these). */
int session_add_room(session_t *s, room_t *r);
void session_remove_room(session_t *s, room_t *r);
/* The only room s is in, or NULL when it is in none or several. */
room_t *session_single_room(const session_t *s);

#endif
