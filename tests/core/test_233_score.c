/*
 * test_233_score.c — groups, best grouping, winning combinations and round
 * points of 233 (core/233/score.h), against seed 000's rules and examples.
 *
 * The last tests compare g233_score_best and g233_score_combo with a brute force written
 * here (section "Brute force"), which shares no code with score.c: it expands
 * the hand into a list of cards and tries every way to cut it into groups.
 *
 * Length: over 800 lines on purpose: the examples of seed 000 one by one, and the
 * grouping solver against a brute force that belongs to these tests alone,
 * each beside the rule it checks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/233/cards.h"
#include "core/233/score.h"
#include "tests/core/game_test.h"
#include "core/rng.h"
#include "tests/lib/test_main.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

/* Parses "Y1 y1 joker" into out; returns the count. */
static int parse_cards(const char *spec, g233_card_t *out, int max)
{
    int n = 0;
    for (const char *p = spec; *p;) {
        size_t len = strcspn(p, " ");
        char word[16] = "";
        assert_true(len < sizeof word && n < max);
        memcpy(word, p, len);
        int c = g233_card_parse(word);
        if (len && c < 0) fail_msg("unknown card \"%s\" in \"%s\"", word, spec);
        if (len) out[n++] = (g233_card_t)c;
        p += len + (p[len] == ' ');
    }
    return n;
}

static g233_hand_t hand_of(const char *spec)
{
    g233_card_t cards[40];
    int n = parse_cards(spec, cards, 40);
    g233_hand_t h = {{0}};
    for (int i = 0; i < n; i++)
        h.n[cards[i]]++;
    return h;
}

/* The hand as text, for failure messages. */
static const char *hand_text(const g233_hand_t *h)
{
    static char text[512];
    text[0] = '\0';
    for (int k = 0; k < G233_KINDS; k++)
        for (int i = 0; i < h->n[k] && strlen(text) < sizeof text - 16; i++)
            strcat(strcat(text, g233_card_name((g233_card_t)k)), " ");
    return text;
}

static bool is_group(g233_group_kind_t k, const char *spec)
{
    g233_card_t cards[8];
    int n = parse_cards(spec, cards, 8);
    return g233_group_check(k, cards, n);
}

static g233_group_t meld_of(g233_group_kind_t k, const char *spec)
{
    g233_group_t g = {.kind = (uint8_t)k};
    g.n = (uint8_t)parse_cards(spec, g.cards, 4);
    assert_true(g233_group_check(k, g.cards, g.n));
    return g;
}

static int best_of(const char *spec)
{
    g233_hand_t h = hand_of(spec);
    return g233_score_best(&h, NULL, NULL);
}

static g233_combo_t combo_of(const char *spec, int last_drawn)
{
    g233_hand_t h = hand_of(spec);
    return g233_score_combo(&h, NULL, 0, last_drawn);
}

/* Each of the hands (specs, NULL-ended) is a group of kind k (`is`), or is not. */
static void groups_are(g233_group_kind_t k, bool is, const char *spec, ...)
{
    va_list ap;
    va_start(ap, spec);
    for (; spec; spec = va_arg(ap, const char *))
        if (is_group(k, spec) != is)
            fail_msg("\"%s\" is%s a group of kind %d", spec, is ? " not" : "", k);
    va_end(ap);
}

/* Each hand forms its combination with `last_drawn` as its last draw:
   combos_are(-1, "red red Y1 Y2 Y3 B5 B5 B5", G233_COMBO_233, ..., NULL). */
static void combos_are(int last_drawn, const char *spec, ...)
{
    va_list ap;
    va_start(ap, spec);
    for (; spec; spec = va_arg(ap, const char *)) {
        g233_combo_t want = (g233_combo_t)va_arg(ap, int);
        g233_combo_t got = combo_of(spec, last_drawn);
        if (got != want)
            fail_msg("%s: %s, not %s", spec, g233_combo_name(got), g233_combo_name(want));
    }
    va_end(ap);
}

/* The 8-10 cards of spec form `combo`, which scores `points`. */
static void expect_combo(const char *spec, g233_combo_t combo, int points)
{
    g233_hand_t h = hand_of(spec);
    assert_string_equal(g233_combo_name(g233_score_combo(&h, NULL, 0, -1)), g233_combo_name(combo));
    assert_int_equal(g233_score_round(&h, NULL, 0, combo), points);
}

/* The combination of `spec` in hand with the n locked melds. */
static g233_combo_t locked_combo_of(const g233_group_t *melds, int n, const char *spec)
{
    g233_hand_t h = hand_of(spec);
    return g233_score_combo(&h, melds, n, -1);
}

/* `spec` in hand with the n locked melds forms `combo`, which scores `points`. */
static void expect_locked_combo(const g233_group_t *melds, int n, const char *spec,
                                g233_combo_t combo, int points)
{
    g233_hand_t h = hand_of(spec);
    assert_int_equal(g233_score_combo(&h, melds, n, -1), combo);
    assert_int_equal(g233_score_round(&h, melds, n, combo), points);
}

/* A seed example, one test each: the hand forms `combo`, which scores `points`. */
typedef struct {
    const char *spec;
    g233_combo_t combo;
    int points;
} example_t;

static void seed_example(void **state)
{
    const example_t *e = *state;
    expect_combo(e->spec, e->combo, e->points);
}

/* The test `name`: a seed example (seed_example()). */
#define SEED_EXAMPLE(name, spec, combo, points)                                                    \
    {                                                                                              \
#name, seed_example, NULL, NULL, (void *)&(const example_t)                                \
        {                                                                                          \
            (spec), (combo), (points)                                                              \
        }                                                                                          \
    }

/* ------------------------------------------------------------------------ */
/* Tables and g233_group_check                                                    */
/* ------------------------------------------------------------------------ */

static void points_follow_the_seed_table(void **state)
{
    (void)state;
    static const int points[] = {5, 10, 10, 20};
    static const int bonus[] = {0, 25, 25, 25, 50, 100};
    static const char *const names[] = {"none",  "2-3-3",          "2-3-4",
                                        "2-4-4", "super sequence", "rainbow"};
    for (int k = G233_GROUP_DOUBLE; k <= G233_GROUP_SQUARE; k++)
        assert_int_equal(g233_group_points((g233_group_kind_t)k), points[k]);
    /* "2-3-3 ... = 50 points", "2-3-4 ... = 60", "2-4-4 ... = 70", "Pour les
     * supers suites, comptez 70 points", the rainbow 100. */
    static const int total[] = {0, 50, 60, 70, 70, 100};
    for (int c = G233_COMBO_NONE; c <= G233_COMBO_RAINBOW; c++) {
        assert_int_equal(g233_combo_bonus((g233_combo_t)c), bonus[c]);
        assert_int_equal(g233_combo_points((g233_combo_t)c), total[c]);
        assert_string_equal(g233_combo_name((g233_combo_t)c), names[c]);
    }
}

static void double_needs_symbols_not_numbers(void **state)
{
    (void)state;
    groups_are(G233_GROUP_DOUBLE, true, "red red", "red joker", NULL);
    groups_are(G233_GROUP_DOUBLE, false, "Y1 Y1", "Y1 joker", "red pink", NULL);
}

static void two_jokers_form_a_double(void **state)
{
    (void)state;
    assert_true(is_group(G233_GROUP_DOUBLE, "joker joker"));
    assert_int_equal(best_of("joker joker"), 5);
    /* ...and the double of a winning combination. */
    assert_int_equal(combo_of("joker joker Y1 Y2 Y3 B5 B5 B5", -1), G233_COMBO_233);
}

/* A card with nothing of its colour within two of it groups only with its
   copies and jokers: combinations that need exactly the jokers held are
   found, one joker short is none (the search is skipped then). */
static void lone_cards_take_the_jokers_they_need(void **state)
{
    (void)state;
    assert_int_equal(combo_of("red red Y1 joker joker B3 B3 B3", -1), G233_COMBO_233);
    assert_int_equal(combo_of("red red Y5 Y5 joker G1 G2 G3", -1), G233_COMBO_233);
    assert_int_equal(combo_of("pink joker Y1 Y1 Y1 B4 B5 B6", -1), G233_COMBO_233);
    assert_int_equal(combo_of("orange orange G8 joker joker B1 B1 B1 B1", -1), G233_COMBO_234);
    assert_int_equal(combo_of("red red Y1 joker B3 B3 B3 G8", -1), G233_COMBO_NONE);
    assert_int_equal(combo_of("red Y5 Y5 joker G1 G2 G3 B7", -1), G233_COMBO_NONE);
    assert_int_equal(combo_of("pink purple Y1 Y1 Y1 B4 B5 B6", -1), G233_COMBO_NONE);
}

static void joker_completes_triple_or_square(void **state)
{
    (void)state;
    groups_are(G233_GROUP_TRIPLE, true, "Y3 Y3 joker", "joker pink pink", "G8 joker joker", NULL);
    groups_are(G233_GROUP_SQUARE, true, "red joker joker red", "B2 B2 B2 joker", NULL);
    assert_false(is_group(G233_GROUP_TRIPLE, "Y3 Y4 joker"));
    assert_false(is_group(G233_GROUP_SQUARE, "B2 B2 G2 joker"));
}

static void joker_fills_gap_in_sequence(void **state)
{
    (void)state;
    groups_are(G233_GROUP_SEQUENCE, true, "Y2 joker Y4", "Y4 Y2 joker", "joker B7 B8",
               "B1 joker joker", NULL);
    assert_false(is_group(G233_GROUP_SEQUENCE, "Y2 joker Y5"));
}

static void sequence_does_not_wrap(void **state)
{
    (void)state;
    groups_are(G233_GROUP_SEQUENCE, true, "Y6 Y7 Y8", "Y8 joker joker", NULL);
    groups_are(G233_GROUP_SEQUENCE, false, "Y7 Y8 Y1", "Y8 Y1 joker", NULL);
}

static void numbers_group_only_within_one_colour(void **state)
{
    (void)state;
    assert_true(is_group(G233_GROUP_TRIPLE, "G5 G5 G5"));
    assert_false(is_group(G233_GROUP_TRIPLE, "Y1 B1 G1"));
    groups_are(G233_GROUP_SEQUENCE, false, "Y1 B2 Y3", "Y1 Y1 Y2", "Y2 Y2 joker", "red red red",
               NULL);
}

static void group_check_rejects_special_cards_and_wrong_sizes(void **state)
{
    (void)state;
    groups_are(G233_GROUP_DOUBLE, false, "reverse reverse", "stop joker", NULL);
    assert_false(is_group(G233_GROUP_TRIPLE, "stop stop stop"));
    assert_false(is_group(G233_GROUP_SQUARE, "gift+5 gift+5 gift+5 gift+5"));
    assert_false(is_group(G233_GROUP_SEQUENCE, "gift-5 joker joker"));
    assert_int_equal(best_of("reverse reverse stop stop stop gift+5 gift+5 gift-5 gift-5"), 0);
    assert_false(is_group(G233_GROUP_DOUBLE, "red red red"));
    assert_false(is_group(G233_GROUP_TRIPLE, "Y1 Y1 Y1 Y1"));
    assert_false(is_group(G233_GROUP_SQUARE, "Y1 Y1 Y1"));
    assert_false(is_group(G233_GROUP_SEQUENCE, "Y1 Y2"));
    assert_false(g233_group_check(G233_GROUP_DOUBLE, NULL, 2));
    g233_card_t bad[2] = {G233_KINDS, G233_KINDS};
    assert_false(g233_group_check(G233_GROUP_DOUBLE, bad, 2));
}

/* ------------------------------------------------------------------------ */
/* Best grouping                                                             */
/* ------------------------------------------------------------------------ */

static void best_grouping_prefers_square_over_triple_plus_leftover(void **state)
{
    (void)state;
    g233_hand_t h = hand_of("Y5 Y5 Y5 Y5");
    g233_group_t out[G233_MAX_GROUPS];
    int n = 0;
    assert_int_equal(g233_score_best(&h, out, &n), 20);
    assert_int_equal(n, 1);
    assert_int_equal(out[0].kind, G233_GROUP_SQUARE);
}

static void best_grouping_cuts_runs_into_sequences(void **state)
{
    (void)state;
    gt_values(best_of, "best grouping", "Y1 Y2 Y3 Y4 Y5 Y6 Y7", 20, "Y1 Y2 Y3 Y4 Y5 Y6 Y7 Y8", 20,
              NULL);
    /* Triple B4 leaves B3 B5 B5 B6 ungrouped (10); B3-B5 and B4-B6 make 20. */
    assert_int_equal(best_of("B3 B4 B4 B4 B5 B5 B6"), 20);
}

static void leaving_cards_and_jokers_unused_is_allowed(void **state)
{
    (void)state;
    static const char *const none[] = {"", "joker", "Y1 joker stop", "Y1 Y1 B2 B2 G8 G8"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        g233_hand_t h = hand_of(none[i]);
        g233_group_t out[G233_MAX_GROUPS];
        int n = -1;
        assert_int_equal(g233_score_best(&h, out, &n), 0);
        assert_int_equal(n, 0);
    }
    assert_int_equal(best_of("red red joker"), 10); /* but used when it pays */
}

static void joker_goes_where_it_scores_most(void **state)
{
    (void)state;
    /* Square of reds (20), or triple of reds + J-Y1-Y2 (20); not on pink. */
    assert_int_equal(best_of("red red red Y1 Y2 joker"), 20);
    /* A triple and a double (15) beat two doubles. */
    gt_values(best_of, "best grouping", "red red pink pink joker", 15, "G6 G8 joker", 10, NULL);
}

static void several_jokers_complete_several_groups(void **state)
{
    (void)state;
    gt_values(best_of, "best grouping", "Y7 Y8 red joker joker", 15, "B5 B5 B5 joker joker", 20,
              NULL);
    /* Both on the B5s: square (20) + orange double (5) beat two triples. */
    assert_int_equal(best_of("B5 B5 orange orange joker joker"), 25);
    /* More jokers than a deck holds: the search must not rely on two. */
    gt_values(best_of, "best grouping", "joker joker joker", 10, "joker joker joker joker stop", 20,
              "joker joker joker joker joker joker", 25,
              "joker joker joker joker joker joker joker", 30, NULL);
}

static void best_groups_are_reported(void **state)
{
    (void)state;
    g233_hand_t h = hand_of("red red Y1 Y2 Y3 B5 B5 B5 stop joker");
    g233_group_t out[G233_MAX_GROUPS];
    int n = 0;
    int best = g233_score_best(&h, out, &n);
    assert_int_equal(best, 35); /* B5 square 20 + red double 5 + sequence 10 */
    int sum = 0;
    g233_hand_t used = {{0}};
    for (int i = 0; i < n; i++) {
        assert_true(g233_group_check((g233_group_kind_t)out[i].kind, out[i].cards, out[i].n));
        sum += g233_group_points((g233_group_kind_t)out[i].kind);
        for (int j = 0; j < out[i].n; j++)
            used.n[out[i].cards[j]]++;
    }
    assert_int_equal(sum, best);
    for (int c = 0; c < G233_KINDS; c++)
        assert_true(used.n[c] <= h.n[c]);
}

/* ------------------------------------------------------------------------ */
/* Winning combinations and round points                                     */
/* ------------------------------------------------------------------------ */

static void rainbow_gift_counts_only_when_last_drawn(void **state)
{
    (void)state;
    const char *spec = "red pink purple orange Y3 B7 G1 gift+5";
    assert_int_equal(combo_of(spec, G233_CARD_GIFT_PLUS), G233_COMBO_RAINBOW);
    assert_int_equal(combo_of(spec, -1), G233_COMBO_NONE);
    assert_int_equal(combo_of(spec, G233_CARD_GIFT_MINUS), G233_COMBO_NONE);
    assert_int_equal(combo_of("red pink purple orange Y3 B7 G1 gift-5", G233_CARD_GIFT_MINUS),
                     G233_COMBO_RAINBOW);
}

static void rainbow_stop_counts_only_when_last_drawn(void **state)
{
    (void)state;
    const char *spec = "red pink purple orange Y3 B7 G1 stop";
    assert_int_equal(combo_of(spec, G233_CARD_STOP), G233_COMBO_RAINBOW);
    assert_int_equal(combo_of(spec, G233_CARD_REVERSE), G233_COMBO_NONE);
    assert_int_equal(combo_of(spec, -1), G233_COMBO_NONE);
}

static void rainbow_needs_one_card_per_slot(void **state)
{
    (void)state;
    assert_int_equal(combo_of("red pink purple orange Y3 B7 reverse reverse", -1), G233_COMBO_NONE);
    assert_int_equal(combo_of("red pink purple orange Y3 B7 stop stop", G233_CARD_STOP),
                     G233_COMBO_NONE);
    combos_are(-1, "red pink purple orange Y3 Y7 G1 reverse", G233_COMBO_NONE,
               "red red purple orange Y3 B7 G1 reverse", G233_COMBO_NONE, NULL);
    /* A rainbow is the 8 cards alone: a locked group makes 11. */
    g233_hand_t h = hand_of("red pink purple orange Y3 B7 G1 reverse");
    g233_group_t melds[] = {meld_of(G233_GROUP_TRIPLE, "B5 B5 B5")};
    assert_int_equal(g233_score_combo(&h, melds, 1, -1), G233_COMBO_NONE);
}

static void rainbow_joker_stands_for_special_symbol_or_colour(void **state)
{
    (void)state;
    combos_are(-1, "red pink purple orange Y3 B7 G1 joker", G233_COMBO_RAINBOW,
               "red joker purple orange Y3 B7 G1 reverse", G233_COMBO_RAINBOW, NULL);
    assert_int_equal(combo_of("red pink purple orange joker B7 G1 stop", G233_CARD_STOP),
                     G233_COMBO_RAINBOW);
    assert_int_equal(combo_of("red joker purple orange Y3 B7 G1 joker", -1), G233_COMBO_RAINBOW);
    /* The gift does not count: the joker is the special, pink stays missing. */
    assert_int_equal(combo_of("red joker purple orange Y3 B7 G1 gift+5", -1), G233_COMBO_NONE);
}

static void hand_with_stop_forms_no_233(void **state)
{
    (void)state;
    combos_are(G233_CARD_STOP, "red red Y1 Y2 Y3 B5 B5 stop", G233_COMBO_NONE,
               "red red Y1 Y2 Y3 B5 B5 B5 stop", G233_COMBO_NONE, NULL);
    assert_int_equal(combo_of("red red Y1 Y2 Y3 B5 B5 joker", -1), G233_COMBO_233);
}

static void combination_uses_every_card_and_a_symbol_double(void **state)
{
    (void)state;
    combos_are(-1, "red red Y1 Y2 Y3 B5 B5 B5 G1", G233_COMBO_NONE, "red red Y1 Y2 Y3 B5 B5",
               G233_COMBO_NONE, "red red red Y1 Y2 Y3 B5 B5", G233_COMBO_NONE,
               "Y1 Y1 Y2 Y3 Y4 B5 B5 B5", G233_COMBO_NONE, NULL);
}

static void jokers_complete_combinations(void **state)
{
    (void)state;
    combos_are(-1, "joker joker Y1 Y2 Y3 B5 B5 B5", G233_COMBO_233, "joker red Y1 Y2 Y3 B5 B5 B5",
               G233_COMBO_233, "pink pink G4 G5 G6 Y8 Y8 Y8 joker", G233_COMBO_234,
               "pink joker G4 joker G6 Y8 Y8 Y8 Y8", G233_COMBO_234, NULL);
}

static void combo_with_locked_triple(void **state)
{
    (void)state;
    g233_group_t melds[] = {meld_of(G233_GROUP_TRIPLE, "B5 B5 B5")};
    expect_locked_combo(melds, 1, "red red Y1 Y2 Y3", G233_COMBO_233, 50);
    assert_int_equal(locked_combo_of(melds, 1, "red red Y1 Y2 Y4"), G233_COMBO_NONE);
}

static void combo_with_locked_square_is_234(void **state)
{
    (void)state;
    g233_group_t melds[] = {meld_of(G233_GROUP_SQUARE, "Y8 Y8 Y8 Y8")};
    expect_locked_combo(melds, 1, "pink pink G4 G5 G6", G233_COMBO_234, 60);
}

static void combo_with_two_locked_squares_is_244(void **state)
{
    (void)state;
    g233_group_t melds[] = {meld_of(G233_GROUP_SQUARE, "B2 B2 B2 B2"),
                            meld_of(G233_GROUP_SQUARE, "purple purple joker purple")};
    expect_locked_combo(melds, 2, "orange orange", G233_COMBO_244, 70);
    assert_int_equal(locked_combo_of(melds, 2, "orange pink"), G233_COMBO_NONE);
}

static void locked_melds_must_match_the_combination(void **state)
{
    (void)state;
    g233_group_t threes[] = {meld_of(G233_GROUP_TRIPLE, "B2 B2 B2"),
                             meld_of(G233_GROUP_SEQUENCE, "G1 G2 G3")};
    assert_int_equal(locked_combo_of(threes, 2, "red red"), G233_COMBO_233);
    /* 9 cards would be a 2-3-4, but two groups of three are already locked. */
    assert_int_equal(locked_combo_of(threes, 2, "red red red"), G233_COMBO_NONE);
    /* 10 cards would be a 2-4-4, but a group of three is locked. */
    g233_group_t mixed[] = {meld_of(G233_GROUP_TRIPLE, "B2 B2 B2"),
                            meld_of(G233_GROUP_SQUARE, "G1 G1 G1 G1")};
    assert_int_equal(locked_combo_of(mixed, 2, "red red Y1"), G233_COMBO_NONE);
}

static void super_sequence_takes_jokers_and_locked_sequences(void **state)
{
    (void)state;
    assert_int_equal(combo_of("B1 B2 B3 joker B5 B6 joker B8", -1), G233_COMBO_SUPER);
    g233_group_t melds[] = {meld_of(G233_GROUP_SEQUENCE, "Y1 Y2 Y3")};
    expect_locked_combo(melds, 1, "Y4 Y5 Y6 Y7 Y8", G233_COMBO_SUPER, 70);
}

static void super_sequence_needs_one_colour_and_beats_233(void **state)
{
    (void)state;
    combos_are(-1, "G1 G2 G3 G4 G5 G6 G7 B8", G233_COMBO_NONE, "G1 G2 G3 G4 G5 G6 G7 G7",
               G233_COMBO_NONE, "G1 G2 G3 G4 G5 G6 G7", G233_COMBO_NONE, NULL);
    /* Also a 2-3-3: Y1-Y3, Y5-Y7 and the jokers as a double. */
    assert_int_equal(combo_of("Y1 Y2 Y3 Y5 Y6 Y7 joker joker", -1), G233_COMBO_SUPER);
}

static void declarer_scores_the_fixed_total_not_a_regrouping(void **state)
{
    (void)state;
    /* Regrouped, these cards would pay more: purple purple joker joker as a
     * square (55), G1-G3 + G4-G6 + a double of jokers (75), red red joker
     * joker as a square beside two squares (a 2-4-4 pays 70 whatever). */
    assert_int_equal(best_of("purple purple B1 B2 B3 Y5 joker joker"), 30);
    expect_combo("purple purple B1 B2 B3 Y5 joker joker", G233_COMBO_233, 50);
    assert_int_equal(best_of("G1 G2 G3 G4 G5 G6 joker joker"), 25);
    expect_combo("G1 G2 G3 G4 G5 G6 joker joker", G233_COMBO_SUPER, 70);
    expect_combo("pink pink G4 G5 G6 Y8 Y8 joker joker", G233_COMBO_234, 60);
    expect_combo("red joker B2 B2 B2 B2 purple purple purple joker", G233_COMBO_244, 70);
    /* Locked melds are part of the combination, not points on top of it. */
    g233_group_t melds[] = {meld_of(G233_GROUP_SQUARE, "Y8 Y8 Y8 Y8")};
    expect_locked_combo(melds, 1, "joker joker G4 G5 G6", G233_COMBO_234, 60);
}

static void round_points_without_combination_are_the_best_grouping(void **state)
{
    (void)state;
    g233_group_t melds[] = {meld_of(G233_GROUP_SQUARE, "Y8 Y8 Y8 Y8")};
    g233_hand_t h = hand_of("red red B1 B2 stop");
    assert_int_equal(g233_score_round(&h, melds, 1, G233_COMBO_NONE), 25);
    assert_int_equal(g233_score_round(&h, NULL, 0, G233_COMBO_NONE), 5);
    assert_int_equal(g233_score_round(&h, melds, 1, G233_COMBO_RAINBOW), 100); /* flat */
}

/* ------------------------------------------------------------------------ */
/* Brute force (independent of score.c)                                      */
/* ------------------------------------------------------------------------ */

/* Could a and b ever sit in one group? */
static bool bf_goes_with(g233_card_t a, g233_card_t b)
{
    if (a == G233_CARD_JOKER || b == G233_CARD_JOKER) return true;
    if (a >= G233_CARD_REVERSE || b >= G233_CARD_REVERSE) return false;
    if (a == b) return true;
    if (!g233_card_is_number(a) || !g233_card_is_number(b) ||
        g233_card_colour(a) != g233_card_colour(b))
        return false;
    int d = g233_card_value(a) - g233_card_value(b);
    return d >= -2 && d <= 2;
}

/* Points of g (m cards) as a group, 0 when it is none. */
static int bf_group_points(const g233_card_t *g, int m)
{
    g233_card_t real[4];
    int r = 0;
    for (int i = 0; i < m; i++)
        if (g[i] != G233_CARD_JOKER) real[r++] = g[i];
    bool same = true;
    for (int i = 0; i < r; i++) {
        if (real[i] >= G233_CARD_REVERSE) return 0;
        same = same && real[i] == real[0];
    }
    if (m == 2) return same && (r == 0 || g233_card_is_symbol(real[0])) ? 5 : 0;
    if (m == 4) return same ? 20 : 0;
    if (m != 3) return 0;
    if (same) return 10;
    int lo = 9, hi = 0;
    for (int i = 0; i < r; i++) {
        if (!g233_card_is_number(real[i]) || g233_card_colour(real[i]) != g233_card_colour(real[0]))
            return 0;
        for (int j = 0; j < i; j++)
            if (real[j] == real[i]) return 0;
        lo = g233_card_value(real[i]) < lo ? g233_card_value(real[i]) : lo;
        hi = g233_card_value(real[i]) > hi ? g233_card_value(real[i]) : hi;
    }
    return hi - lo <= 2 ? 10 : 0;
}

/* A hand as a list of cards, cut into groups and cards left out in every way. */
typedef struct bf {
    g233_card_t c[24];
    bool used[24];
    int n;
    int sizes[5]; /* groups of 2, 3 and 4 cards in the current cut */
    int points;   /* of the current cut's groups */
    int left_out; /* cards the current cut leaves out */
    int best;     /* the most points of any cut */
    int want[5];  /* a cut of every card into exactly these sizes... */
    bool fits;    /* ...was found */
} bf_t;

static void bf_of(bf_t *b, const g233_hand_t *h)
{
    memset(b, 0, sizeof *b);
    for (int k = 0; k < G233_KINDS; k++)
        for (int i = 0; i < h->n[k]; i++)
            b->c[b->n++] = (g233_card_t)k;
}

static void bf_cut(bf_t *b, int i);

/* Grows group g (m cards, the first at index `first`) with cards from `from`
 * on that go with all of it; each time it is a group, cuts the rest. */
static void bf_grow(bf_t *b, g233_card_t *g, int m, int from, int first)
{
    int points = m >= 2 ? bf_group_points(g, m) : 0;
    if (points) {
        b->points += points;
        b->sizes[m]++;
        bf_cut(b, first + 1);
        b->sizes[m]--;
        b->points -= points;
    }
    for (int j = from; m < 4 && j < b->n; j++) {
        bool goes = !b->used[j];
        for (int k = 0; goes && k < m; k++)
            goes = bf_goes_with(g[k], b->c[j]);
        if (!goes) continue;
        b->used[j] = true;
        g[m] = b->c[j];
        bf_grow(b, g, m + 1, j + 1, first);
        b->used[j] = false;
    }
}

/* Cuts the cards from index i on not yet used: the first is left out, or
 * starts a group with later cards. */
static void bf_cut(bf_t *b, int i)
{
    while (i < b->n && b->used[i])
        i++;
    if (i == b->n) {
        b->best = b->points > b->best ? b->points : b->best;
        if (!b->left_out && memcmp(b->sizes, b->want, sizeof b->want) == 0) b->fits = true;
        return;
    }
    b->used[i] = true;
    b->left_out++;
    bf_cut(b, i + 1);
    b->left_out--;
    g233_card_t g[4] = {b->c[i]};
    bf_grow(b, g, 1, i + 1, i);
    b->used[i] = false;
}

typedef bool bf_fits_fn(g233_card_t c, int slot, int arg);

/* Can cards[i..n) each take a distinct slot (a bit of `free`) it fits? */
static bool bf_match(const g233_card_t *cards, int n, int i, unsigned free, bf_fits_fn *fits,
                     int arg)
{
    if (i == n) return true;
    for (int s = 0; s < 8; s++)
        if ((free & (1u << s)) && fits(cards[i], s, arg) &&
            bf_match(cards, n, i + 1, free & ~(1u << s), fits, arg))
            return true;
    return false;
}

/* Rainbow slots: 0-3 the symbols, 4-6 the colours, 7 the special card. */
static bool bf_rainbow_fits(g233_card_t c, int slot, int last_drawn)
{
    if (c == G233_CARD_JOKER) return true;
    if (slot < 4) return c == G233_CARD_SYMBOL + slot;
    if (slot < 7) return g233_card_is_number(c) && g233_card_colour(c) == slot - 4;
    return c == G233_CARD_REVERSE || (c >= G233_CARD_GIFT_PLUS && c == last_drawn);
}

/* Super sequence slots: the values 1..8 of colour `colour`. */
static bool bf_super_fits(g233_card_t c, int slot, int colour)
{
    return c == G233_CARD_JOKER || c == g233_card_number(colour, slot + 1);
}

static g233_combo_t bf_combo(const g233_hand_t *h, const g233_group_t *melds, int nmelds,
                             int last_drawn)
{
    bf_t b;
    bf_of(&b, h);
    g233_card_t all[32];
    int nall = b.n;
    memcpy(all, b.c, (size_t)b.n);
    for (int i = 0; i < nmelds; i++)
        for (int j = 0; j < melds[i].n; j++)
            all[nall++] = melds[i].cards[j];
    if (nmelds == 0 && nall == 8 && bf_match(all, 8, 0, 0xff, bf_rainbow_fits, last_drawn))
        return G233_COMBO_RAINBOW;
    for (int colour = 0; nall == 8 && colour < G233_COLOURS; colour++)
        if (bf_match(all, 8, 0, 0xff, bf_super_fits, colour)) return G233_COMBO_SUPER;
    if (nall < 8 || nall > 10) return G233_COMBO_NONE;
    b.want[2] = 1;         /* 8 cards: 2-3-3, 9: 2-3-4, 10: 2-4-4 */
    b.want[3] = 10 - nall; /* groups of three */
    b.want[4] = nall - 8;  /* squares */
    for (int i = 0; i < nmelds; i++)
        if (--b.want[melds[i].n] < 0) return G233_COMBO_NONE;
    bf_cut(&b, 0);
    return b.fits ? (g233_combo_t)(G233_COMBO_233 + nall - 8) : G233_COMBO_NONE;
}

/* ------------------------------------------------------------------------ */
/* Random hands                                                              */
/* ------------------------------------------------------------------------ */

/* What is left of a pool of cards (by default the deck) while dealing. */
typedef struct deal {
    rng_t *r;
    int left[G233_KINDS];
    int total;
} deal_t;

static void deal_init(deal_t *d, rng_t *r, const int *pool)
{
    d->r = r;
    d->total = 0;
    for (int k = 0; k < G233_KINDS; k++)
        d->total += d->left[k] = pool ? pool[k] : g233_card_copies((g233_card_t)k);
}

/* A card drawn uniformly from what is left. */
static g233_card_t deal_any(deal_t *d)
{
    int i = (int)rng_below(d->r, (uint32_t)d->total--);
    g233_card_t k = 0;
    while (i >= d->left[k])
        i -= d->left[k++];
    d->left[k]--;
    return k;
}

/* A card of kind `want`, or now and then a joker in its place; -1 when
 * neither is left. */
static int deal_card(deal_t *d, g233_card_t want)
{
    if (d->left[G233_CARD_JOKER] && rng_below(d->r, 7) == 0) want = G233_CARD_JOKER;
    if (!d->left[want]) want = G233_CARD_JOKER;
    if (!d->left[want]) return -1;
    d->left[want]--;
    d->total--;
    return want;
}

/* A random group of `size` cards (3: a triple or a sequence). */
static bool deal_group(deal_t *d, int size, g233_group_t *g)
{
    rng_t *r = d->r;
    bool run = size == 3 && rng_below(r, 2);
    int colour = (int)rng_below(r, 3), start = 1 + (int)rng_below(r, 6);
    g233_card_t same = size == 2 ? (g233_card_t)(G233_CARD_SYMBOL + rng_below(r, 4))
                                 : (g233_card_t)rng_below(r, 28);
    g->kind = run         ? G233_GROUP_SEQUENCE
              : size == 2 ? G233_GROUP_DOUBLE
              : size == 3 ? G233_GROUP_TRIPLE
                          : G233_GROUP_SQUARE;
    g->n = (uint8_t)size;
    for (int i = 0; i < size; i++) {
        int c = deal_card(d, run ? g233_card_number(colour, start + i) : same);
        if (c < 0) return false;
        g->cards[i] = (g233_card_t)c;
    }
    return true;
}

typedef struct setup {
    g233_hand_t h;
    g233_group_t melds[3];
    int nmelds;
    int last_drawn;
} setup_t;

/* A random winning combination of kind `combo`, some of its groups locked;
 * false if the deck ran short. */
static bool deal_winning(deal_t *d, g233_combo_t combo, setup_t *s)
{
    rng_t *r = d->r;
    memset(s, 0, sizeof *s);
    s->last_drawn = -1;
    g233_card_t want[8];
    if (combo == G233_COMBO_SUPER || combo == G233_COMBO_RAINBOW) {
        static const g233_card_t specials[] = {G233_CARD_REVERSE, G233_CARD_JOKER,
                                               G233_CARD_GIFT_PLUS, G233_CARD_GIFT_MINUS,
                                               G233_CARD_STOP};
        int colour = (int)rng_below(r, 3);
        for (int i = 0; i < 8; i++)
            want[i] = combo == G233_COMBO_SUPER ? g233_card_number(colour, i + 1)
                      : i < 4                   ? (g233_card_t)(G233_CARD_SYMBOL + i)
                      : i < 7                   ? g233_card_number(i - 4, 1 + (int)rng_below(r, 8))
                                                : specials[rng_below(r, 5)];
        bool lock = combo == G233_COMBO_SUPER && rng_below(r, 4) == 0; /* Y1-Y3 laid */
        g233_group_t run = {.kind = G233_GROUP_SEQUENCE, .n = 3};
        for (int i = 0; i < 8; i++) {
            int c = deal_card(d, want[i]);
            if (c < 0) return false;
            if (lock && i < 3)
                run.cards[i] = (g233_card_t)c;
            else
                s->h.n[c]++;
        }
        if (lock) s->melds[s->nmelds++] = run;
        if (combo == G233_COMBO_RAINBOW && want[7] >= G233_CARD_GIFT_PLUS && rng_below(r, 4))
            s->last_drawn = want[7];
        return true;
    }
    static const int sizes[][3] = {{2, 3, 3}, {2, 3, 4}, {2, 4, 4}};
    for (int i = 0; i < 3; i++) {
        g233_group_t g;
        if (!deal_group(d, sizes[combo - G233_COMBO_233][i], &g)) return false;
        if (g.n > 2 && rng_below(r, 4) == 0)
            s->melds[s->nmelds++] = g;
        else
            for (int j = 0; j < g.n; j++)
                s->h.n[g.cards[j]]++;
    }
    return true;
}

/* A random card of h (which is not empty), left in it. */
static g233_card_t pick_held(const g233_hand_t *h, rng_t *r)
{
    int i = (int)rng_below(r, (uint32_t)g233_hand_size(h));
    g233_card_t k = 0;
    while (i >= h->n[k])
        i -= h->n[k++];
    return k;
}

/* Swaps, adds or removes a card, or changes nothing; may set a last card
 * drawn among those held. */
static void perturb(deal_t *d, setup_t *s)
{
    unsigned how = rng_below(d->r, 6);
    if (how >= 2 && how <= 4) s->h.n[deal_any(d)]++;
    if ((how == 2 || how == 3 || how == 5) && g233_hand_size(&s->h) > 1) {
        g233_card_t out = pick_held(&s->h, d->r);
        s->h.n[out]--;
        d->left[out]++;
        d->total++;
    }
    if (s->last_drawn < 0 && rng_below(d->r, 2) == 0) s->last_drawn = pick_held(&s->h, d->r);
}

/* ------------------------------------------------------------------------ */
/* Solver against brute force                                                */
/* ------------------------------------------------------------------------ */

/* Deals `hands` hands of min..max cards from pool (NULL: the deck) and checks
 * g233_score_best, and the groups it reports, against the brute force; more than
 * `jokers` of the hands held a joker and more than `scoring` scored. */
static void check_best_on(uint64_t seed, const int *pool, int hands, int min, int max, int jokers,
                          int scoring)
{
    rng_t r;
    rng_seed(&r, seed);
    int with_joker = 0, scored = 0;
    for (int t = 0; t < hands; t++) {
        deal_t d;
        deal_init(&d, &r, pool);
        g233_hand_t h = {{0}};
        int size = min + (int)rng_below(&r, (uint32_t)(max - min + 1));
        for (int i = 0; i < size; i++)
            h.n[deal_any(&d)]++;
        g233_group_t out[G233_MAX_GROUPS];
        int n = -1;
        int best = g233_score_best(&h, out, &n);
        bf_t b;
        bf_of(&b, &h);
        bf_cut(&b, 0);
        if (best != b.best)
            fail_msg("hand %s: g233_score_best %d, brute force %d", hand_text(&h), best, b.best);
        g233_hand_t used = {{0}};
        for (int i = 0; i < n; i++) {
            int points = bf_group_points(out[i].cards, out[i].n);
            assert_int_equal(points, g233_group_points((g233_group_kind_t)out[i].kind));
            best -= points;
            for (int j = 0; j < out[i].n; j++)
                used.n[out[i].cards[j]]++;
        }
        assert_int_equal(best, 0); /* the groups add up to the total */
        for (int k = 0; k < G233_KINDS; k++)
            assert_true(used.n[k] <= h.n[k]);
        with_joker += h.n[G233_CARD_JOKER] > 0;
        scored += b.best > 0;
    }
    assert_true(with_joker > jokers);
    assert_true(scored > scoring);
}

static void best_grouping_matches_brute_force_on_100000_deck_hands(void **state)
{
    (void)state;
    check_best_on(233, NULL, 100000, 0, 11, 5000, 10000);
}

/* Hands from a small pool (one colour, two symbols, a stop and four jokers,
 * more than a deck holds) where most cards group and the search has choices. */
static void best_grouping_matches_brute_force_on_dense_hands(void **state)
{
    (void)state;
    int pool[G233_KINDS] = {0};
    for (int v = 1; v <= 8; v++)
        pool[g233_card_number(1, v)] = 4;
    pool[G233_CARD_SYMBOL] = pool[G233_CARD_SYMBOL + 2] = 5;
    pool[G233_CARD_JOKER] = 4;
    pool[G233_CARD_STOP] = 1;
    check_best_on(4004, pool, 20000, 6, 11, 8000, 15000);
}

static void combo_matches_brute_force_on_random_and_near_winning_hands(void **state)
{
    (void)state;
    rng_t r;
    rng_seed(&r, 2024);
    int found[G233_COMBO_RAINBOW + 1] = {0};
    int trials = 0;
    for (int t = 0; t < 60000; t++) {
        deal_t d;
        deal_init(&d, &r, NULL);
        setup_t s = {.last_drawn = -1};
        if (t % 4 == 0) { /* a plain random hand */
            int size = 8 + (int)rng_below(&r, 3);
            for (int i = 0; i < size; i++)
                s.h.n[deal_any(&d)]++;
            if (rng_below(&r, 2)) s.last_drawn = pick_held(&s.h, &r);
        } else {
            if (!deal_winning(&d, (g233_combo_t)(G233_COMBO_233 + rng_below(&r, 5)), &s)) continue;
            perturb(&d, &s);
        }
        for (int i = 0; i < s.nmelds; i++)
            assert_true(g233_group_check((g233_group_kind_t)s.melds[i].kind, s.melds[i].cards,
                                         s.melds[i].n));
        g233_combo_t got = g233_score_combo(&s.h, s.melds, s.nmelds, s.last_drawn);
        g233_combo_t expected = bf_combo(&s.h, s.melds, s.nmelds, s.last_drawn);
        if (got != expected)
            fail_msg("hand %s(%d melds, last drawn %d): g233_score_combo %s, brute force %s",
                     hand_text(&s.h), s.nmelds, s.last_drawn, g233_combo_name(got),
                     g233_combo_name(expected));
        found[got]++;
        trials++;
    }
    print_message("over %d hands: none %d, 2-3-3 %d, 2-3-4 %d, 2-4-4 %d, super %d, rainbow %d\n",
                  trials, found[G233_COMBO_NONE], found[G233_COMBO_233], found[G233_COMBO_234],
                  found[G233_COMBO_244], found[G233_COMBO_SUPER], found[G233_COMBO_RAINBOW]);
    assert_true(found[G233_COMBO_NONE] > 10000);
    for (int c = G233_COMBO_233; c <= G233_COMBO_RAINBOW; c++)
        assert_true(found[c] > 1000);
}

/*
 * g233_score_combo_discards() rules most discards out by what the hand holds:
 * over hands one card past winning (and random ones), its answer is each
 * discard scored alone, for every set of kinds allowed and both modes.
 */
static void combo_discards_match_each_discard_scored_alone(void **state)
{
    (void)state;
    rng_t r;
    rng_seed(&r, 2025);
    int wins = 0, rainbows = 0;
    for (int t = 0; t < 60000; t++) {
        deal_t d;
        deal_init(&d, &r, NULL);
        setup_t s = {.last_drawn = -1};
        if (t % 4 == 0) {
            for (int i = 0; i < 9; i++)
                s.h.n[deal_any(&d)]++;
        } else {
            if (!deal_winning(&d, (g233_combo_t)(G233_COMBO_233 + rng_below(&r, 5)), &s)) continue;
            perturb(&d, &s);
            s.h.n[deal_any(&d)]++; /* one card to discard */
        }
        if (rng_below(&r, 2)) s.last_drawn = pick_held(&s.h, &r);
        int size = g233_hand_size(&s.h);
        uint64_t kinds = rng_below(&r, 2)
                             ? ~(uint64_t)0
                             : ((uint64_t)rng_below(&r, 1u << 31) << 2) ^ rng_below(&r, 4);
        for (int only = 0; only <= 1; only++) {
            uint64_t want = 0;
            for (int x = 0; x < G233_KINDS; x++) {
                if (!s.h.n[x] || !(kinds >> x & 1)) continue;
                g233_hand_t rest = s.h;
                rest.n[x]--;
                g233_combo_t c =
                    g233_score_combo_sized(&rest, size - 1, s.melds, s.nmelds, s.last_drawn);
                if (only ? c == G233_COMBO_RAINBOW : c != G233_COMBO_NONE) want |= (uint64_t)1 << x;
            }
            uint64_t got =
                g233_score_combo_discards(&s.h, size, s.melds, s.nmelds, s.last_drawn, kinds, only);
            if (got != want)
                fail_msg("hand %s(%d melds, last drawn %d, rainbow only %d): discards 0x%llx, one "
                         "by one 0x%llx",
                         hand_text(&s.h), s.nmelds, s.last_drawn, only, (unsigned long long)got,
                         (unsigned long long)want);
            wins += !only && want;
            rainbows += only && want;
        }
    }
    print_message("hands with a winning discard: %d, with a rainbow discard: %d\n", wins, rainbows);
    assert_true(wins > 10000);
    assert_true(rainbows > 1000);
}

TEST_MAIN(
    cmocka_unit_test(points_follow_the_seed_table),
    cmocka_unit_test(double_needs_symbols_not_numbers), cmocka_unit_test(two_jokers_form_a_double),
    cmocka_unit_test(lone_cards_take_the_jokers_they_need),
    cmocka_unit_test(joker_completes_triple_or_square),
    cmocka_unit_test(joker_fills_gap_in_sequence), cmocka_unit_test(sequence_does_not_wrap),
    cmocka_unit_test(numbers_group_only_within_one_colour),
    cmocka_unit_test(group_check_rejects_special_cards_and_wrong_sizes),
    cmocka_unit_test(best_grouping_prefers_square_over_triple_plus_leftover),
    cmocka_unit_test(best_grouping_cuts_runs_into_sequences),
    cmocka_unit_test(leaving_cards_and_jokers_unused_is_allowed),
    cmocka_unit_test(joker_goes_where_it_scores_most),
    cmocka_unit_test(several_jokers_complete_several_groups),
    cmocka_unit_test(best_groups_are_reported),
    SEED_EXAMPLE(seed_example_233_scores_50, "red red Y1 Y2 Y3 B5 B5 B5", G233_COMBO_233, 50),
    SEED_EXAMPLE(seed_example_234_scores_60, "pink pink G4 G5 G6 Y8 Y8 Y8 Y8", G233_COMBO_234, 60),
    SEED_EXAMPLE(seed_example_244_scores_70,
                 "orange orange B2 B2 B2 B2 purple purple purple purple", G233_COMBO_244, 70),
    SEED_EXAMPLE(seed_example_super_sequence_scores_70, "G1 G2 G3 G4 G5 G6 G7 G8", G233_COMBO_SUPER,
                 70),
    SEED_EXAMPLE(seed_example_rainbow_scores_100, "red pink purple orange Y3 B7 G1 reverse",
                 G233_COMBO_RAINBOW, 100),
    cmocka_unit_test(rainbow_gift_counts_only_when_last_drawn),
    cmocka_unit_test(rainbow_stop_counts_only_when_last_drawn),
    cmocka_unit_test(rainbow_needs_one_card_per_slot),
    cmocka_unit_test(rainbow_joker_stands_for_special_symbol_or_colour),
    cmocka_unit_test(hand_with_stop_forms_no_233),
    cmocka_unit_test(combination_uses_every_card_and_a_symbol_double),
    cmocka_unit_test(jokers_complete_combinations), cmocka_unit_test(combo_with_locked_triple),
    cmocka_unit_test(combo_with_locked_square_is_234),
    cmocka_unit_test(combo_with_two_locked_squares_is_244),
    cmocka_unit_test(locked_melds_must_match_the_combination),
    cmocka_unit_test(super_sequence_takes_jokers_and_locked_sequences),
    cmocka_unit_test(super_sequence_needs_one_colour_and_beats_233),
    cmocka_unit_test(declarer_scores_the_fixed_total_not_a_regrouping),
    cmocka_unit_test(round_points_without_combination_are_the_best_grouping),
    cmocka_unit_test(best_grouping_matches_brute_force_on_100000_deck_hands),
    cmocka_unit_test(best_grouping_matches_brute_force_on_dense_hands),
    cmocka_unit_test(combo_matches_brute_force_on_random_and_near_winning_hands),
    cmocka_unit_test(combo_discards_match_each_discard_scored_alone))
