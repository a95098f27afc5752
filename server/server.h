/*
 * server.h — the types tapisd's files share: the server, a connection, a
 * session (a player's identity across connections) and a room.
 *
 * Ownership in one paragraph: the server owns every connection, session and
 * room (three intrusive lists). A connection points to at most one session;
 * a session points back to its live connection, if any. Rooms hold sessions
 * (seated or watching); a session keeps the list of rooms it is in. Nothing
 * else holds pointers across these objects, so closing a connection only
 * detaches its session, and destroying a session only leaves its rooms.
 *
 * Time: the server clock is uv_hrtime() since start, kept in microseconds
 * (stamps) and handed to games in milliseconds (`now`).
 */
#ifndef TAPIS_SERVER_SERVER_H
#define TAPIS_SERVER_SERVER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "framing.h"
#include "game.h"
#include "options.h"

typedef struct server server_t;
typedef struct conn conn_t;
typedef struct session session_t;
typedef struct room room_t;

#define TOKEN_LEN 32 /* hex characters of a reconnect token (128 bits) */
#define ROOM_ID_LEN 16
#define SESSION_MAX_ROOMS 64 /* rooms one session may sit or watch in at once */

/* ------------------------------------------------------------------------ */
/* Connection                                                               */
/* ------------------------------------------------------------------------ */

typedef enum conn_state {
    CONN_OPEN,     /* reading and answering */
    CONN_FLUSHING, /* read nothing more; close once the output is flushed */
    CONN_DOOMED,   /* failed while sending: closed from the check handle */
    CONN_CLOSING,  /* uv_close() called; waiting for the close callbacks */
} conn_state_t;

struct conn {
    uv_tcp_t tcp;     /* first: a uv_stream_t * is a conn_t * */
    uv_timer_t timer; /* hello timeout, then the flush deadline */
    uv_shutdown_t shutdown;
    server_t *srv;
    uint64_t id;
    char peer[64];
    conn_state_t state;
    int open_handles; /* freed when the last handle's close callback ran */
    bool reading;
    bool saw_line; /* a first line came: HTTP detection is done */
    bool eof;      /* the peer shut down its side: answer, then close */

    frame_t frame;
    uint64_t stamp;                  /* µs: when the oldest unprocessed complete line was read */
    conn_t *ready_prev, *ready_next; /* in srv's ready queue while lines wait */
    bool ready;

    char *out; /* output not yet handed to the kernel or libuv (see conn.c) */
    size_t out_len, out_size;
    size_t out_pending;              /* bytes handed to libuv and not yet written */
    conn_t *flush_prev, *flush_next; /* in srv's flush list while `out` waits */
    bool flush_queued;
    const char *doom_why;
    conn_t *doom_next;  /* srv->doomed */
    session_t *session; /* NULL before hello */

    conn_t *prev, *next; /* srv->conns */
};

/* ------------------------------------------------------------------------ */
/* Session                                                                  */
/* ------------------------------------------------------------------------ */

struct session {
    server_t *srv;
    char token[TOKEN_LEN + 1];
    char name[64];
    conn_t *conn;    /* NULL while disconnected (seats held) */
    uv_timer_t hold; /* the reconnect window */
    bool hold_open;  /* hold handle initialised and not yet closed */
    bool gone;       /* session_destroy() ran */
    room_t **rooms;  /* rooms seated in or watched */
    int nrooms, caprooms;
    session_t *prev, *next; /* srv->sessions */
};

/* ------------------------------------------------------------------------ */
/* Room                                                                     */
/* ------------------------------------------------------------------------ */

typedef enum room_status {
    ROOM_WAITING, /* seats still free */
    ROOM_PLAYING,
    ROOM_OVER,
} room_status_t;

typedef struct seat {
    session_t *session;    /* a person (connected or held), or NULL */
    bool bot;              /* a built-in bot sits here */
    char bot_strategy[33]; /* as given: "greedy", "greedy:250", "random:100-400" */
    char bot_name[33];     /* the part before ':', passed to the game's bot */
    int64_t bot_delay_min; /* ms, the bot's own reaction time, or -1: --bot-delay */
    int64_t bot_delay_max;
    rng_t bot_rng;
    int64_t bot_due;         /* ms when the bot acts next, or GAME_NO_DEADLINE */
    uint64_t bot_passed_seq; /* the bot had nothing to play at this seq */
    int64_t wait_since;      /* ms since which the game waits on this seat, or -1 */
} seat_t;

struct room {
    server_t *srv;
    char id[ROOM_ID_LEN + 1];
    bool private_room;
    const game_desc_t *desc;
    int nseats;
    seat_t seats[GAME_MAX_SEATS];
    session_t **watchers;
    int nwatchers, capwatchers;
    game_t *game; /* created with the room, played once full */
    room_status_t status;
    bool closed;         /* room_destroy() ran: the memory waits for the timer close */
    uint64_t seq;        /* state events sent */
    int64_t last_now;    /* the game's clock never goes back */
    uv_timer_t timer;    /* the earliest of: game deadline, turn timer, bots */
    int64_t timer_at;    /* ms the timer is armed for, or GAME_NO_DEADLINE */
    room_t *prev, *next; /* srv->rooms */
};

/* ------------------------------------------------------------------------ */
/* Server                                                                   */
/* ------------------------------------------------------------------------ */

struct server {
    uv_loop_t *loop;
    server_opts_t opts;
    uv_tcp_t listener;
    uv_signal_t sigint, sigterm;
    uv_idle_t idle;        /* keeps the loop from blocking while lines wait */
    uv_check_t check;      /* processes waiting lines after each poll */
    uv_prepare_t prepare;  /* flushes output made by timers before the loop polls */
    uv_timer_t stop_timer; /* shutdown: force-close connections still flushing */
    uint64_t start_ns;
    bool stopping;

    conn_t *conns;
    int nconns;
    uint64_t next_conn_id;
    conn_t *ready_head, *ready_tail; /* connections with complete lines, oldest first */
    conn_t *doomed;                  /* to close at the next check (see conn_doom) */
    conn_t *flush_head, *flush_tail; /* connections with output to flush, oldest first */

    session_t *sessions;
    room_t *rooms;
    uint64_t rooms_created;
    rng_t rng; /* bot seeds and delays (seeded from the OS) */
};

/* The server clock: µs and ms since start (monotonic). */
uint64_t server_now_us(const server_t *srv);
static inline int64_t server_now_ms(const server_t *srv)
{
    return (int64_t)(server_now_us(srv) / 1000);
}
/* n random bytes from the OS (getrandom). Returns 0 or -1. */
int server_random(void *buf, size_t n);
/* A seed for a new game: from the OS, or derived from --seed. */
uint64_t server_game_seed(server_t *srv);

#endif
