/*
 * replay.h — a finished game's record (docs/STORE.md, "Records") re-run
 * through core/, as `tapis replay ID` shows it: the spectator's view
 * (game_view(GAME_SPECTATOR), what a watcher of the table received) after
 * the start and after every `act` and `tick` entry of the journal.
 *
 * The server sends a record as stored, without replaying it; the client
 * replays it as a restore does, through the same code: core's journal
 * replay (core/journal.h: game_new, then each entry in order, numbered
 * 1, 2, 3... with no gap, its time never going back; act -> game_apply,
 * which must succeed; tick -> game_tick, which must change the state; start
 * and seat -> nothing; the game's audit after each), and says whether the
 * game ends with the recorded result. No I/O here: replay_cmd.c fetches and
 * shows.
 */
#ifndef TAPIS_CLIENTS_REPLAY_H
#define TAPIS_CLIENTS_REPLAY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/game.h"

typedef struct replay_step {
    /* The journal entry that made this step ({n, kind, seat, at, data}, borrowed
       from the record): the `start` entry for step 0 (NULL when the record has none),
       else an `act` or a `tick`. */
    const json_t *entry;
    json_t *view; /* what a spectator saw after it */
} replay_step_t;

typedef struct replay {
    json_t *record; /* a reference of our own: the steps' entries point into it */
    const game_desc_t *desc;
    replay_step_t *steps; /* steps[0] .. steps[nsteps - 1] */
    size_t nsteps;
    int64_t start_at;  /* the room time of the `start` entry (0 without one) */
    json_t *result;    /* the replayed game's result, or NULL when it did not end */
    bool as_recorded;  /* every entry replayed and the game ended with the recorded result */
    char message[512]; /* "the replay ends as recorded", or what went wrong */
} replay_t;

/*
 * Re-run `record`. Returns 0 when the replay ends as recorded; otherwise -1
 * with r->message saying why: the record cannot start a game (nsteps is 0),
 * "entry N does not replay: CODE: MESSAGE" (the steps before that entry are
 * kept), or the game does not end, or ends with another result. Call
 * replay_free() in every case.
 */
int replay_run(replay_t *r, const json_t *record);
void replay_free(replay_t *r);

/* The entry's "n", "seat" or "at" (an integer field), or dflt. */
json_int_t replay_entry_int(const json_t *entry, const char *key, json_int_t dflt);

/* What replay_round_step() answers besides a step. */
#define REPLAY_NO_ROUNDS (-1) /* the game's views have no "round" */
#define REPLAY_NO_SUCH_ROUND (-2)

/* The first step whose view's "round" is `round`, or one of the codes above. */
long replay_round_step(const replay_t *r, json_int_t round);
/* The smallest and largest "round" of the views (0, 0 without rounds). */
void replay_round_range(const replay_t *r, json_int_t *first, json_int_t *last);

#endif
