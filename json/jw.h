/*
 * jw.h — one JSON writer with two ends: compact text in a caller's buffer,
 * or a jansson tree.
 *
 * A game writes each view once, through these calls. The server takes the
 * text end: a state goes from the game's structs to the wire without a tree
 * built, encoded and freed for every seat of every change (that was about a
 * third of its CPU at 2,000 tables). Bots, tests and the kit take the tree
 * end. The same calls drive both, so the two cannot drift apart: the text is
 * byte for byte json_text() of the tree (tests/json/test_jw.c, and every
 * game's views in tests/core/test_conformance.c).
 *
 * Every value is written with the key it takes in the object that is open,
 * or NULL in an array or at the top. Keys are the program's string literals:
 * plain ASCII, written as they are (no escape). String values are UTF-8 the
 * caller vouches for (the tree takes them unchecked); the text escapes them
 * as json_text() does.
 *
 * A misuse (a key in an array, none in an object, an end with nothing open,
 * more than JW_MAX_DEPTH levels, a second value at the top) or, in a tree,
 * an allocation that fails makes the writer fail: jw_ok() says so, and
 * jw_take() returns NULL. The text end never allocates.
 */
#ifndef TAPIS_JSON_JW_H
#define TAPIS_JSON_JW_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define JW_MAX_DEPTH 16

typedef struct jw {
    /* The text end: the bytes so far; len counts past size when they did
       not fit (only the first size bytes are stored). */
    char *buf;
    size_t size, len;
    /* The tree end: the containers open, outermost first, and the value. */
    json_t *open[JW_MAX_DEPTH];
    json_t *root;
    int depth;
    unsigned objects; /* bit d: the container at depth d (from 1) is an object */
    unsigned empty;   /* text: bit d: that container has no member yet */
    bool tree, failed;
} jw_t;

/* Write text into buf[0, size). A text writer is a plain value: a copy
   taken between two calls goes on from that point, into the same buffer
   (the server writes the common start of a state once and each seat's part
   after it). A tree writer must not be copied: its copies would share the
   containers it has open. */
void jw_text(jw_t *w, char *buf, size_t size);
/* Build a jansson tree. */
void jw_tree(jw_t *w);

/* Does w write text (jw_text()), not a tree? */
static inline bool jw_is_text(const jw_t *w)
{
    return !w->tree;
}

/* The value is complete (nothing left open), nothing failed and, for text,
   everything fit. */
bool jw_ok(const jw_t *w);
/* The text's length so far (more than the buffer's size if it did not fit). */
size_t jw_len(const jw_t *w);
/* The tree written (a new reference), or NULL if the writer failed or holds
   no value. The writer then holds nothing (call it once). */
json_t *jw_take(jw_t *w);

/*
 * The calls a view makes most take their key's length too: JW_KLEN() is
 * folded at compile time for a literal (0 for NULL), so the text end copies
 * a key without measuring it. jw_obj() and the others below are macros over
 * them (each names its key twice: a plain name or a literal, no side
 * effect).
 */
#define JW_KLEN(key) __builtin_strlen((key) ? (key) : "")
void jw_obj_n(jw_t *w, const char *key, size_t klen); /* open an object */
void jw_arr_n(jw_t *w, const char *key, size_t klen); /* open an array */
/* The scalars (a string value: UTF-8 the caller vouches for). */
void jw_int_any_n(jw_t *w, const char *key, size_t klen, json_int_t v);
void jw_bool_n(jw_t *w, const char *key, size_t klen, bool v);
void jw_str_any_n(jw_t *w, const char *key, size_t klen, const char *s);
/*
 * The inline text end of a scalar (jw_int, jw_str below): for a text end
 * inside a container, a key where an object needs one (none in an array),
 * and room for the lead and `more` bytes, writes the lead (a comma unless
 * the container is empty, then "key": in an object) and returns where the
 * value goes; else NULL, and the function's general path writes it all.
 * The caller that writes its value calls jw_lead_done(). The key's length
 * is a constant where a view calls it: its copy is a few moves.
 */
static inline char *jw_lead_inline(const jw_t *w, const char *key, size_t klen, size_t more)
{
    unsigned bit = 1u << w->depth;
    if (w->tree || w->depth == 0 || (key != NULL) != ((w->objects & bit) != 0) ||
        w->len > w->size || w->size - w->len < klen + 4 + more)
        return NULL;
    char *p = w->buf + w->len;
    if (!(w->empty & bit)) *p++ = ',';
    if (key) {
        *p++ = '"';
        memcpy(p, key, klen);
        p += klen;
        *p++ = '"';
        *p++ = ':';
    }
    return p;
}

/* The value written up to end after jw_lead_inline(): the container has a member. */
static inline void jw_lead_done(jw_t *w, char *end)
{
    w->empty &= ~(1u << w->depth);
    w->len = (size_t)(end - w->buf);
}

/* A view writes about 30 integers per change, nearly all in 0..999: those
   are written inline, every other by jw_int_any_n(). The same bytes either
   way (test_jw). */
static inline void jw_int_n(jw_t *w, const char *key, size_t klen, json_int_t v)
{
    char *p = v >= 0 && v <= 999 ? jw_lead_inline(w, key, klen, 3) : NULL;
    if (!p) {
        jw_int_any_n(w, key, klen, v);
        return;
    }
    if (v >= 100) *p++ = (char)('0' + v / 100);
    if (v >= 10) *p++ = (char)('0' + v / 10 % 10);
    *p++ = (char)('0' + v % 10);
    jw_lead_done(w, p);
}

/* The same for a string of up to JW_STR_INLINE bytes that needs no escape
   (a view's names: phases, cards, events); others go to jw_str_any_n().
   The bytes past the text are the writer's scratch. */
#define JW_STR_INLINE 16
static inline void jw_str_n(jw_t *w, const char *key, size_t klen, const char *s)
{
    char *p = jw_lead_inline(w, key, klen, JW_STR_INLINE + 2);
    if (p) {
        *p++ = '"';
        size_t i = 0;
        while (i < JW_STR_INLINE && (unsigned char)s[i] >= 0x20 && s[i] != '"' && s[i] != '\\')
            *p++ = s[i++];
        if (!s[i]) {
            *p++ = '"';
            jw_lead_done(w, p);
            return;
        }
    }
    jw_str_any_n(w, key, klen, s);
}
#define jw_obj(w, key) jw_obj_n((w), (key), JW_KLEN(key))
#define jw_arr(w, key) jw_arr_n((w), (key), JW_KLEN(key))
#define jw_int(w, key, v) jw_int_n((w), (key), JW_KLEN(key), (v))
#define jw_bool(w, key, v) jw_bool_n((w), (key), JW_KLEN(key), (v))
#define jw_str(w, key, s) jw_str_n((w), (key), JW_KLEN(key), (s))
void jw_end(jw_t *w); /* close the innermost */

void jw_null(jw_t *w, const char *key);
/* A value given as a jansson tree, its text (compact JSON, as json_text()
   writes it), or both: the text end copies the text (without one, it
   encodes the tree), the tree end shares the tree (without one, it parses
   the text). */
void jw_json_text(jw_t *w, const char *key, const json_t *tree, const char *text, size_t n);
/* Make w fail: a part of what it writes could not be made (out of memory). */
void jw_fail(jw_t *w);
/* A jansson value (borrowed). The tree shares it, so it must not change
   afterwards (a game's append-only parts: its events, a round's summary). */
void jw_json(jw_t *w, const char *key, const json_t *v);

#endif
