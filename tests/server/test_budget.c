/*
 * test_budget.c — the GCRA budgets (server/base/budget.h) and the server
 * clock (server/base/clock.h) alone: times are given, never read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "server/base/budget.h"
#include "server/base/clock.h"
#include "tests/lib/test_main.h"

/* How many units a fresh budget gives at `now` before refusing. */
static int drain(budget_t *b, uint64_t now, uint64_t interval, uint64_t burst)
{
    int n = 0;
    while (n < 1000 && budget_take(b, now, interval, burst))
        n++;
    return n;
}

static void a_full_budget_gives_its_burst_then_refuses(void **state)
{
    (void)state;
    budget_t b = {0};
    assert_int_equal(drain(&b, 5000, 100, 8), 8);
    assert_false(budget_take(&b, 5000, 100, 8));
}

static void burst_zero_or_one_gives_one_unit(void **state)
{
    (void)state;
    budget_t b = {0}, c = {0};
    assert_int_equal(drain(&b, 0, 100, 0), 1);
    assert_int_equal(drain(&c, 0, 100, 1), 1);
}

static void one_unit_comes_back_each_interval_not_before(void **state)
{
    (void)state;
    budget_t b = {0};
    uint64_t t = 1000000;
    assert_int_equal(drain(&b, t, 100, 4), 4);
    assert_false(budget_take(&b, t + 99, 100, 4)); /* 1 µs early */
    assert_true(budget_take(&b, t + 100, 100, 4));
    assert_false(budget_take(&b, t + 100, 100, 4));
    /* after a long pause the budget is full again, never fuller */
    assert_int_equal(drain(&b, t + 1000000, 100, 4), 4);
}

static void interval_zero_is_unlimited(void **state)
{
    (void)state;
    budget_t b = {0};
    assert_int_equal(drain(&b, 0, 0, 1), 1000);
    budget_charge(&b, 0, 0, 1000000);
    assert_int_equal(b.tat, 0);
    assert_true(budget_take(&b, 0, 0, 1));
}

static void a_charge_delays_later_takes(void **state)
{
    (void)state;
    budget_t b = {0};
    uint64_t t = 10000;
    budget_charge(&b, t, 100, 10); /* 10 units of work done: full again at t + 1000 */
    assert_int_equal(b.tat, t + 1000);
    /* burst 4: a take is allowed once the debt is under 3 intervals */
    assert_false(budget_take(&b, t + 699, 100, 4));
    assert_true(budget_take(&b, t + 700, 100, 4));
    /* a charge starts from now when the budget was full */
    budget_t c = {.tat = 5};
    budget_charge(&c, t, 100, 1);
    assert_int_equal(c.tat, t + 100);
}

static void no_wrap_near_uint64_max(void **state)
{
    (void)state;
    uint64_t top = UINT64_MAX - 50;
    budget_t b = {0};
    /* the refill would pass UINT64_MAX: it stops there, and stays spent */
    assert_true(budget_take(&b, top, 100, 1));
    assert_int_equal(b.tat, UINT64_MAX);
    assert_false(budget_take(&b, top, 100, 1));
    assert_false(budget_take(&b, UINT64_MAX - 1, 100, 1));
    /* a huge charge and a huge burst saturate instead of wrapping */
    budget_t c = {0};
    budget_charge(&c, 1, UINT64_MAX / 2, 4);
    assert_int_equal(c.tat, UINT64_MAX);
    assert_false(budget_take(&c, 2, UINT64_MAX / 2, 1));
    budget_t d = {0};
    assert_true(budget_take(&d, 0, UINT64_MAX / 2, UINT64_MAX)); /* burst × interval saturates */
    assert_true(budget_take(&d, 0, UINT64_MAX / 2, UINT64_MAX));
}

static void a_set_clock_reads_what_was_set(void **state)
{
    (void)state;
    server_clock_t c;
    clock_start(&c);
    uint64_t a = clock_now_us(&c), b = clock_now_us(&c);
    assert_true(b >= a); /* running: monotonic */
    clock_set(&c, 1234);
    assert_int_equal(clock_now_us(&c), 1234);
    assert_int_equal(clock_now_us(&c), 1234);
    clock_advance(&c, 66);
    assert_int_equal(clock_now_us(&c), 1300);
    struct {
        server_clock_t clock;
    } srv = {c};
    assert_int_equal(server_now_us(&srv), 1300);
    assert_int_equal(server_now_ms(&srv), 1);
}

TEST_MAIN(cmocka_unit_test(a_full_budget_gives_its_burst_then_refuses),
          cmocka_unit_test(burst_zero_or_one_gives_one_unit),
          cmocka_unit_test(one_unit_comes_back_each_interval_not_before),
          cmocka_unit_test(interval_zero_is_unlimited),
          cmocka_unit_test(a_charge_delays_later_takes), cmocka_unit_test(no_wrap_near_uint64_max),
          cmocka_unit_test(a_set_clock_reads_what_was_set))
