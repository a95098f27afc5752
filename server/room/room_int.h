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

#endif
