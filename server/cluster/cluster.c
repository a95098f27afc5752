/* cluster.c — nodes, directory, shared sessions and journal streams on Redis. See cluster.h. */
#include "server/cluster/cluster.h"

#include <hiredis/adapters/libuv.h>
#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "server/base/log.h"
#include "server/cluster/relay.h"
#include "server/room/room.h"
#include "server/session/session.h"

/*
 * Keys (docs/CLUSTER.md gives them all):
 *   tapis:nodes                 SET   every node id that joined and was not reaped
 *   tapis:node:ID               STRING {"id","addr","rooms","conns"} with a TTL (the heartbeat)
 *   tapis:node:ID:rooms         SET   the rooms ID hosts
 *   tapis:node:ID:sessions      SET   the sessions ID holds
 *   tapis:seq:room, tapis:seq:session   counters
 *   tapis:names                 HASH  name (folded) -> session id
 *   tapis:token:HASH            STRING session id
 *   tapis:session:SID           HASH  name, name_key, hash, created
 *   tapis:session:SID:nodes     SET   the nodes holding it (it ends when none does)
 *   tapis:owner                 HASH  room -> node
 *   tapis:rooms                 HASH  room -> its summary with "node" and "rid" (the directory)
 *   tapis:room:ID               HASH  game, players, options, seed, private, rid
 *   tapis:journal:ID            STREAM entry n has the id 0-n: kind, seat, at, [data]
 *   tapis:watchers:ID           SET   the sessions watching
 * and the channel tapis:rooms, where each directory change is published.
 */
#define CHANNEL "tapis:rooms"
/* Redis answers a loopback or LAN command in well under a millisecond: a slower
   one is a Redis in trouble, and the loop waits for it this long at most. */
#define CONNECT_TIMEOUT_US 100000
#define COMMAND_TIMEOUT_US 100000
#define RETRY_MAX_MS 8000 /* reconnects back off up to this */

typedef struct dir_room { /* a room of another node, as the directory says */
    char id[ROOM_ID_LEN + 1];
    char node[33];
    uint64_t rid;
    json_t *summary;
    UT_hash_handle hh;
} dir_room_t;

typedef struct node {
    char id[33];
    char addr[300]; /* as it advertises itself */
    char host[256];
    int port;
    char ip[64]; /* host resolved (once) */
    int rooms;
    bool seen;
    int link_fails;        /* links to it refused or broken in a row (relay.c) */
    int64_t link_retry_at; /* ms: no new link to it before */
    UT_hash_handle hh;
} node_t;

struct cluster {
    server_t *srv;
    char id[33];
    char addr[300];
    redisContext *rc;
    int pending;      /* commands appended to rc, replies not yet read */
    bool resync;      /* Redis may lack what this node wrote: write it all again */
    bool said_down;   /* the loss of Redis was logged */
    bool joined;      /* the node key was set once */
    int fails;        /* connections lost or refused in a row */
    int64_t retry_at; /* ms: no reconnect before (a Redis that hangs costs a stall each try) */
    redisAsyncContext *sub;
    bool sub_ready;
    uv_timer_t beat;
    dir_room_t *dir;
    node_t *nodes;
    const cluster_hooks_t *hooks; /* the lobby's: rooms taken over, rooms moved (main.c) */
    void *hooks_ctx;
};

/* ------------------------------------------------------------------------ */
/* Redis: the synchronous context and its pipeline                          */
/* ------------------------------------------------------------------------ */

static void backoff(cluster_t *cl)
{
    int64_t wait = ((int64_t)cl->srv->opts.node_ttl / 3) << (cl->fails < 4 ? cl->fails : 4);
    cl->fails++;
    cl->retry_at = server_now_ms(cl->srv) + (wait < RETRY_MAX_MS ? wait : RETRY_MAX_MS);
}

static void lost(cluster_t *cl, const char *why)
{
    if (!cl->said_down)
        log_warn("cluster: Redis %s:%d lost (%s); the tables go on here and are written again "
                 "when it is back",
                 cl->srv->opts.redis_host, cl->srv->opts.redis_port, why);
    cl->said_down = true;
    if (cl->rc) redisFree(cl->rc);
    cl->rc = NULL;
    cl->pending = 0;
    cl->resync = true;
    backoff(cl);
}

static bool connect_sync(cluster_t *cl)
{
    if (cl->rc) return true;
    if (server_now_ms(cl->srv) < cl->retry_at) return false;
    struct timeval tv = {0, CONNECT_TIMEOUT_US};
    redisContext *rc =
        redisConnectWithTimeout(cl->srv->opts.redis_host, cl->srv->opts.redis_port, tv);
    if (!rc || rc->err) {
        if (!cl->said_down)
            log_warn("cluster: cannot reach Redis %s:%d: %s", cl->srv->opts.redis_host,
                     cl->srv->opts.redis_port, rc ? rc->errstr : "out of memory");
        cl->said_down = true;
        if (rc) redisFree(rc);
        backoff(cl);
        return false;
    }
    struct timeval ct = {0, COMMAND_TIMEOUT_US};
    redisSetTimeout(rc, ct);
    cl->rc = rc; /* "back" is said once a command is answered (beat) */
    return true;
}

/* Read the replies of the pipeline. Returns 0, or -1 when Redis was lost. */
static int drain(cluster_t *cl)
{
    while (cl->rc && cl->pending > 0) {
        redisReply *rep = NULL;
        if (redisGetReply(cl->rc, (void **)&rep) != REDIS_OK || !rep) {
            lost(cl, cl->rc->errstr[0] ? cl->rc->errstr : "no reply");
            return -1;
        }
        cl->pending--;
        /* An entry written again after a resync is refused as "equal or smaller": fine. */
        if (rep->type == REDIS_REPLY_ERROR && !strstr(rep->str, "equal or smaller"))
            log_warn("cluster: Redis refused a command: %s", rep->str);
        freeReplyObject(rep);
    }
    return cl->rc ? 0 : -1;
}

/* Queue a command for the turn's pipeline. */
static void append(cluster_t *cl, const char *fmt, ...)
{
    if (!cl->rc) {
        cl->resync = true;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    int rc = redisvAppendCommand(cl->rc, fmt, ap);
    va_end(ap);
    if (rc == REDIS_OK)
        cl->pending++;
    else
        lost(cl, "out of memory");
}

/* Run one command now (after the pipeline). The reply is the caller's, or NULL. */
static redisReply *command(cluster_t *cl, const char *fmt, ...)
{
    if (!cl->rc || drain(cl) < 0) return NULL;
    va_list ap;
    va_start(ap, fmt);
    redisReply *rep = redisvCommand(cl->rc, fmt, ap);
    va_end(ap);
    if (!rep) {
        lost(cl, cl->rc->errstr[0] ? cl->rc->errstr : "no reply");
        return NULL;
    }
    if (rep->type == REDIS_REPLY_ERROR) {
        log_warn("cluster: Redis refused a command: %s", rep->str);
        freeReplyObject(rep);
        return NULL;
    }
    return rep;
}

static long long reply_int(redisReply *rep, long long dflt)
{
    long long v = dflt;
    if (rep && rep->type == REDIS_REPLY_INTEGER) v = rep->integer;
    if (rep && rep->type == REDIS_REPLY_STRING) v = strtoll(rep->str, NULL, 10);
    if (rep) freeReplyObject(rep);
    return v;
}

/* The value of field `name` in a HGETALL or stream-entry array, or NULL. */
static const char *field(const redisReply *a, const char *name)
{
    for (size_t i = 0; a && i + 1 < a->elements; i += 2)
        if (a->element[i]->type == REDIS_REPLY_STRING && strcmp(a->element[i]->str, name) == 0 &&
            a->element[i + 1]->type == REDIS_REPLY_STRING)
            return a->element[i + 1]->str;
    return NULL;
}

static cluster_t *of(const server_t *srv)
{
    return srv->stopping ? NULL : srv->cluster;
}

/* ------------------------------------------------------------------------ */
/* Sessions                                                                 */
/* ------------------------------------------------------------------------ */

/* A session ends for a node: when no node holds it any more, its token and name go.
   With ARGV[3] (node ARGV[2] died, and node ARGV[3] ends what it held), one that
   sits or watches in a room that another living node owns is kept: that node
   claimed the room and restores the session from Redis (its rebuild may be
   under way right now). It stays in the dead node's set, so that the claimer's
   own pass, after its rebuilds, still ends it if it did not restore it. */
static const char *const DROP_SESSION =
    "if ARGV[3] then "
    "  redis.call('SREM', 'tapis:session:'..ARGV[1]..':nodes', ARGV[2]) "
    "  if redis.call('SCARD', 'tapis:session:'..ARGV[1]..':nodes') == 0 then "
    "    for _, room in ipairs(redis.call('SMEMBERS', 'tapis:session:'..ARGV[1]..':rooms')) do "
    "      local o = redis.call('HGET', 'tapis:owner', room) "
    "      if o and o ~= ARGV[2] and o ~= ARGV[3] then return 0 end end end end "
    "redis.call('SREM', 'tapis:session:'..ARGV[1]..':nodes', ARGV[2]) "
    "redis.call('SREM', 'tapis:node:'..ARGV[2]..':sessions', ARGV[1]) "
    "if redis.call('SCARD', 'tapis:session:'..ARGV[1]..':nodes') > 0 then return 0 end "
    "local h = redis.call('HMGET', 'tapis:session:'..ARGV[1], 'hash', 'name_key') "
    "if h[1] then redis.call('DEL', 'tapis:token:'..h[1]) end "
    "if h[2] and redis.call('HGET', 'tapis:names', h[2]) == ARGV[1] then "
    "  redis.call('HDEL', 'tapis:names', h[2]) end "
    "redis.call('DEL', 'tapis:session:'..ARGV[1], 'tapis:session:'..ARGV[1]..':rooms') return 1";

static const char *const RELEASE_NAME =
    "if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then "
    "  return redis.call('HDEL', KEYS[1], ARGV[1]) end return 0";

uint64_t cluster_next_id(server_t *srv, const char *what)
{
    cluster_t *cl = of(srv);
    if (!cl) return 0;
    long long v = reply_int(command(cl, "INCR tapis:seq:%s", what), 0);
    return v > 0 ? (uint64_t)v : 0;
}

int cluster_claim_name(server_t *srv, const char *name_key, uint64_t sid)
{
    cluster_t *cl = of(srv);
    if (!cl) return 0;
    redisReply *rep = command(cl, "HSETNX tapis:names %s %llu", name_key, (unsigned long long)sid);
    if (!rep) return 0; /* Redis is away: the node decides alone (written again later) */
    long long set = reply_int(rep, 0);
    if (set) return 0;
    long long owner = reply_int(command(cl, "HGET tapis:names %s", name_key), 0);
    return owner == 0 || (uint64_t)owner == sid ? 0 : -1;
}

bool cluster_name_free(session_t *s, const char *name)
{
    char key[64];
    size_t i = 0;
    for (; name[i] && i < sizeof key - 1; i++)
        key[i] = name[i] >= 'A' && name[i] <= 'Z' ? (char)(name[i] - 'A' + 'a') : name[i];
    key[i] = 0;
    return cluster_claim_name(s->srv, key, s->id) == 0;
}

void cluster_release_name(server_t *srv, const char *name_key, uint64_t sid)
{
    cluster_t *cl = of(srv);
    if (!cl) return;
    append(cl, "EVAL %s 1 tapis:names %s %llu", RELEASE_NAME, name_key, (unsigned long long)sid);
}

static void write_session(cluster_t *cl, const session_t *s)
{
    unsigned long long id = (unsigned long long)s->id;
    append(cl, "HSET tapis:session:%llu name %s name_key %s hash %s created %lld", id, s->name,
           s->name_key, s->token_hash, (long long)s->created);
    append(cl, "SET tapis:token:%s %llu", s->token_hash, id);
    append(cl, "HSETNX tapis:names %s %llu", s->name_key, id);
    append(cl, "SADD tapis:session:%llu:nodes %s", id, cl->id);
    append(cl, "SADD tapis:node:%s:sessions %llu", cl->id, id);
    for (int i = 0; i < s->nrooms; i++)
        append(cl, "SADD tapis:session:%llu:rooms %s", id, s->rooms[i]->id);
}

void cluster_session_room(const session_t *s, const room_t *r, bool in)
{
    cluster_t *cl = of(s->srv);
    if (!cl || r->cluster_moved) return; /* a room that moved is the other node's now */
    append(cl, "%s tapis:session:%llu:rooms %s", in ? "SADD" : "SREM", (unsigned long long)s->id,
           r->id);
}

void cluster_session_new(const session_t *s)
{
    cluster_t *cl = of(s->srv);
    if (cl) write_session(cl, s);
}

void cluster_session_end(const session_t *s)
{
    cluster_t *cl = of(s->srv);
    if (!cl) return;
    append(cl, "EVAL %s 0 %llu %s", DROP_SESSION, (unsigned long long)s->id, cl->id);
}

int cluster_session_record(server_t *srv, uint64_t sid, durable_session_rec_t *out)
{
    cluster_t *cl = of(srv);
    if (!cl) return -1;
    redisReply *rep = command(cl, "HGETALL tapis:session:%llu", (unsigned long long)sid);
    const char *name = field(rep, "name"), *hash = field(rep, "hash"),
               *created = field(rep, "created");
    int rc = -1;
    if (name && hash && strlen(hash) == DURABLE_TOKEN_HASH_LEN) {
        memset(out, 0, sizeof *out);
        out->id = sid;
        snprintf(out->name, sizeof out->name, "%s", name);
        snprintf(out->token_hash, sizeof out->token_hash, "%s", hash);
        out->created = created ? strtoll(created, NULL, 10) : 0;
        rc = 0;
    }
    if (rep) freeReplyObject(rep);
    return rc;
}

uint64_t cluster_token_session(server_t *srv, const char *token_hash)
{
    cluster_t *cl = of(srv);
    if (!cl) return 0;
    long long sid = reply_int(command(cl, "GET tapis:token:%s", token_hash), 0);
    return sid > 0 ? (uint64_t)sid : 0;
}

/* ------------------------------------------------------------------------ */
/* Rooms                                                                    */
/* ------------------------------------------------------------------------ */

static void write_meta(cluster_t *cl, room_t *r)
{
    json_t *m = r->cluster_meta;
    append(cl, "HSET tapis:room:%s game %s players %d options %s seed %s private %d rid %llu",
           r->id, r->desc->id, r->nseats, json_string_value(json_object_get(m, "options")),
           json_string_value(json_object_get(m, "seed")), r->private_room ? 1 : 0,
           (unsigned long long)r->rid);
}

static void write_entry(cluster_t *cl, const char *room, const json_t *e)
{
    /* [n, kind, seat, at, data-or-null] */
    unsigned long long n = (unsigned long long)json_integer_value(json_array_get(e, 0));
    const char *kind = json_string_value(json_array_get(e, 1));
    long long seat = json_integer_value(json_array_get(e, 2));
    long long at = json_integer_value(json_array_get(e, 3));
    const char *data = json_string_value(json_array_get(e, 4));
    if (data)
        append(cl, "XADD tapis:journal:%s 0-%llu kind %s seat %lld at %lld data %s", room, n, kind,
               seat, at, data);
    else
        append(cl, "XADD tapis:journal:%s 0-%llu kind %s seat %lld at %lld", room, n, kind, seat,
               at);
}

static void write_directory(cluster_t *cl, room_t *r)
{
    json_t *s = room_summary(r);
    json_object_set_new(s, "node", json_string(cl->id));
    json_object_set_new(s, "rid", json_integer((json_int_t)r->rid));
    char *text = json_dumps(s, JSON_COMPACT);
    json_decref(s);
    if (!text) return;
    append(cl, "HSET tapis:rooms %s %s", r->id, text);
    append(cl, "PUBLISH " CHANNEL " %s", text);
    free(text);
}

void cluster_room_new(room_t *r, const json_t *options, uint64_t seed)
{
    cluster_t *cl = r->srv->cluster;
    if (!cl) return;
    char *o = json_dumps(options, JSON_COMPACT);
    char sd[24];
    snprintf(sd, sizeof sd, "%llu", (unsigned long long)seed);
    r->cluster_meta = json_pack("{s:s, s:s}", "options", o ? o : "{}", "seed", sd);
    free(o);
    r->cluster_journal = json_array();
    if (r->srv->stopping) return;
    write_meta(cl, r);
    append(cl, "HSET tapis:owner %s %s", r->id, cl->id);
    append(cl, "SADD tapis:node:%s:rooms %s", cl->id, r->id);
}

void cluster_journal(room_t *r, uint64_t n, const char *kind, int seat, int64_t at,
                     const json_t *data)
{
    cluster_t *cl = r->srv->cluster;
    if (!cl) return;
    char *text = data ? json_dumps(data, JSON_COMPACT) : NULL;
    json_t *e = json_pack("[I, s, i, I, s?]", (json_int_t)n, kind, seat, (json_int_t)at, text);
    free(text);
    if (!e) return;
    if (!r->cluster_journal) r->cluster_journal = json_array();
    json_array_append(r->cluster_journal, e);
    if (!r->srv->stopping) write_entry(cl, r->id, e);
    json_decref(e);
}

void cluster_room_changed(room_t *r)
{
    cluster_t *cl = of(r->srv);
    if (cl && !r->closed) write_directory(cl, r);
}

void cluster_watcher(room_t *r, const session_t *s, bool watching)
{
    cluster_t *cl = of(r->srv);
    if (!cl) return;
    append(cl, "%s tapis:watchers:%s %llu", watching ? "SADD" : "SREM", r->id,
           (unsigned long long)s->id);
}

static void publish_gone(cluster_t *cl, const char *id)
{
    json_t *m = json_pack("{s:s, s:b, s:s}", "room", id, "gone", 1, "node", cl->id);
    char *text = json_dumps(m, JSON_COMPACT);
    json_decref(m);
    if (text) append(cl, "PUBLISH " CHANNEL " %s", text);
    free(text);
}

/* Forget room id everywhere in Redis (it ended, or cannot be rebuilt). */
static void forget_room(cluster_t *cl, const char *id, const char *node)
{
    append(cl, "HDEL tapis:rooms %s", id);
    append(cl, "HDEL tapis:owner %s", id);
    append(cl, "SREM tapis:node:%s:rooms %s", node, id);
    append(cl, "DEL tapis:room:%s tapis:journal:%s tapis:watchers:%s", id, id, id);
    publish_gone(cl, id);
}

void cluster_room_gone(room_t *r)
{
    cluster_t *cl = of(r->srv);
    if (!cl || r->cluster_moved) return; /* a room that moved is the other node's now */
    forget_room(cl, r->id, cl->id);
}

void cluster_room_free(room_t *r)
{
    json_decref(r->cluster_meta);
    json_decref(r->cluster_journal);
    r->cluster_meta = r->cluster_journal = NULL;
}

/* ------------------------------------------------------------------------ */
/* Writing again what Redis lost; adopting rooms at a start                 */
/* ------------------------------------------------------------------------ */

/* Own room r if nobody else does. */
static const char *const ADOPT =
    "local o = redis.call('HGET', 'tapis:owner', ARGV[1]) "
    "if o and o ~= ARGV[2] then return o end "
    "redis.call('HSET', 'tapis:owner', ARGV[1], ARGV[2]) "
    "redis.call('SADD', 'tapis:node:'..ARGV[2]..':rooms', ARGV[1]) return ARGV[2]";

/* Counters never go back below what the nodes have handed out. */
static const char *const RAISE =
    "if tonumber(redis.call('GET', KEYS[1]) or '0') < tonumber(ARGV[1]) then "
    "  redis.call('SET', KEYS[1], ARGV[1]) end return 0";

/* Write room r again (meta, owner, journal, watchers, directory), or drop it when
   another node owns it now. Returns false when it was dropped. */
static bool adopt_room(cluster_t *cl, room_t *r)
{
    redisReply *rep = command(cl, "EVAL %s 0 %s %s", ADOPT, r->id, cl->id);
    if (!rep) return true; /* Redis away: keep it; the next resync asks again */
    bool ours = rep->type == REDIS_REPLY_STRING && strcmp(rep->str, cl->id) == 0;
    if (!ours) {
        log_warn("room %s: node %s hosts it now; dropped here", r->id,
                 rep->type == REDIS_REPLY_STRING ? rep->str : "?");
        freeReplyObject(rep);
        r->cluster_moved = true;
        if (cl->hooks) cl->hooks->room_moved(cl->hooks_ctx, r); /* the lobby closes it */
        return false;
    }
    freeReplyObject(rep);
    if (r->cluster_meta) write_meta(cl, r);
    size_t i;
    json_t *e;
    json_array_foreach(r->cluster_journal, i, e) write_entry(cl, r->id, e);
    for (int w = 0; w < r->nwatchers; w++)
        append(cl, "SADD tapis:watchers:%s %llu", r->id, (unsigned long long)r->watchers[w]->id);
    write_directory(cl, r);
    return true;
}

static void adopt_all(cluster_t *cl)
{
    server_t *srv = cl->srv;
    append(cl, "EVAL %s 1 tapis:seq:room %llu", RAISE, (unsigned long long)srv->rooms_created);
    append(cl, "EVAL %s 1 tapis:seq:session %llu", RAISE, (unsigned long long)srv->next_session_id);
    for (queue_t *q = queue_head(&srv->sessions); q != &srv->sessions; q = queue_next(q))
        write_session(cl, queue_data(q, session_t, node));
    queue_t *q = queue_head(&srv->rooms);
    while (q != &srv->rooms) {
        room_t *r = queue_data(q, room_t, node);
        q = queue_next(q); /* r may be dropped */
        adopt_room(cl, r);
    }
    drain(cl);
}

void cluster_adopt_restored(server_t *srv)
{
    cluster_t *cl = srv->cluster;
    if (!cl || !cl->rc) return;
    adopt_all(cl);
    cl->resync = cl->rc == NULL;
}

/* ------------------------------------------------------------------------ */
/* Taking over the rooms of a dead node                                     */
/* ------------------------------------------------------------------------ */

static const char *const CLAIM =
    "if redis.call('HGET', 'tapis:owner', ARGV[1]) ~= ARGV[2] then return 0 end "
    "redis.call('HSET', 'tapis:owner', ARGV[1], ARGV[3]) "
    "redis.call('SMOVE', 'tapis:node:'..ARGV[2]..':rooms', 'tapis:node:'..ARGV[3]..':rooms', "
    "ARGV[1]) return 1";

/* Room id's record from Redis: meta, journal stream (its seats from the "seat"
   entries), watchers. Returns 0, or -1 with why. */
static int read_room(cluster_t *cl, const char *id, durable_room_rec_t *rec, char *why,
                     size_t whylen)
{
    redisReply *meta = command(cl, "HGETALL tapis:room:%s", id);
    redisReply *ents = meta ? command(cl, "XRANGE tapis:journal:%s - +", id) : NULL;
    const char *game = field(meta, "game"), *players = field(meta, "players"),
               *options = field(meta, "options"), *seed = field(meta, "seed"),
               *priv = field(meta, "private"), *rid = field(meta, "rid");
    int rc = -1;
    if (!meta || !ents || !options || !seed || !rid) {
        snprintf(why, whylen, "its record is not in Redis");
        goto out;
    }
    snprintf(rec->id, sizeof rec->id, "%s", id);
    snprintf(rec->game, sizeof rec->game, "%s", game ? game : "?");
    rec->players = players ? atoi(players) : 0;
    rec->rid = strtoull(rid, NULL, 10);
    rec->seed = strtoull(seed, NULL, 10);
    rec->private_room = priv && atoi(priv) != 0;
    if (!(rec->options = tapis_strdup(options))) {
        snprintf(why, whylen, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < ents->elements; i++) {
        redisReply *e = ents->element[i];
        if (e->type != REDIS_REPLY_ARRAY || e->elements != 2) continue;
        const char *dash = strchr(e->element[0]->str, '-');
        uint64_t en = dash ? strtoull(dash + 1, NULL, 10) : 0;
        const char *kind = field(e->element[1], "kind"), *data = field(e->element[1], "data");
        const char *seat_s = field(e->element[1], "seat"), *at_s = field(e->element[1], "at");
        int seat = seat_s ? atoi(seat_s) : -1;
        if (!kind) kind = "?";
        if (durable_rec_add_entry(rec, en, kind, seat, at_s ? strtoll(at_s, NULL, 10) : 0, data) <
            0) {
            snprintf(rec->error, sizeof rec->error, "out of memory");
            break;
        }
        if (strcmp(kind, "start") == 0) rec->playing = true;
        if (strcmp(kind, "seat") == 0 && seat >= 0 && seat < rec->players &&
            seat < GAME_MAX_SEATS) {
            json_t *who = data ? json_loads(data, 0, NULL) : NULL;
            const char *bot = json_string_value(json_object_get(who, "bot"));
            rec->seats[seat].bot = bot != NULL;
            snprintf(rec->seats[seat].strategy, sizeof rec->seats[seat].strategy, "%s",
                     bot ? bot : "");
            rec->seats[seat].session =
                (uint64_t)json_integer_value(json_object_get(who, "session"));
            json_decref(who);
        }
    }
    redisReply *w = command(cl, "SMEMBERS tapis:watchers:%s", id);
    for (size_t i = 0; w && i < w->elements; i++)
        durable_rec_add_watcher(rec, strtoull(w->element[i]->str, NULL, 10));
    if (w) freeReplyObject(w);
    rc = 0;
out:
    if (meta) freeReplyObject(meta);
    if (ents) freeReplyObject(ents);
    return rc;
}

/* Rebuild room id from its record: the lobby replays and hosts it (its hook).
   Returns true when it is hosted here (logged; else forgotten). */
static bool rebuild(cluster_t *cl, const char *id, const char *dead)
{
    char why[400] = "";
    durable_room_rec_t rec = {0};
    struct room *r = NULL;
    json_t *result = NULL;
    durable_verdict_t v = DURABLE_ROOM_BAD;
    if (read_room(cl, id, &rec, why, sizeof why) == 0) {
        if (cl->hooks)
            v = cl->hooks->room(cl->hooks_ctx, &rec, &r, &result, why, sizeof why);
        else
            snprintf(why, sizeof why, "this node rebuilds no rooms");
    }
    json_decref(result);
    if (v == DURABLE_ROOM_REBUILT) {
        log_notice("cluster: room %s taken over from node %s (%llu entries replayed)", id, dead,
                   (unsigned long long)rec.nentries);
        write_directory(cl, r);
    } else if (v == DURABLE_ROOM_OVER) {
        log_notice("cluster: room %s of node %s had ended; forgotten", id, dead);
        forget_room(cl, id, cl->id);
    } else {
        log_error("cluster: room %s of node %s cannot be rebuilt: %s; left out", id, dead, why);
        forget_room(cl, id, cl->id);
    }
    durable_rec_clear(&rec);
    return v == DURABLE_ROOM_REBUILT;
}

void cluster_set_hooks(server_t *srv, const cluster_hooks_t *h, void *ctx)
{
    cluster_t *cl = srv->cluster;
    if (!cl) return;
    cl->hooks = h;
    cl->hooks_ctx = ctx;
}

static void take_over(cluster_t *cl, const char *dead)
{
    uint64_t t0 = uv_hrtime();
    redisReply *rooms = command(cl, "SMEMBERS tapis:node:%s:rooms", dead);
    int taken = 0, total = rooms ? (int)rooms->elements : 0;
    for (int i = 0; i < total; i++) {
        const char *id = rooms->element[i]->str;
        if (reply_int(command(cl, "EVAL %s 0 %s %s %s", CLAIM, id, dead, cl->id), 0) != 1)
            continue; /* another node claimed it */
        if (rebuild(cl, id, dead)) taken++;
    }
    cl->srv->metrics.taken_over += (uint64_t)taken;
    if (rooms) freeReplyObject(rooms);
    /* Its sessions: this node holds those it restored, the node that claimed a
       room those of that room (maybe restoring them now); the others end with it. */
    redisReply *ses = command(cl, "SMEMBERS tapis:node:%s:sessions", dead);
    for (size_t i = 0; ses && i < ses->elements; i++)
        append(cl, "EVAL %s 0 %s %s %s", DROP_SESSION, ses->element[i]->str, dead, cl->id);
    if (ses) freeReplyObject(ses);
    append(cl, "SREM tapis:nodes %s", dead);
    drain(cl);
    log_notice("cluster: node %s is gone; %d of its %d rooms taken over here in %.0f ms", dead,
               taken, total, (double)(uv_hrtime() - t0) / 1e6);
    cluster_commit(cl->srv);
}

/* ------------------------------------------------------------------------ */
/* The directory, through the channel                                       */
/* ------------------------------------------------------------------------ */

static void dir_clear(cluster_t *cl)
{
    dir_room_t *e, *tmp;
    HASH_ITER(hh, cl->dir, e, tmp)
    {
        HASH_DEL(cl->dir, e);
        json_decref(e->summary);
        tapis_free(e);
    }
}

/* One directory message (or HGETALL value): {summary..., node, rid} or {room, gone, node}. */
static void dir_apply(cluster_t *cl, const char *text, size_t len)
{
    json_t *m = json_loadb(text, len, 0, NULL);
    const char *id = json_string_value(json_object_get(m, "room"));
    const char *node = json_string_value(json_object_get(m, "node"));
    if (!id || !node || strlen(id) > ROOM_ID_LEN || strlen(node) > 32) {
        json_decref(m);
        return;
    }
    dir_room_t *e;
    HASH_FIND_STR(cl->dir, id, e);
    if (json_is_true(json_object_get(m, "gone"))) {
        if (e && strcmp(e->node, node) == 0) {
            HASH_DEL(cl->dir, e);
            json_decref(e->summary);
            tapis_free(e);
        }
        json_decref(m);
        return;
    }
    if (strcmp(node, cl->id) == 0) { /* this node's own rooms are known here */
        if (e) {
            HASH_DEL(cl->dir, e);
            json_decref(e->summary);
            tapis_free(e);
        }
        json_decref(m);
        return;
    }
    if (!e) {
        if (!(e = tapis_calloc(1, sizeof *e))) {
            json_decref(m);
            return;
        }
        snprintf(e->id, sizeof e->id, "%s", id);
        HASH_ADD_STR(cl->dir, id, e);
        if (!e->hh.tbl) {
            tapis_free(e);
            json_decref(m);
            return;
        }
    }
    snprintf(e->node, sizeof e->node, "%s", node);
    e->rid = (uint64_t)json_integer_value(json_object_get(m, "rid"));
    json_object_del(m, "rid");
    json_decref(e->summary);
    e->summary = m;
    if (!queue_empty(&cl->srv->relinking)) relay_room_moved(cl->srv, e->id);
}

static void dir_load(cluster_t *cl)
{
    redisReply *rep = command(cl, "HGETALL tapis:rooms");
    dir_clear(cl);
    for (size_t i = 0; rep && i + 1 < rep->elements; i += 2)
        dir_apply(cl, rep->element[i + 1]->str, rep->element[i + 1]->len);
    if (rep) freeReplyObject(rep);
}

static void on_message(redisAsyncContext *ac, void *reply, void *priv)
{
    (void)ac;
    cluster_t *cl = priv;
    redisReply *r = reply;
    if (!r || r->type != REDIS_REPLY_ARRAY || r->elements < 3) return;
    if (strcmp(r->element[0]->str, "message") == 0) {
        dir_apply(cl, r->element[2]->str, r->element[2]->len);
    } else if (strcmp(r->element[0]->str, "subscribe") == 0) {
        cl->sub_ready = true;
        dir_load(cl); /* after subscribing: nothing published since is missed */
    }
}

static void on_sub_connect(const redisAsyncContext *ac, int status)
{
    cluster_t *cl = ac->data;
    if (status != REDIS_OK) cl->sub = NULL; /* hiredis frees it */
}

static void on_sub_disconnect(const redisAsyncContext *ac, int status)
{
    (void)status;
    cluster_t *cl = ac->data;
    cl->sub = NULL;
    cl->sub_ready = false;
}

static void subscribe(cluster_t *cl)
{
    if (cl->sub || cl->srv->stopping) return;
    redisAsyncContext *ac = redisAsyncConnect(cl->srv->opts.redis_host, cl->srv->opts.redis_port);
    if (!ac) return;
    if (ac->err) {
        redisAsyncFree(ac);
        return;
    }
    ac->data = cl;
    redisLibuvAttach(ac, cl->srv->loop);
    redisAsyncSetConnectCallback(ac, on_sub_connect);
    redisAsyncSetDisconnectCallback(ac, on_sub_disconnect);
    redisAsyncCommand(ac, on_message, cl, "SUBSCRIBE " CHANNEL);
    cl->sub = ac;
}

/* ------------------------------------------------------------------------ */
/* Nodes and the heartbeat                                                  */
/* ------------------------------------------------------------------------ */

static void resolve(node_t *n)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
    if (getaddrinfo(n->host, NULL, &hints, &res) != 0 || !res) {
        n->ip[0] = 0;
        return;
    }
    if (res->ai_family == AF_INET6)
        uv_ip6_name((struct sockaddr_in6 *)res->ai_addr, n->ip, sizeof n->ip);
    else
        uv_ip4_name((struct sockaddr_in *)res->ai_addr, n->ip, sizeof n->ip);
    freeaddrinfo(res);
}

static int split_addr(const char *addr, char host[256], int *port)
{
    const char *colon = strrchr(addr, ':');
    if (!colon || colon == addr || colon - addr >= 255) return -1;
    const char *h = addr;
    size_t len = (size_t)(colon - addr);
    if (h[0] == '[' && len > 2) {
        h++;
        len -= 2;
    }
    memcpy(host, h, len);
    host[len] = 0;
    *port = atoi(colon + 1);
    return *port > 0 ? 0 : -1;
}

static void node_seen(cluster_t *cl, const char *id, const char *record)
{
    json_t *j = json_loads(record, 0, NULL);
    const char *addr = json_string_value(json_object_get(j, "addr"));
    node_t *n;
    HASH_FIND_STR(cl->nodes, id, n);
    if (!n && addr && strlen(id) < sizeof n->id && (n = tapis_calloc(1, sizeof *n))) {
        snprintf(n->id, sizeof n->id, "%s", id);
        HASH_ADD_STR(cl->nodes, id, n);
        if (!n->hh.tbl) {
            tapis_free(n);
            n = NULL;
        }
    }
    /* New, or started again somewhere else: where it is now. */
    if (n && addr && strcmp(n->addr, addr) != 0 && strlen(addr) < sizeof n->addr &&
        split_addr(addr, n->host, &n->port) == 0) {
        snprintf(n->addr, sizeof n->addr, "%s", addr);
        resolve(n);
        n->link_fails = 0; /* a new process: what the old one refused says nothing of it */
        n->link_retry_at = 0;
        log_notice("cluster: node %s at %s", id, addr);
    }
    if (n) {
        n->seen = true;
        n->rooms = (int)json_integer_value(json_object_get(j, "rooms"));
    }
    json_decref(j);
}

static void beat(cluster_t *cl)
{
    server_t *srv = cl->srv;
    if (srv->stopping || !connect_sync(cl)) return;
    char rec[512];
    snprintf(rec, sizeof rec, "{\"id\":\"%s\",\"addr\":\"%s\",\"rooms\":%d,\"conns\":%d}", cl->id,
             cl->addr, srv->nrooms, srv->nconns);
    /* GET: a node whose key had expired was taken for dead; what it holds may be gone. */
    redisReply *was = command(cl, "SET tapis:node:%s %s PX %llu GET", cl->id, rec,
                              (unsigned long long)srv->opts.node_ttl);
    if (!was) return;
    cl->fails = 0; /* Redis answers again */
    if (cl->said_down) log_notice("cluster: Redis is back");
    cl->said_down = false;
    bool expired = was->type == REDIS_REPLY_NIL;
    freeReplyObject(was);
    append(cl, "SADD tapis:nodes %s", cl->id);
    if (cl->joined && expired) {
        log_warn("cluster: this node's heartbeat had expired; checking what it still hosts");
        cl->resync = true;
    }
    cl->joined = true;
    if (cl->resync) {
        cl->resync = false;
        adopt_all(cl);
    }
    if (!cl->sub) subscribe(cl);
    redisReply *ids = command(cl, "SMEMBERS tapis:nodes");
    node_t *n, *tmp;
    HASH_ITER(hh, cl->nodes, n, tmp) n->seen = false;
    for (size_t i = 0; ids && i < ids->elements; i++) {
        const char *id = ids->element[i]->str;
        if (strcmp(id, cl->id) == 0) continue;
        redisReply *r = command(cl, "GET tapis:node:%s", id);
        if (r && r->type == REDIS_REPLY_STRING)
            node_seen(cl, id, r->str);
        else if (r)
            take_over(cl, id);
        if (r) freeReplyObject(r);
    }
    if (ids) freeReplyObject(ids);
    HASH_ITER(hh, cl->nodes, n, tmp)
    if (!n->seen) {
        log_notice("cluster: node %s left", n->id);
        HASH_DEL(cl->nodes, n);
        tapis_free(n);
    }
    drain(cl);
    relay_retry(srv); /* links to rooms back on a node: a message may have come too early */
}

static void on_beat(uv_timer_t *t)
{
    beat(t->data);
}

/* ------------------------------------------------------------------------ */
/* Routing                                                                  */
/* ------------------------------------------------------------------------ */

bool cluster_health(const server_t *srv, int *nodes)
{
    cluster_t *cl = srv->cluster;
    *nodes = cl ? 1 + (int)HASH_COUNT(cl->nodes) : 0;
    return cl && cl->rc;
}

const char *cluster_node_id(const server_t *srv)
{
    return srv->cluster ? srv->cluster->id : "";
}

const char *cluster_dir_node(server_t *srv, const char *id)
{
    cluster_t *cl = of(srv);
    dir_room_t *e = NULL;
    if (cl) HASH_FIND_STR(cl->dir, id, e);
    return e ? e->node : NULL;
}

const char *cluster_room_node(server_t *srv, const char *id)
{
    cluster_t *cl = of(srv);
    if (!cl) return NULL;
    dir_room_t *e;
    HASH_FIND_STR(cl->dir, id, e);
    if (e) return e->node;
    /* Not in the copy yet (its node's message may still be on its way: a room
       created a moment ago on another node): ask Redis, which had it before
       its creator had the reply. */
    redisReply *rep = command(cl, "HGET tapis:owner %s", id);
    node_t *n = NULL;
    if (rep && rep->type == REDIS_REPLY_STRING) HASH_FIND_STR(cl->nodes, rep->str, n);
    if (rep) freeReplyObject(rep);
    return n ? n->id : NULL;
}

const char *cluster_place_room(server_t *srv)
{
    cluster_t *cl = of(srv);
    if (!cl || !cl->rc) return NULL;
    node_t *best = NULL, *n, *tmp;
    int least = srv->nrooms;
    HASH_ITER(hh, cl->nodes, n, tmp)
    if (n->rooms < least && n->ip[0]) {
        least = n->rooms;
        best = n;
    }
    if (!best) return NULL;
    best->rooms++; /* until its next heartbeat says */
    return best->id;
}

int cluster_node_addr(server_t *srv, const char *id, char ip[64], int *port)
{
    cluster_t *cl = srv->cluster;
    node_t *n = NULL;
    if (cl) HASH_FIND_STR(cl->nodes, id, n);
    if (!n || !n->ip[0]) return -1;
    snprintf(ip, 64, "%s", n->ip);
    *port = n->port;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Links to the other nodes: backing off from a node that refused           */
/* ------------------------------------------------------------------------ */

#define LINK_RETRY_FIRST_MS 100 /* then twice as long after each failure, up to a heartbeat */

static node_t *node_of(server_t *srv, const char *id)
{
    node_t *n = NULL;
    if (srv->cluster) HASH_FIND_STR(srv->cluster->nodes, id, n);
    return n;
}

void cluster_link_failed(server_t *srv, const char *id)
{
    node_t *n = node_of(srv, id);
    int64_t now = server_now_ms(srv);
    /* The other links that break while it backs off saw the same failure (a
       node that dies breaks every link at once): one step of the backoff. */
    if (!n || now < n->link_retry_at) return;
    /* Capped at a heartbeat, when the links of rooms back elsewhere open
       anyway: a node that restarts where it was is found again as soon. */
    int64_t cap = (int64_t)srv->opts.node_ttl / 3;
    int64_t wait = (int64_t)LINK_RETRY_FIRST_MS << (n->link_fails < 10 ? n->link_fails : 10);
    n->link_fails++;
    n->link_retry_at = now + (wait < cap ? wait : cap);
}

void cluster_link_up(server_t *srv, const char *id)
{
    node_t *n = node_of(srv, id);
    if (!n) return;
    n->link_fails = 0;
    n->link_retry_at = 0;
}

int64_t cluster_link_wait_ms(server_t *srv, const char *id)
{
    node_t *n = node_of(srv, id);
    int64_t left = n ? n->link_retry_at - server_now_ms(srv) : 0;
    return left > 0 ? left : 0;
}

bool cluster_is_node_ip(const server_t *srv, const char *ip)
{
    cluster_t *cl = srv->cluster;
    if (!cl) return false;
    node_t *n, *tmp;
    HASH_ITER(hh, cl->nodes, n, tmp)
    if (strcmp(n->ip, ip) == 0) return true;
    return false;
}

static int by_rid_desc(const void *a, const void *b)
{
    const cluster_room_ref_t *x = a, *y = b;
    return x->rid < y->rid ? 1 : x->rid > y->rid ? -1 : 0;
}

/* Does `name` sit at the table of summary s? */
static bool seated(const json_t *s, const char *name)
{
    size_t i;
    json_t *seat;
    json_array_foreach(json_object_get(s, "seats"), i, seat)
    {
        const char *n = json_string_value(json_object_get(seat, "name"));
        if (n && !json_is_true(json_object_get(seat, "bot")) && strcasecmp(n, name) == 0)
            return true;
    }
    return false;
}

int cluster_remote_rooms(server_t *srv, const char *viewer_name, const char *game, int status,
                         cluster_room_ref_t **out)
{
    cluster_t *cl = of(srv);
    *out = NULL;
    if (!cl || !cl->dir) return 0;
    cluster_room_ref_t *v = tapis_malloc(HASH_COUNT(cl->dir) * sizeof *v);
    if (!v) return -1;
    int n = 0;
    dir_room_t *e, *tmp;
    HASH_ITER(hh, cl->dir, e, tmp)
    {
        const json_t *s = e->summary;
        if (room_find(srv, e->id)) continue; /* it moved here */
        if (game && strcmp(game, json_string_value(json_object_get(s, "game"))) != 0) continue;
        if (status >= 0 && strcmp(room_status_name((room_status_t)status),
                                  json_string_value(json_object_get(s, "status"))) != 0)
            continue;
        if (json_is_true(json_object_get(s, "private")) && !seated(s, viewer_name)) continue;
        v[n].rid = e->rid;
        v[n].summary = s;
        n++;
    }
    qsort(v, (size_t)n, sizeof *v, by_rid_desc);
    *out = v;
    return n;
}

json_t *cluster_session_rooms(server_t *srv, const session_t *s)
{
    cluster_t *cl = of(srv);
    if (!cl) return NULL;
    json_t *list = json_array();
    redisReply *rep = command(cl, "SMEMBERS tapis:session:%llu:rooms", (unsigned long long)s->id);
    for (size_t i = 0; rep && i < rep->elements; i++) {
        const char *id = rep->element[i]->str;
        const char *node = room_find(srv, id) ? NULL : cluster_room_node(srv, id);
        if (node) json_array_append_new(list, json_pack("[s, s]", id, node));
    }
    if (rep) freeReplyObject(rep);
    return list;
}

/* ------------------------------------------------------------------------ */
/* The durability backend                                                   */
/* ------------------------------------------------------------------------ */

static int d_commit(void *srv)
{
    cluster_commit(srv);
    return 0;
}

static uint64_t d_next_id(void *srv, const char *what)
{
    return cluster_next_id(srv, what);
}

static void d_session_new(void *srv, const session_t *s)
{
    (void)srv;
    cluster_session_new(s);
}

static void d_session_end(void *srv, const session_t *s)
{
    (void)srv;
    cluster_session_end(s);
}

static void d_session_room(void *srv, const session_t *s, const room_t *r, bool in)
{
    (void)srv;
    cluster_session_room(s, r, in);
}

static void d_room_new(void *srv, room_t *r, const json_t *options, uint64_t seed)
{
    (void)srv;
    cluster_room_new(r, options, seed);
}

static void d_room_closed(void *srv, room_t *r, bool over)
{
    (void)srv;
    (void)over;
    cluster_room_gone(r);
}

static void d_room_changed(void *srv, room_t *r)
{
    (void)srv;
    cluster_room_changed(r);
}

static void d_room_free(void *srv, room_t *r)
{
    (void)srv;
    cluster_room_free(r);
}

static void d_watcher(void *srv, room_t *r, const session_t *s, bool watching)
{
    (void)srv;
    cluster_watcher(r, s, watching);
}

static void d_journal(void *srv, room_t *r, uint64_t n, const char *kind, int seat, int64_t at,
                      const json_t *data)
{
    (void)srv;
    cluster_journal(r, n, kind, seat, at, data);
}

/* A rename writes the session's record again, under its new name. */
const durable_backend_t cluster_durable = {
    .name = "cluster",
    .commit = d_commit,
    .next_id = d_next_id,
    .session_new = d_session_new,
    .session_rename = d_session_new,
    .session_end = d_session_end,
    .session_room = d_session_room,
    .room_new = d_room_new,
    .room_closed = d_room_closed,
    .room_changed = d_room_changed,
    .room_free = d_room_free,
    .watcher = d_watcher,
    .journal = d_journal,
};

/* ------------------------------------------------------------------------ */
/* Start and stop                                                           */
/* ------------------------------------------------------------------------ */

void cluster_commit(server_t *srv)
{
    cluster_t *cl = srv->cluster;
    if (cl && cl->pending) drain(cl);
}

int cluster_init(server_t *srv)
{
    if (!srv->opts.redis_host[0]) return 0;
    cluster_t *cl = tapis_calloc(1, sizeof *cl);
    if (!cl) return -1;
    cl->srv = srv;
    srv->cluster = cl;
    srv->node_id = cl->id;
    return 0;
}

int cluster_start(server_t *srv)
{
    cluster_t *cl = srv->cluster;
    if (!cl) return 0;
    const server_opts_t *o = &srv->opts;
    if (o->advertise[0]) {
        snprintf(cl->addr, sizeof cl->addr, "%s", o->advertise);
    } else if (strcmp(o->host, "0.0.0.0") == 0 || strcmp(o->host, "::") == 0) {
        log_error("cluster: listening on %s, the other nodes need --advertise HOST:PORT", o->host);
        return -1;
    } else {
        struct sockaddr_storage ss;
        int len = sizeof ss;
        int port = o->port;
        if (uv_tcp_getsockname(&srv->listener, (struct sockaddr *)&ss, &len) == 0)
            port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
        snprintf(cl->addr, sizeof cl->addr, strchr(o->host, ':') ? "[%s]:%d" : "%s:%d", o->host,
                 port);
    }
    snprintf(cl->id, sizeof cl->id, "%s", o->node_id);
    if (!cl->id[0]) { /* the advertised address, made a valid id */
        size_t j = 0;
        for (const char *p = cl->addr; *p && j < sizeof cl->id - 1; p++)
            if (*p != '[' && *p != ']') cl->id[j++] = *p == ':' ? '-' : *p;
        cl->id[j] = 0;
    }
    if (!connect_sync(cl)) {
        log_error("cluster: Redis %s:%d cannot be reached; not starting", o->redis_host,
                  o->redis_port);
        return -1;
    }
    uv_timer_init(srv->loop, &cl->beat);
    cl->beat.data = cl;
    cluster_adopt_restored(srv);
    beat(cl);
    subscribe(cl);
    uint64_t period = o->node_ttl / 3;
    uv_timer_start(&cl->beat, on_beat, period, period);
    log_notice("cluster: node %s (%s) joined through Redis %s:%d, heartbeat every %llu ms", cl->id,
               cl->addr, o->redis_host, o->redis_port, (unsigned long long)period);
    return 0;
}

void cluster_stop(server_t *srv)
{
    cluster_t *cl = srv->cluster;
    if (!cl) return;
    drain(cl);
    uv_close((uv_handle_t *)&cl->beat, NULL);
    if (cl->sub) {
        redisAsyncContext *ac = cl->sub;
        cl->sub = NULL;
        redisAsyncDisconnect(ac);
    }
}

void cluster_free(server_t *srv)
{
    cluster_t *cl = srv->cluster;
    if (!cl) return;
    dir_clear(cl);
    node_t *n, *tmp;
    HASH_ITER(hh, cl->nodes, n, tmp)
    {
        HASH_DEL(cl->nodes, n);
        tapis_free(n);
    }
    if (cl->rc) redisFree(cl->rc);
    srv->cluster = NULL;
    srv->node_id = NULL;
    tapis_free(cl);
}
