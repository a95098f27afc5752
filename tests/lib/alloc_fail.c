/*
 * alloc_fail.c — the failing-allocator hooks (alloc_fail.h).
 *
 * A zero-byte request allocates one byte, so that NULL always means a failure
 * made here (tapis_alloc.h counts every NULL as one).
 */
#include "tests/lib/alloc_fail.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "include/tapis_alloc.h"

alloc_fail_t alloc_fail;

static pthread_t owner; /* the thread that installed the hooks */

static bool fails(void)
{
    if (!pthread_equal(pthread_self(), owner)) return false; /* the thread pool's */
    if (alloc_fail.paused) return false;
    if (++alloc_fail.calls != alloc_fail.fail_at) return false;
    alloc_fail.failed++;
    return true;
}

static void *hook_malloc(size_t size)
{
    if (fails()) return NULL;
    void *p = malloc(size ? size : 1);
    if (p) __atomic_add_fetch(&alloc_fail.live, 1, __ATOMIC_RELAXED);
    return p;
}

static void *hook_realloc(void *p, size_t size)
{
    if (fails()) return NULL;
    void *q = realloc(p, size ? size : 1);
    if (q && !p) __atomic_add_fetch(&alloc_fail.live, 1, __ATOMIC_RELAXED);
    return q;
}

static void hook_free(void *p)
{
    if (!p) return;
    __atomic_sub_fetch(&alloc_fail.live, 1, __ATOMIC_RELAXED);
    free(p);
}

static const tapis_alloc_hooks_t hooks = {hook_malloc, hook_realloc, hook_free};

void alloc_fail_install(bool on)
{
    owner = pthread_self();
    tapis_alloc_set(on ? &hooks : NULL);
}

void alloc_fail_reset(unsigned long fail_at)
{
    memset(&alloc_fail, 0, sizeof alloc_fail);
    alloc_fail.fail_at = fail_at;
}

void alloc_fail_pause(void)
{
    alloc_fail.paused++;
}

void alloc_fail_resume(void)
{
    alloc_fail.paused--;
}
