/*
 * actions.c — 233 actions on the wire: parsing (canonical fields, or the
 * positional "args" of the protocol's inline form), the canonical JSON form,
 * and the list of legal actions.
 *
 * Canonical forms (what legal() lists and what is sent back):
 *   {"type":"draw"}                          draw from the draw pile
 *   {"type":"take","cards":[C,...]}          your turn: the top discard + these make a meld
 *   {"type":"take","final":true}             your turn: the top discard completes a combination
 *   {"type":"take"}                          your turn, option take = "draw": the top discard
 *   {"type":"declare"}                       declare a winning combination before drawing
 *   {"type":"discard","card":C}              discard C
 *   {"type":"discard","card":C,"declare":true}   discard C and declare
 *   {"type":"lay","cards":[C,C,C,C]}         lay a square
 *   {"type":"claim","cards":[C,...]}         out of turn: the discard + these make a meld
 *   {"type":"claim","final":true}            out of turn: the discard completes a combination
 *   {"type":"gift"} / {"type":"gift","to":S} place a drawn +5 / give a drawn or dealt -5 to seat S
 * Card lists are sorted by kind. Inline: "discard Y3", "discard Y3 declare",
 * "claim Y3 Y3", "claim final", "take Y3 Y3", "take final", "take",
 * "lay B2 B2 B2 B2", "gift 2".
 */
#include <stdlib.h>
#include <string.h>

#include "core/233/internal.h"

static const char *const type_names[] = {"draw", "take",  "declare", "discard",
                                         "lay",  "claim", "gift"};

static int cmp_card(const void *a, const void *b)
{
    return (int)*(const g233_card_t *)a - (int)*(const g233_card_t *)b;
}

/* Read the card names of `list` (an array of strings) into a->cards. */
static int parse_cards(const json_t *list, size_t from, g233_act_t *a, int min, int max,
                       game_error_t *err)
{
    if (!json_is_array(list)) return game_bad_action(err, "\"cards\" must be a list of card names");
    size_t n = json_array_size(list);
    if (n < from || (int)(n - from) < min || (int)(n - from) > max)
        return game_fail(err, TAPIS_E_BAD_ACTION, "give %d to %d cards", min, max);
    a->ncards = 0;
    for (size_t i = from; i < n; i++) {
        int c = g233_card_parse(json_string_value(json_array_get(list, i)));
        if (c < 0) return game_fail(err, "unknown_card", "no such card in 233");
        a->cards[a->ncards++] = (g233_card_t)c;
    }
    qsort(a->cards, (size_t)a->ncards, 1, cmp_card);
    return 0;
}

int g233_parse(const json_t *o, g233_act_t *a, game_error_t *err)
{
    memset(a, 0, sizeof *a);
    a->card = -1;
    a->to = -1;
    const json_t *args;
    int t = game_action_open(o, type_names, GAME_COUNT(type_names), "233", &args, err);
    if (t < 0) return -1;
    a->type = (g233_act_type_t)t;
    size_t nargs = json_array_size(args);
    static const char *const discard_keys[] = {"card", "declare", NULL};
    static const char *const cards_keys[] = {"cards", "final", NULL};
    static const char *const gift_keys[] = {"to", NULL};

    switch (a->type) {
    case G233_ACT_DRAW:
    case G233_ACT_DECLARE:
        if (!game_action_bare(o)) return game_bad_action(err, "this action takes no arguments");
        return 0;
    case G233_ACT_DISCARD: {
        if (!game_action_keys_ok(o, discard_keys))
            return game_bad_action(err, "discard takes \"card\" and \"declare\"");
        const json_t *card = nargs ? json_array_get(args, 0) : json_object_get(o, "card");
        if (!json_is_string(card)) return game_bad_action(err, "discard needs a \"card\"");
        a->card = g233_card_parse(json_string_value(card));
        if (a->card < 0) return game_fail(err, "unknown_card", "no such card in 233");
        /* Its keys are known (type, and card, args or declare), and a card was
           found: with two, there is no "declare" to look up. */
        const json_t *d = json_object_size(o) > 2 ? json_object_get(o, "declare") : NULL;
        if (d && !json_is_true(d)) return game_bad_action(err, "\"declare\" is true, or left out");
        if (nargs > 2 || (nargs == 2 &&
                          strcmp(json_string_value(json_array_get(args, 1)) ?: "", "declare") != 0))
            return game_bad_action(err, "inline: discard CARD [declare]");
        a->declare = json_is_true(d) || nargs == 2;
        return 0;
    }
    case G233_ACT_LAY:
        if (!game_action_keys_ok(o, cards_keys) || json_object_get(o, "final"))
            return game_bad_action(err, "lay takes \"cards\"");
        return parse_cards(nargs ? args : json_object_get(o, "cards"), 0, a, 4, 4, err);
    case G233_ACT_TAKE:
        if (game_action_bare(o)) return 0; /* option take = "draw" */
        /* fall through */
    case G233_ACT_CLAIM: {
        if (!game_action_keys_ok(o, cards_keys))
            return game_bad_action(err, "claim and take take \"cards\" or \"final\"");
        const json_t *f = json_object_get(o, "final");
        if (f && !json_is_true(f)) return game_bad_action(err, "\"final\" is true, or left out");
        if (nargs == 1 && strcmp(json_string_value(json_array_get(args, 0)) ?: "", "final") == 0)
            a->final = true;
        else
            a->final = json_is_true(f);
        if (a->final) {
            if (json_object_get(o, "cards"))
                return game_bad_action(err, "claim and take take \"cards\" or \"final\"");
            return 0;
        }
        return parse_cards(nargs ? args : json_object_get(o, "cards"), 0, a, 1, 3, err);
    }
    case G233_ACT_GIFT: {
        if (!game_action_keys_ok(o, gift_keys)) return game_bad_action(err, "gift takes \"to\"");
        const json_t *to = nargs ? json_array_get(args, 0) : json_object_get(o, "to");
        if (nargs > 1) return game_bad_action(err, "inline: gift [SEAT]");
        if (json_is_string(to)) {
            char *end;
            long v = strtol(json_string_value(to), &end, 10);
            if (*end || end == json_string_value(to) || v < 0 || v >= GAME_MAX_SEATS)
                return game_bad_action(err, "\"to\" must be a seat number");
            a->to = (int)v;
        } else if (to) {
            if (!json_is_integer(to)) return game_bad_action(err, "\"to\" must be a seat number");
            json_int_t v = json_integer_value(to);
            a->to = v < 0 || v >= GAME_MAX_SEATS ? GAME_MAX_SEATS : (int)v;
        }
        return 0;
    }
    }
    return game_bad_action(err, "unknown action");
}

/* A discard's canonical text, per kind, without and with "declare" (what
   act_write() below writes for it: test_conformance checks the text end
   against the tree end). */
#define DISCARD_TEXT(name, more)                                                                   \
    {                                                                                              \
        "{\"type\":\"discard\",\"card\":\"" name "\"" more "}",                                    \
            sizeof "{\"type\":\"discard\",\"card\":\"" name "\"" more "}" - 1                      \
    }
#define DISCARD(name) DISCARD_TEXT(name, "")
#define DISCARD_DECLARE(name) DISCARD_TEXT(name, ",\"declare\":true")
static const g233_text_t discard_texts[2][G233_KINDS] = {{G233_CARD_NAMES(DISCARD)},
                                                         {G233_CARD_NAMES(DISCARD_DECLARE)}};
#undef DISCARD_DECLARE
#undef DISCARD
#undef DISCARD_TEXT

/* Written for every legal action of every view: static ASCII keys and names. */
static void act_write(jw_t *w, const g233_act_t *a)
{
    if (a->type == G233_ACT_DISCARD && jw_is_text(w)) { /* most of a legal list */
        const g233_text_t *t = &discard_texts[a->declare][a->card];
        jw_json_text(w, NULL, NULL, t->text, t->n);
        return;
    }
    jw_obj(w, NULL);
    jw_str(w, "type", type_names[a->type]);
    switch (a->type) {
    case G233_ACT_DISCARD:
        jw_str(w, "card", g233_card_name((g233_card_t)a->card));
        if (a->declare) jw_bool(w, "declare", true);
        break;
    case G233_ACT_TAKE:
        if (!a->ncards && !a->final) break;
        /* fall through */
    case G233_ACT_CLAIM:
        if (a->final) {
            jw_bool(w, "final", true);
            break;
        }
        /* fall through */
    case G233_ACT_LAY: g233_write_cards(w, "cards", a->cards, a->ncards); break;
    case G233_ACT_GIFT:
        if (a->to >= 0) jw_int(w, "to", a->to);
        break;
    default: break;
    }
    jw_end(w);
}

/* ------------------------------------------------------------------ */
/* Legal actions: candidates the referee accepts                        */
/* ------------------------------------------------------------------ */

static void offer(const g233_t *g, int seat, const g233_act_t *a, jw_t *out)
{
    /* err NULL: a legal list asks only whether, and formats no refusal */
    if (g233_check(g, seat, a, NULL) == 0) act_write(out, a);
}

/* Every multiset of `size` cards from the kinds in `pool` that seat holds. */
static void claim_sets(const g233_t *g, int seat, const int *pool, int npool, int from,
                       g233_act_t *a, int size, jw_t *out)
{
    if (a->ncards == size) {
        offer(g, seat, a, out);
        return;
    }
    const g233_hand_t *h = &g->p[seat].hand;
    for (int i = from; i < npool; i++) {
        int used = 0;
        for (int k = 0; k < a->ncards; k++)
            used += a->cards[k] == pool[i];
        if (h->n[pool[i]] <= used) continue;
        a->cards[a->ncards++] = (g233_card_t)pool[i];
        claim_sets(g, seat, pool, npool, i, a, size, out);
        a->ncards--;
    }
}

/* The claims (or the turn player's takes, `type`) of the top discard seat may make. */
static void legal_melds(const g233_t *g, int seat, g233_act_type_t type, jw_t *out)
{
    if (!g->ndiscard) return;
    int t = g->discard[g->ndiscard - 1];
    g233_act_t a = {.type = type, .card = -1, .to = -1};
    if (type == G233_ACT_CLAIM && g233_claim_gate(g, seat, NULL)) return;
    a.final = true;
    offer(g, seat, &a, out);
    a.final = false;

    /* The kinds held that may join t (any groupable kind when t is a joker;
       with claim_sequences, the numbers of its colour within 2), then jokers. */
    const uint64_t groupable = ((uint64_t)1 << G233_CARD_REVERSE) - 1;
    uint64_t useful = t == G233_CARD_JOKER ? groupable : ((uint64_t)1 << t) & groupable;
    if (g->claim_sequences && g233_card_is_number((g233_card_t)t))
        useful |=
            ((uint64_t)0x1F << t >> 2) & ((uint64_t)0xFF << 8 * g233_card_colour((g233_card_t)t));
    int pool[G233_KINDS], npool = 0;
    for (uint64_t k = useful & g233_hand_kinds(&g->p[seat].hand); k; k &= k - 1)
        pool[npool++] = __builtin_ctzll(k);
    if (g->p[seat].hand.n[G233_CARD_JOKER]) pool[npool++] = G233_CARD_JOKER;
    for (int size = 2; size <= 3; size++)
        claim_sets(g, seat, pool, npool, 0, &a, size, out);
}

void g233_legal(const game_t *base, int seat, jw_t *out)
{
    const g233_t *g = (const g233_t *)base;
    if (g->phase == G233_PH_OVER || seat < 0 || seat >= base->seats) return;
    if (g233_placing(g)) { /* dealt -5s first: their holders give them, nobody else acts */
        g233_act_t a = {.type = G233_ACT_GIFT, .card = -1};
        for (a.to = 0; a.to < base->seats && g->p[seat].to_place; a.to++)
            offer(g, seat, &a, out);
        return;
    }
    if (seat != g->turn) {
        legal_melds(g, seat, G233_ACT_CLAIM, out);
        return;
    }
    const g233_hand_t *h = &g->p[seat].hand;
    g233_act_t a = {.card = -1, .to = -1};
    switch (g->phase) {
    case G233_PH_DRAW:
        for (int t = G233_ACT_DRAW; t <= G233_ACT_DECLARE; t++) {
            a.type = (g233_act_type_t)t;
            if (t == G233_ACT_TAKE && !g->take_draw)
                legal_melds(g, seat, G233_ACT_TAKE, out);
            else
                offer(g, seat, &a, out);
        }
        break;
    case G233_PH_GIFT:
        a.type = G233_ACT_GIFT;
        if (h->n[G233_CARD_GIFT_MINUS]) {
            for (int s = 0; s < base->seats; s++) {
                a.to = s;
                offer(g, seat, &a, out);
            }
        } else {
            offer(g, seat, &a, out);
        }
        /* A rainbow may be declared with the gift: */
        /* fall through */
    case G233_PH_DISCARD:
        a.to = -1;
        a.type = G233_ACT_LAY;
        const uint64_t held = g233_hand_kinds(h); /* the kinds to try, in order */
        const uint64_t groupable = ((uint64_t)1 << G233_CARD_REVERSE) - 1;
        for (uint64_t k = g->phase == G233_PH_DISCARD ? held & groupable : 0; k; k &= k - 1)
            for (int j = 0, c = __builtin_ctzll(k); j <= h->n[G233_CARD_JOKER] && j <= 2; j++) {
                if (h->n[c] < 4 - j) continue;
                for (int i = 0; i < 4; i++)
                    a.cards[i] = (g233_card_t)(i < 4 - j ? c : G233_CARD_JOKER);
                a.ncards = 4;
                offer(g, seat, &a, out);
            }
        a.type = G233_ACT_DISCARD;
        g233_discard_memo_t memo = {0}; /* which discards win, found once for the list */
        for (int d = 0; d <= 1; d++)
            for (uint64_t k = held; k; k &= k - 1) {
                int c = __builtin_ctzll(k);
                /* a declaring discard that wins nothing is refused (no_combination) */
                if (d && memo.known && !(memo.wins >> c & 1)) continue;
                a.card = c;
                a.declare = d;
                if (g233_check_with(g, seat, &a, NULL, &memo) == 0) act_write(out, &a);
            }
        break;
    case G233_PH_OVER: break;
    }
}
