/*
 * inline_form.c — words <-> JSON requests. See inline_form.h for the rules.
 */
#include "protocol/inline_form.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/buf.h"
#include "protocol/commands.h"
#include "include/tapis_alloc.h"

/* ----------------------------------------------------------------- words --- */

typedef struct word {
    const char *s;
    size_t n;
} word_t;

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* The next word of [*p, end), or false at the end. Advances *p past it. */
static bool next_word(const char **p, const char *end, word_t *w)
{
    const char *s = *p;
    while (s < end && is_blank(*s))
        s++;
    if (s == end) {
        *p = s;
        return false;
    }
    const char *e = s;
    while (e < end && !is_blank(*e))
        e++;
    w->s = s;
    w->n = (size_t)(e - s);
    *p = e;
    return true;
}

static bool word_is(word_t w, const char *lit)
{
    return strlen(lit) == w.n && memcmp(w.s, lit, w.n) == 0;
}

/* [a-z_][a-z0-9_]*: the words that may stand for an action type on their own. */
static bool is_identifier(const char *s, size_t n)
{
    if (n == 0 || !(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z'))) return false;
    for (size_t i = 1; i < n; i++)
        if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')))
            return false;
    return true;
}

/* The position of the '=' of a key=value word (key non-empty), or 0. */
static size_t word_eq(word_t w)
{
    const char *eq = memchr(w.s, '=', w.n);
    return eq && eq > w.s ? (size_t)(eq - w.s) : 0;
}

/* ---------------------------------------------------------------- values --- */

/* Strict decimal integer: -?(0|[1-9][0-9]*) within long long. */
static bool parse_int(const char *s, size_t n, long long *out)
{
    size_t i = s[0] == '-' ? 1 : 0;
    if (i == n || n > 20) return false;
    if (s[i] == '0' && (n - i > 1 || i == 1)) return false; /* leading zero or "-0" */
    for (size_t k = i; k < n; k++)
        if (s[k] < '0' || s[k] > '9') return false;
    char buf[24];
    memcpy(buf, s, n);
    buf[n] = '\0';
    errno = 0;
    long long v = strtoll(buf, NULL, 10);
    if (errno == ERANGE) return false;
    *out = v;
    return true;
}

/* One element: true/false/null, integer, else string. */
static json_t *scalar_value(const char *s, size_t n)
{
    long long v;
    if (n == 4 && memcmp(s, "true", 4) == 0) return json_true();
    if (n == 5 && memcmp(s, "false", 5) == 0) return json_false();
    if (n == 4 && memcmp(s, "null", 4) == 0) return json_null();
    if (n > 0 && parse_int(s, n, &v)) return json_integer(v);
    return json_stringn(s, n);
}

/* A value word: a scalar, or a comma-separated array (see inline_form.h). */
static json_t *word_value(const char *s, size_t n)
{
    if (!memchr(s, ',', n)) return scalar_value(s, n);
    json_t *a = json_array();
    if (!a || (n == 1)) return a; /* "," is the empty array */
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && s[i] != ',') continue;
        if (i == n && start == n) break; /* trailing comma: no last element */
        if (json_array_append_new(a, scalar_value(s + start, i - start)) < 0) {
            json_decref(a); /* out of memory */
            return NULL;
        }
        start = i + 1;
    }
    return a;
}

/* A bare word or key=value value for a command argument, typed by its spec. */
static json_t *arg_value(const arg_spec_t *a, const char *s, size_t n)
{
    long long v;
    switch (a->type) {
    case ARG_INT:
        if (n > 0 && parse_int(s, n, &v)) return json_integer(v);
        break;
    case ARG_BOOL:
        if (n == 4 && memcmp(s, "true", 4) == 0) return json_true();
        if (n == 5 && memcmp(s, "false", 5) == 0) return json_false();
        break;
    default: break;
    }
    /* Strings stay strings; a mistyped word stays a string and the validator names it. */
    return json_stringn(s, n);
}

/* -------------------------------------------------------------- commands --- */

static int set_once(json_t *obj, const char *key, size_t keylen, json_t *v, const char *cmd,
                    tapis_error_t *err)
{
    if (!v) return proto_fail(err, TAPIS_E_INTERNAL, "%s: out of memory", cmd);
    char k[64];
    if (keylen >= sizeof(k)) {
        json_decref(v);
        return proto_fail(err, TAPIS_E_BAD_REQUEST, "%s: key '%.20s...' too long", cmd, key);
    }
    memcpy(k, key, keylen);
    k[keylen] = '\0';
    if (json_object_get(obj, k)) {
        json_decref(v);
        return proto_fail(err, TAPIS_E_BAD_REQUEST, "%s: %s: given twice", cmd, k);
    }
    if (json_object_set_new(obj, k, v) < 0)
        return proto_fail(err, TAPIS_E_INTERNAL, "%s: out of memory", cmd);
    return 0;
}

static const arg_spec_t *arg_at(const command_t *c, int position)
{
    for (const arg_spec_t *a = c->args; a < c->args + CMD_MAX_ARGS && a->name; a++)
        if (a->position == position) return a;
    return NULL;
}

static const arg_spec_t *arg_flagged(const command_t *c, int flag)
{
    for (const arg_spec_t *a = c->args; a < c->args + CMD_MAX_ARGS && a->name; a++)
        if (a->flags & flag) return a;
    return NULL;
}

/* The ARG_FLAG argument the bare word w names (create's `private`, `rated`), or NULL. */
static const arg_spec_t *flag_named(const command_t *c, word_t w)
{
    for (const arg_spec_t *a = c->args; a < c->args + CMD_MAX_ARGS && a->name; a++)
        if ((a->flags & ARG_FLAG) && word_is(w, a->name)) return a;
    return NULL;
}

/* Trim trailing blanks of [s, end). */
static const char *trim_end(const char *s, const char *end)
{
    while (end > s && is_blank(end[-1]))
        end--;
    return end;
}

static int parse_command_words(const command_t *c, json_t *msg, const char *p, const char *end,
                               tapis_error_t *err)
{
    int pos = 1;
    word_t w;
    while (next_word(&p, end, &w)) {
        const arg_spec_t *a = arg_at(c, pos);
        if (a && (a->flags & ARG_REST)) {
            json_t *text = json_stringn(w.s, (size_t)(trim_end(w.s, end) - w.s));
            return set_once(msg, a->name, strlen(a->name), text, c->name, err);
        }
        size_t eq = word_eq(w);
        if (eq) {
            const char *val = w.s + eq + 1;
            size_t vn = w.n - eq - 1;
            const arg_spec_t *named = NULL;
            for (const arg_spec_t *k = c->args; k < c->args + CMD_MAX_ARGS && k->name; k++)
                if (strlen(k->name) == eq && memcmp(k->name, w.s, eq) == 0) named = k;
            if (named) {
                if (set_once(msg, w.s, eq, arg_value(named, val, vn), c->name, err) < 0)
                    return PROTO_ERROR;
                continue;
            }
            const arg_spec_t *extras = arg_flagged(c, ARG_EXTRAS);
            if (!extras)
                return proto_fail(err, TAPIS_E_BAD_REQUEST,
                                  "%s: no argument named '%.*s' (usage: %s)", c->name,
                                  (int)(eq < 40 ? eq : 40), w.s, c->usage);
            json_t *obj = json_object_get(msg, extras->name);
            if (!obj) {
                obj = json_object();
                if (json_object_set_new(msg, extras->name, obj) < 0)
                    return proto_fail(err, TAPIS_E_INTERNAL, "%s: out of memory", c->name);
            }
            if (set_once(obj, w.s, eq, word_value(val, vn), c->name, err) < 0) return PROTO_ERROR;
            continue;
        }
        const arg_spec_t *flag = flag_named(c, w);
        if (flag) {
            if (set_once(msg, flag->name, strlen(flag->name), json_true(), c->name, err) < 0)
                return PROTO_ERROR;
            continue;
        }
        if (!a)
            return proto_fail(err, TAPIS_E_BAD_REQUEST, "%s: too many words (usage: %s)", c->name,
                              c->usage);
        if (set_once(msg, a->name, strlen(a->name), arg_value(a, w.s, w.n), c->name, err) < 0)
            return PROTO_ERROR;
        pos++;
    }
    return 0;
}

/* ---------------------------------------------------------------- action --- */

/* Words after the action type: key=value fields, room=R, seq=N, bare words into "args". */
static int parse_action_words(json_t *msg, json_t *action, const char *p, const char *end,
                              tapis_error_t *err)
{
    json_t *args = NULL;
    word_t w;
    while (next_word(&p, end, &w)) {
        size_t eq = word_eq(w);
        if (!eq) {
            if (!args) args = json_array();
            if (!args || json_array_append_new(args, word_value(w.s, w.n)) < 0) {
                json_decref(args);
                return proto_fail(err, TAPIS_E_INTERNAL, "act: out of memory");
            }
            continue;
        }
        json_t *v = word_value(w.s + eq + 1, w.n - eq - 1);
        if (eq == 4 && memcmp(w.s, "room", 4) == 0) {
            json_decref(v);
            v = json_stringn(w.s + 5, w.n - 5);
            if (set_once(msg, "room", 4, v, "act", err) < 0) goto fail;
        } else if (eq == 3 && memcmp(w.s, "seq", 3) == 0) { /* the state it answers */
            if (set_once(msg, "seq", 3, v, "act", err) < 0) goto fail;
        } else if (eq == 4 && memcmp(w.s, "type", 4) == 0) {
            json_decref(v);
            proto_fail(err, TAPIS_E_BAD_REQUEST, "act: the action type is the first word");
            goto fail;
        } else if (set_once(action, w.s, eq, v, "act", err) < 0) {
            goto fail;
        }
    }
    if (args && set_once(action, "args", 4, args, "act", err) < 0) return PROTO_ERROR;
    return 0;
fail:
    json_decref(args);
    return PROTO_ERROR;
}

/* `act TYPE words...`, `act {JSON}`, or the shortcut `TYPE words...` (type given). */
static int parse_action(json_t *msg, const char *type, size_t tn, const char *p, const char *end,
                        tapis_error_t *err)
{
    word_t w;
    if (!type) {
        const char *q = p;
        if (!next_word(&q, end, &w)) return 0; /* no action: the validator says required */
        if (w.s[0] == '{') {
            json_t *action = proto_json_parse(w.s, (size_t)(end - w.s), err);
            if (!action) return PROTO_ERROR;
            if (json_object_set_new(msg, "action", action) < 0)
                return proto_fail(err, TAPIS_E_INTERNAL, "act: out of memory");
            return 0;
        }
        if (memchr(w.s, '=', w.n))
            return proto_fail(err, TAPIS_E_BAD_REQUEST,
                              "act: the first word is the action type (usage: act TYPE ...)");
        type = w.s;
        tn = w.n;
        p = q;
    }
    json_t *action = json_pack("{s:s%}", "type", type, tn);
    /* On failure json_object_set_new() has freed action: it must not be used. */
    if (!action || json_object_set_new(msg, "action", action) < 0)
        return proto_fail(err, TAPIS_E_INTERNAL, "act: out of memory");
    return parse_action_words(msg, action, p, end, err);
}

/* ----------------------------------------------------------------- parse --- */

json_t *inline_parse(const char *line, size_t len, tapis_error_t *err)
{
    if (!proto_utf8_valid(line, len)) {
        proto_fail(err, TAPIS_E_BAD_REQUEST, "invalid UTF-8 in line");
        return NULL;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)line[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f) {
            proto_fail(err, TAPIS_E_BAD_REQUEST, "control character 0x%02x in line", c);
            return NULL;
        }
    }
    const char *p = line, *end = trim_end(line, line + len);
    word_t w;
    if (!next_word(&p, end, &w)) {
        proto_fail(err, TAPIS_E_BAD_REQUEST, "empty line");
        return NULL;
    }

    char name[40];
    const command_t *c = NULL;
    if (w.n < sizeof(name)) {
        memcpy(name, w.s, w.n);
        name[w.n] = '\0';
        c = command_lookup(name);
    }
    int r;
    json_t *msg;
    if (c && c->id != CMD_ACT) {
        msg = json_pack("{s:s}", "cmd", c->name);
        r = msg ? parse_command_words(c, msg, p, end, err) : -1;
    } else if (c || is_identifier(w.s, w.n)) {
        msg = json_pack("{s:s}", "cmd", "act");
        r = msg ? parse_action(msg, c ? NULL : w.s, w.n, p, end, err) : -1;
    } else {
        proto_fail(err, TAPIS_E_UNKNOWN_COMMAND, "unknown command '%.*s' (try: help)",
                   (int)(w.n < 40 ? w.n : 40), w.s);
        return NULL;
    }
    if (!msg) proto_fail(err, TAPIS_E_INTERNAL, "out of memory");
    if (r < 0) {
        json_decref(msg);
        return NULL;
    }
    return msg;
}

/* ---------------------------------------------------------------- render --- */

/* A word free of blanks, controls and (if no_eq) '='. */
static bool plain_word(const char *s, size_t n, bool no_eq)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c <= ' ' || c == 0x7f || (no_eq && c == '=')) return false;
    }
    return true;
}

/* Append the word for scalar v (no ','), or return false. */
static bool render_scalar(buf_t *l, const json_t *v)
{
    char buf[32];
    const char *s;
    size_t n;
    if (json_is_string(v)) {
        s = json_string_value(v);
        n = json_string_length(v);
        if (memchr(s, ',', n) || !plain_word(s, n, false)) return false;
    } else if (json_is_integer(v)) {
        n = (size_t)snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
        s = buf;
    } else if (json_is_true(v) || json_is_false(v) || json_is_null(v)) {
        s = json_is_true(v) ? "true" : json_is_false(v) ? "false" : "null";
        n = strlen(s);
    } else {
        return false;
    }
    json_t *back = scalar_value(s, n);
    bool same = back && json_equal(back, (json_t *)v);
    json_decref(back);
    if (same) buf_append(l, s, n);
    return same;
}

/* Append the word for v (scalar or flat array), or return false. */
static bool render_value(buf_t *l, const json_t *v)
{
    if (!json_is_array(v)) return render_scalar(l, v);
    size_t n = json_array_size(v);
    if (n == 0) {
        buf_puts(l, ",");
        return true;
    }
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_array_get(v, i);
        if (json_is_string(e) && json_string_length(e) == 0) return false;
        if (i > 0) buf_puts(l, ",");
        if (!render_scalar(l, e)) return false;
    }
    if (n == 1) buf_puts(l, ",");
    return true;
}

/* Render as words; false if some part cannot be expressed so. */
static bool render_words(buf_t *l, const json_t *action)
{
    const char *type = json_string_value(json_object_get(action, "type"));
    size_t tn = json_string_length(json_object_get(action, "type"));
    if (tn == 0 || type[0] == '{' || !plain_word(type, tn, true)) return false;
    if (!is_identifier(type, tn) || command_lookup(type)) buf_puts(l, "act ");
    buf_append(l, type, tn);

    const char *key;
    json_t *v;
    json_object_foreach((json_t *)action, key, v)
    {
        if (strcmp(key, "type") == 0) continue;
        if (strcmp(key, "args") == 0 && json_is_array(v) && json_array_size(v) > 0) continue;
        if (strcmp(key, "room") == 0 || !*key || !plain_word(key, strlen(key), true)) return false;
        buf_puts(l, " ");
        buf_puts(l, key);
        buf_puts(l, "=");
        if (!render_value(l, v)) return false;
    }
    json_t *args = json_object_get(action, "args");
    if (json_is_array(args)) {
        for (size_t i = 0; i < json_array_size(args); i++) {
            size_t mark = l->len + 1;
            buf_puts(l, " ");
            if (!render_value(l, json_array_get(args, i))) return false;
            /* A bare word must not read as key=value nor be empty. */
            if (l->failed || l->len == mark || word_eq((word_t){l->data + mark, l->len - mark}))
                return false;
        }
    }
    return !l->failed;
}

char *inline_render_action(const json_t *action)
{
    if (!json_is_object(action) || !json_is_string(json_object_get(action, "type"))) return NULL;
    buf_t l = BUF_INIT;
    if (render_words(&l, action)) {
        /* Proof by parsing: anything that does not come back equal takes the JSON road. */
        tapis_error_t err;
        json_t *msg = inline_parse(l.data, l.len, &err);
        bool same = msg && !json_object_get(msg, "room") &&
                    json_equal(json_object_get(msg, "action"), (json_t *)action);
        json_decref(msg);
        if (same) return buf_take(&l, NULL);
    }
    buf_free(&l);
    size_t n;
    char *json = proto_encode(action, &n); /* compact: no blank, no control byte... */
    if (!json) return NULL;
    buf_puts(&l, "act ");
    /* ...but DEL (0x7f), which jansson leaves raw and the inline form refuses. It
       can only stand inside a string: write it as an escape. */
    for (const char *p = json, *end = json + n - 1; p < end;) {
        const char *del = memchr(p, 0x7f, (size_t)(end - p));
        buf_append(&l, p, (size_t)((del ? del : end) - p));
        if (!del) break;
        buf_puts(&l, "\\u007f");
        p = del + 1;
    }
    tapis_free(json);
    return buf_take(&l, NULL);
}
