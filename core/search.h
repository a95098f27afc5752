/*
 * search.h — the kit's levels of bot beyond a game's greedy strategy: "hard",
 * a determinized Monte Carlo search, and "easy", the greedy strategy with
 * mistakes. Both are pure functions of one seat's view, like every bot: their
 * randomness comes only from the rng they are given (game.h, "bots").
 *
 * The search (flat Monte Carlo over determinizations): for sample j, a state
 * consistent with the view is drawn (the game's from_view: what the view shows
 * as it shows it, what it hides drawn from the rng); each legal action is
 * applied to a copy made from the same draw, then every seat plays the game's
 * greedy strategy through the game's own apply() until the game ends, the
 * stage (deal, round) changes or max_moves were played; the game's value() of
 * the end state for the searching seat is averaged per action. Every action
 * sees the same draws (common random numbers), so the averages differ by the
 * action rather than by luck. The greedy choice, always among the actions
 * searched, is played unless another beats it clearly: by a mean difference
 * over twice its standard error on the same draws. A game whose hidden cards
 * are few may instead weigh every consistent state (`exact`).
 */
#ifndef TAPIS_CORE_SEARCH_H
#define TAPIS_CORE_SEARCH_H

#include <stddef.h>

#include "core/game.h"

/* The default playouts per move of "hard", and the most a strategy may ask. */
#define GAME_SEARCH_MAX_PLAYOUTS 100000

typedef struct game_search {
    /*
     * A state of the game consistent with `view` (one seat's view, with its
     * "seat" and "legal"): every public part as the view shows it, the viewer's
     * own cards as its "hand" shows them, the hidden cards drawn with rng from
     * those the viewer cannot place. Its clock starts at 0. NULL when the view
     * cannot be read (the search then plays the greedy choice).
     */
    game_t *(*from_view)(const json_t *view, rng_t *rng);
    /* How good g is for seat, the higher the better (points, or a win counted
       as more than any points): the value of a playout's end. */
    double (*value)(const game_t *g, int seat);
    /* The offset in the state's struct of an int that changes when a deal or
       a round ends (playouts stop there: offsetof(g233_t, round)), or 0: they
       go on to the game's end or max_moves. */
    size_t stage_at;
    int max_moves; /* a playout's most moves after the searched one */
    int playouts;  /* the default budget: playouts per move, over all actions */
    /* The most actions searched (0: all): beyond it, the greedy choice and others drawn
       at random from the legal list, so that the budget is not spread too thin. */
    int max_actions;
    /* The standard errors by which another action's mean gain over the greedy
       choice must pass 0 for the search to play it (0: 2). */
    double margin;
    game_strategy_fn *policy; /* every seat's strategy in the playouts: the game's greedy */
    /*
     * The playout of the game's own, or NULL (the kit's, through views): g played on
     * with every seat's greedy strategy read from the state, as the kit's playout
     * orders the moves, for at most max_moves moves; value(g, seat) of its end.
     * The same playout, many times cheaper.
     */
    double (*playout)(game_t *g, int seat, int max_moves, rng_t *rng);
    /* NULL, or the game's own "hard" choice among legal (a new action), made
       over every state consistent with the view, each by its likelihood,
       instead of sampled ones where few cards are hidden (As.point3); the
       budget does not apply. Its NULL leaves the choice to the search. */
    json_t *(*exact)(const json_t *view, const json_t *legal, rng_t *rng);
} game_search_t;

/*
 * The "hard" level: the action the search above chooses among `legal`
 * (view["legal"], not empty) with `budget` playouts in all (at least one per
 * action; one action is played without search). A new action object.
 */
json_t *game_search_run(const json_t *view, const json_t *legal, const game_search_t *s, int budget,
                        rng_t *rng);
/*
 * The budget a strategy names: "hard" is `def`, "hard/N" is N playouts per
 * move (1..GAME_SEARCH_MAX_PLAYOUTS); -1 when the strategy is not "hard".
 */
int game_search_budget(const char *strategy, int def);

/*
 * The "easy" level's share of greedy moves: one in GAME_EASY_GREEDY_EVERY; the
 * others are drawn at random. One mistake in three left easy as strong as
 * greedy in 233 (greedy won 51.2% of 1,000 games) and slap (51.5%): most of
 * their moves matter little, so easy has to miss often to lose clearly
 * (docs/BENCHMARKS.md, "Bot levels").
 */
#define GAME_EASY_GREEDY_EVERY 3

/*
 * The "easy" level: the greedy strategy `greedy` one move in
 * GAME_EASY_GREEDY_EVERY (drawn from rng), a uniformly drawn legal action
 * the other times.
 */
json_t *game_bot_easy(const json_t *view, const json_t *legal, rng_t *rng,
                      game_strategy_fn *greedy);

/*
 * A game's bot() with the kit's levels: NULL when view["legal"] is empty;
 * "random" is the kit's; "hard" (and "hard/N") searches with s; "easy" is
 * game_bot_easy(); anything else is the game's greedy strategy (s->policy).
 * A reaction time after the name ("hard:250") is the caller's business and
 * is left out here.
 */
json_t *game_bot_search(const json_t *view, const char *strategy, rng_t *rng,
                        const game_search_t *s);

/*
 * The next move of a table of bots, as the search's playouts and the bots'
 * benchmark play it: a seat whose move follows its last one at once
 * (game_at_once: seqnum's draw) makes it, as built-in bots do; otherwise one
 * of the seats the game waits on (drawn from order: none is favoured), unless
 * another seat with something to do (a claim, a slap) comes first, each with
 * odds of one in four, as bots racing at a table would. decide(ctx, seat,
 * view) is the seat's choice from its view (a non-empty "legal"), NULL for
 * none. The action, its seat in *actor; NULL with *actor -1 when nobody acts
 * (the table waits for a deadline).
 */
typedef json_t *game_decide_fn(void *ctx, int seat, const json_t *view);
json_t *game_search_next_move(const game_t *g, rng_t *order, game_decide_fn *decide, void *ctx,
                              int *actor);

/* --- reading a view, for from_view --- */

/* o[key] as an int (0 when it is not one). */
int game_search_int(const json_t *o, const char *key);
/* o[key] as a seat: -1 when it is null (nobody). */
int game_search_seat(const json_t *o, const char *key);
/* n cards from the end of pool[0..*npool-1] into out (pool shrinks): false when it has fewer. */
bool game_search_deal(uint8_t *out, int n, uint8_t *pool, int *npool);

#endif
