/* stamped_read.c — a socket read with the kernel's receive stamp. See stamped_read.h. */
#include "server/base/stamped_read.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

int stamped_read_enable(int fd)
{
    int on = 1;
    return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
}

ssize_t stamped_read(int fd, void *buf, size_t len, int64_t *real_ns)
{
    union {
        char buf[CMSG_SPACE(sizeof(struct timespec))];
        struct cmsghdr align;
    } ctl;
    struct iovec iov = {buf, len};
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf};
    ssize_t n = recvmsg(fd, &m, MSG_DONTWAIT);
    if (n < 0) return errno ? -errno : -EIO;
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); n > 0 && cm; cm = CMSG_NXTHDR(&m, cm)) {
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_TIMESTAMPNS) continue;
        struct timespec ts;
        memcpy(&ts, CMSG_DATA(cm), sizeof ts);
        *real_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    }
    return n;
}
