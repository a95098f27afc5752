/*
 * view.c — what each seat may see of an As.point3 table (the ONLY route by
 * which a state reaches a client), the full dump, resampling of hidden cards,
 * the audit of invariants, and the test constructors.
 *
 * Hidden: each player's two cards (their owner sees them under "hand"), the
 * face-down centre card (nobody sees it; but a starter who swapped knows the
 * card they put there: "swapped_out", in their view only), the stock. Public:
 * the face-up card, whether the starter swapped, the discard pile (every card
 * in it was revealed), scores, and each deal's reveal ("last_deal").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/aspoint3/internal.h"
#include "include/tapis_alloc.h"

static const char *const phase_names[] = {"swap", "pick", "over"};

/* A card's name, or null for AP3_NONE. */
static void write_card(jw_t *w, const char *key, ap3_card_t c)
{
    if (c < AP3_DECK)
        jw_str(w, key, ap3_card_name(c));
    else
        jw_null(w, key);
}

json_t *ap3_card_json(ap3_card_t c)
{
    jw_t w;
    jw_tree(&w);
    write_card(&w, NULL, c);
    return jw_take(&w);
}

static void write_cards(jw_t *w, const char *key, const ap3_card_t *cards, int n)
{
    game_write_cards(w, key, cards, n, ap3_card_name); /* AP3_NONE has no name: left out */
}

json_t *ap3_cards_json(const ap3_card_t *cards, int n)
{
    return game_cards_json(cards, n, ap3_card_name);
}

/* What everyone sees of seat s (game_write_players()): two cards each while a
   deal is on. */
static void write_player(const game_t *base, int s, jw_t *w)
{
    const ap3_t *g = (const ap3_t *)base;
    jw_int(w, "score", g->score[s]);
    jw_int(w, "total", g->total[s]);
    jw_int(w, "cards", g->phase != AP3_OVER ? 2 : 0);
}

/* The public part of the table: identical for every viewer. */
void ap3_view_public(const game_t *base, jw_t *w)
{
    const ap3_t *g = (const ap3_t *)base;
    bool live = g->phase != AP3_OVER;
    jw_str(w, "game", "aspoint3");
    jw_str(w, "mode", g->packs ? "packs" : "points");
    jw_str(w, "phase", phase_names[g->phase]);
    jw_int(w, "round", g->round);
    jw_int(w, "rounds", g->rounds);
    jw_int(w, "target", g->target);
    jw_int(w, "packs", g->packs);
    jw_str(w, "pack_scoring", ap3_pack_scoring_name(g));
    jw_int(w, "pack", g->pack);
    jw_int(w, "deal", g->deal);
    jw_int(w, "deal_in_pack", g->deal_in_pack);
    game_write_seat(w, "starter", live ? g->starter : -1);
    game_write_seat(w, "turn", ap3_turn(g));
    write_card(w, "up", g->up);
    jw_bool(w, "down", live);
    if (g->phase == AP3_PICK)
        jw_bool(w, "swapped", g->swapped_out != AP3_NONE);
    else
        jw_null(w, "swapped");
    jw_int(w, "stock", g->nstock);
    write_cards(w, "discards", g->discard, g->ndiscard);
    game_write_players(base, w, write_player);
    game_write_seat(w, "bonus_by", g->bonus_by < 2 ? g->bonus_by : -1);
    /* history and last_deal keep their text: the state never changes them in
     * place, it replaces them (aspoint3.h), so their text is made once. */
    game_write_log(w, "history", &g->history);
    jw_bool(w, "bonus_spent", g->bonus_by >= 0);
    if (g->last_deal.tree)
        game_write_shared(w, "last_deal", &g->last_deal);
    else
        jw_null(w, "last_deal");
    game_write_result(base, w);
}

/* What only `seat` sees (game_write_own() writes "seat" before and "legal" after). */
void ap3_view_seat(const game_t *base, int seat, jw_t *w)
{
    const ap3_t *g = (const ap3_t *)base;
    write_cards(w, "hand", g->hand[seat], 2);
    if (seat == g->starter && g->swapped_out != AP3_NONE)
        write_card(w, "swapped_out", g->swapped_out);
}

/* ------------------------------------------------------------------ */
/* Dump: the whole state                                                */
/* ------------------------------------------------------------------ */

void ap3_dump(const game_t *base, json_t *d)
{
    const ap3_t *g = (const ap3_t *)base;
    json_object_set_new(d, "rng", game_rng_json(&g->rng));
    json_object_set_new(
        d, "hands",
        json_pack("[o,o]", ap3_cards_json(g->hand[0], 2), ap3_cards_json(g->hand[1], 2)));
    json_object_set_new(d, "down_card", ap3_card_json(g->down));
    json_object_set_new(d, "swapped_out", ap3_card_json(g->swapped_out));
    json_object_set_new(d, "stock_cards", ap3_cards_json(g->stock, g->nstock));
    json_object_set_new(d, "bonus_state", json_integer(g->bonus_by));
    json_object_set_new(d, "winners", json_integer(g->winners));
}

/* ------------------------------------------------------------------ */
/* Resample: redraw what `seat` cannot see                              */
/* ------------------------------------------------------------------ */

game_t *ap3_resample(const game_t *base, int seat, uint64_t seed)
{
    ap3_t *g = (ap3_t *)game_copy(base); /* the shared parts: immutable once stored */
    if (!g) return NULL;

    /* The unseen cards: the stock, the other hands, the face-down card unless
     * the viewer is the starter who put it there. */
    ap3_card_t pool[AP3_DECK];
    int n = 0;
    memcpy(pool, g->stock, (size_t)g->nstock);
    n = g->nstock;
    bool live = g->phase != AP3_OVER;
    bool down_known = seat == g->starter && g->swapped_out != AP3_NONE;
    for (int s = 0; s < 2 && live; s++)
        if (s != seat) {
            pool[n++] = g->hand[s][0];
            pool[n++] = g->hand[s][1];
        }
    if (live && !down_known) pool[n++] = g->down;
    rng_t r;
    rng_seed(&r, seed);
    rng_shuffle_u8(&r, pool, n);
    int k = 0;
    for (int s = 0; s < 2 && live; s++)
        if (s != seat) {
            g->hand[s][0] = pool[k++];
            g->hand[s][1] = pool[k++];
            if (g->hand[s][0] > g->hand[s][1]) {
                ap3_card_t t = g->hand[s][0];
                g->hand[s][0] = g->hand[s][1];
                g->hand[s][1] = t;
            }
        }
    if (live && !down_known) g->down = pool[k++];
    /* In the redrawn world, the card the starter put face down is the new one. */
    if (g->swapped_out != AP3_NONE) g->swapped_out = g->down;
    memcpy(g->stock, pool + k, (size_t)(n - k));
    return &g->base;
}

/* ------------------------------------------------------------------ */
/* Audit                                                                */
/* ------------------------------------------------------------------ */

static int count(int *seen, ap3_card_t c, game_error_t *err)
{
    if (c >= AP3_DECK) return game_fail(err, "bad_card", "a card %d is not of the deck", c);
    if (seen[c]++) return game_fail(err, "card_twice", "%s is in play twice", ap3_card_name(c));
    return 0;
}

int ap3_audit(const game_t *base, game_error_t *err)
{
    const ap3_t *g = (const ap3_t *)base;
    int seen[AP3_DECK] = {0};
    for (int i = 0; i < g->nstock; i++)
        if (count(seen, g->stock[i], err)) return -1;
    for (int i = 0; i < g->ndiscard; i++)
        if (count(seen, g->discard[i], err)) return -1;
    if (g->phase != AP3_OVER) {
        for (int s = 0; s < 2; s++)
            for (int i = 0; i < 2; i++)
                if (count(seen, g->hand[s][i], err)) return -1;
        if (count(seen, g->up, err) || count(seen, g->down, err)) return -1;
        if (g->ndiscard != 6 * (g->deal_in_pack - 1))
            return game_fail(err, "bad_discards", "%d discards after %d deals of this pack",
                             g->ndiscard, g->deal_in_pack - 1);
        if (g->swapped_out != AP3_NONE && (g->phase != AP3_PICK || g->swapped_out != g->down))
            return game_fail(err, "bad_swap", "the swapped-out card is not the face-down one");
    } else if (g->hand[0][0] != AP3_NONE || g->up != AP3_NONE || g->down != AP3_NONE) {
        return game_fail(err, "cards_left", "cards are still dealt after the end");
    }
    for (int c = 0; c < AP3_DECK; c++)
        if (!seen[c])
            return game_fail(err, "cards_lost", "%s is missing", ap3_card_name((ap3_card_t)c));
    for (int s = 0; s < 2; s++)
        if (g->score[s] < 0 || g->total[s] < 0)
            return game_fail(err, "bad_score", "seat %d has a negative score", s);
    if (g->packs && g->pack_scoring == AP3_PACK_MANCHE) {
        /* A manche per pack: one point per deal won in it; the game ends when a
         * seat has won `packs` packs, not before, not beyond. */
        int won = g->phase != AP3_OVER ? -1 : g->winners == 1 ? 0 : g->winners == 2 ? 1 : -2;
        if (won == -2) return game_fail(err, "bad_packs", "a shared win by manche");
        for (int s = 0; s < 2; s++)
            if (s == won ? g->total[s] != g->packs : g->total[s] >= g->packs)
                return game_fail(err, "bad_packs", "seat %d has won %d packs of %d", s, g->total[s],
                                 g->packs);
        if (g->phase != AP3_OVER && g->score[0] + g->score[1] > g->deal_in_pack)
            return game_fail(err, "bad_score", "more deals won than dealt in this pack");
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Test constructors                                                    */
/* ------------------------------------------------------------------ */

/* Take card c out of the stock; failing that, out of the discard pile, which
 * gets the stock's top card instead. */
static int take(ap3_t *g, int c)
{
    if (game_take_card(g->stock, &g->nstock, (ap3_card_t)c)) return 0;
    for (int i = 0; i < g->ndiscard && g->nstock > 0; i++)
        if (g->discard[i] == c) {
            g->discard[i] = g->stock[--g->nstock];
            return 0;
        }
    return -1;
}

int ap3_set_deal(ap3_t *g, const char *hand0, const char *hand1, const char *up, const char *down)
{
    if (g->phase != AP3_SWAP) return -1;
    int h[2][2], u, d;
    if (game_parse_cards(hand0, ap3_card_parse, h[0], 2) != 2 ||
        game_parse_cards(hand1, ap3_card_parse, h[1], 2) != 2 ||
        game_parse_cards(up, ap3_card_parse, &u, 1) != 1 ||
        game_parse_cards(down, ap3_card_parse, &d, 1) != 1)
        return -1;
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < 2; i++)
            g->stock[g->nstock++] = g->hand[s][i];
    g->stock[g->nstock++] = g->up;
    g->stock[g->nstock++] = g->down;
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < 2; i++) {
            if (take(g, h[s][i])) return -1;
            g->hand[s][i] = (ap3_card_t)h[s][i];
        }
    if (take(g, u) || take(g, d)) return -1;
    g->up = (ap3_card_t)u;
    g->down = (ap3_card_t)d;
    for (int s = 0; s < 2; s++)
        if (g->hand[s][0] > g->hand[s][1]) {
            ap3_card_t t = g->hand[s][0];
            g->hand[s][0] = g->hand[s][1];
            g->hand[s][1] = t;
        }
    return 0;
}

int ap3_stack(ap3_t *g, const char *names)
{
    int c[AP3_DECK];
    int n = game_parse_cards(names, ap3_card_parse, c, AP3_DECK);
    if (n < 0) return -1;
    for (int i = 0; i < n; i++) {
        if (take(g, c[i])) return -1;
        g->stock[g->nstock++] = (ap3_card_t)c[i];
    }
    return 0;
}
