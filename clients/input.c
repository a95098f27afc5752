/*
 * input.c — a typed line turned into what to do.
 *
 * What people type is mostly the protocol's inline form, passed through
 * (`create 233 4`, `join 2`, `addbot`, `draw`, `discard Y3`, `say hi`). The
 * client adds: `legal` (the legal actions, numbered; typing a number plays
 * one, in every game), a bare action word that names exactly one legal action
 * (`claim`), what the game's renderer translates (233's hand positions,
 * `discard 3`), `autodraw on|off`, `view` (the raw view), `room ROOM` (show
 * another room) and `help` (the client's commands, then the server's).
 */
#include <stdlib.h>
#include <string.h>
#include <editline/readline.h>

#include "clients/session.h"

static bool is_number(const char *s)
{
    if (!*s) return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9') return false;
    return true;
}

/* `autodraw [on|off]`: arg is what follows the word. */
static void autodraw_command(session_t *s, const char *arg)
{
    while (*arg == ' ')
        arg++;
    if (strcmp(arg, "on") == 0 || strcmp(arg, "off") == 0) {
        s->autodraw = strcmp(arg, "on") == 0;
        for (int i = 0; i < SESSION_MAX_ROOMS; i++) {
            room_info_t *r = &s->rooms[i];
            if (!r->id[0]) continue;
            r->auto_sent = false;
            if (events_maybe_auto(s, r)) say(s, "autodraw: drawing in room %s", r->label);
        }
    } else if (*arg) {
        say(s, "! autodraw on, or autodraw off");
        return;
    }
    say(s, "autodraw is %s", s->autodraw ? "on" : "off");
}

/* `room ROOM`: make another of our rooms the current one and show its table. */
static void room_command(session_t *s, const char *id)
{
    room_info_t *other = session_room(s, id, false);
    if (!other) {
        say(s, "! not in room %s", id);
        return;
    }
    session_set_current(s, other->id);
    if (other->view) {
        json_t *ev = json_pack("{s:s, s:s, s:I, s:O}", "ev", "state", "room", other->id, "seq",
                               (json_int_t)other->seq, "view", other->view);
        events_state(s, ev);
        json_decref(ev);
    }
}

/*
 * A bare action word: play it if exactly one legal action has that type, list
 * them if several do. False when none does.
 */
static bool action_word(session_t *s, const char *word, const json_t *legal)
{
    json_t *type = json_string(word);
    size_t i, count = 0, which = 0;
    json_t *a;
    json_array_foreach(legal, i, a) if (json_equal(json_object_get(a, "type"), type))
    {
        count++;
        which = i;
    }
    if (count == 1)
        link_send_act(s, json_array_get(legal, which));
    else if (count > 1)
        show_legal(s, type);
    json_decref(type);
    return count > 0;
}

void input_line(session_t *s, char *line)
{
    while (*line == ' ' || *line == '\t')
        line++;
    size_t n = strlen(line);
    while (n && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r'))
        line[--n] = '\0';
    if (!n) return;
    if (s->tty_in) add_history(line);
    room_info_t *r = session_current_room(s);
    const json_t *legal = session_current_legal(s);

    if (strcmp(line, "quit") == 0 || strcmp(line, "exit") == 0) {
        link_quit(s);
        return;
    }
    if (strcmp(line, "legal") == 0) {
        show_legal(s, NULL);
        return;
    }
    if (strcmp(line, "help") == 0) {
        show_client_help(s);
        link_send_line(s, "help");
        return;
    }
    if (strcmp(line, "autodraw") == 0 || strncmp(line, "autodraw ", 9) == 0) {
        autodraw_command(s, line + 8);
        return;
    }
    if (strcmp(line, "view") == 0) {
        if (r && r->view)
            say_json(s, r->view);
        else
            say(s, "no table yet");
        return;
    }
    if (strncmp(line, "room ", 5) == 0) {
        room_command(s, line + 5);
        return;
    }
    if (is_number(line)) {
        size_t k = (size_t)strtoul(line, NULL, 10);
        if (k < 1 || k > json_array_size(legal)) {
            say(s, "! no legal action %s (type legal to list them)", line);
            return;
        }
        link_send_act(s, json_array_get(legal, k - 1));
        return;
    }
    if (!strchr(line, ' ') && json_array_size(legal) && action_word(s, line, legal)) return;
    const renderer_t *rd = session_renderer(r);
    char *translated = r && r->view && rd->translate ? rd->translate(r->view, line) : NULL;
    link_send_line(s, translated ? translated : line);
    free(translated);
}
