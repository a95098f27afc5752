/*
 * main.c — tapisd: options, the loop, the listener, signals, clean shutdown.
 */
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "server/account/account.h"
#include "server/lobby/admin.h"
#include "server/lobby/restore.h"
#include "server/cluster/cluster.h"
#include "server/net/conn.h"
#include "server/net/rtt.h"
#include "json/json_plain.h"
#include "protocol/envelope.h"
#include "server/metrics/http.h"
#include "server/base/log.h"
#include "server/lobby/dispatch.h"
#include "server/base/options.h"
#include "server/room/room.h"
#include "server/sched/scheduler.h"
#include "server/server.h"
#include "server/lobby/sessions.h"
#include "server/session/session.h"
#include "server/store/store.h"

#define STOP_GRACE_MS 2000
static void close_signals_and_probes(server_t *srv);
static void raise_fd_limit(int want);

#define LAG_TICK_MS 100 /* the loop-lag probe; also when a drain's end is noticed */

/* Tell systemd (Type=notify) how we are: "READY=1", "STOPPING=1"... A no-op
   without libsystemd, or when not started by systemd (no $NOTIFY_SOCKET). */
static void notify(const char *state)
{
#ifdef HAVE_LIBSYSTEMD
    sd_notify(0, state);
#else
    (void)state;
#endif
}

/* ------------------------------------------------------------------------ */
/* Randomness                                                               */
/* ------------------------------------------------------------------------ */

int server_random(void *buf, size_t n)
{
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t k = getrandom(p, n, 0);
        if (k < 0) return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

int64_t server_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static uint64_t splitmix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

void server_game_deal(server_t *srv, const char *room, game_deal_t *out)
{
    uint64_t seed = 0;
    if (srv->opts.seeded)
        seed = splitmix(srv->opts.seed + srv->rooms_created - 1); /* (counted already) */
    else if (srv->opts.deal_version == 0 && server_random(&seed, sizeof seed) < 0)
        seed = splitmix(uv_hrtime());
    if (srv->opts.deal_version == 0) {
        deal_v0(out, seed);
        return;
    }
    uint8_t server[32];
    if (srv->opts.seeded) { /* BLAKE2b-256 of the 8 bytes (little-endian) of the old seed */
        uint8_t le[8];
        for (int i = 0; i < 8; i++)
            le[i] = (uint8_t)(seed >> (8 * i));
        crypto_generichash(server, 32, le, sizeof le, NULL, 0);
    } else {
        randombytes_buf(server, sizeof server); /* libsodium's: the OS's source; never fails */
    }
    deal_v1(out, server, room);
    sodium_memzero(server, sizeof server);
}

/* ------------------------------------------------------------------------ */
/* Shutdown                                                                 */
/* ------------------------------------------------------------------------ */

static void on_stop_grace(uv_timer_t *t)
{
    server_t *srv = t->data;
    while (!queue_empty(&srv->conns))
        conn_close(queue_data(queue_head(&srv->conns), conn_t, node), "shutdown");
    uv_close((uv_handle_t *)t, NULL);
}

/* Free every session and room, and close the scheduler's handles (the end of
   a stop, or of a start that failed). */
static void free_tables(server_t *srv)
{
    while (!queue_empty(&srv->sessions))
        lobby_session_destroy(queue_data(queue_head(&srv->sessions), session_t, node));
    while (!queue_empty(&srv->rooms))
        room_destroy(queue_data(queue_head(&srv->rooms), room_t, node));
    room_free_graveyard(srv);
    lobby_seek_close(srv);
    sched_close(srv);
}

/* Tell everyone, flush, close every handle; the loop then ends by itself. */
static void server_stop(server_t *srv, const char *why)
{
    if (srv->stopping) return;
    /* Commit, then write nothing more: rooms and sessions stay as they are in the
       store, to be restored by the next start. */
    durable_commit(&srv->durable); /* the sink's last commit */
    srv->stopping = true;
    cluster_stop(srv);
    notify("STOPPING=1");
    log_notice("stopping (%s)", why);
    uv_close((uv_handle_t *)&srv->listener, NULL);
    close_signals_and_probes(srv);
    unsigned long mark = tapis_alloc_failures();
    json_t *ev = proto_event("shutdown");
    if (srv->store) { /* the tables are kept: they resume when the server is back */
        json_object_set_new(ev, "restart", json_true());
        json_object_set_new(ev, "message",
                            json_string("the server stops and keeps every table; when it is "
                                        "back, say hello with your token to take your seats"));
    }
    ev = game_json_checked(ev, mark); /* NULL: each connection is closed without it */
    for (queue_t *q = queue_head(&srv->conns), *next; q != &srv->conns; q = next) {
        conn_t *c = queue_data(q, conn_t, node);
        next = queue_next(q);
        if (c->state == CONN_DOOMED) {
            conn_close(c, c->doom_why);
            continue;
        }
        conn_send(c, ev);
        conn_close_after_flush(c, "shutdown");
    }
    json_decref(ev);
    conn_flush_all(srv); /* the scheduler's handles are closed below: write it now */
    /* Doomed meanwhile (no memory for the event or its write): no check handle
       will close them now. */
    while (!queue_empty(&srv->doomed)) {
        conn_t *c = queue_data(queue_head(&srv->doomed), conn_t, doom_node);
        conn_close(c, c->doom_why);
    }
    free_tables(srv);
    if (!queue_empty(&srv->conns)) {
        uv_timer_start(&srv->stop_timer, on_stop_grace, STOP_GRACE_MS, 0);
        uv_unref((uv_handle_t *)&srv->stop_timer);
    } else {
        uv_close((uv_handle_t *)&srv->stop_timer, NULL);
    }
}

static void on_signal(uv_signal_t *h, int signum)
{
    server_stop(h->data, signum == SIGINT ? "SIGINT" : "SIGTERM");
}

/* SIGHUP: read the command line and --config again; apply what may change live. */
static char **saved_argv;
static int saved_argc;

static void on_sighup(uv_signal_t *h, int signum)
{
    server_t *srv = h->data;
    (void)signum;
    notify("RELOADING=1");
    static server_opts_t next;
    if (options_parse(&next, saved_argc, saved_argv) != 0) {
        log_error("reload: the options do not parse (see above); nothing changed");
    } else {
        options_reload(&srv->opts, &next);
        log_set_level((log_level_t)srv->opts.log_level);
        log_set_json(srv->opts.log_json);
        raise_fd_limit(srv->opts.max_conns);
        char kept[sizeof srv->admin_token];
        memcpy(kept, srv->admin_token, sizeof kept);
        if (admin_load_token(srv) < 0) {
            memcpy(srv->admin_token, kept, sizeof kept);
            log_error("reload: the admin token is unchanged");
        }
        log_notice("reloaded (SIGHUP)%s%s", srv->opts.config_path[0] ? ": " : "",
                   srv->opts.config_path);
    }
    notify("READY=1");
}

/* Every LAG_TICK_MS: how late the loop ran the timer, and whether a drain is done. */
static void on_lag_tick(uv_timer_t *t)
{
    server_t *srv = t->data;
    uint64_t now = uv_hrtime();
    uint64_t late = now > srv->lag_due_ns ? now - srv->lag_due_ns : 0;
    histogram_observe(&srv->metrics.loop_lag, (double)late / 1e9);
    srv->lag_due_ns = now + (uint64_t)LAG_TICK_MS * 1000000;
    if (admin_drained(srv)) server_stop(srv, "drained: the last game ended");
}

/* Every RTT_TICK_MS: the pings of silent connections (the round trips the races credit, rtt.h). */
static void on_ping_tick(uv_timer_t *t)
{
    rtt_ping_all(t->data, RTT_LATE_US, RTT_TICK_PINGS);
}

static int render_metrics(void *data, buf_t *body)
{
    server_t *srv = data;
    return metrics_text(&srv->metrics, srv, body);
}

/* What metrics.c asks at each exposition: the connections, sessions and rooms. */
static void census(const server_t *srv, metrics_census_t *c)
{
    c->draining = srv->draining;
    c->conns = srv->nconns;
    for (queue_t *q = queue_head(&srv->sessions); q != &srv->sessions; q = queue_next(q)) {
        if (queue_data(q, session_t, node)->conn)
            c->sessions_connected++;
        else
            c->sessions_held++;
    }
    for (queue_t *q = queue_head(&srv->rooms); q != &srv->rooms; q = queue_next(q)) {
        room_t *r = queue_data(q, room_t, node);
        c->rooms[metrics_game_index(r->desc->id)][r->status]++;
    }
}

/* ------------------------------------------------------------------------ */
/* Start                                                                    */
/* ------------------------------------------------------------------------ */

/* The handles a stop or a failed start closes besides the listener. */
static void close_signals_and_probes(server_t *srv)
{
    uv_close((uv_handle_t *)&srv->sigint, NULL);
    uv_close((uv_handle_t *)&srv->sigterm, NULL);
    uv_close((uv_handle_t *)&srv->sighup, NULL);
    uv_close((uv_handle_t *)&srv->lag_timer, NULL);
    uv_close((uv_handle_t *)&srv->ping_timer, NULL);
    if (srv->http) http_stop(srv->http);
    srv->http = NULL;
}

/* Many connections need many descriptors: raise the soft limit to the hard one. */
static void raise_fd_limit(int want)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0) return;
    rlim_t need = (rlim_t)want + 64;
    if (rl.rlim_cur >= need) return;
    rl.rlim_cur = rl.rlim_max < need ? rl.rlim_max : need;
    if (setrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < need)
        log_warn("file descriptor limit %llu is below --max-conns %d",
                 (unsigned long long)rl.rlim_cur, want);
}

static int listen_on(server_t *srv)
{
    struct sockaddr_storage ss;
    int r;
    if (strchr(srv->opts.host, ':'))
        r = uv_ip6_addr(srv->opts.host, srv->opts.port, (struct sockaddr_in6 *)&ss);
    else
        r = uv_ip4_addr(srv->opts.host, srv->opts.port, (struct sockaddr_in *)&ss);
    if (r < 0) {
        log_error("bad listen address %s: %s", srv->opts.host, uv_strerror(r));
        return -1;
    }
    uv_tcp_init(srv->loop, &srv->listener);
    srv->listener.data = srv;
    if ((r = uv_tcp_bind(&srv->listener, (struct sockaddr *)&ss, 0)) < 0 ||
        (r = uv_listen((uv_stream_t *)&srv->listener, 511, conn_on_connection)) < 0) {
        log_error("cannot listen on %s:%d: %s", srv->opts.host, srv->opts.port, uv_strerror(r));
        uv_close((uv_handle_t *)&srv->listener, NULL);
        return -1;
    }
    int n = sizeof ss;
    char host[64] = "?";
    int port = srv->opts.port;
    if (uv_tcp_getsockname(&srv->listener, (struct sockaddr *)&ss, &n) == 0) {
        if (ss.ss_family == AF_INET6) {
            uv_ip6_name((struct sockaddr_in6 *)&ss, host, sizeof host);
            port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
        } else {
            uv_ip4_name((struct sockaddr_in *)&ss, host, sizeof host);
            port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
        }
    }
    if (ss.ss_family == AF_INET6)
        log_notice("listening on [%s]:%d", host, port);
    else
        log_notice("listening on %s:%d", host, port);
    if (srv->opts.web_root[0]) { /* the page (server/net/web.c): say where it comes from,
                                    after "listening on": tests read that first */
        char index[sizeof srv->opts.web_root + 16];
        snprintf(index, sizeof index, "%s/index.html", srv->opts.web_root);
        if (access(index, R_OK) == 0)
            log_info("web page from %s", srv->opts.web_root);
        else
            log_info("no web page: %s not found (GET / answers 404; see --web-root)", index);
    }
    return 0;
}

/* The start failed: free what the restore made, write nothing to the store. */
static int abandon_start(server_t *srv)
{
    srv->stopping = true;
    free_tables(srv);
    uv_close((uv_handle_t *)&srv->stop_timer, NULL);
    close_signals_and_probes(srv);
    store_close(srv);
    accounts_free(srv);
    uv_run(srv->loop, UV_RUN_DEFAULT);
    uv_loop_close(srv->loop);
    return 1;
}

/* libuv's realloc: tapis_realloc() wants size > 0 (libuv never asks for 0). */
static void *uv_realloc_wrapped(void *p, size_t size)
{
    if (size == 0) {
        tapis_free(p);
        return NULL;
    }
    return tapis_realloc(p, size);
}

/*
 * libuv's thread pool runs the bots' searches and the password hashes. It
 * takes its size from UV_THREADPOOL_SIZE at its first use (4 when unset,
 * 1 to 1024): unset, it is made one thread more than --bot-searches, so a
 * hash never waits for every search; set, the searches are held to one
 * thread less (room_think.c), which a warning says.
 */
static int size_thread_pool(const server_opts_t *o)
{
    const char *v = getenv("UV_THREADPOOL_SIZE");
    if (!v || !*v) {
        int n = o->bot_searches + 1 > 4 ? o->bot_searches + 1 : 4;
        if (n > 1024) n = 1024;
        char text[16];
        snprintf(text, sizeof text, "%d", n);
        setenv("UV_THREADPOOL_SIZE", text, 1);
        return n;
    }
    long n = strtol(v, NULL, 10);
    n = n < 1 ? 1 : n > 1024 ? 1024 : n;
    if (o->bot_searches >= n)
        log_warn("UV_THREADPOOL_SIZE is %ld: at most %ld of --bot-searches %d run at once", n,
                 n > 1 ? n - 1 : 1, o->bot_searches);
    return (int)n;
}

int main(int argc, char **argv)
{
    /* Every allocation through one wrapper (tapis_alloc.h): the server's own,
       core/'s and protocol/'s, jansson's and libuv's (before libuv allocates
       anything), so a test build can make any of them fail
       (tests/server/test_alloc_session.py). SQLite keeps its own allocator:
       that test runs with --db none. */
    json_set_alloc_funcs(tapis_malloc, tapis_free);
    if (uv_replace_allocator(tapis_malloc, uv_realloc_wrapped, tapis_calloc, tapis_free) < 0) {
        log_error("cannot install the allocator");
        return 1;
    }
    if (!dispatch_handles_every_command()) { /* a command added without its handler */
        log_error("a command of the table has no handler (server/lobby/dispatch.c)");
        return 1;
    }
    static server_t srv;
    int rc = options_parse(&srv.opts, argc, argv);
    if (rc != 0) return rc > 0 ? 0 : 2;
    log_set_level((log_level_t)srv.opts.log_level);
    log_set_json(srv.opts.log_json);
    saved_argc = argc;
    saved_argv = argv;
    if (srv.opts.export_game) return store_export_game(srv.opts.db_path, srv.opts.export_game);
    signal(SIGPIPE, SIG_IGN);
    if (admin_load_token(&srv) < 0) return 1;
    srv.metrics.start_wall_ms = server_wall_ms();
    raise_fd_limit(srv.opts.max_conns);
    srv.pool_threads = size_thread_pool(&srv.opts);

    uv_loop_t loop;
    if (uv_loop_init(&loop) < 0) {
        log_error("cannot create the event loop");
        return 1;
    }
    server_lists_init(&srv, &loop);
    clock_start(&srv.clock);
    srv.conn_hooks = &dispatch_conn_hooks;
    srv.metrics.cluster_health = cluster_health;
    srv.metrics.census = census;
    uint64_t seed;
    if (srv.opts.seeded)
        seed = splitmix(srv.opts.seed ^ 0x5eed);
    else if (server_random(&seed, sizeof seed) < 0)
        seed = splitmix(uv_hrtime());
    rng_seed(&srv.rng, seed);

    if (sodium_init() < 0 || accounts_init(&srv) < 0) {
        log_error("libsodium cannot start");
        return 1;
    }
    sched_init(&srv);
    uv_timer_init(&loop, &srv.stop_timer);
    srv.stop_timer.data = &srv;
    /* Signals first: a SIGTERM that comes as soon as "listening on" is logged is a
       clean stop. */
    uv_signal_init(&loop, &srv.sigint);
    uv_signal_init(&loop, &srv.sigterm);
    uv_signal_init(&loop, &srv.sighup);
    srv.sigint.data = srv.sigterm.data = srv.sighup.data = &srv;
    uv_signal_start(&srv.sigint, on_signal, SIGINT);
    uv_signal_start(&srv.sigterm, on_signal, SIGTERM);
    uv_signal_start(&srv.sighup, on_sighup, SIGHUP);
    uv_timer_init(&loop, &srv.lag_timer);
    srv.lag_timer.data = &srv;
    srv.lag_due_ns = uv_hrtime() + (uint64_t)LAG_TICK_MS * 1000000;
    uv_timer_start(&srv.lag_timer, on_lag_tick, LAG_TICK_MS, LAG_TICK_MS);
    uv_unref((uv_handle_t *)&srv.lag_timer);
    uv_timer_init(&loop, &srv.ping_timer);
    srv.ping_timer.data = &srv;
    uv_timer_start(&srv.ping_timer, on_ping_tick, RTT_TICK_MS, RTT_TICK_MS);
    uv_unref((uv_handle_t *)&srv.ping_timer);
    int restored = 0, resessions = 0, quarantined = 0;
    uint64_t restore_ns = uv_hrtime();
    if (cluster_init(&srv) < 0 || (srv.opts.db_path[0] && store_open(&srv) < 0)) {
        cluster_free(&srv);
        return abandon_start(&srv);
    }
    /* The durability sink's backends, the store first: what rooms and sessions
       write (the restore's too) goes to them in this order. */
    if (srv.store) durable_add(&srv.durable, &store_durable, &srv);
    if (srv.cluster) durable_add(&srv.durable, &cluster_durable, &srv);
    if (srv.store) accounts_set_backend(&srv, &store_accounts_backend, &srv);
    if (srv.cluster) accounts_set_shared(&srv, &cluster_accounts_shared, &srv);
    if (accounts_load(&srv) < 0) {
        cluster_free(&srv);
        return abandon_start(&srv);
    }
    cluster_set_hooks(&srv, &lobby_cluster_hooks, &srv);
    if (srv.store && (restored = lobby_restore(&srv, &resessions, &quarantined)) < 0) {
        cluster_free(&srv);
        return abandon_start(&srv);
    }
    lobby_accounts_restore(&srv); /* (logged) a room it cannot read plays casual */
    if (listen_on(&srv) < 0) {
        cluster_free(&srv);
        return abandon_start(&srv);
    }
    if (srv.opts.metrics) {
        int r = http_start(&srv.http, &loop, srv.opts.metrics_host, srv.opts.metrics_port,
                           render_metrics, &srv);
        if (r < 0) {
            log_error("cannot serve metrics on %s:%d: %s", srv.opts.metrics_host,
                      srv.opts.metrics_port, uv_strerror(r));
            uv_close((uv_handle_t *)&srv.listener, NULL);
            return abandon_start(&srv);
        }
    }
    if (srv.store)
        log_notice("store %s: %d tables and %d sessions restored in %.0f ms%s", srv.opts.db_path,
                   restored, resessions, (double)(uv_hrtime() - restore_ns) / 1e6,
                   quarantined ? " (some quarantined: see above)" : "");

    if (cluster_start(&srv) < 0) {
        uv_close((uv_handle_t *)&srv.listener, NULL);
        if (srv.http) http_stop(srv.http);
        cluster_free(&srv);
        return abandon_start(&srv);
    }

    notify("READY=1");
    uv_run(&loop, UV_RUN_DEFAULT);
    /* The grace timer outlives the connections it waited for. */
    if (!uv_is_closing((uv_handle_t *)&srv.stop_timer)) {
        uv_close((uv_handle_t *)&srv.stop_timer, NULL);
        uv_run(&loop, UV_RUN_DEFAULT);
    }

    store_close(&srv);
    cluster_free(&srv);
    accounts_free(&srv);
    conn_free_all(&srv);
    json_plain_shared_clear(); /* the requests' shared actions (protocol/envelope.c) */
    int closed = uv_loop_close(&loop);
    if (closed != 0) {
        log_error("event loop not closed cleanly: %s", uv_strerror(closed));
        return 1;
    }
    log_notice("stopped");
    return 0;
}
