/* idmap.c — items by string id, open addressing with linear probing. See idmap.h. */
#include <string.h>

#include "server/base/idmap.h"
#include "include/tapis_alloc.h"

#define IDMAP_MIN_SLOTS 64

/* FNV-1a, its high bits folded into the low ones that pick the slot. */
static uint64_t id_hash(const char *id)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *p = (const unsigned char *)id; *p; p++)
        h = (h ^ *p) * 0x100000001b3ull;
    return h ^ (h >> 29) ^ (h >> 47);
}

static const char *item_id(const idmap_t *m, const void *item)
{
    return (const char *)item + m->id_offset;
}

void idmap_init(idmap_t *m, size_t id_offset)
{
    *m = (idmap_t){.id_offset = id_offset};
}

/* Put (hash, item) in the first free slot of its run (the table has one). */
static void place(idmap_slot_t *slots, size_t mask, uint64_t hash, void *item)
{
    size_t i = hash & mask;
    while (slots[i].item)
        i = (i + 1) & mask;
    slots[i] = (idmap_slot_t){hash, item};
}

int idmap_add(idmap_t *m, void *item)
{
    if (!m->slots || 2 * (m->n + 1) > m->mask + 1) {
        size_t cap = m->slots ? 2 * (m->mask + 1) : IDMAP_MIN_SLOTS;
        idmap_slot_t *slots = tapis_calloc(cap, sizeof *slots);
        if (!slots) return -1;
        for (size_t i = 0; m->slots && i <= m->mask; i++)
            if (m->slots[i].item) place(slots, cap - 1, m->slots[i].hash, m->slots[i].item);
        tapis_free(m->slots);
        m->slots = slots;
        m->mask = cap - 1;
    }
    place(m->slots, m->mask, id_hash(item_id(m, item)), item);
    m->n++;
    return 0;
}

void *idmap_find(const idmap_t *m, const char *id)
{
    if (!m->slots) return NULL;
    uint64_t hash = id_hash(id);
    for (size_t i = hash & m->mask; m->slots[i].item; i = (i + 1) & m->mask)
        if (m->slots[i].hash == hash && strcmp(item_id(m, m->slots[i].item), id) == 0)
            return m->slots[i].item;
    return NULL;
}

void idmap_remove(idmap_t *m, void *item)
{
    size_t i = id_hash(item_id(m, item)) & m->mask;
    while (m->slots[i].item != item)
        i = (i + 1) & m->mask;
    /* Close the gap: move back each later item of the run whose home slot is
       not between the gap and it (no tombstones to skip later). */
    for (size_t j = (i + 1) & m->mask; m->slots[j].item; j = (j + 1) & m->mask) {
        size_t home = m->slots[j].hash & m->mask;
        if (((j - home) & m->mask) >= ((j - i) & m->mask)) {
            m->slots[i] = m->slots[j];
            i = j;
        }
    }
    m->slots[i] = (idmap_slot_t){0, NULL};
    if (--m->n == 0) idmap_free(m);
}

void idmap_free(idmap_t *m)
{
    tapis_free(m->slots);
    m->slots = NULL;
    m->mask = m->n = 0;
}
