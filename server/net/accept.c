/*
 * accept.c — accepting connections: the listener's callback, the counts per
 * client address (--max-conns-per-ip, --conn-rate) and the trusted proxies
 * (--trusted-proxy), the hello and idle timeouts. What an accepted
 * connection then reads and writes is conn.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "server/base/log.h"
#include "server/base/stamped_read.h"
#include "server/net/conn.h"

/*
 * One client address: its open connections (--max-conns-per-ip) and the
 * budget of its new connections (--conn-rate). An entry outlives its last
 * connection until its budget is full again (swept in peer_sweep()), so that
 * closing and reconnecting at once does not start a fresh budget.
 */
struct peer_count {
    char addr[48];
    int n;
    budget_t accepts;
    UT_hash_handle hh;
};

#define PEER_SWEEP_EVERY 256 /* accepts between two sweeps of idle entries */

static uint64_t conn_rate_interval(const server_t *srv)
{
    return srv->opts.conn_rate ? 1000000 / srv->opts.conn_rate : 0;
}

/* Free an entry with no connection once its budget has refilled. */
static void peer_release(server_t *srv, peer_count_t *p, uint64_t now)
{
    if (p->n == 0 && p->accepts.tat <= now) {
        HASH_DEL(srv->peers, p);
        tapis_free(p);
    }
}

static void peer_sweep(server_t *srv)
{
    uint64_t now = server_now_us(srv);
    peer_count_t *p, *tmp;
    HASH_ITER(hh, srv->peers, p, tmp)
    peer_release(srv, p, now);
}

/* c is closing: it no longer counts under its address. */
void conn__uncount(conn_t *c)
{
    if (c->peer_count) {
        c->peer_count->n--;
        peer_release(c->srv, c->peer_count, server_now_us(c->srv));
    }
    c->peer_count = NULL;
}

void conn__free_peers(server_t *srv)
{
    peer_count_t *p, *tmp;
    HASH_ITER(hh, srv->peers, p, tmp)
    {
        HASH_DEL(srv->peers, p);
        tapis_free(p);
    }
}

static void on_hello_timeout(uv_timer_t *t)
{
    conn_t *c = t->data;
    if (c->greeted || c->state != CONN_OPEN) return;
    if (c->kind == CONN_HTTP) {
        conn_close(c, "no HTTP request in time");
        return;
    }
    conn__close_with_error(c, TAPIS_E_HELLO_TIMEOUT, "no hello in time; closing");
}

/* The idle timer runs at most once per --idle-timeout: lines only note their time. */
static void on_idle_timeout(uv_timer_t *t)
{
    conn_t *c = t->data;
    if (c->state != CONN_OPEN) return;
    uint64_t idle = c->srv->opts.idle_timeout;
    uint64_t now = (uint64_t)server_now_ms(c->srv);
    if (c->last_line_ms + idle > now) {
        uv_timer_start(&c->timer, on_idle_timeout, c->last_line_ms + idle - now, 0);
        return;
    }
    log_info("conn %llu: idle for %llu ms; closing", (unsigned long long)c->id,
             (unsigned long long)idle);
    conn__close_with_error(c, TAPIS_E_IDLE_TIMEOUT, "no request in a long time; closing");
}

/* Ask the kernel to stamp what c receives (conn.c, "Stamps"); without it, reads keep their own
 * time. */
static void stamp_in_kernel(conn_t *c)
{
    uv_os_fd_t fd;
    if (uv_fileno((const uv_handle_t *)&c->tcp, &fd) == 0) (void)stamped_read_enable(fd);
}

static void peer_name(conn_t *c)
{
    struct sockaddr_storage ss;
    int n = sizeof ss;
    char host[48] = "?";
    int port = 0;
    if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &n) == 0) {
        if (ss.ss_family == AF_INET6) {
            struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
            uv_ip6_name(a, host, sizeof host);
            port = ntohs(a->sin6_port);
            snprintf(c->peer, sizeof c->peer, "[%s]:%d", host, port);
            return;
        }
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        uv_ip4_name(a, host, sizeof host);
        port = ntohs(a->sin_port);
    }
    snprintf(c->peer, sizeof c->peer, "%s:%d", host, port);
}

/* The numeric address of c's peer, from c->peer ("[v6]:port" or "v4:port"). */
static void peer_addr(const conn_t *c, char addr[48])
{
    const char *p = c->peer, *colon = strrchr(p, ':');
    size_t n = colon ? (size_t)(colon - p) : strlen(p);
    if (p[0] == '[' && n >= 2) { /* [v6] */
        p++;
        n -= 2;
    }
    if (n >= 48) n = 47;
    memcpy(addr, p, n);
    addr[n] = 0;
}

/* Is addr one of --trusted-proxy? */
static bool trusted_proxy(const server_t *srv, const char *addr)
{
    size_t k = strlen(addr);
    for (const char *p = srv->opts.trusted_proxy; *p;) {
        size_t n = strcspn(p, ",");
        if (n == k && memcmp(p, addr, n) == 0) return true;
        p += n + (p[n] == ',');
    }
    return false;
}

/*
 * Count c against the client address `addr`. Returns NULL when it may stay,
 * or the error code that refuses it: too_many_connections (open at once) or
 * rate_limited (new connections too fast).
 */
static const char *count_peer(conn_t *c, const char *addr)
{
    server_t *srv = c->srv;
    size_t n = strlen(addr);
    if (srv->next_conn_id % PEER_SWEEP_EVERY == 0) peer_sweep(srv);
    const conn_hooks_t *h = srv->conn_hooks;
    if (h->is_node_addr && h->is_node_addr(srv, addr)) { /* a node's links: one per client */
        c->node_link = true;
        return NULL;
    }
    peer_count_t *p;
    HASH_FIND_STR(srv->peers, addr, p);
    if (!p) {
        if (!(p = tapis_calloc(1, sizeof *p))) return NULL; /* no memory: do not refuse for that */
        memcpy(p->addr, addr, n + 1);
        HASH_ADD_STR(srv->peers, addr, p);
        if (!p->hh.tbl) { /* the table could not grow (HASH_NONFATAL_OOM) */
            tapis_free(p);
            return NULL;
        }
    }
    p->n++;
    c->peer_count = p;
    if (srv->opts.max_conns_per_ip > 0 && p->n > srv->opts.max_conns_per_ip)
        return TAPIS_E_TOO_MANY_CONNECTIONS;
    if (!budget_take(&p->accepts, server_now_us(srv), conn_rate_interval(srv),
                     2 * srv->opts.conn_rate))
        return TAPIS_E_RATE_LIMITED;
    return NULL;
}

/* Count c under addr; a refusal is logged and counted, and its code returned (else NULL). */
static const char *admit(conn_t *c, const char *addr)
{
    server_t *srv = c->srv;
    const char *refused = count_peer(c, addr);
    if (refused && strcmp(refused, TAPIS_E_TOO_MANY_CONNECTIONS) == 0) {
        log_warn("conn %llu from %s refused: %d connections from one address is the cap",
                 (unsigned long long)c->id, c->peer, srv->opts.max_conns_per_ip);
        srv->metrics.refused[REFUSE_PER_IP]++;
    } else if (refused) {
        log_debug("conn %llu from %s refused: new connections too fast", (unsigned long long)c->id,
                  c->peer);
        srv->metrics.refused[REFUSE_CONN_RATE]++;
    }
    return refused;
}

const char *conn__admit_client(conn_t *c, const char *addr)
{
    if (!c->via_proxy || c->admitted) return NULL;
    c->admitted = true;
    if (!addr) {
        addr = c->addr; /* named no client: counted as the proxy itself */
    } else {
        char peer[sizeof c->peer];
        snprintf(peer, sizeof peer, "%s via %s", addr, c->addr);
        memcpy(c->peer, peer, sizeof peer);
        log_info("conn %llu is %s", (unsigned long long)c->id, c->peer);
    }
    return admit(c, addr);
}

void conn__refuse(conn_t *c, const char *code)
{
    conn__close_with_error(c, code,
                           strcmp(code, TAPIS_E_TOO_MANY_CONNECTIONS) == 0
                               ? "too many connections from your address; try again later"
                               : "too many new connections from your address; wait a little");
}

static void on_refused_close(uv_handle_t *h)
{
    server_t *srv = h->data;
    srv->refusing = false;
    if (srv->refuse_waiting && !srv->stopping) {
        srv->refuse_waiting = false;
        conn_on_connection((uv_stream_t *)&srv->listener, 0);
    }
}

/*
 * No memory for a new connection: accept it into the server's spare handle
 * and close it at once. Left unaccepted, it would stop libuv from accepting
 * any other (the listener is not polled again until uv_accept() is called).
 * While the spare handle is closing, the next one waits for it.
 */
static void refuse_connection(server_t *srv, uv_stream_t *listener)
{
    log_error("accept: out of memory; connection refused");
    if (srv->refusing) {
        srv->refuse_waiting = true;
        return;
    }
    srv->refusing = true;
    uv_tcp_init(srv->loop, &srv->refused);
    srv->refused.data = srv;
    uv_accept(listener, (uv_stream_t *)&srv->refused);
    uv_close((uv_handle_t *)&srv->refused, on_refused_close);
}

void conn_on_connection(uv_stream_t *listener, int status)
{
    server_t *srv = listener->data;
    if (status < 0) {
        log_warn("accept: %s", uv_strerror(status));
        return;
    }
    /* Its place in the ready heap is reserved now, so that scheduling its lines
       never needs memory. */
    conn_t *c = tapis_calloc(1, sizeof *c);
    if (!c || heap_reserve(&srv->ready, (size_t)srv->nconns + 1) < 0) {
        tapis_free(c);
        refuse_connection(srv, listener);
        return;
    }
    c->srv = srv;
    c->id = ++srv->next_conn_id;
    c->tcp.data = c;
    c->timer.data = c;
    uv_tcp_init(srv->loop, &c->tcp);
    uv_timer_init(srv->loop, &c->timer);
    frame_init(&c->frame, srv->opts.max_line);
    queue_init(&c->flush_node);
    queue_init(&c->doom_node);
    queue_insert_head(&srv->conns, &c->node);
    queue_insert_tail(&srv->unpinged, &c->ping_node); /* until its first flush past hello */
    srv->nconns++;
    c->open_handles = 2;
    if (uv_accept(listener, (uv_stream_t *)&c->tcp) < 0) {
        conn_close(c, "accept failed");
        return;
    }
    srv->metrics.accepted++;
    peer_name(c);
    uv_tcp_nodelay(&c->tcp, 1);
    if (srv->opts.kernel_stamps) stamp_in_kernel(c);
    if (srv->stopping) {
        conn_close(c, "server stopping");
        return;
    }
    if (srv->nconns > srv->opts.max_conns) {
        log_warn("conn %llu from %s refused: %d connections is the cap", (unsigned long long)c->id,
                 c->peer, srv->opts.max_conns);
        srv->metrics.refused[REFUSE_MAX_CONNS]++;
        conn__close_with_error(c, TAPIS_E_SERVER_FULL, "too many connections; try again later");
        return;
    }
    peer_addr(c, c->addr);
    if (trusted_proxy(srv, c->addr)) {
        c->via_proxy = true; /* counted once it names its client (conn__admit_client()) */
    } else {
        const char *refused = admit(c, c->addr);
        if (refused) {
            conn__refuse(c, refused);
            return;
        }
    }
    if (c->via_proxy)
        log_info("conn %llu from %s, a trusted proxy", (unsigned long long)c->id, c->peer);
    else
        log_info("conn %llu from %s", (unsigned long long)c->id, c->peer);
    if (srv->opts.hello_timeout > 0)
        uv_timer_start(&c->timer, on_hello_timeout, srv->opts.hello_timeout, 0);
    conn__resume_reading(c);
}

void conn__wait_request(conn_t *c)
{
    if (c->srv->opts.hello_timeout > 0)
        uv_timer_start(&c->timer, on_hello_timeout, c->srv->opts.hello_timeout, 0);
}

/* Called once a hello succeeded: the hello timeout gives way to the idle timeout. */
void conn_hello_done(conn_t *c)
{
    if (c->state != CONN_OPEN) return;
    c->greeted = true;
    uv_timer_stop(&c->timer);
    if (c->srv->opts.idle_timeout > 0 && !c->relayed) /* a link idles as long as its client */
        uv_timer_start(&c->timer, on_idle_timeout, c->srv->opts.idle_timeout, 0);
}
