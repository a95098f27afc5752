/* scheduler.c — one turn of work in time order. See scheduler.h. */
#include "server/sched/scheduler.h"

#include "server/durable/durable.h"
#include "server/net/conn.h"
#include "server/room/room.h"

/* ------------------------------------------------------------------------ */
/* A turn                                                                   */
/* ------------------------------------------------------------------------ */

static void close_doomed(server_t *srv)
{
    while (!queue_empty(&srv->doomed)) {
        conn_t *c = queue_data(queue_head(&srv->doomed), conn_t, doom_node);
        conn_close(c, c->doom_why);
    }
}

/*
 * The one commit point of the server: what the work since the last one
 * wrote (the journal, rooms, seats, sessions) is made durable by every
 * backend of the sink, then, and only then, the output is written
 * (write-ahead: no client sees what a crash could take back). Rooms
 * destroyed meanwhile are freed last: nothing refers to them any more.
 */
static void commit_and_write(server_t *srv)
{
    durable_commit(&srv->durable);
    conn_flush_all(srv);
    room_free_graveyard(srv);
}

void sched_turn(server_t *srv)
{
    close_doomed(srv);
    srv->turn++;
    /* What is due is asked of the server clock (a test sets it); the turn's
       work budget is real time spent, so it stays on uv_hrtime(). Bytes
       that reached the kernel after the poll returned are read only at the
       next poll: work due later than the poll (a held line, a deadline, a
       line read after a stall) waits for it, or it would pass them (their
       stamps are then raised to the work done: conn.c). So a stall between
       the poll and the turn, the process off its core, defers that work by
       one poll instead. */
    uint64_t now = server_now_us(srv);
    uint64_t polled = clock_polled_us(&srv->clock, uv_now(srv->loop)) + SCHED_POLL_SLACK_US;
    if (polled < now) {
        now = polled;
        srv->metrics.turns_after_stall++;
    }
    uint64_t until = uv_hrtime() + SCHED_TURN_NS;
    for (int budget = SCHED_TURN_BUDGET; budget > 0;) {
        /* Long turns make everyone wait for their replies: they go out at the end. */
        if ((budget & 7) == 0 && budget < SCHED_TURN_BUDGET && uv_hrtime() > until) break;
        /* (The keys as the heaps hold them: the nodes, in cold rooms, are read only when due.) */
        heap_node_t *line = heap_min_key(&srv->ready) <= now ? heap_min(&srv->ready) : NULL;
        heap_node_t *due = heap_min_key(&srv->timers) <= now ? heap_min(&srv->timers) : NULL;
        /* (a line not due is held for a race: conn.c) */
        if (!line && !due) break;
        budget--;
        /* A line and a deadline at the same µs: the line first (it was read by then). */
        if (due && (!line || due->key < line->key)) {
            srv->work_us = due->key;
            if (due->key > srv->done_us) srv->done_us = due->key;
            room_run_due(heap_entry(due, room_t, due));
            continue;
        }
        conn_t *c = heap_entry(line, conn_t, ready);
        if (c->turn != srv->turn) {
            c->turn = srv->turn;
            c->turn_lines = 0;
        }
        if (c->turn_lines >= SCHED_CONN_LINES) break; /* the earliest line waits: so does all */
        c->turn_lines++;
        srv->work_us = line->key;
        if (line->key > srv->done_us) srv->done_us = line->key;
        conn_take_line(c);
    }
    srv->work_us = 0;
    close_doomed(srv);
    commit_and_write(srv);
}

/* ------------------------------------------------------------------------ */
/* Handles                                                                  */
/* ------------------------------------------------------------------------ */

static void on_check(uv_check_t *h)
{
    sched_turn(h->data);
}

/* The idle handle only keeps uv_run() from blocking in poll while work waits. */
static void on_idle(uv_idle_t *h)
{
    (void)h;
}

/* The wake timer only ends the poll: the check handle does the work. */
static void on_wake(uv_timer_t *t)
{
    server_t *srv = t->data;
    srv->wake_at = UINT64_MAX;
}

/*
 * Before each poll: commit and write what was sent outside a turn (timers
 * such as a reconnect window's bot, signals, a relay's replies: the same
 * commit point), then make sure poll returns in time for the next piece of
 * work.
 */
static void on_prepare(uv_prepare_t *h)
{
    server_t *srv = h->data;
    commit_and_write(srv);
    uint64_t now = server_now_us(srv);
    uint64_t line = heap_min_key(&srv->ready), due = heap_min_key(&srv->timers);
    /* A line held for a race is due at its key, like a deadline. */
    if (line != UINT64_MAX && line > now && line < due) due = line;
    bool busy = line <= now || !queue_empty(&srv->doomed) || due <= now;
    if (busy)
        uv_idle_start(&srv->idle, on_idle);
    else
        uv_idle_stop(&srv->idle);
    if (due == UINT64_MAX || busy) {
        if (srv->wake_at != UINT64_MAX) uv_timer_stop(&srv->wake);
        srv->wake_at = UINT64_MAX;
        return;
    }
    if (srv->wake_at == due) return;
    srv->wake_at = due;
    uv_timer_start(&srv->wake, on_wake, (due - now + 999) / 1000, 0);
}

void sched_init(server_t *srv)
{
    uv_idle_init(srv->loop, &srv->idle);
    uv_check_init(srv->loop, &srv->check);
    uv_prepare_init(srv->loop, &srv->prepare);
    uv_timer_init(srv->loop, &srv->wake);
    srv->idle.data = srv->check.data = srv->prepare.data = srv->wake.data = srv;
    srv->wake_at = UINT64_MAX;
    uv_check_start(&srv->check, on_check);
    uv_prepare_start(&srv->prepare, on_prepare);
}

void sched_close(server_t *srv)
{
    uv_close((uv_handle_t *)&srv->idle, NULL);
    uv_close((uv_handle_t *)&srv->check, NULL);
    uv_close((uv_handle_t *)&srv->prepare, NULL);
    uv_close((uv_handle_t *)&srv->wake, NULL);
    heap_free(&srv->ready);
    heap_free(&srv->timers);
}
