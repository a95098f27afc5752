/*
 * durable.h — the one durability sink: everything rooms and sessions write
 * so that a restart (the store) or another node (the cluster) can rebuild
 * them, and the one commit of a scheduler turn.
 *
 * Rooms and sessions call durable_*() only, never a backend. The backends
 * (store.c's SQLite, and with --redis cluster.c's Redis) register into the
 * sink at start, the store first, and each call goes to each backend in
 * that order; a backend leaves out what it does not keep (a NULL entry).
 * A backend queues what it is given; durable_commit(), which the scheduler
 * alone calls once per turn (scheduler.c) before the turn's output is
 * flushed, makes it durable everywhere: write-ahead, no client ever sees a
 * state that a crash could take back. main.c commits a last time at the stop.
 *
 * A room and a session are opaque here (struct room, struct session): the
 * backends read what they keep of them.
 */
#ifndef TAPIS_SERVER_DURABLE_H
#define TAPIS_SERVER_DURABLE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

struct room;
struct session;

#define DURABLE_MAX_BACKENDS 4

/* What a finished game's record lookup says (durable_game_record()). */
#define DURABLE_REC_OK 0
#define DURABLE_REC_NOT_FOUND 1    /* no such game (or a private one viewer does not sit in) */
#define DURABLE_REC_NOT_FINISHED 2 /* not over: waiting, playing, closed or quarantined */
#define DURABLE_REC_BAD 3          /* its journal does not replay to its stored result */
#define DURABLE_REC_ERROR (-1)     /* the backend failed (logged) */

/* A backend: every entry may be NULL; `ctx` is what it was registered with. */
typedef struct durable_backend {
    const char *name;
    /* Make what was queued since the last commit durable. Returns 0 or -1 (logged). */
    int (*commit)(void *ctx);
    /* A new number for "room" or "session", unique among the nodes; 0: no opinion. */
    uint64_t (*next_id)(void *ctx, const char *what);

    void (*session_new)(void *ctx, const struct session *s);
    void (*session_rename)(void *ctx, const struct session *s);
    void (*session_end)(void *ctx, const struct session *s);
    /* s sits in or watches r (in), or not any more. */
    void (*session_room)(void *ctx, const struct session *s, const struct room *r, bool in);

    /* Created (its complete options and seed), playing, over, closed (over: it
       ended with a result before), its summary changed, freed. */
    void (*room_new)(void *ctx, struct room *r, const json_t *options, uint64_t seed);
    void (*room_started)(void *ctx, const struct room *r);
    void (*room_over)(void *ctx, const struct room *r, const json_t *result);
    void (*room_closed)(void *ctx, struct room *r, bool over);
    void (*room_changed)(void *ctx, struct room *r);
    void (*room_free)(void *ctx, struct room *r);
    /* Seat i changed (sat, freed, a bot took it); s watches r, or not any more. */
    void (*seat)(void *ctx, struct room *r, int i);
    void (*watcher)(void *ctx, struct room *r, const struct session *s, bool watching);
    /*
     * Entry n of r's journal: kind "act" (seat, data = the action), "tick"
     * (seat -1, data NULL), "start" (seat -1, data NULL), "seat" (data = who
     * sits there now: {"name","session"}, {"bot"} or {}), at room time `at`.
     */
    void (*journal)(void *ctx, struct room *r, uint64_t n, const char *kind, int seat, int64_t at,
                    const json_t *data);

    /* Finished games, from the first backend that keeps them (store.h tells
       the format): a page of the history, and one game's record. */
    json_t *(*history)(void *ctx, uint64_t viewer, bool all, int limit, long long offset,
                       long long *total);
    int (*game_record)(void *ctx, const char *id, uint64_t viewer, json_t **out);
} durable_backend_t;

typedef struct durable {
    struct {
        const durable_backend_t *b;
        void *ctx;
    } backends[DURABLE_MAX_BACKENDS];
    int n;
} durable_t;

/* Does any backend keep anything? (Without one, a room builds no journal entry.) */
static inline bool durable_any(const durable_t *d)
{
    return d->n > 0;
}

/* Register backend b (called with ctx). Returns 0, or -1 when the table is full. */
int durable_add(durable_t *d, const durable_backend_t *b, void *ctx);

/* The turn's commit: every backend's. Returns 0, or -1 when one failed (logged). */
int durable_commit(durable_t *d);
/* A new number for "room" or "session" from the first backend that gives one, or 0. */
uint64_t durable_next_id(durable_t *d, const char *what);

void durable_session_new(durable_t *d, const struct session *s);
void durable_session_rename(durable_t *d, const struct session *s);
void durable_session_end(durable_t *d, const struct session *s);
void durable_session_room(durable_t *d, const struct session *s, const struct room *r, bool in);

void durable_room_new(durable_t *d, struct room *r, const json_t *options, uint64_t seed);
void durable_room_started(durable_t *d, const struct room *r);
void durable_room_over(durable_t *d, const struct room *r, const json_t *result);
void durable_room_closed(durable_t *d, struct room *r, bool over);
void durable_room_changed(durable_t *d, struct room *r);
void durable_room_free(durable_t *d, struct room *r);
void durable_seat(durable_t *d, struct room *r, int i);
void durable_watcher(durable_t *d, struct room *r, const struct session *s, bool watching);
void durable_journal(durable_t *d, struct room *r, uint64_t n, const char *kind, int seat,
                     int64_t at, const json_t *data);

/* Finished games: [] and DURABLE_REC_NOT_FOUND when no backend keeps them. */
json_t *durable_history(durable_t *d, uint64_t viewer, bool all, int limit, long long offset,
                        long long *total);
int durable_game_record(durable_t *d, const char *id, uint64_t viewer, json_t **out);

#endif
