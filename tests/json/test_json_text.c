/*
 * test_json_text.c — json_text() writes the bytes json_dumpb() writes
 * (JSON_COMPACT | JSON_ENCODE_ANY): over hand-picked values (every byte
 * below 0x20, quotes, backslashes, UTF-8, integer limits, reals) and over
 * thousands of random trees; and it reports the whole length when the
 * buffer is short, writing only what fits. json_text_len() finds where such
 * a value ends in a longer text, and that no shorter text holds its end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json/json_text.h"
#include "tests/lib/test_main.h"

/* Compare json_text(v) with jansson's encoding of v. */
static void same_as_jansson(const json_t *v)
{
    size_t want_n = json_dumpb(v, NULL, 0, JSON_COMPACT | JSON_ENCODE_ANY);
    assert_true(want_n > 0);
    char *want = malloc(want_n), *got = malloc(want_n + 16);
    assert_non_null(want);
    assert_non_null(got);
    assert_int_equal(json_dumpb(v, want, want_n, JSON_COMPACT | JSON_ENCODE_ANY), want_n);
    memset(got, '#', want_n + 16);
    size_t n = json_text(v, got, want_n + 16);
    if (n != want_n || memcmp(got, want, n) != 0)
        fail_msg("json_text: %.*s\njansson:   %.*s", (int)n, got, (int)want_n, want);
    assert_int_equal(got[n], '#'); /* nothing written past the text */
    free(want);
    free(got);
}

static void test_scalars_and_escapes(void **state)
{
    (void)state;
    char all[32 + 8];
    for (int i = 0; i < 32; i++)
        all[i] = (char)(i + 1 == 32 ? 0x1f : i + 1);
    memcpy(all + 31, "\"\\/\x7f", 4);
    json_t *vals[] = {
        json_null(),
        json_true(),
        json_false(),
        json_integer(0),
        json_integer(-1),
        json_integer(INT64_MAX),
        json_integer(INT64_MIN),
        json_real(0.5),
        json_real(1e300),
        json_real(-3.0),
        json_real(-0.0), /* reals are written without jansson: every shape of %.17g */
        json_real(1e20),
        json_real(1e-5),
        json_real(-2.5e-300),
        json_real(1.7976931348623157e308),
        json_real(4.9e-324),
        json_real(0.1),
        json_real(123456789012345678.0),
        json_real(1e16),
        json_string(""),
        json_stringn(all, 35),
        json_stringn("a\0b", 3),
        json_string("caf\xc3\xa9 \xe2\x80\xae \xf0\x9f\x82\xa1"),
        json_object(),
        json_array(),
        json_pack("{s:{s:[i,s,n,b]},s:[]}", "a\n\"", "", 1, "x", 1, "z"),
    };
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        same_as_jansson(vals[i]);
        json_decref(vals[i]);
    }
    assert_int_equal(json_text(NULL, NULL, 0), 0);
}

/* A random value of at most `depth` levels, strings from a nasty alphabet. */
static json_t *random_value(unsigned *seed, int depth)
{
    static const char *const bits[] = {
        "a",    "Z",    " ",    "\"",       "\\",           "/", "\n", "\t",
        "\x01", "\x1f", "\x7f", "\xc3\xa9", "\xe2\x80\xae", "0", "{}"};
    int kind = rand_r(seed) % (depth > 0 ? 8 : 6);
    switch (kind) {
    case 0: return json_null();
    case 1: return json_boolean(rand_r(seed) & 1);
    case 2: return json_integer((json_int_t)rand_r(seed) * (rand_r(seed) & 1 ? -977 : 1));
    case 3: /* ordinary, tiny and huge magnitudes */
        return json_real((double)rand_r(seed) / 7.0 *
                         pow(10.0, (double)(rand_r(seed) % 601) - 300));
    case 4:
    case 5: {
        char s[64] = "";
        int n = rand_r(seed) % 6;
        for (int i = 0; i < n; i++)
            strcat(s, bits[rand_r(seed) % (sizeof bits / sizeof bits[0])]);
        return json_string(s);
    }
    case 6: {
        json_t *a = json_array();
        int n = rand_r(seed) % 5;
        for (int i = 0; i < n; i++)
            json_array_append_new(a, random_value(seed, depth - 1));
        return a;
    }
    default: {
        json_t *o = json_object();
        int n = rand_r(seed) % 5;
        for (int i = 0; i < n; i++) {
            char key[16];
            snprintf(key, sizeof key, "%s%d", bits[rand_r(seed) % 10], rand_r(seed) % 50);
            json_object_set_new(o, key, random_value(seed, depth - 1));
        }
        return o;
    }
    }
}

static void test_random_trees(void **state)
{
    (void)state;
    unsigned seed = 233;
    for (int i = 0; i < 5000; i++) {
        json_t *v = random_value(&seed, 4);
        same_as_jansson(v);
        json_decref(v);
    }
}

static void test_short_buffer(void **state)
{
    (void)state;
    json_t *v = json_pack("{s:s,s:[i,i]}", "name", "a\tb", "n", 12, -3);
    const char want[] = "{\"name\":\"a\\tb\",\"n\":[12,-3]}";
    size_t full = sizeof want - 1;
    for (size_t size = 0; size <= full; size++) {
        char buf[64];
        memset(buf, '#', sizeof buf);
        assert_int_equal(json_text(v, buf, size), full);
        assert_memory_equal(buf, want, size);
        assert_int_equal(buf[size], '#');
    }
    json_decref(v);
}

/* Each random value, followed by what may follow a value, and cut short. */
static void test_value_len(void **state)
{
    (void)state;
    static const char *const after[] = {",", "]", "}", ",[1]", "]}", "}]"};
    unsigned seed = 2330;
    for (int i = 0; i < 5000; i++) {
        json_t *v = random_value(&seed, 4);
        size_t n = json_text(v, NULL, 0);
        char *t = malloc(n + 8);
        assert_non_null(t);
        json_text(v, t, n);
        const char *tail = after[i % 6];
        memcpy(t + n, tail, strlen(tail));
        if (json_text_len(t, n + strlen(tail)) != n)
            fail_msg("json_text_len: %zu, want %zu in %.*s", json_text_len(t, n + strlen(tail)), n,
                     (int)(n + strlen(tail)), t);
        for (size_t k = 0; k < n; k++) /* a text cut short does not end */
            assert_int_equal(json_text_len(t, k), k);
        free(t);
        json_decref(v);
    }
}

TEST_MAIN(cmocka_unit_test(test_scalars_and_escapes), cmocka_unit_test(test_random_trees),
          cmocka_unit_test(test_short_buffer), cmocka_unit_test(test_value_len))
