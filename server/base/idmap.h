/*
 * idmap.h — items found by a string id they hold (a room by its id): an
 * open-addressing table of (hash, item) pairs, with no allocation per item.
 *
 * A lookup reads the table and then only the item whose full hash matches:
 * a chained table (uthash) compares each item of a chain in the item itself,
 * and at 2,000 rooms, more than the cache holds, each was a miss.
 */
#ifndef TAPIS_SERVER_IDMAP_H
#define TAPIS_SERVER_IDMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct idmap_slot {
    uint64_t hash;
    void *item; /* NULL: free */
} idmap_slot_t;

typedef struct idmap {
    idmap_slot_t *slots; /* mask + 1 of them, at most half used; NULL while empty */
    size_t mask, n;
    size_t id_offset; /* the item's id: the NUL-terminated string at this offset */
} idmap_t;

/* An empty map of items whose id is the string at id_offset in each. */
void idmap_init(idmap_t *m, size_t id_offset);
/* Add item, whose id is in no other item of m. Returns 0, or -1 (no memory: m unchanged). */
int idmap_add(idmap_t *m, void *item);
/* The item of id, or NULL. */
void *idmap_find(const idmap_t *m, const char *id);
/* Remove item, which is in m. The table is freed when the last one goes. */
void idmap_remove(idmap_t *m, void *item);
void idmap_free(idmap_t *m);

#endif
