/*
 * budget.h — a budget that refills one unit every `interval` µs and holds at
 * most `burst` units (GCRA: one number per budget, one comparison per use).
 *
 * budget_take() is true when a unit was there (and spends it); interval 0
 * means no limit. budget_charge() spends units without asking (work already
 * done): later takes wait for them. Times are the server clock's µs
 * (clock.h); sums saturate at UINT64_MAX rather than wrap, so a huge charge
 * leaves the budget spent instead of full again.
 */
#ifndef TAPIS_SERVER_BUDGET_H
#define TAPIS_SERVER_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

typedef struct budget {
    uint64_t tat; /* µs: when the budget is full again ("theoretical arrival time") */
} budget_t;

static inline uint64_t budget__add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static inline uint64_t budget__mul(uint64_t a, uint64_t b)
{
    return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static inline bool budget_take(budget_t *b, uint64_t now, uint64_t interval, uint64_t burst)
{
    if (interval == 0) return true;
    uint64_t tat = b->tat > now ? b->tat : now;
    if (tat - now > budget__mul(burst ? burst - 1 : 0, interval)) return false;
    b->tat = budget__add(tat, interval);
    return true;
}

static inline void budget_charge(budget_t *b, uint64_t now, uint64_t interval, uint64_t units)
{
    if (interval == 0) return;
    b->tat = budget__add(b->tat > now ? b->tat : now, budget__mul(units, interval));
}

#endif
