/*
 * test_heap.c — the heap alone (server/base/heap.h): over random inserts,
 * moves up and down, and removals of 300 nodes, its minimum is always the
 * smallest (key, push order) of the nodes in it, each node's place is known
 * and each slot holds its node's key, and popping empties it in order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "server/base/heap.h"
#include "tests/server/test_below.h"
#include "tests/lib/test_main.h"

#define N 300

/* The smallest node in the heap, by brute force, or NULL. */
static heap_node_t *smallest(heap_node_t *nodes)
{
    heap_node_t *m = NULL;
    for (int i = 0; i < N; i++)
        if (heap_contains(&nodes[i]) &&
            (!m || nodes[i].key < m->key || (nodes[i].key == m->key && nodes[i].order < m->order)))
            m = &nodes[i];
    return m;
}

static void test_the_minimum_is_always_the_smallest(void **state)
{
    (void)state;
    static heap_node_t nodes[N];
    heap_t h = {0};
    assert_int_equal(heap_reserve(&h, N), 0);
    for (int step = 0; step < 200000; step++) {
        heap_node_t *n = &nodes[below(N)];
        if (below(4) == 0)
            heap_remove(&h, n);
        else /* few distinct keys: ties are common, and broken by push order */
            assert_int_equal(heap_set(&h, n, below(64)), 0);
        assert_ptr_equal(heap_min(&h), smallest(nodes));
        if (step % 1000 == 0)
            for (size_t i = 0; i < h.n; i++) {
                assert_int_equal(h.slots[i].node->handle, h.slots[i].handle);
                assert_int_equal(h.places[h.slots[i].handle - 1], i);
                assert_true(h.slots[i].key == h.slots[i].node->key);
            }
    }
    uint64_t key = 0, order = 0;
    for (heap_node_t *m; (m = heap_min(&h));) {
        assert_true(m->key > key || (m->key == key && m->order >= order));
        key = m->key;
        order = m->order;
        heap_remove(&h, m);
        assert_false(heap_contains(m));
    }
    heap_free(&h);
}

TEST_MAIN(cmocka_unit_test(test_the_minimum_is_always_the_smallest))
