/*
 * clock.h — the server clock: µs since start, monotonic, and settable by tests.
 *
 * tapisd has one clock, in server_t (srv->clock): every stamp of a read
 * (net/conn.c), every deadline (a room's game deadline, turn timer, bot
 * move and closing; a session's budgets; the cluster's retries) and the
 * scheduler's "what is due now" read it through server_now_us() or
 * server_now_ms(). Started with clock_start() it is uv_hrtime() since
 * then; a test sets it (clock_set(), clock_advance()) and it reads that
 * value until set again, so races and timers are tested deterministically
 * (DESIGN.md: "the clock is injected").
 *
 * What is not on this clock, on purpose: the scheduler's 1 ms work budget
 * per turn (real time spent working), the loop-lag probe, the durations
 * measured for metrics and logs, and libuv's own timers (the hello and idle
 * timeouts, the reconnect window, the wake timer), which only decide when
 * the loop looks again: the work they lead to compares this clock's time.
 */
#ifndef TAPIS_SERVER_CLOCK_H
#define TAPIS_SERVER_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

typedef struct server_clock {
    uint64_t start_ns; /* uv_hrtime() at clock_start() */
    bool set;          /* a test set it: it reads set_us */
    uint64_t set_us;
    uint64_t polled_us; /* a set clock: what clock_polled_us() reads */
} server_clock_t;

/* Run on real time from now (µs since this call). */
void clock_start(server_clock_t *c);
/* From now on read `us` (µs), until set again: the clock stands still. */
void clock_set(server_clock_t *c, uint64_t us);
/* Move a set clock forward by `us` (a running one: set it first). */
void clock_advance(server_clock_t *c, uint64_t us);
/* Move a set clock forward by `us` as a stall after a poll does (the
   process off its core): clock_polled_us() still reads the time before. */
void clock_stall(server_clock_t *c, uint64_t us);
/* µs since start, or the value set. */
uint64_t clock_now_us(const server_clock_t *c);
/* The clock's reading when the loop's last poll returned, from libuv's
   loop time (uv_now(), `loop_ms`: libuv takes it as its poll returns, in
   ms, from a clock that may lag uv_hrtime() by a ms). A set clock: its
   value, less what clock_stall() added since it was set. */
uint64_t clock_polled_us(const server_clock_t *c, uint64_t loop_ms);
/* The same clock's reading at a CLOCK_REALTIME instant of the past
   (`real_ns`, a kernel's receive stamp): now less the instant's age, the age
   at least 0 and at most the time since start. A set clock reads its value. */
uint64_t clock_us_at_realtime(const server_clock_t *c, int64_t real_ns);

/* The server's clock in µs and ms (macros: base/ does not know server_t;
   srv is anything with a server_clock_t `clock`). Room time is server time
   plus the room's clock_offset (room.c). */
#define server_now_us(srv) clock_now_us(&(srv)->clock)
#define server_now_ms(srv) ((int64_t)(server_now_us(srv) / 1000))

#endif
