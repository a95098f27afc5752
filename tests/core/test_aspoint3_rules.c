/*
 * test_aspoint3_rules.c — one test per rule of As.point3 (core/aspoint3/RULES.md)
 * and each example of the text (seed 002), on hand-built states: the table is
 * created with a fixed seed, then the deal is set with the test constructors
 * of aspoint3.h, and the rule is exercised through the public apply() with
 * JSON actions. Hidden information is checked over many random games.
 *
 * Length: over 800 lines on purpose: one test per rule of RULES.md and per example of
 * the text, in its order, so that a rule and its test are found together.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#define GT_UNTIMED
#include "tests/core/game_test.h"

#include "core/aspoint3/aspoint3.h"
#include "tests/lib/case_group.h"
#include "tests/lib/sanitized.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                              */
/* ------------------------------------------------------------------ */

static ap3_t *table(const char *opts)
{
    return (ap3_t *)gt_table(&aspoint3_desc, 2, opts, 42);
}

static const char *const KEEP = "{\"type\":\"keep\"}";
static const char *const DOWN = "{\"type\":\"pick\",\"card\":\"down\"}";
static const char *const UP = "{\"type\":\"pick\",\"card\":\"up\"}";

static void deal(ap3_t *g, const char *h0, const char *h1, const char *up, const char *down)
{
    assert_int_equal(ap3_set_deal(g, h0, h1, up, down), 0);
    audit_ok(g);
}

/* A table (options `opts`) whose first deal is h0, h1, up, down (deal()). */
static ap3_t *dealt(const char *opts, const char *h0, const char *h1, const char *up,
                    const char *down)
{
    ap3_t *g = table(opts);
    deal(g, h0, h1, up, down);
    return g;
}

/* The plainest play of a deal: the starter keeps, the other takes the face-down card. */
static void keep_and_take_down(ap3_t *g)
{
    OK(g, g->starter, KEEP);
    OK(g, 1 - g->starter, DOWN);
}

/*
 * The deal 2S 9H | 4D 2C | up 5S, down 3H (seat 0 makes 16, seat 1 makes 9)
 * played from the round scores score0 and score1: the starter keeps, the
 * other takes the face-down card.
 */
static void play_the_small_deal(ap3_t *g, int score0, int score1)
{
    g->score[0] = score0;
    g->score[1] = score1;
    deal(g, "2S 9H", "4D 2C", "5S", "3H");
    keep_and_take_down(g);
}

static int points_of(const char *names)
{
    ap3_card_t c[3];
    int n = 0;
    char buf[64];
    snprintf(buf, sizeof buf, "%s", names);
    for (char *save, *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        int k = ap3_card_parse(w);
        assert_true(k >= 0);
        c[n++] = (ap3_card_t)k;
    }
    return ap3_points(c, n);
}

/* A new table's first deal h0, h1, up, down, in which the starter (seat 0)
   keeps and seat 1 picks `pick` (UP or DOWN). */
static ap3_t *kept_then_picked(const char *h0, const char *h1, const char *up, const char *down,
                               const char *pick)
{
    ap3_t *g = dealt(NULL, h0, h1, up, down);
    OK(g, 0, KEEP);
    OK(g, 1, pick);
    return g;
}

static json_t *last_deal(ap3_t *g)
{
    return g->last_deal.tree;
}

static int deal_int(ap3_t *g, const char *key, int i)
{
    json_t *v = json_object_get(last_deal(g), key);
    return (int)json_integer_value(i < 0 ? v : json_array_get(v, (size_t)i));
}

/* After a deal: the round scores are score0 and score1, and `winner` won the deal. */
static void scores_are(ap3_t *g, int score0, int score1, int winner)
{
    assert_int_equal(g->score[0], score0);
    assert_int_equal(g->score[1], score1);
    assert_int_equal(deal_int(g, "winner", -1), winner);
}

/*
 * Most tests work on a table in *state, made before each and freed after it,
 * whether it passed or not: the default table as dealt (default_table), or
 * on it the small deal 2S 9H against KD QC, 5S up and AH down (small_deal).
 */
static int default_table(void **state)
{
    *state = table(NULL);
    return 0;
}

static int small_deal(void **state)
{
    *state = dealt(NULL, "2S 9H", "KD QC", "5S", "AH");
    return 0;
}

static int free_table(void **state)
{
    game_free(*state);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Cards and points                                                     */
/* ------------------------------------------------------------------ */

static void deck_has_52_cards_named_rank_and_suit(void **state)
{
    (void)state;
    for (int c = 0; c < AP3_DECK; c++)
        assert_int_equal(ap3_card_parse(ap3_card_name((ap3_card_t)c)), c);
    assert_int_equal(ap3_card_parse("AS"), 0);
    assert_int_equal(ap3_rank((ap3_card_t)ap3_card_parse("10H")), 9);
    assert_int_equal(ap3_card_parse("kc"), ap3_card_parse("KC"));
    assert_int_equal(ap3_card_parse("1S"), -1);
    assert_int_equal(ap3_card_parse("11H"), -1);
    assert_int_equal(ap3_card_parse("AX"), -1);
    assert_int_equal(ap3_card_parse(""), -1);
    assert_null(ap3_card_name(AP3_DECK));
}

static void card_values_follow_the_text(void **state)
{
    (void)state;
    assert_int_equal(ap3_card_value((ap3_card_t)ap3_card_parse("AS")), 30);
    assert_int_equal(ap3_card_value((ap3_card_t)ap3_card_parse("KH")), 20);
    assert_int_equal(ap3_card_value((ap3_card_t)ap3_card_parse("QD")), 15);
    assert_int_equal(ap3_card_value((ap3_card_t)ap3_card_parse("JC")), 12);
    static const char *const nums[] = {"2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S"};
    for (int i = 0; i < 9; i++)
        assert_int_equal(ap3_card_value((ap3_card_t)ap3_card_parse(nums[i])), i + 2);
}

static void three_cards_without_an_ace_score_their_sum(void **state)
{
    (void)state;
    gt_values(points_of, "points", "KS QH JD", 47, "10S 9H 2D", 21, "3S 3H 3D", 9, "KS KH KD", 60,
              NULL);
}

/* The text's examples: A+J+5 = 30, with a 3: 33, A+3+3 = 36, A+A+3 = 66. */
static void aces_combine_only_with_aces_and_threes(void **state)
{
    (void)state;
    gt_values(points_of, "points", "AS JH 5D", 30, "AS 3H 5D", 33, "AS 3H", 33, "AS 3H 3D", 36,
              "AS AH 3D", 66, "AS AH KD", 60, "AS AH AD", 90, "AS KH QD", 30, NULL);
}

/*
 * Interpretation (RULES.md): an ace takes the whole hand; the other cards
 * count for nothing even where they would score more than the aces ("best
 * combination" would give A K Q 35, A K K 40, A K J 32). The points, then two
 * deals whose outcome the other reading would turn round.
 */
static void ace_takes_the_whole_hand_even_where_other_cards_score_more(void **state)
{
    (void)state;
    gt_values(points_of, "points", "AS KH QD", 30, "AS KH KD", 30, "AS KH JD", 30, "AH QS QD", 30,
              "AH KS 10D", 30, NULL);
    assert_int_equal(points_of("AD 3S KC"), 33); /* the three counts, the king does not */

    /* A challenge for the ace with K Q: 30 against 32, lost (35 would win). */
    ap3_t *g = kept_then_picked("KS 5H", "KD QC", "AH", "7S", UP);
    assert_int_equal(deal_int(g, "values", 1), 30);
    assert_int_equal(deal_int(g, "values", 0), 32);
    assert_int_equal(deal_int(g, "winner", -1), 0);
    assert_int_equal(g->score[1], 30);
    assert_int_equal(g->score[0], 32 + 30 + 5);
    game_free(&g->base);

    /* K K taking the face-down ace: 30, the deal goes to 32 (40 would win it). */
    g = dealt("{\"packs\":1}", "KS 5H", "KD KC", "7S", "AH");
    OK(g, 0, KEEP);
    OK(g, 1, DOWN);
    assert_int_equal(deal_int(g, "values", 1), 30);
    assert_int_equal(deal_int(g, "winner", -1), 0);
    assert_int_equal(g->score[0], 1);
    assert_int_equal(g->score[1], 0);
    game_free(&g->base);
}

/*
 * The two readings of the aces on every hand of three (C(52,3) = 22,100),
 * from the text's values: the ace reading (kept) and "the best combination"
 * (the larger of the aces-with-threes and the sum of the cards but the aces).
 * The game scores the ace reading on all of them; the readings differ on
 * exactly the hands of one ace and two court cards worth more than 30 (K K,
 * K Q, K J: 6 + 16 + 16 pairs, with each of 4 aces: 152 hands), nowhere else.
 */
static void ace_reading_differs_from_best_combination_only_with_two_court_cards(void **state)
{
    (void)state;
    static const int value[13] = {30, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 20}; /* A 2..10 J Q K */
    int differ = 0;
    for (int a = 0; a < AP3_DECK; a++)
        for (int b = a + 1; b < AP3_DECK; b++)
            for (int c = b + 1; c < AP3_DECK; c++) {
                ap3_card_t h[3] = {(ap3_card_t)a, (ap3_card_t)b, (ap3_card_t)c};
                int aces = 0, threes = 0, others = 0, courts = 0;
                for (int i = 0; i < 3; i++) {
                    int r = ap3_rank(h[i]);
                    aces += r == 0;
                    threes += r == 2;
                    courts += r >= 10;
                    if (r != 0) others += value[r];
                }
                int ace_reading = aces ? aces * (30 + 3 * threes) : others;
                int best = aces && others > ace_reading ? others : ace_reading;
                assert_int_equal(ap3_points(h, 3), ace_reading);
                if (best != ace_reading) {
                    differ++;
                    if (aces != 1 || courts != 2 || others <= 30)
                        fail_msg("cards %d %d %d: the readings differ elsewhere", a, b, c);
                }
            }
    assert_int_equal(differ, 4 * (6 + 16 + 16));
}

/* ------------------------------------------------------------------ */
/* Deal, swap, pick                                                     */
/* ------------------------------------------------------------------ */

static void deal_gives_two_hidden_cards_each_and_two_centre_cards(void **state)
{
    ap3_t *g = *state;
    audit_ok(g);
    assert_int_equal(g->nstock, 52 - 6);
    assert_int_equal(g->starter, 0);
    assert_int_equal(g->phase, AP3_SWAP);
    assert_int_equal(aspoint3_desc.waiting(&g->base), 1u);
    json_t *v = game_view(&g->base, 1);
    assert_int_equal(json_array_size(json_object_get(v, "hand")), 2);
    assert_string_equal(json_string_value(json_object_get(v, "up")), ap3_card_name(g->up));
    assert_true(json_is_true(json_object_get(v, "down")));
    json_decref(v);
}

static void options_out_of_range_are_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "{\"rounds\":0}", "{\"rounds\":16}", "{\"target\":-1}", "{\"packs\":-1}", "{\"packs\":21}",
        "{\"target\":10001}", "{\"rounds\":\"3\"}", "{\"bogus\":1}",
        /* the packs variant counts by manche or in total only */
        "{\"pack_scoring\":\"best\"}", "{\"pack_scoring\":\"Manche\"}", "{\"pack_scoring\":\"\"}",
        "{\"pack_scoring\":1}", "{\"packs\":2,\"pack_scoring\":\"totals\"}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        gt_new_refused(&aspoint3_desc, 2, bad[i], "bad_option");
    gt_new_refused(&aspoint3_desc, 3, NULL, "bad_players");
    ap3_t *g = table("{\"rounds\":5}");
    assert_int_equal(g->rounds, 5);
    game_free(&g->base);
}

static void starter_swaps_blind_with_the_face_down_card(void **state)
{
    ap3_t *g = *state;
    OK(g, 0, "{\"type\":\"swap\",\"card\":\"2S\"}");
    assert_int_equal(g->phase, AP3_PICK);
    assert_int_equal(g->hand[0][0], ap3_card_parse("AH"));
    assert_int_equal(g->down, ap3_card_parse("2S"));
    /* The swapper sees the card taken and knows the card given; nobody else does. */
    json_t *v0 = game_view(&g->base, 0), *v1 = game_view(&g->base, 1),
           *vs = game_view(&g->base, GAME_SPECTATOR);
    json_t *want = json_pack("[s,s]", "AH", "9H");
    assert_true(json_equal(json_object_get(v0, "hand"), want));
    assert_string_equal(json_string_value(json_object_get(v0, "swapped_out")), "2S");
    assert_null(json_object_get(v1, "swapped_out"));
    assert_null(json_object_get(vs, "swapped_out"));
    assert_null(json_object_get(vs, "hand"));
    assert_true(json_is_true(json_object_get(v1, "swapped")));
    json_decref(want);
    json_decref(v0);
    json_decref(v1);
    json_decref(vs);
    /* The picker takes the face-down card: the starter's old 2S. */
    OK(g, 1, DOWN);
    assert_int_equal(deal_int(g, "values", 0), points_of("AH 9H 5S"));
    assert_int_equal(deal_int(g, "values", 1), points_of("KD QC 2S"));
}

static void starter_may_keep(void **state)
{
    ap3_t *g = *state;
    assert_true(legal_has(g, 0, KEEP));
    OK(g, 0, KEEP);
    json_t *v1 = game_view(&g->base, 1);
    assert_true(json_is_false(json_object_get(v1, "swapped")));
    json_decref(v1);
    OK(g, 1, DOWN);
    assert_int_equal(deal_int(g, "values", 1), points_of("KD QC AH"));
    assert_int_equal(deal_int(g, "values", 0), points_of("2S 9H 5S"));
}

static void only_the_starter_swaps_then_only_the_other_picks(void **state)
{
    ap3_t *g = *state;
    refused(g, 1, DOWN, "not_your_turn");
    refused(g, 1, KEEP, "not_your_turn");
    refused(g, 0, UP, "wrong_step");
    refused(g, 0, "{\"type\":\"swap\",\"card\":\"KD\"}", "not_in_hand");
    refused(g, GAME_SPECTATOR, KEEP, "not_seated");
    assert_int_equal(legal_count(g, 1), 0);
    OK(g, 0, KEEP);
    refused(g, 0, KEEP, "not_your_turn");
    refused(g, 1, KEEP, "wrong_step");
    refused(g, 1, "{\"type\":\"swap\",\"card\":\"KD\"}", "wrong_step");
    assert_int_equal(aspoint3_desc.waiting(&g->base), 2u);
    assert_true(legal_has(g, 1, DOWN));
    assert_true(legal_has(g, 1, UP));
}

static void legal_lists_keep_the_two_swaps_then_the_two_picks(void **state)
{
    ap3_t *g = *state;
    gt_json_is(game_legal(&g->base, 0), "[{\"type\":\"keep\"},{\"type\":\"swap\",\"card\":\"2S\"},"
                                        "{\"type\":\"swap\",\"card\":\"9H\"}]");
    OK(g, 0, KEEP);
    gt_json_same(game_legal(&g->base, 1),
                 json_pack("[o,o]", json_loads(DOWN, 0, NULL), json_loads(UP, 0, NULL)));
}

static void taking_the_face_down_card_both_score_their_three_cards(void **state)
{
    (void)state;
    ap3_t *g = kept_then_picked("2S 9H", "KD QC", "5S", "AH", DOWN);
    /* Seat 1 (KD QC AH): 30, the ace alone. Seat 0 (2S 9H 5S): 16. */
    assert_int_equal(g->score[0], 16);
    assert_int_equal(g->score[1], 30);
    assert_false(json_is_true(json_object_get(last_deal(g), "challenge")));
    assert_int_equal(deal_int(g, "winner", -1), 1);
    game_free(&g->base);
}

static void challenge_won_scores_the_challenger_only(void **state)
{
    (void)state;
    ap3_t *g = kept_then_picked("2S 9H", "KD QC", "JS", "4H",
                                UP); /* KD QC JS = 47 against 2S 9H 4H = 15 */
    assert_true(json_is_true(json_object_get(last_deal(g), "challenge")));
    scores_are(g, 0, 47, 1);
    game_free(&g->base);
}

static void challenge_lost_gives_the_opponent_the_face_up_value_plus_five(void **state)
{
    (void)state;
    ap3_t *g = kept_then_picked("AS 3H", "4D 2C", "QS", "4H",
                                UP); /* 4D 2C QS = 21 against AS 3H 4H = 33 */
    scores_are(g, 33 + 15 + 5, 21, 0);
    game_free(&g->base);
}

static void tied_challenge_is_lost(void **state)
{
    (void)state;
    ap3_t *g = kept_then_picked("KS 5H", "KD 5C", "8S", "8H", UP); /* 33 against 33 */
    assert_int_equal(deal_int(g, "values", 0), 33);
    assert_int_equal(deal_int(g, "values", 1), 33);
    scores_are(g, 33 + 8 + 5, 33, 0);
    game_free(&g->base);
}

static void starter_alternates_from_deal_to_deal(void **state)
{
    ap3_t *g = *state;
    for (int d = 0; d < 6; d++) {
        assert_int_equal(g->starter, d % 2);
        OK(g, d % 2, KEEP);
        OK(g, 1 - d % 2, DOWN);
    }
}

static void reveal_is_public_after_each_deal(void **state)
{
    ap3_t *g = *state;
    OK(g, 0, "{\"type\":\"swap\",\"args\":[\"9H\"]}");
    OK(g, 1, UP);
    json_t *want = json_loads("{\"deal\":1,\"round\":1,\"starter\":0,\"picker\":1,\"swapped\":true,"
                              "\"pick\":\"up\",\"challenge\":true,\"up\":\"5S\",\"down\":\"9H\","
                              "\"cards\":[[\"2S\",\"AH\",\"9H\"],[\"KD\",\"QC\",\"5S\"]],"
                              "\"values\":[30,40],\"points\":[0,40],\"winner\":1,"
                              "\"bonus\":null,\"scores\":[0,40]}",
                              0, NULL);
    for (int s = GAME_SPECTATOR; s < 2; s++) {
        json_t *v = game_view(&g->base, s);
        json_t *got = json_object_get(v, "last_deal");
        if (!json_equal(got, want)) {
            char *t = json_dumps(got, JSON_SORT_KEYS);
            fail_msg("view(%d) last_deal: %s", s, t);
        }
        json_decref(v);
    }
    json_decref(want);
}

/* ------------------------------------------------------------------ */
/* Rounds and the game                                                  */
/* ------------------------------------------------------------------ */

static void first_total_over_the_target_wins_the_round_and_scores_the_difference(void **state)
{
    ap3_t *g = *state;
    play_the_small_deal(g, 340, 250); /* seat 0: 16 -> 356; seat 1: 9 -> 259 */
    json_t *r = json_object_get(last_deal(g), "round_over");
    assert_non_null(r);
    assert_int_equal(json_integer_value(json_object_get(r, "winner")), 0);
    assert_int_equal(json_integer_value(json_object_get(r, "points")), 356 - 259);
    json_t *sc = json_pack("[i,i]", 356, 259);
    assert_true(json_equal(json_object_get(last_deal(g), "scores"), sc));
    json_decref(sc);
    assert_int_equal(g->total[0], 97);
    assert_int_equal(g->total[1], 0);
    /* A new round: totals of the round at 0, a fresh pack. */
    assert_int_equal(g->round, 2);
    assert_int_equal(g->score[0], 0);
    assert_int_equal(g->score[1], 0);
    assert_int_equal(g->nstock, 46);
    assert_int_equal(g->ndiscard, 0);
    assert_int_equal(json_array_size(gt_log(&g->history)), 1);
    assert_int_equal(g->starter, 1); /* the alternation goes on */
}

static void reaching_the_target_exactly_is_not_over_it(void **state)
{
    ap3_t *g = *state;
    play_the_small_deal(g, 334, 250); /* seat 0: 16 -> 350 */
    assert_null(json_object_get(last_deal(g), "round_over"));
    assert_int_equal(g->score[0], 350);
    assert_int_equal(g->round, 1);
}

static void both_over_in_one_deal_the_higher_total_wins_the_round(void **state)
{
    (void)state;
    ap3_t *g = table(NULL);
    play_the_small_deal(g, 345, 345); /* 361 against 354 */
    json_t *r = json_object_get(last_deal(g), "round_over");
    assert_int_equal(json_integer_value(json_object_get(r, "winner")), 0);
    assert_int_equal(json_integer_value(json_object_get(r, "points")), 7);
    game_free(&g->base);

    g = table(NULL);
    play_the_small_deal(g, 345, 352); /* 361 against 361: a drawn round */
    r = json_object_get(last_deal(g), "round_over");
    assert_true(json_is_null(json_object_get(r, "winner")));
    assert_int_equal(g->total[0] + g->total[1], 0);
    assert_int_equal(g->round, 2);
    game_free(&g->base);
}

static void game_of_three_rounds_the_larger_sum_wins(void **state)
{
    ap3_t *g = *state;
    g->round = 3;
    g->total[0] = 40;
    g->total[1] = 100;
    play_the_small_deal(g, 345, 300); /* seat 0 wins the round by 361 - 309 = 52 */
    assert_true(aspoint3_desc.is_over(&g->base));
    json_t *res = game_result(&g->base);
    json_t *want = json_pack("[i]", 1);
    assert_true(json_equal(json_object_get(res, "winners"), want));
    assert_int_equal(json_integer_value(json_array_get(json_object_get(res, "scores"), 0)), 92);
    json_decref(want);
    json_decref(res);
    assert_int_equal(aspoint3_desc.waiting(&g->base), 0u);
    assert_int_equal(legal_count(g, 0), 0);
    refused(g, 0, KEEP, "game_over");
    audit_ok(g);
}

static void five_rounds_option_plays_on_after_the_third(void **state)
{
    (void)state;
    ap3_t *g = table("{\"rounds\":5}");
    g->round = 3;
    play_the_small_deal(g, 345, 0);
    assert_false(aspoint3_desc.is_over(&g->base));
    assert_int_equal(g->round, 4);
    g->round = 5;
    assert_int_equal(g->starter, 1);
    assert_int_equal(g->score[0], 0); /* a new round */
    play_the_small_deal(g, 0, 345);   /* seat 1 starts: seat 1 gets 11 */
    assert_true(aspoint3_desc.is_over(&g->base));
    game_free(&g->base);
}

static void equal_sums_share_the_win(void **state)
{
    (void)state;
    ap3_t *g = table("{\"rounds\":1}");
    play_the_small_deal(g, 345, 352); /* 361 and 361: a drawn round, 0 to 0 */
    gt_winners(&g->base, "[0,1]");
    game_free(&g->base);
}

/*
 * The text: a game of 3 or 5 rounds. 3 is the default; 5 is accepted; any
 * other count from 1 to 15 is an option beyond the text (RULES.md), and the
 * game lasts exactly that many rounds; 0 and 16 are refused.
 */
static void rounds_are_three_or_five_other_counts_an_option_beyond_the_text(void **state)
{
    (void)state;
    json_t *def = game_default_options(&aspoint3_desc);
    assert_int_equal(json_integer_value(json_object_get(def, "rounds")), 3);
    json_decref(def);
    static const int counts[] = {3, 5, 1, 2, 4, 15};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        char o[32];
        snprintf(o, sizeof o, "{\"rounds\":%d}", counts[i]);
        ap3_t *g = table(o);
        assert_int_equal(g->rounds, counts[i]);
        json_t *v = game_view(&g->base, GAME_SPECTATOR);
        assert_int_equal(json_integer_value(json_object_get(v, "rounds")), counts[i]);
        json_decref(v);
        /* Each round won in one deal: the game ends after exactly `rounds` rounds. */
        for (int r = 1; r <= counts[i]; r++) {
            assert_false(aspoint3_desc.is_over(&g->base));
            assert_int_equal(g->round, r);
            g->score[g->starter] = 345;
            deal(g, g->starter ? "4D 2C" : "2S 9H", g->starter ? "2S 9H" : "4D 2C", "5S", "3H");
            keep_and_take_down(g);
        }
        assert_true(aspoint3_desc.is_over(&g->base));
        json_t *res = game_result(&g->base);
        assert_int_equal(json_integer_value(json_object_get(res, "rounds")), counts[i]);
        assert_int_equal(json_array_size(json_object_get(res, "history")), counts[i]);
        json_decref(res);
        game_free(&g->base);
    }
    static const char *const bad[] = {"{\"rounds\":0}", "{\"rounds\":16}", "{\"rounds\":-3}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        gt_new_refused(&aspoint3_desc, 2, bad[i], "bad_option");
}

/* ------------------------------------------------------------------ */
/* The 210 rule                                                         */
/* ------------------------------------------------------------------ */

static void first_to_210_gives_30_to_an_opponent_under_200(void **state)
{
    ap3_t *g = *state;
    play_the_small_deal(g, 200, 150); /* 216 and 159 */
    assert_int_equal(g->score[0], 216);
    assert_int_equal(g->score[1], 159 + 30);
    json_t *b = json_object_get(last_deal(g), "bonus");
    assert_int_equal(json_integer_value(json_object_get(b, "to")), 1);
    assert_int_equal(json_integer_value(json_object_get(b, "points")), 30);
}

static void no_bonus_when_the_opponent_has_200(void **state)
{
    ap3_t *g = *state;
    play_the_small_deal(g, 200, 191); /* 216 and 200: not under 200 */
    assert_int_equal(g->score[1], 200);
    assert_true(json_is_null(json_object_get(last_deal(g), "bonus")));
    assert_int_equal(g->bonus_by, 0); /* spent all the same */
}

static void bonus_rule_applies_once_per_round(void **state)
{
    ap3_t *g = *state;
    play_the_small_deal(g, 200, 50); /* 216 and 59 + 30 */
    g->score[1] = 205;
    deal(g, "4D 2C", "2S 9H", "5S", "3H"); /* seat 1 reaches 221, seat 0 under 200? no: 225 */
    g->score[0] = 100;
    OK(g, 1, KEEP);
    OK(g, 0, DOWN);
    assert_int_equal(g->score[0], 109); /* no second bonus in the round */
    assert_true(json_is_null(json_object_get(last_deal(g), "bonus")));
    /* A new round gives the rule back. */
    play_the_small_deal(g, 345, g->score[1]);
    assert_int_equal(g->round, 2);
    assert_int_equal(g->bonus_by, -1);
}

static void both_reaching_210_in_one_deal_gives_no_bonus(void **state)
{
    ap3_t *g = *state;
    play_the_small_deal(g, 200, 205);
    assert_int_equal(g->score[0], 216);
    assert_int_equal(g->score[1], 214);
    assert_true(json_is_null(json_object_get(last_deal(g), "bonus")));
}

/* ------------------------------------------------------------------ */
/* The deck, and the packs variant                                      */
/* ------------------------------------------------------------------ */

static void deck_is_reshuffled_when_fewer_than_six_cards_remain(void **state)
{
    (void)state;
    ap3_t *g = table("{\"target\":10000}");
    for (int d = 0; d < 8; d++) {
        assert_int_equal(g->nstock, 46 - 6 * d);
        assert_int_equal(g->pack, 1);
        OK(g, d % 2, KEEP);
        OK(g, 1 - d % 2, DOWN);
    }
    /* 52 - 8 * 6 = 4 cards were left: all 52 were gathered and shuffled. */
    assert_int_equal(g->pack, 2);
    assert_int_equal(g->nstock, 46);
    assert_int_equal(g->ndiscard, 0);
    game_free(&g->base);
}

static void packs_variant_scores_a_point_per_deal_won(void **state)
{
    (void)state;
    ap3_t *g = dealt("{\"packs\":1}", "2S 9H", "KD QC", "5S", "AH"); /* down: 16 against 30 */
    OK(g, 0, KEEP);
    OK(g, 1, DOWN);
    assert_int_equal(g->score[0], 0);
    assert_int_equal(g->score[1], 1);
    deal(g, "KS 5H", "KD 5C", "8S", "8H"); /* seat 1 starts; down: 33 and 33, nobody */
    OK(g, 1, KEEP);
    OK(g, 0, DOWN);
    assert_int_equal(g->score[0] + g->score[1], 1);
    assert_true(json_is_null(json_object_get(last_deal(g), "winner")));
    deal(g, "KS 5H", "KD 5C", "8S", "8H"); /* seat 0 starts; a tied challenge is lost */
    OK(g, 0, KEEP);
    OK(g, 1, UP);
    assert_int_equal(g->score[0], 1);
    assert_int_equal(g->score[1], 1);
    deal(g, "2S 3H", "KD QC", "JS", "4H"); /* seat 1 starts; seat 0 challenges and loses */
    OK(g, 1, KEEP);
    OK(g, 0, UP);
    assert_int_equal(g->score[1], 2);
    assert_int_equal(deal_int(g, "points", 1), 1);
    game_free(&g->base);
}

/* Play keep / face-down deals up to the last deal of the pack (swap phase). */
static void to_last_deal_of_pack(ap3_t *g)
{
    while (g->deal_in_pack < 8)
        keep_and_take_down(g);
    assert_int_equal(g->phase, AP3_SWAP);
    assert_int_equal(g->nstock, 52 - 8 * 6);
}

/* Play the last deal of a pack (deal 8: seat 1 keeps, seat 0 takes the
 * face-down card) so that `winner` wins it: KD QC 4H = 39 against 2S 9H 5S = 16. */
static void play_last_deal(ap3_t *g, int winner)
{
    assert_int_equal(g->starter, 1);
    if (winner == 0)
        deal(g, "KD QC", "2S 9H", "5S", "4H");
    else
        deal(g, "2S 9H", "KD QC", "4H", "5S");
    OK(g, 1, KEEP);
    OK(g, 0, DOWN);
    assert_int_equal(deal_int(g, "winner", -1), winner);
}

/* To the last deal of the pack, with deals won won0 and won1 on it, and that deal won
   by `winner` (play_last_deal()). */
static void last_deal_of_pack(ap3_t *g, int won0, int won1, int winner)
{
    to_last_deal_of_pack(g);
    g->score[0] = won0;
    g->score[1] = won1;
    play_last_deal(g, winner);
}

static void check_round_over(ap3_t *g, const char *want_text)
{
    json_t *want = json_loads(want_text, 0, NULL),
           *got = json_object_get(last_deal(g), "round_over");
    if (!json_equal(got, want)) {
        char *t = json_dumps(got, JSON_SORT_KEYS);
        fail_msg("round_over: %s, want %s", t ? t : "(none)", want_text);
    }
    json_t *h = json_array_get(gt_log(&g->history), json_array_size(gt_log(&g->history)) - 1);
    assert_true(json_equal(h, want));
    json_decref(want);
}

static void default_options_advertise_pack_scoring_by_manche(void **state)
{
    (void)state;
    gt_json_is(game_default_options(&aspoint3_desc),
               "{\"rounds\":3,\"target\":350,\"packs\":0,\"pack_scoring\":\"manche\"}");
    for (int total = 0; total <= 1; total++) {
        ap3_t *g = table(total ? "{\"packs\":2,\"pack_scoring\":\"total\"}" : "{\"packs\":2}");
        json_t *v = game_view(&g->base, 0);
        assert_string_equal(json_string_value(json_object_get(v, "pack_scoring")),
                            total ? "total" : "manche");
        assert_string_equal(json_string_value(json_object_get(v, "mode")), "packs");
        json_decref(v);
        game_free(&g->base);
    }
}

/* By manche: the pack is a round; more deals won on it wins it (1 to "total"),
 * the deals won start again from 0, the next pack is the next round. */
static void packs_by_manche_more_deals_won_on_a_pack_wins_it(void **state)
{
    (void)state;
    ap3_t *g = table("{\"packs\":2}");
    last_deal_of_pack(g, 4, 3, 0);
    check_round_over(g,
                     "{\"round\":1,\"winner\":0,\"scores\":[5,3],\"points\":1,\"totals\":[1,0]}");
    assert_false(aspoint3_desc.is_over(&g->base));
    assert_int_equal(g->total[0], 1);
    assert_int_equal(g->total[1], 0);
    assert_int_equal(g->score[0], 0);
    assert_int_equal(g->score[1], 0);
    assert_int_equal(g->round, 2);
    assert_int_equal(g->pack, 2);
    assert_int_equal(g->nstock, 46);
    assert_int_equal(g->starter, 0); /* the alternation goes on */
    json_t *v = game_view(&g->base, GAME_SPECTATOR);
    json_t *p0 = json_array_get(json_object_get(v, "players"), 0);
    assert_int_equal(json_integer_value(json_object_get(p0, "total")), 1);
    assert_int_equal(json_integer_value(json_object_get(p0, "score")), 0);
    assert_int_equal(json_integer_value(json_object_get(v, "round")), 2);
    assert_int_equal(json_array_size(json_object_get(v, "history")), 1);
    json_decref(v);
    /* The second pack: seat 1 wins it 2 to 0 (a deal counts in its own pack only). */
    last_deal_of_pack(g, 0, 1, 1);
    check_round_over(g,
                     "{\"round\":2,\"winner\":1,\"scores\":[0,2],\"points\":1,\"totals\":[1,1]}");
    assert_false(aspoint3_desc.is_over(&g->base));
    assert_int_equal(g->round, 3);
    game_free(&g->base);
}

/* By manche: the first to win `packs` packs wins the game, at once (a race to
 * N, not N packs played nor a best of N). */
static void packs_by_manche_first_to_win_n_packs_wins_the_game(void **state)
{
    (void)state;
    ap3_t *g = table("{\"packs\":3}");
    for (int pack = 1; pack <= 2; pack++) {
        last_deal_of_pack(g, 5, 2, 0);
        assert_int_equal(g->total[0], pack);
    }
    assert_false(aspoint3_desc.is_over(&g->base)); /* 2 packs of 3: a best of 3 would end */
    last_deal_of_pack(g, 3, 4, 0);                 /* 4 to 4 */
    assert_false(aspoint3_desc.is_over(&g->base));
    last_deal_of_pack(g, 4, 0, 1); /* 4 to 1: seat 0's third pack */
    assert_true(aspoint3_desc.is_over(&g->base));
    assert_int_equal(g->round, 4);
    assert_int_equal(g->deal, 32);
    json_t *res = game_result(&g->base);
    json_t *want = json_loads("{\"winners\":[0],\"scores\":[3,0],\"mode\":\"packs\","
                              "\"pack_scoring\":\"manche\",\"rounds\":4,\"deals\":32}",
                              0, NULL);
    json_object_set(want, "history", gt_log(&g->history));
    if (!json_equal(res, want)) {
        char *t = json_dumps(res, JSON_SORT_KEYS);
        fail_msg("result: %s", t);
    }
    assert_int_equal(json_array_size(gt_log(&g->history)), 4);
    json_decref(want);
    json_decref(res);
    assert_int_equal(legal_count(g, 0) + legal_count(g, 1), 0);
    refused(g, 1, KEEP, "game_over");
    audit_ok(g);
    game_free(&g->base);

    /* One pack to win: the first pack won ends the game after 8 deals. */
    g = table("{\"packs\":1}");
    last_deal_of_pack(g, 2, 4, 1);
    assert_true(aspoint3_desc.is_over(&g->base));
    assert_int_equal(g->winners, 2);
    game_free(&g->base);
}

/* By manche: equal counts of deals won on a pack make a drawn pack: nobody wins
 * it, the game goes on with the next pack, even with one pack to win. */
static void packs_by_manche_equal_deals_won_make_a_drawn_pack(void **state)
{
    (void)state;
    ap3_t *g = table("{\"packs\":1}");
    last_deal_of_pack(g, 3, 2, 1);
    check_round_over(
        g, "{\"round\":1,\"winner\":null,\"scores\":[3,3],\"points\":0,\"totals\":[0,0]}");
    assert_false(aspoint3_desc.is_over(&g->base));
    assert_int_equal(g->total[0] + g->total[1], 0);
    assert_int_equal(g->round, 2);
    assert_int_equal(g->score[0] + g->score[1], 0);
    game_free(&g->base);
}

/* By total (the option's other value): the deals won add up over exactly
 * `packs` packs, never start again, no pack is a round; more deals won wins,
 * equal counts share the win. */
static void packs_by_total_game_ends_when_the_last_pack_runs_out(void **state)
{
    (void)state;
    for (int packs = 1; packs <= 3; packs++) {
        char o[64];
        snprintf(o, sizeof o, "{\"packs\":%d,\"pack_scoring\":\"total\"}", packs);
        ap3_t *g = table(o);
        int deals = 0, won = 0;
        while (!aspoint3_desc.is_over(&g->base)) {
            keep_and_take_down(g);
            won += json_is_integer(json_object_get(last_deal(g), "winner"));
            deals++;
            assert_null(json_object_get(last_deal(g), "round_over"));
            assert_int_equal(g->score[0] + g->score[1], won); /* never reset */
            assert_int_equal(g->round, 1);
        }
        assert_int_equal(deals, 8 * packs);
        assert_int_equal(json_array_size(gt_log(&g->history)), 0);
        audit_ok(g);
        json_t *res = game_result(&g->base);
        json_t *w = json_object_get(res, "winners");
        int sc0 = g->score[0], sc1 = g->score[1];
        assert_int_equal(json_array_size(w), sc0 == sc1 ? 2 : 1);
        if (sc0 != sc1) assert_int_equal(json_integer_value(json_array_get(w, 0)), sc1 > sc0);
        json_t *sc = json_pack("[i,i]", sc0, sc1);
        assert_true(json_equal(json_object_get(res, "scores"), sc));
        assert_string_equal(json_string_value(json_object_get(res, "pack_scoring")), "total");
        json_decref(sc);
        json_decref(res);
        game_free(&g->base);
    }
}

/* By manche over whole random games: the game ends the moment a seat has won
 * `packs` packs; every pack is one history entry that agrees with its count. */
static void packs_by_manche_random_games_end_when_a_seat_has_won_n_packs(void **state)
{
    (void)state;
    rng_t rng;
    rng_seed(&rng, 9);
    long packs_played = 0, drawn = 0;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        int packs = 1 + (int)(seed % 4);
        game_error_t err;
        json_t *o = json_pack("{s:i, s:s}", "packs", packs, "pack_scoring", "manche");
        ap3_t *g = (ap3_t *)game_new(&aspoint3_desc, 2, o, seed, &err);
        json_decref(o);
        while (!aspoint3_desc.is_over(&g->base)) {
            int s = (int)__builtin_ctz(aspoint3_desc.waiting(&g->base));
            assert_true(gt_bot_plays(&g->base, s, seed % 2 ? "greedy" : "random", &rng, 0));
            assert_true(g->deal < 8 * 400);
        }
        int w = g->winners == 1 ? 0 : 1;
        assert_true(g->winners == 1 || g->winners == 2);
        assert_int_equal(g->total[w], packs);
        assert_true(g->total[1 - w] < packs);
        assert_int_equal(g->deal % 8, 0);
        size_t n = json_array_size(gt_log(&g->history));
        assert_int_equal((int)n, g->deal / 8);
        assert_int_equal((int)n, g->round);
        int totals[2] = {0, 0};
        for (size_t i = 0; i < n; i++) {
            json_t *h = json_array_get(gt_log(&g->history), i), *sc = json_object_get(h, "scores");
            int a = (int)json_integer_value(json_array_get(sc, 0));
            int b = (int)json_integer_value(json_array_get(sc, 1));
            assert_true(a + b <= 8);
            assert_int_equal(json_integer_value(json_object_get(h, "round")), (json_int_t)i + 1);
            json_t *hw = json_object_get(h, "winner");
            if (a == b) {
                assert_true(json_is_null(hw));
                drawn++;
            } else {
                assert_int_equal(json_integer_value(hw), b > a);
                totals[b > a]++;
            }
            assert_int_equal(json_integer_value(json_object_get(h, "points")), a != b);
            json_t *t = json_pack("[i,i]", totals[0], totals[1]);
            assert_true(json_equal(json_object_get(h, "totals"), t));
            json_decref(t);
        }
        assert_int_equal(totals[0], g->total[0]);
        assert_int_equal(totals[1], g->total[1]);
        packs_played += (long)n;
        game_free(&g->base);
    }
    print_message("200 games by manche: %ld packs, %ld drawn\n", packs_played, drawn);
    assert_true(drawn > 0);
}

/* ------------------------------------------------------------------ */
/* The view contract                                                    */
/* ------------------------------------------------------------------ */

/*
 * A view is the caller's: whatever it shares with the state must never change
 * afterwards. Views (and the result) taken at one moment must stay equal to a
 * deep copy taken then, while the game goes on past the end of rounds (the
 * history grows) and new reveals (last_deal is replaced).
 */
static void held_view_does_not_change_as_play_goes_on(void **state)
{
    (void)state;
    for (int manche = 0; manche <= 1; manche++) {
        ap3_t *g = table(manche ? "{\"packs\":3}" : NULL);
        json_t *held[3][3], *copy[3][3];
        int nheld = 0;
        for (int step = 0; step < 3; step++) {
            /* Views at the start, mid-deal and just before a round (a pack) ends. */
            if (step == 2) {
                OK(g, 1 - g->starter, DOWN); /* the deal of step 1 */
                if (manche) {
                    while (g->deal_in_pack < 8)
                        keep_and_take_down(g);
                } else {
                    g->score[0] = 345;
                }
            }
            for (int s = GAME_SPECTATOR; s < 2; s++) {
                held[nheld][s + 1] = game_view(&g->base, s);
                copy[nheld][s + 1] = json_deep_copy(held[nheld][s + 1]);
            }
            nheld++;
            if (step == 1) OK(g, g->starter, KEEP);
            if (step < 2) continue;
            keep_and_take_down(g);
            assert_int_equal(json_array_size(gt_log(&g->history)), 1);
        }
        /* Play on to the end: more rounds, more reveals, the result. */
        int deals = 0;
        while (!aspoint3_desc.is_over(&g->base) && deals++ < 2000) {
            if (g->phase == AP3_SWAP) OK(g, g->starter, KEEP);
            OK(g, 1 - g->starter, DOWN);
        }
        assert_true(aspoint3_desc.is_over(&g->base));
        assert_true(json_array_size(gt_log(&g->history)) >= 2);
        for (int i = 0; i < nheld; i++)
            for (int s = 0; s < 3; s++) {
                if (!json_equal(held[i][s], copy[i][s])) {
                    char *a = json_dumps(held[i][s], JSON_SORT_KEYS),
                         *b = json_dumps(copy[i][s], JSON_SORT_KEYS);
                    fail_msg("view(%d) #%d changed after it was taken:\n%s\nwas\n%s", s - 1, i, a,
                             b);
                }
                json_decref(held[i][s]);
                json_decref(copy[i][s]);
            }
        game_free(&g->base);
    }
}

/* ------------------------------------------------------------------ */
/* Actions on the wire                                                  */
/* ------------------------------------------------------------------ */

static void inline_args_form_is_accepted(void **state)
{
    ap3_t *g = *state;
    refused(g, 0, "{\"type\":\"swap\",\"args\":[\"2S\",\"9H\"]}", "bad_action");
    refused(g, 0, "{\"type\":\"keep\",\"args\":[\"now\"]}", "bad_action");
    OK(g, 0, "{\"type\":\"swap\",\"args\":[\"2s\"]}");
    refused(g, 1, "{\"type\":\"pick\",\"args\":[\"left\"]}", "bad_action");
    OK(g, 1, "{\"type\":\"pick\",\"args\":[\"up\"]}");
    assert_true(json_is_true(json_object_get(last_deal(g), "challenge")));
    OK(g, 1, "{\"type\":\"keep\",\"args\":[]}");
}

/* Malformed actions, one row per trouble, each a test named after it: refused
   with its code, the deal as it was (refused()). */
typedef struct malformed {
    const char *what, *action, *code;
} malformed_t;

static const malformed_t malformed[] = {
    {"not_an_object", "[]", "bad_action"},
    {"no_type", "{}", "bad_action"},
    {"type_not_a_string", "{\"type\":7}", "bad_action"},
    {"type_of_another_game", "{\"type\":\"draw\"}", "unknown_action"},
    {"swap_without_a_card", "{\"type\":\"swap\"}", "bad_action"},
    {"card_not_a_string", "{\"type\":\"swap\",\"card\":7}", "bad_action"},
    {"no_such_card", "{\"type\":\"swap\",\"card\":\"ZZ\"}", "unknown_card"},
    {"key_of_no_action", "{\"type\":\"swap\",\"card\":\"2S\",\"extra\":1}", "bad_action"},
    {"card_and_args_at_once", "{\"type\":\"swap\",\"card\":\"2S\",\"args\":[\"2S\"]}",
     "bad_action"},
    {"keep_with_a_card", "{\"type\":\"keep\",\"card\":\"2S\"}", "bad_action"},
    {"pick_neither_down_nor_up", "{\"type\":\"pick\",\"card\":\"2S\"}", "bad_action"},
    {"pick_without_a_card", "{\"type\":\"pick\"}", "bad_action"},
    {"args_not_a_list", "{\"type\":\"keep\",\"args\":\"x\"}", "bad_action"},
};

static void malformed_action_is_refused(void **state)
{
    const malformed_t *m = *state;
    ap3_t *g = dealt(NULL, "2S 9H", "KD QC", "5S", "AH");
    refused(g, 0, m->action, m->code);
    game_free(&g->base);
}

static void timed_out_seat_keeps_or_takes_the_face_down_card(void **state)
{
    ap3_t *g = *state;
    gt_json_is(aspoint3_desc.default_action(&g->base, 0), KEEP);
    assert_null(aspoint3_desc.default_action(&g->base, 1));
    OK(g, 0, KEEP);
    gt_json_is(aspoint3_desc.default_action(&g->base, 1), DOWN);
    assert_int_equal(game_next_deadline(&g->base), GAME_NO_DEADLINE);
    assert_false(game_tick(&g->base, 1000000));
}

/* ------------------------------------------------------------------ */
/* Hidden information, over many random games                           */
/* ------------------------------------------------------------------ */

static void check_hidden(ap3_t *g)
{
    for (int s = GAME_SPECTATOR; s < 2; s++) {
        bool hidden[AP3_DECK] = {false};
        for (int i = 0; i < g->nstock; i++)
            hidden[g->stock[i]] = true;
        /* The last reveal shows the cards of the deal just played: in the discard
         * pile, unless a new pack was opened since (then they may be dealt again,
         * and the reveal is history, not where they lie). */
        if (g->last_deal.tree && g->deal_in_pack > 1 && g->phase != AP3_OVER) {
            json_t *hand, *c;
            size_t i, k;
            json_array_foreach(json_object_get(g->last_deal.tree, "cards"), i, hand)
                json_array_foreach(hand, k, c)
            {
                int x = ap3_card_parse(json_string_value(c));
                bool in_discard = false;
                for (int d = 0; d < g->ndiscard; d++)
                    in_discard |= g->discard[d] == x;
                assert_true(in_discard);
            }
        }
        if (g->phase != AP3_OVER) {
            for (int o = 0; o < 2; o++)
                if (o != s) hidden[g->hand[o][0]] = hidden[g->hand[o][1]] = true;
            if (!(s == g->starter && g->swapped_out != AP3_NONE)) hidden[g->down] = true;
        }
        json_t *v = gt_view(&g->base, s), *names = json_array(), *name;
        gt_strings(v, "last_deal", names);
        size_t i;
        json_array_foreach(names, i, name)
        {
            int c = ap3_card_parse(json_string_value(name));
            if (c >= 0 && hidden[c])
                fail_msg("view(%d) shows the hidden %s: %s", s, json_string_value(name),
                         json_dumps(v, JSON_SORT_KEYS));
        }
        json_decref(names);
        gt_resample_keeps_view(&g->base, s, (uint64_t)g->deal * 7 + 3, v, NULL);
        json_decref(v);
    }
}

static void hidden_cards_reach_nobody_before_the_reveal(void **state)
{
    (void)state;
    rng_t rng;
    rng_seed(&rng, 2);
    long steps = 0, differs = 0;
    for (uint64_t seed = 1; seed <= SANITIZED_GAMES(300); seed++) {
        game_error_t err;
        json_t *o = json_pack("{s:i, s:i, s:s}", "packs", (int)(seed % 3), "target", 200,
                              "pack_scoring", seed / 3 % 2 ? "total" : "manche");
        ap3_t *g = (ap3_t *)game_new(&aspoint3_desc, 2, o, seed, &err);
        json_decref(o);
        while (!aspoint3_desc.is_over(&g->base)) {
            check_hidden(g);
            int s = (int)__builtin_ctz(aspoint3_desc.waiting(&g->base));
            assert_true(gt_bot_plays(&g->base, s, seed % 2 ? "greedy" : "random", &rng, 0));
            if (steps % 5 == 0) {
                game_t *r = aspoint3_desc.resample(&g->base, s, seed);
                json_t *d1 = game_dump(&g->base), *d2 = game_dump(r);
                differs += !json_equal(d1, d2);
                json_decref(d1);
                json_decref(d2);
                game_free(r);
            }
            steps++;
            assert_true(steps < 1000000);
        }
        check_hidden(g);
        game_free(&g->base);
    }
    assert_true(differs > 0);
}

/* ------------------------------------------------------------------ */
/* The bot                                                              */
/* ------------------------------------------------------------------ */

static json_t *bot_choice(ap3_t *g, int seat, const char *strategy)
{
    rng_t r;
    rng_seed(&r, 5);
    return gt_bot_choice(&g->base, seat, strategy, &r);
}

/* The greedy bot's choice for `seat` is the action `want` (JSON text). */
static void bot_plays(ap3_t *g, int seat, const char *want_text)
{
    gt_json_is(bot_choice(g, seat, "greedy"), want_text);
}

static void greedy_bot_challenges_only_with_a_strong_hand(void **state)
{
    (void)state;
    ap3_t *g = dealt(NULL, "2S 9H", "AD AC", "3S", "4H"); /* seat 1 with the 3: 66 */
    OK(g, 0, KEEP);
    bot_plays(g, 1, UP);
    game_free(&g->base);

    g = dealt(NULL, "2S 9H", "2D 4C", "3S", "4H"); /* seat 1 with the 3: 9 */
    OK(g, 0, KEEP);
    bot_plays(g, 1, DOWN);
    game_free(&g->base);
}

static void greedy_bot_keeps_a_strong_hand_and_swaps_a_weak_card(void **state)
{
    (void)state;
    ap3_t *g = dealt(NULL, "AS 3H", "2D 4C", "5S", "4H");
    bot_plays(g, 0, KEEP);
    game_free(&g->base);

    g = dealt(NULL, "KS 2H", "2D 4C", "5S", "4H");
    bot_plays(g, 0, "{\"type\":\"swap\",\"card\":\"2H\"}");
    game_free(&g->base);
}

static void random_bot_plays_a_legal_action(void **state)
{
    ap3_t *g = *state;
    json_t *legal = game_legal(&g->base, 0);
    for (int i = 0; i < 20; i++) {
        rng_t r;
        rng_seed(&r, (uint64_t)i);
        json_t *a = gt_bot_choice(&g->base, 0, "random", &r);
        assert_true(gt_json_in(legal, a));
        json_decref(a);
    }
    rng_t r;
    rng_seed(&r, 1);
    assert_null(gt_bot_choice(&g->base, 1, "greedy", &r));
    json_decref(legal);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(deck_has_52_cards_named_rank_and_suit),
        cmocka_unit_test(card_values_follow_the_text),
        cmocka_unit_test(three_cards_without_an_ace_score_their_sum),
        cmocka_unit_test(aces_combine_only_with_aces_and_threes),
        cmocka_unit_test(ace_takes_the_whole_hand_even_where_other_cards_score_more),
        cmocka_unit_test(ace_reading_differs_from_best_combination_only_with_two_court_cards),
        cmocka_unit_test_setup_teardown(deal_gives_two_hidden_cards_each_and_two_centre_cards,
                                        default_table, free_table),
        cmocka_unit_test(options_out_of_range_are_refused),
        cmocka_unit_test_setup_teardown(starter_swaps_blind_with_the_face_down_card, small_deal,
                                        free_table),
        cmocka_unit_test_setup_teardown(starter_may_keep, small_deal, free_table),
        cmocka_unit_test_setup_teardown(only_the_starter_swaps_then_only_the_other_picks,
                                        small_deal, free_table),
        cmocka_unit_test_setup_teardown(legal_lists_keep_the_two_swaps_then_the_two_picks,
                                        small_deal, free_table),
        cmocka_unit_test(taking_the_face_down_card_both_score_their_three_cards),
        cmocka_unit_test(challenge_won_scores_the_challenger_only),
        cmocka_unit_test(challenge_lost_gives_the_opponent_the_face_up_value_plus_five),
        cmocka_unit_test(tied_challenge_is_lost),
        cmocka_unit_test_setup_teardown(starter_alternates_from_deal_to_deal, default_table,
                                        free_table),
        cmocka_unit_test_setup_teardown(reveal_is_public_after_each_deal, small_deal, free_table),
        cmocka_unit_test_setup_teardown(
            first_total_over_the_target_wins_the_round_and_scores_the_difference, default_table,
            free_table),
        cmocka_unit_test_setup_teardown(reaching_the_target_exactly_is_not_over_it, default_table,
                                        free_table),
        cmocka_unit_test(both_over_in_one_deal_the_higher_total_wins_the_round),
        cmocka_unit_test_setup_teardown(game_of_three_rounds_the_larger_sum_wins, default_table,
                                        free_table),
        cmocka_unit_test(five_rounds_option_plays_on_after_the_third),
        cmocka_unit_test(equal_sums_share_the_win),
        cmocka_unit_test(rounds_are_three_or_five_other_counts_an_option_beyond_the_text),
        cmocka_unit_test_setup_teardown(first_to_210_gives_30_to_an_opponent_under_200,
                                        default_table, free_table),
        cmocka_unit_test_setup_teardown(no_bonus_when_the_opponent_has_200, default_table,
                                        free_table),
        cmocka_unit_test_setup_teardown(bonus_rule_applies_once_per_round, default_table,
                                        free_table),
        cmocka_unit_test_setup_teardown(both_reaching_210_in_one_deal_gives_no_bonus, default_table,
                                        free_table),
        cmocka_unit_test(deck_is_reshuffled_when_fewer_than_six_cards_remain),
        cmocka_unit_test(packs_variant_scores_a_point_per_deal_won),
        cmocka_unit_test(default_options_advertise_pack_scoring_by_manche),
        cmocka_unit_test(packs_by_manche_more_deals_won_on_a_pack_wins_it),
        cmocka_unit_test(packs_by_manche_first_to_win_n_packs_wins_the_game),
        cmocka_unit_test(packs_by_manche_equal_deals_won_make_a_drawn_pack),
        cmocka_unit_test(packs_by_total_game_ends_when_the_last_pack_runs_out),
        cmocka_unit_test(packs_by_manche_random_games_end_when_a_seat_has_won_n_packs),
        cmocka_unit_test(held_view_does_not_change_as_play_goes_on),
        cmocka_unit_test_setup_teardown(inline_args_form_is_accepted, small_deal, free_table),
        cmocka_unit_test_setup_teardown(timed_out_seat_keeps_or_takes_the_face_down_card,
                                        default_table, free_table),
        cmocka_unit_test(hidden_cards_reach_nobody_before_the_reveal),
        cmocka_unit_test(greedy_bot_challenges_only_with_a_strong_hand),
        cmocka_unit_test(greedy_bot_keeps_a_strong_hand_and_swaps_a_weak_card),
        cmocka_unit_test_setup_teardown(random_bot_plays_a_legal_action, default_table,
                                        free_table)};
    int failed = CASE_GROUP_RUN("malformed_actions", malformed_action_is_refused, malformed, what);
    return failed + cmocka_run_group_tests(tests, NULL, NULL);
}
