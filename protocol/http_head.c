/*
 * http_head.c — an HTTP/1.x request head: its end, its request line, its
 * headers. See http_head.h.
 */
#include <string.h>
#include <strings.h>

#include "protocol/http_head.h"

/* A token character (RFC 9110, 5.6.2): method names and header names. */
static bool is_tchar(unsigned char ch)
{
    if ((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'))
        return true;
    return ch != 0 && strchr("!#$%&'*+-.^_`|~", ch) != NULL;
}

size_t http_head_end(http_scan_t *s, const char *d, size_t len)
{
    for (size_t i = s->scan; i < len; i++) {
        if (d[i] != '\n') continue;
        size_t start = s->line_start;
        s->line_start = i + 1;
        if (i - start > 1 || (i - start == 1 && d[start] != '\r')) continue; /* not empty */
        if (start == s->head_start) {
            s->head_start = i + 1; /* an empty line before the request line */
            continue;
        }
        s->scan = i + 1;
        return i + 1;
    }
    s->scan = len;
    return 0;
}

/* The line at *p (its \n and one \r before it cut off); *p moves past it. */
static const char *next_line(const char **p, const char *end, size_t *len)
{
    const char *line = *p;
    const char *nl = memchr(line, '\n', (size_t)(end - line));
    if (!nl) nl = end; /* cannot happen: the head ends with a blank line */
    *p = nl < end ? nl + 1 : end;
    *len = (size_t)(nl - line);
    if (*len > 0 && line[*len - 1] == '\r') (*len)--;
    return line;
}

/* "METHOD SP TARGET SP HTTP/1.x", nothing else. */
static int parse_request_line(const char *s, size_t n, http_request_t *r)
{
    size_t i = 0;
    while (i < n && is_tchar((unsigned char)s[i]))
        i++;
    if (i == 0 || i == n || s[i] != ' ') return -1;
    r->method = s;
    r->method_len = i++;
    size_t t = i;
    while (i < n && (unsigned char)s[i] > ' ' && (unsigned char)s[i] < 0x7f)
        i++;
    if (i == t || i == n || s[i] != ' ') return -1;
    r->target = s + t;
    r->target_len = i++ - t;
    if (n - i != 8 || memcmp(s + i, "HTTP/1.", 7) != 0 || (s[i + 7] != '0' && s[i + 7] != '1'))
        return -1;
    r->minor = s[i + 7] - '0';
    return 0;
}

/* One header line: a token, a colon, a value of visible bytes, spaces and tabs. */
static int parse_header(const char *s, size_t n, http_request_t *r)
{
    const char *colon = memchr(s, ':', n);
    if (!colon || colon == s) return HTTP_BAD_HEADER;
    size_t name_len = (size_t)(colon - s);
    for (size_t i = 0; i < name_len; i++)
        if (!is_tchar((unsigned char)s[i])) return HTTP_BAD_HEADER;
    const char *v = colon + 1, *end = s + n;
    for (const char *p = v; p < end; p++)
        if (((unsigned char)*p < ' ' && *p != '\t') || *p == 0x7f) return HTTP_BAD_HEADER;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    if (name_len == 17 && strncasecmp(s, "transfer-encoding", 17) == 0) r->has_body = true;
    if (name_len == 14 && strncasecmp(s, "content-length", 14) == 0) {
        if (v == end) return HTTP_BAD_HEADER;
        for (const char *p = v; p < end; p++) {
            if (*p < '0' || *p > '9') return HTTP_BAD_HEADER;
            if (*p != '0') r->has_body = true;
        }
    }
    if (r->nheaders == HTTP_MAX_HEADERS) return HTTP_TOO_MANY_HEADERS;
    r->headers[r->nheaders++] = (http_header_t){s, v, name_len, (size_t)(end - v)};
    return 0;
}

http_parse_error_t http_parse(const http_scan_t *s, const char *d, size_t end, http_request_t *r)
{
    const char *p = d + s->head_start, *stop = d + end;
    size_t n;
    memset(r, 0, offsetof(http_request_t, headers));
    const char *line = next_line(&p, stop, &n);
    if (parse_request_line(line, n, r) < 0) return HTTP_BAD_REQUEST_LINE;
    while ((line = next_line(&p, stop, &n)) && n > 0) {
        if (line[0] == ' ' || line[0] == '\t') return HTTP_BAD_HEADER;
        int e = parse_header(line, n, r);
        if (e < 0) return (http_parse_error_t)e;
    }
    return HTTP_OK;
}

bool http_method_is(const http_request_t *r, const char *m)
{
    size_t n = strlen(m);
    return r->method_len == n && memcmp(r->method, m, n) == 0;
}

const http_header_t *http_header(const http_request_t *r, const char *name)
{
    size_t n = strlen(name);
    for (int i = 0; i < r->nheaders; i++)
        if (r->headers[i].name_len == n && strncasecmp(r->headers[i].name, name, n) == 0)
            return &r->headers[i];
    return NULL;
}

int http_header_count(const http_request_t *r, const char *name)
{
    size_t n = strlen(name);
    int k = 0;
    for (int i = 0; i < r->nheaders; i++)
        k += r->headers[i].name_len == n && strncasecmp(r->headers[i].name, name, n) == 0;
    return k;
}

bool http_list_has(const char *v, size_t n, const char *token)
{
    size_t k = strlen(token);
    const char *p = v, *end = v + n;
    while (p < end) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *e = comma ? comma : end;
        const char *a = p;
        while (a < e && (*a == ' ' || *a == '\t'))
            a++;
        const char *b = e;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
            b--;
        if ((size_t)(b - a) == k && strncasecmp(a, token, k) == 0) return true;
        p = comma ? comma + 1 : end;
    }
    return false;
}

/* True if the n bytes at s start with the scheme `scheme` (case-insensitive). */
static bool has_scheme(const char *s, size_t n, const char *scheme)
{
    size_t k = strlen(scheme);
    return n >= k && strncasecmp(s, scheme, k) == 0;
}

void http_target_path(const http_request_t *r, const char **path, size_t *len)
{
    const char *p = r->target, *end = r->target + r->target_len;
    size_t skip = has_scheme(p, r->target_len, "http://")    ? 7
                  : has_scheme(p, r->target_len, "https://") ? 8
                                                             : 0;
    if (skip) {
        const char *slash = memchr(p + skip, '/', r->target_len - skip);
        p = slash ? slash : end;
    }
    const char *q = memchr(p, '?', (size_t)(end - p));
    *path = p;
    *len = (size_t)((q ? q : end) - p);
}

const char *http_reason(int status)
{
    switch (status) {
    case 101: return "Switching Protocols";
    case 200: return "OK";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 426: return "Upgrade Required";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 503: return "Service Unavailable";
    default: return "Internal Server Error";
    }
}
