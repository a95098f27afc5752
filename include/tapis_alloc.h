/*
 * tapis_alloc.h — the one allocation wrapper of core/, protocol/ and server/.
 *
 * SQLite's habit (STYLE.md): every allocation goes through one wrapper that
 * a test can make fail on the Nth call, so out-of-memory paths are
 * exercised, not hoped for. core/, protocol/ and server/ call tapis_malloc(),
 * tapis_calloc(), tapis_realloc(), tapis_strdup() and tapis_free(), never
 * the libc functions. jansson is routed the same way with
 * json_set_alloc_funcs(tapis_malloc, tapis_free), so that
 * tapis_alloc_failures() sees its failures too: tapisd does it at start
 * (server/main.c, with libuv through uv_replace_allocator() and uthash
 * through its macros, server/server.h), as tests/core/test_alloc_fail.c
 * does. SQLite keeps its own allocator.
 *
 * By default (no hooks) the wrappers are libc's malloc, realloc and free,
 * so memory they return may be released with free() and memory from
 * malloc() with tapis_free() (clients/ use libc directly). A program that
 * installs hooks must make sure every pointer it sees freed was allocated
 * under the same hooks: tests/core/test_alloc_fail.c, and tapisd_allocfail,
 * a test build of tapisd whose hooks (tests/server/alloc_fail_hooks.c) are
 * installed before main() runs.
 *
 * Header only, libc only (like tapis_error.h), so that core/ and protocol/
 * share it and still know nothing of each other. The hook pointer is the
 * only global state: a weak definition here, merged by the linker into one
 * object however many libraries include this header (GCC and clang on ELF
 * and Mach-O). The count of failures is the same, one per thread: tapisd's
 * bots search on libuv's thread pool (server/room/room_think.c), and a
 * failure there must not look like one of the loop's, nor race with it.
 */
#ifndef TAPIS_ALLOC_H
#define TAPIS_ALLOC_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Replacements for malloc, realloc and free, with their contracts. */
typedef struct tapis_alloc_hooks {
    void *(*malloc)(size_t size);
    void *(*realloc)(void *p, size_t size); /* realloc(NULL, n) allocates; size > 0 */
    void (*free)(void *p);                  /* free(NULL) does nothing */
} tapis_alloc_hooks_t;

/* The installed hooks, NULL for libc's. Set it with tapis_alloc_set(). */
__attribute__((weak)) const tapis_alloc_hooks_t *tapis_alloc_hooks = NULL;

/*
 * Allocations that failed so far in this thread (wrapped ones: jansson's too
 * once it is routed through tapis_malloc). A caller compares it before and
 * after a call that reports failures ambiguously: jansson's json_loadb() says
 * "invalid token" when it could not allocate a string, and only the count
 * tells out-of-memory (internal) from bad JSON. Read it with
 * tapis_alloc_failures().
 */
__attribute__((weak)) _Thread_local unsigned long tapis_alloc_failed = 0;

static inline unsigned long tapis_alloc_failures(void)
{
    return tapis_alloc_failed;
}

/*
 * True if an allocation failed since `mark` (a tapis_alloc_failures() value):
 * whatever was built meanwhile may lack a part, and is to be thrown away.
 */
static inline int tapis_alloc_failed_since(unsigned long mark)
{
    return tapis_alloc_failed != mark;
}

/* p, counting it as a failure if NULL. */
static inline void *tapis_alloc_check(void *p)
{
    if (!p) tapis_alloc_failed++;
    return p;
}

/*
 * Install hooks (NULL: back to libc). Not thread-safe: a test installs them
 * before it allocates anything and removes them after freeing everything.
 */
static inline void tapis_alloc_set(const tapis_alloc_hooks_t *hooks)
{
    tapis_alloc_hooks = hooks;
}

static inline void *tapis_malloc(size_t size)
{
    return tapis_alloc_check(tapis_alloc_hooks ? tapis_alloc_hooks->malloc(size) : malloc(size));
}

/* calloc: zeroed, NULL (not a wrapped product) if n * size overflows. */
static inline void *tapis_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) return NULL;
    if (!tapis_alloc_hooks) return tapis_alloc_check(calloc(n, size));
    void *p = tapis_alloc_check(tapis_alloc_hooks->malloc(n * size));
    if (p) memset(p, 0, n * size);
    return p;
}

/* realloc for size > 0: on failure NULL, and p is left allocated and unchanged. */
static inline void *tapis_realloc(void *p, size_t size)
{
    return tapis_alloc_check(tapis_alloc_hooks ? tapis_alloc_hooks->realloc(p, size)
                                               : realloc(p, size));
}

/*
 * Room for item n of a growable array v of *cap items of `size` bytes: v
 * itself while n < *cap, else v reallocated to twice *cap items (`first`
 * when *cap is 0), *cap updated. NULL out of memory: v and *cap unchanged.
 */
static inline void *tapis_grow(void *v, size_t *cap, size_t n, size_t size, size_t first)
{
    if (n < *cap) return v;
    size_t c = *cap ? 2 * *cap : first;
    void *p = tapis_realloc(v, c * size);
    if (p) *cap = c;
    return p;
}

static inline char *tapis_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = (char *)tapis_malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static inline void tapis_free(void *p)
{
    if (tapis_alloc_hooks)
        tapis_alloc_hooks->free(p);
    else
        free(p);
}

#endif
