/*
 * game.h — the interface every game of tapis implements.
 *
 * One immutable descriptor per game (game_desc_t), registered in one table
 * (registry.c); one opaque mutable state per table (game_t). The idea is
 * OpenSpiel's, in C: the state is fully determined by (options, seed,
 * timestamped action log), so that log is the replay, the journal and the
 * test fixture at once.
 *
 * Rules of the layer: libc and jansson only; no clock (time enters as `now`,
 * in milliseconds of any monotonic origin), no I/O, no global mutable state.
 * Randomness comes from an rng_t kept inside the state.
 *
 * Ownership: functions returning json_t * return a new reference the caller
 * must json_decref(). Functions taking const json_t * borrow it.
 */
#ifndef TAPIS_CORE_GAME_H
#define TAPIS_CORE_GAME_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "rng.h"

#define GAME_MAX_SEATS 8
#define GAME_NO_DEADLINE INT64_MAX
#define GAME_SPECTATOR (-1)

typedef struct game_desc game_desc_t;

/*
 * A level of built-in bot: what `addbot strategy=NAME` names, the strategy
 * it runs (the game's bot() receives it) and its pace: the reaction time in
 * ms, drawn in [min_ms, max_ms] for each move (-1: the server's default,
 * --bot-delay). A game lists its levels; the first is the default.
 */
typedef struct game_bot_level {
    const char *name;
    const char *strategy;
    int min_ms, max_ms;
    const char *help;
} game_bot_level_t;

#define GAME_MAX_BOT_LEVELS 8

/* The head of every game's state: a game's own struct starts with a game_t. */
typedef struct game {
    const game_desc_t *desc;
    int seats;
} game_t;

/*
 * A refusal: `code` is a stable snake_case word with static storage (the
 * protocol sends it as the error code), `message` is for people.
 */
typedef struct game_error {
    const char *code;
    char message[192];
} game_error_t;

struct game_desc {
    const char *id;    /* protocol name, e.g. "233" */
    const char *title; /* human name */
    int min_seats, max_seats;
    const char *default_options; /* JSON object text: every option and its default */
    /*
     * Seats act at any time, not in turns (slap): a turn timer then measures
     * each seat's inactivity, restarting with every action of that seat.
     * Otherwise it runs from the start of the seat's turn.
     */
    bool simultaneous;

    /*
     * Create a table for `seats` players. `options` is the complete option
     * object (defaults merged with the creator's choices by game_new(), types
     * already checked against the defaults). Returns NULL and fills err when an
     * option's value is out of range.
     */
    game_t *(*create)(int seats, const json_t *options, uint64_t seed, game_error_t *err);

    /*
     * Apply `action` for `seat` at time `now`. Validates first: on refusal it
     * returns -1, fills err, and leaves the state exactly as it was. Returns 0
     * when applied. Deadlines due at `now` are settled first (as tick(now)).
     */
    int (*apply)(game_t *g, int seat, const json_t *action, int64_t now, game_error_t *err);

    /* Every action `seat` may send now (a JSON array of action objects). */
    json_t *(*legal)(const game_t *g, int seat);

    /*
     * What a seat may see comes ONLY from these two (game_view() assembles it):
     * view_public is the table as a spectator sees it, identical for every
     * viewer; view_seat (optional) is what only `seat` sees, as the keys added
     * after "seat" and before "legal" (its hidden cards under "hand"). Nothing
     * else carries cards the viewer may not see. A view may share immutable
     * parts with the state: callers may add or replace its top-level keys but
     * must not change anything below them.
     */
    json_t *(*view_public)(const game_t *g);
    json_t *(*view_seat)(const game_t *g, int seat);

    /* The earliest time at which tick() has something to do, or GAME_NO_DEADLINE. */
    int64_t (*next_deadline)(const game_t *g);
    /* Settle everything due at or before `now`. Returns true if the state changed. */
    bool (*tick)(game_t *g, int64_t now);

    /* Bit mask of the seats the game is waiting on (a turn timer runs for them). */
    unsigned (*waiting)(const game_t *g);
    /* What a seat that ran out of time plays: a new action object, or NULL. */
    json_t *(*default_action)(const game_t *g, int seat);
    /*
     * Optional (NULL: never). True when the seat's next action follows its
     * last one at once, as part of the same move (seqnum: the draw after a
     * play, which another player can make lapse): built-in bots take it
     * without their reaction time, and the seat's view says "at_once": true
     * so that client bots do the same.
     */
    bool (*at_once)(const game_t *g, int seat);

    bool (*is_over)(const game_t *g);
    /* Final result: {"winners":[seats], "scores":[...], ...}; NULL until over. */
    json_t *(*result)(const game_t *g);

    /*
     * Bot strategy: a pure function of one seat's view (never the state).
     * `strategy` names a level ("greedy", "random"); randomness only from rng.
     * Returns an action from view["legal"], or NULL if there is none.
     */
    json_t *(*bot)(const json_t *view, const char *strategy, rng_t *rng);
    /* The bot's levels (NULL-name terminated, at most GAME_MAX_BOT_LEVELS); the first is the
       default. Every game with a bot also keeps "greedy" and "random" at the server's pace. */
    const game_bot_level_t *bot_levels;

    /* --- for tests, journals and audits --- */

    /* The whole state, hidden parts included, as JSON (equal states, equal dumps). */
    json_t *(*dump)(const game_t *g);
    /*
     * A copy of g in which everything `seat` cannot see is redrawn at random
     * (consistently with what it can see). view(seat) of the copy must equal
     * view(seat) of g.
     */
    game_t *(*resample)(const game_t *g, int seat, uint64_t seed);
    /* Check the state's invariants (every card accounted for...). 0 or -1 + err. */
    int (*audit)(const game_t *g, game_error_t *err);

    void (*free)(game_t *g);
};

/* --- registry (registry.c) --- */

/* The games, in a fixed order; *n receives their count. */
const game_desc_t *const *game_registry(int *n);
const game_desc_t *game_find(const char *id);

/* --- generic helpers (game.c) --- */

/*
 * Merge `user` (may be NULL) over the descriptor's defaults, checking that every
 * key exists and has the default's JSON type, then create. Errors: "bad_players",
 * "bad_option" (and whatever the game's create reports).
 */
game_t *game_new(const game_desc_t *d, int seats, const json_t *user, uint64_t seed,
                 game_error_t *err);
/* The descriptor's default options as a new object. */
json_t *game_default_options(const game_desc_t *d);

/*
 * The view skeleton: view_public(), then for a seat (0 <= seat < seats)
 * "seat", the keys of view_seat() and "legal". GAME_SPECTATOR (or any other
 * seat) gets the public part alone.
 */
json_t *game_view(const game_t *g, int seat);
/* The seat's own part of its view: {"seat", view_seat()'s keys, "legal"}. */
json_t *game_view_own(const game_t *g, int seat);

static inline int game_apply(game_t *g, int seat, const json_t *a, int64_t now, game_error_t *e)
{
    return g->desc->apply(g, seat, a, now, e);
}
static inline json_t *game_legal(const game_t *g, int seat)
{
    return g->desc->legal(g, seat);
}
static inline int64_t game_next_deadline(const game_t *g)
{
    return g->desc->next_deadline(g);
}
static inline bool game_tick(game_t *g, int64_t now)
{
    return g->desc->tick(g, now);
}
static inline bool game_is_over(const game_t *g)
{
    return g->desc->is_over(g);
}
static inline void game_free(game_t *g)
{
    if (g) g->desc->free(g);
}

/*
 * The common start of every game's action parser: `action` must be an object
 * whose "type" is one of names[0..n-1]. Returns that index, or -1 with err
 * filled ("bad_action", or "unknown_action" naming the game's title).
 */
int game_action_type(const json_t *action, const char *const *names, int n, const char *title,
                     game_error_t *err);
/*
 * True when every key of `action` is "type", "args" (the protocol's inline
 * words) or one of `keys` (NULL-terminated; NULL for none): a typo is an
 * error, not a surprise.
 */
bool game_action_keys_ok(const json_t *action, const char *const *keys);

/* Fill err (printf-style message) and return -1: the one way core code refuses. */
int game_fail(game_error_t *err, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
