/*
 * alloc_fail.h — the one failing-allocator harness of the tests (SQLite's
 * test/malloc.test, STYLE.md): hooks for include/tapis_alloc.h that count the
 * allocation calls, make the Nth one fail, and count the blocks alive.
 *
 * Two programs use it: tests/core/test_alloc_fail.c, which runs each of its
 * scripts for N = 1, 2, 3, ... in one process, and tapisd_allocfail
 * (tests/server/alloc_fail_hooks.c), tapisd failing the Nth allocation once
 * it listens. Both install the hooks before they allocate anything, so that
 * every pointer the hooks see freed was allocated through them.
 *
 * Libc and tapis_alloc.h only. One process, one harness: the counts are one
 * global, alloc_fail. Only the thread that installed the hooks has its calls
 * counted and failed, so "the Nth call" is the same in every run; other
 * threads (libuv's pool: hard bots' searches, password hashes) allocate
 * through the hooks without failing, and their blocks count in `live`
 * (atomically).
 */
#ifndef TAPIS_TESTS_ALLOC_FAIL_H
#define TAPIS_TESTS_ALLOC_FAIL_H

#include <stdbool.h>

typedef struct alloc_fail {
    unsigned long calls;   /* allocation calls counted (not while paused) */
    unsigned long fail_at; /* the call that fails (1-based), 0: none */
    unsigned long failed;  /* failures made */
    long live;             /* blocks allocated through the hooks, not freed */
    int paused;            /* > 0: no counting, no failure */
} alloc_fail_t;

extern alloc_fail_t alloc_fail;

/* Route tapis_alloc.h through the hooks (false: back to libc). */
void alloc_fail_install(bool on);

/* Counts to zero, not paused, and the fail_at-th call to fail (0: none). */
void alloc_fail_reset(unsigned long fail_at);

/* Pause (nestable) and resume counting and failing: a test's own allocations. */
void alloc_fail_pause(void);
void alloc_fail_resume(void);

#endif
