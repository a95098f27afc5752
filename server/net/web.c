/*
 * web.c — the game port's HTTP: sniffing, the request head, the page's
 * files, the WebSocket handshake and its Origin check. See web.h.
 *
 * A file's answer keeps the connection for the next request (a browser
 * fetches a page's dozen files over a few connections, not a dozen, which
 * --conn-rate would count); every refusal closes it once written. A file
 * is read whole, at most the
 * connection's --out-cap less the room of the head, so that its answer can
 * never make the connection a slow reader; the page is far smaller.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server/net/web.h"
#include "server/net/conn.h"
#include "server/net/ws.h"
#include "server/base/log.h"
#include "protocol/http_head.h"

#define WEB_PATH_MAX 256              /* bytes of a file's path below the root */
#define WEB_ANSWER_HEAD 1024          /* room kept under --out-cap for an answer's head */
#define WEB_FILE_HARD_MAX (16u << 20) /* never read more than this, whatever the cap */
#define WEB_MAX_REQUESTS 100          /* on one kept-alive connection; then it closes */

/* The security headers of every answer: the page loads nothing from elsewhere. */
#define WEB_HEADERS                                                                                \
    "Content-Security-Policy: default-src 'self'; base-uri 'none'; form-action 'none'; "           \
    "frame-ancestors 'none'\r\n"                                                                   \
    "X-Content-Type-Options: nosniff\r\n"                                                          \
    "Referrer-Policy: no-referrer\r\n"

struct web_in {
    buf_t head;       /* the bytes read so far */
    http_scan_t scan; /* the search for the head's end */
    bool is_http;     /* the first line was an HTTP request line */
    bool keep;        /* the answer being written keeps the connection for another request */
    int served;       /* requests answered on this connection */
};

int web_start(conn_t *c)
{
    if (!(c->web = tapis_calloc(1, sizeof *c->web))) return -1;
    c->kind = CONN_HTTP;
    return 0;
}

void web_free(web_in_t *w)
{
    if (!w) return;
    buf_free(&w->head);
    tapis_free(w);
}

/* ------------------------------------------------------------------------ */
/* Answers                                                                  */
/* ------------------------------------------------------------------------ */

/*
 * Write the answer (its body left out for a HEAD, its Content-Length kept),
 * then close c once it is written, or keep it for another request when the
 * request was a file's that may keep it (c->web->keep). `extra` is more
 * header lines, each ending in CRLF.
 */
static void answer(conn_t *c, int status, const char *type, const char *extra, const char *body,
                   size_t len, bool head)
{
    bool keep = c->web && c->web->keep;
    char h[WEB_ANSWER_HEAD];
    int n = snprintf(h, sizeof h,
                     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n" WEB_HEADERS
                     "%sConnection: %s\r\n\r\n",
                     status, http_reason(status), type, len, extra, keep ? "keep-alive" : "close");
    log_debug("conn %llu: HTTP %d", (unsigned long long)c->id, status);
    metrics_http(&c->srv->metrics, status);
    if (n < 0 || (size_t)n >= sizeof h || conn__write_raw(c, h, (size_t)n) < 0 ||
        (!head && len && conn__write_raw(c, body, len) < 0))
        return; /* c is doomed: it closes */
    if (keep)
        conn__wait_request(c);
    else
        conn_close_after_flush(c, "HTTP answered");
}

static void answer_text(conn_t *c, int status, const char *text, const char *extra, bool head)
{
    answer(c, status, "text/plain; charset=utf-8", extra, text, strlen(text), head);
}

/* ------------------------------------------------------------------------ */
/* Files                                                                    */
/* ------------------------------------------------------------------------ */

const char *web_content_type(const char *name)
{
    static const struct {
        const char *ext, *type;
    } types[] = {
        {"html", "text/html; charset=utf-8"},
        {"js", "text/javascript; charset=utf-8"},
        {"mjs", "text/javascript; charset=utf-8"},
        {"css", "text/css; charset=utf-8"},
        {"svg", "image/svg+xml"},
        {"png", "image/png"},
        {"ico", "image/x-icon"},
        {"json", "application/json"},
        {"webmanifest", "application/manifest+json"},
        {"txt", "text/plain; charset=utf-8"},
        {"woff2", "font/woff2"},
    };
    const char *dot = strrchr(name, '.');
    if (!dot || strchr(dot, '/')) return NULL;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(dot + 1, types[i].ext) == 0) return types[i].type;
    return NULL;
}

bool web_path_ok(const char *path, size_t len)
{
    if (len < 1 || len > WEB_PATH_MAX || path[0] != '/') return false;
    for (size_t i = 1; i <= len; i++) {
        char ch = i < len ? path[i] : '/';
        if (path[i - 1] == '/') { /* a name starts here: not empty, no dot first */
            if (ch == '/' && i < len) return false;
            if (ch == '.') return false;
        }
        if (i == len) break;
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '-' || ch == '_' || ch == '.' || ch == '/'))
            return false;
    }
    return true;
}

/* Read the regular file `path` whole into b, at most max bytes. 0, -1 (none), -2 (too large). */
static int read_file(const char *path, size_t max, buf_t *b)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) return -1;
    struct stat st;
    int r = -1;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) goto out;
    if ((uint64_t)st.st_size > max) {
        r = -2;
        goto out;
    }
    if (buf_reserve(b, (size_t)st.st_size + 1) < 0) goto out;
    size_t want = (size_t)st.st_size + 1; /* one more: a file that grew is seen */
    while (want > 0) {
        ssize_t n = read(fd, buf_end(b), want);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) goto out;
        if (n == 0) break;
        buf_commit(b, (size_t)n);
        want -= (size_t)n;
    }
    r = b->len > (size_t)st.st_size ? -2 : 0;
out:
    close(fd);
    return r;
}

static void answer_file(conn_t *c, const char *path, size_t len, bool head)
{
    const server_opts_t *o = &c->srv->opts;
    char rel[WEB_PATH_MAX + 16];
    if (!o->web_root[0] || !web_path_ok(path, len)) { /* checked first: len is bounded then */
        answer_text(c, 404, "not found\n", "", head);
        return;
    }
    if (len == 1) {
        memcpy(rel, "/index.html", 12);
    } else {
        memcpy(rel, path, len);
        rel[len] = 0;
    }
    const char *type = web_content_type(rel);
    if (!type) {
        answer_text(c, 404, "not found\n", "", head);
        return;
    }
    char full[sizeof o->web_root + sizeof rel];
    snprintf(full, sizeof full, "%s%s", o->web_root, rel);
    size_t max = o->out_cap > WEB_ANSWER_HEAD ? o->out_cap - WEB_ANSWER_HEAD : 0;
    if (max > WEB_FILE_HARD_MAX) max = WEB_FILE_HARD_MAX;
    buf_t body = {0};
    int r = read_file(full, max, &body);
    if (r == -2) {
        log_warn("web: %s is larger than --out-cap allows (%zu bytes); not served", full, max);
        answer_text(c, 500, "file too large\n", "", head);
    } else if (r < 0) {
        answer_text(c, 404, "not found\n", "", head);
    } else {
        answer(c, 200, type, "Cache-Control: no-cache\r\n", body.data, body.len, head);
    }
    buf_free(&body);
}

/* ------------------------------------------------------------------------ */
/* The WebSocket handshake                                                  */
/* ------------------------------------------------------------------------ */

static size_t default_port_len(const char *scheme_end, const char *auth, size_t n)
{
    const char *port = scheme_end[-1] == 's' ? ":443" : ":80"; /* https:// or http:// */
    size_t k = strlen(port);
    return n > k && strncmp(auth + n - k, port, k) == 0 ? n - k : n;
}

/*
 * May a page of Origin o open a WebSocket here? Yes when it sent none (a
 * program, not a browser), when it is the server's own page (the Origin's
 * host and port are the Host the request was sent to, default ports
 * aside), or when --allow-origin lists it (or "*").
 */
static bool origin_allowed(const server_opts_t *opts, const http_request_t *r)
{
    const http_header_t *o = http_header(r, "Origin");
    if (!o) return true;
    for (const char *p = opts->allow_origin; *p;) {
        size_t n = strcspn(p, ",");
        if ((n == 1 && *p == '*') || (n == o->value_len && strncasecmp(p, o->value, n) == 0))
            return true;
        p += n + (p[n] == ',');
    }
    const http_header_t *host = http_header(r, "Host");
    const char *sep = memmem(o->value, o->value_len, "://", 3); /* within the value only */
    if (!host || !sep || (size_t)(sep - o->value) > 5) return false;
    bool http = (size_t)(sep - o->value) == 4 && strncasecmp(o->value, "http", 4) == 0;
    bool https = (size_t)(sep - o->value) == 5 && strncasecmp(o->value, "https", 5) == 0;
    if (!http && !https) return false;
    const char *auth = sep + 3;
    size_t alen = o->value_len - (size_t)(auth - o->value);
    if (memchr(auth, '/', alen)) return false;
    alen = default_port_len(sep, auth, alen);
    size_t hlen = default_port_len(sep, host->value, host->value_len);
    return alen == hlen && alen > 0 && strncasecmp(auth, host->value, alen) == 0;
}

/* Is k a Sec-WebSocket-Key: the base64 of 16 bytes (22 characters and "==")? */
static bool key_ok(const http_header_t *k)
{
    if (!k || k->value_len != 24 || k->value[22] != '=' || k->value[23] != '=') return false;
    for (int i = 0; i < 22; i++) {
        char ch = k->value[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '+' || ch == '/'))
            return false;
    }
    return true;
}

/* The head asks for a WebSocket: answer 101 and hand the rest to ws.c. */
static int upgrade(conn_t *c, const http_request_t *r, const char *rest, size_t rest_len)
{
    const http_header_t *conn = http_header(r, "Connection");
    const http_header_t *ver = http_header(r, "Sec-WebSocket-Version");
    const http_header_t *key = http_header(r, "Sec-WebSocket-Key");
    if (!http_method_is(r, "GET")) {
        answer_text(c, 405, "a WebSocket starts with GET\n", "Allow: GET, HEAD\r\n", false);
        return 0;
    }
    if (r->minor < 1 || r->has_body || !conn ||
        !http_list_has(conn->value, conn->value_len, "upgrade") ||
        http_header_count(r, "Sec-WebSocket-Key") != 1 || !key_ok(key)) {
        answer_text(c, 400, "not a WebSocket handshake (RFC 6455)\n", "", false);
        return 0;
    }
    if (!ver || ver->value_len != 2 || memcmp(ver->value, "13", 2) != 0) {
        answer_text(c, 426, "WebSocket version 13 only\n", "Sec-WebSocket-Version: 13\r\n", false);
        return 0;
    }
    if (!origin_allowed(&c->srv->opts, r)) {
        const http_header_t *o = http_header(r, "Origin");
        log_info("conn %llu: WebSocket from origin %.*s refused (see --allow-origin)",
                 (unsigned long long)c->id, (int)(o->value_len > 200 ? 200 : o->value_len),
                 o->value);
        answer_text(c, 403, "this origin may not open a WebSocket here (see --allow-origin)\n", "",
                    false);
        return 0;
    }
    char accept[WS_ACCEPT_LEN + 1];
    ws_accept_key(key->value, key->value_len, accept);
    char h[256];
    int n = snprintf(h, sizeof h,
                     "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n",
                     accept);
    if (conn__write_raw(c, h, (size_t)n) < 0) return 0; /* doomed */
    if (ws_start(c) < 0) return -1;
    metrics_http(&c->srv->metrics, 101);
    log_info("conn %llu: WebSocket", (unsigned long long)c->id);
    return rest_len ? ws_read(c, rest, rest_len) : 0;
}

/* ------------------------------------------------------------------------ */
/* Reading the head                                                         */
/* ------------------------------------------------------------------------ */

/* The first line was no HTTP request: c is a line connection; its bytes go to the splitter. */
static int to_lines(conn_t *c)
{
    web_in_t *w = c->web;
    c->web = NULL;
    c->kind = CONN_LINES;
    int r = conn__feed_lines(c, w->head.data, w->head.len);
    web_free(w);
    return r;
}

/*
 * The client a trusted proxy names: the last address of the last
 * X-Forwarded-For (the one the proxy appended), into ip; NULL when there is
 * none or it is no numeric address.
 */
static const char *forwarded_for(const http_request_t *r, char ip[48])
{
    const http_header_t *x = NULL;
    for (int i = 0; i < r->nheaders; i++)
        if (r->headers[i].name_len == 15 &&
            strncasecmp(r->headers[i].name, "X-Forwarded-For", 15) == 0)
            x = &r->headers[i];
    if (!x) return NULL;
    const char *a = x->value, *e = x->value + x->value_len;
    for (const char *p = a; p < e; p++)
        if (*p == ',') a = p + 1;
    while (a < e && (*a == ' ' || *a == '\t'))
        a++;
    size_t n = (size_t)(e - a);
    unsigned char bin[16];
    if (n == 0 || n >= 48) return NULL;
    memcpy(ip, a, n);
    ip[n] = 0;
    return inet_pton(AF_INET, ip, bin) == 1 || inet_pton(AF_INET6, ip, bin) == 1 ? ip : NULL;
}

/* May the connection stay open after this request's answer (HTTP/1.1 unless
   "Connection: close", HTTP/1.0 only with "Connection: keep-alive")? */
static bool keep_alive(const http_request_t *r)
{
    const http_header_t *h = http_header(r, "Connection");
    if (r->minor >= 1) return !h || !http_list_has(h->value, h->value_len, "close");
    return h && http_list_has(h->value, h->value_len, "keep-alive");
}

/* Answer the complete head of `end` bytes. Returns true when c stays for another request. */
static bool handle(conn_t *c, size_t end)
{
    web_in_t *w = c->web;
    http_request_t r;
    http_parse_error_t e = http_parse(&w->scan, w->head.data, end, &r);
    if (e == HTTP_TOO_MANY_HEADERS) {
        answer_text(c, 431, "too many header lines\n", "", false);
        return false;
    }
    if (e != HTTP_OK) {
        answer_text(c, 400, "malformed request head\n", "", false);
        return false;
    }
    char ip[48];
    const char *refused = c->via_proxy ? conn__admit_client(c, forwarded_for(&r, ip)) : NULL;
    if (refused) {
        bool rate = strcmp(refused, TAPIS_E_RATE_LIMITED) == 0;
        answer_text(c, rate ? 429 : 503,
                    rate ? "too many new connections from your address; wait a little\n"
                         : "too many connections from your address; try again later\n",
                    "Retry-After: 1\r\n", false);
        return false;
    }
    bool get = http_method_is(&r, "GET"), head = http_method_is(&r, "HEAD");
    const http_header_t *up = http_header(&r, "Upgrade");
    if (up && http_list_has(up->value, up->value_len, "websocket")) {
        /* the bytes after the head are the first frames: copy them out of the head */
        buf_t rest = {0};
        int ok = buf_append(&rest, w->head.data + end, w->head.len - end);
        c->web = NULL;
        if (ok == 0 && upgrade(c, &r, rest.data, rest.len) < 0) ok = -1;
        web_free(w);
        buf_free(&rest);
        if (ok < 0) conn_close(c, "out of memory");
        return false;
    }
    const char *path;
    size_t len;
    http_target_path(&r, &path, &len);
    if (!get && !head)
        answer_text(c, 405, "method not allowed; use GET or HEAD\n", "Allow: GET, HEAD\r\n", false);
    else if (r.has_body)
        answer_text(c, 400, "a GET or HEAD request has no body\n", "", head);
    else {
        w->keep = keep_alive(&r) && ++w->served < WEB_MAX_REQUESTS;
        answer_file(c, path, len, head);
        return w->keep && c->state == CONN_OPEN;
    }
    return false;
}

/* Answer each complete head in turn (a kept connection may hold several), until one is not. */
static int read_head(conn_t *c)
{
    for (;;) {
        web_in_t *w = c->web;
        size_t end = http_head_end(&w->scan, w->head.data, w->head.len);
        if (end == 0 && w->head.len <= WEB_HEAD_MAX) return 0;
        if (end == 0 || end > WEB_HEAD_MAX) {
            answer_text(c, 431, "request head too large\n", "", false);
            return 0;
        }
        if (!handle(c, end)) return 0;
        /* kept: what came after this request starts the next one */
        memmove(w->head.data, w->head.data + end, w->head.len - end);
        w->head.len -= end;
        w->scan = (http_scan_t){0};
        w->keep = false;
    }
}

/*
 * A PROXY protocol v1 line from a trusted proxy (nginx's stream module,
 * proxy_protocol on): "PROXY TCP4|TCP6 SRC DST SPORT DPORT" or "PROXY
 * UNKNOWN ...". Count the connection under SRC. Returns 0, or -1 when it
 * was refused (c is closing).
 */
static int proxy_line(conn_t *c, const char *line, size_t len)
{
    char buf[128], *save = NULL;
    if (len >= sizeof buf) len = sizeof buf - 1;
    memcpy(buf, line, len);
    buf[len] = 0;
    strtok_r(buf, " ", &save);
    const char *proto = strtok_r(NULL, " ", &save);
    const char *src = strtok_r(NULL, " ", &save);
    unsigned char bin[16];
    bool ok = proto && src &&
              ((strcmp(proto, "TCP4") == 0 && inet_pton(AF_INET, src, bin) == 1) ||
               (strcmp(proto, "TCP6") == 0 && inet_pton(AF_INET6, src, bin) == 1));
    const char *refused = conn__admit_client(c, ok ? src : NULL);
    if (!refused) return 0;
    conn__refuse(c, refused);
    return -1;
}

/* What the first line says: HTTP, the line protocol, or (from a trusted proxy) the client. */
static int sniff(conn_t *c)
{
    web_in_t *w = c->web;
    for (;;) {
        size_t have = w->head.len < WEB_HEAD_MAX + 1 ? w->head.len : WEB_HEAD_MAX + 1;
        const char *nl = memchr(w->head.data, '\n', have);
        if (!nl) return w->head.len <= WEB_HEAD_MAX ? 0 : to_lines(c);
        size_t len = (size_t)(nl - w->head.data);
        if (len && w->head.data[len - 1] == '\r') len--;
        if (c->via_proxy && !c->admitted && len > 6 && memcmp(w->head.data, "PROXY ", 6) == 0) {
            if (proxy_line(c, w->head.data, len) < 0) return 0;
            size_t rest = w->head.len - (size_t)(nl + 1 - w->head.data);
            memmove(w->head.data, nl + 1, rest);
            w->head.len = rest;
            if (rest == 0) { /* what follows decides again (conn.c) */
                c->web = NULL;
                c->kind = CONN_SNIFFING;
                web_free(w);
                return 0;
            }
            if (w->head.data[0] < 'A' || w->head.data[0] > 'Z') return to_lines(c);
            continue;
        }
        if (!frame_is_http_request(w->head.data, len)) return to_lines(c);
        w->is_http = true;
        c->saw_line = true;
        return read_head(c);
    }
}

int web_read(conn_t *c, const char *data, size_t n)
{
    web_in_t *w = c->web;
    /* all of it: past the head come a WebSocket's first frames; a head over
       the cap is refused below, so this holds at most the cap and one read */
    if (buf_append(&w->head, data, n) < 0) return -1;
    return w->is_http ? read_head(c) : sniff(c);
}
