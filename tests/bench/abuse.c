/*
 * abuse.c — abuse benchmark for tapisd: one attack at a time, while a probe
 * client measures how well the server keeps serving a well-behaved client.
 *
 *   abuse ATTACK --port P [--pid PID] [options]
 *
 * One thread, one libuv loop (like loadgen.c). Phases:
 *   set-up  the probe connects and says hello; the victim or the bot table
 *           (when the attack has one) and the attackers get ready;
 *   attack  --duration seconds (idle-10k: until every connection is made,
 *           3 × --duration at most);
 *   drain   the attackers stop writing and read what they are still owed
 *           (2 s at most); then they are closed;
 *   check   the probe and a fresh connection must each get a `ping`
 *           answered within 5 s.
 * The probe says hello, then sends `ping` every 1 ms (--probe-us), one
 * request outstanding; the round trips of the pings sent during the attack
 * go to the histogram. A ping unanswered after 1 s is a timeout; after 5 s
 * the server is declared hung. With --pid, the server's VmRSS is read from
 * /proc every 10 ms (and its death noticed). Attackers connect from
 * --bind (127.0.0.2 by default when the server is on 127.0.0.1), the probe
 * from the default address, so per-address limits hit the attackers only.
 * Length: over 800 lines on purpose: every attack is a few callbacks on the
 * one loop and the one probe, and each is meant to be read beside the others.
 *
 * Attacks:
 *   empty-flood        one connection, no hello, writes "\n" as fast as the
 *                      socket takes it, reads nothing until the attack ends
 *   empty-flood-hello  the same after hello
 *   brace-flood        one connection writes "{\n" lines as fast as it can
 *                      and reads nothing until the attack ends
 *   brace-flood-4      the same on 4 connections
 *   ping-storm         1,000 connections (hello) each send `ping` every 20 ms
 *                      (--ping-ms) while a table of 233 plays against a bot
 *   chat-flood         a victim creates `233 2` and stays (reading); the
 *                      attacker watches that room and floods `say` with
 *                      400-byte texts (--text)
 *   room-flood         one session sends `create 233 2` and `leave` in turn
 *   room-flood-50      50 sessions send `create 233 2` without leaving
 *   addbot-spam        a victim creates `233 6`; the attacker watches that
 *                      room and floods `addbot ROOM`
 *   addbot-own         the attacker creates `233 6` rooms and floods `addbot`
 *                      on the last one (one create every 6 lines)
 *   idle-10k           10,000 connections (every other one says hello), then
 *                      silence (run the server with --max-conns 20000 and
 *                      no per-address limit)
 *   brace-flood-reconnect  brace-flood-4, but an attacker the server closes
 *                      connects again at once, for the whole attack
 *   chat-flood-reconnect   chat-flood, the same way (a new session each time)
 * Flooders that read keep at most --window (1024) requests unanswered each.
 *
 * Output: one line
 *   attack=NAME probe_p50_us=.. probe_p99_us=.. probe_p999_us=.. probe_max_us=..
 *   probe_timeouts=.. rss_max_kb=.. attacker_lines_sent=.. replies_by_code=CODE:N,..
 *   attacker_closed=yes|no|K/N server_alive=yes|no, then more figures, the
 *   last two client_cpu=..% (this process, during the attack: near 100%,
 *   the client set the pace) and result=ok|hang|server_died|probe_dropped|...
 * replies_by_code counts the attackers' replies to the attack lines ("ok"
 * for successes) and the `error` events they got, by error.code.
 * attacker_lines_sent counts the lines the attackers' sockets took: a
 * flooder's kernel buffers hold megabytes the server may never read.
 * unanswered counts the requests sent on connections still open at the end
 * that got no reply (0: every refused request was answered with its code).
 * Exit status: 1 if set-up failed, the server died, hung (no answer to the
 * probe for 5 s), dropped the probe or failed the final check; else 0,
 * whatever the latency. 2: usage.
 *
 * By hand: tests/bench/run_abuse.sh starts tapisd on a free port (pinned)
 * with the flags each attack needs and runs this against it:
 *   tests/bench/run_abuse.sh build/server/tapisd build/tests/bench/abuse chat-flood
 * or against a running server:
 *   build/tests/bench/abuse brace-flood --port 7233 --pid "$(pidof tapisd)"
 *
 * Length: over 800 lines on purpose: one attack a section, all sharing the probe and
 * the loop, so that an attack is read with its measurement.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>
#include <uv.h>

#include "tests/bench/bench.h"
#include "tests/bench/hist.h"

#define MS 1000000ULL /* ns */
#define PROBE_LATE_NS (1000 * MS)
#define HANG_NS (5000 * MS)
#define DRAIN_MAX_NS (2000 * MS)
#define CHECK_MAX_NS (5000 * MS)
#define SETUP_MAX_NS (15000 * MS)
#define FLOOD_CHUNK 16384
#define MAX_CODES 48

/* ------------------------------------------------------------------------ */
/* Attacks and options                                                       */
/* ------------------------------------------------------------------------ */

enum {
    A_EMPTY,
    A_EMPTY_HELLO,
    A_BRACE,
    A_BRACE4,
    A_PING_STORM,
    A_CHAT,
    A_ROOM,
    A_ROOM50,
    A_ADDBOT,
    A_ADDBOT_OWN,
    A_IDLE,
};

typedef struct {
    const char *name;
    int id;
    int conns;          /* attacker connections */
    bool hello;         /* attackers say hello during set-up */
    bool reads;         /* attackers read during the attack */
    bool flood;         /* attackers write as fast as they may */
    bool replies;       /* each attack line is a request that gets a reply */
    const char *victim; /* the victim's create line, or NULL */
    bool reconnect;     /* an attacker the server closes comes back at once */
} attack_t;

static const attack_t attacks[] = {
    {"empty-flood", A_EMPTY, 1, false, false, true, false, NULL, false},
    {"empty-flood-hello", A_EMPTY_HELLO, 1, true, false, true, false, NULL, false},
    {"brace-flood", A_BRACE, 1, false, false, true, true, NULL, false},
    {"brace-flood-4", A_BRACE4, 4, false, false, true, true, NULL, false},
    {"ping-storm", A_PING_STORM, 1000, true, true, false, true, NULL, false},
    {"chat-flood", A_CHAT, 1, true, true, true, true, "create 233 2", false},
    {"room-flood", A_ROOM, 1, true, true, true, true, NULL, false},
    {"room-flood-50", A_ROOM50, 50, true, true, true, true, NULL, false},
    {"addbot-spam", A_ADDBOT, 1, true, true, true, true, "create 233 6", false},
    {"addbot-own", A_ADDBOT_OWN, 1, true, true, true, true, NULL, false},
    {"idle-10k", A_IDLE, 10000, false, true, false, true, NULL, false},
    {"brace-flood-reconnect", A_BRACE4, 4, false, false, true, true, NULL, true},
    {"chat-flood-reconnect", A_CHAT, 1, true, true, true, true, "create 233 2", true},
};

static struct {
    const attack_t *a;
    const char *host;
    int port;
    int pid;
    double duration;
    int conns;
    int text_bytes;
    int window;
    int probe_us;
    int ping_ms;
    const char *bind;
} opt = {NULL, "127.0.0.1", 7233, 0, 5.0, 0, 400, 1024, 1000, 20, NULL};

/* ------------------------------------------------------------------------ */
/* Connections and global state                                              */
/* ------------------------------------------------------------------------ */

enum { ROLE_PROBE, ROLE_CHECK, ROLE_VICTIM, ROLE_TABLE, ROLE_ATTACK };
enum { PH_SETUP, PH_ATTACK, PH_DRAIN, PH_CHECK, PH_DONE };

typedef struct conn {
    uv_tcp_t tcp;
    uv_connect_t creq;
    uv_write_t wreq; /* the flood's one write in flight */
    uv_timer_t timer;
    int index, role;
    bool open;       /* the handle is initialised and not yet closed */
    bool connected;  /* the connection is made */
    bool reading;    /* uv_read_start called */
    bool by_server;  /* the server closed it (EOF, reset, refused write) */
    bool write_busy; /* wreq in flight */
    bool write_dead; /* a write failed: the server is gone for this one */
    bool timer_on;
    bool ready;        /* set-up done */
    bool ever_closed;  /* the server closed it at least once */
    bool reconnecting; /* a later connection of the same attacker */
    bool want_reconnect;
    int setup_sent, setup_got;
    bench_line_t in; /* partial line */
    char *out;       /* flood chunk */
    uint64_t out_lines;
    uint64_t submitted, sent, replies; /* attack lines and their replies */
    uint64_t gen;                      /* position in the attack's line cycle */
    char room[40];
    bool act_wait;
    uint64_t *stamps; /* ping-storm: send times of the pings in flight (a ring) */
} conn_t;

#define STORM_RING 64

static uv_loop_t *loop;
static int phase = PH_SETUP;
static conn_t *probe, *check, *victim, *table, *atk;
static int natk;
static uv_timer_t tick_timer, rss_timer, guard_timer;
static uint64_t t_start, t_phase, t_attack0, t_attack1;
static hist_t hist, storm_hist;
static const char *failure;
static char failure_buf[256];
static struct sockaddr_storage server_addr, bind_addr;
static bool use_bind;
static uv_buf_t rdbuf;

/* probe */
static bool probe_out, probe_measured, probe_late, probe_after_ok, check_ok;
static uint64_t probe_sent_at, probe_last_send;
static uint64_t probe_pings, probe_timeouts, probe_errors;
static char probe_err_sample[96];

/* attackers */
static int atk_next, atk_connecting, atk_connected, atk_ready, atk_closed, atk_connect_failed;
static uint64_t atk_closes, atk_reconnects;
static uint64_t lines_sent, attack_replies;
typedef struct {
    char code[40];
    uint64_t n;
} code_count_t;
static code_count_t codes[MAX_CODES];
static int ncodes;
static char chat_line[2048];
static size_t chat_len;

/* victim, table, server */
static bool victim_dropped, table_dropped, server_dead;
static uint64_t victim_chats, table_actions, table_errors, table_games;
static long rss_start, rss_max, rss_end;
static double cpu_attack0, cpu_attack1; /* this process's CPU seconds */

static void finish(const char *why);
static void setup_next(void);
static void pump(conn_t *c);
static void start_reading(conn_t *c);

static uint64_t now_ns(void)
{
    return uv_hrtime();
}

static bool starts(const char *p, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    return n >= k && memcmp(p, prefix, k) == 0;
}

/* The first failure wins: `result=TOKEN` in the output, the details on stderr. */
static void failf(const char *token, const char *fmt, ...)
{
    if (failure) return;
    failure = token;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(failure_buf, sizeof failure_buf, fmt, ap);
    va_end(ap);
    fprintf(stderr, "abuse: %s: %s\n", token, failure_buf);
}

/* ------------------------------------------------------------------------ */
/* The server process: VmRSS and liveness from /proc                          */
/* ------------------------------------------------------------------------ */

/* 1 alive, 0 gone or a zombie; *rss_kb set when read. */
static int server_status(long *rss_kb)
{
    if (opt.pid <= 0) return 1;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", opt.pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[256];
    int alive = 1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "State:", 6) == 0) {
            const char *s = line + 6;
            while (*s == ' ' || *s == '\t')
                s++;
            if (*s == 'Z' || *s == 'X') alive = 0;
        } else if (strncmp(line, "VmRSS:", 6) == 0) {
            *rss_kb = strtol(line + 6, NULL, 10);
        }
    }
    fclose(f);
    return alive;
}

static void on_rss(uv_timer_t *t)
{
    (void)t;
    long rss = 0;
    if (!server_status(&rss)) {
        server_dead = true;
        failf("server_died", "pid %d is gone", opt.pid);
        finish(failure);
        return;
    }
    if (phase == PH_ATTACK || phase == PH_DRAIN) {
        if (rss > rss_max) rss_max = rss;
    }
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                   */
/* ------------------------------------------------------------------------ */

static void send_bytes(conn_t *c, const char *data, size_t len)
{
    if (!c->open || !c->connected || c->write_dead) return;
    bench_write((uv_stream_t *)&c->tcp, data, len); /* on an error, the read side sees the end */
}

/* Send one line (a '\n' is added). */
static void sendf(conn_t *c, const char *fmt, ...)
{
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0 || n >= (int)sizeof line - 1) abort();
    line[n++] = '\n';
    send_bytes(c, line, (size_t)n);
}

/* A set-up request: its reply is the next one the connection gets. */
static void setup_send(conn_t *c, const char *line)
{
    c->setup_sent++;
    sendf(c, "%s", line);
}

/* ------------------------------------------------------------------------ */
/* Closing                                                                   */
/* ------------------------------------------------------------------------ */

static void on_closed(uv_handle_t *h)
{
    (void)h;
}

static void attacker_reconnect(conn_t *c);

static void on_tcp_closed(uv_handle_t *h)
{
    conn_t *c = h->data;
    if (c && c->want_reconnect) attacker_reconnect(c);
}

static void conn_close(conn_t *c)
{
    if (!c || !c->open) return;
    c->open = false;
    if (c->timer_on) {
        uv_timer_stop(&c->timer);
        uv_close((uv_handle_t *)&c->timer, on_closed);
        c->timer_on = false;
    }
    uv_close((uv_handle_t *)&c->tcp, on_tcp_closed);
}

/* The server ended this connection (EOF, reset, or a write refused). */
static void closed_by_server(conn_t *c, const char *how)
{
    if (c->by_server) return;
    c->by_server = true;
    switch (c->role) {
    case ROLE_ATTACK:
        atk_closes++;
        if (!c->ever_closed) atk_closed++;
        c->ever_closed = true;
        if (opt.a->reconnect && phase == PH_ATTACK) c->want_reconnect = true;
        if (phase == PH_SETUP)
            failf("setup_failed", "attacker %d closed by the server (%s)", c->index, how);
        break;
    case ROLE_PROBE:
    case ROLE_CHECK: {
        long rss = 0;
        if (!server_status(&rss)) {
            server_dead = true;
            failf("server_died", "pid %d is gone", opt.pid);
        } else {
            failf(c->role == ROLE_PROBE ? "probe_dropped" : "check_failed",
                  "%s connection closed by the server (%s)",
                  c->role == ROLE_PROBE ? "probe" : "check", how);
        }
        break;
    }
    case ROLE_VICTIM:
        victim_dropped = true;
        if (phase == PH_SETUP) failf("setup_failed", "victim closed by the server (%s)", how);
        break;
    case ROLE_TABLE:
        table_dropped = true;
        if (phase == PH_SETUP) failf("setup_failed", "table closed by the server (%s)", how);
        break;
    }
    if (failure) finish(failure);
}

/* ------------------------------------------------------------------------ */
/* Error codes                                                               */
/* ------------------------------------------------------------------------ */

static void count_code(const char *code, size_t n)
{
    if (n >= sizeof codes[0].code) n = sizeof codes[0].code - 1;
    for (int i = 0; i < ncodes; i++)
        if (strlen(codes[i].code) == n && memcmp(codes[i].code, code, n) == 0) {
            codes[i].n++;
            return;
        }
    if (ncodes == MAX_CODES) { /* the last slot takes the rest */
        snprintf(codes[MAX_CODES - 1].code, sizeof codes[0].code, "other");
        codes[MAX_CODES - 1].n++;
        return;
    }
    memcpy(codes[ncodes].code, code, n);
    codes[ncodes].code[n] = '\0';
    codes[ncodes++].n = 1;
}

/* The error.code of a reply or error event, counted; "?" when it has none. */
static void count_error(const char *p, size_t n)
{
    static const char key[] = "\"code\":\"";
    const char *k = memmem(p, n, key, sizeof key - 1);
    if (!k) {
        count_code("?", 1);
        return;
    }
    k += sizeof key - 1;
    const char *e = memchr(k, '"', (size_t)(p + n - k));
    count_code(k, e ? (size_t)(e - k) : 0);
}

/* A reply's "ok" is the first "ok": key of the line (the envelope's). */
static bool reply_ok(const char *p, size_t n)
{
    const char *k = memmem(p, n, "\"ok\":", 5);
    return k && k + 5 < p + n && k[5] == 't';
}

static int code_cmp(const void *a, const void *b)
{
    const uint64_t na = ((const code_count_t *)a)->n, nb = ((const code_count_t *)b)->n;
    return na < nb ? 1 : na > nb ? -1 : 0;
}

/* ------------------------------------------------------------------------ */
/* The probe and the final check                                             */
/* ------------------------------------------------------------------------ */

static void probe_send(void)
{
    uint64_t now = now_ns();
    probe_out = true;
    probe_late = false;
    probe_measured = phase == PH_ATTACK;
    probe_sent_at = probe_last_send = now;
    send_bytes(probe, "ping\n", 5);
}

static void probe_answered(bool ok)
{
    uint64_t rtt = now_ns() - probe_sent_at;
    probe_out = false;
    if (!ok) probe_errors++;
    if (probe_measured) {
        hist_add(&hist, rtt);
        probe_pings++;
        if (rtt > PROBE_LATE_NS && !probe_late) probe_timeouts++;
    }
    if (phase == PH_CHECK && probe_sent_at >= t_phase) probe_after_ok = true;
}

static void probe_line(conn_t *c, const char *p, size_t n)
{
    if (starts(p, n, "{\"re\":\"hello\"")) {
        if (!reply_ok(p, n)) {
            failf("setup_failed", "the probe's hello was refused: %.*s", (int)(n > 80 ? 80 : n), p);
            finish(failure);
            return;
        }
        c->ready = true;
        setup_next();
    } else if (starts(p, n, "{\"re\":\"ping\"")) {
        if (probe_out) probe_answered(reply_ok(p, n));
    } else if (starts(p, n, "{\"re\":") || starts(p, n, "{\"ev\":\"error\"")) {
        probe_errors++;
        if (!probe_err_sample[0])
            snprintf(probe_err_sample, sizeof probe_err_sample, "%.*s", (int)(n > 90 ? 90 : n), p);
        /* A refused ping is still its answer. */
        if (starts(p, n, "{\"re\":") && probe_out) probe_answered(false);
    }
}

static void check_line(conn_t *c, const char *p, size_t n)
{
    (void)c;
    if (starts(p, n, "{\"re\":\"hello\"")) {
        if (reply_ok(p, n))
            sendf(check, "ping");
        else
            failf("check_failed", "hello refused: %.*s", (int)(n > 80 ? 80 : n), p);
    } else if (starts(p, n, "{\"re\":\"ping\"")) {
        if (reply_ok(p, n))
            check_ok = true;
        else
            failf("check_failed", "ping refused: %.*s", (int)(n > 80 ? 80 : n), p);
    }
}

/* ------------------------------------------------------------------------ */
/* Players: the victim and the bot table                                     */
/* ------------------------------------------------------------------------ */

/* Act with the first legal action of a view that is not a claim. */
static void play(conn_t *c, json_t *view)
{
    json_t *legal = json_object_get(view, "legal");
    size_t i;
    json_t *a;
    json_array_foreach(legal, i, a)
    {
        const char *type = json_string_value(json_object_get(a, "type"));
        if (!type || strcmp(type, "claim") == 0) continue;
        json_t *req = json_pack("{s:s,s:s,s:O}", "cmd", "act", "room", c->room, "action", a);
        char *s = json_dumps(req, JSON_COMPACT);
        json_decref(req);
        if (!s) abort();
        sendf(c, "%s", s);
        free(s);
        c->act_wait = true;
        return;
    }
}

static void table_create(conn_t *c)
{
    c->room[0] = '\0';
    sendf(c, "create 233 2");
}

static void player_reply(conn_t *c, json_t *m, const char *re)
{
    bool ok = json_is_true(json_object_get(m, "ok"));
    const char *code = json_string_value(json_object_get(json_object_get(m, "error"), "code"));
    if (strcmp(re, "act") == 0) {
        c->act_wait = false;
        if (ok) {
            if (c->role == ROLE_TABLE) table_actions++;
        } else {
            if (c->role == ROLE_TABLE) table_errors++;
            sendf(c, "{\"cmd\":\"state\",\"room\":\"%s\"}", c->room); /* and go on from it */
        }
        return;
    }
    if (strcmp(re, "state") == 0) {
        json_t *view = json_object_get(m, "view");
        if (ok && view && !c->act_wait) play(c, view);
        return;
    }
    if (strcmp(re, "leave") == 0 || strcmp(re, "ping") == 0) return;
    if (!ok) {
        if (phase == PH_SETUP) {
            failf("setup_failed", "%s refused %s: %s", c->role == ROLE_VICTIM ? "victim" : "table",
                  re, code ? code : "?");
            finish(failure);
        } else if (c->role == ROLE_TABLE) {
            table_errors++;
        }
        return;
    }
    if (strcmp(re, "hello") == 0) {
        if (c->role == ROLE_VICTIM)
            sendf(c, "%s", opt.a->victim);
        else
            table_create(c);
    } else if (strcmp(re, "create") == 0) {
        const char *room = json_string_value(json_object_get(m, "room"));
        snprintf(c->room, sizeof c->room, "%s", room ? room : "");
        if (c->role == ROLE_TABLE) {
            sendf(c, "{\"cmd\":\"addbot\",\"room\":\"%s\"}", c->room);
        } else {
            c->ready = true;
            setup_next();
        }
    }
}

static void player_line(conn_t *c, const char *p, size_t n)
{
    if (starts(p, n, "{\"ev\":\"chat\"")) {
        if (c->role == ROLE_VICTIM) victim_chats++;
        return;
    }
    if (starts(p, n, "{\"ev\":\"room\"")) return;
    json_t *m = json_loadb(p, n, 0, NULL);
    if (!json_is_object(m)) {
        json_decref(m);
        return;
    }
    const char *re = json_string_value(json_object_get(m, "re"));
    const char *ev = json_string_value(json_object_get(m, "ev"));
    if (re) {
        player_reply(c, m, re);
    } else if (ev) {
        const char *room = json_string_value(json_object_get(m, "room"));
        bool mine = room && strcmp(room, c->room) == 0;
        if (strcmp(ev, "state") == 0 && mine) {
            if (c->role == ROLE_TABLE && !c->ready) {
                c->ready = true;
                setup_next();
            }
            if (!c->act_wait) play(c, json_object_get(m, "view"));
        } else if (strcmp(ev, "game_over") == 0 && mine) {
            c->act_wait = false;
            if (c->role == ROLE_TABLE) {
                table_games++;
                sendf(c, "{\"cmd\":\"leave\",\"room\":\"%s\"}", c->room);
                table_create(c);
            }
        }
    }
    json_decref(m);
}

/* ------------------------------------------------------------------------ */
/* Attackers                                                                 */
/* ------------------------------------------------------------------------ */

/* The i-th line of the attack (with its '\n'); its length. */
static size_t attack_line(conn_t *c, uint64_t i, char *tmp, size_t cap, const char **line)
{
    int n;
    switch (opt.a->id) {
    case A_EMPTY:
    case A_EMPTY_HELLO: *line = "\n"; return 1;
    case A_BRACE:
    case A_BRACE4: *line = "{\n"; return 2;
    case A_ROOM: *line = i % 2 == 0 ? "create 233 2\n" : "leave\n"; return strlen(*line);
    case A_ROOM50: *line = "create 233 2\n"; return 13;
    case A_CHAT: *line = chat_line; return chat_len;
    case A_ADDBOT:
    case A_ADDBOT_OWN:
        if (opt.a->id == A_ADDBOT_OWN && i % 6 == 5) {
            *line = "create 233 6\n";
            return 13;
        }
        n = snprintf(tmp, cap, "{\"cmd\":\"addbot\",\"room\":\"%s\"}\n", c->room);
        *line = tmp;
        return (size_t)n;
    default: *line = ""; return 0;
    }
}

static void on_flood_written(uv_write_t *req, int status)
{
    conn_t *c = req->data;
    c->write_busy = false;
    if (status == 0) {
        c->sent += c->out_lines;
        lines_sent += c->out_lines;
        pump(c);
    } else if (status != UV_ECANCELED) {
        /* The server is gone for this one: read what it said last. */
        c->write_dead = true;
        start_reading(c);
        closed_by_server(c, uv_err_name(status));
    }
}

/* Write the next chunk of attack lines if the socket has taken the last. */
static void pump(conn_t *c)
{
    if (phase != PH_ATTACK || !opt.a->flood || !c->open || !c->connected || !c->ready ||
        c->write_busy || c->write_dead)
        return;
    uint64_t room = UINT64_MAX;
    if (opt.a->reads && opt.a->replies) {
        /* Refill by halves of the window: chunks, not a write per reply. */
        uint64_t out = c->submitted - c->replies;
        if (out > (uint64_t)opt.window / 2) return;
        room = (uint64_t)opt.window - out;
    }
    if (!c->out) {
        c->out = malloc(FLOOD_CHUNK);
        if (!c->out) abort();
    }
    size_t n = 0;
    uint64_t lines = 0;
    char tmp[128];
    while (lines < room) {
        const char *l;
        size_t len = attack_line(c, c->gen, tmp, sizeof tmp, &l);
        if (len == 0 || n + len > FLOOD_CHUNK) break;
        memcpy(c->out + n, l, len);
        n += len;
        lines++;
        c->gen++;
    }
    if (!lines) return;
    c->out_lines = lines;
    c->submitted += lines;
    c->wreq.data = c;
    uv_buf_t b = uv_buf_init(c->out, (unsigned)n);
    if (uv_write(&c->wreq, (uv_stream_t *)&c->tcp, &b, 1, on_flood_written) < 0) {
        c->write_dead = true;
        closed_by_server(c, "write");
        return;
    }
    c->write_busy = true;
}

static void attacker_ready(conn_t *c)
{
    if (c->ready) return;
    c->ready = true;
    if (c->reconnecting) {
        pump(c);
        return;
    }
    atk_ready++;
    if (!opt.a->reads && c->reading) { /* it read its hello's reply; no more */
        uv_read_stop((uv_stream_t *)&c->tcp);
        c->reading = false;
    }
    setup_next();
}

static void attacker_setup_reply(conn_t *c, const char *p, size_t n)
{
    json_t *m = json_loadb(p, n, 0, NULL);
    const char *re = json_string_value(json_object_get(m, "re"));
    bool ok = json_is_true(json_object_get(m, "ok"));
    if ((!re || !ok) && phase != PH_SETUP) { /* a reconnecting attacker refused */
        count_error(p, n);
        json_decref(m);
        return;
    }
    if (!re || !ok) {
        failf("setup_failed", "attacker %d: refused: %.*s", c->index, (int)(n > 80 ? 80 : n), p);
        json_decref(m);
        finish(failure);
        return;
    }
    if (strcmp(re, "hello") == 0) {
        if (opt.a->id == A_CHAT || opt.a->id == A_ADDBOT) {
            snprintf(c->room, sizeof c->room, "%s", victim->room);
            char line[128];
            snprintf(line, sizeof line, "{\"cmd\":\"watch\",\"room\":\"%s\"}", c->room);
            setup_send(c, line);
        } else if (opt.a->id == A_ADDBOT_OWN) {
            setup_send(c, "create 233 6");
        } else {
            attacker_ready(c);
        }
    } else if (strcmp(re, "create") == 0) {
        const char *room = json_string_value(json_object_get(m, "room"));
        snprintf(c->room, sizeof c->room, "%s", room ? room : "");
        attacker_ready(c);
    } else if (strcmp(re, "watch") == 0) {
        attacker_ready(c);
    }
    json_decref(m);
}

static void attacker_line(conn_t *c, const char *p, size_t n)
{
    if (starts(p, n, "{\"re\":")) {
        if (c->setup_got < c->setup_sent) {
            c->setup_got++;
            attacker_setup_reply(c, p, n);
            return;
        }
        if (c->stamps && c->sent - c->replies <= STORM_RING)
            hist_add(&storm_hist, now_ns() - c->stamps[c->replies % STORM_RING]);
        c->replies++;
        attack_replies++;
        if (reply_ok(p, n)) {
            count_code("ok", 2);
            if (opt.a->id == A_ADDBOT_OWN && starts(p, n, "{\"re\":\"create\"")) {
                json_t *m = json_loadb(p, n, 0, NULL);
                const char *room = json_string_value(json_object_get(m, "room"));
                if (room) snprintf(c->room, sizeof c->room, "%s", room);
                json_decref(m);
            }
        } else {
            count_error(p, n);
        }
    } else if (starts(p, n, "{\"ev\":\"error\"")) {
        count_error(p, n);
    }
}

/* ------------------------------------------------------------------------ */
/* Reading and connecting                                                    */
/* ------------------------------------------------------------------------ */

static void handle_line(conn_t *c, const char *p, size_t n)
{
    if (n && p[n - 1] == '\r') n--;
    switch (c->role) {
    case ROLE_PROBE: probe_line(c, p, n); break;
    case ROLE_CHECK: check_line(c, p, n); break;
    case ROLE_VICTIM:
    case ROLE_TABLE: player_line(c, p, n); break;
    default: attacker_line(c, p, n); break;
    }
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *b)
{
    (void)h;
    (void)suggested;
    *b = rdbuf; /* consumed entirely by on_read before the next alloc */
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *b)
{
    conn_t *c = s->data;
    if (nread < 0) {
        if (phase != PH_DONE && c->open) {
            closed_by_server(c, uv_err_name((int)nread));
            conn_close(c);
        }
        return;
    }
    size_t at = 0, len;
    const char *line;
    while (c->open && phase != PH_DONE &&
           (line = bench_next_line(&c->in, b->base, (size_t)nread, &at, &len)))
        handle_line(c, line, len);
    if (c->role == ROLE_ATTACK) pump(c); /* the window may have opened */
}

static void start_reading(conn_t *c)
{
    if (c->open && c->connected && !c->reading) {
        c->reading = true;
        uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
    }
}

static void start_attacker_connects(void);

static void on_connect(uv_connect_t *req, int status)
{
    conn_t *c = req->data;
    if (c->role == ROLE_ATTACK && !c->reconnecting) atk_connecting--;
    if (status == UV_ECANCELED || !c->open) return;
    if (status < 0) {
        if (c->role == ROLE_ATTACK) {
            atk_connect_failed++;
            if (c->reconnecting) {
                conn_close(c);
                return;
            }
            if (phase == PH_SETUP) {
                failf("setup_failed", "attacker connect: %s", uv_strerror(status));
                finish(failure);
                return;
            }
            conn_close(c);
            start_attacker_connects();
        } else {
            failf("connect_failed", "%s:%d: %s", opt.host, opt.port, uv_strerror(status));
            finish(failure);
        }
        return;
    }
    c->connected = true;
    uv_tcp_nodelay(&c->tcp, 1);
    if (c->role != ROLE_ATTACK) {
        /* The others say hello by their role's name; the probe's is a set-up request. */
        static const char *const hello[] = {"hello probe", "hello check", "hello victim",
                                            "hello table"};
        start_reading(c);
        if (c->role == ROLE_PROBE)
            setup_send(c, hello[c->role]);
        else
            sendf(c, "%s", hello[c->role]);
        return;
    }
    char line[64];
    if (!c->reconnecting) atk_connected++;
    if (opt.a->reads) start_reading(c);
    if (opt.a->id == A_IDLE) {
        c->ready = true;
        atk_ready++;
        if (c->index % 2 == 0) {
            sendf(c, "hello idle%d", c->index);
            c->submitted++;
            c->sent++;
            lines_sent++;
        }
    } else if (opt.a->hello) {
        /* The hello of a non-reading attacker is read in set-up. */
        start_reading(c);
        snprintf(line, sizeof line, "hello atk%d", c->index);
        setup_send(c, line);
    } else {
        attacker_ready(c);
    }
    if (!c->reconnecting) start_attacker_connects();
}

static int conn_start(conn_t *c, bool attacker)
{
    bool bind_it = attacker && use_bind;
    int r = uv_tcp_init_ex(loop, &c->tcp, bind_it ? bind_addr.ss_family : AF_UNSPEC);
    if (r < 0) return r;
    c->tcp.data = c;
    c->creq.data = c;
    c->open = true;
    if (bind_it) {
#ifdef IP_BIND_ADDRESS_NO_PORT
        /* The port is chosen at connect time, by the whole 4-tuple: binding
         * thousands of sockets to port 0 would search the port space each time. */
        uv_os_fd_t fd;
        int one = 1;
        if (uv_fileno((uv_handle_t *)&c->tcp, &fd) == 0)
            setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
#endif
        r = uv_tcp_bind(&c->tcp, (struct sockaddr *)&bind_addr, 0);
    }
    if (r == 0) r = uv_tcp_connect(&c->creq, &c->tcp, (struct sockaddr *)&server_addr, on_connect);
    if (r < 0) conn_close(c);
    return r;
}

/* The server closed this attacker during the attack: the same attacker
 * connects again at once (a new session, when the attack says hello). */
static void attacker_reconnect(conn_t *c)
{
    c->want_reconnect = false;
    if (phase != PH_ATTACK) return;
    c->connected = c->reading = c->by_server = c->write_busy = c->write_dead = c->ready = false;
    c->setup_sent = c->setup_got = 0;
    c->in.len = 0;
    c->submitted = c->sent = c->replies = 0;
    c->reconnecting = true;
    atk_reconnects++;
    if (conn_start(c, true) < 0) atk_connect_failed++;
}

static void start_attacker_connects(void)
{
    int max = opt.a->id == A_IDLE ? 256 : 64;
    while ((phase == PH_SETUP || phase == PH_ATTACK) && atk_connecting < max && atk_next < natk) {
        conn_t *c = &atk[atk_next++];
        int r = conn_start(c, true);
        if (r < 0) {
            atk_connect_failed++;
            if (phase == PH_SETUP || r != UV_EMFILE) {
                failf("connect_failed", "attacker: %s", uv_strerror(r));
                finish(failure);
                return;
            }
            continue;
        }
        atk_connecting++;
    }
}

static conn_t *new_conn(int role)
{
    conn_t *c = calloc(1, sizeof *c);
    if (!c) abort();
    c->role = role;
    return c;
}

static void start_single(conn_t *c)
{
    int r = conn_start(c, false);
    if (r < 0) {
        failf("connect_failed", "%s", uv_strerror(r));
        finish(failure);
    }
}

/* ------------------------------------------------------------------------ */
/* Phases                                                                    */
/* ------------------------------------------------------------------------ */

static void on_storm_ping(uv_timer_t *t)
{
    conn_t *c = t->data;
    if (phase != PH_ATTACK || !c->open || !c->connected) return;
    if (!c->stamps) {
        c->stamps = calloc(STORM_RING, sizeof *c->stamps);
        if (!c->stamps) abort();
    }
    c->stamps[c->sent % STORM_RING] = now_ns(); /* older ones are overwritten: unmeasured */
    send_bytes(c, "ping\n", 5);
    c->submitted++;
    c->sent++;
    lines_sent++;
}

static void enter_attack(void)
{
    phase = PH_ATTACK;
    t_attack0 = t_phase = now_ns();
    cpu_attack0 = bench_cpu_seconds();
    server_status(&rss_start);
    rss_max = rss_start;
    for (int i = 0; i < natk; i++) {
        conn_t *c = &atk[i];
        if (opt.a->id == A_PING_STORM && c->open) {
            uv_timer_init(loop, &c->timer);
            c->timer.data = c;
            c->timer_on = true;
            uint64_t first = (uint64_t)(i % opt.ping_ms) + 1;
            uv_timer_start(&c->timer, on_storm_ping, first, (uint64_t)opt.ping_ms);
        }
        pump(c);
    }
}

static void enter_drain(void)
{
    phase = PH_DRAIN;
    t_attack1 = t_phase = now_ns();
    cpu_attack1 = bench_cpu_seconds();
    for (int i = 0; i < natk; i++) {
        conn_t *c = &atk[i];
        if (c->timer_on) uv_timer_stop(&c->timer);
        start_reading(c);
    }
}

static bool drained(void)
{
    if (!opt.a->replies) return true;
    for (int i = 0; i < natk; i++) {
        conn_t *c = &atk[i];
        if (!c->open || !c->connected) continue;
        if (c->write_busy || c->replies < c->sent) return false;
    }
    return true;
}

static void enter_check(void)
{
    for (int i = 0; i < natk; i++)
        conn_close(&atk[i]);
    phase = PH_CHECK;
    t_phase = now_ns();
    check = new_conn(ROLE_CHECK);
    start_single(check);
}

static void setup_next(void)
{
    if (phase != PH_SETUP || failure) return;
    if (!probe->ready) return;
    if (opt.a->victim) {
        if (!victim) {
            victim = new_conn(ROLE_VICTIM);
            start_single(victim);
            return;
        }
        if (!victim->ready) return;
        if (!chat_len) {
            char text[1501];
            for (int i = 0; i < opt.text_bytes; i++)
                text[i] = (char)('a' + i % 26);
            text[opt.text_bytes] = '\0';
            int n =
                snprintf(chat_line, sizeof chat_line,
                         "{\"cmd\":\"say\",\"room\":\"%s\",\"text\":\"%s\"}\n", victim->room, text);
            chat_len = (size_t)n;
        }
    }
    if (opt.a->id == A_PING_STORM && !table) {
        table = new_conn(ROLE_TABLE);
        start_single(table);
    }
    if (opt.a->id == A_IDLE) {
        enter_attack();
        start_attacker_connects();
        return;
    }
    if (atk_next == 0) start_attacker_connects();
    if (atk_ready < natk) return;
    if (table && !table->ready) return;
    enter_attack();
}

static void on_tick(uv_timer_t *t)
{
    (void)t;
    uint64_t now = now_ns();
    if (phase == PH_DONE) return;
    if (phase == PH_SETUP) {
        if (now - t_start > SETUP_MAX_NS) {
            failf("setup_timeout", "set-up not done in %d s", (int)(SETUP_MAX_NS / 1000 / MS));
            finish(failure);
        }
        return;
    }
    /* The probe: one ping outstanding, one every --probe-us at most. */
    if (probe_out) {
        uint64_t age = now - probe_sent_at;
        if (age > PROBE_LATE_NS && !probe_late) {
            probe_late = true;
            if (probe_measured) probe_timeouts++;
        }
        if (age > HANG_NS) {
            failf("hang", "the probe got no answer for 5 s");
            finish(failure);
            return;
        }
    } else if (probe->ready && now - probe_last_send >= (uint64_t)opt.probe_us * 1000) {
        probe_send();
    }
    double el = (double)(now - t_phase) / 1e9;
    if (phase == PH_ATTACK) {
        bool connects_done = atk_next >= natk && atk_connecting == 0;
        if (el >= opt.duration && (connects_done || el >= 3 * opt.duration)) enter_drain();
    } else if (phase == PH_DRAIN) {
        if ((el >= 0.1 && drained()) || now - t_phase > DRAIN_MAX_NS) enter_check();
    } else if (phase == PH_CHECK) {
        if (check_ok && probe_after_ok) {
            finish(NULL);
        } else if (now - t_phase > CHECK_MAX_NS) {
            failf("no_answer_after", "after the attack: probe %s, fresh connection %s",
                  probe_after_ok ? "ok" : "silent", check_ok ? "ok" : "silent");
            finish(failure);
        }
    }
}

static void on_guard(uv_timer_t *t)
{
    (void)t;
    failf("guard_timeout", "the run took too long");
    finish(failure);
}

static void finish(const char *why)
{
    if (phase == PH_DONE) return;
    if (why && !failure) failf(why, "%s", why);
    if (phase == PH_ATTACK) {
        t_attack1 = now_ns();
        cpu_attack1 = bench_cpu_seconds();
    }
    phase = PH_DONE;
    long rss = 0;
    if (server_status(&rss))
        rss_end = rss;
    else
        server_dead = true;
    uv_timer_stop(&tick_timer);
    uv_timer_stop(&rss_timer);
    uv_timer_stop(&guard_timer);
    for (int i = 0; i < natk; i++)
        conn_close(&atk[i]);
    conn_close(probe);
    conn_close(check);
    conn_close(victim);
    conn_close(table);
    uv_stop(loop);
}

/* ------------------------------------------------------------------------ */
/* Main                                                                      */
/* ------------------------------------------------------------------------ */

static void usage(void)
{
    fprintf(stderr, "usage: abuse ATTACK [--host H] [--port P] [--pid PID] [--duration S]\n"
                    "             [--conns N] [--text BYTES] [--window N] [--probe-us US]\n"
                    "             [--ping-ms MS] [--bind ADDR|none]\n"
                    "attacks:");
    for (size_t i = 0; i < sizeof attacks / sizeof attacks[0]; i++)
        fprintf(stderr, " %s", attacks[i].name);
    fputc('\n', stderr);
    exit(2);
}

static int parse_addr(const char *host, int port, struct sockaddr_storage *sa)
{
    if (uv_ip4_addr(host, port, (struct sockaddr_in *)sa) == 0) return 0;
    if (uv_ip6_addr(host, port, (struct sockaddr_in6 *)sa) == 0) return 0;
    return -1;
}

/* Can the attackers' address be bound here? */
static bool bind_works(void)
{
    int fd = socket(bind_addr.ss_family, SOCK_STREAM, 0);
    if (fd < 0) return false;
    socklen_t len =
        bind_addr.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    bool ok = bind(fd, (struct sockaddr *)&bind_addr, len) == 0;
    close(fd);
    return ok;
}

static void print_results(void)
{
    double secs = t_attack1 > t_attack0 ? (double)(t_attack1 - t_attack0) / 1e9 : 0;
    char by_code[1024] = "-";
    qsort(codes, (size_t)ncodes, sizeof codes[0], code_cmp);
    size_t off = 0;
    for (int i = 0; i < ncodes && off < sizeof by_code - 64; i++)
        off += (size_t)snprintf(by_code + off, sizeof by_code - off, "%s%s:%" PRIu64, i ? "," : "",
                                codes[i].code, codes[i].n);
    char closed[32];
    if (atk_closed == 0)
        snprintf(closed, sizeof closed, "no");
    else if (atk_closed >= natk)
        snprintf(closed, sizeof closed, "yes");
    else
        snprintf(closed, sizeof closed, "%d/%d", atk_closed, natk);
    uint64_t unanswered = 0;
    if (opt.a->replies)
        for (int i = 0; i < natk; i++)
            if (!atk[i].by_server && atk[i].sent > atk[i].replies)
                unanswered += atk[i].sent - atk[i].replies;
    bool alive = !server_dead && check_ok && probe_after_ok;
    double p99 = hist_pct_us(&hist, 99);
    printf("attack=%s probe_p50_us=%.0f probe_p99_us=%.0f probe_p999_us=%.0f probe_max_us=%.0f "
           "probe_timeouts=%" PRIu64 " rss_max_kb=%ld attacker_lines_sent=%" PRIu64
           " replies_by_code=%s attacker_closed=%s server_alive=%s",
           opt.a->name, hist_pct_us(&hist, 50), p99, hist_pct_us(&hist, 99.9),
           (double)hist.max / 1000.0, probe_timeouts, rss_max, lines_sent, by_code, closed,
           alive ? "yes" : "no");
    printf(" probe_pings=%" PRIu64 " probe_errors=%" PRIu64 " p99_under_5ms=%s rss_start_kb=%ld "
           "rss_end_kb=%ld attackers=%d connected=%d connect_failed=%d attacker_replies=%" PRIu64
           " unanswered=%" PRIu64,
           probe_pings, probe_errors, probe_pings && p99 < 5000 ? "yes" : "no", rss_start, rss_end,
           natk, atk_connected, atk_connect_failed, attack_replies, unanswered);
    if (opt.a->reconnect)
        printf(" attacker_closes=%" PRIu64 " reconnects=%" PRIu64, atk_closes, atk_reconnects);
    if (victim)
        printf(" victim_dropped=%s victim_chats=%" PRIu64, victim_dropped ? "yes" : "no",
               victim_chats);
    if (opt.a->id == A_PING_STORM)
        printf(" storm_p50_us=%.0f storm_p99_us=%.0f storm_max_us=%.0f",
               hist_pct_us(&storm_hist, 50), hist_pct_us(&storm_hist, 99),
               (double)storm_hist.max / 1000.0);
    if (table)
        printf(" table_actions=%" PRIu64 " table_errors=%" PRIu64 " table_games=%" PRIu64
               " table_dropped=%s",
               table_actions, table_errors, table_games, table_dropped ? "yes" : "no");
    printf(" seconds=%.2f client_cpu=%.0f%% result=%s\n", secs,
           secs > 0 ? 100.0 * (cpu_attack1 - cpu_attack0) / secs : 0.0, failure ? failure : "ok");
    if (probe_err_sample[0]) fprintf(stderr, "abuse: first probe error: %s\n", probe_err_sample);
    if (victim_dropped) fprintf(stderr, "abuse: the victim was dropped\n");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    if (argc < 2) usage();
    for (size_t i = 0; i < sizeof attacks / sizeof attacks[0]; i++)
        if (strcmp(argv[1], attacks[i].name) == 0) opt.a = &attacks[i];
    if (!opt.a) usage();
    signal(SIGPIPE, SIG_IGN); /* a write to a closed connection is an error, not death */
    const bench_option_t options[] = {
        {"--host", BENCH_STRING, &opt.host},
        {"--port", BENCH_INT, &opt.port},
        {"--pid", BENCH_INT, &opt.pid},
        {"--duration", BENCH_DOUBLE, &opt.duration},
        {"--conns", BENCH_INT, &opt.conns},
        {"--text", BENCH_INT, &opt.text_bytes},
        {"--window", BENCH_INT, &opt.window},
        {"--probe-us", BENCH_INT, &opt.probe_us},
        {"--ping-ms", BENCH_INT, &opt.ping_ms},
        {"--bind", BENCH_STRING, &opt.bind},
        {NULL, BENCH_INT, NULL},
    };
    if (!bench_options(argc, argv, 2, options)) usage();
    natk = opt.conns > 0 ? opt.conns : opt.a->conns;
    if (opt.port <= 0 || opt.port > 65535 || opt.duration <= 0 || opt.duration > 600 ||
        opt.text_bytes < 1 || opt.text_bytes > 1500 || opt.window < 1 || opt.probe_us < 1 ||
        opt.ping_ms < 1 || natk < 1 || natk > 100000)
        usage();
    if (parse_addr(opt.host, opt.port, &server_addr) < 0) {
        fprintf(stderr, "abuse: bad host %s\n", opt.host);
        return 2;
    }
    if (!opt.bind) opt.bind = strcmp(opt.host, "127.0.0.1") == 0 ? "127.0.0.2" : "none";
    if (strcmp(opt.bind, "none") != 0) {
        if (parse_addr(opt.bind, 0, &bind_addr) < 0) {
            fprintf(stderr, "abuse: bad --bind %s\n", opt.bind);
            return 2;
        }
        use_bind = bind_works();
        if (!use_bind)
            fprintf(stderr, "abuse: cannot bind %s; the attackers use the default address\n",
                    opt.bind);
    }

    bench_raise_nofile(natk + 16);
    loop = uv_default_loop();
    rdbuf = uv_buf_init(malloc(1 << 16), 1 << 16);
    atk = calloc((size_t)natk, sizeof *atk);
    if (!rdbuf.base || !atk) abort();
    for (int i = 0; i < natk; i++) {
        atk[i].index = i;
        atk[i].role = ROLE_ATTACK;
    }
    probe = new_conn(ROLE_PROBE);

    uv_timer_init(loop, &tick_timer);
    uv_timer_init(loop, &rss_timer);
    uv_timer_init(loop, &guard_timer);
    t_start = now_ns();
    uv_timer_start(&tick_timer, on_tick, 1, 1);
    uv_timer_start(&rss_timer, on_rss, 0, 10);
    uint64_t guard_ms = (uint64_t)(SETUP_MAX_NS / MS) + (uint64_t)(3 * opt.duration * 1000) +
                        (DRAIN_MAX_NS + CHECK_MAX_NS) / MS + 5000;
    uv_timer_start(&guard_timer, on_guard, guard_ms, 0);
    start_single(probe);
    uv_run(loop, UV_RUN_DEFAULT);
    uv_run(loop, UV_RUN_NOWAIT); /* let the closes finish */

    print_results();
    /* Handles may still be open if the server vanished; the OS closes them. */
    return failure ? 1 : 0;
}
