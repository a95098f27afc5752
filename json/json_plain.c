/*
 * json_plain.c — a one-pass parse of plain JSON into a jansson tree
 * (json_plain.h). Each function returns NULL for "not plain" as for an
 * allocation that failed: the caller falls back to json_loadb() for both.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "json/json_plain.h"

typedef struct {
    const char *p, *end;
    int depth, max_depth;
} reader_t;

static void skip_space(reader_t *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

/* Step over c when it comes next. */
static bool take(reader_t *r, char c)
{
    if (r->p >= r->end || *r->p != c) return false;
    r->p++;
    return true;
}

/* After the opening quote: the string's bytes [*s, *s + *n) if plain. */
static bool plain_string(reader_t *r, const char **s, size_t *n)
{
    const char *q = r->p;
    while (q < r->end && *q != '"') {
        unsigned char c = (unsigned char)*q;
        if (c < 0x20 || c > 0x7e || c == '\\') return false;
        q++;
    }
    if (q == r->end) return false;
    *s = r->p;
    *n = (size_t)(q - r->p);
    r->p = q + 1;
    return true;
}

/* An integer of 1 to 18 digits (no real, no leading zero), at r->p, into *out. */
static bool plain_digits(reader_t *r, int64_t *out)
{
    bool minus = r->p < r->end && *r->p == '-';
    const char *q = r->p + minus, *digits = q;
    int64_t v = 0;
    while (q < r->end && *q >= '0' && *q <= '9' && q - digits < 18)
        v = v * 10 + (*q++ - '0'); /* 18 digits at most: no overflow */
    size_t n = (size_t)(q - digits);
    if (n == 0 || (digits[0] == '0' && n > 1)) return false;
    /* a 19th digit, a fraction or an exponent: jansson's to parse */
    if (q < r->end && (*q == '.' || *q == 'e' || *q == 'E' || (*q >= '0' && *q <= '9')))
        return false;
    r->p = q;
    *out = minus ? -v : v;
    return true;
}

static json_t *plain_integer(reader_t *r)
{
    int64_t v;
    return plain_digits(r, &v) ? json_integer(v) : NULL;
}

/* The word of true, false or null at r->p, whose first letter is c: stepped
   over, and its length; 0 if it is not there. */
static size_t take_word(reader_t *r, char c)
{
    const char *word = c == 't' ? "true" : c == 'f' ? "false" : c == 'n' ? "null" : NULL;
    size_t n = word ? strlen(word) : 0;
    if (!word || (size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0) return 0;
    r->p += n;
    return n;
}

static json_t *plain_value(reader_t *r);

/* One "key": value of an object. */
static bool plain_member(reader_t *r, json_t *o)
{
    const char *k;
    size_t kn;
    skip_space(r);
    if (!take(r, '"') || !plain_string(r, &k, &kn)) return false;
    skip_space(r);
    if (!take(r, ':')) return false;
    json_t *v = plain_value(r);
    /* a key seen before replaces its value: the size tells, with no lookup */
    size_t size = json_object_size(o);
    return v && json_object_setn_new_nocheck(o, k, kn, v) == 0 && json_object_size(o) > size;
}

static bool plain_element(reader_t *r, json_t *a)
{
    json_t *v = plain_value(r);
    return v && json_array_append_new(a, v) == 0;
}

/* After the opening bracket: the items of the container c (none, or one
   read by item and more after each comma) up to close. c, or NULL. */
static json_t *plain_items(reader_t *r, json_t *c, char close, bool (*item)(reader_t *, json_t *))
{
    if (!c) return NULL;
    skip_space(r);
    if (take(r, close)) return c;
    do {
        if (!item(r, c)) break;
        skip_space(r);
        if (take(r, close)) return c;
    } while (take(r, ','));
    json_decref(c);
    return NULL;
}

/* A value, after the whitespace before it. */
static json_t *plain_value(reader_t *r)
{
    skip_space(r);
    if (r->p >= r->end) return NULL;
    char c = *r->p;
    if (c == '{' || c == '[') {
        if (r->depth == r->max_depth) return NULL;
        r->p++;
        r->depth++;
        json_t *v = c == '{' ? plain_items(r, json_object(), '}', plain_member)
                             : plain_items(r, json_array(), ']', plain_element);
        r->depth--;
        return v;
    }
    if (c == '"') {
        const char *s;
        size_t n;
        r->p++;
        return plain_string(r, &s, &n) ? json_stringn_nocheck(s, n) : NULL;
    }
    if (c == '-' || (c >= '0' && c <= '9')) return plain_integer(r);
    if (!take_word(r, c)) return NULL;
    return c == 't' ? json_true() : c == 'f' ? json_false() : json_null();
}

json_t *json_plain_parse(const char *s, size_t n, int max_depth)
{
    reader_t r = {s, s + n, 0, max_depth};
    skip_space(&r);
    if (r.p >= r.end || (*r.p != '{' && *r.p != '[')) return NULL;
    json_t *v = plain_value(&r);
    skip_space(&r);
    if (v && r.p != r.end) {
        json_decref(v);
        return NULL;
    }
    return v;
}

/* ------------------------------------------------------------------------ */
/* Members, unbuilt                                                         */
/* ------------------------------------------------------------------------ */

/* A container's text from its opening bracket: where it ends, by its
   brackets outside its strings (plain strings: no escape to follow). */
static bool container_end(reader_t *r)
{
    int depth = 0;
    for (const char *q = r->p; q < r->end; q++) {
        char c = *q;
        if (c == '"') {
            q = memchr(q + 1, '"', (size_t)(r->end - q - 1));
            if (!q) return false;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if ((c == '}' || c == ']') && --depth == 0) {
            r->p = q + 1;
            return true;
        }
    }
    return false;
}

static bool member_value(reader_t *r, json_plain_member_t *m)
{
    skip_space(r);
    if (r->p >= r->end) return false;
    char c = *r->p;
    m->kind = c;
    m->value = r->p;
    if (c == '{' || c == '[') {
        if (!container_end(r)) return false;
        m->vlen = (size_t)(r->p - m->value);
        return true;
    }
    if (c == '"') {
        r->p++;
        m->kind = 's';
        return plain_string(r, &m->value, &m->vlen);
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        int64_t v;
        m->kind = 'i';
        if (!plain_digits(r, &v)) return false;
        m->integer = v;
        m->vlen = (size_t)(r->p - m->value);
        return true;
    }
    m->vlen = take_word(r, c);
    return m->vlen > 0;
}

int json_plain_members(const char *s, size_t n, json_plain_member_t *m, int max)
{
    reader_t r = {s, s + n, 0, 0};
    int count = 0;
    skip_space(&r);
    if (!take(&r, '{')) return -1;
    skip_space(&r);
    if (!take(&r, '}')) {
        do {
            if (count == max) return -1;
            json_plain_member_t *x = &m[count];
            skip_space(&r);
            if (!take(&r, '"') || !plain_string(&r, &x->key, &x->klen)) return -1;
            for (int i = 0; i < count; i++)
                if (m[i].klen == x->klen && memcmp(m[i].key, x->key, x->klen) == 0) return -1;
            skip_space(&r);
            if (!take(&r, ':') || !member_value(&r, x)) return -1;
            count++;
            skip_space(&r);
        } while (take(&r, ','));
        if (!take(&r, '}')) return -1;
    }
    skip_space(&r);
    return r.p == r.end ? count : -1;
}

/* ------------------------------------------------------------------------ */
/* Shared trees                                                             */
/* ------------------------------------------------------------------------ */

/* Direct-mapped by the text's hash: a text displaces the one in its slot. */
enum { SHARED_SLOTS = 256 };
typedef struct shared {
    json_t *tree; /* NULL: the slot is empty */
    uint32_t hash;
    int depth;
    size_t n;
    char text[JSON_PLAIN_SHARED_TEXT];
} shared_t;
static shared_t shared[SHARED_SLOTS];

static uint32_t text_hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

json_t *json_plain_shared(const char *s, size_t n, int max_depth)
{
    if (n > JSON_PLAIN_SHARED_TEXT) return json_plain_parse(s, n, max_depth);
    uint32_t h = text_hash(s, n);
    shared_t *e = &shared[h % SHARED_SLOTS];
    if (e->tree && e->hash == h && e->n == n && e->depth == max_depth && memcmp(e->text, s, n) == 0)
        return json_incref(e->tree);
    json_t *v = json_plain_parse(s, n, max_depth);
    if (!v) return NULL;
    json_decref(e->tree);
    e->tree = json_incref(v);
    e->hash = h;
    e->depth = max_depth;
    e->n = n;
    memcpy(e->text, s, n);
    return v;
}

void json_plain_shared_clear(void)
{
    for (int i = 0; i < SHARED_SLOTS; i++) {
        json_decref(shared[i].tree);
        shared[i].tree = NULL;
    }
}
