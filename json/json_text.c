/*
 * json_text.c — compact JSON text of a jansson value, the same bytes as
 * json_dumpb(v, ..., JSON_COMPACT | JSON_ENCODE_ANY).
 *
 * Why not json_dumpb: jansson 2.14 guards every object and array it writes
 * against reference loops by printing the container's address with snprintf
 * into a key of a hash table of "parents", then removing it. For the small
 * nested objects of a view that guard is most of the work: encoding was 39%
 * of the server's CPU at 2,000 tables, and the loop guard dominated it. The
 * server's values are trees built by the server (no loops), so this writer
 * walks them directly.
 *
 * Same output, checked against jansson by tests/json/test_json_text.c and
 * the envelope fuzzer: keys in insertion order, no spaces, the escapes \" \\
 * \b \f \n \r \t and \u00XX (upper-case hex) for other bytes below 0x20,
 * everything else (UTF-8 included) as is; reals through jansson itself.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "json/json_text.h"
#include "json/out.h"

/* s[from] is the first byte that may need an escape (or n: none, but no room). */
static void put_escaped(out_t *o, const char *s, size_t n, size_t from)
{
    static const char hex[] = "0123456789ABCDEF";
    out_char(o, '"');
    size_t run = 0; /* bytes written as they are, not yet copied */
    for (size_t i = from; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (out_plain(c)) continue;
        out_put(o, s + run, i - run);
        run = i + 1;
        char esc[6] = {'\\', 0, '0', '0', 0, 0};
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        default:
            esc[1] = 'u';
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            out_put(o, esc, 6);
            continue;
        }
        out_put(o, esc, 2);
    }
    out_put(o, s + run, n - run);
    out_char(o, '"');
}

void out_string(out_t *o, const char *s, size_t n)
{
    /* Most strings (every key, card and action name) need no escape: one pass
       that checks and copies. */
    if (o->len <= o->size && o->size - o->len >= n + 2) {
        char *p = o->buf + o->len;
        size_t i = 0;
        p[0] = '"';
        while (i < n && out_plain((unsigned char)s[i])) {
            p[i + 1] = s[i];
            i++;
        }
        if (i == n) {
            p[n + 1] = '"';
            o->len += n + 2;
            return;
        }
        put_escaped(o, s, n, i);
        return;
    }
    size_t i = 0;
    while (i < n && out_plain((unsigned char)s[i]))
        i++;
    put_escaped(o, s, n, i);
}

void out_cstring(out_t *o, const char *s)
{
    /* The pass above, up to the NUL, while there is room: a string with an
       escape or past the room starts again with its length. */
    size_t start = o->len;
    if (o->len < o->size) {
        char *p = o->buf + o->len, *end = o->buf + o->size;
        const char *q = s;
        *p++ = '"';
        while (p < end && out_plain((unsigned char)*q))
            *p++ = *q++;
        if (!*q && p < end) {
            *p++ = '"';
            o->len = (size_t)(p - o->buf);
            return;
        }
    }
    o->len = start;
    out_string(o, s, strlen(s));
}

/*
 * A real as jansson writes it (17 significant digits, "%.17g"), without
 * calling jansson: json_dumpb() allocates even for a number (its loop
 * guard's table), and a failed allocation there would leave the number out.
 * Like jansson: a real always shows a '.' or an exponent ("1.0", not "1"),
 * and an exponent has no '+' and no leading zeros ("1e20", "1e-5").
 */
static size_t real_text(double d, char *buf, size_t size)
{
    int k = snprintf(buf, size, "%.17g", d);
    if (k < 0 || (size_t)k + 3 > size) return 0;
    size_t n = (size_t)k;
    char *e = memchr(buf, 'e', n);
    if (!e && !memchr(buf, '.', n)) {
        memcpy(buf + n, ".0", 2);
        return n + 2;
    }
    if (!e) return n;
    char *from = e + 1, *to = e + 1;
    if (*from == '-') from++, to++;
    if (*from == '+') from++;
    while (*from == '0' && from[1])
        from++;
    size_t tail = n - (size_t)(from - buf);
    memmove(to, from, tail);
    return (size_t)(to - buf) + tail;
}

void out_value(out_t *o, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        bool first = true;
        out_char(o, '{');
        for (void *it = json_object_iter((json_t *)v); it;
             it = json_object_iter_next((json_t *)v, it)) {
            if (!first) out_char(o, ',');
            first = false;
            out_string(o, json_object_iter_key(it), json_object_iter_key_len(it));
            out_char(o, ':');
            out_value(o, json_object_iter_value(it));
        }
        out_char(o, '}');
        break;
    }
    case JSON_ARRAY: {
        size_t i;
        json_t *item;
        out_char(o, '[');
        json_array_foreach(v, i, item)
        {
            if (i) out_char(o, ',');
            out_value(o, item);
        }
        out_char(o, ']');
        break;
    }
    case JSON_STRING: out_string(o, json_string_value(v), json_string_length(v)); break;
    case JSON_INTEGER: out_integer(o, json_integer_value(v)); break;
    case JSON_REAL: {
        char tmp[64];
        out_put(o, tmp, real_text(json_real_value(v), tmp, sizeof tmp));
        break;
    }
    case JSON_TRUE: out_put(o, "true", 4); break;
    case JSON_FALSE: out_put(o, "false", 5); break;
    case JSON_NULL: out_put(o, "null", 4); break;
    }
}

size_t json_text(const json_t *v, char *buf, size_t size)
{
    out_t o = {buf, size, 0};
    if (v) out_value(&o, v);
    return o.len;
}

size_t json_text_len(const char *t, size_t n)
{
    int depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < n; i++) {
        char c = t[i];
        if (in_string) {
            if (c == '\\') {
                i++;
            } else if (c == '"') {
                in_string = false;
                if (depth == 0) return i + 1;
            }
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (depth == 0) return i; /* after a number, true, false or null */
            if (--depth == 0) return i + 1;
        } else if (c == ',' && depth == 0) {
            return i;
        }
    }
    return n;
}
