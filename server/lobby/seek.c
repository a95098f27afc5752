/*
 * seek.c — matchmaking: `seek GAME [PLAYERS] [rated]` queues the session,
 * `cancel` takes it out, and the server opens a table when enough seekers
 * of one kind (game, players, rated or casual) have close ratings.
 *
 * Close: the ratings shown (μ − 3σ; a guest or a newcomer 0) of a group lie
 * within the smallest band of its members, a band being SEEK_BAND_START
 * points, widened by SEEK_BAND_PER_S points for every second its seeker has
 * waited. The seeker who has waited longest is matched first, with the
 * seekers of its kind closest to its rating. A match is tried at each seek
 * and once a second while anyone waits; the seekers get
 * {"ev":"matched","room","game","players","seat","rated"} (the room's
 * events and the first state follow, as after a join). A seeker whose
 * connection drops, or whose session ends, leaves the queue.
 *
 * In a cluster the queue is the cluster's (server/cluster/cluster_seek.c):
 * each seek is written to Redis with its node, and a node matches from the
 * whole queue, read without waiting for it, the groups led by its own
 * seekers (the waits counted on the wall clock, the nodes' one clock). A
 * group leaves the queue in one script that checks every member is still
 * there as read, so two nodes matching at once never seat one seeker
 * twice; the table opens on the node that matched. Its other members are
 * restored there from their entries (held for the reconnect window, like
 * a player back after a restart), and their nodes are told: each sends its
 * seeker `matched` and links it to the table's node, whose room and state
 * events follow. Without Redis a node matches its own seekers alone.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "server/account/account.h"
#include "server/base/log.h"
#include "server/cluster/cluster.h"
#include "server/cluster/relay.h"
#include "server/lobby/dispatch.h"
#include "server/lobby/restore.h"
#include "server/net/conn.h"
#include "server/room/room.h"
#include "server/session/session.h"
#include "protocol/envelope.h"

#define SEEK_BAND_START 5.0 /* rating points */
#define SEEK_BAND_PER_S 1.0 /* rating points a second of waiting */
#define SEEK_TICK_MS 1000

typedef struct seeker {
    session_t *s; /* NULL: another node's (in a cluster) */
    const game_desc_t *d;
    int players;
    bool rated;
    double rating;
    uint64_t since_us;  /* the server clock's; in a cluster, the wall clock's */
    queue_t node;       /* in seeks.list, oldest first */
    const json_t *pair; /* in a cluster: its [sid, text] in the queue as read */
} seeker_t;

struct seeks {
    uv_timer_t timer;
    queue_t list; /* this node's seekers */
    int n;
    bool busy;  /* a cluster's queue read, or a group taken out of it, is under way */
    bool again; /* ...and another match was asked meanwhile */
};

/* ------------------------------------------------------------------------ */
/* The queue                                                                */
/* ------------------------------------------------------------------------ */

static struct seeks *seeks_of(server_t *srv)
{
    if (srv->seeks || srv->stopping) return srv->seeks;
    struct seeks *q = tapis_calloc(1, sizeof *q);
    if (!q) return NULL;
    queue_init(&q->list);
    uv_timer_init(srv->loop, &q->timer);
    q->timer.data = srv;
    srv->seeks = q;
    return q;
}

static seeker_t *find(server_t *srv, const session_t *s)
{
    if (!srv->seeks) return NULL;
    for (queue_t *q = queue_head(&srv->seeks->list); q != &srv->seeks->list; q = queue_next(q)) {
        seeker_t *k = queue_data(q, seeker_t, node);
        if (k->s == s) return k;
    }
    return NULL;
}

static seeker_t *find_sid(server_t *srv, uint64_t sid)
{
    if (!srv->seeks) return NULL;
    for (queue_t *q = queue_head(&srv->seeks->list); q != &srv->seeks->list; q = queue_next(q)) {
        seeker_t *k = queue_data(q, seeker_t, node);
        if (k->s->id == sid) return k;
    }
    return NULL;
}

static void drop(server_t *srv, seeker_t *k)
{
    queue_remove(&k->node);
    srv->seeks->n--;
    if (srv->seeks->n == 0) uv_timer_stop(&srv->seeks->timer);
    tapis_free(k);
}

/* k leaves the queue, the cluster's too. */
static void leave(server_t *srv, seeker_t *k)
{
    cluster_seek_drop(srv, k->s->id);
    drop(srv, k);
}

void lobby_seek_forget(session_t *s)
{
    seeker_t *k = find(s->srv, s);
    if (k) leave(s->srv, k);
}

static void close_freed(uv_handle_t *h)
{
    tapis_free(h); /* the timer is the first member */
}

void lobby_seek_close(server_t *srv)
{
    struct seeks *q = srv->seeks;
    if (!q) return;
    while (!queue_empty(&q->list))
        drop(srv, queue_data(queue_head(&q->list), seeker_t, node));
    srv->seeks = NULL;
    uv_close((uv_handle_t *)&q->timer, close_freed);
}

/* ------------------------------------------------------------------------ */
/* Matching                                                                 */
/* ------------------------------------------------------------------------ */

static double band(const seeker_t *k, uint64_t now)
{
    double waited = now > k->since_us ? (double)(now - k->since_us) / 1e6 : 0;
    return SEEK_BAND_START + SEEK_BAND_PER_S * waited;
}

static bool same_kind(const seeker_t *a, const seeker_t *b)
{
    return a->d == b->d && a->players == b->players && a->rated == b->rated;
}

/* Closest to `pivot` first, then the longest waiting. */
static int by_distance(const void *x, const void *y, void *arg)
{
    const seeker_t *pivot = arg;
    const seeker_t *a = *(seeker_t *const *)x, *b = *(seeker_t *const *)y;
    double da = fabs(a->rating - pivot->rating), db = fabs(b->rating - pivot->rating);
    if (da != db) return da < db ? -1 : 1;
    return a->since_us < b->since_us ? -1 : a->since_us > b->since_us;
}

/* The group of `first` (the longest waiting of its kind) among the n seekers of all, with its
   closest, if close enough. */
static int group_of(seeker_t *const *all, int n, seeker_t *first, seeker_t **group, uint64_t now)
{
    seeker_t *cand[GAME_MAX_SEATS * 64];
    int nc = 0;
    for (int i = 0; i < n; i++)
        if (all[i] != first && same_kind(all[i], first) && nc < (int)(sizeof cand / sizeof cand[0]))
            cand[nc++] = all[i];
    if (nc < first->players - 1) return 0;
    qsort_r(cand, (size_t)nc, sizeof cand[0], by_distance, first);
    group[0] = first;
    double lo = first->rating, hi = first->rating, narrowest = band(first, now);
    for (int i = 1; i < first->players; i++) {
        group[i] = cand[i - 1];
        lo = fmin(lo, group[i]->rating);
        hi = fmax(hi, group[i]->rating);
        narrowest = fmin(narrowest, band(group[i], now));
    }
    return hi - lo <= narrowest ? first->players : 0;
}

/* A new table of d for n seekers (rated or casual), or NULL (logged). */
static room_t *new_table(server_t *srv, const game_desc_t *d, int n, bool rated)
{
    json_t *options = lobby_room_options(srv, d, NULL);
    tapis_error_t err = {TAPIS_E_INTERNAL, "out of memory"};
    room_t *r =
        options ? room_create(srv, d, n, options, false, room_race_default(srv), &err) : NULL;
    json_decref(options);
    if (!r) {
        log_warn("seek: no table for %s: %s", d->id, err.message);
        return NULL;
    }
    if (rated && !(r->rated = rated_room_new(d->id))) {
        room_destroy(r);
        return NULL;
    }
    return r;
}

static void send_matched(session_t *s, const char *room, const char *game, int n, int seat,
                         bool rated)
{
    json_t *ev = json_pack("{s:s, s:s, s:s, s:i, s:i, s:b}", "ev", "matched", "room", room, "game",
                           game, "players", n, "seat", seat, "rated", rated);
    if (s->conn) conn_send_new(s->conn, ev); /* NULL: the connection is closed (conn.h) */
}

/* Seat the group at a new table and start it. Returns 0, or -1 (the queue is unchanged
   but for a seeker that could not sit, which leaves it). */
static int open_table(server_t *srv, seeker_t **group, int n)
{
    const game_desc_t *d = group[0]->d;
    room_t *r = new_table(srv, d, n, group[0]->rated);
    if (!r) return -1;
    tapis_error_t err;
    for (int i = 0; i < n; i++)
        if (room_sit(r, group[i]->s, i, &err) < 0) {
            log_warn("seek: %s cannot sit at table %s: %s", group[i]->s->name, r->id, err.message);
            room_destroy(r);
            leave(srv, group[i]);
            return -1;
        }
    for (int i = 0; i < n; i++) {
        send_matched(group[i]->s, r->id, d->id, n, i, group[i]->rated);
        drop(srv, group[i]);
    }
    log_info("seek: table %s for %d seekers of %s", r->id, n, d->id);
    room_seated(r);
    return 0;
}

/* This node's queue alone (no cluster, or Redis cannot be reached). */
static void match_here(server_t *srv)
{
    if (!srv->seeks || srv->stopping || srv->draining) return;
    /* A cluster's seekers wait on the wall clock (seek.c's entries), a lone node's on its own. */
    uint64_t now = srv->cluster ? (uint64_t)server_wall_ms() * 1000 : server_now_us(srv);
    seeker_t *group[GAME_MAX_SEATS];
    bool again = true;
    while (again) {
        again = false;
        seeker_t **all = tapis_calloc((size_t)srv->seeks->n + 1, sizeof *all);
        if (!all) return;
        int n = 0;
        for (queue_t *q = queue_head(&srv->seeks->list); q != &srv->seeks->list; q = queue_next(q))
            all[n++] = queue_data(q, seeker_t, node);
        for (int i = 0; i < n && !again; i++) {
            int g = group_of(all, n, all[i], group, now);
            if (g > 0) {
                open_table(srv, group, g);
                again = true; /* the queue changed: walk it again */
            }
        }
        tapis_free(all);
    }
}

/* ------------------------------------------------------------------------ */
/* Matching in a cluster                                                    */
/* ------------------------------------------------------------------------ */

static void match(server_t *srv);

/* An entry of the cluster's queue: {"node","name","hash","created","game","players","rated",
   "rating","since"} (since: wall ms). */
static char *entry_text(server_t *srv, const seeker_t *k)
{
    json_t *e =
        json_pack("{s:s, s:s, s:s, s:I, s:s, s:i, s:b, s:f, s:I}", "node", cluster_node_id(srv),
                  "name", k->s->name, "hash", k->s->token_hash, "created",
                  (json_int_t)k->s->created, "game", k->d->id, "players", k->players, "rated",
                  k->rated, "rating", k->rating, "since", (json_int_t)(k->since_us / 1000));
    char *text = e ? json_dumps(e, JSON_COMPACT) : NULL;
    json_decref(e);
    return text;
}

static uint64_t pair_sid(const json_t *pair)
{
    return strtoull(json_string_value(json_array_get(pair, 0)), NULL, 10);
}

/* The members of a group taken out of the cluster's queue: at a new table here, their nodes
   told. One who cannot sit (a seeker of this node who cancelled meanwhile) leaves; the
   others go back to the queue. */
static void open_cluster_table(server_t *srv, const json_t *pairs)
{
    int n = (int)json_array_size(pairs);
    json_t *e[GAME_MAX_SEATS] = {0};
    session_t *who[GAME_MAX_SEATS] = {0};
    for (int i = 0; i < n; i++)
        e[i] = json_loads(json_string_value(json_array_get(json_array_get(pairs, i), 1)), 0, NULL);
    const game_desc_t *d = game_find(json_string_value(json_object_get(e[0], "game")));
    bool rated = json_is_true(json_object_get(e[0], "rated"));
    room_t *r = d ? new_table(srv, d, n, rated) : NULL;
    int failed = r ? -1 : 0;
    tapis_error_t err = {TAPIS_E_INTERNAL, "out of memory"};
    for (int i = 0; r && i < n && failed < 0; i++) {
        uint64_t sid = pair_sid(json_array_get(pairs, i));
        const char *node = json_string_value(json_object_get(e[i], "node"));
        if (node && strcmp(node, cluster_node_id(srv)) == 0) {
            seeker_t *k = find_sid(srv, sid);
            who[i] = k ? k->s : NULL;
        } else { /* another node's: held here until its link comes */
            durable_session_rec_t rec = {.id = sid};
            snprintf(rec.name, sizeof rec.name, "%s",
                     json_string_value(json_object_get(e[i], "name")));
            snprintf(rec.token_hash, sizeof rec.token_hash, "%s",
                     json_string_value(json_object_get(e[i], "hash")));
            rec.created = json_integer_value(json_object_get(e[i], "created"));
            who[i] = lobby_session_of_record(srv, &rec);
            if (who[i] && rated && !who[i]->account) who[i]->account = account_find(srv, rec.name);
        }
        if (!who[i] || (rated && !who[i]->account) || room_sit(r, who[i], i, &err) < 0) {
            log_warn("seek: seeker %llu cannot sit at table %s", (unsigned long long)sid, r->id);
            failed = i;
        }
    }
    if (failed >= 0) {
        if (r) room_destroy(r);
        for (int i = 0; i < n; i++) { /* back in the queue, as they were */
            const json_t *p = json_array_get(pairs, i);
            if (i != failed)
                cluster_seek_put(srv, pair_sid(p), json_string_value(json_array_get(p, 1)));
        }
        seeker_t *k = failed < n ? find_sid(srv, pair_sid(json_array_get(pairs, failed))) : NULL;
        if (k) drop(srv, k);
    } else {
        const char *me = cluster_node_id(srv);
        for (int i = 0; i < n; i++) /* this node's seekers: told first, the state follows */
            if (strcmp(json_string_value(json_object_get(e[i], "node")), me) == 0) {
                seeker_t *k = find_sid(srv, who[i]->id);
                send_matched(who[i], r->id, d->id, n, i, rated);
                if (k) drop(srv, k);
            }
        room_seated(r);
        log_info("seek: table %s for %d seekers of %s in the cluster", r->id, n, d->id);
        for (int i = 0; i < n; i++) { /* the others' nodes: each links its seeker here */
            const char *node = json_string_value(json_object_get(e[i], "node"));
            if (strcmp(node, me) == 0) continue;
            json_t *m = json_pack("{s:I, s:s, s:s, s:i, s:i, s:b, s:s}", "sid",
                                  (json_int_t)who[i]->id, "room", r->id, "game", d->id, "players",
                                  n, "seat", i, "rated", rated, "node", me);
            if (m) cluster_seek_tell(srv, node, m);
            json_decref(m);
        }
    }
    for (int i = 0; i < n; i++)
        json_decref(e[i]);
}

static void on_taken(server_t *srv, int taken, void *arg)
{
    json_t *pairs = arg;
    struct seeks *q = srv->seeks;
    if (q && !srv->stopping) {
        q->busy = false;
        if (taken == 1) open_cluster_table(srv, pairs);
        if (taken >= 0 && q->n > 0) match(srv); /* more may match, or the group changed */
    }
    json_decref(pairs);
}

/* The cluster's queue, as read: the groups led by this node's seekers, oldest first. */
static void on_seekers(server_t *srv, const json_t *all, void *arg)
{
    (void)arg;
    struct seeks *q = srv->seeks;
    if (!q || srv->stopping) return;
    q->busy = false;
    if (!all) { /* Redis cannot say: this node alone */
        match_here(srv);
        return;
    }
    size_t n = json_array_size(all), m = 0;
    seeker_t *ks = tapis_calloc(n + 1, sizeof *ks);
    seeker_t **ps = tapis_calloc(n + 1, sizeof *ps);
    for (size_t i = 0; ks && ps && i < n; i++) {
        const json_t *p = json_array_get(all, i);
        json_t *e = json_loads(json_string_value(json_array_get(p, 1)), 0, NULL);
        const char *node = json_string_value(json_object_get(e, "node"));
        const game_desc_t *d = game_find(json_string_value(json_object_get(e, "game")));
        seeker_t *k = &ks[m];
        *k =
            (seeker_t){.d = d,
                       .players = (int)json_integer_value(json_object_get(e, "players")),
                       .rated = json_is_true(json_object_get(e, "rated")),
                       .rating = json_number_value(json_object_get(e, "rating")),
                       .since_us = (uint64_t)json_integer_value(json_object_get(e, "since")) * 1000,
                       .pair = p};
        bool mine = node && strcmp(node, cluster_node_id(srv)) == 0;
        if (mine) {
            seeker_t *here = find_sid(srv, pair_sid(p));
            k->s = here ? here->s : NULL;
            if (!here) cluster_seek_drop(srv, pair_sid(p)); /* left, its HDEL lost */
        }
        if (d && node && (mine ? k->s != NULL : cluster_node_alive(srv, node))) ps[m++] = k;
        json_decref(e);
    }
    /* oldest first (insertion sort: a queue is short) */
    for (size_t i = 1; i < m; i++)
        for (size_t j = i; j > 0 && ps[j]->since_us < ps[j - 1]->since_us; j--) {
            seeker_t *t = ps[j];
            ps[j] = ps[j - 1];
            ps[j - 1] = t;
        }
    uint64_t now = (uint64_t)server_wall_ms() * 1000;
    seeker_t *group[GAME_MAX_SEATS];
    for (size_t i = 0; i < m && !q->busy; i++) {
        if (!ps[i]->s) continue; /* the groups of another node's seekers are its own to make */
        int g = group_of(ps, (int)m, ps[i], group, now);
        json_t *pairs = g > 0 ? json_array() : NULL;
        for (int j = 0; pairs && j < g; j++)
            json_array_append(pairs, (json_t *)group[j]->pair);
        if (pairs && cluster_seek_take(srv, pairs, on_taken, pairs) == 0)
            q->busy = true;
        else
            json_decref(pairs);
    }
    tapis_free(ks);
    tapis_free(ps);
    if (!q->busy && q->again) match(srv);
}

static void match(server_t *srv)
{
    struct seeks *q = srv->seeks;
    if (!q || srv->stopping || srv->draining) return;
    if (!srv->cluster) {
        match_here(srv);
        return;
    }
    if (q->busy) {
        q->again = true;
        return;
    }
    q->again = false;
    q->busy = cluster_seek_read(srv, on_seekers, NULL) == 0;
    if (!q->busy) match_here(srv); /* Redis cannot be reached now */
}

void lobby_seek_matched(void *ctx, const json_t *m)
{
    server_t *srv = ctx;
    uint64_t sid = (uint64_t)json_integer_value(json_object_get(m, "sid"));
    const char *room = json_string_value(json_object_get(m, "room"));
    const char *game = json_string_value(json_object_get(m, "game"));
    const char *node = json_string_value(json_object_get(m, "node"));
    if (!room || !game || !node) return;
    seeker_t *k = find_sid(srv, sid);
    session_t *s = k ? k->s : lobby_session_here(srv, sid);
    if (k) leave(srv, k);       /* out of the cluster's queue already, unless it sought again */
    if (!s || !s->conn) return; /* its seat waits for it: hello NAME TOKEN, anywhere */
    log_info("seek: %s seated at table %s of node %s", s->name, room, node);
    send_matched(s, room, game, (int)json_integer_value(json_object_get(m, "players")),
                 (int)json_integer_value(json_object_get(m, "seat")),
                 json_is_true(json_object_get(m, "rated")));
    relay_link(s->conn, node, room); /* the room and its state follow */
}

static void on_tick(uv_timer_t *t)
{
    match(t->data);
}

/* ------------------------------------------------------------------------ */
/* Commands                                                                 */
/* ------------------------------------------------------------------------ */

void lobby_seek(request_t *req)
{
    server_t *srv = req->conn->srv;
    session_t *s = req->session;
    const char *game = json_string_value(json_object_get(req->msg, "game"));
    const game_desc_t *d = game_find(game);
    if (!d) {
        req_fail(req, TAPIS_E_NOT_FOUND, "no game \"%s\" (see games)", game);
        return;
    }
    json_t *players = json_object_get(req->msg, "players");
    int n = players ? (int)json_integer_value(players) : lobby_default_players(d);
    if (n < d->min_seats || n > d->max_seats || n > GAME_MAX_SEATS) {
        req_fail(req, TAPIS_E_BAD_PLAYERS, "%s is played by %d to %d players", d->title,
                 d->min_seats, d->max_seats);
        return;
    }
    bool rated = json_is_true(json_object_get(req->msg, "rated"));
    if (rated && !s->account) {
        req_fail(req, TAPIS_E_ACCOUNT_REQUIRED, "guests play casual games: log in to seek rated");
        return;
    }
    if (srv->draining) {
        req_fail(req, TAPIS_E_DRAINING, "the server is draining for a restart: no new tables");
        return;
    }
    if (s->nrooms >= SESSION_MAX_ROOMS) {
        req_fail(req, TAPIS_E_TOO_MANY_ROOMS, "leave a room first (you are in too many)");
        return;
    }
    seeker_t *k = find(srv, s);
    struct seeks *q = seeks_of(srv);
    if (!k && q && (k = tapis_calloc(1, sizeof *k))) {
        queue_insert_tail(&q->list, &k->node);
        q->n++;
    }
    json_t *reply = k ? req_ok_prepare(req, json_pack("{s:s, s:i, s:b}", "game", d->id, "players",
                                                      n, "rated", rated))
                      : NULL;
    if (!reply) {
        if (k && !k->s) drop(srv, k); /* new and never filled */
        req_fail(req, TAPIS_E_INTERNAL, "out of memory");
        return;
    }
    /* A second seek replaces the first, and waits from now. */
    double shown = 0;
    account_shown_rating(s->account, d->id, &shown);
    uint64_t since = srv->cluster ? (uint64_t)server_wall_ms() * 1000 : req->stamp;
    *k = (seeker_t){.s = s,
                    .d = d,
                    .players = n,
                    .rated = rated,
                    .rating = shown,
                    .since_us = since,
                    .node = k->node};
    if (srv->cluster) {
        char *text = entry_text(srv, k);
        if (text) cluster_seek_put(srv, s->id, text); /* else this node matches it alone */
        free(text);
    }
    req_send(req, reply);
    if (q->n == 1) uv_timer_start(&q->timer, on_tick, SEEK_TICK_MS, SEEK_TICK_MS);
    match(srv);
}

void lobby_cancel(request_t *req)
{
    seeker_t *k = find(req->conn->srv, req->session);
    if (!k) {
        req_fail(req, TAPIS_E_NOT_FOUND, "you are not seeking a game");
        return;
    }
    if (req_ok(req, json_pack("{s:s}", "game", k->d->id)) == 0) leave(req->conn->srv, k);
}
