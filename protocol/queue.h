/*
 * queue.h — the intrusive doubly linked queue of tapis (libuv's QUEUE, as
 * static inline functions like its uv__queue).
 *
 * A queue_t node lives inside its owner; a list is a queue_t head that is
 * not inside any element. Every operation is O(1) and allocates nothing.
 * queue_data() gets the owner back from its node:
 *
 *     struct conn { ...; queue_t node; };          // in srv->conns
 *     queue_init(&srv->conns);
 *     queue_insert_head(&srv->conns, &c->node);
 *     queue_t *q;
 *     queue_foreach(q, &srv->conns) use(queue_data(q, struct conn, node));
 *     queue_remove(&c->node);
 *
 * A node that is in no queue is self-linked (queue_init(), and again after
 * queue_remove()), so queue_empty(&node) tells whether it is linked and a
 * second queue_remove() does nothing. Removing the node being visited ends
 * queue_foreach(): take the next node first to remove while walking.
 */
#ifndef TAPIS_PROTOCOL_QUEUE_H
#define TAPIS_PROTOCOL_QUEUE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct queue {
    struct queue *next;
    struct queue *prev;
} queue_t;

/* The struct holding node `ptr` as its member `field`: queue_data(q, conn_t, node). */
#define queue_data(ptr, type, field) ((type *)((char *)(ptr)-offsetof(type, field)))

/* Visit every node of the list at h, head to tail. */
#define queue_foreach(q, h) for ((q) = (h)->next; (q) != (h); (q) = (q)->next)

/* An empty list, or a node in no list. */
static inline void queue_init(queue_t *q)
{
    q->next = q;
    q->prev = q;
}

/* True for an empty list (or a node in no list). */
static inline bool queue_empty(const queue_t *q)
{
    return q == q->next;
}

/* The first node of the list at h (h itself when the list is empty). */
static inline queue_t *queue_head(const queue_t *h)
{
    return h->next;
}

/* The last node of the list at h (h itself when the list is empty). */
static inline queue_t *queue_tail(const queue_t *h)
{
    return h->prev;
}

static inline queue_t *queue_next(const queue_t *q)
{
    return q->next;
}

/* Put q first in the list at h. */
static inline void queue_insert_head(queue_t *h, queue_t *q)
{
    q->next = h->next;
    q->prev = h;
    q->next->prev = q;
    h->next = q;
}

/* Put q last in the list at h. */
static inline void queue_insert_tail(queue_t *h, queue_t *q)
{
    q->next = h;
    q->prev = h->prev;
    q->prev->next = q;
    h->prev = q;
}

/* Take q out of its list (nothing happens if it is in none). */
static inline void queue_remove(queue_t *q)
{
    q->prev->next = q->next;
    q->next->prev = q->prev;
    queue_init(q);
}

#endif
