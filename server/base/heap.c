/* heap.c — binary min-heap of embedded nodes. See heap.h. */
#include <stdlib.h>

#include "server/base/heap.h"
#include "include/tapis_alloc.h"

static bool less(const heap_node_t *a, const heap_node_t *b)
{
    return a->key < b->key || (a->key == b->key && a->order < b->order);
}

static void place(heap_t *h, size_t i, heap_node_t *n)
{
    h->nodes[i] = n;
    n->pos = i + 1;
}

static void sift_up(heap_t *h, size_t i)
{
    heap_node_t *n = h->nodes[i];
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!less(n, h->nodes[parent])) break;
        place(h, i, h->nodes[parent]);
        i = parent;
    }
    place(h, i, n);
}

static void sift_down(heap_t *h, size_t i)
{
    heap_node_t *n = h->nodes[i];
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= h->n) break;
        if (child + 1 < h->n && less(h->nodes[child + 1], h->nodes[child])) child++;
        if (!less(h->nodes[child], n)) break;
        place(h, i, h->nodes[child]);
        i = child;
    }
    place(h, i, n);
}

int heap_set(heap_t *h, heap_node_t *n, uint64_t key)
{
    if (n->pos) {
        uint64_t old = n->key;
        n->key = key;
        if (key < old)
            sift_up(h, n->pos - 1);
        else if (key > old)
            sift_down(h, n->pos - 1);
        return 0;
    }
    if (h->n == h->cap && heap_reserve(h, h->n + 1) < 0) return -1;
    n->key = key;
    n->order = h->pushes++;
    place(h, h->n++, n);
    sift_up(h, h->n - 1);
    return 0;
}

int heap_reserve(heap_t *h, size_t n)
{
    if (n <= h->cap) return 0;
    size_t cap = h->cap ? 2 * h->cap : 64;
    if (cap < n) cap = n;
    heap_node_t **p = tapis_realloc(h->nodes, cap * sizeof *p);
    if (!p) return -1;
    h->nodes = p;
    h->cap = cap;
    return 0;
}

void heap_remove(heap_t *h, heap_node_t *n)
{
    if (!n->pos) return;
    size_t i = n->pos - 1;
    n->pos = 0;
    heap_node_t *last = h->nodes[--h->n];
    if (i == h->n) return;
    place(h, i, last);
    if (i > 0 && less(last, h->nodes[(i - 1) / 2]))
        sift_up(h, i);
    else
        sift_down(h, i);
}

void heap_free(heap_t *h)
{
    tapis_free(h->nodes);
    h->nodes = NULL;
    h->n = h->cap = 0;
}
