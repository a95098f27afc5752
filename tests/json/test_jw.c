/*
 * test_jw.c — the writer's two ends agree: over thousands of random
 * documents, the text end writes json_text() of what the tree end built,
 * byte for byte, and at every buffer size it stores only what fits and
 * reports the whole length. Misuses make the writer fail instead of writing
 * broken JSON, and a copy of a writer goes on from where it was taken.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json/json_text.h"
#include "json/jw.h"
#include "tests/lib/xorshift.h"
#include "tests/lib/test_main.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static unsigned next(unsigned n)
{
    return xorshift_below(&rng_state, n);
}

static const char *const keys[] = {"seat", "hand", "legal", "k", "a_b", "score", "x1", "phase"};
static const char *const strs[] = {"",
                                   "G4",
                                   "joker",
                                   "caf\xc3\xa9",
                                   "q\"b\\s",
                                   "\x01\x1f\n\t\r",
                                   "<\xe2\x80\xae>",
                                   "sixteen bytes ok",
                                   "seventeen bytes !",
                                   "a longer name, \"quoted\" late"};

/* A random value written on both writers (key: its key, NULL in an array). */
static void gen(jw_t *a, jw_t *b, const char *key, int depth)
{
    unsigned kind = next(depth >= 5 ? 6 : 8);
    switch (kind) {
    case 0: {
        json_int_t v = (json_int_t)next(2000000) - 1000000;
        if (next(10) == 0) v = next(2) ? INT64_MAX : INT64_MIN;
        if (next(2) == 0) v = (json_int_t)next(1100) - 50; /* a view's: small, inline */
        jw_int(a, key, v), jw_int(b, key, v);
        break;
    }
    case 1: {
        bool v = next(2);
        jw_bool(a, key, v), jw_bool(b, key, v);
        break;
    }
    case 2: jw_null(a, key), jw_null(b, key); break;
    case 3:
    case 4: {
        const char *s = strs[next(sizeof strs / sizeof *strs)];
        jw_str(a, key, s), jw_str(b, key, s);
        break;
    }
    case 5: {
        json_t *v = json_pack("{s:[i,s,n],s:{}}", "shared", 1, "x\ny", "e");
        if (next(2)) {
            jw_json(a, key, v), jw_json(b, key, v);
        } else { /* with its text made beforehand, as a game's shared parts */
            char t[128];
            size_t n = json_text(v, t, sizeof t);
            jw_json_text(a, key, v, t, n), jw_json_text(b, key, v, t, n);
        }
        json_decref(v);
        break;
    }
    case 6: {
        jw_obj(a, key), jw_obj(b, key);
        unsigned n = next(5);
        for (unsigned i = 0; i < n; i++) {
            const char *k = keys[i]; /* distinct keys: jansson's objects hold one of each */
            gen(a, b, k, depth + 1);
        }
        jw_end(a), jw_end(b);
        break;
    }
    default: {
        jw_arr(a, key), jw_arr(b, key);
        unsigned n = next(5);
        for (unsigned i = 0; i < n; i++)
            gen(a, b, NULL, depth + 1);
        jw_end(a), jw_end(b);
        break;
    }
    }
}

static void test_text_is_the_tree_encoded(void **state)
{
    (void)state;
    char buf[8192], want[8192];
    for (int round = 0; round < 5000; round++) {
        jw_t t, tr;
        jw_text(&t, buf, sizeof buf);
        jw_tree(&tr);
        gen(&t, &tr, NULL, 0);
        assert_true(jw_ok(&t));
        assert_true(jw_ok(&tr));
        json_t *v = jw_take(&tr);
        assert_non_null(v);
        size_t n = json_text(v, want, sizeof want);
        assert_true(n <= sizeof want);
        if (jw_len(&t) != n || memcmp(buf, want, n) != 0)
            fail_msg("text: %.*s\ntree: %.*s", (int)jw_len(&t), buf, (int)n, want);
        json_decref(v);
    }
}

static void test_short_buffers_store_what_fits(void **state)
{
    (void)state;
    for (int round = 0; round < 300; round++) {
        uint64_t seed = rng_state;
        char full[8192];
        jw_t t, tr;
        jw_text(&t, full, sizeof full);
        jw_tree(&tr);
        gen(&t, &tr, NULL, 0);
        json_decref(jw_take(&tr));
        size_t n = jw_len(&t);
        for (size_t size = 0; size <= n; size += 1 + size / 4) {
            char small[8192];
            memset(small, '#', sizeof small);
            rng_state = seed;
            jw_t s, tr2;
            jw_text(&s, small, size);
            jw_tree(&tr2);
            gen(&s, &tr2, NULL, 0);
            json_decref(jw_take(&tr2));
            assert_int_equal(jw_len(&s), n);
            assert_true(jw_ok(&s) == (size >= n));
            assert_memory_equal(small, full, size);
            assert_int_equal(small[size], '#');
        }
    }
}

static void test_misuse_fails(void **state)
{
    (void)state;
    char buf[256];
    jw_t w;
    jw_text(&w, buf, sizeof buf); /* a key in an array */
    jw_arr(&w, NULL);
    jw_int(&w, "k", 1);
    assert_false(jw_ok(&w));
    jw_tree(&w); /* no key in an object */
    jw_obj(&w, NULL);
    jw_int(&w, NULL, 1);
    jw_end(&w);
    assert_false(jw_ok(&w));
    assert_null(jw_take(&w));
    jw_tree(&w); /* an end with nothing open */
    jw_end(&w);
    assert_null(jw_take(&w));
    jw_text(&w, buf, sizeof buf); /* two values at the top */
    jw_int(&w, NULL, 1);
    jw_int(&w, NULL, 2);
    assert_false(jw_ok(&w));
    jw_tree(&w); /* an object left open */
    jw_obj(&w, NULL);
    assert_null(jw_take(&w));
    jw_tree(&w); /* too deep */
    for (int i = 0; i < JW_MAX_DEPTH + 2; i++)
        jw_arr(&w, NULL);
    assert_false(jw_ok(&w));
    for (int i = 0; i < JW_MAX_DEPTH + 2; i++)
        jw_end(&w);
    assert_null(jw_take(&w));
    jw_text(&w, buf, sizeof buf); /* no value: NULL, not a crash */
    jw_json(&w, NULL, NULL);
    assert_false(jw_ok(&w));
}

/* The server's use: a common start written once, then each seat's end after it. */
static void test_a_copy_goes_on_from_where_it_was(void **state)
{
    (void)state;
    char buf[256];
    jw_t w;
    jw_text(&w, buf, sizeof buf);
    jw_obj(&w, NULL);
    jw_str(&w, "ev", "state");
    jw_obj(&w, "view");
    jw_int(&w, "turn", 1);
    jw_t at = w;
    const char *const want[] = {"{\"ev\":\"state\",\"view\":{\"turn\":1,\"seat\":0}}",
                                "{\"ev\":\"state\",\"view\":{\"turn\":1,\"seat\":1,\"x\":[]}}",
                                "{\"ev\":\"state\",\"view\":{\"turn\":1}}"};
    for (int seat = 0; seat < 3; seat++) {
        w = at;
        if (seat < 2) jw_int(&w, "seat", seat);
        if (seat == 1) jw_arr(&w, "x"), jw_end(&w);
        jw_end(&w);
        jw_end(&w);
        assert_true(jw_ok(&w));
        assert_int_equal(jw_len(&w), strlen(want[seat]));
        assert_memory_equal(buf, want[seat], jw_len(&w));
    }
}

/* The tree end shares what jw_json() is given, as the games' views do. */
static void test_the_tree_shares_json_values(void **state)
{
    (void)state;
    json_t *events = json_pack("[{s:i}]", "seat", 0);
    jw_t w;
    jw_tree(&w);
    jw_obj(&w, NULL);
    jw_json(&w, "events", events);
    jw_end(&w);
    json_t *v = jw_take(&w);
    assert_ptr_equal(json_object_get(v, "events"), events);
    assert_int_equal(events->refcount, 2);
    json_decref(v);
    assert_int_equal(events->refcount, 1);

    /* Given its text too: the tree still shares it; the text end copies the text. */
    jw_tree(&w);
    jw_json_text(&w, NULL, events, "[TEXT]", 6);
    v = jw_take(&w);
    assert_ptr_equal(v, events);
    json_decref(v);
    char buf[64];
    jw_text(&w, buf, sizeof buf);
    jw_arr(&w, NULL);
    jw_json_text(&w, NULL, events, "[TEXT]", 6);
    jw_json_text(&w, NULL, events, NULL, 0); /* no text: the tree's */
    jw_end(&w);
    assert_true(jw_ok(&w));
    assert_int_equal(jw_len(&w), strlen("[[TEXT],[{\"seat\":0}]]"));
    assert_memory_equal(buf, "[[TEXT],[{\"seat\":0}]]", jw_len(&w));
    json_decref(events);
}

TEST_MAIN(cmocka_unit_test(test_text_is_the_tree_encoded),
          cmocka_unit_test(test_short_buffers_store_what_fits), cmocka_unit_test(test_misuse_fails),
          cmocka_unit_test(test_a_copy_goes_on_from_where_it_was),
          cmocka_unit_test(test_the_tree_shares_json_values))
