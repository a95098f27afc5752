/*
 * room_stubs.h — what a C test of rooms links instead of the lobby and the
 * OS (room_stubs.c): sessions' room lists as counts, a fixed deal, bytes
 * counting up for randomness, a wall clock at 0. test_room.c and
 * test_room_think.c run rooms on the set clock over them.
 */
#ifndef TAPIS_TESTS_SERVER_ROOM_STUBS_H
#define TAPIS_TESTS_SERVER_ROOM_STUBS_H

#include <stdint.h>

/* The seed of every room's deal (version 0): the test sets it before room_create(). */
extern uint64_t room_stub_seed;

#endif
