/*
 * fuzz_http.c — the HTTP request head (protocol/http_head.h) under hostile
 * bytes: the metrics endpoint's and the game port's parser.
 *
 * Input: one byte k, then k % 9 piece sizes (one byte each, 0: the rest),
 * then the bytes a client sends. They are appended to a buffer in those
 * pieces (as reads bring them), http_head_end() searching after each.
 *
 * Checked, whatever the cuts:
 *  - the end found is the same as when all the bytes come at once, and is
 *    the one of a model written from http_head.h: after the empty lines
 *    before the request line, the first line that is empty (its "\n", one
 *    "\r" before it allowed);
 *  - http_parse() of a found head reads nothing past it (ASan sees the
 *    buffer cut there), and what it hands back lies in it: the method and
 *    target, each header's name (a token) and value (no CR, LF or NUL, no
 *    space or tab at either end), at most HTTP_MAX_HEADERS of them;
 *  - http_header() finds the first of a name, http_header_count() counts
 *    them, http_list_has() and http_target_path() stay within their text.
 */
#include "tests/fuzz/fuzz.h"

#include "protocol/http_head.h"

/* The model: where the head of d[0..n) ends (past its blank line's \n), or 0. */
static size_t model_end(const char *d, size_t n)
{
    size_t start = 0;
    bool leading = true; /* still in the empty lines before the request line */
    for (size_t i = 0; i < n; i++) {
        if (d[i] != '\n') continue;
        bool empty = i == start || (i == start + 1 && d[start] == '\r');
        if (empty && !leading) return i + 1;
        if (!empty) leading = false;
        start = i + 1;
    }
    return 0;
}

static bool within(const char *p, size_t len, const char *lo, const char *hi)
{
    return p >= lo && p + len <= hi;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_t f = fz_init(data, size);
    uint8_t pieces[8];
    int k = fz_u8(&f) % 9;
    for (int i = 0; i < k; i++)
        pieces[i] = fz_u8(&f);
    const uint8_t *bytes;
    size_t n = fz_take(&f, 1 << 16, &bytes);

    /* as it comes, piece by piece, into a buffer that grows */
    char *buf = malloc(n + 1);
    FZ_CHECK(buf != NULL, "out of memory");
    http_scan_t s = {0};
    size_t have = 0, end = 0;
    for (int i = 0; have < n && end == 0; i = k ? (i + 1) % k : 0) {
        size_t step = k && pieces[i] ? pieces[i] : n - have;
        if (step > n - have) step = n - have;
        memcpy(buf + have, bytes + have, step);
        have += step;
        end = http_head_end(&s, buf, have);
        FZ_CHECK(end <= have, "end %zu past the %zu bytes given", end, have);
    }
    size_t want = model_end((const char *)bytes, n);
    FZ_CHECK(end == want, "end %zu, the model says %zu", end, want);
    free(buf);
    if (end == 0) return 0;

    /* the head alone, in a buffer cut right after it: a read past it is ASan's */
    char *head = malloc(end);
    FZ_CHECK(head != NULL, "out of memory");
    memcpy(head, bytes, end);
    http_request_t r;
    http_parse_error_t e = http_parse(&s, head, end, &r);
    FZ_CHECK(e == HTTP_OK || e == HTTP_BAD_REQUEST_LINE || e == HTTP_BAD_HEADER ||
                 e == HTTP_TOO_MANY_HEADERS,
             "error %d", e);
    if (e == HTTP_OK) {
        const char *lo = head, *hi = head + end;
        FZ_CHECK(within(r.method, r.method_len, lo, hi) && r.method_len > 0, "method");
        FZ_CHECK(within(r.target, r.target_len, lo, hi) && r.target_len > 0, "target");
        FZ_CHECK(r.minor == 0 || r.minor == 1, "minor %d", r.minor);
        FZ_CHECK(r.nheaders >= 0 && r.nheaders <= HTTP_MAX_HEADERS, "%d headers", r.nheaders);
        for (int i = 0; i < r.nheaders; i++) {
            const http_header_t *h = &r.headers[i];
            FZ_CHECK(within(h->name, h->name_len, lo, hi) && h->name_len > 0, "header %d", i);
            FZ_CHECK(within(h->value, h->value_len, lo, hi), "value %d", i);
            for (size_t j = 0; j < h->value_len; j++)
                FZ_CHECK(h->value[j] != '\r' && h->value[j] != '\n' && h->value[j] != 0,
                         "a CR, LF or NUL in value %d", i);
            if (h->value_len)
                FZ_CHECK(h->value[0] != ' ' && h->value[0] != '\t' &&
                             h->value[h->value_len - 1] != ' ' &&
                             h->value[h->value_len - 1] != '\t',
                         "value %d not trimmed", i);
            char name[64];
            if (h->name_len < sizeof name) {
                memcpy(name, h->name, h->name_len);
                name[h->name_len] = 0;
                const http_header_t *first = http_header(&r, name);
                FZ_CHECK(first && first <= h, "http_header(%s) missed it", name);
                FZ_CHECK(http_header_count(&r, name) >= 1, "count of %s", name);
            }
            http_list_has(h->value, h->value_len, "websocket");
        }
        const char *path;
        size_t len;
        http_target_path(&r, &path, &len);
        FZ_CHECK(within(path, len, r.target, r.target + r.target_len), "path outside the target");
    }
    free(head);
    return 0;
}
