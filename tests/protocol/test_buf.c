/*
 * test_buf.c — the growable byte buffer (protocol/buf.h): growth, the NUL
 * after the bytes, handing the memory over, and a clean failure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/buf.h"
#include "tests/lib/test_main.h"

static void empty_buffer_holds_nothing_and_allocates_nothing(void **state)
{
    (void)state;
    buf_t b = BUF_INIT;
    assert_null(b.data);
    assert_int_equal(b.len, 0);
    assert_int_equal(buf_room(&b), 0);
    assert_null(buf_end(&b));
    assert_null(buf_take(&b, NULL));
    buf_free(&b);
}

static void appends_grow_and_stay_nul_terminated(void **state)
{
    (void)state;
    buf_t b = BUF_INIT;
    assert_int_equal(buf_puts(&b, "hello"), 0);
    assert_int_equal(buf_append(&b, ", ", 2), 0);
    assert_int_equal(buf_printf(&b, "%s %d", "world", 42), 0);
    assert_string_equal(b.data, "hello, world 42");
    assert_int_equal(b.len, strlen("hello, world 42"));
    /* Far past the first allocation, one byte at a time and in one go. */
    for (int i = 0; i < 5000; i++)
        assert_int_equal(buf_append(&b, "x", 1), 0);
    assert_int_equal(b.len, 15 + 5000);
    assert_true(b.cap > b.len);
    assert_int_equal(b.data[b.len], '\0');
    char big[10000];
    memset(big, 'y', sizeof big);
    assert_int_equal(buf_append(&b, big, sizeof big), 0);
    assert_int_equal(b.len, 15 + 5000 + sizeof big);
    assert_int_equal(b.data[b.len], '\0');
    assert_memory_equal(b.data + b.len - sizeof big, big, sizeof big);
    buf_free(&b);
    assert_null(b.data);
    assert_int_equal(b.len, 0);
}

static void printf_longer_than_the_room_left_is_written_whole(void **state)
{
    (void)state;
    buf_t b = BUF_INIT;
    assert_int_equal(buf_puts(&b, "<"), 0);
    char word[3000];
    memset(word, 'w', sizeof word - 1);
    word[sizeof word - 1] = '\0';
    assert_int_equal(buf_printf(&b, "%s>%-5s|", word, "ab"), 0);
    assert_int_equal(b.len, 1 + strlen(word) + 7);
    assert_int_equal(b.data[0], '<');
    assert_memory_equal(b.data + 1, word, strlen(word));
    assert_string_equal(b.data + 1 + strlen(word), ">ab   |");
    assert_int_equal(buf_printf(&b, "%s", ""), 0);
    assert_int_equal(b.len, 1 + strlen(word) + 7);
    buf_free(&b);
}

static void reserve_then_commit_writes_in_place(void **state)
{
    (void)state;
    buf_t b = BUF_INIT;
    assert_int_equal(buf_reserve(&b, 100), 0);
    assert_true(buf_room(&b) >= 100);
    assert_int_equal(b.len, 0);
    memcpy(buf_end(&b), "abc", 3);
    buf_commit(&b, 3);
    assert_string_equal(b.data, "abc");
    size_t room = buf_room(&b);
    char *data = b.data;
    assert_int_equal(buf_reserve(&b, room), 0); /* fits: no move */
    assert_ptr_equal(b.data, data);
    buf_free(&b);
}

static void reset_forgets_the_bytes_and_keeps_the_memory(void **state)
{
    (void)state;
    buf_t b = BUF_INIT;
    assert_int_equal(buf_puts(&b, "some bytes"), 0);
    char *data = b.data;
    size_t cap = b.cap;
    buf_reset(&b);
    assert_int_equal(b.len, 0);
    assert_ptr_equal(b.data, data);
    assert_int_equal(b.cap, cap);
    assert_string_equal(b.data, "");
    assert_int_equal(buf_puts(&b, "new"), 0);
    assert_string_equal(b.data, "new");
    buf_free(&b);
}

static void take_hands_the_bytes_over_and_leaves_the_buffer_empty(void **state)
{
    (void)state;
    buf_t b = BUF_INIT;
    assert_int_equal(buf_puts(&b, "line\n"), 0);
    size_t len = 0;
    char *s = buf_take(&b, &len);
    assert_non_null(s);
    assert_int_equal(len, 5);
    assert_string_equal(s, "line\n");
    assert_null(b.data);
    assert_int_equal(b.len, 0);
    assert_int_equal(b.cap, 0);
    free(s);
    /* The buffer is usable again. */
    assert_int_equal(buf_puts(&b, "again"), 0);
    s = buf_take(&b, NULL);
    assert_string_equal(s, "again");
    free(s);
}

static void failure_changes_nothing_is_sticky_and_reset_clears_it(void **state)
{
    (void)state;
    buf_t b = BUF_INIT;
    assert_int_equal(buf_puts(&b, "kept"), 0);
    assert_int_equal(buf_reserve(&b, SIZE_MAX), BUF_ENOMEM); /* cannot be had */
    assert_true(b.failed);
    assert_string_equal(b.data, "kept");
    assert_int_equal(b.len, 4);
    /* Later appends fail too, and change nothing: a builder checks once. */
    assert_int_equal(buf_puts(&b, "more"), BUF_ENOMEM);
    assert_int_equal(buf_printf(&b, "%d", 1), BUF_ENOMEM);
    assert_int_equal(b.len, 4);
    assert_string_equal(b.data, "kept");
    buf_reset(&b);
    assert_false(b.failed);
    assert_int_equal(buf_puts(&b, "ok"), 0);
    assert_int_equal(buf_reserve(&b, SIZE_MAX - 1), BUF_ENOMEM);
    /* A failed buffer hands nothing over, and frees what it held. */
    size_t len = 99;
    assert_null(buf_take(&b, &len));
    assert_int_equal(len, 0);
    assert_null(b.data);
    assert_false(b.failed);
}

TEST_MAIN(cmocka_unit_test(empty_buffer_holds_nothing_and_allocates_nothing),
          cmocka_unit_test(appends_grow_and_stay_nul_terminated),
          cmocka_unit_test(printf_longer_than_the_room_left_is_written_whole),
          cmocka_unit_test(reserve_then_commit_writes_in_place),
          cmocka_unit_test(reset_forgets_the_bytes_and_keeps_the_memory),
          cmocka_unit_test(take_hands_the_bytes_over_and_leaves_the_buffer_empty),
          cmocka_unit_test(failure_changes_nothing_is_sticky_and_reset_clears_it))
