/*
 * net.c — client connections: see net.h.
 */
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include "protocol/envelope.h"
#include "clients/net.h"

static int copy_part(char *dst, size_t cap, const char *src, size_t n)
{
    if (n >= cap) return -1;
    memcpy(dst, src, n);
    dst[n] = '\0';
    return 0;
}

int net_parse_addr(const char *s, char *host, size_t hostlen, char *port, size_t portlen)
{
    if (!s || !*s) s = NET_DEFAULT_HOST;
    const char *h = s, *p = NULL;
    size_t hn;
    if (s[0] == '[') {
        const char *close = strchr(s, ']');
        if (!close) return -1;
        h = s + 1;
        hn = (size_t)(close - h);
        if (close[1] == ':')
            p = close + 2;
        else if (close[1] != '\0')
            return -1;
    } else {
        const char *colon = strrchr(s, ':');
        if (colon && strchr(s, ':') != colon) colon = NULL; /* a bare IPv6 address */
        h = s;
        hn = colon ? (size_t)(colon - s) : strlen(s);
        if (colon) p = colon + 1;
    }
    if (hn == 0) {
        h = NET_DEFAULT_HOST;
        hn = strlen(h);
    }
    if (!p || !*p) p = NET_DEFAULT_PORT;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9') return -1;
    if (copy_part(host, hostlen, h, hn) || copy_part(port, portlen, p, strlen(p))) return -1;
    return 0;
}

int net_parse_addrs(const char *s, net_addrs_t *a)
{
    memset(a, 0, sizeof *a);
    const char *p = s && *s ? s : "";
    do {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char one[300];
        if (a->n == NET_MAX_ADDRS || n >= sizeof one || (n == 0 && (comma || a->n > 0))) return -1;
        memcpy(one, p, n);
        one[n] = '\0';
        if (net_parse_addr(one, a->host[a->n], sizeof a->host[0], a->port[a->n], sizeof a->port[0]))
            return -1;
        a->n++;
        p = comma ? comma + 1 : NULL;
    } while (p);
    return 0;
}

int net_open_any(net_conn_t *c, net_addrs_t *a)
{
    for (int k = 0; k < a->n; k++) {
        int i = (a->cur + k) % a->n;
        if (net_open(c, a->host[i], a->port[i]) == 0) {
            a->cur = i;
            return 0;
        }
    }
    return -1;
}

int net_open(net_conn_t *c, const char *host, const char *port)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    c->fd = -1;
    if (getaddrinfo(host, port, &hints, &res) != 0) {
        errno = EHOSTUNREACH;
        return -1;
    }
    int err = ECONNREFUSED;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            err = errno;
            continue;
        }
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            c->fd = fd;
            break;
        }
        err = errno;
        close(fd);
    }
    freeaddrinfo(res);
    if (c->fd < 0) {
        errno = err;
        return -1;
    }
    frame_init(&c->frame, NET_MAX_LINE);
    c->last_write_ms = net_now_ms();
    return 0;
}

void net_close(net_conn_t *c)
{
    if (c->fd >= 0) {
        close(c->fd);
        frame_free(&c->frame);
    }
    c->fd = -1;
}

int net_write(net_conn_t *c, const char *buf, size_t len)
{
    c->last_write_ms = net_now_ms();
    while (len > 0) {
        ssize_t n = send(c->fd, buf, len, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

int net_send(net_conn_t *c, const json_t *msg)
{
    size_t len;
    char *line = proto_encode(msg, &len);
    if (!line) return -1;
    int rc = net_write(c, line, len);
    free(line);
    return rc;
}

long net_read(net_conn_t *c)
{
    char buf[65536];
    ssize_t n;
    do
        n = recv(c->fd, buf, sizeof buf, 0);
    while (n < 0 && errno == EINTR);
    if (n <= 0) return n < 0 ? -1 : 0;
    if (frame_feed(&c->frame, buf, (size_t)n) != 0) return -1;
    return (long)n;
}

long long net_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
