/*
 * test_scheduler.c — the scheduler (server/sched) alone, on the set clock.
 *
 * The real scheduler and the real connections (server/net) run on a real
 * loop: clients are blocking loopback sockets, and each read is stamped
 * with the clock the test set before the loop read it. The check and
 * prepare handles are stopped, so a turn (and its commit and write) runs
 * only when the test calls sched_turn(). What lies
 * above the wire is the test's: the connections' hooks record each line and
 * its stamp; a room is a bare room_t in srv->timers, and room_run_due()
 * (the room part is not linked) records when its deadline ran; a durability
 * backend records the commit and checks that nothing was written before
 * it. Linked: sched, net, durable, metrics, base.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/base/log.h"
#include "server/net/conn.h"
#include "server/room/room.h"
#include "server/sched/scheduler.h"
#include "server/server.h"
#include "tests/lib/test_main.h"

/* ------------------------------------------------------------------------ */
/* What the scheduler did                                                   */
/* ------------------------------------------------------------------------ */

#define MAX_EVENTS 2048

typedef struct event {
    char what[32]; /* the line, or "room N" */
    uint64_t at;   /* its stamp, or the deadline (srv->work_us) */
    uint64_t turn;
} event_t;

static server_t srv;
static event_t events[MAX_EVENTS];
static int nevents;
static int commits;
static int reply_fd = -1; /* the client whose reply must not come before the commit */
static bool reply_each_line;
/* A line "big<c>" is answered with a line of big_bytes bytes <c> instead. */
static size_t big_bytes;

static void note(const char *what, size_t len, uint64_t at)
{
    assert_true(nevents < MAX_EVENTS);
    event_t *e = &events[nevents++];
    if (len >= sizeof e->what) len = sizeof e->what - 1;
    memcpy(e->what, what, len);
    e->what[len] = 0;
    e->at = at;
    e->turn = srv.turn;
}

/* A race holds one connection's lines this long (the lobby's line_delay, dispatch.c). */
static conn_t *held_conn;
static uint64_t held_us;

static uint64_t line_delay(conn_t *c, const char *line, size_t len, uint64_t stamp)
{
    (void)stamp;
    if (c == held_conn) assert_true(len >= 2 && line[0] == 'a'); /* its bytes, no "\n" */
    return c == held_conn ? held_us : 0;
}

static void on_line(conn_t *c, const char *line, size_t len, uint64_t stamp, bool limited)
{
    (void)limited;
    assert_int_equal(srv.work_us, stamp + (c == held_conn ? held_us : 0)); /* taken at its key */
    note(line, len, stamp);
    if (reply_each_line && len == 4 && memcmp(line, "big", 3) == 0) {
        char *big = malloc(big_bytes);
        assert_non_null(big);
        memset(big, line[3], big_bytes);
        conn_send_line(c, big, big_bytes);
        free(big);
    } else if (reply_each_line) {
        conn_send_line(c, line, len);
    }
}

static void on_close(conn_t *c)
{
    (void)c;
}

static const conn_hooks_t hooks = {
    .on_line = on_line, .on_close = on_close, .line_delay = line_delay};

/* The room part is not linked: a room is a deadline in srv->timers. */
#define NROOMS 1100
static room_t rooms[NROOMS];

void room_run_due(room_t *r)
{
    char what[32];
    int n = snprintf(what, sizeof what, "room %d", (int)(r - rooms));
    assert_int_equal(srv.work_us, r->due.key);
    note(what, (size_t)n, r->due.key);
    heap_remove(&srv.timers, &r->due);
}

void room_free_graveyard(server_t *s)
{
    (void)s;
}

static void add_deadline(int i, uint64_t at)
{
    rooms[i].srv = &srv;
    assert_int_equal(heap_set(&srv.timers, &rooms[i].due, at), 0);
}

/* The sink's commit: the turn's replies are queued, none is written yet. */
static int on_commit(void *ctx)
{
    (void)ctx;
    commits++;
    if (reply_fd >= 0) {
        char b;
        assert_int_equal(recv(reply_fd, &b, 1, MSG_DONTWAIT), -1);
        assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
        int queued = 0;
        for (queue_t *q = queue_head(&srv.conns); q != &srv.conns; q = queue_next(q))
            queued += conn_out_waiting(queue_data(q, conn_t, node)) > 0;
        assert_true(queued > 0);
    }
    return 0;
}

static const durable_backend_t recorder = {.name = "recorder", .commit = on_commit};

/* ------------------------------------------------------------------------ */
/* A server on loopback, its clients                                        */
/* ------------------------------------------------------------------------ */

static int port;

/* Run the loop until cond() holds (a real-time bound, for a broken build only). */
static void run_until(bool (*cond)(void *), void *arg)
{
    uint64_t give_up = uv_hrtime() + 10ull * 1000000000;
    while (!cond(arg)) {
        assert_true(uv_hrtime() < give_up);
        uv_run(srv.loop, UV_RUN_NOWAIT);
    }
}

static bool has_conns(void *n)
{
    return srv.nconns >= *(int *)n;
}

/* A client: its blocking socket, and the server's connection for it. */
typedef struct client {
    int fd;
    conn_t *conn;
} client_t;

/* The two clients every test starts with (setup), A connected first. */
static client_t A, B;

static void client_connect(client_t *cl)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    int want = srv.nconns + 1;
    run_until(has_conns, &want);
    cl->fd = fd;
    cl->conn = queue_data(queue_head(&srv.conns), conn_t, node); /* newest first */
}

typedef struct fed {
    conn_t *c;
    uint64_t want;
} fed_t;

static bool has_read(void *arg)
{
    fed_t *f = arg;
    return f->c->frame.fed >= f->want;
}

/* The client writes s, and the server reads it at `us` on the server clock. */
static void send_at(const client_t *cl, const char *s, uint64_t us)
{
    clock_set(&srv.clock, us);
    size_t n = strlen(s);
    assert_int_equal(send(cl->fd, s, n, 0), (ssize_t)n);
    fed_t f = {cl->conn, cl->conn->frame.fed + n};
    run_until(has_read, &f);
}

static int setup(void **state)
{
    (void)state;
    static uv_loop_t loop;
    memset(&srv, 0, sizeof srv);
    memset(rooms, 0, sizeof rooms);
    nevents = commits = 0;
    reply_fd = -1;
    reply_each_line = false;
    big_bytes = 20000;
    held_conn = NULL;
    log_set_level(LOG_ERROR);
    char *argv[] = {"tapisd", "--line-rate", "0", "--conn-rate", "0", NULL};
    assert_int_equal(options_parse(&srv.opts, 5, argv), 0);
    assert_int_equal(uv_loop_init(&loop), 0);
    server_lists_init(&srv, &loop);
    clock_set(&srv.clock, 0);
    srv.conn_hooks = &hooks;
    durable_add(&srv.durable, &recorder, NULL);
    sched_init(&srv);
    uv_check_stop(&srv.check);     /* a turn runs when the test says */
    uv_prepare_stop(&srv.prepare); /* and so does its commit and write */
    struct sockaddr_in a;
    uv_ip4_addr("127.0.0.1", 0, &a);
    uv_tcp_init(&loop, &srv.listener);
    srv.listener.data = &srv;
    assert_int_equal(uv_tcp_bind(&srv.listener, (struct sockaddr *)&a, 0), 0);
    assert_int_equal(uv_listen((uv_stream_t *)&srv.listener, 16, conn_on_connection), 0);
    int n = sizeof a;
    uv_tcp_getsockname(&srv.listener, (struct sockaddr *)&a, &n);
    port = ntohs(a.sin_port);
    client_connect(&A);
    client_connect(&B);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    close(A.fd);
    close(B.fd);
    while (!queue_empty(&srv.conns))
        conn_close(queue_data(queue_head(&srv.conns), conn_t, node), "test over");
    uv_close((uv_handle_t *)&srv.listener, NULL);
    sched_close(&srv);
    uv_run(srv.loop, UV_RUN_DEFAULT);
    conn_free_all(&srv);
    assert_int_equal(uv_loop_close(srv.loop), 0);
    return 0;
}

static void assert_event(int i, const char *what, uint64_t at)
{
    assert_true(i < nevents);
    assert_string_equal(events[i].what, what);
    assert_int_equal(events[i].at, at);
}

/* The events from `from` on are exactly the NULL-ended pairs (what, at as an int)
   that follow, in that order. */
static void assert_events(int from, ...)
{
    va_list ap;
    va_start(ap, from);
    int i = from;
    for (const char *what; (what = va_arg(ap, const char *)); i++)
        assert_event(i, what, (uint64_t)va_arg(ap, int));
    va_end(ap);
    assert_int_equal(nevents, i);
}

/* ------------------------------------------------------------------------ */
/* Tests                                                                    */
/* ------------------------------------------------------------------------ */

/*
 * A reads at 100 and 300, B at 200, deadlines at 150, 250, 300 and 2000:
 * one turn at 1000 applies them by time (A's second line does not follow
 * its first), the line before the deadline of the same µs, and leaves the
 * deadline still to come.
 */
static void lines_and_deadlines_go_in_time_order(void **state)
{
    (void)state;
    send_at(&A, "a1\n", 100);
    send_at(&B, "b1\n", 200);
    send_at(&A, "a2\n", 300);
    add_deadline(0, 300);
    add_deadline(1, 250);
    add_deadline(2, 150);
    add_deadline(3, 2000);
    clock_set(&srv.clock, 1000);
    sched_turn(&srv);
    /* at 300, the line first */
    assert_events(0, "a1", 100, "room 2", 150, "b1", 200, "room 1", 250, "a2", 300, "room 0", 300,
                  NULL);
    assert_int_equal(commits, 1);
    assert_true(heap_contains(&rooms[3].due));
    clock_set(&srv.clock, 1999);
    sched_turn(&srv);
    assert_int_equal(nevents, 6); /* 1 µs before: not due */
    clock_set(&srv.clock, 2000);
    sched_turn(&srv);
    assert_events(6, "room 3", 2000, NULL);
}

/* Lines read in one callback share its stamp; a later read is later, even
   when B's line arrives between A's two reads. */
static void a_line_takes_the_stamp_of_the_read_that_ended_it(void **state)
{
    (void)state;
    send_at(&A, "x1\nx2\nx", 10);
    send_at(&B, "y1\n", 20);
    send_at(&A, "3\n", 30);
    sched_turn(&srv);
    assert_events(0, "x1", 10, "x2", 10, "y1", 20, "x3", 30, NULL); /* x3's "\n" came at 30 */
}

/* 40 lines of A at 100, one of B at 200: a turn takes 32 of A and ends
   there (A's 33rd is the earliest work, and nothing may pass it); the next
   turn takes A's last 8, then B's. */
static void a_connection_gets_32_lines_a_turn_and_no_one_overtakes(void **state)
{
    (void)state;
    char burst[40 * 4 + 1] = "";
    for (int i = 0; i < 40; i++)
        snprintf(burst + strlen(burst), sizeof burst - strlen(burst), "%02d\n", i);
    send_at(&A, burst, 100);
    send_at(&B, "b\n", 200);
    sched_turn(&srv);
    assert_int_equal(nevents, SCHED_CONN_LINES);
    assert_event(SCHED_CONN_LINES - 1, "31", 100);
    sched_turn(&srv);
    assert_int_equal(nevents, 41);
    assert_event(39, "39", 100);
    assert_event(40, "b", 200);
    assert_true(events[39].turn == events[40].turn && events[39].turn == events[32].turn);
    assert_int_equal(commits, 2);
}

/*
 * test_races.py's backlog, at set times: A has 2,000 lines waiting (read
 * at 100) when B's claim is read at 200, then A's take at 300. The take
 * carries the stamp of its own read, not of A's oldest waiting line, so
 * B's claim goes first, however many turns A's backlog takes.
 */
static void a_backlog_cannot_overtake_an_earlier_line(void **state)
{
    (void)state;
    static char backlog[2000 * 2 + 1];
    for (int i = 0; i < 2000; i++)
        memcpy(backlog + 2 * i, "s\n", 2);
    send_at(&A, backlog, 100);
    sched_turn(&srv); /* a first turn takes some of it */
    send_at(&B, "claim\n", 200);
    send_at(&A, "take\n", 300);
    for (int turns = 0; heap_min(&srv.ready); turns++) {
        assert_true(turns < 2000);
        sched_turn(&srv);
    }
    assert_int_equal(nevents, 2002);
    for (int i = 0; i < 2000; i++)
        assert_event(i, "s", 100);
    assert_event(2000, "claim", 200);
    assert_event(2001, "take", 300);
}

/*
 * 1,100 deadlines due: a turn does at most SCHED_TURN_BUDGET units (exactly
 * that many when it took less than its 1 ms of real time, fewer only when
 * it ran out of time), and the turns that follow run the rest in order.
 */
static void a_turn_does_at_most_its_budget(void **state)
{
    (void)state;
    for (int i = 0; i < NROOMS; i++)
        add_deadline(i, 1000 + (uint64_t)i);
    clock_set(&srv.clock, 5000);
    uint64_t t0 = uv_hrtime();
    sched_turn(&srv);
    uint64_t took = uv_hrtime() - t0;
    assert_true(nevents >= 8 && nevents <= SCHED_TURN_BUDGET);
    if (took < SCHED_TURN_NS) assert_int_equal(nevents, SCHED_TURN_BUDGET);
    int turns = 1;
    while (nevents < NROOMS) {
        int before = nevents;
        sched_turn(&srv);
        assert_true(nevents > before && nevents - before <= SCHED_TURN_BUDGET);
        assert_true(++turns <= NROOMS / 8 + 1);
    }
    for (int i = 0; i < NROOMS; i++)
        assert_int_equal(events[i].at, 1000 + (uint64_t)i);
    assert_int_equal(commits, turns);
}

/* The turn's replies are written after its one commit, not before. */
/* Nothing is waiting for cl. */
static void assert_nothing_for(const client_t *cl)
{
    char b;
    uv_run(srv.loop, UV_RUN_NOWAIT);
    assert_int_equal(recv(cl->fd, &b, 1, MSG_DONTWAIT), -1);
}

/* The client reads exactly want[0, len) (the loop runs meanwhile: the writes may be queued). */
static void assert_received_n(const client_t *cl, const char *want, size_t len)
{
    char *got = malloc(len + 1);
    assert_non_null(got);
    size_t n = 0;
    uint64_t give_up = uv_hrtime() + 30ull * 1000000000;
    while (n < len) {
        assert_true(uv_hrtime() < give_up);
        uv_run(srv.loop, UV_RUN_NOWAIT);
        ssize_t k = recv(cl->fd, got + n, len - n, MSG_DONTWAIT);
        if (k > 0) n += (size_t)k;
    }
    assert_memory_equal(got, want, len);
    free(got);
    assert_nothing_for(cl);
}

static void assert_received(const client_t *cl, const char *want)
{
    assert_received_n(cl, want, strlen(want));
}

static void the_commit_comes_before_any_output(void **state)
{
    (void)state;
    reply_each_line = true;
    reply_fd = A.fd;
    send_at(&A, "ping\nping\n", 100);
    sched_turn(&srv);
    assert_int_equal(commits, 1); /* on_commit saw the replies queued, unwritten */
    assert_received(&A, "ping\nping\n");
}

/* A and B past hello: they have a session (only its presence counts). */
static void sessions_for_a_and_b(void)
{
    static char session;
    A.conn->session = B.conn->session = (void *)&session;
}

/* The server takes --ping-interval 100 at `at` (set clock, µs), as its ping tick does. */
static void pings_every_100_ms(uint64_t at)
{
    srv.opts.ping_interval = 100;
    clock_set(&srv.clock, at);
    rtt_ping_all(&srv, RTT_LATE_US, RTT_TICK_PINGS);
}

/* The ping tick at `at`. */
static void ping_tick_at(uint64_t at)
{
    clock_set(&srv.clock, at);
    rtt_ping_all(&srv, RTT_LATE_US, RTT_TICK_PINGS);
    sched_turn(&srv);
}

/*
 * A ping goes out with the connection's own output, as it is due: A's and
 * B's first lines are answered, and their first pings follow the answers in
 * the same writes. Then B is silent: the tick pings it once it has been due
 * 100 ms (at 203,000, not 1 µs before), and leaves A, due 48 ms ago, for
 * A's own next output. So pings spread over the connections' own writes
 * instead of leaving in a burst at each tick.
 */
static void a_ping_rides_the_connections_output(void **state)
{
    (void)state;
    reply_each_line = true;
    pings_every_100_ms(0);
    sessions_for_a_and_b();
    send_at(&A, "a1\n", 2000);
    sched_turn(&srv);
    assert_received(&A, "a1\n{\"ev\":\"ping\",\"n\":1}\n");
    send_at(&B, "b1\n", 3000);
    sched_turn(&srv);
    assert_received(&B, "b1\n{\"ev\":\"ping\",\"n\":1}\n");
    ping_tick_at(150000); /* A due at 102,000, B at 103,000: neither 100 ms ago */
    assert_nothing_for(&A);
    assert_nothing_for(&B);
    send_at(&A, "a2\n", 150001);
    sched_turn(&srv);
    assert_received(&A, "a2\n{\"ev\":\"ping\",\"n\":2}\n");
    ping_tick_at(202999);
    assert_nothing_for(&B);
    ping_tick_at(203000);
    assert_received(&B, "{\"ev\":\"ping\",\"n\":2}\n");
    assert_nothing_for(&A);
    assert_int_equal(A.conn->ping_check_us, 250001);
    assert_int_equal(B.conn->ping_check_us, 303000);
}

/*
 * A tick pings at most its share of the due connections: A and B, past
 * hello and silent when the interval is taken (at the start, or a reload),
 * are both due at once; a tick allowed one pings one, the next the other,
 * and a third finds nobody due.
 */
static void a_tick_pings_at_most_its_share(void **state)
{
    (void)state;
    sessions_for_a_and_b();
    srv.opts.ping_interval = 100;
    clock_set(&srv.clock, 200000);
    for (int tick = 0; tick < 3; tick++) {
        rtt_ping_all(&srv, RTT_LATE_US, 1);
        sched_turn(&srv);
        uint64_t pinged = A.conn->rtt.next_n + B.conn->rtt.next_n;
        assert_int_equal(pinged, tick < 2 ? tick + 1 : 2);
    }
    assert_received(&A, "{\"ev\":\"ping\",\"n\":1}\n");
    assert_received(&B, "{\"ev\":\"ping\",\"n\":1}\n");
}

/*
 * A race holds A's lines 145 ms (its player is near: the room's hold less
 * its credit): A's line read at 100 waits until 145,100 and is not taken
 * before, B's read at 20,000 is taken first, and a deadline between them
 * runs between them. What follows A's held line waits behind it.
 */
static void a_held_line_is_taken_at_its_key_in_order(void **state)
{
    (void)state;
    held_conn = A.conn;
    held_us = 145000;
    send_at(&A, "a1\n", 100);
    send_at(&B, "b1\n", 20000);
    add_deadline(0, 100000);
    clock_set(&srv.clock, 145099);
    sched_turn(&srv);
    assert_events(0, "b1", 20000, "room 0", 100000, NULL);
    send_at(&A, "a2\n", 145099); /* behind a1, and held too */
    clock_set(&srv.clock, 145100);
    sched_turn(&srv);
    assert_events(2, "a1", 100, NULL);
    clock_set(&srv.clock, 145099 + 145000);
    sched_turn(&srv);
    assert_events(3, "a2", 145099, NULL);
}

/*
 * A read stamped before work already taken (a kernel receive stamp of bytes
 * that came between the loop's poll and its turn, read only at the next
 * poll; here the set clock goes back) takes the time of that work: the
 * game never sees a line older than one it has applied. A's line at 500
 * is taken; B's, stamped 300 after it, goes at 500, and so does A's next.
 */
static void no_read_is_stamped_before_work_already_taken(void **state)
{
    (void)state;
    send_at(&A, "a1\n", 500);
    sched_turn(&srv);
    assert_events(0, "a1", 500, NULL);
    send_at(&B, "b1\n", 300);
    send_at(&A, "a2\n", 400);
    clock_set(&srv.clock, 600);
    sched_turn(&srv);
    assert_events(1, "b1", 500, "a2", 500, NULL);
}

/*
 * The process stalls between its poll and its turn (off its core for 20
 * ms): A's held line, due at 15,100, and a deadline at 12,000 fell due
 * meanwhile, but B's bytes reached the kernel during the stall, at 10,000,
 * and are read only at the next poll. The turn after the stall takes
 * neither (they are due after the poll plus its slack): B's line is read
 * next, with its kernel stamp (here the set clock goes back to it), and
 * goes first. Without the wait, A's line and the deadline would have gone
 * first, and B's stamp been raised to theirs (the test above).
 */
static void a_stall_after_the_poll_does_not_let_due_work_pass_unread_bytes(void **state)
{
    (void)state;
    held_conn = A.conn;
    held_us = 15000;
    send_at(&A, "a1\n", 100);
    add_deadline(0, 12000);
    clock_set(&srv.clock, 1000); /* the poll returns at 1,000 */
    clock_stall(&srv.clock, 20000);
    sched_turn(&srv);
    assert_int_equal(nevents, 0);
    assert_int_equal(srv.metrics.turns_after_stall, 1);
    send_at(&B, "b1\n", 10000); /* the next poll reads it */
    clock_set(&srv.clock, 21000);
    sched_turn(&srv);
    assert_events(0, "b1", 10000, "room 0", 12000, "a1", 100, NULL);
    assert_int_equal(srv.metrics.turns_after_stall, 1);
    /* Within the slack, a turn after its poll takes what is due by then. */
    add_deadline(1, 30000);
    clock_set(&srv.clock, 30000 - SCHED_POLL_SLACK_US);
    clock_stall(&srv.clock, SCHED_POLL_SLACK_US);
    sched_turn(&srv);
    assert_events(3, "room 1", 30000, NULL);
    assert_int_equal(srv.metrics.turns_after_stall, 1);
}

/* Turns until no line waits (the clock stays: every line read is due). */
static void turns_until_no_line(void)
{
    while (heap_min_key(&srv.ready) != UINT64_MAX)
        sched_turn(&srv);
}

/* want (of cap bytes) with s appended, then a line of n bytes c if n > 0. */
static size_t expect(char *want, size_t at, size_t cap, const char *s, size_t n, char c)
{
    size_t k = strlen(s);
    assert_true(at + k + n + 1 <= cap);
    memcpy(want + at, s, k);
    at += k;
    if (n) {
        memset(want + at, c, n);
        want[at + n] = '\n';
        at += n + 1;
    }
    return at;
}

/*
 * The replies to A and B interleave in one turn, so A's output lies in the
 * turn's shared buffer in more pieces than a connection keeps (conn.c,
 * "Output"), and one of its replies is larger than a piece may be: each
 * connection still gets exactly its own bytes, in order.
 */
static void interleaved_output_reaches_each_connection_whole_and_in_order(void **state)
{
    (void)state;
    reply_each_line = true;
    enum { CAP = 64 * 1024 };
    static char want_a[CAP], want_b[CAP];
    size_t na = 0, nb = 0;
    char line[16];
    for (int i = 0; i < 10; i++) {
        snprintf(line, sizeof line, "a%d\n", i);
        send_at(&A, line, 100 + 2 * (uint64_t)i);
        na = expect(want_a, na, CAP, line, 0, 0);
        snprintf(line, sizeof line, "b%d\n", i);
        send_at(&B, line, 101 + 2 * (uint64_t)i);
        nb = expect(want_b, nb, CAP, line, 0, 0);
        if (i == 6) {
            send_at(&A, "bigQ\n", 101 + 2 * (uint64_t)i);
            na = expect(want_a, na, CAP, "", big_bytes, 'Q');
        }
    }
    turns_until_no_line();
    assert_received_n(&A, want_a, na);
    assert_received_n(&B, want_b, nb);
}

/*
 * A stops reading while the server answers it with megabytes: the kernel
 * takes part of a write, the rest waits in A's own buffer, and what follows
 * queues behind it. Once A reads again it gets every byte, in order, while
 * B, answered in the same turns, gets its own at once.
 */
static void output_the_kernel_does_not_take_follows_in_order(void **state)
{
    (void)state;
    reply_each_line = true;
    big_bytes = 8000;            /* in the turn's buffer (a piece: up to 16 KiB) */
    srv.opts.out_cap = 64 << 20; /* no slow-reader drop here */
    int sndbuf = 32 * 1024;      /* the kernel takes a part of each write */
    assert_int_equal(uv_send_buffer_size((uv_handle_t *)&A.conn->tcp, &sndbuf), 0);
    enum { LINES = 400, CAP = LINES * 8001 + 64 };
    char *want_a = malloc(CAP);
    assert_non_null(want_a);
    size_t na = 0;
    char line[16];
    uint64_t at = 100;
    for (int i = 0; i < LINES; i++) {
        snprintf(line, sizeof line, "big%c", 'A' + i % 26);
        na = expect(want_a, na, CAP, "", big_bytes, line[3]);
        strcat(line, "\n");
        send_at(&A, line, at++);
        if (i % 20 == 19) { /* B too, between A's lines */
            send_at(&B, "b\n", at++);
            turns_until_no_line();
            assert_received(&B, "b\n");
        }
    }
    turns_until_no_line();
    assert_true(A.conn->out_pending > 0 || A.conn->out.len > 0); /* the kernel took only part */
    assert_received_n(&A, want_a, na);
    free(want_a);
}

#define WITH_SERVER(test) cmocka_unit_test_setup_teardown(test, setup, teardown)

TEST_MAIN(WITH_SERVER(lines_and_deadlines_go_in_time_order),
          WITH_SERVER(a_line_takes_the_stamp_of_the_read_that_ended_it),
          WITH_SERVER(a_connection_gets_32_lines_a_turn_and_no_one_overtakes),
          WITH_SERVER(a_backlog_cannot_overtake_an_earlier_line),
          WITH_SERVER(a_turn_does_at_most_its_budget),
          WITH_SERVER(the_commit_comes_before_any_output),
          WITH_SERVER(interleaved_output_reaches_each_connection_whole_and_in_order),
          WITH_SERVER(output_the_kernel_does_not_take_follows_in_order),
          WITH_SERVER(a_held_line_is_taken_at_its_key_in_order),
          WITH_SERVER(no_read_is_stamped_before_work_already_taken),
          WITH_SERVER(a_stall_after_the_poll_does_not_let_due_work_pass_unread_bytes),
          WITH_SERVER(a_ping_rides_the_connections_output),
          WITH_SERVER(a_tick_pings_at_most_its_share))
