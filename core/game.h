/*
 * game.h — the interface every game of tapis implements.
 *
 * One immutable descriptor per game (game_desc_t), registered in one table
 * (registry.c); one opaque mutable state per table (game_t). The idea is
 * OpenSpiel's, in C: the state is fully determined by (options, seed,
 * timestamped action log), so that log is the replay, the journal and the
 * test fixture at once.
 *
 * Rules of the layer: libc, jansson and json/ (a writer over jansson) only; no clock (time enters
 * as `now`, in milliseconds of any monotonic origin), no I/O, no global mutable state. Randomness
 * comes from an rng_t kept inside the state.
 *
 * Ownership: functions returning json_t * return a new reference the caller
 * must json_decref(). Functions taking const json_t * borrow it.
 *
 * Views and legal lists are WRITTEN (json/jw.h), not returned: the same
 * calls give the server its text and everyone else a jansson tree
 * (game_view(), game_legal()).
 */
#ifndef TAPIS_CORE_GAME_H
#define TAPIS_CORE_GAME_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json/jw.h"
#include "core/rng.h"

#define GAME_MAX_SEATS 8
#define GAME_NO_DEADLINE INT64_MAX
#define GAME_SPECTATOR (-1)

typedef struct game_desc game_desc_t;

/* The most logs, and the most shared values, a state holds (game_desc_t). */
#define GAME_MAX_HELD 4

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

/*
 * The rows every game with a bot lists: its greedy strategy at a person's
 * pace; "easy", the greedy strategy one move in three and a random move the
 * others, slowly;
 * "hard", a search (core/search.h) at a person's pace; the greedy strategy
 * quickly (the reaction time drawn in [min_ms, max_ms]); then "greedy" and
 * "random" at the server's pace and the table's end. `help` says how strong
 * each is: easy's and hard's `strength`, a string the game gives, is their
 * measured share of wins against normal (docs/BENCHMARKS.md, "Bot levels").
 */
/* clang-format off */
#define GAME_BOT_LEVEL_NORMAL(min_ms, max_ms) \
    {"normal", "greedy", (min_ms), (max_ms), "the greedy strategy at a person's pace"}
#define GAME_BOT_LEVEL_EASY(min_ms, max_ms, strength) \
    {"easy", "easy", (min_ms), (max_ms), \
     "the greedy strategy with a random move two times in three, slowly; " strength}
#define GAME_BOT_LEVEL_HARD(min_ms, max_ms, strength) \
    {"hard", "hard", (min_ms), (max_ms), \
     "searches each move (Monte Carlo over the cards it cannot see); " strength}
#define GAME_BOT_LEVEL_FAST(min_ms, max_ms) \
    {"fast", "greedy", (min_ms), (max_ms), "the greedy strategy, quicker than a person"}
#define GAME_BOT_LEVELS_AT_SERVER_PACE \
    {"greedy", "greedy", -1, -1, "the greedy strategy at the server's pace (--bot-delay)"}, \
    {"random", "random", -1, -1, "random legal moves at the server's pace (--bot-delay)"}, \
    {NULL, NULL, 0, 0, NULL}
/* clang-format on */

/*
 * The whole table of a game whose levels are the kit's rows above, in their
 * order: normal and hard at a person's pace [normal_min, normal_max], easy at
 * [easy_min, easy_max], fast at [fast_min, fast_max] (ms), the strengths of
 * easy and hard, then greedy and random at the server's pace. A game with a
 * level of its own (As.point3's hard) lists the rows one by one.
 */
/* clang-format off */
#define GAME_BOT_LEVELS_KIT(normal_min, normal_max, easy_min, easy_max, fast_min, fast_max, \
                            easy_strength, hard_strength) \
    GAME_BOT_LEVEL_NORMAL(normal_min, normal_max), \
    GAME_BOT_LEVEL_EASY(easy_min, easy_max, easy_strength), \
    GAME_BOT_LEVEL_HARD(normal_min, normal_max, hard_strength), \
    GAME_BOT_LEVEL_FAST(fast_min, fast_max), \
    GAME_BOT_LEVELS_AT_SERVER_PACE
/* clang-format on */

/*
 * The seed of the generator a default action's bot draws from (see
 * game_default_bot_action): one fixed seed, so a timed-out seat plays the same
 * move on replay.
 */
#define GAME_DEFAULT_ACTION_SEED 233

/*
 * A game's options: one typed table (Redis's command table idea) that
 * game_new() checks before create() runs, game_default_options() turns into
 * the defaults object and game_options_json() advertises. An int lies in
 * [min, max]; a bool is true or false; a string is one of `choices`
 * (NULL-terminated). The table ends with a NULL name.
 *
 * An option that lands as it is in a field of the state says where: `at`,
 * the field's offset in the game's struct (0: create() reads it itself, a
 * value it checks against the seat count or maps by its own logic). An
 * int lands in an int, a bool in a bool, a string in an enum whose values
 * are its choices' indexes, in order. game_state_new() stores them before
 * create() goes on.
 */
typedef enum game_option_type { GAME_OPT_INT, GAME_OPT_BOOL, GAME_OPT_STRING } game_option_type_t;

typedef struct game_option {
    const char *name;
    game_option_type_t type;
    json_int_t def;         /* int: the default; bool: 0 or 1 */
    json_int_t min, max;    /* int */
    const char *def_string; /* string: the default, one of choices */
    const char *const *choices;
    const char *help;
    size_t at; /* the offset of the state's field it lands in, or 0 */
} game_option_t;

/*
 * Rows of the table, in game_option_t's field order. The _AT rows name the
 * field of the state's struct T the option lands in: an int field for an
 * int, a bool field for a bool, an enum (a field of an int's size) for a
 * string; another type does not compile.
 */
/* clang-format off */
#define GAME_OPTION_INT(name, def, min, max, help) \
    {(name), GAME_OPT_INT, (def), (min), (max), NULL, NULL, (help), 0}
#define GAME_OPTION_BOOL(name, def, help) \
    {(name), GAME_OPT_BOOL, (def) ? 1 : 0, 0, 1, NULL, NULL, (help), 0}
#define GAME_OPTION_STRING(name, def, choices, help) \
    {(name), GAME_OPT_STRING, 0, 0, 0, (def), (choices), (help), 0}
#define GAME_OPTION_INT_AT(name, def, min, max, T, field, help) \
    {(name), GAME_OPT_INT, (def), (min), (max), NULL, NULL, (help), \
     _Generic(((T *)0)->field, int: offsetof(T, field))}
#define GAME_OPTION_BOOL_AT(name, def, T, field, help) \
    {(name), GAME_OPT_BOOL, (def) ? 1 : 0, 0, 1, NULL, NULL, (help), \
     _Generic(((T *)0)->field, bool: offsetof(T, field))}
#define GAME_OPTION_STRING_AT(name, def, choices, T, field, help) \
    {(name), GAME_OPT_STRING, 0, 0, 0, (def), (choices), (help), \
     offsetof(T, field) + 0 * sizeof(char[sizeof(((T *)0)->field) == sizeof(int) ? 1 : -1])}
#define GAME_OPTION_END {NULL, GAME_OPT_INT, 0, 0, 0, NULL, NULL, NULL, 0}
/* clang-format on */

/* The head of every game's state: a game's own struct starts with a game_t. */
typedef struct game {
    const game_desc_t *desc;
    int seats;
} game_t;

/*
 * A refusal: `code` is a stable snake_case word with static storage (the
 * protocol sends it as the error code), `message` is for people. It is the
 * one error type of tapis (include/tapis_error.h), shared with the protocol
 * and the server.
 */
#include "include/tapis_error.h"
typedef tapis_error_t game_error_t;

/*
 * The types of the descriptor's functions that build JSON or check a state,
 * named once: the descriptor's members below and a game's own declarations
 * (its internal.h: `game_json_fn g233_result;`) share them.
 */
typedef json_t *game_json_fn(const game_t *g);                       /* result */
typedef void game_dump_fn(const game_t *g, json_t *d);               /* dump */
typedef json_t *game_seat_json_fn(const game_t *g, int seat);        /* default_action */
typedef void game_write_fn(const game_t *g, jw_t *w);                /* view_public */
typedef void game_seat_write_fn(const game_t *g, int seat, jw_t *w); /* view_seat, legal */
typedef game_t *game_resample_fn(const game_t *g, int seat, uint64_t seed);
typedef int game_audit_fn(const game_t *g, game_error_t *err);

struct game_desc {
    const char *id;    /* protocol name, e.g. "233" */
    const char *title; /* human name */
    int min_seats, max_seats;
    const game_option_t *options; /* the option table (NULL: no option) */
    /*
     * Seats act at any time, not in turns (slap): a turn timer then measures
     * each seat's inactivity, restarting with every action of that seat.
     * Otherwise it runs from the start of the seat's turn.
     */
    bool simultaneous;

    /*
     * Set up a table in g: the kit's new state (game_state_new(): zeroed,
     * `size` bytes, for g->seats players, the options whose row says where
     * they land already stored). `options` is the complete option object
     * (defaults merged with the creator's choices by game_new(), every type,
     * range and choice already checked against the table). Returns 0, or -1
     * with err filled when options do not fit together or the seat count;
     * the kit then frees g. Memory running out is the kit's (game_new()).
     */
    int (*create)(game_t *g, const json_t *options, const rng_t *rng, game_error_t *err);

    /*
     * Apply `action` for `seat` at time `now`. Validates first: on refusal it
     * returns -1, fills err, and leaves the state exactly as it was. Returns 0
     * when applied. Deadlines due at `now` are settled first (as tick(now)).
     * Memory running out is the kit's (game_apply()).
     */
    int (*apply)(game_t *g, int seat, const json_t *action, int64_t now, game_error_t *err);

    /* Every action `seat` may send now: each action object written as an item
       of the array that is open (game_legal() gives it as a JSON array). */
    game_seat_write_fn *legal;

    /*
     * What a seat may see comes ONLY from these two (game_view() and
     * game_write_own() assemble it). Both write keys into the object that is
     * open. view_public is the table as a spectator sees it, identical for
     * every viewer; view_seat (optional) is what only `seat` sees, the keys
     * after "seat" and before "legal" (its hidden cards under "hand").
     * Nothing else carries cards the viewer may not see. A view may share
     * immutable parts with the state (jw_json()): holders of a view's tree
     * may add or replace its top-level keys but must not change anything
     * below them.
     */
    game_write_fn *view_public;
    game_seat_write_fn *view_seat;

    /*
     * Optional functions: NULL takes the kit's default, and callers go through
     * the game_*() wrappers below, never through these pointers.
     */

    /* The earliest time at which tick() has something to do, or GAME_NO_DEADLINE
       (NULL: no timer, never a deadline). */
    int64_t (*next_deadline)(const game_t *g);
    /* Settle everything due at or before `now`. Returns true if the state changed
       (NULL: nothing ever due, false). */
    bool (*tick)(game_t *g, int64_t now);

    /* Bit mask of the seats the game is waiting on (a turn timer runs for them;
       NULL: nobody). */
    unsigned (*waiting)(const game_t *g);
    /* What a seat that ran out of time plays: a new action object, or NULL
       (NULL: game_default_bot_action, the first bot level's choice). */
    game_seat_json_fn *default_action;
    /*
     * Optional (NULL: never). True when the seat's next action follows its
     * last one at once, as part of the same move (seqnum: the draw after a
     * play, which another player can make lapse): built-in bots take it
     * without their reaction time, and the seat's view says "at_once": true
     * so that client bots do the same.
     */
    bool (*at_once)(const game_t *g, int seat);

    bool (*is_over)(const game_t *g);
    /* Final result: {"winners":[seats], "scores":[...], ...}. Called on a
       finished game only: before, game_result() is NULL. */
    game_json_fn *result;

    /*
     * Bot strategy: a pure function of one seat's view (never the state).
     * `strategy` names a level ("greedy", "random"); randomness only from rng.
     * Returns an action from view["legal"], or NULL if there is none. A game
     * writes it as game_bot_run(view, strategy, rng, its own strategies): the
     * kit answers "random" (optional; NULL: "random" whatever the strategy).
     */
    json_t *(*bot)(const json_t *view, const char *strategy, rng_t *rng);
    /* The kit's levels (core/search.h: "easy", "hard", a greedy strategy): with it,
       game_bot() is game_bot_search() on it, and `bot` stays NULL. */
    const struct game_search *search;
    /* The bot's levels (NULL-name terminated, at most GAME_MAX_BOT_LEVELS); the first is the
       default. Every game with a bot also keeps "greedy" and "random" at the server's pace. */
    const game_bot_level_t *bot_levels;

    /* --- for tests, journals and audits --- */

    /* The whole state, hidden parts included, as JSON (equal states, equal
       dumps): the keys the public view lacks, added to `d`, the spectator's
       view. Callers go through game_dump(). */
    game_dump_fn *dump;
    /*
     * A copy of g in which everything `seat` cannot see is redrawn at random
     * (consistently with what it can see). view(seat) of the copy must equal
     * view(seat) of g.
     */
    game_resample_fn *resample;
    /* Check the state's invariants (every card accounted for...). 0 or -1 + err. */
    game_audit_fn *audit;

    /*
     * The state's struct: its size, and the offsets of what it holds by
     * reference, immutable and shared with its copies and its views: its
     * logs (game_log_t) and shared values (game_shared_t), each list ending
     * at the first 0 (offset 0 is the game_t). With them the kit copies a
     * state (game_copy()), frees it (game_free()) and keeps apply and tick
     * from changing anything when memory runs out halfway (game_apply()).
     */
    size_t size;
    size_t logs[GAME_MAX_HELD];
    size_t shared[GAME_MAX_HELD];
};

/*
 * The hooks every game of tapis binds, by their conventional names: for a
 * game whose names start with `p` (g233, ap3, seqnum, slap), its option
 * table p_options, the functions p_create ... p_audit, the search p_search,
 * the levels p_bot_levels and the state's struct p_t. A descriptor opens
 * with its id, title and seats, then GAME_HOOKS(p), then the hooks only some
 * games have (tick, at_once, default_action, simultaneous...) written by
 * hand, then its logs and shared values:
 *
 *     const game_desc_t g233_desc = {
 *         .id = "233", .title = "233", .min_seats = 2, .max_seats = 6,
 *         GAME_HOOKS(g233),
 *         .tick = g233_tick,
 *         ...
 *     };
 */
/* clang-format off */
#define GAME_HOOKS(p) \
    .options = p##_options, \
    .create = p##_create, .apply = p##_apply, .legal = p##_legal, \
    .view_public = p##_view_public, .view_seat = p##_view_seat, \
    .waiting = p##_waiting, .is_over = p##_is_over, .result = p##_result, \
    .search = &p##_search, .bot_levels = p##_bot_levels, \
    .dump = p##_dump, .resample = p##_resample, .audit = p##_audit, \
    .size = sizeof(p##_t)
/* clang-format on */

/* --- registry (registry.c) --- */

/* The games, in a fixed order; *n receives their count. */
const game_desc_t *const *game_registry(int *n);
const game_desc_t *game_find(const char *id);

/* --- generic helpers (game.c) --- */

/*
 * Merge `user` (may be NULL) over the descriptor's defaults, checking every key
 * against the option table (it exists, has the type, lies in the range or is
 * one of the choices), then create: a new state (game_state_new()) that the
 * game's create() sets up. Errors: "bad_players", "bad_option" with a message
 * naming the option and what it accepts (and whatever create reports),
 * "internal" when memory runs out (an allocation of create() failed: the
 * state is freed, never returned with a part missing).
 */
game_t *game_new(const game_desc_t *d, int seats, const json_t *user, uint64_t seed,
                 game_error_t *err);
/* The same from a deal (core/deal.h): version 0 is game_new(seed); version 1
   draws every shuffle from the ChaCha20 stream of the deal's key. */
struct game_deal;
game_t *game_new_dealt(const game_desc_t *d, int seats, const json_t *user,
                       const struct game_deal *deal, game_error_t *err);
/* The descriptor's default options as a new object {name: default}. */
json_t *game_default_options(const game_desc_t *d);
/*
 * The option table as JSON, for clients: [{"name", "type": "int"|"bool"|
 * "string", "default", "min" and "max" (int), "choices" (string), "help"}].
 */
json_t *game_options_json(const game_desc_t *d);
/* Check one option's value against its table row: 0, or -1 with "bad_option". */
int game_option_check(const game_desc_t *d, const char *name, const json_t *v, game_error_t *err);
/* An option of the object create() receives (game_new() checked it against the table). */
int game_option_int(const json_t *options, const char *name);
bool game_option_bool(const json_t *options, const char *name);
const char *game_option_string(const json_t *options, const char *name);

/* --- a game's state (game.c) --- */

/*
 * A zeroed state of `size` bytes (the game's struct, which starts with its
 * game_t) for d and `seats`, each option of `options` whose row has an `at`
 * stored in its field (NULL: none, as a search's from_view); NULL with
 * "internal". game_new() makes the state create() sets up with it.
 */
void *game_state_new(size_t size, const game_desc_t *d, int seats, const json_t *options,
                     game_error_t *err);
/* A new copy of g holding its own references to the shared parts (resample's
   start); NULL when memory runs out. */
game_t *game_copy(const game_t *g);
/* Release what g holds and g itself (NULL: nothing). */
void game_free(game_t *g);

/*
 * The view skeleton: view_public(), then for a seat (0 <= seat < seats)
 * "seat", the keys of view_seat() and "legal". GAME_SPECTATOR (or any other
 * seat) gets the public part alone. NULL when memory runs out.
 */
json_t *game_view(const game_t *g, int seat);
/* The same, written as a value (an object) to w. */
void game_write_view(const game_t *g, int seat, jw_t *w);
/* Its parts, written into the object open in w: the public keys, then (for
   a seat) its own keys, "seat", view_seat()'s and "legal". */
void game_write_public(const game_t *g, jw_t *w);
void game_write_own(const game_t *g, int seat, jw_t *w);
/* The whole state as a new JSON object: the spectator's view and what the
   game's dump() adds (NULL: out of memory, never a dump with a part missing). */
json_t *game_dump(const game_t *g);
/* Every action seat may send now, as a new JSON array (NULL: out of memory). */
json_t *game_legal(const game_t *g, int seat);

/*
 * The descriptor's apply and tick, made to change nothing when memory runs
 * out halfway: the kit takes a snapshot first (a copy of the state's bytes
 * with its own references, game_desc_t's size, logs and shared) and puts it
 * back when an allocation failed since; apply then refuses with "internal",
 * tick says nothing changed (its deadline stays due). A game's own apply
 * and tick are plain steps, and its apply may call its tick.
 */
int game_apply(game_t *g, int seat, const json_t *a, int64_t now, game_error_t *e);
bool game_tick(game_t *g, int64_t now);
static inline int64_t game_next_deadline(const game_t *g)
{
    return g->desc->next_deadline ? g->desc->next_deadline(g) : GAME_NO_DEADLINE;
}
static inline unsigned game_waiting(const game_t *g)
{
    return g->desc->waiting ? g->desc->waiting(g) : 0u;
}
/* The kit's default action: what the game's first bot level plays from the seat's
   view (seeded with GAME_DEFAULT_ACTION_SEED); NULL unless the game waits on seat,
   and NULL when memory runs out (never an action with a part missing). */
json_t *game_default_bot_action(const game_t *g, int seat);
static inline json_t *game_default_action(const game_t *g, int seat)
{
    return g->desc->default_action ? g->desc->default_action(g, seat)
                                   : game_default_bot_action(g, seat);
}
static inline bool game_at_once(const game_t *g, int seat)
{
    return g->desc->at_once ? g->desc->at_once(g, seat) : false;
}
static inline bool game_is_over(const game_t *g)
{
    return g->desc->is_over(g);
}
/* The descriptor's result() of a finished game; NULL until it is over. */
static inline json_t *game_result(const game_t *g)
{
    return game_is_over(g) ? g->desc->result(g) : NULL;
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
/* True when `action` has no key but "type" and no inline words: an action
   without arguments (draw, pass, keep). */
bool game_action_bare(const json_t *action);
/* The protocol's inline words of `action` into *args: NULL (none) or a list.
   Returns 0, or -1 with "bad_action" when "args" is not a list. */
int game_action_args(const json_t *action, const json_t **args, game_error_t *err);
/*
 * The opening of a parser whose actions take the inline words as a list
 * (233, As.point3): game_action_type(), then game_action_args() into *args.
 * Returns the type's index, or -1 with err filled.
 */
int game_action_open(const json_t *action, const char *const *names, int n, const char *title,
                     const json_t **args, game_error_t *err);
/* The number of elements of an array (not a pointer): a type_names table. */
#define GAME_COUNT(array) ((int)(sizeof(array) / sizeof((array)[0])))

/* --- bots (game.c) --- */

/* A game's own strategies: `legal` is view["legal"], never empty. */
typedef json_t *game_strategy_fn(const json_t *view, const json_t *legal, const char *strategy,
                                 rng_t *rng);
/* The "random" level, for every game: a uniformly drawn element of view["legal"]
   (a copy), or NULL when it is empty. */
json_t *game_bot_random(const json_t *view, rng_t *rng);
/*
 * The body of every game's bot(): NULL when view["legal"] is empty; "random"
 * (or "random:..." with a reaction time) is game_bot_random(); any other
 * strategy goes to `own`.
 */
json_t *game_bot_run(const json_t *view, const char *strategy, rng_t *rng, game_strategy_fn *own);
/* The game's bot: game_bot_search() on its search, else its bot(), else
   game_bot_random() for a game without one (core/search.c). */
json_t *game_bot(const game_desc_t *d, const json_t *view, const char *strategy, rng_t *rng);
/* Has the game a built-in bot of its own (a search or a bot())? */
static inline bool game_has_bot(const game_desc_t *d)
{
    return d->search || d->bot;
}

/* --- results (game.c) and logs (game_log.c) --- */

/* The seats of a bit mask as a JSON array, lowest first: the "winners" of a result. */
json_t *game_winners_json(unsigned mask, int seats);

/*
 * An immutable, shareable log (events, history), kept as its compact text
 * "[e1,e2,...]": every append makes a new text (the old one is left as it
 * was, for the copies that share it), so a view never sees a later entry.
 * An entry is complete when appended and never changed after. `cap` > 0
 * keeps the last `cap` entries; 0 keeps them all.
 *
 * Why text: views are written for every seat of every change, and a tree
 * of entries (each a jansson object of a few nodes, long out of the cache)
 * cost more to copy on append, encode and release than the rest of the
 * turn; the text is appended to while the new entry is fresh, and only the
 * tree end of a writer (bots, tests) parses it.
 */
typedef struct game_text game_text_t; /* reference-counted bytes (game_log.c) */
typedef struct game_log {
    game_text_t *text; /* NULL: "[]" */
    size_t n, cap;     /* entries, and the most kept */
} game_log_t;

void game_log_init(game_log_t *l, size_t cap);
/* Append `entry` (the log takes the reference and releases it: the log keeps
   its text). Out of memory, the log stays as it was. */
void game_log_append(game_log_t *l, json_t *entry);
/* The same for an entry given as its text (compact JSON, as json_text()
   writes it): nothing to build, encode and free. */
void game_log_append_text(game_log_t *l, const char *entry, size_t n);
/* Append {"seat":SEAT,"did":DID}, with KEY:VALUE (a string) after them when
   key is not NULL: a seat's event, as game_seat_event() builds it. */
void game_log_seat_event(game_log_t *l, int seat, const char *did, const char *key,
                         const char *value);
/* The entries as a new JSON array (NULL: out of memory). */
json_t *game_log_json(const game_log_t *l);
/* The entries written under key: their text, or at a tree end, their array. */
void game_write_log(jw_t *w, const char *key, const game_log_t *l);
size_t game_log_size(const game_log_t *l);
/* dst shares src's entries (a copy of the state: resample, snapshots). */
void game_log_share(game_log_t *dst, const game_log_t *src);
void game_log_free(game_log_t *l);

/*
 * An immutable JSON value a state holds and its views share (233's summary
 * of the last round, aspoint3's last reveal), with its text made once, when
 * it is set. Views are written for every seat of every change, and walking
 * such a tree to encode it each time was most of the cost of a view's text:
 * its nodes are scattered and long out of the cache.
 */
typedef struct game_shared {
    json_t *tree; /* NULL: none */
    json_t *text; /* json_text(tree) as a JSON string (NULL: none, or out of memory) */
} game_shared_t;

/* Hold tree (the reference is taken; NULL: none) and make its text. */
void game_shared_set(game_shared_t *s, json_t *tree);
/* A copy of the state holds its own references (see game_restore()). */
void game_shared_hold(game_shared_t *s);
void game_shared_free(game_shared_t *s);
/* tree under key: its text at the text end, the tree shared at the tree end. */
void game_write_shared(jw_t *w, const char *key, const game_shared_t *s);
/* A new event {"seat": seat, "did": did}, to which a game adds its other keys. */
json_t *game_seat_event(int seat, const char *did);

/*
 * v, or NULL with v released if an allocation failed since `mark`
 * (tapis_alloc_failures(), include/tapis_alloc.h): jansson's setters fail
 * quietly, so a game's JSON builders end with this rather than send a part
 * with a key missing.
 */
json_t *game_json_checked(json_t *v, unsigned long mark);

/* Fill err (printf-style message) and return -1: the one way core code
   refuses. err may be NULL when only the answer counts (a legal list's
   checks): nothing is formatted. */
int game_fail(game_error_t *err, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* game_fail() with "bad_action" and the message `what`. */
int game_bad_action(game_error_t *err, const char *what);
/* game_fail() with "internal". */
int game_no_memory(game_error_t *err);

/* --- building views and dumps (game.c) --- */

/* The end of a game's view_public(): the game's result() under "result",
   its last key, once the game is over. */
void game_write_result(const game_t *g, jw_t *w);
/* A seat, or null for a negative one (nobody). Inline: a literal key's
   length is folded (jw_int()), as a view writes two or three per change. */
static inline void game_write_seat(jw_t *w, const char *key, int seat)
{
    if (seat >= 0)
        jw_int(w, key, seat);
    else
        jw_null(w, key);
}
/* "players": for each seat an object {"seat": s, then the keys player(g, s, w)
   writes}: what every game's public view shows of each player. */
void game_write_players(const game_t *g, jw_t *w, game_seat_write_fn *player);
/* The generator's state, for dumps. */
json_t *game_rng_json(const rng_t *r);
/* The index of `name` among names[0..n-1], compared without case, or -1 (card names). */
int game_name_index(const char *name, const char *const *names, int n);
/* The names of cards[0..n-1] (static ASCII) as an array; a NULL name is left out. */
json_t *game_cards_json(const uint8_t *cards, int n, const char *(*name)(uint8_t));
void game_write_cards(jw_t *w, const char *key, const uint8_t *cards, int n,
                      const char *(*name)(uint8_t));

/* --- audits and test constructors (game.c) --- */

/* count[c]++ for every card c of cards[0..n-1] (an audit's tally). */
void game_count_cards(int *count, const uint8_t *cards, int n);
/* Take the topmost c out of cards[0..*n-1], the others keeping their order:
   false when there is none. */
bool game_take_card(uint8_t *cards, int *n, uint8_t c);
/*
 * The cards named in `names` (separated by blanks or commas; NULL for none),
 * each read by `parse`, into out[0..max-1]: their count, or -1 for a name
 * `parse` refuses or more than max.
 */
int game_parse_cards(const char *names, int (*parse)(const char *), int *out, int max);

#endif
