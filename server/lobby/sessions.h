/*
 * sessions.h — the lobby's side of a session (server/session/session.h):
 * what its connection's coming and going does to its rooms.
 *
 * A dropped connection holds the seats of unfinished games for
 * --reconnect-window and leaves the rooms it only watched; `hello` with the
 * token takes them back (the tables are told both times). When the window
 * passes, or an operator kicks it, bots take its seats in play and the
 * session ends.
 */
#ifndef TAPIS_SERVER_LOBBY_SESSIONS_H
#define TAPIS_SERVER_LOBBY_SESSIONS_H

#include "server/session/session.h"

/* Bind s (detached) to connection c, stop its hold, tell its tables. */
void lobby_session_attach(session_t *s, conn_t *c);
/* Its connection is gone: hold the session or end it. */
void lobby_session_detach(session_t *s);
/* Hold a restored session (no connection) for --reconnect-window. */
void lobby_session_hold(session_t *s);
/* Rename s, the name claimed in the cluster too. Returns 0, or -1 (s keeps its name). */
int lobby_session_rename(session_t *s, const char *name);
/* End the session: leave every room (bots take seats in play), then close it. */
void lobby_session_destroy(session_t *s);
/* An operator's kick: send {"ev":"kicked","message"} and close s's connection,
   leave its rooms (bots take seats in play) and destroy s: its token is dead. */
void lobby_session_kick(session_t *s, const char *message);

#endif
