/*
 * framing.c — bounded line splitter with telnet clean-up. See framing.h.
 */
#include "protocol/framing.h"

#include "include/tapis_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- telnet --- */

#define IAC 255
#define SB 250
#define SE 240
#define WILL 251
#define DONT 254

enum {
    TN_DATA,   /* ordinary bytes */
    TN_IAC,    /* after IAC */
    TN_OPT,    /* after IAC WILL/WONT/DO/DONT: one option byte to drop */
    TN_SB,     /* inside IAC SB ...: drop until IAC SE */
    TN_SB_IAC, /* IAC inside a subnegotiation */
};

/* ---------------------------------------------------------------- buffer --- */

void frame_init(frame_t *f, size_t max_line)
{
    memset(f, 0, sizeof(*f));
    f->max_line = max_line ? max_line : FRAME_DEFAULT_MAX_LINE;
    f->telnet = TN_DATA;
}

void frame_free(frame_t *f)
{
    tapis_free(f->buf);
    f->buf = NULL;
    f->cap = f->start = f->len = f->scan = f->partial = 0;
}

/* Make room for n more bytes: drop taken lines first, grow if still needed. */
static int frame_reserve(frame_t *f, size_t n)
{
    if (f->start > 0) {
        memmove(f->buf, f->buf + f->start, f->len - f->start);
        f->len -= f->start;
        f->scan -= f->start;
        f->start = 0;
    }
    if (f->cap - f->len >= n + 1) return 0; /* +1: room for a NUL after a partial line */
    size_t cap = f->cap ? f->cap : 256;
    while (cap - f->len < n + 1) {
        if (cap > SIZE_MAX / 2) return FRAME_ENOMEM;
        cap *= 2;
    }
    char *buf = tapis_realloc(f->buf, cap);
    if (!buf) return FRAME_ENOMEM;
    f->buf = buf;
    f->cap = cap;
    return 0;
}

/*
 * Append one telnet-free byte. The current line may hold max_line bytes plus
 * a "\r" before its "\n"; one byte more and it is too long whatever follows.
 */
static void frame_put(frame_t *f, unsigned char c)
{
    if (f->overflow) return;
    if (c == '\n') {
        f->partial = 0;
    } else if (++f->partial > f->max_line + 1 || (f->partial > f->max_line && c != '\r')) {
        f->overflow = true; /* frame_next() reports it when it gets there */
        return;
    }
    f->buf[f->len++] = (char)c;
    f->fed++;
}

/*
 * Data bytes up to the first IAC, line by line: a piece of a line that keeps
 * it within max_line is copied whole, which is what frame_put() does byte by
 * byte for it; the rest goes through frame_put(). Returns the bytes used.
 */
static size_t feed_data(frame_t *f, const unsigned char *p, size_t n)
{
    const unsigned char *iac = memchr(p, IAC, n);
    size_t end = iac ? (size_t)(iac - p) : n, i = 0;
    while (i < end && !f->overflow) {
        const unsigned char *nl = memchr(p + i, '\n', end - i);
        size_t piece = (nl ? (size_t)(nl - p) + 1 : end) - i, body = nl ? piece - 1 : piece;
        if (f->partial + body > f->max_line) {
            for (size_t stop = i + piece; i < stop && !f->overflow; i++)
                frame_put(f, p[i]);
            continue;
        }
        memcpy(f->buf + f->len, p + i, piece);
        f->len += piece;
        f->fed += piece;
        f->partial = nl ? 0 : f->partial + body;
        i += piece;
    }
    return i;
}

int frame_feed(frame_t *f, const char *data, size_t n)
{
    if (f->overflow || n == 0) return 0;
    /* Telnet removal only shrinks, and the partial line is capped: this is enough. */
    size_t room = n;
    if (room > f->max_line + 2 && !memchr(data, '\n', n)) room = f->max_line + 2;
    if (frame_reserve(f, room) < 0) return FRAME_ENOMEM;

    const unsigned char *p = (const unsigned char *)data;
    for (size_t i = 0; i < n && !f->overflow; i++) {
        if (f->telnet == TN_DATA) {
            i += feed_data(f, p + i, n - i); /* to the next IAC */
            if (i == n || f->overflow) break;
        }
        unsigned char c = p[i];
        switch (f->telnet) {
        case TN_DATA:
            if (c == IAC)
                f->telnet = TN_IAC;
            else
                frame_put(f, c);
            break;
        case TN_IAC:
            if (c == IAC) {
                frame_put(f, c);
                f->telnet = TN_DATA;
            } else if (c == SB) {
                f->telnet = TN_SB;
            } else if (c >= WILL && c <= DONT) {
                f->telnet = TN_OPT;
            } else {
                f->telnet = TN_DATA; /* NOP, GA, AYT, IP, stray SE...: dropped */
            }
            break;
        case TN_OPT: f->telnet = TN_DATA; break;
        case TN_SB:
            if (c == IAC) f->telnet = TN_SB_IAC;
            break;
        case TN_SB_IAC: f->telnet = c == SE ? TN_DATA : TN_SB; break;
        }
    }
    return 0;
}

/* The next "\n" after start, or NULL; `scan` then points at it (or at the end). */
static char *find_newline(frame_t *f)
{
    char *nl = f->scan < f->len ? memchr(f->buf + f->scan, '\n', f->len - f->scan) : NULL;
    f->scan = nl ? (size_t)(nl - f->buf) : f->len;
    return nl;
}

int frame_peek(frame_t *f, uint64_t *end)
{
    if (f->reported) return FRAME_NEED_MORE;
    char *nl = find_newline(f);
    if (nl) {
        *end = f->fed - (uint64_t)(f->len - (size_t)(nl - f->buf)) + 1;
        return FRAME_LINE;
    }
    if (!f->overflow) return FRAME_NEED_MORE;
    *end = f->fed;
    return FRAME_TOO_LONG;
}

int frame_next(frame_t *f, const char **line, size_t *len)
{
    if (f->reported) return FRAME_NEED_MORE;
    char *nl = find_newline(f);
    if (!nl) {
        if (!f->overflow) return FRAME_NEED_MORE;
        f->reported = true;
        return FRAME_TOO_LONG;
    }

    char *s = f->buf + f->start;
    size_t n = (size_t)(nl - s);
    if (n > 0 && s[n - 1] == '\r') n--;
    if (n > f->max_line) {
        /* Exactly max_line + 1 bytes before a bare "\n": too long, stream dead. */
        f->overflow = f->reported = true;
        return FRAME_TOO_LONG;
    }
    s[n] = '\0';
    f->taken += (uint64_t)((size_t)(nl - f->buf) + 1 - f->start);
    f->start = f->scan = (size_t)(nl - f->buf) + 1;
    *line = s;
    *len = n;
    return FRAME_LINE;
}

size_t frame_buffered(const frame_t *f)
{
    return f->len - f->start;
}

bool frame_is_dead(const frame_t *f)
{
    return f->overflow;
}

/* ------------------------------------------------------------------ http --- */

bool frame_is_http_request(const char *line, size_t len)
{
    size_t i = 0;
    while (i < len && line[i] >= 'A' && line[i] <= 'Z')
        i++;
    if (i < 3 || i > 10 || i >= len || line[i] != ' ') return false;
    size_t target = ++i;
    while (i < len && line[i] != ' ' && (unsigned char)line[i] > ' ')
        i++;
    if (i == target || i >= len || line[i] != ' ') return false;
    i++;
    if (len - i < 6 || memcmp(line + i, "HTTP/", 5) != 0) return false;
    return line[i + 5] >= '0' && line[i + 5] <= '9';
}
