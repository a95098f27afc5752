/* restore.c — sessions and rooms rebuilt from the backends' records. See restore.h. */
#include <stdlib.h>
#include <string.h>

#include "server/base/log.h"
#include "server/durable/durable.h"
#include "server/lobby/dispatch.h"
#include "server/lobby/restore.h"
#include "server/lobby/sessions.h"
#include "server/session/session.h"
#include "server/room/room.h"

/* ------------------------------------------------------------------------ */
/* A start: the store's records                                             */
/* ------------------------------------------------------------------------ */

typedef struct restoring {
    server_t *srv;
    session_t **v; /* the sessions restored, by id (the store hands them so) */
    int n, cap;
} restoring_t;

static bool on_session(void *ctx, const durable_session_rec_t *rec)
{
    restoring_t *rs = ctx;
    session_t *s = session_restore(rs->srv, rec->id, rec->name, rec->token_hash, rec->created);
    if (!s) return false;
    lobby_session_hold(s);
    if (rs->n == rs->cap) {
        int cap = rs->cap ? 2 * rs->cap : 64;
        session_t **nv = tapis_realloc(rs->v, (size_t)cap * sizeof *nv);
        if (!nv) return true; /* held, but seated nowhere: ends with its hold */
        rs->v = nv;
        rs->cap = cap;
    }
    rs->v[rs->n++] = s;
    return true;
}

/* The restored session numbered id, or NULL (logged: its seat's person is gone). */
static session_t *restored_session(void *ctx, const durable_room_rec_t *rec, int seat, uint64_t id)
{
    restoring_t *rs = ctx;
    int lo = 0, hi = rs->n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (rs->v[mid]->id == id) return rs->v[mid];
        if (rs->v[mid]->id < id)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    if (seat >= 0)
        log_warn("room %s: seat %d: session %llu (%s) is gone", rec->id, seat,
                 (unsigned long long)id, rec->seats[seat].name);
    return NULL;
}

static durable_verdict_t on_room(void *ctx, durable_room_rec_t *rec, struct room **out,
                                 json_t **result, char *why, size_t whylen)
{
    restoring_t *rs = ctx;
    return room_rebuild(rs->srv, rec, "server", restored_session, rs, out, result, why, whylen);
}

static int on_done(void *ctx)
{
    restoring_t *rs = ctx;
    int kept = 0;
    for (int i = 0; i < rs->n; i++)
        if (rs->v[i]->nrooms == 0)
            lobby_session_destroy(rs->v[i]);
        else
            kept++;
    return kept;
}

int lobby_restore(server_t *srv, int *sessions_restored, int *quarantined)
{
    restoring_t rs = {.srv = srv};
    durable_restore_hooks_t h = {
        .ctx = &rs, .session = on_session, .room = on_room, .done = on_done};
    int n = durable_restore(&srv->durable, &h, sessions_restored, quarantined);
    tapis_free(rs.v);
    return n;
}

/* ------------------------------------------------------------------------ */
/* A cluster: sessions of other nodes, rooms of a dead one                  */
/* ------------------------------------------------------------------------ */

session_t *lobby_session_here(server_t *srv, uint64_t id)
{
    for (queue_t *q = queue_head(&srv->sessions); q != &srv->sessions; q = queue_next(q)) {
        session_t *s = queue_data(q, session_t, node);
        if (s->id == id) return s;
    }
    return NULL;
}

session_t *lobby_session_by_id(server_t *srv, uint64_t sid)
{
    session_t *s = lobby_session_here(srv, sid);
    if (s) return s;
    durable_session_rec_t rec;
    if (cluster_session_record(srv, sid, &rec) < 0) return NULL;
    return lobby_session_of_record(srv, &rec);
}

session_t *lobby_session_of_record(server_t *srv, const durable_session_rec_t *rec)
{
    session_t *s = lobby_session_here(srv, rec->id);
    if (s) return s;
    s = session_restore(srv, rec->id, rec->name, rec->token_hash, rec->created);
    if (!s) return NULL;
    lobby_session_hold(s);
    durable_session_t d = session_durable(s);
    durable_session_new(&srv->durable, &d); /* this node holds it too now */
    return s;
}

session_t *lobby_session_fetch(server_t *srv, const char *token)
{
    char hash[TOKEN_HASH_LEN + 1];
    session_token_hash(token, hash);
    uint64_t sid = cluster_token_session(srv, hash);
    if (!sid) return NULL;
    session_t *s = lobby_session_by_id(srv, sid);
    if (!s || strcmp(s->token_hash, hash) != 0) return NULL;
    if (!s->token[0] && strlen(token) == TOKEN_LEN) /* its links greet other nodes with it */
        memcpy(s->token, token, TOKEN_LEN + 1);
    return s;
}

static session_t *cluster_session(void *ctx, const durable_room_rec_t *rec, int seat, uint64_t id)
{
    (void)rec;
    (void)seat;
    return lobby_session_by_id(ctx, id);
}

static durable_verdict_t takeover_room(void *ctx, durable_room_rec_t *rec, struct room **out,
                                       json_t **result, char *why, size_t whylen)
{
    durable_verdict_t v =
        room_rebuild(ctx, rec, "node", cluster_session, ctx, out, result, why, whylen);
    if (v == DURABLE_ROOM_REBUILT) room_publish(*out); /* in the directory as this node's */
    /* A rated game stays rated. */
    lobby_accounts_taken_over(ctx, rec->id, v, v == DURABLE_ROOM_REBUILT ? *out : NULL,
                              v == DURABLE_ROOM_OVER ? *result : NULL);
    return v;
}

static void room_moved(void *ctx, const char *id)
{
    room_t *r = room_find(ctx, id);
    if (r) room_close(r, "moved to another node of the cluster; reconnect");
}

static bool hosts(void *ctx, const char *id)
{
    return room_find(ctx, id) != NULL;
}

/* Redis may lack what this node holds: every session (and the rooms it is in),
   then every room (its watchers and summary), written again. */
static void resync(void *ctx)
{
    server_t *srv = ctx;
    for (queue_t *q = queue_head(&srv->sessions); q != &srv->sessions; q = queue_next(q)) {
        session_t *s = queue_data(q, session_t, node);
        durable_session_t d = session_durable(s);
        cluster_resync_session(srv, &d);
        for (int i = 0; i < s->nrooms; i++)
            cluster_resync_session_room(srv, s->id, s->rooms[i]->id);
    }
    queue_t *q = queue_head(&srv->rooms);
    while (q != &srv->rooms) {
        room_t *r = queue_data(q, room_t, node);
        q = queue_next(q);                 /* r may move to another node: closed */
        json_t *summary = room_summary(r); /* NULL out of memory: the directory at a change */
        if (cluster_resync_room(srv, &r->durable, summary))
            for (int w = 0; w < r->nwatchers; w++)
                cluster_resync_watcher(srv, r->id, r->watchers[w]->id);
        json_decref(summary);
    }
}

static void identity(void *ctx, const struct session *s, const char **name, const char **token)
{
    (void)ctx;
    *name = s->name;
    *token = s->token;
}

const cluster_hooks_t lobby_cluster_hooks = {.room = takeover_room,
                                             .room_moved = room_moved,
                                             .hosts = hosts,
                                             .resync = resync,
                                             .identity = identity,
                                             .matched = lobby_seek_matched};
