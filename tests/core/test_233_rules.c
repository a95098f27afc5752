/*
 * test_233_rules.c — one test per rule of 233 (core/233/RULES.md), on
 * hand-built states: the table is created with a fixed seed, then hands and
 * the tops of the piles are set with the test constructors of g233.h, and
 * the rule is exercised through the public apply() with JSON actions.
 *
 * Length: over 800 lines because it is the one catalogue of 233's rules, in
 * the order of RULES.md; splitting it would scatter that correspondence.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/233/g233.h"
#include "core/233/internal.h"
#include "core/search.h"

#include "tests/core/game_test.h"
#include "tests/lib/test_main.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                              */
/* ------------------------------------------------------------------ */

/*
 * A table whose deal was plain (the first such seed from 42 up), so that a
 * test's hands and scores start clean; the tests of the deal itself pick
 * their seeds with deal_with().
 */
static g233_t *table(int seats, const char *opts)
{
    return gt_233_plain_table(seats, opts, 42);
}

/* The first table (seeds 1..20000) whose deal satisfies `want` (the test fails without one). */
static g233_t *deal_with(int seats, const char *opts, bool (*want)(const g233_t *))
{
    for (uint64_t seed = 1; seed <= 20000; seed++) {
        g233_t *g = (g233_t *)gt_table(&g233_desc, seats, opts, seed);
        if (want(g)) return g;
        game_free(&g->base);
    }
    fail_msg("no deal of %d seats to test", seats);
    return NULL;
}

static int count_events(const g233_t *g, const char *did, const char *card)
{
    int n = 0;
    size_t i;
    json_t *e, *events = gt_log(&g->events);
    json_array_foreach(events, i, e)
    {
        const char *c = json_string_value(json_object_get(e, "card"));
        n += strcmp(json_string_value(json_object_get(e, "did")), did) == 0 &&
             (!card || (c && strcmp(c, card) == 0));
    }
    return n;
}

static unsigned waiting(g233_t *g)
{
    return g233_desc.waiting(&g->base);
}

static void hand(g233_t *g, int seat, const char *names)
{
    assert_int_equal(g233_give_hand(g, seat, names), 0);
}

static void next_draw(g233_t *g, const char *name)
{
    assert_int_equal(g233_stack_draw(g, name), 0);
}

static void top(g233_t *g, const char *name, int discarder)
{
    assert_int_equal(g233_stack_discard(g, name, discarder), 0);
}

static int held(g233_t *g, int seat)
{
    return g233_hand_size(&g->p[seat].hand);
}

/* Lock a triple of `name` (taken from the draw pile) in front of `seat`, as a claim would. */
static void lock_triple(g233_t *g, int seat, const char *name)
{
    g233_group_t *m = &g->p[seat].melds[g->p[seat].nmelds++];
    m->kind = G233_GROUP_TRIPLE;
    m->n = 3;
    for (int i = 0; i < 3; i++) {
        next_draw(g, name);
        m->cards[i] = g->draw[--g->ndraw];
    }
}

/* `seat`, whose turn it is, draws `card` (stacked on the draw pile) at `now`. */
static void draws(g233_t *g, int seat, const char *card, int64_t now)
{
    next_draw(g, card);
    OK(g, seat, "{\"type\":\"draw\"}", now);
}

/* `seat`'s action is neither listed nor accepted: refused with `code`. */
/* Seat 0 (dealer) draws `drawn` and discards `discarded`. */
static void turn0(g233_t *g, const char *drawn, const char *discarded, int64_t now)
{
    char a[96];
    draws(g, 0, drawn, now);
    snprintf(a, sizeof a, "{\"type\":\"discard\",\"card\":\"%s\"}", discarded);
    OK(g, 0, a, now);
}

/* A hand that makes no group, no claim and no combination: seat 0's in most tests. */
#define PLAIN "Y1 Y5 B2 B7 G3 G8 red pink"

/*
 * A position on a plain table of `seats` (options `opts`): hands[s] given
 * to seat s (NULL: as dealt), scores[s] set where not 0, then seat 0 (the
 * dealer) draws `drawn` (NULL: not yet) and discards `discarded` at 0.
 */
typedef struct {
    int seats;
    const char *opts;
    const char *hands[G233_MAX_SEATS];
    int scores[G233_MAX_SEATS];
    const char *drawn, *discarded;
} position_t;

static g233_t *position(const position_t *p)
{
    g233_t *g = table(p->seats, p->opts);
    for (int s = 0; s < p->seats; s++) {
        if (p->hands[s]) hand(g, s, p->hands[s]);
        if (p->scores[s]) g->p[s].score = p->scores[s];
    }
    if (p->drawn && p->discarded) {
        turn0(g, p->drawn, p->discarded, 0);
    } else if (p->drawn) {
        draws(g, 0, p->drawn, 0);
    }
    return g;
}

/* ------------------------------------------------------------------ */
/* Deal and turn                                                        */
/* ------------------------------------------------------------------ */

static void deck_has_the_140_cards_of_the_seed(void **state)
{
    (void)state;
    int total = 0;
    for (int c = 0; c < G233_KINDS; c++)
        total += g233_card_copies((g233_card_t)c);
    assert_int_equal(total, 140);
    assert_int_equal(g233_card_copies(g233_card_number(0, 1)) * 24, 96);
    assert_int_equal(g233_card_copies(G233_CARD_SYMBOL) * 4, 20);
    assert_int_equal(g233_card_copies(G233_CARD_REVERSE), 6);
    assert_int_equal(g233_card_copies(G233_CARD_JOKER), 2);
    assert_int_equal(g233_card_copies(G233_CARD_GIFT_PLUS) + g233_card_copies(G233_CARD_GIFT_MINUS),
                     10);
    assert_int_equal(g233_card_copies(G233_CARD_STOP), 6);
    for (int c = 0; c < G233_KINDS; c++)
        assert_int_equal(g233_card_parse(g233_card_name((g233_card_t)c)), c);
    /* Names are read case-insensitively; others are no card. */
    assert_int_equal(g233_card_parse("y3"), g233_card_number(0, 3));
    assert_int_equal(g233_card_parse("b8"), g233_card_number(1, 8));
    assert_int_equal(g233_card_parse("G1"), g233_card_number(2, 1));
    assert_int_equal(g233_card_parse("JOKER"), G233_CARD_JOKER);
    static const char *const none[] = {"Y0", "Y9", "R1", "Y", "Y33", "y3 ", "", "Ÿ3"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        assert_int_equal(g233_card_parse(none[i]), -1);
    assert_int_equal(g233_card_parse(NULL), -1);
}

static void deal_gives_eight_each_and_turns_up_one(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        int seats = 2 + (int)(seed % 5), dealt = 0, laid = 0;
        g233_t *g = (g233_t *)gt_table(&g233_desc, seats, NULL, seed);
        audit_ok(g);
        for (int s = 0; s < seats; s++) {
            const g233_player_t *p = &g->p[s];
            /* Eight cards kept, plus the -5s still to give; a +5 is never held. */
            assert_int_equal(held(g, s), 8 + p->to_place);
            assert_int_equal(p->hand.n[G233_CARD_GIFT_MINUS], p->to_place);
            assert_int_equal(p->hand.n[G233_CARD_GIFT_PLUS], 0);
            assert_int_equal(p->score, 5 * p->gifts_plus);
            dealt += held(g, s);
            laid += p->gifts_plus;
        }
        assert_int_equal(g->ndiscard, 1);
        int up = g->discard[0];
        assert_true(up != G233_CARD_STOP && up != G233_CARD_GIFT_PLUS &&
                    up != G233_CARD_GIFT_MINUS);
        assert_int_equal(g->ndraw, 140 - dealt - laid - 1);
        game_free(&g->base);
    }
}

/* Counts over many deals of four: the deal takes every card as it comes. */
static void deal_is_from_all_140_cards(void **state)
{
    (void)state;
    int deals = 500, stops = 0, plus = 0, minus = 0;
    for (int i = 0; i < deals; i++) {
        g233_t *g = (g233_t *)gt_table(&g233_desc, 4, NULL, 5000 + (uint64_t)i);
        for (int s = 0; s < 4; s++) {
            stops += g->p[s].hand.n[G233_CARD_STOP];
            plus += g->p[s].gifts_plus;
            minus += g->p[s].to_place;
        }
        game_free(&g->base);
    }
    /* 32 cards kept from the 130 that are not gifts (6 of them stops): about
     * 1.48 stops a deal; and 32 * 10/130, about 2.46 gifts, half of each kind. */
    assert_in_range(stops, 500, 1000);
    assert_in_range(plus, 400, 900);
    assert_in_range(minus, 400, 900);
}

static bool deals_a_plus_gift(const g233_t *g)
{
    for (int s = 0; s < g->base.seats; s++)
        if (g->p[s].gifts_plus) return true;
    return false;
}

static void dealt_plus_gift_is_laid_at_once_and_replaced(void **state)
{
    (void)state;
    g233_t *g = deal_with(3, NULL, deals_a_plus_gift);
    int laid = 0;
    for (int s = 0; s < 3; s++) {
        const g233_player_t *p = &g->p[s];
        laid += p->gifts_plus;
        assert_int_equal(p->score, 5 * p->gifts_plus);
        assert_int_equal(p->hand.n[G233_CARD_GIFT_PLUS], 0);
        assert_int_equal(held(g, s) - p->to_place, 8); /* replaced */
    }
    assert_true(laid > 0);
    /* Laid face up: everyone sees it among the events and in front of its holder. */
    assert_int_equal(count_events(g, "gift", "gift+5"), laid);
    json_t *v = game_view(&g->base, GAME_SPECTATOR);
    int shown = 0;
    for (int s = 0; s < 3; s++)
        shown += (int)json_integer_value(json_object_get(
            json_array_get(json_object_get(v, "players"), (size_t)s), "gifts_plus"));
    assert_int_equal(shown, laid);
    json_decref(v);
    game_free(&g->base);
}

static bool deals_a_minus_gift(const g233_t *g)
{
    return g233_placing(g) != 0;
}

static void dealt_minus_gift_waits_in_its_holders_hand(void **state)
{
    (void)state;
    g233_t *g = deal_with(4, NULL, deals_a_minus_gift);
    unsigned holders = 0;
    for (int s = 0; s < 4; s++) {
        if (!g->p[s].to_place) {
            assert_int_equal(gt_legal_count(&g->base, s), 0); /* nobody else acts */
            continue;
        }
        holders |= 1u << s;
        assert_int_equal(g->p[s].hand.n[G233_CARD_GIFT_MINUS], g->p[s].to_place);
        assert_int_equal(gt_legal_count(&g->base, s), 3); /* one gift per other seat */
    }
    assert_int_equal(waiting(g), holders);
    assert_int_equal(g->phase, G233_PH_DRAW);
    assert_int_equal(g->turn, 0);
    game_free(&g->base);
}

static void dealt_minus_gift_is_given_before_the_dealers_first_draw(void **state)
{
    (void)state;
    g233_t *g =
        position(&(position_t){4, NULL, .hands = {[2] = "Y1 Y5 B2 B7 G3 G8 red pink gift-5"}});
    audit_ok(g);
    assert_int_equal(waiting(g), 1u << 2);
    refused(g, 0, "{\"type\":\"draw\"}", 0, "deal_pending");
    refused(g, 0, "{\"type\":\"take\"}", 0, "deal_pending");
    refused(g, 1, "{\"type\":\"gift\",\"to\":3}", 0, "deal_pending");
    refused(g, 2, "{\"type\":\"discard\",\"card\":\"Y1\"}", 0, "must_place_gift");
    refused(g, 2, "{\"type\":\"gift\"}", 0, "bad_target");
    refused(g, 2, "{\"type\":\"gift\",\"to\":2}", 0, "bad_target");
    refused(g, 2, "{\"type\":\"gift\",\"to\":4}", 0, "bad_target");
    assert_int_equal(gt_legal_count(&g->base, 0), 0);
    assert_int_equal(gt_legal_count(&g->base, 2), 3);
    assert_true(legal_has(g, 2, "{\"type\":\"gift\",\"to\":3}"));
    json_t *v = game_view(&g->base, GAME_SPECTATOR);
    assert_false(json_is_true(json_object_get(v, "claim_open")));
    json_decref(v);
    OK(g, 2, "{\"type\":\"gift\",\"args\":[\"3\"]}", 0);
    assert_int_equal(g->p[3].score, -5);
    assert_int_equal(g->p[3].gifts_minus, 1);
    assert_int_equal(held(g, 2), 8);
    assert_int_equal(count_events(g, "gift", "gift-5"), 1);
    /* The deal is settled: the dealer opens. */
    assert_int_equal(waiting(g), 1u << 0);
    assert_int_equal(g->turn, 0);
    OK(g, 0, "{\"type\":\"draw\"}", 0);
    game_free(&g->base);
}

static void dealt_minus_gifts_are_given_all_at_once(void **state)
{
    (void)state;
    g233_t *g =
        position(&(position_t){4, NULL,
                               .hands = {"Y2 Y6 B3 B8 G4 G7 pink orange gift-5",
                                         [3] = "Y1 Y5 B2 B7 G3 G8 red pink gift-5 gift-5"}});
    audit_ok(g);
    /* Both holders at once, in whatever order they act; the dealer too. */
    assert_int_equal(waiting(g), (1u << 0) | (1u << 3));
    assert_int_equal(gt_legal_count(&g->base, 0), 3);
    assert_int_equal(gt_legal_count(&g->base, 3), 3);
    OK(g, 3, "{\"type\":\"gift\",\"to\":1}", 0);
    assert_int_equal(waiting(g), (1u << 0) | (1u << 3)); /* seat 3 has a second one */
    OK(g, 0, "{\"type\":\"gift\",\"to\":1}", 0);
    assert_int_equal(waiting(g), 1u << 3);
    refused(g, 0, "{\"type\":\"draw\"}", 0, "deal_pending");
    OK(g, 3, "{\"type\":\"gift\",\"to\":2}", 0);
    assert_int_equal(g->p[1].score, -10);
    assert_int_equal(g->p[2].score, -5);
    assert_int_equal(waiting(g), 1u << 0);
    OK(g, 0, "{\"type\":\"draw\"}", 0);
    game_free(&g->base);
}

static void dealt_minus_gift_defaults_to_the_leader(void **state)
{
    (void)state;
    g233_t *g =
        position(&(position_t){4, NULL, .hands = {[2] = "Y1 Y5 B2 B7 G3 G8 red pink gift-5"},
                               .scores = {10, [1] = 30, [3] = 60}});
    /* The turn timer runs out for the holder: the -5 goes to the leader. */
    json_t *a = g233_desc.default_action(&g->base, 2);
    json_t *want = json_pack("{s:s, s:i}", "type", "gift", "to", 3);
    assert_true(json_equal(a, want));
    assert_null(g233_desc.default_action(&g->base, 0)); /* the dealer is not waited on */
    game_error_t err;
    assert_int_equal(game_apply(&g->base, 2, a, 0, &err), 0);
    assert_int_equal(g->p[3].score, 55);
    json_decref(a);
    json_decref(want);
    game_free(&g->base);
}

static void dealt_minus_gift_is_shown_to_its_holder_only(void **state)
{
    (void)state;
    g233_t *g =
        position(&(position_t){4, NULL, .hands = {[2] = "Y1 Y5 B2 B7 G3 G8 red pink gift-5"}});
    for (int s = GAME_SPECTATOR; s < 4; s++) {
        json_t *v = game_view(&g->base, s);
        char *text = json_dumps(v, JSON_COMPACT);
        if (s == 2)
            assert_non_null(strstr(text, "gift-5")); /* in its hand, and its legal gifts */
        else
            assert_null(strstr(text, "gift-5"));
        free(text);
        json_decref(v);
    }
    /* Once given, it lies face up for everyone to see. */
    OK(g, 2, "{\"type\":\"gift\",\"to\":1}", 0);
    json_t *v = game_view(&g->base, GAME_SPECTATOR);
    char *text = json_dumps(v, JSON_COMPACT);
    assert_non_null(strstr(text, "gift-5"));
    free(text);
    json_decref(v);
    game_free(&g->base);
}

/* Seat 1 was dealt a stop; nobody has a -5 to give. */
static bool deals_seat1_a_stop(const g233_t *g)
{
    return g->p[1].hand.n[G233_CARD_STOP] == 1 && !g->p[0].hand.n[G233_CARD_STOP] &&
           !g233_placing(g) && g->declarer < 0;
}

static void dealt_stop_is_its_holders_forced_first_discard(void **state)
{
    (void)state;
    g233_t *g = deal_with(3, NULL, deals_seat1_a_stop);
    /* It stays in hand while the others play... */
    draws(g, 0, "Y1", 0);
    OK(g, 0, "{\"type\":\"discard\",\"card\":\"Y1\"}", 0);
    assert_int_equal(g->p[1].hand.n[G233_CARD_STOP], 1);
    /* ...then it is the holder's discard at their first turn, and acts. */
    draws(g, 1, "B1", 0);
    refused(g, 1, "{\"type\":\"discard\",\"card\":\"B1\"}", 0, "must_discard_stop");
    json_t *legal = game_legal(&g->base, 1);
    size_t i;
    json_t *a;
    json_array_foreach(legal, i, a)
        assert_string_equal(json_string_value(json_object_get(a, "card")), "stop");
    json_decref(legal);
    OK(g, 1, "{\"type\":\"discard\",\"card\":\"stop\"}", 0);
    assert_int_equal(g->turn, 0); /* seat 2 loses its turn */
    game_free(&g->base);
}

static void table_sizes_outside_two_to_six_are_refused(void **state)
{
    (void)state;
    gt_new_refused(&g233_desc, 1, NULL, "bad_players");
    gt_new_refused(&g233_desc, 7, NULL, "bad_players");
    gt_new_refused(&g233_desc, 3, "{\"dispute_ms\":-5}", "bad_option");
    gt_new_refused(&g233_desc, 3, "{\"no_such_option\":1}", "bad_option");
}

static void passed_over_gifts_and_stops_are_shuffled_back(void **state)
{
    (void)state;
    /* Over many deals, the top of the draw pile is a gift or stop about as often
     * as its share of the pile (16 of ~123 cards), not nearly always. */
    int special = 0, deals = 400;
    for (int i = 0; i < deals; i++) {
        game_t *base = gt_table(&g233_desc, 2, NULL, (uint64_t)i + 1000);
        g233_t *g = (g233_t *)base;
        int top = g->draw[g->ndraw - 1];
        special +=
            top == G233_CARD_STOP || top == G233_CARD_GIFT_PLUS || top == G233_CARD_GIFT_MINUS;
        game_free(base);
    }
    assert_in_range(special, 10, 120); /* expected ~52 */
}

static void dealer_opens_by_drawing(void **state)
{
    (void)state;
    g233_t *g = table(4, NULL);
    assert_int_equal(g->turn, 0);
    assert_true(legal_has(g, 0, "{\"type\":\"draw\"}"));
    refused(g, 1, "{\"type\":\"draw\"}", 0, "not_your_turn");
    refused(g, 0, "{\"type\":\"discard\",\"card\":\"Y1\"}", 0, "must_draw");
    game_free(&g->base);
}

static void turn_is_draw_one_then_discard_one_clockwise(void **state)
{
    (void)state;
    g233_t *g = position(&(position_t){4, NULL, .hands = {PLAIN}, .drawn = "orange"});
    assert_int_equal(held(g, 0), 9);
    refused(g, 0, "{\"type\":\"draw\"}", 0, "must_discard");
    refused(g, 0, "{\"type\":\"discard\",\"card\":\"G1\"}", 0, "not_in_hand");
    OK(g, 0, "{\"type\":\"discard\",\"card\":\"orange\"}", 0);
    assert_int_equal(held(g, 0), 8);
    assert_int_equal(g->turn, 1);
    assert_int_equal(g->discard[g->ndiscard - 1], G233_CARD_SYMBOL + 3);
    game_free(&g->base);
}

static void inline_args_form_is_accepted(void **state)
{
    (void)state;
    g233_t *g = position(&(position_t){3, NULL, .hands = {PLAIN}});
    next_draw(g, "orange");
    OK(g, 0, "{\"type\":\"draw\",\"args\":[]}", 0);
    refused(g, 0, "{\"type\":\"discard\",\"args\":[\"Q9\"]}", 0, "unknown_card");
    refused(g, 0, "{\"type\":\"discard\",\"card\":\"Y1\",\"colour\":1}", 0, "bad_action");
    refused(g, 0, "{\"type\":\"fly\"}", 0, "unknown_action");
    OK(g, 0, "{\"type\":\"discard\",\"args\":[\"ORANGE\"]}", 0);
    game_free(&g->base);
}

/*
 * Option take = "claim" (the default): on one's own turn too, the top discard
 * is taken only to lay at once the triple or square it makes (5 cards stay in
 * hand after the discard), or to complete a winning combination; never for a
 * double, never as a plain draw.
 */
static void own_turn_take_obeys_a_claims_conditions(void **state)
{
    (void)state;
    json_t *d = game_default_options(&g233_desc);
    assert_string_equal(json_string_value(json_object_get(d, "take")), "claim");
    json_decref(d);
    gt_new_refused(&g233_desc, 3, "{\"take\":\"maybe\"}", "bad_option");
    g233_t *g = position(&(position_t){3, "{\"dispute_ms\":0}", .hands = {PLAIN}});
    top(g, "G4", -1);
    /* G4 makes no group with this hand: it stays on the pile. */
    forbidden(g, 0, "{\"type\":\"take\"}", 0, "cannot_take");
    forbidden(g, 0, "{\"type\":\"take\",\"final\":true}", 0, "cannot_claim");
    refused(g, 0, "{\"type\":\"take\",\"cards\":[\"G4\",\"G4\"]}", 0, "not_in_hand");
    game_free(&g->base);
    /* A pair of reds and the discarded red would be a double: refused, as a claim. */
    g = position(&(position_t){3, "{\"dispute_ms\":0}", .hands = {"Y1 Y5 B2 B7 G3 G8 red pink"}});
    top(g, "red", -1);
    forbidden(g, 0, "{\"type\":\"take\",\"cards\":[\"red\"]}", 0, "cannot_claim");
    game_free(&g->base);
    /* G4 G4 and the discard: the triple is laid at once, then a discard. */
    g = position(&(position_t){3, "{\"dispute_ms\":0}", .hands = {"Y1 Y5 B2 B7 G4 G4 red pink"}});
    top(g, "G4", -1);
    assert_int_equal(gt_legal_count(&g->base, 0), 2); /* draw, and this take */
    assert_true(legal_has(g, 0, "{\"type\":\"take\",\"cards\":[\"G4\",\"G4\"]}"));
    OK(g, 0, "{\"type\":\"take\",\"args\":[\"G4\",\"G4\"]}", 0); /* inline: take G4 G4 */
    assert_int_equal(g->p[0].nmelds, 1);
    assert_int_equal(g->p[0].melds[0].kind, G233_GROUP_TRIPLE);
    assert_int_equal(g->phase, G233_PH_DISCARD);
    assert_int_equal(g->turn, 0);
    assert_int_equal(count_events(g, "take", "G4"), 1);
    OK(g, 0, "{\"type\":\"discard\",\"card\":\"Y1\"}", 0);
    assert_int_equal(held(g, 0), 5);
    assert_int_equal(g->turn, 1);
    game_free(&g->base);
    /* Completing a 2-3-3 with the discard's double: take final, then discard and declare. */
    g = position(&(position_t){3, "{\"dispute_ms\":0}", .hands = {"Y2 Y2 Y2 G5 G6 G7 orange B1"}});
    top(g, "orange", -1);
    OK(g, 0, "{\"type\":\"take\",\"final\":true}", 0);
    refused(g, 0, "{\"type\":\"discard\",\"card\":\"B1\"}", 0, "must_declare");
    OK(g, 0, "{\"type\":\"discard\",\"card\":\"B1\",\"declare\":true}", 0);
    assert_int_equal(g->declared, G233_COMBO_233);
    game_free(&g->base);
}

/* Option take = "draw" (the earlier reading): the top discard is a plain draw. */
static void own_turn_take_is_a_plain_draw_with_option_take_draw(void **state)
{
    (void)state;
    g233_t *g =
        position(&(position_t){3, "{\"dispute_ms\":0,\"take\":\"draw\"}", .hands = {PLAIN}});
    top(g, "G4", -1);
    refused(g, 0, "{\"type\":\"take\",\"cards\":[\"G4\",\"G4\"]}", 0, "bad_action");
    /* G4 makes no group with this hand: with this option no laying rule applies. */
    OK(g, 0, "{\"type\":\"take\"}", 0);
    assert_int_equal(g->p[0].hand.n[g233_card_number(2, 4)], 1);
    assert_int_equal(g->phase, G233_PH_DISCARD);
    assert_int_equal(g->p[0].nmelds, 0);
    OK(g, 0, "{\"type\":\"discard\",\"card\":\"Y1\"}", 0);
    assert_int_equal(held(g, 0), 8);
    assert_int_equal(g->turn, 1);
    game_free(&g->base);
}

/*
 * The view does not name the option take, but the "hard" bot's states drawn
 * from a view (g233_from_view) must offer the same actions: a bare take
 * offered says take = "draw".
 */
static void states_drawn_from_a_view_keep_option_take(void **state)
{
    (void)state;
    for (int draw = 0; draw <= 1; draw++) {
        g233_t *g = position(&(position_t){3, draw ? "{\"take\":\"draw\"}" : NULL,
                                           .hands = {"Y1 Y5 B2 B7 G4 G4 red pink"}});
        top(g, "G4", -1);
        json_t *v = game_view(&g->base, 0);
        rng_t r;
        rng_seed(&r, 1);
        g233_t *c = (g233_t *)g233_search.from_view(v, &r);
        assert_non_null(c);
        assert_int_equal(c->take_draw, draw);
        json_t *cv = game_view(&c->base, 0);
        assert_true(json_equal(json_object_get(v, "legal"), json_object_get(cv, "legal")));
        json_decref(cv);
        json_decref(v);
        game_free(&c->base);
        game_free(&g->base);
    }
}

static void own_discard_cannot_be_taken_back(void **state)
{
    (void)state;
    g233_t *g = position(
        &(position_t){2, "{\"dispute_ms\":0}", .hands = {"Y1 Y5 B2 B7 G3 G8 red reverse"}});
    turn0(g, "pink", "reverse", 0); /* two players: the discarder plays again */
    assert_int_equal(g->turn, 0);
    refused(g, 0, "{\"type\":\"take\"}", 0, "own_discard");
    game_free(&g->base);
}

/* ------------------------------------------------------------------ */
/* Claims: the race for the discard                                     */
/* ------------------------------------------------------------------ */

/*
 * Claims without a dispute window: seat `s` holds `cards` when seat 0 (PLAIN)
 * draws `card` and discards it at 0.
 */
static g233_t *discard_to(int seats, int s, const char *cards, const char *card)
{
    position_t p = {seats, "{\"dispute_ms\":0}", .hands = {PLAIN}, .drawn = card,
                    .discarded = card};
    p.hands[s] = cards;
    return position(&p);
}

static void claim_lays_a_triple_discards_and_play_resumes_after_taker(void **state)
{
    (void)state;
    g233_t *g = discard_to(4, 2, "Y3 Y3 B1 B5 G4 G6 orange purple", "Y3");
    assert_int_equal(g->turn, 1);
    assert_true(legal_has(g, 2, "{\"type\":\"claim\",\"cards\":[\"Y3\",\"Y3\"]}"));
    OK(g, 2, "{\"type\":\"claim\",\"cards\":[\"Y3\",\"Y3\"]}", 10);
    assert_int_equal(g->turn, 2);
    assert_int_equal(g->p[2].nmelds, 1);
    assert_int_equal(g->p[2].melds[0].kind, G233_GROUP_TRIPLE);
    assert_int_equal(held(g, 2), 6);
    OK(g, 2, "{\"type\":\"discard\",\"card\":\"orange\"}", 20);
    assert_int_equal(held(g, 2), 5); /* 5 cards stay in hand */
    assert_int_equal(g->turn, 3);
    game_free(&g->base);
}

static void claim_with_two_melds_leaves_two_in_hand(void **state)
{
    (void)state;
    g233_t *g = position(&(position_t){3, "{\"dispute_ms\":0}",
                                       .hands = {PLAIN, [2] = "Y3 Y3 B1 B5 G4 G6 orange purple"}});
    g->p[2].hand.n[g233_card_number(1, 1)]--; /* replace B1 by a locked triple of B8 */
    g->p[2].hand.n[g233_card_number(1, 5)]--;
    g->p[2].hand.n[g233_card_number(2, 4)]--;
    g->draw[g->ndraw++] = g233_card_number(1, 1);
    g->draw[g->ndraw++] = g233_card_number(1, 5);
    g->draw[g->ndraw++] = g233_card_number(2, 4);
    g233_group_t *m = &g->p[2].melds[g->p[2].nmelds++];
    *m = (g233_group_t){G233_GROUP_TRIPLE,
                        3,
                        {g233_card_number(1, 8), g233_card_number(1, 8), g233_card_number(1, 8)}};
    for (int i = 0; i < 3; i++) {
        for (int k = g->ndraw - 1; k >= 0; k--)
            if (g->draw[k] == g233_card_number(1, 8)) {
                memmove(&g->draw[k], &g->draw[k + 1], (size_t)(g->ndraw - 1 - k));
                g->ndraw--;
                break;
            }
    }
    audit_ok(g);
    turn0(g, "Y3", "Y3", 0);
    OK(g, 2, "{\"type\":\"claim\",\"cards\":[\"Y3\",\"Y3\"]}", 10);
    OK(g, 2, "{\"type\":\"discard\",\"card\":\"G6\"}", 20);
    assert_int_equal(held(g, 2), 2);
    game_free(&g->base);
}

static void claim_of_a_square_is_laid_and_taker_plays_again(void **state)
{
    (void)state;
    g233_t *g = discard_to(4, 3, "B4 B4 B4 Y6 G1 G2 orange purple", "B4");
    OK(g, 3, "{\"type\":\"claim\",\"cards\":[\"B4\",\"B4\",\"B4\"]}", 5);
    assert_int_equal(g->turn, 3);
    assert_int_equal(g->phase, G233_PH_DRAW); /* plays again: draws, then discards */
    assert_int_equal(g->p[3].squares, 1);
    assert_int_equal(held(g, 3), 5);
    OK(g, 3, "{\"type\":\"draw\"}", 6);
    assert_int_equal(
        g->phase == G233_PH_DISCARD || g->phase == G233_PH_GIFT || g->phase == G233_PH_DRAW, 1);
    game_free(&g->base);
}

static void a_discard_never_makes_a_double(void **state)
{
    (void)state;
    g233_t *g = discard_to(3, 2, "Y2 Y4 B1 B5 G4 G6 orange purple", "orange");
    forbidden(g, 2, "{\"type\":\"claim\",\"cards\":[\"orange\"]}", 1, "cannot_claim");
    refused(g, 2, "{\"type\":\"claim\",\"final\":true}", 1, "cannot_claim");
    game_free(&g->base);
}

static void a_discard_may_complete_a_233_with_its_double(void **state)
{
    (void)state;
    /* Seat 2 holds two triples and one orange: the discarded orange makes the double. */
    g233_t *g = discard_to(3, 2, "Y2 Y2 Y2 G5 G6 G7 orange B1", "orange");
    assert_true(legal_has(g, 2, "{\"type\":\"claim\",\"final\":true}"));
    OK(g, 2, "{\"type\":\"claim\",\"final\":true}", 1);
    assert_int_equal(g->turn, 2);
    /* Having claimed to win, the taker must discard and declare. */
    refused(g, 2, "{\"type\":\"discard\",\"card\":\"B1\"}", 2, "must_declare");
    OK(g, 2, "{\"type\":\"discard\",\"card\":\"B1\",\"declare\":true}", 2);
    assert_int_equal(g->declarer, 2);
    assert_int_equal(g->declared, G233_COMBO_233);
    game_free(&g->base);
}

static void sequences_are_claimed_only_with_the_option(void **state)
{
    (void)state;
    for (int opt = 0; opt <= 1; opt++) {
        g233_t *g = position(&(position_t){
            3, opt ? "{\"dispute_ms\":0,\"claim_sequences\":true}" : "{\"dispute_ms\":0}",
            .hands = {PLAIN, [2] = "B3 B4 B1 B8 G4 G6 orange purple"}, .drawn = "B5",
            .discarded = "B5"});
        const char *claim = "{\"type\":\"claim\",\"cards\":[\"B3\",\"B4\"]}";
        assert_int_equal(legal_has(g, 2, claim), opt);
        if (opt) {
            OK(g, 2, claim, 1);
            assert_int_equal(g->p[2].melds[0].kind, G233_GROUP_SEQUENCE);
        } else {
            refused(g, 2, claim, 1, "cannot_claim");
        }
        game_free(&g->base);
    }
}

static void joker_claims_with_a_pair(void **state)
{
    (void)state;
    g233_t *g = position(&(position_t){
        3, "{\"dispute_ms\":0}",
        .hands = {"Y1 Y5 B2 B7 G3 G8 red joker", [2] = "G6 G6 B1 B8 G4 Y6 orange purple"},
        .drawn = "pink", .discarded = "joker"});
    assert_true(legal_has(g, 2, "{\"type\":\"claim\",\"cards\":[\"G6\",\"G6\"]}"));
    OK(g, 2, "{\"type\":\"claim\",\"cards\":[\"G6\",\"G6\"]}", 1);
    assert_int_equal(g->p[2].melds[0].kind, G233_GROUP_TRIPLE);
    game_free(&g->base);
}

/*
 * Interpretation: two jokers and any number or symbol card are a triple ("le
 * joker peut remplacer n'importe quelle carte"), so a player holding two
 * jokers may claim any such discard.
 */
static void two_jokers_claim_any_discard_as_a_triple(void **state)
{
    (void)state;
    g233_t *g = discard_to(3, 2, "joker joker B1 B5 G4 G6 orange purple", "Y7");
    assert_true(legal_has(g, 2, "{\"type\":\"claim\",\"cards\":[\"joker\",\"joker\"]}"));
    OK(g, 2, "{\"type\":\"claim\",\"cards\":[\"joker\",\"joker\"]}", 1);
    assert_int_equal(g->p[2].melds[0].kind, G233_GROUP_TRIPLE);
    game_free(&g->base);
}

/*
 * Interpretation: a triple claimed (or taken on one's turn) with the last two
 * cards of a hand would leave nothing to discard ("il doit lui rester 5 ou 2
 * cartes dans la main"): refused. Seat `s` holds Y3 Y3 beside two locked triples.
 */
static g233_t *two_cards_left(int s)
{
    g233_t *g = table(3, "{\"dispute_ms\":0}");
    hand(g, 0, PLAIN);
    hand(g, s, "Y3 Y3");
    lock_triple(g, s, "B8");
    lock_triple(g, s, "G6");
    audit_ok(g);
    turn0(g, "Y3", "Y3", 0);
    return g;
}

static void a_claim_that_leaves_nothing_to_discard_is_refused(void **state)
{
    (void)state;
    g233_t *g = two_cards_left(2);
    forbidden(g, 2, "{\"type\":\"claim\",\"cards\":[\"Y3\",\"Y3\"]}", 1, "cannot_claim");
    game_free(&g->base);
    g = two_cards_left(1); /* the turn player's take, on a claim's conditions */
    forbidden(g, 1, "{\"type\":\"take\",\"cards\":[\"Y3\",\"Y3\"]}", 1, "cannot_claim");
    game_free(&g->base);
}

static void claim_closes_when_the_next_player_draws(void **state)
{
    (void)state;
    position_t y3_discarded = {4, NULL, .hands = {PLAIN, [2] = "Y3 Y3 B1 B5 G4 G6 orange purple"},
                               .drawn = "Y3", .discarded = "Y3"};
    g233_t *g = position(&y3_discarded);
    OK(g, 1, "{\"type\":\"draw\"}", 100);
    refused(g, 2, "{\"type\":\"claim\",\"cards\":[\"Y3\",\"Y3\"]}", 101, "too_late");
    game_free(&g->base);
    /* Until then, however late: "à tout moment". */
    y3_discarded.opts = "{\"dispute_ms\":0}";
    g = position(&y3_discarded);
    OK(g, 2, "{\"type\":\"claim\",\"cards\":[\"Y3\",\"Y3\"]}", 3600 * 1000);
    assert_int_equal(g->p[2].nmelds, 1);
    game_free(&g->base);
}

/*
 * A dispute window of 200 ms; seats 2 and 3, with these scores, each hold two
 * oranges when seat 0 discards one at 0, and seat `first` claims it at `at`.
 */
static g233_t *orange_claimed(int score2, int score3, int first, int64_t at)
{
    g233_t *g = position(&(position_t){4, "{\"dispute_ms\":200}",
                                       .hands = {PLAIN, [2] = "Y3 Y2 B1 B5 G4 G6 orange orange",
                                                 [3] = "Y3 Y2 B2 B6 G5 G7 orange orange"},
                                       .scores = {[2] = score2, [3] = score3}, .drawn = "orange",
                                       .discarded = "orange"});
    OK(g, first, "{\"type\":\"claim\",\"cards\":[\"orange\",\"orange\"]}", at);
    return g;
}

static void claims_outside_the_window_go_to_the_first(void **state)
{
    (void)state;
    g233_t *g = orange_claimed(100, 0, 2, 1000); /* the first claimant has the higher score */
    assert_int_equal(g233_desc.next_deadline(&g->base), 1201);
    refused(g, 1, "{\"type\":\"draw\"}", 1100, "claim_pending");
    /* Seat 3 arrives 201 ms after the first claim: the window closed at 1200. */
    assert_true(g233_desc.tick(&g->base, 1201));
    refused(g, 3, "{\"type\":\"claim\",\"cards\":[\"orange\",\"orange\"]}", 1201, "too_late");
    assert_int_equal(g->turn, 2);
    assert_int_equal(g->p[2].nmelds, 1);
    game_free(&g->base);
}

static void claims_within_the_window_go_to_the_lowest_score(void **state)
{
    (void)state;
    g233_t *g = orange_claimed(100, 40, 2, 1000);
    OK(g, 3, "{\"type\":\"claim\",\"cards\":[\"orange\",\"orange\"]}", 1200);
    refused(g, 3, "{\"type\":\"claim\",\"cards\":[\"orange\",\"orange\"]}", 1200,
            "already_claimed");
    assert_false(g233_desc.tick(&g->base, 1200));
    assert_true(g233_desc.tick(&g->base, 1201));
    assert_int_equal(g->turn, 3);
    assert_int_equal(g->p[3].nmelds, 1);
    assert_int_equal(g->p[2].nmelds, 0);
    assert_int_equal(held(g, 2), 8);
    game_free(&g->base);
}

static void dispute_tie_goes_to_the_earliest(void **state)
{
    (void)state;
    g233_t *g = orange_claimed(0, 0, 3, 500);
    OK(g, 2, "{\"type\":\"claim\",\"cards\":[\"orange\",\"orange\"]}", 501);
    g233_desc.tick(&g->base, 701);
    assert_int_equal(g->turn, 3);
    game_free(&g->base);
}

static void turn_players_take_races_with_claims(void **state)
{
    (void)state;
    g233_t *g = position(&(position_t){
        4, "{\"dispute_ms\":200}",
        .hands = {PLAIN, "Y3 Y3 B2 B6 G5 G7 red pink", "Y3 joker B1 B5 G4 G6 orange purple"},
        .scores = {[1] = 10, [2] = 50}, .drawn = "Y3", .discarded = "Y3"});
    OK(g, 2, "{\"type\":\"claim\",\"cards\":[\"Y3\",\"joker\"]}", 100);
    refused(g, 1, "{\"type\":\"draw\"}", 120, "claim_pending");
    /* within the window, lower score: seat 1 wins */
    OK(g, 1, "{\"type\":\"take\",\"cards\":[\"Y3\",\"Y3\"]}", 150);
    g233_desc.tick(&g->base, 301);
    assert_int_equal(g->turn, 1);
    assert_int_equal(g->phase, G233_PH_DISCARD);
    assert_int_equal(g->p[1].nmelds, 1);
    assert_int_equal(g->p[2].nmelds, 0);
    game_free(&g->base);
    /* Option take = "draw": the plain take races the same way. */
    g = position(&(position_t){4, "{\"dispute_ms\":200,\"take\":\"draw\"}",
                               .hands = {PLAIN, [2] = "Y3 Y3 B1 B5 G4 G6 orange purple"},
                               .scores = {[1] = 10, [2] = 50}, .drawn = "Y3", .discarded = "Y3"});
    OK(g, 2, "{\"type\":\"claim\",\"cards\":[\"Y3\",\"Y3\"]}", 100);
    OK(g, 1, "{\"type\":\"take\"}", 150);
    g233_desc.tick(&g->base, 301);
    assert_int_equal(g->turn, 1);
    assert_int_equal(g->p[1].nmelds, 0);
    assert_int_equal(g->p[2].nmelds, 0);
    game_free(&g->base);
}

/* ------------------------------------------------------------------ */
/* Special cards                                                        */
/* ------------------------------------------------------------------ */

static void reverse_flips_the_direction(void **state)
{
    (void)state;
    g233_t *g = position(&(position_t){4, NULL, .hands = {"Y1 Y5 B2 B7 G3 G8 red reverse"},
                                       .drawn = "pink", .discarded = "reverse"});
    assert_int_equal(g->dir, -1);
    assert_int_equal(g->turn, 3); /* the player before plays next */
    game_free(&g->base);
}

static void reverse_with_two_players_lets_the_discarder_play_again(void **state)
{
    (void)state;
    g233_t *g = position(&(position_t){2, NULL, .hands = {"Y1 Y5 B2 B7 G3 G8 red reverse"},
                                       .drawn = "pink", .discarded = "reverse"});
    assert_int_equal(g->turn, 0);
    assert_int_equal(g->phase, G233_PH_DRAW);
    game_free(&g->base);
}

static void stop_skips_the_next_player(void **state)
{
    (void)state;
    g233_t *g = position(&(position_t){4, NULL, .hands = {PLAIN}, .drawn = "stop"});
    /* A stop cannot be kept. */
    refused(g, 0, "{\"type\":\"discard\",\"card\":\"Y1\"}", 0, "must_discard_stop");
    OK(g, 0, "{\"type\":\"discard\",\"card\":\"stop\"}", 0);
    assert_int_equal(g->turn, 2);
    refused(g, 2, "{\"type\":\"take\"}", 0, "cannot_take");
    game_free(&g->base);
}

static void plus_gift_scores_five_at_once_and_drawer_draws_again(void **state)
{
    (void)state;
    g233_t *g = position(&(position_t){3, NULL, .hands = {PLAIN}, .drawn = "gift+5"});
    assert_int_equal(g->p[0].score, 5);
    assert_int_equal(g->p[0].gifts_plus, 1);
    assert_int_equal(g->phase, G233_PH_DRAW);
    assert_int_equal(held(g, 0), 8);
    refused(g, 0, "{\"type\":\"take\"}", 0, "too_late"); /* drawing closed the discard */
    OK(g, 0, "{\"type\":\"draw\"}", 0);
    game_free(&g->base);
}

static void minus_gift_goes_to_a_named_player(void **state)
{
    (void)state;
    g233_t *g = position(&(position_t){3, NULL, .hands = {PLAIN}, .drawn = "gift-5"});
    assert_int_equal(g->phase, G233_PH_GIFT);
    json_t *v = game_view(&g->base, 1);
    assert_string_equal(json_string_value(json_object_get(v, "pending_gift")), "gift-5");
    json_decref(v);
    refused(g, 0, "{\"type\":\"draw\"}", 0, "must_place_gift");
    refused(g, 0, "{\"type\":\"discard\",\"card\":\"gift-5\"}", 0, "must_place_gift");
    refused(g, 0, "{\"type\":\"gift\",\"to\":0}", 0, "bad_target");
    refused(g, 0, "{\"type\":\"gift\",\"to\":3}", 0, "bad_target");
    OK(g, 0, "{\"type\":\"gift\",\"to\":2}", 0);
    assert_int_equal(g->p[2].score, -5);
    assert_int_equal(g->p[2].gifts_minus, 1);
    assert_int_equal(g->phase, G233_PH_DRAW);
    game_free(&g->base);
}

static void natural_square_must_be_laid_and_owner_plays_again(void **state)
{
    (void)state;
    g233_t *g =
        position(&(position_t){3, NULL, .hands = {"G2 G2 G2 B7 G3 G8 red pink"}, .drawn = "G2"});
    refused(g, 0, "{\"type\":\"discard\",\"card\":\"red\"}", 0, "must_lay_square");
    refused(g, 0, "{\"type\":\"lay\",\"cards\":[\"G2\",\"G2\",\"G3\",\"G8\"]}", 0, "not_a_square");
    OK(g, 0, "{\"type\":\"lay\",\"cards\":[\"G2\",\"G2\",\"G2\",\"G2\"]}", 0);
    assert_int_equal(g->p[0].squares, 1);
    assert_int_equal(g->turn, 0);
    assert_int_equal(g->phase, G233_PH_DRAW);
    draws(g, 0, "Y4", 0);
    OK(g, 0, "{\"type\":\"discard\",\"card\":\"red\"}", 0);
    /* One square laid: nine cards counting the square. */
    assert_int_equal(held(g, 0) + 4, 9);
    assert_int_equal(g->turn, 1);
    game_free(&g->base);
}

/* ------------------------------------------------------------------ */
/* Declaring and the end of a round                                     */
/* ------------------------------------------------------------------ */

static void declare_before_drawing_then_each_other_player_draws_once(void **state)
{
    (void)state;
    g233_t *g = position(
        &(position_t){3, "{\"take\":\"draw\"}",
                      .hands = {"red red Y1 Y2 Y3 B5 B5 B5", [1] = "Y8 Y7 B1 B2 G5 G8 orange pink",
                                [2] = "Y6 Y4 B8 B3 G6 G1 purple pink"}});
    assert_true(legal_has(g, 0, "{\"type\":\"declare\"}"));
    OK(g, 0, "{\"type\":\"declare\"}", 0);
    assert_int_equal(g->declarer, 0);
    assert_int_equal(g->turn, 1);
    refused(g, 0, "{\"type\":\"draw\"}", 0, "not_your_turn");
    draws(g, 1, "Y6", 0);
    OK(g, 1, "{\"type\":\"discard\",\"card\":\"Y6\"}", 0);
    refused(g, 0, "{\"type\":\"claim\",\"cards\":[\"Y6\",\"Y6\"]}", 0, "round_ending");
    /* The last player may take the discard on their last draw (take = "draw": plainly). */
    OK(g, 2, "{\"type\":\"take\"}", 0);
    OK(g, 2, "{\"type\":\"discard\",\"card\":\"G1\"}", 0);
    /* Round over: scored, hands revealed, winner deals the next round. */
    assert_non_null(g->last_round.tree);
    assert_int_equal(json_integer_value(json_object_get(g->last_round.tree, "winner")), 0);
    json_t *h0 = json_array_get(json_object_get(g->last_round.tree, "hands"), 0);
    assert_int_equal(json_integer_value(json_object_get(h0, "points")), 50);
    assert_string_equal(json_string_value(json_object_get(h0, "combo")), "2-3-3");
    json_t *h2 = json_array_get(json_object_get(g->last_round.tree, "hands"), 2);
    assert_int_equal(json_array_size(json_object_get(h2, "cards")), 8);
    /* Y6 Y6 is a pair of numbers: no double, no points. */
    assert_int_equal(json_integer_value(json_object_get(h2, "points")), 0);
    assert_int_equal(g->p[0].score, 50);
    assert_int_equal(g->round, 2);
    assert_int_equal(g->dealer, 0);
    assert_int_equal(g->turn, 0);
    game_free(&g->base);
}

static void round_winner_deals_and_opens_the_next_round(void **state)
{
    (void)state;
    g233_t *g =
        position(&(position_t){3, NULL, .hands = {PLAIN, [1] = "orange orange Y1 Y2 Y3 B5 B5 B5"},
                               .drawn = "G1", .discarded = "G1"});
    assert_int_equal(g->declarer, 1); /* seat 1 wins as its turn comes, before drawing */
    OK(g, 2, "{\"type\":\"draw\"}", 0);
    while (g->round == 1) { /* seats 2 then 0 finish their last draw with the bot */
        rng_t r;
        rng_seed(&r, 1);
        assert_true(gt_bot_plays(&g->base, g->turn, "greedy", &r, 0));
    }
    assert_int_equal(json_integer_value(json_object_get(g->last_round.tree, "winner")), 1);
    assert_int_equal(g->dealer, 1);
    assert_int_equal(g->turn, 1);
    assert_int_equal(g->phase, G233_PH_DRAW);
    game_free(&g->base);
}

static void declare_without_a_combination_is_refused(void **state)
{
    (void)state;
    g233_t *g = position(&(position_t){3, NULL, .hands = {"red pink Y1 Y2 Y3 B5 B5 B5"}});
    forbidden(g, 0, "{\"type\":\"declare\"}", 0, "no_combination");
    draws(g, 0, "G7", 0);
    refused(g, 0, "{\"type\":\"discard\",\"card\":\"G7\",\"declare\":true}", 0, "no_combination");
    game_free(&g->base);
}

static void declare_after_drawing_and_discarding(void **state)
{
    (void)state;
    g233_t *g =
        position(&(position_t){2, NULL, .hands = {"red Y1 Y2 Y3 B5 B5 B5 G1"}, .drawn = "red"});
    assert_true(legal_has(g, 0, "{\"type\":\"discard\",\"card\":\"G1\",\"declare\":true}"));
    OK(g, 0, "{\"type\":\"discard\",\"card\":\"G1\",\"declare\":true}", 0);
    assert_int_equal(g->declarer, 0);
    assert_int_equal(g->turn, 1);
    game_free(&g->base);
}

static void declare_option_is_must_by_default(void **state)
{
    (void)state;
    json_t *d = game_default_options(&g233_desc);
    assert_string_equal(json_string_value(json_object_get(d, "declare")), "must");
    json_decref(d);
    gt_new_refused(&g233_desc, 3, "{\"declare\":\"maybe\"}", "bad_option");
    gt_new_refused(&g233_desc, 3, "{\"declare\":true}", "bad_option");
}

/* The seat 0 discards G1 without asking to declare, holding a 2-3-3 after it. */
static g233_t *discard_leaving_a_233(const char *opts)
{
    g233_t *g = table(3, opts);
    hand(g, 0, "red Y1 Y2 Y3 B5 B5 B5 G1");
    draws(g, 0, "red", 0);
    OK(g, 0, "{\"type\":\"discard\",\"card\":\"G1\"}", 0);
    return g;
}

static void combination_at_the_end_of_a_turn_is_declared(void **state)
{
    (void)state;
    g233_t *g = discard_leaving_a_233(NULL);
    assert_int_equal(g->declarer, 0);
    assert_int_equal(g->declared, G233_COMBO_233);
    assert_int_equal(count_events(g, "declare", NULL), 1);
    assert_int_equal(g->turn, 1); /* the last draws begin */
    refused(g, 2, "{\"type\":\"claim\",\"cards\":[\"G1\",\"G1\"]}", 0, "round_ending");
    game_free(&g->base);
    /* declare=may: the player keeps the choice. */
    g = discard_leaving_a_233("{\"declare\":\"may\"}");
    assert_int_equal(g->declarer, -1);
    assert_int_equal(g->turn, 1);
    game_free(&g->base);
}

/*
 * declare=must cannot be dodged: when some discard leaves a winning
 * combination, only such discards are legal, and the game declares it. With
 * red red Y1 Y2 Y3 B5 B5 B5 G7, only G7 keeps the 2-3-3 (issue 28: discarding
 * Y3 used to go on). A stop drawn last that makes a rainbow is kept the same
 * way. declare=may leaves the choice.
 */
static void must_declare_allows_only_the_discards_that_keep_a_combination(void **state)
{
    (void)state;
    for (int may = 0; may <= 1; may++) {
        g233_t *g = table(3, may ? "{\"declare\":\"may\"}" : NULL);
        hand(g, 0, "red Y1 Y2 Y3 B5 B5 B5 G7");
        draws(g, 0, "red", 0);
        if (may) {
            OK(g, 0, "{\"type\":\"discard\",\"card\":\"Y3\"}", 0);
            assert_int_equal(g->declarer, -1);
            game_free(&g->base);
            continue;
        }
        forbidden(g, 0, "{\"type\":\"discard\",\"card\":\"Y3\"}", 0, "must_declare");
        forbidden(g, 0, "{\"type\":\"discard\",\"card\":\"red\"}", 0, "must_declare");
        assert_int_equal(gt_legal_count(&g->base, 0), 2); /* G7, with "declare" or without */
        assert_true(legal_has(g, 0, "{\"type\":\"discard\",\"card\":\"G7\"}"));
        OK(g, 0, "{\"type\":\"discard\",\"card\":\"G7\"}", 0);
        assert_int_equal(g->declarer, 0);
        assert_int_equal(g->declared, G233_COMBO_233);
        game_free(&g->base);
    }
    for (int may = 0; may <= 1; may++) {
        g233_t *g = position(&(position_t){3, may ? "{\"declare\":\"may\"}" : NULL,
                                           .hands = {"red pink purple orange Y4 B4 G4 G5"},
                                           .drawn = "stop"});
        if (may) {
            OK(g, 0, "{\"type\":\"discard\",\"card\":\"stop\"}", 0);
            assert_int_equal(g->declarer, -1);
        } else {
            forbidden(g, 0, "{\"type\":\"discard\",\"card\":\"stop\"}", 0, "must_declare");
            OK(g, 0, "{\"type\":\"discard\",\"card\":\"G5\"}", 0);
            assert_int_equal(g->declared, G233_COMBO_RAINBOW);
        }
        game_free(&g->base);
    }
}

static unsigned below(uint64_t *rng, unsigned n)
{
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    return (unsigned)(*rng % n);
}

/*
 * A legal list checks its discards with one memo of which discards win
 * (g233_check_with()). Over 3,000 random hands built from groups (triples,
 * sequences, the four colours, jokers) so that many are near a combination,
 * with declare must and may: after seat 0 draws, every discard gets the
 * memo-less g233_check()'s answer.
 */
static void discards_checked_with_a_memo_get_the_same_answer(void **state)
{
    (void)state;
    static const char *const colours[] = {"Y", "B", "G"};
    static const char *const extras[] = {"red", "pink", "purple", "orange", "joker", "reverse"};
    uint64_t rng = 0x2545f4914f6cdd1dull;
    int states = 0, winning = 0;
    for (int i = 0; i < 3000; i++) {
        char names[160] = "";
        int n = 0;
        while (n < 8) {
            char card[16];
            unsigned kind = below(&rng, 4), v = 1 + below(&rng, 6);
            const char *col = colours[below(&rng, 3)];
            if (kind == 0 && n <= 5) { /* a triple */
                for (int k = 0; k < 3; k++, n++)
                    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%u ", col, v);
            } else if (kind == 1 && n <= 5) { /* a sequence */
                for (unsigned k = 0; k < 3; k++, n++)
                    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%u ", col,
                             v + k);
            } else {
                if (below(&rng, 2))
                    snprintf(card, sizeof card, "%s", extras[below(&rng, 6)]);
                else
                    snprintf(card, sizeof card, "%s%u", col, 1 + below(&rng, 8));
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s ", card);
                n++;
            }
        }
        g233_t *g = table(2, i % 2 ? "{\"declare\":\"may\"}" : NULL);
        char drawn[16];
        snprintf(drawn, sizeof drawn, "%s%u", colours[below(&rng, 3)], 1 + below(&rng, 8));
        if (g233_give_hand(g, 0, names) != 0 || g233_stack_draw(g, drawn) != 0 ||
            strcmp(act(g, 0, "{\"type\":\"draw\"}", 0), "ok") != 0) {
            game_free(&g->base); /* more copies than the deck holds: another hand */
            continue;
        }
        g233_discard_memo_t memo = {0};
        for (int d = 0; d <= 1; d++)
            for (int c = 0; c < G233_KINDS; c++) {
                if (!g->p[0].hand.n[c]) continue;
                g233_act_t a = {.type = G233_ACT_DISCARD, .card = c, .to = -1, .declare = d};
                assert_int_equal(g233_check(g, 0, &a, NULL) == 0,
                                 g233_check_with(g, 0, &a, NULL, &memo) == 0);
            }
        states++;
        winning += memo.known && memo.wins != 0;
        game_free(&g->base);
    }
    assert_true(states > 1000);
    assert_true(winning > 50); /* the case the memo is for, often */
}

/*
 * Interpretation: during the last draws a reverse or a stop discarded has no
 * effect (the direction stays, nobody is skipped): every other player draws
 * once, in the order the round had.
 */
static void reverse_and_stop_do_nothing_during_the_last_draws(void **state)
{
    (void)state;
    g233_t *g = position(&(position_t){
        4, NULL, .hands = {"red red Y1 Y2 Y3 B5 B5 B5", "Y1 Y5 B2 B7 G3 G8 pink reverse", PLAIN}});
    OK(g, 0, "{\"type\":\"declare\"}", 0);
    assert_int_equal(g->turn, 1);
    draws(g, 1, "G1", 0);
    OK(g, 1, "{\"type\":\"discard\",\"card\":\"reverse\"}", 0);
    assert_int_equal(g->dir, 1);
    assert_int_equal(g->turn, 2);
    draws(g, 2, "stop", 0);
    OK(g, 2, "{\"type\":\"discard\",\"card\":\"stop\"}", 0);
    assert_int_equal(g->turn, 3); /* not skipped */
    assert_int_equal(g->round, 1);
    game_free(&g->base);
}

static void hand_dealt_winning_is_declared_when_its_turn_comes(void **state)
{
    (void)state;
    for (int may = 0; may <= 1; may++) {
        g233_t *g = position(&(position_t){3, may ? "{\"declare\":\"may\"}" : NULL,
                                           .hands = {PLAIN, "orange orange Y1 Y2 Y3 B5 B5 B5"},
                                           .drawn = "G1", .discarded = "G1"});
        if (may) {
            assert_int_equal(g->declarer, -1);
            assert_int_equal(g->turn, 1);
            assert_true(legal_has(g, 1, "{\"type\":\"declare\"}"));
            assert_true(legal_has(g, 1, "{\"type\":\"draw\"}"));
        } else {
            assert_int_equal(g->declarer, 1); /* before drawing */
            assert_int_equal(g->p[1].last_done, true);
            assert_int_equal(held(g, 1), 8);
            assert_int_equal(g->turn, 2);
        }
        game_free(&g->base);
    }
}

static void square_laid_that_completes_a_234_is_declared(void **state)
{
    (void)state;
    for (int may = 0; may <= 1; may++) {
        g233_t *g = table(3, may ? "{\"declare\":\"may\"}" : NULL);
        hand(g, 0, "pink pink G4 G5 G6 Y8 Y8 Y8");
        draws(g, 0, "Y8", 0);
        /* Laying the square takes the place of the discard: the turn ends on a 2-3-4. */
        OK(g, 0, "{\"type\":\"lay\",\"cards\":[\"Y8\",\"Y8\",\"Y8\",\"Y8\"]}", 0);
        assert_int_equal(g->declarer, may ? -1 : 0);
        if (!may) assert_int_equal(g->declared, G233_COMBO_234);
        if (may) assert_true(legal_has(g, 0, "{\"type\":\"declare\"}"));
        game_free(&g->base);
    }
}

/* Seat 0 declares `cards`; seat 1 draws and discards G1 for its last draw. */
static json_t *round_after_declaring(g233_t *g, const char *cards)
{
    hand(g, 0, cards);
    OK(g, 0, "{\"type\":\"declare\"}", 0);
    draws(g, 1, "G1", 0);
    OK(g, 1, "{\"type\":\"discard\",\"card\":\"G1\"}", 0);
    assert_non_null(g->last_round.tree);
    return json_object_get(g->last_round.tree, "hands");
}

static int round_points(json_t *hands, size_t seat)
{
    return (int)json_integer_value(json_object_get(json_array_get(hands, seat), "points"));
}

static void declarer_scores_the_combination_not_a_regrouping(void **state)
{
    (void)state;
    /* As a 2-3-3: 25 + 5 + 10 + 10. Regrouped (purple purple joker joker as a
     * square, B1-B3, Y5 alone) the same cards would pay 25 + 30 = 55. */
    g233_t *g = table(2, NULL);
    json_t *hands = round_after_declaring(g, "purple purple B1 B2 B3 Y5 joker joker");
    assert_int_equal(round_points(hands, 0), 50);
    assert_int_equal(g->p[0].score, 50 + 5 * g->p[0].gifts_plus); /* + the next deal's */
    game_free(&g->base);
    /* A super sequence pays 70, not 50 + G1-G3 + G4-G6 + a double of jokers (75). */
    g = table(2, NULL);
    hands = round_after_declaring(g, "G1 G2 G3 G4 G5 G6 joker joker");
    assert_string_equal(json_string_value(json_object_get(json_array_get(hands, 0), "combo")),
                        "super sequence");
    assert_int_equal(round_points(hands, 0), 70);
    game_free(&g->base);
}

static void jokers_count_in_the_losers_groups(void **state)
{
    (void)state;
    g233_t *g =
        position(&(position_t){2, NULL, .hands = {[1] = "purple purple joker joker Y1 B4 G7 red"}});
    json_t *hands = round_after_declaring(g, "red red Y1 Y2 Y3 B5 B5 B5");
    /* purple purple joker joker: a square (20), the best grouping. */
    assert_int_equal(round_points(hands, 1), 20);
    game_free(&g->base);
}

static void rainbow_scores_100_even_when_not_first(void **state)
{
    (void)state;
    g233_t *g = position(&(position_t){
        2, NULL,
        .hands = {"red red Y1 Y2 Y3 B5 B5 B5", [1] = "red pink purple orange Y4 B4 G4 G5"}});
    OK(g, 0, "{\"type\":\"declare\"}", 0);
    draws(g, 1, "joker", 0);
    OK(g, 1, "{\"type\":\"discard\",\"card\":\"G5\"}", 0);
    json_t *h1 = json_array_get(json_object_get(g->last_round.tree, "hands"), 1);
    assert_string_equal(json_string_value(json_object_get(h1, "combo")), "rainbow");
    assert_int_equal(json_integer_value(json_object_get(h1, "points")), 100);
    game_free(&g->base);
}

static void stop_drawn_last_completes_a_rainbow(void **state)
{
    (void)state;
    g233_t *g = position(
        &(position_t){3, NULL, .hands = {"red pink purple orange Y4 B4 G4 G5"}, .drawn = "stop"});
    /* The drawer knows it, and their view says it; nobody else's does. */
    for (int s = -1; s < 3; s++) {
        json_t *v = game_view(&g->base, s);
        const char *last = json_string_value(json_object_get(v, "last_drawn"));
        if (s == 0)
            assert_string_equal(last, "stop");
        else
            assert_null(last);
        json_decref(v);
    }
    OK(g, 0, "{\"type\":\"discard\",\"card\":\"G5\",\"declare\":true}", 0);
    assert_int_equal(g->declared, G233_COMBO_RAINBOW);
    game_free(&g->base);
}

static void gift_kept_only_as_the_last_card_drawn(void **state)
{
    (void)state;
    g233_t *g = position(
        &(position_t){3, NULL, .hands = {"red pink purple orange Y4 B4 G4 G5"}, .drawn = "gift+5"});
    /* The +5 could make a rainbow: the player chooses. */
    assert_int_equal(g->phase, G233_PH_GIFT);
    assert_true(legal_has(g, 0, "{\"type\":\"gift\"}"));
    assert_true(legal_has(g, 0, "{\"type\":\"discard\",\"card\":\"G5\",\"declare\":true}"));
    OK(g, 0, "{\"type\":\"gift\"}", 0); /* placed: no longer in hand */
    assert_int_equal(g->p[0].score, 5);
    draws(g, 0, "Y8", 0);
    refused(g, 0, "{\"type\":\"discard\",\"card\":\"G5\",\"declare\":true}", 0, "no_combination");
    game_free(&g->base);
}

static void draw_pile_is_rebuilt_from_the_discards_but_the_top(void **state)
{
    (void)state;
    g233_t *g = position(&(position_t){2, NULL, .hands = {PLAIN}});
    /* Move all but two cards of the draw pile onto the discard pile. */
    while (g->ndraw > 2)
        g->discard[g->ndiscard++] = g->draw[--g->ndraw];
    g->discard[g->ndiscard++] = g233_card_number(0, 1);
    g->p[0].hand.n[g233_card_number(0, 1)]--;
    g->p[0].hand.n[g->draw[--g->ndraw]]++;
    audit_ok(g);
    int total_discards = g->ndiscard;
    g233_card_t topcard = g->discard[g->ndiscard - 1];
    OK(g, 0, "{\"type\":\"draw\"}", 0); /* the last card */
    OK(g, 0, "{\"type\":\"discard\",\"card\":\"Y5\"}", 0);
    int before = g->ndiscard;
    assert_int_equal(before, total_discards + 1);
    OK(g, 1, "{\"type\":\"draw\"}", 0); /* empty: rebuilt */
    assert_int_equal(g->rebuilds, 1);
    assert_int_equal(g->ndiscard, 1);
    assert_int_equal(g->discard[0], g233_card_number(0, 5));
    (void)topcard;
    game_free(&g->base);
}

/*
 * A table of two with these hands, both scores at `score`, no rebuild allowed
 * and the draw pile moved onto the discard pile: seat 0 draws on an empty pile.
 */
static g233_t *drawn_out(const char *hand0, const char *hand1, int score)
{
    g233_t *g = position(&(position_t){2, "{\"max_rebuilds\":0}", .hands = {hand0, hand1},
                                       .scores = {score, score}});
    while (g->ndraw > 0)
        g->discard[g->ndiscard++] = g->draw[--g->ndraw];
    audit_ok(g);
    OK(g, 0, "{\"type\":\"draw\"}", 0);
    return g;
}

static void round_ends_without_winner_after_max_rebuilds(void **state)
{
    (void)state;
    g233_t *g = drawn_out("Y1 Y5 B2 B7 G3 G8 red red", "Y2 Y6 B3 B8 G4 G7 pink pink", 0);
    assert_non_null(g->last_round.tree);
    assert_string_equal(json_string_value(json_object_get(g->last_round.tree, "reason")),
                        "draw_pile_exhausted");
    assert_true(json_is_null(json_object_get(g->last_round.tree, "winner")));
    /* Everyone scores their cards: each holds a double. (Totals as the round
     * ended: the next deal may already have laid a +5.) */
    json_t *hands = json_object_get(g->last_round.tree, "hands");
    for (size_t s = 0; s < 2; s++) {
        json_t *h = json_array_get(hands, s);
        assert_int_equal(json_integer_value(json_object_get(h, "points")), 5);
        assert_int_equal(json_integer_value(json_object_get(h, "score")), 5);
    }
    assert_int_equal(g->dealer, 1); /* no winner: the deal passes on */
    game_free(&g->base);
}

static void game_ends_when_a_total_passes_the_target(void **state)
{
    (void)state;
    g233_t *g = position(
        &(position_t){2, NULL, .hands = {"red red Y1 Y2 Y3 B5 B5 B5"}, .scores = {200, [1] = 100}});
    OK(g, 0, "{\"type\":\"declare\"}", 0);
    draws(g, 1, "G1", 0);
    OK(g, 1, "{\"type\":\"discard\",\"card\":\"G1\"}", 0);
    assert_true(game_is_over(&g->base));
    gt_winners(&g->base, "[0]");
    refused(g, 1, "{\"type\":\"draw\"}", 0, "game_over");
    assert_int_equal(legal_count(g, 0), 0);
    game_free(&g->base);
}

/* "dépasser 233 points": a total of exactly 233 does not end the game; 234 does. */
static void game_does_not_end_at_exactly_the_target(void **state)
{
    (void)state;
    for (int over = 0; over <= 1; over++) {
        /* seat 0's 2-3-3 pays 50: 183 + 50 = 233, 184 + 50 = 234 */
        g233_t *g = position(&(position_t){
            2, NULL, .hands = {"red red Y1 Y2 Y3 B5 B5 B5", "Y4 Y7 B1 B4 G2 G5 purple orange"},
            .scores = {183 + over, 100}});
        OK(g, 0, "{\"type\":\"declare\"}", 0);
        draws(g, 1, "G1", 0);
        OK(g, 1, "{\"type\":\"discard\",\"card\":\"G1\"}", 0);
        json_t *h0 = json_array_get(json_object_get(g->last_round.tree, "hands"), 0);
        assert_int_equal(json_integer_value(json_object_get(h0, "score")), 233 + over);
        assert_int_equal(game_is_over(&g->base), over);
        assert_int_equal(g->round, over ? 1 : 2);
        game_free(&g->base);
    }
}

static void tie_at_the_top_plays_another_round(void **state)
{
    (void)state;
    g233_t *g = drawn_out("Y1 Y5 B2 B7 G3 G8 red purple", "Y2 Y6 B3 B8 G4 G7 pink orange", 240);
    assert_false(game_is_over(&g->base));
    assert_int_equal(g->round, 2);
    game_free(&g->base);
}

static void views_show_a_hand_only_to_its_owner(void **state)
{
    (void)state;
    g233_t *g = table(4, NULL);
    for (int s = -1; s < 4; s++) {
        json_t *v = gt_view(&g->base, s);
        if (s >= 0) assert_int_equal(json_array_size(json_object_get(v, "hand")), 8);
        json_decref(v);
    }
    game_free(&g->base);
}

TEST_MAIN(cmocka_unit_test(deck_has_the_140_cards_of_the_seed),
          cmocka_unit_test(deal_gives_eight_each_and_turns_up_one),
          cmocka_unit_test(deal_is_from_all_140_cards),
          cmocka_unit_test(dealt_plus_gift_is_laid_at_once_and_replaced),
          cmocka_unit_test(dealt_minus_gift_waits_in_its_holders_hand),
          cmocka_unit_test(dealt_minus_gift_is_given_before_the_dealers_first_draw),
          cmocka_unit_test(dealt_minus_gifts_are_given_all_at_once),
          cmocka_unit_test(dealt_minus_gift_defaults_to_the_leader),
          cmocka_unit_test(dealt_minus_gift_is_shown_to_its_holder_only),
          cmocka_unit_test(dealt_stop_is_its_holders_forced_first_discard),
          cmocka_unit_test(table_sizes_outside_two_to_six_are_refused),
          cmocka_unit_test(passed_over_gifts_and_stops_are_shuffled_back),
          cmocka_unit_test(dealer_opens_by_drawing),
          cmocka_unit_test(turn_is_draw_one_then_discard_one_clockwise),
          cmocka_unit_test(inline_args_form_is_accepted),
          cmocka_unit_test(own_turn_take_obeys_a_claims_conditions),
          cmocka_unit_test(own_turn_take_is_a_plain_draw_with_option_take_draw),
          cmocka_unit_test(states_drawn_from_a_view_keep_option_take),
          cmocka_unit_test(own_discard_cannot_be_taken_back),
          cmocka_unit_test(claim_lays_a_triple_discards_and_play_resumes_after_taker),
          cmocka_unit_test(claim_with_two_melds_leaves_two_in_hand),
          cmocka_unit_test(claim_of_a_square_is_laid_and_taker_plays_again),
          cmocka_unit_test(a_discard_never_makes_a_double),
          cmocka_unit_test(a_discard_may_complete_a_233_with_its_double),
          cmocka_unit_test(sequences_are_claimed_only_with_the_option),
          cmocka_unit_test(joker_claims_with_a_pair),
          cmocka_unit_test(two_jokers_claim_any_discard_as_a_triple),
          cmocka_unit_test(a_claim_that_leaves_nothing_to_discard_is_refused),
          cmocka_unit_test(claim_closes_when_the_next_player_draws),
          cmocka_unit_test(claims_outside_the_window_go_to_the_first),
          cmocka_unit_test(claims_within_the_window_go_to_the_lowest_score),
          cmocka_unit_test(dispute_tie_goes_to_the_earliest),
          cmocka_unit_test(turn_players_take_races_with_claims),
          cmocka_unit_test(reverse_flips_the_direction),
          cmocka_unit_test(reverse_with_two_players_lets_the_discarder_play_again),
          cmocka_unit_test(stop_skips_the_next_player),
          cmocka_unit_test(plus_gift_scores_five_at_once_and_drawer_draws_again),
          cmocka_unit_test(minus_gift_goes_to_a_named_player),
          cmocka_unit_test(natural_square_must_be_laid_and_owner_plays_again),
          cmocka_unit_test(declare_before_drawing_then_each_other_player_draws_once),
          cmocka_unit_test(round_winner_deals_and_opens_the_next_round),
          cmocka_unit_test(declare_without_a_combination_is_refused),
          cmocka_unit_test(declare_after_drawing_and_discarding),
          cmocka_unit_test(declare_option_is_must_by_default),
          cmocka_unit_test(combination_at_the_end_of_a_turn_is_declared),
          cmocka_unit_test(must_declare_allows_only_the_discards_that_keep_a_combination),
          cmocka_unit_test(discards_checked_with_a_memo_get_the_same_answer),
          cmocka_unit_test(reverse_and_stop_do_nothing_during_the_last_draws),
          cmocka_unit_test(hand_dealt_winning_is_declared_when_its_turn_comes),
          cmocka_unit_test(square_laid_that_completes_a_234_is_declared),
          cmocka_unit_test(declarer_scores_the_combination_not_a_regrouping),
          cmocka_unit_test(jokers_count_in_the_losers_groups),
          cmocka_unit_test(rainbow_scores_100_even_when_not_first),
          cmocka_unit_test(stop_drawn_last_completes_a_rainbow),
          cmocka_unit_test(gift_kept_only_as_the_last_card_drawn),
          cmocka_unit_test(draw_pile_is_rebuilt_from_the_discards_but_the_top),
          cmocka_unit_test(round_ends_without_winner_after_max_rebuilds),
          cmocka_unit_test(game_ends_when_a_total_passes_the_target),
          cmocka_unit_test(game_does_not_end_at_exactly_the_target),
          cmocka_unit_test(tie_at_the_top_plays_another_round),
          cmocka_unit_test(views_show_a_hand_only_to_its_owner))
