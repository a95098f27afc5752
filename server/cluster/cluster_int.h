/*
 * cluster_int.h — what the cluster's files share (cluster.c: the Redis link,
 * directory, nodes, routing, start and stop; cluster_rooms.c: sessions,
 * rooms, adoption, takeover, the sink's backend). Not for use outside
 * server/cluster/.
 */
#ifndef TAPIS_SERVER_CLUSTER_INT_H
#define TAPIS_SERVER_CLUSTER_INT_H

#include <hiredis/async.h>
#include <hiredis/hiredis.h>

#include "server/cluster/cluster.h"

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
 *   tapis:room:ID               HASH  game, players, options, seed, deal, server_seed,
 *                                     private, rid
 *   tapis:journal:ID            STREAM entry n has the id 0-n: kind, seat, at, [data]
 *   tapis:watchers:ID           SET   the sessions watching
 *   tapis:seek                  HASH  session id -> a seeker (cluster_seek.c)
 * and the channel tapis:rooms, where each directory change is published, and
 * tapis:seek:ID, where node ID is told of its seekers matched by another node.
 */
#define CHANNEL "tapis:rooms"
#define SEEK_CHANNEL "tapis:seek:"
/* Redis answers a loopback or LAN command in well under a millisecond: a slower
   one is a Redis in trouble, and the loop waits for it this long at most. */
#define CONNECT_TIMEOUT_US 100000
#define COMMAND_TIMEOUT_US 100000
#define RETRY_MAX_MS 8000 /* reconnects back off up to this */

typedef struct dir_room { /* a room of another node, as the directory says */
    char id[DURABLE_ROOM_ID_LEN + 1];
    char node[33];
    uint64_t rid;
    json_t *summary;
    UT_hash_handle hh;
} dir_room_t;

typedef struct cl_room { /* a room this node hosts, as the cluster keeps it (cluster_rooms.c) */
    const durable_room_t *room; /* the key: the room's own record, while the room lives */
    char id[DURABLE_ROOM_ID_LEN + 1];
    char *options;                      /* its complete options, JSON text */
    char seed[24];                      /* as text */
    int deal;                           /* the deal's version (core/deal.h) */
    char server_seed[DEAL_HEX_LEN + 1]; /* version 1's server seed, hex ("" in version 0) */
    json_t *journal; /* its entries [[n, kind, seat, at, data]...], to write again */
    bool moved;      /* another node hosts it now: Redis is not told it closed */
    UT_hash_handle hh;
} cl_room_t;

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
    redisAsyncContext *ac;  /* commands whose answer the loop does not wait for */
    int async_pending;      /* ...sent on ac, not yet answered */
    int64_t async_progress; /* ms: when ac last answered (or was first waited on) */
    uv_timer_t beat;
    dir_room_t *dir;
    cl_room_t *rooms; /* the rooms this node hosts, by their record's address */
    node_t *nodes;
    const cluster_hooks_t *hooks; /* the lobby's: rooms taken over, rooms moved (main.c) */
    void *hooks_ctx;
};

/* Between the files (cluster__ names are the cluster's own; cluster.c). */
/* The cluster, or NULL without --redis or once the server is stopping. */
cluster_t *cluster__of(const server_t *srv);
/* The backend's commit: send the turn's commands and wait for Redis to take them
   (write-ahead; durable_commit() alone calls it from outside, through cluster_durable). */
void cluster__commit(server_t *srv);
/* Read the replies of the pipeline. Returns 0, or -1 when Redis was lost. */
int cluster__drain(cluster_t *cl);
/* Queue a command for the turn's pipeline. */
void cluster__append(cluster_t *cl, const char *fmt, ...);
/* Run one command now (after the pipeline). The reply is the caller's, or NULL. */
redisReply *cluster__command(cluster_t *cl, const char *fmt, ...);
/* Send one command on the asynchronous context: fn(ac, reply, priv) runs when Redis answers
   (reply NULL when the context is lost, freed, or given up after a heartbeat without any
   answer: priv is fn's to free either way; fn may be NULL). Returns 0, or -1 (fn will not
   run) when Redis cannot be reached now. */
int cluster__async(cluster_t *cl, redisCallbackFn *fn, void *priv, const char *fmt, ...);
/* The same with its arguments as they are (binary-safe). */
int cluster__async_argv(cluster_t *cl, redisCallbackFn *fn, void *priv, int argc,
                        const char **argv);
/* cluster_seek.c: a message on this node's channel of matches; at the start, this node's
   seekers of a former life leave the queue; a dead node's seekers leave it. */
void cluster__seek_message(cluster_t *cl, const char *text, size_t len);
void cluster__seek_start(cluster_t *cl);
void cluster__seek_reap(cluster_t *cl, const char *dead);
/* The integer of rep (freed), or dflt. */
long long cluster__reply_int(redisReply *rep, long long dflt);
/* The value of field `name` in a HGETALL or stream-entry array, or NULL. */
const char *cluster__field(const redisReply *a, const char *name);
/* cluster_rooms.c: write everything this node holds again (a resync); take
   over the rooms of node `dead`, which is gone. */
void cluster__adopt_all(cluster_t *cl);
/* Free the copies of the rooms kept (cluster_free()). */
void cluster_free_rooms(cluster_t *cl);
void cluster__take_over(cluster_t *cl, const char *dead);

#endif
