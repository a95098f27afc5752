/*
 * bot.c — the 233 bot: a pure function of one seat's view (never the state).
 * The server's built-in bots and tapis-bot both call it.
 *
 * "random" is the kit's (a uniformly drawn legal action). "greedy" declares as soon as
 * it can, claims every discard that completes a meld, lays squares, takes the
 * discard when it improves the hand, gives -5 gifts to the leader, and
 * otherwise discards the card whose loss hurts the hand least: the best
 * grouping of what stays (score.c), then pairs and near-sequences that may
 * grow, then jokers kept over anything.
 */
#include <string.h>

#include "core/233/internal.h"
#include "core/search.h"

static const char *type_of(const json_t *a)
{
    return json_string_value(json_object_get(a, "type"));
}

static void view_hand(const json_t *view, g233_hand_t *h)
{
    memset(h, 0, sizeof *h);
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(view, "hand"), i, c)
    {
        int k = g233_card_parse(json_string_value(c));
        if (k >= 0) h->n[k]++;
    }
}

/* How promising a hand is: its points now, then what may become points. */
static int hand_value(const g233_hand_t *h)
{
    int v = g233_score_best(h, NULL, NULL) * 8;
    for (int c = 0; c < G233_CARD_SYMBOL; c++) {
        if (h->n[c] >= 2) v += 6 * (h->n[c] - 1);
        int val = g233_card_value((g233_card_t)c);
        if (h->n[c] && val < 8 && h->n[c + 1]) v += 4;
        if (h->n[c] && val < 7 && h->n[c + 2]) v += 2;
    }
    for (int c = G233_CARD_SYMBOL; c < G233_CARD_REVERSE; c++)
        if (h->n[c] >= 2) v += 5 * (h->n[c] - 1);
    v += 30 * h->n[G233_CARD_JOKER];
    return v;
}

static json_t *pick(json_t *a)
{
    return a ? json_deep_copy(a) : NULL;
}

json_t *g233_greedy(const json_t *view, const json_t *legal, const char *strategy, rng_t *rng)
{
    (void)strategy;
    (void)rng;
    size_t i;
    json_t *a, *draw = NULL, *take = NULL, *best = NULL;
    g233_hand_t h;
    view_hand(view, &h);
    int best_value = -1, best_claim = -1;

    /* 1. Win. 2. Claim (a final claim first, then the largest meld). 3. Lay. */
    json_array_foreach(legal, i, a)
    {
        const char *t = type_of(a);
        if (strcmp(t, "declare") == 0 || json_is_true(json_object_get(a, "declare")))
            return pick(a);
    }
    json_array_foreach(legal, i, a)
    {
        const char *t = type_of(a);
        bool meld = json_object_get(a, "cards") || json_object_get(a, "final"); /* not a lay */
        if (strcmp(t, "claim") == 0 || (strcmp(t, "take") == 0 && meld)) {
            int rank = json_is_true(json_object_get(a, "final"))
                           ? 100
                           : (int)json_array_size(json_object_get(a, "cards")) * 10;
            /* Spend jokers only when needed. */
            json_t *c;
            size_t k;
            json_array_foreach(json_object_get(a, "cards"), k,
                               c) if (g233_card_parse(json_string_value(c)) == G233_CARD_JOKER)
                rank -= 5;
            if (rank > best_claim) {
                best_claim = rank;
                best = a;
            }
        } else if (strcmp(t, "lay") == 0) {
            return pick(a);
        }
    }
    if (best) return pick(best);

    json_array_foreach(legal, i, a)
    {
        const char *t = type_of(a);
        if (strcmp(t, "gift") == 0) {
            /* A -5 goes to the leader among the others. */
            json_t *to = json_object_get(a, "to");
            if (!to) return pick(a);
            int s = (int)json_integer_value(to);
            json_t *p = json_array_get(json_object_get(view, "players"), (size_t)s);
            int score = (int)json_integer_value(json_object_get(p, "score"));
            if (!best || score > best_value) {
                best = a;
                best_value = score;
            }
        } else if (strcmp(t, "draw") == 0) {
            draw = a;
        } else if (strcmp(t, "take") == 0) {
            take = a;
        } else if (strcmp(t, "discard") == 0) {
            int c = g233_card_parse(json_string_value(json_object_get(a, "card")));
            g233_hand_t rest = h;
            rest.n[c]--;
            int v = hand_value(&rest);
            if (!best || v > best_value) {
                best = a;
                best_value = v;
            }
        }
    }
    if (best) return pick(best);

    /* Take the discard only when the hand is better for it. */
    if (take) {
        int top = g233_card_parse(json_string_value(json_object_get(view, "discard")));
        if (top >= 0) {
            g233_hand_t more = h;
            more.n[top]++;
            int gain = 0, now = hand_value(&h);
            for (int c = 0; c < G233_KINDS; c++) {
                if (!more.n[c] || c == top) continue;
                more.n[c]--;
                int v = hand_value(&more) - now;
                if (v > gain) gain = v;
                more.n[c]++;
            }
            if (gain >= 12 || !draw) return pick(take);
        }
    }
    return pick(draw ? draw : take);
}
