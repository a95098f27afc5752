/*
 * options.h — the command line of tapisd: where to listen and every limit.
 */
#ifndef TAPIS_SERVER_OPTIONS_H
#define TAPIS_SERVER_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct server_opts {
    char host[64];             /* numeric IPv4 or IPv6 address */
    int port;                  /* 0: let the system choose (logged) */
    size_t max_line;           /* longest request line, bytes */
    int max_conns;             /* connections served at once */
    size_t out_cap;            /* pending output that drops a slow reader, bytes */
    uint64_t hello_timeout;    /* ms a connection may stay without hello; 0 = never */
    uint64_t reconnect_window; /* ms a dropped player's seats are held */
    uint64_t turn_timer;       /* ms a waited-on seat has to act; 0 = off */
    int64_t dispute_ms;        /* passed to games with a "dispute_ms" option */
    bool race_arrival;         /* --race arrival: rooms settle races by arrival by default */
    uint64_t race_cap;         /* ms: the most a race may credit a connection's round trip */
    uint64_t ping_interval;    /* ms between the server's pings of a connection; 0 = none */
    uint64_t bot_delay_min;    /* ms, a bot acts this long after it could... */
    uint64_t bot_delay_max;    /* ...at most this long */
    bool bot_delay_set;        /* --bot-delay given: it sets every bot level's pace */
    int bot_searches;          /* bots' searches on the thread pool at once; 0 = on the loop */
    uint64_t line_rate;        /* lines per second per connection (burst twice that); 0 = off */
    uint64_t error_rate;       /* error replies per second per connection, then close; 0 = off */
    uint64_t chat_rate;        /* chat lines per session per 10 s; 0 = off */
    size_t max_chat;           /* longest chat text, bytes */
    uint64_t create_rate;      /* rooms a session may create per minute; 0 = off */
    uint64_t login_rate;       /* logins per minute per account name and per address; 0 = off */
    bool pwhash_min;           /* --pwhash min: Argon2id at its least cost (tests only) */
    int max_rooms;             /* rooms at once */
    uint64_t waiting_timeout;  /* ms a waiting room may stay with no connected person */
    uint64_t idle_timeout;     /* ms a connection may stay silent after hello; 0 = never */
    int max_conns_per_ip;      /* connections from one address; 0 = no limit */
    uint64_t conn_rate;        /* new connections per second per address (burst 2N); 0 = off */
    char db_path[1024];        /* the SQLite database; "" with --db none */
    bool fsync_always;         /* --fsync always: synchronous=FULL (else NORMAL) */
    int log_level;
    bool log_json; /* --log-format json */
    bool metrics;  /* --metrics HOST:PORT given (port 0: any, logged) */
    char metrics_host[64];
    int metrics_port;
    char admin_token_file[1024]; /* "" = no operator commands */
    char config_path[1024];      /* --config FILE, re-read on SIGHUP; "" = none */
    char redis_host[256];        /* --redis HOST:PORT: join a cluster; "" = alone */
    int redis_port;
    char advertise[300];     /* HOST:PORT other nodes reach this node's game port at */
    char node_id[33];        /* the node's name in the cluster ("" = the advertised address) */
    uint64_t node_ttl;       /* ms: a node silent this long is dead; its rooms move */
    char web_root[1024];     /* --web-root DIR: the page's files; "" with --web-root none */
    char allow_origin[1024]; /* --allow-origin: more origins a WebSocket may come from, "a,b" */
    char trusted_proxy[512]; /* --trusted-proxy: addresses that name their clients, "a,b" */
    const char *export_game; /* --export-game ID: print that finished game's record, exit */
    bool seeded;             /* --seed given: deterministic game seeds (tests) */
    uint64_t seed;
    int kernel_stamps; /* --kernel-stamps: seated players' reads stamped by the kernel */
    int deal_version;  /* --deal-version: 1, provable deals; 0, --seed's games of old */
} server_opts_t;

/*
 * Fill o from the --config file (if argv names one), then from argv: the
 * command line wins. The file holds one option a line, its long name without
 * the dashes and its value ("line-rate 500"; "#" starts a comment). Returns 0 to run, 1 when --help
 * or --version was handled (exit 0), -1 after printing an error (exit 2).
 */
int options_parse(server_opts_t *o, int argc, char **argv);

/*
 * SIGHUP: take from `next` (options_parse() of the same argv, so the config
 * file read again) what can change while running -- limits, timeouts, log
 * level and format, the admin token file -- and log each change. What needs
 * a restart (addresses, the database) is kept, with a warning if it changed.
 */
void options_reload(server_opts_t *cur, const server_opts_t *next);

/* A node id: 1-32 of A-Z a-z 0-9 . _ - */
bool node_id_ok(const char *id);

/* Parse a duration: a number with an optional unit "ms", "s" or "m"; a bare
 * number is in `unit_ms` milliseconds. Returns -1 when malformed. */
int options_parse_duration(const char *s, uint64_t unit_ms, uint64_t *out);

#endif
