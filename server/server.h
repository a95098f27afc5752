/*
 * server.h — what every part of tapisd shares: the server. A connection is
 * net/conn.h's (struct conn), a session session/session.h's, a room
 * room/room.h's; each part's fields are with its part.
 *
 * Ownership in one paragraph: the server owns every connection, session and
 * room (three intrusive queues, queue.h). A connection points to at most one session;
 * a session points back to its live connection, if any. Rooms hold sessions
 * (seated or watching); a session keeps the list of rooms it is in. Nothing
 * else holds pointers across these objects, so closing a connection only
 * detaches its session, and destroying a session only leaves its rooms.
 *
 * Time: the server clock (srv->clock, server/base/clock.h) is uv_hrtime()
 * since start, or what a test set it to, kept in microseconds (stamps) and
 * handed to games in milliseconds (`now`).
 */
#ifndef TAPIS_SERVER_SERVER_H
#define TAPIS_SERVER_SERVER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "protocol/buf.h"
#include "protocol/framing.h"
#include "core/deal.h"
#include "core/game.h"
#include "server/base/budget.h"
#include "server/base/clock.h"
#include "server/base/heap.h"
#include "server/base/idmap.h"
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

/* ------------------------------------------------------------------------ */
/* Server                                                                   */
/* ------------------------------------------------------------------------ */

struct server {
    uv_loop_t *loop;
    server_opts_t opts;
    uv_tcp_t listener;
    uv_tcp_t refused;    /* accepts and closes a connection there was no memory for */
    bool refusing;       /* `refused` is closing */
    bool refuse_waiting; /* another one waits to be accepted (accept.c, refuse_connection) */
    uv_signal_t sigint, sigterm, sighup;
    uv_timer_t lag_timer;  /* measures the loop's lag (metrics) */
    uv_timer_t ping_timer; /* pings the silent connections that are due (rtt.c) */
    uint64_t lag_due_ns;
    struct http_server *http; /* --metrics, or NULL */
    uv_idle_t idle;           /* keeps the loop from blocking while work waits */
    uv_check_t check;         /* one scheduler turn after each poll (scheduler.c) */
    uv_prepare_t prepare;     /* flushes output made outside the turn; arms `wake` */
    uv_timer_t wake;          /* wakes the loop for the earliest room deadline */
    uint64_t wake_at;         /* µs the wake timer is armed for, or UINT64_MAX */
    uv_timer_t stop_timer;    /* shutdown: force-close connections still flushing */
    server_clock_t clock;     /* the server clock (clock.h): set by main, or by a test */
    bool stopping;
    bool draining;         /* admin drain: no new rooms; stop when the last game ends */
    char admin_token[128]; /* from --admin-token-file; "" = no admin */
    metrics_t metrics;

    queue_t conns; /* conn_t.node, newest first */
    int nconns;
    queue_t pinging;           /* conn_t.ping_node once pingable, by ping_check_us (rtt.c) */
    queue_t unpinged;          /* conn_t.ping_node before (no hello yet: ping_check_us 0) */
    uint64_t pinging_interval; /* the --ping-interval (µs) those times were set with */
    uint64_t next_conn_id;
    heap_t ready;        /* connections with a complete line, by its stamp */
    heap_t timers;       /* rooms with a deadline, by deadline */
    uint64_t turn;       /* scheduler turns run */
    uint64_t work_us;    /* the time of the work in hand (a line's stamp, a
                            deadline): nothing it causes is due before it */
    uint64_t done_us;    /* the latest work_us taken: no read is stamped before
                            it (conn.c, "Stamps") */
    queue_t doomed;      /* conn_t.doom_node: to close at the next turn (see conn_doom) */
    queue_t flushing;    /* conn_t.flush_node: output to flush, oldest first */
    buf_t out_turn;      /* the output of connections with none of their own waiting (conn.c) */
    peer_count_t *peers; /* connections per client address */

    queue_t sessions; /* session_t.node, newest first */
    session_t *by_token, *by_name;
    uint64_t next_session_id;
    queue_t rooms;       /* room_t.node, newest first */
    idmap_t rooms_by_id; /* room_t by id (room.c) */
    queue_t graveyard;   /* room_t.node: destroyed rooms, freed at the end of the turn */
    queue_t searches;    /* bots' searches waiting for room on the thread pool (room_think.c) */
    int pool_threads;    /* libuv's thread pool (UV_THREADPOOL_SIZE); 0: not known */
    int nrooms;
    uint64_t rooms_created;
    rng_t rng;                      /* bot seeds and delays (seeded from the OS) */
    store_t *store;                 /* the database, or NULL with --db none (store.h) */
    struct cluster *cluster;        /* --redis (cluster.h), or NULL */
    const char *node_id;            /* this node's id in the cluster (cluster.c), or NULL alone */
    durable_t durable;              /* the one durability sink: the store, then the cluster */
    struct accounts *accounts;      /* registered names and ratings (account/account.h) */
    struct seeks *seeks;            /* matchmaking's queue (lobby/seek.c), or NULL */
    queue_t relinking;              /* relay.c's clients whose links broke: open them again */
    const conn_hooks_t *conn_hooks; /* what the connections hand up (conn.h), set by main */
};

/* n random bytes from the OS (getrandom). Returns 0 or -1. */
int server_random(void *buf, size_t n);
/* The deal of new room `room` (core/deal.h): by --deal-version, a server seed
   of 32 bytes from the OS (libsodium's randombytes_buf) or a 64-bit seed;
   derived from --seed instead (tests, fixed games). */
void server_game_deal(server_t *srv, const char *room, game_deal_t *out);
/* The wall clock in ms since the epoch (created/ended times in the store). */
int64_t server_wall_ms(void);

/* The server's empty lists, on `loop`: what tapisd and a test's server start from. */
static inline void server_lists_init(server_t *srv, uv_loop_t *loop)
{
    srv->loop = loop;
    queue_init(&srv->conns);
    queue_init(&srv->pinging);
    queue_init(&srv->unpinged);
    queue_init(&srv->doomed);
    queue_init(&srv->flushing);
    queue_init(&srv->sessions);
    queue_init(&srv->rooms);
    queue_init(&srv->graveyard);
    queue_init(&srv->searches);
    queue_init(&srv->relinking);
}

#endif
