/*
 * rtt.h — each connection's round trip, measured by the server itself.
 *
 * Every --ping-interval the server sends a connection that said hello
 * {"ev":"ping","n":N}; the client answers with the request `pong N` as soon
 * as it reads it. The round trip of a sample is the pong's read stamp minus
 * the time the ping was queued. A ping that is due joins the connection's
 * next output as it is written (rtt_ping_due()); a silent connection gets
 * it 100 ms late or a little more, from a 10 ms tick that pings at most 32
 * connections each time. The estimate is the least of the last RTT_SAMPLES
 * samples: a round trip is never shorter than the path, and queues and a
 * busy client only make samples longer, so the low one is the honest one.
 * A connection that answered none of its first RTT_GIVE_UP pings (a person
 * in netcat) is not pinged again and has no estimate: its races are settled
 * by arrival.
 *
 * The connection also remembers when the last RTT_STATES state events were
 * written to it (room number, seq, time): a race action's reaction time is counted
 * from the state it answers (server/room/room_race.c).
 */
#ifndef TAPIS_SERVER_RTT_H
#define TAPIS_SERVER_RTT_H

#include <stdbool.h>
#include <stdint.h>

#define RTT_SAMPLES 5      /* the estimate is the least of this many samples */
#define RTT_PINGS 4        /* pings awaiting their pong, remembered */
#define RTT_GIVE_UP 3      /* pings unanswered, none ever answered: no more pings */
#define RTT_STATES 8       /* state events remembered per connection */
#define RTT_TICK_MS 10     /* how often the silent connections' pings are looked at */
#define RTT_TICK_PINGS 32  /* ...and how many at most each time (3,200 a second) */
#define RTT_LATE_US 100000 /* a silent connection is pinged this late (its output may come) */

/* What an act reads first (the estimate, the states written, the line's
   credit), then the pings' bookkeeping. */
typedef struct rtt {
    uint64_t est_us; /* least of the samples; 0: no estimate */
    int nstates, next_state;
    /* The line at the head of the connection's queue, as its delay was set
       (conn_update_ready()): the credit it was given and the room's hold. */
    uint64_t line_credit_us, line_hold_us;
    struct {
        uint64_t room; /* its number (room_t.rid) */
        uint64_t seq;
        uint64_t us;
    } states[RTT_STATES];          /* the last state events written, newest at (next_state - 1) */
    uint64_t next_n;               /* the next ping's number (from 1) */
    uint64_t sent_n[RTT_PINGS];    /* the last pings sent: their numbers... */
    uint64_t sent_us[RTT_PINGS];   /* ...and when (server clock, µs) */
    uint64_t last_ping_us;         /* when the last ping was sent, or 0 */
    int unanswered;                /* pings sent since the last pong */
    uint64_t samples[RTT_SAMPLES]; /* µs, newest at (next_sample - 1) */
    int nsamples, next_sample;
} rtt_t;

struct conn;
struct server;

/* Ping c now if it is due (every `interval_us`; not after RTT_GIVE_UP unanswered):
   the ping's number, or 0 when none was sent. */
uint64_t rtt_ping(struct conn *c, uint64_t now_us, uint64_t interval_us);
/* rtt_ping() the connections whose ping was due `late_us` ago or more, at most `most` of
   them, in srv->pinging's order (main.c: every RTT_TICK_MS, RTT_TICK_PINGS, 100 ms late). */
void rtt_ping_all(struct server *srv, uint64_t late_us, int most);
/* Ping c if it is due, as its output is written (conn.c): the ping rides that write. */
void rtt_ping_due(struct conn *c, uint64_t now_us);
/* Pong n read at `stamp_us`. Returns the new sample (µs), or 0 when n is no
   ping of c's awaiting its pong. */
uint64_t rtt_pong(struct conn *c, uint64_t n, uint64_t stamp_us);
/* c's estimate in µs (0: none). */
uint64_t rtt_estimate(const struct conn *c);
/* A state event of room (seq) was written to c at us. */
void rtt_note_state(struct conn *c, uint64_t room, uint64_t seq, uint64_t us);
/* When state seq of room was written to c (true), if it is still remembered. */
bool rtt_state_time(const struct conn *c, uint64_t room, uint64_t seq, uint64_t *us);
/* When the latest state event (of room; 0: of any) written to c at or before `at_us`
   was written, or 0. */
uint64_t rtt_latest_state(const struct conn *c, uint64_t room, uint64_t at_us);

#endif
