/*
 * cluster.h — several tapisd nodes as one server, on Redis (docs/CLUSTER.md).
 *
 * With --redis, a node registers itself with a heartbeat and a TTL, keeps
 * the directory of every node's rooms in step (a Redis hash, and a channel
 * every node subscribes to on the loop through hiredis's libuv adapter),
 * shares sessions, names and tokens, and writes each room's journal to a
 * Redis stream. The stream is written in the same place as the store's
 * transaction: the commands of a scheduler turn go out in one pipeline
 * that the sink's commit (durable_commit(), through cluster_durable) waits
 * for BEFORE the turn's output is flushed, so a state a client has seen is
 * in Redis. When a node's heartbeat expires, the others claim its rooms
 * (one atomic claim each) and rebuild them by replaying their streams
 * through the core.
 *
 * Redis is the cluster's memory, the nodes are its truth: when Redis comes
 * back empty, each node writes again what it holds. Every function here
 * does nothing without --redis (srv->cluster is NULL).
 *
 * Commands whose answer the loop needs at once (an id, a name, a token) are
 * synchronous, with a short timeout; while Redis is unreachable a node
 * serves alone and says so in its log.
 */
#ifndef TAPIS_SERVER_CLUSTER_H
#define TAPIS_SERVER_CLUSTER_H

#include "server/durable/durable.h"
#include "server/server.h"

typedef struct cluster cluster_t;

/* The cluster as a backend of the durability sink (durable.h), registered with
   the server as its ctx after the store: the sessions' and rooms' writes
   reach it through the sink, as plain records; it keeps its own copy of each
   room it hosts (options, seed, journal), to write again when Redis lost it. */
extern const durable_backend_t cluster_durable;

/* The accounts and ratings of the cluster, in Redis (account.h; cluster_accounts.c), with the
   server as its ctx. */
struct account_shared;
extern const struct account_shared cluster_accounts_shared;
/* With --redis: set srv->cluster before the store restores (no connection yet). */
int cluster_init(server_t *srv);
/* Join, once listening (srv->opts.redis_host). Returns 0, or -1 after logging why. */
int cluster_start(server_t *srv);
/* At the stop: write what is pending and leave (rooms stay for a restart or another node). */
void cluster_stop(server_t *srv);
/* Free what is left once the loop ended. */
void cluster_free(server_t *srv);
/*
 * What the cluster hands up and asks (main.c sets the lobby's, restore.h):
 * room(), a dead node's room as its record, to rebuild here (durable.h says
 * the verdicts; the lobby lists a rebuilt room in the directory);
 * room_moved(), a room this node hosted that another node hosts now, to
 * close; hosts(), does this node host room id; resync(), Redis may lack
 * what this node holds: hand it all back through cluster_resync_*() below;
 * identity(), the name and token of a session (the relay greets other nodes
 * with them); matched(), this node's seeker was seated by another node.
 */
typedef struct cluster_hooks {
    durable_verdict_t (*room)(void *ctx, durable_room_rec_t *rec, struct room **out,
                              json_t **result, char *why, size_t whylen);
    void (*room_moved)(void *ctx, const char *id);
    bool (*hosts)(void *ctx, const char *id);
    void (*resync)(void *ctx);
    void (*identity)(void *ctx, const struct session *s, const char **name, const char **token);
    /* Another node seated a seeker of this node (cluster_seek_tell()'s msg). */
    void (*matched)(void *ctx, const json_t *msg);
} cluster_hooks_t;
void cluster_set_hooks(server_t *srv, const cluster_hooks_t *h, void *ctx);
/* After the store restored this node's rooms: keep those still ours, drop the others. */
void cluster_adopt_restored(server_t *srv);
/*
 * The resync hook's writes: a session (then each room it is in), a room
 * (false when another node hosts it now: room_moved() closed it; else its
 * watchers follow) with its summary (NULL: none).
 */
void cluster_resync_session(server_t *srv, const durable_session_t *s);
void cluster_resync_session_room(server_t *srv, uint64_t sid, const char *room);
bool cluster_resync_room(server_t *srv, const durable_room_t *r, const json_t *summary);
void cluster_resync_watcher(server_t *srv, const char *room, uint64_t sid);
/* Does this node host room id (the hooks' answer; false without --redis)? */
bool cluster_hosts(server_t *srv, const char *id);
/* Session s's name and token (the hooks' answer; "" without --redis). */
void cluster_identity(server_t *srv, const struct session *s, const char **name,
                      const char **token);

/* A new id for "room" or "session", unique in the cluster (0 when Redis cannot say). */
uint64_t cluster_next_id(server_t *srv, const char *what);

/* Sessions: a name is the session's now (0), taken by another session (-1), or, for a
   guest (`guest`), a registered name in the cluster (-2). */
int cluster_claim_name(server_t *srv, const char *name_key, uint64_t sid, bool guest);
void cluster_release_name(server_t *srv, const char *name_key, uint64_t sid);
/* May session sid take `name` (its own, or free in the cluster)? Claims it: 0, or -1 and -2
   as cluster_claim_name(). */
int cluster_name_free(server_t *srv, uint64_t sid, const char *name, bool guest);
/* [[room, node]...]: the rooms other nodes host where session sid sits or watches
   (NULL without --redis). */
json_t *cluster_session_rooms(server_t *srv, uint64_t sid);
/* Session sid's record as Redis keeps it: 0 and *out, or -1 (none, or no Redis). */
int cluster_session_record(server_t *srv, uint64_t sid, durable_session_rec_t *out);
/* The number of the session whose token hashes to token_hash, or 0. */
uint64_t cluster_token_session(server_t *srv, const char *token_hash);

/* Routing: the node (not this one) hosting room id, or NULL. */
const char *cluster_room_node(server_t *srv, const char *id);
/* The same from this node's copy of the directory only (never asks Redis). */
const char *cluster_dir_node(server_t *srv, const char *id);
/* Where a new room goes: a node id, or NULL for this node. */
const char *cluster_place_room(server_t *srv);
/* The game address of node id. Returns 0 and fills ip/port, or -1. */
int cluster_node_addr(server_t *srv, const char *id, char ip[64], int *port);
/*
 * Links to node id (relay.c). A link that could not connect, or that broke,
 * makes the next ones wait: 100 ms, then twice as long after each failure in
 * a row, up to a heartbeat (--node-ttl / 3); a link that connects ends the
 * wait, and so does the node seen again at a new address. A node that died
 * is not asked again at every request, and the rooms that move elsewhere
 * are not delayed: the wait is the node's, not the room's.
 */
void cluster_link_failed(server_t *srv, const char *id);
void cluster_link_up(server_t *srv, const char *id);
/* The ms to wait before a new link to node id (0: one may be opened now). */
int64_t cluster_link_wait_ms(server_t *srv, const char *id);
/* True when ip (numeric) is a node of the cluster: its links are not capped. */
bool cluster_is_node_ip(const server_t *srv, const char *ip);
/* The live nodes (this one included; 0 without --redis); true while Redis answers. */
bool cluster_health(const server_t *srv, int *nodes);
/* This node's id. */
const char *cluster_node_id(const server_t *srv);

/*
 * Matchmaking's queue, the cluster's (cluster_seek.c; lobby/seek.c matches): tapis:seek,
 * session id -> the seeker as JSON text (with its "node"). Every call is asynchronous: the
 * loop never waits for Redis. Each returns 0, or -1 when Redis cannot be reached now (or
 * without --redis; the callback then never runs): the node matches its own seekers alone.
 */
int cluster_seek_put(server_t *srv, uint64_t sid, const char *entry);
void cluster_seek_drop(server_t *srv, uint64_t sid);
/* Every seeker: done(srv, [[sid, text]...], arg); NULL when Redis could not say. */
typedef void (*cluster_seek_cb)(server_t *srv, const json_t *seekers, void *arg);
int cluster_seek_read(server_t *srv, cluster_seek_cb done, void *arg);
/* The group [[sid, text]...] leaves the queue, all or none, only if each is still there as
   read: done(srv, 1 taken, 0 not (another node took one, or one changed), -1 no answer). */
typedef void (*cluster_seek_taken_cb)(server_t *srv, int taken, void *arg);
int cluster_seek_take(server_t *srv, const json_t *group, cluster_seek_taken_cb done, void *arg);
/* Tell node of its seeker seated here (its hooks' matched() gets msg). */
void cluster_seek_tell(server_t *srv, const char *node, const json_t *msg);
/* Is node id alive (this node, or one whose heartbeat was seen)? */
bool cluster_node_alive(server_t *srv, const char *id);

/* The rooms of the other nodes that `viewer` may list, filtered; see lobby_rooms(). */
typedef struct cluster_room_ref {
    uint64_t rid;
    const json_t *summary;
} cluster_room_ref_t;
int cluster_remote_rooms(server_t *srv, const char *viewer_name, const char *game,
                         const char *status, cluster_room_ref_t **out);

#endif
