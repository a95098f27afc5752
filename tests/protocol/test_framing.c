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
#include "tests/lib/case_group.h"

/* A line yielded (line, len) equals (s, n), and a NUL ends it. */
static void line_is(const char *line, size_t len, const char *s, size_t n)
{
    if (len != n || memcmp(line, s, n) != 0)
        fail_msg("line \"%.*s\" (%zu bytes), want \"%.*s\" (%zu bytes)", (int)len, line, len,
                 (int)n, s, n);
    assert_int_equal(line[len], '\0');
}

/* Take the next line and check it equals s. */
static void expect_str(frame_t *f, const char *s)
{
    const char *line;
    size_t len;
    assert_int_equal(frame_next(f, &line, &len), FRAME_LINE);
    line_is(line, len, s, strlen(s));
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

/* ------------------------------------------------------- the split cases --- */

/*
 * A splitter of max_line (0: the default) is fed `in`, `read` bytes at a
 * time (0: in one read); after each read it yields every line it holds, and
 * the lines yielded are, in order, those of `out` (each ended by '\n'). Then
 * it needs more and holds nothing, or (too_long) the next line is too long,
 * once, and the stream is dead. BYTES() gives a literal and its length, NUL
 * bytes included.
 */
typedef struct split_case {
    const char *name;
    size_t max_line;
    const char *in;
    size_t in_len;
    size_t read;
    const char *out;
    size_t out_len;
    bool too_long;
} split_case_t;

#define BYTES(s) (s), sizeof(s) - 1

static const split_case_t split_cases[] = {
    /* splitting */
    {"line_split_one_byte_at_a_time", 0, BYTES("{\"cmd\":\"ping\"}\nhello alice\r\n"), 1,
     BYTES("{\"cmd\":\"ping\"}\nhello alice\n"), false},
    /* only one CR belongs to the terminator */
    {"crlf_and_lf_both_end_a_line", 0, BYTES("a\r\nb\nc\r\r\n"), 0, BYTES("a\nb\nc\r\n"), false},
    {"bare_cr_is_data_not_a_terminator", 0, BYTES("ping\rpong\n"), 9, BYTES("ping\rpong\n"), false},
    {"nul_bytes_are_kept_inside_the_line", 0, BYTES("pi\0ng\n"), 0, BYTES("pi\0ng\n"), false},
    {"empty_and_blank_lines_are_yielded", 0, BYTES("\n\r\n  \t\n"), 0, BYTES("\n\n  \t\n"), false},
    /* limits */
    {"line_at_the_limit_is_accepted", 8, BYTES("12345678\n12345678\r\n"), 0,
     BYTES("12345678\n12345678\n"), false},
    {"line_one_over_the_limit_is_too_long (LF)", 8, BYTES("123456789\n"), 0, BYTES(""), true},
    {"line_one_over_the_limit_is_too_long (CRLF)", 8, BYTES("123456789\r\n"), 0, BYTES(""), true},
    {"line_one_over_the_limit_is_too_long (no end yet)", 8, BYTES("123456789"), 0, BYTES(""), true},
    {"line_one_over_the_limit_is_too_long (not a CR)", 8, BYTES("12345678x"), 0, BYTES(""), true},
    /* a CR at the limit could still be "\r\n": it waits for the next read */
    {"cr_at_the_limit_waits_for_its_newline", 8, BYTES("12345678\r\n"), 9, BYTES("12345678\n"),
     false},
    {"lines_before_a_too_long_one_come_first", 4, BYTES("a\nbb\nccccccccc\nd\n"), 0,
     BYTES("a\nbb\n"), true},
    /* telnet */
    {"telnet_negotiation_is_removed", 0,
     BYTES("\xff\xfb\x01" /* IAC WILL ECHO */
           "p"
           "\xff\xfd\x03" /* IAC DO SGA */
           "i"
           "\xff\xfa\x18\x00"
           "xterm"
           "\xff\xf0" /* IAC SB TTYPE ... IAC SE */
           "n"
           "\xff\xf1" /* IAC NOP */
           "g"
           "\xff\xfc\x01" /* IAC WONT ECHO */
           "\r\n"),
     0, BYTES("ping\n"), false},
    {"telnet_sequences_split_across_reads", 0,
     BYTES("s"
           "\xff\xfa\x1f\xff\xff\x00\x50\xff\xf0"
           "a"
           "\xff\xfe\x01"
           "y"
           "\xff\xf4"
           "\n"),
     1, BYTES("say\n"), false},
    {"telnet_iac_iac_is_a_literal_255", 0,
     BYTES("a\xff\xff"
           "b\n"),
     0,
     BYTES("a\xff"
           "b\n"),
     false},
    {"telnet_bytes_do_not_count_toward_the_limit", 4,
     BYTES("ab\xff\xfb\x01\xff\xfd\x03"
           "cd\n"),
     0, BYTES("abcd\n"), false},
};

static void splits_as_listed(void **state)
{
    const split_case_t *c = *state;
    frame_t f;
    frame_init(&f, c->max_line);
    const char *want = c->out, *out_end = c->out + c->out_len;
    size_t step = c->read ? c->read : c->in_len;
    int r = FRAME_NEED_MORE;
    for (size_t at = 0; at < c->in_len && r != FRAME_TOO_LONG; at += step) {
        size_t n = step < c->in_len - at ? step : c->in_len - at;
        assert_int_equal(frame_feed(&f, c->in + at, n), 0);
        const char *line;
        size_t len;
        while ((r = frame_next(&f, &line, &len)) == FRAME_LINE) {
            const char *nl = memchr(want, '\n', (size_t)(out_end - want));
            if (!nl) fail_msg("a line more than listed, after byte %zu", at + n);
            line_is(line, len, want, (size_t)(nl - want));
            want = nl + 1;
        }
    }
    if (want != out_end)
        fail_msg("%zu bytes of the lines listed never came", (size_t)(out_end - want));
    if (c->too_long) {
        assert_int_equal(r, FRAME_TOO_LONG);
        expect_none(&f);
        assert_true(frame_is_dead(&f));
    } else {
        assert_int_equal(r, FRAME_NEED_MORE);
        assert_int_equal(frame_buffered(&f), 0);
    }
    frame_free(&f);
}

/* --------------------------------------- a splitter of the default limit --- */

/* The tests below work on a splitter of the default limit in *state: made before each one and
   freed after it, whether it passed or not. */
static int default_frame_setup(void **state)
{
    frame_t *f = malloc(sizeof *f);
    if (!f) return -1;
    frame_init(f, 0);
    *state = f;
    return 0;
}

static int default_frame_teardown(void **state)
{
    frame_free(*state);
    free(*state);
    return 0;
}

/* ------------------------------------------------------------- splitting --- */

static void many_lines_in_one_read(void **state)
{
    frame_t *f = *state;
    char buf[1000 * 8];
    size_t n = 0;
    for (int i = 0; i < 1000; i++)
        n += (size_t)sprintf(buf + n, "l%d\n", i);
    assert_int_equal(frame_feed(f, buf, n), 0);
    for (int i = 0; i < 1000; i++) {
        char want[16];
        sprintf(want, "l%d", i);
        expect_str(f, want);
    }
    expect_none(f);
}

static void pull_some_lines_then_continue_later(void **state)
{
    frame_t *f = *state;
    feed_str(f, "a\nb\nc\nd");
    expect_str(f, "a");
    const char *line;
    size_t len;
    assert_int_equal(frame_next(f, &line, &len), FRAME_LINE);
    expect_str(f, "c");
    /* Taking lines does not move earlier ones. */
    assert_string_equal(line, "b");
    assert_int_equal(frame_buffered(f), 1);
    feed_str(f, "e\nf\n"); /* compaction happens here */
    expect_str(f, "de");
    expect_str(f, "f");
    expect_none(f);
    assert_int_equal(frame_buffered(f), 0);
}

/* ---------------------------------------------------------------- limits --- */

static void default_limit_is_8192(void **state)
{
    frame_t *f = *state;
    assert_int_equal(f->max_line, FRAME_DEFAULT_MAX_LINE);
    assert_int_equal(FRAME_DEFAULT_MAX_LINE, 8192);
}

static void mebibyte_line_is_too_long_exactly_once(void **state)
{
    frame_t *f = *state;
    size_t total = 1 << 20;
    char *chunk = malloc(65536);
    assert_non_null(chunk);
    memset(chunk, 'x', 65536);
    feed_str(f, "ping\n");
    int too_long = 0, lines = 0;
    for (size_t sent = 0; sent < total; sent += 65536) {
        assert_int_equal(frame_feed(f, chunk, 65536), 0);
        /* Memory stays bounded whatever the client sends. */
        assert_true(frame_buffered(f) <= FRAME_DEFAULT_MAX_LINE + 2 + 5);
        const char *line;
        size_t len;
        int r;
        while ((r = frame_next(f, &line, &len)) != FRAME_NEED_MORE) {
            if (r == FRAME_TOO_LONG) too_long++;
            if (r == FRAME_LINE) {
                assert_string_equal(line, "ping");
                lines++;
            }
        }
    }
    feed_str(f, "\nhello alice\n"); /* the stream is dead: nothing more comes out */
    expect_none(f);
    assert_int_equal(lines, 1);
    assert_int_equal(too_long, 1);
    assert_true(frame_is_dead(f));
    free(chunk);
}

/* ---------------------------------------------------------------- telnet --- */

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
        cmocka_unit_test_setup_teardown(many_lines_in_one_read, default_frame_setup,
                                        default_frame_teardown),
        cmocka_unit_test_setup_teardown(pull_some_lines_then_continue_later, default_frame_setup,
                                        default_frame_teardown),
        cmocka_unit_test_setup_teardown(default_limit_is_8192, default_frame_setup,
                                        default_frame_teardown),
        cmocka_unit_test_setup_teardown(mebibyte_line_is_too_long_exactly_once, default_frame_setup,
                                        default_frame_teardown),
        cmocka_unit_test(http_request_lines_are_detected),
    };
    int failed = CASE_GROUP_RUN("split_cases", splits_as_listed, split_cases, name);
    return failed + cmocka_run_group_tests(tests, NULL, NULL);
}
