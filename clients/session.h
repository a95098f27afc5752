/*
 * session.h — the interactive session of the `tapis` terminal client: one
 * struct that holds everything the client knows (options, the link to the
 * server, the rooms, the games the server hosts, the prompt), and the
 * functions of the files that work on it, one concern each:
 *
 *   tapis.c     main: options, signals, the poll() loop, libedit's callbacks
 *   session.c   the rooms we sit in or watch, and the current one
 *   link.c      the connection: send, keepalive, read, reconnect, `games`
 *   events.c    replies and events from the server -> session state
 *   show.c      output around the line being edited; tables, lists, replies
 *   input.c     typed lines -> protocol requests (and the client's commands)
 *   complete.c  tab completion: the candidates for a word of a typed line
 *
 * Everything takes the session as its first argument; no file keeps state of
 * its own (tapis.c keeps what libedit's callbacks and the signal handler
 * need, and says why).
 */
#ifndef TAPIS_CLIENTS_SESSION_H
#define TAPIS_CLIENTS_SESSION_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "protocol/framing.h"
#include "clients/net.h"
#include "clients/render.h"

#define SESSION_MAX_ROOMS 32
#define RECONNECT_MIN_MS 500
#define RECONNECT_MAX_MS 5000
#define KEEPALIVE_DEFAULT_MS (2 * 60 * 1000)
/* Ids of the requests the client sends by itself: their replies are not shown. */
#define KEEPALIVE_ID "tapis-keepalive"
#define PONG_ID "tapis-pong" /* our answers to the server's pings: their replies are not shown */
#define GAMES_ID "tapis-games"

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

typedef struct session {
    /* Options (main). */
    net_addrs_t addrs;        /* the server, or a cluster's nodes (tried in turn) */
    char host[256], port[16]; /* the address of the connection: addrs' current one */
    char name[64];
    long long keepalive_ms; /* 0: never */
    bool color;             /* ANSI colours on stdout */
    bool tty_in;            /* stdin is a terminal: libedit; otherwise plain lines */

    /* The link to the server (link.c). */
    net_conn_t net;
    char token[160];         /* hello's reconnect token */
    bool quitting;           /* quit sent or stdin ended: do not reconnect */
    bool no_reconnect;       /* replaced elsewhere */
    bool done;               /* the main loop ends */
    long long reconnect_at;  /* when disconnected: the next attempt (ms) */
    int reconnect_delay;     /* ms, doubled up to RECONNECT_MAX_MS */
    json_t *games;           /* the server's last `games` list, or NULL */
    bool games_asked;        /* a `games` of our own was sent on this connection */
    long long quit_deadline; /* stdin ended: stop waiting for the server then (ms), or 0 */

    /* Rooms (session.c). */
    room_info_t rooms[SESSION_MAX_ROOMS];
    char current[40]; /* the room the prompt and the short commands refer to */
    bool autodraw;    /* send the renderer's automatic action (seqnum's draw) */

    /* Output (show.c). */
    bool prompt_on; /* libedit's handler is installed */
    int out_depth;  /* nesting of out_begin() */
    char prompt[80];

    /* Input without a terminal (tapis.c). */
    frame_t stdin_frame;
    bool stdin_eof;

    /* Completion (complete.c via tapis.c). */
    json_t *candidates; /* the words offered for the word being completed */
    size_t next_candidate;
} session_t;

/* ------------------------------------------------------------------------ */
/* session.c                                                                */
/* ------------------------------------------------------------------------ */

/* Defaults: not connected, autodraw on, keepalive KEEPALIVE_DEFAULT_MS. */
void session_init(session_t *s);
/* Drop the rooms, the games and the candidates. */
void session_free(session_t *s);
/* The room with this id; with create, a new one (forgetting the oldest when full). */
room_info_t *session_room(session_t *s, const char *id, bool create);
void session_forget_room(session_t *s, const char *id);
room_info_t *session_current_room(session_t *s);
/* The legal actions of the current room's view, or NULL. */
const json_t *session_current_legal(session_t *s);
/* The room's game id: its view's "game", else its "room" event's, or NULL. */
const char *session_room_game(const room_info_t *r);
const renderer_t *session_renderer(const room_info_t *r);
/* The server's description of a game (from `games`), or NULL. */
const json_t *session_game_info(const session_t *s, const char *game);
/* Make room (or none, NULL) the current one, and the prompt say so. */
void session_set_current(session_t *s, const char *room);

/* ------------------------------------------------------------------------ */
/* link.c                                                                   */
/* ------------------------------------------------------------------------ */

bool link_connected(const session_t *s);
/* Connect to s->host:s->port. 0, or -1 with errno set. */
int link_open(session_t *s);
void link_close(session_t *s);
/* A line as typed (inline form or JSON), or "! not connected" when offline. */
void link_send_line(session_t *s, const char *line);
/* Send msg (stolen), or "! not connected" when offline. */
void link_send_msg(session_t *s, json_t *msg);
/* Send msg (stolen) when connected, silently: requests of the client's own. */
void link_send_quiet(session_t *s, json_t *msg);
/* `act` of this action in the current room. */
void link_send_act(session_t *s, const json_t *action);
void link_send_hello(session_t *s);
/* `quit`, or the end of the loop when offline. */
void link_quit(session_t *s);
/* A ping after s->keepalive_ms without a write, so that an idle timeout spares a watcher. */
void link_keepalive(session_t *s);
/* Read what the socket has (poll() said readable) and handle each line (events.c). */
void link_read(session_t *s);
/* Try to connect again if it is time. */
void link_maybe_reconnect(session_t *s);
/*
 * The server's games list. The first time on a connection that it is not
 * known, ask it with a `games` of our own and wait up to timeout_ms for the
 * reply (other lines are handled meanwhile as usual); later calls do not wait
 * (a late reply is kept when it comes). NULL when unknown.
 */
const json_t *link_games(session_t *s, int timeout_ms);

/* ------------------------------------------------------------------------ */
/* events.c                                                                 */
/* ------------------------------------------------------------------------ */

/* One line from the server: a reply or an event, shown and remembered. */
void events_server_line(session_t *s, const char *line, size_t len);
/* A state event (also replayed by `room ROOM`): remember the view, show the table. */
void events_state(session_t *s, const json_t *msg);
/*
 * `autodraw on`: the renderer's automatic action (seqnum's draw, a race
 * against the next player) goes out as soon as a view of that room allows it,
 * once until a view no longer asks for it. Returns true if it was sent.
 */
bool events_maybe_auto(session_t *s, room_info_t *r);

/* ------------------------------------------------------------------------ */
/* show.c                                                                   */
/* ------------------------------------------------------------------------ */

/* Clear the prompt line before printing; out_end() draws it again. They nest. */
void out_begin(session_t *s);
void out_end(session_t *s);
/* One line (printf format). */
void say(session_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One line: prefix, then text from the wire escaped, then suffix. */
void say_text(session_t *s, const char *prefix, const char *text, const char *suffix);
/* JSON from the wire, re-encoded, on a line of its own. */
void say_json(session_t *s, const json_t *j);
void show_prompt_update(session_t *s);
render_ctx_t show_ctx(const session_t *s, const room_info_t *r);
/* The table of r from a state event msg, whom it waits for, and the moves (or autodraw). */
void show_table(session_t *s, room_info_t *r, const json_t *msg, bool auto_sent);
/* A waiting room's seats, from its "room" event. */
void show_room_waiting(session_t *s, const room_info_t *r, const char *game);
void show_rooms(session_t *s, const json_t *rooms);
void show_games(session_t *s, const json_t *games);
/* The legal actions of the current room, numbered (only those of a type, if given). */
void show_legal(session_t *s, const json_t *only_type);
/* A failed reply: "! CODE: MESSAGE". */
void show_error_reply(session_t *s, const json_t *msg);
void show_game_over(session_t *s, room_info_t *r, const json_t *result);
/* The client's own commands, before the server's help. */
void show_client_help(session_t *s);

/* ------------------------------------------------------------------------ */
/* input.c                                                                  */
/* ------------------------------------------------------------------------ */

/* A typed line (modified): a client command, or a request to the server. */
void input_line(session_t *s, char *line);

/* ------------------------------------------------------------------------ */
/* complete.c                                                               */
/* ------------------------------------------------------------------------ */

/*
 * The words that may replace line[start..] (the word being completed, which
 * may start after a '=' of key=value), as a new array of strings, each one
 * shown as is (nothing that needs escaping). May ask the server for `games`.
 */
json_t *complete_candidates(session_t *s, const char *line, int start);

#endif
