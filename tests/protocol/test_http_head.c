/*
 * test_http_head.c — the HTTP request head (protocol/http_head.h) that the
 * metrics endpoint and the game port's page and WebSocket share: where a
 * head ends however it is split, a catalogue of heads that must be refused
 * (each with its error), the headers found by name, comma lists, the path
 * of a target.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "protocol/http_head.h"
#include "tests/lib/test_main.h"

/* Parse a whole head given at once; returns the error (HTTP_OK and *r filled). */
static http_parse_error_t parse(const char *head, http_request_t *r)
{
    http_scan_t s = {0};
    size_t end = http_head_end(&s, head, strlen(head));
    if (end == 0) fail_msg("no end found in %s", head);
    return http_parse(&s, head, end, r);
}

static void the_end_is_found_in_any_split(void **state)
{
    (void)state;
    const char *head = "\r\n\nGET /ws HTTP/1.1\r\nHost: a\nX: y\r\n\r\nafter";
    size_t want = strlen(head) - strlen("after");
    for (size_t cut = 0; cut <= strlen(head); cut++) {
        http_scan_t s = {0};
        size_t end = http_head_end(&s, head, cut);
        if (end == 0) end = http_head_end(&s, head, strlen(head));
        if (end != want) fail_msg("cut at %zu: end %zu, not %zu", cut, end, want);
        http_request_t r;
        assert_int_equal(http_parse(&s, head, end, &r), HTTP_OK); /* empty lines skipped */
        assert_true(http_method_is(&r, "GET"));
    }
    http_scan_t s = {0};
    assert_int_equal(http_head_end(&s, "GET / HTTP/1.1\r\nHost: a\r\n", 25), 0);
}

static void malformed_heads_are_refused(void **state)
{
    (void)state;
    static const struct {
        const char *head;
        http_parse_error_t want;
        const char *what;
    } cases[] = {
        {"GET / HTTP/1.1\r\n\r\n", HTTP_OK, "the shortest"},
        {"GET /\r\n\r\n", HTTP_BAD_REQUEST_LINE, "HTTP/0.9"},
        {"GET / HTTP/2.0\r\n\r\n", HTTP_BAD_REQUEST_LINE, "not 1.x"},
        {"GET / HTTP/1.1 \r\n\r\n", HTTP_BAD_REQUEST_LINE, "a space after the version"},
        {"GET  / HTTP/1.1\r\n\r\n", HTTP_BAD_REQUEST_LINE, "two spaces"},
        {"G(T / HTTP/1.1\r\n\r\n", HTTP_BAD_REQUEST_LINE, "not a token"},
        {"GET /a\x7f HTTP/1.1\r\n\r\n", HTTP_BAD_REQUEST_LINE, "DEL in the target"},
        {"GET /\xc3\xa9 HTTP/1.1\r\n\r\n", HTTP_BAD_REQUEST_LINE, "a byte over 0x7f in the target"},
        {"GET / HTTP/1.1\r\nNo colon\r\n\r\n", HTTP_BAD_HEADER, "no colon"},
        {"GET / HTTP/1.1\r\n: v\r\n\r\n", HTTP_BAD_HEADER, "no name"},
        {"GET / HTTP/1.1\r\nA b: v\r\n\r\n", HTTP_BAD_HEADER, "a space in the name"},
        {"GET / HTTP/1.1\r\nA: v\r\n folded\r\n\r\n", HTTP_BAD_HEADER, "obs-fold"},
        {"GET / HTTP/1.1\r\nA: v\x01w\r\n\r\n", HTTP_BAD_HEADER, "a control byte in a value"},
        {"GET / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", HTTP_BAD_HEADER, "a bad length"},
        {"GET / HTTP/1.1\r\nContent-Length:\r\n\r\n", HTTP_BAD_HEADER, "an empty length"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        http_request_t r;
        http_parse_error_t e = parse(cases[i].head, &r);
        if (e != cases[i].want) fail_msg("%s: %d, not %d", cases[i].what, e, cases[i].want);
    }
    char many[8192] = "GET / HTTP/1.1\r\n";
    for (int i = 0; i <= HTTP_MAX_HEADERS; i++)
        strcat(many, "X-A: b\r\n");
    strcat(many, "\r\n");
    http_request_t r;
    assert_int_equal(parse(many, &r), HTTP_TOO_MANY_HEADERS);
}

static void headers_are_found_by_name_and_lists_by_token(void **state)
{
    (void)state;
    http_request_t r;
    assert_int_equal(parse("GET http://h:1/ws/x?y=1 HTTP/1.0\r\nUPGRADE:  WebSocket \r\n"
                           "connection: keep-alive, Upgrade\r\nX-Forwarded-For: a\r\n"
                           "x-forwarded-for: b, c\r\nContent-Length: 0\r\n\r\n",
                           &r),
                     HTTP_OK);
    assert_int_equal(r.minor, 0);
    assert_false(r.has_body);
    const http_header_t *up = http_header(&r, "Upgrade");
    assert_non_null(up);
    assert_int_equal(up->value_len, 9); /* the spaces around it are not the value */
    assert_true(http_list_has(up->value, up->value_len, "websocket"));
    const http_header_t *c = http_header(&r, "Connection");
    assert_true(http_list_has(c->value, c->value_len, "upgrade"));
    assert_false(http_list_has(c->value, c->value_len, "keep"));
    assert_int_equal(http_header_count(&r, "X-Forwarded-For"), 2);
    assert_null(http_header(&r, "Origin"));
    const char *path;
    size_t len;
    http_target_path(&r, &path, &len);
    assert_int_equal(len, 5);
    assert_memory_equal(path, "/ws/x", 5);
    assert_int_equal(parse("GET / HTTP/1.1\r\nContent-Length: 007\r\n\r\n", &r), HTTP_OK);
    assert_true(r.has_body);
    assert_int_equal(parse("GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", &r), HTTP_OK);
    assert_true(r.has_body);
    assert_string_equal(http_reason(431), "Request Header Fields Too Large");
    assert_string_equal(http_reason(599), "Internal Server Error");
}

TEST_MAIN(cmocka_unit_test(the_end_is_found_in_any_split),
          cmocka_unit_test(malformed_heads_are_refused),
          cmocka_unit_test(headers_are_found_by_name_and_lists_by_token))
