/*
 * search.c — what the kit's search (core/search.h) needs of As.point3: a
 * state drawn from one seat's view, the value of a state, and its stage.
 *
 * What a view hides: the other player's two cards, the face-down card (unless
 * the viewer is the starter who put it there) and the order of the stock.
 * The unseen cards are the deck less the viewer's hand, the face-up card, the
 * discards (every card of a finished deal was revealed) and the card the
 * viewer put face down; they are dealt at random to those places.
 */
#include <string.h>

#include "core/aspoint3/internal.h"
#include "core/search.h"

static int view_card(const json_t *v, const char *key)
{
    return ap3_card_parse(json_string_value(json_object_get(v, key)));
}

/* Tries at drawing the starter's cards so that greedy's choice is the one it made. */
#define INFER_TRIES 24

/*
 * The picker's draw: the starter's first two cards (a, b) and the face-down
 * card (c) are pool[n-1], pool[n-2], pool[n-3], redrawn until greedy's
 * choice (ap3_starter_value) with {a, b} is the starter's: keep, or give b
 * (a draw that is never consistent keeps the last one). After a swap the
 * starter holds a and c, and b lies face down: pool[n-2] and pool[n-3] are
 * exchanged. A greedy starter keeps strong hands and gives weak cards:
 * uniform draws ignore what its choice says.
 */
static void infer_starter(ap3_card_t *pool, int n, const ap3_card_t mine[2], int up, bool swapped,
                          rng_t *rng)
{
    ap3_card_t unseen[AP3_DECK];
    for (int t = 0; t < INFER_TRIES; t++) {
        if (t) rng_shuffle_u8(rng, pool, n);
        ap3_card_t a = pool[n - 1], b = pool[n - 2];
        ap3_card_t h[2] = {a < b ? a : b, a < b ? b : a};
        memcpy(unseen, pool, (size_t)(n - 2));
        unseen[n - 2] = mine[0];
        unseen[n - 1] = mine[1];
        long keep = ap3_starter_value(h, up, -1, unseen, n);
        long va = ap3_starter_value(h, up, a, unseen, n);
        long vb = ap3_starter_value(h, up, b, unseen, n);
        if (swapped ? vb > keep && vb >= va : keep >= va && keep >= vb) break;
    }
    if (swapped) {
        ap3_card_t t = pool[n - 2];
        pool[n - 2] = pool[n - 3];
        pool[n - 3] = t;
    }
}

static game_t *ap3_from_view(const json_t *view, rng_t *rng)
{
    static const char *const phases[] = {"swap", "pick", "over"};
    int seat = game_search_int(view, "seat");
    int phase = game_name_index(json_string_value(json_object_get(view, "phase")), phases, 3);
    if (seat < 0 || seat > 1 || phase < 0 || phase == AP3_OVER) return NULL;
    ap3_t *g = game_state_new(sizeof *g, &aspoint3_desc, 2, NULL);
    if (!g) return NULL;
    game_log_init(&g->history, 0);
    g->rounds = game_search_int(view, "rounds");
    g->target = game_search_int(view, "target");
    g->packs = game_search_int(view, "packs");
    const char *scoring = json_string_value(json_object_get(view, "pack_scoring"));
    g->pack_scoring = scoring && strcmp(scoring, "total") == 0 ? AP3_PACK_TOTAL : AP3_PACK_MANCHE;
    rng_seed(&g->rng, rng_next(rng));
    g->phase = (ap3_phase_t)phase;
    g->round = game_search_int(view, "round");
    g->deal = game_search_int(view, "deal");
    g->deal_in_pack = game_search_int(view, "deal_in_pack");
    g->pack = game_search_int(view, "pack");
    g->starter = game_search_int(view, "starter");
    json_t *by = json_object_get(view, "bonus_by");
    g->bonus_by = json_is_integer(by)                                  ? (int)json_integer_value(by)
                  : json_is_true(json_object_get(view, "bonus_spent")) ? 2
                                                                       : -1;
    for (int s = 0; s < 2; s++) {
        json_t *p = json_array_get(json_object_get(view, "players"), (size_t)s);
        g->score[s] = game_search_int(p, "score");
        g->total[s] = game_search_int(p, "total");
    }

    /* The cards: what the view shows, then the unseen ones dealt at random. */
    bool seen[AP3_DECK] = {false};
    int up = view_card(view, "up"), mine = 0;
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(view, "discards"), i, c)
    {
        int k = ap3_card_parse(json_string_value(c));
        if (k < 0 || seen[k] || g->ndiscard >= AP3_DECK) goto bad;
        seen[k] = true;
        g->discard[g->ndiscard++] = (ap3_card_t)k;
    }
    json_array_foreach(json_object_get(view, "hand"), i, c)
    {
        int k = ap3_card_parse(json_string_value(c));
        if (k < 0 || seen[k] || mine >= 2) goto bad;
        seen[k] = true;
        g->hand[seat][mine++] = (ap3_card_t)k;
    }
    if (up < 0 || seen[up] || mine != 2) goto bad;
    seen[up] = true;
    g->up = (ap3_card_t)up;
    int out = view_card(view, "swapped_out"); /* the viewer's own card put face down */
    if (out >= 0) {
        if (seen[out]) goto bad;
        seen[out] = true;
    }
    ap3_card_t pool[AP3_DECK];
    int n = 0;
    for (int k = 0; k < AP3_DECK; k++)
        if (!seen[k]) pool[n++] = (ap3_card_t)k;
    int stock = game_search_int(view, "stock");
    if (n != stock + 2 + (out >= 0 ? 0 : 1)) goto bad;
    rng_shuffle_u8(rng, pool, n);
    if (phase == AP3_PICK && seat != g->starter && out < 0 && n >= 3)
        infer_starter(pool, n, g->hand[seat], up, json_is_true(json_object_get(view, "swapped")),
                      rng);
    g->hand[1 - seat][0] = pool[--n];
    g->hand[1 - seat][1] = pool[--n];
    for (int s = 0; s < 2; s++)
        if (g->hand[s][0] > g->hand[s][1]) {
            ap3_card_t t = g->hand[s][0];
            g->hand[s][0] = g->hand[s][1];
            g->hand[s][1] = t;
        }
    g->down = out >= 0 ? (ap3_card_t)out : pool[--n];
    g->swapped_out =
        json_is_true(json_object_get(view, "swapped")) || out >= 0 ? g->down : AP3_NONE;
    memcpy(g->stock, pool, (size_t)n);
    g->nstock = n;
    return &g->base;
bad:
    game_free(&g->base);
    return NULL;
}

/* Won games count above any points; then the totals, then this round's points
   (the packs variant: deals won count as much as a pack's points). */
static double ap3_value(const game_t *base, int seat)
{
    const ap3_t *g = (const ap3_t *)base;
    int o = 1 - seat;
    if (g->phase == AP3_OVER)
        return (g->winners >> seat & 1) ? 1e6 : (g->winners >> o & 1) ? -1e6 : 0;
    double unit = g->packs ? 100 : 1;
    return (g->total[seat] - g->total[o]) * unit * (g->packs ? 10 : 1) +
           (g->score[seat] - g->score[o]) * unit;
}

static int ap3_stage(const game_t *base)
{
    return ((const ap3_t *)base)->deal;
}

/* "hard": one deal searched, every action valued by its deal's points (search.c). */
const game_search_t ap3_search = {
    .from_view = ap3_from_view,
    .value = ap3_value,
    .stage = ap3_stage,
    .max_moves = 8,
    .playouts = 512,
    .policy = ap3_greedy,
};
