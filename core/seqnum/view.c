/*
 * view.c — what each seat may see of a seqnum table (the ONLY route by which
 * a state reaches a client), the full dump, resampling of hidden cards, the
 * audit of invariants, and the test constructors.
 *
 * Hidden: every hand (its owner sees it under "hand") and the draw pile.
 * Public: the board, the chips, the sequences, every discard pile (played and
 * traded cards lie face up), card counts, pending draws, the events.
 * The keys are documented in RULES.md ("The view").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tapis_alloc.h"

/*
 * Views are built on every change for every seat: keys are static ASCII, so
 * they skip jansson's UTF-8 checks (the _nocheck call) and json_pack()'s
 * format parsing.
 */
static void set(json_t *o, const char *key, json_t *v)
{
    json_object_set_new_nocheck(o, key, v);
}

json_t *seqnum_cards_json(const uint8_t *cards, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_string(seqnum_card_name(cards[i])));
    return a;
}

static json_t *ints_json(const int *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

/* The public part of the table: identical for every viewer. */
static json_t *public_view(const seqnum_t *g)
{
    int layout[SEQNUM_CELLS], chips[SEQNUM_CELLS];
    for (int c = 0; c < SEQNUM_CELLS; c++) {
        layout[c] = seqnum_number(c);
        chips[c] = g->chip[c];
    }
    json_t *players = json_array(), *seqs = json_array();
    for (int s = 0; s < g->base.seats; s++) {
        const seqnum_player_t *p = &g->p[s];
        json_t *o = json_object();
        set(o, "seat", json_integer(s));
        set(o, "team", json_integer(seqnum_team(g, s)));
        set(o, "cards", json_integer(p->nhand));
        set(o, "max_cards", json_integer(p->max_cards));
        set(o, "owes_draw", json_boolean(p->owe >= 0));
        set(o, "lapsed", json_integer(p->lapsed));
        set(o, "discards", seqnum_cards_json(p->discards, p->ndiscards));
        json_array_append_new(players, o);
    }
    for (int i = 0; i < g->nseqs; i++) {
        json_t *o = json_object();
        set(o, "team", json_integer(g->seqs[i].team));
        set(o, "cells", ints_json(g->seqs[i].cells, 5));
        json_array_append_new(seqs, o);
    }
    json_t *v = json_object();
    set(v, "game", json_string_nocheck("seqnum"));
    set(v, "side", json_integer(SEQNUM_SIDE));
    set(v, "layout", ints_json(layout, SEQNUM_CELLS));
    set(v, "chips", ints_json(chips, SEQNUM_CELLS));
    set(v, "sequences", seqs);
    set(v, "teams", json_integer(g->nteams));
    set(v, "goal", json_integer(g->goal));
    set(v, "turn", json_integer(g->turn));
    set(v, "turns", json_integer(g->turns));
    set(v, "max_turns", json_integer(g->max_turns));
    set(v, "traded", json_boolean(g->traded));
    set(v, "draw_pile", json_integer(g->ndraw));
    set(v, "reshuffles", json_integer(g->reshuffles));
    set(v, "players", players);
    set(v, "events", game_log_json(&g->events));
    set(v, "over", json_boolean(g->over));
    if (g->over) set(v, "result", seqnum_desc.result(&g->base));
    return v;
}

static json_t *view_public_unchecked(const game_t *base)
{
    return public_view((const seqnum_t *)base);
}

json_t *seqnum_view_public(const game_t *base)
{
    unsigned long mark = tapis_alloc_failures();
    return game_json_checked(view_public_unchecked(base), mark);
}

/* What only `seat` sees (game_view() adds "seat" before and "legal" after). */
static json_t *view_seat_unchecked(const game_t *base, int seat)
{
    const seqnum_t *g = (const seqnum_t *)base;
    json_t *v = json_object();
    set(v, "team", json_integer(seqnum_team(g, seat)));
    set(v, "hand", seqnum_cards_json(g->p[seat].hand, g->p[seat].nhand));
    return v;
}

json_t *seqnum_view_seat(const game_t *base, int seat)
{
    unsigned long mark = tapis_alloc_failures();
    return game_json_checked(view_seat_unchecked(base, seat), mark);
}

/* ------------------------------------------------------------------ */
/* Dump: the whole state                                                */
/* ------------------------------------------------------------------ */

static json_t *dump_unchecked(const game_t *base)
{
    const seqnum_t *g = (const seqnum_t *)base;
    json_t *d = public_view(g);
    json_t *hands = json_array(), *owe = json_array(), *rng = json_array();
    for (int s = 0; s < base->seats; s++) {
        json_array_append_new(hands, seqnum_cards_json(g->p[s].hand, g->p[s].nhand));
        json_array_append_new(owe, json_integer(g->p[s].owe));
    }
    for (int i = 0; i < 4; i++)
        json_array_append_new(rng, json_integer((json_int_t)g->rng.s[i]));
    json_object_set_new(d, "hands", hands);
    json_object_set_new(d, "owe", owe);
    json_object_set_new(d, "rng", rng);
    json_object_set_new(d, "draw", seqnum_cards_json(g->draw, g->ndraw));
    json_object_set_new(d, "winner", json_integer(g->winner));
    json_object_set_new(d, "reason", g->reason ? json_string(g->reason) : json_null());
    json_object_set_new(d, "options",
                        json_pack("{s:i, s:i, s:i}", "teams", g->nteams, "max_turns", g->max_turns,
                                  "deal", g->deal));
    return d;
}

json_t *seqnum_dump(const game_t *base)
{
    unsigned long mark = tapis_alloc_failures();
    return game_json_checked(dump_unchecked(base), mark);
}

/* ------------------------------------------------------------------ */
/* Resample: redraw what `seat` cannot see                              */
/* ------------------------------------------------------------------ */

game_t *seqnum_resample(const game_t *base, int seat, uint64_t seed)
{
    const seqnum_t *src = (const seqnum_t *)base;
    seqnum_t *g = tapis_malloc(sizeof *g);
    if (!g) return NULL;
    *g = *src;
    game_log_share(&g->events, &src->events);
    /* The draw pile and the other hands are one pool of unseen cards. */
    uint8_t pool[SEQNUM_DECK];
    int npool = g->ndraw;
    memcpy(pool, g->draw, (size_t)g->ndraw);
    for (int s = 0; s < base->seats; s++) {
        if (s == seat) continue;
        memcpy(&pool[npool], g->p[s].hand, (size_t)g->p[s].nhand);
        npool += g->p[s].nhand;
    }
    rng_t r;
    rng_seed(&r, seed);
    rng_shuffle_u8(&r, pool, npool);
    int k = 0;
    for (int s = 0; s < base->seats; s++) {
        if (s == seat) continue;
        int n = g->p[s].nhand;
        g->p[s].nhand = 0;
        for (int i = 0; i < n; i++)
            seqnum_hand_add(&g->p[s], pool[k++]);
    }
    g->ndraw = npool - k;
    memcpy(g->draw, &pool[k], (size_t)g->ndraw);
    return &g->base;
}

/* ------------------------------------------------------------------ */
/* Audit                                                                */
/* ------------------------------------------------------------------ */

int seqnum_audit(const game_t *base, game_error_t *err)
{
    const seqnum_t *g = (const seqnum_t *)base;
    int count[SEQNUM_KINDS] = {0};
    for (int i = 0; i < g->ndraw; i++)
        count[g->draw[i]]++;
    for (int s = 0; s < base->seats; s++) {
        const seqnum_player_t *p = &g->p[s];
        for (int i = 0; i < p->ndiscards; i++)
            count[p->discards[i]]++;
        for (int i = 0; i < p->nhand; i++) {
            count[p->hand[i]]++;
            if (i > 0 && p->hand[i] < p->hand[i - 1])
                return game_fail(err, "unsorted_hand", "seat %d's hand is out of order", s);
        }
        int expect = p->max_cards - (p->owe >= 0 ? 1 : 0);
        if (p->nhand != expect || p->max_cards < 0 || p->max_cards > g->deal ||
            p->lapsed != g->deal - p->max_cards)
            return game_fail(err, "bad_hand_size", "seat %d holds %d cards, not %d", s, p->nhand,
                             expect);
        if (p->owe > g->turns)
            return game_fail(err, "bad_draw", "seat %d owes a draw for a turn not played", s);
    }
    for (int k = 0; k < SEQNUM_KINDS; k++)
        if (count[k] != seqnum_copies(k))
            return game_fail(err, "cards_lost", "%d %s in play, not %d", count[k],
                             seqnum_card_name(k), seqnum_copies(k));
    for (int c = 0; c < SEQNUM_CELLS; c++)
        if (g->chip[c] < SEQNUM_NO_CHIP || g->chip[c] >= g->nteams ||
            (seqnum_corner(c) && g->chip[c] != SEQNUM_NO_CHIP))
            return game_fail(err, "bad_chip", "cell %d holds chip %d", c, g->chip[c]);
    for (int i = 0; i < g->nseqs; i++)
        for (int k = 0; k < 5; k++) {
            int c = g->seqs[i].cells[k];
            if (!seqnum_corner(c) && g->chip[c] != g->seqs[i].team)
                return game_fail(err, "broken_sequence", "a finished sequence lost cell %d", c);
        }
    if (!g->over && (g->turn < 0 || g->turn >= base->seats))
        return game_fail(err, "bad_turn", "turn %d", g->turn);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Test constructors                                                    */
/* ------------------------------------------------------------------ */

/* Take one card of kind k out of the draw pile, a discard pile, or else another
 * hand (which gets the top card of the pile instead). */
static int take_card(seqnum_t *g, int k, int except)
{
    for (int i = g->ndraw - 1; i >= 0; i--)
        if (g->draw[i] == k) {
            memmove(&g->draw[i], &g->draw[i + 1], (size_t)(g->ndraw - 1 - i));
            g->ndraw--;
            return 0;
        }
    for (int s = 0; s < g->base.seats; s++) {
        seqnum_player_t *p = &g->p[s];
        for (int i = 0; i < p->ndiscards; i++)
            if (p->discards[i] == k) {
                memmove(&p->discards[i], &p->discards[i + 1], (size_t)(p->ndiscards - 1 - i));
                p->ndiscards--;
                return 0;
            }
    }
    for (int s = 0; s < g->base.seats; s++) {
        seqnum_player_t *p = &g->p[s];
        if (s == except || !seqnum_holds(p, k) || g->ndraw == 0) continue;
        seqnum_hand_remove(p, k);
        seqnum_hand_add(p, g->draw[--g->ndraw]);
        return 0;
    }
    return -1;
}

int seqnum_give_hand(seqnum_t *g, int seat, const char *names)
{
    int want[SEQNUM_DECK], n = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", names);
    for (char *save, *w = strtok_r(buf, " ,", &save); w; w = strtok_r(NULL, " ,", &save)) {
        int k = seqnum_card_parse(w);
        if (k < 0 || n == SEQNUM_MAX_HAND) return -1;
        want[n++] = k;
    }
    seqnum_player_t *p = &g->p[seat];
    for (int i = 0; i < p->nhand; i++)
        g->draw[g->ndraw++] = p->hand[i];
    p->nhand = 0;
    for (int i = 0; i < n; i++) {
        if (take_card(g, want[i], seat)) return -1;
        seqnum_hand_add(p, want[i]);
    }
    p->max_cards = n + (p->owe >= 0 ? 1 : 0);
    p->lapsed = g->deal - p->max_cards;
    return p->lapsed < 0 ? -1 : 0;
}

int seqnum_stack_draw(seqnum_t *g, const char *name)
{
    int k = seqnum_card_parse(name);
    if (k < 0 || take_card(g, k, -1)) return -1;
    g->draw[g->ndraw++] = (uint8_t)k;
    return 0;
}

void seqnum_put_chip(seqnum_t *g, int cell, int team)
{
    g->chip[cell] = (int8_t)team;
}
