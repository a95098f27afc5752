/*
 * fuzz_framing.c — the line splitter (protocol/framing.h) under hostile bytes.
 *
 * Input: a small header, then the byte stream of one connection.
 *   byte 0      the line limit: 0-63 as is (0: the default, 8192), 64-127: one
 *               more byte gives 1..256, 128-191: two more give 1..9000, else
 *               the default
 *   next byte   k = byte % 17 piece sizes follow, one byte each, used in turn
 *               to cut the stream into frame_feed() calls (0: the rest; 240 and
 *               up: 512-byte steps); k = 0 feeds the stream at once
 *   next byte   lines taken after each feed: byte % 8, 0 meaning all (a read
 *               callback that yields after N lines); the rest after the end.
 *               Bit 3: frame_peek() before each frame_next()
 *   the rest    the stream
 *
 * Checked, whatever the cuts:
 *  - the lines and the final FRAME_TOO_LONG are exactly those of a model of
 *    framing.h written from its comment (telnet removed, "\n" or "\r\n" ends a
 *    line, a line longer than the limit ends the stream), so the result does
 *    not depend on how the stream was cut; after each line, `taken` is the
 *    model's position just past its "\n" in the telnet-free stream;
 *  - frame_peek() announces what frame_next() then returns: a line and the
 *    position `taken` becomes, or FRAME_TOO_LONG at `fed`;
 *  - a line is at most max_line bytes, holds no "\n", is NUL-terminated, and
 *    stays in place while further lines are taken;
 *  - FRAME_TOO_LONG comes at most once, the stream is dead after it, and a
 *    dead stream drops what it is fed;
 *  - when no complete line is buffered, frame_buffered() <= max_line + 2;
 *  - frame_is_http_request() says yes only to a line that can be one.
 */
#include <inttypes.h>

#include "tests/fuzz/fuzz.h"

#include "protocol/framing.h"

/* ------------------------------------------------------------------------ */
/* Results, recorded as bytes: 'L' + length + line, or 'T' for too long      */
/* ------------------------------------------------------------------------ */

typedef struct record {
    char *s;
    size_t len, cap;
} record_t;

static void record_put(record_t *r, const void *s, size_t n)
{
    if (n == 0) return;
    if (r->cap - r->len < n) {
        size_t cap = r->cap ? r->cap : 256;
        while (cap - r->len < n)
            cap *= 2;
        r->s = realloc(r->s, cap);
        FZ_CHECK(r->s != NULL, "out of memory");
        r->cap = cap;
    }
    memcpy(r->s + r->len, s, n);
    r->len += n;
}

/* A line, and the stream position just past its "\n". */
static void record_line(record_t *r, const char *line, size_t n, uint64_t end)
{
    uint64_t len = n;
    record_put(r, "L", 1);
    record_put(r, &len, sizeof len);
    record_put(r, line, n);
    record_put(r, &end, sizeof end);
}

/* ------------------------------------------------------------------------ */
/* The model: framing.h's comment, on the whole stream at once              */
/* ------------------------------------------------------------------------ */

#define IAC 255

/* The stream without telnet negotiation (IAC IAC is a literal 255). */
static size_t model_telnet(const uint8_t *in, size_t n, char *out)
{
    enum { DATA, CMD, OPT, SUB, SUB_IAC } st = DATA;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = in[i];
        switch (st) {
        case DATA:
            if (c == IAC)
                st = CMD;
            else
                out[k++] = (char)c;
            break;
        case CMD:
            if (c == IAC) {
                out[k++] = (char)c;
                st = DATA;
            } else if (c == 250) { /* SB */
                st = SUB;
            } else if (c >= 251 && c <= 254) { /* WILL WONT DO DONT */
                st = OPT;
            } else {
                st = DATA;
            }
            break;
        case OPT: st = DATA; break;
        case SUB:
            if (c == IAC) st = SUB_IAC;
            break;
        case SUB_IAC: st = c == 240 ? DATA : SUB; break; /* SE */
        }
    }
    return k;
}

static void model(const uint8_t *stream, size_t n, size_t max_line, record_t *r)
{
    char *clean = malloc(n + 1);
    FZ_CHECK(clean != NULL, "out of memory");
    size_t len = model_telnet(stream, n, clean), start = 0;
    for (;;) {
        char *nl = start < len ? memchr(clean + start, '\n', len - start) : NULL;
        if (!nl) {
            /*
             * A partial line is known to be too long once it has max_line + 1
             * bytes and the last of them is not a "\r" that a "\n" may follow,
             * or max_line + 2 bytes.
             */
            size_t p = len - start;
            if (p > max_line + 1 || (p == max_line + 1 && clean[start + max_line] != '\r'))
                record_put(r, "T", 1);
            break;
        }
        size_t line = (size_t)(nl - (clean + start));
        if (line > 0 && clean[start + line - 1] == '\r') line--;
        if (line > max_line) {
            record_put(r, "T", 1);
            break;
        }
        size_t end = (size_t)(nl - clean) + 1;
        record_line(r, clean + start, line, end);
        start = end;
    }
    free(clean);
}

/* ------------------------------------------------------------------------ */
/* The splitter, fed in pieces                                              */
/* ------------------------------------------------------------------------ */

/* The lines taken since the last feed: where they are and what they said. */
typedef struct taken {
    const char *at[64];
    record_t copy;
    size_t end[64];
    int n;
} taken_t;

static void check_taken_in_place(taken_t *t)
{
    size_t from = 0;
    for (int i = 0; i < t->n; i++) {
        FZ_CHECK(t->end[i] == from || memcmp(t->at[i], t->copy.s + from, t->end[i] - from) == 0,
                 "line %d moved or changed while later lines were taken", i);
        from = t->end[i];
    }
}

/* A line frame_is_http_request() accepts: "AAA x HTTP/d" at the least. */
static void check_http(const char *line, size_t len)
{
    if (!frame_is_http_request(line, len)) return;
    FZ_CHECK(len >= 12, "a %zu-byte line taken for an HTTP request", len);
    FZ_CHECK(line[0] >= 'A' && line[0] <= 'Z', "HTTP request not starting with a capital");
    bool version = false;
    for (size_t i = 0; i + 6 <= len && !version; i++)
        version = memcmp(line + i, " HTTP/", 6) == 0;
    FZ_CHECK(version, "HTTP request line without \" HTTP/\"");
}

typedef struct run {
    frame_t f;
    size_t max_line;
    record_t got;
    taken_t taken;
    bool peek;
    bool too_long;
} run_t;

/* One frame_next(); false when there is nothing more to take now. */
static bool take_one(run_t *r)
{
    const char *line = NULL;
    size_t len = 0;
    uint64_t end = 0;
    int peeked = r->peek ? frame_peek(&r->f, &end) : 0;
    int rc = frame_next(&r->f, &line, &len);
    if (r->peek)
        FZ_CHECK(peeked == rc, "frame_peek said %d, then frame_next returned %d", peeked, rc);
    switch (rc) {
    case FRAME_LINE:
        FZ_CHECK(!r->too_long, "a line after FRAME_TOO_LONG");
        FZ_CHECK(len <= r->max_line, "a %zu-byte line with a limit of %zu", len, r->max_line);
        FZ_CHECK(memchr(line, '\n', len) == NULL, "a line holds a \"\\n\"");
        FZ_CHECK(line[len] == '\0', "a line is not NUL-terminated");
        if (r->peek)
            FZ_CHECK(end == r->f.taken,
                     "frame_peek said the line ends at %" PRIu64 ", taken is %" PRIu64, end,
                     r->f.taken);
        record_line(&r->got, line, len, r->f.taken);
        check_http(line, len);
        if (r->taken.n < 64) {
            record_put(&r->taken.copy, line, len);
            r->taken.at[r->taken.n] = line;
            r->taken.end[r->taken.n++] = r->taken.copy.len;
        }
        return true;
    case FRAME_TOO_LONG:
        FZ_CHECK(!r->too_long, "FRAME_TOO_LONG twice");
        FZ_CHECK(frame_is_dead(&r->f), "FRAME_TOO_LONG but the stream is not dead");
        if (r->peek)
            FZ_CHECK(end == r->f.fed,
                     "frame_peek said FRAME_TOO_LONG at %" PRIu64 ", fed is %" PRIu64, end,
                     r->f.fed);
        r->too_long = true;
        record_put(&r->got, "T", 1);
        return true;
    case FRAME_NEED_MORE:
        FZ_CHECK(frame_buffered(&r->f) <= r->max_line + 2,
                 "%zu bytes buffered without a complete line (limit %zu)", frame_buffered(&r->f),
                 r->max_line);
        FZ_CHECK(frame_next(&r->f, &line, &len) == FRAME_NEED_MORE,
                 "FRAME_NEED_MORE, then something else without a feed");
        return false;
    default: FZ_CHECK(false, "frame_next returned %d", rc);
    }
    return false;
}

static void feed(run_t *r, const uint8_t *data, size_t n)
{
    check_taken_in_place(&r->taken);
    r->taken.n = 0;
    r->taken.copy.len = 0;
    bool dead = frame_is_dead(&r->f);
    size_t before = frame_buffered(&r->f);
    int rc = frame_feed(&r->f, (const char *)data, n);
    FZ_CHECK(rc == 0, "frame_feed returned %d", rc);
    if (dead)
        FZ_CHECK(frame_buffered(&r->f) == before, "a dead stream took %zu bytes",
                 frame_buffered(&r->f) - before);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_t in = fz_init(data, size);
    uint8_t sel = fz_u8(&in);
    size_t max_line = sel < 64    ? sel
                      : sel < 128 ? 1 + (size_t)fz_u8(&in)
                      : sel < 192 ? 1 + (size_t)fz_u16(&in) % 9000
                                  : 0;
    uint8_t pieces[16];
    int npieces = fz_u8(&in) % 17;
    for (int i = 0; i < npieces; i++)
        pieces[i] = fz_u8(&in);
    uint8_t take = fz_u8(&in);
    int per_feed = take % 8;
    const uint8_t *stream;
    size_t n = fz_take(&in, SIZE_MAX, &stream);

    run_t r = {.peek = (take & 8) != 0};
    frame_init(&r.f, max_line);
    r.max_line = r.f.max_line;
    FZ_CHECK(r.max_line == (max_line ? max_line : FRAME_DEFAULT_MAX_LINE), "max_line %zu",
             r.max_line);

    size_t pos = 0;
    for (int k = 0; pos < n; k++) {
        size_t piece = npieces ? pieces[k % npieces] : 0;
        if (piece >= 240) piece = (piece - 239) * 512;
        if (piece == 0 || piece > n - pos) piece = n - pos;
        feed(&r, stream + pos, piece);
        pos += piece;
        for (int i = 0; (per_feed == 0 || i < per_feed) && take_one(&r); i++)
            ;
    }
    while (take_one(&r))
        ;
    FZ_CHECK(frame_is_dead(&r.f) == r.too_long, "dead: %d, FRAME_TOO_LONG seen: %d",
             frame_is_dead(&r.f), r.too_long);
    if (r.too_long) { /* a dead stream stays dead */
        feed(&r, (const uint8_t *)"after\n", 6);
        FZ_CHECK(!take_one(&r), "a dead stream gave something");
    }

    record_t want = {0};
    model(stream, n, r.max_line, &want);
    size_t lines = 0;
    for (size_t i = 0; i + 9 <= r.got.len && r.got.s[i] == 'L'; lines++) {
        uint64_t len;
        memcpy(&len, r.got.s + i + 1, sizeof len);
        i += 17 + len;
    }
    FZ_CHECK(want.len == r.got.len && (want.len == 0 || memcmp(want.s, r.got.s, want.len) == 0),
             "the lines differ from the model's (%zu bytes of results vs %zu expected, "
             "%zu lines taken, too long: %d)",
             r.got.len, want.len, lines, r.too_long);

    frame_free(&r.f);
    free(r.got.s);
    free(r.taken.copy.s);
    free(want.s);
    return 0;
}
