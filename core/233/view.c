/*
 * view.c — what each seat may see of a 233 table (the ONLY route by which a
 * state reaches a client), the full dump, resampling of hidden cards, the
 * audit of invariants, and the test constructors.
 *
 * Hidden: every hand (its owner sees it under "hand"), the order and faces of
 * the draw pile. Public: the discard pile's top card and size, locked melds,
 * gifts, scores, card counts, the events, and at the end of a round every hand
 * (they are revealed by the rules).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tapis_alloc.h"

static const char *const phase_names[] = {"draw", "gift", "discard", "over"};

/*
 * Views are built on every change for every seat: keys and card names are
 * static ASCII, so they skip jansson's UTF-8 checks (game_set() and the
 * _nocheck calls) and json_pack()'s format parsing.
 */
static json_t *card_json(g233_card_t c)
{
    return json_string_nocheck(g233_card_name(c));
}

json_t *g233_cards_json(const g233_card_t *cards, int n)
{
    return game_cards_json(cards, n, g233_card_name);
}

json_t *g233_hand_json(const g233_hand_t *h)
{
    json_t *a = json_array();
    for (int c = 0; c < G233_KINDS; c++)
        for (int i = 0; i < h->n[c]; i++)
            json_array_append_new(a, card_json((g233_card_t)c));
    return a;
}

static json_t *melds_json(const g233_player_t *p)
{
    json_t *a = json_array();
    for (int i = 0; i < p->nmelds; i++)
        json_array_append_new(a, g233_cards_json(p->melds[i].cards, p->melds[i].n));
    return a;
}

/* The public part of the table: identical for every viewer. */
json_t *g233_view_public(const game_t *base)
{
    const g233_t *g = (const g233_t *)base;
    unsigned long mark = tapis_alloc_failures();
    json_t *players = json_array();
    for (int s = 0; s < g->base.seats; s++) {
        const g233_player_t *p = &g->p[s];
        json_t *o = json_object();
        game_set(o, "seat", json_integer(s));
        game_set(o, "cards", json_integer(g233_hand_size(&p->hand)));
        game_set(o, "melds", melds_json(p));
        game_set(o, "gifts_plus", json_integer(p->gifts_plus));
        game_set(o, "gifts_minus", json_integer(p->gifts_minus));
        game_set(o, "score", json_integer(p->score));
        json_array_append_new(players, o);
    }
    json_t *claims = json_array();
    for (int i = 0; i < g->nclaims; i++)
        json_array_append_new(claims, json_integer(g->claims[i].seat));
    int top = g->ndiscard ? g->discard[g->ndiscard - 1] : -1;
    json_t *v = json_object();
    game_set(v, "game", json_string_nocheck("233"));
    game_set(v, "round", json_integer(g->round));
    game_set(v, "dealer", json_integer(g->dealer));
    game_set(v, "turn", json_integer(g->turn));
    game_set(v, "direction", json_integer(g->dir));
    game_set(v, "phase", json_string_nocheck(phase_names[g->phase]));
    game_set(v, "last_draws", json_boolean(g->declarer >= 0));
    game_set(v, "draw_pile", json_integer(g->ndraw));
    game_set(v, "discard", top >= 0 ? card_json((g233_card_t)top) : json_null());
    game_set(v, "discard_pile", json_integer(g->ndiscard));
    game_set(v, "discarder", game_seat_json(g->discarder));
    game_set(v, "rebuilds", json_integer(g->rebuilds));
    game_set(v, "claim_open",
             json_boolean(g->open && g->phase == G233_PH_DRAW && g->declarer < 0 && top >= 0 &&
                          !g233_placing(g)));
    game_set(v, "claims", claims);
    game_set(v, "declarer", game_seat_json(g->declarer));
    game_set(v, "players", players);
    /* The events (a game_log_t) and the last round's summary are never changed
       once made, so views share them: a reference, not a copy. */
    game_set(v, "events", game_log_json(&g->events));
    game_set(v, "target", json_integer(g->target));
    if (g->declarer >= 0) game_set(v, "combo", json_string_nocheck(g233_combo_name(g->declared)));
    if (g->phase == G233_PH_GIFT) {
        /* A drawn gift is shown to everyone: it is placed face up. */
        const g233_hand_t *h = &g->p[g->turn].hand;
        game_set(v, "pending_gift",
                 json_string_nocheck(h->n[G233_CARD_GIFT_MINUS] ? "gift-5" : "gift+5"));
    }
    if (g->last_round)
        game_set(v, "last_round", json_incref(g->last_round)); /* shared, see above */
    return game_json_checked(game_add_result(base, v), mark);
}

/* What only `seat` sees (game_view() adds "seat" before and "legal" after). */
json_t *g233_view_seat(const game_t *base, int seat)
{
    const g233_t *g = (const g233_t *)base;
    unsigned long mark = tapis_alloc_failures();
    json_t *v = json_object();
    game_set(v, "hand", g233_hand_json(&g->p[seat].hand));
    if (seat == g->turn && g->must_win) game_set(v, "must_win", json_true());
    return game_json_checked(v, mark);
}

/* ------------------------------------------------------------------ */
/* Dump: the whole state                                                */
/* ------------------------------------------------------------------ */

json_t *g233_dump(const game_t *base)
{
    const g233_t *g = (const g233_t *)base;
    unsigned long mark = tapis_alloc_failures();
    json_t *d = g233_view_public(base);
    json_t *hands = json_array(), *private = json_array(), *claims = json_array();
    for (int s = 0; s < base->seats; s++) {
        const g233_player_t *p = &g->p[s];
        json_array_append_new(hands, g233_hand_json(&p->hand));
        json_array_append_new(private, json_pack("{s:i, s:i, s:i, s:b}", "squares", p->squares,
                                                 "last_drawn", p->last_drawn, "to_place",
                                                 p->to_place, "last_done", p->last_done));
    }
    for (int i = 0; i < g->nclaims; i++) {
        const g233_claim_t *c = &g->claims[i];
        json_array_append_new(
            claims, json_pack("{s:i, s:i, s:o, s:I}", "seat", c->seat, "kind", c->kind, "meld",
                              g233_cards_json(c->meld.cards, c->meld.n), "at", (json_int_t)c->at));
    }
    json_object_set_new(d, "hands", hands);
    json_object_set_new(d, "private", private);
    json_object_set_new(d, "pending", claims);
    json_object_set_new(d, "rng", game_rng_json(&g->rng));
    json_object_set_new(d, "draw", g233_cards_json(g->draw, g->ndraw));
    json_object_set_new(d, "discards", g233_cards_json(g->discard, g->ndiscard));
    json_object_set_new(d, "window_end", json_integer(g->nclaims ? (json_int_t)g->window_end : 0));
    json_object_set_new(d, "open", json_boolean(g->open));
    json_object_set_new(d, "must_win", json_boolean(g->must_win));
    json_object_set_new(d, "drawn", json_integer(g->drawn));
    json_object_set_new(d, "winners", json_integer(g->winners));
    json_object_set_new(d, "options",
                        json_pack("{s:i, s:i, s:i, s:b, s:s}", "dispute_ms", g->dispute_ms,
                                  "max_rebuilds", g->max_rebuilds, "target", g->target,
                                  "claim_sequences", g->claim_sequences, "declare",
                                  g->declare_must ? "must" : "may"));
    return game_json_checked(d, mark);
}

/* ------------------------------------------------------------------ */
/* Resample: redraw what `seat` cannot see                              */
/* ------------------------------------------------------------------ */

game_t *g233_resample(const game_t *base, int seat, uint64_t seed)
{
    g233_t *g = tapis_malloc(sizeof *g);
    if (!g) return NULL;
    g233_hold(g, (const g233_t *)base);
    int n = base->seats;
    g233_card_t pool[G233_DECK];
    int npool = 0, want[G233_MAX_SEATS] = {0};
    g233_hand_t keep[G233_MAX_SEATS];
    memcpy(pool, g->draw, (size_t)g->ndraw);
    npool = g->ndraw;
    for (int s = 0; s < n; s++) {
        keep[s] = g->p[s].hand;
        if (s == seat) continue;
        /* Kept in place: gifts (a drawn one is public; a dealt -5 not yet given
         * is why the table waits on its holder) and cards a pending claim has
         * named. Stops are hidden cards like any other: dealt ones sit in hands. */
        g233_hand_t reserved = {{0}};
        reserved.n[G233_CARD_GIFT_PLUS] = keep[s].n[G233_CARD_GIFT_PLUS];
        reserved.n[G233_CARD_GIFT_MINUS] = keep[s].n[G233_CARD_GIFT_MINUS];
        for (int i = 0; i < g->nclaims; i++)
            if (g->claims[i].seat == s && g->claims[i].kind == G233_CLAIM_MELD)
                for (int k = 0; k < g->claims[i].meld.n - 1; k++)
                    reserved.n[g->claims[i].meld.cards[k]]++;
        /* A final claim keeps its whole hand. */
        for (int i = 0; i < g->nclaims; i++)
            if (g->claims[i].seat == s && g->claims[i].kind == G233_CLAIM_FINAL) reserved = keep[s];
        for (int c = 0; c < G233_KINDS; c++) {
            int free_n = keep[s].n[c] - reserved.n[c];
            for (int i = 0; i < free_n; i++)
                pool[npool++] = (g233_card_t)c;
            want[s] += free_n;
        }
        keep[s] = reserved;
    }
    rng_t r;
    rng_seed(&r, seed);
    rng_shuffle_u8(&r, pool, npool);
    /* Hands take only cards that may sit in a hand at rest (no gift); the rest
     * is the pile. */
    bool used[G233_DECK] = {0};
    for (int s = 0; s < n; s++) {
        if (s == seat) continue;
        for (int i = 0; i < npool && want[s] > 0; i++) {
            if (used[i] || pool[i] == G233_CARD_GIFT_PLUS || pool[i] == G233_CARD_GIFT_MINUS)
                continue;
            used[i] = true;
            keep[s].n[pool[i]]++;
            want[s]--;
        }
        g->p[s].hand = keep[s];
    }
    g->ndraw = 0;
    for (int i = 0; i < npool; i++)
        if (!used[i]) g->draw[g->ndraw++] = pool[i];
    return &g->base;
}

/* ------------------------------------------------------------------ */
/* Audit                                                                */
/* ------------------------------------------------------------------ */

int g233_audit(const game_t *base, game_error_t *err)
{
    const g233_t *g = (const g233_t *)base;
    int count[G233_KINDS] = {0};
    game_count_cards(count, g->draw, g->ndraw);
    game_count_cards(count, g->discard, g->ndiscard);
    for (int s = 0; s < base->seats; s++) {
        const g233_player_t *p = &g->p[s];
        int held = g233_hand_size(&p->hand);
        for (int c = 0; c < G233_KINDS; c++)
            count[c] += p->hand.n[c];
        for (int i = 0; i < p->nmelds; i++) {
            held += p->melds[i].n;
            game_count_cards(count, p->melds[i].cards, p->melds[i].n);
        }
        count[G233_CARD_GIFT_PLUS] += p->gifts_plus;
        count[G233_CARD_GIFT_MINUS] += p->gifts_minus;
        if (g->phase == G233_PH_OVER) continue;
        if (p->to_place > p->hand.n[G233_CARD_GIFT_MINUS] ||
            (p->to_place && (g->phase != G233_PH_DRAW || g->ndiscard != 1 || g->drawn)))
            return game_fail(err, "bad_gift", "seat %d has %d dealt -5 to give, at the wrong time",
                             s, p->to_place);
        int expect =
            8 + p->squares + p->to_place + (s == g->turn && g->phase != G233_PH_DRAW ? 1 : 0);
        if (held != expect)
            return game_fail(err, "bad_hand_size", "seat %d holds %d cards, not %d", s, held,
                             expect);
    }
    for (int c = 0; c < G233_KINDS; c++)
        if (count[c] != g233_card_copies((g233_card_t)c))
            return game_fail(err, "cards_lost", "%d %s in play, not %d", count[c],
                             g233_card_name((g233_card_t)c), g233_card_copies((g233_card_t)c));
    return 0;
}

/* ------------------------------------------------------------------ */
/* Test constructors                                                    */
/* ------------------------------------------------------------------ */

int g233_hand_parse(g233_hand_t *h, const char *names)
{
    memset(h, 0, sizeof *h);
    int cards[G233_DECK], n = game_parse_cards(names, g233_card_parse, cards, G233_DECK);
    for (int i = 0; i < n; i++)
        h->n[cards[i]]++;
    return n < 0 ? -1 : 0;
}

/* Take a card of kind c out of the draw pile; failing that, out of another
 * seat's hand, which gets a plain card of the draw pile instead. */
static int take_card(g233_t *g, int c, int except)
{
    if (game_take_card(g->draw, &g->ndraw, (g233_card_t)c)) return 0;
    for (int s = 0; s < g->base.seats; s++) {
        if (s == except || !g->p[s].hand.n[c]) continue;
        for (int i = g->ndraw - 1; i >= 0; i--) {
            if (g->draw[i] >= G233_CARD_GIFT_PLUS) continue;
            g->p[s].hand.n[g->draw[i]]++;
            g->p[s].hand.n[c]--;
            memmove(&g->draw[i], &g->draw[i + 1], (size_t)(g->ndraw - 1 - i));
            g->ndraw--;
            return 0;
        }
    }
    return -1;
}

int g233_give_hand(g233_t *g, int seat, const char *names)
{
    g233_hand_t want;
    if (g233_hand_parse(&want, names)) return -1;
    g233_hand_t *h = &g->p[seat].hand;
    for (int c = 0; c < G233_KINDS; c++)
        for (; h->n[c]; h->n[c]--)
            g->draw[g->ndraw++] = (g233_card_t)c;
    for (int c = 0; c < G233_KINDS; c++)
        for (int i = 0; i < want.n[c]; i++) {
            if (take_card(g, c, seat)) return -1;
            h->n[c]++;
        }
    g->p[seat].to_place = want.n[G233_CARD_GIFT_MINUS];
    return 0;
}

int g233_stack_draw(g233_t *g, const char *name)
{
    int c = g233_card_parse(name);
    if (c < 0 || take_card(g, c, g->turn)) return -1;
    g->draw[g->ndraw++] = (g233_card_t)c;
    return 0;
}

int g233_stack_discard(g233_t *g, const char *name, int discarder)
{
    int c = g233_card_parse(name);
    if (c < 0 || take_card(g, c, g->turn)) return -1;
    g->discard[g->ndiscard++] = (g233_card_t)c;
    g->discarder = discarder;
    g->open = true;
    return 0;
}
