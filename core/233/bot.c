/*
 * bot.c — the 233 bot: a pure function of one seat's view (never the state).
 * The server's built-in bots and tapis-bot both call it.
 *
 * "random" plays a uniformly random legal action. "greedy" declares as soon as
 * it can, claims every discard that completes a meld, lays squares, takes the
 * discard when it improves the hand, gives -5 gifts to the leader, and
 * otherwise discards the card whose loss hurts the hand least: the best
 * grouping of what stays (score.c), then pairs and near-sequences that may
 * grow, then jokers kept over anything.
 */
#include <string.h>

#include "g233.h"

static const char *type_of(const json_t *a)
{
    return json_string_value(json_object_get(a, "type"));
}

static void view_hand(const json_t *view, hand_t *h)
{
    memset(h, 0, sizeof *h);
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(view, "hand"), i, c)
    {
        int k = card_parse(json_string_value(c));
        if (k >= 0) h->n[k]++;
    }
}

/* How promising a hand is: its points now, then what may become points. */
static int hand_value(const hand_t *h)
{
    int v = score_best(h, NULL, NULL) * 8;
    for (int c = 0; c < CARD_SYMBOL; c++) {
        if (h->n[c] >= 2) v += 6 * (h->n[c] - 1);
        int val = card_value((card_t)c);
        if (h->n[c] && val < 8 && h->n[c + 1]) v += 4;
        if (h->n[c] && val < 7 && h->n[c + 2]) v += 2;
    }
    for (int c = CARD_SYMBOL; c < CARD_REVERSE; c++)
        if (h->n[c] >= 2) v += 5 * (h->n[c] - 1);
    v += 30 * h->n[CARD_JOKER];
    return v;
}

static json_t *pick(json_t *a)
{
    return a ? json_deep_copy(a) : NULL;
}

static json_t *greedy(const json_t *view, const json_t *legal)
{
    size_t i;
    json_t *a, *draw = NULL, *take = NULL, *best = NULL;
    hand_t h;
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
        if (strcmp(t, "claim") == 0) {
            int rank = json_is_true(json_object_get(a, "final"))
                           ? 100
                           : (int)json_array_size(json_object_get(a, "cards")) * 10;
            /* Spend jokers only when needed. */
            json_t *c;
            size_t k;
            json_array_foreach(json_object_get(a, "cards"), k,
                               c) if (card_parse(json_string_value(c)) == CARD_JOKER) rank -= 5;
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
            int c = card_parse(json_string_value(json_object_get(a, "card")));
            hand_t rest = h;
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
        int top = card_parse(json_string_value(json_object_get(view, "discard")));
        if (top >= 0) {
            hand_t more = h;
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

json_t *g233_bot(const json_t *view, const char *strategy, rng_t *rng)
{
    const json_t *legal = json_object_get(view, "legal");
    size_t n = json_array_size(legal);
    if (n == 0) return NULL;
    if (strategy && strcmp(strategy, "random") == 0)
        return pick(json_array_get(legal, rng_below(rng, (uint32_t)n)));
    return greedy(view, legal);
}
