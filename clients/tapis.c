/*
 * tapis.c — the terminal client of tapis.
 *
 *     tapis [HOST:PORT] [--name NAME] [--no-color] [--keepalive TIME]
 *     tapis [HOST:PORT] --json
 *
 * Interactive: asks for a name, says hello, and reads commands with libedit
 * (history, tab completion) while server events are printed at any time:
 * one thread around poll() on the terminal and the socket, with libedit's
 * callback interface (rl_callback_read_char) so that an event can be printed
 * above the line being typed and the line redrawn after it.
 *
 * What people type is mostly the protocol's inline form, passed through
 * (`create 233 4`, `join 2`, `addbot`, `draw`, `discard Y3`, `say hi`). The
 * client adds: `legal` (the legal actions, numbered; typing a number plays
 * one, in every game), a bare action word that names exactly one legal action
 * (`claim`), hand positions where the game's renderer knows them (233's
 * `discard 3`), `autodraw on|off` (seqnum: the draw is sent by itself as soon
 * as it is legal; on by default), `view` (the raw view), and `help`. Tables
 * are drawn by the game's renderer (render.h) at each state event. Tab
 * completes commands, room ids, hand cards and, in any game, the words of the
 * legal actions (`pick d<Tab>` -> `pick down`).
 *
 * The connection is re-opened by itself when it drops, and `hello NAME TOKEN`
 * takes the seats back. After --keepalive (2 min) without sending anything it
 * sends a `ping` (its reply is not shown), so that a server's idle timeout
 * does not drop someone who only watches.
 *
 * Nothing from the wire reaches the terminal raw: names, chat, room ids,
 * messages and every string of a view go through safe_text.h, so a hostile
 * player (or server) cannot clear the screen, forge a line or reorder text.
 *
 * --json (json_mode.c) passes raw protocol lines between stdin/stdout and
 * the server, for scripts.
 *
 * Length: over 800 lines because the interactive session is one state (the
 * rooms, the current view, the prompt) shared by its input, its output and
 * its completion; the pictures of tables live in render*.c.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <editline/readline.h>

#include "net.h"
#include "protocol.h"
#include "render.h"
#include "safe_text.h"
#include "tapis.h"

#define MAX_ROOMS 32
#define RECONNECT_MIN_MS 500
#define RECONNECT_MAX_MS 5000
#define KEEPALIVE_DEFAULT_MS (2 * 60 * 1000)
#define KEEPALIVE_ID "tapis-keepalive" /* the id of our own pings: their replies are not shown */

/* Room ids, names and other short strings from the wire, escaped (4 bytes per raw byte at most). */
#define SHOWN_MAX 160

typedef struct room_info {
    char id[40];
    char label[SHOWN_MAX]; /* the id as shown: escaped */
    char game[40];
    json_t *seats; /* from the latest "room" event */
    json_t *view;  /* the latest state view */
    long long seq;
    bool auto_sent; /* the renderer's automatic action was sent for this view's need */
} room_info_t;

static struct {
    char host[256], port[16];
    char name[64];
    bool json_mode, no_color;
    long long keepalive_ms; /* 0: never */
} O = {.keepalive_ms = KEEPALIVE_DEFAULT_MS};

static net_conn_t NET = {.fd = -1};
static char TOKEN[160];
static char CURRENT[40]; /* the room the prompt and the short commands refer to */
static room_info_t ROOMS[MAX_ROOMS];
static bool COLOR;
static bool TTY_IN;       /* stdin is a terminal: libedit; otherwise plain lines */
static bool PROMPT_ON;    /* libedit's handler is installed */
static bool QUITTING;     /* quit sent or stdin ended: do not reconnect */
static bool NO_RECONNECT; /* replaced elsewhere */
static bool DONE;
static long long RECONNECT_AT; /* when disconnected: the next attempt (ms) */
static int RECONNECT_DELAY;
static json_t *GAMES;        /* the last games list (completion of create) */
static bool AUTODRAW = true; /* send the renderer's automatic action (seqnum's draw) */
static char PROMPT[80];
static volatile sig_atomic_t STOP_SIGNAL;

/*
 * libedit's own signal handling re-sends a signal to the whole process group,
 * which would also hit whoever started us; so it is off, and SIGINT, SIGTERM
 * and SIGHUP end the main loop, which puts the terminal back.
 */
static void on_stop_signal(int sig)
{
    STOP_SIGNAL = sig;
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    rl_catch_signals = 0;
}

/* ------------------------------------------------------------------------ */
/* Output around the line being edited                                      */
/* ------------------------------------------------------------------------ */

static int OUT_DEPTH;

/* Clear the prompt line before printing; out_end() draws it again. */
static void out_begin(void)
{
    if (OUT_DEPTH++ == 0 && PROMPT_ON) {
        fputs("\r\033[K", stdout);
        fflush(stdout);
    }
}

static void out_end(void)
{
    if (--OUT_DEPTH == 0) {
        fflush(stdout);
        if (PROMPT_ON) rl_forced_update_display();
    }
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    va_list ap;
    out_begin();
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    out_end();
}

/* One line: prefix, then text from the wire escaped, then suffix. */
static void say_text(const char *prefix, const char *text, const char *suffix)
{
    out_begin();
    fputs(prefix, stdout);
    safe_fputs(stdout, text);
    fputs(suffix, stdout);
    fputc('\n', stdout);
    out_end();
}

/* JSON from the wire, re-encoded (json_dumps), on a line of its own. */
static void say_json(const json_t *j)
{
    char *text = json_dumps(j, JSON_COMPACT);
    out_begin();
    if (text) safe_fwrite_json(stdout, text, strlen(text));
    fputc('\n', stdout);
    out_end();
    free(text);
}

static render_ctx_t ctx_for(const room_info_t *r)
{
    render_ctx_t ctx = {
        .out = stdout, .color = COLOR, .room = r ? r->label : "?", .seats = r ? r->seats : NULL};
    return ctx;
}

static void update_prompt(void)
{
    char room[48];
    if (CURRENT[0])
        snprintf(PROMPT, sizeof PROMPT, "tapis:%s> ", safe_text(room, sizeof room, CURRENT));
    else
        snprintf(PROMPT, sizeof PROMPT, "tapis> ");
    if (PROMPT_ON) rl_set_prompt(PROMPT);
}

static void set_current(const char *room)
{
    snprintf(CURRENT, sizeof CURRENT, "%s", room ? room : "");
    update_prompt();
}

/* ------------------------------------------------------------------------ */
/* Rooms                                                                    */
/* ------------------------------------------------------------------------ */

static room_info_t *room_get(const char *id, bool create)
{
    if (!id) return NULL;
    room_info_t *free_slot = NULL;
    for (int i = 0; i < MAX_ROOMS; i++) {
        if (ROOMS[i].id[0] && strcmp(ROOMS[i].id, id) == 0) return &ROOMS[i];
        if (!ROOMS[i].id[0] && !free_slot) free_slot = &ROOMS[i];
    }
    if (!create) return NULL;
    if (!free_slot) { /* forget the oldest */
        free_slot = &ROOMS[0];
        json_decref(free_slot->seats);
        json_decref(free_slot->view);
        memset(free_slot, 0, sizeof *free_slot);
    }
    snprintf(free_slot->id, sizeof free_slot->id, "%s", id);
    safe_text(free_slot->label, sizeof free_slot->label, free_slot->id);
    return free_slot;
}

static void room_forget(const char *id)
{
    room_info_t *r = room_get(id, false);
    if (!r) return;
    json_decref(r->seats);
    json_decref(r->view);
    memset(r, 0, sizeof *r);
}

static room_info_t *current_room(void)
{
    return CURRENT[0] ? room_get(CURRENT, false) : NULL;
}

static const json_t *current_legal(void)
{
    room_info_t *r = current_room();
    return r && r->view ? json_object_get(r->view, "legal") : NULL;
}

static const renderer_t *renderer_of(const room_info_t *r)
{
    const char *game = r && r->view ? json_string_value(json_object_get(r->view, "game")) : NULL;
    return render_find(game ? game : r ? r->game : NULL);
}

/* ------------------------------------------------------------------------ */
/* Sending                                                                  */
/* ------------------------------------------------------------------------ */

static bool connected(void)
{
    return NET.fd >= 0;
}

static void send_line(const char *line)
{
    if (!connected()) {
        say("! not connected (reconnecting); try again in a moment");
        return;
    }
    size_t n = strlen(line);
    char *buf = malloc(n + 2);
    if (!buf) return;
    memcpy(buf, line, n);
    buf[n] = '\n';
    net_write(&NET, buf, n + 1);
    free(buf);
}

static void send_msg(json_t *msg)
{
    if (!connected())
        say("! not connected (reconnecting); try again in a moment");
    else
        net_send(&NET, msg);
    json_decref(msg);
}

static void send_act(const json_t *action)
{
    json_t *msg = json_pack("{s:s, s:O}", "cmd", "act", "action", action);
    if (CURRENT[0]) json_object_set_new(msg, "room", json_string(CURRENT));
    send_msg(msg);
}

/* A ping after O.keepalive_ms without a write, so that an idle timeout spares a watcher. */
static void maybe_keepalive(void)
{
    if (!connected() || O.keepalive_ms <= 0) return;
    if (net_now_ms() - NET.last_write_ms < O.keepalive_ms) return;
    json_t *msg = json_pack("{s:s, s:s}", "cmd", "ping", "id", KEEPALIVE_ID);
    net_send(&NET, msg);
    json_decref(msg);
}

static void send_hello(void)
{
    json_t *msg = json_pack("{s:s, s:s}", "cmd", "hello", "name", O.name);
    if (TOKEN[0]) json_object_set_new(msg, "token", json_string(TOKEN));
    send_msg(msg);
}

/* ------------------------------------------------------------------------ */
/* Showing replies and events                                               */
/* ------------------------------------------------------------------------ */

static void list_legal(const json_t *only_type)
{
    const json_t *legal = current_legal();
    if (!json_array_size(legal)) {
        say("nothing to play now");
        return;
    }
    out_begin();
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
    out_end();
}

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

/*
 * `autodraw on`: the renderer's automatic action (seqnum's draw, a race
 * against the next player) goes out as soon as a view of that room allows it,
 * once until a view no longer asks for it. Returns true if it was sent.
 */
static bool maybe_auto(room_info_t *r)
{
    const renderer_t *rd = renderer_of(r);
    json_t *a = AUTODRAW && rd->auto_action && r->view ? rd->auto_action(r->view) : NULL;
    if (!a) {
        r->auto_sent = false;
        return false;
    }
    if (r->auto_sent || !connected()) {
        json_decref(a);
        return false;
    }
    json_t *msg = json_pack("{s:s, s:s, s:o}", "cmd", "act", "room", r->id, "action", a);
    net_send(&NET, msg);
    json_decref(msg);
    r->auto_sent = true;
    return true;
}

/* Whom the table waits for, and the time left on the server's turn timer. */
static void show_clock(const render_ctx_t *ctx, const json_t *msg)
{
    const json_t *waiting = json_object_get(msg, "waiting");
    const json_t *left = json_object_get(msg, "deadline_ms");
    if (!json_array_size(waiting)) return;
    printf("  waiting for:");
    size_t i;
    json_t *s;
    json_array_foreach(waiting, i, s)
    {
        char name[64];
        printf("%s %s", i ? "," : "",
               render_seat_name(ctx, (int)json_integer_value(s), name, sizeof name));
    }
    if (json_is_integer(left))
        printf(" (%lld s left)", (long long)((json_integer_value(left) + 999) / 1000));
    printf("\n");
}

static void show_state(const json_t *msg)
{
    const char *id = json_string_value(json_object_get(msg, "room"));
    json_t *view = json_object_get(msg, "view");
    room_info_t *r = room_get(id, true);
    if (!r || !json_is_object(view)) return;
    json_decref(r->view);
    r->view = json_incref(view);
    r->seq = json_integer_value(json_object_get(msg, "seq"));
    if (!CURRENT[0]) set_current(id);
    bool auto_sent = maybe_auto(r);
    if (strcmp(CURRENT, id) != 0) {
        json_t *legal = json_object_get(view, "legal");
        if (json_array_size(legal) && !auto_sent)
            say("[room %s] your move there (join or watch it to see)", r->label);
        return;
    }
    render_ctx_t ctx = ctx_for(r);
    out_begin();
    renderer_of(r)->table(&ctx, view);
    show_clock(&ctx, msg);
    if (auto_sent)
        printf("  autodraw: drawing (`autodraw off` to draw yourself)\n");
    else
        show_moves(json_object_get(view, "legal"));
    out_end();
}

static void show_room(const json_t *msg)
{
    const char *id = json_string_value(json_object_get(msg, "room"));
    room_info_t *r = room_get(id, true);
    if (!r) return;
    const char *game = json_string_value(json_object_get(msg, "game"));
    if (game) snprintf(r->game, sizeof r->game, "%s", game);
    json_decref(r->seats);
    r->seats = json_incref(json_object_get(msg, "seats"));
    const char *status = json_string_value(json_object_get(msg, "status"));
    if (!status || strcmp(status, "waiting") != 0) return;
    char shown[SHOWN_MAX];
    out_begin();
    printf("room %s (%s, waiting):", r->label, safe_text(shown, sizeof shown, game));
    size_t i, empty = 0;
    json_t *s;
    json_array_foreach(r->seats, i, s)
    {
        const char *name = json_string_value(json_object_get(s, "name"));
        if (!name) empty++;
        printf("%s seat %zu %s", i ? "," : "", i,
               name ? (json_is_true(json_object_get(s, "bot"))
                           ? "bot"
                           : safe_text(shown, sizeof shown, name))
                    : "empty");
    }
    putchar('\n');
    if (empty)
        printf("  %zu seat(s) to fill: `addbot`, or another player types `join %s`\n", empty,
               r->label);
    out_end();
}

static void show_rooms(const json_t *rooms)
{
    out_begin();
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
        json_t *s;
        json_array_foreach(json_object_get(r, "seats"), k, s)
        {
            const char *n = json_string_value(json_object_get(s, "name"));
            printf("%s%s", k ? ", " : " ",
                   n ? (json_is_true(json_object_get(s, "bot")) ? "bot"
                                                                : safe_text(name, sizeof name, n))
                     : "-");
        }
        int watchers = (int)json_integer_value(json_object_get(r, "spectators"));
        if (watchers) printf("  (+%d watching)", watchers);
        putchar('\n');
    }
    out_end();
}

static void show_games(const json_t *games)
{
    json_decref(GAMES);
    GAMES = json_incref((json_t *)games);
    out_begin();
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
    out_end();
}

static void on_reply(const json_t *msg)
{
    const char *re = json_string_value(json_object_get(msg, "re"));
    if (!json_is_true(json_object_get(msg, "ok"))) {
        json_t *err = json_object_get(msg, "error");
        char code[SHOWN_MAX], prefix[SHOWN_MAX + 32];
        snprintf(prefix, sizeof prefix,
                 "%s! %s: ", render_sgr(&(render_ctx_t){.color = COLOR}, RENDER_RED),
                 safe_text(code, sizeof code, json_string_value(json_object_get(err, "code"))));
        say_text(prefix, json_string_value(json_object_get(err, "message")),
                 render_sgr(&(render_ctx_t){.color = COLOR}, RENDER_OFF));
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
        const char *tok = json_string_value(json_object_get(msg, "token"));
        if (tok) snprintf(TOKEN, sizeof TOKEN, "%s", tok);
        for (int i = 0; i < MAX_ROOMS; i++)
            ROOMS[i].auto_sent = false; /* a fresh connection: nothing in flight */
        json_t *rooms = json_object_get(msg, "rooms");
        if (json_is_true(json_object_get(msg, "resumed")))
            say("welcome back, %s: your seats are yours again", O.name);
        else
            say("hello %s. `games`, `rooms`, `create 233 4`, `join ROOM`, `help`", O.name);
        if (json_array_size(rooms) && !CURRENT[0])
            set_current(json_string_value(json_array_get(rooms, 0)));
        RECONNECT_DELAY = RECONNECT_MIN_MS;
    } else if (strcmp(re, "games") == 0) {
        show_games(json_object_get(msg, "games"));
    } else if (strcmp(re, "rooms") == 0) {
        show_rooms(json_object_get(msg, "rooms"));
    } else if (strcmp(re, "create") == 0 && room) {
        set_current(room);
        if (seat >= 0)
            say("room %s created; you sit at seat %d", shown, seat);
        else
            say("room %s created", shown);
    } else if (strcmp(re, "join") == 0 && room) {
        set_current(room);
        say("you sit at seat %d of room %s", seat, shown);
    } else if (strcmp(re, "watch") == 0 && room) {
        set_current(room);
        say("watching room %s", shown);
    } else if (strcmp(re, "leave") == 0) {
        say("left room %s", room ? shown : safe_text(shown, sizeof shown, CURRENT));
        if (room) room_forget(room);
        if (!room || strcmp(room, CURRENT) == 0) set_current(NULL);
    } else if (strcmp(re, "addbot") == 0) {
        say("a bot sits at seat %d", seat);
    } else if (strcmp(re, "help") == 0) {
        out_begin(); /* lines: each one escaped */
        safe_fputs_lines(stdout, json_string_value(json_object_get(msg, "text")));
        fputc('\n', stdout);
        out_end();
    } else if (strcmp(re, "ping") == 0) {
        say("pong");
    } else if (strcmp(re, "quit") == 0) {
        QUITTING = true;
        say("bye");
    } else if (strcmp(re, "act") == 0 || strcmp(re, "say") == 0 || strcmp(re, "state") == 0) {
        /* the state or chat event shows it */
    } else {
        say_json(msg);
    }
}

static void on_event(const char *ev, const json_t *msg)
{
    const char *room = json_string_value(json_object_get(msg, "room"));
    const char *name = json_string_value(json_object_get(msg, "name"));
    int seat = (int)json_integer_value(json_object_get(msg, "seat"));
    char shown_room[SHOWN_MAX], shown_name[SHOWN_MAX];
    safe_text(shown_room, sizeof shown_room, room);
    safe_text(shown_name, sizeof shown_name, name);
    if (strcmp(ev, "state") == 0) {
        show_state(msg);
    } else if (strcmp(ev, "room") == 0) {
        show_room(msg);
    } else if (strcmp(ev, "game_over") == 0) {
        room_info_t *r = room_get(room, true);
        render_ctx_t ctx = ctx_for(r);
        out_begin();
        renderer_of(r)->result(&ctx, json_object_get(msg, "result"));
        printf("  `leave`, then `create` or `join` for another game\n");
        out_end();
    } else if (strcmp(ev, "chat") == 0) {
        char from[SHOWN_MAX], prefix[2 * SHOWN_MAX + 8];
        snprintf(prefix, sizeof prefix, "[%s] %s: ", shown_room,
                 safe_text(from, sizeof from, json_string_value(json_object_get(msg, "from"))));
        say_text(prefix, json_string_value(json_object_get(msg, "text")), "");
    } else if (strcmp(ev, "join") == 0 || strcmp(ev, "leave") == 0 ||
               strcmp(ev, "disconnect") == 0 || strcmp(ev, "reconnect") == 0) {
        static const char *const verbs[][2] = {{"join", "sits down"},
                                               {"leave", "left"},
                                               {"disconnect", "lost the connection"},
                                               {"reconnect", "is back"}};
        const char *verb = ev;
        for (int i = 0; i < 4; i++)
            if (strcmp(ev, verbs[i][0]) == 0) verb = verbs[i][1];
        say("[%s] %s (seat %d) %s", shown_room, shown_name, seat, verb);
    } else if (strcmp(ev, "timeout") == 0) {
        say("[%s] seat %d ran out of time: the default move was played", shown_room, seat);
    } else if (strcmp(ev, "shutdown") == 0) {
        say("! the server is shutting down");
    } else if (strcmp(ev, "replaced") == 0) {
        NO_RECONNECT = true;
        say("! you logged in elsewhere: this client stops");
    } else if (strcmp(ev, "error") == 0) {
        json_t *err = json_object_get(msg, "error");
        char code[SHOWN_MAX], prefix[SHOWN_MAX + 16];
        snprintf(prefix, sizeof prefix, "! server: %s: ",
                 safe_text(code, sizeof code, json_string_value(json_object_get(err, "code"))));
        say_text(prefix, json_string_value(json_object_get(err, "message")), "");
    } else {
        say_json(msg);
    }
}

/* The reply to our own keepalive ping (ok or not): not shown. */
static bool is_keepalive_reply(const json_t *msg)
{
    const char *id = json_string_value(json_object_get(msg, "id"));
    return json_object_get(msg, "re") && id && strcmp(id, KEEPALIVE_ID) == 0;
}

static void on_server_line(const char *line, size_t len)
{
    proto_error_t err;
    json_t *msg = proto_json_parse(line, len, &err);
    if (!msg) {
        out_begin();
        fputs("? ", stdout);
        safe_fwrite(stdout, line, len);
        fputc('\n', stdout);
        out_end();
        return;
    }
    if (is_keepalive_reply(msg)) {
        json_decref(msg);
        return;
    }
    out_begin();
    const char *ev = json_string_value(json_object_get(msg, "ev"));
    if (ev)
        on_event(ev, msg);
    else
        on_reply(msg);
    out_end();
    json_decref(msg);
}

/* ------------------------------------------------------------------------ */
/* Typed lines                                                              */
/* ------------------------------------------------------------------------ */

static void client_help(void)
{
    say("client commands (the others go to the server as typed):\n"
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

static bool is_number(const char *s)
{
    if (!*s) return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9') return false;
    return true;
}

static void handle_line(char *line)
{
    while (*line == ' ' || *line == '\t')
        line++;
    size_t n = strlen(line);
    while (n && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r'))
        line[--n] = '\0';
    if (!n) return;
    if (TTY_IN) add_history(line);
    room_info_t *r = current_room();
    const json_t *legal = current_legal();

    if (strcmp(line, "quit") == 0 || strcmp(line, "exit") == 0) {
        QUITTING = true;
        if (connected())
            send_line("quit");
        else
            DONE = true;
        return;
    }
    if (strcmp(line, "legal") == 0) {
        list_legal(NULL);
        return;
    }
    if (strcmp(line, "help") == 0) {
        client_help();
        send_line("help");
        return;
    }
    if (strcmp(line, "autodraw") == 0 || strncmp(line, "autodraw ", 9) == 0) {
        const char *arg = line + 8;
        while (*arg == ' ')
            arg++;
        if (strcmp(arg, "on") == 0 || strcmp(arg, "off") == 0) {
            AUTODRAW = strcmp(arg, "on") == 0;
            for (int i = 0; i < MAX_ROOMS; i++)
                if (ROOMS[i].id[0]) {
                    ROOMS[i].auto_sent = false;
                    if (maybe_auto(&ROOMS[i])) say("autodraw: drawing in room %s", ROOMS[i].label);
                }
        } else if (*arg) {
            say("! autodraw on, or autodraw off");
            return;
        }
        say("autodraw is %s", AUTODRAW ? "on" : "off");
        return;
    }
    if (strcmp(line, "view") == 0) {
        if (r && r->view)
            say_json(r->view);
        else
            say("no table yet");
        return;
    }
    if (strncmp(line, "room ", 5) == 0) {
        room_info_t *other = room_get(line + 5, false);
        if (!other) {
            say("! not in room %s", line + 5);
            return;
        }
        set_current(other->id);
        if (other->view) {
            json_t *ev = json_pack("{s:s, s:s, s:I, s:O}", "ev", "state", "room", other->id, "seq",
                                   (json_int_t)other->seq, "view", other->view);
            show_state(ev);
            json_decref(ev);
        }
        return;
    }
    if (is_number(line)) {
        size_t k = (size_t)strtoul(line, NULL, 10);
        if (k < 1 || k > json_array_size(legal)) {
            say("! no legal action %s (type legal to list them)", line);
            return;
        }
        send_act(json_array_get(legal, k - 1));
        return;
    }
    /* A bare action word: play it if exactly one legal action has that type. */
    if (!strchr(line, ' ') && json_array_size(legal)) {
        json_t *type = json_string(line);
        size_t i, count = 0, which = 0;
        json_t *a;
        json_array_foreach(legal, i, a) if (json_equal(json_object_get(a, "type"), type))
        {
            count++;
            which = i;
        }
        if (count == 1)
            send_act(json_array_get(legal, which));
        else if (count > 1)
            list_legal(type);
        json_decref(type);
        if (count) return;
    }
    const renderer_t *rd = renderer_of(r);
    char *translated = r && r->view && rd->translate ? rd->translate(r->view, line) : NULL;
    send_line(translated ? translated : line);
    free(translated);
}

/* ------------------------------------------------------------------------ */
/* Completion                                                               */
/* ------------------------------------------------------------------------ */

static const char *const COMMANDS[] = {
    "hello", "games", "create", "rooms", "join",  "watch", "leave",    "addbot", "act", "state",
    "say",   "ping",  "help",   "quit",  "legal", "view",  "autodraw", "room",   NULL};

static json_t *CANDIDATES;

static char *next_candidate(const char *text, int state)
{
    static size_t i;
    if (state == 0) i = 0;
    size_t len = strlen(text);
    while (i < json_array_size(CANDIDATES)) {
        const char *c = json_string_value(json_array_get(CANDIDATES, i++));
        if (c && strncmp(c, text, len) == 0) return strdup(c);
    }
    return NULL;
}

/* Add s unless it is there already, or has characters that must be escaped to be shown. */
static void add_unique(json_t *list, const char *s)
{
    size_t i;
    json_t *v;
    if (!s || !safe_is_clean(s, strlen(s))) return;
    json_array_foreach(list, i, v) if (strcmp(json_string_value(v), s) == 0) return;
    json_array_append_new(list, json_string(s));
}

/* Split s (modified) into at most max blank-separated words. */
static int split_words(char *s, char **words, int max)
{
    int n = 0;
    char *save;
    for (char *w = strtok_r(s, " \t", &save); w && n < max; w = strtok_r(NULL, " \t", &save))
        words[n++] = w;
    return n;
}

/* A typed word stands for a rendered one: the same, or its value (`down` for card=down). */
static bool word_matches(const char *rendered, const char *typed)
{
    const char *eq = strchr(rendered, '=');
    return strcmp(rendered, typed) == 0 || (eq && strcmp(eq + 1, typed) == 0);
}

/*
 * Any game: the word being completed, from the legal actions as the inline
 * form writes them (`pick card=down`, `play column=2 pile=1`) whose earlier
 * words match what is typed; both key=value and the bare value are offered.
 */
static void complete_action_word(const json_t *legal, int start)
{
    char typed_buf[1024], *typed[16];
    snprintf(typed_buf, sizeof typed_buf, "%.*s", start, rl_line_buffer);
    int nt = split_words(typed_buf, typed, 16);
    size_t i;
    json_t *a;
    json_array_foreach(legal, i, a)
    {
        char *text = inline_render_action(a), *words[17];
        int nw = text ? split_words(text, words, 17) : 0;
        bool match = nw > nt;
        for (int k = 0; match && k < nt; k++)
            match = word_matches(words[k], typed[k]);
        if (match) {
            add_unique(CANDIDATES, words[nt]);
            const char *eq = strchr(words[nt], '=');
            if (eq && eq[1]) add_unique(CANDIDATES, eq + 1);
        }
        free(text);
    }
}

static char **complete(const char *text, int start, int end)
{
    (void)end;
    json_decref(CANDIDATES);
    CANDIDATES = json_array();
    const json_t *legal = current_legal();
    size_t i;
    json_t *v;
    if (start == 0) {
        for (int k = 0; COMMANDS[k]; k++)
            add_unique(CANDIDATES, COMMANDS[k]);
        json_array_foreach(legal, i, v)
            add_unique(CANDIDATES, json_string_value(json_object_get(v, "type")));
    } else {
        char first[40] = "";
        sscanf(rl_line_buffer, "%39s", first);
        if (!strcmp(first, "join") || !strcmp(first, "watch") || !strcmp(first, "leave") ||
            !strcmp(first, "room")) {
            for (int k = 0; k < MAX_ROOMS; k++)
                if (ROOMS[k].id[0]) add_unique(CANDIDATES, ROOMS[k].id);
        } else if (!strcmp(first, "create")) {
            json_array_foreach(GAMES, i, v)
                add_unique(CANDIDATES, json_string_value(json_object_get(v, "id")));
            add_unique(CANDIDATES, "233");
        } else if (!strcmp(first, "help")) {
            for (int k = 0; COMMANDS[k]; k++)
                add_unique(CANDIDATES, COMMANDS[k]);
        } else if (!strcmp(first, "autodraw")) {
            add_unique(CANDIDATES, "on");
            add_unique(CANDIDATES, "off");
        } else {
            complete_action_word(legal, start);
            room_info_t *r = current_room();
            json_array_foreach(r && r->view ? json_object_get(r->view, "hand") : NULL, i, v)
                add_unique(CANDIDATES, json_string_value(v));
        }
    }
    rl_attempted_completion_over = 1;
    return rl_completion_matches(text, next_candidate);
}

/* ------------------------------------------------------------------------ */
/* The connection                                                           */
/* ------------------------------------------------------------------------ */

static void connection_lost(void)
{
    net_close(&NET);
    if (QUITTING || NO_RECONNECT) {
        DONE = true;
        return;
    }
    if (!RECONNECT_DELAY) RECONNECT_DELAY = RECONNECT_MIN_MS;
    RECONNECT_AT = net_now_ms() + RECONNECT_DELAY;
    say("! connection lost; reconnecting to %s:%s ...", O.host, O.port);
}

static void try_reconnect(void)
{
    if (net_open(&NET, O.host, O.port) == 0) {
        say("reconnected");
        send_hello();
        return;
    }
    RECONNECT_DELAY =
        RECONNECT_DELAY * 2 > RECONNECT_MAX_MS ? RECONNECT_MAX_MS : RECONNECT_DELAY * 2;
    RECONNECT_AT = net_now_ms() + RECONNECT_DELAY;
}

static void read_server(void)
{
    long r = net_read(&NET);
    if (r <= 0) {
        connection_lost();
        return;
    }
    const char *line;
    size_t len;
    int fr;
    while ((fr = frame_next(&NET.frame, &line, &len)) == FRAME_LINE)
        on_server_line(line, len);
    if (fr == FRAME_TOO_LONG) connection_lost();
}

/* ------------------------------------------------------------------------ */
/* Interactive mode                                                         */
/* ------------------------------------------------------------------------ */

static void on_readline(char *line);

static void on_readline(char *line)
{
    if (!line) { /* Ctrl-D */
        QUITTING = true;
        printf("\n");
        if (connected())
            send_line("quit");
        else
            DONE = true;
        return;
    }
    /* libedit keeps the submitted line in its buffer until the next key, and a
     * redraw for an event would show it again: start a fresh line instead. */
    rl_callback_handler_remove();
    PROMPT_ON = false;
    handle_line(line);
    free(line);
    if (!DONE) {
        rl_callback_handler_install(PROMPT, on_readline);
        PROMPT_ON = true;
    }
}

static frame_t STDIN_FRAME;
static bool STDIN_EOF;
static long long QUIT_DEADLINE;

static void read_stdin_lines(void)
{
    char buf[4096];
    ssize_t n = read(0, buf, sizeof buf);
    if (n <= 0) {
        STDIN_EOF = true;
        QUITTING = true;
        QUIT_DEADLINE = net_now_ms() + 3000;
        if (connected())
            send_line("quit");
        else
            DONE = true;
        return;
    }
    frame_feed(&STDIN_FRAME, buf, (size_t)n);
    const char *line;
    size_t len;
    while (frame_next(&STDIN_FRAME, &line, &len) == FRAME_LINE) {
        char *copy = strndup(line, len);
        if (copy) handle_line(copy);
        free(copy);
    }
}

static void ask_name(void)
{
    if (O.name[0]) return;
    char *line = NULL;
    if (TTY_IN) {
        line = readline("your name: ");
    } else {
        /* Byte by byte: what follows the name is read later with read(2). */
        char buf[128];
        size_t n = 0;
        char ch;
        while (n + 1 < sizeof buf && read(0, &ch, 1) == 1 && ch != '\n')
            buf[n++] = ch;
        buf[n] = '\0';
        line = strdup(buf);
    }
    if (line) {
        line[strcspn(line, "\r\n")] = '\0';
        char *p = line;
        while (*p == ' ')
            p++;
        snprintf(O.name, sizeof O.name, "%.32s", p);
        for (char *q = O.name; *q; q++)
            if (*q == ' ' || *q == '\t') *q = '_';
    }
    free(line);
    if (!O.name[0]) {
        const char *user = getenv("USER");
        snprintf(O.name, sizeof O.name, "%.32s", user && *user ? user : "player");
    }
}

static int run_interactive(void)
{
    ask_name();
    if (net_open(&NET, O.host, O.port) < 0) {
        fprintf(stderr, "tapis: cannot connect to %s:%s: %s\n", O.host, O.port, strerror(errno));
        return 1;
    }
    send_hello();
    update_prompt();
    if (TTY_IN) {
        rl_readline_name = "tapis";
        rl_attempted_completion_function = complete;
        using_history();
        rl_callback_handler_install(PROMPT, on_readline);
        PROMPT_ON = true;
    } else {
        frame_init(&STDIN_FRAME, 0);
    }
    while (!DONE && !STOP_SIGNAL) {
        struct pollfd pfd[2];
        int nfd = 0, timeout = -1;
        long long now = net_now_ms();
        if (!STDIN_EOF) pfd[nfd++] = (struct pollfd){.fd = 0, .events = POLLIN};
        int sock = -1;
        if (connected()) {
            sock = nfd;
            pfd[nfd++] = (struct pollfd){.fd = NET.fd, .events = POLLIN};
        } else if (!QUITTING && !NO_RECONNECT) {
            timeout = RECONNECT_AT > now ? (int)(RECONNECT_AT - now) : 0;
        }
        if (QUIT_DEADLINE) {
            if (now >= QUIT_DEADLINE) break;
            timeout = (int)(QUIT_DEADLINE - now);
        }
        if (connected() && O.keepalive_ms > 0) {
            long long due = NET.last_write_ms + O.keepalive_ms;
            int wait = due > now ? (int)(due - now) : 0;
            if (timeout < 0 || wait < timeout) timeout = wait;
        }
        if (nfd == 0 && timeout < 0) break;
        int n = poll(pfd, (nfds_t)nfd, timeout);
        if (n < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (sock >= 0 && pfd[sock].revents) read_server();
        if (!STDIN_EOF && pfd[0].revents) {
            if (TTY_IN)
                rl_callback_read_char();
            else
                read_stdin_lines();
        }
        if (!connected() && !QUITTING && !NO_RECONNECT && net_now_ms() >= RECONNECT_AT)
            try_reconnect();
        maybe_keepalive();
        if (!connected() && (QUITTING || NO_RECONNECT)) DONE = true;
    }
    if (PROMPT_ON) {
        PROMPT_ON = false;
        rl_callback_handler_remove();
    }
    fflush(stdout);
    net_close(&NET);
    if (!TTY_IN) frame_free(&STDIN_FRAME);
    for (int i = 0; i < MAX_ROOMS; i++)
        room_forget(ROOMS[i].id);
    json_decref(GAMES);
    json_decref(CANDIDATES);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Main                                                                     */
/* ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
    fprintf(f, "usage: tapis [HOST:PORT] [--name NAME] [--no-color] [--keepalive TIME]\n"
               "       tapis [HOST:PORT] --json\n"
               "\n"
               "The terminal client of tapis (default " NET_DEFAULT_HOST ":" NET_DEFAULT_PORT ").\n"
               "Type `help` once connected. --json passes raw protocol lines between\n"
               "stdin/stdout and the server. Colours follow NO_COLOR and the terminal.\n"
               "--keepalive: send a ping after TIME without sending anything (2m; 0 = never;\n"
               "TIME is a number with an optional unit ms, s or m, bare = seconds).\n");
}

/* TIME as --keepalive takes it ("90", "90s", "500ms", "2m") in ms, or -1. */
static long long parse_time_ms(const char *s)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || errno || v < 0 || v > 24LL * 3600 * 1000) return -1;
    if (strcmp(end, "ms") == 0) return v;
    if (*end == '\0' || strcmp(end, "s") == 0) return v <= 24LL * 3600 ? v * 1000 : -1;
    if (strcmp(end, "m") == 0) return v <= 24LL * 60 ? v * 60 * 1000 : -1;
    return -1;
}

int main(int argc, char **argv)
{
    static const struct option longs[] = {
        {"json", no_argument, NULL, 'j'},     {"name", required_argument, NULL, 'n'},
        {"no-color", no_argument, NULL, 'C'}, {"keepalive", required_argument, NULL, 'k'},
        {"help", no_argument, NULL, 'h'},     {NULL, 0, NULL, 0}};
    int ch;
    while ((ch = getopt_long(argc, argv, "jn:h", longs, NULL)) != -1) {
        switch (ch) {
        case 'j': O.json_mode = true; break;
        case 'n': snprintf(O.name, sizeof O.name, "%.32s", optarg); break;
        case 'C': O.no_color = true; break;
        case 'k':
            O.keepalive_ms = parse_time_ms(optarg);
            if (O.keepalive_ms < 0) {
                fprintf(stderr, "tapis: --keepalive: a time such as 2m, 90s or 500ms, not \"%s\"\n",
                        optarg);
                return 2;
            }
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind + 1 < argc) {
        usage(stderr);
        return 2;
    }
    if (net_parse_addr(optind < argc ? argv[optind] : NULL, O.host, sizeof O.host, O.port,
                       sizeof O.port)) {
        fprintf(stderr, "tapis: bad address \"%s\" (HOST:PORT)\n", argv[optind]);
        return 2;
    }
    install_signals();
    if (O.json_mode) return tapis_json_mode(O.host, O.port);
    const char *nc = getenv("NO_COLOR");
    COLOR = !O.no_color && isatty(1) && !(nc && *nc);
    TTY_IN = isatty(0);
    return run_interactive();
}
