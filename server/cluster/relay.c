/* relay.c — a client served through the node that hosts its room. See relay.h. */
#include "server/cluster/relay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/cluster/cluster.h"
#include "server/net/conn.h"
#include "server/net/rtt.h"
#include "protocol/envelope.h"
#include "server/base/log.h"

#define LINK_MAX_LINE (4 * 1024 * 1024) /* a state event of a large table fits */
#define RELINK_MS_TTLS 4                /* broken links are opened again for 4 node TTLs */

struct relay {
    uv_tcp_t tcp; /* first */
    uv_connect_t connect;
    uv_timer_t deadline; /* a node that does not answer the connect in time is given up */
    int handles;         /* open handles: freed when the last one is closed */
    server_t *srv;
    conn_t *client; /* NULL once the client is gone */
    char node[33];
    bool connected, closing, greeted;
    json_t *waiting; /* [[re, id], ...]: the relayed requests waiting for their reply */
    json_t *rooms;   /* the ids of the client's rooms served over this link */
    buf_t out;       /* what waits for the connection */
    frame_t frame;
    queue_t node_q; /* in client->relay->links */
};

/* A node's ping passed on to the client under a number of the client's connection. */
typedef struct relay_ping {
    uint64_t n, node_n; /* the client's number (0: free), the node's */
    char node[33];
} relay_ping_t;

/* What relay.c keeps of a client (conn_t.relay), made with its first link. */
struct relay_client {
    conn_t *conn;
    relay_ping_t pings[RTT_PINGS]; /* the nodes' pings awaiting the client's pong, by n */
    queue_t links;                 /* relay_t.node_q: links to the nodes hosting its rooms */
    json_t *lost;                  /* ids of the rooms whose link broke: linked again when back */
    uint64_t lost_until;           /* ms: ...until then */
    queue_t relink_node;           /* in srv->relinking while lost has rooms */
};

/* c's relay state, made if it has none (NULL when there is no memory). */
static relay_client_t *client_of(conn_t *c)
{
    if (c->relay) return c->relay;
    relay_client_t *rc = tapis_calloc(1, sizeof *rc);
    if (!rc) return NULL;
    rc->conn = c;
    queue_init(&rc->links);
    queue_init(&rc->relink_node);
    c->relay = rc;
    return rc;
}

typedef struct link_write {
    uv_write_t req;
    char data[]; /* what it writes, in the same allocation */
} link_write_t;

static void link_close(relay_t *l, const char *why);
static void link_broken(relay_t *l, const char *why);

static void on_link_close(uv_handle_t *h)
{
    relay_t *l = h->data;
    if (--l->handles > 0) return;
    json_decref(l->waiting);
    json_decref(l->rooms);
    buf_free(&l->out);
    frame_free(&l->frame);
    tapis_free(l);
}

static void on_written(uv_write_t *req, int status)
{
    relay_t *l = req->data;
    tapis_free(req); /* the link_write_t */
    if (status < 0 && !l->closing) link_broken(l, uv_strerror(status));
}

/* Write data (and a "\n" with `nl`): one allocation and one write. */
static void link_write(relay_t *l, const char *data, size_t len, bool nl)
{
    if (!l->connected) {
        if (buf_append(&l->out, data, len) < 0 || (nl && buf_append(&l->out, "\n", 1) < 0))
            link_close(l, "out of memory");
        return;
    }
    link_write_t *w = tapis_malloc(sizeof *w + len + 1);
    if (!w) {
        link_close(l, "out of memory");
        return;
    }
    memcpy(w->data, data, len);
    if (nl) w->data[len++] = '\n';
    w->req.data = l;
    uv_buf_t b = uv_buf_init(w->data, (unsigned)len);
    if (uv_write(&w->req, (uv_stream_t *)&l->tcp, &b, 1, on_written) < 0) {
        tapis_free(w);
        link_broken(l, "write failed");
    }
}

/* Answer every relayed request still waiting with `unavailable`. */
static void fail_waiting(relay_t *l, const char *why)
{
    conn_t *c = l->client;
    size_t i;
    json_t *w;
    json_array_foreach(l->waiting, i, w)
    {
        if (!c) break;
        char msg[200];
        snprintf(msg, sizeof msg, "node %s cannot serve this now (%s); try again", l->node, why);
        conn_send_new(c, proto_reply_error(json_string_value(json_array_get(w, 0)),
                                           json_array_get(w, 1), TAPIS_E_UNAVAILABLE, msg));
        c->lines_held--;
    }
    json_array_clear(l->waiting);
    if (c) conn_update_ready(c);
}

static bool has_room(const json_t *rooms, const char *id)
{
    size_t i;
    json_t *v;
    json_array_foreach(rooms, i, v) if (strcmp(json_string_value(v), id) == 0) return true;
    return false;
}

/* c's room id has no link now: it is linked again when the directory shows it
   on a node (relink()), for RELINK_MS_TTLS node TTLs. */
static void lose_room(conn_t *c, const char *id)
{
    server_t *srv = c->srv;
    if (c->state != CONN_OPEN || srv->stopping) return;
    relay_client_t *rc = client_of(c);
    if (!rc || (!rc->lost && !(rc->lost = json_array()))) return;
    if (!has_room(rc->lost, id)) json_array_append_new(rc->lost, json_string(id));
    rc->lost_until = (uint64_t)server_now_ms(srv) + RELINK_MS_TTLS * srv->opts.node_ttl;
    if (queue_empty(&rc->relink_node)) queue_insert_tail(&srv->relinking, &rc->relink_node);
}

static void link_close(relay_t *l, const char *why)
{
    if (l->closing) return;
    l->closing = true;
    conn_t *c = l->client;
    if (c) {
        log_info("conn %llu: link to node %s closed (%s)", (unsigned long long)c->id, l->node, why);
        fail_waiting(l, why);
        queue_remove(&l->node_q);
        size_t i;
        json_t *v;
        json_array_foreach(l->rooms, i, v) lose_room(c, json_string_value(v));
        l->client = NULL;
    }
    l->srv->metrics.relay_links--;
    uv_close((uv_handle_t *)&l->tcp, on_link_close);
    uv_close((uv_handle_t *)&l->deadline, on_link_close);
}

/* The node refused the link, did not answer, or the connection broke: new
   links to it wait a while (cluster_link_failed()), so that a node that died
   is not asked again at every request of every client it served. */
static void link_broken(relay_t *l, const char *why)
{
    if (l->closing) return;
    cluster_link_failed(l->srv, l->node);
    link_close(l, why);
}

static void on_connect_deadline(uv_timer_t *t)
{
    relay_t *l = t->data;
    if (!l->connected) link_broken(l, "the node does not answer");
}

static void add_room(relay_t *l, const char *id)
{
    if (id && !has_room(l->rooms, id)) json_array_append_new(l->rooms, json_string(id));
}

/* A reply that puts the client in a room of the node (or takes it out): noted. */
static void note_rooms(relay_t *l, const char *line, size_t len)
{
    bool in = memcmp(line, "{\"re\":\"join\"", 12) == 0 ||
              memcmp(line, "{\"re\":\"watch\"", 13) == 0 ||
              memcmp(line, "{\"re\":\"create\"", 14) == 0;
    bool out = memcmp(line, "{\"re\":\"leave\"", 13) == 0;
    if ((!in && !out) || !strstr(line, "\"ok\":true")) return;
    json_t *m = json_loadb(line, len, 0, NULL);
    const char *id = json_string_value(json_object_get(m, "room"));
    if (in) {
        add_room(l, id);
    } else if (id) {
        size_t i;
        json_t *v;
        json_array_foreach(l->rooms, i, v) if (strcmp(json_string_value(v), id) == 0)
        {
            json_array_remove(l->rooms, i);
            break;
        }
    }
    json_decref(m);
}

/*
 * The node's ping of the link: passed on to the client under the next number
 * of the client's own pings (so the two never clash), its pong sent back over
 * the link (relay_pong()). The node measures the whole way, link and client.
 */
static void pass_ping(relay_t *l, conn_t *c, const char *line, size_t len)
{
    json_t *m = json_loadb(line, len, 0, NULL);
    uint64_t node_n = (uint64_t)json_integer_value(json_object_get(m, "n"));
    json_decref(m);
    relay_client_t *rc = client_of(c);
    json_t *ev = rc && node_n ? proto_event("ping") : NULL;
    if (!ev) return; /* unanswered: the node settles this client by arrival */
    uint64_t n = ++c->rtt.next_n;
    json_object_set_new(ev, "n", json_integer((json_int_t)n));
    if (conn_send_new(c, ev) < 0) return;
    relay_ping_t *p = &rc->pings[n % RTT_PINGS];
    p->n = n;
    p->node_n = node_n;
    snprintf(p->node, sizeof p->node, "%s", l->node);
}

/* One line from the node: the greeting's reply (kept), a reply, or an event. */
static void on_link_line(relay_t *l, const char *line, size_t len)
{
    conn_t *c = l->client;
    bool reply = len > 5 && memcmp(line, "{\"re\"", 5) == 0;
    if (!l->greeted && reply) {
        l->greeted = true;
        if (!strstr(line, "\"ok\":true")) {
            log_warn("link to node %s: the node refused the session: %.200s", l->node, line);
            link_close(l, "the node refused the session");
        }
        return;
    }
    if (!c) return;
    if (len > 11 && memcmp(line, "{\"re\":\"pong\"", 12) == 0)
        return; /* relay_pong()'s, not the client's: its pongs are its node's requests */
    if (len > 11 && memcmp(line, "{\"ev\":\"ping\"", 12) == 0) {
        pass_ping(l, c, line, len);
        return;
    }
    if (reply) {
        if (json_array_size(l->waiting) == 0) return;
        json_array_remove(l->waiting, 0);
        if (len > 14) note_rooms(l, line, len);
        c->lines_held--;
        conn_send_line(c, line, len);
        conn_update_ready(c);
        return;
    }
    if (len > 15 && memcmp(line, "{\"ev\":\"shutdown\"", 16) == 0)
        return; /* the node's, not ours */
    conn_send_line(c, line, len);
    if (len > 15 && memcmp(line, "{\"ev\":\"replaced\"", 16) == 0)
        conn_close_after_flush(c, "session taken on another connection");
}

static void on_link_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)h;
    (void)suggested;
    static char scratch[64 * 1024];
    *buf = uv_buf_init(scratch, sizeof scratch);
}

static void on_link_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
    relay_t *l = s->data;
    if (nread < 0) {
        link_broken(l, nread == UV_EOF ? "the node closed it" : uv_strerror((int)nread));
        return;
    }
    if (nread == 0 || l->closing) return;
    if (frame_feed(&l->frame, buf->base, (size_t)nread) < 0) {
        link_close(l, "out of memory");
        return;
    }
    const char *line;
    size_t len;
    int r;
    while (!l->closing && (r = frame_next(&l->frame, &line, &len)) != FRAME_NEED_MORE) {
        if (r == FRAME_TOO_LONG) {
            link_close(l, "a line too long");
            return;
        }
        on_link_line(l, line, len);
    }
}

static void on_connect(uv_connect_t *req, int status)
{
    relay_t *l = req->data;
    if (l->closing) return;
    uv_timer_stop(&l->deadline);
    if (status < 0) {
        link_broken(l, uv_strerror(status));
        return;
    }
    l->connected = true;
    cluster_link_up(l->srv, l->node);
    uv_tcp_nodelay(&l->tcp, 1);
    if (uv_read_start((uv_stream_t *)&l->tcp, on_link_alloc, on_link_read) < 0) {
        link_close(l, "cannot read");
        return;
    }
    size_t n;
    char *pending = buf_take(&l->out, &n);
    if (pending && n) link_write(l, pending, n, false);
    tapis_free(pending);
}

static relay_t *find_link(const conn_t *c, const char *node)
{
    if (!c->relay) return NULL;
    const queue_t *links = &c->relay->links;
    for (queue_t *q = queue_head(links); q != links; q = queue_next(q)) {
        relay_t *l = queue_data(q, relay_t, node_q);
        if (strcmp(l->node, node) == 0) return l;
    }
    return NULL;
}

/* The link of c to node, opened (and greeted) if there was none. NULL on
   failure, and while new links to node wait (cluster_link_wait_ms()). */
static relay_t *open_link(conn_t *c, const char *node)
{
    relay_t *l = find_link(c, node);
    if (l) return l;
    server_t *srv = c->srv;
    if (cluster_link_wait_ms(srv, node) > 0) return NULL;
    char ip[64];
    int port;
    struct sockaddr_storage addr;
    if (!c->session || cluster_node_addr(srv, node, ip, &port) < 0) return NULL;
    relay_client_t *rc = client_of(c);
    if (!rc) return NULL;
    if ((strchr(ip, ':') ? uv_ip6_addr(ip, port, (struct sockaddr_in6 *)&addr)
                         : uv_ip4_addr(ip, port, (struct sockaddr_in *)&addr)) != 0)
        return NULL;
    if (!(l = tapis_calloc(1, sizeof *l)) || !(l->waiting = json_array()) ||
        !(l->rooms = json_array())) {
        if (l) json_decref(l->waiting);
        tapis_free(l);
        return NULL;
    }
    l->srv = srv;
    l->client = c;
    snprintf(l->node, sizeof l->node, "%s", node);
    frame_init(&l->frame, LINK_MAX_LINE);
    uv_tcp_init(srv->loop, &l->tcp);
    uv_timer_init(srv->loop, &l->deadline);
    l->handles = 2;
    l->tcp.data = l;
    l->deadline.data = l;
    l->connect.data = l;
    uv_timer_start(&l->deadline, on_connect_deadline, srv->opts.node_ttl, 0);
    queue_insert_tail(&rc->links, &l->node_q);
    srv->metrics.relay_links++;
    const char *name, *token;
    cluster_identity(srv, c->session, &name, &token);
    json_t *hello = json_pack("{s:s, s:s, s:s, s:s}", "cmd", "hello", "name", name, "token", token,
                              "via", cluster_node_id(srv));
    char *text = hello ? json_dumps(hello, JSON_COMPACT) : NULL;
    json_decref(hello);
    if (!text || buf_printf(&l->out, "%s\n", text) < 0) {
        free(text);
        link_close(l, "out of memory");
        return NULL;
    }
    if (uv_tcp_connect(&l->connect, &l->tcp, (struct sockaddr *)&addr, on_connect) < 0) {
        free(text);
        link_broken(l, "cannot connect");
        return NULL;
    }
    free(text);
    log_info("conn %llu: link to node %s (%s:%d) for %s", (unsigned long long)c->id, node, ip, port,
             name);
    return l;
}

void relay_forward(conn_t *c, const char *node, const char *line, size_t len, const char *re,
                   const json_t *id)
{
    relay_t *l = open_link(c, node);
    json_t *w = l ? json_pack("[s, O?]", re, id) : NULL;
    if (!w || json_array_append_new(l->waiting, w) < 0) {
        /* At once, with no new link while node backs off: a client that sends
           again at once makes no connection storm. */
        long long wait = (long long)cluster_link_wait_ms(c->srv, node);
        char msg[160];
        if (wait > 0)
            snprintf(msg, sizeof msg,
                     "node %s could not be reached a moment ago; try again in %lld ms", node, wait);
        else
            snprintf(msg, sizeof msg, "node %s cannot be reached now; try again", node);
        conn_send_new(c, proto_reply_error(re, id, TAPIS_E_UNAVAILABLE, msg));
        conn_note_error(c, TAPIS_E_UNAVAILABLE); /* the server's failure: spends nothing */
        return;
    }
    c->lines_held++;
    c->srv->metrics.relayed++;
    link_write(l, line, len, true);
}

void relay_link(conn_t *c, const char *node, const char *room)
{
    relay_t *l = open_link(c, node);
    if (l)
        add_room(l, room);
    else if (room)
        lose_room(c, room); /* node backs off: at a heartbeat */
}

const char *relay_single_node(const conn_t *c)
{
    const char *node = NULL;
    const relay_client_t *rc = c->relay;
    if (!rc) return NULL;
    for (queue_t *q = queue_head(&rc->links); q != &rc->links; q = queue_next(q)) {
        const char *n = queue_data(q, relay_t, node_q)->node;
        if (node && strcmp(node, n) != 0) return NULL;
        node = n;
    }
    /* The rooms whose link broke are the client's still: where the directory
       shows them (their requests are answered unavailable there, not refused). */
    size_t i;
    json_t *v;
    json_array_foreach(rc->lost, i, v)
    {
        const char *n = cluster_dir_node(c->srv, json_string_value(v));
        if (!n) continue;
        if (node && strcmp(node, n) != 0) return NULL;
        node = n;
    }
    return node;
}

bool relay_pong(conn_t *c, uint64_t n)
{
    relay_ping_t *p = c->relay && n ? &c->relay->pings[n % RTT_PINGS] : NULL;
    if (!p || p->n != n) return false;
    p->n = 0; /* one pong a ping */
    relay_t *l = find_link(c, p->node);
    if (l && !l->closing) {
        char line[64];
        int k = snprintf(line, sizeof line, "{\"cmd\":\"pong\",\"n\":%llu}",
                         (unsigned long long)p->node_n);
        link_write(l, line, (size_t)k, true);
    }
    return true;
}

void relay_close_all(conn_t *c)
{
    relay_client_t *rc = c->relay;
    c->lines_held = 0;
    if (!rc) return;
    while (!queue_empty(&rc->links)) {
        relay_t *l = queue_data(queue_head(&rc->links), relay_t, node_q);
        json_array_clear(l->waiting); /* nobody to answer */
        link_close(l, "the client left");
    }
    json_decref(rc->lost);
    queue_remove(&rc->relink_node);
    c->relay = NULL;
    tapis_free(rc);
}

/* Open again the links of c's lost rooms that the directory shows on a node
   (`only`: that room alone). A room now hosted here needs none: its members
   here were told when it was rebuilt. */
static void relink(conn_t *c, const char *only)
{
    server_t *srv = c->srv;
    json_t *lost = c->relay->lost;
    size_t i = 0;
    while (i < json_array_size(lost)) {
        const char *id = json_string_value(json_array_get(lost, i));
        if (only && strcmp(id, only) != 0) {
            i++;
            continue;
        }
        const char *node = cluster_dir_node(srv, id);
        if (!node && !cluster_hosts(srv, id)) {
            i++; /* not back yet */
            continue;
        }
        relay_t *l = node ? open_link(c, node) : NULL;
        if (node && !l) {
            i++; /* its node backs off (or cannot be reached): at a later heartbeat */
            continue;
        }
        if (l) add_room(l, id);
        json_array_remove(lost, i);
    }
}

void relay_retry(server_t *srv)
{
    uint64_t now = (uint64_t)server_now_ms(srv);
    queue_t *q = queue_head(&srv->relinking);
    while (q != &srv->relinking) {
        relay_client_t *rc = queue_data(q, relay_client_t, relink_node);
        conn_t *c = rc->conn;
        q = queue_next(q);
        if (c->state == CONN_OPEN && c->session && rc->lost_until >= now) relink(c, NULL);
        if (c->state != CONN_OPEN || rc->lost_until < now || json_array_size(rc->lost) == 0) {
            json_array_clear(rc->lost); /* given up (relay_single_node() looks here) */
            queue_remove(&rc->relink_node);
            queue_init(&rc->relink_node);
        }
    }
}

void relay_room_moved(server_t *srv, const char *id)
{
    if (srv->stopping) return;
    for (queue_t *q = queue_head(&srv->relinking); q != &srv->relinking; q = queue_next(q)) {
        conn_t *c = queue_data(q, relay_client_t, relink_node)->conn;
        if (c->state == CONN_OPEN && c->session) relink(c, id);
    }
}
