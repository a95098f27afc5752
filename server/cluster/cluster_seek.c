/*
 * cluster_seek.c — matchmaking's queue as the cluster's, in its Redis
 * (docs/CLUSTER.md, "Matchmaking"); server/lobby/seek.c decides the
 * matches.
 *
 *   tapis:seek        HASH  session id -> its seeker, JSON text with its "node"
 *   tapis:seek:NODE   channel: node NODE's seekers that another node seated
 *
 * Every command here goes on the asynchronous context: the loop never waits
 * for Redis. A group leaves the queue in one script that first checks each
 * seeker is still there unchanged, so a seeker is never matched twice, by
 * two nodes matching at once. A dead node's seekers leave the queue when
 * its rooms are taken over, and a node's own from a former life when it
 * starts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/base/log.h"
#include "server/cluster/cluster_int.h"

/* ARGV: sid, text, sid, text...: all still queued as read, then all out; else none. */
static const char TAKE_SCRIPT[] =
    "for i = 1, #ARGV, 2 do "
    "  if redis.call('HGET', 'tapis:seek', ARGV[i]) ~= ARGV[i + 1] "
    "  then return 0 end "
    "end "
    "for i = 1, #ARGV, 2 do redis.call('HDEL', 'tapis:seek', ARGV[i]) "
    "end return 1";

/* ARGV[1]: a node whose seekers leave the queue. */
static const char REAP_SCRIPT[] = "local all = redis.call('HGETALL', 'tapis:seek') local n = 0 "
                                  "for i = 1, #all, 2 do "
                                  "  local ok, e = pcall(cjson.decode, all[i + 1]) "
                                  "  if not ok or type(e) ~= 'table' or e.node == ARGV[1] then "
                                  "    redis.call('HDEL', 'tapis:seek', all[i]) n = n + 1 end "
                                  "end return n";

typedef struct seek_call {
    server_t *srv;
    cluster_seek_cb read;
    cluster_seek_taken_cb taken;
    void *arg;
} seek_call_t;

static seek_call_t *call_new(server_t *srv, cluster_seek_cb read, cluster_seek_taken_cb taken,
                             void *arg)
{
    seek_call_t *c = tapis_calloc(1, sizeof *c);
    if (c) *c = (seek_call_t){srv, read, taken, arg};
    return c;
}

int cluster_seek_put(server_t *srv, uint64_t sid, const char *entry)
{
    cluster_t *cl = cluster__of(srv);
    return cl ? cluster__async(cl, NULL, NULL, "HSET tapis:seek %llu %s", (unsigned long long)sid,
                               entry)
              : -1;
}

void cluster_seek_drop(server_t *srv, uint64_t sid)
{
    cluster_t *cl = cluster__of(srv);
    if (cl) cluster__async(cl, NULL, NULL, "HDEL tapis:seek %llu", (unsigned long long)sid);
}

static void on_read(redisAsyncContext *ac, void *reply, void *priv)
{
    (void)ac;
    seek_call_t *c = priv;
    redisReply *r = reply;
    json_t *all = r && r->type == REDIS_REPLY_ARRAY ? json_array() : NULL;
    for (size_t i = 0; all && i + 1 < r->elements; i += 2)
        if (r->element[i]->type == REDIS_REPLY_STRING &&
            r->element[i + 1]->type == REDIS_REPLY_STRING)
            json_array_append_new(all,
                                  json_pack("[s, s]", r->element[i]->str, r->element[i + 1]->str));
    c->read(c->srv, all, c->arg);
    json_decref(all);
    tapis_free(c);
}

int cluster_seek_read(server_t *srv, cluster_seek_cb done, void *arg)
{
    cluster_t *cl = cluster__of(srv);
    seek_call_t *c = cl ? call_new(srv, done, NULL, arg) : NULL;
    if (!c) return -1;
    if (cluster__async(cl, on_read, c, "HGETALL tapis:seek") < 0) {
        tapis_free(c);
        return -1;
    }
    return 0;
}

static void on_take(redisAsyncContext *ac, void *reply, void *priv)
{
    (void)ac;
    seek_call_t *c = priv;
    redisReply *r = reply;
    int taken = !r || r->type != REDIS_REPLY_INTEGER ? -1 : r->integer == 1;
    if (r && r->type == REDIS_REPLY_ERROR) log_warn("cluster: Redis refused a take: %s", r->str);
    c->taken(c->srv, taken, c->arg);
    tapis_free(c);
}

int cluster_seek_take(server_t *srv, const json_t *group, cluster_seek_taken_cb done, void *arg)
{
    cluster_t *cl = cluster__of(srv);
    size_t n = json_array_size(group), argc = 0;
    const char **argv = cl ? tapis_calloc(3 + 2 * n, sizeof *argv) : NULL;
    seek_call_t *c = argv ? call_new(srv, NULL, done, arg) : NULL;
    if (!c) {
        tapis_free(argv);
        return -1;
    }
    argv[argc++] = "EVAL";
    argv[argc++] = TAKE_SCRIPT;
    argv[argc++] = "0";
    size_t i;
    json_t *e;
    json_array_foreach(group, i, e)
    {
        argv[argc++] = json_string_value(json_array_get(e, 0));
        argv[argc++] = json_string_value(json_array_get(e, 1));
    }
    int rc = cluster__async_argv(cl, on_take, c, (int)argc, argv);
    tapis_free(argv);
    if (rc < 0) tapis_free(c);
    return rc;
}

void cluster_seek_tell(server_t *srv, const char *node, const json_t *msg)
{
    cluster_t *cl = cluster__of(srv);
    char *text = cl ? json_dumps(msg, JSON_COMPACT) : NULL;
    if (text && cluster__async(cl, NULL, NULL, "PUBLISH " SEEK_CHANNEL "%s %s", node, text) < 0)
        log_warn("cluster: node %s not told of a match (Redis cannot be reached)", node);
    free(text);
}

bool cluster_node_alive(server_t *srv, const char *id)
{
    cluster_t *cl = cluster__of(srv);
    if (!cl) return false;
    if (strcmp(id, cl->id) == 0) return true;
    node_t *n;
    HASH_FIND_STR(cl->nodes, id, n);
    return n != NULL;
}

void cluster__seek_message(cluster_t *cl, const char *text, size_t len)
{
    json_t *m = json_loadb(text, len, 0, NULL);
    if (m && cl->hooks && cl->hooks->matched && !cl->srv->stopping)
        cl->hooks->matched(cl->hooks_ctx, m);
    json_decref(m);
}

void cluster__seek_start(cluster_t *cl)
{
    cluster__append(cl, "EVAL %s 0 %s", REAP_SCRIPT, cl->id);
}

void cluster__seek_reap(cluster_t *cl, const char *dead)
{
    cluster__append(cl, "EVAL %s 0 %s", REAP_SCRIPT, dead);
}
