/*
 * ws.h — a connection of the game port that became a WebSocket (RFC 6455).
 *
 * One text message is one protocol line, both ways: a message received is
 * fed to the connection's line splitter (conn.c's frame) followed by its
 * "\n", so the scheduler, the stamps, the budgets and --max-line treat it
 * exactly as a line; a line sent (a reply, an event) is one text message
 * without its "\n". The framing is wslay's (libwslay): its event API reads
 * and writes through callbacks that take bytes from conn.c's read and
 * append frames to the connection's output buffer, which conn.c flushes as
 * for any connection; libuv keeps the socket. wslay answers what RFC 6455
 * makes the server answer (a ping with a pong of the same payload, a close
 * with a close, a fragmented message reassembled) and fails what it must:
 * an unmasked client frame (1002), invalid UTF-8 in a text message (1007).
 * This file adds a binary message (1003) and the codes of a close the
 * server starts (ws_close()).
 *
 * ws.c knows nothing above the line: no session, room, store or cluster.
 */
#ifndef TAPIS_SERVER_WS_H
#define TAPIS_SERVER_WS_H

#include <stdbool.h>
#include <stddef.h>

#include "server/server.h"

typedef struct ws ws_t;

#define WS_ACCEPT_LEN 28 /* characters of a Sec-WebSocket-Accept value */

/* The Sec-WebSocket-Accept value for the client's Sec-WebSocket-Key `key`:
   base64(SHA-1(key + the RFC's GUID)), NUL-terminated. */
void ws_accept_key(const char *key, size_t len, char out[WS_ACCEPT_LEN + 1]);

/* Make c a WebSocket (its 101 answer written already). Returns 0, or -1 out of memory. */
int ws_start(conn_t *c);

/*
 * Bytes read from c's socket: the frames they complete are handled (text to
 * c's line splitter, control frames answered). When the WebSocket ends
 * (a close from the client, a protocol error, a binary message) c is
 * closed after its close frame is flushed. Returns 0, or -1 when memory ran
 * out (the caller closes c).
 */
int ws_read(conn_t *c, const char *data, size_t n);

/* Send one line (without its "\n") as one text message. Returns 0 or -1. */
int ws_send_text(conn_t *c, const char *text, size_t n);

/* Queue the close frame for a connection closing for `why` (conn.c's reasons:
   "line too long" is 1009, a client's close or "quit" 1000, "shutdown" 1001,
   any other reason 1008). */
void ws_close(conn_t *c, const char *why);

void ws_free(ws_t *w);

#endif
