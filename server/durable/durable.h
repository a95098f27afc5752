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
 * The sink knows no room and no session: their side hands it plain records
 * (durable_session_t, durable_room_t, durable_seat_t below, borrowed for
 * the call), and the backends keep what they need of them.
 */
#ifndef TAPIS_SERVER_DURABLE_H
#define TAPIS_SERVER_DURABLE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/deal.h"
#include "core/game.h" /* GAME_MAX_SEATS */

struct room; /* the room side's, handed back through durable_restore_hooks_t */

#define DURABLE_MAX_BACKENDS 4

/* What a finished game's record lookup says (durable_game_record()). */
#define DURABLE_REC_OK 0
#define DURABLE_REC_NOT_FOUND 1    /* no such game (or a private one viewer does not sit in) */
#define DURABLE_REC_NOT_FINISHED 2 /* not over: waiting, playing, closed or quarantined */
#define DURABLE_REC_BAD 3          /* its journal does not replay to its stored result */
#define DURABLE_REC_ERROR (-1)     /* the backend failed (logged) */

/* ------------------------------------------------------------------------ */
/* Records: what a backend kept, handed up as plain data at a restore        */
/* ------------------------------------------------------------------------ */

/*
 * A backend never rebuilds a room or a session itself: at a restart (the
 * store) and at a takeover (the cluster) it reads its records and hands them
 * up through durable_restore_hooks_t, and the room and lobby side rebuilds
 * them, replaying the journal through core/journal.c in one place
 * (room_rebuild(), room.h).
 */
#define DURABLE_TOKEN_HASH_LEN 64 /* hex characters of a token's hash (session.h) */
#define DURABLE_ROOM_ID_LEN 16

typedef struct durable_session_rec {
    uint64_t id;
    char name[64];
    char token_hash[DURABLE_TOKEN_HASH_LEN + 1];
    int64_t created; /* wall time, ms since the epoch */
} durable_session_rec_t;

/* One journal entry as kept (docs/STORE.md): data is its JSON text, or NULL. */
typedef struct durable_entry {
    uint64_t n;
    char kind[16];
    int seat;
    int64_t at;
    char *data;
} durable_entry_t;

typedef struct durable_room_rec {
    uint64_t rid;
    char id[DURABLE_ROOM_ID_LEN + 1];
    char game[32];
    int players;
    char *options;    /* its complete options, JSON text */
    game_deal_t deal; /* its deal (core/deal.h): version 0's seed, version 1's server seed */
    bool private_room;
    char race[16]; /* how it settles races ("reaction", "arrival"), or "": --race */
    bool playing;  /* else waiting */
    uint64_t seq;  /* state events sent, as the backend knows it (0: the journal says) */
    struct {
        uint64_t session; /* the person's session number, or 0 */
        bool bot;         /* else free when no session */
        char strategy[33];
        char name[64]; /* for the log, when the session is gone */
    } seats[GAME_MAX_SEATS];
    durable_entry_t *entries; /* in order of n */
    size_t nentries, capentries;
    uint64_t *watchers; /* session numbers (the cluster's; the store keeps none) */
    size_t nwatchers, capwatchers;
    char error[400]; /* not empty: the backend could not read it all (why) */
} durable_room_rec_t;

/* Append an entry (data copied; NULL is kept NULL). Returns 0, or -1 out of memory. */
int durable_rec_add_entry(durable_room_rec_t *rec, uint64_t n, const char *kind, int seat,
                          int64_t at, const char *data);
int durable_rec_add_watcher(durable_room_rec_t *rec, uint64_t session);
/* Free what rec holds (options, entries, watchers) and clear it. */
void durable_rec_clear(durable_room_rec_t *rec);

/* ------------------------------------------------------------------------ */
/* What the room and session side tells the sink, as plain data              */
/* ------------------------------------------------------------------------ */

/* A session: its number, names and token's hash, creation (wall ms). */
typedef struct durable_session {
    uint64_t id;
    const char *name, *name_key, *token_hash;
    int64_t created;
} durable_session_t;

/* A room: its numbers, its game (id and title) and table. */
typedef struct durable_room {
    uint64_t rid;
    const char *id;
    const char *game, *title;
    int players;
    bool private_room;
    const char *race; /* how it settles races: "reaction" or "arrival" (static text) */
} durable_room_t;

/* Who sits at a seat: a person (session, name), a bot (strategy, name, pace in
   ms), or nobody (session 0, not bot). */
typedef struct durable_seat {
    uint64_t session;
    const char *name;
    bool bot;
    const char *strategy, *bot_name;
    int64_t delay_min, delay_max;
} durable_seat_t;

/* What became of a room record handed up. */
typedef enum durable_verdict {
    DURABLE_ROOM_REBUILT, /* hosted here again */
    DURABLE_ROOM_OVER,    /* its journal ends the game (killed before it was marked so) */
    DURABLE_ROOM_BAD,     /* it does not replay: `why` says where */
    DURABLE_ROOM_NO_ROOM, /* it replays, but is not hosted (--max-rooms, nobody in it) */
} durable_verdict_t;

/*
 * What the room and lobby side registers to be handed records (lobby.h).
 * session(): rebuild a session (held for --reconnect-window); false when it
 * cannot be (out of memory, its name is taken). room(): rebuild a room from
 * rec, resolving its seats' and watchers' sessions; returns the verdict,
 * with *result (OVER: the game's result, the caller's) or `why` (BAD,
 * NO_ROOM), and *out the room (REBUILT). done(): every record was handed:
 * the sessions that sit nowhere end; returns how many are kept.
 */
typedef struct durable_restore_hooks {
    void *ctx;
    bool (*session)(void *ctx, const durable_session_rec_t *rec);
    durable_verdict_t (*room)(void *ctx, durable_room_rec_t *rec, struct room **out,
                              json_t **result, char *why, size_t whylen);
    int (*done)(void *ctx);
} durable_restore_hooks_t;

/* A backend: every entry may be NULL; `ctx` is what it was registered with. */
typedef struct durable_backend {
    const char *name;
    /* Make what was queued since the last commit durable. Returns 0 or -1 (logged). */
    int (*commit)(void *ctx);
    /* A new number for "room" or "session", unique among the nodes; 0: no opinion. */
    uint64_t (*next_id)(void *ctx, const char *what);

    void (*session_new)(void *ctx, const durable_session_t *s);
    void (*session_rename)(void *ctx, const durable_session_t *s);
    void (*session_end)(void *ctx, const durable_session_t *s);
    /* Session `sid` sits in or watches r (in), or not any more. */
    void (*session_room)(void *ctx, uint64_t sid, const durable_room_t *r, bool in);

    /* Created (its complete options and deal: its players' seeds come in "seed" entries), rebuilt
       from `rec` (a restore: the store's at a start, the cluster's at a takeover), playing, over,
       closed (over: it ended with a result before), its summary changed (the
       lobby's summary of it), freed. */
    void (*room_new)(void *ctx, const durable_room_t *r, const json_t *options,
                     const game_deal_t *deal);
    void (*room_rebuilt)(void *ctx, const durable_room_t *r, const durable_room_rec_t *rec);
    void (*room_started)(void *ctx, const durable_room_t *r);
    void (*room_over)(void *ctx, const durable_room_t *r, const json_t *result);
    void (*room_closed)(void *ctx, const durable_room_t *r, bool over);
    void (*room_changed)(void *ctx, const durable_room_t *r, const json_t *summary);
    void (*room_free)(void *ctx, const durable_room_t *r);
    /* Seat i changed (sat, freed, a bot took it): who sits there now; session
       `sid` watches r, or not any more. */
    void (*seat)(void *ctx, const durable_room_t *r, int i, const durable_seat_t *seat);
    void (*watcher)(void *ctx, const durable_room_t *r, uint64_t sid, bool watching);
    /*
     * Entry n of r's journal: kind "act" (seat, data = the action), "tick"
     * (seat -1, data NULL), "start" (seat -1, data NULL), "seat" (data = who
     * sits there now: {"name","session"}, {"bot"} or {}), "seed" (data =
     * {"seed": TEXT}, the seat's seed before the start), at room time `at`.
     */
    void (*journal)(void *ctx, const durable_room_t *r, uint64_t n, const char *kind, int seat,
                    int64_t at, const json_t *data);

    /* Finished games, from the first backend that keeps them (store.h tells
       the format): a page of the history, and one game's record. */
    json_t *(*history)(void *ctx, uint64_t viewer, bool all, int limit, long long offset,
                       long long *total);
    int (*game_record)(void *ctx, const char *id, uint64_t viewer, json_t **out);

    /* The restart: hand every session, then every unfinished room, to h, and
       act on each verdict (a bad journal is quarantined). Returns the rooms
       rebuilt, or -1 (logged); *quarantined counts the bad ones. */
    int (*restore)(void *ctx, const durable_restore_hooks_t *h, int *sessions_kept,
                   int *quarantined);
} durable_backend_t;

/* A backend's table entry bound to the backend's function d_<entry>: the backends name the
   functions they bind so (store_write.c, cluster_rooms.c), and an entry cannot be bound to
   another's function by mistake. */
#define DURABLE_OP(entry) .entry = d_##entry

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

void durable_session_new(durable_t *d, const durable_session_t *s);
void durable_session_rename(durable_t *d, const durable_session_t *s);
void durable_session_end(durable_t *d, const durable_session_t *s);
void durable_session_room(durable_t *d, uint64_t sid, const durable_room_t *r, bool in);

void durable_room_new(durable_t *d, const durable_room_t *r, const json_t *options,
                      const game_deal_t *deal);
void durable_room_rebuilt(durable_t *d, const durable_room_t *r, const durable_room_rec_t *rec);
void durable_room_started(durable_t *d, const durable_room_t *r);
void durable_room_over(durable_t *d, const durable_room_t *r, const json_t *result);
void durable_room_closed(durable_t *d, const durable_room_t *r, bool over);
/* Does a backend keep a room's summary? (Without one, none is made per change.) */
bool durable_wants_summary(const durable_t *d);
void durable_room_changed(durable_t *d, const durable_room_t *r, const json_t *summary);
void durable_room_free(durable_t *d, const durable_room_t *r);
void durable_seat(durable_t *d, const durable_room_t *r, int i, const durable_seat_t *seat);
void durable_watcher(durable_t *d, const durable_room_t *r, uint64_t sid, bool watching);
void durable_journal(durable_t *d, const durable_room_t *r, uint64_t n, const char *kind, int seat,
                     int64_t at, const json_t *data);

/* Finished games: [] and DURABLE_REC_NOT_FOUND when no backend keeps them. */
json_t *durable_history(durable_t *d, uint64_t viewer, bool all, int limit, long long offset,
                        long long *total);
int durable_game_record(durable_t *d, const char *id, uint64_t viewer, json_t **out);
/* The restart, from the first backend that restores (the store): see above. 0 with none. */
int durable_restore(durable_t *d, const durable_restore_hooks_t *h, int *sessions_kept,
                    int *quarantined);

#endif
