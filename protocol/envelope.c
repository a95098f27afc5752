/*
 * envelope.c — line -> request, replies and events -> line. See envelope.h.
 */
#include "protocol/envelope.h"
#include "json/json_plain.h"
#include "json/json_text.h"
#include "json/jw.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/commands.h"
#include "protocol/inline_form.h"
#include "include/tapis_alloc.h"
#include "protocol/utf8.h"

/* ----------------------------------------------------------------- utf-8 --- */

bool proto_utf8_valid(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < len) {
        size_t k = utf8_decode(p + i, len - i, NULL);
        if (k == 0) return false;
        i += k;
    }
    return true;
}

/* Replace every byte that is not part of valid UTF-8 by '?', in place. */
static void utf8_scrub(char *s)
{
    unsigned char *p = (unsigned char *)s;
    size_t len = strlen(s);
    size_t i = 0;
    while (i < len) {
        size_t k = utf8_decode(p + i, len - i, NULL);
        if (k == 0) {
            p[i++] = '?';
        } else {
            i += k;
        }
    }
}

/* ---------------------------------------------------------------- errors --- */

int proto_fail(tapis_error_t *err, const char *code, const char *fmt, ...)
{
    va_list ap;
    err->code = code;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    va_end(ap);
    /* Messages quote client input; truncation may also split a character. */
    utf8_scrub(err->message);
    return PROTO_ERROR;
}

/* ------------------------------------------------------------------ json --- */

/*
 * Deepest nesting of s, counted outside strings, stopping early past limit.
 * Runs before jansson so that no parser ever recurses on hostile depth.
 */
static int json_depth(const char *s, size_t len, int limit)
{
    int depth = 0, max = 0;
    bool in_string = false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            if (++depth > max) max = depth;
            if (max > limit) break;
        } else if (c == '}' || c == ']') {
            depth--;
        }
    }
    return max;
}

/* v if it is an object; else NULL, v freed and err filled. */
static json_t *request_object(json_t *v, tapis_error_t *err)
{
    if (json_is_object(v)) return v;
    json_decref(v);
    proto_fail(err, TAPIS_E_BAD_REQUEST, "a request must be a JSON object");
    return NULL;
}

json_t *proto_json_parse(const char *line, size_t len, tapis_error_t *err)
{
    /* Plain text (every request in play) in one pass; jansson for the rest,
       errors included. */
    json_t *v = json_plain_parse(line, len, PROTO_MAX_DEPTH);
    if (v) return request_object(v, err);
    if (memchr(line, '\0', len)) {
        proto_fail(err, TAPIS_E_BAD_JSON, "NUL byte in JSON line");
        return NULL;
    }
    if (json_depth(line, len, PROTO_MAX_DEPTH) > PROTO_MAX_DEPTH) {
        proto_fail(err, TAPIS_E_BAD_JSON, "JSON nested deeper than %d levels", PROTO_MAX_DEPTH);
        return NULL;
    }
    json_error_t jerr;
    unsigned long failures = tapis_alloc_failures();
    v = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
    /* jansson often reports a failed allocation as a syntax error, and its lexer
       drops a character it has no room for (lex_save()'s result is not checked):
       a value is parsed without it. The count tells: whatever came is thrown away. */
    if ((!v && json_error_code(&jerr) == json_error_out_of_memory) ||
        tapis_alloc_failures() != failures) {
        json_decref(v);
        proto_fail(err, TAPIS_E_INTERNAL, "out of memory");
        return NULL;
    }
    if (!v) {
        proto_fail(err, TAPIS_E_BAD_JSON, "invalid JSON at column %d: %s", jerr.column, jerr.text);
        return NULL;
    }
    return request_object(v, err);
}

/* --------------------------------------------------------------- request --- */

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/*
 * After a failed inline parse: recover the name to echo in "re" from the
 * first word (the command, or "act" for an action shortcut), if it is clean.
 * Returns -1 when memory ran out, else 0.
 */
static int inline_recover_re(proto_request_t *req, const char *s, size_t len)
{
    size_t n = 0;
    while (n < len && !is_blank(s[n]))
        n++;
    if (n == 0 || n > 64 || !proto_utf8_valid(s, n)) return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) return 0;
    char word[65];
    memcpy(word, s, n);
    word[n] = '\0';
    const command_t *c = command_lookup(word);
    if (c) {
        req->re = c->name;
        return 0;
    }
    bool ident = word[0] == '_' || (word[0] >= 'a' && word[0] <= 'z');
    for (size_t i = 1; i < n && ident; i++)
        ident = word[i] == '_' || (word[i] >= 'a' && word[i] <= 'z') ||
                (word[i] >= '0' && word[i] <= '9');
    if (ident) {
        req->re = command_get(CMD_ACT)->name;
        return 0;
    }
    req->msg = json_pack("{s:s}", "cmd", word);
    if (!req->msg) return -1;
    req->re = json_string_value(json_object_get(req->msg, "cmd"));
    return 0;
}

/* The most members a request read unbuilt may have (more: built as a tree). */
#define FLAT_MEMBERS 8
enum { FLAT_NO = 2 }; /* not for the unbuilt path: build the tree */

static bool key_is(const json_plain_member_t *m, const char *key)
{
    size_t k = strlen(key);
    return m->klen == k && memcmp(m->key, key, k) == 0;
}

static const json_plain_member_t *member(const json_plain_member_t *m, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (key_is(&m[i], key)) return &m[i];
    return NULL;
}

/* A member's value as jansson's, or NULL (not plain enough, or no memory:
   the tree's path says which). A container is shared (json_plain_shared():
   an action sent again is not built again): nothing here changes it. */
static json_t *member_json(const json_plain_member_t *m)
{
    switch (m->kind) {
    case 's': return json_stringn_nocheck(m->value, m->vlen);
    case 'i': return json_integer(m->integer);
    case 't': return json_true();
    case 'f': return json_false();
    case 'n': return json_null();
    default: return json_plain_shared(m->value, m->vlen, PROTO_MAX_DEPTH - 1);
    }
}

static int flat_not_made(unsigned long failures, tapis_error_t *err)
{
    if (tapis_alloc_failures() == failures) return FLAT_NO;
    return proto_fail(err, TAPIS_E_INTERNAL, "out of memory");
}

/*
 * A plain JSON request of a command whose handler reads only its arguments
 * (CMD_F_ARGS): its arguments and id made from the members, and no object.
 * PROTO_OK or PROTO_ERROR as proto_request_parse() (the same answers, by
 * the same checks); FLAT_NO, with nothing kept, for any other line, or
 * when in doubt: the tree's path then parses it and says what it is.
 */
static int parse_flat(proto_request_t *req, const char *s, size_t n, tapis_error_t *err)
{
    json_plain_member_t m[FLAT_MEMBERS];
    int count = json_plain_members(s, n, m, FLAT_MEMBERS);
    if (count < 0) return FLAT_NO;
    const json_plain_member_t *cmd = member(m, count, "cmd"), *id = member(m, count, "id");
    char name[32];
    if (!cmd || cmd->kind != 's' || cmd->vlen >= sizeof name) return FLAT_NO;
    memcpy(name, cmd->value, cmd->vlen);
    name[cmd->vlen] = '\0';
    const command_t *c = command_lookup(name);
    if (!c || !(c->flags & CMD_F_ARGS)) return FLAT_NO;
    /* Containers are made only for arguments: another is left to the tree's
       path, which checks all of it. */
    for (int i = 0; i < count; i++) {
        if ((m[i].kind != '{' && m[i].kind != '[') || &m[i] == id) continue;
        bool arg = false;
        for (int k = 0; k < CMD_MAX_ARGS && c->args[k].name; k++)
            arg = arg || key_is(&m[i], c->args[k].name);
        if (!arg) return FLAT_NO;
    }
    req->owned = true;
    /* A value not made: not plain (the tree's path says what it is), or no
       memory (said here, as there: the count tells). An id not made leaves
       the reply without it, and so without "re", as the tree's path has it:
       a reply names its request by both. */
    unsigned long failures = tapis_alloc_failures();
    if (id && !(req->id = member_json(id))) return flat_not_made(failures, err);
    req->re = c->name;
    /* Every argument is made before any is checked: the line is then known
       to be JSON whole (its containers are the arguments'), and a line that
       is not gets bad_json from the tree's path, whatever its arguments. */
    for (int i = 0; i < CMD_MAX_ARGS && c->args[i].name; i++) {
        const json_plain_member_t *x = member(m, count, c->args[i].name);
        if (x && !(req->args[i] = member_json(x))) return flat_not_made(failures, err);
    }
    for (int i = 0; i < CMD_MAX_ARGS && c->args[i].name; i++) {
        const arg_spec_t *a = &c->args[i];
        json_t *v = req->args[i], *room;
        if (json_is_null(v) && !(a->flags & ARG_REQUIRED)) {
            json_decref(v); /* an optional null is absent, as command_validate() has it */
            req->args[i] = v = NULL;
        }
        if (command_check_arg(c, a, v, &room, err) < 0) return PROTO_ERROR;
        if (room) {
            json_decref(v);
            req->args[i] = room;
        }
    }
    req->command = c;
    return PROTO_OK;
}

static int request_parse(proto_request_t *req, const char *line, size_t len, bool flat,
                         tapis_error_t *err)
{
    memset(req, 0, sizeof(*req));
    size_t i = 0;
    while (i < len && is_blank(line[i]))
        i++;
    if (i == len) return PROTO_EMPTY;
    const char *s = line + i;
    size_t n = len - i;

    if (s[0] == '{' && flat) {
        int rc = parse_flat(req, s, n, err);
        if (rc != FLAT_NO) return rc;
        proto_request_free(req); /* what it made, if anything */
    }
    if (s[0] == '{' || s[0] == '[') {
        req->msg = proto_json_parse(s, n, err);
        if (!req->msg) return PROTO_ERROR;
        req->id = json_object_get(req->msg, "id");
        json_t *cmd = json_object_get(req->msg, "cmd");
        if (!cmd) return proto_fail(err, TAPIS_E_BAD_REQUEST, "cmd: required");
        if (!json_is_string(cmd))
            return proto_fail(err, TAPIS_E_BAD_REQUEST, "cmd: must be a string");
        req->re = json_string_value(cmd);
    } else {
        req->inline_form = true;
        if (memchr(s, '\0', n)) return proto_fail(err, TAPIS_E_BAD_REQUEST, "NUL byte in line");
        req->msg = inline_parse(s, n, err);
        if (!req->msg) {
            if (inline_recover_re(req, s, n) < 0)
                return proto_fail(err, TAPIS_E_INTERNAL, "out of memory");
            return PROTO_ERROR;
        }
        req->re = json_string_value(json_object_get(req->msg, "cmd"));
    }

    const command_t *c = command_lookup(req->re);
    if (!c)
        return proto_fail(err, TAPIS_E_UNKNOWN_COMMAND, "unknown command '%.40s' (try: help)",
                          req->re);
    if (command_validate(c, req->msg, req->args, err) < 0) return PROTO_ERROR;
    req->command = c;
    return PROTO_OK;
}

int proto_request_parse(proto_request_t *req, const char *line, size_t len, tapis_error_t *err)
{
    return request_parse(req, line, len, true, err);
}

int proto_request_parse_tree(proto_request_t *req, const char *line, size_t len, tapis_error_t *err)
{
    return request_parse(req, line, len, false, err);
}

void proto_request_free(proto_request_t *req)
{
    json_decref(req->msg);
    if (req->owned) {
        json_decref(req->id);
        for (int i = 0; i < PROTO_MAX_ARGS; i++)
            json_decref(req->args[i]);
    }
    memset(req, 0, sizeof(*req));
}

/* --------------------------------------------------------------- replies --- */

/*
 * A JSON string of s, or null if s is NULL or not valid UTF-8; NULL only when
 * memory runs out.
 */
static json_t *string_or_null(const char *s)
{
    if (!s || !proto_utf8_valid(s, strlen(s))) return json_null();
    return json_string(s);
}

json_t *proto_reply(const char *re, const json_t *id)
{
    json_t *r = json_object();
    if (!r || json_object_set_new(r, "re", string_or_null(re)) < 0 ||
        (id && json_object_set_new(r, "id", json_deep_copy(id)) < 0) ||
        json_object_set_new(r, "ok", json_true()) < 0) {
        json_decref(r);
        return NULL;
    }
    return r;
}

json_t *proto_reply_error(const char *re, const json_t *id, const char *code, const char *message)
{
    json_t *r = proto_reply(re, id);
    if (!r) return NULL;
    const char *m = message ? message : "";
    json_t *text = NULL;
    if (proto_utf8_valid(m, strlen(m))) {
        text = json_string(m);
    } else {
        /* Not valid UTF-8: keep what can be kept rather than lose the reply. */
        char *copy = tapis_strdup(m);
        if (copy) {
            utf8_scrub(copy);
            text = json_string(copy);
            tapis_free(copy);
        }
    }
    json_t *error =
        text ? json_pack("{s:o,s:o}", "code", string_or_null(code), "message", text) : NULL;
    if (!error || json_object_set_new(r, "ok", json_false()) < 0 ||
        json_object_set_new(r, "error", error) < 0) {
        json_decref(r);
        return NULL;
    }
    return r;
}

json_t *proto_reply_from_error(const proto_request_t *req, const tapis_error_t *err)
{
    return proto_reply_error(req->re, req->id, err->code, err->message);
}

json_t *proto_event(const char *ev)
{
    return json_pack("{s:o}", "ev", string_or_null(ev));
}

/* -------------------------------------------------------------- encoding --- */

size_t proto_encode_ok(const char *re, const json_t *id, const char *key, const char *value,
                       char *buf, size_t size)
{
    size_t n = 0, k = re ? strlen(re) : 0;
    if (k == 0 || k > 64 || size < k + 32) return 0;
    for (size_t i = 0; i < k; i++)
        if (!((re[i] >= 'a' && re[i] <= 'z') || re[i] == '_')) return 0;
    memcpy(buf, "{\"re\":\"", 7);
    n = 7;
    memcpy(buf + n, re, k);
    n += k;
    buf[n++] = '"';
    if (id) {
        memcpy(buf + n, ",\"id\":", 6);
        n += 6;
        unsigned long mark = tapis_alloc_failures();
        size_t w = json_text(id, buf + n, size - n);
        if (w == 0 || w > size - n || tapis_alloc_failed_since(mark)) return 0;
        n += w;
    }
    static const char ok[] = ",\"ok\":true";
    if (size - n < sizeof ok - 1) return 0;
    memcpy(buf + n, ok, sizeof ok - 1);
    n += sizeof ok - 1;
    if (key) {
        size_t kn = strlen(key);
        if (!value || !proto_utf8_valid(value, strlen(value)) || size - n < kn + 4) return 0;
        buf[n++] = ',';
        buf[n++] = '"';
        memcpy(buf + n, key, kn);
        n += kn;
        buf[n++] = '"';
        buf[n++] = ':';
        jw_t w; /* the value quoted and escaped as json_text() writes it */
        jw_text(&w, buf + n, size - n);
        jw_str(&w, NULL, value);
        if (!jw_ok(&w)) return 0;
        n += jw_len(&w);
    }
    if (size - n < 2) return 0;
    buf[n++] = '}';
    buf[n++] = '\n';
    return n;
}

char *proto_encode(const json_t *msg, size_t *len)
{
    if (!msg) return NULL;
    /* json_text() writes reals with jansson, which allocates: a failure leaves a number out. */
    unsigned long mark = tapis_alloc_failures();
    char tmp[4096];
    size_t n = json_text(msg, tmp, sizeof tmp);
    char *line = tapis_malloc(n + 2);
    if (!line) return NULL;
    if (n <= sizeof tmp)
        memcpy(line, tmp, n);
    else
        json_text(msg, line, n);
    if (tapis_alloc_failed_since(mark)) {
        tapis_free(line);
        return NULL;
    }
    line[n] = '\n';
    line[n + 1] = '\0';
    if (len) *len = n + 1;
    return line;
}
