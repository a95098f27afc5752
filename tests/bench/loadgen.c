/*
 * loadgen.c — load generator for tapisd (and, for `ping`, any server that
 * answers an inline `ping\n` with one line, such as redis-server).
 *
 * Length: over 800 lines on purpose: one event loop drives every mode (ping, tables,
 * storm), and splitting the modes would split the state they share.
 *
 * One thread, one libuv loop per process: the client uses one core. Run the
 * server pinned to another core (taskset) to compare servers on one core
 * each. --procs N splits the connections (or tables) over N processes,
 * whose figures are merged: one loop serving 4,000 connections reads a
 * burst of states one connection after the other and sends nothing
 * meanwhile, and at 2,000 tables that client's own queue was most of the
 * tail measured to the loop's read (p99 7-11 ms with one process, 3.6-4.0
 * ms with two on the same core, against the same server): hence the
 * kernel's stamps (below).
 *
 *   loadgen ping   [options]   N connections, each sends `ping\n` and waits
 *                              for one reply line before the next (closed
 *                              loop, one request outstanding per connection;
 *                              --pipeline N: N at once).
 *   loadgen tables [options]   T tables of 233 with two human connections
 *                              each; the player whose turn it is sends the
 *                              first legal action of its view (never a
 *                              claim); measures the time from sending an
 *                              `act` to receiving the next `state` event of
 *                              that room. A finished game is replaced by a
 *                              new one at the same pair of connections.
 *
 * Options: --host H (127.0.0.1) --port P (7233) --conns N (50, ping)
 *          --tables T (500) --duration S (10) --warmup S (1)
 *          --think MS (0: act at once; else a delay drawn in [MS/2, 3MS/2]
 *          before each action, so the tables play at a human-like pace)
 *          --target N (the 233 game's target score; default: the game's, 233;
 *          a small one makes games end, and restart, often)
 *          --label TEXT (printed with the figures)
 *          --pipeline N (ping: each connection writes N pings at once and
 *          writes the next N when all are answered; default 1)
 *          --procs N (1: the connections, or tables, split over N processes
 *          on the same cores, their histograms merged into one line)
 *          --ports P1,P2,... (instead of --port: connection i goes to the
 *          (i mod n)th port, so the two players of a table are on two
 *          different nodes of a cluster and at least one of them is served
 *          through a relay)
 *          --ws 1 (every connection is a WebSocket of tapisd's game port:
 *          the RFC 6455 handshake on GET /ws, then each line sent is one
 *          masked text frame and each text frame received one line; the
 *          latency counts from the frame's write as it does from the line's)
 *
 * Output: one line of key=value figures on stdout; latencies are in µs,
 * from a log-linear histogram (relative error under 1/64). Exit status 0
 * when the run completed, 1 on setup failure, a stall or protocol errors.
 *
 * A latency ends when the kernel received the reply (SO_TIMESTAMPNS: the
 * stamp of the newest bytes of the read that brought it), not when this
 * loop read it: one loop reading thousands of connections one after the
 * other would add its own queue to the server's time (p50_us ... max_us).
 * The time to the loop's read is printed beside it (read_p50_us,
 * read_p99_us): it is what loadgen measured until December 5, 2026.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <uv.h>

#include "tests/bench/bench.h"
#include "tests/bench/hist.h"
#include "server/base/stamped_read.h"
#include "json/json_text.h"

/* ------------------------------------------------------------------------ */
/* Options and global state                                                  */
/* ------------------------------------------------------------------------ */

enum { MODE_PING, MODE_TABLES };
enum { PH_SETUP, PH_WARMUP, PH_MEASURE, PH_DONE };

static struct {
    int mode;
    const char *host;
    int port;
    int conns;
    int tables;
    double duration, warmup;
    int think_ms;
    int target;
    const char *label;
    int pipeline;
    const char *ports;
    int procs;
    int ws;
} opt = {MODE_PING, "127.0.0.1", 7233, 50, 500, 10.0, 1.0, 0, 0, NULL, 1, NULL, 1, 0};

typedef struct conn conn_t;
typedef struct table table_t;

struct conn {
    uv_tcp_t tcp;
    uv_connect_t creq;
    uv_timer_t think;
    int index;
    int port; /* the server port it connects to */
    bool connected, closing, think_init;
    bool ws_open;      /* --ws: the handshake's answer came */
    bench_line_t in;   /* partial line; with --ws, the bytes of frames not yet complete */
    int64_t rx_ns;     /* CLOCK_REALTIME of the kernel's receipt of the read at hand, or 0 */
    ssize_t read_here; /* what on_alloc() read (read_stamped()), else 0 */
    /* ping */
    uint64_t sent_at; /* when the batch in flight was written */
    int64_t sent_ns;  /* the same, CLOCK_REALTIME */
    int in_flight;    /* its requests not yet answered */
    /* tables */
    table_t *table;
    int role; /* 0 = creator, 1 = joiner */
    bool hello_ok;
    bool in_game;  /* seated in table->room and the game runs */
    bool act_wait; /* an act was sent; waiting for the next state */
    int64_t act_seq;
    uint64_t act_at;
    int64_t act_ns; /* the same, CLOCK_REALTIME */
    bool has_next;  /* an action was chosen, waiting for the think timer */
    int64_t next_seq;
    size_t next_len;
    char next_action[512]; /* its JSON text */
};

struct table {
    conn_t *c[2];
    char room[40];
    bool started;
    bool need_join; /* the room exists; the joiner joins once it said hello */
    int games;
};

static uv_loop_t *loop;
static conn_t *conns;
#define MAX_PORTS 16
static int ports[MAX_PORTS], nports; /* --ports */
static int nconns;
static table_t *tables;
static int phase = PH_SETUP;
static uv_timer_t phase_timer, guard_timer, connect_timer;
static uint64_t t_measure0, t_measure1;
static double cpu_measure0, cpu_measure1; /* this process's CPU seconds */
static hist_t hist, hist_read;            /* to the kernel's receipt; to this loop's read */
static uint64_t measured_ops, setup_ok, tables_started, games_over, act_errors, other_errors;
static int next_connect, connecting;
static int exit_code;
static uv_buf_t rdbuf;
static char err_sample[256];   /* the first refusal of any request */
static char other_sample[256]; /* the first error that is not a refused act */

#define MAX_CONNECTING 64

static void stop_all(void);

static void fail(const char *fmt, const char *a)
{
    fprintf(stderr, "loadgen: ");
    fprintf(stderr, fmt, a);
    fputc('\n', stderr);
    exit_code = 1;
    stop_all();
}

static int64_t realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A reply to what c wrote at sent (uv_hrtime()) and sent_ns (CLOCK_REALTIME) came. */
static void measured(conn_t *c, uint64_t sent, int64_t sent_ns)
{
    hist_add(&hist_read, uv_hrtime() - sent);
    int64_t rx = c->rx_ns ? c->rx_ns : realtime_ns();
    hist_add(&hist, rx > sent_ns ? (uint64_t)(rx - sent_ns) : 0);
}

/* ------------------------------------------------------------------------ */
/* Sending                                                                   */
/* ------------------------------------------------------------------------ */

/*
 * --ws: each line of data[0..len) (each ends in '\n') as one masked text
 * frame, into out (room for len + 14 bytes a line). Returns the frames' length.
 */
static size_t ws_frames(const char *data, size_t len, char *out)
{
    static const unsigned char key[4] = {0x5a, 0xc3, 0x1f, 0x77};
    size_t o = 0;
    for (const char *p = data, *end = data + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        out[o++] = (char)0x81;
        if (n < 126) {
            out[o++] = (char)(0x80 | n);
        } else {
            out[o++] = (char)(0x80 | 126);
            out[o++] = (char)(n >> 8);
            out[o++] = (char)n;
        }
        memcpy(out + o, key, 4);
        o += 4;
        for (size_t i = 0; i < n; i++)
            out[o++] = (char)(p[i] ^ key[i & 3]);
        p += n + (nl != NULL);
    }
    return o;
}

static void send_bytes(conn_t *c, const char *data, size_t len)
{
    if (c->closing) return;
    if (opt.ws) {
        /* at most 8 bytes of header a line, and a line is at least its newline */
        char stack[4096], *out = len * 8 + 64 <= sizeof stack ? stack : malloc(len * 8 + 64);
        if (!out) abort();
        len = ws_frames(data, len, out);
        data = out;
        if (bench_write((uv_stream_t *)&c->tcp, data, len) < 0) other_errors++;
        if (out != stack) free(out);
        return;
    }
    if (bench_write((uv_stream_t *)&c->tcp, data, len) < 0) other_errors++;
}

static void send_json(conn_t *c, json_t *msg)
{
    char *s = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    if (!s) abort();
    size_t n = strlen(s);
    char *line = malloc(n + 2);
    if (!line) abort();
    memcpy(line, s, n);
    line[n] = '\n';
    send_bytes(c, line, n + 1);
    free(line);
    free(s);
}

/* ------------------------------------------------------------------------ */
/* Ping mode                                                                 */
/* ------------------------------------------------------------------------ */

/* Write a batch of --pipeline pings in one write (redis-benchmark -P does the same). */
static void ping_send(conn_t *c)
{
    static char batch[5 * 64];
    if (!batch[0])
        for (int i = 0; i < 64; i++)
            memcpy(batch + 5 * i, "ping\n", 5);
    c->sent_at = uv_hrtime();
    c->sent_ns = realtime_ns();
    c->in_flight = opt.pipeline;
    send_bytes(c, batch, (size_t)(5 * opt.pipeline));
}

/* A reply: its latency counts from its batch's write; the last one sends the next batch. */
static void ping_line(conn_t *c, const char *line, size_t len)
{
    (void)line;
    (void)len;
    if (phase == PH_MEASURE) {
        measured(c, c->sent_at, c->sent_ns);
        measured_ops++;
    }
    if (--c->in_flight > 0) return;
    if (phase != PH_DONE) ping_send(c);
}

/* ------------------------------------------------------------------------ */
/* Tables mode                                                               */
/* ------------------------------------------------------------------------ */

static void table_create(table_t *t)
{
    t->room[0] = '\0';
    t->started = false;
    json_t *req = json_pack("{s:s,s:s,s:i}", "cmd", "create", "game", "233", "players", 2);
    if (opt.target > 0)
        json_object_set_new(req, "options", json_pack("{s:i}", "target", opt.target));
    send_json(t->c[0], req);
}

static void table_join(table_t *t)
{
    conn_t *j = t->c[1];
    if (!j->connected || !j->hello_ok) {
        t->need_join = true;
        return;
    }
    t->need_join = false;
    send_json(t->c[1], json_pack("{s:s,s:s}", "cmd", "join", "room", t->room));
}

static void act_now(conn_t *c, const char *action, size_t len, int64_t seq)
{
    char line[640];
    int n = snprintf(line, sizeof line, "{\"cmd\":\"act\",\"room\":\"%s\",\"action\":%.*s}\n",
                     c->table->room, (int)len, action);
    if (n < 0 || (size_t)n >= sizeof line) abort();
    c->act_wait = true;
    c->act_seq = seq;
    c->act_at = uv_hrtime();
    c->act_ns = realtime_ns();
    send_bytes(c, line, (size_t)n);
}

static void on_think(uv_timer_t *tm)
{
    conn_t *c = tm->data;
    if (!c->has_next) return;
    c->has_next = false;
    if (phase == PH_DONE || !c->in_game) return;
    act_now(c, c->next_action, c->next_len, c->next_seq);
}

/*
 * In the text of a legal array, the first action that is not an out-of-turn
 * claim: its start, and its length in *len; NULL if there is none.
 */
static const char *choose(const char *legal, size_t n, size_t *len)
{
    static const char claim[] = "\"type\":\"claim\"";
    const char *end = legal + n;
    if (n < 2 || legal[0] != '[') return NULL;
    for (const char *p = legal + 1; p < end && *p == '{';) {
        size_t k = json_text_len(p, (size_t)(end - p));
        if (k == (size_t)(end - p)) return NULL; /* an element ends before the ']' */
        if (!memmem(p, k, claim, sizeof claim - 1)) {
            *len = k;
            return p;
        }
        p += k;
        if (p < end && *p == ',') p++;
    }
    return NULL;
}

/* A state event of c's room at `seq`; `legal` is the text of its view's legal actions. */
static void on_state(conn_t *c, int64_t seq, const char *legal, size_t n)
{
    table_t *t = c->table;
    if (!t->started) {
        t->started = true;
        if (t->games == 0) tables_started++;
    }
    c->in_game = true;
    if (c->act_wait) {
        if (seq <= c->act_seq) return; /* older than our action */
        c->act_wait = false;
        if (phase == PH_MEASURE) {
            measured(c, c->act_at, c->act_ns);
            measured_ops++;
        }
    }
    if (phase == PH_DONE || c->has_next) return;
    size_t len;
    const char *a = choose(legal, n, &len);
    if (!a) return;
    if (len > sizeof c->next_action) {
        other_errors++;
        return;
    }
    if (opt.think_ms <= 0) {
        act_now(c, a, len, seq);
        return;
    }
    memcpy(c->next_action, a, len);
    c->next_len = len;
    c->has_next = true;
    c->next_seq = seq;
    uint64_t d = (uint64_t)opt.think_ms / 2 + (uint64_t)(rand() % (opt.think_ms + 1));
    uv_timer_start(&c->think, on_think, d, 0);
}

static void on_reply(conn_t *c, json_t *msg)
{
    table_t *t = c->table;
    const char *re = json_string_value(json_object_get(msg, "re"));
    bool ok = json_is_true(json_object_get(msg, "ok"));
    if (!re) re = "";
    if (!ok) {
        const char *code =
            json_string_value(json_object_get(json_object_get(msg, "error"), "code"));
        if (!err_sample[0]) snprintf(err_sample, sizeof err_sample, "%s:%s", re, code ? code : "?");
        if (strcmp(re, "act") == 0) {
            act_errors++;
            /* Ask for the state again so that the table goes on. */
            c->act_wait = false;
            send_json(c, json_pack("{s:s,s:s}", "cmd", "state", "room", t->room));
        } else if (strcmp(re, "leave") != 0) {
            other_errors++;
            if (!other_sample[0])
                snprintf(other_sample, sizeof other_sample, "%s:%s", re, code ? code : "?");
            if (phase == PH_SETUP) fail("setup refused: %s", other_sample);
        }
        return;
    }
    if (strcmp(re, "hello") == 0) {
        c->hello_ok = true;
        if (c->role == 0) table_create(t);
        if (c->role == 1 && t->need_join) table_join(t);
        setup_ok++;
    } else if (strcmp(re, "create") == 0) {
        const char *room = json_string_value(json_object_get(msg, "room"));
        if (!room) {
            fail("create: no room in the reply%s", "");
            return;
        }
        snprintf(t->room, sizeof t->room, "%s", room);
        table_join(t);
    }
}

static void on_game_over(conn_t *c, json_t *ev)
{
    table_t *t = c->table;
    const char *room = json_string_value(json_object_get(ev, "room"));
    if (!room || strcmp(room, t->room) != 0) return;
    c->in_game = false;
    c->act_wait = false;
    if (c->has_next) {
        uv_timer_stop(&c->think);
        c->has_next = false;
    }
    send_json(c, json_pack("{s:s,s:s}", "cmd", "leave", "room", t->room));
    if (c->role == 0) {
        games_over++;
        t->games++;
        if (phase != PH_DONE) table_create(t);
    }
}

/*
 * A state event read the way a lean bot reads it: the room and the seq from
 * the envelope's head, and the text of the view's "legal" array (the last key
 * of a 233 view), the only part of the view the loadgen acts on; the action
 * it picks is sent back as the server wrote it. Nothing is parsed: parsing
 * each whole view (900 bytes, 40,000 a second at 2,000 tables) made the
 * loadgen the limit, and parsing the legal array still cost it a fifth of
 * its core, a queue of its own in the tail. Returns false if the line is not
 * such an event.
 */
static bool fast_state(conn_t *c, const char *line, size_t len)
{
    static const char head[] = "{\"ev\":\"state\",\"room\":\"";
    static const char key[] = "\"legal\":";
    size_t nroom = strlen(c->table->room);
    if (len < sizeof head + nroom + 8 || memcmp(line, head, sizeof head - 1) != 0) return false;
    const char *p = line + sizeof head - 1;
    if (memcmp(p, c->table->room, nroom) != 0 || memcmp(p + nroom, "\",\"seq\":", 8) != 0)
        return false;
    int64_t seq = strtoll(p + nroom + 8, NULL, 10);
    const char *legal = NULL;
    for (const char *q = line + len - (sizeof key - 1); q > p; q--)
        if (*q == '"' && memcmp(q, key, sizeof key - 1) == 0) {
            legal = q + sizeof key - 1;
            break;
        }
    if (!legal || *legal != '[') return false;
    size_t rest = (size_t)(line + len - legal), n = json_text_len(legal, rest);
    if (n == rest) return false; /* the view and the envelope close after it */
    on_state(c, seq, legal, n);
    return true;
}

static void tables_line(conn_t *c, const char *line, size_t len)
{
    if (fast_state(c, line, len)) return;
    json_error_t jerr;
    json_t *msg = json_loadb(line, len, 0, &jerr);
    if (!json_is_object(msg)) {
        json_decref(msg);
        other_errors++;
        return;
    }
    const char *ev = json_string_value(json_object_get(msg, "ev"));
    if (ev) {
        const char *room = json_string_value(json_object_get(msg, "room"));
        if (strcmp(ev, "state") == 0 && room && strcmp(room, c->table->room) == 0) {
            json_t *legal = json_object_get(json_object_get(msg, "view"), "legal");
            char *text = legal ? json_dumps(legal, JSON_COMPACT) : NULL;
            on_state(c, (int64_t)json_integer_value(json_object_get(msg, "seq")),
                     text ? text : "[]", text ? strlen(text) : 2);
            free(text);
        } else if (strcmp(ev, "game_over") == 0)
            on_game_over(c, msg);
        else if (strcmp(ev, "error") == 0 || strcmp(ev, "shutdown") == 0) {
            other_errors++;
            if (!other_sample[0]) snprintf(other_sample, sizeof other_sample, "event %s", ev);
        }
    } else {
        on_reply(c, msg);
    }
    json_decref(msg);
}

/* ------------------------------------------------------------------------ */
/* Connections                                                               */
/* ------------------------------------------------------------------------ */

/*
 * Read c with its kernel's stamp (stamped_read.h): true when it read bytes,
 * the end or an error (into c->read_here), false when nothing waited.
 */
static bool read_stamped(conn_t *c)
{
    uv_os_fd_t fd;
    if (uv_fileno((uv_handle_t *)&c->tcp, &fd) != 0) return false;
    ssize_t n = stamped_read(fd, rdbuf.base, rdbuf.len, &c->rx_ns);
    if (n == -EAGAIN || n == -EWOULDBLOCK || n == -EINTR) return false;
    c->read_here = n > 0 ? n : n == 0 ? UV_EOF : uv_translate_sys_error((int)-n);
    return true;
}

/* libuv asks for a buffer just before its read: the read is done here instead,
   and libuv is given none (it hands on_read() UV_ENOBUFS, which takes this read). */
static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *b)
{
    conn_t *c = h->data;
    (void)suggested;
    c->rx_ns = 0;
    c->read_here = 0;
    if (read_stamped(c)) {
        *b = uv_buf_init(rdbuf.base, 0);
        return;
    }
    *b = rdbuf; /* consumed entirely by on_read before the next alloc */
}

static void on_closed(uv_handle_t *h)
{
    (void)h;
}

static void handle_line(conn_t *c, const char *line, size_t len)
{
    if (len && line[len - 1] == '\r') len--;
    if (opt.mode == MODE_PING)
        ping_line(c, line, len);
    else
        tables_line(c, line, len);
}

static void after_connect(conn_t *c);

/*
 * --ws: the bytes read, added to what came before: first the handshake's
 * answer (101, or the run fails), then frames, each text frame one line.
 */
static void ws_read(conn_t *c, const char *data, size_t n)
{
    bench_line_t *in = &c->in;
    bench_line_append(in, data, n);
    size_t at = 0;
    if (!c->ws_open) {
        const char *end = in->len ? memmem(in->data, in->len, "\r\n\r\n", 4) : NULL;
        if (!end) return;
        if (in->len < 12 || memcmp(in->data, "HTTP/1.1 101", 12) != 0) {
            fail("the WebSocket handshake was refused: %.12s", in->data);
            return;
        }
        c->ws_open = true;
        at = (size_t)(end + 4 - in->data);
        after_connect(c);
    }
    while (!c->closing && in->len - at >= 2) {
        const unsigned char *h = (const unsigned char *)in->data + at;
        size_t hl = 2, len = h[1] & 0x7f;
        if (len == 126) {
            if (in->len - at < 4) break;
            hl = 4;
            len = (size_t)h[2] << 8 | h[3];
        } else if (len == 127) {
            fail("a frame of more than 64 KiB%s", "");
            return;
        }
        if (in->len - at < hl + len) break;
        if ((h[0] & 0x0f) == 0x8) {
            fail("the server closed the WebSocket%s", "");
            return;
        }
        if ((h[0] & 0x0f) == 0x1) handle_line(c, in->data + at + hl, len);
        at += hl + len;
    }
    memmove(in->data, in->data + at, in->len - at);
    in->len -= at;
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *b)
{
    conn_t *c = s->data;
    if (nread == UV_ENOBUFS && c->read_here) { /* on_alloc() read it */
        nread = c->read_here;
        b = &rdbuf;
    }
    c->read_here = 0;
    if (nread < 0) {
        if (phase != PH_DONE) {
            fprintf(stderr, "loadgen: connection %d: %s\n", c->index, uv_strerror((int)nread));
            exit_code = 1;
            stop_all();
        }
        return;
    }
    if (opt.ws) {
        ws_read(c, b->base, (size_t)nread);
        return;
    }
    size_t at = 0, len;
    const char *line;
    while (!c->closing && (line = bench_next_line(&c->in, b->base, (size_t)nread, &at, &len)))
        handle_line(c, line, len);
}

static void start_connects(void);

static void on_connect(uv_connect_t *req, int status)
{
    conn_t *c = req->data;
    connecting--;
    if (status < 0) {
        fprintf(stderr, "loadgen: connect %s:%d: %s\n", opt.host, c->port, uv_strerror(status));
        exit_code = 1;
        stop_all();
        return;
    }
    c->connected = true;
    uv_tcp_nodelay(&c->tcp, 1);
    uv_os_fd_t fd;
    if (uv_fileno((uv_handle_t *)&c->tcp, &fd) == 0) (void)stamped_read_enable(fd);
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
    if (opt.ws) {
        char req[256];
        int n = snprintf(req, sizeof req,
                         "GET /ws HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\n"
                         "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                         "Sec-WebSocket-Version: 13\r\n\r\n",
                         opt.host, c->port);
        if (bench_write((uv_stream_t *)&c->tcp, req, (size_t)n) < 0) other_errors++;
    } else {
        after_connect(c);
    }
    start_connects();
}

/* The connection is up (and, with --ws, its handshake done): start its work. */
static void after_connect(conn_t *c)
{
    if (opt.mode == MODE_PING) {
        setup_ok++;
        ping_send(c);
    } else {
        char name[32]; /* names are unique on a server: the pid lets load generators share one */
        snprintf(name, sizeof name, "lg%c%dp%d", c->role ? 'b' : 'a', c->index / 2,
                 (int)uv_os_getpid());
        send_json(c, json_pack("{s:s,s:s}", "cmd", "hello", "name", name));
    }
}

static void start_connects(void)
{
    struct sockaddr_storage sa;
    while (phase != PH_DONE && connecting < MAX_CONNECTING && next_connect < nconns) {
        conn_t *c = &conns[next_connect++];
        c->port = nports ? ports[c->index % nports] : opt.port;
        if (uv_ip4_addr(opt.host, c->port, (struct sockaddr_in *)&sa) != 0 &&
            uv_ip6_addr(opt.host, c->port, (struct sockaddr_in6 *)&sa) != 0) {
            fail("bad host %s", opt.host);
            return;
        }
        uv_tcp_init(loop, &c->tcp);
        c->tcp.data = c;
        c->creq.data = c;
        c->connected = true; /* the handle needs closing from now on */
        int r = uv_tcp_connect(&c->creq, &c->tcp, (struct sockaddr *)&sa, on_connect);
        c->connected = false;
        if (r < 0) {
            uv_close((uv_handle_t *)&c->tcp, on_closed);
            c->closing = true;
            fail("connect: %s", uv_strerror(r));
            return;
        }
        connecting++;
    }
}

/* ------------------------------------------------------------------------ */
/* Phases                                                                    */
/* ------------------------------------------------------------------------ */

static void stop_all(void)
{
    static bool stopped;
    if (stopped) return;
    stopped = true;
    if (phase == PH_MEASURE) {
        t_measure1 = uv_hrtime();
        cpu_measure1 = bench_cpu_seconds();
    }
    phase = PH_DONE;
    uv_timer_stop(&phase_timer);
    uv_timer_stop(&guard_timer);
    uv_timer_stop(&connect_timer);
    for (int i = 0; i < nconns; i++) {
        conn_t *c = &conns[i];
        if (c->connected && !c->closing) {
            c->closing = true;
            if (c->think_init) {
                uv_timer_stop(&c->think);
                uv_close((uv_handle_t *)&c->think, on_closed);
            }
            c->has_next = false;
            uv_close((uv_handle_t *)&c->tcp, on_closed);
        } else if (!c->connected && !c->closing && c->think_init) {
            c->closing = true;
            uv_close((uv_handle_t *)&c->think, on_closed);
        }
    }
    uv_stop(loop);
}

static void on_phase(uv_timer_t *t);

static void enter_measure(void)
{
    phase = PH_MEASURE;
    t_measure0 = uv_hrtime();
    cpu_measure0 = bench_cpu_seconds();
    uv_timer_start(&phase_timer, on_phase, (uint64_t)(opt.duration * 1000), 0);
}

static void on_phase(uv_timer_t *t)
{
    (void)t;
    if (phase == PH_WARMUP) {
        enter_measure();
    } else if (phase == PH_MEASURE) {
        t_measure1 = uv_hrtime();
        cpu_measure1 = bench_cpu_seconds();
        phase = PH_DONE;
        stop_all();
    }
}

/* Setup is done when every connection is up (ping) or every table started. */
static void on_setup_check(uv_timer_t *t)
{
    (void)t;
    if (phase != PH_SETUP) return;
    bool done = opt.mode == MODE_PING ? setup_ok >= (uint64_t)nconns
                                      : tables_started >= (uint64_t)opt.tables;
    if (!done) return;
    uv_timer_stop(&connect_timer);
    phase = PH_WARMUP;
    if (opt.warmup > 0)
        uv_timer_start(&phase_timer, on_phase, (uint64_t)(opt.warmup * 1000), 0);
    else
        enter_measure();
}

static void on_guard(uv_timer_t *t)
{
    (void)t;
    fprintf(stderr,
            "loadgen: gave up (phase %d): %" PRIu64 "/%d set up, %" PRIu64 " tables started\n",
            phase, setup_ok, nconns, tables_started);
    exit_code = 1;
    stop_all();
}

/* The figures of a run (of one process of --procs N). */
typedef struct result {
    hist_t hist, hist_read;
    double secs, cpu;
    uint64_t ops, games_over, act_errors, other_errors;
    int exit_code;
    char err_sample[256], other_sample[256];
} result_t;

/* Print r's line; returns the exit status. */
static int report(result_t *r, int conns)
{
    int code = r->exit_code;
    if (code == 0 && (r->secs <= 0 || r->ops == 0)) {
        fprintf(stderr, "loadgen: nothing measured\n");
        code = 1;
    }
    const char *what = opt.mode == MODE_PING ? "ping" : "tables";
    if (opt.label) printf("[%s] ", opt.label);
    if (nports)
        printf("mode=%s target=%s:%s ", what, opt.host, opt.ports);
    else
        printf("mode=%s target=%s:%d ", what, opt.host, opt.port);
    if (opt.procs > 1) printf("procs=%d ", opt.procs);
    if (opt.ws) printf("transport=ws ");
    if (opt.mode == MODE_PING)
        printf("conns=%d pipeline=%d ", conns, opt.pipeline);
    else
        printf("tables=%d conns=%d think_ms=%d games_over=%" PRIu64 " act_errors=%" PRIu64 " ",
               opt.tables, conns, opt.think_ms, r->games_over, r->act_errors);
    const hist_t *h = &r->hist;
    printf("seconds=%.2f %s=%" PRIu64 " %s=%.0f p50_us=%.1f p90_us=%.1f p99_us=%.1f p999_us=%.1f "
           "max_us=%.1f mean_us=%.1f read_p50_us=%.1f read_p99_us=%.1f client_cpu=%.0f%%\n",
           r->secs, opt.mode == MODE_PING ? "requests" : "actions", r->ops,
           opt.mode == MODE_PING ? "requests_per_s" : "actions_per_s",
           r->secs > 0 ? (double)r->ops / r->secs : 0.0, hist_pct_us(h, 50), hist_pct_us(h, 90),
           hist_pct_us(h, 99), hist_pct_us(h, 99.9), (double)h->max / 1000.0,
           h->count ? (double)h->sum / (double)h->count / 1000.0 : 0.0,
           hist_pct_us(&r->hist_read, 50), hist_pct_us(&r->hist_read, 99),
           r->secs > 0 ? 100.0 * r->cpu / r->secs : 0.0);
    if (r->other_errors || r->err_sample[0])
        fprintf(stderr, "loadgen: %" PRIu64 " other errors (first: %s), first error: %s\n",
                r->other_errors, r->other_sample[0] ? r->other_sample : "-",
                r->err_sample[0] ? r->err_sample : "-");
    if (r->other_errors) code = 1;
    fflush(stdout);
    return code;
}

/* --procs N: the parts' pipes, read by the parent. */
static int part_fd[64], result_fd = -1;

/*
 * Fork the N parts of --procs N: returns the part's number (from 1) in a
 * part, whose share of the connections or tables is now in opt; 0 without
 * --procs; -1 in the parent, which then merges.
 */
static int split_into_procs(void)
{
    if (opt.procs == 1) return 0;
    int total = opt.mode == MODE_PING ? opt.conns : opt.tables; /* at least procs (main) */
    for (int i = 0; i < opt.procs; i++) {
        int fds[2];
        if (pipe(fds) < 0) abort();
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) abort();
        if (pid == 0) {
            close(fds[0]);
            result_fd = fds[1];
            int share = total / opt.procs + (i < total % opt.procs ? 1 : 0);
            if (opt.mode == MODE_PING)
                opt.conns = share;
            else
                opt.tables = share;
            return i + 1;
        }
        close(fds[1]);
        part_fd[i] = fds[0];
    }
    return -1;
}

/* The parent of --procs N: one line for all the parts, their histograms added. */
static int merge_procs(void)
{
    result_t all = {.secs = 0}, r;
    int code = 0;
    for (int i = 0; i < opt.procs; i++) {
        size_t got = 0;
        while (got < sizeof r) {
            ssize_t n = read(part_fd[i], (char *)&r + got, sizeof r - got);
            if (n <= 0) break;
            got += (size_t)n;
        }
        int status = 0;
        wait(&status);
        if (got < sizeof r) {
            fprintf(stderr, "loadgen: part %d sent no figures\n", i + 1);
            code = 1;
            continue;
        }
        hist_merge(&all.hist, &r.hist);
        hist_merge(&all.hist_read, &r.hist_read);
        if (r.secs > all.secs) all.secs = r.secs;
        all.cpu += r.cpu;
        all.ops += r.ops;
        all.games_over += r.games_over;
        all.act_errors += r.act_errors;
        all.other_errors += r.other_errors;
        if (r.exit_code) all.exit_code = r.exit_code;
        if (!all.err_sample[0]) memcpy(all.err_sample, r.err_sample, sizeof r.err_sample);
        if (!all.other_sample[0]) memcpy(all.other_sample, r.other_sample, sizeof r.other_sample);
    }
    int conns = opt.mode == MODE_PING ? opt.conns : 2 * opt.tables;
    int rc = report(&all, conns);
    return code ? code : rc;
}

static void usage(void)
{
    fprintf(stderr, "usage: loadgen ping|tables [--host H] [--port P] [--conns N] [--tables T]\n"
                    "               [--duration S] [--warmup S] [--think MS] [--target N]\n"
                    "               [--label TEXT] [--pipeline N] [--ports P1,P2,...]\n"
                    "               [--procs N]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc < 2) usage();
    if (strcmp(argv[1], "ping") == 0)
        opt.mode = MODE_PING;
    else if (strcmp(argv[1], "tables") == 0)
        opt.mode = MODE_TABLES;
    else
        usage();
    const bench_option_t options[] = {
        {"--host", BENCH_STRING, &opt.host},
        {"--port", BENCH_INT, &opt.port},
        {"--conns", BENCH_INT, &opt.conns},
        {"--tables", BENCH_INT, &opt.tables},
        {"--duration", BENCH_DOUBLE, &opt.duration},
        {"--warmup", BENCH_DOUBLE, &opt.warmup},
        {"--think", BENCH_INT, &opt.think_ms},
        {"--target", BENCH_INT, &opt.target},
        {"--label", BENCH_STRING, &opt.label},
        {"--pipeline", BENCH_INT, &opt.pipeline},
        {"--ports", BENCH_STRING, &opt.ports},
        {"--procs", BENCH_INT, &opt.procs},
        {"--ws", BENCH_INT, &opt.ws},
        {NULL, BENCH_INT, NULL},
    };
    if (!bench_options(argc, argv, 2, options)) usage();
    for (const char *p = opt.ports; p && *p && nports < MAX_PORTS;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v <= 0 || v > 65535) usage();
        ports[nports++] = (int)v;
        p = *end == ',' ? end + 1 : end;
    }
    if (opt.port <= 0 || opt.port > 65535 || opt.conns < 1 || opt.tables < 1 || opt.duration <= 0 ||
        opt.warmup < 0 || opt.think_ms < 0 || opt.pipeline < 1 || opt.pipeline > 64 ||
        opt.procs < 1 || opt.procs > 64 ||
        opt.procs > (opt.mode == MODE_PING ? opt.conns : opt.tables))
        usage();
    int part = split_into_procs();
    if (part < 0) return merge_procs();
    srand(12345u + (unsigned)part);

    nconns = opt.mode == MODE_PING ? opt.conns : 2 * opt.tables;
    bench_raise_nofile(nconns);
    loop = uv_default_loop();
    conns = calloc((size_t)nconns, sizeof *conns);
    rdbuf = uv_buf_init(malloc(1 << 16), 1 << 16);
    if (!conns || !rdbuf.base) abort();
    if (opt.mode == MODE_TABLES) {
        tables = calloc((size_t)opt.tables, sizeof *tables);
        if (!tables) abort();
    }
    for (int i = 0; i < nconns; i++) {
        conn_t *c = &conns[i];
        c->index = i;
        if (opt.mode == MODE_TABLES) {
            table_t *t = &tables[i / 2];
            c->table = t;
            c->role = i % 2;
            t->c[c->role] = c;
            uv_timer_init(loop, &c->think);
            c->think.data = c;
            c->think_init = true;
        }
    }

    uv_timer_init(loop, &phase_timer);
    uv_timer_init(loop, &guard_timer);
    uv_timer_init(loop, &connect_timer);
    /* Setup must finish within 30 s; the whole run stops by itself. */
    uv_timer_start(&guard_timer, on_guard,
                   (uint64_t)((30.0 + opt.warmup + opt.duration + 10.0) * 1000), 0);
    uv_timer_start(&connect_timer, on_setup_check, 1, 1);
    start_connects();
    uv_run(loop, UV_RUN_DEFAULT);
    /* Let the closes finish. */
    uv_run(loop, UV_RUN_NOWAIT);

    result_t r = {.hist = hist,
                  .hist_read = hist_read,
                  .secs = t_measure1 > t_measure0 ? (double)(t_measure1 - t_measure0) / 1e9 : 0,
                  .cpu = cpu_measure1 - cpu_measure0,
                  .ops = measured_ops,
                  .games_over = games_over,
                  .act_errors = act_errors,
                  .other_errors = other_errors,
                  .exit_code = exit_code};
    snprintf(r.err_sample, sizeof r.err_sample, "%s", err_sample);
    snprintf(r.other_sample, sizeof r.other_sample, "%s", other_sample);
    if (part > 0 || opt.procs > 1) { /* a part: its figures go to the merging parent */
        bool sent = write(result_fd, &r, sizeof r) == (ssize_t)sizeof r;
        _exit(sent ? 0 : 1);
    }
    exit_code = report(&r, nconns);
    /* Handles may still be open if the server vanished; the OS closes them. */
    return exit_code;
}
