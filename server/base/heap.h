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
    uint64_t key;    /* its key */
    uint64_t order;  /* push order, for equal keys */
    uint32_t handle; /* its entry + 1 in the heap's places (below); 0 while not in it */
} heap_node_t;

/* A place in the heap: the node's key and order copied beside it, and its
   handle, so that sifting reads and writes only the heap's arrays (the
   nodes are in rooms and connections: 2,000 rooms are more than the cache
   holds, and each node touched was a miss). A node is not told its index
   when its slot moves: the heap keeps each node's index in its array of
   places, by the handle the node got when it went in (and gives back when it
   leaves). So a key moved later sinks at once, with no node read on the way,
   and the top's key is its node's (a lazy sink, which left a lower bound in
   the slot until the node reached the top, read the new top's node each
   time, a miss as costly as the sift it spared). */
typedef struct heap_slot {
    uint64_t key, order;
    heap_node_t *node;
    uint32_t handle; /* the node's */
} heap_slot_t;

typedef struct heap {
    heap_slot_t *slots;
    uint32_t *places;              /* by handle - 1: the index of its node's slot */
    uint32_t *free;                /* handles given back, nfree of them */
    size_t n, cap, nfree, handles; /* handles: given out so far (at most cap) */
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
heap_node_t *heap_min(const heap_t *h);
/* The smallest key, or UINT64_MAX when empty: read in the heap, not in its node. */
static inline uint64_t heap_min_key(const heap_t *h)
{
    return h->n ? h->slots[0].key : UINT64_MAX;
}
static inline bool heap_contains(const heap_node_t *n)
{
    return n->handle != 0;
}
void heap_free(heap_t *h);

/* The struct that holds a node: heap_entry(node, conn_t, ready). */
#define heap_entry(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

#endif
