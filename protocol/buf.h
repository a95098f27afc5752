/*
 * buf.h — the growable byte buffer of tapis.
 *
 * One buffer type serves every place that builds bytes of unknown length:
 * a connection's output (server/net/conn.c), the help text (commands.c), an
 * action rendered as words (inline_form.c).
 *
 * Memory: data[len] is always a NUL byte once anything was reserved, so a
 * buffer of text is a C string. The buffer doubles as it grows.
 *
 * Allocation failure fails cleanly: the function returns BUF_ENOMEM and
 * changes nothing, and the buffer remembers it (`failed`): every later
 * append is a no-op that fails too, so a builder may append many pieces and
 * check once at the end. buf_reset() or buf_free() clears the mark.
 *
 *     buf_t b = BUF_INIT;
 *     buf_puts(&b, "hello ");
 *     buf_printf(&b, "%d", 42);
 *     char *s = buf_take(&b, NULL);   // "hello 42", or NULL if memory ran out
 */
#ifndef TAPIS_PROTOCOL_BUF_H
#define TAPIS_PROTOCOL_BUF_H

#include <stdbool.h>
#include <stddef.h>

#define BUF_ENOMEM -1

typedef struct buf {
    char *data; /* NULL until the first reserve */
    size_t len; /* bytes held, the NUL after them not counted */
    size_t cap; /* bytes allocated (at least len + 1 when data != NULL) */
    bool failed;
} buf_t;

/* An empty buffer: buf_t b = BUF_INIT; (or zeroed memory). */
#define BUF_INIT ((buf_t){NULL, 0, 0, false})

/* Release the memory; b is empty (and usable) afterwards. */
void buf_free(buf_t *b);

/* Forget the bytes but keep the memory; clears `failed`. */
void buf_reset(buf_t *b);

/*
 * Make room for n more bytes and their NUL: afterwards buf_room(b) >= n.
 * Returns 0, or BUF_ENOMEM (b unchanged, `failed` set).
 */
int buf_reserve(buf_t *b, size_t n);

/* Bytes that can be written at buf_end(b) without growing (the NUL slot excluded). */
static inline size_t buf_room(const buf_t *b)
{
    return b->cap ? b->cap - b->len - 1 : 0;
}

/* Where the next byte goes (NULL before the first reserve). */
static inline char *buf_end(const buf_t *b)
{
    return b->data ? b->data + b->len : NULL;
}

/* Count n bytes written at buf_end() (n <= buf_room()) and NUL-terminate them. */
void buf_commit(buf_t *b, size_t n);

/* Append n bytes. Returns 0, or BUF_ENOMEM. */
int buf_append(buf_t *b, const void *s, size_t n);

/* Append a C string. Returns 0, or BUF_ENOMEM. */
int buf_puts(buf_t *b, const char *s);

/* Append printf-style text. Returns 0, or BUF_ENOMEM (also for an encoding error). */
int buf_printf(buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Hand the bytes over: returns the tapis_malloc()ed, NUL-terminated data (the
 * caller tapis_free()s it; tapis_alloc.h) with its length in *len (if len != NULL), and leaves b
 * empty. Returns NULL, freeing what b held, if an append failed or nothing
 * was ever reserved.
 */
char *buf_take(buf_t *b, size_t *len);

#endif
