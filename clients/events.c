/*
 * events.c — what the server says, turned into session state: the token,
 * the rooms and their views, the current room, the games list, whether to
 * stop; and each reply or event shown (show.c) as one or a few lines.
 *
 * The replies to the client's own requests (keepalive pings, the `games`
 * that completion asks for) are not shown.
 */
#include <stdio.h>
#include <string.h>

#include "protocol/protocol.h"
#include "clients/safe_text.h"
#include "clients/session.h"

/* ------------------------------------------------------------------------ */
/* State and room events                                                    */
/* ------------------------------------------------------------------------ */

bool events_maybe_auto(session_t *s, room_info_t *r)
{
    const renderer_t *rd = session_renderer(r);
    json_t *a = s->autodraw && rd->auto_action && r->view ? rd->auto_action(r->view) : NULL;
    if (!a) {
        r->auto_sent = false;
        return false;
    }
    if (r->auto_sent || !link_connected(s)) {
        json_decref(a);
        return false;
    }
    link_send_quiet(s, json_pack("{s:s, s:s, s:o, s:I}", "cmd", "act", "room", r->id, "action", a,
                                 "seq", (json_int_t)r->seq));
    r->auto_sent = true;
    return true;
}

void events_state(session_t *s, const json_t *msg)
{
    const char *id = json_string_value(json_object_get(msg, "room"));
    json_t *view = json_object_get(msg, "view");
    room_info_t *r = session_room(s, id, true);
    if (!r || !json_is_object(view)) return;
    json_decref(r->view);
    r->view = json_incref(view);
    r->seq = json_integer_value(json_object_get(msg, "seq"));
    if (!s->current[0]) session_set_current(s, id);
    bool auto_sent = events_maybe_auto(s, r);
    if (strcmp(s->current, id) != 0) {
        json_t *legal = json_object_get(view, "legal");
        if (json_array_size(legal) && !auto_sent)
            say(s, "[room %s] your move there (join or watch it to see)", r->label);
        return;
    }
    show_table(s, r, msg, auto_sent);
}

static void on_room(session_t *s, const json_t *msg)
{
    const char *id = json_string_value(json_object_get(msg, "room"));
    room_info_t *r = session_room(s, id, true);
    if (!r) return;
    const char *game = json_string_value(json_object_get(msg, "game"));
    if (game) snprintf(r->game, sizeof r->game, "%s", game);
    json_decref(r->seats);
    r->seats = json_incref(json_object_get(msg, "seats"));
    const char *status = json_string_value(json_object_get(msg, "status"));
    if (status && strcmp(status, "waiting") == 0) show_room_waiting(s, r, game);
}

/* ------------------------------------------------------------------------ */
/* Replies                                                                  */
/* ------------------------------------------------------------------------ */

static void on_hello(session_t *s, const json_t *msg)
{
    const char *tok = json_string_value(json_object_get(msg, "token"));
    if (tok) snprintf(s->token, sizeof s->token, "%s", tok);
    for (int i = 0; i < SESSION_MAX_ROOMS; i++)
        s->rooms[i].auto_sent = false; /* a fresh connection: nothing in flight */
    json_t *rooms = json_object_get(msg, "rooms");
    if (json_is_true(json_object_get(msg, "resumed")))
        say(s, "welcome back, %s: your seats are yours again", s->name);
    else
        say(s, "hello %s. `games`, `rooms`, `create 233 4`, `join ROOM`, `help`", s->name);
    if (json_array_size(rooms) && !s->current[0])
        session_set_current(s, json_string_value(json_array_get(rooms, 0)));
    s->reconnect_delay = RECONNECT_MIN_MS;
}

static void set_games(session_t *s, const json_t *games)
{
    json_decref(s->games);
    s->games = json_is_array(games) ? json_incref((json_t *)games) : NULL;
}

static void on_reply(session_t *s, const json_t *msg)
{
    const char *re = json_string_value(json_object_get(msg, "re"));
    if (!json_is_true(json_object_get(msg, "ok"))) {
        show_error_reply(s, msg);
        return;
    }
    const char *room = json_string_value(json_object_get(msg, "room"));
    char shown[SHOWN_MAX];
    if (room) safe_text(shown, sizeof shown, room);
    int seat = json_is_integer(json_object_get(msg, "seat"))
                   ? (int)json_integer_value(json_object_get(msg, "seat"))
                   : -1;
    if (!re) re = "";
    if (strcmp(re, "hello") == 0) {
        on_hello(s, msg);
    } else if (strcmp(re, "games") == 0) {
        set_games(s, json_object_get(msg, "games"));
        show_games(s, json_object_get(msg, "games"));
    } else if (strcmp(re, "rooms") == 0) {
        show_rooms(s, json_object_get(msg, "rooms"));
    } else if (strcmp(re, "create") == 0 && room) {
        session_set_current(s, room);
        if (seat >= 0)
            say(s, "room %s created; you sit at seat %d", shown, seat);
        else
            say(s, "room %s created", shown);
    } else if (strcmp(re, "join") == 0 && room) {
        session_set_current(s, room);
        say(s, "you sit at seat %d of room %s", seat, shown);
    } else if (strcmp(re, "watch") == 0 && room) {
        session_set_current(s, room);
        say(s, "watching room %s", shown);
    } else if (strcmp(re, "leave") == 0) {
        say(s, "left room %s", room ? shown : safe_text(shown, sizeof shown, s->current));
        if (room) session_forget_room(s, room);
        if (!room || strcmp(room, s->current) == 0) session_set_current(s, NULL);
    } else if (strcmp(re, "addbot") == 0) {
        say(s, "a bot sits at seat %d", seat);
    } else if (strcmp(re, "help") == 0) {
        out_begin(s); /* lines: each one escaped */
        safe_fputs_lines(stdout, json_string_value(json_object_get(msg, "text")));
        fputc('\n', stdout);
        out_end(s);
    } else if (strcmp(re, "register") == 0) {
        char name[SHOWN_MAX], key[SHOWN_MAX];
        safe_text(name, sizeof name, json_string_value(json_object_get(msg, "name")));
        safe_text(key, sizeof key, json_string_value(json_object_get(msg, "key")));
        say(s, "account %s registered; its key, shown this once (for bots): %s", name, key);
    } else if (strcmp(re, "seek") == 0) {
        say(s, "seeking a table; `cancel` to stop");
    } else if (strcmp(re, "ping") == 0) {
        say(s, "pong");
    } else if (strcmp(re, "quit") == 0) {
        s->quitting = true;
        say(s, "bye");
    } else if (strcmp(re, "act") == 0 || strcmp(re, "say") == 0 || strcmp(re, "state") == 0) {
        /* the state or chat event shows it */
    } else {
        say_json(s, msg);
    }
}

/*
 * The reply to a request of the client's own (ok or not): not shown; the
 * games list is kept for completion.
 */
static bool is_own_reply(session_t *s, const json_t *msg)
{
    const char *id = json_string_value(json_object_get(msg, "id"));
    if (!json_object_get(msg, "re") || !id) return false;
    if (strcmp(id, GAMES_ID) == 0) {
        if (json_is_true(json_object_get(msg, "ok"))) set_games(s, json_object_get(msg, "games"));
        return true;
    }
    return strcmp(id, KEEPALIVE_ID) == 0 || strcmp(id, PONG_ID) == 0;
}

/* ------------------------------------------------------------------------ */
/* Events                                                                   */
/* ------------------------------------------------------------------------ */

/* A rated game's new ratings: "[R] ratings: ann 0.0 -> 3.4, bob 0.0 -> -1.8". */
static void show_ratings(session_t *s, const char *shown_room, const json_t *ratings)
{
    if (!json_array_size(ratings)) return;
    printf("[%s] ratings:", shown_room);
    size_t i;
    json_t *r;
    json_array_foreach(ratings, i, r)
    {
        char name[SHOWN_MAX];
        safe_text(name, sizeof name, json_string_value(json_object_get(r, "name")));
        printf("%s %s %.1f -> %.1f%s", i ? "," : "", name,
               json_number_value(json_object_get(r, "before")),
               json_number_value(json_object_get(r, "after")),
               json_is_true(json_object_get(r, "abandoned")) ? " (left)" : "");
    }
    putchar('\n');
    (void)s;
}

static void on_event(session_t *s, const char *ev, const json_t *msg)
{
    const char *room = json_string_value(json_object_get(msg, "room"));
    const char *name = json_string_value(json_object_get(msg, "name"));
    int seat = (int)json_integer_value(json_object_get(msg, "seat"));
    char shown_room[SHOWN_MAX], shown_name[SHOWN_MAX];
    safe_text(shown_room, sizeof shown_room, room);
    safe_text(shown_name, sizeof shown_name, name);
    if (strcmp(ev, "state") == 0) {
        events_state(s, msg);
    } else if (strcmp(ev, "room") == 0) {
        on_room(s, msg);
    } else if (strcmp(ev, "game_over") == 0) {
        show_game_over(s, session_room(s, room, true), json_object_get(msg, "result"));
        show_ratings(s, shown_room, json_object_get(msg, "ratings"));
    } else if (strcmp(ev, "matched") == 0 && room) {
        session_set_current(s, room);
        say(s, "[%s] a table was found: you sit at seat %d%s", shown_room, seat,
            json_is_true(json_object_get(msg, "rated")) ? " (rated)" : "");
    } else if (strcmp(ev, "chat") == 0) {
        char from[SHOWN_MAX], prefix[2 * SHOWN_MAX + 8];
        snprintf(prefix, sizeof prefix, "[%s] %s: ", shown_room,
                 safe_text(from, sizeof from, json_string_value(json_object_get(msg, "from"))));
        say_text(s, prefix, json_string_value(json_object_get(msg, "text")), "");
    } else if (strcmp(ev, "join") == 0 || strcmp(ev, "leave") == 0 ||
               strcmp(ev, "disconnect") == 0 || strcmp(ev, "reconnect") == 0) {
        static const char *const verbs[][2] = {{"join", "sits down"},
                                               {"leave", "left"},
                                               {"disconnect", "lost the connection"},
                                               {"reconnect", "is back"}};
        const char *verb = ev;
        for (int i = 0; i < 4; i++)
            if (strcmp(ev, verbs[i][0]) == 0) verb = verbs[i][1];
        say(s, "[%s] %s (seat %d) %s", shown_room, shown_name, seat, verb);
    } else if (strcmp(ev, "timeout") == 0) {
        say(s, "[%s] seat %d ran out of time: the default move was played", shown_room, seat);
    } else if (strcmp(ev, "shutdown") == 0) {
        say(s, "! the server is shutting down");
    } else if (strcmp(ev, "replaced") == 0) {
        s->no_reconnect = true;
        say(s, "! you logged in elsewhere: this client stops");
    } else if (strcmp(ev, "error") == 0) {
        json_t *err = json_object_get(msg, "error");
        char code[SHOWN_MAX], prefix[SHOWN_MAX + 16];
        snprintf(prefix, sizeof prefix, "! server: %s: ",
                 safe_text(code, sizeof code, json_string_value(json_object_get(err, "code"))));
        say_text(s, prefix, json_string_value(json_object_get(err, "message")), "");
    } else {
        say_json(s, msg);
    }
}

void events_server_line(session_t *s, const char *line, size_t len)
{
    proto_error_t err;
    json_t *msg = proto_json_parse(line, len, &err);
    if (!msg) {
        out_begin(s);
        fputs("? ", stdout);
        safe_fwrite(stdout, line, len);
        fputc('\n', stdout);
        out_end(s);
        return;
    }
    if (is_own_reply(s, msg)) {
        json_decref(msg);
        return;
    }
    const char *ev = json_string_value(json_object_get(msg, "ev"));
    if (ev && strcmp(ev, "ping") == 0) {
        /* At once and unseen: the server measures the round trip by it. */
        link_send_quiet(s, json_pack("{s:s, s:s, s:O}", "cmd", "pong", "id", PONG_ID, "n",
                                     json_object_get(msg, "n")));
        json_decref(msg);
        return;
    }
    out_begin(s);
    if (ev)
        on_event(s, ev, msg);
    else
        on_reply(s, msg);
    out_end(s);
    json_decref(msg);
}
