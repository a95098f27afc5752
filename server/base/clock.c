/* clock.c — the server clock. See clock.h. */
#include "server/base/clock.h"

#include <time.h>

#include <uv.h>

void clock_start(server_clock_t *c)
{
    c->start_ns = uv_hrtime();
    c->set = false;
    c->set_us = 0;
}

void clock_set(server_clock_t *c, uint64_t us)
{
    c->set = true;
    c->set_us = c->polled_us = us;
}

void clock_stall(server_clock_t *c, uint64_t us)
{
    uint64_t polled = c->set ? c->polled_us : clock_now_us(c);
    clock_advance(c, us);
    c->polled_us = polled;
}

void clock_advance(server_clock_t *c, uint64_t us)
{
    clock_set(c, clock_now_us(c) + us);
}

uint64_t clock_now_us(const server_clock_t *c)
{
    if (c->set) return c->set_us;
    return (uv_hrtime() - c->start_ns) / 1000;
}

uint64_t clock_polled_us(const server_clock_t *c, uint64_t loop_ms)
{
    if (c->set) return c->polled_us;
    uint64_t ns = loop_ms * 1000000;
    return ns > c->start_ns ? (ns - c->start_ns) / 1000 : 0;
}

uint64_t clock_us_at_realtime(const server_clock_t *c, int64_t real_ns)
{
    if (c->set) return c->set_us;
    struct timespec ts;
    uint64_t since = uv_hrtime() - c->start_ns;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return since / 1000;
    int64_t age = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - real_ns;
    if (age < 0) age = 0; /* the wall clock stepped back since: take now */
    if ((uint64_t)age > since) age = (int64_t)since;
    return (since - (uint64_t)age) / 1000;
}
