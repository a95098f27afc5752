/*
 * search.c — what the kit's search (core/search.h) needs of seqnum: a state
 * drawn from one seat's view, the value of a state (a board has no stages:
 * playouts end with the game or their move limit), and a playout of its own
 * that plays the greedy strategy on the state (seqnum_greedy_act()) rather
 * than through views: the same moves, about eight times cheaper.
 *
 * What a view hides: the other hands and the order of the draw pile. The
 * unseen cards are the deck less the viewer's hand and every discard pile
 * (played and traded cards lie face up); they are dealt at random to the
 * other hands and the pile. A pending draw's turn number is not shown: every
 * seat that owes one is taken to owe it since the last turn.
 *
 * What a view tells of the hidden hands: the other seat's last play. The
 * search takes the others for greedy players, so the hands are dealt again
 * (SEQNUM_INFER_TRIES at most) until the greedy strategy, holding the hand
 * drawn with the played card back (less a card drawn since), would have
 * made that play on the board as it was: a hand it would have blocked or
 * won with is not dealt. Read from the view's events: the play must be the
 * last one, made with no trade before it.
 */
#include <string.h>

#include "core/seqnum/internal.h"
#include "core/search.h"

/* The hands drawn at most for a state that explains the other seat's last play. */
#define SEQNUM_INFER_TRIES 30

/* Cards named in `list` into out (at most max) and out of left[]; -1 if one is unknown. */
static int take_cards(const json_t *list, uint8_t *out, int max, int *left)
{
    size_t i;
    json_t *c;
    int n = 0;
    json_array_foreach(list, i, c)
    {
        int k = seqnum_card_parse(json_string_value(c));
        if (k < 0 || n >= max || left[k]-- <= 0) return -1;
        out[n++] = (uint8_t)k;
    }
    return n;
}

/* The last play seen (a chip placed or removed), that the drawn state must explain. */
typedef struct seqnum_seen {
    int seat, card, cell;
    int removed; /* the team whose chip a minus removed, or -1 for a placed chip */
    bool drew;   /* the seat has drawn since */
} seqnum_seen_t;

/* Is e the event `what` (of seat, or of anyone when seat is -2)? */
static bool did(const json_t *e, const char *what, int seat)
{
    const char *d = json_string_value(json_object_get(e, "did"));
    return d && strcmp(d, what) == 0 && (seat == -2 || game_search_seat(e, "seat") == seat);
}

/*
 * The last event that placed or removed a chip, when another seat's, made
 * with no trade before it and nothing played since.
 */
static bool last_play(const json_t *view, int me, seqnum_seen_t *seen)
{
    const json_t *ev = json_object_get(view, "events");
    size_t n = json_array_size(ev);
    for (size_t i = n; i-- > 0;) {
        const json_t *e = json_array_get(ev, i);
        if (!did(e, "play", -2) && !did(e, "remove", -2)) continue;
        seen->seat = game_search_seat(e, "seat");
        seen->card = seqnum_card_parse(json_string_value(json_object_get(e, "card")));
        seen->cell = game_search_int(e, "cell");
        seen->removed = did(e, "remove", -2) ? game_search_int(e, "team") : -1;
        seen->drew = false;
        if (seen->seat < 0 || seen->seat == me || seen->card < 0 || seen->cell < 0 ||
            seen->cell >= SEQNUM_CELLS)
            return false;
        for (size_t k = i + 1; k < n; k++)
            seen->drew |= did(json_array_get(ev, k), "draw", seen->seat);
        if (i == 0) return n < SEQNUM_EVENTS; /* what came before is known: nothing */
        return !did(json_array_get(ev, i - 1), "trade", seen->seat);
    }
    return false;
}

/*
 * Would greedy have made the play seen with the hand g deals its seat? The
 * board before it, and the hand less a card drawn since (one drawn at random).
 */
static bool consistent(const seqnum_t *g, const seqnum_seen_t *seen, rng_t *rng)
{
    seqnum_t prev = *g;
    prev.chip[seen->cell] = (int8_t)(seen->removed >= 0 ? seen->removed : SEQNUM_NO_CHIP);
    prev.turn = seen->seat;
    prev.traded = true;
    prev.over = false;
    seqnum_player_t *p = &prev.p[seen->seat];
    p->owe = -1;
    if (seen->drew && p->nhand > 0)
        seqnum_hand_remove(p, p->hand[rng_below(rng, (uint32_t)p->nhand)]);
    if (p->nhand >= SEQNUM_MAX_HAND) return true;
    seqnum_hand_add(p, seen->card);
    seqnum_act_t a;
    seqnum_greedy_act(&prev, seen->seat, &a);
    return a.type == SEQNUM_ACT_PLAY && a.card == seen->card && a.cell == seen->cell;
}

static game_t *seqnum_from_view(const json_t *view, rng_t *rng)
{
    int n = (int)json_array_size(json_object_get(view, "players"));
    int seat = game_search_int(view, "seat");
    if (n < 2 || n > SEQNUM_MAX_SEATS || seat < 0 || seat >= n ||
        json_is_true(json_object_get(view, "over")) ||
        json_array_size(json_object_get(view, "chips")) != SEQNUM_CELLS)
        return NULL;
    seqnum_t *g = game_state_new(sizeof *g, &seqnum_desc, n, NULL, NULL);
    if (!g) return NULL;
    game_log_init(&g->events, SEQNUM_EVENTS);
    g->nteams = game_search_int(view, "teams");
    g->goal = game_search_int(view, "goal");
    g->deal = n <= 3 ? 5 : 4;
    g->max_turns = game_search_int(view, "max_turns");
    g->winner = -1;
    rng_seed(&g->rng, rng_next(rng));
    g->turn = game_search_int(view, "turn");
    g->turns = game_search_int(view, "turns");
    g->traded = json_is_true(json_object_get(view, "traded"));
    g->reshuffles = game_search_int(view, "reshuffles");
    if (g->nteams < 2 || g->turn < 0 || g->turn >= n) goto bad;
    for (int c = 0; c < SEQNUM_CELLS; c++)
        g->chip[c] =
            (int8_t)json_integer_value(json_array_get(json_object_get(view, "chips"), (size_t)c));
    size_t i, k;
    json_t *q, *c;
    json_array_foreach(json_object_get(view, "sequences"), i, q)
    {
        if (g->nseqs >= SEQNUM_MAX_SEQS) goto bad;
        seqnum_seq_t *s = &g->seqs[g->nseqs++];
        s->team = game_search_int(q, "team");
        json_array_foreach(json_object_get(q, "cells"), k, c) if (k < 5) s->cells[k] =
            (int)json_integer_value(c);
    }

    int left[SEQNUM_KINDS];
    for (int x = 0; x < SEQNUM_KINDS; x++)
        left[x] = seqnum_copies(x);
    int want[SEQNUM_MAX_SEATS] = {0};
    json_array_foreach(json_object_get(view, "players"), i, q)
    {
        seqnum_player_t *p = &g->p[i];
        p->max_cards = game_search_int(q, "max_cards");
        p->lapsed = game_search_int(q, "lapsed");
        p->owe = json_is_true(json_object_get(q, "owes_draw")) ? g->turns - 1 : -1;
        p->ndiscards = take_cards(json_object_get(q, "discards"), p->discards, SEQNUM_DECK, left);
        if (p->ndiscards < 0) goto bad;
        want[i] = game_search_int(q, "cards");
        if (want[i] < 0 || want[i] > SEQNUM_MAX_HAND) goto bad;
    }
    uint8_t mine[SEQNUM_MAX_HAND + 1];
    int nmine = take_cards(json_object_get(view, "hand"), mine, SEQNUM_MAX_HAND, left);
    if (nmine < 0 || nmine != want[seat]) goto bad;
    for (int j = 0; j < nmine; j++)
        seqnum_hand_add(&g->p[seat], mine[j]);
    want[seat] = 0;
    uint8_t pool[SEQNUM_DECK];
    int npool = 0;
    for (int x = 0; x < SEQNUM_KINDS; x++)
        for (int j = 0; j < left[x]; j++)
            pool[npool++] = (uint8_t)x;
    seqnum_seen_t seen = {0};
    bool infer = last_play(view, seat, &seen);
    for (int t = 0;; t++) {
        uint8_t deck[SEQNUM_DECK];
        int ndeck = npool, need[SEQNUM_MAX_SEATS];
        memcpy(deck, pool, (size_t)npool);
        memcpy(need, want, sizeof need);
        rng_shuffle_u8(rng, deck, ndeck);
        for (int s = 0; s < n; s++) {
            if (s == seat) continue;
            g->p[s].nhand = 0;
            for (; need[s] > 0 && ndeck > 0; need[s]--)
                seqnum_hand_add(&g->p[s], deck[--ndeck]);
            if (need[s]) goto bad;
        }
        memcpy(g->draw, deck, (size_t)ndeck);
        g->ndraw = ndeck;
        if (!infer || t + 1 >= SEQNUM_INFER_TRIES || consistent(g, &seen, rng)) break;
    }
    if (g->ndraw != game_search_int(view, "draw_pile")) goto bad;
    return &g->base;
bad:
    game_free(&g->base);
    return NULL;
}

/*
 * A won game above anything; then sequences, then every line of five cells
 * that only one team holds chips in, by 4 to the power of its chips (a free
 * corner counts for every team): the lines nearest to a sequence weigh most.
 */
static double seqnum_value(const game_t *base, int seat)
{
    const seqnum_t *g = (const seqnum_t *)base;
    int team = seqnum_team(g, seat);
    if (g->over) return g->winner == team ? 1e6 : g->winner < 0 ? 0 : -1e6;
    static const int dir[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
    double v = 0;
    for (int t = 0; t < g->nteams; t++)
        v += (t == team ? 1 : -1) * 5000.0 * seqnum_team_sequences(g, t);
    for (int r = 0; r < SEQNUM_SIDE; r++)
        for (int c = 0; c < SEQNUM_SIDE; c++)
            for (int d = 0; d < 4; d++) {
                int er = r + 4 * dir[d][0], ec = c + 4 * dir[d][1];
                if (er >= SEQNUM_SIDE || ec < 0 || ec >= SEQNUM_SIDE) continue;
                int owner = -1, count = 0;
                bool mixed = false;
                for (int k = 0; k < 5 && !mixed; k++) {
                    int cell = (r + k * dir[d][0]) * SEQNUM_SIDE + c + k * dir[d][1];
                    int chip = g->chip[cell];
                    if (seqnum_corner(cell)) {
                        count++;
                    } else if (chip != SEQNUM_NO_CHIP) {
                        if (owner >= 0 && owner != chip) mixed = true;
                        owner = chip;
                        count++;
                    }
                }
                if (mixed || owner < 0) continue;
                double w = 1;
                for (int k = 0; k < count; k++)
                    w *= 4;
                v += owner == team ? w : -w;
            }
    return v;
}

/*
 * The kit's playout (core/search.c) on the state itself: a pending draw first
 * (bots draw at once), then the turn seat's greedy move.
 */
static double seqnum_playout(game_t *base, int seat, int max_moves, rng_t *rng)
{
    (void)rng;
    seqnum_t *g = (seqnum_t *)base;
    for (int m = 0; m < max_moves && !g->over; m++) {
        seqnum_act_t a = {.type = SEQNUM_ACT_DRAW, .card = -1, .cell = -1};
        int actor = -1;
        for (int s = 0; s < base->seats && actor < 0; s++)
            if (g->p[s].owe >= 0) actor = s;
        if (actor < 0) seqnum_greedy_act(g, actor = g->turn, &a);
        seqnum_run(g, actor, &a);
    }
    return seqnum_value(base, seat);
}

/*
 * "hard": 480 playouts over at most 12 actions, 24 moves ahead each, valued by
 * the lines of the board; another action than greedy's is played when it
 * gains by one standard error (docs/BENCHMARKS.md, "Bot levels").
 */
const game_search_t seqnum_search = {
    .from_view = seqnum_from_view,
    .value = seqnum_value,
    .max_moves = 24,
    .playouts = 480,
    .max_actions = 12,
    .margin = 1,
    .policy = seqnum_greedy,
    .playout = seqnum_playout,
};
