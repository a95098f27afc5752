/*
 * floor_record.c — `floor record`: what tapisd writes for each of loadgen's
 * requests, taken down as a script (floor_script.h) for the floor to replay.
 * floor.c's header gives the method; this file is its first half.
 *
 * Two blocking connections play as loadgen does, one request at a time.
 * After each request, `ping` on the sender's connection, then on the
 * other's: replies come in request order, and a request's events are
 * written before a later line's reply, so what comes before each `ping`
 * reply is what tapisd wrote for that request to that connection.
 */
#include "tests/bench/floor_script.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <jansson.h>

#define PING "{\"cmd\":\"ping\"}"
#define PONG "{\"re\":\"ping\",\"ok\":true}"

/* One connection to tapisd and the bytes read from it but not yet taken. */
typedef struct {
    int fd;
    char *buf;
    size_t start, len, cap;
    char name[33];
    char *state; /* the state event of the current request (malloc'd), or NULL */
    bool over;   /* a game_over came for the current request */
} rec_conn_t;

static rec_conn_t rec[2];
static char rec_room[16]; /* the room played ("": none yet) */
static script_t script;

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "floor record: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) die("write to tapisd", strerror(errno));
        p += k;
        n -= (size_t)k;
    }
}

/* The next line of c (without its '\n', NUL-terminated), valid until the next call. */
static char *rec_line(rec_conn_t *c)
{
    for (;;) {
        char *p = c->buf + c->start, *nl = c->buf ? memchr(p, '\n', c->len - c->start) : NULL;
        if (nl) {
            *nl = '\0';
            c->start = (size_t)(nl - c->buf) + 1;
            return p;
        }
        if (c->start) memmove(c->buf, p, c->len - c->start);
        c->len -= c->start;
        c->start = 0;
        if (c->cap - c->len < 65536) {
            c->cap = 2 * c->cap + 65536;
            c->buf = realloc(c->buf, c->cap);
            if (!c->buf) abort();
        }
        ssize_t k = read(c->fd, c->buf + c->len, c->cap - c->len - 1);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) die("read from tapisd", k < 0 ? strerror(errno) : "closed");
        c->len += (size_t)k;
    }
}

/* Append line to t with the room id and the two names as holes. */
static void add_holed(text_t *t, const char *line)
{
    char pat[3][64], hole[3][16];
    int npat = 0;
    for (int s = 0; s < 2; s++) {
        snprintf(pat[npat], sizeof pat[0], "\"name\":\"%s\"", rec[s].name);
        snprintf(hole[npat++], sizeof hole[0], "\"name\":\"%c%c\"", SCRIPT_HOLE, s ? 'B' : 'A');
    }
    if (rec_room[0]) {
        snprintf(pat[npat], sizeof pat[0], "\"room\":\"%s\"", rec_room);
        snprintf(hole[npat++], sizeof hole[0], "\"room\":\"%cR\"", SCRIPT_HOLE);
    }
    size_t start = t->len;
    for (const char *p = line; *p;) {
        int k = 0;
        while (k < npat && strncmp(p, pat[k], strlen(pat[k])) != 0)
            k++;
        if (k < npat) {
            text_add(t, hole[k], strlen(hole[k]));
            p += strlen(pat[k]);
        } else {
            text_add(t, p++, 1);
        }
    }
    for (int s = 0; s < 2; s++) /* a name anywhere else would not be filled in */
        if (memmem(t->data + start, t->len - start, rec[s].name, strlen(rec[s].name)))
            die("a name where it cannot be a hole", line);
}

/* Read c's lines up to the reply to its `ping` into out (with holes, "\n" each). */
static void rec_collect(rec_conn_t *c, text_t *out)
{
    char *line;
    free(c->state);
    c->state = NULL;
    c->over = false;
    while (strcmp(line = rec_line(c), PONG) != 0) {
        if (strncmp(line, "{\"ev\":\"state\",", 14) == 0) {
            if (c->state) die("two states for one request (loadgen acts on the first)", line);
            c->state = strdup(line);
        }
        if (strncmp(line, "{\"ev\":\"game_over\",", 18) == 0) c->over = true;
        if (strstr(line, "\"ok\":false")) die("tapisd refused", line);
        add_holed(out, line);
        text_add(out, "\n", 1);
    }
}

/* Send `in` from seat s and take down in st what tapisd writes to each seat for it. */
static void rec_step(step_t *st, int kind, int s, const char *in)
{
    st->kind = kind;
    st->seat = s;
    add_holed(&st->in, in);
    char *msg = malloc(strlen(in) + sizeof PING + 2); /* in, "\n", PING, "\n", NUL */
    if (!msg) abort();
    sprintf(msg, "%s\n%s\n", in, PING);
    write_all(rec[s].fd, msg, strlen(msg));
    free(msg);
    rec_collect(&rec[s], &st->out[s]);
    write_all(rec[1 - s].fd, PING "\n", sizeof PING);
    rec_collect(&rec[1 - s], &st->out[1 - s]);
}

/* A request of a step every game shares (the first one of its kind and seat is kept). */
static void rec_shared(int kind, int s, const char *in)
{
    step_t st = {0};
    rec_step(&st, kind, s, in);
    script_keep_shared(&script, &st);
}

/* loadgen's choice in c's state: the first legal action that is not a claim (malloc'd). */
static char *rec_choice(const rec_conn_t *c)
{
    if (!c->state) return NULL;
    json_error_t err;
    json_t *ev = json_loads(c->state, 0, &err);
    json_t *legal = json_object_get(json_object_get(ev, "view"), "legal");
    char *text = NULL;
    for (size_t i = 0; !text && i < json_array_size(legal); i++) {
        json_t *a = json_array_get(legal, i);
        const char *type = json_string_value(json_object_get(a, "type"));
        if (type && strcmp(type, "claim") != 0) text = json_dumps(a, JSON_COMPACT);
    }
    json_decref(ev);
    return text;
}

/* Connect both seats to tapisd under new names (attempt n) and say hello. */
static void rec_connect(const struct sockaddr_in *sa, int n)
{
    struct timeval tv = {10, 0}; /* a tapisd that stops answering fails the recording */
    char line[128];
    for (int s = 0; s < 2; s++) {
        int one = 1;
        if (rec[s].fd > 0) close(rec[s].fd);
        rec[s].fd = socket(AF_INET, SOCK_STREAM, 0);
        if (rec[s].fd < 0 || connect(rec[s].fd, (const struct sockaddr *)sa, sizeof *sa) != 0)
            die("connect to tapisd", strerror(errno));
        setsockopt(rec[s].fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        setsockopt(rec[s].fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        rec[s].start = rec[s].len = 0;
        snprintf(rec[s].name, sizeof rec[s].name, "floor%c%dn%d", s ? 'b' : 'a', (int)getpid(), n);
    }
    for (int s = 0; s < 2; s++) {
        snprintf(line, sizeof line, "{\"cmd\":\"hello\",\"name\":\"%s\"}", rec[s].name);
        if (s == 0) {
            rec_shared(K_HELLO, s, line);
        } else {
            step_t st = {0};
            rec_step(&st, K_HELLO, s, line);
            step_free(&st);
        }
    }
}

/*
 * Play the game of room `room` into g: to its end, then both leave (seat
 * `first` first), or to its `cap`th act. Returns false, the game left
 * unfinished, where both seats may act at once (both place a dealt gift):
 * their order would be loadgen's timers', which a replay cannot follow.
 */
static bool rec_game(game_script_t *g, int room, int first, int cap, const char *create)
{
    char line[768];
    /* tapisd numbers its rooms 1, 2, ... in creation order: the create reply must say so. */
    snprintf(rec_room, sizeof rec_room, "%d", room);
    rec_shared(K_CREATE, 0, create);
    const text_t *reply = &script.shared[K_CREATE][0].out[0];
    static const char room_hole[] = {'"', 'r', 'o', 'o', 'm', '"', ':', '"', SCRIPT_HOLE, 'R', '"'};
    if (!memmem(reply->data, reply->len, room_hole, sizeof room_hole))
        die("tapisd did not number the room", rec_room);
    snprintf(line, sizeof line, "{\"cmd\":\"join\",\"room\":\"%s\"}", rec_room);
    rec_step(script_new_step(g), K_JOIN, 1, line);
    while (!rec[0].over && g->n <= (size_t)cap) {
        char *a0 = rec_choice(&rec[0]), *a1 = rec_choice(&rec[1]);
        if (!a0 && !a1) die("no seat may act (a timer would play)", rec[0].state);
        if (a0 && a1) {
            free(a0);
            free(a1);
            return false;
        }
        int n = snprintf(line, sizeof line, "{\"cmd\":\"act\",\"room\":\"%s\",\"action\":%s}",
                         rec_room, a0 ? a0 : a1);
        free(a0 ? a0 : a1);
        if (n < 0 || (size_t)n >= sizeof line) die("an action too long", NULL);
        rec_step(script_new_step(g), K_ACT, a0 ? 0 : 1, line);
    }
    if (!(g->over = rec[0].over)) return true;
    snprintf(line, sizeof line, "{\"cmd\":\"leave\",\"room\":\"%s\"}", rec_room);
    rec_shared(K_LEAVE_FIRST, first, line);
    rec_shared(K_LEAVE_LAST, 1 - first, line);
    return true;
}

int record_games(int port, const char *path, int games, int acts, int target)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    char create[256], comment[256];
    int attempts = 0, left_out = 0, over = 0;
    if (target > 0)
        snprintf(create, sizeof create,
                 "{\"cmd\":\"create\",\"game\":\"233\",\"players\":2,\"options\":{\"target\":%d}}",
                 target);
    else
        snprintf(create, sizeof create, "{\"cmd\":\"create\",\"game\":\"233\",\"players\":2}");
    rec_connect(&sa, attempts);
    /* Rooms 1, 2, ...: a game left out leaves its room behind, and the seats take new names. */
    for (int room = 1; (int)script.ngames < games; room++) {
        game_script_t *g = script_new_game(&script);
        if (rec_game(g, room, over % 2, acts, create)) {
            over += g->over;
            continue;
        }
        script_drop_game(&script);
        if (++left_out > 4 * games) die("too many games left out", NULL);
        rec_connect(&sa, ++attempts);
    }
    size_t steps = 0;
    for (size_t g = 0; g < script.ngames; g++)
        steps += script.games[g].n - 1;
    snprintf(comment, sizeof comment,
             "floor script: %d games of 233 (%d played to the end), %zu acts, recorded from tapisd",
             games, over, steps);
    if (script_write(&script, path, comment) != 0) exit(1);
    fprintf(stderr, "floor record: %s; left out: %d\n", comment, left_out);
    for (int s = 0; s < 2; s++) {
        close(rec[s].fd);
        free(rec[s].buf);
        free(rec[s].state);
    }
    script_free(&script);
    return 0;
}
