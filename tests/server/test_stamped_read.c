/*
 * test_stamped_read.c — a socket read with the kernel's receive stamp
 * (server/base/stamped_read.h), over a real loopback TCP connection: the
 * bytes come whole; the stamp lies between their write and the moment they
 * are seen queued, the read coming 20 ms later; it is the newest bytes'
 * when two writes are read together; nothing waiting is -EAGAIN, the
 * peer's close 0, and a socket without stamps leaves the stamp as it was.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "server/base/stamped_read.h"
#include "tests/lib/test_main.h"

static int64_t realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A connected pair on loopback: fd[0] the client's end, fd[1] the server's. */
static void connected_pair(int fd[2])
{
    int l = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(l >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(l, 1), 0);
    socklen_t n = sizeof a;
    assert_int_equal(getsockname(l, (struct sockaddr *)&a, &n), 0);
    fd[0] = socket(AF_INET, SOCK_STREAM, 0);
    assert_int_equal(connect(fd[0], (struct sockaddr *)&a, sizeof a), 0);
    fd[1] = accept(l, NULL, NULL);
    assert_true(fd[1] >= 0);
    close(l);
}

/* Wait until at least n bytes are queued on fd; the time just after. The
   kernel received them by then, whatever it deferred its delivery to. */
static int64_t queued_by(int fd, int n)
{
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        assert_true(poll(&p, 1, 5000) == 1);
        int queued = 0;
        assert_int_equal(ioctl(fd, FIONREAD, &queued), 0);
        if (queued >= n) return realtime_ns();
    }
}

static void test_the_stamp_is_the_kernels_receipt(void **state)
{
    (void)state;
    int fd[2];
    connected_pair(fd);
    assert_int_equal(stamped_read_enable(fd[1]), 0);
    char buf[64];
    int64_t stamp = 0;
    assert_int_equal(stamped_read(fd[1], buf, sizeof buf, &stamp), -EAGAIN);
    assert_int_equal(stamp, 0);
    /* The kernel turns its stamps on a moment after the first socket asks
       (net_enable_timestamp() defers it): until then reads come unstamped. */
    for (int tries = 0; stamp == 0; tries++) {
        assert_true(tries < 500);
        assert_int_equal(write(fd[0], "-", 1), 1);
        queued_by(fd[1], 1);
        assert_int_equal(stamped_read(fd[1], buf, sizeof buf, &stamp), 1);
        struct timespec ms = {0, 1000 * 1000};
        if (stamp == 0) nanosleep(&ms, NULL);
    }

    /* The kernel receives the bytes after their write began and before they
       are seen queued; the read comes 20 ms later (a stamp taken at the read
       would be past that). */
    struct timespec pause = {0, 20 * 1000 * 1000};
    int64_t before = realtime_ns();
    assert_int_equal(write(fd[0], "hello\n", 6), 6);
    int64_t queued = queued_by(fd[1], 6);
    nanosleep(&pause, NULL);
    assert_int_equal(stamped_read(fd[1], buf, sizeof buf, &stamp), 6);
    assert_memory_equal(buf, "hello\n", 6);
    assert_in_range(stamp, before, queued);

    /* two writes read at once: the newest bytes' stamp */
    assert_int_equal(write(fd[0], "one\n", 4), 4);
    queued_by(fd[1], 4);
    nanosleep(&pause, NULL);
    int64_t second = realtime_ns();
    assert_int_equal(write(fd[0], "two\n", 4), 4);
    queued = queued_by(fd[1], 8);
    nanosleep(&pause, NULL);
    stamp = 0;
    assert_int_equal(stamped_read(fd[1], buf, sizeof buf, &stamp), 8);
    assert_memory_equal(buf, "one\ntwo\n", 8);
    assert_in_range(stamp, second, queued);

    close(fd[0]);
    stamp = 7;
    ssize_t n;
    while ((n = stamped_read(fd[1], buf, sizeof buf, &stamp)) == -EAGAIN)
        ;
    assert_int_equal(n, 0); /* the end of the stream */
    assert_int_equal(stamp, 7);
    close(fd[1]);
}

static void test_without_stamps_the_stamp_is_left(void **state)
{
    (void)state;
    int fd[2];
    connected_pair(fd);
    assert_int_equal(write(fd[0], "x\n", 2), 2);
    char buf[8];
    int64_t stamp = 42;
    queued_by(fd[1], 2);
    assert_int_equal(stamped_read(fd[1], buf, sizeof buf, &stamp), 2);
    assert_int_equal(stamp, 42);
    close(fd[0]);
    close(fd[1]);
    assert_int_equal(stamped_read(fd[1], buf, sizeof buf, &stamp), -EBADF);
}

TEST_MAIN(cmocka_unit_test(test_the_stamp_is_the_kernels_receipt),
          cmocka_unit_test(test_without_stamps_the_stamp_is_left))
