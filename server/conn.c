/*
 * conn.c — connections: accept, read, frame, write, close.
 *
 * Order of requests (the race rules of DESIGN.md). Each read is stamped with
 * uv_hrtime() when its callback runs (µs since start), not with uv_now(),
 * which is one value per loop iteration. Reads happen in time order, so
 * appending a connection to the ready queue when it receives bytes keeps the
 * queue sorted by stamp; lines are then taken from the head of the queue
 * only, so requests from different connections reach the handlers -- and
 * actions reach the games -- in the order of their stamps, including lines
 * read in the same loop iteration. The game sees the stamp as `now`, not the
 * time its handler ran. A connection keeps the stamp of its oldest waiting
 * line: if a client sends more than one 64 KiB read in one iteration, the
 * later lines share the earlier stamp (they cannot overtake anyone: the
 * connection keeps its place in the queue until its lines are taken).
 * What the stamp cannot see: bytes that sat in the kernel while the loop was
 * busy elsewhere are stamped when read (userspace cannot do better through
 * libuv); the dispute window absorbs such microseconds.
 *
 * Fairness: at most CONN_LINES_PER_ITERATION lines per loop iteration in
 * total, then the loop runs timers and I/O again (an idle handle keeps it
 * from blocking). A connection stops being read while more than
 * READ_PAUSE_BYTES of its input wait, so a flooder holds at most one such
 * chunk ahead of others, and its next chunk is stamped -- and queued --
 * after theirs.
 */
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "dispatch.h"
#include "envelope.h"
#include "log.h"
#include "session.h"

#define READ_BUF_SIZE (64 * 1024)
#define FLUSH_TIMEOUT_MS 5000
#define OUT_INITIAL 1024     /* first size of a connection's output buffer */
#define OUT_KEEP (16 * 1024) /* a larger buffer is freed once written */

static char read_buf[READ_BUF_SIZE];

typedef struct write_req {
    uv_write_t req;
    conn_t *conn;
    char *buf;
    size_t len;
} write_req_t;

static size_t read_pause_bytes(const conn_t *c)
{
    size_t n = 2 * c->srv->opts.max_line;
    return n > READ_BUF_SIZE ? n : READ_BUF_SIZE;
}

/* ------------------------------------------------------------------------ */
/* Ready queue                                                              */
/* ------------------------------------------------------------------------ */

static int conn_flush(conn_t *c);
static void flush_remove(conn_t *c);

/* The prepare handle flushes what timers and read callbacks sent, before poll. */
static void on_prepare(uv_prepare_t *h)
{
    conn_flush_all(h->data);
}

/* The idle handle only keeps uv_run() from blocking in poll while lines wait. */
static void on_idle(uv_idle_t *h)
{
    (void)h;
}

static void ready_push(conn_t *c)
{
    server_t *srv = c->srv;
    if (c->ready) return;
    c->ready = true;
    c->ready_next = NULL;
    c->ready_prev = srv->ready_tail;
    if (srv->ready_tail)
        srv->ready_tail->ready_next = c;
    else
        srv->ready_head = c;
    srv->ready_tail = c;
    uv_idle_start(&srv->idle, on_idle);
}

static void ready_remove(conn_t *c)
{
    server_t *srv = c->srv;
    if (!c->ready) return;
    if (c->ready_prev)
        c->ready_prev->ready_next = c->ready_next;
    else
        srv->ready_head = c->ready_next;
    if (c->ready_next)
        c->ready_next->ready_prev = c->ready_prev;
    else
        srv->ready_tail = c->ready_prev;
    c->ready = false;
    c->ready_prev = c->ready_next = NULL;
}

/* ------------------------------------------------------------------------ */
/* Closing                                                                  */
/* ------------------------------------------------------------------------ */

static void on_close(uv_handle_t *h)
{
    conn_t *c = h->data;
    if (--c->open_handles > 0) return;
    frame_free(&c->frame);
    free(c->out);
    free(c);
}

void conn_close(conn_t *c, const char *why)
{
    server_t *srv = c->srv;
    if (c->state == CONN_CLOSING) return;
    if (c->state == CONN_DOOMED)
        for (conn_t **p = &srv->doomed; *p; p = &(*p)->doom_next)
            if (*p == c) {
                *p = c->doom_next;
                break;
            }
    log_info("conn %llu closed: %s", (unsigned long long)c->id, why);
    ready_remove(c);
    flush_remove(c);
    c->out_len = 0;
    c->state = CONN_CLOSING;
    if (c->session) session_detach(c->session);
    c->session = NULL;
    if (c->prev)
        c->prev->next = c->next;
    else
        srv->conns = c->next;
    if (c->next) c->next->prev = c->prev;
    srv->nconns--;
    uv_close((uv_handle_t *)&c->tcp, on_close);
    uv_close((uv_handle_t *)&c->timer, on_close);
}

/*
 * A failure found while sending -- slow reader, write error -- happens in the
 * middle of someone's handler or broadcast. Closing there would detach the
 * session and maybe end rooms under the caller's feet, so the connection is
 * only marked here (it takes no more output and no more lines) and closed
 * from the check handle, at a point where nothing is in progress.
 */
static void conn_doom(conn_t *c, const char *why)
{
    server_t *srv = c->srv;
    if (c->state == CONN_CLOSING || c->state == CONN_DOOMED) return;
    ready_remove(c);
    flush_remove(c);
    c->out_len = 0;
    if (c->reading) uv_read_stop((uv_stream_t *)&c->tcp);
    c->reading = false;
    c->state = CONN_DOOMED;
    c->doom_why = why;
    c->doom_next = srv->doomed;
    srv->doomed = c;
    uv_idle_start(&srv->idle, on_idle);
}

static void on_flush_timeout(uv_timer_t *t)
{
    conn_close(t->data, "output not flushed in time");
}

static void on_shutdown(uv_shutdown_t *req, int status)
{
    conn_t *c = req->data;
    (void)status;
    if (c->state == CONN_FLUSHING) conn_close(c, "flushed");
}

void conn_close_after_flush(conn_t *c, const char *why)
{
    if (c->state != CONN_OPEN) return;
    log_debug("conn %llu closing after flush: %s", (unsigned long long)c->id, why);
    ready_remove(c);
    if (conn_flush(c) < 0) return; /* doomed: closed at the next check */
    c->state = CONN_FLUSHING;
    if (c->reading) uv_read_stop((uv_stream_t *)&c->tcp);
    c->reading = false;
    c->shutdown.data = c;
    uv_timer_start(&c->timer, on_flush_timeout, FLUSH_TIMEOUT_MS, 0);
    if (uv_shutdown(&c->shutdown, (uv_stream_t *)&c->tcp, on_shutdown) < 0) conn_doom(c, why);
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                  */
/* ------------------------------------------------------------------------ */

/* The flush list is in the order of the first output: who was answered first is written first. */
static void flush_push(conn_t *c)
{
    server_t *srv = c->srv;
    if (c->flush_queued) return;
    c->flush_queued = true;
    c->flush_next = NULL;
    c->flush_prev = srv->flush_tail;
    if (srv->flush_tail)
        srv->flush_tail->flush_next = c;
    else
        srv->flush_head = c;
    srv->flush_tail = c;
    if (!srv->stopping) uv_prepare_start(&srv->prepare, on_prepare);
}

static void flush_remove(conn_t *c)
{
    server_t *srv = c->srv;
    if (!c->flush_queued) return;
    if (c->flush_prev)
        c->flush_prev->flush_next = c->flush_next;
    else
        srv->flush_head = c->flush_next;
    if (c->flush_next)
        c->flush_next->flush_prev = c->flush_prev;
    else
        srv->flush_tail = c->flush_prev;
    c->flush_queued = false;
    c->flush_prev = c->flush_next = NULL;
}

/* The output was written: keep a small buffer for the next messages. */
static void out_reset(conn_t *c)
{
    c->out_len = 0;
    if (c->out_size > OUT_KEEP) {
        free(c->out);
        c->out = NULL;
        c->out_size = 0;
    }
}

static int out_reserve(conn_t *c, size_t n)
{
    if (c->out_size - c->out_len >= n) return 0;
    size_t size = c->out_size ? c->out_size : OUT_INITIAL;
    while (size - c->out_len < n)
        size *= 2;
    char *p = realloc(c->out, size);
    if (!p) return -1;
    c->out = p;
    c->out_size = size;
    return 0;
}

/* json_dump_callback()'s sink: append to the connection's output. */
static int out_put(const char *s, size_t n, void *data)
{
    conn_t *c = data;
    if (out_reserve(c, n) < 0) return -1;
    memcpy(c->out + c->out_len, s, n);
    c->out_len += n;
    return 0;
}

static void on_write(uv_write_t *req, int status)
{
    write_req_t *w = (write_req_t *)req;
    conn_t *c = w->conn;
    c->out_pending -= w->len;
    free(w->buf);
    free(w);
    if (status < 0 && status != UV_ECANCELED && c->state != CONN_CLOSING)
        conn_close(c, uv_strerror(status));
}

/*
 * Hand c's output to the kernel: one uv_try_write() of the whole buffer when
 * nothing is queued before it, and what the kernel did not take goes to a
 * uv_write() that owns the buffer until its callback (c starts a new one).
 * Returns 0, or -1 when c was doomed (write error, slow reader).
 */
static int conn_flush(conn_t *c)
{
    flush_remove(c);
    if (c->out_len == 0) return 0;
    if (c->state != CONN_OPEN) {
        c->out_len = 0;
        return -1;
    }
    size_t off = 0;
    if (c->tcp.write_queue_size == 0) {
        uv_buf_t b = uv_buf_init(c->out, (unsigned)c->out_len);
        int n = uv_try_write((uv_stream_t *)&c->tcp, &b, 1);
        if (n == (int)c->out_len) {
            out_reset(c);
            return 0;
        }
        if (n > 0) {
            off = (size_t)n;
        } else if (n != UV_EAGAIN) {
            conn_doom(c, uv_strerror(n));
            return -1;
        }
    }
    write_req_t *w = malloc(sizeof *w);
    if (!w) {
        conn_doom(c, "out of memory");
        return -1;
    }
    w->conn = c;
    w->buf = c->out;
    w->len = c->out_len - off;
    c->out = NULL;
    c->out_len = c->out_size = 0;
    uv_buf_t b = uv_buf_init(w->buf + off, (unsigned)w->len);
    int r = uv_write(&w->req, (uv_stream_t *)&c->tcp, &b, 1, on_write);
    if (r < 0) {
        free(w->buf);
        free(w);
        conn_doom(c, uv_strerror(r));
        return -1;
    }
    c->out_pending += w->len;
    if (c->out_pending > c->srv->opts.out_cap) {
        log_warn("conn %llu dropped: slow reader (%zu bytes pending, cap %zu)",
                 (unsigned long long)c->id, c->out_pending, c->srv->opts.out_cap);
        conn_doom(c, "slow reader");
        return -1;
    }
    return 0;
}

void conn_flush_all(server_t *srv)
{
    while (srv->flush_head)
        conn_flush(srv->flush_head);
    uv_prepare_stop(&srv->prepare);
}

/*
 * Bytes were appended: flush with the others at the end of the iteration,
 * or at once when the buffer alone passes the cap (the kernel may take it;
 * if not, the slow-reader rule applies).
 */
static int out_queued(conn_t *c)
{
    if (c->out_len + c->out_pending > c->srv->opts.out_cap) return conn_flush(c);
    flush_push(c);
    return 0;
}

int conn_send(conn_t *c, const json_t *msg)
{
    if (!c || c->state != CONN_OPEN) return -1;
    /* The encoding of proto_encode(): compact JSON, then the newline. */
    size_t mark = c->out_len;
    if (!msg || json_dump_callback(msg, out_put, c, JSON_COMPACT) < 0 || out_put("\n", 1, c) < 0) {
        c->out_len = mark;
        log_error("conn %llu: cannot encode a message", (unsigned long long)c->id);
        return -1;
    }
    return out_queued(c);
}

int conn_send_new(conn_t *c, json_t *msg)
{
    int r = msg ? conn_send(c, msg) : -1;
    json_decref(msg);
    return r;
}

int conn_send_encoded(conn_t *c, const char *line, size_t len)
{
    if (!c || c->state != CONN_OPEN) return -1;
    if (out_put(line, len, c) < 0) {
        conn_doom(c, "out of memory");
        return -1;
    }
    return out_queued(c);
}

/* ------------------------------------------------------------------------ */
/* Reading                                                                  */
/* ------------------------------------------------------------------------ */

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)h;
    (void)suggested;
    /* One buffer serves every connection: frame_feed() copies what it keeps. */
    *buf = uv_buf_init(read_buf, sizeof read_buf);
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    conn_t *c = (conn_t *)s;
    (void)buf;
    if (nread == 0 || c->state != CONN_OPEN) return;
    if (nread < 0) {
        if (nread != UV_EOF) {
            conn_close(c, uv_strerror((int)nread));
            return;
        }
        /* Half-close (nc -N, echo | nc): answer what came, then close. */
        uv_read_stop(s);
        c->reading = false;
        c->eof = true;
        if (!c->ready) conn_close_after_flush(c, "end of input");
        return;
    }
    if (!c->ready) c->stamp = server_now_us(c->srv);
    if (frame_feed(&c->frame, buf->base, (size_t)nread) < 0) {
        conn_close(c, "out of memory");
        return;
    }
    ready_push(c);
    if (frame_buffered(&c->frame) > read_pause_bytes(c)) {
        uv_read_stop(s);
        c->reading = false;
    }
}

static void resume_reading(conn_t *c)
{
    if (c->state != CONN_OPEN || c->reading || c->eof) return;
    if (uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read) == 0) c->reading = true;
}

void conn_process_ready(server_t *srv)
{
    while (srv->doomed)
        conn_close(srv->doomed, srv->doomed->doom_why);
    int budget = CONN_LINES_PER_ITERATION;
    while (srv->ready_head && budget > 0) {
        conn_t *c = srv->ready_head;
        const char *line;
        size_t len;
        int r = frame_next(&c->frame, &line, &len);
        if (r == FRAME_NEED_MORE) {
            ready_remove(c);
            if (c->eof)
                conn_close_after_flush(c, "end of input");
            else
                resume_reading(c);
            continue;
        }
        budget--;
        if (r == FRAME_TOO_LONG) {
            log_info("conn %llu: line over %zu bytes", (unsigned long long)c->id,
                     srv->opts.max_line);
            char msg[96];
            snprintf(msg, sizeof msg, "a line is limited to %zu bytes; closing",
                     srv->opts.max_line);
            conn_send_new(c, proto_reply_error(NULL, NULL, PROTO_LINE_TOO_LONG, msg));
            conn_close_after_flush(c, "line too long");
            continue;
        }
        if (!c->saw_line && len > 0) {
            c->saw_line = true;
            if (frame_is_http_request(line, len)) {
                conn_close(c, "HTTP request on the line port");
                continue;
            }
        }
        dispatch_line(c, line, len, c->stamp);
    }
    if (srv->ready_head || srv->doomed)
        uv_idle_start(&srv->idle, on_idle);
    else
        uv_idle_stop(&srv->idle);
}

/* ------------------------------------------------------------------------ */
/* Accepting                                                                */
/* ------------------------------------------------------------------------ */

static void on_hello_timeout(uv_timer_t *t)
{
    conn_t *c = t->data;
    if (c->session || c->state != CONN_OPEN) return;
    json_t *ev = proto_event("error");
    json_object_set_new(
        ev, "error",
        json_pack("{s:s, s:s}", "code", "hello_timeout", "message", "no hello in time; closing"));
    conn_send_new(c, ev);
    conn_close_after_flush(c, "hello timeout");
}

static void peer_name(conn_t *c)
{
    struct sockaddr_storage ss;
    int n = sizeof ss;
    char host[48] = "?";
    int port = 0;
    if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &n) == 0) {
        if (ss.ss_family == AF_INET6) {
            struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
            uv_ip6_name(a, host, sizeof host);
            port = ntohs(a->sin6_port);
            snprintf(c->peer, sizeof c->peer, "[%s]:%d", host, port);
            return;
        }
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        uv_ip4_name(a, host, sizeof host);
        port = ntohs(a->sin_port);
    }
    snprintf(c->peer, sizeof c->peer, "%s:%d", host, port);
}

void conn_on_connection(uv_stream_t *listener, int status)
{
    server_t *srv = listener->data;
    if (status < 0) {
        log_warn("accept: %s", uv_strerror(status));
        return;
    }
    conn_t *c = calloc(1, sizeof *c);
    if (!c) {
        log_error("accept: out of memory");
        return;
    }
    c->srv = srv;
    c->id = ++srv->next_conn_id;
    c->tcp.data = c;
    c->timer.data = c;
    uv_tcp_init(srv->loop, &c->tcp);
    uv_timer_init(srv->loop, &c->timer);
    frame_init(&c->frame, srv->opts.max_line);
    c->next = srv->conns;
    if (srv->conns) srv->conns->prev = c;
    srv->conns = c;
    srv->nconns++;
    c->open_handles = 2;
    if (uv_accept(listener, (uv_stream_t *)&c->tcp) < 0) {
        conn_close(c, "accept failed");
        return;
    }
    peer_name(c);
    uv_tcp_nodelay(&c->tcp, 1);
    if (srv->stopping) {
        conn_close(c, "server stopping");
        return;
    }
    if (srv->nconns > srv->opts.max_conns) {
        log_warn("conn %llu from %s refused: %d connections is the cap", (unsigned long long)c->id,
                 c->peer, srv->opts.max_conns);
        json_t *ev = proto_event("error");
        json_object_set_new(ev, "error",
                            json_pack("{s:s, s:s}", "code", "server_full", "message",
                                      "too many connections; try again later"));
        conn_send_new(c, ev);
        conn_close_after_flush(c, "connection cap");
        return;
    }
    log_info("conn %llu from %s", (unsigned long long)c->id, c->peer);
    if (srv->opts.hello_timeout > 0)
        uv_timer_start(&c->timer, on_hello_timeout, srv->opts.hello_timeout, 0);
    resume_reading(c);
}

/* Called once a hello succeeded: no more hello timeout. */
void conn_hello_done(conn_t *c)
{
    if (c->state == CONN_OPEN) uv_timer_stop(&c->timer);
}
