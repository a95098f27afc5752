/* tapis_bot_args.c — tapis-bot's command line (tapis_bot.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clients/tapis_bot.h"
#include "core/search.h"
#include "protocol/protocol.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: tapis-bot [HOST:PORT] [options]\n"
               "\n"
               "Opens tables on a tapisd, seats server bots, plays the other seats itself\n"
               "(one connection per seat) with the game's bot strategy, and prints a summary.\n"
               "\n"
               "  --game ID            game to play (default 233)\n"
               "  --players N          seats at each table (default 4)\n"
               "  --bots N             seats given to server bots (default players - 1)\n"
               "  --games N            tables to play, one after the other (default 1)\n"
               "  --strategy NAME[:MS] this client's strategy: greedy, random, easy (greedy with\n"
               "                       mistakes), hard (a search) or hard/N (N playouts a move)\n"
               "                       (default greedy), with MS a reaction time: each\n"
               "                       decision waits MS after the view that calls for it\n"
               "                       (e.g. greedy:250 for slap)\n"
               "  --bot-strategy NAME  strategy of the server bots (default: the server's)\n"
               "  --name NAME          base name of the connections (default tapis-bot)\n"
               "  --option KEY=VALUE   a game option for create (repeatable), e.g. target=100\n"
               "  --seed N             seed of this client's random choices\n"
               "  --timeout SECONDS    give up on a game after this long (default 600)\n"
               "  --reconnect SECONDS  a lost connection (a server restart) is opened again\n"
               "                       and takes its seats back with its token, trying for\n"
               "                       this long (default 60; 0 = give up at once)\n"
               "  --account NAME       log in to this account (with --key) instead of a guest\n"
               "  --key KEY            the account's key, as `register` returned it\n"
               "  --seek GAME          find each table by matchmaking (`seek`; rated with\n"
               "                       --account) instead of opening it; prints the rating\n"
               "  --verbose            print every line sent and received on stderr\n"
               "  --verify             send a seed to each table before it fills, and check its\n"
               "                       deal from the record at the end (docs/FAIRNESS.md)\n"
               "  --help\n"
               "\n"
               "HOST:PORT defaults to " NET_DEFAULT_HOST ":" NET_DEFAULT_PORT
               "; HOST:PORT,HOST:PORT,... names a cluster's\n"
               "nodes: a lost connection is opened again on the next.\n"
               "Exit status: 0 when every game ended without a protocol error, 1 otherwise,\n"
               "2 for a bad command line.\n");
}

static int parse_int(const char *s, int lo, int hi, const char *what)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "tapis-bot: %s: expected an integer from %d to %d, not \"%s\"\n", what, lo,
                hi, s);
        exit(2);
    }
    return (int)v;
}

/* KEY=VALUE into o->options, the value typed like the inline form types it. */
static void add_option(bot_opts_t *o, const char *kv)
{
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv) {
        fprintf(stderr, "tapis-bot: --option: expected KEY=VALUE, not \"%s\"\n", kv);
        exit(2);
    }
    char line[512];
    snprintf(line, sizeof line, "create x %s", kv);
    proto_error_t err;
    json_t *req = inline_parse(line, strlen(line), &err);
    json_t *opts = req ? json_object_get(req, "options") : NULL;
    if (!opts) {
        fprintf(stderr, "tapis-bot: --option %s: %s\n", kv, req ? "not an option" : err.message);
        exit(2);
    }
    if (!o->options) o->options = json_object();
    json_object_update(o->options, opts);
    json_decref(req);
}

void bot_parse_args(bot_t *b, int argc, char **argv)
{
    enum {
        OPT_BOT_STRATEGY = 256,
        OPT_OPTION,
        OPT_SEED,
        OPT_TIMEOUT,
        OPT_RECONNECT,
        OPT_ACCOUNT,
        OPT_KEY,
        OPT_SEEK,
        OPT_VERIFY
    };
    static const struct option longs[] = {
        {"game", required_argument, NULL, 'g'},
        {"players", required_argument, NULL, 'p'},
        {"bots", required_argument, NULL, 'b'},
        {"games", required_argument, NULL, 'n'},
        {"strategy", required_argument, NULL, 's'},
        {"bot-strategy", required_argument, NULL, OPT_BOT_STRATEGY},
        {"name", required_argument, NULL, 'N'},
        {"option", required_argument, NULL, OPT_OPTION},
        {"seed", required_argument, NULL, OPT_SEED},
        {"timeout", required_argument, NULL, OPT_TIMEOUT},
        {"reconnect", required_argument, NULL, OPT_RECONNECT},
        {"account", required_argument, NULL, OPT_ACCOUNT},
        {"key", required_argument, NULL, OPT_KEY},
        {"seek", required_argument, NULL, OPT_SEEK},
        {"verbose", no_argument, NULL, 'v'},
        {"verify", no_argument, NULL, OPT_VERIFY},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    b->o.game = "233";
    b->o.strategy = "greedy";
    b->o.name = "tapis-bot";
    b->o.players = 4;
    b->o.bots = -1;
    b->o.games = 1;
    b->o.seed = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 16);
    b->o.game_timeout_ms = 600000;
    b->o.reconnect_ms = 60000;
    int ch;
    while ((ch = getopt_long(argc, argv, "g:p:b:n:s:N:vh", longs, NULL)) != -1) {
        switch (ch) {
        case 'g': b->o.game = optarg; break;
        case 'p':
            b->o.players = parse_int(optarg, 1, GAME_MAX_SEATS, "--players");
            b->o.players_given = true;
            break;
        case OPT_ACCOUNT: b->o.account = optarg; break;
        case OPT_KEY: b->o.key = optarg; break;
        case OPT_SEEK:
            b->o.seek = true;
            b->o.game = optarg;
            break;
        case 'b': b->o.bots = parse_int(optarg, 0, GAME_MAX_SEATS, "--bots"); break;
        case 'n': b->o.games = parse_int(optarg, 0, 1000000, "--games"); break;
        case 's': b->o.strategy = optarg; break;
        case OPT_BOT_STRATEGY: b->o.bot_strategy = optarg; break;
        case 'N': b->o.name = optarg; break;
        case OPT_OPTION: add_option(&b->o, optarg); break;
        case OPT_SEED: b->o.seed = strtoull(optarg, NULL, 10); break;
        case OPT_RECONNECT:
            b->o.reconnect_ms = 1000LL * parse_int(optarg, 0, 86400, "--reconnect");
            break;
        case OPT_TIMEOUT:
            b->o.game_timeout_ms = 1000LL * parse_int(optarg, 1, 86400, "--timeout");
            break;
        case 'v': b->o.verbose = true; break;
        case OPT_VERIFY: b->o.verify = true; break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); exit(2);
        }
    }
    if (optind + 1 < argc) {
        usage(stderr);
        exit(2);
    }
    if (net_parse_addrs(optind < argc ? argv[optind] : NULL, &b->o.addrs)) {
        fprintf(stderr, "tapis-bot: bad address \"%s\" (HOST:PORT)\n", argv[optind]);
        exit(2);
    }
    if (!b->o.account != !b->o.key) {
        fprintf(stderr, "tapis-bot: --account and --key go together\n");
        exit(2);
    }
    b->desc = game_find(b->o.game);
    if (b->o.seek && b->desc && !b->o.players_given) { /* the server's default: 4 if it can */
        b->o.players = b->desc->min_seats > 4 ? b->desc->min_seats : 4;
        if (b->o.players > b->desc->max_seats) b->o.players = b->desc->max_seats;
    }
    if (b->o.seek || b->o.account) b->o.bots = b->o.players - 1; /* one seat: this client's */
    if (b->o.bots < 0) b->o.bots = b->o.players - 1;
    if (b->o.bots >= b->o.players) {
        fprintf(stderr, "tapis-bot: --bots must leave at least one seat to this client\n");
        exit(2);
    }
    if (!b->desc || !game_has_bot(b->desc)) {
        fprintf(stderr, "tapis-bot: no bot for game \"%s\" in this build\n", b->o.game);
        exit(2);
    }
    if (b->o.players < b->desc->min_seats || b->o.players > b->desc->max_seats) {
        fprintf(stderr, "tapis-bot: %s is for %d to %d players\n", b->o.game, b->desc->min_seats,
                b->desc->max_seats);
        exit(2);
    }
    /* NAME[:MS]: a reaction time, as slap's bots name it ("greedy:250"). */
    const char *colon = strchr(b->o.strategy, ':');
    size_t base = colon ? (size_t)(colon - b->o.strategy) : strlen(b->o.strategy);
    snprintf(b->o.strategy_name, sizeof b->o.strategy_name, "%.*s", (int)base, b->o.strategy);
    if (colon) b->o.react_ms = parse_int(colon + 1, 0, 60000, "--strategy reaction time");
    const char *name = b->o.strategy_name;
    if (strcmp(name, "greedy") != 0 && strcmp(name, "random") != 0 && strcmp(name, "easy") != 0 &&
        game_search_budget(name, 1) < 0) {
        fprintf(stderr,
                "tapis-bot: --strategy: greedy, random, easy, hard or hard/N (N playouts a move),"
                " optionally :MS\n");
        exit(2);
    }
    b->o.strategy = b->o.strategy_name;
}
