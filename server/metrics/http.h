/*
 * http.h — a tiny HTTP/1.x responder for Prometheus metrics (GET /metrics).
 *
 * It runs on an existing loop and answers one request per connection, then
 * closes it: GET or HEAD /metrics (a query string is ignored) gets 200 and
 * the body the render callback writes; any other path 404; another method
 * on /metrics 405; a malformed request 400; a head over HTTP_HEAD_MAX bytes
 * 431. Input is hostile by assumption: the head is capped, the number of
 * clients is capped (more are closed as soon as accepted), and each client
 * has a deadline for its whole request, after which it is closed unanswered.
 *
 * The caller ignores SIGPIPE (tapisd does, main.c): a client that goes away
 * mid-answer must not kill the process.
 */
#ifndef TAPIS_SERVER_HTTP_H
#define TAPIS_SERVER_HTTP_H

#include <stdint.h>
#include <uv.h>

#include "protocol/buf.h"

#define HTTP_HEAD_MAX 8192    /* bytes of request line and headers, blank line included */
#define HTTP_MAX_CLIENTS 64   /* connections served at once */
#define HTTP_DEADLINE_MS 5000 /* to send the whole head; then again to take the answer */

typedef struct http_server http_server_t;

/*
 * Fill `body` (initialised and empty) with the metrics text, for a GET or a
 * HEAD of /metrics. Returns 0, or -1 when memory ran out (the client gets
 * 500; a body whose `failed` mark is set counts as -1 too).
 */
typedef int (*http_render_fn)(void *data, buf_t *body);

/*
 * Listen on host:port (a numeric IPv4 or IPv6 address; port 0 takes any
 * free port) and log "metrics on HOST:PORT" with the real port. Returns 0
 * and the server in *out, or a negative uv error (then *out is NULL; a
 * listener that was already opened is closed, so the loop must run once
 * more before uv_loop_close()).
 */
int http_start(http_server_t **out, uv_loop_t *loop, const char *host, int port,
               http_render_fn render, void *data);

/* The port the server listens on (the real one when port 0 was asked). */
int http_port(const http_server_t *h);

/* The per-client deadline in ms (default HTTP_DEADLINE_MS), for clients accepted from now on. */
void http_set_deadline(http_server_t *h, uint64_t ms);

/*
 * Close the listener and every client, answered or not. Call it once; h is
 * freed in the last close callback, so the loop ends once they have run.
 */
void http_stop(http_server_t *h);

#endif
