/*
 * bench.h — what the load generators (loadgen.c, abuse.c) share besides the
 * histogram (hist.h): their "--name value" options, the CPU clock, the file
 * descriptor limit, writes that never block and the reading of lines.
 * Header-only, like hist.h: every function is static inline.
 */
#ifndef TAPIS_BENCH_BENCH_H
#define TAPIS_BENCH_BENCH_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <uv.h>

/* ------------------------------------------------------------------------ */
/* Options                                                                   */
/* ------------------------------------------------------------------------ */

/* One "--name value" option: an int (atoi), a double (atof) or a string. */
typedef struct {
    const char *name;
    enum { BENCH_INT, BENCH_DOUBLE, BENCH_STRING } type;
    void *value; /* int *, double * or const char ** */
} bench_option_t;

/* Read argv[from..argc) as "--name value" pairs of the table `opts` (ended by
   a NULL name): false on an unknown name or a name without a value. */
static inline bool bench_options(int argc, char **argv, int from, const bench_option_t *opts)
{
    for (int i = from; i < argc; i += 2) {
        const bench_option_t *o = opts;
        while (o->name && strcmp(o->name, argv[i]) != 0)
            o++;
        if (!o->name || i + 1 >= argc) return false;
        const char *v = argv[i + 1];
        switch (o->type) {
        case BENCH_INT: *(int *)o->value = atoi(v); break;
        case BENCH_DOUBLE: *(double *)o->value = atof(v); break;
        case BENCH_STRING: *(const char **)o->value = v; break;
        }
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* The process                                                               */
/* ------------------------------------------------------------------------ */

/* This process's CPU seconds so far (user and system). */
static inline double bench_cpu_seconds(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* Raise the soft limit on open files to `need` and some (as far as the hard one allows). */
static inline void bench_raise_nofile(int need)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return;
    rlim_t want = (rlim_t)need + 64;
    if (rl.rlim_cur >= want) return;
    rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= want ? want : rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                   */
/* ------------------------------------------------------------------------ */

/* A write of what the socket did not take at once, with its own copy of the bytes. */
typedef struct {
    uv_write_t req;
    char data[];
} bench_write_t;

static inline void bench_written(uv_write_t *req, int status)
{
    (void)status;
    free(req);
}

/* Write data[0..len) to s without blocking: what the socket does not take at
   once is copied and queued. 0, or a libuv error (then the bytes are lost). */
static inline int bench_write(uv_stream_t *s, const char *data, size_t len)
{
    uv_buf_t b = uv_buf_init((char *)data, (unsigned)len);
    int n = uv_try_write(s, &b, 1);
    if (n == (int)len) return 0;
    if (n < 0) {
        if (n != UV_EAGAIN) return n;
        n = 0;
    }
    bench_write_t *w = malloc(sizeof *w + len - (size_t)n);
    if (!w) abort();
    memcpy(w->data, data + n, len - (size_t)n);
    b = uv_buf_init(w->data, (unsigned)(len - (size_t)n));
    int r = uv_write(&w->req, s, &b, 1, bench_written);
    if (r < 0) free(w);
    return r;
}

/* ------------------------------------------------------------------------ */
/* Reading lines                                                             */
/* ------------------------------------------------------------------------ */

/* The start of a line that has not ended yet (one per connection). */
typedef struct {
    char *data;
    size_t len, cap;
} bench_line_t;

static inline void bench_line_append(bench_line_t *l, const char *p, size_t n)
{
    if (!n) return;
    if (l->len + n > l->cap) {
        l->cap = (l->len + n) * 2;
        l->data = realloc(l->data, l->cap);
        if (!l->data) abort();
    }
    memcpy(l->data + l->len, p, n);
    l->len += n;
}

/*
 * The next line of the bytes read, data[*at..n), without its '\n' (*len
 * bytes, joined to the start `l` kept from earlier reads); *at moves past
 * it. NULL when no line ends there: the rest is kept in `l` for the next read.
 */
static inline const char *bench_next_line(bench_line_t *l, const char *data, size_t n, size_t *at,
                                          size_t *len)
{
    const char *p = data + *at;
    const char *nl = memchr(p, '\n', n - *at);
    if (!nl) {
        bench_line_append(l, p, n - *at);
        *at = n;
        return NULL;
    }
    *at = (size_t)(nl - data) + 1;
    if (!l->len) {
        *len = (size_t)(nl - p);
        return p;
    }
    bench_line_append(l, p, (size_t)(nl - p));
    *len = l->len;
    l->len = 0;
    return l->data;
}

#endif
