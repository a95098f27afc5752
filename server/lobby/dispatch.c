/*
 * dispatch.c — requests: parse, check, route, reply. Also the handlers that
 * are not about the lobby: hello, games, act, state, ping, help, quit.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/account/account.h"
#include "server/lobby/admin.h"
#include "server/cluster/cluster.h"
#include "server/lobby/restore.h"
#include "protocol/commands.h"
#include "server/net/conn.h"
#include "server/net/rtt.h"
#include "server/lobby/dispatch.h"
#include "protocol/envelope.h"
#include "server/base/log.h"
#include "server/cluster/relay.h"
#include "server/room/room.h"
#include "server/lobby/sessions.h"
#include "server/session/session.h"
#include "protocol/text.h"

/* ------------------------------------------------------------------------ */
/* Replies                                                                  */
/* ------------------------------------------------------------------------ */

void req_ok_bare(request_t *req)
{
    /* The common case (ping, quit): no object to build. */
    char line[512];
    size_t n = proto_encode_ok(req->re, req->id, NULL, NULL, line, sizeof line);
    req->replied = true;
    if (n > 0)
        conn_send_encoded(req->conn, line, n);
    else
        conn_send_new(req->conn, proto_reply(req->re, req->id)); /* NULL: closed */
}

json_t *req_ok_prepare(request_t *req, json_t *fields)
{
    unsigned long mark = tapis_alloc_failures();
    json_t *m = fields ? proto_reply(req->re, req->id) : NULL;
    json_object_update_missing(m, fields); /* (which says 0 when a key failed) */
    json_decref(fields);
    return game_json_checked(m, mark);
}

void req_send(request_t *req, json_t *reply)
{
    req->replied = true;
    conn_send_new(req->conn, reply); /* (no memory to write it: the connection is closed) */
}

int req_ok(request_t *req, json_t *fields)
{
    json_t *m = req_ok_prepare(req, fields);
    if (!m) {
        req_fail(req, TAPIS_E_INTERNAL, "out of memory");
        return -1;
    }
    req_send(req, m);
    return 0;
}

void req_fail(request_t *req, const char *code, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    req->replied = true;
    conn_send_new(req->conn, proto_reply_error(req->re, req->id, code, msg));
    conn_note_error(req->conn, code);
}

bool req_name_ok(request_t *req, const char *name)
{
    const char *why = text_check_name(name, strlen(name), sizeof req->session->name - 1);
    if (why) {
        req_fail(req, TAPIS_E_BAD_NAME, "%s", why);
        return false;
    }
    if (text_is_bot_name(name, strlen(name))) {
        req_fail(req, TAPIS_E_BAD_NAME, "names like \"bot\" are kept for the built-in bots");
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* Handlers                                                                 */
/* ------------------------------------------------------------------------ */

static void on_hello(request_t *req)
{
    if (json_object_get(req->msg, "password") || json_object_get(req->msg, "key"))
        lobby_account_hello(req); /* then lobby_hello_as(), perhaps from a thread's end */
    else
        lobby_hello_as(req, NULL);
}

void lobby_hello_as(request_t *req, account_t *a)
{
    conn_t *c = req->conn;
    const char *name = a ? a->name : json_string_value(json_object_get(req->msg, "name"));
    const char *token = a ? NULL : json_string_value(json_object_get(req->msg, "token"));
    session_t *s;
    bool resumed = false;
    if (!req_name_ok(req, name)) return;
    /* A first hello without a token reads no account from the cluster: its name's claim
       refuses it a registered name (cluster_name_free()). A token's or a link's session
       may be an account's, held on another node: read it. */
    bool first = !token && !c->session && !json_object_get(req->msg, "via");
    account_t *reg = a ? a : first ? account_here(c->srv, name) : account_find(c->srv, name);
    if (token) {
        s = session_find(c->srv, token);
        if (!s) s = lobby_session_fetch(c->srv, token); /* made on another node */
        if (!s) {
            req_fail(req, TAPIS_E_NOT_FOUND, "unknown or expired token; say hello without one");
            return;
        }
        if (c->session && c->session != s) {
            req_fail(req, TAPIS_E_ALREADY_HELLO, "this connection already has a session");
            return;
        }
        resumed = true;
    } else {
        s = c->session; /* a second hello renames */
    }
    /* A registered name is its account's: without a password or key, only the account's own
       session (by its token, or saying hello again) may bear it. A node's link speaks for a
       client its node checked. */
    /* A node's link: "via" counts only from a node's address (else a client could
       say it to escape the idle timeout, or to bear a registered name). */
    bool via = c->node_link && json_object_get(req->msg, "via");
    if (!a && reg && !via && !(s && (s->account == reg || !strcmp(s->name_key, reg->name_key)))) {
        req_fail(req, TAPIS_E_NAME_TAKEN,
                 "\"%s\" is a registered name: hello %s password=PASSWORD (or key=KEY)", name,
                 name);
        return;
    }
    session_t *same = session_find_name(c->srv, name);
    if (a && same && same != s && (!same->account || same->account == a) &&
        (!c->session || c->session == same)) {
        s = same; /* the account's session (perhaps held since a restart): this login takes it */
        resumed = true;
    }
    if (same && same != s) {
        req_fail(req, TAPIS_E_NAME_TAKEN, "someone here is already called \"%s\"", name);
        return;
    }
    bool created = !s;
    if (!s && !(s = session_create(c->srv, c, name))) {
        req_fail(req, TAPIS_E_INTERNAL, "cannot create a session");
        return;
    }
    /* Another node has a session of that name, or (a guest's) an account is registering it. */
    int named = cluster_name_free(c->srv, s->id, name, !reg);
    if (named < 0) {
        if (created) lobby_session_destroy(s);
        if (named == -2)
            req_fail(req, TAPIS_E_NAME_TAKEN, "\"%s\" is a registered name", name);
        else
            req_fail(req, TAPIS_E_NAME_TAKEN, "someone here is already called \"%s\"", name);
        return;
    }
    if (lobby_session_rename(s, name) < 0) {
        req_fail(req, TAPIS_E_INTERNAL, "out of memory");
        return;
    }
    s->account = reg; /* a guest name drops the account; a registered one is the account's */
    if (via) c->relayed = true;
    conn_hello_done(c);
    /* Without its reply the hello fails (internal), and a resumed session stays
       where it was: what it did (a new session for c, a new name) is what the
       hello sent again does too. */
    unsigned long mark = tapis_alloc_failures();
    json_t *rooms = json_array();
    for (int i = 0; i < s->nrooms; i++)
        json_array_append_new(rooms, json_string(s->rooms[i]->id));
    /* In a cluster, the rooms on other nodes too: [[id, node]...] (not for a
       node's link: the node that relays serves those itself). */
    json_t *remote = resumed && !via ? cluster_session_rooms(c->srv, s->id) : NULL;
    size_t ri;
    json_t *rr;
    json_array_foreach(remote, ri, rr) json_array_append(rooms, json_array_get(rr, 0));
    json_t *f = json_pack("{s:s, s:s, s:b, s:o, s:s, s:b}", "token", s->token, "name", s->name,
                          "resumed", resumed, "rooms", rooms, "server", "tapisd " TAPIS_VERSION,
                          "account", s->account != NULL);
    if (req_ok(req, game_json_checked(f, mark)) < 0) {
        json_decref(remote);
        return;
    }
    if (resumed && s->conn != c) {
        lobby_session_attach(s, c); /* sends the current state of every room at once */
    } else {
        log_info("conn %llu: hello %s (session %llu%s)", (unsigned long long)c->id, s->name,
                 (unsigned long long)s->id, s->account ? ", account" : "");
    }
    /* The rooms other nodes host: their state comes through a link to each. */
    json_array_foreach(remote, ri, rr) relay_link(c, json_string_value(json_array_get(rr, 1)),
                                                  json_string_value(json_array_get(rr, 0)));
    json_decref(remote);
}

/* [{"level","strategy","pace_ms":[MIN,MAX],"help"}...]: the pace as on this server. */
static json_t *bot_levels(const server_t *srv, const game_desc_t *d)
{
    json_t *list = json_array();
    for (const game_bot_level_t *l = d->bot_levels; l && l->name; l++) {
        int64_t lo, hi;
        room_bot_pace(srv, l, &lo, &hi);
        json_array_append_new(list, json_pack("{s:s, s:s, s:[I,I], s:s}", "level", l->name,
                                              "strategy", l->strategy, "pace_ms", (json_int_t)lo,
                                              (json_int_t)hi, "help", l->help ? l->help : ""));
    }
    return list;
}

static void on_games(request_t *req)
{
    int n;
    const game_desc_t *const *games = game_registry(&n);
    unsigned long mark = tapis_alloc_failures();
    json_t *list = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(
            list, json_pack("{s:s, s:s, s:i, s:i, s:o, s:o, s:o}", "id", games[i]->id, "title",
                            games[i]->title, "min_players", games[i]->min_seats, "max_players",
                            games[i]->max_seats, "options", game_default_options(games[i]),
                            "option_specs", game_options_json(games[i]), "bots",
                            bot_levels(req->conn->srv, games[i])));
    req_ok(req, game_json_checked(json_pack("{s:o}", "games", list), mark));
}

static void on_act(request_t *req)
{
    room_t *r = req->room;
    int seat = room_seat_of(r, req->session);
    if (seat < 0) {
        req_fail(req, TAPIS_E_NOT_SEATED, "you do not sit at table %s", r->id);
        return;
    }
    /* The reply is made before the act is applied (no memory for it: nothing
       is played), as text when it can be (always, in practice). */
    char line[512];
    size_t n = proto_encode_ok(req->re, req->id, "room", r->id, line, sizeof line);
    json_t *reply = n ? NULL : req_ok_prepare(req, json_pack("{s:s}", "room", r->id));
    if (!n && !reply) {
        req_fail(req, TAPIS_E_INTERNAL, "out of memory");
        return;
    }
    /* The state it answers: the one it names, else the latest written to it before it came. */
    const json_t *seq = req_arg(req, "seq");
    uint64_t written = 0;
    if (seq && (uint64_t)json_integer_value(seq) > r->seq) {
        json_decref(reply);
        req_fail(req, TAPIS_E_BAD_REQUEST, "seq %lld: table %s is at state %llu",
                 (long long)json_integer_value(seq), r->id, (unsigned long long)r->seq);
        return;
    }
    if (!seq || !rtt_state_time(req->conn, r->rid, (uint64_t)json_integer_value(seq), &written) ||
        written > req->stamp)
        written = rtt_latest_state(req->conn, r->rid, req->stamp);
    const rtt_t *t = &req->conn->rtt;
    room_settle_t settle = {
        .credit_us = t->line_credit_us,
        .hold_us = t->line_hold_us,
        .rtt_us = rtt_estimate(req->conn),
        .written_us = written,
        .response_us = written ? req->stamp - written : UINT64_MAX,
        .seq = seq ? (int64_t)json_integer_value(seq) : -1,
    };
    tapis_error_t err = {0};
    if (room_apply(r, seat, req_arg(req, "action"), req->stamp, &settle, &err) < 0) {
        json_decref(reply);
        req_fail(req, err.code ? err.code : TAPIS_E_ILLEGAL_ACTION, "%s", err.message);
        return;
    }
    if (n) {
        req->replied = true;
        conn_send_encoded(req->conn, line, n);
    } else {
        req_send(req, reply);
    }
    room_changed(r);
    server_t *srv = req->conn->srv;
    histogram_observe(&srv->metrics.action_latency,
                      (double)(server_now_us(srv) - req->stamp) / 1e6);
}

static void on_state(request_t *req)
{
    room_t *r = req->room;
    if (room_seat_of(r, req->session) < 0 && !room_is_watcher(r, req->session)) {
        req_fail(req, TAPIS_E_NOT_IN_ROOM, "join or watch room %s first", r->id);
        return;
    }
    unsigned long mark = tapis_alloc_failures();
    json_t *f = room_summary(r);
    if (r->status != ROOM_WAITING) {
        int seat = room_seat_of(r, req->session);
        json_t *ev = room_state_event(r, seat >= 0 ? seat : GAME_SPECTATOR);
        json_object_set(f, "seq", json_object_get(ev, "seq"));
        json_object_set(f, "waiting", json_object_get(ev, "waiting"));
        json_object_set(f, "deadline_ms", json_object_get(ev, "deadline_ms"));
        json_object_set(f, "view", json_object_get(ev, "view"));
        json_decref(ev);
    }
    req_ok(req, game_json_checked(f, mark));
}

static void on_help(request_t *req)
{
    const char *name = json_string_value(json_object_get(req->msg, "command"));
    unsigned long mark = tapis_alloc_failures();
    char *text = command_help(name);
    if (!text && tapis_alloc_failed_since(mark)) {
        req_fail(req, TAPIS_E_INTERNAL, "out of memory");
        return;
    }
    if (!text) {
        req_fail(req, TAPIS_E_NOT_FOUND, "no command named \"%s\" (see help)", name);
        return;
    }
    req_ok(req, json_pack("{s:s}", "text", text));
    tapis_free(text);
}

static void on_quit(request_t *req)
{
    req_ok_bare(req);
    conn_close_after_flush(req->conn, "quit");
}

/* ------------------------------------------------------------------------ */
/* Routing                                                                  */
/* ------------------------------------------------------------------------ */

/*
 * In a cluster: a request for a room another node hosts, or a `create` the
 * least loaded node should host, goes there through a link (relay.c); its
 * reply comes back later. Returns true when it was sent.
 */
static bool route_remote(request_t *req, const command_t *cmd, const char *line, size_t len)
{
    server_t *srv = req->conn->srv;
    const char *node = NULL;
    if (cmd->id == CMD_CREATE) {
        if (srv->draining || req->session->nrooms >= SESSION_MAX_ROOMS) return false;
        node = cluster_place_room(srv);
    } else if (command_arg(cmd, "room")) {
        const char *id = json_string_value(req_arg(req, "room"));
        if (id && room_find(srv, id)) return false;
        if (id)
            node = cluster_room_node(srv, id);
        else if (req->session->nrooms == 0) /* its only rooms are on one other node */
            node = relay_single_node(req->conn);
    }
    if (!node) return false;
    relay_forward(req->conn, node, line, len, req->re, req->id);
    req->replied = true;
    return true;
}

/* Resolve the request's room: the one it names, or the only one the session is in. */
static int resolve_room(request_t *req)
{
    const char *id = json_string_value(req_arg(req, "room"));
    if (id) {
        req->room = room_find(req->conn->srv, id);
        if (!req->room) {
            req_fail(req, TAPIS_E_NOT_FOUND, "no room %s", id);
            return -1;
        }
        return 0;
    }
    req->room = session_single_room(req->session);
    if (!req->room) {
        req_fail(req, TAPIS_E_BAD_REQUEST, "%s: room: required (you are in %d rooms)", req->re,
                 req->session->nrooms);
        return -1;
    }
    return 0;
}

static void on_ping(request_t *req)
{
    req_ok_bare(req);
}

/* The answer to the server's ping (rtt.h): a sample of the round trip, timed by its read stamp. */
static void on_pong(request_t *req)
{
    server_t *srv = req->conn->srv;
    uint64_t n = (uint64_t)json_integer_value(json_object_get(req->msg, "n"));
    relay_pong(req->conn, n); /* a ping of a node hosting one of its rooms, passed on */
    uint64_t sample = rtt_pong(req->conn, n, req->stamp);
    if (sample) {
        histogram_observe(&srv->metrics.rtt, (double)rtt_estimate(req->conn) / 1e6);
        room_race_pong(req->session, req->stamp - sample, sample); /* a doubt of its quota */
    }
    uint64_t est = rtt_estimate(req->conn);
    if (!est) {
        req_ok_bare(req); /* a pong of no ping awaited (a late one): nothing learnt */
        return;
    }
    req_ok(req, json_pack("{s:I}", "lag_ms", (json_int_t)((est + 999) / 1000)));
}

/* The handler of each command of protocol/commands.c's table, by its id. */
#define HANDLER_ENTRY(cmd, handler) [cmd] = handler,

static void (*const HANDLERS[CMD__COUNT])(request_t *req) = {
    [CMD_HELLO] = on_hello,       [CMD_GAMES] = on_games,
    [CMD_ACT] = on_act,           [CMD_STATE] = on_state,
    [CMD_PING] = on_ping,         [CMD_PONG] = on_pong,
    [CMD_HELP] = on_help,         [CMD_QUIT] = on_quit,
    LOBBY_HANDLERS(HANDLER_ENTRY) /* the lobby's files' (dispatch.h) */
};

bool dispatch_handles_every_command(void)
{
    for (int i = 0; i < CMD__COUNT; i++)
        if (!HANDLERS[i]) return false;
    return true;
}

static void route(request_t *req, cmd_id_t id)
{
    HANDLERS[id](req);
}

void dispatch_line(conn_t *c, const char *line, size_t len, uint64_t stamp, bool limited)
{
    proto_request_t preq;
    tapis_error_t perr;
    int rc = proto_request_parse(&preq, line, len, &perr);
    if (rc == PROTO_EMPTY) {
        if (limited) conn_note_error(c, TAPIS_E_RATE_LIMITED); /* no reply, but it counts */
        proto_request_free(&preq);
        return;
    }
    if (limited) {
        c->srv->metrics.rate_limited[BUDGET_LINE]++;
        rc = PROTO_ERROR;
        perr.code = TAPIS_E_RATE_LIMITED;
        snprintf(perr.message, sizeof perr.message,
                 "more than %llu lines a second; slow down (this line was not run)",
                 (unsigned long long)c->srv->opts.line_rate);
    }
    if (rc != PROTO_OK) {
        log_debug("conn %llu: %s: %s", (unsigned long long)c->id, perr.code, perr.message);
        conn_send_new(c, proto_reply_from_error(&preq, &perr));
        conn_note_error(c, perr.code);
        proto_request_free(&preq);
        return;
    }
    request_t req = {
        .conn = c,
        .session = c->session,
        .msg = preq.msg,
        .args = preq.args,
        .command = preq.command,
        .re = preq.re,
        .id = preq.id,
        .stamp = stamp,
    };
    const command_t *cmd = preq.command;
    log_debug("conn %llu: %s", (unsigned long long)c->id, cmd->name);
    if (!(cmd->flags & CMD_F_BEFORE_HELLO) && !c->session) {
        req_fail(&req, TAPIS_E_HELLO_FIRST, "say hello first: hello NAME");
    } else if ((cmd->flags & CMD_F_ADMIN) && !c->session->admin) {
        admin_refuse(&req, cmd); /* before anything is looked up: not even a room's existence */
    } else if (c->srv->cluster && !c->relayed && !(cmd->flags & CMD_F_ADMIN) &&
               route_remote(&req, cmd, line, len)) {
        /* sent to the node that hosts the room */
    } else if (command_arg(cmd, "room")) {
        if (resolve_room(&req) == 0) route(&req, cmd->id);
    } else {
        route(&req, cmd->id);
    }
    if (!req.replied) {
        log_error("conn %llu: %s got no reply", (unsigned long long)c->id, cmd->name);
        req_fail(&req, TAPIS_E_INTERNAL, "internal error");
    }
    proto_request_free(&preq);
}

/* ------------------------------------------------------------------------ */
/* The connections' hooks                                                   */
/* ------------------------------------------------------------------------ */

static void on_conn_close(conn_t *c)
{
    relay_close_all(c);
    lobby_accounts_conn_closed(c);
    if (c->session) lobby_session_detach(c->session);
    c->session = NULL;
}

/*
 * The seq a line names ("seq":N in JSON, seq=N inline), found without
 * parsing it (the line is parsed when it is taken), or -1. A wrong guess
 * costs only a credit bound (below): the act checks the seq it is given.
 */
static int64_t line_seq(const char *line, size_t len)
{
    static const char *const keys[] = {"\"seq\":", "seq="};
    for (size_t k = 0; line && k < 2; k++) {
        size_t kl = strlen(keys[k]);
        for (size_t i = 0; i + kl < len; i++) {
            if (memcmp(line + i, keys[k], kl) != 0) continue;
            int64_t v = 0;
            size_t j = i + kl;
            while (j < len && line[j] == ' ')
                j++;
            if (j >= len || line[j] < '0' || line[j] > '9') return -1;
            for (; j < len && line[j] >= '0' && line[j] <= '9' && v < (INT64_C(1) << 53); j++)
                v = v * 10 + (line[j] - '0');
            return v;
        }
    }
    return -1;
}

/*
 * How long c's next line waits (server/room/room_race.c): in each
 * room c's player sits in, the room's hold less c's credit there, the
 * credit being at most the time since the state it answers was written
 * (the seq it names, else the latest written to c before it came: a
 * reaction is never negative). The longest wait of its rooms, whose credit
 * and hold the act then reads.
 */
static uint64_t on_line_delay(conn_t *c, const char *line, size_t len, uint64_t stamp)
{
    rtt_t *t = &c->rtt;
    t->line_credit_us = t->line_hold_us = 0;
    session_t *s = c->session;
    if (!s) return 0;
    int64_t seq = -2;               /* not looked for yet: only a line a room holds needs it, */
    uint64_t delay = 0, latest = 0; /* nor this */
    for (int i = 0; i < s->nrooms; i++) {
        room_t *r = s->rooms[i];
        if (room_seat_of(r, s) < 0) continue;
        uint64_t hold = room_hold_us(r);
        if (!hold) continue;
        if (seq == -2) {
            seq = line_seq(line, len);
            latest = rtt_latest_state(c, 0, stamp);
        }
        uint64_t written = latest;
        if (seq >= 0 && !rtt_state_time(c, r->rid, (uint64_t)seq, &written)) written = latest;
        if (written > stamp) written = latest;
        uint64_t credit = written ? room_credit_us(r, s) : 0;
        if (credit > stamp - written) credit = stamp - written;
        if (hold - credit >= delay) {
            delay = hold - credit;
            t->line_credit_us = credit;
            t->line_hold_us = hold;
        }
    }
    return delay;
}

/* Is c's player in a room? (conn.c stamps its reads in the kernel.) Asked at
   each read: the rooms' seats and status would cost a walk of cold memory
   there, and a stamp taken for a spectator or a waiting room costs nothing. */
static bool on_in_room(conn_t *c)
{
    return c->session && c->session->nrooms > 0;
}

const conn_hooks_t dispatch_conn_hooks = {
    .on_line = dispatch_line,
    .on_close = on_conn_close,
    .is_node_addr = cluster_is_node_ip,
    .line_delay = on_line_delay,
    .in_room = on_in_room,
};
