/* cluster_rooms.c — what the cluster keeps of sessions and rooms in Redis,
   writing it all again when Redis lost it (adoption), taking over the rooms
   of a dead node (their records handed up to the lobby), and the cluster as
   a backend of the durability sink. See cluster.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/base/log.h"
#include "server/cluster/cluster_int.h"

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
    cluster_t *cl = cluster__of(srv);
    if (!cl) return 0;
    long long v = cluster__reply_int(cluster__command(cl, "INCR tapis:seq:%s", what), 0);
    return v > 0 ? (uint64_t)v : 0;
}

/* Claim a name for session ARGV[2]: 1 claimed (or its own), 0 another session's, -1 a
   registered name and ARGV[3] says the session is a guest's. One script, so that a guest
   and a register of one name on two nodes cannot both win (cluster_accounts.c, claim). */
static const char *const CLAIM_NAME =
    "if ARGV[3] == '1' and redis.call('EXISTS', 'tapis:account:'..ARGV[1]) == 1 then "
    "  return -1 end "
    "if redis.call('HSETNX', 'tapis:names', ARGV[1], ARGV[2]) == 1 then return 1 end "
    "if redis.call('HGET', 'tapis:names', ARGV[1]) == ARGV[2] then return 1 end return 0";

int cluster_claim_name(server_t *srv, const char *name_key, uint64_t sid, bool guest)
{
    cluster_t *cl = cluster__of(srv);
    if (!cl) return 0;
    redisReply *rep = cluster__command(cl, "EVAL %s 0 %s %llu %d", CLAIM_NAME, name_key,
                                       (unsigned long long)sid, guest ? 1 : 0);
    if (!rep) return 0; /* Redis is away: the node decides alone (written again later) */
    long long got = cluster__reply_int(rep, 1);
    return got == 1 ? 0 : got == 0 ? -1 : -2;
}

int cluster_name_free(server_t *srv, uint64_t sid, const char *name, bool guest)
{
    char key[64];
    size_t i = 0;
    for (; name[i] && i < sizeof key - 1; i++)
        key[i] = name[i] >= 'A' && name[i] <= 'Z' ? (char)(name[i] - 'A' + 'a') : name[i];
    key[i] = 0;
    return cluster_claim_name(srv, key, sid, guest);
}

void cluster_release_name(server_t *srv, const char *name_key, uint64_t sid)
{
    cluster_t *cl = cluster__of(srv);
    if (!cl) return;
    cluster__append(cl, "EVAL %s 1 tapis:names %s %llu", RELEASE_NAME, name_key,
                    (unsigned long long)sid);
}

static void write_session(cluster_t *cl, const durable_session_t *s)
{
    unsigned long long id = (unsigned long long)s->id;
    cluster__append(cl, "HSET tapis:session:%llu name %s name_key %s hash %s created %lld", id,
                    s->name, s->name_key, s->token_hash, (long long)s->created);
    cluster__append(cl, "SET tapis:token:%s %llu", s->token_hash, id);
    cluster__append(cl, "HSETNX tapis:names %s %llu", s->name_key, id);
    cluster__append(cl, "SADD tapis:session:%llu:nodes %s", id, cl->id);
    cluster__append(cl, "SADD tapis:node:%s:sessions %llu", cl->id, id);
}

void cluster_resync_session(server_t *srv, const durable_session_t *s)
{
    cluster_t *cl = cluster__of(srv);
    if (cl) write_session(cl, s);
}

void cluster_resync_session_room(server_t *srv, uint64_t sid, const char *room)
{
    cluster_t *cl = cluster__of(srv);
    if (cl) cluster__append(cl, "SADD tapis:session:%llu:rooms %s", (unsigned long long)sid, room);
}

int cluster_session_record(server_t *srv, uint64_t sid, durable_session_rec_t *out)
{
    cluster_t *cl = cluster__of(srv);
    if (!cl) return -1;
    redisReply *rep = cluster__command(cl, "HGETALL tapis:session:%llu", (unsigned long long)sid);
    const char *name = cluster__field(rep, "name"), *hash = cluster__field(rep, "hash"),
               *created = cluster__field(rep, "created");
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
    cluster_t *cl = cluster__of(srv);
    if (!cl) return 0;
    long long sid = cluster__reply_int(cluster__command(cl, "GET tapis:token:%s", token_hash), 0);
    return sid > 0 ? (uint64_t)sid : 0;
}

/* ------------------------------------------------------------------------ */
/* Rooms                                                                    */
/* ------------------------------------------------------------------------ */

/* Room r, as this node keeps it for Redis; NULL when it keeps none. Kept by
   the room's own record (its address), as its fields would be: a closed room
   waiting to be freed and a new one of the same id are two. */
static cl_room_t *kept(cluster_t *cl, const durable_room_t *r)
{
    cl_room_t *k;
    HASH_FIND_PTR(cl->rooms, &r, k);
    return k;
}

/* A new entry for room r: its options and deal as text, an empty journal. */
static cl_room_t *keep(cluster_t *cl, const durable_room_t *r, const char *options,
                       const game_deal_t *deal)
{
    cl_room_t *k = kept(cl, r);
    if (k) return k;
    if (!(k = tapis_calloc(1, sizeof *k))) return NULL;
    k->room = r;
    snprintf(k->id, sizeof k->id, "%s", r->id);
    snprintf(k->seed, sizeof k->seed, "%llu", (unsigned long long)deal->seed);
    k->deal = deal->version;
    if (deal->version) deal_hex(deal->server, k->server_seed);
    k->options = tapis_strdup(options ? options : "{}");
    k->journal = json_array();
    HASH_ADD_PTR(cl->rooms, room, k);
    if (!k->hh.tbl || !k->options || !k->journal) {
        if (k->hh.tbl) HASH_DEL(cl->rooms, k);
        tapis_free(k->options);
        json_decref(k->journal);
        tapis_free(k);
        return NULL;
    }
    return k;
}

/* A room this node does not host any more: its copies go. */
static void unkeep(cluster_t *cl, cl_room_t *k)
{
    HASH_DEL(cl->rooms, k);
    tapis_free(k->options);
    json_decref(k->journal);
    tapis_free(k);
}

/* A room that moved is the other node's now: Redis is not told what it does here. */
static bool moved(cluster_t *cl, const durable_room_t *r)
{
    cl_room_t *k = kept(cl, r);
    return k && k->moved;
}

static void write_meta(cluster_t *cl, const durable_room_t *r, const cl_room_t *k)
{
    cluster__append(cl,
                    "HSET tapis:room:%s game %s players %d options %s seed %s deal %d "
                    "server_seed %s private %d rid %llu race %s",
                    r->id, r->game, r->players, k->options, k->seed, k->deal, k->server_seed,
                    r->private_room ? 1 : 0, (unsigned long long)r->rid, r->race ? r->race : "");
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
        cluster__append(cl, "XADD tapis:journal:%s 0-%llu kind %s seat %lld at %lld data %s", room,
                        n, kind, seat, at, data);
    else
        cluster__append(cl, "XADD tapis:journal:%s 0-%llu kind %s seat %lld at %lld", room, n, kind,
                        seat, at);
}

/* r's summary (the lobby's) in the directory, as this node's. */
static void write_directory(cluster_t *cl, const durable_room_t *r, const json_t *summary)
{
    json_t *s = json_copy((json_t *)summary);
    json_object_set_new(s, "node", json_string(cl->id));
    json_object_set_new(s, "rid", json_integer((json_int_t)r->rid));
    char *text = json_dumps(s, JSON_COMPACT);
    json_decref(s);
    if (!text) return;
    cluster__append(cl, "HSET tapis:rooms %s %s", r->id, text);
    cluster__append(cl, "PUBLISH " CHANNEL " %s", text);
    free(text);
}

/* Entry n of room k's journal, kept to write again (and written unless stopping). */
static void add_entry(cluster_t *cl, cl_room_t *k, uint64_t n, const char *kind, int seat,
                      int64_t at, const char *data)
{
    json_t *e = json_pack("[I, s, i, I, s?]", (json_int_t)n, kind, seat, (json_int_t)at, data);
    if (!e) return;
    json_array_append(k->journal, e);
    if (!cl->srv->stopping) write_entry(cl, k->id, e);
    json_decref(e);
}

static void publish_gone(cluster_t *cl, const char *id)
{
    json_t *m = json_pack("{s:s, s:b, s:s}", "room", id, "gone", 1, "node", cl->id);
    char *text = json_dumps(m, JSON_COMPACT);
    json_decref(m);
    if (text) cluster__append(cl, "PUBLISH " CHANNEL " %s", text);
    free(text);
}

/* Forget room id everywhere in Redis (it ended, or cannot be rebuilt). */
static void forget_room(cluster_t *cl, const char *id, const char *node)
{
    cluster__append(cl, "HDEL tapis:rooms %s", id);
    cluster__append(cl, "HDEL tapis:owner %s", id);
    cluster__append(cl, "SREM tapis:node:%s:rooms %s", node, id);
    cluster__append(cl, "DEL tapis:room:%s tapis:journal:%s tapis:watchers:%s", id, id, id);
    publish_gone(cl, id);
}

bool cluster_hosts(server_t *srv, const char *id)
{
    cluster_t *cl = cluster__of(srv);
    return cl && cl->hooks && cl->hooks->hosts(cl->hooks_ctx, id);
}

void cluster_identity(server_t *srv, const struct session *s, const char **name, const char **token)
{
    cluster_t *cl = srv->cluster;
    *name = *token = "";
    if (cl && cl->hooks) cl->hooks->identity(cl->hooks_ctx, s, name, token);
}

void cluster_free_rooms(cluster_t *cl)
{
    cl_room_t *k, *tmp;
    HASH_ITER(hh, cl->rooms, k, tmp) unkeep(cl, k);
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

bool cluster_resync_room(server_t *srv, const durable_room_t *r, const json_t *summary)
{
    cluster_t *cl = cluster__of(srv);
    if (!cl) return false;
    redisReply *rep = cluster__command(cl, "EVAL %s 0 %s %s", ADOPT, r->id, cl->id);
    if (!rep) return false; /* Redis away: keep it; the next resync asks again */
    bool ours = rep->type == REDIS_REPLY_STRING && strcmp(rep->str, cl->id) == 0;
    cl_room_t *k = kept(cl, r);
    if (!ours) {
        log_warn("room %s: node %s hosts it now; dropped here", r->id,
                 rep->type == REDIS_REPLY_STRING ? rep->str : "?");
        freeReplyObject(rep);
        if (!k) k = keep(cl, r, NULL, 0); /* to remember that it moved */
        if (k) k->moved = true;
        if (cl->hooks) cl->hooks->room_moved(cl->hooks_ctx, r->id); /* the lobby closes it */
        return false;
    }
    freeReplyObject(rep);
    if (k) {
        write_meta(cl, r, k);
        size_t i;
        json_t *e;
        json_array_foreach(k->journal, i, e) write_entry(cl, r->id, e);
    }
    if (summary) write_directory(cl, r, summary);
    return true;
}

void cluster_resync_watcher(server_t *srv, const char *room, uint64_t sid)
{
    cluster_t *cl = cluster__of(srv);
    if (cl) cluster__append(cl, "SADD tapis:watchers:%s %llu", room, (unsigned long long)sid);
}

void cluster__adopt_all(cluster_t *cl)
{
    server_t *srv = cl->srv;
    cluster__append(cl, "EVAL %s 1 tapis:seq:room %llu", RAISE,
                    (unsigned long long)srv->rooms_created);
    cluster__append(cl, "EVAL %s 1 tapis:seq:session %llu", RAISE,
                    (unsigned long long)srv->next_session_id);
    if (cl->hooks) cl->hooks->resync(cl->hooks_ctx); /* the lobby hands back what it holds */
    cluster__drain(cl);
}

void cluster_adopt_restored(server_t *srv)
{
    cluster_t *cl = srv->cluster;
    if (!cl || !cl->rc) return;
    cluster__adopt_all(cl);
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
    redisReply *meta = cluster__command(cl, "HGETALL tapis:room:%s", id);
    redisReply *ents = meta ? cluster__command(cl, "XRANGE tapis:journal:%s - +", id) : NULL;
    const char *game = cluster__field(meta, "game"), *players = cluster__field(meta, "players"),
               *options = cluster__field(meta, "options"), *seed = cluster__field(meta, "seed"),
               *priv = cluster__field(meta, "private"), *rid = cluster__field(meta, "rid"),
               *deal = cluster__field(meta, "deal"), *server = cluster__field(meta, "server_seed"),
               *race = cluster__field(meta, "race");
    int rc = -1;
    if (!meta || !ents || !options || !seed || !rid) {
        snprintf(why, whylen, "its record is not in Redis");
        goto out;
    }
    snprintf(rec->id, sizeof rec->id, "%s", id);
    snprintf(rec->game, sizeof rec->game, "%s", game ? game : "?");
    rec->players = players ? atoi(players) : 0;
    rec->rid = strtoull(rid, NULL, 10);
    uint8_t server_seed[32];
    if (!deal || atoi(deal) == 0) {
        deal_v0(&rec->deal, strtoull(seed, NULL, 10));
    } else if (atoi(deal) != DEAL_VERSION || deal_unhex(server, server_seed) < 0) {
        snprintf(why, whylen, "its deal (version %s) is not one this node knows", deal);
        goto out;
    } else {
        deal_v1(&rec->deal, server_seed, id);
    }
    rec->private_room = priv && atoi(priv) != 0;
    snprintf(rec->race, sizeof rec->race, "%s", race ? race : ""); /* none: --race */
    if (!(rec->options = tapis_strdup(options))) {
        snprintf(why, whylen, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < ents->elements; i++) {
        redisReply *e = ents->element[i];
        if (e->type != REDIS_REPLY_ARRAY || e->elements != 2) continue;
        const char *dash = strchr(e->element[0]->str, '-');
        uint64_t en = dash ? strtoull(dash + 1, NULL, 10) : 0;
        const char *kind = cluster__field(e->element[1], "kind"),
                   *data = cluster__field(e->element[1], "data");
        const char *seat_s = cluster__field(e->element[1], "seat"),
                   *at_s = cluster__field(e->element[1], "at");
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
    redisReply *w = cluster__command(cl, "SMEMBERS tapis:watchers:%s", id);
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
    struct room *r = NULL; /* the lobby's; it lists it in the directory */
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

void cluster__take_over(cluster_t *cl, const char *dead)
{
    uint64_t t0 = uv_hrtime();
    redisReply *rooms = cluster__command(cl, "SMEMBERS tapis:node:%s:rooms", dead);
    int taken = 0, total = rooms ? (int)rooms->elements : 0;
    for (int i = 0; i < total; i++) {
        const char *id = rooms->element[i]->str;
        if (cluster__reply_int(cluster__command(cl, "EVAL %s 0 %s %s %s", CLAIM, id, dead, cl->id),
                               0) != 1)
            continue; /* another node claimed it */
        if (rebuild(cl, id, dead)) taken++;
    }
    cl->srv->metrics.taken_over += (uint64_t)taken;
    if (rooms) freeReplyObject(rooms);
    /* Its sessions: this node holds those it restored, the node that claimed a
       room those of that room (maybe restoring them now); the others end with it. */
    redisReply *ses = cluster__command(cl, "SMEMBERS tapis:node:%s:sessions", dead);
    for (size_t i = 0; ses && i < ses->elements; i++)
        cluster__append(cl, "EVAL %s 0 %s %s %s", DROP_SESSION, ses->element[i]->str, dead, cl->id);
    if (ses) freeReplyObject(ses);
    cluster__seek_reap(cl, dead); /* its seekers leave the queue */
    cluster__append(cl, "SREM tapis:nodes %s", dead);
    cluster__drain(cl);
    log_notice("cluster: node %s is gone; %d of its %d rooms taken over here in %.0f ms", dead,
               taken, total, (double)(uv_hrtime() - t0) / 1e6);
    cluster__commit(cl->srv);
}

/* ------------------------------------------------------------------------ */
/* The durability backend                                                   */
/* ------------------------------------------------------------------------ */

static int d_commit(void *srv)
{
    cluster__commit(srv);
    return 0;
}

static uint64_t d_next_id(void *srv, const char *what)
{
    return cluster_next_id(srv, what);
}

static void d_session_new(void *srv, const durable_session_t *s)
{
    cluster_t *cl = cluster__of(srv);
    if (cl) write_session(cl, s);
}

static void d_session_end(void *srv, const durable_session_t *s)
{
    cluster_t *cl = cluster__of(srv);
    if (!cl) return;
    cluster__append(cl, "EVAL %s 0 %llu %s", DROP_SESSION, (unsigned long long)s->id, cl->id);
}

static void d_session_room(void *srv, uint64_t sid, const durable_room_t *r, bool in)
{
    cluster_t *cl = cluster__of(srv);
    if (!cl || moved(cl, r)) return;
    cluster__append(cl, "%s tapis:session:%llu:rooms %s", in ? "SADD" : "SREM",
                    (unsigned long long)sid, r->id);
}

/* The copies below are kept while stopping too (cluster__of() is NULL then): only
   Redis is not written. */
static void d_room_new(void *srv, const durable_room_t *r, const json_t *options,
                       const game_deal_t *deal)
{
    cluster_t *cl = ((server_t *)srv)->cluster;
    if (!cl) return;
    char *o = json_dumps(options, JSON_COMPACT);
    cl_room_t *k = keep(cl, r, o, deal);
    free(o);
    if (!k || ((server_t *)srv)->stopping) return;
    write_meta(cl, r, k);
    cluster__append(cl, "HSET tapis:owner %s %s", r->id, cl->id);
    cluster__append(cl, "SADD tapis:node:%s:rooms %s", cl->id, r->id);
}

/* A room rebuilt here (a restart's or a takeover's): its record's options, deal and
   journal, to write again when Redis lost them. */
static void d_room_rebuilt(void *srv, const durable_room_t *r, const durable_room_rec_t *rec)
{
    cluster_t *cl = ((server_t *)srv)->cluster;
    cl_room_t *k = cl && rec ? keep(cl, r, rec->options, &rec->deal) : NULL;
    if (!k) return;
    for (size_t i = 0; i < rec->nentries; i++) {
        const durable_entry_t *e = &rec->entries[i];
        json_array_append_new(k->journal, json_pack("[I, s, i, I, s?]", (json_int_t)e->n, e->kind,
                                                    e->seat, (json_int_t)e->at, e->data));
    }
}

static void d_room_closed(void *srv, const durable_room_t *r, bool over)
{
    (void)over;
    cluster_t *cl = cluster__of(srv);
    if (!cl || moved(cl, r)) return;
    forget_room(cl, r->id, cl->id);
}

static void d_room_changed(void *srv, const durable_room_t *r, const json_t *summary)
{
    cluster_t *cl = cluster__of(srv);
    if (cl) write_directory(cl, r, summary);
}

static void d_room_free(void *srv, const durable_room_t *r)
{
    cluster_t *cl = ((server_t *)srv)->cluster;
    cl_room_t *k = cl ? kept(cl, r) : NULL;
    if (k) unkeep(cl, k);
}

static void d_watcher(void *srv, const durable_room_t *r, uint64_t sid, bool watching)
{
    cluster_t *cl = cluster__of(srv);
    if (!cl) return;
    cluster__append(cl, "%s tapis:watchers:%s %llu", watching ? "SADD" : "SREM", r->id,
                    (unsigned long long)sid);
}

static void d_journal(void *srv, const durable_room_t *r, uint64_t n, const char *kind, int seat,
                      int64_t at, const json_t *data)
{
    cluster_t *cl = ((server_t *)srv)->cluster;
    cl_room_t *k = cl ? kept(cl, r) : NULL;
    if (!k) return;
    char *text = data ? json_dumps(data, JSON_COMPACT) : NULL;
    add_entry(cl, k, n, kind, seat, at, text);
    free(text);
}

/* A rename writes the session's record again, under its new name. */
const durable_backend_t cluster_durable = {.name = "cluster",
                                           DURABLE_OP(commit),
                                           DURABLE_OP(next_id),
                                           DURABLE_OP(session_new),
                                           .session_rename = d_session_new,
                                           DURABLE_OP(session_end),
                                           DURABLE_OP(session_room),
                                           DURABLE_OP(room_new),
                                           DURABLE_OP(room_rebuilt),
                                           DURABLE_OP(room_closed),
                                           DURABLE_OP(room_changed),
                                           DURABLE_OP(room_free),
                                           DURABLE_OP(watcher),
                                           DURABLE_OP(journal)};
