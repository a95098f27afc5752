/* options.c — tapisd's command line. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "options.h"

#ifndef TAPIS_VERSION
#define TAPIS_VERSION "unknown"
#endif

/* ------------------------------------------------------------------------ */
/* Defaults and help                                                        */
/* ------------------------------------------------------------------------ */

static void defaults(server_opts_t *o)
{
    memset(o, 0, sizeof *o);
    snprintf(o->host, sizeof o->host, "127.0.0.1");
    o->port = 7233;
    o->max_line = 8192;
    o->max_conns = 10000;
    o->out_cap = 1024 * 1024;
    o->hello_timeout = 60 * 1000;
    o->reconnect_window = 120 * 1000;
    o->turn_timer = 60 * 1000;
    o->dispute_ms = 200;
    o->bot_delay_min = 50;
    o->bot_delay_max = 300;
    o->line_rate = 1000;
    o->error_rate = 20;
    o->chat_rate = 5;
    o->max_chat = 500;
    o->create_rate = 60;
    o->max_rooms = 10000;
    o->waiting_timeout = 10 * 60 * 1000;
    o->idle_timeout = 10 * 60 * 1000;
    o->max_conns_per_ip = 64;
    o->conn_rate = 20;
    snprintf(o->db_path, sizeof o->db_path, "tapis.db");
    o->log_level = LOG_INFO;
    o->node_ttl = 3000;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: tapisd [options]\n"
               "\n"
               "Hosts card tables over a JSON-lines protocol (see protocol/PROTOCOL.md).\n"
               "\n"
               "  --listen HOST:PORT      address to listen on (default 127.0.0.1:7233;\n"
               "                          IPv6 as [::1]:7233; port 0 picks a free port,\n"
               "                          logged as \"listening on HOST:PORT\")\n"
               "  --max-line BYTES        longest request line (default 8192)\n"
               "  --max-conns N           connections at once (default 10000)\n"
               "  --out-cap BYTES         pending output that drops a slow reader\n"
               "                          (default 1048576)\n"
               "  --hello-timeout TIME    close connections that send no hello (default 60s;\n"
               "                          0 = never)\n"
               "  --reconnect-window TIME seats of a dropped player are held this long, then\n"
               "                          a built-in bot takes them (default 120s)\n"
               "  --turn-timer TIME       a waited-on seat that does not act in time gets its\n"
               "                          default action (default 60s; 0 = off)\n"
               "  --dispute-window MS     window of a race dispute, for games with a\n"
               "                          \"dispute_ms\" option (default 200)\n"
               "  --bot-delay MS[-MS]     built-in bots act after a delay drawn in this range:\n"
               "                          the pace of the greedy and random levels (default\n"
               "                          50-300); given, it sets every level's pace\n"
               "\n"
               "Budgets (each refused request is answered with its error code):\n"
               "  --line-rate N           lines per second per connection, bursts of 2N\n"
               "                          (default 1000; 0 = off); then rate_limited\n"
               "  --error-rate N          error replies per second per connection, bursts\n"
               "                          of 2N (default 20; 0 = off); then too_many_errors\n"
               "                          and the connection is closed\n"
               "  --chat-rate N           chat lines per session per 10 s (default 5; 0 = off)\n"
               "  --max-chat BYTES        longest chat text (default 500; at most 1000)\n"
               "  --create-rate N         rooms a session may create per minute (default 60;\n"
               "                          0 = off)\n"
               "  --max-rooms N           rooms at once (default 10000); then server_full\n"
               "  --waiting-timeout TIME  close a waiting room with no connected person\n"
               "                          after this long (default 10m)\n"
               "  --idle-timeout TIME     close a connection silent this long after hello\n"
               "                          (default 10m; 0 = never)\n"
               "  --max-conns-per-ip N    connections from one address (default 64; 0 = off)\n"
               "  --conn-rate N           new connections per second from one address,\n"
               "                          bursts of 2N (default 20; 0 = off)\n"
               "\n"
               "Durable tables (docs/STORE.md):\n"
               "  --db PATH               the SQLite database that keeps sessions, tables and\n"
               "                          each table's journal, so a restart (or a crash)\n"
               "                          resumes every unfinished table (default tapis.db in\n"
               "                          the working directory); --db none keeps everything\n"
               "                          in memory only\n"
               "  --fsync batch|always    batch: WAL with synchronous=NORMAL, durable across a\n"
               "                          crash of tapisd (default); always: synchronous=FULL,\n"
               "                          durable across a power cut too, slower\n"
               "  --export-game ID        print the record of finished game ID (options, seed,\n"
               "                          seats, journal, result) as JSON on stdout and exit,\n"
               "                          without listening; exits 1 if the game is unknown,\n"
               "                          unfinished, or its journal does not replay to its\n"
               "                          stored result\n"
               "\n"
               "Operating (tapisd(8), \"Hosting\" in the README):\n"
               "  --config FILE           options from FILE, one a line without the dashes\n"
               "                          (\"line-rate 500\"); the command line wins; read\n"
               "                          again on SIGHUP (default none)\n"
               "  --metrics HOST:PORT     serve Prometheus metrics at GET /metrics on this\n"
               "                          address (default off)\n"
               "  --admin-token-file PATH a session that says `admin TOKEN` with the token on\n"
               "                          this file's first line may announce, drain, close,\n"
               "                          kick and stats (default none: no operator)\n"
               "  --log-format text|json  log lines as text, or one JSON object each\n"
               "                          (default text)\n"
               "  --log-level LEVEL       debug, info, warn or error (default info)\n"
               "\n"
               "A cluster (docs/CLUSTER.md):\n"
               "  --redis HOST:PORT       join the nodes that share this Redis as one server:\n"
               "                          one lobby, sessions on every node, tables that\n"
               "                          survive a node (default off: a server alone)\n"
               "  --advertise HOST:PORT   where the other nodes reach this node's game port\n"
               "                          (default the --listen address; set it when\n"
               "                          listening on 0.0.0.0 or ::)\n"
               "  --node-id ID            this node's name, 1-32 of A-Z a-z 0-9 . _ -\n"
               "                          (default the advertised address)\n"
               "  --node-ttl TIME         a node not heard from this long is dead and its\n"
               "                          tables move to the others (default 3s)\n"
               "\n"
               "  --seed N                deterministic game seeds (tests and replays)\n"
               "  --help, --version\n"
               "\n"
               "TIME is a number with an optional unit: 500ms, 30s, 2m (bare: seconds).\n"
               "SIGHUP reloads the limits, timeouts, log options and admin token from the\n"
               "command line and --config FILE; SIGTERM stops cleanly.\n");
}

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
    if (host[0]) snprintf(out_host, 64, "%s", host);
    *out_port = (int)port;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The command line                                                         */
/* ------------------------------------------------------------------------ */

enum {
    OPT_LISTEN = 256,
    OPT_MAX_LINE,
    OPT_MAX_CONNS,
    OPT_OUT_CAP,
    OPT_HELLO_TIMEOUT,
    OPT_RECONNECT,
    OPT_TURN_TIMER,
    OPT_DISPUTE,
    OPT_BOT_DELAY,
    OPT_LINE_RATE,
    OPT_ERROR_RATE,
    OPT_CHAT_RATE,
    OPT_MAX_CHAT,
    OPT_CREATE_RATE,
    OPT_MAX_ROOMS,
    OPT_WAITING_TIMEOUT,
    OPT_IDLE_TIMEOUT,
    OPT_MAX_CONNS_PER_IP,
    OPT_CONN_RATE,
    OPT_DB,
    OPT_FSYNC,
    OPT_LOG_LEVEL,
    OPT_LOG_FORMAT,
    OPT_METRICS,
    OPT_ADMIN_TOKEN_FILE,
    OPT_CONFIG,
    OPT_SEED,
    OPT_EXPORT_GAME,
    OPT_REDIS,
    OPT_ADVERTISE,
    OPT_NODE_ID,
    OPT_NODE_TTL,
    OPT_HELP,
    OPT_VERSION,
};

static const struct option longopts[] = {
    {"listen", required_argument, NULL, OPT_LISTEN},
    {"max-line", required_argument, NULL, OPT_MAX_LINE},
    {"max-conns", required_argument, NULL, OPT_MAX_CONNS},
    {"out-cap", required_argument, NULL, OPT_OUT_CAP},
    {"hello-timeout", required_argument, NULL, OPT_HELLO_TIMEOUT},
    {"reconnect-window", required_argument, NULL, OPT_RECONNECT},
    {"turn-timer", required_argument, NULL, OPT_TURN_TIMER},
    {"dispute-window", required_argument, NULL, OPT_DISPUTE},
    {"bot-delay", required_argument, NULL, OPT_BOT_DELAY},
    {"line-rate", required_argument, NULL, OPT_LINE_RATE},
    {"error-rate", required_argument, NULL, OPT_ERROR_RATE},
    {"chat-rate", required_argument, NULL, OPT_CHAT_RATE},
    {"max-chat", required_argument, NULL, OPT_MAX_CHAT},
    {"create-rate", required_argument, NULL, OPT_CREATE_RATE},
    {"max-rooms", required_argument, NULL, OPT_MAX_ROOMS},
    {"waiting-timeout", required_argument, NULL, OPT_WAITING_TIMEOUT},
    {"idle-timeout", required_argument, NULL, OPT_IDLE_TIMEOUT},
    {"max-conns-per-ip", required_argument, NULL, OPT_MAX_CONNS_PER_IP},
    {"conn-rate", required_argument, NULL, OPT_CONN_RATE},
    {"db", required_argument, NULL, OPT_DB},
    {"fsync", required_argument, NULL, OPT_FSYNC},
    {"log-level", required_argument, NULL, OPT_LOG_LEVEL},
    {"log-format", required_argument, NULL, OPT_LOG_FORMAT},
    {"metrics", required_argument, NULL, OPT_METRICS},
    {"admin-token-file", required_argument, NULL, OPT_ADMIN_TOKEN_FILE},
    {"config", required_argument, NULL, OPT_CONFIG},
    {"seed", required_argument, NULL, OPT_SEED},
    {"export-game", required_argument, NULL, OPT_EXPORT_GAME},
    {"redis", required_argument, NULL, OPT_REDIS},
    {"advertise", required_argument, NULL, OPT_ADVERTISE},
    {"node-id", required_argument, NULL, OPT_NODE_ID},
    {"node-ttl", required_argument, NULL, OPT_NODE_TTL},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

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
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        uint64_t v;
        const char *name = c >= OPT_LISTEN && c <= OPT_VERSION ? longopts[c - OPT_LISTEN].name : "";
        switch (c) {
        case OPT_LISTEN:
            if (parse_address(optarg, o->host, &o->port) < 0) return bad(name, optarg);
            break;
        case OPT_MAX_LINE:
            if (parse_u64(optarg, 1 << 24, &v) < 0 || v < 16) return bad(name, optarg);
            o->max_line = (size_t)v;
            break;
        case OPT_MAX_CONNS:
            if (parse_u64(optarg, 1000000, &v) < 0 || v < 1) return bad(name, optarg);
            o->max_conns = (int)v;
            break;
        case OPT_OUT_CAP:
            if (parse_u64(optarg, 1ULL << 32, &v) < 0 || v < 1024) return bad(name, optarg);
            o->out_cap = (size_t)v;
            break;
        case OPT_HELLO_TIMEOUT:
            if (options_parse_duration(optarg, 1000, &o->hello_timeout) < 0)
                return bad(name, optarg);
            break;
        case OPT_RECONNECT:
            if (options_parse_duration(optarg, 1000, &o->reconnect_window) < 0)
                return bad(name, optarg);
            break;
        case OPT_TURN_TIMER:
            if (options_parse_duration(optarg, 1000, &o->turn_timer) < 0) return bad(name, optarg);
            break;
        case OPT_DISPUTE:
            if (options_parse_duration(optarg, 1, &v) < 0 || v > 60000) return bad(name, optarg);
            o->dispute_ms = (int64_t)v;
            break;
        case OPT_BOT_DELAY: {
            char lo[32];
            const char *dash = strchr(optarg, '-');
            size_t n = dash ? (size_t)(dash - optarg) : strlen(optarg);
            if (n >= sizeof lo) return bad(name, optarg);
            memcpy(lo, optarg, n);
            lo[n] = 0;
            if (options_parse_duration(lo, 1, &o->bot_delay_min) < 0) return bad(name, optarg);
            o->bot_delay_set = true;
            o->bot_delay_max = o->bot_delay_min;
            if (dash && (options_parse_duration(dash + 1, 1, &o->bot_delay_max) < 0 ||
                         o->bot_delay_max < o->bot_delay_min))
                return bad(name, optarg);
            break;
        }
        case OPT_LINE_RATE:
            if (parse_u64(optarg, 1000000, &o->line_rate) < 0) return bad(name, optarg);
            break;
        case OPT_ERROR_RATE:
            if (parse_u64(optarg, 1000000, &o->error_rate) < 0) return bad(name, optarg);
            break;
        case OPT_CHAT_RATE:
            if (parse_u64(optarg, 10000, &o->chat_rate) < 0) return bad(name, optarg);
            break;
        case OPT_MAX_CHAT:
            if (parse_u64(optarg, 1000, &v) < 0 || v < 1) return bad(name, optarg);
            o->max_chat = (size_t)v;
            break;
        case OPT_CREATE_RATE:
            if (parse_u64(optarg, 100000, &o->create_rate) < 0) return bad(name, optarg);
            break;
        case OPT_MAX_ROOMS:
            if (parse_u64(optarg, 1000000, &v) < 0 || v < 1) return bad(name, optarg);
            o->max_rooms = (int)v;
            break;
        case OPT_WAITING_TIMEOUT:
            if (options_parse_duration(optarg, 1000, &o->waiting_timeout) < 0 ||
                o->waiting_timeout == 0)
                return bad(name, optarg);
            break;
        case OPT_IDLE_TIMEOUT:
            if (options_parse_duration(optarg, 1000, &o->idle_timeout) < 0)
                return bad(name, optarg);
            break;
        case OPT_MAX_CONNS_PER_IP:
            if (parse_u64(optarg, 1000000, &v) < 0) return bad(name, optarg);
            o->max_conns_per_ip = (int)v;
            break;
        case OPT_CONN_RATE:
            if (parse_u64(optarg, 1000000, &o->conn_rate) < 0) return bad(name, optarg);
            break;
        case OPT_DB:
            if (!optarg[0] || strlen(optarg) >= sizeof o->db_path) return bad(name, optarg);
            snprintf(o->db_path, sizeof o->db_path, "%s",
                     strcmp(optarg, "none") == 0 ? "" : optarg);
            break;
        case OPT_FSYNC:
            if (strcmp(optarg, "batch") != 0 && strcmp(optarg, "always") != 0)
                return bad(name, optarg);
            o->fsync_always = strcmp(optarg, "always") == 0;
            break;
        case OPT_LOG_LEVEL:
            if ((o->log_level = log_parse_level(optarg)) < 0) return bad(name, optarg);
            break;
        case OPT_LOG_FORMAT:
            if (strcmp(optarg, "text") != 0 && strcmp(optarg, "json") != 0)
                return bad(name, optarg);
            o->log_json = strcmp(optarg, "json") == 0;
            break;
        case OPT_METRICS:
            snprintf(o->metrics_host, sizeof o->metrics_host, "127.0.0.1");
            if (parse_address(optarg, o->metrics_host, &o->metrics_port) < 0)
                return bad(name, optarg);
            o->metrics = true;
            break;
        case OPT_ADMIN_TOKEN_FILE:
            if (!optarg[0] || strlen(optarg) >= sizeof o->admin_token_file)
                return bad(name, optarg);
            snprintf(o->admin_token_file, sizeof o->admin_token_file, "%s", optarg);
            break;
        case OPT_CONFIG: break; /* read before the command line (read_config) */
        case OPT_SEED:
            if (parse_u64(optarg, UINT64_MAX, &o->seed) < 0) return bad(name, optarg);
            o->seeded = true;
            break;
        case OPT_EXPORT_GAME:
            if (!optarg[0] || strlen(optarg) > 64) return bad(name, optarg);
            o->export_game = optarg;
            break;
        case OPT_REDIS:
            if (parse_host_port(optarg, o->redis_host, sizeof o->redis_host, &o->redis_port) < 0)
                return bad(name, optarg);
            break;
        case OPT_ADVERTISE: {
            char host[256];
            int port;
            if (parse_host_port(optarg, host, sizeof host, &port) < 0 || port == 0)
                return bad(name, optarg);
            snprintf(o->advertise, sizeof o->advertise, "%s", optarg);
            break;
        }
        case OPT_NODE_ID:
            if (!node_id_ok(optarg)) return bad(name, optarg);
            snprintf(o->node_id, sizeof o->node_id, "%s", optarg);
            break;
        case OPT_NODE_TTL:
            if (options_parse_duration(optarg, 1000, &v) < 0 || v < 300 || v > 600000)
                return bad(name, optarg);
            o->node_ttl = v;
            break;
        case OPT_HELP: usage(stdout); return 1;
        case OPT_VERSION: printf("tapisd %s\n", TAPIS_VERSION); return 1;
        default:
            if (optopt >= OPT_LISTEN && optopt <= OPT_VERSION)
                fprintf(stderr, "tapisd: --%s needs a value\n", longopts[optopt - OPT_LISTEN].name);
            else
                fprintf(stderr, "tapisd: unknown option '%s' (see tapisd --help)\n",
                        argv[optind - 1]);
            return -1;
        }
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
        const struct option *opt = NULL;
        for (const struct option *l = longopts; l->name; l++)
            if (strcmp(l->name, key) == 0 && l->has_arg == required_argument) opt = l;
        if (!opt || opt->val == OPT_CONFIG || opt->val == OPT_EXPORT_GAME)
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
        if (!config[0] || strlen(config) >= sizeof o->config_path) return bad("config", config);
        snprintf(o->config_path, sizeof o->config_path, "%s", config);
        if (read_config(o, config) != 0) return -1;
    }
    return parse_args(o, argc, argv);
}

void options_reload(server_opts_t *cur, const server_opts_t *next)
{
    server_opts_t old = *cur;
    *cur = *next;
    /* What the running server cannot change: keep it, and say so if it was changed. */
    if (strcmp(old.host, next->host) != 0 || old.port != next->port)
        log_warn("reload: --listen changed; it takes a restart");
    if (strcmp(old.db_path, next->db_path) != 0 || old.fsync_always != next->fsync_always)
        log_warn("reload: --db or --fsync changed; it takes a restart");
    if (old.metrics != next->metrics || strcmp(old.metrics_host, next->metrics_host) != 0 ||
        (old.metrics_port != next->metrics_port && old.metrics_port != 0))
        log_warn("reload: --metrics changed; it takes a restart");
    if (strcmp(old.redis_host, next->redis_host) != 0 || old.redis_port != next->redis_port ||
        strcmp(old.advertise, next->advertise) != 0 || strcmp(old.node_id, next->node_id) != 0 ||
        old.node_ttl != next->node_ttl)
        log_warn("reload: --redis, --advertise, --node-id or --node-ttl changed; it takes a "
                 "restart");
    memcpy(cur->host, old.host, sizeof cur->host);
    cur->port = old.port;
    memcpy(cur->db_path, old.db_path, sizeof cur->db_path);
    cur->fsync_always = old.fsync_always;
    cur->metrics = old.metrics;
    memcpy(cur->metrics_host, old.metrics_host, sizeof cur->metrics_host);
    cur->metrics_port = old.metrics_port;
    memcpy(cur->redis_host, old.redis_host, sizeof cur->redis_host);
    cur->redis_port = old.redis_port;
    memcpy(cur->advertise, old.advertise, sizeof cur->advertise);
    memcpy(cur->node_id, old.node_id, sizeof cur->node_id);
    cur->node_ttl = old.node_ttl;
    cur->seeded = old.seeded;
    cur->seed = old.seed;
    cur->export_game = old.export_game;
    memcpy(cur->config_path, old.config_path, sizeof cur->config_path);
}
