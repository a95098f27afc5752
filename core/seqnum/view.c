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

#include "core/seqnum/internal.h"
#include "include/tapis_alloc.h"

/* The kit names a card from its byte; seqnum_card_name() takes an int. */
static const char *card_name(uint8_t kind)
{
    return seqnum_card_name(kind);
}

static void write_cards(jw_t *w, const char *key, const uint8_t *cards, int n)
{
    game_write_cards(w, key, cards, n, card_name);
}

/* The dump's hands and draw pile, in the views' shape. */
static json_t *cards_json(const uint8_t *cards, int n)
{
    return game_cards_json(cards, n, card_name);
}

/* What everyone sees of seat s (game_write_players()). */
static void write_player(const game_t *base, int s, jw_t *w)
{
    const seqnum_t *g = (const seqnum_t *)base;
    const seqnum_player_t *p = &g->p[s];
    jw_int(w, "team", seqnum_team(g, s));
    jw_int(w, "cards", p->nhand);
    jw_int(w, "max_cards", p->max_cards);
    jw_bool(w, "owes_draw", p->owe >= 0);
    jw_int(w, "lapsed", p->lapsed);
    write_cards(w, "discards", p->discards, p->ndiscards);
}

/* The public part of the table: identical for every viewer. */
void seqnum_view_public(const game_t *base, jw_t *w)
{
    const seqnum_t *g = (const seqnum_t *)base;
    jw_str(w, "game", "seqnum");
    jw_int(w, "side", SEQNUM_SIDE);
    jw_arr(w, "layout");
    for (int c = 0; c < SEQNUM_CELLS; c++)
        jw_int(w, NULL, seqnum_number(c));
    jw_end(w);
    jw_arr(w, "chips");
    for (int c = 0; c < SEQNUM_CELLS; c++)
        jw_int(w, NULL, g->chip[c]);
    jw_end(w);
    jw_arr(w, "sequences");
    for (int i = 0; i < g->nseqs; i++) {
        jw_obj(w, NULL);
        jw_int(w, "team", g->seqs[i].team);
        jw_arr(w, "cells");
        for (int k = 0; k < 5; k++)
            jw_int(w, NULL, g->seqs[i].cells[k]);
        jw_end(w);
        jw_end(w);
    }
    jw_end(w);
    jw_int(w, "teams", g->nteams);
    jw_int(w, "goal", g->goal);
    jw_int(w, "turn", g->turn);
    jw_int(w, "turns", g->turns);
    jw_int(w, "max_turns", g->max_turns);
    jw_bool(w, "traded", g->traded);
    jw_int(w, "draw_pile", g->ndraw);
    jw_int(w, "reshuffles", g->reshuffles);
    game_write_players(base, w, write_player);
    /* The events (a game_log_t) are kept as their text: a view copies it. */
    game_write_log(w, "events", &g->events);
    jw_bool(w, "over", g->over);
    game_write_result(base, w);
}

/* What only `seat` sees (game_write_own() writes "seat" before and "legal" after). */
void seqnum_view_seat(const game_t *base, int seat, jw_t *w)
{
    const seqnum_t *g = (const seqnum_t *)base;
    jw_int(w, "team", seqnum_team(g, seat));
    write_cards(w, "hand", g->p[seat].hand, g->p[seat].nhand);
}

/* ------------------------------------------------------------------ */
/* Dump: the whole state                                                */
/* ------------------------------------------------------------------ */

void seqnum_dump(const game_t *base, json_t *d)
{
    const seqnum_t *g = (const seqnum_t *)base;
    json_t *hands = json_array(), *owe = json_array();
    for (int s = 0; s < base->seats; s++) {
        json_array_append_new(hands, cards_json(g->p[s].hand, g->p[s].nhand));
        json_array_append_new(owe, json_integer(g->p[s].owe));
    }
    json_object_set_new(d, "hands", hands);
    json_object_set_new(d, "owe", owe);
    json_object_set_new(d, "rng", game_rng_json(&g->rng));
    json_object_set_new(d, "draw", cards_json(g->draw, g->ndraw));
    json_object_set_new(d, "winner", json_integer(g->winner));
    json_object_set_new(d, "reason", g->reason ? json_string(g->reason) : json_null());
    json_object_set_new(d, "options",
                        json_pack("{s:i, s:i, s:i}", "teams", g->nteams, "max_turns", g->max_turns,
                                  "deal", g->deal));
}

/* ------------------------------------------------------------------ */
/* Resample: redraw what `seat` cannot see                              */
/* ------------------------------------------------------------------ */

game_t *seqnum_resample(const game_t *base, int seat, uint64_t seed)
{
    seqnum_t *g = (seqnum_t *)game_copy(base);
    if (!g) return NULL;
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
    game_count_cards(count, g->draw, g->ndraw);
    for (int s = 0; s < base->seats; s++) {
        const seqnum_player_t *p = &g->p[s];
        game_count_cards(count, p->discards, p->ndiscards);
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
    if (game_take_card(g->draw, &g->ndraw, (uint8_t)k)) return 0;
    for (int s = 0; s < g->base.seats; s++)
        if (game_take_card(g->p[s].discards, &g->p[s].ndiscards, (uint8_t)k)) return 0;
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
    int want[SEQNUM_MAX_HAND];
    int n = game_parse_cards(names, seqnum_card_parse, want, SEQNUM_MAX_HAND);
    if (n < 0) return -1;
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
