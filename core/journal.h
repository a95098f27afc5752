/*
 * journal.h — replaying a game's journal through the core, entry by entry:
 * the one way a game is rebuilt from its record, whoever does it. The store
 * (server/store/store.c, at a restart and for --export-game), the cluster
 * (server/cluster/cluster.c, when a node takes over another's rooms) and the
 * client's `tapis replay` (clients/replay.c) all go through it, so they
 * accept and refuse the same journals. docs/STORE.md gives the entries; each
 * is checked as it goes: its number (1, 2, 3... with no gap and no repeat),
 * its time (the game's clock never goes back), the game's verdict (an `act`
 * must apply, a `tick` must change the state) and the game's audit.
 *
 * It is core/ like the games: libc, jansson and the game interface only, no
 * I/O. The journal comes one entry at a time, so that a caller reads it
 * from wherever it lies (an SQLite query, a Redis stream, a record's array)
 * and can look at the state after each entry (the client's steps).
 *
 * Each function comes in two forms with the same checks and messages: the
 * text form takes the options and an entry's data as JSON text (as the
 * store and Redis keep them), the tree form takes them parsed (as a record
 * that came over the protocol has them).
 *
 * A refusal is said twice, from the same facts: `why` is the sentence the
 * server logs and quarantines with (docs/STORE.md, "Restoring": "entry N
 * (...): WHY"), and jr->error a stable code and the detail without the
 * entry, for a caller that words its own message (the client: "entry N does
 * not replay: CODE: DETAIL"; it passes why = NULL, whylen = 0). Where the
 * game refuses, the code and detail are the game's own.
 */
#ifndef TAPIS_CORE_JOURNAL_H
#define TAPIS_CORE_JOURNAL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "core/deal.h"
#include "core/game.h"

/* The codes of jr->error besides the game's own (game_new's, apply's, audit's). */
#define JOURNAL_E_MISSING_ENTRY "missing_entry"   /* a gap in the numbering, or a repeat */
#define JOURNAL_E_TIME_GOES_BACK "time_goes_back" /* an act or tick before the game's time */
#define JOURNAL_E_BAD_ENTRY "bad_entry"     /* no action object, no such seat, an unknown kind */
#define JOURNAL_E_NOTHING_DUE "nothing_due" /* a tick that changes nothing */
#define JOURNAL_E_BAD_DEAL "bad_deal"       /* a deal of a version this build does not know */

typedef struct journal_replay {
    const game_desc_t *d;
    game_t *g; /* the game as the entries so far left it; NULL once abandoned */
    int players;
    uint64_t n;            /* entries replayed */
    uint64_t changes;      /* those that made a state event (start, act, tick): the room's seq */
    int64_t last_at;       /* the latest time of any entry */
    int64_t game_at;       /* the latest time of the game's clock */
    game_error_t error;    /* why the last call refused, as a code and a detail (above) */
    const json_t *options; /* the options (a reference of its own: owned) */
    json_t *owned;
    game_deal_t deal; /* the deal, with the seeds of the "seed" entries so far */
    bool started;     /* a "start" entry was replayed: no more seeds */
} journal_replay_t;

/*
 * A new game of d from its options (JSON text: the text form; a JSON object:
 * the tree form, which must outlive the replay) and deal (core/deal.h).
 * Returns 0, or -1 with `why` and jr->error (jr->g is then NULL: nothing to
 * abandon).
 */
int journal_replay_start(journal_replay_t *jr, const game_desc_t *d, int players,
                         const char *options, const game_deal_t *deal, char *why, size_t whylen);
int journal_replay_start_tree(journal_replay_t *jr, const game_desc_t *d, int players,
                              const json_t *options, const game_deal_t *deal, char *why,
                              size_t whylen);
/*
 * Replay entry number n (jr->n + 1 is expected): kind "act", "tick", "start",
 * "seat", "seed" or "race" (how the next act was settled: said, not
 * replayed); data is the entry's JSON text (text form) or value (tree
 * form), or NULL. A "seed" entry (before the start, in a deal of version 1)
 * sets the seat's seed to data's "seed" and deals the game again from the new
 * key. Returns 0, or -1 with `why` and jr->error (then
 * journal_replay_abandon()). Only "act", "tick" and "seed" change jr->g.
 */
int journal_replay_entry(journal_replay_t *jr, uint64_t n, const char *kind, int seat, int64_t at,
                         const char *data, char *why, size_t whylen);
int journal_replay_entry_tree(journal_replay_t *jr, uint64_t n, const char *kind, int seat,
                              int64_t at, const json_t *data, char *why, size_t whylen);
/* Free the game of a replay that failed (or that the caller does not keep). */
void journal_replay_abandon(journal_replay_t *jr);
/* The game of a replay the caller keeps (jr->g, now the caller's), the rest freed. */
game_t *journal_replay_take(journal_replay_t *jr);

#endif
