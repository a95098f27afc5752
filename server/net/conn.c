/*
 * conn.c — connections: read, frame, stamp, write, close (accepting them,
 * and counting them per address, is accept.c's).
 *
 * Stamps (the race rules of DESIGN.md). Every read is stamped with the
 * server clock (server/base/clock.h: µs since start, or what a test set)
 * when its callback runs, and a line carries
 * the stamp of the read that brought its "\n": a line never inherits an
 * older line's stamp, however many lines wait before it. A connection keeps
 * the stamps of its last CONN_STAMPS reads whose bytes are not all taken;
 * past that, the newest entry absorbs the next reads and takes their (later)
 * stamp, so a client that trickles bytes can only make its own lines later.
 * Bytes that sat in the kernel while the loop was busy elsewhere would be
 * stamped late: so for a player in a room (the hooks' in_room;
 * --kernel-stamps), the time the kernel received them
 * (SO_TIMESTAMPNS) is taken. libuv reads with read(2), which carries no
 * stamp, but it calls the alloc callback just before: there such a
 * connection is read with recvmsg(), which brings the stamp of the newest
 * bytes read with them, and libuv is given an empty buffer (it reads
 * nothing and hands on_read() UV_ENOBUFS, which takes what was read). Stamps
 * of one connection never go back, and a connection that was paused stamps
 * nothing before it is read again. Nor is any read stamped before work the
 * scheduler has already taken (srv->done_us): bytes that reached the kernel
 * while the loop was between its poll and its turn, read only at the next
 * poll, would otherwise carry a stamp older than lines the game has seen.
 * (A turn takes work due at most SCHED_POLL_SLACK_US after its poll
 * returned, so this raises a stamp by that much at most, however long the
 * process was off its core in between: scheduler.c.)
 *
 * Order: a connection with a complete line sits in srv->ready keyed by that
 * line's stamp plus its hold (the hooks' line_delay: a race settled by
 * reaction time holds a near player's lines; server/room/room_play.c), and
 * the scheduler (scheduler.c) takes lines from all connections in that
 * order once their key has come, a bounded number per connection per turn. A
 * connection stops being read while more than read_pause_bytes() of its
 * input wait, and is read again once they are taken: a flooder's later
 * bytes are stamped when they are finally read, after everyone else's.
 *
 * Budgets: each line costs a unit of the connection's line budget
 * (--line-rate) and each error reply a unit of its error budget
 * (--error-rate), unless the error is the server's own failure; see
 * conn_take_line() and conn_note_error().
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server/net/conn.h"
#include "server/net/web.h"
#include "server/net/ws.h"
#include "protocol/envelope.h"
#include "server/base/stamped_read.h"
#include "json/json_text.h"
#include "server/base/log.h"

#define READ_BUF_SIZE (64 * 1024)
#define FLUSH_TIMEOUT_MS 5000
#define HTTP_FLUSH_TIMEOUT_MS 30000 /* a file of the page, to a slow phone */
#define OUT_KEEP (16 * 1024)        /* a larger output buffer is freed once written */
#define OUT_TURN_KEEP (1024 * 1024) /* the same for the turn's shared buffer */
#define SEND_GUESS 1024             /* room for most messages, encoded once */

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

static void flush_push(conn_t *c);
static void flush_remove(conn_t *c);
static void out_drop(conn_t *c);

/* ------------------------------------------------------------------------ */
/* Stamps and the ready heap                                                */
/* ------------------------------------------------------------------------ */

/* Note a read: the bytes up to frame.fed arrived at `us`. */
static void note_read(conn_t *c, uint64_t us)
{
    uint64_t end = c->frame.fed;
    if (us < c->stamp_floor_us) us = c->stamp_floor_us;
    if (us < c->srv->done_us) us = c->srv->done_us; /* the game cannot go back */
    c->stamp_floor_us = us;
    if (c->nreads > 0 && c->reads[c->nreads - 1].end == end) return; /* nothing kept */
    if (c->nreads == CONN_STAMPS) {
        c->reads[CONN_STAMPS - 1].end = end; /* the newest read absorbs this one */
        c->reads[CONN_STAMPS - 1].us = us;
        return;
    }
    c->reads[c->nreads].end = end;
    c->reads[c->nreads].us = us;
    c->nreads++;
}

/* The stamp of the line that ends at stream position `end`. */
static uint64_t stamp_at(const conn_t *c, uint64_t end)
{
    for (int i = 0; i < c->nreads; i++)
        if (c->reads[i].end >= end) return c->reads[i].us;
    return c->nreads ? c->reads[c->nreads - 1].us : server_now_us(c->srv);
}

/* Forget the reads whose bytes are all taken. */
static void drop_reads(conn_t *c)
{
    int k = 0;
    while (k < c->nreads && c->reads[k].end <= c->frame.taken)
        k++;
    if (k == 0) return;
    memmove(c->reads, c->reads + k, (size_t)(c->nreads - k) * sizeof *c->reads);
    c->nreads -= k;
}

static void ready_remove(conn_t *c)
{
    heap_remove(&c->srv->ready, &c->ready);
}

/*
 * Put c in the ready heap under the stamp of its next line, or take it out
 * when no line is complete (and then read again, or finish a half-closed
 * connection).
 */
void conn_update_ready(conn_t *c)
{
    if (c->state != CONN_OPEN) {
        ready_remove(c);
        return;
    }
    if (c->lines_held > 0) { /* a request waits for its reply (relay.c): so do the next lines */
        ready_remove(c);
        return;
    }
    uint64_t end;
    int fr = frame_peek(&c->frame, &end);
    if (fr != FRAME_NEED_MORE) {
        uint64_t stamp = stamp_at(c, end);
        const conn_hooks_t *h = c->srv->conn_hooks;
        const frame_t *f = &c->frame;
        /* The line's bytes, its "\n" left out: [start, the newline) of the buffer. */
        size_t nl = f->len - (size_t)(f->fed - (end - 1));
        const char *line = fr == FRAME_LINE ? f->buf + f->start : NULL;
        size_t len = fr == FRAME_LINE ? nl - f->start : 0;
        uint64_t delay = h && h->line_delay ? h->line_delay(c, line, len, stamp) : 0;
        if (heap_set(&c->srv->ready, &c->ready, stamp + delay) < 0) conn_close(c, "out of memory");
        return;
    }
    ready_remove(c);
    if (c->eof)
        conn_close_after_flush(c, "end of input");
    else
        conn__resume_reading(c);
}

/* ------------------------------------------------------------------------ */
/* Closing                                                                  */
/* ------------------------------------------------------------------------ */

static void on_close(uv_handle_t *h)
{
    conn_t *c = h->data;
    if (--c->open_handles > 0) return;
    frame_free(&c->frame);
    buf_free(&c->out);
    web_free(c->web);
    ws_free(c->ws);
    tapis_free(c);
}

void conn_close(conn_t *c, const char *why)
{
    server_t *srv = c->srv;
    if (c->state == CONN_CLOSING) return;
    queue_remove(&c->doom_node); /* if it was doomed */
    log_info("conn %llu closed: %s", (unsigned long long)c->id, why);
    srv->metrics.closed[metrics_close_cause(c->close_why ? c->close_why : why)]++;
    ready_remove(c);
    conn__uncount(c);
    flush_remove(c);
    out_drop(c);
    c->state = CONN_CLOSING;
    if (c->kind == CONN_WS) srv->metrics.websockets--;
    srv->conn_hooks->on_close(c);
    queue_remove(&c->node);
    queue_remove(&c->ping_node);
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
    out_drop(c);
    if (c->reading) uv_read_stop((uv_stream_t *)&c->tcp);
    c->reading = false;
    c->state = CONN_DOOMED;
    c->doom_why = why;
    if (!c->close_why) c->close_why = why;
    queue_insert_head(&srv->doomed, &c->doom_node);
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

/*
 * Nothing more is read or sent; what was sent so far is written with the
 * others, after the turn's commit (conn_flush_all()), then the connection is
 * shut down and closed once that is done, or after FLUSH_TIMEOUT_MS.
 */
void conn_close_after_flush(conn_t *c, const char *why)
{
    if (c->state != CONN_OPEN) return;
    log_debug("conn %llu closing after flush: %s", (unsigned long long)c->id, why);
    if (!c->close_why) c->close_why = why;
    ready_remove(c);
    if (c->ws) ws_close(c, why); /* the close frame goes after what was sent */
    c->state = CONN_FLUSHING;
    if (c->reading) uv_read_stop((uv_stream_t *)&c->tcp);
    c->reading = false;
    uv_timer_start(&c->timer, on_flush_timeout,
                   c->kind == CONN_HTTP ? HTTP_FLUSH_TIMEOUT_MS : FLUSH_TIMEOUT_MS, 0);
    flush_push(c);
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                  */
/* ------------------------------------------------------------------------ */

/* The flush list is in the order of the first output: who was answered first is written first. */
static void flush_push(conn_t *c)
{
    if (queue_empty(&c->flush_node)) queue_insert_tail(&c->srv->flushing, &c->flush_node);
}

static void flush_remove(conn_t *c)
{
    queue_remove(&c->flush_node);
}

/*
 * Output. A connection with nothing of its own waiting writes into the
 * turn's buffer, srv->out_turn, which every connection shares, and notes
 * where its pieces are (c->pieces): that buffer is reused turn after turn,
 * so it stays in the cache, where 4,000 connections' own buffers would not
 * (writing each state event into a cold buffer was a third of the cache
 * misses of an act at 2,000 tables). The flush hands the pieces to the
 * kernel in one write; what it does not take is copied into c->out, and so
 * is everything once c has more than CONN_OUT_PIECES pieces or a message
 * larger than OUT_KEEP: from then on c's output goes to c->out, in order.
 * The buffer is emptied once everything is flushed.
 */

/* Bytes of the pieces from `skip` on into c->out (empty before): 0, or -1 out of memory. */
static int out_pieces_to_own(conn_t *c, size_t skip)
{
    const buf_t *t = &c->srv->out_turn;
    int r = 0;
    for (int i = 0; i < c->npieces && r == 0; i++) {
        size_t off = c->pieces[i].off, len = c->pieces[i].len;
        if (skip >= len) {
            skip -= len;
            continue;
        }
        r = buf_append(&c->out, t->data + off + skip, len - skip);
        skip = 0;
    }
    c->npieces = 0;
    return r;
}

static void out_drop(conn_t *c)
{
    buf_reset(&c->out);
    c->npieces = 0;
}

size_t conn_out_waiting(const conn_t *c)
{
    size_t n = c->out.len;
    for (int i = 0; i < c->npieces; i++)
        n += c->pieces[i].len;
    return n;
}

/* Room for n more bytes of c's output: the buffer they go to (the turn's or
   c's own), or NULL when memory ran out. out_commit() counts them. */
static buf_t *out_reserve(conn_t *c, size_t n)
{
    buf_t *t = &c->srv->out_turn;
    const int last = c->npieces - 1;
    if (c->out.len == 0 && n <= OUT_KEEP &&
        (last < CONN_OUT_PIECES - 1 || c->pieces[last].off + c->pieces[last].len == t->len)) {
        if (buf_reserve(t, n) == 0) return t;
        t->failed = false; /* c alone goes without: the others' output is not c's */
    }
    if (c->npieces && out_pieces_to_own(c, 0) < 0) return NULL;
    return buf_reserve(&c->out, n) == 0 ? &c->out : NULL;
}

/* n bytes of c's output were written at buf_end(b) (b from out_reserve()): they
   are flushed with the others once the turn is committed, never before
   (write-ahead). Output past --out-cap waits too: the kernel may take it
   then, and if it does not, the slow-reader rule applies. */
static void out_commit(conn_t *c, buf_t *b, size_t n)
{
    if (b != &c->out) {
        int last = c->npieces - 1;
        if (last >= 0 && c->pieces[last].off + c->pieces[last].len == b->len) {
            c->pieces[last].len += n; /* it wrote the bytes before: one piece */
        } else {
            c->pieces[last + 1].off = b->len;
            c->pieces[last + 1].len = n;
            c->npieces++;
        }
    }
    buf_commit(b, n);
    flush_push(c);
}

/* Append n bytes to c's output: 0, or -1 when c was doomed (no memory). */
static int out_append(conn_t *c, const void *data, size_t n)
{
    buf_t *b = out_reserve(c, n);
    if (!b) {
        conn_doom(c, "out of memory");
        return -1;
    }
    memcpy(buf_end(b), data, n);
    out_commit(c, b, n);
    return 0;
}

/* The output was written: keep a small buffer for the next messages. */
static void out_reset(conn_t *c)
{
    if (c->out.cap > OUT_KEEP)
        buf_free(&c->out);
    else
        buf_reset(&c->out);
}

static void on_write(uv_write_t *req, int status)
{
    write_req_t *w = (write_req_t *)req;
    conn_t *c = w->conn;
    c->out_pending -= w->len;
    tapis_free(w->buf);
    tapis_free(w);
    if (status < 0 && status != UV_ECANCELED && c->state != CONN_CLOSING)
        conn_close(c, uv_strerror(status));
}

/*
 * Hand c's output to the kernel: one uv_try_write() of the whole buffer when
 * nothing is queued before it, and what the kernel did not take goes to a
 * uv_write() that owns the buffer until its callback (c starts a new one).
 * Returns 0, or -1 when c was doomed (write error, slow reader).
 */
static int write_out(conn_t *c)
{
    bool tried = false;
    if (c->npieces) { /* in the turn's buffer: written from there when the kernel takes it all */
        const buf_t *t = &c->srv->out_turn;
        uv_buf_t b[CONN_OUT_PIECES];
        size_t all = 0;
        for (int i = 0; i < c->npieces; i++) {
            b[i] = uv_buf_init(t->data + c->pieces[i].off, (unsigned)c->pieces[i].len);
            all += c->pieces[i].len;
        }
        int n = c->tcp.write_queue_size
                    ? UV_EAGAIN
                    : uv_try_write((uv_stream_t *)&c->tcp, b, (unsigned)c->npieces);
        tried = c->tcp.write_queue_size == 0;
        if (n > 0) c->srv->metrics.bytes_sent += (uint64_t)n;
        if (n == (int)all) {
            c->npieces = 0;
            return 0;
        }
        if (n < 0 && n != UV_EAGAIN) {
            c->npieces = 0;
            conn_doom(c, uv_strerror(n));
            return -1;
        }
        if (out_pieces_to_own(c, n > 0 ? (size_t)n : 0) < 0) {
            conn_doom(c, "out of memory");
            return -1;
        }
    }
    if (c->out.len == 0) return 0;
    size_t off = 0;
    if (c->tcp.write_queue_size == 0 && !tried) {
        uv_buf_t b = uv_buf_init(c->out.data, (unsigned)c->out.len);
        int n = uv_try_write((uv_stream_t *)&c->tcp, &b, 1);
        if (n > 0) c->srv->metrics.bytes_sent += (uint64_t)n;
        if (n == (int)c->out.len) {
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
    write_req_t *w = tapis_malloc(sizeof *w);
    if (!w) {
        conn_doom(c, "out of memory");
        return -1;
    }
    w->conn = c;
    w->buf = buf_take(&c->out, &w->len); /* the write owns it; c starts a new one */
    w->len -= off;
    uv_buf_t b = uv_buf_init(w->buf + off, (unsigned)w->len);
    int r = uv_write(&w->req, (uv_stream_t *)&c->tcp, &b, 1, on_write);
    if (r < 0) {
        tapis_free(w->buf);
        tapis_free(w);
        conn_doom(c, uv_strerror(r));
        return -1;
    }
    c->out_pending += w->len;
    c->srv->metrics.bytes_sent += w->len;
    if (c->out_pending > c->srv->opts.out_cap) {
        log_warn("conn %llu dropped: slow reader (%zu bytes pending, cap %zu)",
                 (unsigned long long)c->id, c->out_pending, c->srv->opts.out_cap);
        conn_doom(c, "slow reader");
        return -1;
    }
    return 0;
}

/*
 * Write c's output, and shut a closing connection down once it is queued (a
 * shutdown waits for the writes before it). Only conn_flush_all() calls it:
 * write-ahead, nothing goes out before the commit of the turn that made it.
 */
static int conn_flush(conn_t *c, uint64_t now_us)
{
    if (c->ping_check_us <= now_us) /* (on the flush list still: the ping joins this write) */
        rtt_ping_due(c, now_us);
    flush_remove(c);
    if (c->state != CONN_OPEN && c->state != CONN_FLUSHING) {
        out_drop(c);
        return -1;
    }
    if (write_out(c) < 0) return -1;
    if (c->state == CONN_FLUSHING && !c->shutting) {
        c->shutting = true;
        c->shutdown.data = c;
        if (uv_shutdown(&c->shutdown, (uv_stream_t *)&c->tcp, on_shutdown) < 0) {
            conn_doom(c, c->close_why);
            return -1;
        }
    }
    return 0;
}

void conn_flush_all(server_t *srv)
{
    if (queue_empty(&srv->flushing)) return;
    uint64_t now = server_now_us(srv);
    while (!queue_empty(&srv->flushing))
        conn_flush(queue_data(queue_head(&srv->flushing), conn_t, flush_node), now);
    /* Nobody has a piece of it any more ("Output"). */
    if (srv->out_turn.cap > OUT_TURN_KEEP)
        buf_free(&srv->out_turn);
    else
        buf_reset(&srv->out_turn);
}

void conn_free_all(server_t *srv)
{
    conn__free_peers(srv);
    buf_free(&srv->out_turn);
}

/* A WebSocket's line: one text message. */
static int ws_line(conn_t *c, const char *line, size_t len)
{
    if (ws_send_text(c, line, len) < 0) {
        conn_doom(c, "out of memory");
        return -1;
    }
    return 0;
}

/* A message to a WebSocket: its text (on the stack when it fits), then one text message. */
static int ws_send_json(conn_t *c, const json_t *msg)
{
    char stack[4096];
    size_t n = json_text(msg, stack, sizeof stack);
    if (n <= sizeof stack) return ws_line(c, stack, n);
    char *text = tapis_malloc(n);
    if (!text) {
        conn_doom(c, "out of memory");
        return -1;
    }
    json_text(msg, text, n);
    int r = ws_line(c, text, n);
    tapis_free(text);
    return r;
}

int conn_send(conn_t *c, const json_t *msg)
{
    if (!c || c->state != CONN_OPEN) return -1;
    if (!msg) { /* it could not be built: c cannot be told, so c is dropped */
        conn_doom(c, "out of memory");
        return -1;
    }
    if (c->ws) return ws_send_json(c, msg);
    /* The encoding of proto_encode() (compact JSON, then the newline), written
       straight into the output buffer; a message longer than the room left
       is encoded again once the buffer has grown. */
    buf_t *b = out_reserve(c, SEND_GUESS);
    size_t room = b ? buf_room(b) : 0;
    size_t n = b ? json_text(msg, buf_end(b), room) : 0;
    if (b && n + 1 > room && (b = out_reserve(c, n + 1)) != NULL) json_text(msg, buf_end(b), n);
    if (!b) {
        conn_doom(c, "out of memory");
        return -1;
    }
    buf_end(b)[n] = '\n';
    out_commit(c, b, n + 1);
    return 0;
}

int conn_send_new(conn_t *c, json_t *msg)
{
    int r = conn_send(c, msg); /* NULL too: c is dropped */
    json_decref(msg);
    return r;
}

int conn_send_encoded(conn_t *c, const char *line, size_t len)
{
    if (!c || c->state != CONN_OPEN) return -1;
    if (c->ws) return ws_line(c, line, len && line[len - 1] == '\n' ? len - 1 : len);
    return out_append(c, line, len);
}

int conn_send_line(conn_t *c, const char *line, size_t len)
{
    if (!c || c->state != CONN_OPEN) return -1;
    if (c->ws) return ws_line(c, line, len);
    buf_t *b = len < SIZE_MAX ? out_reserve(c, len + 1) : NULL;
    if (!b) {
        conn_doom(c, "out of memory");
        return -1;
    }
    memcpy(buf_end(b), line, len);
    buf_end(b)[len] = '\n';
    out_commit(c, b, len + 1);
    return 0;
}

int conn__write_raw(conn_t *c, const void *data, size_t n)
{
    if (c->state != CONN_OPEN) return -1;
    return out_append(c, data, n);
}

/* ------------------------------------------------------------------------ */
/* Reading                                                                  */
/* ------------------------------------------------------------------------ */

int conn__feed_lines(conn_t *c, const char *data, size_t n)
{
    return frame_feed(&c->frame, data, n) < 0 ? -1 : 0;
}

/* Hand a read's bytes to what c speaks: the splitter, the HTTP head, the WebSocket. */
static int feed(conn_t *c, const char *data, size_t n)
{
    if (c->kind == CONN_SNIFFING) {
        /* an HTTP request starts with its method, upper case; a line does not */
        if (data[0] >= 'A' && data[0] <= 'Z') {
            if (web_start(c) < 0) return -1;
        } else {
            c->kind = CONN_LINES;
            const char *refused = conn__admit_client(c, NULL);
            if (refused) {
                conn__refuse(c, refused);
                return 0;
            }
        }
    }
    switch (c->kind) {
    case CONN_HTTP: return web_read(c, data, n);
    case CONN_WS: return ws_read(c, data, n);
    default: return conn__feed_lines(c, data, n);
    }
}

/*
 * Read what waits on c into read_buf with the kernel's receive stamp of the
 * newest of it ("Stamps"): one recvmsg(), which brings the stamp with the
 * bytes, where a peek for the stamp before libuv's read(2) made two system
 * calls a read. Its result goes to c->read_here for on_read() (the bytes,
 * UV_EOF or an error); false, with nothing read, when nothing waited.
 */
static bool read_stamped(conn_t *c)
{
    uv_os_fd_t fd;
    if (uv_fileno((const uv_handle_t *)&c->tcp, &fd) != 0) return false;
    ssize_t n = stamped_read(fd, read_buf, sizeof read_buf, &c->rx_real_ns);
    if (n == -EAGAIN || n == -EWOULDBLOCK || n == -EINTR) return false;
    c->read_here = n > 0 ? n : n == 0 ? UV_EOF : uv_translate_sys_error((int)-n);
    return true;
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    conn_t *c = (conn_t *)h;
    (void)suggested;
    c->rx_real_ns = 0;
    bool (*in_room)(conn_t *) = c->srv->conn_hooks->in_room;
    if (c->srv->opts.kernel_stamps && (c->kind == CONN_LINES || c->kind == CONN_WS) && in_room &&
        in_room(c) && read_stamped(c)) {
        *buf = uv_buf_init(read_buf, 0); /* libuv reads nothing: on_read() gets UV_ENOBUFS */
        return;
    }
    /* One buffer serves every connection: frame_feed() copies what it keeps. */
    *buf = uv_buf_init(read_buf, sizeof read_buf);
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    conn_t *c = (conn_t *)s;
    uv_buf_t here = uv_buf_init(read_buf, sizeof read_buf);
    if (nread == UV_ENOBUFS && c->read_here) { /* on_alloc() read it (read_stamped()) */
        nread = c->read_here;
        buf = &here;
    }
    c->read_here = 0;
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
        if (!heap_contains(&c->ready)) conn_close_after_flush(c, "end of input");
        return;
    }
    c->srv->metrics.bytes_received += (uint64_t)nread;
    if (feed(c, buf->base, (size_t)nread) < 0) {
        conn_close(c, "out of memory");
        return;
    }
    if (c->state != CONN_OPEN || c->kind == CONN_HTTP) return; /* answered, or a head in progress */
    uint64_t at =
        c->rx_real_ns ? clock_us_at_realtime(&c->srv->clock, c->rx_real_ns) : server_now_us(c->srv);
    note_read(c, at);
    if (!heap_contains(&c->ready)) conn_update_ready(c);
    if (c->state == CONN_OPEN && c->reading && frame_buffered(&c->frame) > read_pause_bytes(c)) {
        uv_read_stop(s);
        c->reading = false;
    }
}

void conn__resume_reading(conn_t *c)
{
    if (c->state != CONN_OPEN || c->reading || c->eof) return;
    if (uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read) == 0) c->reading = true;
    c->stamp_floor_us = server_now_us(c->srv); /* what waited while paused counts from now */
}

void conn__close_with_error(conn_t *c, const char *code, const char *message)
{
    unsigned long mark = tapis_alloc_failures();
    json_t *ev = proto_event("error");
    json_object_set_new(ev, "error", json_pack("{s:s, s:s}", "code", code, "message", message));
    conn_send_new(c, game_json_checked(ev, mark));
    conn_close_after_flush(c, code);
}

/*
 * The codes that say the server failed, not the client: a node that cannot be
 * reached (unavailable), a fault or no memory (internal), no room for more
 * (server_full), a drain for an upgrade (draining). The request was fine and
 * may succeed when sent again, as the client is told to do: charging them
 * would close, after a node's death, the very clients that do as told.
 */
static bool server_failure(const char *code)
{
    return code && (strcmp(code, TAPIS_E_UNAVAILABLE) == 0 || strcmp(code, TAPIS_E_INTERNAL) == 0 ||
                    strcmp(code, TAPIS_E_SERVER_FULL) == 0 || strcmp(code, TAPIS_E_DRAINING) == 0);
}

void conn_note_error(conn_t *c, const char *code)
{
    const server_opts_t *o = &c->srv->opts;
    if (c->state != CONN_OPEN || o->error_rate == 0 || server_failure(code)) return;
    if (budget_take(&c->error_budget, server_now_us(c->srv), 1000000 / o->error_rate,
                    2 * o->error_rate))
        return;
    log_info("conn %llu: too many errors; closing", (unsigned long long)c->id);
    conn__close_with_error(c, TAPIS_E_TOO_MANY_ERRORS, "too many errors; closing");
}

void conn_take_line(conn_t *c)
{
    server_t *srv = c->srv;
    const char *line;
    size_t len;
    int r = frame_next(&c->frame, &line, &len);
    if (r == FRAME_NEED_MORE) { /* cannot happen after frame_peek(), but never spin */
        conn_update_ready(c);
        return;
    }
    if (r == FRAME_TOO_LONG) {
        log_info("conn %llu: line over %zu bytes", (unsigned long long)c->id, srv->opts.max_line);
        char msg[96];
        snprintf(msg, sizeof msg, "a line is limited to %zu bytes; closing", srv->opts.max_line);
        conn_send_new(c, proto_reply_error(NULL, NULL, TAPIS_E_LINE_TOO_LONG, msg));
        conn_close_after_flush(c, "line too long");
        return;
    }
    uint64_t stamp = stamp_at(c, c->frame.taken);
    drop_reads(c);
    if (!c->saw_line && len > 0) {
        c->saw_line = true;
        if (frame_is_http_request(line, len)) {
            conn_close(c, "HTTP request on the line port");
            return;
        }
    }
    uint64_t rate = srv->opts.line_rate;
    bool limited = !budget_take(&c->line_budget, stamp, rate ? 1000000 / rate : 0, 2 * rate);
    c->last_line_ms = stamp / 1000;
    srv->conn_hooks->on_line(c, line, len, stamp, limited);
    /* The line is answered: c's next line (if any) takes its place in the heap. */
    conn_update_ready(c);
}
