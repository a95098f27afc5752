/*
 * session.c — the session's rooms: the ones we sit in or watch (their seats
 * and latest view), which one is current, and the games the server hosts.
 */
#include <stdio.h>
#include <string.h>

#include "clients/safe_text.h"
#include "clients/session.h"

void session_init(session_t *s)
{
    memset(s, 0, sizeof *s);
    s->net.fd = -1;
    s->keepalive_ms = KEEPALIVE_DEFAULT_MS;
    s->autodraw = true;
}

void session_free(session_t *s)
{
    for (int i = 0; i < SESSION_MAX_ROOMS; i++)
        session_forget_room(s, s->rooms[i].id);
    json_decref(s->games);
    s->games = NULL;
    json_decref(s->candidates);
    s->candidates = NULL;
}

static void room_clear(room_info_t *r)
{
    json_decref(r->seats);
    json_decref(r->view);
    memset(r, 0, sizeof *r);
}

room_info_t *session_room(session_t *s, const char *id, bool create)
{
    if (!id) return NULL;
    room_info_t *free_slot = NULL;
    for (int i = 0; i < SESSION_MAX_ROOMS; i++) {
        room_info_t *r = &s->rooms[i];
        if (r->id[0] && strcmp(r->id, id) == 0) return r;
        if (!r->id[0] && !free_slot) free_slot = r;
    }
    if (!create) return NULL;
    if (!free_slot) { /* forget the oldest */
        free_slot = &s->rooms[0];
        room_clear(free_slot);
    }
    snprintf(free_slot->id, sizeof free_slot->id, "%s", id);
    safe_text(free_slot->label, sizeof free_slot->label, free_slot->id);
    return free_slot;
}

void session_forget_room(session_t *s, const char *id)
{
    room_info_t *r = session_room(s, id, false);
    if (r) room_clear(r);
}

room_info_t *session_current_room(session_t *s)
{
    return s->current[0] ? session_room(s, s->current, false) : NULL;
}

const json_t *session_current_legal(session_t *s)
{
    room_info_t *r = session_current_room(s);
    return r && r->view ? json_object_get(r->view, "legal") : NULL;
}

const char *session_room_game(const room_info_t *r)
{
    const char *game = r && r->view ? json_string_value(json_object_get(r->view, "game")) : NULL;
    return game ? game : r && r->game[0] ? r->game : NULL;
}

const renderer_t *session_renderer(const room_info_t *r)
{
    return render_find(session_room_game(r));
}

const json_t *session_game_info(const session_t *s, const char *game)
{
    size_t i;
    json_t *g;
    if (!game) return NULL;
    json_array_foreach(s->games, i, g)
    {
        const char *id = json_string_value(json_object_get(g, "id"));
        if (id && strcmp(id, game) == 0) return g;
    }
    return NULL;
}

void session_set_current(session_t *s, const char *room)
{
    snprintf(s->current, sizeof s->current, "%s", room ? room : "");
    show_prompt_update(s);
}
