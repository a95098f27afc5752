/*
 * show.c — everything the interactive client prints: lines around the one
 * being edited (the prompt is cleared first and drawn again after), tables
 * through the game's renderer (render.h), and the lists and replies.
 *
 * Nothing from the wire reaches the terminal raw: names, chat, room ids,
 * messages and every string of a view go through safe_text.h, so a hostile
 * player (or server) cannot clear the screen, forge a line or reorder text.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <editline/readline.h>

#include "protocol/protocol.h"
#include "clients/safe_text.h"
#include "clients/session.h"

/* ------------------------------------------------------------------------ */
/* Output around the line being edited                                      */
/* ------------------------------------------------------------------------ */

void out_begin(session_t *s)
{
    if (s->out_depth++ == 0 && s->prompt_on) {
        fputs("\r\033[K", stdout);
        fflush(stdout);
    }
}

void out_end(session_t *s)
{
    if (--s->out_depth == 0) {
        fflush(stdout);
        if (s->prompt_on) rl_forced_update_display();
    }
}

void say(session_t *s, const char *fmt, ...)
{
    va_list ap;
    out_begin(s);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    out_end(s);
}

void say_text(session_t *s, const char *prefix, const char *text, const char *suffix)
{
    out_begin(s);
    fputs(prefix, stdout);
    safe_fputs(stdout, text);
    fputs(suffix, stdout);
    fputc('\n', stdout);
    out_end(s);
}

void say_json(session_t *s, const json_t *j)
{
    char *text = json_dumps(j, JSON_COMPACT);
    out_begin(s);
    if (text) safe_fwrite_json(stdout, text, strlen(text));
    fputc('\n', stdout);
    out_end(s);
    free(text);
}

void show_prompt_update(session_t *s)
{
    char room[48];
    if (s->current[0])
        snprintf(s->prompt, sizeof s->prompt, "tapis:%s> ",
                 safe_text(room, sizeof room, s->current));
    else
        snprintf(s->prompt, sizeof s->prompt, "tapis> ");
    if (s->prompt_on) rl_set_prompt(s->prompt);
}

render_ctx_t show_ctx(const session_t *s, const room_info_t *r)
{
    render_ctx_t ctx = {
        .out = stdout, .color = s->color, .room = r ? r->label : "?", .seats = r ? r->seats : NULL};
    return ctx;
}

/* ------------------------------------------------------------------------ */
/* Tables                                                                   */
/* ------------------------------------------------------------------------ */

/* One line under the table: what this viewer may do now. */
static void show_moves(const json_t *legal)
{
    size_t n = json_array_size(legal);
    if (!n) return;
    printf("  you may: ");
    size_t shown = 0;
    json_t *a;
    size_t i;
    json_array_foreach(legal, i, a)
    {
        if (shown == 8) {
            printf(" ... (%zu in all: legal)", n);
            break;
        }
        char *words = inline_render_action(a);
        printf("%s%zu) ", shown ? "  " : "", i + 1);
        safe_fputs(stdout, words);
        free(words);
        shown++;
    }
    putchar('\n');
}

/* Whom the table waits for, and the time left on the server's turn timer. */
static void show_clock(const render_ctx_t *ctx, const json_t *msg)
{
    const json_t *waiting = json_object_get(msg, "waiting");
    const json_t *left = json_object_get(msg, "deadline_ms");
    if (!json_array_size(waiting)) return;
    printf("  waiting for:");
    size_t i;
    json_t *seat;
    json_array_foreach(waiting, i, seat)
    {
        char name[64];
        printf("%s %s", i ? "," : "",
               render_seat_name(ctx, (int)json_integer_value(seat), name, sizeof name));
    }
    if (json_is_integer(left))
        printf(" (%lld s left)", (long long)((json_integer_value(left) + 999) / 1000));
    printf("\n");
}

void show_table(session_t *s, room_info_t *r, const json_t *msg, bool auto_sent)
{
    render_ctx_t ctx = show_ctx(s, r);
    out_begin(s);
    session_renderer(r)->table(&ctx, r->view);
    show_clock(&ctx, msg);
    if (auto_sent)
        printf("  autodraw: drawing (`autodraw off` to draw yourself)\n");
    else
        show_moves(json_object_get(r->view, "legal"));
    out_end(s);
}

void show_game_over(session_t *s, room_info_t *r, const json_t *result)
{
    render_ctx_t ctx = show_ctx(s, r);
    out_begin(s);
    session_renderer(r)->result(&ctx, result);
    printf("  `leave`, then `create` or `join` for another game\n");
    out_end(s);
}

void show_legal(session_t *s, const json_t *only_type)
{
    const json_t *legal = session_current_legal(s);
    if (!json_array_size(legal)) {
        say(s, "nothing to play now");
        return;
    }
    out_begin(s);
    size_t i;
    json_t *a;
    json_array_foreach(legal, i, a)
    {
        if (only_type && !json_equal(json_object_get(a, "type"), (json_t *)only_type)) continue;
        char *words = inline_render_action(a);
        printf("  %2zu  ", i + 1);
        safe_fputs(stdout, words);
        putchar('\n');
        free(words);
    }
    printf("  type a number to play it\n");
    out_end(s);
}

/* ------------------------------------------------------------------------ */
/* Rooms, games, replies                                                    */
/* ------------------------------------------------------------------------ */

void show_room_waiting(session_t *s, const room_info_t *r, const char *game)
{
    char shown[SHOWN_MAX];
    out_begin(s);
    printf("room %s (%s, waiting):", r->label, safe_text(shown, sizeof shown, game));
    size_t i, empty = 0;
    json_t *seat;
    json_array_foreach(r->seats, i, seat)
    {
        const char *name = json_string_value(json_object_get(seat, "name"));
        if (!name) empty++;
        printf("%s seat %zu %s", i ? "," : "", i,
               name ? (json_is_true(json_object_get(seat, "bot"))
                           ? "bot"
                           : safe_text(shown, sizeof shown, name))
                    : "empty");
    }
    putchar('\n');
    if (empty)
        printf("  %zu seat(s) to fill: `addbot`, or another player types `join %s`\n", empty,
               r->label);
    out_end(s);
}

void show_rooms(session_t *s, const json_t *rooms)
{
    out_begin(s);
    if (!json_array_size(rooms)) printf("no open rooms: `create 233 4` opens one\n");
    size_t i;
    json_t *r;
    json_array_foreach(rooms, i, r)
    {
        char id[SHOWN_MAX], game[SHOWN_MAX], status[SHOWN_MAX], name[SHOWN_MAX];
        printf("  room %-6s %-10s %-8s",
               safe_text(id, sizeof id, json_string_value(json_object_get(r, "room"))),
               safe_text(game, sizeof game, json_string_value(json_object_get(r, "game"))),
               safe_text(status, sizeof status, json_string_value(json_object_get(r, "status"))));
        size_t k;
        json_t *seat;
        json_array_foreach(json_object_get(r, "seats"), k, seat)
        {
            const char *n = json_string_value(json_object_get(seat, "name"));
            printf("%s%s", k ? ", " : " ",
                   n ? (json_is_true(json_object_get(seat, "bot"))
                            ? "bot"
                            : safe_text(name, sizeof name, n))
                     : "-");
        }
        int watchers = (int)json_integer_value(json_object_get(r, "spectators"));
        if (watchers) printf("  (+%d watching)", watchers);
        putchar('\n');
    }
    out_end(s);
}

void show_games(session_t *s, const json_t *games)
{
    out_begin(s);
    size_t i;
    json_t *g;
    json_array_foreach(games, i, g)
    {
        char id[SHOWN_MAX], title[SHOWN_MAX];
        char *opts = json_dumps(json_object_get(g, "options"), JSON_COMPACT);
        printf("  %-10s %-20s %d-%d players  options ",
               safe_text(id, sizeof id, json_string_value(json_object_get(g, "id"))),
               safe_text(title, sizeof title, json_string_value(json_object_get(g, "title"))),
               (int)json_integer_value(json_object_get(g, "min_players")),
               (int)json_integer_value(json_object_get(g, "max_players")));
        safe_fwrite_json(stdout, opts ? opts : "{}", opts ? strlen(opts) : 2);
        putchar('\n');
        free(opts);
    }
    printf("  `create GAME PLAYERS` opens a table, e.g. create 233 4\n");
    out_end(s);
}

void show_error_reply(session_t *s, const json_t *msg)
{
    json_t *err = json_object_get(msg, "error");
    render_ctx_t ctx = {.color = s->color};
    char code[SHOWN_MAX], prefix[SHOWN_MAX + 32];
    snprintf(prefix, sizeof prefix, "%s! %s: ", render_sgr(&ctx, RENDER_RED),
             safe_text(code, sizeof code, json_string_value(json_object_get(err, "code"))));
    say_text(s, prefix, json_string_value(json_object_get(err, "message")),
             render_sgr(&ctx, RENDER_OFF));
}

void show_client_help(session_t *s)
{
    say(s, "client commands (the others go to the server as typed):\n"
           "  legal          list what you may do now, numbered; type a number to play it\n"
           "  N              play legal action number N\n"
           "  discard 3      233: hand positions (as numbered under the table) stand for cards\n"
           "  claim, take... a bare action word plays it when only one legal action has it\n"
           "  view           the raw JSON of the current table\n"
           "  autodraw on|off  seqnum: draw by itself as soon as you may (default on)\n"
           "  room ROOM      show another room you are in\n"
           "  quit           leave the server (Ctrl-D too)\n"
           "server commands:");
}
