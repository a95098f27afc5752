/* cluster.c — the Redis link (the synchronous context and its pipeline), the
   directory through the channel, the nodes and their heartbeat, routing and
   links, start and stop. Sessions, rooms, adoption, takeover and the sink's
   backend are in cluster_rooms.c. See cluster.h. */
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

#include "server/cluster/cluster_int.h"

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
int cluster__drain(cluster_t *cl)
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
void cluster__append(cluster_t *cl, const char *fmt, ...)
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
redisReply *cluster__command(cluster_t *cl, const char *fmt, ...)
{
    if (!cl->rc || cluster__drain(cl) < 0) return NULL;
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

long long cluster__reply_int(redisReply *rep, long long dflt)
{
    long long v = dflt;
    if (rep && rep->type == REDIS_REPLY_INTEGER) v = rep->integer;
    if (rep && rep->type == REDIS_REPLY_STRING) v = strtoll(rep->str, NULL, 10);
    if (rep) freeReplyObject(rep);
    return v;
}

/* The value of field `name` in a HGETALL or stream-entry array, or NULL. */
const char *cluster__field(const redisReply *a, const char *name)
{
    for (size_t i = 0; a && i + 1 < a->elements; i += 2)
        if (a->element[i]->type == REDIS_REPLY_STRING && strcmp(a->element[i]->str, name) == 0 &&
            a->element[i + 1]->type == REDIS_REPLY_STRING)
            return a->element[i + 1]->str;
    return NULL;
}

cluster_t *cluster__of(const server_t *srv)
{
    return srv->stopping ? NULL : srv->cluster;
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
    redisReply *rep = cluster__command(cl, "HGETALL tapis:rooms");
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
        if (strcmp(r->element[1]->str, CHANNEL) == 0)
            dir_apply(cl, r->element[2]->str, r->element[2]->len);
        else /* this node's channel of matches (cluster_seek.c) */
            cluster__seek_message(cl, r->element[2]->str, r->element[2]->len);
    } else if (strcmp(r->element[0]->str, "subscribe") == 0 &&
               strcmp(r->element[1]->str, CHANNEL) == 0) {
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

/* A new asynchronous context on the loop, or NULL. */
static redisAsyncContext *async_open(cluster_t *cl, redisConnectCallback *on_connect,
                                     redisDisconnectCallback *on_disconnect)
{
    redisAsyncContext *ac = redisAsyncConnect(cl->srv->opts.redis_host, cl->srv->opts.redis_port);
    if (!ac) return NULL;
    if (ac->err) {
        redisAsyncFree(ac);
        return NULL;
    }
    ac->data = cl;
    redisLibuvAttach(ac, cl->srv->loop);
    redisAsyncSetConnectCallback(ac, on_connect);
    redisAsyncSetDisconnectCallback(ac, on_disconnect);
    return ac;
}

static void subscribe(cluster_t *cl)
{
    if (cl->sub || cl->srv->stopping) return;
    redisAsyncContext *ac = async_open(cl, on_sub_connect, on_sub_disconnect);
    if (!ac) return;
    redisAsyncCommand(ac, on_message, cl, "SUBSCRIBE " CHANNEL " " SEEK_CHANNEL "%s", cl->id);
    cl->sub = ac;
}

/* ------------------------------------------------------------------------ */
/* Redis: the asynchronous context, for commands whose answer can wait      */
/* ------------------------------------------------------------------------ */

static void on_async_connect(const redisAsyncContext *ac, int status)
{
    cluster_t *cl = ac->data;
    if (status != REDIS_OK && cl->ac == ac) cl->ac = NULL; /* hiredis frees it */
}

static void on_async_disconnect(const redisAsyncContext *ac, int status)
{
    (void)status;
    cluster_t *cl = ac->data;
    if (cl->ac == ac) cl->ac = NULL;
}

static void async_connect(cluster_t *cl)
{
    if (!cl->ac && !cl->srv->stopping)
        cl->ac = async_open(cl, on_async_connect, on_async_disconnect);
}

/* The asynchronous context, connecting it if it is not (NULL: Redis cannot be reached now). */
static redisAsyncContext *async_ctx(cluster_t *cl)
{
    if (!cl->ac) async_connect(cl);
    return cl->ac;
}

/* A command sent on the asynchronous context: its callback, counted. */
typedef struct async_call {
    cluster_t *cl;
    redisCallbackFn *fn;
    void *priv;
} async_call_t;

static void on_async_reply(redisAsyncContext *ac, void *reply, void *priv)
{
    async_call_t *a = priv;
    cluster_t *cl = a->cl;
    if (cl->async_pending > 0) cl->async_pending--;
    cl->async_progress = server_now_ms(cl->srv);
    if (a->fn) a->fn(ac, reply, a->priv);
    tapis_free(a);
}

int cluster__async_argv(cluster_t *cl, redisCallbackFn *fn, void *priv, int argc, const char **argv)
{
    redisAsyncContext *ac = async_ctx(cl);
    async_call_t *a = ac ? tapis_malloc(sizeof *a) : NULL;
    if (!a) return -1;
    *a = (async_call_t){cl, fn, priv};
    if (redisAsyncCommandArgv(ac, on_async_reply, a, argc, argv, NULL) != REDIS_OK) {
        tapis_free(a);
        return -1;
    }
    if (cl->async_pending++ == 0) cl->async_progress = server_now_ms(cl->srv);
    return 0;
}

int cluster__async(cluster_t *cl, redisCallbackFn *fn, void *priv, const char *fmt, ...)
{
    redisAsyncContext *ac = async_ctx(cl);
    async_call_t *a = ac ? tapis_malloc(sizeof *a) : NULL;
    if (!a) return -1;
    *a = (async_call_t){cl, fn, priv};
    va_list ap;
    va_start(ap, fmt);
    int rc = redisvAsyncCommand(ac, on_async_reply, a, fmt, ap);
    va_end(ap);
    if (rc != REDIS_OK) {
        tapis_free(a);
        return -1;
    }
    if (cl->async_pending++ == 0) cl->async_progress = server_now_ms(cl->srv);
    return 0;
}

/* At each heartbeat: a Redis that has answered nothing asked on the asynchronous context
   for a heartbeat's time hangs. The context goes (every callback waiting is told NULL:
   the lobby answers from what the node holds) and a new one is made when needed. */
static void async_watch(cluster_t *cl)
{
    if (!cl->ac || cl->async_pending == 0 ||
        server_now_ms(cl->srv) - cl->async_progress < (int64_t)cl->srv->opts.node_ttl / 3)
        return;
    log_warn("cluster: Redis answered none of %d commands in %llu ms; they are given up",
             cl->async_pending, (unsigned long long)(server_now_ms(cl->srv) - cl->async_progress));
    redisAsyncContext *ac = cl->ac;
    cl->ac = NULL;
    cl->async_pending = 0;
    redisAsyncFree(ac);
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
    if (srv->stopping) return;
    async_watch(cl); /* first: a Redis that hangs fails what follows */
    if (!connect_sync(cl)) return;
    char rec[512];
    snprintf(rec, sizeof rec, "{\"id\":\"%s\",\"addr\":\"%s\",\"rooms\":%d,\"conns\":%d}", cl->id,
             cl->addr, srv->nrooms, srv->nconns);
    /* GET: a node whose key had expired was taken for dead; what it holds may be gone. */
    redisReply *was = cluster__command(cl, "SET tapis:node:%s %s PX %llu GET", cl->id, rec,
                                       (unsigned long long)srv->opts.node_ttl);
    if (!was) return;
    cl->fails = 0; /* Redis answers again */
    if (cl->said_down) log_notice("cluster: Redis is back");
    cl->said_down = false;
    bool expired = was->type == REDIS_REPLY_NIL;
    freeReplyObject(was);
    cluster__append(cl, "SADD tapis:nodes %s", cl->id);
    if (cl->joined && expired) {
        log_warn("cluster: this node's heartbeat had expired; checking what it still hosts");
        cl->resync = true;
    }
    cl->joined = true;
    if (cl->resync) {
        cl->resync = false;
        cluster__adopt_all(cl);
    }
    if (!cl->sub) subscribe(cl);
    if (!cl->ac) async_connect(cl);
    redisReply *ids = cluster__command(cl, "SMEMBERS tapis:nodes");
    node_t *n, *tmp;
    HASH_ITER(hh, cl->nodes, n, tmp) n->seen = false;
    for (size_t i = 0; ids && i < ids->elements; i++) {
        const char *id = ids->element[i]->str;
        if (strcmp(id, cl->id) == 0) continue;
        redisReply *r = cluster__command(cl, "GET tapis:node:%s", id);
        if (r && r->type == REDIS_REPLY_STRING)
            node_seen(cl, id, r->str);
        else if (r)
            cluster__take_over(cl, id);
        if (r) freeReplyObject(r);
    }
    if (ids) freeReplyObject(ids);
    HASH_ITER(hh, cl->nodes, n, tmp)
    if (!n->seen) {
        log_notice("cluster: node %s left", n->id);
        HASH_DEL(cl->nodes, n);
        tapis_free(n);
    }
    cluster__drain(cl);
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
    cluster_t *cl = cluster__of(srv);
    dir_room_t *e = NULL;
    if (cl) HASH_FIND_STR(cl->dir, id, e);
    return e ? e->node : NULL;
}

const char *cluster_room_node(server_t *srv, const char *id)
{
    cluster_t *cl = cluster__of(srv);
    if (!cl) return NULL;
    dir_room_t *e;
    HASH_FIND_STR(cl->dir, id, e);
    if (e) return e->node;
    /* Not in the copy yet (its node's message may still be on its way: a room
       created a moment ago on another node): ask Redis, which had it before
       its creator had the reply. */
    redisReply *rep = cluster__command(cl, "HGET tapis:owner %s", id);
    node_t *n = NULL;
    if (rep && rep->type == REDIS_REPLY_STRING) HASH_FIND_STR(cl->nodes, rep->str, n);
    if (rep) freeReplyObject(rep);
    return n ? n->id : NULL;
}

const char *cluster_place_room(server_t *srv)
{
    cluster_t *cl = cluster__of(srv);
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

int cluster_remote_rooms(server_t *srv, const char *viewer_name, const char *game,
                         const char *status, cluster_room_ref_t **out)
{
    cluster_t *cl = cluster__of(srv);
    *out = NULL;
    if (!cl || !cl->dir) return 0;
    cluster_room_ref_t *v = tapis_malloc(HASH_COUNT(cl->dir) * sizeof *v);
    if (!v) return -1;
    int n = 0;
    dir_room_t *e, *tmp;
    HASH_ITER(hh, cl->dir, e, tmp)
    {
        const json_t *s = e->summary;
        if (cluster_hosts(srv, e->id)) continue; /* it moved here */
        if (game && strcmp(game, json_string_value(json_object_get(s, "game"))) != 0) continue;
        if (status && strcmp(status, json_string_value(json_object_get(s, "status"))) != 0)
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

json_t *cluster_session_rooms(server_t *srv, uint64_t sid)
{
    cluster_t *cl = cluster__of(srv);
    if (!cl) return NULL;
    json_t *list = json_array();
    redisReply *rep =
        cluster__command(cl, "SMEMBERS tapis:session:%llu:rooms", (unsigned long long)sid);
    for (size_t i = 0; rep && i < rep->elements; i++) {
        const char *id = rep->element[i]->str;
        const char *node = cluster_hosts(srv, id) ? NULL : cluster_room_node(srv, id);
        if (node) json_array_append_new(list, json_pack("[s, s]", id, node));
    }
    if (rep) freeReplyObject(rep);
    return list;
}

/* ------------------------------------------------------------------------ */
/* Start and stop                                                           */
/* ------------------------------------------------------------------------ */

void cluster__commit(server_t *srv)
{
    cluster_t *cl = srv->cluster;
    if (cl && cl->pending) cluster__drain(cl);
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
    cluster__seek_start(cl); /* before the first beat: this node's seekers of a former life go */
    beat(cl);
    subscribe(cl);
    async_connect(cl);
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
    cluster__drain(cl);
    uv_close((uv_handle_t *)&cl->beat, NULL);
    if (cl->sub) {
        redisAsyncContext *ac = cl->sub;
        cl->sub = NULL;
        redisAsyncDisconnect(ac);
    }
    if (cl->ac) { /* its callbacks are answered (or told NULL) as the loop ends */
        redisAsyncContext *ac = cl->ac;
        cl->ac = NULL;
        redisAsyncDisconnect(ac);
    }
}

void cluster_free(server_t *srv)
{
    cluster_t *cl = srv->cluster;
    if (!cl) return;
    dir_clear(cl);
    cluster_free_rooms(cl);
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
