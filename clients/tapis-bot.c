/*
 * tapis-bot.c — plays tables of a game against a tapisd, from its own views.
 *
 *     tapis-bot [HOST:PORT] --game 233 --players 4 [--bots 3] [--games N]
 *               [--strategy random|greedy|easy|hard[/N][:MS]] [--name NAME]
 *               [--option KEY=VALUE]...
 *
 * For each game it opens a table (`create`), fills --bots seats with server
 * bots (`addbot`), and plays every other seat itself, one connection per seat
 * (the first connection created the table and sits in it; the others
 * `join`). Each seat decides from its own state events with the game's bot
 * strategy, game_bot(desc, view, strategy, rng): the very code the server's
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
 * With --verify, the creator sends a seed of its own before the table fills
 * and notes the commitment the table shows; after the game it fetches the
 * record (`replay`) and checks the deal against that commitment
 * (clients/verify.h: the server seed, every deck and move replayed to the
 * result), and that its seed is in it. A deal that does not verify is an
 * error (exit status 1).
 *
 * On the ladder: `--account NAME --key KEY --seek GAME` logs in to an
 * account with the key `register` gave, then for each game says `seek GAME
 * [PLAYERS] rated`, plays the table the server matched it to (the
 * `matched` event), prints its new rating from `game_over` and leaves.
 *
 * Refusals of an action by the game (too_late, claim_pending, not_your_turn,
 * ...) are normal in a real-time game: a view can be stale by the time its
 * action arrives. They are counted apart. Any other failed reply (bad_json,
 * bad_request, unknown_command, hello_first, not_found, ...), an error event
 * or a lost connection is a protocol error: the exit status is then 1.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/game.h"
#include "clients/net.h"
#include "protocol/protocol.h"
#include "clients/safe_text.h"
#include "clients/verify.h"
#include "clients/tapis_bot.h"

#define RETRY_MS 400 /* after a refusal with no newer view, decide again */

/* ------------------------------------------------------------------------ */
/* Reporting                                                                */
/* ------------------------------------------------------------------------ */

static void error_at(bot_t *b, const seat_conn_t *c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * A protocol error: counted, printed, and the run will exit non-zero. The
 * arguments often come from the server (codes, messages, room ids): the
 * whole message is escaped (safe_text.h).
 */
static void error_at(bot_t *b, const seat_conn_t *c, const char *fmt, ...)
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
    b->s.errors++;
}

static void trace(const seat_conn_t *c, const char *dir, const char *line, size_t len)
{
    if (!c->bot->o.verbose) return;
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
            if (rc == 0 && c->pcount == MAX_PENDING)
                error_at(c->bot, c, "too many requests in flight");
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
    if (rc == 0 && total && net_write(&c->net, buf, total) < 0) {
        /* A server that went away (a restart, a node killed) is seen by the
           next read, which opens the connection again (reconnect()): what
           this wrote is then among the requests lost with it. */
        if (errno != ECONNRESET && errno != EPIPE && errno != ENOTCONN) {
            error_at(c->bot, c, "write: %s", strerror(errno));
            rc = -1;
        }
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
    bot_t *b = c->bot;
    if (!c->view || c->over || c->acts_pending > 0 || c->seq <= c->acted) return;
    json_t *legal = json_object_get(c->view, "legal");
    if (!json_is_array(legal) || json_array_size(legal) == 0) return;
    /* A view that says at_once asks for the rest of a move (seqnum's draw after
       a play): no reaction time, as the server's bots. */
    bool now_too = json_is_true(json_object_get(c->view, "at_once"));
    if (b->o.react_ms > 0 && !now_too) { /* react: decide later, on the view of that moment */
        long long now = net_now_ms();
        if (!c->act_at) c->act_at = now + b->o.react_ms;
        if (now < c->act_at) return;
    }
    c->act_at = 0;
    json_t *action = game_bot(b->desc, c->view, b->o.strategy, &b->rng);
    c->acted = c->seq;
    c->retry = 0;
    if (!action) return;
    c->acts_pending++;
    b->s.acts++;
    /* seq: the state it answers, from which the server counts its reaction time */
    request(c, json_pack("{s:s, s:s, s:o, s:I}", "cmd", "act", "room", b->room, "action", action,
                         "seq", (json_int_t)c->seq));
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
    bot_t *b = c->bot;
    if (c->pcount == 0) {
        error_at(c->bot, c, "a reply to no request");
        return;
    }
    const char *sent = c->pending[c->phead];
    c->phead = (c->phead + 1) % MAX_PENDING;
    c->pcount--;
    if (strcmp(sent, "pong") == 0) return; /* it only measured the round trip */
    bool ok = json_is_true(json_object_get(msg, "ok"));
    json_t *err = json_object_get(msg, "error");
    const char *code = json_string_value(json_object_get(err, "code"));
    const char *text = json_string_value(json_object_get(err, "message"));
    if (strcmp(sent, "act") == 0) {
        c->acts_pending--;
        if (ok) return;
        if (!code || is_protocol_code(code)) {
            error_at(c->bot, c, "act refused: %s: %s", code ? code : "?", text ? text : "");
            return;
        }
        b->s.refused++;
        c->retry = net_now_ms() + RETRY_MS;
        maybe_act(c);
        return;
    }
    if (!ok) error_at(c->bot, c, "%s refused: %s: %s", sent, code ? code : "?", text ? text : "");
    const char *token = json_string_value(json_object_get(msg, "token"));
    if (ok && strcmp(sent, "hello") == 0 && token) {
        snprintf(c->token, sizeof c->token, "%s", token);
        c->reconnect_until = 0; /* back */
    }
    json_decref(c->reply);
    c->reply = json_incref(msg);
}

static void on_event(seat_conn_t *c, const char *ev, json_t *msg)
{
    bot_t *b = c->bot;
    const char *room = json_string_value(json_object_get(msg, "room"));
    bool here = room && strcmp(room, b->room) == 0;
    if (strcmp(ev, "ping") == 0) { /* at once: the server measures the round trip by it */
        request(c, json_pack("{s:s, s:O}", "cmd", "pong", "n", json_object_get(msg, "n")));
    } else if (strcmp(ev, "state") == 0 && here) {
        json_t *seq = json_object_get(msg, "seq");
        json_decref(c->view);
        c->view = json_incref(json_object_get(msg, "view"));
        c->seq = json_is_integer(seq) ? json_integer_value(seq) : c->seq + 1;
        maybe_act(c);
    } else if (strcmp(ev, "game_over") == 0 && here) {
        if (c->over) return;
        c->over = true;
        json_t *result = json_object_get(msg, "result");
        if (c != &b->c[0]) return; /* count each game once */
        json_t *scores = json_object_get(result, "scores"), *winners;
        winners = json_object_get(result, "winners");
        json_t *rounds = json_object_get(result, "rounds");
        b->s.games++;
        if (json_is_integer(rounds)) b->s.rounds += json_integer_value(rounds);
        bool won = false;
        for (int i = 0; i < b->nc; i++) {
            json_t *sc = json_array_get(scores, (size_t)b->c[i].seat);
            if (json_is_integer(sc)) {
                b->s.score_sum += json_integer_value(sc);
                b->s.score_n++;
            }
            size_t k;
            json_t *w;
            json_array_foreach(winners, k, w) if (json_integer_value(w) == b->c[i].seat) won = true;
        }
        if (won) b->s.wins++;
        size_t k;
        json_t *ch;
        json_array_foreach(json_object_get(msg, "ratings"), k, ch)
        {
            const char *name = json_string_value(json_object_get(ch, "name"));
            if (name && b->o.account && strcasecmp(name, b->o.account) == 0) {
                b->s.rating = json_number_value(json_object_get(ch, "after"));
                b->s.rated = true;
                printf("game %d: rating %.1f (was %.1f, place %lld)\n", b->s.games, b->s.rating,
                       json_number_value(json_object_get(ch, "before")),
                       (long long)json_integer_value(json_object_get(ch, "place")));
                fflush(stdout);
            }
        }
        if (b->o.verbose) {
            char *r = json_dumps(result, JSON_COMPACT);
            fprintf(stderr, "game %d over: ", b->s.games);
            if (r) safe_fwrite_json(stderr, r, strlen(r));
            fputc('\n', stderr);
            free(r);
        }
    } else if (strcmp(ev, "matched") == 0 && b->o.seek && !b->room[0]) {
        snprintf(b->room, sizeof b->room, "%s", room ? room : "");
        c->seat = (int)json_integer_value(json_object_get(msg, "seat"));
    } else if (strcmp(ev, "timeout") == 0 && here) {
        json_t *seat = json_object_get(msg, "seat");
        if (json_integer_value(seat) == c->seat) b->s.timeouts++;
    } else if (strcmp(ev, "shutdown") == 0 && b->o.reconnect_ms > 0 &&
               json_is_true(json_object_get(msg, "restart"))) {
        /* The server keeps the tables: the connection closes, and pump() opens it again. */
    } else if (strcmp(ev, "error") == 0 || strcmp(ev, "replaced") == 0 ||
               strcmp(ev, "shutdown") == 0) {
        const char *m =
            json_string_value(json_object_get(json_object_get(msg, "error"), "message"));
        error_at(c->bot, c, "%s event%s%s", ev, m ? ": " : "", m ? m : "");
    }
    /* room, join, leave, chat and events of other rooms: nothing to do. */
}

static void on_line(seat_conn_t *c, const char *line, size_t len)
{
    trace(c, "<", line, len);
    proto_error_t perr;
    json_t *msg = proto_json_parse(line, len, &perr);
    if (!msg) {
        error_at(c->bot, c, "unreadable line from the server: %s", perr.message);
        return;
    }
    const char *ev = json_string_value(json_object_get(msg, "ev"));
    if (ev)
        on_event(c, ev, msg);
    else if (json_object_get(msg, "re"))
        on_reply(c, msg);
    else
        error_at(c->bot, c, "a message that is neither a reply nor an event");
    json_decref(msg);
}

/*
 * The connection of c was lost (a server restart, a crash): open it again
 * and say hello with the session's token, for up to --reconnect (retrying
 * every 100 ms, then up to every 2 s). The server sends the room and its
 * state again; the view is decided anew (an act in flight may not have been
 * kept). Returns 0, or -1 when it cannot (no token, a setup request was in
 * flight, the time is up).
 */
static int reconnect(seat_conn_t *c)
{
    bot_t *b = c->bot;
    net_close(&c->net);
    /* Only acts, or the hello of an earlier reconnect (a server that went away
       again at once), may be lost with the connection: a setup step may not. */
    for (int k = 0; k < c->pcount; k++) {
        const char *cmd = c->pending[(c->phead + k) % MAX_PENDING];
        if (strcmp(cmd, "act") != 0 && strcmp(cmd, "pong") != 0 &&
            !(c->reconnect_until && strcmp(cmd, "hello") == 0))
            return -1;
    }
    if (b->o.reconnect_ms <= 0 || !c->token[0]) return -1;
    if (!c->reconnect_until) c->reconnect_until = net_now_ms() + b->o.reconnect_ms;
    long long until = c->reconnect_until, wait = 100;
    while (net_open_any(&c->net, &b->o.addrs) < 0) {
        if (net_now_ms() + wait > until) return -1;
        poll(NULL, 0, (int)wait);
        wait = wait * 2 > 2000 ? 2000 : wait * 2;
    }
    c->phead = c->pcount = 0;
    c->acts_pending = 0;
    c->acted = -1;
    c->retry = 0;
    c->act_at = 0;
    b->s.reconnects++;
    if (b->o.verbose) fprintf(stderr, "%s reconnected\n", c->name);
    return request(
        c, json_pack("{s:s, s:s, s:s}", "cmd", "hello", "name", c->name, "token", c->token));
}

/*
 * Wait up to timeout_ms for traffic and handle it, then run the refusal
 * timers. Returns -1 when a connection is lost and cannot be opened again.
 */
static int pump(bot_t *b, int timeout_ms)
{
    struct pollfd pfd[MAX_CONNS];
    long long now = net_now_ms();
    for (int i = 0; i < b->nc; i++) {
        pfd[i].fd = b->c[i].net.fd;
        pfd[i].events = POLLIN;
        pfd[i].revents = 0;
        if (b->c[i].retry && b->c[i].retry - now < timeout_ms)
            timeout_ms = b->c[i].retry > now ? (int)(b->c[i].retry - now) : 0;
        if (b->c[i].act_at && b->c[i].act_at - now < timeout_ms)
            timeout_ms = b->c[i].act_at > now ? (int)(b->c[i].act_at - now) : 0;
    }
    int n = poll(pfd, (nfds_t)b->nc, timeout_ms);
    if (n < 0 && errno != EINTR) return -1;
    for (int i = 0; n > 0 && i < b->nc; i++) {
        if (!pfd[i].revents) continue;
        long r = net_read(&b->c[i].net);
        if (r <= 0 && reconnect(&b->c[i]) < 0) {
            error_at(b, &b->c[i], "connection lost%s%s", r < 0 ? ": " : "",
                     r < 0 ? strerror(errno) : "");
            return -1;
        }
        if (r <= 0) continue;
        const char *line;
        size_t len;
        int fr;
        while ((fr = frame_next(&b->c[i].net.frame, &line, &len)) == FRAME_LINE)
            on_line(&b->c[i], line, len);
        if (fr == FRAME_TOO_LONG) {
            error_at(b, &b->c[i], "a line from the server is too long");
            return -1;
        }
    }
    now = net_now_ms();
    for (int i = 0; i < b->nc; i++)
        if (b->c[i].retry && b->c[i].retry <= now && b->c[i].acts_pending == 0) {
            b->c[i].retry = 0;
            b->c[i].acted = -1; /* the same view again: decide anew */
            maybe_act(&b->c[i]);
        } else if (b->c[i].act_at && b->c[i].act_at <= now) {
            maybe_act(&b->c[i]);
        }
    return 0;
}

/* Send a request on c and wait for its reply; returns the reply (borrowed) or NULL. */
static json_t *call(seat_conn_t *c, json_t *msg)
{
    bot_t *b = c->bot;
    int errors = b->s.errors;
    if (request(c, msg) < 0) return NULL;
    long long until = net_now_ms() + 30000;
    while (c->pcount > 0) {
        if (net_now_ms() > until) {
            error_at(c->bot, c, "no reply in 30 s");
            return NULL;
        }
        if (pump(b, 1000) < 0) return NULL;
    }
    return b->s.errors == errors && json_is_true(json_object_get(c->reply, "ok")) ? c->reply : NULL;
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

/* Play the table of b->room to game_over, then leave it. 0 or -1. */
static int play_to_end(bot_t *b)
{
    long long until = net_now_ms() + b->o.game_timeout_ms;
    for (;;) {
        bool all_over = true;
        for (int i = 0; i < b->nc; i++)
            all_over = all_over && b->c[i].over;
        if (all_over) break;
        if (net_now_ms() > until) {
            error_at(b, NULL, "room %s: no game_over after %lld s", b->room,
                     b->o.game_timeout_ms / 1000);
            return -1;
        }
        if (pump(b, 1000) < 0) return -1;
    }
    /* Let the last act replies arrive, then leave (the room closes with its last person). */
    for (int i = 0; i < b->nc; i++)
        if (!call(&b->c[i], json_pack("{s:s, s:s}", "cmd", "leave", "room", b->room))) return -1;
    return 0;
}

/* One game found by `seek`: wait for the server's match, play it, leave. 0 or -1. */
static int seek_one(bot_t *b)
{
    seat_conn_t *c = &b->c[0];
    reset_seat(c);
    b->room[0] = '\0';
    json_t *msg =
        json_pack("{s:s, s:s, s:i}", "cmd", "seek", "game", b->o.game, "players", b->o.players);
    if (b->o.account) json_object_set_new(msg, "rated", json_true());
    if (!call(c, msg)) return -1;
    long long until = net_now_ms() + b->o.game_timeout_ms;
    while (!b->room[0]) {
        if (net_now_ms() > until) {
            error_at(b, c, "no table found in %lld s", b->o.game_timeout_ms / 1000);
            return -1;
        }
        if (pump(b, 1000) < 0) return -1;
    }
    maybe_act(c); /* the state may have come with the match */
    return play_to_end(b);
}

/*
 * --verify, before the table fills: the creator's seed, and the commitment
 * the table shows (its summary's deal.commit), into seed and commit.
 */
static int seed_table(bot_t *b, char *seed, size_t seedlen, char *commit, size_t commitlen)
{
    snprintf(seed, seedlen, "tapis-bot %016llx", (unsigned long long)rng_next(&b->rng));
    if (!call(&b->c[0], json_pack("{s:s, s:s, s:s}", "cmd", "seed", "room", b->room, "text", seed)))
        return -1;
    json_t *r = call(&b->c[0], json_pack("{s:s, s:s}", "cmd", "state", "room", b->room));
    const char *c = json_string_value(json_object_get(json_object_get(r, "deal"), "commit"));
    if (!c) {
        error_at(b, &b->c[0], "room %s shows no deal commitment", b->room);
        return -1;
    }
    snprintf(commit, commitlen, "%s", c);
    return 0;
}

/* --verify, after the game: its record's deal checked (clients/verify.h), our seed in it. */
static int verify_table(bot_t *b, const char *seed, const char *commit)
{
    json_t *r = call(&b->c[0], json_pack("{s:s, s:s}", "cmd", "replay", "game_id", b->room));
    const json_t *record = json_object_get(r, "record");
    if (!record) {
        error_at(b, &b->c[0], "room %s: no record to verify", b->room);
        return -1;
    }
    verify_report_t vr;
    if (verify_record(record, commit, &vr) < 0) {
        error_at(b, NULL, "room %s: the deal does not verify: %s", b->room, vr.message);
        return -1;
    }
    const json_t *e, *mine = NULL;
    size_t i;
    json_array_foreach(json_object_get(record, "actions"), i, e)
    {
        const char *kind = json_string_value(json_object_get(e, "kind"));
        if (kind && strcmp(kind, "seed") == 0 &&
            json_integer_value(json_object_get(e, "seat")) == b->c[0].seat)
            mine = json_object_get(json_object_get(e, "data"), "seed");
    }
    if (!json_is_string(mine) || strcmp(json_string_value(mine), seed) != 0) {
        error_at(b, NULL, "room %s: the record lost our seed", b->room);
        return -1;
    }
    b->s.verified++;
    return 0;
}

/* One game: create, fill, play to game_over, leave. 0 or -1. */
static int play_one(bot_t *b)
{
    char seed[64] = "", commit[80] = "";
    if (b->o.seek) return seek_one(b);
    for (int i = 0; i < b->nc; i++)
        reset_seat(&b->c[i]);
    b->room[0] = '\0';
    json_t *msg =
        json_pack("{s:s, s:s, s:i}", "cmd", "create", "game", b->o.game, "players", b->o.players);
    if (b->o.options) json_object_set(msg, "options", b->o.options);
    if (b->o.account) json_object_set_new(msg, "rated", json_true());
    json_t *r = call(&b->c[0], msg);
    if (!r) return -1;
    snprintf(b->room, sizeof b->room, "%s", json_string_value(json_object_get(r, "room")));
    json_t *seat = json_object_get(r, "seat");
    if (json_is_integer(seat)) {
        b->c[0].seat = (int)json_integer_value(seat);
    } else { /* a server that does not seat the creator */
        r = call(&b->c[0], json_pack("{s:s, s:s}", "cmd", "join", "room", b->room));
        if (!r) return -1;
        b->c[0].seat = (int)json_integer_value(json_object_get(r, "seat"));
    }
    if (b->o.verify && seed_table(b, seed, sizeof seed, commit, sizeof commit) < 0) return -1;
    for (int k = 0; k < b->o.bots; k++) {
        msg = json_pack("{s:s, s:s}", "cmd", "addbot", "room", b->room);
        if (b->o.bot_strategy) json_object_set_new(msg, "strategy", json_string(b->o.bot_strategy));
        if (!call(&b->c[0], msg)) return -1;
    }
    for (int i = 1; i < b->nc; i++) {
        r = call(&b->c[i], json_pack("{s:s, s:s}", "cmd", "join", "room", b->room));
        if (!r) return -1;
        b->c[i].seat = (int)json_integer_value(json_object_get(r, "seat"));
    }
    if (play_to_end(b) < 0) return -1;
    return b->o.verify ? verify_table(b, seed, commit) : 0;
}

/* ------------------------------------------------------------------------ */
/* Main                                                                     */
/* ------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    bot_t *b = calloc(1, sizeof *b);
    if (!b) {
        fprintf(stderr, "tapis-bot: out of memory\n");
        return 1;
    }
    bot_parse_args(b, argc, argv);
    signal(SIGPIPE, SIG_IGN);
    rng_seed(&b->rng, b->o.seed);
    b->nc = b->o.players - b->o.bots;
    int rc = 0;
    for (int i = 0; i < b->nc; i++) {
        seat_conn_t *c = &b->c[i];
        c->bot = b;
        if (b->nc == 1)
            snprintf(c->name, sizeof c->name, "%.32s", b->o.name);
        else
            snprintf(c->name, sizeof c->name, "%.28s-%d", b->o.name, i + 1);
        c->seat = -1;
        c->net.fd = -1;
        if (net_open_any(&c->net, &b->o.addrs) < 0) {
            fprintf(stderr, "tapis-bot: cannot connect to %s:%s: %s\n",
                    b->o.addrs.host[b->o.addrs.cur], b->o.addrs.port[b->o.addrs.cur],
                    strerror(errno));
            free(b);
            return 1;
        }
    }
    for (int i = 0; i < b->nc && rc == 0; i++) {
        json_t *hello = json_pack("{s:s, s:s}", "cmd", "hello", "name", b->c[i].name);
        if (b->o.account) { /* one connection: --account sets --bots to leave it one seat */
            json_object_set_new(hello, "name", json_string(b->o.account));
            json_object_set_new(hello, "key", json_string(b->o.key));
        }
        if (!call(&b->c[i], hello)) rc = -1;
        if (b->o.account) snprintf(b->c[i].name, sizeof b->c[i].name, "%.32s", b->o.account);
    }
    long long t0 = net_now_ms();
    for (int g = 0; g < b->o.games && rc == 0 && b->s.errors == 0; g++)
        rc = play_one(b);
    double secs = (double)(net_now_ms() - t0) / 1000.0;
    for (int i = 0; i < b->nc; i++) {
        net_close(&b->c[i].net);
        reset_seat(&b->c[i]);
        json_decref(b->c[i].reply);
    }
    json_decref(b->o.options);

    printf("tapis-bot: %s, %d players (%d server bots), strategy %s\n", b->o.game, b->o.players,
           b->o.bots, b->o.strategy);
    printf("games %d/%d  wins %d  mean score %.1f  mean rounds %.1f  acts %d  refused %d  "
           "timeouts %d  reconnects %d  errors %d  (%.1f s)\n",
           b->s.games, b->o.games, b->s.wins,
           b->s.score_n ? (double)b->s.score_sum / b->s.score_n : 0.0,
           b->s.games ? (double)b->s.rounds / b->s.games : 0.0, b->s.acts, b->s.refused,
           b->s.timeouts, b->s.reconnects, b->s.errors, secs);
    if (b->s.rated) printf("rating %s %s: %.1f\n", b->o.account, b->o.game, b->s.rating);
    if (b->o.verify) printf("deals verified %d/%d\n", b->s.verified, b->s.games);
    int status = rc == 0 && b->s.errors == 0 && b->s.games == b->o.games ? 0 : 1;
    free(b);
    return status;
}
