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
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "server/account/account.h"
#include "server/base/log.h"
#include "server/lobby/dispatch.h"
#include "server/net/conn.h"
#include "server/room/room.h"
#include "server/session/session.h"
#include "protocol/envelope.h"

#define SEEK_BAND_START 5.0 /* rating points */
#define SEEK_BAND_PER_S 1.0 /* rating points a second of waiting */
#define SEEK_TICK_MS 1000

typedef struct seeker {
    session_t *s;
    const game_desc_t *d;
    int players;
    bool rated;
    double rating;
    uint64_t since_us;
    queue_t node; /* in seeks.list, oldest first */
} seeker_t;

struct seeks {
    uv_timer_t timer;
    queue_t list;
    int n;
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

static void drop(server_t *srv, seeker_t *k)
{
    queue_remove(&k->node);
    srv->seeks->n--;
    if (srv->seeks->n == 0) uv_timer_stop(&srv->seeks->timer);
    tapis_free(k);
}

void lobby_seek_forget(session_t *s)
{
    seeker_t *k = find(s->srv, s);
    if (k) drop(s->srv, k);
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

/* The group of `first` (the longest waiting of its kind) and its closest, if close enough. */
static int group_of(server_t *srv, seeker_t *first, seeker_t **group, uint64_t now)
{
    seeker_t *cand[GAME_MAX_SEATS * 64];
    int n = 0;
    for (queue_t *q = queue_head(&srv->seeks->list); q != &srv->seeks->list; q = queue_next(q)) {
        seeker_t *k = queue_data(q, seeker_t, node);
        if (k != first && same_kind(k, first) && n < (int)(sizeof cand / sizeof cand[0]))
            cand[n++] = k;
    }
    if (n < first->players - 1) return 0;
    qsort_r(cand, (size_t)n, sizeof cand[0], by_distance, first);
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

/* Seat the group at a new table and start it. Returns 0, or -1 (the queue is unchanged
   but for a seeker that could not sit, which leaves it). */
static int open_table(server_t *srv, seeker_t **group, int n)
{
    const game_desc_t *d = group[0]->d;
    json_t *options = lobby_room_options(srv, d, NULL);
    tapis_error_t err = {TAPIS_E_INTERNAL, "out of memory"};
    room_t *r = options ? room_create(srv, d, n, options, false, &err) : NULL;
    json_decref(options);
    if (!r) {
        log_warn("seek: no table for %s: %s", d->id, err.message);
        return -1;
    }
    if (group[0]->rated && !(r->rated = rated_room_new(d->id))) {
        room_destroy(r);
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (room_sit(r, group[i]->s, i, &err) < 0) {
            log_warn("seek: %s cannot sit at table %s: %s", group[i]->s->name, r->id, err.message);
            room_destroy(r);
            drop(srv, group[i]);
            return -1;
        }
    for (int i = 0; i < n; i++) {
        session_t *s = group[i]->s;
        json_t *ev = json_pack("{s:s, s:s, s:s, s:i, s:i, s:b}", "ev", "matched", "room", r->id,
                               "game", d->id, "players", n, "seat", i, "rated", group[i]->rated);
        if (s->conn) conn_send_new(s->conn, ev); /* NULL: the connection is closed (conn.h) */
        drop(srv, group[i]);
    }
    log_info("seek: table %s for %d seekers of %s", r->id, n, d->id);
    room_seated(r);
    return 0;
}

static void match(server_t *srv)
{
    if (!srv->seeks || srv->stopping || srv->draining) return;
    uint64_t now = server_now_us(srv);
    seeker_t *group[GAME_MAX_SEATS];
    bool again = true;
    while (again) {
        again = false;
        for (queue_t *q = queue_head(&srv->seeks->list); q != &srv->seeks->list;
             q = queue_next(q)) {
            seeker_t *k = queue_data(q, seeker_t, node);
            int n = group_of(srv, k, group, now);
            if (n > 0) {
                open_table(srv, group, n);
                again = true; /* the queue changed: walk it again */
                break;
            }
        }
    }
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
    *k = (seeker_t){s, d, n, rated, shown, req->stamp, k->node};
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
    if (req_ok(req, json_pack("{s:s}", "game", k->d->id)) == 0) drop(req->conn->srv, k);
}
