/*
 * deal.c — the deal of a round of 233: shuffle the 140 cards, deal 8 to each
 * player one at a time (gifts laid or kept to give, each replaced; stops
 * kept), turn up the first card that is neither a gift nor a stop; and who
 * still has a dealt -5 to give. RULES.md, "Set-up".
 */
#include <string.h>

#include "core/233/internal.h"

/* The turned-up card is never a gift or a stop (RULES.md, "the turned-up card"). */
static bool acts_when_drawn(int c)
{
    return c == G233_CARD_GIFT_PLUS || c == G233_CARD_GIFT_MINUS || c == G233_CARD_STOP;
}

/* Take the topmost card of the draw pile that is not a gift or a stop. */
static g233_card_t pop_plain(g233_t *g)
{
    int i = g->ndraw - 1;
    while (acts_when_drawn(g->draw[i]))
        i--;
    g233_card_t c = g->draw[i];
    memmove(&g->draw[i], &g->draw[i + 1], (size_t)(g->ndraw - 1 - i));
    g->ndraw--;
    return c;
}

/*
 * Deal the top card of the pile to seat s. Gifts are laid face up, not held
 * (seed 000: "Les cartes cadeaux doivent être déposées face visible"): a +5 at
 * once in front of its holder, a -5 once its holder has named whom it goes to
 * (it waits in hand, counted in to_place); either is replaced at once by the
 * next card. A stop is kept: it is the holder's forced discard at their first
 * turn (check_discard's must_discard_stop).
 */
static void deal_one(g233_t *g, int s)
{
    g233_player_t *p = &g->p[s];
    for (;;) {
        g233_card_t c = g->draw[--g->ndraw];
        if (c == G233_CARD_GIFT_PLUS) {
            p->gifts_plus++;
            p->score += 5;
            g233_event(g, json_pack("{s:i, s:s, s:s, s:i}", "seat", s, "did", "gift", "card",
                                    "gift+5", "to", s));
            continue;
        }
        p->hand.n[c]++;
        if (c != G233_CARD_GIFT_MINUS) return;
        p->to_place++;
    }
}

void g233_start_round(g233_t *g, int dealer)
{
    int n = g->base.seats, k = 0;
    for (int c = 0; c < G233_KINDS; c++)
        for (int i = 0; i < g233_card_copies((g233_card_t)c); i++)
            g->draw[k++] = (g233_card_t)c;
    g->ndraw = k;
    rng_shuffle_u8(&g->rng, g->draw, g->ndraw);
    g->ndiscard = 0;
    for (int s = 0; s < n; s++) {
        g233_player_t *p = &g->p[s];
        int score = p->score;
        memset(p, 0, sizeof *p);
        p->score = score;
        p->last_drawn = -1;
    }
    g->round++;
    g233_event(g, json_pack("{s:i, s:s, s:i}", "seat", dealer, "did", "deal", "round", g->round));
    /* Deal from all 140 cards, one at a time, starting left of the dealer. */
    for (int r = 0; r < 8; r++)
        for (int i = 1; i <= n; i++)
            deal_one(g, (dealer + i) % n);
    g->discard[g->ndiscard++] = pop_plain(g);
    /* The gifts and stops passed over for the turned-up card go back in at random. */
    rng_shuffle_u8(&g->rng, g->draw, g->ndraw);
    g->discarder = -1;
    g->dealer = dealer;
    g->turn = dealer;
    g->dir = 1;
    g->rebuilds = 0;
    g->phase = G233_PH_DRAW;
    g->open = true;
    g->must_win = false;
    g->drawn = 0;
    g->nclaims = 0;
    g->declarer = -1;
    g->declared = G233_COMBO_NONE;
}
