/* buf.c — the growable byte buffer. See buf.h. */
#include "protocol/buf.h"

#include "include/tapis_alloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUF_FIRST_CAP 256 /* the first allocation, unless more is asked */

void buf_free(buf_t *b)
{
    tapis_free(b->data);
    *b = BUF_INIT;
}

void buf_reset(buf_t *b)
{
    b->len = 0;
    b->failed = false;
    if (b->data) b->data[0] = '\0';
}

int buf_reserve(buf_t *b, size_t n)
{
    if (b->failed) return BUF_ENOMEM;
    if (b->cap && b->cap - b->len - 1 >= n) return 0;
    if (n > SIZE_MAX - 1 - b->len) goto fail;
    size_t need = b->len + n + 1, cap = b->cap ? b->cap : BUF_FIRST_CAP;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) {
            cap = need;
            break;
        }
        cap *= 2;
    }
    char *p = tapis_realloc(b->data, cap);
    if (!p) goto fail;
    if (!b->data) p[0] = '\0';
    b->data = p;
    b->cap = cap;
    return 0;
fail:
    b->failed = true;
    return BUF_ENOMEM;
}

void buf_commit(buf_t *b, size_t n)
{
    b->len += n;
    b->data[b->len] = '\0';
}

int buf_append(buf_t *b, const void *s, size_t n)
{
    if (buf_reserve(b, n) < 0) return BUF_ENOMEM;
    if (n) memcpy(b->data + b->len, s, n);
    buf_commit(b, n);
    return 0;
}

int buf_puts(buf_t *b, const char *s)
{
    return buf_append(b, s, strlen(s));
}

int buf_printf(buf_t *b, const char *fmt, ...)
{
    if (b->failed) return BUF_ENOMEM;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf_end(b), b->cap ? buf_room(b) + 1 : 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        if (b->data) b->data[b->len] = '\0';
        b->failed = true;
        return BUF_ENOMEM;
    }
    if (!b->data || (size_t)n > buf_room(b)) {
        if (buf_reserve(b, (size_t)n) < 0) {
            if (b->data) b->data[b->len] = '\0'; /* undo a truncated write */
            return BUF_ENOMEM;
        }
        va_start(ap, fmt);
        vsnprintf(buf_end(b), buf_room(b) + 1, fmt, ap);
        va_end(ap);
    }
    buf_commit(b, (size_t)n);
    return 0;
}

char *buf_take(buf_t *b, size_t *len)
{
    char *data = b->failed ? NULL : b->data;
    if (!data) tapis_free(b->data);
    if (len) *len = data ? b->len : 0;
    *b = BUF_INIT;
    return data;
}
