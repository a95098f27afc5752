/*
 * test_envelope.c — a catalogue of malformed input, one case per line of
 * trouble, each expecting its error code; then ids, replies and encoding.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/protocol.h"
#include "tests/lib/case_group.h"
#include "tests/lib/xorshift.h"

/* Parse a line; return the result and leave the error code (or NULL) in *code. */
static int parse(const char *line, size_t len, const char **code, char **reply)
{
    proto_request_t req;
    tapis_error_t err = {0};
    int r = proto_request_parse(&req, line, len, &err);
    *code = r == PROTO_ERROR ? err.code : NULL;
    if (reply) {
        json_t *msg =
            r == PROTO_ERROR ? proto_reply_from_error(&req, &err) : proto_reply(req.re, req.id);
        assert_non_null(msg);
        *reply = proto_encode(msg, NULL);
        assert_non_null(*reply);
        json_decref(msg);
    }
    proto_request_free(&req);
    return r;
}

/* Parse a line whose result must be `want` (PROTO_OK, PROTO_ERROR); return its
 * reply, parsed as JSON, and leave the error code (or NULL) in *code. */
static json_t *reply_of(const char *line, size_t len, int want, const char **code)
{
    char *reply;
    assert_int_equal(parse(line, len, code, &reply), want);
    json_t *r = json_loads(reply, 0, NULL);
    assert_non_null(r);
    free(reply);
    return r;
}

/* ------------------------------------------------------------- catalogue --- */

typedef struct trouble {
    const char *what;
    const char *line;
    size_t len;       /* 0: strlen(line) */
    const char *code; /* NULL: accepted */
} trouble_t;

static const trouble_t catalogue[] = {
    {"truncated JSON", "{\"cmd\":\"ping\"", 0, TAPIS_E_BAD_JSON},
    {"JSON with trailing garbage", "{\"cmd\":\"ping\"} x", 0, TAPIS_E_BAD_JSON},
    {"two objects on a line", "{\"cmd\":\"ping\"}{\"cmd\":\"ping\"}", 0, TAPIS_E_BAD_JSON},
    {"single quotes", "{'cmd':'ping'}", 0, TAPIS_E_BAD_JSON},
    {"unquoted key", "{cmd:\"ping\"}", 0, TAPIS_E_BAD_JSON},
    {"trailing comma", "{\"cmd\":\"ping\",}", 0, TAPIS_E_BAD_JSON},
    {"duplicate key", "{\"cmd\":\"ping\",\"cmd\":\"quit\"}", 0, TAPIS_E_BAD_JSON},
    {"integer too big", "{\"cmd\":\"ping\",\"id\":123456789012345678901234567890}", 0,
     TAPIS_E_BAD_JSON},
    {"NaN", "{\"cmd\":\"ping\",\"id\":NaN}", 0, TAPIS_E_BAD_JSON},
    {"escaped NUL in string", "{\"cmd\":\"pi\\u0000ng\"}", 0, TAPIS_E_BAD_JSON},
    {"raw NUL in JSON", "{\"cmd\":\"ping\"}\0", 15, TAPIS_E_BAD_JSON},
    {"raw control char in string", "{\"cmd\":\"pi\tng\"}", 0, TAPIS_E_BAD_JSON},
    {"invalid UTF-8 in JSON", "{\"cmd\":\"say\",\"text\":\"\xc3\x28\"}", 0, TAPIS_E_BAD_JSON},
    {"overlong UTF-8 in JSON", "{\"cmd\":\"say\",\"text\":\"\xc0\xaf\"}", 0, TAPIS_E_BAD_JSON},
    {"lone surrogate escape", "{\"cmd\":\"say\",\"text\":\"\\ud800\"}", 0, TAPIS_E_BAD_JSON},
    {"telnet 255 byte in JSON", "{\"cmd\":\"ping\xff\"}", 0, TAPIS_E_BAD_JSON},
    {"brackets inside strings do not nest",
     "{\"cmd\":\"say\",\"text\":\"[[[[[[[[[[[[[[[[[[[[[[["
     "[[[[[[[[[[[[[[[[[[[[[[[[[\\\"[[[[[[\"}",
     0, NULL},
    {"missing cmd", "{\"id\":1}", 0, TAPIS_E_BAD_REQUEST},
    {"empty object", "{}", 0, TAPIS_E_BAD_REQUEST},
    {"cmd is a number", "{\"cmd\":42}", 0, TAPIS_E_BAD_REQUEST},
    {"cmd is null", "{\"cmd\":null}", 0, TAPIS_E_BAD_REQUEST},
    {"cmd is an array", "{\"cmd\":[\"ping\"]}", 0, TAPIS_E_BAD_REQUEST},
    {"cmd is an object", "{\"cmd\":{}}", 0, TAPIS_E_BAD_REQUEST},
    {"unknown command", "{\"cmd\":\"fly\"}", 0, TAPIS_E_UNKNOWN_COMMAND},
    {"command in upper case", "{\"cmd\":\"PING\"}", 0, TAPIS_E_UNKNOWN_COMMAND},
    {"empty command", "{\"cmd\":\"\"}", 0, TAPIS_E_UNKNOWN_COMMAND},
    {"action shortcut is inline only", "{\"cmd\":\"draw\"}", 0, TAPIS_E_UNKNOWN_COMMAND},
    {"unknown extra fields are ignored", "{\"cmd\":\"ping\",\"zzz\":[1,{}]}", 0, NULL},
    {"leading blanks before JSON", " \t{\"cmd\":\"ping\"}", 0, NULL},
    {"trailing blanks after JSON", "{\"cmd\":\"ping\"} \t", 0, NULL},
    {"bare CR inside JSON is white space", "{\"cmd\":\"ping\"\r}", 0, NULL},
    {"inline invalid UTF-8", "say caf\xc3", 0, TAPIS_E_BAD_REQUEST},
    {"inline lone continuation byte", "hello \x80", 0, TAPIS_E_BAD_REQUEST},
    {"inline surrogate encoded", "hello \xed\xa0\x80", 0, TAPIS_E_BAD_REQUEST},
    {"inline NUL byte", "ping\0", 5, TAPIS_E_BAD_REQUEST},
    {"inline NUL in the middle", "say a\0b", 7, TAPIS_E_BAD_REQUEST},
    {"inline bare CR", "ping\r", 0, TAPIS_E_BAD_REQUEST},
    {"inline escape char", "say \x1b[31mred", 0, TAPIS_E_BAD_REQUEST},
    {"inline DEL char", "say \x7f", 0, TAPIS_E_BAD_REQUEST},
    {"inline upper-case word", "PING", 0, TAPIS_E_UNKNOWN_COMMAND},
    {"inline punctuation word", "!quit", 0, TAPIS_E_UNKNOWN_COMMAND},
    {"JSON array", "[\"ping\"]", 0, TAPIS_E_BAD_REQUEST},
    {"empty JSON array", "  []", 0, TAPIS_E_BAD_REQUEST},
    {"broken JSON array", "[\"ping\"", 0, TAPIS_E_BAD_JSON},
    {"inline UTF-8 is fine", "say caf\xc3\xa9 \xe2\x82\xac", 0, NULL},
    {"inline tabs separate words", "join\tr1\t2", 0, NULL},
    {"inline unknown word is an action", "fly", 0, NULL},
    {"inline telnet-escaped 255 stays invalid", "say \xff", 0, TAPIS_E_BAD_REQUEST},
};

/* One catalogue row (passed as the test's state). */
static void trouble_case(void **state)
{
    const trouble_t *t = *state;
    const char *code;
    char *reply;
    size_t len = t->len ? t->len : strlen(t->line);
    int r = parse(t->line, len, &code, &reply);
    if (t->code) {
        assert_int_equal(r, PROTO_ERROR);
        assert_string_equal(code, t->code);
    } else {
        if (r != PROTO_OK) print_error("refused: %s", reply);
        assert_int_equal(r, PROTO_OK);
    }
    /* Whatever came in, the reply is one line of valid JSON. */
    size_t rl = strlen(reply);
    assert_ptr_equal(strchr(reply, '\n'), reply + rl - 1);
    json_t *back = json_loads(reply, 0, NULL);
    assert_non_null(back);
    json_decref(back);
    free(reply);
}

/* ------------------------------------------------- read without a tree --- */

/*
 * An act sent as plain JSON is read without a request object (its handler
 * reads only its arguments: CMD_F_ARGS); any other line is read as a tree.
 * Both must give the same answer: each row is read both ways and compared,
 * and `flat` says which way proto_request_parse() took.
 */
typedef struct flat_case {
    const char *what;
    const char *line;
    const char *code; /* NULL: accepted */
    bool flat;
} flat_case_t;

#define ACT "{\"cmd\":\"act\","
#define DRAW "\"action\":{\"type\":\"draw\"}"
static const flat_case_t flat_cases[] = {
    {"an act", ACT "\"room\":\"r1\"," DRAW "}", NULL, true},
    {"spaces around", "  " ACT " \"room\" : \"r1\" , " DRAW " }  ", NULL, true},
    {"a room by number", ACT "\"room\":7," DRAW "}", NULL, true},
    {"a negative room", ACT "\"room\":-3," DRAW "}", TAPIS_E_BAD_REQUEST, true},
    {"seq null is absent", ACT "\"room\":\"r1\"," DRAW ",\"seq\":null}", NULL, true},
    {"a seq", ACT DRAW ",\"seq\":12}", NULL, true},
    {"a seq below 0", ACT DRAW ",\"seq\":-1}", TAPIS_E_BAD_REQUEST, true},
    {"a real seq", ACT DRAW ",\"seq\":1.5}", TAPIS_E_BAD_REQUEST, false},
    {"a seq of 20 digits", ACT DRAW ",\"seq\":12345678901234567890}", TAPIS_E_BAD_JSON, false},
    {"an id object", ACT DRAW ",\"id\":{\"a\":[1,{}]}}", NULL, true},
    {"an id null", ACT DRAW ",\"id\":null}", NULL, true},
    {"an id string", "{\"id\":\"x\",\"cmd\":\"act\"," DRAW "}", NULL, true},
    {"an unknown scalar", ACT DRAW ",\"x\":true}", NULL, true},
    {"an unknown object", ACT DRAW ",\"x\":{\"y\":1}}", NULL, false},
    {"an unknown object with a key twice", ACT DRAW ",\"x\":{\"y\":1,\"y\":2}}", TAPIS_E_BAD_JSON,
     false},
    {"a refused room before an action that is not JSON",
     ACT "\"room\":true,\"action\":{\"type\":\"d\"x\"\"}}", TAPIS_E_BAD_JSON, false},
    {"a key twice", ACT "\"room\":\"r1\"," DRAW ",\"room\":\"r2\"}", TAPIS_E_BAD_JSON, false},
    {"a key twice in the action", ACT "\"action\":{\"type\":\"draw\",\"type\":\"x\"}}",
     TAPIS_E_BAD_JSON, false},
    {"an escape in the room", ACT "\"room\":\"r\\u0031\"," DRAW "}", NULL, false},
    {"an escaped quote in the action", ACT "\"action\":{\"type\":\"d\\\"}\"}}", NULL, false},
    {"no action", ACT "\"room\":\"r1\"}", TAPIS_E_BAD_REQUEST, true},
    {"an action string", ACT "\"action\":\"draw\"}", TAPIS_E_BAD_REQUEST, true},
    {"an action array", ACT "\"action\":[1,2]}", TAPIS_E_BAD_REQUEST, true},
    {"an empty type", ACT "\"action\":{\"type\":\"\"}}", TAPIS_E_BAD_REQUEST, true},
    {"an action too deep",
     ACT "\"action\":{\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}",
     TAPIS_E_BAD_JSON, false},
    {"an action just deep enough",
     ACT "\"action\":{\"type\":\"t\",\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]"
         "]]]]]}}",
     NULL, true},
    {"nine members", ACT DRAW ",\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7}", NULL,
     false},
    {"truncated", ACT "\"room\":\"r1\"," DRAW, TAPIS_E_BAD_JSON, false},
    {"bytes after", ACT DRAW "}x", TAPIS_E_BAD_JSON, false},
    {"a cmd number", "{\"cmd\":5}", TAPIS_E_BAD_REQUEST, false},
    {"another command", "{\"cmd\":\"state\",\"room\":\"r1\"}", NULL, false},
    {"inline", "act draw", NULL, false},
};
#undef ACT
#undef DRAW

static void assert_same_json(const json_t *a, const json_t *b)
{
    assert_true(a == b || (a && b && json_equal(a, b)));
}

static void flat_case(void **state)
{
    const flat_case_t *t = *state;
    proto_request_t flat, tree;
    tapis_error_t ferr = {0}, terr = {0};
    size_t len = strlen(t->line);
    int rc = proto_request_parse(&flat, t->line, len, &ferr);
    int tree_rc = proto_request_parse_tree(&tree, t->line, len, &terr);
    assert_int_equal(rc, t->code ? PROTO_ERROR : PROTO_OK);
    if (t->code) assert_string_equal(ferr.code, t->code);
    assert_int_equal(flat.owned, t->flat);
    assert_true(!flat.owned || !flat.msg);
    assert_int_equal(rc, tree_rc);
    assert_ptr_equal(flat.command, tree.command);
    assert_true(!flat.re == !tree.re);
    if (flat.re) assert_string_equal(flat.re, tree.re);
    assert_same_json(flat.id, tree.id);
    if (rc == PROTO_ERROR) {
        assert_string_equal(ferr.code, terr.code);
        assert_string_equal(ferr.message, terr.message);
    }
    for (int i = 0; i < PROTO_MAX_ARGS && rc == PROTO_OK; i++) /* (an error's: none) */
        assert_same_json(flat.args[i], tree.args[i]);
    proto_request_free(&flat);
    proto_request_free(&tree);
}

/* -------------------------------------------------------- specific cases --- */

static void blank_lines_are_ignored(void **state)
{
    (void)state;
    const char *code;
    assert_int_equal(parse("", 0, &code, NULL), PROTO_EMPTY);
    assert_int_equal(parse("   ", 3, &code, NULL), PROTO_EMPTY);
    assert_int_equal(parse(" \t \t", 4, &code, NULL), PROTO_EMPTY);
}

static void nesting_100000_deep_is_bad_json(void **state)
{
    (void)state;
    size_t n = 100000;
    char *s = malloc(n * 2 + 32);
    assert_non_null(s);
    const char *head = "{\"cmd\":\"act\",\"action\":";
    size_t k = strlen(head);
    memcpy(s, head, k);
    memset(s + k, '[', n);
    memset(s + k + n, ']', n);
    s[k + 2 * n] = '}';
    const char *code;
    assert_int_equal(parse(s, k + 2 * n + 1, &code, NULL), PROTO_ERROR);
    assert_string_equal(code, TAPIS_E_BAD_JSON);
    /* Unbalanced and object-only variants. */
    memset(s, '{', n);
    assert_int_equal(parse(s, n, &code, NULL), PROTO_ERROR);
    assert_string_equal(code, TAPIS_E_BAD_JSON);
    tapis_error_t err;
    memset(s, '[', n);
    assert_null(proto_json_parse(s, n, &err));
    assert_string_equal(err.code, TAPIS_E_BAD_JSON);
    free(s);
}

/* {"cmd":"ping","x":[[...]]} with the request object at level 1. */
static int parse_nested(int depth, const char **code)
{
    char line[256];
    size_t k = (size_t)sprintf(line, "{\"cmd\":\"ping\",\"x\":");
    for (int i = 1; i < depth; i++)
        line[k++] = '[';
    for (int i = 1; i < depth; i++)
        line[k++] = ']';
    line[k++] = '}';
    return parse(line, k, code, NULL);
}

static void nesting_limit_is_32_levels(void **state)
{
    (void)state;
    const char *code;
    assert_int_equal(parse_nested(PROTO_MAX_DEPTH, &code), PROTO_OK);
    assert_int_equal(parse_nested(PROTO_MAX_DEPTH + 1, &code), PROTO_ERROR);
    assert_string_equal(code, TAPIS_E_BAD_JSON);
}

static void bad_json_replies_with_null_re_and_no_id(void **state)
{
    (void)state;
    const char *code;
    json_t *r = reply_of("{\"cmd\":\"ping\",\"id\":7", 20, PROTO_ERROR, &code);
    assert_true(json_is_null(json_object_get(r, "re")));
    assert_null(json_object_get(r, "id"));
    assert_true(json_is_false(json_object_get(r, "ok")));
    assert_string_equal(json_string_value(json_object_get(json_object_get(r, "error"), "code")),
                        "bad_json");
    json_decref(r);
}

static void missing_cmd_echoes_id_with_null_re(void **state)
{
    (void)state;
    const char *code;
    char *reply;
    const char *line = "{\"id\":\"q1\",\"room\":\"r1\"}";
    assert_int_equal(parse(line, strlen(line), &code, &reply), PROTO_ERROR);
    assert_string_equal(reply, "{\"re\":null,\"id\":\"q1\",\"ok\":false,\"error\":{\"code\":"
                               "\"bad_request\",\"message\":\"cmd: required\"}}\n");
    free(reply);
}

static void unknown_command_echoes_its_name_and_id(void **state)
{
    (void)state;
    const char *code;
    const char *line = "{\"cmd\":\"fly\",\"id\":3}";
    json_t *r = reply_of(line, strlen(line), PROTO_ERROR, &code);
    assert_string_equal(json_string_value(json_object_get(r, "re")), "fly");
    assert_int_equal(json_integer_value(json_object_get(r, "id")), 3);
    json_decref(r);

    r = reply_of("Fly away", 8, PROTO_ERROR, &code);
    assert_string_equal(code, TAPIS_E_UNKNOWN_COMMAND);
    assert_string_equal(json_string_value(json_object_get(r, "re")), "Fly");
    json_decref(r);
}

static void inline_errors_reply_with_the_command_name(void **state)
{
    (void)state;
    const char *code;
    char *reply;
    parse("join", 4, &code, &reply);
    assert_string_equal(code, TAPIS_E_BAD_REQUEST);
    assert_non_null(strstr(reply, "\"re\":\"join\""));
    assert_non_null(strstr(reply, "room: required"));
    free(reply);
    parse("discard type=x", 14, &code, &reply);
    assert_string_equal(code, TAPIS_E_BAD_REQUEST);
    assert_non_null(strstr(reply, "\"re\":\"act\""));
    free(reply);
}

/* The reply to `line` (whose result must be `want`) echoes the id `id` (JSON text). */
static void expect_id_echoed(const char *line, int want, const char *id)
{
    const char *code;
    json_t *r = reply_of(line, strlen(line), want, &code);
    json_t *want_id = json_loads(id, JSON_DECODE_ANY, NULL);
    assert_non_null(want_id);
    assert_true(json_equal(json_object_get(r, "id"), want_id));
    json_decref(want_id);
    json_decref(r);
}

static void id_of_every_json_type_is_echoed(void **state)
{
    (void)state;
    const char *ids[] = {
        "\"abc\"",           "0",   "-12", "3.5", "true", "false", "null", "[1,\"x\",[]]",
        "{\"a\":{\"b\":1}}", "\"\""};
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        char line[128];
        snprintf(line, sizeof(line), "{\"id\":%s,\"cmd\":\"ping\"}", ids[i]);
        expect_id_echoed(line, PROTO_OK, ids[i]);
        /* And on an error reply too. */
        snprintf(line, sizeof(line), "{\"id\":%s,\"cmd\":\"join\"}", ids[i]);
        expect_id_echoed(line, PROTO_ERROR, ids[i]);
    }
}

static void request_without_id_gets_reply_without_id(void **state)
{
    (void)state;
    const char *code;
    char *reply;
    assert_int_equal(parse("ping", 4, &code, &reply), PROTO_OK);
    assert_string_equal(reply, "{\"re\":\"ping\",\"ok\":true}\n");
    free(reply);
}

/* -------------------------------------------------------------- encoding --- */

static void assert_one_line(const char *s, size_t len)
{
    assert_true(len > 0);
    assert_int_equal(strlen(s), len);
    assert_ptr_equal(strchr(s, '\n'), s + len - 1);
    assert_null(strchr(s, '\r'));
}

/* proto_encode(m), which must be one line; the caller frees it. */
static char *encode_one_line(json_t *m)
{
    size_t len;
    char *s = proto_encode(m, &len);
    assert_non_null(s);
    assert_one_line(s, len);
    return s;
}

static void no_reply_line_contains_a_raw_newline(void **state)
{
    (void)state;
    json_t *id = json_string("a\nb");
    json_t *r = proto_reply_error("say\n", id, "bad\ncode", "line one\nline two\r\n\x01\x1f");
    char *s = encode_one_line(r);
    json_t *back = json_loads(s, 0, NULL);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(back, "error"), "message")),
        "line one\nline two\r\n\x01\x1f");
    json_decref(back);
    free(s);
    json_decref(r);
    json_decref(id);

    json_t *ev = proto_event("chat");
    json_object_set_new(ev, "text", json_string("hi\nthere\u2028"));
    s = encode_one_line(ev);
    free(s);
    json_decref(ev);
}

static void said_text_with_newline_escapes_in_event(void **state)
{
    (void)state;
    proto_request_t req;
    tapis_error_t err;
    const char *line = "{\"cmd\":\"say\",\"text\":\"one\\ntwo\"}";
    assert_int_equal(proto_request_parse(&req, line, strlen(line), &err), PROTO_OK);
    json_t *ev = proto_event("chat");
    json_object_set(ev, "text", json_object_get(req.msg, "text"));
    char *s = encode_one_line(ev);
    assert_string_equal(s, "{\"ev\":\"chat\",\"text\":\"one\\ntwo\"}\n");
    free(s);
    json_decref(ev);
    proto_request_free(&req);
}

static void error_message_with_invalid_utf8_is_scrubbed(void **state)
{
    (void)state;
    json_t *r = proto_reply_error("x", NULL, "bad_request", "caf\xc3 \xff ok");
    char *s = encode_one_line(r);
    assert_non_null(strstr(s, "caf? ? ok"));
    free(s);
    json_decref(r);

    tapis_error_t err;
    proto_fail(&err, TAPIS_E_BAD_REQUEST, "word '%s'", "\xe2\x82");
    assert_true(proto_utf8_valid(err.message, strlen(err.message)));
}

static void reply_fields_come_in_order(void **state)
{
    (void)state;
    json_t *id = json_integer(9);
    json_t *r = proto_reply("create", id);
    json_object_set_new(r, "room", json_string("r1"));
    char *s = proto_encode(r, NULL);
    assert_string_equal(s, "{\"re\":\"create\",\"id\":9,\"ok\":true,\"room\":\"r1\"}\n");
    free(s);
    json_decref(r);
    json_decref(id);
    r = proto_event("game_over");
    s = proto_encode(r, NULL);
    assert_string_equal(s, "{\"ev\":\"game_over\"}\n");
    free(s);
    json_decref(r);
    assert_null(proto_encode(NULL, NULL));
}

static void utf8_validator_agrees_with_the_rules(void **state)
{
    (void)state;
    assert_true(proto_utf8_valid("", 0));
    assert_true(proto_utf8_valid("\xf4\x8f\xbf\xbf", 4));  /* U+10FFFF */
    assert_false(proto_utf8_valid("\xf4\x90\x80\x80", 4)); /* > U+10FFFF */
    assert_false(proto_utf8_valid("\xe0\x80\xaf", 3));     /* overlong */
    assert_false(proto_utf8_valid("\xed\xbf\xbf", 3));     /* surrogate */
    assert_false(proto_utf8_valid("\xc2", 1));             /* truncated */
    assert_false(proto_utf8_valid("\xfe", 1));
}

/* --------------------------------------------------------------- random --- */

static void random_lines_always_get_one_line_reply(void **state)
{
    (void)state;
    static const char *bits[] = {"{",    "}",   "[",    "]",    "\"",    ":",    ",",
                                 "cmd",  "act", "say",  "join", "hello", " ",    "\t",
                                 "=",    "1",   "-",    "x",    "\\",    "\xc3", "\xa9",
                                 "\xff", "\r",  "null", "true", "id",    "room"};
    uint64_t x = 88172645463325252ULL;
    char line[512];
    for (int i = 0; i < 20000; i++) {
        size_t n = 0;
        int words = (int)(xorshift_next(&x) % 24);
        if (xorshift_next(&x) % 2) n += (size_t)sprintf(line, "{\"cmd\":");
        for (int w = 0; w < words; w++) {
            const char *b = bits[xorshift_next(&x) % (sizeof(bits) / sizeof(bits[0]))];
            size_t bl = strlen(b);
            memcpy(line + n, b, bl);
            n += bl;
        }
        if (xorshift_next(&x) % 8 == 0) line[n++] = '\0';
        const char *code;
        char *reply;
        int r = parse(line, n, &code, &reply);
        assert_true(r == PROTO_OK || r == PROTO_EMPTY || r == PROTO_ERROR);
        size_t rl = strlen(reply);
        assert_ptr_equal(strchr(reply, '\n'), reply + rl - 1);
        assert_true(proto_utf8_valid(reply, rl));
        free(reply);
    }
}

/* The allocation-free ok reply is byte for byte the built one, whatever the
   id, with no field or one string field (an act's room). */
static void encode_ok_equals_the_built_reply(void **state)
{
    (void)state;
    const char *rooms[] = {NULL, "12", "caf\xc3\xa9", "q\"x\\", "\x01\n"};
    const char *ids[] = {
        NULL,   "7",   "-12345678901234", "\"abc\"",       "\"é\\n\\u0001\"", "null",
        "true", "1.5", "[1,{\"a\":[]}]",  "{\"k\":\"v\"}", "\"\\u007f\""};
    const char *names[] = {"ping", "leave", "say", "hello"};
    for (size_t n = 0; n < sizeof names / sizeof *names; n++)
        for (size_t i = 0; i < sizeof ids / sizeof *ids * (sizeof rooms / sizeof *rooms); i++) {
            size_t k = i / (sizeof ids / sizeof *ids);
            json_t *id =
                ids[i % (sizeof ids / sizeof *ids)]
                    ? json_loads(ids[i % (sizeof ids / sizeof *ids)], JSON_DECODE_ANY, NULL)
                    : NULL;
            json_t *built = proto_reply(names[n], id);
            if (rooms[k]) json_object_set_new(built, "room", json_string(rooms[k]));
            size_t want_len;
            char *want = proto_encode(built, &want_len);
            char got[256];
            size_t len =
                proto_encode_ok(names[n], id, rooms[k] ? "room" : NULL, rooms[k], got, sizeof got);
            assert_int_equal(len, want_len);
            got[len] = 0;
            assert_string_equal(got, want);
            free(want);
            json_decref(built);
            json_decref(id);
        }
    /* what it does not do: names it cannot write as they are, buffers too small */
    char buf[64];
    const char *big_room = "0123456789012345678901234567890123456789";
    assert_int_equal(proto_encode_ok("Ping", NULL, NULL, NULL, buf, sizeof buf), 0);
    assert_int_equal(proto_encode_ok("pi\"ng", NULL, NULL, NULL, buf, sizeof buf), 0);
    assert_int_equal(proto_encode_ok(NULL, NULL, NULL, NULL, buf, sizeof buf), 0);
    json_t *big = json_string("0123456789012345678901234567890123456789");
    assert_int_equal(proto_encode_ok("ping", big, NULL, NULL, buf, sizeof buf), 0);
    json_decref(big);
    assert_int_equal(proto_encode_ok("ping", NULL, NULL, NULL, buf, 20), 0);
    assert_int_equal(proto_encode_ok("act", NULL, "room", "\xff", buf, sizeof buf),
                     0); /* not UTF-8 */
    assert_int_equal(proto_encode_ok("act", NULL, "room", big_room, buf, sizeof buf), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(blank_lines_are_ignored),
        cmocka_unit_test(nesting_100000_deep_is_bad_json),
        cmocka_unit_test(nesting_limit_is_32_levels),
        cmocka_unit_test(bad_json_replies_with_null_re_and_no_id),
        cmocka_unit_test(missing_cmd_echoes_id_with_null_re),
        cmocka_unit_test(unknown_command_echoes_its_name_and_id),
        cmocka_unit_test(inline_errors_reply_with_the_command_name),
        cmocka_unit_test(id_of_every_json_type_is_echoed),
        cmocka_unit_test(request_without_id_gets_reply_without_id),
        cmocka_unit_test(no_reply_line_contains_a_raw_newline),
        cmocka_unit_test(said_text_with_newline_escapes_in_event),
        cmocka_unit_test(error_message_with_invalid_utf8_is_scrubbed),
        cmocka_unit_test(reply_fields_come_in_order),
        cmocka_unit_test(encode_ok_equals_the_built_reply),
        cmocka_unit_test(utf8_validator_agrees_with_the_rules),
        cmocka_unit_test(random_lines_always_get_one_line_reply),
    };
    int failed = CASE_GROUP_RUN("malformed_input_catalogue", trouble_case, catalogue, what);
    failed += CASE_GROUP_RUN("read_without_a_tree", flat_case, flat_cases, what);
    return failed + cmocka_run_group_tests(tests, NULL, NULL);
}
