/*
 * scheduler.h — the scheduler: one turn of work after each poll, in time order.
 *
 * Two kinds of work wait: lines (a connection in srv->ready, keyed by the
 * stamp of its next line) and deadlines (a room in srv->timers, keyed by its
 * next game deadline, turn timer, bot move or waiting timeout). A turn takes
 * whichever is earliest, again and again, until nothing is due or the turn's
 * budget is spent:
 *  - at most SCHED_TURN_BUDGET units per turn (a line or a room's deadline),
 *    and no more once SCHED_TURN_NS have passed (the replies of a turn are
 *    written at its end: a long turn would make everyone wait);
 *  - at most SCHED_CONN_LINES lines of one connection per turn: when the
 *    earliest line belongs to a connection that used them, the turn ends
 *    (nothing stamped later may go before it) and the loop polls, runs its
 *    timers and reads sockets before the next turn goes on.
 * Strict stamp order is what settles races fairly; a backlog cannot overtake
 * anyone, because a connection is not read while its backlog waits, and its
 * later bytes are stamped when they are read. Nor can a stall: what is due
 * is what was due when the poll returned (and SCHED_POLL_SLACK_US more), so
 * work that fell due while the process was off its core waits for the next
 * poll to read the bytes that reached the kernel meanwhile.
 * Then the loop polls again: the idle handle keeps poll from blocking while
 * work waits, and one timer (`wake`) wakes the loop for the earliest room
 * deadline. Nothing here ever arms a timer for 0 ms, and no timer callback
 * does game work, so timers can never keep the loop from reading sockets.
 */
#ifndef TAPIS_SERVER_SCHEDULER_H
#define TAPIS_SERVER_SCHEDULER_H

#include "server/server.h"

#define SCHED_TURN_BUDGET 1024
#define SCHED_CONN_LINES 32
#define SCHED_TURN_NS 1000000 /* 1 ms */
/* A turn takes work due up to the poll's return and this much after it
   (libuv's loop time, which says when the poll returned, is in ms and may
   lag a ms): a longer stall since is the process's, and waits a poll. */
#define SCHED_POLL_SLACK_US 2000

/* Initialise the handles (idle, check, prepare, wake) on srv->loop and start them. */
void sched_init(server_t *srv);
/* Close them (shutdown). */
void sched_close(server_t *srv);
/* One turn of work (the check handle calls it; tests may too). */
void sched_turn(server_t *srv);

#endif
