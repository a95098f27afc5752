/*
 * jw.c — the JSON writer's two ends (jw.h).
 */
#include <stdint.h>
#include <string.h>

#include "json/jw.h"
#include "json/out.h"

void jw_text(jw_t *w, char *buf, size_t size)
{
    memset(w, 0, sizeof *w);
    w->buf = buf;
    w->size = size;
}

void jw_tree(jw_t *w)
{
    memset(w, 0, sizeof *w);
    w->tree = true;
}

void jw_fail(jw_t *w)
{
    w->failed = true;
}

bool jw_ok(const jw_t *w)
{
    return !w->failed && w->depth == 0 && (w->tree || w->len <= w->size);
}

size_t jw_len(const jw_t *w)
{
    return w->len;
}

json_t *jw_take(jw_t *w)
{
    json_t *v = w->root;
    w->root = NULL;
    if (w->failed || w->depth > 0) {
        json_decref(v);
        w->failed = true;
        return NULL;
    }
    return v;
}

/* Is `key` right where the next value goes (one in an object, none elsewhere)? */
static bool key_fits(jw_t *w, const char *key)
{
    bool in_object = w->depth > 0 && (w->objects >> w->depth & 1u);
    if ((key != NULL) != in_object || (w->depth == 0 && (w->root || w->len > 0))) {
        w->failed = true;
        return false;
    }
    return true;
}

/* The text before a value: its comma and key. */
/* key[0, k) to dst: a few moves for up to 16 bytes (every key), not a call. */
static inline void put_key(char *dst, const char *key, size_t k)
{
    uint64_t a, b;
    uint32_t c, d;
    if (k > 16) {
        memcpy(dst, key, k);
    } else if (k >= 8) { /* two 8-byte moves that may overlap */
        memcpy(&a, key, 8);
        memcpy(&b, key + k - 8, 8);
        memcpy(dst, &a, 8);
        memcpy(dst + k - 8, &b, 8);
    } else if (k >= 4) {
        memcpy(&c, key, 4);
        memcpy(&d, key + k - 4, 4);
        memcpy(dst, &c, 4);
        memcpy(dst + k - 4, &d, 4);
    } else {
        for (size_t i = 0; i < k; i++)
            dst[i] = key[i];
    }
}

/* The text before a value: its comma and key (k bytes). */
static inline void text_lead(jw_t *w, out_t *o, const char *key, size_t k)
{
    unsigned bit = 1u << w->depth;
    if (w->depth == 0) return;
    if (w->empty & bit)
        w->empty &= ~bit;
    else
        out_char(o, ',');
    if (!key) return;
    if (o->len < o->size && o->size - o->len >= k + 3) { /* a literal, plain ASCII */
        char *p = o->buf + o->len;
        p[0] = '"';
        put_key(p + 1, key, k);
        p[k + 1] = '"';
        p[k + 2] = ':';
        o->len += k + 3;
    } else {
        out_char(o, '"');
        out_put(o, key, k);
        out_put(o, "\":", 2);
    }
}

/* Put v (a new reference, NULL when its allocation failed) where the next value goes. */
static void tree_place(jw_t *w, const char *key, json_t *v)
{
    int r = -1;
    if (!v || w->failed) {
        /* nothing to place, or nowhere trustworthy to place it */
    } else if (w->depth == 0) {
        w->root = json_incref(v);
        r = 0;
    } else if (key) {
        r = json_object_set_nocheck(w->open[w->depth - 1], key, v);
    } else {
        r = json_array_append(w->open[w->depth - 1], v);
    }
    if (r < 0) w->failed = true;
    json_decref(v);
}

static void scalar(jw_t *w, const char *key, json_t *(*make)(const void *), const void *arg,
                   void (*put)(out_t *, const void *))
{
    if (!key_fits(w, key)) return;
    if (w->tree) {
        tree_place(w, key, make(arg));
        return;
    }
    out_t o = {w->buf, w->size, w->len};
    text_lead(w, &o, key, key ? strlen(key) : 0);
    put(&o, arg);
    w->len = o.len;
}

static void open_container(jw_t *w, const char *key, size_t klen, bool object)
{
    if (!key_fits(w, key)) return;
    if (w->depth >= JW_MAX_DEPTH) {
        w->failed = true;
        return;
    }
    if (w->tree) {
        json_t *c = object ? json_object() : json_array();
        tree_place(w, key, json_incref(c)); /* c stays valid: its parent holds it */
        w->open[w->depth] = c;
        json_decref(c);
    } else {
        out_t o = {w->buf, w->size, w->len};
        text_lead(w, &o, key, klen);
        out_char(&o, object ? '{' : '[');
        w->len = o.len;
    }
    w->depth++;
    unsigned bit = 1u << w->depth;
    w->empty |= bit;
    w->objects = object ? w->objects | bit : w->objects & ~bit;
}

void jw_obj_n(jw_t *w, const char *key, size_t klen)
{
    open_container(w, key, klen, true);
}

void jw_arr_n(jw_t *w, const char *key, size_t klen)
{
    open_container(w, key, klen, false);
}

void jw_end(jw_t *w)
{
    if (w->depth == 0) {
        w->failed = true;
        return;
    }
    if (!w->tree) {
        out_t o = {w->buf, w->size, w->len};
        out_char(&o, (w->objects >> w->depth & 1u) ? '}' : ']');
        w->len = o.len;
    }
    w->depth--;
}

/* The scalars, each as a tree node and as text. */
static json_t *make_int(const void *p)
{
    return json_integer(*(const json_int_t *)p);
}
static void put_int(out_t *o, const void *p)
{
    out_integer(o, *(const json_int_t *)p);
}
static json_t *make_bool(const void *p)
{
    return json_boolean(*(const bool *)p);
}
static void put_bool(out_t *o, const void *p)
{
    if (*(const bool *)p)
        out_put(o, "true", 4);
    else
        out_put(o, "false", 5);
}
static json_t *make_null(const void *p)
{
    (void)p;
    return json_null();
}
static void put_null(out_t *o, const void *p)
{
    (void)p;
    out_put(o, "null", 4);
}
static json_t *make_str(const void *p)
{
    return json_string_nocheck(p);
}
static void put_str(out_t *o, const void *p)
{
    out_string(o, p, strlen(p));
}
static json_t *make_json(const void *p)
{
    return json_incref((json_t *)p);
}
static void put_json(out_t *o, const void *p)
{
    out_value(o, p);
}

/* The text end of a scalar, without scalar()'s indirect calls (a view
   writes about 40 scalars per seat): o set after the value's lead, or false
   when the writer failed. The caller writes the value and stores o.len. */
static inline bool text_scalar(jw_t *w, const char *key, size_t klen, out_t *o)
{
    if (!key_fits(w, key)) return false;
    *o = (out_t){w->buf, w->size, w->len};
    text_lead(w, o, key, klen);
    return true;
}

/* The common case of a view's scalars, taken first (jw_lead_inline() in
   jw.h): o set after the lead, as text_scalar() would have written it, or
   false for the general path (which then writes everything itself). */
static inline bool member_fast(jw_t *w, const char *key, size_t klen, out_t *o)
{
    char *p = jw_lead_inline(w, key, klen, 0);
    if (!p) return false;
    jw_lead_done(w, p);
    *o = (out_t){w->buf, w->size, w->len};
    return true;
}

void jw_int_any_n(jw_t *w, const char *key, size_t klen, json_int_t v)
{
    out_t o;
    if (member_fast(w, key, klen, &o)) {
        out_integer(&o, v);
        w->len = o.len;
    } else if (w->tree) {
        scalar(w, key, make_int, &v, put_int);
    } else if (text_scalar(w, key, klen, &o)) {
        out_integer(&o, v);
        w->len = o.len;
    }
}

void jw_bool_n(jw_t *w, const char *key, size_t klen, bool v)
{
    out_t o;
    if (member_fast(w, key, klen, &o)) {
        put_bool(&o, &v);
        w->len = o.len;
    } else if (w->tree) {
        scalar(w, key, make_bool, &v, put_bool);
    } else if (text_scalar(w, key, klen, &o)) {
        put_bool(&o, &v);
        w->len = o.len;
    }
}

void jw_null(jw_t *w, const char *key)
{
    scalar(w, key, make_null, NULL, put_null);
}

void jw_str_any_n(jw_t *w, const char *key, size_t klen, const char *s)
{
    out_t o;
    if (member_fast(w, key, klen, &o)) {
        out_cstring(&o, s);
        w->len = o.len;
    } else if (w->tree) {
        scalar(w, key, make_str, s, put_str);
    } else if (text_scalar(w, key, klen, &o)) {
        out_cstring(&o, s);
        w->len = o.len;
    }
}

void jw_json_text(jw_t *w, const char *key, const json_t *tree, const char *text, size_t n)
{
    if (!tree && !text) {
        w->failed = true;
        return;
    }
    if (!text || (w->tree && tree)) {
        jw_json(w, key, tree);
        return;
    }
    if (w->tree) {
        json_t *v = json_loadb(text, n, JSON_DECODE_ANY, NULL);
        if (!v) {
            w->failed = true;
            return;
        }
        jw_json(w, key, v);
        json_decref(v);
        return;
    }
    size_t klen = key ? strlen(key) : 0;
    char *p = jw_lead_inline(w, key, klen, n);
    if (p) { /* a text end: the text copied after its lead */
        memcpy(p, text, n);
        jw_lead_done(w, p + n);
        return;
    }
    out_t o;
    if (text_scalar(w, key, klen, &o)) {
        out_put(&o, text, n);
        w->len = o.len;
    }
}

void jw_json(jw_t *w, const char *key, const json_t *v)
{
    if (!v) {
        w->failed = true;
        return;
    }
    scalar(w, key, make_json, v, put_json);
}
