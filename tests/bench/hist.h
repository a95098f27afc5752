/*
 * hist.h — the latency histogram of the load generators (loadgen.c, abuse.c).
 *
 * Values in ns; exact below 128, then 64 sub-buckets per power of two, so a
 * percentile read back is within 1/64 of the true value. Header-only: every
 * function is static inline.
 */
#ifndef TAPIS_BENCH_HIST_H
#define TAPIS_BENCH_HIST_H

#include <stdint.h>

#define HIST_SUB 64
#define HIST_SIZE (128 + 64 * HIST_SUB)

typedef struct {
    uint64_t n[HIST_SIZE];
    uint64_t count, max, sum;
} hist_t;

static inline int hist_index(uint64_t v)
{
    if (v < 128) return (int)v;
    int msb = 63 - __builtin_clzll(v);
    int e = msb - 6;
    uint64_t m = v >> e; /* 64..127 */
    return 128 + (e - 1) * HIST_SUB + (int)(m - 64);
}

static inline uint64_t hist_value(int i)
{
    if (i < 128) return (uint64_t)i;
    int e = (i - 128) / HIST_SUB + 1;
    uint64_t m = (uint64_t)((i - 128) % HIST_SUB + 64);
    return (m << e) + ((uint64_t)1 << e) / 2;
}

static inline void hist_add(hist_t *h, uint64_t v)
{
    int i = hist_index(v);
    if (i >= HIST_SIZE) i = HIST_SIZE - 1;
    h->n[i]++;
    h->count++;
    h->sum += v;
    if (v > h->max) h->max = v;
}

/* Add the counts of `from` to `to`. */
static inline void hist_merge(hist_t *to, const hist_t *from)
{
    for (int i = 0; i < HIST_SIZE; i++)
        to->n[i] += from->n[i];
    to->count += from->count;
    to->sum += from->sum;
    if (from->max > to->max) to->max = from->max;
}

/* The p-th percentile (0 < p <= 100) in µs; 0 when empty. */
static inline double hist_pct_us(const hist_t *h, double p)
{
    if (!h->count) return 0;
    uint64_t want = (uint64_t)((double)h->count * p / 100.0 + 0.5);
    if (want < 1) want = 1;
    uint64_t seen = 0;
    for (int i = 0; i < HIST_SIZE; i++) {
        seen += h->n[i];
        if (seen >= want) {
            uint64_t v = hist_value(i);
            return (double)(v > h->max ? h->max : v) / 1000.0;
        }
    }
    return (double)h->max / 1000.0;
}

#endif
