/* clock.c — the server clock. See clock.h. */
#include "server/base/clock.h"

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
    c->set_us = us;
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
