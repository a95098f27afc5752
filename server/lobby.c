/*
 * lobby.c — the lobby's commands: create, rooms, join, watch, leave, addbot,
 * say. The handler checks what the protocol cannot (does the game exist, is
 * the seat free), replies, then lets the room broadcast.
 */
#include <string.h>

#include "conn.h"
#include "dispatch.h"
#include "envelope.h"
#include "log.h"
#include "room.h"
#include "session.h"

/* The players a table of d gets when `create` does not say: 4 if it can. */
static int default_players(const game_desc_t *d)
{
    int n = 4;
    if (n < d->min_seats) n = d->min_seats;
    if (n > d->max_seats) n = d->max_seats;
    return n;
}

void lobby_create(request_t *req)
{
    server_t *srv = req->conn->srv;
    const char *game = json_string_value(json_object_get(req->msg, "game"));
    if (req->session->nrooms >= SESSION_MAX_ROOMS) {
        req_fail(req, "too_many_rooms", "leave a room first (you are in too many)");
        return;
    }
    const game_desc_t *d = game_find(game);
    if (!d) {
        req_fail(req, "not_found", "no game \"%s\" (see games)", game);
        return;
    }
    json_t *players = json_object_get(req->msg, "players");
    int n = players ? (int)json_integer_value(players) : default_players(d);
    if (n > GAME_MAX_SEATS) {
        req_fail(req, "bad_players", "%s is played by %d to %d players", d->title, d->min_seats,
                 d->max_seats);
        return;
    }
    /* The server's dispute window goes to every game that has one, unless the creator chose. */
    json_t *user = json_object_get(req->msg, "options");
    json_t *options = user ? json_deep_copy(user) : json_object();
    json_t *defaults = game_default_options(d);
    if (json_is_integer(json_object_get(defaults, "dispute_ms")) &&
        !json_object_get(options, "dispute_ms"))
        json_object_set_new(options, "dispute_ms", json_integer(srv->opts.dispute_ms));
    json_decref(defaults);
    bool priv = json_is_true(json_object_get(req->msg, "private"));
    game_error_t err = {0};
    room_t *r = room_create(srv, d, n, options, priv, &err);
    json_decref(options);
    if (!r) {
        req_fail(req, err.code ? err.code : "bad_option", "%s", err.message);
        return;
    }
    room_error_t rerr;
    int seat = room_sit(r, req->session, 0, &rerr);
    if (seat < 0) { /* cannot happen with a new room, but never leave one empty */
        room_destroy(r);
        req_fail(req, rerr.code, "%s", rerr.message);
        return;
    }
    json_t *f = json_pack("{s:s, s:i, s:b}", "room", r->id, "seat", seat, "private", priv);
    if (priv) json_object_set_new(f, "code", json_string(r->id));
    req_ok(req, f);
    room_seated(r);
}

void lobby_rooms(request_t *req)
{
    json_t *list = json_array();
    for (room_t *r = req->conn->srv->rooms; r; r = r->next)
        if (!r->private_room || room_seat_of(r, req->session) >= 0 ||
            room_is_watcher(r, req->session))
            json_array_append_new(list, room_summary(r));
    req_ok(req, json_pack("{s:o}", "rooms", list));
}

void lobby_join(request_t *req)
{
    room_t *r = req->room;
    json_t *seat = json_object_get(req->msg, "seat");
    room_error_t err;
    int k = room_sit(r, req->session, seat ? (int)json_integer_value(seat) : -1, &err);
    if (k < 0) {
        req_fail(req, err.code, "%s", err.message);
        return;
    }
    req_ok(req, json_pack("{s:s, s:i}", "room", r->id, "seat", k));
    room_seated(r);
}

void lobby_watch(request_t *req)
{
    room_t *r = req->room;
    room_error_t err;
    if (room_watch(r, req->session, &err) < 0) {
        req_fail(req, err.code, "%s", err.message);
        return;
    }
    req_ok(req, json_pack("{s:s}", "room", r->id));
    room_notify(r);
    if (r->status != ROOM_WAITING) conn_send_new(req->conn, room_state_event(r, GAME_SPECTATOR));
}

void lobby_leave(request_t *req)
{
    room_t *r = req->room;
    if (room_seat_of(r, req->session) < 0 && !room_is_watcher(r, req->session)) {
        req_fail(req, "not_in_room", "you are not in room %s", r->id);
        return;
    }
    req_ok(req, json_pack("{s:s}", "room", r->id));
    room_release(r, req->session); /* r may be gone after this */
}

void lobby_addbot(request_t *req)
{
    room_t *r = req->room;
    if (room_seat_of(r, req->session) < 0 && !room_is_watcher(r, req->session)) {
        req_fail(req, "not_in_room", "join or watch room %s first", r->id);
        return;
    }
    room_error_t err;
    int k = room_add_bot(r, json_string_value(json_object_get(req->msg, "strategy")), &err);
    if (k < 0) {
        req_fail(req, err.code, "%s", err.message);
        return;
    }
    req_ok(req, json_pack("{s:s, s:i}", "room", r->id, "seat", k));
    room_seated(r);
}

void lobby_say(request_t *req)
{
    room_t *r = req->room;
    int seat = room_seat_of(r, req->session);
    if (seat < 0 && !room_is_watcher(r, req->session)) {
        req_fail(req, "not_in_room", "join or watch room %s first", r->id);
        return;
    }
    req_ok(req, json_pack("{s:s}", "room", r->id));
    json_t *ev = proto_event("chat");
    json_object_set_new(ev, "room", json_string(r->id));
    json_object_set_new(ev, "from", json_string(req->session->name));
    json_object_set_new(ev, "seat", seat >= 0 ? json_integer(seat) : json_null());
    json_object_set(ev, "text", json_object_get(req->msg, "text"));
    room_broadcast(r, ev);
    json_decref(ev);
}
