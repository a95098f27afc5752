/*
 * room_int.h — what room.c and room_play.c share. Not for use outside
 * server/room/.
 */
#ifndef TAPIS_SERVER_ROOM_INT_H
#define TAPIS_SERVER_ROOM_INT_H

#include "server/room/room.h"

/* Entry n of r's journal, to the durability sink (room.c). */
void room__journal(room_t *r, const char *kind, int seat, int64_t at, const json_t *data);
/* Room time now: server time plus the room's offset (room_play.c). */
int64_t room__clock(const room_t *r);
/* Is someone connected in r (a seated person or a spectator)? (room_play.c) */
bool room__attended(const room_t *r);
/* Put r in the timers heap under its earliest deadline, or take it out (room_play.c). */
void room__reschedule(room_t *r);

/* --- races (room_race.c) --- */

/* What a held line says of its sender's round trip: the quota (room_race.c). */
void room__race_evidence(room_t *r, session_t *s, uint64_t stamp_us, const room_settle_t *st);
/* The journal's race entry: how the action that follows was settled. */
void room__race_journal(room_t *r, int seat, int64_t now, uint64_t stamp_us,
                        const room_settle_t *st, bool held);

/* --- a bot's decision on the thread pool (room_think.c) --- */

typedef struct room_think room_think_t;
/* Does the bot at seat i decide from `view` off the loop? Yes when its level searches
   ("hard") and it has a choice: one legal action is played without search (search.h),
   at once, rather than after the searches waiting for the pool. And not after
   ROOM_THINK_DROPS of its searches in a row were let go because the room changed
   meanwhile (a fast player at a table where all play at once, slap): then it
   decides on the loop, and plays. */
#define ROOM_THINK_DROPS 2
bool room__thinks_off_loop(const room_t *r, int i, const json_t *view);
/* Start seat i's decision from a deep copy of `view` on the thread pool: r->thinking.
   0, or a negative code (out of memory, no pool): the caller decides on the loop. */
int room__think_start(room_t *r, int i, const json_t *view);
/* Is r->thinking still for r's state (nothing changed, r still playing)? */
bool room__think_current(const room_t *r);
/* Is it current with its result in, for seat i (-1: any seat)? */
bool room__think_ready(const room_t *r, int i);
/* Let r->thinking go: its result is dropped when it comes; its seat is due afresh. */
void room__think_drop(room_t *r);
/* The result of a ready decision (r->thinking ends): the action or NULL, the seat's
   generator advanced as the search left it; *oom when the search ran out of memory. */
json_t *room__think_take(room_t *r, bool *oom);

#endif
