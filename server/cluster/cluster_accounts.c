/*
 * cluster_accounts.c — the accounts and ratings of a cluster, in its Redis
 * (account.h's account_shared_t): one truth for every node.
 *
 * Keys (docs/CLUSTER.md):
 *   tapis:account:KEY          HASH  name, created, pwhash, key_hash (or bot 1), and
 *                                    r:GAME = "MU SIGMA GAMES WINS VERSION" per game rated
 *   tapis:account:KEY:results  LIST  its rated results, newest first (JSON)
 *   tapis:board:GAME[:provisional]  ZSET  folded names by the rating shown
 *   tapis:board:GAME:rows      HASH  folded name -> its leaderboard row (JSON)
 *   tapis:rated                HASH  room -> a rated game under way (rated_room_json())
 * KEY is the name folded to lower case. A register claims the name with
 * HSETNX (two nodes registering one name: one wins); a game's end writes
 * every rating of its table in one Lua script that first checks each
 * rating's version, so two games ending at once on two nodes for the same
 * player lose neither update: the second is computed again from the first's
 * ratings (rated.c, settle()). The script takes its keys in its one JSON
 * argument: the cluster's Redis is one server, never a Redis Cluster.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/account/account.h"
#include "server/base/log.h"
#include "server/cluster/cluster_int.h"

/* clang-format off */
static const char RATE_SCRIPT[] =
    "local a = cjson.decode(ARGV[1]) "
    "local f = 'r:' .. a.game "
    "for _, p in ipairs(a.players) do "
    "  local cur = redis.call('HGET', p.key, f) "
    "  local ver = 0 "
    "  if cur then ver = tonumber(string.match(cur, '(%S+)$')) end "
    "  if ver ~= p.ver then return 0 end "
    "end "
    "local est, prov = 'tapis:board:' .. a.game, 'tapis:board:' .. a.game .. ':provisional' "
    "for _, p in ipairs(a.players) do "
    "  redis.call('HSET', p.key, f, p.value) "
    "  redis.call('LPUSH', p.key .. ':results', p.result) "
    "  redis.call('HSET', est .. ':rows', p.name, p.row) "
    "  if p.provisional then "
    "    redis.call('ZREM', est, p.name) redis.call('ZADD', prov, p.shown, p.name) "
    "  else "
    "    redis.call('ZREM', prov, p.name) redis.call('ZADD', est, p.shown, p.name) "
    "  end "
    "end "
    "return 1";
/* clang-format on */

static const char RELEASE_SCRIPT[] =
    "if redis.call('HEXISTS', KEYS[1], 'pwhash') == 0 and "
    "   redis.call('HEXISTS', KEYS[1], 'bot') == 0 then redis.call('DEL', KEYS[1]) end "
    "return 1";

/* ------------------------------------------------------------------------ */
/* Reading                                                                  */
/* ------------------------------------------------------------------------ */

static void rating_field(account_t *a, const char *field, const char *value)
{
    double mu, sigma;
    int games, wins;
    long long ver;
    if (sscanf(value, "%lf %lf %d %d %lld", &mu, &sigma, &games, &wins, &ver) != 5) {
        log_warn("cluster: account %s: a bad rating \"%s\" is skipped", a->name, field);
        return;
    }
    account_rating_t *r = account_rating_set(a, field + 2, mu, sigma, games, wins);
    if (r) r->ver = ver;
}

static void result_json(account_t *a, const char *text)
{
    json_t *j = json_loads(text, 0, NULL);
    account_result_t res = {
        .place = (int)json_integer_value(json_object_get(j, "place")),
        .sides = (int)json_integer_value(json_object_get(j, "sides")),
        .abandoned = json_is_true(json_object_get(j, "abandoned")),
        .before = json_number_value(json_object_get(j, "before")),
        .after = json_number_value(json_object_get(j, "after")),
        .at = json_integer_value(json_object_get(j, "at")),
    };
    const char *game = json_string_value(json_object_get(j, "game"));
    const char *room = json_string_value(json_object_get(j, "room"));
    snprintf(res.game, sizeof res.game, "%s", game ? game : "");
    snprintf(res.room, sizeof res.room, "%s", room ? room : "");
    json_decref(j);
    account_recent_add(a, &res);
}

/* An account and its recent results in one reply: [HGETALL, LRANGE]. */
static const char ACCOUNT_SCRIPT[] =
    "local k = 'tapis:account:' .. ARGV[1] "
    "return {redis.call('HGETALL', k), redis.call('LRANGE', k .. ':results', 0, ARGV[2])}";

/* The account named `name` from ACCOUNT_SCRIPT's reply, into memory: 1 found, 0 none, -1. */
static int load(server_t *srv, const char *name, const redisReply *r)
{
    if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != 2) return -1;
    const redisReply *h = r->element[0], *l = r->element[1];
    if (h->type != REDIS_REPLY_ARRAY) return -1;
    if (h->elements == 0) return 0;
    const char *stored = cluster__field(h, "name");
    const char *created = cluster__field(h, "created");
    account_t *a = account_here(srv, stored ? stored : name);
    if (!a)
        a = accounts_loaded(srv, stored ? stored : name, NULL, NULL, created ? atoll(created) : 0);
    if (!a) return -1;
    const char *pwhash = cluster__field(h, "pwhash");
    const char *key_hash = cluster__field(h, "key_hash");
    a->bot = cluster__field(h, "bot") != NULL;
    if (pwhash) snprintf(a->pwhash, sizeof a->pwhash, "%s", pwhash);
    if (key_hash) snprintf(a->key_hash, sizeof a->key_hash, "%s", key_hash);
    a->pending = !pwhash && !a->bot; /* claimed by a register, not yet hashed */
    for (size_t i = 0; i + 1 < h->elements; i += 2)
        if (h->element[i]->type == REDIS_REPLY_STRING && !strncmp(h->element[i]->str, "r:", 2) &&
            h->element[i + 1]->type == REDIS_REPLY_STRING)
            rating_field(a, h->element[i]->str, h->element[i + 1]->str);
    if (l->type == REDIS_REPLY_ARRAY) {
        a->nrecent = a->recent_head = 0;
        for (size_t i = l->elements; i-- > 0;) /* oldest first */
            if (l->element[i]->type == REDIS_REPLY_STRING) result_json(a, l->element[i]->str);
    }
    return 1;
}

static int fetch(void *ctx, server_t *srv, const char *name)
{
    cluster_t *cl = cluster__of(ctx);
    if (!cl) return -1;
    char key[64];
    account_name_key(key, name);
    redisReply *r =
        cluster__command(cl, "EVAL %s 0 %s %d", ACCOUNT_SCRIPT, key, ACCOUNT_RECENT - 1);
    int got = load(srv, name, r);
    if (r) freeReplyObject(r);
    return got;
}

/* A read whose answer comes on the loop later (the asynchronous context). */
typedef struct account_call {
    server_t *srv;
    char name[64];
    account_fetched_fn fetched;
    account_board_fn board;
    account_rated_fn rated;
    char game[32];
    int limit;
    long long offset;
    void *arg;
} account_call_t;

static void on_account(redisAsyncContext *ac, void *reply, void *priv)
{
    (void)ac;
    account_call_t *c = priv;
    int got = c->srv->stopping ? -1 : load(c->srv, c->name, reply);
    c->fetched(c->srv, got, c->arg);
    tapis_free(c);
}

static int fetch_async(void *ctx, server_t *srv, const char *name, account_fetched_fn done,
                       void *arg)
{
    cluster_t *cl = cluster__of(ctx);
    account_call_t *c = cl ? tapis_calloc(1, sizeof *c) : NULL;
    if (!c) return -1;
    *c = (account_call_t){.srv = srv, .fetched = done, .arg = arg};
    snprintf(c->name, sizeof c->name, "%s", name);
    char key[64];
    account_name_key(key, name);
    if (cluster__async(cl, on_account, c, "EVAL %s 0 %s %d", ACCOUNT_SCRIPT, key,
                       ACCOUNT_RECENT - 1) < 0) {
        tapis_free(c);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                  */
/* ------------------------------------------------------------------------ */

/* The name is free of accounts and of every node's sessions but the registering one's,
   checked and claimed at once (cluster_rooms.c's CLAIM_NAME refuses a guest the names of
   accounts, registered or being registered). */
static const char CLAIM_SCRIPT[] =
    "local owner = redis.call('HGET', 'tapis:names', ARGV[1]) "
    "if owner and owner ~= ARGV[4] then return 2 end "
    "if redis.call('HSETNX', 'tapis:account:'..ARGV[1], 'name', ARGV[2]) == 0 then return 0 end "
    "redis.call('HSET', 'tapis:account:'..ARGV[1], 'created', ARGV[3]) return 1";

static int claim(void *ctx, const account_t *a, uint64_t sid)
{
    cluster_t *cl = cluster__of(ctx);
    if (!cl) return -1;
    long long got = cluster__reply_int(
        cluster__command(cl, "EVAL %s 0 %s %s %lld %llu", CLAIM_SCRIPT, a->name_key, a->name,
                         (long long)a->created, (unsigned long long)sid),
        -1);
    return got == 2 ? -2 : got < 0 ? -1 : (int)got;
}

static void release(void *ctx, const account_t *a)
{
    cluster_t *cl = cluster__of(ctx);
    char k[96];
    snprintf(k, sizeof k, "tapis:account:%s", a->name_key);
    if (cl) cluster__reply_int(cluster__command(cl, "EVAL %s 1 %s", RELEASE_SCRIPT, k), 0);
}

static void put(void *ctx, const account_t *a)
{
    cluster_t *cl = cluster__of(ctx);
    if (!cl) return;
    redisReply *r =
        a->bot
            ? cluster__command(cl, "HSET tapis:account:%s name %s created %lld bot 1", a->name_key,
                               a->name, (long long)a->created)
            : cluster__command(cl,
                               "HSET tapis:account:%s name %s created %lld pwhash %s "
                               "key_hash %s",
                               a->name_key, a->name, (long long)a->created, a->pwhash, a->key_hash);
    if (!r) log_error("cluster: account %s not written to Redis", a->name);
    cluster__reply_int(r, 0);
}

/* RATE_SCRIPT's argument for rate(): the caller frees it; NULL when out of memory. */
static char *rate_text(const char *game, account_t *const *who, const account_rating_t *now,
                       const account_result_t *res, int n)
{
    json_t *players = json_array();
    for (int i = 0; i < n; i++) {
        char key[96], value[160];
        snprintf(key, sizeof key, "tapis:account:%s", who[i]->name_key);
        snprintf(value, sizeof value, "%.17g %.17g %d %d %lld", now[i].mu, now[i].sigma,
                 now[i].games, now[i].wins, now[i].ver + 1);
        json_t *r =
            json_pack("{s:s, s:s, s:i, s:b, s:f, s:f, s:I}", "game", res[i].game, "room",
                      res[i].room, "place", res[i].place, "abandoned", res[i].abandoned, "before",
                      res[i].before, "after", res[i].after, "at", (json_int_t)res[i].at);
        json_object_set_new(r, "sides", json_integer(res[i].sides));
        char *rtext = json_dumps(r, JSON_COMPACT);
        json_decref(r);
        json_t *row = account_board_row(who[i], &now[i]);
        char *row_text = row ? json_dumps(row, JSON_COMPACT) : NULL;
        json_decref(row);
        json_array_append_new(players,
                              json_pack("{s:s, s:I, s:s, s:s, s:s, s:s, s:f, s:b}", "key", key,
                                        "ver", (json_int_t)now[i].ver, "value", value, "result",
                                        rtext ? rtext : "{}", "name", who[i]->name_key, "row",
                                        row_text ? row_text : "{}", "shown",
                                        rating_display((rating_t){now[i].mu, now[i].sigma}),
                                        "provisional", now[i].sigma > ACCOUNT_PROVISIONAL));
        free(rtext);
        free(row_text);
    }
    json_t *arg = json_pack("{s:s, s:o}", "game", game, "players", players);
    char *text = arg ? json_dumps(arg, JSON_COMPACT) : NULL;
    json_decref(arg);
    return text;
}

static int rate(void *ctx, const char *game, account_t *const *who, const account_rating_t *now,
                const account_result_t *res, int n)
{
    cluster_t *cl = cluster__of(ctx);
    char *text = cl ? rate_text(game, who, now, res, n) : NULL;
    if (!text) return -1;
    long long got = cluster__reply_int(cluster__command(cl, "EVAL %s 0 %s", RATE_SCRIPT, text), -1);
    free(text);
    return got < 0 ? -1 : (int)got;
}

static void on_rated(redisAsyncContext *ac, void *reply, void *priv)
{
    (void)ac;
    account_call_t *c = priv;
    redisReply *r = reply;
    if (r && r->type == REDIS_REPLY_ERROR) log_warn("cluster: Redis refused a rating: %s", r->str);
    c->rated(c->srv, r && r->type == REDIS_REPLY_INTEGER ? (int)r->integer : -1, c->arg);
    tapis_free(c);
}

static int rate_async(void *ctx, const char *game, account_t *const *who,
                      const account_rating_t *now, const account_result_t *res, int n,
                      account_rated_fn done, void *arg)
{
    cluster_t *cl = cluster__of(ctx);
    account_call_t *c = cl ? tapis_calloc(1, sizeof *c) : NULL;
    char *text = c ? rate_text(game, who, now, res, n) : NULL;
    if (text) *c = (account_call_t){.srv = ctx, .rated = done, .arg = arg};
    int rc = text ? cluster__async(cl, on_rated, c, "EVAL %s 0 %s", RATE_SCRIPT, text) : -1;
    if (rc < 0) tapis_free(c);
    free(text);
    return rc;
}

/* One page of a leaderboard in one reply: {total, rows, provisional total, provisional rows},
   each row its JSON text. ARGV: game, offset, limit (at least 1). */
static const char BOARD_SCRIPT[] =
    "local g, off, lim = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]) "
    "local est, prov = 'tapis:board:' .. g, 'tapis:board:' .. g .. ':provisional' "
    "local function page(set, from) "
    "  local out = {} "
    "  for _, n in ipairs(redis.call('ZREVRANGE', set, from, from + lim - 1)) do "
    "    out[#out + 1] = redis.call('HGET', est .. ':rows', n) or '' end "
    "  return out end "
    "return {redis.call('ZCARD', est), page(est, off), redis.call('ZCARD', prov), page(prov, 0)}";

/* The rows of BOARD_SCRIPT's reply r (an array of JSON texts), placed from `first` when
   first > 0. */
static json_t *board_rows(const redisReply *r, long long first)
{
    json_t *out = json_array();
    for (size_t i = 0; out && r->type == REDIS_REPLY_ARRAY && i < r->elements; i++) {
        json_t *e = r->element[i]->type == REDIS_REPLY_STRING
                        ? json_loads(r->element[i]->str, 0, NULL)
                        : NULL;
        if (!e) continue;
        if (first > 0) json_object_set_new(e, "place", json_integer(first + (long long)i));
        json_array_append_new(out, e);
    }
    return out;
}

static void on_board(redisAsyncContext *ac, void *reply, void *priv)
{
    (void)ac;
    account_call_t *c = priv;
    redisReply *r = reply;
    json_t *page = NULL;
    if (r && r->type == REDIS_REPLY_ARRAY && r->elements == 4 && !c->srv->stopping)
        page = json_pack("{s:o, s:I, s:i, s:I, s:o, s:I, s:f}", "players",
                         board_rows(r->element[1], c->offset + 1), "total",
                         (json_int_t)r->element[0]->integer, "limit", c->limit, "offset",
                         (json_int_t)c->offset, "provisional", board_rows(r->element[3], 0),
                         "provisional_total", (json_int_t)r->element[2]->integer,
                         "provisional_sigma", ACCOUNT_PROVISIONAL);
    c->board(c->srv, page, c->arg);
    tapis_free(c);
}

static int board(void *ctx, const char *game, int limit, long long offset, account_board_fn done,
                 void *arg)
{
    cluster_t *cl = cluster__of(ctx);
    account_call_t *c = cl && limit > 0 ? tapis_calloc(1, sizeof *c) : NULL;
    if (!c) return -1;
    *c = (account_call_t){.srv = ctx, .board = done, .limit = limit, .offset = offset, .arg = arg};
    if (cluster__async(cl, on_board, c, "EVAL %s 0 %s %lld %d", BOARD_SCRIPT, game, offset, limit) <
        0) {
        tapis_free(c);
        return -1;
    }
    return 0;
}

static void rated_room(void *ctx, const char *room_id, const json_t *data)
{
    cluster_t *cl = cluster__of(ctx);
    char *text = data ? json_dumps(data, JSON_COMPACT) : NULL;
    if (cl && (text || !data))
        cluster__reply_int(text ? cluster__command(cl, "HSET tapis:rated %s %s", room_id, text)
                                : cluster__command(cl, "HDEL tapis:rated %s", room_id),
                           0);
    free(text);
}

static json_t *rated_room_get(void *ctx, const char *room_id)
{
    cluster_t *cl = cluster__of(ctx);
    redisReply *r = cl ? cluster__command(cl, "HGET tapis:rated %s", room_id) : NULL;
    json_t *data = r && r->type == REDIS_REPLY_STRING ? json_loads(r->str, 0, NULL) : NULL;
    if (r) freeReplyObject(r);
    return data;
}

const account_shared_t cluster_accounts_shared = {
    ACCOUNT_OP(rated_room),  ACCOUNT_OP(rated_room_get), ACCOUNT_OP(board),   ACCOUNT_OP(fetch),
    ACCOUNT_OP(fetch_async), ACCOUNT_OP(claim),          ACCOUNT_OP(release), ACCOUNT_OP(put),
    ACCOUNT_OP(rate),        ACCOUNT_OP(rate_async),
};
