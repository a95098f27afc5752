/*
 * tapis_bot.h — tapis-bot's run: its options, its connections (one per seat
 * it plays) and its tallies. tapis-bot.c plays; tapis_bot_args.c reads the
 * command line into the options.
 */
#ifndef TAPIS_CLIENTS_TAPIS_BOT_H
#define TAPIS_CLIENTS_TAPIS_BOT_H

#include <stdbool.h>

#include "core/game.h"
#include "clients/net.h"

#define MAX_CONNS GAME_MAX_SEATS
#define MAX_PENDING 64

typedef struct bot bot_t;

typedef struct seat_conn {
    bot_t *bot; /* the run it belongs to */
    net_conn_t net;
    char name[40];
    int seat;                      /* this connection's seat in the current game, or -1 */
    json_t *view;                  /* the latest view of the current room */
    long long seq;                 /* its seq */
    long long acted;               /* seq of the view the last act was decided on */
    long long retry;               /* when to decide again after a refusal (ms), 0 = never */
    long long act_at;              /* with a reaction time: when to decide (ms), 0 = unset */
    int acts_pending;              /* act replies still due */
    bool over;                     /* game_over seen for the current room */
    json_t *reply;                 /* the last non-act reply (for the setup steps) */
    char pending[MAX_PENDING][16]; /* commands sent and not yet answered (FIFO) */
    int phead, pcount;
    char token[140];           /* from hello: to take the seats back after a restart */
    long long reconnect_until; /* ms: lost, and trying again until then (0: connected) */
} seat_conn_t;

typedef struct bot_opts {
    net_addrs_t addrs; /* the server, or a cluster's nodes: a lost connection tries the next */
    const char *game, *strategy, *bot_strategy, *name;
    char strategy_name[32]; /* --strategy without its reaction time */
    int players, bots, games;
    int react_ms; /* --strategy NAME:MS: wait this long after a view before deciding */
    unsigned long long seed;
    long long game_timeout_ms;
    long long reconnect_ms; /* a lost connection is opened again for this long; 0 = never */
    json_t *options;        /* create's options */
    bool verbose;
    const char *account, *key; /* --account, --key: log in (rated play) */
    bool seek;                 /* --seek GAME: matchmaking instead of create */
    bool verify;               /* --verify: a seed in each table, its deal checked at the end */
    bool players_given;
} bot_opts_t;

typedef struct stats {
    int games, wins, acts, refused, timeouts, errors;
    long long score_sum;
    int score_n;
    long long rounds;
    int reconnects;
    int verified;  /* --verify: games whose deal held */
    double rating; /* --account: the rating shown after the last rated game */
    bool rated;
} stats_t;

/* The whole run, passed around: the options, the connections, the table of the
   moment and the tallies. */
struct bot {
    bot_opts_t o;
    stats_t s;
    seat_conn_t c[MAX_CONNS];
    int nc; /* connections: one per seat this client plays */
    const game_desc_t *desc;
    rng_t rng; /* this client's random choices */
    char room[64];
};

/* Read the command line into b->o and b->desc; a bad one exits 2 after
   saying why (--help exits 0). */
void bot_parse_args(bot_t *b, int argc, char **argv);

#endif
