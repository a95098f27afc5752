/*
 * room_think.c — a bot's decision off the event loop.
 *
 * A "hard" bot's search (core/search.c) costs milliseconds of CPU a move: on
 * the loop, every other connection of the server would wait for it. So it
 * runs on libuv's thread pool (uv_queue_work), from what the bot may see
 * and nothing else: a deep copy of its seat's view, built on the loop and
 * owned by the work, and a copy of its generator. The search is a pure
 * function of the two (core/ has no global mutable state; the allocator's
 * count of failures is per thread, include/tapis_alloc.h). The worker
 * touches no room, no session, no server.
 *
 * While a room's bot thinks, the room's deadline waits (room__reschedule()):
 * the run of due moves that asked for the decision (room_run_due()) stopped
 * there, and goes on with its result at its own time, as if the search had
 * taken no time, so that the moves and their room times are the ones an
 * on-loop decision would have made. Lines still reach the room meanwhile;
 * one that changes it (a move, a tick, the end) makes the decision stale:
 * the room lets it go (room__think_drop()) and its bot decides again when
 * it next falls due: on the loop after ROOM_THINK_DROPS such in a row, so
 * that a player quick enough to change the room during every search cannot
 * keep the bot from playing. A room closed (or the server stopping) lets it go
 * too; the work, which cannot be stopped once started, frees itself when
 * it comes back (think_after() runs even then: uv_run() waits for it).
 *
 * At most --bot-searches searches are on the pool at once (the pool is
 * shared: the accounts' password hashes run there too); the others wait in
 * srv->searches, first asked first run, and are freed at once if let go.
 */
#include <stdio.h>

#include "core/search.h"
#include "server/base/log.h"
#include "server/room/room_int.h"

struct room_think {
    uv_work_t work;
    queue_t node; /* in srv->searches until it is handed to the pool */
    server_t *srv;
    room_t *room; /* NULL once the room let it go */
    const game_desc_t *desc;
    int seat;
    uint64_t seq; /* the room's seq when asked: the result is for that state only */
    char strategy[sizeof((seat_t *)0)->bot_name];
    rng_t rng;      /* the bot's generator, advanced by the search: the seat's if applied */
    json_t *view;   /* the worker's own (a deep copy); freed by it */
    json_t *action; /* the decision, or NULL: none, or out of memory (oom) */
    bool oom;
    bool queued; /* handed to the pool */
    bool done;   /* came back from it: the result waits for its room */
};

/* ------------------------------------------------------------------------ */
/* The work                                                                 */
/* ------------------------------------------------------------------------ */

static void think_free(room_think_t *t)
{
    json_decref(t->view);
    json_decref(t->action);
    tapis_free(t);
}

/* On a thread of the pool: t's own view and generator only. */
static void think_work(uv_work_t *w)
{
    room_think_t *t = w->data;
    unsigned long mark = tapis_alloc_failures(); /* this thread's */
    t->action = game_bot(t->desc, t->view, t->strategy, &t->rng);
    t->oom = tapis_alloc_failed_since(mark);
    json_decref(t->view);
    t->view = NULL;
}

static void think_after(uv_work_t *w, int status);

/* Hand t to the pool. A failure (none is expected: uv_queue_work() checks its
   arguments only) leaves it done with no action, as if memory had run out. */
static int think_queue(room_think_t *t)
{
    int rc = uv_queue_work(t->srv->loop, &t->work, think_work, think_after);
    if (rc < 0) {
        log_warn("cannot search off the loop: %s", uv_strerror(rc));
        t->done = t->oom = true;
        return rc;
    }
    t->queued = true;
    t->srv->metrics.bot_searches_running++;
    return 0;
}

/*
 * How many searches may run at once: --bot-searches (a cap of 0, set by a
 * reload, still lets those waiting run one at a time), and never the whole
 * pool, whose other threads hash the accounts' passwords (a pool of one
 * thread is shared).
 */
static int think_cap(const server_t *srv)
{
    int cap = srv->opts.bot_searches > 0 ? srv->opts.bot_searches : 1;
    if (srv->pool_threads > 1 && cap > srv->pool_threads - 1) cap = srv->pool_threads - 1;
    return cap;
}

/* The searches waiting, to the pool while it has room for them. */
static void think_pump(server_t *srv)
{
    int cap = think_cap(srv);
    while (!queue_empty(&srv->searches) && srv->metrics.bot_searches_running < cap) {
        room_think_t *t = queue_data(queue_head(&srv->searches), room_think_t, node);
        queue_remove(&t->node);
        srv->metrics.bot_searches_waiting--;
        if (think_queue(t) < 0) room__reschedule(t->room); /* "done": its run goes on */
    }
}

/* Back on the loop (also when canceled, or after its room let it go). */
static void think_after(uv_work_t *w, int status)
{
    room_think_t *t = w->data;
    server_t *srv = t->srv;
    srv->metrics.bot_searches_running--;
    room_t *r = t->room;
    if (!r) { /* let go: dropped, closed, or the server stops */
        think_free(t);
    } else {
        t->done = true;
        if (status < 0) room__think_drop(r); /* (only uv_cancel() fails it, after a drop) */
        room__reschedule(r);                 /* current: the paused run goes on; stale: let go */
    }
    think_pump(srv);
}

/* ------------------------------------------------------------------------ */
/* The room's side                                                          */
/* ------------------------------------------------------------------------ */

bool room__thinks_off_loop(const room_t *r, int i, const json_t *view)
{
    return r->srv->opts.bot_searches > 0 && r->seats[i].think_drops < ROOM_THINK_DROPS &&
           r->desc->search && game_search_budget(r->seats[i].bot_name, 1) > 0 &&
           json_array_size(json_object_get(view, "legal")) > 1;
}

int room__think_start(room_t *r, int i, const json_t *view)
{
    server_t *srv = r->srv;
    seat_t *st = &r->seats[i];
    room_think_t *t = tapis_calloc(1, sizeof *t);
    json_t *own = json_deep_copy(view); /* no part shared with the game's state */
    if (!t || !own) {
        tapis_free(t);
        json_decref(own);
        return -1;
    }
    t->work.data = t;
    queue_init(&t->node);
    t->srv = srv;
    t->room = r;
    t->desc = r->desc;
    t->seat = i;
    t->seq = r->seq;
    snprintf(t->strategy, sizeof t->strategy, "%s", st->bot_name);
    t->rng = st->bot_rng;
    t->view = own;
    if (srv->metrics.bot_searches_running < think_cap(srv)) {
        int rc = think_queue(t);
        if (rc < 0) {
            think_free(t);
            return rc;
        }
    } else {
        queue_insert_tail(&srv->searches, &t->node);
        srv->metrics.bot_searches_waiting++;
    }
    r->thinking = t;
    srv->metrics.bot_searches++;
    return 0;
}

bool room__think_current(const room_t *r)
{
    const room_think_t *t = r->thinking;
    return t && !r->closed && !r->srv->stopping && r->status == ROOM_PLAYING && t->seq == r->seq &&
           r->seats[t->seat].bot;
}

bool room__think_ready(const room_t *r, int i)
{
    return room__think_current(r) && r->thinking->done && (i < 0 || r->thinking->seat == i);
}

void room__think_drop(room_t *r)
{
    room_think_t *t = r->thinking;
    if (!t) return;
    r->thinking = NULL;
    r->seats[t->seat].bot_due = GAME_NO_DEADLINE; /* due again after its reaction time */
    r->seats[t->seat].think_drops++;
    r->srv->metrics.bot_searches_dropped++;
    log_debug("room %s: the search of the bot at seat %d dropped (state %llu, now %llu)", r->id,
              t->seat, (unsigned long long)t->seq, (unsigned long long)r->seq);
    if (!t->queued) { /* still waiting its turn, or failed to start */
        if (!queue_empty(&t->node)) r->srv->metrics.bot_searches_waiting--;
        queue_remove(&t->node);
        think_free(t);
    } else if (t->done) {
        think_free(t);
    } else {
        t->room = NULL;
        uv_cancel((uv_req_t *)&t->work); /* not started yet: it never will (fails otherwise) */
    }
}

json_t *room__think_take(room_t *r, bool *oom)
{
    room_think_t *t = r->thinking;
    r->thinking = NULL;
    r->seats[t->seat].bot_rng = t->rng;
    json_t *action = t->action;
    *oom = t->oom;
    t->action = NULL;
    think_free(t);
    return action;
}
