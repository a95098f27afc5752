/*
 * journal.h — replaying a room's journal through the core, entry by entry:
 * the one way a room is rebuilt, from the store (server/store.c, at a
 * restart) or from the cluster's copy (server/cluster.c, when a node takes
 * over another's rooms). docs/STORE.md gives the entries; each is checked as
 * it goes (its number, its time, the game's verdict, the game's audit).
 *
 * It needs nothing of the server: the game interface, jansson and libc, so
 * it lives in core/ (DESIGN.md, "Layers"), where a client can use it too.
 */
#ifndef TAPIS_CORE_JOURNAL_H
#define TAPIS_CORE_JOURNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "game.h"

typedef struct journal_replay {
    const game_desc_t *d;
    game_t *g;
    int players;
    uint64_t n;       /* entries replayed */
    uint64_t changes; /* those that made a state event (start, act, tick): the room's seq */
    int64_t last_at;  /* the latest time of any entry */
    int64_t game_at;  /* the latest time of the game's clock */
} journal_replay_t;

/* A new game of d from its options (JSON text) and seed. Returns 0, or -1 with `why`. */
int journal_replay_start(journal_replay_t *jr, const game_desc_t *d, int players,
                         const char *options, uint64_t seed, char *why, size_t whylen);
/*
 * Replay entry number n (jr->n + 1 is expected): kind "act", "tick", "start"
 * or "seat"; data is the entry's JSON text or NULL. Returns 0, or -1 with
 * `why` (then journal_replay_abandon()).
 */
int journal_replay_entry(journal_replay_t *jr, uint64_t n, const char *kind, int seat, int64_t at,
                         const char *data, char *why, size_t whylen);
/* Free the game of a replay that failed. */
void journal_replay_abandon(journal_replay_t *jr);

#endif
