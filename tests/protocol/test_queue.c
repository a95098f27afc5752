/*
 * test_queue.c — the intrusive queue (protocol/queue.h): order, removal
 * anywhere, a node that knows whether it is linked, owners from nodes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "protocol/queue.h"
#include "tests/lib/test_main.h"

typedef struct item {
    int value;
    queue_t node;
} item_t;

/* it[i].value = i, nodes in no list. */
static void number(item_t *it, int n)
{
    for (int i = 0; i < n; i++) {
        it[i].value = i;
        queue_init(&it[i].node);
    }
}

/* h, a new list of it[0..n-1] (numbered by number()) in that order. */
static void queued(queue_t *h, item_t *it, int n)
{
    number(it, n);
    queue_init(h);
    for (int i = 0; i < n; i++)
        queue_insert_tail(h, &it[i].node);
}

/* The values of the list at h, head to tail, into out; returns how many. */
static int values(queue_t *h, int *out, int max)
{
    int n = 0;
    queue_t *q;
    queue_foreach(q, h)
    {
        assert_true(n < max);
        out[n++] = queue_data(q, item_t, node)->value;
    }
    return n;
}

static void new_list_is_empty(void **state)
{
    (void)state;
    queue_t h;
    queue_init(&h);
    assert_true(queue_empty(&h));
    assert_ptr_equal(queue_head(&h), &h);
    assert_ptr_equal(queue_tail(&h), &h);
    int got[1];
    assert_int_equal(values(&h, got, 1), 0);
}

static void insert_head_makes_newest_first_and_tail_oldest_first(void **state)
{
    (void)state;
    item_t it[4];
    number(it, 4);
    queue_t newest, oldest;
    queue_init(&newest);
    queue_init(&oldest);
    item_t other[4];
    number(other, 4);
    for (int i = 0; i < 4; i++) {
        queue_insert_head(&newest, &it[i].node);
        queue_insert_tail(&oldest, &other[i].node);
    }
    int got[4];
    assert_int_equal(values(&newest, got, 4), 4);
    assert_int_equal(got[0], 3);
    assert_int_equal(got[3], 0);
    assert_int_equal(values(&oldest, got, 4), 4);
    assert_int_equal(got[0], 0);
    assert_int_equal(got[3], 3);
    assert_ptr_equal(queue_data(queue_head(&oldest), item_t, node), &other[0]);
    assert_ptr_equal(queue_data(queue_tail(&oldest), item_t, node), &other[3]);
    assert_ptr_equal(queue_next(queue_head(&oldest)), &other[1].node);
}

static void remove_anywhere_keeps_the_others_in_order(void **state)
{
    (void)state;
    item_t it[5];
    queue_t h;
    queued(&h, it, 5);
    queue_remove(&it[2].node); /* middle */
    queue_remove(&it[0].node); /* head */
    queue_remove(&it[4].node); /* tail */
    int got[5];
    assert_int_equal(values(&h, got, 5), 2);
    assert_int_equal(got[0], 1);
    assert_int_equal(got[1], 3);
    queue_remove(&it[1].node);
    queue_remove(&it[3].node);
    assert_true(queue_empty(&h));
}

static void removed_node_is_unlinked_and_removing_again_is_harmless(void **state)
{
    (void)state;
    item_t a = {7, {0}}, b = {8, {0}};
    queue_init(&a.node);
    queue_init(&b.node);
    assert_true(queue_empty(&a.node)); /* in no list */
    queue_t h;
    queue_init(&h);
    queue_insert_tail(&h, &a.node);
    queue_insert_tail(&h, &b.node);
    assert_false(queue_empty(&a.node)); /* linked */
    queue_remove(&a.node);
    assert_true(queue_empty(&a.node));
    queue_remove(&a.node); /* a second time: nothing happens */
    queue_remove(&a.node);
    int got[2];
    assert_int_equal(values(&h, got, 2), 1);
    assert_int_equal(got[0], 8);
    /* An unlinked node can join another list. */
    queue_t h2;
    queue_init(&h2);
    queue_insert_head(&h2, &a.node);
    assert_int_equal(values(&h2, got, 2), 1);
    assert_int_equal(got[0], 7);
}

static void draining_from_the_head_visits_each_once(void **state)
{
    (void)state;
    item_t it[3];
    queue_t h;
    queued(&h, it, 3);
    int n = 0;
    while (!queue_empty(&h)) {
        item_t *x = queue_data(queue_head(&h), item_t, node);
        assert_int_equal(x->value, n++);
        queue_remove(&x->node);
    }
    assert_int_equal(n, 3);
}

static void walking_with_the_next_taken_first_may_remove(void **state)
{
    (void)state;
    item_t it[4];
    queue_t h;
    queued(&h, it, 4);
    for (queue_t *q = queue_head(&h), *next; q != &h; q = next) {
        next = queue_next(q);
        if (queue_data(q, item_t, node)->value % 2 == 0) queue_remove(q);
    }
    int got[4];
    assert_int_equal(values(&h, got, 4), 2);
    assert_int_equal(got[0], 1);
    assert_int_equal(got[1], 3);
}

TEST_MAIN(cmocka_unit_test(new_list_is_empty),
          cmocka_unit_test(insert_head_makes_newest_first_and_tail_oldest_first),
          cmocka_unit_test(remove_anywhere_keeps_the_others_in_order),
          cmocka_unit_test(removed_node_is_unlinked_and_removing_again_is_harmless),
          cmocka_unit_test(draining_from_the_head_visits_each_once),
          cmocka_unit_test(walking_with_the_next_taken_first_may_remove))
