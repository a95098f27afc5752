/*
 * test_http.c — the metrics responder (server/metrics/http.h) over real sockets.
 *
 * Each test runs http_start() on 127.0.0.1, port 0, on its own loop in the
 * main thread, while a client thread drives it with blocking sockets and
 * records what came back; the client thread then asks the loop (through a
 * uv_async_t) to http_stop(), the loop ends, and the main thread checks the
 * replies. Every test ends with uv_loop_close() == 0: a handle left open or
 * a close callback that never ran fails it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <uv.h>

#include "server/metrics/http.h"
#include "tests/lib/case_group.h"

#define BODY "# HELP tapis_up 1 while tapisd runs.\n# TYPE tapis_up gauge\ntapis_up 1\n"
#define CONTENT_TYPE "Content-Type: text/plain; version=0.0.4; charset=utf-8"
#define BIG_BODY_BYTES (8u << 20) /* more than the socket buffers hold */
#define MAX_CASES 32

/* ------------------------------------------------------------------------ */
/* The fixture: a loop with the server, a client thread                     */
/* ------------------------------------------------------------------------ */

typedef struct reply {
    char data[32768]; /* the first bytes of the answer, NUL-terminated */
    size_t len;
    size_t total;   /* bytes received, kept or not */
    bool closed;    /* the server closed (EOF or reset) before the receive timeout */
    double ms;      /* from the start of receiving to the close */
    double sent_ms; /* time spent sending */
} reply_t;

/* One request: its bytes, and how to send them. */
typedef struct request_case {
    const char *name;
    const char *bytes;
    size_t len;
    bool trickle;    /* one byte at a time */
    bool half_close; /* shut down our side once sent */
    int status;      /* in the catalogue: the status it must get */
} request_case_t;

#define CASE(name, lit)                                                                            \
    {                                                                                              \
        name, lit, sizeof lit - 1, false, false, 0                                                 \
    }
/* A row of the catalogue: a request and the status it must get. */
#define ROW(status, name, lit)                                                                     \
    {                                                                                              \
        name, lit, sizeof lit - 1, false, false, status                                            \
    }
#define ROW_SENT(status, name, lit, trickle, half_close)                                           \
    {                                                                                              \
        name, lit, sizeof lit - 1, trickle, half_close, status                                     \
    }

typedef struct fixture fixture_t;

struct fixture {
    uv_loop_t loop;
    uv_async_t stop;
    bool stop_sent;
    http_server_t *http;
    int port;
    void (*scenario)(fixture_t *f);
    const request_case_t *cases;
    int ncases;
    int renders;
    bool render_fails;
    bool big_body;
    reply_t replies[MAX_CASES];
};

static int render(void *data, buf_t *body)
{
    fixture_t *f = data;
    f->renders++;
    if (f->render_fails) return -1;
    if (!f->big_body) return buf_puts(body, BODY);
    if (buf_reserve(body, BIG_BODY_BYTES) < 0) return -1;
    memset(buf_end(body), 'x', BIG_BODY_BYTES);
    buf_commit(body, BIG_BODY_BYTES);
    return 0;
}

static void on_stop(uv_async_t *a)
{
    fixture_t *f = a->data;
    http_stop(f->http);
    uv_close((uv_handle_t *)a, NULL);
}

/* From the client thread: stop the server; the loop ends once everything is closed. */
static void stop_server(fixture_t *f)
{
    f->stop_sent = true;
    uv_async_send(&f->stop);
}

static void client_thread(void *arg)
{
    fixture_t *f = arg;
    f->scenario(f);
    if (!f->stop_sent) stop_server(f);
}

static double ms_since(uint64_t t0)
{
    return (double)(uv_hrtime() - t0) / 1e6;
}

/* A fixture whose scenario will send `cases` (NULL, 0 for scenarios of their own). */
static fixture_t *fixture(const request_case_t *cases, int ncases)
{
    fixture_t *f = calloc(1, sizeof *f);
    assert_non_null(f);
    assert_true(ncases <= MAX_CASES);
    f->cases = cases;
    f->ncases = ncases;
    return f;
}

/* Run the scenario against a fresh server (deadline_ms 0: the default) until it stopped. */
static void run(fixture_t *f, void (*scenario)(fixture_t *), uint64_t deadline_ms)
{
    f->scenario = scenario;
    assert_int_equal(uv_loop_init(&f->loop), 0);
    assert_int_equal(http_start(&f->http, &f->loop, "127.0.0.1", 0, render, f), 0);
    if (deadline_ms) http_set_deadline(f->http, deadline_ms);
    f->port = http_port(f->http);
    assert_true(f->port > 0);
    f->stop.data = f;
    assert_int_equal(uv_async_init(&f->loop, &f->stop, on_stop), 0);
    uv_thread_t t;
    assert_int_equal(uv_thread_create(&t, client_thread, f), 0);
    assert_int_equal(uv_run(&f->loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(uv_thread_join(&t), 0);
    assert_int_equal(uv_loop_close(&f->loop), 0);
}

/* ------------------------------------------------------------------------ */
/* Client side (runs in the client thread: no assertions here)              */
/* ------------------------------------------------------------------------ */

static int dial(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    struct timeval tv = {3, 0}; /* a server that never closes fails the test, not hangs it */
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Returns false once the server refuses more bytes (it closed). */
static bool send_bytes(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        p += k;
        n -= (size_t)k;
    }
    return true;
}

/* Read until the server closes (or 3 s pass without a byte). */
static void receive(int fd, reply_t *r)
{
    uint64_t t0 = uv_hrtime();
    char scratch[65536];
    for (;;) {
        ssize_t k = recv(fd, scratch, sizeof scratch, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            r->closed = k == 0 || errno == ECONNRESET;
            break;
        }
        size_t keep = sizeof r->data - 1 - r->len;
        if (keep > (size_t)k) keep = (size_t)k;
        memcpy(r->data + r->len, scratch, keep);
        r->len += keep;
        r->total += (size_t)k;
    }
    r->data[r->len] = 0;
    r->ms = ms_since(t0);
}

static void send_case(int fd, const request_case_t *c, reply_t *r)
{
    uint64_t t0 = uv_hrtime();
    if (c->trickle) {
        for (size_t i = 0; i < c->len; i++) {
            if (!send_bytes(fd, c->bytes + i, 1)) break;
            usleep(1000);
        }
    } else {
        send_bytes(fd, c->bytes, c->len);
    }
    if (c->half_close) shutdown(fd, SHUT_WR);
    r->sent_ms = ms_since(t0);
}

/* One request on its own connection, and the answer until the server closes. */
static void exchange(int port, const request_case_t *c, reply_t *r)
{
    int fd = dial(port);
    if (fd < 0) return; /* the reply stays empty: the test fails */
    send_case(fd, c, r);
    receive(fd, r);
    close(fd);
}

/* The scenario of most tests: each case in turn. */
static void send_cases(fixture_t *f)
{
    for (int i = 0; i < f->ncases; i++)
        exchange(f->port, &f->cases[i], &f->replies[i]);
}

/* ------------------------------------------------------------------------ */
/* Checking replies (main thread)                                           */
/* ------------------------------------------------------------------------ */

static int status_of(const reply_t *r)
{
    if (r->len < 12 || memcmp(r->data, "HTTP/1.1 ", 9) != 0) return -1;
    return atoi(r->data + 9);
}

/* The body, or NULL when the head never ended. */
static const char *body_of(const reply_t *r)
{
    const char *end = strstr(r->data, "\r\n\r\n");
    return end ? end + 4 : NULL;
}

/* True if the head of r has the header line `line` (exactly). */
static bool has_header(const reply_t *r, const char *line)
{
    const char *body = body_of(r);
    char want[256];
    snprintf(want, sizeof want, "\r\n%s\r\n", line);
    const char *at = strstr(r->data, want);
    return at && body && at < body;
}

/* Every case got `status`, a closed connection and a one-line text body (unless HEAD). */
static void assert_all_status(const fixture_t *f, int status)
{
    for (int i = 0; i < f->ncases; i++) {
        const reply_t *r = &f->replies[i];
        if (status_of(r) != status || !r->closed)
            fail_msg("case '%s': status %d (closed %d), want %d; got:\n%s", f->cases[i].name,
                     status_of(r), r->closed, status, r->data);
        assert_true(has_header(r, "Connection: close"));
        assert_true(has_header(r, "Content-Type: text/plain; charset=utf-8"));
        const char *body = body_of(r);
        assert_non_null(body);
        if (strncmp(f->cases[i].bytes, "HEAD ", 5) == 0) {
            assert_string_equal(body, "");
            continue;
        }
        char cl[64];
        snprintf(cl, sizeof cl, "Content-Length: %zu", strlen(body));
        assert_true(has_header(r, cl));
        assert_true(strlen(body) > 1 && strchr(body, '\n') == body + strlen(body) - 1);
    }
}

static void assert_metrics(const fixture_t *f, int i, bool head)
{
    const reply_t *r = &f->replies[i];
    if (status_of(r) != 200 || !r->closed)
        fail_msg("case '%s': status %d (closed %d), want 200; got:\n%s", f->cases[i].name,
                 status_of(r), r->closed, r->data);
    assert_true(has_header(r, CONTENT_TYPE));
    char cl[64];
    snprintf(cl, sizeof cl, "Content-Length: %zu", strlen(BODY));
    assert_true(has_header(r, cl));
    assert_true(has_header(r, "Connection: close"));
    assert_non_null(body_of(r));
    assert_string_equal(body_of(r), head ? "" : BODY);
}

/* The replies to the cases, each sent on its own connection to a fresh server. */
static fixture_t *served(const request_case_t *cases, int ncases)
{
    fixture_t *f = fixture(cases, ncases);
    run(f, send_cases, 0);
    return f;
}

/* Every case refused with `status` (assert_all_status), the body never rendered. */
static fixture_t *all_refused(const request_case_t *cases, int ncases, int status)
{
    fixture_t *f = served(cases, ncases);
    assert_all_status(f, status);
    assert_int_equal(f->renders, 0);
    return f;
}

/* ------------------------------------------------------------------------ */
/* Tests                                                                    */
/* ------------------------------------------------------------------------ */

/*
 * The catalogue of requests, one trouble per line, each sent on its own
 * connection to a fresh server: 200, the metrics (every way of asking for
 * them, HEAD without the body); 404, a path other than /metrics; 405, another method on /metrics
 * (with Allow); 400, a malformed request. A refused one is never rendered.
 */
static const request_case_t catalogue[] = {
    ROW(200, "plain GET", "GET /metrics HTTP/1.1\r\nHost: localhost\r\nAccept: */*\r\n\r\n"),
    ROW(200, "HEAD", "HEAD /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n"),
    ROW(200, "HTTP/1.0, bare LF", "GET /metrics HTTP/1.0\n\n"),
    ROW(200, "query string", "GET /metrics?name[]=tapis_up&x=%20 HTTP/1.1\r\nHost: a\r\n\r\n"),
    ROW(200, "empty query", "GET /metrics? HTTP/1.1\r\n\r\n"),
    ROW(200, "absolute form", "GET http://localhost:9100/metrics HTTP/1.1\r\n\r\n"),
    ROW(200, "empty lines first", "\r\n\n\r\nGET /metrics HTTP/1.1\r\n\r\n"),
    ROW(200, "Content-Length 0", "GET /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n"),
    ROW(200, "header without value, tabs", "GET /metrics HTTP/1.1\r\nX-Empty:\r\nY:\tv \t\r\n\r\n"),
    ROW(200, "bytes after the head", "GET /metrics HTTP/1.1\r\n\r\nGET /other HTTP/1.1\r\n\r\n"),
    ROW_SENT(200, "one byte at a time", "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", true, false),
    ROW_SENT(200, "half-closed after the request", "GET /metrics HTTP/1.1\r\n\r\n", false, true),

    ROW(404, "root", "GET / HTTP/1.1\r\n\r\n"),
    ROW(404, "trailing slash", "GET /metrics/ HTTP/1.1\r\n\r\n"),
    ROW(404, "longer name", "GET /metricsx HTTP/1.1\r\n\r\n"),
    ROW(404, "case differs", "GET /Metrics HTTP/1.1\r\n\r\n"),
    ROW(404, "fragment", "GET /metrics#x HTTP/1.1\r\n\r\n"),
    ROW(404, "relative", "GET metrics HTTP/1.1\r\n\r\n"),
    ROW(404, "asterisk", "OPTIONS * HTTP/1.1\r\n\r\n"),
    ROW(404, "absolute form, no path", "GET http://localhost HTTP/1.1\r\n\r\n"),
    ROW(404, "POST elsewhere", "POST /x HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"),
    ROW(404, "HEAD elsewhere", "HEAD /x HTTP/1.1\r\n\r\n"),

    ROW(405, "POST with a body", "POST /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello"),
    ROW(405, "PUT chunked", "PUT /metrics HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
    ROW(405, "DELETE", "DELETE /metrics HTTP/1.1\r\n\r\n"),
    ROW(405, "lower-case get", "get /metrics HTTP/1.1\r\n\r\n"),
    ROW(405, "OPTIONS", "OPTIONS /metrics?x HTTP/1.0\r\n\r\n"),

    ROW(400, "no spaces", "garbage\r\n\r\n"),
    ROW(400, "binary", "\x00\x01\x02\xff\r\n\r\n"),
    ROW(400, "HTTP/2.0", "GET /metrics HTTP/2.0\r\n\r\n"),
    ROW(400, "HTTP/0.9 style", "GET /metrics\r\n\r\n"),
    ROW(400, "lower-case version", "GET /metrics http/1.1\r\n\r\n"),
    ROW(400, "version with a tail", "GET /metrics HTTP/1.10\r\n\r\n"),
    ROW(400, "trailing space", "GET /metrics HTTP/1.1 \r\n\r\n"),
    ROW(400, "double space", "GET  /metrics HTTP/1.1\r\n\r\n"),
    ROW(400, "leading space", " GET /metrics HTTP/1.1\r\n\r\n"),
    ROW(400, "tab as separator", "GET\t/metrics HTTP/1.1\r\n\r\n"),
    ROW(400, "control byte in target", "GET /met\x01rics HTTP/1.1\r\n\r\n"),
    ROW(400, "non-ASCII target", "GET /m\xc3\xa9trics HTTP/1.1\r\n\r\n"),
    ROW(400, "non-token method", "G\xc3\x89T /metrics HTTP/1.1\r\n\r\n"),
    ROW(400, "bare CR in request line", "GET /metrics HTTP/1.1\rX\r\n\r\n"),
    ROW(400, "NUL in request line", "GET /metrics\0 HTTP/1.1\r\n\r\n"),
    ROW(400, "header without colon", "GET /metrics HTTP/1.1\r\nHost localhost\r\n\r\n"),
    ROW(400, "empty header name", "GET /metrics HTTP/1.1\r\n: x\r\n\r\n"),
    ROW(400, "space before colon", "GET /metrics HTTP/1.1\r\nHost : x\r\n\r\n"),
    ROW(400, "obs-fold", "GET /metrics HTTP/1.1\r\nX: a\r\n b\r\n\r\n"),
    ROW(400, "NUL in header value", "GET /metrics HTTP/1.1\r\nX: a\0b\r\n\r\n"),
    ROW(400, "bare CR in header value", "GET /metrics HTTP/1.1\r\nX: a\rb\r\n\r\n"),
    ROW(400, "GET with a body", "GET /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello"),
    ROW(400, "GET chunked", "GET /metrics HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
    ROW(400, "bad Content-Length", "GET /metrics HTTP/1.1\r\nContent-Length: -1\r\n\r\n"),
    ROW(400, "empty Content-Length", "GET /metrics HTTP/1.1\r\nContent-Length:\r\n\r\n"),
    ROW(400, "HEAD with a body", "HEAD /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"),
};

/* One row of the catalogue: the status it lists, and what goes with that status. */
static void request_gets_its_status(void **state)
{
    const request_case_t *c = *state;
    if (c->status == 200) {
        bool head = strncmp(c->bytes, "HEAD ", 5) == 0;
        fixture_t *f = served(c, 1);
        assert_metrics(f, 0, head);
        assert_true(strncmp(f->replies[0].data, "HTTP/1.1 200 OK\r\n", 17) == 0);
        assert_int_equal(f->renders, 1);
        if (head) assert_int_equal(f->replies[0].total, f->replies[0].len);
        free(f);
        return;
    }
    fixture_t *f = all_refused(c, 1, c->status);
    if (c->status == 405) assert_true(has_header(&f->replies[0], "Allow: GET, HEAD"));
    free(f);
}

/* A head of `len` bytes: a GET of /metrics padded with one long header. */
static char *padded_head(size_t len)
{
    static const char start[] = "GET /metrics HTTP/1.1\r\nX-Pad: ";
    char *s = malloc(len + 1);
    assert_non_null(s);
    size_t k = sizeof start - 1;
    memcpy(s, start, k);
    memset(s + k, 'a', len - k - 4);
    memcpy(s + len - 4, "\r\n\r\n", 5);
    return s;
}

static void head_over_the_cap_gets_431_and_at_the_cap_is_served(void **state)
{
    (void)state;
    char *at_cap = padded_head(HTTP_HEAD_MAX);
    char *over = padded_head(HTTP_HEAD_MAX + 1);
    char *far_over = padded_head(4 * HTTP_HEAD_MAX);
    const request_case_t cases[] = {
        {"head at the cap", at_cap, HTTP_HEAD_MAX, false, false, 0},
        {"one byte over", over, HTTP_HEAD_MAX + 1, false, false, 0},
        {"far over, sent whole", far_over, 4 * HTTP_HEAD_MAX, false, false, 0},
    };
    fixture_t *f = served(cases, 3);
    assert_metrics(f, 0, false);
    for (int i = 1; i < 3; i++) {
        if (status_of(&f->replies[i]) != 431 || !f->replies[i].closed)
            fail_msg("case '%s': status %d, want 431", cases[i].name, status_of(&f->replies[i]));
        assert_true(has_header(&f->replies[i], "Connection: close"));
    }
    free(at_cap);
    free(over);
    free(far_over);
    free(f);
}

static const request_case_t get_case = CASE("GET", "GET /metrics HTTP/1.1\r\n\r\n");

static void render_failure_gets_500(void **state)
{
    (void)state;
    fixture_t *f = fixture(&get_case, 1);
    f->render_fails = true;
    run(f, send_cases, 0);
    const reply_t *r = &f->replies[0];
    assert_int_equal(status_of(r), 500);
    assert_true(r->closed);
    assert_true(has_header(r, "Connection: close"));
    assert_string_equal(body_of(r), "out of memory\n");
    free(f);
}

#define SLOW_DEADLINE_MS 100

static const request_case_t slow_cases[] = {
    CASE("sends nothing", ""),
    CASE("half a head", "GET /metrics HTTP/1.1\r\nHost: x\r\n"),
};

/* The two slow cases, then a client that trickles a byte every 20 ms for up to 1 s. */
static void slow_clients(fixture_t *f)
{
    send_cases(f);
    int fd = dial(f->port);
    if (fd < 0) return;
    reply_t *r = &f->replies[f->ncases];
    uint64_t t0 = uv_hrtime();
    for (int i = 0; i < 50 && send_bytes(fd, "X", 1); i++)
        usleep(20000);
    r->sent_ms = ms_since(t0);
    receive(fd, r);
    close(fd);
}

static void slow_clients_are_closed_unanswered_after_the_deadline(void **state)
{
    (void)state;
    fixture_t *f = fixture(slow_cases, 2);
    run(f, slow_clients, SLOW_DEADLINE_MS);
    for (int i = 0; i < 2; i++) {
        const reply_t *r = &f->replies[i];
        if (!r->closed || r->len != 0 || r->ms < SLOW_DEADLINE_MS / 2 || r->ms > 1000)
            fail_msg("case '%s': closed %d after %.0f ms with %zu bytes", slow_cases[i].name,
                     r->closed, r->ms, r->len);
    }
    const reply_t *trickler = &f->replies[2];
    if (!trickler->closed || trickler->len != 0 || trickler->sent_ms > 600)
        fail_msg("trickler: closed %d, %zu bytes, sent for %.0f ms", trickler->closed,
                 trickler->len, trickler->sent_ms);
    free(f);
}

/* HTTP_MAX_CLIENTS idle clients; one more is closed at once; a freed slot serves again. */
static void many_clients(fixture_t *f)
{
    int fds[HTTP_MAX_CLIENTS];
    for (int i = 0; i < HTTP_MAX_CLIENTS; i++)
        fds[i] = dial(f->port);
    usleep(100000); /* let the loop accept them all */
    int extra = dial(f->port);
    if (extra >= 0) {
        receive(extra, &f->replies[0]);
        close(extra);
    }
    close(fds[0]);
    usleep(50000);
    exchange(f->port, &get_case, &f->replies[1]);
    for (int i = 1; i < HTTP_MAX_CLIENTS; i++)
        if (fds[i] >= 0) close(fds[i]);
}

static void clients_over_the_cap_are_closed_at_once(void **state)
{
    (void)state;
    fixture_t *f = fixture(NULL, 0);
    run(f, many_clients, 2000);
    const reply_t *extra = &f->replies[0];
    if (!extra->closed || extra->len != 0 || extra->ms > 500)
        fail_msg("client over the cap: closed %d after %.0f ms with %zu bytes", extra->closed,
                 extra->ms, extra->len);
    assert_int_equal(status_of(&f->replies[1]), 200);
    free(f);
}

/*
 * Clients in each state when the server stops: idle, half a head, and one
 * answered with a body larger than the socket buffers that it does not read.
 */
static void stop_with_open_clients(fixture_t *f)
{
    int idle = dial(f->port), partial = dial(f->port), stalled = dial(f->port);
    if (partial >= 0) send_bytes(partial, "GET /metr", 9);
    if (stalled >= 0) send_bytes(stalled, get_case.bytes, get_case.len);
    usleep(100000);
    stop_server(f);
    int fds[3] = {idle, partial, stalled};
    for (int i = 0; i < 3; i++) {
        if (fds[i] < 0) continue;
        receive(fds[i], &f->replies[i]);
        close(fds[i]);
    }
}

static void stop_closes_every_client_and_the_loop_ends(void **state)
{
    (void)state;
    fixture_t *f = fixture(NULL, 0);
    f->big_body = true;
    run(f, stop_with_open_clients, 0); /* the default deadline: only the stop closes them */
    for (int i = 0; i < 3; i++)
        if (!f->replies[i].closed || f->replies[i].ms > 1000)
            fail_msg("client %d: closed %d after %.0f ms", i, f->replies[i].closed,
                     f->replies[i].ms);
    assert_int_equal(f->replies[0].total, 0);
    assert_int_equal(f->replies[1].total, 0);
    assert_int_equal(status_of(&f->replies[2]), 200);
    free(f);
}

static int no_render(void *data, buf_t *body)
{
    (void)data;
    (void)body;
    return -1;
}

static void start_fails_cleanly_on_a_bad_address_or_a_taken_port(void **state)
{
    (void)state;
    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    http_server_t *first, *h = (http_server_t *)&loop;
    assert_int_equal(http_start(&h, &loop, "not-an-address", 0, no_render, NULL), UV_EINVAL);
    assert_null(h);
    assert_int_equal(http_start(&h, &loop, "127.0.0.1", 65536, no_render, NULL), UV_EINVAL);
    assert_int_equal(http_start(&h, &loop, "127.0.0.1", 0, NULL, NULL), UV_EINVAL);
    assert_int_equal(http_start(&first, &loop, "127.0.0.1", 0, no_render, NULL), 0);
    int r = http_start(&h, &loop, "127.0.0.1", http_port(first), no_render, NULL);
    assert_int_equal(r, UV_EADDRINUSE);
    assert_null(h);
    http_stop(first);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(uv_loop_close(&loop), 0);
}

static void listens_on_ipv6_loopback(void **state)
{
    (void)state;
    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    http_server_t *h;
    int r = http_start(&h, &loop, "::1", 0, no_render, NULL);
    if (r == UV_EADDRNOTAVAIL || r == UV_EAFNOSUPPORT) {
        assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
        assert_int_equal(uv_loop_close(&loop), 0);
        skip();
    }
    assert_int_equal(r, 0);
    assert_true(http_port(h) > 0);
    http_stop(h);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(uv_loop_close(&loop), 0);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    int failed = CASE_GROUP_RUN("request_catalogue", request_gets_its_status, catalogue, name);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(head_over_the_cap_gets_431_and_at_the_cap_is_served),
        cmocka_unit_test(render_failure_gets_500),
        cmocka_unit_test(slow_clients_are_closed_unanswered_after_the_deadline),
        cmocka_unit_test(clients_over_the_cap_are_closed_at_once),
        cmocka_unit_test(stop_closes_every_client_and_the_loop_ends),
        cmocka_unit_test(start_fails_cleanly_on_a_bad_address_or_a_taken_port),
        cmocka_unit_test(listens_on_ipv6_loopback),
    };
    return failed + cmocka_run_group_tests(tests, NULL, NULL);
}
