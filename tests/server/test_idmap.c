/*
 * test_idmap.c — the index of items by id alone (server/base/idmap.h): over
 * random adds and removals of 1,000 items, every id is found exactly when its
 * item is in (ids of neighbouring numbers, as rooms have, and short codes),
 * the count follows, the table stays at most half full, and the last removal
 * frees it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "server/base/idmap.h"
#include "tests/server/test_below.h"
#include "tests/lib/test_main.h"

#define N 1000

typedef struct item {
    bool in;
    char id[17];
} item_t;

static void check_all(const idmap_t *m, const item_t *items, size_t in)
{
    assert_int_equal(m->n, in);
    assert_true(!m->slots || 2 * m->n <= m->mask + 1);
    for (int i = 0; i < N; i++)
        assert_ptr_equal(idmap_find(m, items[i].id), items[i].in ? &items[i] : NULL);
}

static void test_an_id_is_found_exactly_while_its_item_is_in(void **state)
{
    (void)state;
    static item_t items[N];
    for (int i = 0; i < N; i++) /* numbers, as public rooms, and a few codes, as private ones */
        snprintf(items[i].id, sizeof items[i].id, i % 10 ? "%d" : "K%05dQ", i + 1);
    idmap_t m;
    idmap_init(&m, offsetof(item_t, id));
    assert_null(idmap_find(&m, "1"));
    size_t in = 0;
    for (int step = 0; step < 100000; step++) {
        item_t *it = &items[below(step < 20000 ? N : N / 4)];
        if (it->in) {
            idmap_remove(&m, it);
            it->in = false;
            in--;
        } else {
            assert_int_equal(idmap_add(&m, it), 0);
            it->in = true;
            in++;
        }
        assert_ptr_equal(idmap_find(&m, it->id), it->in ? it : NULL);
        if (step % 5000 == 0) check_all(&m, items, in);
    }
    check_all(&m, items, in);
    for (int i = 0; i < N; i++)
        if (items[i].in) {
            idmap_remove(&m, &items[i]);
            items[i].in = false;
            if (i % 97 == 0)
                check_all(&m, items, --in);
            else
                in--;
        }
    assert_null(m.slots); /* freed with the last one */
    assert_null(idmap_find(&m, items[0].id));
}

TEST_MAIN(cmocka_unit_test(test_an_id_is_found_exactly_while_its_item_is_in))
