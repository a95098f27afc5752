/*
 * bot.c — the As.point3 bot: a pure function of one seat's view (never the
 * state). The server's built-in bots and tapis-bot both call it.
 *
 * "random" is the kit's (a uniformly drawn legal action). "greedy" compares its hand's
 * value with the expected value of the cards it cannot see: the unseen cards
 * are those of the deck minus its hand, the face-up card, the discard pile
 * (every card of it was revealed) and the card it put face down, if any.
 *
 *   starter: for keep and each swap, the expected points of its three cards,
 *            the other player leaving it the face-up or the face-down card with
 *            equal odds, over every possible face-down card;
 *   picker:  samples the starter's hidden cards and the face-down card from the
 *            unseen ones and compares taking the face-down card with the
 *            challenge, by expected margin (points game) or by the odds of
 *            winning the deal (packs variant).
 */
#include <string.h>

#include "core/aspoint3/internal.h"
#include "core/search.h"

#define SAMPLES 96

static const char *str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static json_t *pick(const json_t *a)
{
    return a ? json_deep_copy(a) : NULL;
}

/* The cards this view cannot see (unseen[] gets them; returns their count). */
static int unseen_cards(const json_t *view, ap3_card_t *unseen)
{
    bool known[AP3_DECK] = {false};
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(view, "hand"), i, c)
    {
        int k = ap3_card_parse(json_string_value(c));
        if (k >= 0) known[k] = true;
    }
    json_array_foreach(json_object_get(view, "discards"), i, c)
    {
        int k = ap3_card_parse(json_string_value(c));
        if (k >= 0) known[k] = true;
    }
    int k = ap3_card_parse(str(view, "up"));
    if (k >= 0) known[k] = true;
    k = ap3_card_parse(str(view, "swapped_out"));
    if (k >= 0) known[k] = true;
    int n = 0;
    for (int c2 = 0; c2 < AP3_DECK; c2++)
        if (!known[c2]) unseen[n++] = (ap3_card_t)c2;
    return n;
}

static int read_hand(const json_t *view, ap3_card_t *h)
{
    int n = 0;
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(view, "hand"), i, c)
    {
        int k = ap3_card_parse(json_string_value(c));
        if (k >= 0 && n < 2) h[n++] = (ap3_card_t)k;
    }
    return n;
}

long ap3_starter_value(const ap3_card_t h[2], int up, int give, const ap3_card_t *unseen, int n)
{
    long v = 0;
    for (int d = 0; d < n; d++) {
        ap3_card_t x[3];
        if (give < 0) {
            x[0] = h[0], x[1] = h[1];
            x[2] = (ap3_card_t)up;
            v += ap3_points(x, 3);
            x[2] = unseen[d];
            v += ap3_points(x, 3);
        } else {
            x[0] = h[0] == give ? h[1] : h[0];
            x[1] = unseen[d];
            x[2] = (ap3_card_t)up; /* the picker takes the given card */
            v += ap3_points(x, 3);
            x[2] = (ap3_card_t)give; /* the picker takes the face-up card */
            v += ap3_points(x, 3);
        }
    }
    return v;
}

/* The starter: keep, or give up one card for the unseen face-down one. */
static json_t *greedy_starter(const json_t *view, const json_t *legal)
{
    ap3_card_t h[2], unseen[AP3_DECK];
    int up = ap3_card_parse(str(view, "up"));
    if (read_hand(view, h) != 2 || up < 0) return pick(json_array_get(legal, 0));
    int n = unseen_cards(view, unseen);
    const json_t *best = NULL;
    long best_v = -1;
    size_t i;
    json_t *a;
    json_array_foreach(legal, i, a)
    {
        bool keep = strcmp(str(a, "type"), "keep") == 0;
        long v = ap3_starter_value(h, up, keep ? -1 : ap3_card_parse(str(a, "card")), unseen, n);
        if (v > best_v) {
            best_v = v;
            best = a;
        }
    }
    return pick(best);
}

bool ap3_picker_challenges(const ap3_card_t h[2], int up, ap3_card_t *unseen, int n, bool packs,
                           rng_t *rng)
{
    int upval = ap3_card_value((ap3_card_t)up);
    ap3_card_t mine_up[3] = {h[0], h[1], (ap3_card_t)up};
    int v_up = ap3_points(mine_up, 3);
    long down_margin = 0, up_margin = 0;
    for (int k = 0; k < SAMPLES; k++) {
        /* Three distinct unseen cards: the starter's two, then the face-down one. */
        ap3_card_t s[3];
        for (int j = 0; j < 3; j++) {
            int at = j + (int)rng_below(rng, (uint32_t)(n - j));
            ap3_card_t t = unseen[j];
            unseen[j] = unseen[at];
            unseen[at] = t;
            s[j] = unseen[j];
        }
        ap3_card_t mine_down[3] = {h[0], h[1], s[2]};
        ap3_card_t opp_down[3] = {s[0], s[1], (ap3_card_t)up};
        ap3_card_t opp_up[3] = {s[0], s[1], s[2]};
        int md = ap3_points(mine_down, 3), od = ap3_points(opp_down, 3);
        int ou = ap3_points(opp_up, 3);
        if (packs) {
            down_margin += (md > od) - (od > md);
            up_margin += v_up > ou ? 1 : -1;
        } else {
            down_margin += md - od;
            up_margin += v_up > ou ? v_up : v_up - (ou + upval + AP3_CHALLENGE_EXTRA);
        }
    }
    return up_margin > down_margin;
}

/* The picker: the face-down card, or the challenge. */
static json_t *greedy_picker(const json_t *view, const json_t *legal, rng_t *rng)
{
    ap3_card_t h[2], unseen[AP3_DECK];
    int up = ap3_card_parse(str(view, "up"));
    const json_t *down_a = NULL, *up_a = NULL;
    size_t i;
    json_t *a;
    json_array_foreach(legal, i, a)
    {
        if (strcmp(str(a, "card") ? str(a, "card") : "", "up") == 0)
            up_a = a;
        else
            down_a = a;
    }
    if (!up_a || !down_a || read_hand(view, h) != 2 || up < 0) return pick(down_a ? down_a : up_a);
    int n = unseen_cards(view, unseen);
    if (n < 3) return pick(down_a);
    bool packs = strcmp(str(view, "mode") ? str(view, "mode") : "", "packs") == 0;
    return pick(ap3_picker_challenges(h, up, unseen, n, packs, rng) ? up_a : down_a);
}

json_t *ap3_greedy(const json_t *view, const json_t *legal, const char *strategy, rng_t *rng)
{
    (void)strategy;
    if (strcmp(str(view, "phase") ? str(view, "phase") : "", "pick") == 0)
        return greedy_picker(view, legal, rng);
    return greedy_starter(view, legal);
}
