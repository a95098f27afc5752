/* heap.c — binary min-heap of embedded nodes. See heap.h. */
#include <stdlib.h>

#include "server/base/heap.h"
#include "include/tapis_alloc.h"

static bool less(const heap_slot_t *a, const heap_slot_t *b)
{
    return a->key < b->key || (a->key == b->key && a->order < b->order);
}

static void place(heap_t *h, size_t i, heap_slot_t s)
{
    h->slots[i] = s;
    h->places[s.handle - 1] = (uint32_t)i;
}

static void sift_up(heap_t *h, size_t i)
{
    heap_slot_t s = h->slots[i];
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!less(&s, &h->slots[parent])) break;
        place(h, i, h->slots[parent]);
        i = parent;
    }
    place(h, i, s);
}

static void sift_down(heap_t *h, size_t i)
{
    heap_slot_t s = h->slots[i];
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= h->n) break;
        if (child + 1 < h->n && less(&h->slots[child + 1], &h->slots[child])) child++;
        if (!less(&h->slots[child], &s)) break;
        place(h, i, h->slots[child]);
        i = child;
    }
    place(h, i, s);
}

int heap_set(heap_t *h, heap_node_t *n, uint64_t key)
{
    if (n->handle) {
        size_t i = h->places[n->handle - 1];
        uint64_t was = h->slots[i].key;
        n->key = h->slots[i].key = key;
        if (key < was)
            sift_up(h, i);
        else if (key > was)
            sift_down(h, i);
        return 0;
    }
    if (h->n == h->cap && heap_reserve(h, h->n + 1) < 0) return -1;
    n->key = key;
    n->order = h->pushes++;
    n->handle = h->nfree ? h->free[--h->nfree] : (uint32_t)++h->handles;
    place(h, h->n++, (heap_slot_t){key, n->order, n, n->handle});
    sift_up(h, h->n - 1);
    return 0;
}

int heap_reserve(heap_t *h, size_t n)
{
    if (n <= h->cap) return 0;
    size_t cap = h->cap ? 2 * h->cap : 64;
    if (cap < n) cap = n;
    if (cap > UINT32_MAX) return -1;
    heap_slot_t *p = tapis_realloc(h->slots, cap * sizeof *p);
    if (!p) return -1;
    h->slots = p;
    uint32_t *places = tapis_realloc(h->places, cap * sizeof *places);
    if (!places) return -1; /* (the slots' larger block is kept: cap says what all three hold) */
    h->places = places;
    uint32_t *free = tapis_realloc(h->free, cap * sizeof *free);
    if (!free) return -1;
    h->free = free;
    h->cap = cap;
    return 0;
}

void heap_remove(heap_t *h, heap_node_t *n)
{
    if (!n->handle) return;
    size_t i = h->places[n->handle - 1];
    h->free[h->nfree++] = n->handle;
    n->handle = 0;
    heap_slot_t last = h->slots[--h->n];
    if (i == h->n) return;
    place(h, i, last);
    if (i > 0 && less(&last, &h->slots[(i - 1) / 2]))
        sift_up(h, i);
    else
        sift_down(h, i);
}

heap_node_t *heap_min(const heap_t *h)
{
    return h->n ? h->slots[0].node : NULL;
}

void heap_free(heap_t *h)
{
    tapis_free(h->slots);
    tapis_free(h->places);
    tapis_free(h->free);
    h->slots = NULL;
    h->places = h->free = NULL;
    h->n = h->cap = h->nfree = h->handles = 0;
}
