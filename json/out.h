/*
 * out.h — the byte sink json_text.c and jw.c share (internal to json/).
 *
 * Writes compact JSON into a caller's buffer and counts past its end: `len`
 * is the whole text's length, of which only the first `size` bytes are
 * stored. Nothing here allocates.
 */
#ifndef TAPIS_JSON_OUT_H
#define TAPIS_JSON_OUT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct out {
    char *buf;
    size_t size, len;
} out_t;

static inline void out_put(out_t *o, const char *s, size_t n)
{
    if (o->len <= o->size && o->size - o->len >= n) {
        memcpy(o->buf + o->len, s, n);
    } else if (o->len < o->size) {
        memcpy(o->buf + o->len, s, o->size - o->len);
    }
    o->len += n;
}

static inline void out_char(out_t *o, char c)
{
    if (o->len < o->size) o->buf[o->len] = c;
    o->len++;
}

/* The bytes a JSON string must escape: the control characters, '"' and '\\'. */
static inline bool out_plain(unsigned char c)
{
    return c >= 0x20 && c != '"' && c != '\\';
}

/* A string of n bytes, quoted, escaped as jansson does. */
void out_string(out_t *o, const char *s, size_t n);
/* The same for a NUL-terminated string. */
void out_cstring(out_t *o, const char *s);

/* Byte by byte, not memcpy: the texts here are a few bytes long (numbers,
   keys, card names), for which a call costs more than the copy. */
static inline void out_integer(out_t *o, json_int_t v)
{
    if (v >= 0 && v < 10) {
        out_char(o, (char)('0' + v));
        return;
    }
    char tmp[24], *p = tmp + sizeof tmp;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) *--p = '-';
    size_t n = (size_t)(tmp + sizeof tmp - p);
    if (o->len <= o->size && o->size - o->len >= n) {
        char *q = o->buf + o->len;
        for (size_t i = 0; i < n; i++)
            q[i] = p[i];
        o->len += n;
    } else {
        out_put(o, p, n);
    }
}
/* Any jansson value (a tree: no reference loop). */
void out_value(out_t *o, const json_t *v);

#endif
