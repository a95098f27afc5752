/*
 * test_commands.c — the command table, argument validation, the inline form
 * and the action round trip.
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
#include "tests/lib/xorshift.h"
#include "tests/lib/test_main.h"

/*
 * Parse a line; on PROTO_OK return the request object (new ref), else NULL
 * with *code. The line is read as a tree (msg always built), and as the
 * server reads it (an act without an object): both must agree, arguments
 * and errors alike.
 */
static json_t *request(const char *line, const char **code, char *message, size_t msize)
{
    proto_request_t req, flat;
    tapis_error_t err = {0}, ferr = {0};
    int r = proto_request_parse_tree(&req, line, strlen(line), &err);
    int fr = proto_request_parse(&flat, line, strlen(line), &ferr);
    assert_int_equal(r, fr);
    json_t *msg = NULL;
    *code = NULL;
    if (r == PROTO_OK) {
        assert_non_null(req.command);
        assert_ptr_equal(req.command, flat.command);
        assert_string_equal(req.command->name, json_string_value(json_object_get(req.msg, "cmd")));
        for (int i = 0; i < CMD_MAX_ARGS; i++)
            assert_true(req.args[i] == flat.args[i] ||
                        (req.args[i] && flat.args[i] && json_equal(req.args[i], flat.args[i])));
        msg = json_incref(req.msg);
    } else if (r == PROTO_ERROR) {
        assert_string_equal(err.code, ferr.code);
        assert_string_equal(err.message, ferr.message);
        *code = err.code;
        if (message) snprintf(message, msize, "%s", err.message);
    }
    proto_request_free(&req);
    proto_request_free(&flat);
    return msg;
}

/* ------------------------------------------------------------ the table --- */

static void table_has_every_command_of_the_design(void **state)
{
    (void)state;
    const char *names[] = {"hello",       "games", "create", "rooms",  "history",  "replay",
                           "join",        "watch", "leave",  "addbot", "act",      "state",
                           "say",         "ping",  "help",   "quit",   "admin",    "announce",
                           "drain",       "close", "kick",   "stats",  "register", "profile",
                           "leaderboard", "seek",  "cancel", "pong",   "seed"};
    int n;
    const command_t *t = command_table(&n);
    assert_int_equal(n, CMD__COUNT);
    assert_int_equal(n, (int)(sizeof(names) / sizeof(names[0])));
    for (int i = 0; i < n; i++) {
        const command_t *c = command_lookup(names[i]);
        assert_non_null(c);
        assert_ptr_equal(command_get(c->id), c);
        assert_ptr_equal(&t[c->id], c);
        assert_non_null(c->summary);
        assert_non_null(c->usage);
    }
    assert_null(command_lookup("draw"));
    assert_null(command_lookup(NULL));
}

static void only_some_commands_work_before_hello(void **state)
{
    (void)state;
    int n;
    const command_t *t = command_table(&n);
    for (int i = 0; i < n; i++) {
        bool before = strcmp(t[i].name, "hello") == 0 || strcmp(t[i].name, "ping") == 0 ||
                      strcmp(t[i].name, "help") == 0 || strcmp(t[i].name, "games") == 0 ||
                      strcmp(t[i].name, "quit") == 0 || strcmp(t[i].name, "register") == 0;
        assert_int_equal(!!(t[i].flags & CMD_F_BEFORE_HELLO), before);
    }
}

/* ------------------------------------------------------------ validation --- */

/* A valid JSON value for an argument. */
static json_t *valid_value(const arg_spec_t *a)
{
    switch (a->type) {
    case ARG_STRING: return json_string("x");
    case ARG_INT: return json_integer(a->min);
    case ARG_BOOL: return json_true();
    case ARG_OBJECT: return json_object();
    case ARG_ROOM: return json_string("r1");
    case ARG_ACTION: return json_pack("{s:s}", "type", "draw");
    }
    return NULL;
}

/* A request with every argument of c valid. */
static json_t *full_request(const command_t *c)
{
    json_t *m = json_pack("{s:s}", "cmd", c->name);
    for (const arg_spec_t *a = c->args; a < c->args + CMD_MAX_ARGS && a->name; a++)
        json_object_set_new(m, a->name, valid_value(a));
    return m;
}

static void check_refused(json_t *m, const char *field)
{
    char *line = json_dumps(m, JSON_COMPACT);
    const char *code;
    char message[256];
    json_t *ok = request(line, &code, message, sizeof(message));
    if (ok) print_error("accepted: %s", line);
    assert_null(ok);
    assert_string_equal(code, TAPIS_E_BAD_REQUEST);
    const char *named = strstr(message, field);
    if (!named) print_error("'%s' does not name the field\n", message);
    assert_non_null(named);
    free(line);
}

static void every_argument_refuses_every_wrong_type(void **state)
{
    (void)state;
    const char *wrong[] = {"5", "4.0", "\"4\"", "true", "[]", "{}", "\"\""};
    int n;
    const command_t *t = command_table(&n);
    for (int i = 0; i < n; i++) {
        json_t *m = full_request(&t[i]);
        char *line = json_dumps(m, JSON_COMPACT);
        const char *code;
        json_t *ok = request(line, &code, NULL, 0);
        if (!ok) print_error("full request refused: %s", line);
        assert_non_null(ok);
        json_decref(ok);
        free(line);
        for (const arg_spec_t *a = t[i].args; a < t[i].args + CMD_MAX_ARGS && a->name; a++) {
            for (size_t k = 0; k < sizeof(wrong) / sizeof(wrong[0]); k++) {
                json_t *v = json_loads(wrong[k], JSON_DECODE_ANY, NULL);
                bool in_len = json_is_string(v) && (long long)json_string_length(v) >= a->min &&
                              (long long)json_string_length(v) <= a->max;
                bool fits = ((a->type == ARG_STRING || a->type == ARG_ROOM) && in_len) ||
                            (a->type == ARG_INT && json_is_integer(v) &&
                             json_integer_value(v) >= a->min && json_integer_value(v) <= a->max) ||
                            (a->type == ARG_BOOL && json_is_boolean(v)) ||
                            (a->type == ARG_OBJECT && json_is_object(v)) ||
                            (a->type == ARG_ROOM && json_is_integer(v));
                if (!fits) {
                    json_t *bad = json_deep_copy(m);
                    json_object_set_new(bad, a->name, v);
                    check_refused(bad, a->name);
                    json_decref(bad);
                } else {
                    json_decref(v);
                }
            }
            if (a->flags & ARG_REQUIRED) {
                json_t *bad = json_deep_copy(m);
                json_object_del(bad, a->name);
                check_refused(bad, a->name);
                json_decref(bad);
            }
        }
        json_decref(m);
    }
}

static void integers_and_lengths_are_range_checked(void **state)
{
    (void)state;
    const char *bad[] = {
        "{\"cmd\":\"create\",\"game\":\"233\",\"players\":0}",
        "{\"cmd\":\"create\",\"game\":\"233\",\"players\":65}",
        "{\"cmd\":\"create\",\"game\":\"233\",\"players\":-9223372036854775807}",
        "{\"cmd\":\"join\",\"room\":\"r1\",\"seat\":-1}",
        "{\"cmd\":\"join\",\"room\":\"r1\",\"seat\":64}",
        "{\"cmd\":\"join\",\"room\":-1}",
        "{\"cmd\":\"join\",\"room\":\"\"}",
        "{\"cmd\":\"join\",\"room\":\"123456789012345678901234567890123\"}",
        "{\"cmd\":\"hello\",\"name\":\"\"}",
        "{\"cmd\":\"hello\",\"name\":\"123456789012345678901234567890123\"}",
        "{\"cmd\":\"say\",\"text\":\"\"}",
        "{\"cmd\":\"act\",\"action\":{\"type\":\"\"}}",
        "{\"cmd\":\"act\",\"action\":{\"card\":\"Y3\"}}",
        "{\"cmd\":\"act\",\"action\":{\"type\":null}}",
        "join r1 -1",
        "join r1 64",
        "join r1 02",
        "join r1 +2",
        "join r1 2.0",
        "create 233 0",
        "create 233 99999999999999999999",
        "create 233 4 private=maybe",
        "hello 123456789012345678901234567890123",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *code;
        json_t *m = request(bad[i], &code, NULL, 0);
        if (m) print_error("accepted: %s", bad[i]);
        assert_null(m);
        assert_string_equal(code, TAPIS_E_BAD_REQUEST);
    }
}

static void room_may_be_an_integer_and_becomes_a_string(void **state)
{
    (void)state;
    const char *code;
    json_t *m = request("{\"cmd\":\"join\",\"room\":7,\"seat\":1}", &code, NULL, 0);
    assert_non_null(m);
    assert_string_equal(json_string_value(json_object_get(m, "room")), "7");
    json_decref(m);
    m = request("join 7", &code, NULL, 0);
    assert_string_equal(json_string_value(json_object_get(m, "room")), "7");
    json_decref(m);
}

static void optional_null_is_absent_and_extras_are_ignored(void **state)
{
    (void)state;
    const char *code;
    json_t *m = request("{\"cmd\":\"leave\",\"room\":null,\"zz\":1}", &code, NULL, 0);
    assert_non_null(m);
    assert_null(json_object_get(m, "room"));
    json_decref(m);
    m = request("{\"cmd\":\"say\",\"text\":null}", &code, NULL, 0);
    assert_null(m);
    assert_string_equal(code, TAPIS_E_BAD_REQUEST);
}

/* ----------------------------------------------------------- inline form --- */

typedef struct inline_case {
    const char *line;
    const char *json;
} inline_case_t;

static const inline_case_t inline_cases[] = {
    {"hello alice", "{\"cmd\":\"hello\",\"name\":\"alice\"}"},
    {"hello alice TOKEN", "{\"cmd\":\"hello\",\"name\":\"alice\",\"token\":\"TOKEN\"}"},
    {"  hello   alice  ", "{\"cmd\":\"hello\",\"name\":\"alice\"}"},
    {"hello 42", "{\"cmd\":\"hello\",\"name\":\"42\"}"},
    {"games", "{\"cmd\":\"games\"}"},
    {"create 233", "{\"cmd\":\"create\",\"game\":\"233\"}"},
    {"create 233 4", "{\"cmd\":\"create\",\"game\":\"233\",\"players\":4}"},
    {"create 233 4 private",
     "{\"cmd\":\"create\",\"game\":\"233\",\"players\":4,\"private\":true}"},
    {"create 233 private", "{\"cmd\":\"create\",\"game\":\"233\",\"private\":true}"},
    {"create 233 2 rated private",
     "{\"cmd\":\"create\",\"game\":\"233\",\"players\":2,\"rated\":true,\"private\":true}"},
    {"register ann s3cret-pass",
     "{\"cmd\":\"register\",\"name\":\"ann\",\"password\":\"s3cret-pass\"}"},
    {"hello ann password=12345678",
     "{\"cmd\":\"hello\",\"name\":\"ann\",\"password\":\"12345678\"}"},
    {"leaderboard 233 10 20",
     "{\"cmd\":\"leaderboard\",\"game\":\"233\",\"limit\":10,\"offset\":20}"},
    {"create 233 4 target=500 fast=true", "{\"cmd\":\"create\",\"game\":\"233\",\"players\":4,"
                                          "\"options\":{\"target\":500,\"fast\":true}}"},
    {"create game=slap players=3 private=false",
     "{\"cmd\":\"create\",\"game\":\"slap\",\"players\":3,\"private\":false}"},
    {"rooms", "{\"cmd\":\"rooms\"}"},
    {"join r1", "{\"cmd\":\"join\",\"room\":\"r1\"}"},
    {"join r1 2", "{\"cmd\":\"join\",\"room\":\"r1\",\"seat\":2}"},
    {"join seat=0 r1", "{\"cmd\":\"join\",\"room\":\"r1\",\"seat\":0}"},
    {"watch r1", "{\"cmd\":\"watch\",\"room\":\"r1\"}"},
    {"leave", "{\"cmd\":\"leave\"}"},
    {"leave r1", "{\"cmd\":\"leave\",\"room\":\"r1\"}"},
    {"addbot", "{\"cmd\":\"addbot\"}"},
    {"addbot r1 strategy=greedy", "{\"cmd\":\"addbot\",\"room\":\"r1\",\"strategy\":\"greedy\"}"},
    {"state", "{\"cmd\":\"state\"}"},
    {"state r2", "{\"cmd\":\"state\",\"room\":\"r2\"}"},
    {"say hello world", "{\"cmd\":\"say\",\"text\":\"hello world\"}"},
    {"say   good  game, a=b {x}  ", "{\"cmd\":\"say\",\"text\":\"good  game, a=b {x}\"}"},
    {"ping", "{\"cmd\":\"ping\"}"},
    {"help", "{\"cmd\":\"help\"}"},
    {"help join", "{\"cmd\":\"help\",\"command\":\"join\"}"},
    {"quit", "{\"cmd\":\"quit\"}"},
    {"draw", "{\"cmd\":\"act\",\"action\":{\"type\":\"draw\"}}"},
    {"take", "{\"cmd\":\"act\",\"action\":{\"type\":\"take\"}}"},
    {"declare", "{\"cmd\":\"act\",\"action\":{\"type\":\"declare\"}}"},
    {"discard Y3", "{\"cmd\":\"act\",\"action\":{\"type\":\"discard\",\"args\":[\"Y3\"]}}"},
    {"discard card=Y3", "{\"cmd\":\"act\",\"action\":{\"type\":\"discard\",\"card\":\"Y3\"}}"},
    {"discard card=Y3 declare=true",
     "{\"cmd\":\"act\",\"action\":{\"type\":\"discard\",\"card\":\"Y3\",\"declare\":true}}"},
    {"claim Y3 Y3", "{\"cmd\":\"act\",\"action\":{\"type\":\"claim\",\"args\":[\"Y3\",\"Y3\"]}}"},
    {"claim cards=Y3,Y3",
     "{\"cmd\":\"act\",\"action\":{\"type\":\"claim\",\"cards\":[\"Y3\",\"Y3\"]}}"},
    {"claim cards=Y3,", "{\"cmd\":\"act\",\"action\":{\"type\":\"claim\",\"cards\":[\"Y3\"]}}"},
    {"claim cards=,", "{\"cmd\":\"act\",\"action\":{\"type\":\"claim\",\"cards\":[]}}"},
    {"lay Y3 Y4 Y5",
     "{\"cmd\":\"act\",\"action\":{\"type\":\"lay\",\"args\":[\"Y3\",\"Y4\",\"Y5\"]}}"},
    {"give 2", "{\"cmd\":\"act\",\"action\":{\"type\":\"give\",\"args\":[2]}}"},
    {"give seat=-1 x=null s=", "{\"cmd\":\"act\",\"action\":{\"type\":\"give\",\"seat\":-1,"
                               "\"x\":null,\"s\":\"\"}}"},
    {"play n=007 m=-0 k=1,b,false",
     "{\"cmd\":\"act\",\"action\":{\"type\":\"play\",\"n\":\"007\",\"m\":\"-0\","
     "\"k\":[1,\"b\",false]}}"},
    {"act discard card=Y3 room=r1",
     "{\"cmd\":\"act\",\"room\":\"r1\",\"action\":{\"type\":\"discard\",\"card\":\"Y3\"}}"},
    {"act discard card=Y3 seq=12",
     "{\"cmd\":\"act\",\"seq\":12,\"action\":{\"type\":\"discard\",\"card\":\"Y3\"}}"},
    {"draw seq=3", "{\"cmd\":\"act\",\"seq\":3,\"action\":{\"type\":\"draw\"}}"},
    {"act leave", "{\"cmd\":\"act\",\"action\":{\"type\":\"leave\"}}"},
    {"act Draw", "{\"cmd\":\"act\",\"action\":{\"type\":\"Draw\"}}"},
    {"act {\"type\":\"x\",\"n\":[1,2.5],\"o\":{\"a\":\"b c\"}}",
     "{\"cmd\":\"act\",\"action\":{\"type\":\"x\",\"n\":[1,2.5],\"o\":{\"a\":\"b c\"}}}"},
};

static void inline_forms_map_to_json_requests(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t i = 0; i < sizeof(inline_cases) / sizeof(inline_cases[0]); i++) {
        const inline_case_t *t = &inline_cases[i];
        const char *code = NULL;
        char message[256] = "";
        tapis_error_t err;
        json_t *got = request(t->line, &code, message, sizeof(message));
        json_t *want = json_loads(t->json, 0, NULL);
        json_t *raw = inline_parse(t->line, strlen(t->line), &err);
        assert_non_null(want);
        if (!got || !json_equal(got, want) || !raw) {
            char *g = got ? json_dumps(got, JSON_COMPACT) : NULL;
            print_error("'%s': want %s, got %s (%s %s)\n", t->line, t->json, g ? g : "-",
                        code ? code : "", message);
            free(g);
            failures++;
        }
        json_decref(raw);
        json_decref(got);
        json_decref(want);
    }
    assert_int_equal(failures, 0);
}

static void inline_mistakes_are_bad_requests(void **state)
{
    (void)state;
    const struct {
        const char *line, *code, *says;
    } bad[] = {
        {"hello", TAPIS_E_BAD_REQUEST, "name: required"},
        {"hello a b c", TAPIS_E_BAD_REQUEST, "too many words"},
        {"hello alice bob=1", TAPIS_E_BAD_REQUEST, "no argument named 'bob'"},
        {"hello name=a name=b", TAPIS_E_BAD_REQUEST, "name: given twice"},
        {"join", TAPIS_E_BAD_REQUEST, "room: required"},
        {"join r1 x", TAPIS_E_BAD_REQUEST, "seat: must be an integer"},
        {"join r1 2 3", TAPIS_E_BAD_REQUEST, "too many words"},
        {"join room=r1 r2", TAPIS_E_BAD_REQUEST, "given twice"},
        {"create", TAPIS_E_BAD_REQUEST, "game: required"},
        {"create 233 four", TAPIS_E_BAD_REQUEST, "players: must be an integer"},
        {"create 233 4 banana", TAPIS_E_BAD_REQUEST, "too many words"},
        {"create 233 private private", TAPIS_E_BAD_REQUEST, "private: given twice"},
        {"create 233 rated rated", TAPIS_E_BAD_REQUEST, "rated: given twice"},
        {"create 233 options=x", TAPIS_E_BAD_REQUEST, "options: must be an object"},
        {"watch", TAPIS_E_BAD_REQUEST, "room: required"},
        {"say", TAPIS_E_BAD_REQUEST, "text: required"},
        {"say    ", TAPIS_E_BAD_REQUEST, "text: required"},
        {"act", TAPIS_E_BAD_REQUEST, "action: required"},
        {"act card=Y3", TAPIS_E_BAD_REQUEST, "first word is the action type"},
        {"discard type=x", TAPIS_E_BAD_REQUEST, "type is the first word"},
        {"discard card=a card=b", TAPIS_E_BAD_REQUEST, "card: given twice"},
        {"discard Y3 args=Y4", TAPIS_E_BAD_REQUEST, "args: given twice"},
        {"discard room=a room=b", TAPIS_E_BAD_REQUEST, "room: given twice"},
        {"discard seq=1 seq=2", TAPIS_E_BAD_REQUEST, "seq: given twice"},
        {"discard seq=x", TAPIS_E_BAD_REQUEST, "seq"},
        {"act {\"type\":", TAPIS_E_BAD_JSON, "invalid JSON"},
        {"act {\"card\":\"Y3\"}", TAPIS_E_BAD_REQUEST, "action.type"},
        {"Discard", TAPIS_E_UNKNOWN_COMMAND, "unknown command 'Discard'"},
        {"3", TAPIS_E_UNKNOWN_COMMAND, "unknown command"},
        {"a_very_long_action_type_name_beyond_32", TAPIS_E_BAD_REQUEST, "action.type"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *code;
        char message[256] = "";
        json_t *m = request(bad[i].line, &code, message, sizeof(message));
        if (m || !code || strcmp(code, bad[i].code) || !strstr(message, bad[i].says))
            print_error("'%s': want %s '%s', got %s '%s'\n", bad[i].line, bad[i].code, bad[i].says,
                        code ? code : "ok", message);
        assert_null(m);
        assert_string_equal(code, bad[i].code);
        assert_non_null(strstr(message, bad[i].says));
    }
}

/* ------------------------------------------------------- action rendering --- */

static void actions_render_as_words_and_parse_back(void **state)
{
    (void)state;
    const struct {
        const char *action, *words; /* words NULL: only the round trip is checked */
    } cases[] = {
        {"{\"type\":\"discard\",\"card\":\"Y3\",\"declare\":true}", "discard card=Y3 declare=true"},
        {"{\"type\":\"draw\"}", "draw"},
        {"{\"type\":\"claim\",\"cards\":[\"Y3\",\"Y3\"]}", "claim cards=Y3,Y3"},
        {"{\"type\":\"claim\",\"cards\":[\"Y3\"]}", "claim cards=Y3,"},
        {"{\"type\":\"claim\",\"cards\":[]}", "claim cards=,"},
        {"{\"type\":\"give\",\"seat\":2}", "give seat=2"},
        {"{\"type\":\"lay\",\"args\":[\"Y3\",4,true,null]}", "lay Y3 4 true null"},
        {"{\"type\":\"lay\",\"args\":[[\"a\",\"b\"],[\"c\"]]}", "lay a,b c,"},
        {"{\"type\":\"lay\",\"args\":[]}", "lay args=,"},
        {"{\"type\":\"lay\",\"args\":\"x\"}", "lay args=x"},
        {"{\"type\":\"leave\"}", "act leave"},
        {"{\"type\":\"Draw\",\"n\":-5}", "act Draw n=-5"},
        {"{\"type\":\"x\",\"s\":\"\"}", "x s="},
        {"{\"type\":\"x\",\"s\":\"caf\\u00e9\"}", "x s=caf\xc3\xa9"},
        {"{\"type\":\"x\",\"s\":\"a=b\"}", "x s=a=b"},
        {"{\"type\":\"x\",\"s\":\"12\"}", NULL},
        {"{\"type\":\"x\",\"s\":\"true\"}", NULL},
        {"{\"type\":\"x\",\"s\":\"007\"}", "x s=007"},
        {"{\"type\":\"x\",\"s\":\"two words\"}", NULL},
        {"{\"type\":\"x\",\"s\":\"a,b\"}", NULL},
        {"{\"type\":\"x\",\"s\":\"tab\\there\"}", NULL},
        {"{\"type\":\"x\",\"s\":\"nl\\nhere\"}", NULL},
        {"{\"type\":\"x\",\"r\":2.5}", NULL},
        {"{\"type\":\"x\",\"o\":{\"a\":1}}", NULL},
        {"{\"type\":\"x\",\"a\":[[1]]}", NULL},
        {"{\"type\":\"x\",\"a\":[\"\",\"b\"]}", NULL},
        {"{\"type\":\"x\",\"room\":\"r1\"}", NULL},
        {"{\"type\":\"x\",\"args\":[\"k=v\"]}", NULL},
        {"{\"type\":\"x\",\"args\":[\"\"]}", NULL},
        {"{\"type\":\"x\",\"args\":[\"a b\"]}", NULL},
        {"{\"type\":\"two words\"}", NULL},
        {"{\"type\":\"a=b\"}", NULL},
        {"{\"type\":\"{x\"}", NULL},
        {"{\"type\":\"x\",\"k=\":1}", NULL},
        {"{\"type\":\"x\",\"\":1}", NULL},
        {"{\"type\":\"x\",\"big\":9223372036854775807,\"small\":-9223372036854775807}", NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *action = json_loads(cases[i].action, 0, NULL);
        assert_non_null(action);
        char *words = inline_render_action(action);
        assert_non_null(words);
        assert_null(strchr(words, '\n'));
        if (cases[i].words && strcmp(words, cases[i].words) != 0)
            print_error("%s: want '%s', got '%s'\n", cases[i].action, cases[i].words, words);
        if (cases[i].words) assert_string_equal(words, cases[i].words);
        const char *code;
        char message[256] = "";
        json_t *m = request(words, &code, message, sizeof(message));
        if (!m) print_error("'%s' does not parse: %s %s\n", words, code, message);
        assert_non_null(m);
        assert_string_equal(json_string_value(json_object_get(m, "cmd")), "act");
        assert_null(json_object_get(m, "room"));
        if (!json_equal(json_object_get(m, "action"), action))
            print_error("'%s' came back different\n", words);
        assert_true(json_equal(json_object_get(m, "action"), action));
        json_decref(m);
        free(words);
        json_decref(action);
    }
    json_t *no_type = json_pack("{s:i}", "type", 3);
    assert_null(inline_render_action(no_type));
    json_decref(no_type);
    assert_null(inline_render_action(NULL));
}

/* A random scalar or flat array, from values chosen to be awkward. */
static json_t *random_value(uint64_t *x, int depth)
{
    static const char *strs[] = {"Y3",   "",    "12",   "007", "-0",
                                 "true", "a b", "a,b",  "k=v", "caf\xc3\xa9",
                                 "{x",   ",",   "null", "-",   "R10"};
    switch (xorshift_next(x) % 7) {
    case 0: return json_string(strs[xorshift_next(x) % (sizeof(strs) / sizeof(strs[0]))]);
    case 1: return json_integer((json_int_t)(xorshift_next(x) % 2001) - 1000);
    case 2: return json_boolean(xorshift_next(x) % 2);
    case 3: return json_null();
    case 4: return json_real(0.5);
    default: {
        json_t *a = json_array();
        int n = depth > 0 ? (int)(xorshift_next(x) % 4) : 0;
        for (int i = 0; i < n; i++)
            json_array_append_new(a, random_value(x, depth - 1));
        return a;
    }
    }
}

static void random_actions_round_trip(void **state)
{
    (void)state;
    static const char *types[] = {"draw", "discard", "leave", "Draw", "x y", "claim", "a=b"};
    static const char *keys[] = {"card", "cards", "args", "seat", "room", "declare", "k=", ""};
    uint64_t x = 2463534242ULL;
    for (int i = 0; i < 5000; i++) {
        json_t *action = json_pack("{s:s}", "type", types[xorshift_next(&x) % 7]);
        int n = (int)(xorshift_next(&x) % 4);
        for (int k = 0; k < n; k++)
            json_object_set_new(action, keys[xorshift_next(&x) % 8], random_value(&x, 2));
        char *words = inline_render_action(action);
        assert_non_null(words);
        const char *code;
        json_t *m = request(words, &code, NULL, 0);
        if (!m || !json_equal(json_object_get(m, "action"), action)) {
            char *j = json_dumps(action, JSON_COMPACT);
            print_error("%s -> '%s' does not come back\n", j, words);
            free(j);
        }
        assert_non_null(m);
        assert_true(json_equal(json_object_get(m, "action"), action));
        json_decref(m);
        free(words);
        json_decref(action);
    }
}

/* ------------------------------------------------------------------ help --- */

static void help_lists_every_command(void **state)
{
    (void)state;
    char *h = command_help(NULL);
    assert_non_null(h);
    int n;
    const command_t *t = command_table(&n);
    for (int i = 0; i < n; i++) /* the operator's commands: under help admin */
        if (t[i].flags & CMD_F_ADMIN)
            assert_null(strstr(h, t[i].usage));
        else
            assert_non_null(strstr(h, t[i].usage));
    assert_non_null(strstr(h, "netcat"));
    assert_non_null(strstr(h, "help admin"));
    char *admin = command_help("admin");
    for (int i = 0; i < n; i++)
        if (t[i].flags & CMD_F_ADMIN) assert_non_null(strstr(admin, t[i].usage));
    free(admin);
    assert_int_not_equal(h[strlen(h) - 1], '\n');
    free(h);
    for (int i = 0; i < n; i++) {
        h = command_help(t[i].name);
        assert_non_null(h);
        assert_non_null(strstr(h, t[i].summary));
        free(h);
    }
    assert_null(command_help("nope"));
}

TEST_MAIN(cmocka_unit_test(table_has_every_command_of_the_design),
          cmocka_unit_test(only_some_commands_work_before_hello),
          cmocka_unit_test(every_argument_refuses_every_wrong_type),
          cmocka_unit_test(integers_and_lengths_are_range_checked),
          cmocka_unit_test(room_may_be_an_integer_and_becomes_a_string),
          cmocka_unit_test(optional_null_is_absent_and_extras_are_ignored),
          cmocka_unit_test(inline_forms_map_to_json_requests),
          cmocka_unit_test(inline_mistakes_are_bad_requests),
          cmocka_unit_test(actions_render_as_words_and_parse_back),
          cmocka_unit_test(random_actions_round_trip), cmocka_unit_test(help_lists_every_command))
