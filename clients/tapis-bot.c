/*
 * tapis-bot.c — plays tables of a game against a tapisd, from its own views.
 *
 *     tapis-bot [HOST:PORT] --game 233 --players 4 [--bots 3] [--games N]
 *               [--strategy random|greedy[:MS]] [--name NAME] [--option KEY=VALUE]...
 *
 * For each game it opens a table (`create`), fills --bots seats with server
 * bots (`addbot`), and plays every other seat itself, one connection per seat
 * (the first connection created the table and sits in it; the others
 * `join`). Each seat decides from its own state events with the game's bot
 * strategy, desc->bot(view, strategy, rng): the very code the server's
 * built-in bots run. At the end it prints a summary.
 *
 * One thread, blocking sockets and poll(). Each connection has at most one
 * `act` in flight and acts again only on a newer view (or after a refusal, on
 * a timer), so it never floods the server with stale moves. `--strategy
 * greedy:250` adds a reaction time (slap's bots name theirs so): each decision
 * waits that long after the view that calls for it, and is made on the latest
 * view -- except the rest of a move (a view with "at_once": seqnum's draw after
 * a play), taken at once, as the server's bots do.
 *
 * Refusals of an action by the game (too_late, claim_pending, not_your_turn,
 * ...) are normal in a real-time game: a view can be stale by the time its
 * action arrives. They are counted apart. Any other failed reply (bad_json,
 * bad_request, unknown_command, hello_first, not_found, ...), an error event
 * or a lost connection is a protocol error: the exit status is then 1.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "game.h"
#include "net.h"
#include "protocol.h"
#include "safe_text.h"

#define MAX_CONNS GAME_MAX_SEATS
#define MAX_PENDING 64
#define RETRY_MS 400 /* after a refusal with no newer view, decide again */

/* ------------------------------------------------------------------------ */
/* State                                                                    */
/* ------------------------------------------------------------------------ */

typedef struct seat_conn {
    net_conn_t net;
    char name[40];
    int seat;                      /* this connection's seat in the current game, or -1 */
    json_t *view;                  /* the latest view of the current room */
    long long seq;                 /* its seq */
    long long acted;               /* seq of the view the last act was decided on */
    long long retry;               /* when to decide again after a refusal (ms), 0 = never */
    long long act_at;              /* with a reaction time: when to decide (ms), 0 = unset */
    int acts_pending;              /* act replies still due */
    bool over;                     /* game_over seen for the current room */
    json_t *reply;                 /* the last non-act reply (for the setup steps) */
    char pending[MAX_PENDING][16]; /* commands sent and not yet answered (FIFO) */
    int phead, pcount;
} seat_conn_t;

typedef struct bot_opts {
    char host[256], port[16];
    const char *game, *strategy, *bot_strategy, *name;
    char strategy_name[32]; /* --strategy without its reaction time */
    int players, bots, games;
    int react_ms; /* --strategy NAME:MS: wait this long after a view before deciding */
    unsigned long long seed;
    long long game_timeout_ms;
    json_t *options; /* create's options */
    bool verbose;
} bot_opts_t;

typedef struct stats {
    int games, wins, acts, refused, timeouts, errors;
    long long score_sum;
    int score_n;
    long long rounds;
} stats_t;

static bot_opts_t O;
static stats_t S;
static seat_conn_t C[MAX_CONNS];
static int NC;
static const game_desc_t *DESC;
static rng_t RNG;
static char ROOM[64];

/* ------------------------------------------------------------------------ */
/* Reporting                                                                */
/* ------------------------------------------------------------------------ */

static void error_at(seat_conn_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * A protocol error: counted, printed, and the run will exit non-zero. The
 * arguments often come from the server (codes, messages, room ids): the
 * whole message is escaped (safe_text.h).
 */
static void error_at(seat_conn_t *c, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fputs("tapis-bot: ", stderr);
    safe_fputs(stderr, c ? c->name : "-");
    fputs(": ", stderr);
    safe_fputs(stderr, msg);
    fputc('\n', stderr);
    S.errors++;
}

static void trace(const seat_conn_t *c, const char *dir, const char *line, size_t len)
{
    if (!O.verbose) return;
    fprintf(stderr, "%s %s ", c->name, dir);
    safe_fwrite(stderr, line, len);
    fputc('\n', stderr);
}

/* ------------------------------------------------------------------------ */
/* Sending                                                                  */
/* ------------------------------------------------------------------------ */

/* Send requests (steals the n messages) in one write, and remember their commands. */
static int request_n(seat_conn_t *c, json_t **msgs, int n)
{
    char *buf = NULL;
    size_t total = 0;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        const char *cmd = json_string_value(json_object_get(msgs[i], "cmd"));
        size_t len;
        char *line = rc == 0 ? proto_encode(msgs[i], &len) : NULL;
        char *grown = line ? realloc(buf, total + len) : NULL;
        if (!grown || c->pcount == MAX_PENDING) {
            if (rc == 0 && c->pcount == MAX_PENDING) error_at(c, "too many requests in flight");
            rc = -1;
        } else {
            buf = grown;
            memcpy(buf + total, line, len);
            total += len;
            trace(c, ">", line, len - 1);
            int slot = (c->phead + c->pcount) % MAX_PENDING;
            snprintf(c->pending[slot], sizeof c->pending[slot], "%s", cmd ? cmd : "");
            c->pcount++;
        }
        free(line);
        json_decref(msgs[i]);
    }
    if (rc == 0 && total) {
        rc = net_write(&c->net, buf, total);
        if (rc < 0) error_at(c, "write: %s", strerror(errno));
    }
    free(buf);
    return rc;
}

/* Send a request (steals msg) and remember its command for the reply. */
static int request(seat_conn_t *c, json_t *msg)
{
    return request_n(c, &msg, 1);
}

/* Decide and send an action if the view asks for one and none is in flight. */
static void maybe_act(seat_conn_t *c)
{
    if (!c->view || c->over || c->acts_pending > 0 || c->seq <= c->acted) return;
    json_t *legal = json_object_get(c->view, "legal");
    if (!json_is_array(legal) || json_array_size(legal) == 0) return;
    /* A view that says at_once asks for the rest of a move (seqnum's draw after
       a play): no reaction time, as the server's bots. */
    bool now_too = json_is_true(json_object_get(c->view, "at_once"));
    if (O.react_ms > 0 && !now_too) { /* react: decide later, on the view of that moment */
        long long now = net_now_ms();
        if (!c->act_at) c->act_at = now + O.react_ms;
        if (now < c->act_at) return;
    }
    c->act_at = 0;
    json_t *action = DESC->bot(c->view, O.strategy, &RNG);
    c->acted = c->seq;
    c->retry = 0;
    if (!action) return;
    c->acts_pending++;
    S.acts++;
    request(c, json_pack("{s:s, s:s, s:o}", "cmd", "act", "room", ROOM, "action", action));
}

/* ------------------------------------------------------------------------ */
/* Receiving                                                                */
/* ------------------------------------------------------------------------ */

/* Codes that say the request itself was wrong, not that the game moved on. */
static bool is_protocol_code(const char *code)
{
    static const char *const codes[] = {
        PROTO_BAD_JSON,      PROTO_BAD_REQUEST, PROTO_UNKNOWN_COMMAND,
        PROTO_LINE_TOO_LONG, PROTO_HELLO_FIRST, "not_found",
        "unknown_action",    "bad_action",      "unknown_card",
        "not_seated",        "room_full"};
    for (size_t i = 0; i < sizeof codes / sizeof *codes; i++)
        if (strcmp(code, codes[i]) == 0) return true;
    return false;
}

static void on_reply(seat_conn_t *c, json_t *msg)
{
    if (c->pcount == 0) {
        error_at(c, "a reply to no request");
        return;
    }
    const char *sent = c->pending[c->phead];
    c->phead = (c->phead + 1) % MAX_PENDING;
    c->pcount--;
    bool ok = json_is_true(json_object_get(msg, "ok"));
    json_t *err = json_object_get(msg, "error");
    const char *code = json_string_value(json_object_get(err, "code"));
    const char *text = json_string_value(json_object_get(err, "message"));
    if (strcmp(sent, "act") == 0) {
        c->acts_pending--;
        if (ok) return;
        if (!code || is_protocol_code(code)) {
            error_at(c, "act refused: %s: %s", code ? code : "?", text ? text : "");
            return;
        }
        S.refused++;
        c->retry = net_now_ms() + RETRY_MS;
        maybe_act(c);
        return;
    }
    if (!ok) error_at(c, "%s refused: %s: %s", sent, code ? code : "?", text ? text : "");
    json_decref(c->reply);
    c->reply = json_incref(msg);
}

static void on_event(seat_conn_t *c, const char *ev, json_t *msg)
{
    const char *room = json_string_value(json_object_get(msg, "room"));
    bool here = room && strcmp(room, ROOM) == 0;
    if (strcmp(ev, "state") == 0 && here) {
        json_t *seq = json_object_get(msg, "seq");
        json_decref(c->view);
        c->view = json_incref(json_object_get(msg, "view"));
        c->seq = json_is_integer(seq) ? json_integer_value(seq) : c->seq + 1;
        maybe_act(c);
    } else if (strcmp(ev, "game_over") == 0 && here) {
        if (c->over) return;
        c->over = true;
        json_t *result = json_object_get(msg, "result");
        if (c != &C[0]) return; /* count each game once */
        json_t *scores = json_object_get(result, "scores"), *winners;
        winners = json_object_get(result, "winners");
        json_t *rounds = json_object_get(result, "rounds");
        S.games++;
        if (json_is_integer(rounds)) S.rounds += json_integer_value(rounds);
        bool won = false;
        for (int i = 0; i < NC; i++) {
            json_t *sc = json_array_get(scores, (size_t)C[i].seat);
            if (json_is_integer(sc)) {
                S.score_sum += json_integer_value(sc);
                S.score_n++;
            }
            size_t k;
            json_t *w;
            json_array_foreach(winners, k, w) if (json_integer_value(w) == C[i].seat) won = true;
        }
        if (won) S.wins++;
        if (O.verbose) {
            char *r = json_dumps(result, JSON_COMPACT);
            fprintf(stderr, "game %d over: ", S.games);
            if (r) safe_fwrite_json(stderr, r, strlen(r));
            fputc('\n', stderr);
            free(r);
        }
    } else if (strcmp(ev, "timeout") == 0 && here) {
        json_t *seat = json_object_get(msg, "seat");
        if (json_integer_value(seat) == c->seat) S.timeouts++;
    } else if (strcmp(ev, "error") == 0 || strcmp(ev, "replaced") == 0 ||
               strcmp(ev, "shutdown") == 0) {
        const char *m =
            json_string_value(json_object_get(json_object_get(msg, "error"), "message"));
        error_at(c, "%s event%s%s", ev, m ? ": " : "", m ? m : "");
    }
    /* room, join, leave, chat and events of other rooms: nothing to do. */
}

static void on_line(seat_conn_t *c, const char *line, size_t len)
{
    trace(c, "<", line, len);
    proto_error_t perr;
    json_t *msg = proto_json_parse(line, len, &perr);
    if (!msg) {
        error_at(c, "unreadable line from the server: %s", perr.message);
        return;
    }
    const char *ev = json_string_value(json_object_get(msg, "ev"));
    if (ev)
        on_event(c, ev, msg);
    else if (json_object_get(msg, "re"))
        on_reply(c, msg);
    else
        error_at(c, "a message that is neither a reply nor an event");
    json_decref(msg);
}

/*
 * Wait up to timeout_ms for traffic and handle it, then run the refusal
 * timers. Returns -1 when a connection is lost.
 */
static int pump(int timeout_ms)
{
    struct pollfd pfd[MAX_CONNS];
    long long now = net_now_ms();
    for (int i = 0; i < NC; i++) {
        pfd[i].fd = C[i].net.fd;
        pfd[i].events = POLLIN;
        pfd[i].revents = 0;
        if (C[i].retry && C[i].retry - now < timeout_ms)
            timeout_ms = C[i].retry > now ? (int)(C[i].retry - now) : 0;
        if (C[i].act_at && C[i].act_at - now < timeout_ms)
            timeout_ms = C[i].act_at > now ? (int)(C[i].act_at - now) : 0;
    }
    int n = poll(pfd, (nfds_t)NC, timeout_ms);
    if (n < 0 && errno != EINTR) return -1;
    for (int i = 0; n > 0 && i < NC; i++) {
        if (!pfd[i].revents) continue;
        long r = net_read(&C[i].net);
        if (r <= 0) {
            error_at(&C[i], "connection lost%s%s", r < 0 ? ": " : "", r < 0 ? strerror(errno) : "");
            return -1;
        }
        const char *line;
        size_t len;
        int fr;
        while ((fr = frame_next(&C[i].net.frame, &line, &len)) == FRAME_LINE)
            on_line(&C[i], line, len);
        if (fr == FRAME_TOO_LONG) {
            error_at(&C[i], "a line from the server is too long");
            return -1;
        }
    }
    now = net_now_ms();
    for (int i = 0; i < NC; i++)
        if (C[i].retry && C[i].retry <= now && C[i].acts_pending == 0) {
            C[i].retry = 0;
            C[i].acted = -1; /* the same view again: decide anew */
            maybe_act(&C[i]);
        } else if (C[i].act_at && C[i].act_at <= now) {
            maybe_act(&C[i]);
        }
    return 0;
}

/* Send a request on c and wait for its reply; returns the reply (borrowed) or NULL. */
static json_t *call(seat_conn_t *c, json_t *msg)
{
    int errors = S.errors;
    if (request(c, msg) < 0) return NULL;
    long long until = net_now_ms() + 30000;
    while (c->pcount > 0) {
        if (net_now_ms() > until) {
            error_at(c, "no reply in 30 s");
            return NULL;
        }
        if (pump(1000) < 0) return NULL;
    }
    return S.errors == errors && json_is_true(json_object_get(c->reply, "ok")) ? c->reply : NULL;
}

/* ------------------------------------------------------------------------ */
/* Games                                                                    */
/* ------------------------------------------------------------------------ */

static void reset_seat(seat_conn_t *c)
{
    json_decref(c->view);
    c->view = NULL;
    c->seq = 0;
    c->acted = -1;
    c->retry = 0;
    c->act_at = 0;
    c->over = false;
    c->seat = -1;
}

/* One game: create, fill, play to game_over, leave. 0 or -1. */
static int play_one(void)
{
    for (int i = 0; i < NC; i++)
        reset_seat(&C[i]);
    ROOM[0] = '\0';
    json_t *msg =
        json_pack("{s:s, s:s, s:i}", "cmd", "create", "game", O.game, "players", O.players);
    if (O.options) json_object_set(msg, "options", O.options);
    json_t *r = call(&C[0], msg);
    if (!r) return -1;
    snprintf(ROOM, sizeof ROOM, "%s", json_string_value(json_object_get(r, "room")));
    json_t *seat = json_object_get(r, "seat");
    if (json_is_integer(seat)) {
        C[0].seat = (int)json_integer_value(seat);
    } else { /* a server that does not seat the creator */
        r = call(&C[0], json_pack("{s:s, s:s}", "cmd", "join", "room", ROOM));
        if (!r) return -1;
        C[0].seat = (int)json_integer_value(json_object_get(r, "seat"));
    }
    for (int b = 0; b < O.bots; b++) {
        msg = json_pack("{s:s, s:s}", "cmd", "addbot", "room", ROOM);
        if (O.bot_strategy) json_object_set_new(msg, "strategy", json_string(O.bot_strategy));
        if (!call(&C[0], msg)) return -1;
    }
    for (int i = 1; i < NC; i++) {
        r = call(&C[i], json_pack("{s:s, s:s}", "cmd", "join", "room", ROOM));
        if (!r) return -1;
        C[i].seat = (int)json_integer_value(json_object_get(r, "seat"));
    }
    long long until = net_now_ms() + O.game_timeout_ms;
    for (;;) {
        bool all_over = true;
        for (int i = 0; i < NC; i++)
            all_over = all_over && C[i].over;
        if (all_over) break;
        if (net_now_ms() > until) {
            error_at(NULL, "room %s: no game_over after %lld s", ROOM, O.game_timeout_ms / 1000);
            return -1;
        }
        if (pump(1000) < 0) return -1;
    }
    /* Let the last act replies arrive, then leave (the room closes with its last person). */
    for (int i = 0; i < NC; i++)
        if (!call(&C[i], json_pack("{s:s, s:s}", "cmd", "leave", "room", ROOM))) return -1;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Command line                                                             */
/* ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
    fprintf(f, "usage: tapis-bot [HOST:PORT] [options]\n"
               "\n"
               "Opens tables on a tapisd, seats server bots, plays the other seats itself\n"
               "(one connection per seat) with the game's bot strategy, and prints a summary.\n"
               "\n"
               "  --game ID            game to play (default 233)\n"
               "  --players N          seats at each table (default 4)\n"
               "  --bots N             seats given to server bots (default players - 1)\n"
               "  --games N            tables to play, one after the other (default 1)\n"
               "  --strategy NAME[:MS] this client's strategy: greedy or random (default greedy),\n"
               "                       with MS a reaction time: each decision waits MS after\n"
               "                       the view that calls for it (e.g. greedy:250 for slap)\n"
               "  --bot-strategy NAME  strategy of the server bots (default: the server's)\n"
               "  --name NAME          base name of the connections (default tapis-bot)\n"
               "  --option KEY=VALUE   a game option for create (repeatable), e.g. target=100\n"
               "  --seed N             seed of this client's random choices\n"
               "  --timeout SECONDS    give up on a game after this long (default 600)\n"
               "  --verbose            print every line sent and received on stderr\n"
               "  --help\n"
               "\n"
               "HOST:PORT defaults to " NET_DEFAULT_HOST ":" NET_DEFAULT_PORT
               ". Exit status: 0 when every game\n"
               "ended without a protocol error, 1 otherwise, 2 for a bad command line.\n");
}

static int parse_int(const char *s, int lo, int hi, const char *what)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "tapis-bot: %s: expected an integer from %d to %d, not \"%s\"\n", what, lo,
                hi, s);
        exit(2);
    }
    return (int)v;
}

/* KEY=VALUE into O.options, the value typed like the inline form types it. */
static void add_option(const char *kv)
{
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv) {
        fprintf(stderr, "tapis-bot: --option: expected KEY=VALUE, not \"%s\"\n", kv);
        exit(2);
    }
    char line[512];
    snprintf(line, sizeof line, "create x %s", kv);
    proto_error_t err;
    json_t *req = inline_parse(line, strlen(line), &err);
    json_t *opts = req ? json_object_get(req, "options") : NULL;
    if (!opts) {
        fprintf(stderr, "tapis-bot: --option %s: %s\n", kv, req ? "not an option" : err.message);
        exit(2);
    }
    if (!O.options) O.options = json_object();
    json_object_update(O.options, opts);
    json_decref(req);
}

static void parse_args(int argc, char **argv)
{
    enum { OPT_BOT_STRATEGY = 256, OPT_OPTION, OPT_SEED, OPT_TIMEOUT };
    static const struct option longs[] = {
        {"game", required_argument, NULL, 'g'},
        {"players", required_argument, NULL, 'p'},
        {"bots", required_argument, NULL, 'b'},
        {"games", required_argument, NULL, 'n'},
        {"strategy", required_argument, NULL, 's'},
        {"bot-strategy", required_argument, NULL, OPT_BOT_STRATEGY},
        {"name", required_argument, NULL, 'N'},
        {"option", required_argument, NULL, OPT_OPTION},
        {"seed", required_argument, NULL, OPT_SEED},
        {"timeout", required_argument, NULL, OPT_TIMEOUT},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    O.game = "233";
    O.strategy = "greedy";
    O.name = "tapis-bot";
    O.players = 4;
    O.bots = -1;
    O.games = 1;
    O.seed = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 16);
    O.game_timeout_ms = 600000;
    int ch;
    while ((ch = getopt_long(argc, argv, "g:p:b:n:s:N:vh", longs, NULL)) != -1) {
        switch (ch) {
        case 'g': O.game = optarg; break;
        case 'p': O.players = parse_int(optarg, 1, GAME_MAX_SEATS, "--players"); break;
        case 'b': O.bots = parse_int(optarg, 0, GAME_MAX_SEATS, "--bots"); break;
        case 'n': O.games = parse_int(optarg, 0, 1000000, "--games"); break;
        case 's': O.strategy = optarg; break;
        case OPT_BOT_STRATEGY: O.bot_strategy = optarg; break;
        case 'N': O.name = optarg; break;
        case OPT_OPTION: add_option(optarg); break;
        case OPT_SEED: O.seed = strtoull(optarg, NULL, 10); break;
        case OPT_TIMEOUT:
            O.game_timeout_ms = 1000LL * parse_int(optarg, 1, 86400, "--timeout");
            break;
        case 'v': O.verbose = true; break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); exit(2);
        }
    }
    if (optind + 1 < argc) {
        usage(stderr);
        exit(2);
    }
    if (net_parse_addr(optind < argc ? argv[optind] : NULL, O.host, sizeof O.host, O.port,
                       sizeof O.port)) {
        fprintf(stderr, "tapis-bot: bad address \"%s\" (HOST:PORT)\n", argv[optind]);
        exit(2);
    }
    if (O.bots < 0) O.bots = O.players - 1;
    if (O.bots >= O.players) {
        fprintf(stderr, "tapis-bot: --bots must leave at least one seat to this client\n");
        exit(2);
    }
    DESC = game_find(O.game);
    if (!DESC || !DESC->bot) {
        fprintf(stderr, "tapis-bot: no bot for game \"%s\" in this build\n", O.game);
        exit(2);
    }
    if (O.players < DESC->min_seats || O.players > DESC->max_seats) {
        fprintf(stderr, "tapis-bot: %s is for %d to %d players\n", O.game, DESC->min_seats,
                DESC->max_seats);
        exit(2);
    }
    /* NAME[:MS]: a reaction time, as slap's bots name it ("greedy:250"). */
    const char *colon = strchr(O.strategy, ':');
    size_t base = colon ? (size_t)(colon - O.strategy) : strlen(O.strategy);
    snprintf(O.strategy_name, sizeof O.strategy_name, "%.*s", (int)base, O.strategy);
    if (colon) O.react_ms = parse_int(colon + 1, 0, 60000, "--strategy reaction time");
    if (strcmp(O.strategy_name, "greedy") != 0 && strcmp(O.strategy_name, "random") != 0) {
        fprintf(stderr, "tapis-bot: --strategy: greedy or random, optionally :MS\n");
        exit(2);
    }
    O.strategy = O.strategy_name;
}

/* ------------------------------------------------------------------------ */
/* Main                                                                     */
/* ------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    parse_args(argc, argv);
    signal(SIGPIPE, SIG_IGN);
    rng_seed(&RNG, O.seed);
    NC = O.players - O.bots;
    int rc = 0;
    for (int i = 0; i < NC; i++) {
        seat_conn_t *c = &C[i];
        if (NC == 1)
            snprintf(c->name, sizeof c->name, "%.32s", O.name);
        else
            snprintf(c->name, sizeof c->name, "%.28s-%d", O.name, i + 1);
        c->seat = -1;
        c->net.fd = -1;
        if (net_open(&c->net, O.host, O.port) < 0) {
            fprintf(stderr, "tapis-bot: cannot connect to %s:%s: %s\n", O.host, O.port,
                    strerror(errno));
            return 1;
        }
    }
    for (int i = 0; i < NC && rc == 0; i++)
        if (!call(&C[i], json_pack("{s:s, s:s}", "cmd", "hello", "name", C[i].name))) rc = -1;
    long long t0 = net_now_ms();
    for (int g = 0; g < O.games && rc == 0 && S.errors == 0; g++)
        rc = play_one();
    double secs = (double)(net_now_ms() - t0) / 1000.0;
    for (int i = 0; i < NC; i++) {
        net_close(&C[i].net);
        reset_seat(&C[i]);
        json_decref(C[i].reply);
    }
    json_decref(O.options);

    printf("tapis-bot: %s, %d players (%d server bots), strategy %s\n", O.game, O.players, O.bots,
           O.strategy);
    printf("games %d/%d  wins %d  mean score %.1f  mean rounds %.1f  acts %d  refused %d  "
           "timeouts %d  errors %d  (%.1f s)\n",
           S.games, O.games, S.wins, S.score_n ? (double)S.score_sum / S.score_n : 0.0,
           S.games ? (double)S.rounds / S.games : 0.0, S.acts, S.refused, S.timeouts, S.errors,
           secs);
    return rc == 0 && S.errors == 0 && S.games == O.games ? 0 : 1;
}
