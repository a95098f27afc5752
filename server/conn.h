/*
 * conn.h — one client connection: reading lines, writing messages, closing.
 *
 * Reading: a read callback only feeds bytes to the connection's splitter and
 * puts the connection on the server's ready queue; the lines are taken and
 * dispatched from a uv_check handle, at most CONN_LINES_PER_ITERATION per
 * loop iteration over all connections (a uv_idle handle keeps the loop
 * spinning while lines wait). See "Order of requests" in conn.c.
 *
 * Writing: every message is one line, appended to the connection's output
 * buffer; the buffers are flushed once per loop iteration (after the lines
 * of the iteration are dispatched, and from a uv_prepare handle for what
 * timers sent), each with one write. A connection whose pending output
 * passes --out-cap is dropped (a slow reader must not make the server
 * buffer without end).
 */
#ifndef TAPIS_SERVER_CONN_H
#define TAPIS_SERVER_CONN_H

#include "server.h"

#define CONN_LINES_PER_ITERATION 256

/* The listener's connection callback. */
void conn_on_connection(uv_stream_t *listener, int status);

/* Send one message (borrowed). Returns 0, or -1 if the connection cannot take it. */
int conn_send(conn_t *c, const json_t *msg);
/* The same, stealing the reference to msg. */
int conn_send_new(conn_t *c, json_t *msg);
/* Send a message already encoded (one line, newline included: proto_encode()). */
int conn_send_encoded(conn_t *c, const char *line, size_t len);

/* Close now (pending output is discarded). `why` goes to the log. */
void conn_close(conn_t *c, const char *why);
/* Flush, read nothing more, close once everything sent so far is written. */
void conn_close_after_flush(conn_t *c, const char *why);

/* A hello succeeded: stop the hello timeout. */
void conn_hello_done(conn_t *c);

/* The check handle's work: take and dispatch waiting lines. */
void conn_process_ready(server_t *srv);
/* Write the output every connection has waiting (then, also the prepare handle's work). */
void conn_flush_all(server_t *srv);

#endif
