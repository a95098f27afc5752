/*
 * server.h — the types tapisd's files share: the server, a connection, a
 * session (a player's identity across connections) and a room.
 *
 * Ownership in one paragraph: the server owns every connection, session and
 * room (three intrusive queues, queue.h). A connection points to at most one session;
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

#include "protocol/buf.h"
#include "protocol/framing.h"
#include "core/game.h"
#include "server/base/heap.h"
#include "server/metrics/metrics.h"
#include "server/base/options.h"
#include "server/durable/durable.h"
#include "protocol/queue.h"
#include "include/tapis_alloc.h"

/* uthash allocates through the one wrapper too; a failure is reported, not fatal. */
#define uthash_malloc(sz) tapis_malloc(sz)
#define uthash_free(ptr, sz) tapis_free(ptr)
#define HASH_NONFATAL_OOM 1
#include <uthash.h>

typedef struct server server_t;
typedef struct conn conn_t;
typedef struct session session_t;
typedef struct room room_t;
typedef struct peer_count peer_count_t;
typedef struct store store_t;
typedef struct conn_hooks conn_hooks_t;

#define TOKEN_LEN 32      /* hex characters of a reconnect token (128 bits) */
#define TOKEN_HASH_LEN 64 /* hex characters of its hash (BLAKE2b-256): what is stored */
#define ROOM_ID_LEN 16
#define SESSION_MAX_ROOMS 64 /* rooms one session may sit or watch in at once */
#define CONN_STAMPS 16       /* reads remembered per connection to stamp its lines */

/*
 * A budget that refills one unit every `interval` µs and holds at most
 * `burst` units (GCRA: one number per budget, one comparison per use).
 * budget_take() is true when a unit was there; interval 0 means no limit.
 */
typedef struct budget {
    uint64_t tat; /* µs: when the budget is full again ("theoretical arrival time") */
} budget_t;

static inline bool budget_take(budget_t *b, uint64_t now, uint64_t interval, uint64_t burst)
{
    if (interval == 0) return true;
    uint64_t tat = b->tat > now ? b->tat : now;
    if (tat - now > (burst ? burst - 1 : 0) * interval) return false;
    b->tat = tat + interval;
    return true;
}

/* Spend `units` more without asking (work already done): later takes wait for them. */
static inline void budget_charge(budget_t *b, uint64_t now, uint64_t interval, uint64_t units)
{
    if (interval == 0) return;
    b->tat = (b->tat > now ? b->tat : now) + units * interval;
}

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
    bool shutting; /* CONN_FLUSHING and uv_shutdown() called */

    frame_t frame;
    struct {
        uint64_t end;     /* stream position (frame_t.fed) after this read */
        uint64_t us;      /* when it was read */
    } reads[CONN_STAMPS]; /* oldest first: the reads whose bytes are not all taken */
    int nreads;
    heap_node_t ready;     /* in srv->ready, keyed by its next line's stamp */
    uint64_t turn;         /* the scheduler turn turn_lines counts in */
    int turn_lines;        /* lines taken in that turn */
    uint64_t last_line_ms; /* for the idle timeout */
    budget_t line_budget, error_budget;
    peer_count_t *peer_count; /* connections from the same address */

    buf_t out;          /* output not yet handed to the kernel or libuv (see conn.c) */
    size_t out_pending; /* bytes handed to libuv and not yet written */
    queue_t flush_node; /* in srv->flushing while `out` waits (else unlinked) */
    const char *doom_why;
    const char *close_why; /* the first reason given to close it: its metrics cause */
    queue_t doom_node;     /* in srv->doomed while CONN_DOOMED */
    session_t *session;    /* the lobby's: NULL before hello (conn.c never reads it) */

    struct relay_client *relay; /* relay.c's (links, lost rooms; opaque to conn.c), or NULL */
    int lines_held;             /* while > 0 its lines wait (a relayed request awaits its reply) */
    bool greeted;               /* conn_hello_done() ran */
    bool node_link; /* from a cluster node's address (hooks.is_node_addr): not capped per address */
    bool relayed;   /* a node's link (hello "via"): idles as long as its client */

    queue_t node; /* in srv->conns */
};

/* ------------------------------------------------------------------------ */
/* Session                                                                  */
/* ------------------------------------------------------------------------ */

struct session {
    server_t *srv;
    uint64_t id;               /* for logs: the token is a secret and is never logged */
    char token[TOKEN_LEN + 1]; /* empty for a restored session until its hello */
    char token_hash[TOKEN_HASH_LEN + 1];
    int64_t created; /* wall time, ms since the epoch */
    char name[64];
    conn_t *conn;                     /* NULL while disconnected (seats held) */
    uv_timer_t hold;                  /* the reconnect window */
    void (*on_expired)(session_t *s); /* when it passes (session_hold()) */
    bool hold_open;                   /* hold handle initialised and not yet closed */
    bool gone;                        /* session_close() ran, or is under way */
    bool admin;                       /* said `admin TOKEN` (admin.c) */
    room_t **rooms;                   /* rooms seated in or watched */
    int nrooms, caprooms;
    budget_t chat_budget, create_budget;
    char name_key[64];      /* the name folded to lower case: names are unique by it */
    UT_hash_handle hh;      /* srv->by_token, keyed by token_hash */
    UT_hash_handle hh_name; /* srv->by_name */
    queue_t node;           /* in srv->sessions */
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
    char bot_strategy[33]; /* as given: "normal", "greedy:250", "fast:100-400" */
    char bot_name[33];     /* the level's strategy, passed to the game's bot */
    int64_t bot_delay_min; /* ms: the bot's reaction time, drawn in [min, max] */
    int64_t bot_delay_max;
    rng_t bot_rng;
    int64_t bot_due;         /* ms when the bot acts next, or GAME_NO_DEADLINE */
    uint64_t bot_passed_seq; /* the bot had nothing to play at this seq */
    int64_t wait_since;      /* ms since which the game waits on this seat, or -1 */
} seat_t;

struct room {
    server_t *srv;
    char id[ROOM_ID_LEN + 1];
    uint64_t rid;         /* its number (the store's key; a public room's id) */
    int64_t clock_offset; /* ms: room time = server time + offset (0 unless restored) */
    uint64_t journal_n;   /* journal entries written (the next one's number) */
    bool private_room;
    const game_desc_t *desc;
    int nseats;
    seat_t seats[GAME_MAX_SEATS];
    session_t **watchers;
    int nwatchers, capwatchers;
    game_t *game; /* created with the room, played once full */
    room_status_t status;
    bool closed;             /* room_destroy() ran: freed at the end of the turn */
    uint64_t seq;            /* state events sent */
    int64_t last_now;        /* the game's clock never goes back */
    heap_node_t due;         /* in srv->timers while timer_at is set */
    int64_t timer_at;        /* ms: the earliest of game deadline, turn timer, bots, or
                                GAME_NO_DEADLINE */
    int64_t unattended_at;   /* ms since which a waiting room has no connected person, or -1 */
    json_t *cluster_meta;    /* cluster.c: {"options","seed"} as text (NULL without --redis) */
    json_t *cluster_journal; /* cluster.c: the journal's entries, to write again */
    bool cluster_moved;      /* another node hosts it now: Redis is not told it closed */
    UT_hash_handle hh;       /* srv->by_room_id */
    queue_t node;            /* in srv->rooms, newest first; then in srv->graveyard */
};

/* ------------------------------------------------------------------------ */
/* Server                                                                   */
/* ------------------------------------------------------------------------ */

struct server {
    uv_loop_t *loop;
    server_opts_t opts;
    uv_tcp_t listener;
    uv_tcp_t refused;    /* accepts and closes a connection there was no memory for */
    bool refusing;       /* `refused` is closing */
    bool refuse_waiting; /* another one waits to be accepted (conn.c, refuse_connection) */
    uv_signal_t sigint, sigterm, sighup;
    uv_timer_t lag_timer; /* measures the loop's lag (metrics) */
    uint64_t lag_due_ns;
    struct http_server *http; /* --metrics, or NULL */
    uv_idle_t idle;           /* keeps the loop from blocking while work waits */
    uv_check_t check;         /* one scheduler turn after each poll (scheduler.c) */
    uv_prepare_t prepare;     /* flushes output made outside the turn; arms `wake` */
    uv_timer_t wake;          /* wakes the loop for the earliest room deadline */
    uint64_t wake_at;         /* µs the wake timer is armed for, or UINT64_MAX */
    uv_timer_t stop_timer;    /* shutdown: force-close connections still flushing */
    uint64_t start_ns;
    bool stopping;
    bool draining;         /* admin drain: no new rooms; stop when the last game ends */
    char admin_token[128]; /* from --admin-token-file; "" = no admin */
    metrics_t metrics;

    queue_t conns; /* conn_t.node, newest first */
    int nconns;
    uint64_t next_conn_id;
    heap_t ready;        /* connections with a complete line, by its stamp */
    heap_t timers;       /* rooms with a deadline, by deadline */
    uint64_t turn;       /* scheduler turns run */
    uint64_t work_us;    /* the time of the work in hand (a line's stamp, a
                            deadline): nothing it causes is due before it */
    queue_t doomed;      /* conn_t.doom_node: to close at the next turn (see conn_doom) */
    queue_t flushing;    /* conn_t.flush_node: output to flush, oldest first */
    peer_count_t *peers; /* connections per client address */

    queue_t sessions; /* session_t.node, newest first */
    session_t *by_token, *by_name;
    uint64_t next_session_id;
    queue_t rooms; /* room_t.node, newest first */
    room_t *by_room_id;
    queue_t graveyard; /* room_t.node: destroyed rooms, freed at the end of the turn */
    int nrooms;
    uint64_t rooms_created;
    rng_t rng;                      /* bot seeds and delays (seeded from the OS) */
    store_t *store;                 /* the database, or NULL with --db none (store.h) */
    struct cluster *cluster;        /* --redis (cluster.h), or NULL */
    const char *node_id;            /* this node's id in the cluster (cluster.c), or NULL alone */
    durable_t durable;              /* the one durability sink: the store, then the cluster */
    queue_t relinking;              /* relay.c's clients whose links broke: open them again */
    const conn_hooks_t *conn_hooks; /* what the connections hand up (conn.h), set by main */
};

/* The server clock: µs and ms since start (monotonic). Room time is server
   time plus the room's clock_offset (room.c). */
uint64_t server_now_us(const server_t *srv);
static inline int64_t server_now_ms(const server_t *srv)
{
    return (int64_t)(server_now_us(srv) / 1000);
}
/* n random bytes from the OS (getrandom). Returns 0 or -1. */
int server_random(void *buf, size_t n);
/* A seed for a new game: from the OS, or derived from --seed. */
uint64_t server_game_seed(server_t *srv);
/* The wall clock in ms since the epoch (created/ended times in the store). */
int64_t server_wall_ms(void);

#endif
