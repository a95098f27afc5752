/*
 * alloc_fail_hooks.c — the allocation hooks of tapisd_allocfail, a test build
 * of tapisd (tests/server/meson.build): tapisd's own sources plus this file
 * and the tests' failing allocator (tests/lib/alloc_fail.c). The normal
 * tapisd has no hook.
 *
 * tapisd routes every allocation through tapis_alloc.h (its own, core/'s,
 * protocol/'s, jansson's, uthash's and libuv's; main.c). The hooks installed
 * here, before main() runs, count the allocation calls made once the server
 * listens (uv_listen() is wrapped: the link passes -Wl,--wrap=uv_listen) and
 * make exactly one of them fail: the Nth, N from the environment
 * (TAPIS_ALLOC_FAIL_AT=N; 0 or unset: none). Later ones succeed again.
 *
 * libuv aborts when its table of watched descriptors cannot grow
 * (maybe_resize() in its src/unix/core.c, called as a descriptor above the
 * table is first watched): no out-of-memory path tapisd could take. So before
 * counting starts, the table is grown to hold descriptors up to
 * WATCHED_FDS_MAX, by watching a duplicate of the listener that high for a
 * moment (grow_watchers()); a session that stays below that never makes libuv
 * allocate.
 *
 * At exit they print on stderr
 *     allocations: K failed: F alive: L
 * K the calls counted (the bound of N for tests/server/test_alloc_session.py),
 * F the failures made (0 or 1), L the blocks allocated through the hooks since
 * the start and never freed (0 unless something leaked, in any build).
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <uv.h>

#include "tests/lib/alloc_fail.h"

static void report(void)
{
    fprintf(stderr, "allocations: %lu failed: %lu alive: %ld\n", alloc_fail.calls,
            alloc_fail.failed, alloc_fail.live);
}

__attribute__((constructor)) static void install(void)
{
    const char *n = getenv("TAPIS_ALLOC_FAIL_AT");
    alloc_fail_reset(n ? strtoul(n, NULL, 10) : 0);
    alloc_fail_pause(); /* until the server listens (__wrap_uv_listen) */
    alloc_fail_install(true);
    atexit(report);
}

#define WATCHED_FDS_MAX 120

static uv_poll_t grow_poll;
static int grow_fd = -1;

static void on_grow_poll(uv_poll_t *h, int status, int events)
{
    (void)h, (void)status, (void)events;
}

static void on_grow_close(uv_handle_t *h)
{
    (void)h;
    close(grow_fd);
}

/* Watch a duplicate of fd numbered WATCHED_FDS_MAX or above, then stop at once. */
static void grow_watchers(uv_loop_t *loop, int fd)
{
    grow_fd = fcntl(fd, F_DUPFD_CLOEXEC, WATCHED_FDS_MAX);
    if (grow_fd < 0) return;
    if (uv_poll_init(loop, &grow_poll, grow_fd) < 0) {
        close(grow_fd);
        return;
    }
    uv_poll_start(&grow_poll, UV_READABLE, on_grow_poll);
    uv_close((uv_handle_t *)&grow_poll, on_grow_close);
}

/* The linker sends tapisd's call of uv_listen() here (-Wl,--wrap=uv_listen). */
int __real_uv_listen(uv_stream_t *stream, int backlog, uv_connection_cb cb);
int __wrap_uv_listen(uv_stream_t *stream, int backlog, uv_connection_cb cb);

int __wrap_uv_listen(uv_stream_t *stream, int backlog, uv_connection_cb cb)
{
    int r = __real_uv_listen(stream, backlog, cb);
    uv_os_fd_t fd;
    /* Counting starts once the server listens on every address it was given:
       TAPIS_ALLOC_LISTENS of them (2 with --metrics; default 1). */
    static int listens;
    static bool counting;
    const char *want = getenv("TAPIS_ALLOC_LISTENS");
    if (r == 0 && listens == 0 && uv_fileno((uv_handle_t *)stream, &fd) == 0)
        grow_watchers(stream->loop, fd);
    if (++listens >= (want ? atoi(want) : 1) && !counting) {
        counting = true;
        alloc_fail_resume();
    }
    return r;
}
