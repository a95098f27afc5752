/*
 * stamped_read.h — a read from a socket with the time the kernel received
 * the bytes (SO_TIMESTAMPNS), for tapisd's read stamps (server/net/conn.c)
 * and loadgen's latencies (tests/bench/loadgen.c).
 *
 * libuv reads with read(2), which carries no stamp; both call this from
 * their alloc callback instead and hand libuv an empty buffer (it then
 * reads nothing and gives the read callback UV_ENOBUFS).
 */
#ifndef TAPIS_SERVER_BASE_STAMPED_READ_H
#define TAPIS_SERVER_BASE_STAMPED_READ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Turn the kernel's receive stamps on for socket fd; 0, or -1 (errno). */
int stamped_read_enable(int fd);

/*
 * One recvmsg() of at most len bytes into buf, without blocking: the bytes
 * read (0 at the end of the stream), or -errno (-EAGAIN when nothing
 * waited). With bytes read, *real_ns is the CLOCK_REALTIME at which the
 * kernel received the newest of them, or is left as it was when the socket
 * brought no stamp.
 */
ssize_t stamped_read(int fd, void *buf, size_t len, int64_t *real_ns);

#endif
