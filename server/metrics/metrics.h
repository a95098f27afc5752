/*
 * metrics.h — what tapisd counts, and its two readings: the Prometheus text
 * exposition format (GET /metrics with --metrics HOST:PORT, http.c) and JSON
 * (the admin `stats` command). docs/METRICS.md lists every family.
 *
 * Counters and histograms live in srv->metrics and are bumped where things
 * happen (a few additions, no allocation); gauges (connections, sessions,
 * rooms by game and status, RSS, descriptors) are read when asked.
 */
#ifndef TAPIS_SERVER_METRICS_H
#define TAPIS_SERVER_METRICS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "protocol/buf.h"

typedef struct server server_t;

/* Upper bounds of the histograms' buckets, in seconds (+Inf is implied). */
#define METRICS_BUCKETS 14

typedef struct histogram {
    uint64_t le[METRICS_BUCKETS + 1]; /* per bucket, not cumulative; the last is +Inf */
    uint64_t count;
    double sum; /* seconds */
} histogram_t;

/* Why a connection ended: the `cause` label of tapis_connections_closed_total. */
typedef enum close_cause {
    CLOSE_EOF,             /* the client closed or half-closed */
    CLOSE_QUIT,            /* quit */
    CLOSE_ERROR,           /* a socket error */
    CLOSE_SLOW_READER,     /* --out-cap passed */
    CLOSE_TOO_MANY_ERRORS, /* the error budget */
    CLOSE_HELLO_TIMEOUT,
    CLOSE_IDLE_TIMEOUT,
    CLOSE_LINE_TOO_LONG,
    CLOSE_HTTP,       /* an HTTP request answered (a file, an error), not a WebSocket */
    CLOSE_REFUSED,    /* refused at accept: see tapis_connections_refused_total */
    CLOSE_TAKEN_OVER, /* its session said hello on another connection */
    CLOSE_KICKED,     /* admin kick */
    CLOSE_SHUTDOWN,
    CLOSE_NO_MEMORY,
    CLOSE__COUNT
} close_cause_t;

/* Why a connection was refused at accept (also counted as closed, "refused"). */
typedef enum refuse_reason {
    REFUSE_MAX_CONNS, /* --max-conns */
    REFUSE_PER_IP,    /* --max-conns-per-ip */
    REFUSE_CONN_RATE, /* --conn-rate */
    REFUSE__COUNT
} refuse_reason_t;

/* The budgets whose refusals tapis_rate_limited_total counts. */
typedef enum budget_kind {
    BUDGET_LINE,
    BUDGET_CHAT,
    BUDGET_CREATE,
    BUDGET_LOGIN,
    BUDGET__COUNT
} budget_kind_t;

/* The statuses of the game port's HTTP answers (tapis_http_responses_total). */
#define METRICS_HTTP_STATUSES 11

#define METRICS_GAMES 16    /* games counted apart (more share the last slot) */
#define METRICS_REFUSALS 64 /* (game, code) pairs counted apart; more go to code "other" */

/* What the server holds at an exposition (metrics_t.census fills it). */
typedef struct metrics_census {
    bool draining;
    int conns;
    int sessions_connected, sessions_held;
    int rooms[METRICS_GAMES][3]; /* by game index and status: waiting, playing, over */
} metrics_census_t;

typedef struct metrics {
    uint64_t accepted;
    uint64_t refused[REFUSE__COUNT];
    uint64_t closed[CLOSE__COUNT];
    uint64_t applied[METRICS_GAMES];
    struct metrics_refusal {
        int game;
        const char *code; /* a static string: the error code constants and games' codes */
        uint64_t n;
    } refusals[METRICS_REFUSALS];
    int nrefusals;
    uint64_t rate_limited[BUDGET__COUNT];
    uint64_t state_events, bytes_sent, bytes_received;
    histogram_t action_latency; /* a line read -> its state events queued */
    histogram_t loop_lag;       /* lateness of a periodic loop timer */
    histogram_t journal_commit; /* one SQLite commit */
    histogram_t rtt;            /* each connection's round-trip estimate, at each pong */
    histogram_t race_credit;    /* the round trip credited to a settled action (reaction) */
    uint64_t race_caught;       /* actions faster than their sender's round trip: quota taken */
    uint64_t turns_after_stall; /* turns that found the process off its core since its poll */
    int64_t relay_links;        /* links open to other nodes (relay.c) */
    uint64_t relayed;           /* requests sent over a link */
    uint64_t taken_over;        /* rooms of dead nodes rebuilt here */
    int64_t websockets;         /* WebSockets open now (ws.c counts them in, conn.c out) */
    uint64_t http[METRICS_HTTP_STATUSES]; /* the game port's HTTP answers, by status */
    int64_t start_wall_ms;
    /* Bots' decisions made on the thread pool (room/room_think.c): asked, of them
       dropped (their room changed or closed meanwhile), handed to the pool and
       not back yet, waiting for room under --bot-searches. */
    uint64_t bot_searches, bot_searches_dropped;
    int64_t bot_searches_running, bot_searches_waiting;
    /* Asked at each exposition: the live nodes (this one included) and whether
       Redis answers. main.c sets it to cluster_health(); NULL counts 0, down. */
    bool (*cluster_health)(const struct server *srv, int *nodes);
    /* Asked at each exposition too: what the server holds now (main.c's). */
    void (*census)(const struct server *srv, struct metrics_census *out);
} metrics_t;

void histogram_observe(histogram_t *h, double seconds);

/* The cause label of a close reason (the `why` of conn_close()). */
close_cause_t metrics_close_cause(const char *why);
/* The registry index of a game (for applied[] and refusals). */
int metrics_game_index(const char *game_id);
void metrics_refused(metrics_t *m, int game, const char *code);
/* An HTTP answer of the game port (web.c): 101, 200, 400, 403, 404, 405, 426,
   429, 431, 500 or 503 (any other counts as 500). */
void metrics_http(metrics_t *m, int status);

/* The whole exposition in Prometheus text format 0.0.4. Returns 0, -1 on no memory. */
int metrics_text(const metrics_t *m, const struct server *srv, buf_t *out);
/* The same numbers as one JSON object ({family: value or [{labels..., "value"}]}). */
json_t *metrics_json(const metrics_t *m, const struct server *srv);

#endif
