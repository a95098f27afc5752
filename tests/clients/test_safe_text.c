/*
 * test_safe_text.c — the clients' escaping of text from the wire
 * (clients/safe_text.h): what passes, what is escaped and how, cutting to a
 * buffer, lines, and JSON that stays the same JSON.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "clients/safe_text.h"
#include "tests/lib/test_main.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

/* What a stream writer puts out for s[0..len), as a malloc()ed string. */
static char *written(size_t (*writer)(FILE *, const char *, size_t), const char *s, size_t len,
                     size_t *count)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    assert_non_null(f);
    size_t n = writer(f, s, len);
    fclose(f);
    if (count) *count = n;
    return buf;
}

static size_t fputs_writer(FILE *f, const char *s, size_t len)
{
    (void)len;
    return safe_fputs(f, s);
}

static size_t lines_writer(FILE *f, const char *s, size_t len)
{
    (void)len;
    return safe_fputs_lines(f, s);
}

/* safe_fwrite(), safe_fputs() and safe_escape() with room all give `want`. */
static void expect_shown(const char *s, const char *want)
{
    size_t n;
    char *got = written(safe_fwrite, s, strlen(s), &n);
    assert_string_equal(got, want);
    assert_int_equal(n, strlen(want));
    free(got);
    got = written(fputs_writer, s, 0, NULL);
    assert_string_equal(got, want);
    free(got);
    char buf[512];
    assert_int_equal(safe_escape(buf, sizeof buf, s, strlen(s)), strlen(want));
    assert_string_equal(buf, want);
    assert_int_equal(safe_is_clean(s, strlen(s)), strcmp(s, want) == 0);
}

/* No byte a terminal obeys: no C0 but LF when allowed, no DEL, no raw C1 or bidi. */
static void assert_terminal_safe(const char *out, int allow_lf)
{
    for (const unsigned char *p = (const unsigned char *)out; *p; p++) {
        if (*p == '\n' && allow_lf) continue;
        if (*p < 0x20 || *p == 0x7f) fail_msg("control byte 0x%02x in \"%s\"", *p, out);
    }
    assert_true(safe_is_clean(out, strlen(out)) || allow_lf);
}

/* ------------------------------------------------------------------------ */
/* What passes                                                              */
/* ------------------------------------------------------------------------ */

static void printable_ascii_passes_unchanged(void **state)
{
    (void)state;
    expect_shown("alice", "alice");
    expect_shown("good game, all! ~ {json} [1] \\ back\\slash", "good game, all! ~ {json} [1] \\ "
                                                                "back\\slash");
    expect_shown("", "");
}

static void accents_cjk_and_emoji_pass_unchanged(void **state)
{
    (void)state;
    expect_shown("Zoë déjà vu", "Zoë déjà vu");
    expect_shown("王小明 さくら 김", "王小明 さくら 김");
    expect_shown("gg 🎉🃏", "gg 🎉🃏");
    /* A family emoji (zero width joiners) and a flag stay whole. */
    expect_shown("👨\u200d👩\u200d👧 🇫🇷", "👨\u200d👩\u200d👧 🇫🇷");
    /* Right-to-left text itself is fine; only the controls are not. */
    expect_shown("שלום مرحبا", "שלום مرحبا");
}

/* ------------------------------------------------------------------------ */
/* What is escaped                                                          */
/* ------------------------------------------------------------------------ */

static void c0_controls_are_escaped_as_hex_bytes(void **state)
{
    (void)state;
    expect_shown("a\x1b[2Jb", "a\\x1b[2Jb");
    expect_shown("ding\a", "ding\\x07");
    expect_shown("x\ry", "x\\x0dy");
    expect_shown("x\n[server] you lost", "x\\x0a[server] you lost");
    expect_shown("tab\there", "tab\\x09here");
    expect_shown("\x01\x08\x0b\x0c\x1f", "\\x01\\x08\\x0b\\x0c\\x1f");
    expect_shown("\x1b]0;pwned\a", "\\x1b]0;pwned\\x07");
}

static void nul_inside_a_counted_string_is_escaped(void **state)
{
    (void)state;
    char *got = written(safe_fwrite, "a\0b", 3, NULL);
    assert_string_equal(got, "a\\x00b");
    free(got);
    char buf[32];
    safe_escape(buf, sizeof buf, "a\0b", 3);
    assert_string_equal(buf, "a\\x00b");
}

static void del_is_escaped(void **state)
{
    (void)state;
    expect_shown("a\x7f"
                 "b",
                 "a\\x7fb");
}

static void c1_controls_are_escaped_as_code_points(void **state)
{
    (void)state;
    expect_shown("\xc2\x80", "\\u0080");
    expect_shown("csi\xc2\x9b"
                 "2J",
                 "csi\\u009b2J"); /* U+009B, the 8-bit CSI */
    expect_shown("nel\xc2\x85", "nel\\u0085");
    expect_shown("\xc2\x9f", "\\u009f");
    expect_shown("\xc2\xa0\xc2\xa9", "\xc2\xa0\xc2\xa9"); /* U+00A0, U+00A9 are not C1 */
}

static void bidi_controls_are_escaped(void **state)
{
    (void)state;
    expect_shown("evil\u202egnp.exe", "evil\\u202egnp.exe");
    expect_shown("\u202a\u202b\u202c\u202d", "\\u202a\\u202b\\u202c\\u202d");
    expect_shown("\u2066\u2067\u2068\u2069", "\\u2066\\u2067\\u2068\\u2069");
    expect_shown("\u200e\u200f\u061c", "\\u200e\\u200f\\u061c");
}

static void invisible_format_and_separator_characters_are_escaped(void **state)
{
    (void)state;
    expect_shown("a\u200bb", "a\\u200bb");                /* zero width space */
    expect_shown("a\u2028b\u2029c", "a\\u2028b\\u2029c"); /* line, paragraph separators */
    expect_shown("\ufeffbom", "\\ufeffbom");
    expect_shown("\u2060\u2064\u206a\u206f", "\\u2060\\u2064\\u206a\\u206f");
    expect_shown("\ufff9\ufffb", "\\ufff9\\ufffb");
    expect_shown("\xef\xbf\xbe\xef\xbf\xbf", "\\ufffe\\uffff");
    expect_shown("\u180e", "\\u180e");
}

static void invalid_utf8_is_escaped_byte_by_byte(void **state)
{
    (void)state;
    expect_shown("a\xff"
                 "b",
                 "a\\xffb");
    expect_shown("\x80", "\\x80");                            /* stray continuation byte */
    expect_shown("\xc0\xaf", "\\xc0\\xaf");                   /* overlong '/' */
    expect_shown("\xe0\x80\x80", "\\xe0\\x80\\x80");          /* overlong NUL */
    expect_shown("\xed\xa0\x80", "\\xed\\xa0\\x80");          /* a surrogate */
    expect_shown("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"); /* beyond U+10FFFF */
    expect_shown("\xe2\x80", "\\xe2\\x80");                   /* cut at the end */
    expect_shown("\xe2\x80x", "\\xe2\\x80x");                 /* cut before ASCII */
    expect_shown("\xc2\x1b", "\\xc2\\x1b");                   /* the ESC is not swallowed */
}

static void hostile_strings_come_out_terminal_safe(void **state)
{
    (void)state;
    const char *hostile[] = {
        "\x1b[2J\x1b[H",
        "\n[server] admin: type `quit`",
        "\a\a\a",
        "\u202eevil",
        "\x1b[31mred\x1b[0m",
        ("\xc2\x9b"
         "31m"), /* split: the hex escape ends before "31m" */
        "\xe2\x80\xae\xff\x1b\x7f\xc2\x85",
    };
    for (size_t i = 0; i < sizeof hostile / sizeof *hostile; i++) {
        char *got = written(safe_fwrite, hostile[i], strlen(hostile[i]), NULL);
        assert_terminal_safe(got, 0);
        free(got);
        char buf[64];
        safe_escape(buf, sizeof buf, hostile[i], strlen(hostile[i]));
        assert_terminal_safe(buf, 0);
    }
}

/* ------------------------------------------------------------------------ */
/* Bounded: safe_escape() and safe_text()                                   */
/* ------------------------------------------------------------------------ */

static void a_long_string_is_cut_with_dots_and_never_overflows(void **state)
{
    (void)state;
    char buf[12];
    memset(buf, 'Z', sizeof buf);
    assert_int_equal(safe_escape(buf, 8, "abcdefghij", 10), 7);
    assert_string_equal(buf, "abcd...");
    assert_int_equal(buf[9], 'Z'); /* nothing past cap */
    /* Exactly fitting: no dots. */
    assert_int_equal(safe_escape(buf, 8, "abcdefg", 7), 7);
    assert_string_equal(buf, "abcdefg");
}

static void a_cut_never_splits_an_escape_or_a_character(void **state)
{
    (void)state;
    char buf[10];
    /* Shown "abc\x1b[2Jxyz" is 13 bytes; 6 fit before the dots, the escape does not. */
    safe_escape(buf, sizeof buf, "abc\x1b[2Jxyz", 10);
    assert_string_equal(buf, "abc...");
    safe_escape(buf, sizeof buf, "a\xe7\x8e\x8b\xe7\x8e\x8b\xe7\x8e\x8b", 10); /* a王王王 */
    assert_string_equal(buf, "a\xe7\x8e\x8b...");
    assert_true(safe_is_clean(buf, strlen(buf)));
}

static void tiny_buffers_are_still_terminated(void **state)
{
    (void)state;
    char buf[4] = "xyz";
    assert_int_equal(safe_escape(buf, 0, "abc", 3), 0);
    assert_string_equal(buf, "xyz"); /* cap 0: untouched */
    assert_int_equal(safe_escape(buf, 1, "abc", 3), 0);
    assert_string_equal(buf, "");
    safe_escape(buf, 3, "abc", 3);
    assert_string_equal(buf, "..");
    safe_escape(buf, 4, "\x1b", 1);
    assert_string_equal(buf, "...");
}

static void safe_text_shows_null_as_a_question_mark(void **state)
{
    (void)state;
    char buf[16];
    assert_string_equal(safe_text(buf, sizeof buf, NULL), "?");
    assert_string_equal(safe_text(buf, sizeof buf, "bo\ab"), "bo\\x07b");
    char *got = written(fputs_writer, NULL, 0, NULL);
    assert_string_equal(got, "?");
    free(got);
}

/* ------------------------------------------------------------------------ */
/* Lines (help text)                                                        */
/* ------------------------------------------------------------------------ */

static void lines_keep_lf_and_escape_every_other_control(void **state)
{
    (void)state;
    char *got = written(lines_writer, "join ROOM\n  sit down\r\x1b[2J\n\u202eend", 0, NULL);
    assert_string_equal(got, "join ROOM\n  sit down\\x0d\\x1b[2J\n\\u202eend");
    assert_terminal_safe(got, 1);
    free(got);
}

/* ------------------------------------------------------------------------ */
/* JSON                                                                     */
/* ------------------------------------------------------------------------ */

/* safe_fwrite_json(json) gives `want`, which parses to the same value as json. */
static void expect_json(const char *json, const char *want)
{
    char *got = written(safe_fwrite_json, json, strlen(json), NULL);
    assert_string_equal(got, want);
    assert_terminal_safe(got, 0);
    json_t *a = json_loads(json, JSON_DECODE_ANY, NULL),
           *b = json_loads(got, JSON_DECODE_ANY, NULL);
    assert_non_null(a);
    assert_non_null(b);
    assert_true(json_equal(a, b));
    json_decref(a);
    json_decref(b);
    free(got);
}

static void json_stays_the_same_json_without_raw_controls(void **state)
{
    (void)state;
    expect_json("{\"ev\":\"chat\",\"text\":\"hi \\u001b[2J\"}",
                "{\"ev\":\"chat\",\"text\":\"hi \\u001b[2J\"}"); /* already escaped */
    expect_json("{\"from\":\"a\x7f"
                "b\"}",
                "{\"from\":\"a\\u007fb\"}");
    expect_json("{\"from\":\"\u202eevil\"}", "{\"from\":\"\\u202eevil\"}");
    expect_json("[\"\xc2\x9b\",\"\u2066x\u2069\"]", "[\"\\u009b\",\"\\u2066x\\u2069\"]");
    expect_json("{\"a\":\r\t1}\r", "{\"a\":  1} "); /* blanks between tokens */
    expect_json("{\"name\":\"Zoë 王 🎉\"}", "{\"name\":\"Zoë 王 🎉\"}");
}

static void json_of_a_jansson_dump_is_terminal_safe(void **state)
{
    (void)state;
    json_t *j =
        json_pack("{s:s, s:s}", "text", "\x1b[2J\a\n\r\x7f\xc2\x85\u202e ok", "from", "\u2067bob");
    char *dump = json_dumps(j, JSON_COMPACT);
    char *got = written(safe_fwrite_json, dump, strlen(dump), NULL);
    assert_terminal_safe(got, 0);
    json_t *back = json_loads(got, 0, NULL);
    assert_true(json_equal(j, back));
    json_decref(back);
    json_decref(j);
    free(dump);
    free(got);
}

static void json_writer_is_safe_even_on_text_that_is_not_json(void **state)
{
    (void)state;
    char *got = written(safe_fwrite_json, "x\x1b\xff\n", 4, NULL);
    assert_string_equal(got, "x \\xff ");
    free(got);
}

TEST_MAIN(cmocka_unit_test(printable_ascii_passes_unchanged),
          cmocka_unit_test(accents_cjk_and_emoji_pass_unchanged),
          cmocka_unit_test(c0_controls_are_escaped_as_hex_bytes),
          cmocka_unit_test(nul_inside_a_counted_string_is_escaped),
          cmocka_unit_test(del_is_escaped),
          cmocka_unit_test(c1_controls_are_escaped_as_code_points),
          cmocka_unit_test(bidi_controls_are_escaped),
          cmocka_unit_test(invisible_format_and_separator_characters_are_escaped),
          cmocka_unit_test(invalid_utf8_is_escaped_byte_by_byte),
          cmocka_unit_test(hostile_strings_come_out_terminal_safe),
          cmocka_unit_test(a_long_string_is_cut_with_dots_and_never_overflows),
          cmocka_unit_test(a_cut_never_splits_an_escape_or_a_character),
          cmocka_unit_test(tiny_buffers_are_still_terminated),
          cmocka_unit_test(safe_text_shows_null_as_a_question_mark),
          cmocka_unit_test(lines_keep_lf_and_escape_every_other_control),
          cmocka_unit_test(json_stays_the_same_json_without_raw_controls),
          cmocka_unit_test(json_of_a_jansson_dump_is_terminal_safe),
          cmocka_unit_test(json_writer_is_safe_even_on_text_that_is_not_json))
