/*
 * net.h — the client side of a tapis connection: address parsing, a blocking
 * connect, whole-line writes, and reads into the protocol's line splitter.
 *
 * Both clients (tapis, tapis-bot) are single-threaded around poll(): they
 * keep blocking sockets, call net_read() only when poll() says the socket is
 * readable, and take complete lines with frame_next() (framing.h).
 */
#ifndef TAPIS_CLIENTS_NET_H
#define TAPIS_CLIENTS_NET_H

#include <jansson.h>
#include <stddef.h>

#include "protocol/framing.h"

#define NET_DEFAULT_HOST "127.0.0.1"
#define NET_DEFAULT_PORT "7233"

/* Lines from the server can be big (a state event of a full table). */
#define NET_MAX_LINE (1024 * 1024)

typedef struct net_conn {
    int fd; /* -1 when not connected */
    frame_t frame;
    long long last_write_ms; /* net_now_ms() of the connect or the last write (keepalives) */
} net_conn_t;

/*
 * Split "HOST:PORT", "HOST", ":PORT", "[::1]:PORT" or "[::1]" into host and
 * port (defaults for the missing parts). Returns 0, or -1 if malformed or too
 * long for the buffers.
 */
int net_parse_addr(const char *s, char *host, size_t hostlen, char *port, size_t portlen);

/* Blocking connect to host:port (IPv4 or IPv6). Returns 0, or -1 with errno set. */
int net_open(net_conn_t *c, const char *host, const char *port);

/*
 * Several addresses, "HOST:PORT,HOST:PORT,...": the nodes of a cluster
 * (docs/CLUSTER.md). A connection goes to the current one; when it cannot
 * be opened (its node is gone), to the next ones in turn.
 */
#define NET_MAX_ADDRS 8
typedef struct net_addrs {
    int n, cur;
    char host[NET_MAX_ADDRS][256];
    char port[NET_MAX_ADDRS][16];
} net_addrs_t;
/* Parse a comma-separated list of addresses (net_parse_addr() each). 0, or -1. */
int net_parse_addrs(const char *s, net_addrs_t *a);
/* Connect to a->cur, else each other address once; a->cur is then the one. 0, or -1. */
int net_open_any(net_conn_t *c, net_addrs_t *a);

/* Close the socket and drop what the splitter holds. Safe on a closed conn. */
void net_close(net_conn_t *c);

/* Write all of buf (retrying on EINTR, never raising SIGPIPE). 0 or -1. */
int net_write(net_conn_t *c, const char *buf, size_t len);

/* Encode msg as one compact JSON line and write it. 0 or -1. */
int net_send(net_conn_t *c, const json_t *msg);

/*
 * Read what the socket has (call after poll() reported it readable) into the
 * splitter. Returns the number of bytes read, 0 at end of stream, -1 on error.
 */
long net_read(net_conn_t *c);

/* Milliseconds of a monotonic clock. */
long long net_now_ms(void);

#endif
