/*
 * heap.h — a binary min-heap of nodes embedded in their owners (the libuv
 * habit: no allocation per entry, O(log n) insert, update and removal).
 *
 * tapisd keeps two: connections keyed by the stamp of their next line, and
 * rooms keyed by their next deadline (see scheduler.h). Equal keys leave in the
 * order they were pushed.
 */
#ifndef TAPIS_SERVER_HEAP_H
#define TAPIS_SERVER_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct heap_node {
    uint64_t key;   /* its key (its slot's may be lower: below) */
    uint64_t order; /* push order, for equal keys */
    size_t pos;     /* index + 1 in the heap; 0 while not in it */
} heap_node_t;

/* A place in the heap: the node's key and order copied beside it, so that
   sifting compares within the array and touches a node only to note its
   place (the nodes are in rooms and connections: 2,000 rooms are cold).
   A key moved later is only noted in the node: the slot keeps the earlier
   key, a lower bound, and the node goes down to its place once it reaches
   the top (heap_min()). A room's deadline moves later at each act: sifting
   it down then touched a dozen cold rooms on the way. */
typedef struct heap_slot {
    uint64_t key, order;
    heap_node_t *node;
} heap_slot_t;

typedef struct heap {
    heap_slot_t *slots;
    size_t n, cap;
    uint64_t pushes;
} heap_t;

/* Insert n with `key`, or move it there if it is in already. Returns 0, or -1 (no memory). */
int heap_set(heap_t *h, heap_node_t *n, uint64_t key);
/*
 * Make room for n nodes in all. Returns 0, or -1 (no memory). Once an owner
 * has reserved its place, heap_set() never fails: tapisd reserves when it
 * accepts a connection or creates a room, where running out of memory can
 * still be answered, rather than when a line or a deadline must be scheduled.
 */
int heap_reserve(heap_t *h, size_t n);
void heap_remove(heap_t *h, heap_node_t *n);
/* The smallest node (by key, then push order), or NULL. */
heap_node_t *heap_min(heap_t *h);
static inline bool heap_contains(const heap_node_t *n)
{
    return n->pos != 0;
}
void heap_free(heap_t *h);

/* The struct that holds a node: heap_entry(node, conn_t, ready). */
#define heap_entry(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

#endif
