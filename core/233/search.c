/*
 * search.c — what the kit's search (core/search.h) needs of 233: a state
 * drawn from one seat's view, the value of a state, and its stage (the
 * round).
 *
 * What a view hides: the other hands, the draw pile and the discard pile
 * under its top card. The unseen cards are the deck less the viewer's hand,
 * the melds, the gifts laid in front of the players, a drawn gift being placed
 * (public) and the top discard; they are dealt at random to the other hands
 * (never a gift: a gift in hand is public), the discard pile under its top and
 * the draw pile. The view's dispute_ms is kept (within the option's range);
 * the options a view does not show (max_rebuilds, claim_sequences, declare)
 * take their defaults; a table with claims pending (whose melds only their
 * makers know) is not drawn.
 */
#include <stddef.h>
#include <string.h>

#include "core/233/internal.h"
#include "core/search.h"

static const char *view_str(const json_t *v, const char *key)
{
    return json_string_value(json_object_get(v, key));
}

/* The kind of a laid meld's cards (the largest that fits), or -1. */
static int meld_kind(const g233_card_t *cards, int n)
{
    for (int k = G233_GROUP_SQUARE; k >= G233_GROUP_DOUBLE; k--)
        if (g233_group_check((g233_group_kind_t)k, cards, n)) return k;
    return -1;
}

static game_t *g233_from_view(const json_t *view, rng_t *rng)
{
    static const char *const phases[] = {"draw", "gift", "discard", "over"};
    int n = (int)json_array_size(json_object_get(view, "players"));
    int seat = game_search_int(view, "seat");
    int phase = game_name_index(view_str(view, "phase"), phases, 4);
    if (n < 2 || n > G233_MAX_SEATS || seat < 0 || seat >= n || phase < 0 ||
        phase == G233_PH_OVER || json_array_size(json_object_get(view, "claims")))
        return NULL;
    g233_t *g = game_state_new(sizeof *g, &g233_desc, n, NULL, NULL);
    if (!g) return NULL;
    game_log_init(&g->events, G233_EVENTS);
    const json_t *window = json_object_get(view, "dispute_ms");
    json_int_t ms = json_is_integer(window) ? json_integer_value(window) : 200;
    g->dispute_ms = ms < 0 ? 0 : ms > 60000 ? 60000 : (int)ms;
    g->max_rebuilds = 3;
    g->target = game_search_int(view, "target");
    g->declare_must = true;
    rng_seed(&g->rng, rng_next(rng));
    g->round = game_search_int(view, "round");
    g->dealer = game_search_int(view, "dealer");
    g->turn = game_search_int(view, "turn");
    g->dir = game_search_int(view, "direction");
    g->rebuilds = game_search_int(view, "rebuilds");
    g->phase = (g233_phase_t)phase;
    g->must_win = json_is_true(json_object_get(view, "must_win"));
    g->drawn = phase == G233_PH_DRAW ? 0 : 1;
    g->declarer = game_search_seat(view, "declarer");
    g->declared = G233_COMBO_NONE;
    for (int c = G233_COMBO_233; c <= G233_COMBO_RAINBOW && g->declarer >= 0; c++)
        if (view_str(view, "combo") && strcmp(view_str(view, "combo"), g233_combo_name(c)) == 0)
            g->declared = (g233_combo_t)c;
    g->discarder = game_search_seat(view, "discarder");
    if (g->turn < 0 || g->turn >= n || g->dealer < 0 || g->dealer >= n) goto bad;

    /* What the view shows: every card of it taken from the deck's counts. */
    int left[G233_KINDS];
    for (int c = 0; c < G233_KINDS; c++)
        left[c] = g233_card_copies((g233_card_t)c);
    size_t i, k;
    json_t *c, *p, *m;
    json_array_foreach(json_object_get(view, "hand"), i, c)
    {
        int x = g233_card_parse(json_string_value(c));
        if (x < 0 || left[x]-- <= 0) goto bad;
        g->p[seat].hand.n[x]++;
    }
    int pending = -1; /* a drawn gift being placed: in the turn player's hand, public */
    if (phase == G233_PH_GIFT) {
        pending = g233_card_parse(view_str(view, "pending_gift"));
        if (pending < 0) goto bad;
        if (g->turn != seat && left[pending]-- <= 0) goto bad;
        if (g->turn != seat) g->p[g->turn].hand.n[pending]++;
    }
    int want[G233_MAX_SEATS] = {0};
    json_array_foreach(json_object_get(view, "players"), i, p)
    {
        g233_player_t *pl = &g->p[i];
        pl->score = game_search_int(p, "score");
        pl->gifts_plus = game_search_int(p, "gifts_plus");
        pl->gifts_minus = game_search_int(p, "gifts_minus");
        pl->last_drawn = -1;
        left[G233_CARD_GIFT_PLUS] -= pl->gifts_plus;
        left[G233_CARD_GIFT_MINUS] -= pl->gifts_minus;
        int held = game_search_int(p, "cards");
        json_array_foreach(json_object_get(p, "melds"), k, m)
        {
            g233_group_t *gr = &pl->melds[pl->nmelds];
            if (pl->nmelds >= G233_MAX_MELDS || json_array_size(m) < 2 || json_array_size(m) > 4)
                goto bad;
            size_t j;
            json_array_foreach(m, j, c)
            {
                int x = g233_card_parse(json_string_value(c));
                if (x < 0 || left[x]-- <= 0) goto bad;
                gr->cards[gr->n++] = (g233_card_t)x;
            }
            int kind = meld_kind(gr->cards, gr->n);
            if (kind < 0) goto bad;
            gr->kind = (uint8_t)kind;
            held += gr->n;
            pl->nmelds++;
        }
        /* The audit's count: 8 cards, one more per square, one more during the turn. */
        int h = g233_hand_size(&pl->hand);
        if ((int)i != seat) want[i] = game_search_int(p, "cards") - h;
        if ((int)i == seat) {
            pl->to_place = pl->hand.n[G233_CARD_GIFT_MINUS] - (pending == G233_CARD_GIFT_MINUS);
            if (phase != G233_PH_DRAW || g->discarder >= 0) pl->to_place = 0;
        }
        pl->squares = held - 8 - pl->to_place - ((int)i == g->turn && phase != G233_PH_DRAW);
        if (pl->squares < 0 || want[i] < 0) goto bad;
    }
    int top = g233_card_parse(view_str(view, "discard"));
    int ndiscard = game_search_int(view, "discard_pile"),
        ndraw = game_search_int(view, "draw_pile");
    if ((top < 0) != (ndiscard == 0) || ndiscard < 0 || ndraw < 0) goto bad;
    if (top >= 0 && left[top]-- <= 0) goto bad;
    g->open = json_is_true(json_object_get(view, "claim_open"));
    /* The last card drawn, where it may make a rainbow: a stop the view shows,
       a gift being placed. */
    if (view_str(view, "last_drawn")) g->p[seat].last_drawn = G233_CARD_STOP;
    /* Option take, which the view does not show, but a bare take offered does. */
    json_array_foreach(json_object_get(view, "legal"), i, c)
    {
        const char *t = view_str(c, "type");
        if (t && strcmp(t, "take") == 0 && !json_object_get(c, "cards") &&
            !json_object_get(c, "final"))
            g->take_draw = true;
    }
    if (pending >= 0) g->p[g->turn].last_drawn = pending;

    /* The unseen cards, shuffled: plain ones to the hands and under the top
       discard, what is left (gifts among it) to the draw pile. */
    g233_card_t pool[G233_DECK], gifts[G233_DECK];
    int npool = 0, ngifts = 0;
    for (int x = 0; x < G233_KINDS; x++) {
        if (left[x] < 0) goto bad;
        for (int j = 0; j < left[x]; j++) {
            if (x == G233_CARD_GIFT_PLUS || x == G233_CARD_GIFT_MINUS)
                gifts[ngifts++] = (g233_card_t)x;
            else
                pool[npool++] = (g233_card_t)x;
        }
    }
    rng_shuffle_u8(rng, pool, npool);
    for (int s = 0; s < n; s++)
        for (; want[s] > 0 && npool > 0; want[s]--)
            g->p[s].hand.n[pool[--npool]]++;
    for (; g->ndiscard < ndiscard - 1 && npool > 0; g->ndiscard++)
        g->discard[g->ndiscard] = pool[--npool];
    if (top >= 0) g->discard[g->ndiscard++] = (g233_card_t)top;
    memcpy(g->draw, pool, (size_t)npool);
    memcpy(g->draw + npool, gifts, (size_t)ngifts);
    g->ndraw = npool + ngifts;
    rng_shuffle_u8(rng, g->draw, g->ndraw);
    if (g->ndraw != ndraw || g->ndiscard != ndiscard) goto bad;
    for (int s = 0; s < n; s++)
        if (want[s]) goto bad;
    return &g->base;
bad:
    game_free(&g->base);
    return NULL;
}

/* The promise of a hand: its best grouping's points. */
static int hand_points(const g233_hand_t *h)
{
    return g233_score_best(h, NULL, NULL);
}

static double g233_value(const game_t *base, int seat)
{
    const g233_t *g = (const g233_t *)base;
    if (g->phase == G233_PH_OVER) return (g->winners >> seat & 1) ? 1e6 : -1e6;
    double best = -1e9, mine = g->p[seat].score + 0.5 * hand_points(&g->p[seat].hand);
    for (int s = 0; s < base->seats; s++) {
        if (s == seat) continue;
        double v = g->p[s].score + 0.5 * hand_points(&g->p[s].hand);
        if (v > best) best = v;
    }
    return mine - best;
}

/* "hard": 16 moves of the round searched, valued by the scores and the hands' groups
   (search.c), among at most 8 actions. */
const game_search_t g233_search = {
    .from_view = g233_from_view,
    .value = g233_value,
    .stage_at = offsetof(g233_t, round),
    .max_moves = 16,
    .playouts = 64,
    .max_actions = 8,
    .policy = g233_greedy,
};
