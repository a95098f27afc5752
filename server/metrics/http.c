/*
 * http.c — the metrics responder (http.h): accept, read one request head,
 * answer, close.
 *
 * A client's life: READING (bytes go into `in`, at most HTTP_HEAD_MAX + 1
 * of them, until a blank line ends the head), then ANSWERED: the answer is
 * one uv_write() followed by a uv_shutdown(), and whatever the client still
 * sends (a body, more headers past the cap) is read and thrown away until
 * it closes its side or the linger time ends. Closing at once with unread
 * bytes would make the kernel send a reset, which can destroy the answer
 * before the client reads it. One timer per client bounds every state.
 *
 * The head is parsed by protocol/http_head.c (RFC 9112 where it costs
 * nothing); a malformed one is a 400. Headers are otherwise ignored, except
 * that a GET or HEAD that announces a body (Transfer-Encoding, or a
 * Content-Length other than 0) is a 400: there is nothing it could mean
 * here.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "server/metrics/http.h"
#include "server/base/log.h"
#include "protocol/http_head.h"
#include "protocol/queue.h"
#include "include/tapis_alloc.h"

#define LINGER_MS 1000      /* after the answer: wait this long at most for the client's EOF */
#define ACCEPT_RETRY_MS 100 /* out of memory at accept: try the pending connection again */
#define LISTEN_BACKLOG 128

typedef enum client_state {
    CLIENT_READING,  /* the head is not complete */
    CLIENT_ANSWERED, /* the answer is written or queued; input is thrown away */
    CLIENT_CLOSING,  /* uv_close() called; waiting for the close callbacks */
} client_state_t;

typedef struct client {
    uv_tcp_t tcp;     /* data: the client */
    uv_timer_t timer; /* the deadline, then the linger time */
    uv_write_t write;
    uv_shutdown_t shutdown;
    http_server_t *srv;
    client_state_t state;
    int open_handles; /* freed when the last handle's close callback ran */
    bool counted;     /* in srv->clients (a refused client never is) */
    bool eof;         /* the client shut down its side */
    bool shut;        /* the answer is written and our side shut down */
    buf_t in;         /* the head as read; after the answer, scratch for discarded bytes */
    http_scan_t scan; /* the search for the end of the head in `in` */
    buf_t out;        /* status line and headers of the answer */
    buf_t body;       /* its body */
    queue_t node;     /* in srv->clients while counted */
} client_t;

struct http_server {
    uv_loop_t *loop;
    uv_tcp_t listener;
    uv_timer_t retry; /* accept again after running out of memory */
    http_render_fn render;
    void *data;
    uint64_t deadline_ms;
    int port;
    queue_t clients; /* client_t.node, oldest first */
    int nclients;
    bool full_logged; /* the cap was reported since clients were last below it */
    int refs;         /* listener, retry timer and clients whose close callbacks have not run */
    bool stopping;
};

static void client_close(client_t *c);

/* ------------------------------------------------------------------------ */
/* Closing                                                                  */
/* ------------------------------------------------------------------------ */

static void server_unref(http_server_t *h)
{
    if (--h->refs == 0 && h->stopping) tapis_free(h);
}

static void on_server_handle_close(uv_handle_t *handle)
{
    server_unref(handle->data);
}

static void on_client_close(uv_handle_t *handle)
{
    client_t *c = handle->data;
    if (--c->open_handles > 0) return;
    http_server_t *h = c->srv;
    buf_free(&c->in);
    buf_free(&c->out);
    buf_free(&c->body);
    tapis_free(c);
    server_unref(h);
}

/* Close c's handles; pending write and shutdown callbacks run first, with UV_ECANCELED. */
static void client_close(client_t *c)
{
    if (c->state == CLIENT_CLOSING) return;
    c->state = CLIENT_CLOSING;
    if (c->counted) {
        queue_remove(&c->node);
        c->srv->nclients--;
        c->counted = false;
    }
    uv_close((uv_handle_t *)&c->tcp, on_client_close);
    if (c->open_handles == 2) uv_close((uv_handle_t *)&c->timer, on_client_close);
}

static void on_timer(uv_timer_t *t)
{
    client_t *c = t->data;
    if (c->state == CLIENT_READING) log_debug("metrics: client closed: no request in time");
    client_close(c);
}

/* ------------------------------------------------------------------------ */
/* Answering                                                                */
/* ------------------------------------------------------------------------ */

static void on_write(uv_write_t *req, int status)
{
    client_t *c = req->data;
    if (status < 0 && c->state != CLIENT_CLOSING) client_close(c);
}

static void on_shutdown(uv_shutdown_t *req, int status)
{
    client_t *c = req->data;
    if (c->state == CLIENT_CLOSING) return;
    if (status < 0 || c->eof) {
        client_close(c);
        return;
    }
    c->shut = true;
    uint64_t linger = c->srv->deadline_ms < LINGER_MS ? c->srv->deadline_ms : LINGER_MS;
    uv_timer_start(&c->timer, on_timer, linger, 0);
}

/*
 * Answer with `status`, c->body as its body (left out, Content-Length kept,
 * when `head` is set), then close. `extra` is more header lines, each ending
 * in CRLF. Out of memory: c is closed unanswered.
 */
static void answer(client_t *c, int status, const char *content_type, const char *extra, bool head)
{
    http_server_t *h = c->srv;
    log_debug("metrics: %d", status);
    c->state = CLIENT_ANSWERED;
    if ((uint64_t)c->body.len > UINT32_MAX) { /* uv_buf_t holds an unsigned length */
        client_close(c);
        return;
    }
    buf_printf(&c->out,
               "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
               "Cache-Control: no-store\r\nConnection: close\r\n\r\n",
               status, http_reason(status), content_type, c->body.len, extra);
    if (c->out.failed) {
        client_close(c);
        return;
    }
    if (head) buf_reset(&c->body);
    uv_buf_t bufs[2] = {uv_buf_init(c->out.data, (unsigned)c->out.len),
                        uv_buf_init(c->body.data, (unsigned)c->body.len)};
    c->write.data = c;
    c->shutdown.data = c;
    uv_timer_start(&c->timer, on_timer, h->deadline_ms, 0); /* to take the answer */
    uv_stream_t *s = (uv_stream_t *)&c->tcp;
    if (uv_write(&c->write, s, bufs, c->body.len ? 2 : 1, on_write) < 0 ||
        uv_shutdown(&c->shutdown, s, on_shutdown) < 0)
        client_close(c);
}

/* An error answer: its body is one line of text. */
static void answer_error(client_t *c, int status, const char *text, const char *extra, bool head)
{
    buf_reset(&c->body);
    buf_puts(&c->body, text);
    if (c->body.failed) {
        client_close(c);
        return;
    }
    answer(c, status, "text/plain; charset=utf-8", extra, head);
}

static void answer_metrics(client_t *c, bool head)
{
    http_server_t *h = c->srv;
    buf_reset(&c->body);
    int r = h->render(h->data, &c->body);
    if (c->state != CLIENT_READING) return; /* http_stop() from inside render */
    if (r < 0 || c->body.failed) {
        log_error("metrics: out of memory rendering the metrics");
        answer_error(c, 500, "out of memory\n", "", head);
        return;
    }
    answer(c, 200, "text/plain; version=0.0.4; charset=utf-8", "", head);
}

/* ------------------------------------------------------------------------ */
/* Parsing (protocol/http_head.c)                                           */
/* ------------------------------------------------------------------------ */

/* The head is complete (http_head_end() returned `end`): answer it. */
static void handle_request(client_t *c, size_t end)
{
    http_request_t r;
    http_parse_error_t e = http_parse(&c->scan, c->in.data, end, &r);
    bool head = e != HTTP_BAD_REQUEST_LINE && http_method_is(&r, "HEAD");
    bool get = e != HTTP_BAD_REQUEST_LINE && http_method_is(&r, "GET");
    if (e == HTTP_BAD_REQUEST_LINE) {
        answer_error(c, 400, "bad request line\n", "", false);
        return;
    }
    if (e == HTTP_TOO_MANY_HEADERS) {
        answer_error(c, 431, "too many header lines\n", "", head);
        return;
    }
    if (e != HTTP_OK) {
        answer_error(c, 400, "bad header line\n", "", head);
        return;
    }
    const char *path;
    size_t path_len;
    http_target_path(&r, &path, &path_len);
    if (path_len != 8 || memcmp(path, "/metrics", 8) != 0)
        answer_error(c, 404, "not found; the metrics are at /metrics\n", "", head);
    else if (!get && !head)
        answer_error(c, 405, "method not allowed; use GET or HEAD\n", "Allow: GET, HEAD\r\n",
                     false);
    else if (r.has_body)
        answer_error(c, 400, "a GET or HEAD request has no body\n", "", head);
    else
        answer_metrics(c, head);
}

/* ------------------------------------------------------------------------ */
/* Reading                                                                  */
/* ------------------------------------------------------------------------ */

static void on_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *out)
{
    client_t *c = handle->data;
    (void)suggested;
    if (c->state != CLIENT_READING) { /* thrown away: the head's memory is free now */
        *out = uv_buf_init(c->in.data, c->in.cap ? (unsigned)(c->in.cap - 1) : 0);
        return;
    }
    /* Never more than the cap and one byte: that byte tells an oversized head. */
    size_t want = HTTP_HEAD_MAX + 1 - c->in.len;
    if (buf_reserve(&c->in, want) < 0) {
        *out = uv_buf_init(NULL, 0); /* the read callback gets UV_ENOBUFS */
        return;
    }
    *out = uv_buf_init(buf_end(&c->in), (unsigned)want);
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    client_t *c = s->data;
    (void)buf;
    if (nread == 0 || c->state == CLIENT_CLOSING) return;
    if (nread < 0) {
        if (nread == UV_EOF && c->state == CLIENT_ANSWERED && !c->shut) {
            uv_read_stop(s); /* answer first, then close (on_shutdown) */
            c->eof = true;
            return;
        }
        client_close(c); /* gone before its head was complete, or done */
        return;
    }
    if (c->state != CLIENT_READING) return;
    buf_commit(&c->in, (size_t)nread);
    size_t end = http_head_end(&c->scan, c->in.data, c->in.len);
    if (end > HTTP_HEAD_MAX || (end == 0 && c->in.len > HTTP_HEAD_MAX))
        answer_error(c, 431, "request head over 8192 bytes\n", "", false);
    else if (end > 0)
        handle_request(c, end);
}

/* ------------------------------------------------------------------------ */
/* Accepting                                                                */
/* ------------------------------------------------------------------------ */

static void on_retry(uv_timer_t *t);

/*
 * Accept the pending connection: serve it, or close it at once when the
 * server is full or stopping. Out of memory: libuv keeps the connection
 * pending and stops watching the listener, so try again a little later.
 */
static void accept_one(http_server_t *h)
{
    client_t *c = tapis_calloc(1, sizeof *c);
    if (!c || uv_tcp_init(h->loop, &c->tcp) < 0) {
        tapis_free(c);
        log_error("metrics: accept: out of memory; trying again in %d ms", ACCEPT_RETRY_MS);
        uv_timer_start(&h->retry, on_retry, ACCEPT_RETRY_MS, 0);
        return;
    }
    h->refs++;
    c->srv = h;
    c->tcp.data = c;
    c->timer.data = c;
    c->open_handles = 1;
    queue_init(&c->node);
    int r = uv_accept((uv_stream_t *)&h->listener, (uv_stream_t *)&c->tcp);
    if (r < 0) log_warn("metrics: accept: %s", uv_strerror(r));
    if (r < 0 || h->stopping) {
        client_close(c);
        return;
    }
    if (h->nclients >= HTTP_MAX_CLIENTS) {
        if (!h->full_logged)
            log_warn("metrics: %d clients is the cap; closing new ones", HTTP_MAX_CLIENTS);
        h->full_logged = true;
        client_close(c);
        return;
    }
    if (h->nclients < HTTP_MAX_CLIENTS / 2) h->full_logged = false;
    uv_timer_init(h->loop, &c->timer);
    c->open_handles = 2;
    c->counted = true;
    queue_insert_tail(&h->clients, &c->node);
    h->nclients++;
    uv_timer_start(&c->timer, on_timer, h->deadline_ms, 0);
    if (uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read) < 0) client_close(c);
}

static void on_retry(uv_timer_t *t)
{
    http_server_t *h = t->data;
    if (!h->stopping) accept_one(h);
}

static void on_connection(uv_stream_t *listener, int status)
{
    http_server_t *h = listener->data;
    if (status < 0) {
        log_warn("metrics: accept: %s", uv_strerror(status));
        return;
    }
    accept_one(h);
}

/* ------------------------------------------------------------------------ */
/* Start and stop                                                           */
/* ------------------------------------------------------------------------ */

int http_start(http_server_t **out, uv_loop_t *loop, const char *host, int port,
               http_render_fn render, void *data)
{
    if (!out) return UV_EINVAL;
    *out = NULL;
    if (!loop || !host || !render || port < 0 || port > 65535) return UV_EINVAL;
    struct sockaddr_storage ss;
    bool v6 = strchr(host, ':') != NULL;
    int r = v6 ? uv_ip6_addr(host, port, (struct sockaddr_in6 *)&ss)
               : uv_ip4_addr(host, port, (struct sockaddr_in *)&ss);
    if (r < 0) return r;
    http_server_t *h = tapis_calloc(1, sizeof *h);
    if (!h) return UV_ENOMEM;
    h->loop = loop;
    h->render = render;
    h->data = data;
    h->deadline_ms = HTTP_DEADLINE_MS;
    queue_init(&h->clients);
    if ((r = uv_tcp_init(loop, &h->listener)) < 0) {
        tapis_free(h);
        return r;
    }
    uv_timer_init(loop, &h->retry);
    h->listener.data = h;
    h->retry.data = h;
    h->refs = 2;
    if ((r = uv_tcp_bind(&h->listener, (struct sockaddr *)&ss, 0)) < 0 ||
        (r = uv_listen((uv_stream_t *)&h->listener, LISTEN_BACKLOG, on_connection)) < 0) {
        http_stop(h);
        return r;
    }
    int n = sizeof ss;
    char name[64] = "?";
    h->port = port;
    if (uv_tcp_getsockname(&h->listener, (struct sockaddr *)&ss, &n) == 0) {
        if (ss.ss_family == AF_INET6) {
            uv_ip6_name((struct sockaddr_in6 *)&ss, name, sizeof name);
            h->port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
        } else {
            uv_ip4_name((struct sockaddr_in *)&ss, name, sizeof name);
            h->port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
        }
    }
    if (v6)
        log_notice("metrics on [%s]:%d", name, h->port);
    else
        log_notice("metrics on %s:%d", name, h->port);
    *out = h;
    return 0;
}

int http_port(const http_server_t *h)
{
    return h->port;
}

void http_set_deadline(http_server_t *h, uint64_t ms)
{
    h->deadline_ms = ms;
}

void http_stop(http_server_t *h)
{
    if (!h || h->stopping) return;
    h->stopping = true;
    while (!queue_empty(&h->clients))
        client_close(queue_data(queue_head(&h->clients), client_t, node));
    uv_close((uv_handle_t *)&h->listener, on_server_handle_close);
    uv_close((uv_handle_t *)&h->retry, on_server_handle_close);
}
