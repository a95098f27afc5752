/*
 * ws.c — WebSocket connections over wslay's event API. See ws.h.
 *
 * Reading: conn.c hands each read's bytes to ws_read(), which lends them to
 * wslay_event_recv() through recv_cb. wslay is told not to buffer data
 * messages: each piece of a text frame comes to on_chunk as it is read and
 * goes straight into the connection's line splitter, so a long message is
 * refused by the splitter's own --max-line check (line_too_long, then close
 * 1009) without being held whole, and its later bytes are dropped there. A
 * line feed inside a message is fed as a space (JSON allows it between
 * tokens; the inline form splits words on spaces), so that a message stays
 * one line. The end of a text message feeds the "\n" that completes it.
 * wslay checks the UTF-8 of a text message as it comes, before on_chunk
 * sees it: the bytes of a message that turns out invalid stay an
 * unfinished line, never a line.
 *
 * Writing: ws_send_text() queues a text message and runs wslay_event_send()
 * at once; send_cb appends the frame to the connection's output buffer, so
 * the frames leave in the order the lines were sent, with the others, when
 * conn.c flushes after the turn's commit.
 */
#include <nettle/base64.h>
#include <nettle/sha1.h>
#include <string.h>
#include <wslay/wslay.h>

#include "server/net/ws.h"
#include "server/net/conn.h"
#include "server/base/log.h"

#define WS_GUID "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

struct ws {
    wslay_event_context_ptr ctx;
    conn_t *conn;
    const char *in; /* the read being handed to wslay */
    size_t in_len;
    bool in_control; /* the frame being read is a control frame (wslay keeps those) */
    bool failed;     /* the splitter could not grow: close */
    bool refused;    /* a binary message: closing with 1003 */
};

void ws_accept_key(const char *key, size_t len, char out[WS_ACCEPT_LEN + 1])
{
    struct sha1_ctx sha;
    uint8_t digest[SHA1_DIGEST_SIZE];
    sha1_init(&sha);
    sha1_update(&sha, len, (const uint8_t *)key);
    sha1_update(&sha, sizeof WS_GUID - 1, (const uint8_t *)WS_GUID);
    sha1_digest(&sha, sizeof digest, digest);
    base64_encode_raw(out, sizeof digest, digest);
    out[WS_ACCEPT_LEN] = 0;
}

/* ------------------------------------------------------------------------ */
/* wslay's callbacks                                                        */
/* ------------------------------------------------------------------------ */

static ssize_t recv_cb(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, int flags, void *data)
{
    ws_t *w = data;
    (void)flags;
    if (w->in_len == 0) {
        wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
        return -1;
    }
    size_t n = len < w->in_len ? len : w->in_len;
    memcpy(buf, w->in, n);
    w->in += n;
    w->in_len -= n;
    return (ssize_t)n;
}

static ssize_t send_cb(wslay_event_context_ptr ctx, const uint8_t *data, size_t len, int flags,
                       void *user)
{
    ws_t *w = user;
    (void)flags;
    if (conn__write_raw(w->conn, data, len) < 0) {
        wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
        return -1;
    }
    return (ssize_t)len;
}

static void on_start(wslay_event_context_ptr ctx,
                     const struct wslay_event_on_frame_recv_start_arg *a, void *user)
{
    ws_t *w = user;
    w->in_control = (a->opcode & 0x8) != 0;
    if (a->opcode == WSLAY_BINARY_FRAME && !w->refused) {
        static const char why[] = "binary messages are not read: send text";
        w->refused = true;
        wslay_event_queue_close(ctx, WSLAY_CODE_UNSUPPORTED_DATA, (const uint8_t *)why,
                                sizeof why - 1);
        wslay_event_shutdown_read(ctx);
    }
}

/* Feed n bytes of a text message to the splitter, each line feed as a space. */
static void feed_text(ws_t *w, const char *p, size_t n)
{
    while (n > 0 && !w->failed) {
        const char *nl = memchr(p, '\n', n);
        size_t k = nl ? (size_t)(nl - p) : n;
        if ((k && conn__feed_lines(w->conn, p, k) < 0) ||
            (nl && conn__feed_lines(w->conn, " ", 1) < 0))
            w->failed = true;
        k += nl != NULL;
        p += k;
        n -= k;
    }
}

static void on_chunk(wslay_event_context_ptr ctx,
                     const struct wslay_event_on_frame_recv_chunk_arg *a, void *user)
{
    ws_t *w = user;
    (void)ctx;
    if (w->in_control || w->refused || w->conn->state != CONN_OPEN) return;
    feed_text(w, (const char *)a->data, a->data_length);
}

static void on_msg(wslay_event_context_ptr ctx, const struct wslay_event_on_msg_recv_arg *a,
                   void *user)
{
    ws_t *w = user;
    (void)ctx;
    if (a->opcode != WSLAY_TEXT_FRAME || w->refused || w->conn->state != CONN_OPEN) return;
    if (conn__feed_lines(w->conn, "\n", 1) < 0) w->failed = true;
}

static const struct wslay_event_callbacks callbacks = {
    .recv_callback = recv_cb,
    .send_callback = send_cb,
    .on_frame_recv_start_callback = on_start,
    .on_frame_recv_chunk_callback = on_chunk,
    .on_msg_recv_callback = on_msg,
};

/* ------------------------------------------------------------------------ */
/* The connection's side                                                    */
/* ------------------------------------------------------------------------ */

int ws_start(conn_t *c)
{
    ws_t *w = tapis_calloc(1, sizeof *w);
    if (!w) return -1;
    if (wslay_event_context_server_init(&w->ctx, &callbacks, w) != 0) {
        tapis_free(w);
        return -1;
    }
    wslay_event_config_set_no_buffering(w->ctx, 1);
    w->conn = c;
    c->ws = w;
    c->kind = CONN_WS;
    c->srv->metrics.websockets++;
    return 0;
}

void ws_free(ws_t *w)
{
    if (!w) return;
    wslay_event_context_free(w->ctx);
    tapis_free(w);
}

/* Move what wslay has queued (pongs, close frames) to the output buffer. */
static int ws_flush(ws_t *w)
{
    if (wslay_event_want_write(w->ctx) && wslay_event_send(w->ctx) != 0) return -1;
    return 0;
}

int ws_read(conn_t *c, const char *data, size_t n)
{
    ws_t *w = c->ws;
    w->in = data;
    w->in_len = n;
    int r = wslay_event_recv(w->ctx);
    w->in_len = 0;
    if (w->failed || r == WSLAY_ERR_NOMEM) return -1;
    if (ws_flush(w) < 0) return -1;
    if (c->state != CONN_OPEN || wslay_event_get_read_enabled(w->ctx)) return 0;
    /* wslay read its last frame: a close, or a frame it failed the connection for */
    if (wslay_event_get_close_received(w->ctx)) {
        conn_close_after_flush(c, "closed by the client");
    } else {
        uint16_t code = wslay_event_get_status_code_sent(w->ctx);
        log_info("conn %llu: websocket failed (close %u)", (unsigned long long)c->id,
                 (unsigned)code);
        conn_close_after_flush(c, code == WSLAY_CODE_UNSUPPORTED_DATA
                                      ? "websocket: binary message"
                                      : "websocket: protocol error");
    }
    return 0;
}

int ws_send_text(conn_t *c, const char *text, size_t n)
{
    struct wslay_event_msg m = {WSLAY_TEXT_FRAME, (const uint8_t *)text, n};
    if (wslay_event_queue_msg(c->ws->ctx, &m) != 0) return -1;
    return ws_flush(c->ws);
}

void ws_close(conn_t *c, const char *why)
{
    uint16_t code = WSLAY_CODE_POLICY_VIOLATION;
    if (strcmp(why, "line too long") == 0)
        code = WSLAY_CODE_MESSAGE_TOO_BIG;
    else if (strcmp(why, "shutdown") == 0)
        code = WSLAY_CODE_GOING_AWAY;
    else if (strcmp(why, "quit") == 0 || strcmp(why, "end of input") == 0 ||
             strcmp(why, "closed by the client") == 0 || strcmp(why, "kicked") == 0 ||
             strncmp(why, "session taken", 13) == 0)
        code = WSLAY_CODE_NORMAL_CLOSURE;
    size_t n = strlen(why);
    if (n > 120) n = 120;
    /* Refused (WSLAY_ERR_NO_MORE_MSG) when a close is queued already: that one goes. */
    wslay_event_queue_close(c->ws->ctx, code, (const uint8_t *)why, n);
    ws_flush(c->ws);
}
