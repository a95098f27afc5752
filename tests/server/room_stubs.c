/* room_stubs.c — the parts a room test does not link. See room_stubs.h. */
#include <stdio.h>

#include "server/room/room.h"
#include "tests/server/room_stubs.h"

uint64_t room_stub_seed;

int session_add_room(session_t *s, room_t *r)
{
    (void)r;
    s->nrooms++;
    return 1;
}

bool session_remove_room(session_t *s, room_t *r)
{
    (void)r;
    s->nrooms--;
    return true;
}

void server_game_deal(server_t *srv, const char *room, game_deal_t *out)
{
    (void)srv;
    (void)room;
    deal_v0(out, room_stub_seed); /* the games the tests were written for */
}

int server_random(void *buf, size_t n)
{
    static unsigned char next;
    for (size_t i = 0; i < n; i++)
        ((unsigned char *)buf)[i] = next++;
    return 0;
}

/* The accounts part (linked for the room's rated games, which these tests do not play). */
int64_t server_wall_ms(void)
{
    return 0;
}

void session_name_key(char out[64], const char *name)
{
    snprintf(out, 64, "%s", name);
}
