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
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/aspoint3/internal.h"
#include "core/search.h"
#include "include/tapis_alloc.h"

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
    ap3_t *g = game_state_new(sizeof *g, &aspoint3_desc, 2, NULL, NULL);
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
/* The spread of one deal's margin (greedy against greedy: 28.5 points over
   16,089 deals), a round's deals (13.4) and the points the leader makes a
   deal (about 350 / 13.4): the win chance's model below. */
#define DEAL_SD 28.5
#define ROUND_DEALS 13.4
#define LEAD_PACE 26.0

/*
 * The chance that `seat` wins a points game in which, after a deal, it leads
 * by `lead` points over the game (the totals and this round's scores, whose
 * difference the round's winner will score), the round's scores being sc[]:
 * the margin of the deals left taken as normal, DEAL_SD a deal, as many
 * deals left as the leader needs to pass the target and the rounds after
 * take. A score over the target in the last round ends the game.
 */
static double win_chance(const ap3_t *g, double lead, const int sc[2])
{
    int most = sc[0] > sc[1] ? sc[0] : sc[1];
    double left = (g->rounds - g->round) * ROUND_DEALS;
    if (most <= g->target)
        left += (g->target - most) / LEAD_PACE + 0.5;
    else if (g->round >= g->rounds)
        return lead > 0 ? 1 : lead < 0 ? 0 : 0.5;
    return 0.5 * erfc(-lead / (DEAL_SD * sqrt(left) * M_SQRT2));
}

/*
 * The points game: the chance to win the game (a won game 1, a shared one
 * 0.5), so that a lead is kept safe and a late deficit taken risks for. The
 * packs variant: won games above any points, then the packs, then the deals
 * won on this one.
 */
static double ap3_value(const game_t *base, int seat)
{
    const ap3_t *g = (const ap3_t *)base;
    int o = 1 - seat;
    if (g->phase == AP3_OVER && !g->packs)
        return (g->winners >> seat & 1) ? ((g->winners >> o & 1) ? 0.5 : 1) : 0;
    if (g->phase == AP3_OVER)
        return (g->winners >> seat & 1) ? 1e6 : (g->winners >> o & 1) ? -1e6 : 0;
    if (!g->packs)
        return win_chance(g, g->total[seat] - g->total[o] + g->score[seat] - g->score[o], g->score);
    return (g->total[seat] - g->total[o]) * 1000.0 + (g->score[seat] - g->score[o]) * 100.0;
}

/* Points a deal can give a seat: three aces, or a lost challenge's face-up ace and 5. */
#define MAX_DEAL_POINTS 128

/* The value for `seat` of the deal's points: `mine` to it, `theirs` to the other. */
typedef struct {
    const ap3_t *g;
    int seat;
    bool margin;  /* the lead it leaves (the 210 rule counted), not the win chance */
    double *memo; /* [mine * MAX_DEAL_POINTS + theirs], NaN until computed */
} deal_values_t;

static double deal_value(deal_values_t *dv, int mine, int theirs)
{
    double *at = &dv->memo[mine * MAX_DEAL_POINTS + theirs];
    if (!isnan(*at)) return *at;
    const ap3_t *g = dv->g;
    int seat = dv->seat, o = 1 - seat, sc[2];
    sc[seat] = g->score[seat] + mine;
    sc[o] = g->score[o] + theirs;
    /* The 210 rule (aspoint3.c): the first to reach it gives 30 to an opponent under 200. */
    if (g->bonus_by < 0 && (sc[0] >= AP3_BONUS_AT) != (sc[1] >= AP3_BONUS_AT)) {
        int other = sc[0] >= AP3_BONUS_AT ? 1 : 0;
        if (sc[other] < AP3_BONUS_UNDER) sc[other] += AP3_BONUS;
    }
    double lead = g->total[seat] - g->total[o] + sc[seat] - sc[o];
    *at = dv->margin ? lead : win_chance(g, lead, sc);
    return *at;
}

/*
 * greedy's choice as the starter holding h (sorted) with the face-up card up,
 * the cards it cannot see unseen[0..n-1]: -1 keep, else the card it gives
 * (ties go as in greedy: keep first, then the lower card).
 */
static int starter_choice(const ap3_card_t h[2], int up, const ap3_card_t *unseen, int n)
{
    long keep = ap3_starter_value(h, up, -1, unseen, n);
    long v0 = ap3_starter_value(h, up, h[0], unseen, n);
    long v1 = ap3_starter_value(h, up, h[1], unseen, n);
    if (keep >= v0 && keep >= v1) return -1;
    return v0 >= v1 ? h[0] : h[1];
}

/* The three cards' points of a and b with c. */
static int points3(ap3_card_t a, ap3_card_t b, ap3_card_t c)
{
    ap3_card_t x[3] = {a, b, c};
    return ap3_points(x, 3);
}

/*
 * The value for `seat` of one deal's end: the picker holds ph, the starter sh
 * (after any swap), the centre cards up and down; the picker took the face-up
 * card (a challenge) or not.
 */
static double outcome(deal_values_t *dv, bool picker, const ap3_card_t ph[2],
                      const ap3_card_t sh[2], ap3_card_t up, ap3_card_t down, bool challenge)
{
    int p = points3(ph[0], ph[1], challenge ? up : down);
    int s = points3(sh[0], sh[1], challenge ? down : up);
    if (challenge && p <= s)
        s += ap3_card_value(up) + AP3_CHALLENGE_EXTRA;
    else if (challenge)
        s = 0;
    return picker ? deal_value(dv, p, s) : deal_value(dv, s, p);
}

/* The cards the holder of pool[x] and pool[y] cannot see: the rest of pool
   in out[0..m-1], then the other seat's hand h; returns m (n - 2). */
static int unseen_by(const ap3_card_t *pool, int n, int x, int y, const ap3_card_t h[2],
                     ap3_card_t *out)
{
    int m = 0;
    for (int k = 0; k < n; k++)
        if (k != x && k != y) out[m++] = pool[k];
    out[m] = h[0];
    out[m + 1] = h[1];
    return m;
}

/* The starter: the sums of keep, give h[0] and give h[1] over every hand the
   other player may hold and every face-down card, greedy picking; the deals. */
static long exact_starter(deal_values_t *dv, const ap3_card_t h[2], ap3_card_t up,
                          const ap3_card_t *pool, int n, rng_t *rng, double sum[3])
{
    long deals = 0;
    ap3_card_t pu[AP3_DECK];
    for (int x = 0; x < n; x++)
        for (int y = x + 1; y < n; y++) {
            ap3_card_t ph[2] = {pool[x], pool[y]};
            int m = unseen_by(pool, n, x, y, h, pu);
            bool ch = ap3_picker_challenges(ph, up, pu, m + 2, false, rng);
            for (int z = 0; z < n; z++) {
                if (z == x || z == y) continue;
                ap3_card_t c = pool[z];
                sum[0] += outcome(dv, false, ph, h, up, c, ch);
                ap3_card_t s0[2] = {h[1], c}, s1[2] = {h[0], c};
                sum[1] += outcome(dv, false, ph, s0, up, h[0], ch);
                sum[2] += outcome(dv, false, ph, s1, up, h[1], ch);
                deals++;
            }
        }
    return deals;
}

/* The picker: the sums of the face-down card and of the challenge over every
   deal that fits the starter's keep or swap (as greedy would have made it);
   the deals. */
static long exact_picker(deal_values_t *dv, const ap3_card_t h[2], ap3_card_t up,
                         const ap3_card_t *pool, int n, bool swapped, double sum[2])
{
    long deals = 0;
    ap3_card_t su[AP3_DECK];
    for (int x = 0; x < n; x++)
        for (int y = x + 1; y < n; y++) {
            ap3_card_t sh[2] = {pool[x], pool[y]}; /* sorted, as pool is */
            int m = unseen_by(pool, n, x, y, h, su);
            int give = starter_choice(sh, up, su, m + 2);
            if ((give >= 0) != swapped) continue;
            for (int z = 0; z < m; z++) {
                ap3_card_t hold[2] = {sh[0], sh[1]}, down = su[z];
                if (give >= 0) {
                    hold[sh[0] == give ? 0 : 1] = down;
                    down = (ap3_card_t)give;
                }
                sum[0] += outcome(dv, true, h, hold, up, down, false);
                sum[1] += outcome(dv, true, h, hold, up, down, true);
                deals++;
            }
        }
    return deals;
}

int ap3_exact_means(const json_t *view, bool margin, rng_t *rng, double mean[3], ap3_act_t act[3])
{
    if (game_search_int(view, "packs")) return 0;
    rng_t scratch; /* its hidden cards are not read */
    rng_seed(&scratch, 1);
    ap3_t *g = (ap3_t *)ap3_from_view(view, &scratch); /* the public part and the hand */
    double *memo = g ? tapis_malloc(MAX_DEAL_POINTS * MAX_DEAL_POINTS * sizeof *memo) : NULL;
    if (!memo) {
        if (g) game_free(&g->base);
        return 0;
    }
    for (int k = 0; k < MAX_DEAL_POINTS * MAX_DEAL_POINTS; k++)
        memo[k] = NAN;
    int seat = game_search_int(view, "seat");
    deal_values_t dv = {g, seat, margin, memo};
    bool known[AP3_DECK] = {false};
    ap3_card_t h[2] = {g->hand[seat][0], g->hand[seat][1]}, pool[AP3_DECK];
    known[h[0]] = known[h[1]] = known[g->up] = true;
    for (int k = 0; k < g->ndiscard; k++)
        known[g->discard[k]] = true;
    int n = 0;
    for (int k = 0; k < AP3_DECK; k++)
        if (!known[k]) pool[n++] = (ap3_card_t)k;
    int m = 0;
    long deals = 0;
    for (int k = 0; k < 3; k++)
        mean[k] = 0;
    if (g->phase == AP3_PICK && seat != g->starter) {
        m = 2;
        deals = exact_picker(&dv, h, g->up, pool, n, g->swapped_out != AP3_NONE, mean);
        for (int k = 0; k < 2; k++)
            act[k] = (ap3_act_t){.type = AP3_ACT_PICK, .card = -1, .up = k == 1};
    } else if (g->phase == AP3_SWAP && seat == g->starter) {
        m = 3;
        deals = exact_starter(&dv, h, g->up, pool, n, rng, mean);
        act[0] = (ap3_act_t){.type = AP3_ACT_KEEP, .card = -1};
        for (int k = 0; k < 2; k++)
            act[k + 1] = (ap3_act_t){.type = AP3_ACT_SWAP, .card = h[k]};
    }
    for (int k = 0; k < m; k++)
        mean[k] = deals ? mean[k] / (double)deals : 0;
    tapis_free(memo);
    game_free(&g->base);
    return m;
}

/*
 * The points game's "hard" move, over every deal the view allows rather than
 * sampled ones (core/search.h, `exact`): the other hand, the face-down card,
 * each as likely as another, the other seat playing greedy (whose keep or
 * swap tells the picker which hands the starter may hold), each end valued
 * by the chance to win the game. The first best of the legal ones (keep
 * before a swap, the face-down card before the challenge).
 * NULL for the packs variant (the search plays it).
 */
static json_t *ap3_exact(const json_t *view, const json_t *legal, rng_t *rng)
{
    double mean[3] = {0, 0, 0};
    ap3_act_t act[3];
    int m = ap3_exact_means(view, false, rng, mean, act);
    if (m < 2 || json_array_size(legal) != (size_t)m) return NULL;
    int best = 0;
    for (int k = 1; k < m; k++)
        if (mean[k] > mean[best]) best = k;
    return ap3_act_json(&act[best]);
}

/* "hard": the points game's deal weighed over every hidden deal (ap3_exact),
   the packs variant's searched to the deal's end (core/search.c). */
const game_search_t ap3_search = {
    .from_view = ap3_from_view,
    .value = ap3_value,
    .stage_at = offsetof(ap3_t, deal),
    .max_moves = 8,
    .playouts = 512,
    .policy = ap3_greedy,
    .exact = ap3_exact,
};
