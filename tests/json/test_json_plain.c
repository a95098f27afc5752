/*
 * test_json_plain.c — json_plain_parse() answers only as jansson does: over
 * random texts, plain and not, whole and damaged, every tree it returns is
 * json_loadb()'s (equal, keys in the same order); it answers every plain
 * text; it frees what it built when an allocation fails; and it stops at
 * its depth. json_plain_shared() answers as it does, sharing what it may.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json/json_plain.h"
#include "json/json_text.h"
#include "tests/lib/xorshift.h"
#include "tests/lib/test_main.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static unsigned next(unsigned n)
{
    return xorshift_below(&rng_state, n);
}

typedef struct {
    char b[4096];
    size_t n;
} text_t;

static void put(text_t *t, const char *s)
{
    size_t k = strlen(s);
    if (t->n + k < sizeof t->b) {
        memcpy(t->b + t->n, s, k);
        t->n += k;
    }
}

/* Whitespace, sometimes. */
static void space(text_t *t, bool plain_only)
{
    static const char *const ws[] = {" ", "\t", "\n", "\r", "  "};
    if (next(6) == 0) put(t, ws[next(5)]);
    if (!plain_only && next(40) == 0) put(t, "\f"); /* not JSON's whitespace */
}

static const char *const plain_strs[] = {
    "", "act", "233", "Y4", "gift-5", "a b", "~!#$%&'()*+,-./:;<=>?@[]^_`{|}"};
static const char *const other_strs[] = {"caf\xc3\xa9",    "q\\\"b", "\\n", "\\u0041", "tab\tin",
                                         "\\uD83D\\uDE00", "\xff",   "\\x", "del\x7f"};
static const char *const plain_nums[] = {
    "0", "7", "-3", "42", "100", "-0", "123456789012345678", "-123456789012345678"};
static const char *const other_nums[] = {
    "01",  "1.5", "1e3", "2E-1", "-",  "1234567890123456789", "99999999999999999999", "-01",
    "0.0", "+1",  ".5",  "1.",   "--1"};
static const char *const keys[] = {"cmd", "room", "action", "type", "to", "cards", "seq", "id"};

/* A random value (of kind `kind`, unless -1). */
static void value(text_t *t, int depth, bool plain_only, int kind_wanted)
{
    unsigned kind = kind_wanted >= 0 ? (unsigned)kind_wanted : next(depth >= 6 ? 5 : 8);
    space(t, plain_only);
    bool other = !plain_only && next(8) == 0;
    switch (kind) {
    case 0:
        put(t, "\"");
        put(t, other ? other_strs[next(sizeof other_strs / sizeof *other_strs)]
                     : plain_strs[next(sizeof plain_strs / sizeof *plain_strs)]);
        put(t, "\"");
        break;
    case 1:
        put(t, other ? other_nums[next(sizeof other_nums / sizeof *other_nums)]
                     : plain_nums[next(sizeof plain_nums / sizeof *plain_nums)]);
        break;
    case 2: put(t, other ? (next(2) ? "tru" : "nulll") : "true"); break;
    case 3: put(t, other ? "False" : "false"); break;
    case 4: put(t, "null"); break;
    case 5:
    case 6: {
        put(t, "{");
        unsigned n = next(5), first = next(8);
        for (unsigned i = 0; i < n; i++) {
            if (i) put(t, ",");
            space(t, plain_only);
            /* distinct keys, unless a duplicate is wanted */
            const char *k = keys[(first + i) % 8];
            if (other && i > 0 && next(3) == 0) k = keys[first % 8];
            put(t, "\"");
            put(t, k);
            put(t, "\"");
            space(t, plain_only);
            put(t, ":");
            value(t, depth + 1, plain_only, -1);
        }
        if (other && n && next(4) == 0) put(t, ","); /* a trailing comma */
        space(t, plain_only);
        put(t, "}");
        break;
    }
    default: {
        put(t, "[");
        unsigned n = next(5);
        for (unsigned i = 0; i < n; i++) {
            if (i) put(t, ",");
            value(t, depth + 1, plain_only, -1);
        }
        space(t, plain_only);
        put(t, "]");
        break;
    }
    }
    space(t, plain_only);
}

/* A random top-level text: an object or an array, plain or not, maybe damaged. */
static void text(text_t *t, bool plain_only)
{
    t->n = 0;
    space(t, plain_only);
    bool container = plain_only || next(10); /* jansson refuses a scalar at the top */
    value(t, 0, plain_only, container ? (next(4) ? 5 : 7) : -1);
    if (plain_only) return;
    switch (next(8)) {
    case 0:
        if (t->n) t->n = next((unsigned)t->n); /* cut */
        break;
    case 1:
        if (t->n) t->b[next((unsigned)t->n)] = (char)next(256); /* one byte changed */
        break;
    case 2: put(t, next(2) ? "x" : "{}"); break; /* something after */
    default: break;
    }
}

/* Same tree, keys in the same order: the same compact text. */
static void assert_same(const json_t *a, const json_t *b)
{
    static char ta[8192], tb[8192];
    assert_true(json_equal((json_t *)a, (json_t *)b));
    size_t na = json_text(a, ta, sizeof ta), nb = json_text(b, tb, sizeof tb);
    assert_int_equal(na, nb);
    assert_memory_equal(ta, tb, na < sizeof ta ? na : sizeof ta);
}

static void test_every_answer_is_janssons(void **state)
{
    (void)state;
    int answered = 0, refused_valid = 0;
    for (int i = 0; i < 200000; i++) {
        text_t t;
        text(&t, false);
        json_error_t e;
        json_t *p = json_plain_parse(t.b, t.n, 32);
        json_t *j = json_loadb(t.b, t.n, JSON_REJECT_DUPLICATES, &e);
        if (p) {
            if (!j) fail_msg("plain parsed what jansson refuses: %.*s", (int)t.n, t.b);
            assert_same(p, j);
            answered++;
        } else if (j) {
            refused_valid++;
        }
        json_decref(p);
        json_decref(j);
    }
    /* both kinds are common, so both branches above were taken */
    assert_true(answered > 10000);
    assert_true(refused_valid > 1000);
}

static void test_every_plain_text_is_answered(void **state)
{
    (void)state;
    for (int i = 0; i < 50000; i++) {
        text_t t;
        text(&t, true);
        json_error_t e;
        json_t *j = json_loadb(t.b, t.n, JSON_REJECT_DUPLICATES, &e);
        json_t *p = json_plain_parse(t.b, t.n, 32);
        if (!j) fail_msg("the generator wrote invalid JSON: %.*s (%s)", (int)t.n, t.b, e.text);
        if (!p) fail_msg("a plain text was refused: %.*s", (int)t.n, t.b);
        assert_same(p, j);
        json_decref(p);
        json_decref(j);
    }
}

static void test_the_requests_of_play(void **state)
{
    (void)state;
    static const char *const lines[] = {
        "{\"cmd\":\"act\",\"room\":\"12\",\"action\":{\"type\":\"gift\",\"to\":0}}",
        ("{\"cmd\":\"act\",\"room\":\"7\",\"action\":{\"type\":\"meld\",\"cards\":[\"Y4\",\"Y5\","
         "\"Y6\"]}}"), /* one line, wrapped (parenthesised for clang's -Wstring-concatenation) */
        "{\"cmd\":\"hello\",\"name\":\"A\"}",
        "{\"cmd\":\"create\",\"game\":\"233\",\"players\":2}",
        " { \"cmd\" : \"ping\" , \"id\" : -17 } \r\n",
        "[]",
        "{}",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        json_t *p = json_plain_parse(lines[i], strlen(lines[i]), 32);
        json_t *j = json_loadb(lines[i], strlen(lines[i]), JSON_REJECT_DUPLICATES, NULL);
        assert_non_null(p);
        assert_non_null(j);
        assert_same(p, j);
        json_decref(p);
        json_decref(j);
    }
    static const char *const refused[] = {
        "{\"a\":1,\"a\":2}",
        "{\"a\":1.0}",
        "{\"a\":\"\\n\"}",
        "\"top\"",
        "7",
        "{\"a\":1}x",
        "{\"a\":01}",
        "{\"a\":[1,]}",
        "{\"a\":\"caf\xc3\xa9\"}",
        "{\"a\":1234567890123456789}",
        "",
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
        assert_null(json_plain_parse(refused[i], strlen(refused[i]), 32));
}

static void test_depth(void **state)
{
    (void)state;
    char s[80];
    memset(s, '[', 32);
    memset(s + 32, ']', 32);
    json_t *v = json_plain_parse(s, 64, 32);
    assert_non_null(v);
    json_decref(v);
    assert_null(json_plain_parse(s, 64, 31));
}

/*
 * json_plain_shared() gives json_plain_parse()'s tree for every text, plain
 * or not, long or short, at any depth: a text seen again gets the very tree
 * it got before while it keeps its slot, and a text that displaced another
 * (more texts than slots) is the new text's own tree, never the old one's.
 */
static void test_shared_trees_are_the_parse(void **state)
{
    (void)state;
    int hits = 0, long_texts = 0;
    for (int i = 0; i < 50000; i++) {
        text_t t;
        text(&t, i % 4 != 0); /* plain texts mostly: those are kept */
        json_t *p = json_plain_parse(t.b, t.n, 32);
        json_t *a = json_plain_shared(t.b, t.n, 32), *b = json_plain_shared(t.b, t.n, 32);
        if (!p) {
            assert_null(a);
            assert_null(b);
            continue;
        }
        assert_non_null(a);
        assert_same(a, p);
        assert_same(b, p);
        if (t.n <= JSON_PLAIN_SHARED_TEXT) {
            assert_ptr_equal(a, b); /* the second asked for it just after the first */
            hits++;
        } else {
            assert_ptr_not_equal(a, b); /* too long to keep: built each time */
            long_texts++;
        }
        json_decref(p);
        json_decref(a);
        json_decref(b);
    }
    assert_true(hits > 1000);
    assert_true(long_texts > 1000);
    json_plain_shared_clear();
}

static void test_shared_trees_by_depth_and_after_clear(void **state)
{
    (void)state;
    /* Kept at depth 2, asked at depth 1: refused, as json_plain_parse() refuses it. */
    const char *deep = "[[1]]";
    json_t *v = json_plain_shared(deep, strlen(deep), 2);
    assert_non_null(v);
    assert_null(json_plain_shared(deep, strlen(deep), 1));
    json_t *again = json_plain_shared(deep, strlen(deep), 2);
    assert_ptr_equal(again, v);
    json_decref(again);
    /* The table held a reference: cleared, the caller's is the last. */
    assert_int_equal(v->refcount, 2);
    json_plain_shared_clear();
    assert_int_equal(v->refcount, 1);
    json_t *fresh = json_plain_shared(deep, strlen(deep), 2);
    assert_ptr_not_equal(fresh, v);
    assert_same(fresh, v);
    json_decref(fresh);
    json_decref(v);
    /* Many texts for few slots: each answer is its own text's. */
    char buf[64];
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 4096; i++) {
            int n = snprintf(buf, sizeof buf, "{\"type\":\"discard\",\"n\":%d}", i);
            json_t *x = json_plain_shared(buf, (size_t)n, 32);
            assert_non_null(x);
            assert_int_equal(json_integer_value(json_object_get(x, "n")), i);
            json_decref(x);
        }
    json_plain_shared_clear();
}

/* An allocator that fails the nth allocation from now. */
static long fail_at = -1;
static void *failing_malloc(size_t n)
{
    if (fail_at == 0) {
        fail_at = -1;
        return NULL;
    }
    if (fail_at > 0) fail_at--;
    return malloc(n);
}

static void test_a_failed_allocation_gives_null(void **state)
{
    (void)state;
    const char *s =
        "{\"cmd\":\"act\",\"room\":\"7\",\"action\":{\"type\":\"meld\",\"cards\":[\"Y4\",\"Y5\"]}}";
    json_set_alloc_funcs(failing_malloc, free);
    int failed = 0;
    for (long k = 0; k < 64; k++) {
        fail_at = k;
        json_t *v = json_plain_parse(s, strlen(s), 32);
        if (fail_at == -1) {
            assert_null(v); /* the kth allocation failed: nothing, and nothing leaked */
            failed++;
        } else {
            assert_non_null(v);
        }
        json_decref(v);
    }
    fail_at = -1;
    json_set_alloc_funcs(malloc, free);
    assert_true(failed > 10);
}

TEST_MAIN(cmocka_unit_test(test_every_answer_is_janssons),
          cmocka_unit_test(test_every_plain_text_is_answered),
          cmocka_unit_test(test_the_requests_of_play), cmocka_unit_test(test_depth),
          cmocka_unit_test(test_a_failed_allocation_gives_null),
          cmocka_unit_test(test_shared_trees_are_the_parse),
          cmocka_unit_test(test_shared_trees_by_depth_and_after_clear))
