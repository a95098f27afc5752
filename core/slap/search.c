/*
 * search.c — what the kit's search (core/search.h) needs of slap: a state
 * drawn from one seat's view, the value of a state, and its stage (the
 * round).
 *
 * What a view hides: the draw piles, the face-down cards of the columns, the
 * discard piles under their tops (face up, but a view shows only the top),
 * the boxed piles and the leftovers. The unseen cards are the deck less every
 * top the view shows; they are dealt at random to those places, in the sizes
 * the view gives. Times are moved so that the view's "now" is 0; go_ms and
 * stall_ms, which a view does not show, take their defaults.
 */
#include <stddef.h>
#include <string.h>

#include "core/slap/internal.h"
#include "core/search.h"

static int64_t view_time(const json_t *v, const char *key, int64_t now)
{
    json_t *t = json_object_get(v, key);
    return json_is_integer(t) ? json_integer_value(t) - now : SLAP_UNSET;
}

/* Take the named card out of left[]: its kind, or -1. */
static int take(const json_t *name, int *left)
{
    int c = slap_card_parse(json_string_value(name));
    return c >= 0 && left[c]-- > 0 ? c : -1;
}

static game_t *slap_from_view(const json_t *view, rng_t *rng)
{
    static const char *const phases[] = {"setup", "play", "race", "over"};
    const json_t *players = json_object_get(view, "players"),
                 *piles = json_object_get(view, "piles");
    int n = (int)json_array_size(players), seat = game_search_int(view, "seat");
    int phase = game_name_index(json_string_value(json_object_get(view, "phase")), phases, 4);
    if (n < 2 || n > SLAP_MAX_SEATS || seat < 0 || seat >= n || phase < 0 || phase == SLAP_OVER ||
        (int)json_array_size(piles) != n)
        return NULL;
    slap_t *g = game_state_new(sizeof *g, &slap_desc, n, NULL, NULL);
    if (!g) return NULL;
    game_log_init(&g->events, SLAP_EVENTS);
    g->go_ms = 1000;
    g->stall_ms = 1500;
    g->max_stalls = game_search_int(view, "max_stalls");
    g->max_rounds = game_search_int(view, "max_rounds");
    rng_seed(&g->rng, rng_next(rng));
    g->round = game_search_int(view, "round");
    g->stalls = game_search_int(view, "stalls");
    g->phase = (slap_phase_t)phase;
    int64_t now = json_integer_value(json_object_get(view, "now"));
    g->now = 0;
    g->go_at = view_time(view, "go_at", now);
    g->stall_at = view_time(view, "stall_at", now);
    g->first = game_search_seat(view, "first");

    /* The tops the view shows, then the unseen cards dealt under them. */
    int left[SLAP_KINDS];
    for (int c = 0; c < SLAP_KINDS; c++)
        left[c] = SLAP_COPIES;
    int pile_top[SLAP_MAX_SEATS], col_top[SLAP_MAX_SEATS][SLAP_COLUMNS];
    for (int k = 0; k < n; k++) {
        const json_t *pk = json_array_get(piles, (size_t)k), *top = json_object_get(pk, "top");
        g->pile[k].n = game_search_int(pk, "cards");
        g->pile[k].taken_by = game_search_seat(pk, "taken_by");
        pile_top[k] = json_is_null(top) ? -1 : take(top, left);
        if ((pile_top[k] < 0) != (g->pile[k].n == 0) || g->pile[k].n < 0 ||
            g->pile[k].n > SLAP_DECK)
            goto bad;
        const json_t *p = json_array_get(players, (size_t)k);
        slap_player_t *pl = &g->p[k];
        pl->ndraw = game_search_int(p, "draw");
        pl->slapped = game_search_seat(p, "slapped");
        for (int c = 0; c < SLAP_COLUMNS; c++) {
            slap_column_t *col = &pl->col[c];
            const json_t *t = json_array_get(json_object_get(p, "tops"), (size_t)c);
            col->n =
                (int)json_integer_value(json_array_get(json_object_get(p, "sizes"), (size_t)c));
            col->up = !json_is_null(t);
            col_top[k][c] = col->up ? take(t, left) : -1;
            if (col->n < 0 || col->n > SLAP_COLUMN_MAX ||
                (col->up && (col_top[k][c] < 0 || !col->n)))
                goto bad;
        }
        if (pl->ndraw < 0 || pl->ndraw > SLAP_DECK) goto bad;
    }
    slap_card_t pool[SLAP_DECK];
    int npool = 0;
    for (int c = 0; c < SLAP_KINDS; c++) {
        if (left[c] < 0) goto bad;
        for (int i = 0; i < left[c]; i++)
            pool[npool++] = (slap_card_t)c;
    }
    rng_shuffle_u8(rng, pool, npool);
    for (int k = 0; k < n; k++) {
        slap_pile_t *pk = &g->pile[k];
        if (pk->n && !game_search_deal(pk->cards, pk->n - 1, pool, &npool)) goto bad;
        if (pk->n) pk->cards[pk->n - 1] = (slap_card_t)pile_top[k];
        slap_player_t *pl = &g->p[k];
        for (int c = 0; c < SLAP_COLUMNS; c++) {
            slap_column_t *col = &pl->col[c];
            if (!game_search_deal(col->cards, col->n - (col->up ? 1 : 0), pool, &npool)) goto bad;
            if (col->up) col->cards[col->n - 1] = (slap_card_t)col_top[k][c];
        }
        if (!game_search_deal(pl->draw, pl->ndraw, pool, &npool)) goto bad;
    }
    g->nbox = game_search_int(view, "box");
    g->nout = game_search_int(view, "out");
    if (!game_search_deal(g->box, g->nbox, pool, &npool) ||
        !game_search_deal(g->out, g->nout, pool, &npool) || npool)
        goto bad;
    return &g->base;
bad:
    game_free(&g->base);
    return NULL;
}

/* A won game above anything; then the fewest cards held: mine against the best other's. */
static double slap_search_value(const game_t *base, int seat)
{
    const slap_t *g = (const slap_t *)base;
    if (g->phase == SLAP_OVER)
        return (g->winners >> seat & 1) ? (g->winners == 1u << seat ? 1e6 : 0) : -1e6;
    int best = SLAP_DECK + 1;
    for (int s = 0; s < base->seats; s++)
        if (s != seat && slap_cards_held(g, s) < best) best = slap_cards_held(g, s);
    return best - slap_cards_held(g, seat);
}

/*
 * "hard": 6 moves of the round searched (search.c). Short playouts value a
 * move by what it opens at once (the cards it uncovers, the plays it leaves
 * the other seats): playouts of 30 moves, most of the round, drowned that in
 * the race's later luck, and hard won 55% of games against normal. Another
 * action than greedy's is played when it gains by one standard error (not
 * two): with 6 moves and two, hard won 58.8% of 400 games; with one, over
 * 60% (docs/BENCHMARKS.md, "Bot levels"), at a fifth of the former cost.
 */
const game_search_t slap_search = {
    .from_view = slap_from_view,
    .value = slap_search_value,
    .stage_at = offsetof(slap_t, round),
    .max_moves = 6,
    .playouts = 48,
    .max_actions = 8,
    .margin = 1,
    .policy = slap_greedy,
};
