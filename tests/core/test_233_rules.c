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
#include <string.h>

#include <cmocka.h>

#include "game_test.h"

#include "233/g233.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                              */
/* ------------------------------------------------------------------ */

static g233_t *table(int seats, const char *opts)
{
    return (g233_t *)gt_table(&g233_desc, seats, opts, 42);
}

static void audit_ok(g233_t *g)
{
    gt_audit_ok(&g->base);
}

static const char *act(g233_t *g, int seat, const char *action, int64_t now)
{
    return gt_act(&g->base, seat, action, now);
}

#define OK(g, seat, a, now) assert_string_equal(act(g, seat, a, now), "ok")

static void refused(g233_t *g, int seat, const char *a, int64_t now, const char *code)
{
    gt_refused(&g->base, seat, a, now, code);
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

static bool legal_has(g233_t *g, int seat, const char *action)
{
    return gt_legal_has(&g->base, seat, action);
}

static int held(g233_t *g, int seat)
{
    return hand_size(&g->p[seat].hand);
}

/* Seat 0 (dealer) draws `drawn` and discards `discarded`. */
static void turn0(g233_t *g, const char *drawn, const char *discarded, int64_t now)
{
    char a[96];
    next_draw(g, drawn);
    OK(g, 0, "{\"type\":\"draw\"}", now);
    snprintf(a, sizeof a, "{\"type\":\"discard\",\"card\":\"%s\"}", discarded);
    OK(g, 0, a, now);
}

static void destroy(void **state)
{
    (void)state;
}

/* ------------------------------------------------------------------ */
/* Deal and turn                                                        */
/* ------------------------------------------------------------------ */

static void deck_has_the_140_cards_of_the_seed(void **state)
{
    (void)state;
    int total = 0;
    for (int c = 0; c < G233_KINDS; c++)
        total += card_copies((card_t)c);
    assert_int_equal(total, 140);
    assert_int_equal(card_copies(card_number(0, 1)) * 24, 96);
    assert_int_equal(card_copies(CARD_SYMBOL) * 4, 20);
    assert_int_equal(card_copies(CARD_REVERSE), 6);
    assert_int_equal(card_copies(CARD_JOKER), 2);
    assert_int_equal(card_copies(CARD_GIFT_PLUS) + card_copies(CARD_GIFT_MINUS), 10);
    assert_int_equal(card_copies(CARD_STOP), 6);
    for (int c = 0; c < G233_KINDS; c++)
        assert_int_equal(card_parse(card_name((card_t)c)), c);
}

static void deal_gives_eight_each_and_turns_up_one(void **state)
{
    (void)state;
    for (int seats = 2; seats <= 6; seats++) {
        g233_t *g = table(seats, NULL);
        audit_ok(g);
        for (int s = 0; s < seats; s++) {
            assert_int_equal(held(g, s), 8);
            assert_int_equal(g->p[s].hand.n[CARD_STOP] + g->p[s].hand.n[CARD_GIFT_PLUS] +
                                 g->p[s].hand.n[CARD_GIFT_MINUS],
                             0);
        }
        assert_int_equal(g->ndiscard, 1);
        assert_int_equal(g->ndraw, 140 - 8 * seats - 1);
        game_free(&g->base);
    }
}

static void table_sizes_outside_two_to_six_are_refused(void **state)
{
    (void)state;
    game_error_t err = {0};
    assert_null(game_new(&g233_desc, 1, NULL, 1, &err));
    assert_string_equal(err.code, "bad_players");
    assert_null(game_new(&g233_desc, 7, NULL, 1, &err));
    assert_string_equal(err.code, "bad_players");
    json_t *o = json_pack("{s:i}", "dispute_ms", -5);
    assert_null(game_new(&g233_desc, 3, o, 1, &err));
    assert_string_equal(err.code, "bad_option");
    json_decref(o);
    o = json_pack("{s:i}", "no_such_option", 1);
    assert_null(game_new(&g233_desc, 3, o, 1, &err));
    assert_string_equal(err.code, "bad_option");
    json_decref(o);
}

static void passed_over_gifts_and_stops_are_shuffled_back(void **state)
{
    (void)state;
    /* Over many deals, the top of the draw pile is a gift or stop about as often
     * as its share of the pile (16 of ~123 cards), not nearly always. */
    int special = 0, deals = 400;
    for (int i = 0; i < deals; i++) {
        game_error_t err;
        game_t *base = game_new(&g233_desc, 2, NULL, (uint64_t)i + 1000, &err);
        g233_t *g = (g233_t *)base;
        int top = g->draw[g->ndraw - 1];
        special += top == CARD_STOP || top == CARD_GIFT_PLUS || top == CARD_GIFT_MINUS;
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
    g233_t *g = table(4, NULL);
    hand(g, 0, "Y1 Y5 B2 B7 G3 G8 red pink");
    next_draw(g, "orange");
    OK(g, 0, "{\"type\":\"draw\"}", 0);
    assert_int_equal(held(g, 0), 9);
    refused(g, 0, "{\"type\":\"draw\"}", 0, "must_discard");
    refused(g, 0, "{\"type\":\"discard\",\"card\":\"G1\"}", 0, "not_in_hand");
    OK(g, 0, "{\"type\":\"discard\",\"card\":\"orange\"}", 0);
    assert_int_equal(held(g, 0), 8);
    assert_int_equal(g->turn, 1);
    assert_int_equal(g->discard[g->ndiscard - 1], CARD_SYMBOL + 3);
    game_free(&g->base);
}

static void inline_args_form_is_accepted(void **state)
{
    (void)state;
    g233_t *g = table(3, NULL);
    hand(g, 0, "Y1 Y5 B2 B7 G3 G8 red pink");
    next_draw(g, "orange");
    OK(g, 0, "{\"type\":\"draw\",\"args\":[]}", 0);
    refused(g, 0, "{\"type\":\"discard\",\"args\":[\"Q9\"]}", 0, "unknown_card");
    refused(g, 0, "{\"type\":\"discard\",\"card\":\"Y1\",\"colour\":1}", 0, "bad_action");
    refused(g, 0, "{\"type\":\"fly\"}", 0, "unknown_action");
    OK(g, 0, "{\"type\":\"discard\",\"args\":[\"ORANGE\"]}", 0);
    game_free(&g->base);
}

static void own_turn_may_take_the_top_discard(void **state)
{
    (void)state;
    g233_t *g = table(3, "{\"dispute_ms\":0}");
    hand(g, 0, "Y1 Y5 B2 B7 G3 G8 red pink");
    top(g, "G4", -1);
    OK(g, 0, "{\"type\":\"take\"}", 0);
    assert_int_equal(g->p[0].hand.n[card_number(2, 4)], 1);
    assert_int_equal(g->phase, PH_DISCARD);
    game_free(&g->base);
}

static void own_discard_cannot_be_taken_back(void **state)
{
    (void)state;
    g233_t *g = table(2, "{\"dispute_ms\":0}");
    hand(g, 0, "Y1 Y5 B2 B7 G3 G8 red reverse");
    turn0(g, "pink", "reverse", 0); /* two players: the discarder plays again */
    assert_int_equal(g->turn, 0);
    refused(g, 0, "{\"type\":\"take\"}", 0, "own_discard");
    game_free(&g->base);
}

/* ------------------------------------------------------------------ */
/* Claims: the race for the discard                                     */
/* ------------------------------------------------------------------ */

static void claim_lays_a_triple_discards_and_play_resumes_after_taker(void **state)
{
    (void)state;
    g233_t *g = table(4, "{\"dispute_ms\":0}");
    hand(g, 0, "Y1 Y5 B2 B7 G3 G8 red pink");
    hand(g, 2, "Y3 Y3 B1 B5 G4 G6 orange purple");
    turn0(g, "Y3", "Y3", 0);
    assert_int_equal(g->turn, 1);
    assert_true(legal_has(g, 2, "{\"type\":\"claim\",\"cards\":[\"Y3\",\"Y3\"]}"));
    OK(g, 2, "{\"type\":\"claim\",\"cards\":[\"Y3\",\"Y3\"]}", 10);
    assert_int_equal(g->turn, 2);
    assert_int_equal(g->p[2].nmelds, 1);
    assert_int_equal(g->p[2].melds[0].kind, GROUP_TRIPLE);
    assert_int_equal(held(g, 2), 6);
    OK(g, 2, "{\"type\":\"discard\",\"card\":\"orange\"}", 20);
    assert_int_equal(held(g, 2), 5); /* 5 cards stay in hand */
    assert_int_equal(g->turn, 3);
    game_free(&g->base);
}

static void claim_with_two_melds_leaves_two_in_hand(void **state)
{
    (void)state;
    g233_t *g = table(3, "{\"dispute_ms\":0}");
    hand(g, 0, "Y1 Y5 B2 B7 G3 G8 red pink");
    hand(g, 2, "Y3 Y3 B1 B5 G4 G6 orange purple");
    g->p[2].hand.n[card_number(1, 1)]--; /* replace B1 by a locked triple of B8 */
    g->p[2].hand.n[card_number(1, 5)]--;
    g->p[2].hand.n[card_number(2, 4)]--;
    g->draw[g->ndraw++] = card_number(1, 1);
    g->draw[g->ndraw++] = card_number(1, 5);
    g->draw[g->ndraw++] = card_number(2, 4);
    group_t *m = &g->p[2].melds[g->p[2].nmelds++];
    *m = (group_t){GROUP_TRIPLE, 3, {card_number(1, 8), card_number(1, 8), card_number(1, 8)}};
    for (int i = 0; i < 3; i++) {
        for (int k = g->ndraw - 1; k >= 0; k--)
            if (g->draw[k] == card_number(1, 8)) {
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
    g233_t *g = table(4, "{\"dispute_ms\":0}");
    hand(g, 0, "Y1 Y5 B2 B7 G3 G8 red pink");
    hand(g, 3, "B4 B4 B4 Y6 G1 G2 orange purple");
    turn0(g, "B4", "B4", 0);
    OK(g, 3, "{\"type\":\"claim\",\"cards\":[\"B4\",\"B4\",\"B4\"]}", 5);
    assert_int_equal(g->turn, 3);
    assert_int_equal(g->phase, PH_DRAW); /* plays again: draws, then discards */
    assert_int_equal(g->p[3].squares, 1);
    assert_int_equal(held(g, 3), 5);
    OK(g, 3, "{\"type\":\"draw\"}", 6);
    assert_int_equal(g->phase == PH_DISCARD || g->phase == PH_GIFT || g->phase == PH_DRAW, 1);
    game_free(&g->base);
}

static void a_discard_never_makes_a_double(void **state)
{
    (void)state;
    g233_t *g = table(3, "{\"dispute_ms\":0}");
    hand(g, 0, "Y1 Y5 B2 B7 G3 G8 red pink");
    hand(g, 2, "Y2 Y4 B1 B5 G4 G6 orange purple");
    turn0(g, "orange", "orange", 0);
    assert_false(legal_has(g, 2, "{\"type\":\"claim\",\"cards\":[\"orange\"]}"));
    refused(g, 2, "{\"type\":\"claim\",\"cards\":[\"orange\"]}", 1, "cannot_claim");
    refused(g, 2, "{\"type\":\"claim\",\"final\":true}", 1, "cannot_claim");
    game_free(&g->base);
}

static void a_discard_may_complete_a_233_with_its_double(void **state)
{
    (void)state;
    g233_t *g = table(3, "{\"dispute_ms\":0}");
    hand(g, 0, "Y1 Y5 B2 B7 G3 G8 red pink");
    /* Seat 2 holds two triples and one orange: the discarded orange makes the double. */
    hand(g, 2, "Y2 Y2 Y2 G5 G6 G7 orange B1");
    turn0(g, "orange", "orange", 0);
    assert_true(legal_has(g, 2, "{\"type\":\"claim\",\"final\":true}"));
    OK(g, 2, "{\"type\":\"claim\",\"final\":true}", 1);
    assert_int_equal(g->turn, 2);
    /* Having claimed to win, the taker must discard and declare. */
    refused(g, 2, "{\"type\":\"discard\",\"card\":\"B1\"}", 2, "must_declare");
    OK(g, 2, "{\"type\":\"discard\",\"card\":\"B1\",\"declare\":true}", 2);
    assert_int_equal(g->declarer, 2);
    assert_int_equal(g->declared, COMBO_233);
    game_free(&g->base);
}

static void sequences_are_claimed_only_with_the_option(void **state)
{
    (void)state;
    for (int opt = 0; opt <= 1; opt++) {
        g233_t *g =
            table(3, opt ? "{\"dispute_ms\":0,\"claim_sequences\":true}" : "{\"dispute_ms\":0}");
        hand(g, 0, "Y1 Y5 B2 B7 G3 G8 red pink");
        hand(g, 2, "B3 B4 B1 B8 G4 G6 orange purple");
        turn0(g, "B5", "B5", 0);
        const char *claim = "{\"type\":\"claim\",\"cards\":[\"B3\",\"B4\"]}";
        assert_int_equal(legal_has(g, 2, claim), opt);
        if (opt) {
            OK(g, 2, claim, 1);
            assert_int_equal(g->p[2].melds[0].kind, GROUP_SEQUENCE);
        } else {
            refused(g, 2, claim, 1, "cannot_claim");
        }
        game_free(&g->base);
    }
}

static void joker_claims_with_a_pair(void **state)
{
    (void)state;
    g233_t *g = table(3, "{\"dispute_ms\":0}");
    hand(g, 0, "Y1 Y5 B2 B7 G3 G8 red joker");
    hand(g, 2, "G6 G6 B1 B8 G4 Y6 orange purple");
    turn0(g, "pink", "joker", 0);
    assert_true(legal_has(g, 2, "{\"type\":\"claim\",\"cards\":[\"G6\",\"G6\"]}"));
    OK(g, 2, "{\"type\":\"claim\",\"cards\":[\"G6\",\"G6\"]}", 1);
    assert_int_equal(g->p[2].melds[0].kind, GROUP_TRIPLE);
    game_free(&g->base);
}

static void claim_closes_when_the_next_player_draws(void **state)
{
    (void)state;
    g233_t *g = table(4, NULL);
    hand(g, 0, "Y1 Y5 B2 B7 G3 G8 red pink");
    hand(g, 2, "Y3 Y3 B1 B5 G4 G6 orange purple");
    turn0(g, "Y3", "Y3", 0);
    OK(g, 1, "{\"type\":\"draw\"}", 100);
    refused(g, 2, "{\"type\":\"claim\",\"cards\":[\"Y3\",\"Y3\"]}", 101, "too_late");
    game_free(&g->base);
}

static void claims_outside_the_window_go_to_the_first(void **state)
{
    (void)state;
    g233_t *g = table(4, "{\"dispute_ms\":200}");
    hand(g, 0, "Y1 Y5 B2 B7 G3 G8 red pink");
    hand(g, 2, "Y3 Y2 B1 B5 G4 G6 orange orange");
    hand(g, 3, "Y3 Y2 B2 B6 G5 G7 orange orange");
    g->p[2].score = 100; /* the first claimant has the higher score */
    turn0(g, "orange", "orange", 0);
    OK(g, 2, "{\"type\":\"claim\",\"cards\":[\"orange\",\"orange\"]}", 1000);
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
    g233_t *g = table(4, "{\"dispute_ms\":200}");
    hand(g, 0, "Y1 Y5 B2 B7 G3 G8 red pink");
    hand(g, 2, "Y3 Y2 B1 B5 G4 G6 orange orange");
    hand(g, 3, "Y3 Y2 B2 B6 G5 G7 orange orange");
    g->p[2].score = 100;
    g->p[3].score = 40;
    turn0(g, "orange", "orange", 0);
    OK(g, 2, "{\"type\":\"claim\",\"cards\":[\"orange\",\"orange\"]}", 1000);
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
    g233_t *g = table(4, "{\"dispute_ms\":200}");
    hand(g, 0, "Y1 Y5 B2 B7 G3 G8 red pink");
    hand(g, 2, "Y3 Y2 B1 B5 G4 G6 orange orange");
    hand(g, 3, "Y3 Y2 B2 B6 G5 G7 orange orange");
    turn0(g, "orange", "orange", 0);
    OK(g, 3, "{\"type\":\"claim\",\"cards\":[\"orange\",\"orange\"]}", 500);
    OK(g, 2, "{\"type\":\"claim\",\"cards\":[\"orange\",\"orange\"]}", 501);
    g233_desc.tick(&g->base, 701);
    assert_int_equal(g->turn, 3);
    game_free(&g->base);
}

static void turn_players_take_races_with_claims(void **state)
{
    (void)state;
    g233_t *g = table(4, "{\"dispute_ms\":200}");
    hand(g, 0, "Y1 Y5 B2 B7 G3 G8 red pink");
    hand(g, 2, "Y3 Y3 B1 B5 G4 G6 orange purple");
    g->p[1].score = 10;
    g->p[2].score = 50;
    turn0(g, "Y3", "Y3", 0);
    OK(g, 2, "{\"type\":\"claim\",\"cards\":[\"Y3\",\"Y3\"]}", 100);
    OK(g, 1, "{\"type\":\"take\"}", 150); /* within the window, lower score: seat 1 wins */
    g233_desc.tick(&g->base, 301);
    assert_int_equal(g->turn, 1);
    assert_int_equal(g->phase, PH_DISCARD);
    assert_int_equal(g->p[1].hand.n[card_number(0, 3)] >= 1, 1);
    assert_int_equal(g->p[2].nmelds, 0);
    game_free(&g->base);
}

/* ------------------------------------------------------------------ */
/* Special cards                                                        */
/* ------------------------------------------------------------------ */

static void reverse_flips_the_direction(void **state)
{
    (void)state;
    g233_t *g = table(4, NULL);
    hand(g, 0, "Y1 Y5 B2 B7 G3 G8 red reverse");
    turn0(g, "pink", "reverse", 0);
    assert_int_equal(g->dir, -1);
    assert_int_equal(g->turn, 3); /* the player before plays next */
    game_free(&g->base);
}

static void reverse_with_two_players_lets_the_discarder_play_again(void **state)
{
    (void)state;
    g233_t *g = table(2, NULL);
    hand(g, 0, "Y1 Y5 B2 B7 G3 G8 red reverse");
    turn0(g, "pink", "reverse", 0);
    assert_int_equal(g->turn, 0);
    assert_int_equal(g->phase, PH_DRAW);
    game_free(&g->base);
}

static void stop_skips_the_next_player(void **state)
{
    (void)state;
    g233_t *g = table(4, NULL);
    hand(g, 0, "Y1 Y5 B2 B7 G3 G8 red pink");
    next_draw(g, "stop");
    OK(g, 0, "{\"type\":\"draw\"}", 0);
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
    g233_t *g = table(3, NULL);
    hand(g, 0, "Y1 Y5 B2 B7 G3 G8 red pink");
    next_draw(g, "gift+5");
    OK(g, 0, "{\"type\":\"draw\"}", 0);
    assert_int_equal(g->p[0].score, 5);
    assert_int_equal(g->p[0].gifts_plus, 1);
    assert_int_equal(g->phase, PH_DRAW);
    assert_int_equal(held(g, 0), 8);
    refused(g, 0, "{\"type\":\"take\"}", 0, "too_late"); /* drawing closed the discard */
    OK(g, 0, "{\"type\":\"draw\"}", 0);
    game_free(&g->base);
}

static void minus_gift_goes_to_a_named_player(void **state)
{
    (void)state;
    g233_t *g = table(3, NULL);
    hand(g, 0, "Y1 Y5 B2 B7 G3 G8 red pink");
    next_draw(g, "gift-5");
    OK(g, 0, "{\"type\":\"draw\"}", 0);
    assert_int_equal(g->phase, PH_GIFT);
    json_t *v = g233_desc.view(&g->base, 1);
    assert_string_equal(json_string_value(json_object_get(v, "pending_gift")), "gift-5");
    json_decref(v);
    refused(g, 0, "{\"type\":\"draw\"}", 0, "must_place_gift");
    refused(g, 0, "{\"type\":\"discard\",\"card\":\"gift-5\"}", 0, "must_place_gift");
    refused(g, 0, "{\"type\":\"gift\",\"to\":0}", 0, "bad_target");
    refused(g, 0, "{\"type\":\"gift\",\"to\":3}", 0, "bad_target");
    OK(g, 0, "{\"type\":\"gift\",\"to\":2}", 0);
    assert_int_equal(g->p[2].score, -5);
    assert_int_equal(g->p[2].gifts_minus, 1);
    assert_int_equal(g->phase, PH_DRAW);
    game_free(&g->base);
}

static void natural_square_must_be_laid_and_owner_plays_again(void **state)
{
    (void)state;
    g233_t *g = table(3, NULL);
    hand(g, 0, "G2 G2 G2 B7 G3 G8 red pink");
    next_draw(g, "G2");
    OK(g, 0, "{\"type\":\"draw\"}", 0);
    refused(g, 0, "{\"type\":\"discard\",\"card\":\"red\"}", 0, "must_lay_square");
    refused(g, 0, "{\"type\":\"lay\",\"cards\":[\"G2\",\"G2\",\"G3\",\"G8\"]}", 0, "not_a_square");
    OK(g, 0, "{\"type\":\"lay\",\"cards\":[\"G2\",\"G2\",\"G2\",\"G2\"]}", 0);
    assert_int_equal(g->p[0].squares, 1);
    assert_int_equal(g->turn, 0);
    assert_int_equal(g->phase, PH_DRAW);
    next_draw(g, "Y4");
    OK(g, 0, "{\"type\":\"draw\"}", 0);
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
    g233_t *g = table(3, NULL);
    hand(g, 0, "red red Y1 Y2 Y3 B5 B5 B5");
    hand(g, 1, "Y8 Y7 B1 B2 G5 G8 orange pink");
    hand(g, 2, "Y6 Y4 B8 B3 G6 G1 purple pink");
    assert_true(legal_has(g, 0, "{\"type\":\"declare\"}"));
    OK(g, 0, "{\"type\":\"declare\"}", 0);
    assert_int_equal(g->declarer, 0);
    assert_int_equal(g->turn, 1);
    refused(g, 0, "{\"type\":\"draw\"}", 0, "not_your_turn");
    next_draw(g, "Y6");
    OK(g, 1, "{\"type\":\"draw\"}", 0);
    OK(g, 1, "{\"type\":\"discard\",\"card\":\"Y6\"}", 0);
    refused(g, 0, "{\"type\":\"claim\",\"cards\":[\"Y6\",\"Y6\"]}", 0, "round_ending");
    /* The last player may take the discard on their last draw. */
    OK(g, 2, "{\"type\":\"take\"}", 0);
    OK(g, 2, "{\"type\":\"discard\",\"card\":\"G1\"}", 0);
    /* Round over: scored, hands revealed, winner deals the next round. */
    assert_non_null(g->last_round);
    assert_int_equal(json_integer_value(json_object_get(g->last_round, "winner")), 0);
    json_t *h0 = json_array_get(json_object_get(g->last_round, "hands"), 0);
    assert_int_equal(json_integer_value(json_object_get(h0, "points")), 50);
    assert_string_equal(json_string_value(json_object_get(h0, "combo")), "2-3-3");
    json_t *h2 = json_array_get(json_object_get(g->last_round, "hands"), 2);
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
    g233_t *g = table(3, NULL);
    hand(g, 0, "Y1 Y5 B2 B7 G3 G8 red pink");
    hand(g, 1, "orange orange Y1 Y2 Y3 B5 B5 B5");
    turn0(g, "G1", "G1", 0);
    OK(g, 1, "{\"type\":\"declare\"}", 0); /* seat 1 wins, before drawing */
    OK(g, 2, "{\"type\":\"draw\"}", 0);
    while (g->round == 1) { /* seats 2 then 0 finish their last draw with the bot */
        json_t *v = g233_desc.view(&g->base, g->turn);
        rng_t r;
        rng_seed(&r, 1);
        json_t *a = g233_bot(v, "greedy", &r);
        game_error_t err;
        assert_int_equal(game_apply(&g->base, g->turn, a, 0, &err), 0);
        json_decref(a);
        json_decref(v);
    }
    assert_int_equal(json_integer_value(json_object_get(g->last_round, "winner")), 1);
    assert_int_equal(g->dealer, 1);
    assert_int_equal(g->turn, 1);
    assert_int_equal(g->phase, PH_DRAW);
    game_free(&g->base);
}

static void declare_without_a_combination_is_refused(void **state)
{
    (void)state;
    g233_t *g = table(3, NULL);
    hand(g, 0, "red pink Y1 Y2 Y3 B5 B5 B5");
    assert_false(legal_has(g, 0, "{\"type\":\"declare\"}"));
    refused(g, 0, "{\"type\":\"declare\"}", 0, "no_combination");
    next_draw(g, "G7");
    OK(g, 0, "{\"type\":\"draw\"}", 0);
    refused(g, 0, "{\"type\":\"discard\",\"card\":\"G7\",\"declare\":true}", 0, "no_combination");
    game_free(&g->base);
}

static void declare_after_drawing_and_discarding(void **state)
{
    (void)state;
    g233_t *g = table(2, NULL);
    hand(g, 0, "red Y1 Y2 Y3 B5 B5 B5 G1");
    next_draw(g, "red");
    OK(g, 0, "{\"type\":\"draw\"}", 0);
    assert_true(legal_has(g, 0, "{\"type\":\"discard\",\"card\":\"G1\",\"declare\":true}"));
    OK(g, 0, "{\"type\":\"discard\",\"card\":\"G1\",\"declare\":true}", 0);
    assert_int_equal(g->declarer, 0);
    assert_int_equal(g->turn, 1);
    game_free(&g->base);
}

static void rainbow_scores_100_even_when_not_first(void **state)
{
    (void)state;
    g233_t *g = table(2, NULL);
    hand(g, 0, "red red Y1 Y2 Y3 B5 B5 B5");
    hand(g, 1, "red pink purple orange Y4 B4 G4 G5");
    OK(g, 0, "{\"type\":\"declare\"}", 0);
    next_draw(g, "joker");
    OK(g, 1, "{\"type\":\"draw\"}", 0);
    OK(g, 1, "{\"type\":\"discard\",\"card\":\"G5\"}", 0);
    json_t *h1 = json_array_get(json_object_get(g->last_round, "hands"), 1);
    assert_string_equal(json_string_value(json_object_get(h1, "combo")), "rainbow");
    assert_int_equal(json_integer_value(json_object_get(h1, "points")), 100);
    game_free(&g->base);
}

static void stop_drawn_last_completes_a_rainbow(void **state)
{
    (void)state;
    g233_t *g = table(3, NULL);
    hand(g, 0, "red pink purple orange Y4 B4 G4 G5");
    next_draw(g, "stop");
    OK(g, 0, "{\"type\":\"draw\"}", 0);
    OK(g, 0, "{\"type\":\"discard\",\"card\":\"G5\",\"declare\":true}", 0);
    assert_int_equal(g->declared, COMBO_RAINBOW);
    game_free(&g->base);
}

static void gift_kept_only_as_the_last_card_drawn(void **state)
{
    (void)state;
    g233_t *g = table(3, NULL);
    hand(g, 0, "red pink purple orange Y4 B4 G4 G5");
    next_draw(g, "gift+5");
    OK(g, 0, "{\"type\":\"draw\"}", 0);
    /* The +5 could make a rainbow: the player chooses. */
    assert_int_equal(g->phase, PH_GIFT);
    assert_true(legal_has(g, 0, "{\"type\":\"gift\"}"));
    assert_true(legal_has(g, 0, "{\"type\":\"discard\",\"card\":\"G5\",\"declare\":true}"));
    OK(g, 0, "{\"type\":\"gift\"}", 0); /* placed: no longer in hand */
    assert_int_equal(g->p[0].score, 5);
    next_draw(g, "Y8");
    OK(g, 0, "{\"type\":\"draw\"}", 0);
    refused(g, 0, "{\"type\":\"discard\",\"card\":\"G5\",\"declare\":true}", 0, "no_combination");
    game_free(&g->base);
}

static void draw_pile_is_rebuilt_from_the_discards_but_the_top(void **state)
{
    (void)state;
    g233_t *g = table(2, NULL);
    hand(g, 0, "Y1 Y5 B2 B7 G3 G8 red pink");
    /* Move all but two cards of the draw pile onto the discard pile. */
    while (g->ndraw > 2)
        g->discard[g->ndiscard++] = g->draw[--g->ndraw];
    g->discard[g->ndiscard++] = card_number(0, 1);
    g->p[0].hand.n[card_number(0, 1)]--;
    g->p[0].hand.n[g->draw[--g->ndraw]]++;
    audit_ok(g);
    int total_discards = g->ndiscard;
    card_t topcard = g->discard[g->ndiscard - 1];
    OK(g, 0, "{\"type\":\"draw\"}", 0); /* the last card */
    OK(g, 0, "{\"type\":\"discard\",\"card\":\"Y5\"}", 0);
    int before = g->ndiscard;
    assert_int_equal(before, total_discards + 1);
    OK(g, 1, "{\"type\":\"draw\"}", 0); /* empty: rebuilt */
    assert_int_equal(g->rebuilds, 1);
    assert_int_equal(g->ndiscard, 1);
    assert_int_equal(g->discard[0], card_number(0, 5));
    (void)topcard;
    game_free(&g->base);
}

static void round_ends_without_winner_after_max_rebuilds(void **state)
{
    (void)state;
    g233_t *g = table(2, "{\"max_rebuilds\":0}");
    hand(g, 0, "Y1 Y5 B2 B7 G3 G8 red red");
    hand(g, 1, "Y2 Y6 B3 B8 G4 G7 pink pink");
    while (g->ndraw > 0)
        g->discard[g->ndiscard++] = g->draw[--g->ndraw];
    audit_ok(g);
    OK(g, 0, "{\"type\":\"draw\"}", 0);
    assert_non_null(g->last_round);
    assert_string_equal(json_string_value(json_object_get(g->last_round, "reason")),
                        "draw_pile_exhausted");
    assert_true(json_is_null(json_object_get(g->last_round, "winner")));
    /* Everyone scores their cards: each holds a double. */
    assert_int_equal(g->p[0].score, 5);
    assert_int_equal(g->p[1].score, 5);
    assert_int_equal(g->dealer, 1); /* no winner: the deal passes on */
    game_free(&g->base);
}

static void game_ends_when_a_total_passes_the_target(void **state)
{
    (void)state;
    g233_t *g = table(2, NULL);
    g->p[0].score = 200;
    g->p[1].score = 100;
    hand(g, 0, "red red Y1 Y2 Y3 B5 B5 B5");
    OK(g, 0, "{\"type\":\"declare\"}", 0);
    next_draw(g, "G1");
    OK(g, 1, "{\"type\":\"draw\"}", 0);
    OK(g, 1, "{\"type\":\"discard\",\"card\":\"G1\"}", 0);
    assert_true(game_is_over(&g->base));
    json_t *r = g233_desc.result(&g->base);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(r, "winners"), 0)), 0);
    json_decref(r);
    refused(g, 1, "{\"type\":\"draw\"}", 0, "game_over");
    json_t *legal = g233_desc.legal(&g->base, 0);
    assert_int_equal(json_array_size(legal), 0);
    json_decref(legal);
    game_free(&g->base);
}

static void tie_at_the_top_plays_another_round(void **state)
{
    (void)state;
    g233_t *g = table(2, "{\"max_rebuilds\":0}");
    g->p[0].score = 240;
    g->p[1].score = 240;
    hand(g, 0, "Y1 Y5 B2 B7 G3 G8 red purple");
    hand(g, 1, "Y2 Y6 B3 B8 G4 G7 pink orange");
    while (g->ndraw > 0)
        g->discard[g->ndiscard++] = g->draw[--g->ndraw];
    OK(g, 0, "{\"type\":\"draw\"}", 0);
    assert_false(game_is_over(&g->base));
    assert_int_equal(g->round, 2);
    game_free(&g->base);
}

static void views_show_a_hand_only_to_its_owner(void **state)
{
    (void)state;
    g233_t *g = table(4, NULL);
    for (int s = -1; s < 4; s++) {
        json_t *v = g233_desc.view(&g->base, s);
        json_t *h = json_object_get(v, "hand");
        if (s < 0) {
            assert_null(h);
            assert_null(json_object_get(v, "legal"));
        } else {
            assert_int_equal(json_array_size(h), 8);
            assert_int_equal(json_integer_value(json_object_get(v, "seat")), s);
        }
        json_decref(v);
    }
    game_free(&g->base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(deck_has_the_140_cards_of_the_seed),
        cmocka_unit_test(deal_gives_eight_each_and_turns_up_one),
        cmocka_unit_test(table_sizes_outside_two_to_six_are_refused),
        cmocka_unit_test(passed_over_gifts_and_stops_are_shuffled_back),
        cmocka_unit_test(dealer_opens_by_drawing),
        cmocka_unit_test(turn_is_draw_one_then_discard_one_clockwise),
        cmocka_unit_test(inline_args_form_is_accepted),
        cmocka_unit_test(own_turn_may_take_the_top_discard),
        cmocka_unit_test(own_discard_cannot_be_taken_back),
        cmocka_unit_test(claim_lays_a_triple_discards_and_play_resumes_after_taker),
        cmocka_unit_test(claim_with_two_melds_leaves_two_in_hand),
        cmocka_unit_test(claim_of_a_square_is_laid_and_taker_plays_again),
        cmocka_unit_test(a_discard_never_makes_a_double),
        cmocka_unit_test(a_discard_may_complete_a_233_with_its_double),
        cmocka_unit_test(sequences_are_claimed_only_with_the_option),
        cmocka_unit_test(joker_claims_with_a_pair),
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
        cmocka_unit_test(rainbow_scores_100_even_when_not_first),
        cmocka_unit_test(stop_drawn_last_completes_a_rainbow),
        cmocka_unit_test(gift_kept_only_as_the_last_card_drawn),
        cmocka_unit_test(draw_pile_is_rebuilt_from_the_discards_but_the_top),
        cmocka_unit_test(round_ends_without_winner_after_max_rebuilds),
        cmocka_unit_test(game_ends_when_a_total_passes_the_target),
        cmocka_unit_test(tie_at_the_top_plays_another_round),
        cmocka_unit_test(views_show_a_hand_only_to_its_owner),
    };
    (void)destroy;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
