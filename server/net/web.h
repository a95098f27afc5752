/*
 * web.h — the HTTP side of the game port: a connection whose first line is
 * an HTTP request gets the page's files or becomes a WebSocket.
 *
 * conn.c hands a new connection's bytes here when its first byte is an
 * upper-case letter (a line of the protocol starts with "{" or a lower-case
 * command). Until the first line is complete the bytes are only kept; if
 * that line is no HTTP request line (protocol/framing.h) they go to the
 * line splitter and the connection is a line connection after all.
 * Otherwise the request head is read, at most WEB_HEAD_MAX bytes (a longer
 * one gets 431, a malformed one 400; the hello timeout bounds a slow one),
 * and answered:
 *  - GET with "Upgrade: websocket", any path (the page uses /ws): the
 *    RFC 6455 handshake, after the Origin check (ws.h);
 *  - any other GET or HEAD: a file of --web-root (or 404); the connection is
 *    kept for another request (HTTP keep-alive, at most WEB_MAX_REQUESTS,
 *    each within --hello-timeout);
 *  - any other method: 405, and every other refusal: closed after it.
 */
#ifndef TAPIS_SERVER_WEB_H
#define TAPIS_SERVER_WEB_H

#include <stddef.h>

#include "server/server.h"

#define WEB_HEAD_MAX 16384 /* bytes of a request head, its blank line included */

typedef struct web_in web_in_t;

/* c's first byte may start an HTTP request: keep its bytes. Returns 0, or -1 out of memory. */
int web_start(conn_t *c);

/*
 * Bytes read while c is CONN_HTTP. They may make c a line connection (its
 * bytes fed to the splitter), a WebSocket (the rest fed to it), or answer
 * the request and close c. Returns 0, or -1 out of memory (the caller
 * closes c).
 */
int web_read(conn_t *c, const char *data, size_t n);

void web_free(web_in_t *w);

/* The Content-Type of a file name by its extension, or NULL for a type not served. */
const char *web_content_type(const char *name);

/* Is the path of a request (from its "/") one the page may serve? */
bool web_path_ok(const char *path, size_t len);

#endif
