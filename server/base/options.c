/*
 * options.c — tapisd's command line, its --config file and SIGHUP's reload,
 * all read from one table (OPTIONS below). A row is one option: its name,
 * the form and range of its value, where the value goes, its default, what
 * a reload does with it, and its help. The defaults are parsed from the
 * rows' text by the parser of the command line, and --help prints that same
 * text, so what --help says is what tapisd does; a new option is one row.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/base/log.h"
#include "server/base/options.h"

#ifndef TAPIS_VERSION
#define TAPIS_VERSION "unknown"
#endif

/* ------------------------------------------------------------------------ */
/* The table                                                                */
/* ------------------------------------------------------------------------ */

typedef enum {
    V_NUM,     /* an integer in [min, max] */
    V_TIME,    /* a duration in [min, max] ms; a bare number counts `unit` ms */
    V_TEXT,    /* a non-empty text that fits its field */
    V_CHOICE,  /* one of the two words of `words`: the field (bool) is true for the second */
    V_OTHER,   /* its own parser, `parse` */
    V_HELP,    /* --help */
    V_VERSION, /* --version */
} value_kind_t;

typedef enum {
    RELOAD_LIVE,    /* SIGHUP applies the new value */
    RELOAD_RESTART, /* SIGHUP keeps the running value and warns if the new one differs */
    RELOAD_KEEP,    /* SIGHUP keeps the running value, silently */
} reload_t;

/* Where a value lives in server_opts_t; a row has up to three. */
typedef struct field {
    size_t off, size;
} field_t;

#define FIELD(name)                                                                                \
    {                                                                                              \
        offsetof(server_opts_t, name), sizeof(((server_opts_t *)0)->name)                          \
    }

typedef struct opt_spec {
    const char *name; /* the long name, without the dashes */
    const char *arg;  /* the value's name in --help ("N", "TIME"); NULL: no value */
    value_kind_t kind;
    field_t f[3];      /* f[0] takes a V_NUM, V_TIME, V_TEXT or V_CHOICE value */
    uint64_t min, max; /* V_NUM, V_TIME (ms) */
    uint64_t unit;     /* V_TIME: the ms of a bare number */
    const char *words; /* V_CHOICE: "no|yes" */
    int (*parse)(server_opts_t *o, const char *value); /* V_OTHER: 0 or -1 */
    const char *def; /* the default, as one would give it; NULL: none */
    reload_t reload;
    bool no_config;    /* a --config file may not set it */
    const char *group; /* printed on a line of its own before the row, after a blank line */
    const char *help;  /* "%D" stands for "default " and def */
} opt_spec_t;

static int parse_listen(server_opts_t *o, const char *v);
static int parse_bot_delay(server_opts_t *o, const char *v);
static int parse_race(server_opts_t *o, const char *v);
static int parse_db(server_opts_t *o, const char *v);
static int parse_log_level(server_opts_t *o, const char *v);
static int parse_metrics(server_opts_t *o, const char *v);
static int parse_config(server_opts_t *o, const char *v);
static int parse_seed(server_opts_t *o, const char *v);
static int parse_export_game(server_opts_t *o, const char *v);
static int parse_redis(server_opts_t *o, const char *v);
static int parse_advertise(server_opts_t *o, const char *v);
static int parse_node_id(server_opts_t *o, const char *v);
static int parse_web_root(server_opts_t *o, const char *v);
static int parse_allow_origin(server_opts_t *o, const char *v);
static int parse_trusted_proxy(server_opts_t *o, const char *v);

#define NUM(lo, hi) .kind = V_NUM, .min = (lo), .max = (hi)
#define TIME(u, lo, hi) .kind = V_TIME, .unit = (u), .min = (lo), .max = (hi)
#define OTHER(fn) .kind = V_OTHER, .parse = (fn)
#define FOREVER UINT64_MAX

#ifndef TAPIS_WEB_ROOT
#define TAPIS_WEB_ROOT "/usr/local/share/tapis/web"
#endif

static const opt_spec_t OPTIONS[] = {
    {"listen", "HOST:PORT", OTHER(parse_listen), .f = {FIELD(host), FIELD(port)},
     .def = "127.0.0.1:7233", .reload = RELOAD_RESTART,
     .help = "address to listen on (%D; IPv6 as [::1]:7233; port 0 picks a free port, logged as "
             "\"listening on HOST:PORT\")"},
    {"max-line", "BYTES", NUM(16, 1 << 24), .f = {FIELD(max_line)}, .def = "8192",
     .help = "longest request line (%D)"},
    {"max-conns", "N", NUM(1, 1000000), .f = {FIELD(max_conns)}, .def = "10000",
     .help = "connections at once (%D)"},
    {"out-cap", "BYTES", NUM(1024, 1ULL << 32), .f = {FIELD(out_cap)}, .def = "1048576",
     .help = "pending output that drops a slow reader (%D)"},
    {"hello-timeout", "TIME", TIME(1000, 0, FOREVER), .f = {FIELD(hello_timeout)}, .def = "60s",
     .help = "close connections that send no hello (%D; 0 = never)"},
    {"reconnect-window", "TIME", TIME(1000, 0, FOREVER), .f = {FIELD(reconnect_window)},
     .def = "120s",
     .help = "seats of a dropped player are held this long, then a built-in bot takes them "
             "(%D)"},
    {"turn-timer", "TIME", TIME(1000, 0, FOREVER), .f = {FIELD(turn_timer)}, .def = "60s",
     .help = "a waited-on seat that does not act in time gets its default action (%D; 0 = off)"},
    {"dispute-window", "MS", TIME(1, 0, 60000), .f = {FIELD(dispute_ms)}, .def = "200",
     .help = "window of a race dispute, for games with a \"dispute_ms\" option (%D)"},
    {"race", "RULE", OTHER(parse_race), .def = "reaction",
     .help = "how rooms settle races unless their creator chooses (race=): reaction (by "
             "reaction time, each round trip credited up to --race-cap) or arrival (%D)"},
    {"race-cap", "MS", TIME(1, 0, 1000), .f = {FIELD(race_cap)}, .def = "200",
     .help = "the most round trip a race credits a connection, and so the longest a race "
             "waits for a far player (%D)"},
    {"ping-interval", "MS", TIME(1, 0, 600000), .f = {FIELD(ping_interval)}, .def = "2000",
     .help = "the server pings each connection this often to measure its round trip (%D; 0 = "
             "never: every race is settled by arrival)"},
    {"kernel-stamps", "0|1", NUM(0, 1), .f = {FIELD(kernel_stamps)}, .def = "1",
     .help = "stamp what a player in a room sends with the time the kernel received it "
             "(SO_TIMESTAMPNS), not the time the loop read it (%D; 0 = the read's time)"},
    {"bot-delay", "MS[-MS]", OTHER(parse_bot_delay), .def = "50-300",
     .help = "built-in bots act after a delay drawn in this range: the pace of the greedy and "
             "random levels (%D); given, it sets every level's pace"},
    {"bot-searches", "N", NUM(0, 1024), .f = {FIELD(bot_searches)}, .def = "3",
     .help = "bots' searches (level hard) run on libuv's thread pool, off the event loop, at "
             "most N at once (%D) and one thread less than the pool (UV_THREADPOOL_SIZE; unset, "
             "N+1 and at least 4); the others wait their turn; 0 = they run on the event loop"},

    {"line-rate", "N", NUM(0, 1000000), .f = {FIELD(line_rate)}, .def = "1000",
     .group = "Budgets (each refused request is answered with its error code):",
     .help = "lines per second per connection, bursts of 2N (%D; 0 = off); then rate_limited"},
    {"error-rate", "N", NUM(0, 1000000), .f = {FIELD(error_rate)}, .def = "20",
     .help = "error replies per second per connection, bursts of 2N (%D; 0 = off); then "
             "too_many_errors and the connection is closed"},
    {"chat-rate", "N", NUM(0, 10000), .f = {FIELD(chat_rate)}, .def = "5",
     .help = "chat lines per session per 10 s (%D; 0 = off)"},
    {"max-chat", "BYTES", NUM(1, 1000), .f = {FIELD(max_chat)}, .def = "500",
     .help = "longest chat text (%D; at most 1000)"},
    {"create-rate", "N", NUM(0, 100000), .f = {FIELD(create_rate)}, .def = "60",
     .help = "rooms a session may create per minute (%D; 0 = off)"},
    {"login-rate", "N", NUM(0, 100000), .f = {FIELD(login_rate)}, .def = "10",
     .help = "register and login attempts (password or key) per minute per account name and "
             "per address, bursts of N (%D; 0 = off)"},
    {"max-rooms", "N", NUM(1, 1000000), .f = {FIELD(max_rooms)}, .def = "10000",
     .help = "rooms at once (%D); then server_full"},
    {"waiting-timeout", "TIME", TIME(1000, 1, FOREVER), .f = {FIELD(waiting_timeout)}, .def = "10m",
     .help = "close a waiting room with no connected person after this long (%D)"},
    {"idle-timeout", "TIME", TIME(1000, 0, FOREVER), .f = {FIELD(idle_timeout)}, .def = "10m",
     .help = "close a connection silent this long after hello (%D; 0 = never)"},
    {"max-conns-per-ip", "N", NUM(0, 1000000), .f = {FIELD(max_conns_per_ip)}, .def = "64",
     .help = "connections from one address (%D; 0 = off)"},
    {"conn-rate", "N", NUM(0, 1000000), .f = {FIELD(conn_rate)}, .def = "20",
     .help = "new connections per second from one address, bursts of 2N (%D; 0 = off)"},

    {"db", "PATH", OTHER(parse_db), .f = {FIELD(db_path)}, .def = "tapis.db",
     .reload = RELOAD_RESTART, .group = "Durable tables (docs/STORE.md):",
     .help = "the SQLite database that keeps sessions, tables and each table's journal, so a "
             "restart (or a crash) resumes every unfinished table (%D in the working "
             "directory); --db none keeps everything in memory only"},
    {"fsync", "batch|always", .kind = V_CHOICE, .words = "batch|always", .f = {FIELD(fsync_always)},
     .def = "batch", .reload = RELOAD_RESTART,
     .help = "batch: WAL with synchronous=NORMAL, durable across a crash of tapisd (default); "
             "always: synchronous=FULL, durable across a power cut too, slower"},
    {"pwhash", "interactive|min", .kind = V_CHOICE, .words = "interactive|min",
     .f = {FIELD(pwhash_min)}, .def = "interactive", .reload = RELOAD_RESTART,
     .help = "the cost of the accounts' password hashes (Argon2id): libsodium's interactive "
             "limits (%D), or min for tests only (a stored hash keeps its own cost)"},
    {"export-game", "ID", OTHER(parse_export_game), .f = {FIELD(export_game)},
     .reload = RELOAD_KEEP, .no_config = true,
     .help = "print the record of finished game ID (options, seed, seats, journal, result) as "
             "JSON on stdout and exit, without listening; exits 1 if the game is unknown, "
             "unfinished, or its journal does not replay to its stored result"},

    {"config", "FILE", OTHER(parse_config), .f = {FIELD(config_path)}, .reload = RELOAD_KEEP,
     .no_config = true, .group = "Operating (tapisd(8), docs/OPERATING.md):",
     .help = "options from FILE, one a line without the dashes (\"line-rate 500\"); the "
             "command line wins; read again on SIGHUP (default none)"},
    {"metrics", "HOST:PORT", OTHER(parse_metrics),
     .f = {FIELD(metrics), FIELD(metrics_host), FIELD(metrics_port)}, .reload = RELOAD_RESTART,
     .help = "serve Prometheus metrics at GET /metrics on this address (default off)"},
    {"admin-token-file", "PATH", .kind = V_TEXT, .f = {FIELD(admin_token_file)},
     .help = "a session that says `admin TOKEN` with the token on this file's first line may "
             "announce, drain, close, kick and stats (default none: no operator)"},
    {"log-format", "text|json", .kind = V_CHOICE, .words = "text|json", .f = {FIELD(log_json)},
     .def = "text", .help = "log lines as text, or one JSON object each (%D)"},
    {"log-level", "LEVEL", OTHER(parse_log_level), .f = {FIELD(log_level)}, .def = "info",
     .help = "debug, info, warn or error (%D)"},

    {"redis", "HOST:PORT", OTHER(parse_redis), .f = {FIELD(redis_host), FIELD(redis_port)},
     .reload = RELOAD_RESTART, .group = "A cluster (docs/CLUSTER.md):",
     .help = "join the nodes that share this Redis as one server: one lobby, sessions on every "
             "node, tables that survive a node (default off: a server alone)"},
    {"advertise", "HOST:PORT", OTHER(parse_advertise), .f = {FIELD(advertise)},
     .reload = RELOAD_RESTART,
     .help = "where the other nodes reach this node's game port (default the --listen "
             "address; set it when listening on 0.0.0.0 or ::)"},
    {"node-id", "ID", OTHER(parse_node_id), .f = {FIELD(node_id)}, .reload = RELOAD_RESTART,
     .help = "this node's name, 1-32 of A-Z a-z 0-9 . _ - (default the advertised address)"},
    {"node-ttl", "TIME", TIME(1000, 300, 600000), .f = {FIELD(node_ttl)}, .def = "3s",
     .reload = RELOAD_RESTART,
     .help = "a node not heard from this long is dead and its tables move to the others (%D)"},

    {"web-root", "DIR", OTHER(parse_web_root), .f = {FIELD(web_root)}, .def = TAPIS_WEB_ROOT,
     .group = "The web page and WebSockets, on the game port (docs/OPERATING.md):",
     .help = "the files served to a browser at GET / (default the share/tapis/web folder of "
             "the installation, where meson installs web/); --web-root none serves no page "
             "(WebSockets still work)"},
    {"allow-origin", "ORIGIN", OTHER(parse_allow_origin), .f = {FIELD(allow_origin)},
     .help = "a WebSocket may also come from a page of ORIGIN (scheme://host[:port], or * for "
             "any); repeat it or give a comma list (default none: only the server's own pages "
             "and clients that send no Origin)"},
    {"trusted-proxy", "ADDR", OTHER(parse_trusted_proxy), .f = {FIELD(trusted_proxy)},
     .reload = RELOAD_RESTART,
     .help = "a numeric address (a reverse proxy) whose connections name their client, in "
             "X-Forwarded-For (its last address) or a PROXY protocol v1 line: the per-address "
             "limits count that client; repeat it or give a comma list (default none)"},

    {"seed", "N", OTHER(parse_seed), .f = {FIELD(seeded), FIELD(seed)}, .reload = RELOAD_KEEP,
     .group = "", .help = "deterministic game seeds (tests and replays)"},
    {"deal-version", "N", NUM(0, 1), .f = {FIELD(deal_version)}, .def = "1", .reload = RELOAD_KEEP,
     .group = "",
     .help = "the deal of new tables (%D): 1, provable deals (docs/FAIRNESS.md); 0, the "
             "generator of old, which no player can check (replays of old --seed games)"},
    {"help", NULL, .kind = V_HELP, .help = "print this help and exit"},
    {"version", NULL, .kind = V_VERSION, .help = "print the version and exit"},
};

#define N_OPTIONS (sizeof OPTIONS / sizeof OPTIONS[0])
#define OPT_BASE 256 /* getopt_long's value of row i is OPT_BASE + i */

/* ------------------------------------------------------------------------ */
/* Value parsers                                                            */
/* ------------------------------------------------------------------------ */

/* HOST:PORT where HOST may be a name ([v6] in brackets). Returns 0 or -1. */
static int parse_host_port(const char *s, char *host, size_t hostlen, int *port)
{
    const char *colon = strrchr(s, ':');
    if (!colon || colon == s || (size_t)(colon - s) >= hostlen) return -1;
    char *end;
    errno = 0;
    long p = strtol(colon + 1, &end, 10);
    if (errno || *end || end == colon + 1 || p < 0 || p > 65535) return -1;
    const char *h = s;
    size_t n = (size_t)(colon - s);
    if (h[0] == '[') {
        if (n < 3 || h[n - 1] != ']') return -1;
        h++;
        n -= 2;
    }
    for (size_t i = 0; i < n; i++)
        if (h[i] <= ' ' || h[i] == '/' || h[i] > '~') return -1;
    memcpy(host, h, n);
    host[n] = 0;
    *port = (int)p;
    return 0;
}

bool node_id_ok(const char *id)
{
    size_t n = strlen(id);
    if (n < 1 || n > 32) return false;
    for (size_t i = 0; i < n; i++) {
        char c = id[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return false;
    }
    return true;
}

static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9') return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > max) return -1;
    *out = v;
    return 0;
}

int options_parse_duration(const char *s, uint64_t unit_ms, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9') return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || v > 1000000000ULL) return -1;
    uint64_t mul = unit_ms;
    if (strcmp(end, "ms") == 0)
        mul = 1;
    else if (strcmp(end, "s") == 0)
        mul = 1000;
    else if (strcmp(end, "m") == 0)
        mul = 60000;
    else if (*end)
        return -1;
    *out = v * mul;
    return 0;
}

/* "HOST:PORT", "[V6]:PORT", or ":PORT"/"PORT" for the host already in out_host. */
static int parse_address(const char *s, char out_host[64], int *out_port)
{
    const char *colon;
    char host[64] = "";
    if (s[0] == '[') {
        const char *close = strchr(s, ']');
        if (!close || close[1] != ':' || (size_t)(close - s - 1) >= sizeof host) return -1;
        memcpy(host, s + 1, (size_t)(close - s - 1));
        host[close - s - 1] = 0;
        colon = close + 1;
    } else {
        colon = strrchr(s, ':');
        if (!colon) {
            colon = s - 1; /* just a port */
        } else {
            if ((size_t)(colon - s) >= sizeof host) return -1;
            memcpy(host, s, (size_t)(colon - s));
            host[colon - s] = 0;
            if (strchr(host, ':')) return -1; /* IPv6 needs brackets */
        }
    }
    uint64_t port;
    if (parse_u64(colon + 1, 65535, &port) < 0) return -1;
    if (host[0]) {
        memset(out_host, 0, 64);
        memcpy(out_host, host, strlen(host));
    }
    *out_port = (int)port;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Values                                                                   */
/* ------------------------------------------------------------------------ */

/* Copy s into a text field, zero-filled, so that a reload can compare fields
 * byte for byte. Returns -1 when s is empty or does not fit. */
static int set_text(char *field, size_t size, const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= size) return -1;
    memset(field, 0, size);
    memcpy(field, s, n);
    return 0;
}

/* A number into an int (4 bytes) or a uint64_t, int64_t or size_t (8) field. */
static void store_num(char *field, size_t size, uint64_t v)
{
    if (size == sizeof(int)) {
        int i = (int)v;
        memcpy(field, &i, sizeof i);
    } else {
        memcpy(field, &v, sizeof v);
    }
}

#define AT(o, field) ((char *)(o) + (field).off)

/* Parse v as row s's value into o. Returns 0, or -1 (o may be half-changed). */
static int set_value(server_opts_t *o, const opt_spec_t *s, const char *v)
{
    uint64_t n;
    switch (s->kind) {
    case V_NUM:
        if (parse_u64(v, s->max, &n) < 0 || n < s->min) return -1;
        store_num(AT(o, s->f[0]), s->f[0].size, n);
        return 0;
    case V_TIME:
        if (options_parse_duration(v, s->unit, &n) < 0 || n < s->min || n > s->max) return -1;
        store_num(AT(o, s->f[0]), s->f[0].size, n);
        return 0;
    case V_TEXT: return set_text(AT(o, s->f[0]), s->f[0].size, v);
    case V_CHOICE: {
        const char *bar = strchr(s->words, '|');
        size_t first = (size_t)(bar - s->words);
        bool second = strcmp(v, bar + 1) == 0;
        if (!second && (strlen(v) != first || memcmp(v, s->words, first) != 0)) return -1;
        memcpy(AT(o, s->f[0]), &second, sizeof second);
        return 0;
    }
    case V_OTHER: return s->parse(o, v);
    case V_HELP:
    case V_VERSION: break;
    }
    return -1;
}

static int parse_listen(server_opts_t *o, const char *v)
{
    return parse_address(v, o->host, &o->port);
}

static int parse_race(server_opts_t *o, const char *v)
{
    if (strcmp(v, "reaction") != 0 && strcmp(v, "arrival") != 0) return -1;
    o->race_arrival = strcmp(v, "arrival") == 0;
    return 0;
}

static int parse_bot_delay(server_opts_t *o, const char *v)
{
    char lo[32];
    const char *dash = strchr(v, '-');
    size_t n = dash ? (size_t)(dash - v) : strlen(v);
    if (n >= sizeof lo) return -1;
    memcpy(lo, v, n);
    lo[n] = 0;
    if (options_parse_duration(lo, 1, &o->bot_delay_min) < 0) return -1;
    o->bot_delay_set = true;
    o->bot_delay_max = o->bot_delay_min;
    if (dash && (options_parse_duration(dash + 1, 1, &o->bot_delay_max) < 0 ||
                 o->bot_delay_max < o->bot_delay_min))
        return -1;
    return 0;
}

static int parse_db(server_opts_t *o, const char *v)
{
    if (set_text(o->db_path, sizeof o->db_path, v) < 0) return -1;
    if (strcmp(v, "none") == 0) memset(o->db_path, 0, sizeof o->db_path);
    return 0;
}

static int parse_log_level(server_opts_t *o, const char *v)
{
    return (o->log_level = log_parse_level(v)) < 0 ? -1 : 0;
}

static int parse_metrics(server_opts_t *o, const char *v)
{
    set_text(o->metrics_host, sizeof o->metrics_host, "127.0.0.1");
    if (parse_address(v, o->metrics_host, &o->metrics_port) < 0) return -1;
    o->metrics = true;
    return 0;
}

/* --config was read before the rest of the command line (options_parse). */
static int parse_config(server_opts_t *o, const char *v)
{
    (void)o;
    (void)v;
    return 0;
}

static int parse_seed(server_opts_t *o, const char *v)
{
    if (parse_u64(v, UINT64_MAX, &o->seed) < 0) return -1;
    o->seeded = true;
    return 0;
}

/* The value stays in argv, which outlives the options. */
static int parse_export_game(server_opts_t *o, const char *v)
{
    if (!v[0] || strlen(v) > 64) return -1;
    o->export_game = v;
    return 0;
}

static int parse_redis(server_opts_t *o, const char *v)
{
    memset(o->redis_host, 0, sizeof o->redis_host);
    return parse_host_port(v, o->redis_host, sizeof o->redis_host, &o->redis_port);
}

static int parse_advertise(server_opts_t *o, const char *v)
{
    char host[256];
    int port;
    if (parse_host_port(v, host, sizeof host, &port) < 0 || port == 0) return -1;
    return set_text(o->advertise, sizeof o->advertise, v);
}

static int parse_node_id(server_opts_t *o, const char *v)
{
    return node_id_ok(v) ? set_text(o->node_id, sizeof o->node_id, v) : -1;
}

static int parse_web_root(server_opts_t *o, const char *v)
{
    if (set_text(o->web_root, sizeof o->web_root, v) < 0) return -1;
    if (strcmp(v, "none") == 0) memset(o->web_root, 0, sizeof o->web_root);
    return 0;
}

/* Append the comma list v to the comma list in field (each item checked by ok). */
static int append_list(char *field, size_t size, const char *v, bool (*ok)(const char *, size_t))
{
    for (const char *p = v; *p;) {
        size_t n = strcspn(p, ",");
        if (n == 0 || !ok(p, n)) return -1;
        size_t have = strlen(field);
        if (have + (have > 0) + n >= size) return -1;
        if (have) field[have++] = ',';
        memcpy(field + have, p, n);
        field[have + n] = 0;
        p += n;
        if (*p == ',' && !*++p) return -1; /* a trailing comma: an empty item */
    }
    return 0;
}

/* "*", or scheme://host[:port] with no path: what a browser sends as Origin. */
static bool origin_ok(const char *s, size_t n)
{
    if (n == 1 && s[0] == '*') return true;
    size_t k = n >= 7 && strncmp(s, "http://", 7) == 0    ? 7
               : n >= 8 && strncmp(s, "https://", 8) == 0 ? 8
                                                          : 0;
    if (!k || k == n) return false;
    for (size_t i = k; i < n; i++)
        if (s[i] <= ' ' || s[i] > '~' || s[i] == '/' || s[i] == ',') return false;
    return true;
}

/* A numeric IPv4 or IPv6 address. */
static bool address_ok(const char *s, size_t n)
{
    char a[64];
    unsigned char bin[16];
    if (n >= sizeof a) return false;
    memcpy(a, s, n);
    a[n] = 0;
    return inet_pton(AF_INET, a, bin) == 1 || inet_pton(AF_INET6, a, bin) == 1;
}

static int parse_trusted_proxy(server_opts_t *o, const char *v)
{
    return append_list(o->trusted_proxy, sizeof o->trusted_proxy, v, address_ok);
}

static int parse_allow_origin(server_opts_t *o, const char *v)
{
    return append_list(o->allow_origin, sizeof o->allow_origin, v, origin_ok);
}

/* ------------------------------------------------------------------------ */
/* Defaults and help                                                        */
/* ------------------------------------------------------------------------ */

static void defaults(server_opts_t *o)
{
    memset(o, 0, sizeof *o);
    for (size_t i = 0; i < N_OPTIONS; i++) {
        if (!OPTIONS[i].def) continue;
        if (set_value(o, &OPTIONS[i], OPTIONS[i].def) != 0) {
            /* A row whose default does not parse: a bug of the table, found
             * by the first run of any test (tests/server/test_options.c). */
            fprintf(stderr, "tapisd: the default of --%s does not parse\n", OPTIONS[i].name);
            abort();
        }
    }
    o->bot_delay_set = false; /* only a --bot-delay given sets every level's pace */
}

#define NBSP "\x01"   /* a space --help does not break a line at */
#define HELP_COL 26   /* where the help text of an option starts */
#define HELP_WIDTH 78 /* and how far its lines go */

/* Row s's help, "%D" expanded, into buf (cut at its size). */
static void help_text(const opt_spec_t *s, char *buf, size_t size)
{
    size_t n = 0;
    for (const char *p = s->help; *p && n + 1 < size; p++) {
        if (p[0] == '%' && p[1] == 'D') {
            /* "default" and its value stay on one line (NBSP, printed as a space) */
            n += (size_t)snprintf(buf + n, size - n, "default" NBSP "%s", s->def ? s->def : "none");
            if (n >= size) n = size - 1;
            p++;
        } else if (strncmp(p, " = ", 3) == 0 && n + 3 < size) { /* "0 = off" stays whole */
            memcpy(buf + n, NBSP "=" NBSP, 3);
            n += 3;
            p += 2;
        } else {
            buf[n++] = *p;
        }
    }
    buf[n] = 0;
}

/* "  --name ARG" then the text, its words wrapped at HELP_WIDTH under HELP_COL. */
static void print_row(FILE *f, const opt_spec_t *s)
{
    char text[1024];
    help_text(s, text, sizeof text);
    int col = fprintf(f, "  --%s%s%s", s->name, s->arg ? " " : "", s->arg ? s->arg : "");
    bool fresh = true; /* nothing written after the column yet on this line */
    for (char *w = strtok(text, " "); w; w = strtok(NULL, " ")) {
        int len = (int)strlen(w);
        if (!fresh && col + 1 + len > HELP_WIDTH) {
            fputc('\n', f);
            col = 0;
            fresh = true;
        }
        if (fresh) {
            int pad = col < HELP_COL ? HELP_COL - col : 1;
            col += fprintf(f, "%*s", pad, "");
        } else {
            col += fprintf(f, " ");
        }
        for (char *p = w; *p; p++)
            fputc(*p == NBSP[0] ? ' ' : *p, f);
        col += len;
        fresh = false;
    }
    fputc('\n', f);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: tapisd [options]\n\n"
               "Hosts card tables over a JSON-lines protocol (see protocol/PROTOCOL.md).\n\n");
    for (size_t i = 0; i < N_OPTIONS; i++) {
        if (OPTIONS[i].group)
            fprintf(f, "\n%s%s", OPTIONS[i].group, OPTIONS[i].group[0] ? "\n" : "");
        print_row(f, &OPTIONS[i]);
    }
    fprintf(f, "\n"
               "TIME is a number with an optional unit: 500ms, 30s, 2m (bare: seconds).\n"
               "SIGHUP reloads the limits, timeouts, log options and admin token from the\n"
               "command line and --config FILE; SIGTERM stops cleanly.\n");
}

/* ------------------------------------------------------------------------ */
/* The command line                                                         */
/* ------------------------------------------------------------------------ */

/* getopt_long's table, made from OPTIONS once. */
static const struct option *longopts(void)
{
    static struct option l[N_OPTIONS + 1];
    if (!l[0].name)
        for (size_t i = 0; i < N_OPTIONS; i++)
            l[i] =
                (struct option){OPTIONS[i].name, OPTIONS[i].arg ? required_argument : no_argument,
                                NULL, OPT_BASE + (int)i};
    return l;
}

static int bad(const char *opt, const char *value)
{
    fprintf(stderr, "tapisd: bad value for --%s: '%s' (see tapisd --help)\n", opt, value);
    return -1;
}

/* Parse argv over what o holds already. Returns as options_parse(). */
static int parse_args(server_opts_t *o, int argc, char **argv)
{
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts(), NULL)) != -1) {
        if (c < OPT_BASE || c >= OPT_BASE + (int)N_OPTIONS) {
            if (optopt >= OPT_BASE && optopt < OPT_BASE + (int)N_OPTIONS)
                fprintf(stderr, "tapisd: --%s needs a value\n", OPTIONS[optopt - OPT_BASE].name);
            else
                fprintf(stderr, "tapisd: unknown option '%s' (see tapisd --help)\n",
                        argv[optind - 1]);
            return -1;
        }
        const opt_spec_t *s = &OPTIONS[c - OPT_BASE];
        if (s->kind == V_HELP) {
            usage(stdout);
            return 1;
        }
        if (s->kind == V_VERSION) {
            printf("tapisd %s\n", TAPIS_VERSION);
            return 1;
        }
        if (set_value(o, s, optarg) < 0) return bad(s->name, optarg);
    }
    if (optind < argc) {
        fprintf(stderr, "tapisd: unexpected argument '%s' (see tapisd --help)\n", argv[optind]);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The config file and SIGHUP                                               */
/* ------------------------------------------------------------------------ */

#define CONFIG_MAX_LINES 256

/* The --config path named in argv, or NULL. */
static const char *config_named(int argc, char **argv)
{
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) break;
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
            path = argv[++i];
        else if (strncmp(argv[i], "--config=", 9) == 0)
            path = argv[i] + 9;
    }
    return path;
}

/* Apply the file's lines ("name value") as "--name value" arguments. */
static int read_config(server_opts_t *o, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "tapisd: --config %s: %s\n", path, strerror(errno));
        return -1;
    }
    static char names[CONFIG_MAX_LINES][40], values[CONFIG_MAX_LINES][1100];
    char *args[2 * CONFIG_MAX_LINES + 1] = {"tapisd"};
    char line[1100];
    int n = 0, lineno = 0;
    const char *why = NULL;
    while (!why && fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            why = "line too long";
            break;
        }
        line[strcspn(line, "#\r\n")] = 0;
        char *key = line + strspn(line, " \t");
        if (!*key) continue;
        char *end = key + strcspn(key, " \t=");
        char *value = end + strspn(end, " \t=");
        *end = 0;
        for (char *e = value + strlen(value); e > value && (e[-1] == ' ' || e[-1] == '\t');)
            *--e = 0;
        const opt_spec_t *opt = NULL;
        for (size_t i = 0; i < N_OPTIONS; i++)
            if (strcmp(OPTIONS[i].name, key) == 0) opt = &OPTIONS[i];
        if (!opt || !opt->arg || opt->no_config)
            why = "not an option a config file may set (see tapisd --help)";
        else if (!*value)
            why = "the option needs a value";
        else if (n == CONFIG_MAX_LINES)
            why = "too many options";
        if (why) break;
        snprintf(names[n], sizeof names[n], "--%s", key);
        snprintf(values[n], sizeof values[n], "%s", value);
        args[2 * n + 1] = names[n];
        args[2 * n + 2] = values[n];
        n++;
    }
    fclose(f);
    if (why) {
        fprintf(stderr, "tapisd: %s:%d: %s\n", path, lineno, why);
        return -1;
    }
    return parse_args(o, 2 * n + 1, args);
}

int options_parse(server_opts_t *o, int argc, char **argv)
{
    defaults(o);
    const char *config = config_named(argc, argv);
    if (config) {
        if (set_text(o->config_path, sizeof o->config_path, config) < 0)
            return bad("config", config);
        if (read_config(o, config) != 0) return -1;
    }
    return parse_args(o, argc, argv);
}

void options_reload(server_opts_t *cur, const server_opts_t *next)
{
    server_opts_t old = *cur;
    *cur = *next;
    /* What the running server cannot change: keep it, and say so if it was changed. */
    for (size_t i = 0; i < N_OPTIONS; i++) {
        const opt_spec_t *s = &OPTIONS[i];
        if (s->reload == RELOAD_LIVE) continue;
        bool changed = false;
        for (int k = 0; k < 3 && s->f[k].size; k++) {
            changed |= memcmp(AT(&old, s->f[k]), AT(next, s->f[k]), s->f[k].size) != 0;
            memcpy(AT(cur, s->f[k]), AT(&old, s->f[k]), s->f[k].size);
        }
        if (changed && s->reload == RELOAD_RESTART)
            log_warn("reload: --%s changed; it takes a restart", s->name);
    }
}
