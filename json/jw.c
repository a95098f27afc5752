/*
 * jw.c — the JSON writer's two ends (jw.h).
 */
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
static inline void text_lead(jw_t *w, out_t *o, const char *key)
{
    unsigned bit = 1u << w->depth;
    if (w->depth == 0) return;
    /* In locals: a store through a char pointer could alias o's fields. */
    char *buf = o->buf;
    size_t len = o->len, size = o->size;
    if (w->empty & bit) {
        w->empty &= ~bit;
    } else {
        if (len < size) buf[len] = ',';
        len++;
    }
    if (key) { /* a literal, plain ASCII, a few bytes: copied as it goes */
        if (len < size) buf[len] = '"';
        for (len++; *key; key++, len++)
            if (len < size) buf[len] = *key;
        if (len + 1 < size) {
            buf[len] = '"';
            buf[len + 1] = ':';
        } else if (len < size) {
            buf[len] = '"';
        }
        len += 2;
    }
    o->len = len;
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
    text_lead(w, &o, key);
    put(&o, arg);
    w->len = o.len;
}

static void open_container(jw_t *w, const char *key, bool object)
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
        text_lead(w, &o, key);
        out_char(&o, object ? '{' : '[');
        w->len = o.len;
    }
    w->depth++;
    unsigned bit = 1u << w->depth;
    w->empty |= bit;
    w->objects = object ? w->objects | bit : w->objects & ~bit;
}

void jw_obj(jw_t *w, const char *key)
{
    open_container(w, key, true);
}

void jw_arr(jw_t *w, const char *key)
{
    open_container(w, key, false);
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
static inline bool text_scalar(jw_t *w, const char *key, out_t *o)
{
    if (!key_fits(w, key)) return false;
    *o = (out_t){w->buf, w->size, w->len};
    text_lead(w, o, key);
    return true;
}

void jw_int(jw_t *w, const char *key, json_int_t v)
{
    out_t o;
    if (w->tree) {
        scalar(w, key, make_int, &v, put_int);
    } else if (text_scalar(w, key, &o)) {
        out_integer(&o, v);
        w->len = o.len;
    }
}

void jw_bool(jw_t *w, const char *key, bool v)
{
    out_t o;
    if (w->tree) {
        scalar(w, key, make_bool, &v, put_bool);
    } else if (text_scalar(w, key, &o)) {
        put_bool(&o, &v);
        w->len = o.len;
    }
}

void jw_null(jw_t *w, const char *key)
{
    scalar(w, key, make_null, NULL, put_null);
}

void jw_str(jw_t *w, const char *key, const char *s)
{
    out_t o;
    if (w->tree) {
        scalar(w, key, make_str, s, put_str);
    } else if (text_scalar(w, key, &o)) {
        out_cstring(&o, s);
        w->len = o.len;
    }
}

typedef struct text_arg {
    const char *text;
    size_t n;
} text_arg_t;

static void put_text(out_t *o, const void *p)
{
    const text_arg_t *t = p;
    out_put(o, t->text, t->n);
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
    text_arg_t t = {text, n};
    scalar(w, key, NULL, &t, put_text); /* a text end: no tree node to make */
}

void jw_json(jw_t *w, const char *key, const json_t *v)
{
    if (!v) {
        w->failed = true;
        return;
    }
    scalar(w, key, make_json, v, put_json);
}
