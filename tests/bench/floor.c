/*
 * floor.c — the floor under tapisd's table benchmarks: a libuv server with
 * no game in it that answers each line of `loadgen tables` with the very
 * bytes tapisd writes for it. tapisd's figures over the floor's, in the same
 * run under the same load (run_ratio.sh), show what tapisd costs beyond
 * reading lines and writing its bytes through loopback TCP.
 *
 *   floor record --port P --out FILE [--games K] [--acts N] [--target N]
 *   floor serve --script FILE [--port P]
 *
 * Method. `floor record` (floor_record.c) plays K games of 233 (default 32)
 * against a running tapisd (run_ratio.sh starts one with --seed 1, so each
 * recording deals the same cards) with two connections, as loadgen plays:
 * hello on both, seat 0 creates a two-player room, seat 1 joins, the seat
 * with a legal action that is not a claim sends the first one back as the
 * server wrote it, and at game_over both leave (seat 0 first, then seat 1
 * first in the next finished game) and seat 0 creates the next room. Each
 * game stops at its end or at its Nth act (default 400: a table at a 100 ms
 * thinking time plays about 120 in a 10 s run). After each request a `ping`
 * on each connection marks where tapisd's output for it ends; every line
 * before is kept verbatim, except that the room id and the two names become
 * holes, in a script file (floor_script.h). A game in which both seats may
 * act at once (both place a dealt gift at the start of a round, 233's one
 * simultaneous move: 1 of the first 33 games of --seed 1 before its 400th
 * act) is left out: the order of the two acts is loadgen's timers', which a
 * replay cannot follow. tapisd plays such games in the benchmarks (and
 * loadgen's acts there now and then lose a race: act_errors); the floor
 * does not.
 *
 * `floor serve` reads the script at start-up and runs no game logic: for
 * each line it reads the command and the room, fills the holes of the
 * recorded bytes with that room's id and its players' names (rooms are
 * numbered 1, 2, ... in creation order, as tapisd numbers them) and writes
 * them, one write per connection per request, as tapisd flushes. Room R
 * replays recorded game (R - 1) mod K. Each request must be the recorded one
 * (the same line from the same seat at the same step), or it is refused and
 * counted. On SIGTERM it prints on stderr the acts it answered, the bytes it
 * wrote and the requests it could not replay (run_ratio.sh fails a run
 * unless there were none).
 *
 * Checked by check_floor.sh (the test floor_replays_tapisd): the same games
 * recorded from the floor serving a script give that script byte for byte.
 * The bytes per act the two servers write in a benchmark (run_ratio.sh
 * prints both) differ by the games played: 16 tables playing the same 16
 * games for 3 s (tapisd with --seed 1) gave 1814.2 and 1813.2.
 */
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "tests/bench/bench.h"
#include "tests/bench/floor_script.h"

/* ------------------------------------------------------------------------ */
/* Serving                                                                   */
/* ------------------------------------------------------------------------ */

#define NAME_MAX_LEN 32
#define PONG "{\"re\":\"ping\",\"ok\":true}\n"

typedef struct conn {
    uv_tcp_t tcp;
    bench_line_t in;
    char name[NAME_MAX_LEN + 1];
    int room, seat; /* the room it plays in (0: none) */
} conn_t;

typedef struct {
    conn_t *seat[2];
    char name[2][NAME_MAX_LEN + 1];
    char id[16];
    size_t game, step; /* the next step of script.games[game] */
    bool left[2];
} room_t;

static uv_loop_t *loop;
static uv_tcp_t listener;
static uv_signal_t sigterm, sigint;
static room_t *rooms; /* rooms[id - 1] */
static int nrooms, rooms_cap;
static uint64_t acts, bytes_written, desyncs;
static uv_buf_t rdbuf;
static script_t script;
#define SHARED(kind, seat) (&script.shared[kind][seat])

static void send_text(conn_t *c, const text_t *t, const room_t *r)
{
    if (!c || !t->len) return;
    fill_t fill = {r->id, {r->name[0], r->name[1]}};
    size_t len;
    const char *bytes = script_render(t, &fill, &len);
    if (bench_write((uv_stream_t *)&c->tcp, bytes, len) == 0) bytes_written += len;
}

/* What tapisd wrote for step st: first to the sender (as tapisd queues it), then the other. */
static void play_step(const step_t *st, room_t *r)
{
    send_text(r->seat[st->seat], &st->out[st->seat], r);
    send_text(r->seat[1 - st->seat], &st->out[1 - st->seat], r);
}

/* Whether line[0, len) is the request of st in room r. */
static bool expected(const step_t *st, const room_t *r, const char *line, size_t len)
{
    fill_t fill = {r->id, {r->name[0], r->name[1]}};
    size_t n;
    const char *want = script_render(&st->in, &fill, &n);
    return n == len && memcmp(want, line, len) == 0;
}

/* The string value of `key` ("\"room\":\"") in the line, copied into out (size cap). */
static bool field(const char *line, size_t len, const char *key, char *out, size_t cap)
{
    const char *p = memmem(line, len, key, strlen(key));
    if (!p) return false;
    p += strlen(key);
    const char *q = memchr(p, '"', (size_t)(line + len - p));
    if (!q || (size_t)(q - p) >= cap) return false;
    memcpy(out, p, (size_t)(q - p));
    out[q - p] = '\0';
    return true;
}

/* The room a line names, if it is one of ours. */
static room_t *line_room(const char *line, size_t len)
{
    char id[16];
    if (!field(line, len, "\"room\":\"", id, sizeof id)) return NULL;
    int n = atoi(id);
    return n >= 1 && n <= nrooms ? &rooms[n - 1] : NULL;
}

static void refuse(conn_t *c, const char *re)
{
    char line[160];
    int n = snprintf(line, sizeof line,
                     "{\"re\":\"%s\",\"ok\":false,\"error\":{\"code\":\"internal\","
                     "\"message\":\"not in the floor's script\"}}\n",
                     re);
    desyncs++;
    bench_write((uv_stream_t *)&c->tcp, line, (size_t)n);
}

static void on_hello(conn_t *c, const char *line, size_t len)
{
    if (!field(line, len, "\"name\":\"", c->name, sizeof c->name)) {
        refuse(c, "hello");
        return;
    }
    room_t r = {.id = ""};
    memcpy(r.name[0], c->name, sizeof c->name);
    memcpy(r.name[1], c->name, sizeof c->name);
    if (!expected(SHARED(K_HELLO, 0), &r, line, len)) {
        refuse(c, "hello");
        return;
    }
    r.seat[0] = c;
    play_step(SHARED(K_HELLO, 0), &r);
}

static void on_create(conn_t *c, const char *line, size_t len)
{
    if (nrooms == rooms_cap) {
        rooms_cap = rooms_cap ? 2 * rooms_cap : 1024;
        rooms = realloc(rooms, (size_t)rooms_cap * sizeof *rooms);
        if (!rooms) abort();
    }
    room_t *r = &rooms[nrooms++];
    *r = (room_t){.seat = {c, NULL}, .game = (size_t)(nrooms - 1) % script.ngames};
    snprintf(r->id, sizeof r->id, "%d", nrooms);
    memcpy(r->name[0], c->name, sizeof c->name);
    if (!expected(SHARED(K_CREATE, 0), r, line, len)) {
        r->seat[0] = NULL;
        refuse(c, "create");
        return;
    }
    c->room = nrooms;
    c->seat = 0;
    play_step(SHARED(K_CREATE, 0), r);
}

static void on_join(conn_t *c, const char *line, size_t len)
{
    room_t *r = line_room(line, len);
    if (!r || r->seat[1] || r->step != 0 || !r->seat[0]) {
        refuse(c, "join");
        return;
    }
    memcpy(r->name[1], c->name, sizeof c->name);
    const step_t *st = &script.games[r->game].steps[0];
    if (!expected(st, r, line, len)) {
        refuse(c, "join");
        return;
    }
    r->seat[1] = c;
    c->room = (int)(r - rooms) + 1;
    c->seat = 1;
    r->step = 1;
    play_step(st, r);
}

static void on_act(conn_t *c, const char *line, size_t len)
{
    room_t *r = line_room(line, len);
    const game_script_t *g = r ? &script.games[r->game] : NULL;
    const step_t *st = g && r->step > 0 && r->step < g->n ? &g->steps[r->step] : NULL;
    if (!st || r->seat[st->seat] != c || !expected(st, r, line, len)) {
        refuse(c, "act");
        return;
    }
    r->step++;
    acts++;
    play_step(st, r);
}

static void on_leave(conn_t *c, const char *line, size_t len)
{
    room_t *r = line_room(line, len);
    int s = c->seat, other = 1 - c->seat;
    if (!r || r->seat[s] != c || !script.games[r->game].over ||
        r->step != script.games[r->game].n) {
        refuse(c, "leave");
        return;
    }
    const step_t *st = SHARED(r->left[other] || !r->seat[other] ? K_LEAVE_LAST : K_LEAVE_FIRST, s);
    if (!st->in.len || !expected(st, r, line, len)) {
        refuse(c, "leave");
        return;
    }
    play_step(st, r);
    r->left[s] = true;
    r->seat[s] = NULL;
    c->room = 0;
}

/* The recorder's barrier (a replay recorded from the floor must equal tapisd's). */
static void on_ping(conn_t *c, const char *line, size_t len)
{
    static const char pong[] = PONG;
    (void)line;
    (void)len;
    if (bench_write((uv_stream_t *)&c->tcp, pong, sizeof pong - 1) == 0)
        bytes_written += sizeof pong - 1;
}

/* The commands loadgen sends (a refused act's `state` is not among them), and ping. */
static const struct {
    const char *prefix;
    void (*handler)(conn_t *c, const char *line, size_t len);
} commands[] = {
    {"{\"cmd\":\"act\",", on_act},       {"{\"cmd\":\"hello\",", on_hello},
    {"{\"cmd\":\"create\",", on_create}, {"{\"cmd\":\"join\",", on_join},
    {"{\"cmd\":\"leave\",", on_leave},   {"{\"cmd\":\"ping\"}", on_ping},
};

static void on_line(conn_t *c, const char *line, size_t len)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        size_t n = strlen(commands[i].prefix);
        if (len >= n && memcmp(line, commands[i].prefix, n) == 0) {
            commands[i].handler(c, line, len);
            return;
        }
    }
    refuse(c, "?");
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *b)
{
    (void)h;
    (void)suggested;
    *b = rdbuf; /* consumed entirely by on_read before the next alloc */
}

static void on_conn_closed(uv_handle_t *h)
{
    conn_t *c = h->data;
    free(c->in.data);
    free(c);
}

static void conn_close(conn_t *c)
{
    if (c->room && rooms[c->room - 1].seat[c->seat] == c) rooms[c->room - 1].seat[c->seat] = NULL;
    c->room = 0;
    uv_close((uv_handle_t *)&c->tcp, on_conn_closed);
}

/* A read holds at most 64 KiB, which bounds the lines taken in one callback. */
static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *b)
{
    conn_t *c = s->data;
    if (nread < 0) {
        conn_close(c);
        return;
    }
    size_t at = 0, len;
    const char *line;
    while ((line = bench_next_line(&c->in, b->base, (size_t)nread, &at, &len)))
        on_line(c, line, len);
}

static void on_connection(uv_stream_t *l, int status)
{
    if (status < 0) return;
    conn_t *c = calloc(1, sizeof *c);
    if (!c) abort();
    uv_tcp_init(loop, &c->tcp);
    c->tcp.data = c;
    if (uv_accept(l, (uv_stream_t *)&c->tcp) != 0) {
        uv_close((uv_handle_t *)&c->tcp, on_conn_closed);
        return;
    }
    uv_tcp_nodelay(&c->tcp, 1);
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
}

static void close_any(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (uv_is_closing(h)) return;
    if (h->type == UV_TCP && h != (uv_handle_t *)&listener)
        conn_close(h->data);
    else
        uv_close(h, NULL);
}

static void on_signal(uv_signal_t *h, int signum)
{
    (void)h;
    (void)signum;
    fprintf(stderr, "floor: acts=%llu bytes_written=%llu desyncs=%llu rooms=%d\n",
            (unsigned long long)acts, (unsigned long long)bytes_written,
            (unsigned long long)desyncs, nrooms);
    uv_walk(loop, close_any, NULL);
}

static int serve(const char *path, int port)
{
    if (script_load(&script, path) != 0) return 1;
    size_t steps = 0;
    for (size_t g = 0; g < script.ngames; g++)
        steps += script.games[g].n;
    fprintf(stderr, "floor: %zu games, %zu steps\n", script.ngames, steps);
    struct sockaddr_in sa;
    loop = uv_default_loop();
    rdbuf = uv_buf_init(malloc(1 << 16), 1 << 16);
    if (!rdbuf.base) abort();
    uv_tcp_init(loop, &listener);
    int r = uv_ip4_addr("127.0.0.1", port, &sa);
    if (r == 0) r = uv_tcp_bind(&listener, (const struct sockaddr *)&sa, 0);
    if (r == 0) r = uv_listen((uv_stream_t *)&listener, 4096, on_connection);
    if (r != 0) {
        fprintf(stderr, "floor: listen on 127.0.0.1:%d: %s\n", port, uv_strerror(r));
        return 1;
    }
    int salen = sizeof sa;
    uv_tcp_getsockname(&listener, (struct sockaddr *)&sa, &salen);
    fprintf(stderr, "floor: listening on 127.0.0.1:%d\n", ntohs(sa.sin_port));
    uv_signal_init(loop, &sigterm);
    uv_signal_start(&sigterm, on_signal, SIGTERM);
    uv_signal_init(loop, &sigint);
    uv_signal_start(&sigint, on_signal, SIGINT);
    uv_run(loop, UV_RUN_DEFAULT);
    int closed = uv_loop_close(loop);
    free(rdbuf.base);
    free(rooms);
    script_free(&script);
    return closed == 0 ? 0 : 1;
}

/* ------------------------------------------------------------------------ */
/* Main                                                                      */
/* ------------------------------------------------------------------------ */

static void usage(void)
{
    fprintf(stderr, "usage: floor record --port P --out FILE [--games K] [--acts N] [--target N]\n"
                    "       floor serve --script FILE [--port P]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int port = 0, ngame = 32, cap = 400, target = 0;
    const char *out = NULL, *script = NULL;
    const bench_option_t options[] = {
        {"--port", BENCH_INT, &port},     {"--out", BENCH_STRING, &out},
        {"--games", BENCH_INT, &ngame},   {"--acts", BENCH_INT, &cap},
        {"--target", BENCH_INT, &target}, {"--script", BENCH_STRING, &script},
        {NULL, BENCH_INT, NULL},
    };
    if (argc < 2 || !bench_options(argc, argv, 2, options)) usage();
    if (strcmp(argv[1], "record") == 0 && port > 0 && port < 65536 && out && ngame >= 1 && cap >= 1)
        return record_games(port, out, ngame, cap, target);
    if (strcmp(argv[1], "serve") == 0 && script && port >= 0 && port < 65536)
        return serve(script, port);
    usage();
}
