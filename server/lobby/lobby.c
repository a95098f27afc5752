/*
 * lobby.c — the lobby's commands: create, rooms, join, watch, leave, addbot,
 * say. The handler checks what the protocol cannot (does the game exist, is
 * the seat free), replies, then lets the room broadcast.
 */
#include <stdlib.h>
#include <string.h>

#include "server/account/account.h"
#include "server/cluster/cluster.h"
#include "server/net/conn.h"
#include "server/lobby/dispatch.h"
#include "protocol/envelope.h"
#include "server/base/log.h"
#include "server/room/room.h"
#include "server/session/session.h"
#include "server/durable/durable.h"
#include "protocol/text.h"
#include "core/journal.h"

#define ROOMS_PAGE_DEFAULT 50
#define HISTORY_PAGE_DEFAULT 20

/* The players a table of d gets when `create` does not say: 4 if it can. */
int lobby_default_players(const game_desc_t *d)
{
    int n = 4;
    if (n < d->min_seats) n = d->min_seats;
    if (n > d->max_seats) n = d->max_seats;
    return n;
}

json_t *lobby_room_options(server_t *srv, const game_desc_t *d, const json_t *user)
{
    /* The server's dispute window goes to every game that has one, unless the creator chose. */
    unsigned long mark = tapis_alloc_failures();
    json_t *options = user ? json_deep_copy(user) : json_object();
    json_t *defaults = game_default_options(d);
    if (json_is_integer(json_object_get(defaults, "dispute_ms")) &&
        !json_object_get(options, "dispute_ms"))
        json_object_set_new(options, "dispute_ms", json_integer(srv->opts.dispute_ms));
    json_decref(defaults);
    return game_json_checked(options, mark);
}

void lobby_create(request_t *req)
{
    server_t *srv = req->conn->srv;
    const char *game = json_string_value(json_object_get(req->msg, "game"));
    if (req->session->nrooms >= SESSION_MAX_ROOMS) {
        req_fail(req, TAPIS_E_TOO_MANY_ROOMS, "leave a room first (you are in too many)");
        return;
    }
    const game_desc_t *d = game_find(game);
    if (!d) {
        req_fail(req, TAPIS_E_NOT_FOUND, "no game \"%s\" (see games)", game);
        return;
    }
    if (srv->draining) {
        req_fail(req, TAPIS_E_DRAINING,
                 "the server is draining for a restart: no new rooms; games in play go on");
        return;
    }
    uint64_t rate = srv->opts.create_rate;
    if (!budget_take(&req->session->create_budget, req->stamp, rate ? 60000000 / rate : 0, rate)) {
        srv->metrics.rate_limited[BUDGET_CREATE]++;
        req_fail(req, TAPIS_E_RATE_LIMITED, "you may open %llu rooms a minute; wait a little",
                 (unsigned long long)rate);
        return;
    }
    json_t *players = json_object_get(req->msg, "players");
    int n = players ? (int)json_integer_value(players) : lobby_default_players(d);
    if (n > GAME_MAX_SEATS) {
        req_fail(req, TAPIS_E_BAD_PLAYERS, "%s is played by %d to %d players", d->title,
                 d->min_seats, d->max_seats);
        return;
    }
    /* race= is the room's, not the game's: how it settles races (room.h). */
    room_race_t race = room_race_default(srv);
    const json_t *race_opt = json_object_get(json_object_get(req->msg, "options"), "race");
    if (race_opt && room_race_parse(json_string_value(race_opt), &race) < 0) {
        req_fail(req, TAPIS_E_BAD_OPTION, "race: \"reaction\" or \"arrival\"");
        return;
    }
    json_t *options = lobby_room_options(srv, d, json_object_get(req->msg, "options"));
    if (!options) { /* not the options asked for */
        req_fail(req, TAPIS_E_INTERNAL, "out of memory");
        return;
    }
    json_object_del(options, "race");
    bool priv = json_is_true(json_object_get(req->msg, "private"));
    bool rated = json_is_true(json_object_get(req->msg, "rated"));
    if (rated && !req->session->account) {
        json_decref(options);
        req_fail(req, TAPIS_E_ACCOUNT_REQUIRED, "guests play casual games: log in to play rated");
        return;
    }
    tapis_error_t err = {0};
    room_t *r = room_create(srv, d, n, options, priv, race, &err);
    json_decref(options);
    if (!r) {
        req_fail(req, err.code ? err.code : TAPIS_E_BAD_OPTION, "%s", err.message);
        return;
    }
    if (rated && !(r->rated = rated_room_new(d->id))) {
        room_destroy(r);
        req_fail(req, TAPIS_E_INTERNAL, "out of memory");
        return;
    }
    /* The reply before the creator sits (in the first seat): without it, no room either. */
    unsigned long mark = tapis_alloc_failures();
    json_t *f = json_pack("{s:s, s:i, s:b, s:b}", "room", r->id, "seat", 0, "private", priv,
                          "rated", rated);
    if (priv) json_object_set_new(f, "code", json_string(r->id));
    json_t *reply = req_ok_prepare(req, game_json_checked(f, mark));
    tapis_error_t rerr = {TAPIS_E_INTERNAL, "out of memory"};
    if (!reply || room_sit(r, req->session, 0, &rerr) < 0) { /* never leave a room empty */
        json_decref(reply);
        room_destroy(r);
        req_fail(req, rerr.code, "%s", rerr.message);
        return;
    }
    req_send(req, reply);
    room_seated(r);
}

/*
 * One page of the rooms the caller may see (public ones, and private ones it
 * is in), newest first, with filters; "total" counts every match. The walk
 * is bounded by --max-rooms and costs a few comparisons a room; only the
 * page is turned into JSON.
 */
void lobby_rooms(request_t *req)
{
    json_t *m = req->msg;
    const char *game = json_string_value(json_object_get(m, "game"));
    const char *status = json_string_value(json_object_get(m, "status"));
    int limit = json_object_get(m, "limit") ? (int)json_integer_value(json_object_get(m, "limit"))
                                            : ROOMS_PAGE_DEFAULT;
    long long offset = json_integer_value(json_object_get(m, "offset"));
    int want = -1;
    for (int st = ROOM_WAITING; status && st <= ROOM_OVER; st++)
        if (strcmp(status, room_status_name((room_status_t)st)) == 0) want = st;
    if (status && want < 0) {
        req_fail(req, TAPIS_E_BAD_REQUEST, "rooms: status: waiting, playing or over");
        return;
    }
    unsigned long mark = tapis_alloc_failures();
    json_t *list = json_array();
    long long total = 0, walked = 0;
    queue_t *rooms = &req->conn->srv->rooms, *q = queue_head(rooms);
    /* In a cluster, the other nodes' rooms (the directory) merge in, newest first. */
    cluster_room_ref_t *remote = NULL;
    int nremote = cluster_remote_rooms(req->conn->srv, req->session->name, game, status, &remote);
    for (int ri = 0;; walked++) {
        room_t *r = q != rooms ? queue_data(q, room_t, node) : NULL;
        if (!r && ri >= nremote) break;
        if (ri < nremote && (!r || remote[ri].rid > r->rid)) {
            if (total >= offset && total < offset + limit)
                json_array_append(list, (json_t *)remote[ri].summary);
            total++;
            ri++;
            continue;
        }
        q = queue_next(q);
        if (game && strcmp(r->desc->id, game) != 0) continue;
        if (want >= 0 && (int)r->status != want) continue;
        if (r->private_room && room_seat_of(r, req->session) < 0 &&
            !room_is_watcher(r, req->session))
            continue;
        if (total >= offset && total < offset + limit) json_array_append_new(list, room_summary(r));
        total++;
    }
    tapis_free(remote);
    /* A page costs the caller's line budget its weight: one line per 100 rooms
       looked at and per 5 rooms sent, so asking for pages cannot cost the loop
       more than other lines do. */
    uint64_t rate = req->conn->srv->opts.line_rate;
    budget_charge(&req->conn->line_budget, req->stamp, rate ? 1000000 / rate : 0,
                  (uint64_t)(walked / 100 + (long long)json_array_size(list) / 5));
    json_t *page = json_pack("{s:o, s:I, s:I, s:i}", "rooms", list, "total", (json_int_t)total,
                             "offset", (json_int_t)offset, "limit", limit);
    req_ok(req, game_json_checked(page, mark));
}

/*
 * One page of finished games, newest first: the caller's (the games its
 * session sits in), or with `all` the server's public ones. Read from the
 * store (none with --db none: an empty page). Charged to the line budget
 * like a page of rooms.
 */
void lobby_history(request_t *req)
{
    json_t *m = req->msg;
    bool all = json_is_true(json_object_get(m, "all"));
    int limit = json_object_get(m, "limit") ? (int)json_integer_value(json_object_get(m, "limit"))
                                            : HISTORY_PAGE_DEFAULT;
    long long offset = json_integer_value(json_object_get(m, "offset"));
    long long total = 0;
    json_t *games =
        durable_history(&req->conn->srv->durable, req->session->id, all, limit, offset, &total);
    if (!games) {
        req_fail(req, TAPIS_E_INTERNAL, "history: the database failed (logged)");
        return;
    }
    /* The rows the database walked: the page and the ones skipped before it. */
    long long walked = offset + limit < total ? offset + limit : total;
    uint64_t rate = req->conn->srv->opts.line_rate;
    budget_charge(&req->conn->line_budget, req->stamp, rate ? 1000000 / rate : 0,
                  (uint64_t)(walked / 100 + (long long)json_array_size(games) / 5));
    req_ok(req, json_pack("{s:o, s:I, s:i, s:I}", "games", games, "total", (json_int_t)total,
                          "limit", limit, "offset", (json_int_t)offset));
}

static bool is_step(const json_t *entry)
{
    const char *k = json_string_value(json_object_get(entry, "kind"));
    return k && (strcmp(k, "act") == 0 || strcmp(k, "tick") == 0);
}

static json_int_t entry_int(const json_t *entry, const char *key, json_int_t dflt)
{
    const json_t *v = json_object_get(entry, key);
    return json_is_integer(v) ? json_integer_value(v) : dflt;
}

/*
 * What a spectator saw (game_view(GAME_SPECTATOR)) after the first `step`
 * act and tick entries of a finished game's record, replayed through core's
 * journal replay (core/journal.h) as a restore and `tapis replay` do. The
 * record is the server's own, stored by a game that ended: a refusal here is
 * a fault (logged), not the caller's. NULL with *why on a fault.
 */
static json_t *record_view_at(const json_t *record, json_int_t step, char *why, size_t whylen)
{
    const game_desc_t *d = game_find(json_string_value(json_object_get(record, "game")));
    game_deal_t deal;
    if (!d) {
        snprintf(why, whylen, "the record names no game of this server");
        return NULL;
    }
    if (deal_from_record(record, &deal, why, whylen) < 0) return NULL;
    journal_replay_t jr;
    if (journal_replay_start_tree(&jr, d, (int)entry_int(record, "players", 0),
                                  json_object_get(record, "options"), &deal, why, whylen) < 0)
        return NULL;
    size_t i;
    const json_t *e;
    json_int_t done = 0;
    json_array_foreach(json_object_get(record, "actions"), i, e)
    {
        if (done == step && is_step(e)) break; /* (step 0: after the "seed" entries) */
        json_int_t n = entry_int(e, "n", 0);
        if (journal_replay_entry_tree(&jr, n < 0 ? 0 : (uint64_t)n,
                                      json_string_value(json_object_get(e, "kind")),
                                      (int)entry_int(e, "seat", -1), entry_int(e, "at", 0),
                                      json_object_get(e, "data"), why, whylen) < 0) {
            journal_replay_abandon(&jr);
            return NULL;
        }
        done += is_step(e);
    }
    json_t *view = game_view(jr.g, GAME_SPECTATOR);
    if (!view) snprintf(why, whylen, "out of memory");
    journal_replay_abandon(&jr);
    return view;
}

/*
 * The record of one finished game (docs/STORE.md, "Records"); with `step`,
 * the spectator's view after that many moves instead. Replaying weighs on
 * the line budget like a page of history: one line more per 100 entries.
 */
static void replay_step(request_t *req, json_t *record, json_int_t step)
{
    const json_t *actions = json_object_get(record, "actions");
    json_int_t steps = 0;
    size_t i;
    const json_t *e;
    json_array_foreach(actions, i, e) steps += is_step(e);
    if (step > steps) {
        req_fail(req, TAPIS_E_BAD_REQUEST, "replay: step: game %s has steps 0 to %lld",
                 json_string_value(json_object_get(record, "id")), (long long)steps);
        json_decref(record);
        return;
    }
    uint64_t rate = req->conn->srv->opts.line_rate;
    budget_charge(&req->conn->line_budget, req->stamp, rate ? 1000000 / rate : 0,
                  (uint64_t)(json_array_size(actions) / 100));
    char why[256] = "";
    json_t *view = record_view_at(record, step, why, sizeof why);
    if (!view) {
        log_error("replay of game %s, step %lld: %s",
                  json_string_value(json_object_get(record, "id")), (long long)step, why);
        req_fail(req, TAPIS_E_INTERNAL, "replay: the game does not replay (logged)");
    } else {
        req_ok(req, json_pack("{s:o, s:I, s:I}", "view", view, "step", step, "steps", steps));
    }
    json_decref(record);
}

void lobby_replay(request_t *req)
{
    const char *id = json_string_value(json_object_get(req->msg, "game_id"));
    const json_t *step = json_object_get(req->msg, "step");
    json_t *record = NULL;
    switch (durable_game_record(&req->conn->srv->durable, id, req->session->id, &record)) {
    case DURABLE_REC_OK:
        if (step)
            replay_step(req, record, json_integer_value(step));
        else
            req_ok(req, json_pack("{s:o}", "record", record));
        return;
    case DURABLE_REC_NOT_FINISHED:
        req_fail(req, TAPIS_E_NOT_FINISHED, "game %s is not finished", id);
        return;
    case DURABLE_REC_NOT_FOUND: req_fail(req, TAPIS_E_NOT_FOUND, "no finished game %s", id); return;
    default: req_fail(req, TAPIS_E_INTERNAL, "replay: the database failed (logged)"); return;
    }
}

/*
 * join and addbot: the reply {room, seat} is built first (`internal` must mean
 * nothing happened), then `sit` seats someone (the seat, or -1 with err),
 * then the table starts if that was its last seat.
 */
static void seat_and_reply(request_t *req, int (*sit)(request_t *req, tapis_error_t *err))
{
    room_t *r = req->room;
    json_t *reply = req_ok_prepare(req, json_pack("{s:s, s:i}", "room", r->id, "seat", -1));
    tapis_error_t err = {TAPIS_E_INTERNAL, "out of memory"};
    int k = reply ? sit(req, &err) : -1;
    if (k < 0) {
        json_decref(reply);
        req_fail(req, err.code, "%s", err.message);
        return;
    }
    json_integer_set(json_object_get(reply, "seat"), k);
    req_send(req, reply);
    room_seated(r);
}

static int sit_player(request_t *req, tapis_error_t *err)
{
    if (req->room->rated && !req->session->account) {
        *err =
            (tapis_error_t){TAPIS_E_ACCOUNT_REQUIRED, "a rated table seats accounts only: log in"};
        return -1;
    }
    json_t *seat = json_object_get(req->msg, "seat");
    return room_sit(req->room, req->session, seat ? (int)json_integer_value(seat) : -1, err);
}

static int sit_bot(request_t *req, tapis_error_t *err)
{
    return room_add_bot(req->room, json_string_value(json_object_get(req->msg, "strategy")), err);
}

void lobby_join(request_t *req)
{
    seat_and_reply(req, sit_player);
}

void lobby_watch(request_t *req)
{
    room_t *r = req->room;
    json_t *reply = req_ok_prepare(req, json_pack("{s:s}", "room", r->id));
    tapis_error_t err = {TAPIS_E_INTERNAL, "out of memory"};
    if (!reply || room_watch(r, req->session, &err) < 0) {
        json_decref(reply);
        req_fail(req, err.code, "%s", err.message);
        return;
    }
    req_send(req, reply);
    room_notify(r);
    if (r->status != ROOM_WAITING) conn_send_new(req->conn, room_state_event(r, GAME_SPECTATOR));
}

void lobby_leave(request_t *req)
{
    room_t *r = req->room;
    if (room_seat_of(r, req->session) < 0 && !room_is_watcher(r, req->session)) {
        req_fail(req, TAPIS_E_NOT_IN_ROOM, "you are not in room %s", r->id);
        return;
    }
    /* The reply first: r may be gone after room_release(). */
    if (req_ok(req, json_pack("{s:s}", "room", r->id)) < 0) return;
    room_release(r, req->session);
}

void lobby_addbot(request_t *req)
{
    room_t *r = req->room;
    if (room_seat_of(r, req->session) < 0) {
        req_fail(req, TAPIS_E_NOT_SEATED, "only a player seated at table %s may add bots", r->id);
        return;
    }
    seat_and_reply(req, sit_bot);
}

void lobby_seed(request_t *req)
{
    room_t *r = req->room;
    int seat = room_seat_of(r, req->session);
    if (seat < 0) {
        req_fail(req, TAPIS_E_NOT_SEATED, "only a player seated at table %s may add a seed", r->id);
        return;
    }
    json_t *reply = req_ok_prepare(req, json_pack("{s:s}", "room", r->id));
    if (!reply) {
        req_fail(req, TAPIS_E_INTERNAL, "out of memory");
        return;
    }
    tapis_error_t err = {0};
    if (room_seed(r, seat, json_string_value(json_object_get(req->msg, "text")), &err) < 0) {
        json_decref(reply);
        req_fail(req, err.code, "%s", err.message);
        return;
    }
    req_send(req, reply);
    room_notify(r); /* "deal": "seeded" */
}

void lobby_say(request_t *req)
{
    room_t *r = req->room;
    int seat = room_seat_of(r, req->session);
    if (seat < 0 && !room_is_watcher(r, req->session)) {
        req_fail(req, TAPIS_E_NOT_IN_ROOM, "join or watch room %s first", r->id);
        return;
    }
    const server_opts_t *o = &req->conn->srv->opts;
    json_t *text = json_object_get(req->msg, "text");
    size_t len = json_string_length(text);
    if (len > o->max_chat) {
        req_fail(req, TAPIS_E_TEXT_TOO_LONG, "a chat line is limited to %zu bytes", o->max_chat);
        return;
    }
    if (text_find_unsafe(json_string_value(text), len) >= 0) {
        req_fail(req, TAPIS_E_BAD_TEXT,
                 "chat may not hold control, invisible or direction-changing "
                 "characters (one line of plain text)");
        return;
    }
    if (!budget_take(&req->session->chat_budget, req->stamp,
                     o->chat_rate ? 10000000 / o->chat_rate : 0, o->chat_rate)) {
        req->conn->srv->metrics.rate_limited[BUDGET_CHAT]++;
        req_fail(req, TAPIS_E_RATE_LIMITED,
                 "you may say %llu lines every 10 seconds; wait a little",
                 (unsigned long long)o->chat_rate);
        return;
    }
    /* Reply and event first: without them, nothing is said (internal). */
    unsigned long mark = tapis_alloc_failures();
    json_t *reply = req_ok_prepare(req, json_pack("{s:s}", "room", r->id));
    json_t *ev = room_new_event(r, "chat");
    json_object_set_new(ev, "from", json_string(req->session->name));
    json_object_set_new(ev, "seat", seat >= 0 ? json_integer(seat) : json_null());
    json_object_set(ev, "text", json_object_get(req->msg, "text"));
    if (!reply || !(ev = game_json_checked(ev, mark))) {
        json_decref(reply);
        json_decref(ev);
        req_fail(req, TAPIS_E_INTERNAL, "out of memory");
        return;
    }
    req_send(req, reply);
    room_broadcast(r, ev);
    json_decref(ev);
}
