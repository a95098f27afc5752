/*
 * test_framing.c — the line splitter: split reads, terminators, telnet,
 * limits, pulling a few lines at a time, HTTP detection.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/framing.h"

/* Take the next line and check it equals (s, n). */
static void expect_line(frame_t *f, const char *s, size_t n)
{
    const char *line;
    size_t len;
    assert_int_equal(frame_next(f, &line, &len), FRAME_LINE);
    assert_int_equal(len, n);
    assert_memory_equal(line, s, n);
    assert_int_equal(line[len], '\0');
}

static void expect_str(frame_t *f, const char *s)
{
    expect_line(f, s, strlen(s));
}

static void expect_none(frame_t *f)
{
    const char *line;
    size_t len;
    assert_int_equal(frame_next(f, &line, &len), FRAME_NEED_MORE);
}

static void feed_str(frame_t *f, const char *s)
{
    assert_int_equal(frame_feed(f, s, strlen(s)), 0);
}

/* Fed `in` in one read, a splitter of max_line (0: the default) yields the
   lines listed (up to NULL), then needs more. */
static void splits_into(size_t max_line, const char *in, ...)
{
    frame_t f;
    frame_init(&f, max_line);
    feed_str(&f, in);
    va_list ap;
    va_start(ap, in);
    for (const char *want; (want = va_arg(ap, const char *));)
        expect_str(&f, want);
    va_end(ap);
    expect_none(&f);
    frame_free(&f);
}

/* ------------------------------------------------------------- splitting --- */

static void line_split_one_byte_at_a_time(void **state)
{
    (void)state;
    frame_t f;
    frame_init(&f, 0);
    const char *in = "{\"cmd\":\"ping\"}\nhello alice\r\n";
    for (const char *p = in; *p; p++) {
        assert_int_equal(frame_feed(&f, p, 1), 0);
        if (p[0] != '\n')
            expect_none(&f);
        else if (p - in < 16)
            expect_str(&f, "{\"cmd\":\"ping\"}");
        else
            expect_str(&f, "hello alice");
    }
    expect_none(&f);
    assert_int_equal(frame_buffered(&f), 0);
    frame_free(&f);
}

static void crlf_and_lf_both_end_a_line(void **state)
{
    (void)state;
    /* only one CR belongs to the terminator */
    splits_into(0, "a\r\nb\nc\r\r\n", "a", "b", "c\r", NULL);
}

static void bare_cr_is_data_not_a_terminator(void **state)
{
    (void)state;
    frame_t f;
    frame_init(&f, 0);
    feed_str(&f, "ping\rpong");
    expect_none(&f);
    feed_str(&f, "\n");
    expect_str(&f, "ping\rpong");
    frame_free(&f);
}

static void nul_bytes_are_kept_inside_the_line(void **state)
{
    (void)state;
    frame_t f;
    frame_init(&f, 0);
    assert_int_equal(frame_feed(&f, "pi\0ng\n", 6), 0);
    expect_line(&f, "pi\0ng", 5);
    frame_free(&f);
}

static void many_lines_in_one_read(void **state)
{
    (void)state;
    frame_t f;
    frame_init(&f, 0);
    char buf[1000 * 8];
    size_t n = 0;
    for (int i = 0; i < 1000; i++)
        n += (size_t)sprintf(buf + n, "l%d\n", i);
    assert_int_equal(frame_feed(&f, buf, n), 0);
    for (int i = 0; i < 1000; i++) {
        char want[16];
        sprintf(want, "l%d", i);
        expect_str(&f, want);
    }
    expect_none(&f);
    frame_free(&f);
}

static void empty_and_blank_lines_are_yielded(void **state)
{
    (void)state;
    splits_into(0, "\n\r\n  \t\n", "", "", "  \t", NULL);
}

static void pull_some_lines_then_continue_later(void **state)
{
    (void)state;
    frame_t f;
    frame_init(&f, 0);
    feed_str(&f, "a\nb\nc\nd");
    expect_str(&f, "a");
    const char *line;
    size_t len;
    assert_int_equal(frame_next(&f, &line, &len), FRAME_LINE);
    expect_str(&f, "c");
    /* Taking lines does not move earlier ones. */
    assert_string_equal(line, "b");
    assert_int_equal(frame_buffered(&f), 1);
    feed_str(&f, "e\nf\n"); /* compaction happens here */
    expect_str(&f, "de");
    expect_str(&f, "f");
    expect_none(&f);
    assert_int_equal(frame_buffered(&f), 0);
    frame_free(&f);
}

/* ---------------------------------------------------------------- limits --- */

static void default_limit_is_8192(void **state)
{
    (void)state;
    frame_t f;
    frame_init(&f, 0);
    assert_int_equal(f.max_line, FRAME_DEFAULT_MAX_LINE);
    assert_int_equal(FRAME_DEFAULT_MAX_LINE, 8192);
    frame_free(&f);
}

static void line_at_the_limit_is_accepted(void **state)
{
    (void)state;
    splits_into(8, "12345678\n12345678\r\n", "12345678", "12345678", NULL);
}

static void line_one_over_the_limit_is_too_long(void **state)
{
    (void)state;
    const char *cases[] = {"123456789\n", "123456789\r\n", "123456789", "12345678x"};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        frame_t f;
        const char *line;
        size_t len;
        frame_init(&f, 8);
        feed_str(&f, cases[i]);
        assert_int_equal(frame_next(&f, &line, &len), FRAME_TOO_LONG);
        assert_int_equal(frame_next(&f, &line, &len), FRAME_NEED_MORE);
        assert_true(frame_is_dead(&f));
        frame_free(&f);
    }
}

static void cr_at_the_limit_waits_for_its_newline(void **state)
{
    (void)state;
    frame_t f;
    frame_init(&f, 8);
    feed_str(&f, "12345678\r");
    expect_none(&f); /* could still be "\r\n" */
    feed_str(&f, "\n");
    expect_str(&f, "12345678");
    frame_free(&f);
}

static void mebibyte_line_is_too_long_exactly_once(void **state)
{
    (void)state;
    frame_t f;
    frame_init(&f, 0);
    size_t total = 1 << 20;
    char *chunk = malloc(65536);
    assert_non_null(chunk);
    memset(chunk, 'x', 65536);
    feed_str(&f, "ping\n");
    int too_long = 0, lines = 0;
    for (size_t sent = 0; sent < total; sent += 65536) {
        assert_int_equal(frame_feed(&f, chunk, 65536), 0);
        /* Memory stays bounded whatever the client sends. */
        assert_true(frame_buffered(&f) <= FRAME_DEFAULT_MAX_LINE + 2 + 5);
        const char *line;
        size_t len;
        int r;
        while ((r = frame_next(&f, &line, &len)) != FRAME_NEED_MORE) {
            if (r == FRAME_TOO_LONG) too_long++;
            if (r == FRAME_LINE) {
                assert_string_equal(line, "ping");
                lines++;
            }
        }
    }
    feed_str(&f, "\nhello alice\n"); /* the stream is dead: nothing more comes out */
    expect_none(&f);
    assert_int_equal(lines, 1);
    assert_int_equal(too_long, 1);
    assert_true(frame_is_dead(&f));
    free(chunk);
    frame_free(&f);
}

static void lines_before_a_too_long_one_come_first(void **state)
{
    (void)state;
    frame_t f;
    const char *line;
    size_t len;
    frame_init(&f, 4);
    feed_str(&f, "a\nbb\nccccccccc\nd\n");
    expect_str(&f, "a");
    expect_str(&f, "bb");
    assert_int_equal(frame_next(&f, &line, &len), FRAME_TOO_LONG);
    expect_none(&f);
    frame_free(&f);
}

/* ---------------------------------------------------------------- telnet --- */

static void telnet_negotiation_is_removed(void **state)
{
    (void)state;
    frame_t f;
    frame_init(&f, 0);
    const unsigned char in[] = {255,  251, 1,      /* IAC WILL ECHO */
                                'p',  255, 253, 3, /* IAC DO SGA */
                                'i',  255, 250, 24,  0,   'x',
                                't',  'e', 'r', 'm', 255, 240, /* IAC SB TTYPE ... IAC SE */
                                'n',  255, 241,                /* IAC NOP */
                                'g',  255, 252, 1,             /* IAC WONT ECHO */
                                '\r', '\n'};
    assert_int_equal(frame_feed(&f, (const char *)in, sizeof(in)), 0);
    expect_str(&f, "ping");
    expect_none(&f);
    frame_free(&f);
}

static void telnet_sequences_split_across_reads(void **state)
{
    (void)state;
    frame_t f;
    frame_init(&f, 0);
    const unsigned char in[] = {'s', 255, 250, 31,  255, 255, 0,   80,  255,
                                240, 'a', 255, 254, 1,   'y', 255, 244, '\n'};
    for (size_t i = 0; i < sizeof(in); i++)
        assert_int_equal(frame_feed(&f, (const char *)in + i, 1), 0);
    expect_str(&f, "say");
    frame_free(&f);
}

static void telnet_iac_iac_is_a_literal_255(void **state)
{
    (void)state;
    frame_t f;
    frame_init(&f, 0);
    assert_int_equal(frame_feed(&f,
                                "a\xff\xff"
                                "b\n",
                                5),
                     0);
    expect_line(&f,
                "a\xff"
                "b",
                3);
    frame_free(&f);
}

static void telnet_bytes_do_not_count_toward_the_limit(void **state)
{
    (void)state;
    frame_t f;
    frame_init(&f, 4);
    assert_int_equal(frame_feed(&f,
                                "ab\xff\xfb\x01\xff\xfd\x03"
                                "cd\n",
                                11),
                     0);
    expect_str(&f, "abcd");
    frame_free(&f);
}

/* ------------------------------------------------------------------ http --- */

static void http_request_lines_are_detected(void **state)
{
    (void)state;
    const char *yes[] = {"GET / HTTP/1.1",     "POST /api HTTP/1.0", "HEAD /x?y=1 HTTP/1.1",
                         "OPTIONS * HTTP/1.1", "PRI * HTTP/2.0",     "CONNECT a:443 HTTP/1.1"};
    const char *no[] = {"hello alice",       "GET /",
                        "GET / HTTP",        "get / HTTP/1.1",
                        "GET  / HTTP/1.1",   "say GET / HTTP/1.1",
                        "{\"cmd\":\"GET\"}", "GE / HTTP/1.1",
                        "GET / HTTP/x",      ""};
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
        assert_true(frame_is_http_request(yes[i], strlen(yes[i])));
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        assert_false(frame_is_http_request(no[i], strlen(no[i])));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(line_split_one_byte_at_a_time),
        cmocka_unit_test(crlf_and_lf_both_end_a_line),
        cmocka_unit_test(bare_cr_is_data_not_a_terminator),
        cmocka_unit_test(nul_bytes_are_kept_inside_the_line),
        cmocka_unit_test(many_lines_in_one_read),
        cmocka_unit_test(empty_and_blank_lines_are_yielded),
        cmocka_unit_test(pull_some_lines_then_continue_later),
        cmocka_unit_test(default_limit_is_8192),
        cmocka_unit_test(line_at_the_limit_is_accepted),
        cmocka_unit_test(line_one_over_the_limit_is_too_long),
        cmocka_unit_test(cr_at_the_limit_waits_for_its_newline),
        cmocka_unit_test(mebibyte_line_is_too_long_exactly_once),
        cmocka_unit_test(lines_before_a_too_long_one_come_first),
        cmocka_unit_test(telnet_negotiation_is_removed),
        cmocka_unit_test(telnet_sequences_split_across_reads),
        cmocka_unit_test(telnet_iac_iac_is_a_literal_255),
        cmocka_unit_test(telnet_bytes_do_not_count_toward_the_limit),
        cmocka_unit_test(http_request_lines_are_detected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
