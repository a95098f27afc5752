/*
 * test_utf8.c — the one UTF-8 decoder (protocol/utf8.h), which the protocol's
 * validation and the clients' escaping for a terminal share: a catalogue of
 * the edges (each boundary of each length, overlongs, surrogates, beyond
 * U+10FFFF, cut and stray bytes), then every code point round-tripped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "protocol/utf8.h"
#include "tests/lib/test_main.h"

/* s (n bytes) decodes as `want` bytes (0: invalid) of code point cp. */
typedef struct utf8_case {
    const char *s;
    size_t n;
    size_t want;
    uint32_t cp;
    const char *what;
} utf8_case_t;

#define VALID(s, cp, what)                                                                         \
    {                                                                                              \
        (s), sizeof(s) - 1, sizeof(s) - 1, (cp), (what)                                            \
    }
#define INVALID(s, what)                                                                           \
    {                                                                                              \
        (s), sizeof(s) - 1, 0, 0, (what)                                                           \
    }

static const utf8_case_t CASES[] = {
    VALID("A", 0x41, "ASCII"),
    VALID("\x7f", 0x7f, "the last of one byte"),
    VALID("\xc2\x80", 0x80, "the first of two bytes"),
    VALID("\xdf\xbf", 0x7ff, "the last of two bytes"),
    VALID("\xe0\xa0\x80", 0x800, "the first of three bytes"),
    VALID("\xed\x9f\xbf", 0xd7ff, "just below the surrogates"),
    VALID("\xee\x80\x80", 0xe000, "just above the surrogates"),
    VALID("\xef\xbf\xbf", 0xffff, "the last of three bytes"),
    VALID("\xf0\x90\x80\x80", 0x10000, "the first of four bytes"),
    VALID("\xf4\x8f\xbf\xbf", 0x10ffff, "U+10FFFF, the last code point"),
    /* overlong: a code point written with more bytes than it needs */
    INVALID("\xc0\x80", "NUL in two bytes"),
    INVALID("\xc1\xbf", "U+007F in two bytes"),
    INVALID("\xe0\x80\xaf", "'/' in three bytes"),
    INVALID("\xe0\x9f\xbf", "U+07FF in three bytes"),
    INVALID("\xf0\x80\x80\x80", "NUL in four bytes"),
    INVALID("\xf0\x8f\xbf\xbf", "U+FFFF in four bytes"),
    /* surrogates: UTF-16's halves, never characters */
    INVALID("\xed\xa0\x80", "U+D800"),
    INVALID("\xed\xbf\xbf", "U+DFFF"),
    /* beyond U+10FFFF */
    INVALID("\xf4\x90\x80\x80", "U+110000"),
    INVALID("\xf5\x80\x80\x80", "a lead byte 0xf5"),
    INVALID("\xf7\xbf\xbf\xbf", "U+1FFFFF"),
    INVALID("\xf8\x88\x80\x80\x80", "five bytes"),
    INVALID("\xfc\x84\x80\x80\x80\x80", "six bytes"),
    INVALID("\xfe", "0xfe"),
    INVALID("\xff", "0xff"),
    /* truncated: by the end of the input, or by a byte that does not continue */
    INVALID("\xc2", "two bytes, one given"),
    INVALID("\xe0\xa0", "three bytes, two given"),
    INVALID("\xf0\x90\x80", "four bytes, three given"),
    INVALID("\xe2\x82"
            "A",
            "three bytes, the third ASCII"),
    INVALID("\xc3\xc3\xa9", "a lead byte where a continuation should be"),
    /* stray continuation bytes */
    INVALID("\x80", "0x80 alone"),
    INVALID("\xbf\xbf", "0xbf twice"),
};

static void the_catalogue_of_edges_decodes_as_listed(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const utf8_case_t *c = &CASES[i];
        uint32_t cp = 0xdeadbeef;
        size_t got = utf8_decode((const unsigned char *)c->s, c->n, &cp);
        if (got != c->want) fail_msg("%s: length %zu, not %zu", c->what, got, c->want);
        if (got && cp != c->cp) fail_msg("%s: U+%04X, not U+%04X", c->what, cp, c->cp);
        if (!got && cp != 0xdeadbeef) fail_msg("%s: invalid, yet *cp was set", c->what);
        /* cp is optional */
        assert_int_equal(utf8_decode((const unsigned char *)c->s, c->n, NULL), c->want);
    }
}

static void only_the_first_character_is_decoded_and_len_is_the_end(void **state)
{
    (void)state;
    uint32_t cp;
    const unsigned char two[] = "\xc3\xa9\xc3\xa8"; /* éè */
    assert_int_equal(utf8_decode(two, 4, &cp), 2);
    assert_int_equal(cp, 0xe9);
    assert_int_equal(utf8_decode((const unsigned char *)"A\xff", 2, &cp), 1);
    /* the bytes after len are not looked at: a complete sequence, cut by len */
    assert_int_equal(utf8_decode(two, 1, &cp), 0);
    assert_int_equal(utf8_decode((const unsigned char *)"\xf0\x9f\x82\xa1", 3, &cp), 0);
    assert_int_equal(utf8_decode((const unsigned char *)"\0", 1, &cp), 1);
    assert_int_equal(cp, 0);
}

/* The shortest form of cp, written by the rules and not by the decoder. */
static size_t encode(uint32_t cp, unsigned char *out)
{
    if (cp < 0x80) {
        out[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (unsigned char)(0xc0 | (cp >> 6));
        out[1] = (unsigned char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (unsigned char)(0xe0 | (cp >> 12));
        out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (unsigned char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (unsigned char)(0xf0 | (cp >> 18));
    out[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (unsigned char)(0x80 | (cp & 0x3f));
    return 4;
}

static void every_code_point_round_trips_and_every_surrogate_is_refused(void **state)
{
    (void)state;
    for (uint32_t cp = 0; cp <= 0x10ffff; cp++) {
        unsigned char b[4];
        size_t n = encode(cp, b);
        uint32_t got = 0;
        size_t len = utf8_decode(b, n, &got);
        if (cp >= 0xd800 && cp <= 0xdfff) {
            if (len != 0) fail_msg("the surrogate U+%04X is accepted", cp);
            continue;
        }
        if (len != n || got != cp)
            fail_msg("U+%04X: length %zu (not %zu), U+%04X", cp, len, n, got);
        /* every shorter cut is refused */
        for (size_t cut = 1; cut < n; cut++)
            if (utf8_decode(b, cut, &got) != 0) fail_msg("U+%04X cut to %zu is accepted", cp, cut);
    }
}

TEST_MAIN(cmocka_unit_test(the_catalogue_of_edges_decodes_as_listed),
          cmocka_unit_test(only_the_first_character_is_decoded_and_len_is_the_end),
          cmocka_unit_test(every_code_point_round_trips_and_every_surrogate_is_refused))
