/*
 * test_seqnum_rules.c — one test per rule of seqnum (core/seqnum/RULES.md),
 * on hand-built states: the table is created with a fixed seed, then hands,
 * chips and the top of the draw pile are set with the test constructors of
 * seqnum.h, and the rule is exercised through the public apply() with JSON
 * actions. Refusals must carry their code and leave the dump unchanged.
 *
 * Length: over 800 lines on purpose: one test per rule of RULES.md, in its order, so
 * that a rule and its test are found together.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define GT_UNTIMED
#include "tests/core/game_test.h"

#include "core/seqnum/seqnum.h"
#include "tests/lib/test_main.h"
#include "tests/lib/sanitized.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                              */
/* ------------------------------------------------------------------ */

static seqnum_t *table(int seats, const char *opts)
{
    return (seqnum_t *)gt_table(&seqnum_desc, seats, opts, 42);
}

/* A hand whose cards all have a free cell on a new board: seat 0's in many tests. */
#define PLUS "plus 1+0 2+0 2+1 3+1"

/* A table of `seats` (options `opts`) where hands[s] is seat s's hand (NULL: as dealt). */
typedef struct {
    int seats;
    const char *opts;
    const char *hands[SEQNUM_MAX_SEATS];
} deal_t;

static void hand(seqnum_t *g, int seat, const char *names);

static seqnum_t *dealt(const deal_t *d)
{
    seqnum_t *g = table(d->seats, d->opts);
    for (int s = 0; s < d->seats; s++)
        if (d->hands[s]) hand(g, s, d->hands[s]);
    return g;
}

static void hand(seqnum_t *g, int seat, const char *names)
{
    assert_int_equal(seqnum_give_hand(g, seat, names), 0);
    audit_ok(g);
}

static void play(seqnum_t *g, int seat, const char *card, int cell)
{
    char a[96];
    snprintf(a, sizeof a, "{\"type\":\"play\",\"card\":\"%s\",\"cell\":%d}", card, cell);
    OK(g, seat, a);
}

static void chips(seqnum_t *g, int team, const int *cells, int n)
{
    for (int i = 0; i < n; i++)
        seqnum_put_chip(g, cells[i], team);
}

static bool holds(seqnum_t *g, int seat, const char *name)
{
    int k = seqnum_card_parse(name);
    for (int i = 0; i < g->p[seat].nhand; i++)
        if (g->p[seat].hand[i] == k) return true;
    return false;
}

/* ------------------------------------------------------------------ */
/* Board and cards                                                      */
/* ------------------------------------------------------------------ */

static void board_holds_each_number_twice_never_adjacent(void **state)
{
    (void)state;
    int seen[SEQNUM_TOP + 1] = {0};
    for (int c = 0; c < SEQNUM_CELLS; c++) {
        int n = seqnum_number(c);
        assert_int_equal(n == 0, seqnum_corner(c));
        seen[n]++;
    }
    assert_int_equal(seen[0], 4);
    for (int n = 1; n <= SEQNUM_TOP; n++) {
        assert_int_equal(seen[n], 2);
        int c[2];
        seqnum_cells_of(n, c);
        int dr = abs(c[0] / 10 - c[1] / 10), dc = abs(c[0] % 10 - c[1] % 10);
        if (dr <= 1 && dc <= 1) fail_msg("%d on cells %d and %d, which touch", n, c[0], c[1]);
    }
    assert_true(seqnum_corner(0) && seqnum_corner(9) && seqnum_corner(90) && seqnum_corner(99));
}

static void deck_follows_the_documented_rule(void **state)
{
    (void)state;
    int total = 0;
    for (int k = 0; k < SEQNUM_KINDS; k++)
        total += seqnum_copies(k);
    assert_int_equal(total, SEQNUM_DECK);
    assert_int_equal(seqnum_copies(SEQNUM_CARD_PLUS), 2);
    assert_int_equal(seqnum_copies(SEQNUM_CARD_MINUS), 2);
    for (int n = 1; n <= SEQNUM_TOP; n++) {
        int add = n - 1, sub = SEQNUM_TOP + n - 1, a, b;
        char name[16];
        /* n = (n - n/3) + n/3 */
        seqnum_operands(add, &a, &b);
        assert_int_equal(b, n / 3);
        assert_int_equal(a + b, n);
        assert_true(a >= 0 && a <= 48 && b >= 0 && b <= 48);
        snprintf(name, sizeof name, "%d+%d", a, b);
        assert_string_equal(seqnum_card_name(add), name);
        assert_int_equal(seqnum_card_parse(name), add);
        assert_int_equal(seqnum_answer(add), n);
        /* n = (n + (49 - n)/2) - (49 - n)/2 */
        seqnum_operands(sub, &a, &b);
        assert_int_equal(b, (49 - n) / 2);
        assert_int_equal(a - b, n);
        assert_true(a >= 0 && a <= 48 && b >= 0 && b <= 48);
        snprintf(name, sizeof name, "%d-%d", a, b);
        assert_string_equal(seqnum_card_name(sub), name);
        assert_int_equal(seqnum_card_parse(name), sub);
        assert_int_equal(seqnum_answer(sub), n);
    }
    assert_string_equal(seqnum_card_name(0), "1+0");
    assert_string_equal(seqnum_card_name(SEQNUM_TOP), "25-24");
    assert_string_equal(seqnum_card_name(2 * SEQNUM_TOP - 1), "48-0");
    assert_int_equal(seqnum_card_parse("Plus"), SEQNUM_CARD_PLUS);
    assert_int_equal(seqnum_card_parse("minus"), SEQNUM_CARD_MINUS);
    assert_int_equal(seqnum_card_parse("1+1"), -1); /* 2 is 2+0 */
    assert_int_equal(seqnum_card_parse("49-1"), -1);
    assert_int_equal(seqnum_card_parse("01+0"), -1);
    assert_int_equal(seqnum_card_parse("1+0 "), -1);
}

/* ------------------------------------------------------------------ */
/* Players, teams, the deal                                             */
/* ------------------------------------------------------------------ */

static void five_players_and_bad_team_counts_are_refused(void **state)
{
    (void)state;
    game_error_t err = {0};
    assert_null(game_new(&seqnum_desc, 5, NULL, 1, &err));
    assert_string_equal(err.code, "bad_players");
    assert_non_null(strstr(err.message, "not 5"));
    gt_new_refused(&seqnum_desc, 1, NULL, "bad_players");
    gt_new_refused(&seqnum_desc, 7, NULL, "bad_players");
    static const struct {
        int seats;
        const char *opts;
    } bad[] = {
        {4, "{\"teams\":3}"},     {4, "{\"teams\":4}"},         {6, "{\"teams\":6}"},
        {6, "{\"teams\":1}"},     {3, "{\"teams\":2}"},         {2, "{\"teams\":1}"},
        {2, "{\"max_turns\":0}"}, {2, "{\"max_turns\":10001}"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        gt_new_refused(&seqnum_desc, bad[i].seats, bad[i].opts, "bad_option");
}

static void deal_gives_five_to_two_or_three_and_four_to_teams(void **state)
{
    (void)state;
    static const int seats[] = {2, 3, 4, 6};
    for (int i = 0; i < 4; i++) {
        seqnum_t *g = table(seats[i], NULL);
        audit_ok(g);
        int deal = seats[i] <= 3 ? 5 : 4;
        for (int s = 0; s < seats[i]; s++) {
            assert_int_equal(g->p[s].nhand, deal);
            assert_int_equal(g->p[s].max_cards, deal);
        }
        assert_int_equal(g->ndraw, SEQNUM_DECK - deal * seats[i]);
        assert_int_equal(g->turn, 0);
        assert_int_equal(g->goal, seats[i] <= 3 ? 1 : 2);
        game_free(&g->base);
    }
}

static void teams_are_seated_alternately(void **state)
{
    (void)state;
    seqnum_t *g = table(6, "{\"teams\":3}");
    assert_int_equal(g->nteams, 3);
    for (int s = 0; s < 6; s++)
        assert_int_equal(seqnum_team(g, s), s % 3);
    game_free(&g->base);
    g = table(6, NULL);
    assert_int_equal(g->nteams, 2);
    game_free(&g->base);
    g = table(4, "{\"teams\":2}");
    for (int s = 0; s < 4; s++)
        assert_int_equal(seqnum_team(g, s), s % 2);
    json_t *v = game_view(&g->base, 3);
    assert_int_equal(json_integer_value(json_object_get(v, "team")), 1);
    json_decref(v);
    game_free(&g->base);
    g = table(3, NULL);
    assert_int_equal(g->nteams, 3); /* alone */
    game_free(&g->base);
}

/* ------------------------------------------------------------------ */
/* Playing cards                                                        */
/* ------------------------------------------------------------------ */

static void equation_card_takes_a_free_cell_showing_its_answer(void **state)
{
    (void)state;
    seqnum_t *g = dealt(&(deal_t){2, NULL, {"1+0 25-24 plus minus 2+0"}});
    int one[2], two[2];
    seqnum_cells_of(1, one);
    seqnum_cells_of(2, two);
    assert_true(legal_has(g, 0, "{\"type\":\"play\",\"card\":\"1+0\",\"cell\":8}"));
    char a[96];
    snprintf(a, sizeof a, "{\"type\":\"play\",\"card\":\"1+0\",\"cell\":%d}", two[0]);
    refused(g, 0, a, "wrong_cell");
    refused(g, 0, "{\"type\":\"play\",\"card\":\"1+0\",\"cell\":0}", "free_corner");
    refused(g, 0, "{\"type\":\"play\",\"card\":\"2+1\",\"cell\":8}", "not_in_hand");
    refused(g, 1, "{\"type\":\"play\",\"card\":\"1+0\",\"cell\":8}", "not_your_turn");
    refused(g, 0, "{\"type\":\"play\",\"card\":\"1+0\",\"cell\":100}", "bad_cell");
    seqnum_put_chip(g, one[0], 1);
    snprintf(a, sizeof a, "{\"type\":\"play\",\"card\":\"25-24\",\"cell\":%d}", one[0]);
    refused(g, 0, a, "occupied");
    play(g, 0, "25-24", one[1]);
    assert_int_equal(g->chip[one[1]], 0);
    assert_int_equal(g->turn, 1);
    assert_false(holds(g, 0, "25-24"));
    assert_int_equal(g->p[0].ndiscards, 1);
    game_free(&g->base);
}

static void plus_takes_any_free_cell_but_a_corner(void **state)
{
    (void)state;
    seqnum_t *g = dealt(&(deal_t){3, NULL, {PLUS}});
    seqnum_put_chip(g, 44, 2);
    refused(g, 0, "{\"type\":\"play\",\"card\":\"plus\",\"cell\":44}", "occupied");
    refused(g, 0, "{\"type\":\"play\",\"card\":\"plus\",\"cell\":99}", "free_corner");
    play(g, 0, "plus", 45);
    assert_int_equal(g->chip[45], 0);
    game_free(&g->base);
}

static void minus_removes_an_unlocked_opponent_chip_and_ends_the_turn(void **state)
{
    (void)state;
    seqnum_t *g = dealt(&(deal_t){2, NULL, {"minus plus 1+0 2+0 2+1"}});
    seqnum_put_chip(g, 44, 0);
    seqnum_put_chip(g, 45, 1);
    refused(g, 0, "{\"type\":\"play\",\"card\":\"minus\",\"cell\":44}", "own_chip");
    refused(g, 0, "{\"type\":\"play\",\"card\":\"minus\",\"cell\":46}", "no_chip");
    refused(g, 0, "{\"type\":\"play\",\"card\":\"minus\",\"cell\":0}", "no_chip");
    assert_true(legal_has(g, 0, "{\"type\":\"play\",\"card\":\"minus\",\"cell\":45}"));
    assert_false(legal_has(g, 0, "{\"type\":\"play\",\"card\":\"minus\",\"cell\":44}"));
    play(g, 0, "minus", 45);
    assert_int_equal(g->chip[45], SEQNUM_NO_CHIP);
    /* The turn is over: the freed cell cannot be taken in the same turn. */
    assert_int_equal(g->turn, 1);
    refused(g, 0, "{\"type\":\"play\",\"card\":\"plus\",\"cell\":45}", "not_your_turn");
    game_free(&g->base);
}

static void minus_cannot_touch_a_finished_sequence(void **state)
{
    (void)state;
    /* two sequences to win */
    seqnum_t *g = dealt(&(deal_t){4, NULL, {"plus 1+0 2+0 2+1", "minus 3+1 4+1 4+2"}});
    chips(g, 0, (const int[]){51, 52, 53, 54, 30}, 5);
    play(g, 0, "plus", 55);
    assert_int_equal(g->nseqs, 1);
    assert_false(g->over);
    assert_true(seqnum_locked(g, 53));
    assert_false(seqnum_locked(g, 30));
    refused(g, 1, "{\"type\":\"play\",\"card\":\"minus\",\"cell\":53}", "locked");
    refused(g, 1, "{\"type\":\"play\",\"card\":\"minus\",\"cell\":55}", "locked");
    assert_false(legal_has(g, 1, "{\"type\":\"play\",\"card\":\"minus\",\"cell\":51}"));
    play(g, 1, "minus", 30);
    assert_int_equal(g->chip[30], SEQNUM_NO_CHIP);
    game_free(&g->base);
}

/* Three teams: a Minus removes the chip of either opponent, not only the next
 * seat's; a teammate's chip is the player's own, and locks hold for every team. */
static void minus_removes_a_third_teams_chip(void **state)
{
    (void)state;
    /* three players alone: three teams */
    seqnum_t *g = dealt(&(deal_t){3, NULL, {"minus 1+0 2+0 2+1 3+1", "minus 4+1 4+2 5+2 6+2"}});
    seqnum_put_chip(g, 45, 1);
    seqnum_put_chip(g, 46, 2);
    seqnum_put_chip(g, 47, 0);
    assert_true(legal_has(g, 0, "{\"type\":\"play\",\"card\":\"minus\",\"cell\":45}"));
    assert_true(legal_has(g, 0, "{\"type\":\"play\",\"card\":\"minus\",\"cell\":46}"));
    refused(g, 0, "{\"type\":\"play\",\"card\":\"minus\",\"cell\":47}", "own_chip");
    play(g, 0, "minus", 46); /* team 2 plays after the next seat */
    assert_int_equal(g->chip[46], SEQNUM_NO_CHIP);
    json_t *ev = json_array_get(gt_log(&g->events), json_array_size(gt_log(&g->events)) - 1);
    assert_string_equal(json_string_value(json_object_get(ev, "did")), "remove");
    assert_int_equal(json_integer_value(json_object_get(ev, "team")), 2);
    assert_int_equal(g->turn, 1);
    /* Seat 1: team 0 played before it, yet is as much an opponent. */
    refused(g, 1, "{\"type\":\"play\",\"card\":\"minus\",\"cell\":45}", "own_chip");
    assert_true(legal_has(g, 1, "{\"type\":\"play\",\"card\":\"minus\",\"cell\":47}"));
    play(g, 1, "minus", 47);
    assert_int_equal(g->chip[47], SEQNUM_NO_CHIP);
    assert_int_equal(g->chip[45], 1);
    game_free(&g->base);

    /* Six players in three teams of two (seat s plays for team s % 3). */
    g = table(6, "{\"teams\":3}");
    hand(g, 0, "1+0 3+1 4+1 4+2");
    hand(g, 1, "2+0 5+2 6+2 6+3");
    hand(g, 2, "26+13 7+3 8+3 8+4");
    hand(g, 3, "minus 9+4 10+4 10+5");
    chips(g, 2, (const int[]){51, 52, 53, 54, 46}, 5);
    seqnum_put_chip(g, 45, 0);
    seqnum_put_chip(g, 47, 1);
    play(g, 0, "1+0", 8);
    play(g, 1, "2+0", 27);
    play(g, 2, "26+13", 55); /* team 2 finishes 51..55 */
    assert_int_equal(g->nseqs, 1);
    assert_false(g->over);
    assert_int_equal(g->turn, 3); /* team 0 again: team 2 is its third team */
    refused(g, 3, "{\"type\":\"play\",\"card\":\"minus\",\"cell\":45}", "own_chip");
    refused(g, 3, "{\"type\":\"play\",\"card\":\"minus\",\"cell\":53}", "locked");
    assert_true(legal_has(g, 3, "{\"type\":\"play\",\"card\":\"minus\",\"cell\":47}"));
    play(g, 3, "minus", 46);
    assert_int_equal(g->chip[46], SEQNUM_NO_CHIP);
    game_free(&g->base);
}

/*
 * "Cela termine votre tour. Vous ne pouvez pas placer un de vos jetons sur la
 * même case pendant ce tour." The Minus ends the turn, so the refusal is
 * not_your_turn even with a card that fits the freed cell in hand; the cell
 * is free at once for the next player, and for the Minus player next turn.
 */
static void cell_freed_by_minus_is_not_retaken_the_same_turn(void **state)
{
    (void)state;
    seqnum_t *g = dealt(&(deal_t){2, NULL, {"minus 30+15 plus 1+0 2+0", "47-2 3+1 4+1 4+2 5+2"}});
    seqnum_put_chip(g, 45, 1); /* the two cells that show 45 */
    seqnum_put_chip(g, 50, 1);
    refused(g, 0, "{\"type\":\"play\",\"card\":\"30+15\",\"cell\":45}", "occupied");
    play(g, 0, "minus", 45);
    assert_int_equal(g->chip[45], SEQNUM_NO_CHIP);
    assert_int_equal(g->turn, 1);
    /* 30+15 and plus fit the freed cell, but the turn is over. */
    refused(g, 0, "{\"type\":\"play\",\"card\":\"30+15\",\"cell\":45}", "not_your_turn");
    refused(g, 0, "{\"type\":\"play\",\"card\":\"plus\",\"cell\":45}", "not_your_turn");
    assert_int_equal(gt_legal_count(&g->base, 0), 1);
    assert_true(legal_has(g, 0, "{\"type\":\"draw\"}"));
    OK(g, 0, "{\"type\":\"draw\"}"); /* the draw does not reopen the turn */
    refused(g, 0, "{\"type\":\"play\",\"card\":\"30+15\",\"cell\":45}", "not_your_turn");
    /* The next player (whose chip it was) may take the cell at once... */
    assert_true(legal_has(g, 1, "{\"type\":\"play\",\"card\":\"47-2\",\"cell\":45}"));
    play(g, 1, "3+1", 87);
    /* ...and the Minus player on its next turn. */
    assert_true(legal_has(g, 0, "{\"type\":\"play\",\"card\":\"30+15\",\"cell\":45}"));
    play(g, 0, "30+15", 45);
    assert_int_equal(g->chip[45], 0);
    game_free(&g->base);
}

static void pass_only_when_no_card_can_be_played(void **state)
{
    (void)state;
    seqnum_t *g = dealt(&(deal_t){2, NULL, {"minus 1+0"}});
    refused(g, 0, "{\"type\":\"pass\"}", "must_play"); /* 1+0 has a free cell */
    int one[2];
    seqnum_cells_of(1, one);
    chips(g, 0, one, 2); /* both covered, and no opponent chip to remove */
    assert_true(legal_has(g, 0, "{\"type\":\"pass\"}"));
    assert_true(legal_has(g, 0, "{\"type\":\"trade\",\"card\":\"1+0\"}"));
    OK(g, 0, "{\"type\":\"pass\"}");
    assert_int_equal(g->turn, 1);
    assert_int_equal(g->turns, 1);
    assert_int_equal(g->p[0].owe, -1); /* no play, no draw */
    game_free(&g->base);
}

static void inline_args_form_is_accepted(void **state)
{
    (void)state;
    seqnum_t *g = dealt(&(deal_t){2, NULL, {PLUS}});
    refused(g, 0, "{\"type\":\"play\",\"args\":[\"plus\"]}", "bad_action");
    refused(g, 0, "{\"type\":\"play\",\"args\":[\"plus\",44,1]}", "bad_action");
    refused(g, 0, "{\"type\":\"play\",\"args\":[\"plux\",44]}", "unknown_card");
    refused(g, 0, "{\"type\":\"play\",\"card\":\"plus\",\"cell\":\"44\"}", "bad_action");
    refused(g, 0, "{\"type\":\"play\",\"card\":\"plus\",\"cell\":44,\"x\":1}", "bad_action");
    refused(g, 0, "{\"type\":\"play\",\"args\":[]}", "bad_action");
    refused(g, 0, "{\"type\":\"jump\"}", "unknown_action");
    OK(g, 0, "{\"type\":\"play\",\"args\":[\"plus\",\"44\"]}");
    OK(g, 0, "{\"type\":\"draw\"}");
    hand(g, 1, "plus 1+0 2+0 2+1 3+1");
    OK(g, 1, "{\"type\":\"play\",\"args\":[\"PLUS\",45]}");
    assert_int_equal(g->chip[44], 0);
    assert_int_equal(g->chip[45], 1);
    game_free(&g->base);
}

/* ------------------------------------------------------------------ */
/* Sequences                                                            */
/* ------------------------------------------------------------------ */

/* Team 0 holds `held`; seat 0 plays a plus on `last`: one sequence wins (2 players). */
static void sequence_case(const int *held, int nheld, int last, bool wins)
{
    seqnum_t *g = dealt(&(deal_t){2, NULL, {PLUS}});
    chips(g, 0, held, nheld);
    play(g, 0, "plus", last);
    assert_int_equal(g->over, wins);
    assert_int_equal(g->nseqs, wins ? 1 : 0);
    if (wins) {
        gt_winners(&g->base, "[0]");
        json_t *r = game_result(&g->base);
        assert_string_equal(json_string_value(json_object_get(r, "reason")), "sequences");
        json_decref(r);
        assert_int_equal(seqnum_desc.waiting(&g->base), 0);
        assert_int_equal(legal_count(g, 0), 0);
    }
    game_free(&g->base);
}

static void sequences_in_four_directions_without_corners(void **state)
{
    (void)state;
    sequence_case((const int[]){51, 52, 53, 54}, 4, 55, true); /* row */
    sequence_case((const int[]){52, 53, 54, 55}, 4, 51, true); /* row, from the other end */
    sequence_case((const int[]){15, 25, 35, 45}, 4, 55, true); /* column */
    sequence_case((const int[]){12, 23, 34, 56}, 4, 45, true); /* diagonal, filled in the middle */
    sequence_case((const int[]){18, 27, 36, 45}, 4, 54, true); /* anti-diagonal */
}

static void sequences_with_a_free_corner_need_four_chips(void **state)
{
    (void)state;
    sequence_case((const int[]){1, 2, 3}, 3, 4, true);     /* corner 0, row */
    sequence_case((const int[]){10, 20, 30}, 3, 40, true); /* corner 0, column */
    sequence_case((const int[]){11, 22, 33}, 3, 44, true); /* corner 0, diagonal */
    sequence_case((const int[]){18, 27, 36}, 3, 45, true); /* corner 9, anti-diagonal */
    sequence_case((const int[]){98, 97, 96}, 3, 95, true); /* corner 99, row */
}

static void broken_or_short_lines_are_no_sequence(void **state)
{
    (void)state;
    sequence_case((const int[]){51, 52, 53}, 3, 54, false);     /* four */
    sequence_case((const int[]){51, 52, 53, 55}, 4, 56, false); /* a gap */
    sequence_case((const int[]){1, 2, 3}, 3, 5, false);         /* corner, then a gap */
    /* An opponent's chip in the line. */
    seqnum_t *g = dealt(&(deal_t){2, NULL, {PLUS}});
    chips(g, 0, (const int[]){51, 52, 53}, 3);
    seqnum_put_chip(g, 54, 1);
    play(g, 0, "plus", 55);
    assert_int_equal(g->nseqs, 0);
    game_free(&g->base);
    /* Wrapping around the edge of the board is no line. */
    sequence_case((const int[]){57, 58, 59, 60}, 4, 61, false);
}

static void teams_need_two_sequences_sharing_at_most_one_chip(void **state)
{
    (void)state;
    seqnum_t *g = dealt(&(deal_t){4, NULL, {"plus 1+0 2+0 2+1", [2] = "plus 3+1 4+1 4+2"}});
    chips(g, 0, (const int[]){51, 52, 53, 54, 56, 57}, 6);
    play(g, 0, "plus", 55); /* 51..55 */
    assert_int_equal(g->nseqs, 1);
    assert_false(g->over);
    hand(g, 1, "plus 5+2 6+2 6+3");
    play(g, 1, "plus", 11);
    play(g, 2, "plus", 58); /* 54..58 would share 54 and 55: not a sequence */
    assert_int_equal(g->nseqs, 1);
    assert_false(g->over);
    hand(g, 3, "plus 6+3 7+3 8+3");
    play(g, 3, "plus", 12);
    hand(g, 0, "plus 8+4 9+4"); /* seat 0 has not drawn: three cards */
    play(g, 0, "plus", 59);     /* 55..59 shares only 55 */
    assert_int_equal(g->nseqs, 2);
    assert_true(g->over);
    gt_winners(&g->base, "[0,2]");
    game_free(&g->base);
}

/*
 * A team's two sequences may meet in a free corner: it is no chip, so it is
 * not the one chip they may share. (Two lines of five through a corner meet
 * only there: sharing the corner never comes with a shared chip.) The chips
 * of the first sequence still count: a line sharing four of them is none.
 */
static void second_sequence_may_reuse_the_corner_of_the_first(void **state)
{
    (void)state;
    /* teams 0 (seats 0, 2) and 1; two sequences to win */
    seqnum_t *g = dealt(&(deal_t){
        4, NULL, {"27+13 21+10 1+0 2+0", "2+1 3+1 4+1 4+2", "8+3 5+2 6+2 6+3", "6+3 7+3 8+4 9+4"}});
    chips(g, 0, (const int[]){1, 2, 3, 10, 20, 30}, 6);
    play(g, 0, "27+13", 4); /* 0..4, through corner 0 */
    assert_int_equal(g->nseqs, 1);
    OK(g, 0, "{\"type\":\"draw\"}");
    play(g, 1, "4+1", 80);
    play(g, 2, "8+3", 5); /* 1..5 shares the chips 1..4 of 0..4: no sequence */
    assert_int_equal(g->nseqs, 1);
    assert_false(g->over);
    play(g, 3, "6+3", 24);
    play(g, 0, "21+10", 40); /* 0, 10, 20, 30, 40 shares only corner 0 with 0..4 */
    assert_int_equal(g->nseqs, 2);
    assert_int_equal(g->seqs[1].team, 0);
    assert_int_equal(g->seqs[0].cells[0], 0);
    assert_int_equal(g->seqs[1].cells[0], 0);
    assert_int_equal(g->chip[0], SEQNUM_NO_CHIP);
    assert_true(g->over);
    gt_winners(&g->base, "[0,2]");
    game_free(&g->base);
}

/* "Plusieurs joueurs peuvent utiliser le même coin": three teams, one corner. */
static void several_teams_use_one_corner(void **state)
{
    (void)state;
    /* two sequences to win */
    seqnum_t *g = dealt(&(deal_t){
        6, "{\"teams\":3}", {"27+13 3+1 4+1 4+2", "21+10 5+2 6+2 6+3", "2+0 7+3 8+3 8+4"}});
    chips(g, 0, (const int[]){1, 2, 3}, 3);
    chips(g, 1, (const int[]){10, 20, 30}, 3);
    chips(g, 2, (const int[]){11, 22, 33}, 3);
    play(g, 0, "27+13", 4);  /* team 0: row 0 */
    play(g, 1, "21+10", 40); /* team 1: column 0 */
    play(g, 2, "2+0", 44);   /* team 2: the diagonal */
    assert_int_equal(g->nseqs, 3);
    for (int t = 0; t < 3; t++) {
        assert_int_equal(g->seqs[t].team, t);
        assert_int_equal(g->seqs[t].cells[0], 0);
        assert_int_equal(seqnum_team_sequences(g, t), 1);
    }
    assert_int_equal(g->chip[0], SEQNUM_NO_CHIP);
    assert_false(seqnum_locked(g, 0));
    assert_false(g->over);
    game_free(&g->base);
}

static void one_chip_can_complete_two_sequences_at_once(void **state)
{
    (void)state;
    seqnum_t *g = dealt(&(deal_t){4, NULL, {"plus 1+0 2+0 2+1"}});
    chips(g, 0, (const int[]){50, 51, 52, 53, 55, 56, 57, 58}, 8);
    play(g, 0, "plus", 54); /* 50..54 and 54..58 share 54 */
    assert_int_equal(g->nseqs, 2);
    assert_true(g->over);
    game_free(&g->base);
}

/* ------------------------------------------------------------------ */
/* Dead cards                                                           */
/* ------------------------------------------------------------------ */

static void dead_card_is_traded_once_per_turn_before_playing(void **state)
{
    (void)state;
    seqnum_t *g = dealt(&(deal_t){2, NULL, {"1+0 25-24 plus 2+0 2+1"}});
    int one[2];
    seqnum_cells_of(1, one);
    seqnum_put_chip(g, one[0], 1);
    refused(g, 0, "{\"type\":\"trade\",\"card\":\"1+0\"}", "not_dead"); /* one cell free */
    seqnum_put_chip(g, one[1], 0);
    refused(g, 0, "{\"type\":\"trade\",\"card\":\"2+0\"}", "not_dead");
    refused(g, 0, "{\"type\":\"trade\",\"card\":\"plus\"}", "not_dead");
    refused(g, 1, "{\"type\":\"trade\",\"card\":\"1+0\"}", "not_your_turn");
    assert_true(legal_has(g, 0, "{\"type\":\"trade\",\"card\":\"1+0\"}"));
    assert_true(legal_has(g, 0, "{\"type\":\"trade\",\"card\":\"25-24\"}"));
    assert_int_equal(seqnum_stack_draw(g, "3+1"), 0);
    OK(g, 0, "{\"type\":\"trade\",\"card\":\"1+0\"}");
    assert_true(holds(g, 0, "3+1"));
    assert_false(holds(g, 0, "1+0"));
    assert_int_equal(g->p[0].nhand, 5);
    assert_int_equal(g->p[0].discards[0], seqnum_card_parse("1+0"));
    assert_int_equal(g->turn, 0); /* the turn goes on */
    refused(g, 0, "{\"type\":\"trade\",\"card\":\"25-24\"}", "already_traded");
    assert_false(legal_has(g, 0, "{\"type\":\"trade\",\"card\":\"25-24\"}"));
    play(g, 0, "plus", 44);
    OK(g, 0, "{\"type\":\"draw\"}");
    /* Next turn, a new trade. */
    hand(g, 1, "plus 4+1 4+2 5+2 6+2");
    play(g, 1, "plus", 45);
    OK(g, 0, "{\"type\":\"trade\",\"card\":\"25-24\"}");
    game_free(&g->base);
}

/* ------------------------------------------------------------------ */
/* Drawing: the real-time rule, by the order of actions                  */
/* ------------------------------------------------------------------ */

static void draw_follows_a_play_once(void **state)
{
    (void)state;
    seqnum_t *g = dealt(&(deal_t){3, NULL, {PLUS}});
    refused(g, 0, "{\"type\":\"draw\"}", "nothing_to_draw");
    play(g, 0, "plus", 44);
    assert_int_equal(g->p[0].nhand, 4);
    assert_true(legal_has(g, 0, "{\"type\":\"draw\"}"));
    assert_true(seqnum_desc.waiting(&g->base) == ((1u << 0) | (1u << 1)));
    gt_json_is(seqnum_desc.default_action(&g->base, 0), "{\"type\":\"draw\"}");
    assert_int_equal(seqnum_stack_draw(g, "4+1"), 0);
    OK(g, 0, "{\"type\":\"draw\"}");
    assert_int_equal(g->p[0].nhand, 5);
    assert_true(holds(g, 0, "4+1"));
    refused(g, 0, "{\"type\":\"draw\"}", "nothing_to_draw");
    game_free(&g->base);
}

static void draw_lapses_once_the_next_player_has_played_and_drawn(void **state)
{
    (void)state;
    seqnum_t *g = dealt(&(deal_t){3, NULL, {PLUS, "4+1 4+2 5+2 6+2 6+3"}});
    play(g, 0, "plus", 44);
    play(g, 1, "4+1", 80);
    OK(g, 0, "{\"type\":\"draw\"}"); /* still in time: seat 1 has not drawn */
    assert_int_equal(g->p[0].lapsed, 0);
    OK(g, 1, "{\"type\":\"draw\"}");
    hand(g, 2, "plus 6+3 7+3 8+3 8+4");
    play(g, 2, "plus", 46);
    play(g, 0, "1+0", 8); /* seat 0 plays and does not draw */
    OK(g, 2, "{\"type\":\"draw\"}");
    assert_int_equal(g->p[0].lapsed, 0); /* seat 2 played before seat 0 */
    hand(g, 1, "plus 4+1 4+2 5+2 6+2");
    play(g, 1, "plus", 47);
    OK(g, 1, "{\"type\":\"draw\"}"); /* the next player has played and drawn */
    assert_int_equal(g->p[0].lapsed, 1);
    assert_int_equal(g->p[0].max_cards, 4);
    assert_int_equal(g->p[0].nhand, 4);
    refused(g, 0, "{\"type\":\"draw\"}", "nothing_to_draw");
    assert_false(legal_has(g, 0, "{\"type\":\"draw\"}"));
    /* The player plays on with one card fewer. */
    hand(g, 2, "plus 6+3 7+3 8+3 8+4");
    play(g, 2, "plus", 48);
    OK(g, 2, "{\"type\":\"draw\"}");
    play(g, 0, "2+0", 27);
    OK(g, 0, "{\"type\":\"draw\"}");
    assert_int_equal(g->p[0].nhand, 4);
    game_free(&g->base);
}

static void playing_again_without_drawing_loses_the_draw(void **state)
{
    (void)state;
    seqnum_t *g = dealt(&(deal_t){2, NULL, {PLUS, "plus 4+1 4+2 5+2 6+2"}});
    play(g, 0, "plus", 44);
    play(g, 1, "plus", 45); /* neither draws */
    play(g, 0, "1+0", 8);
    assert_int_equal(g->p[0].lapsed, 1);
    assert_int_equal(g->p[0].nhand, 3);
    assert_int_equal(g->p[0].max_cards, 4);
    OK(g, 1, "{\"type\":\"draw\"}"); /* seat 1 played before seat 0's new play */
    assert_int_equal(g->p[1].lapsed, 0);
    OK(g, 0, "{\"type\":\"draw\"}");
    assert_int_equal(g->p[0].nhand, 4);
    game_free(&g->base);
}

static void empty_draw_pile_is_rebuilt_from_every_discard_pile(void **state)
{
    (void)state;
    seqnum_t *g = dealt(&(deal_t){2, NULL, {PLUS}});
    memcpy(g->p[1].discards, g->draw, (size_t)g->ndraw);
    g->p[1].ndiscards = g->ndraw;
    int piles = g->ndraw;
    g->ndraw = 0;
    audit_ok(g);
    play(g, 0, "plus", 44);
    OK(g, 0, "{\"type\":\"draw\"}");
    assert_int_equal(g->reshuffles, 1);
    assert_int_equal(g->ndraw, piles + 1 - 1); /* both piles, less the card drawn */
    assert_int_equal(g->p[0].ndiscards + g->p[1].ndiscards, 0);
    assert_int_equal(g->p[0].nhand, 5);
    game_free(&g->base);
}

/* Server rules: a stalled game ends as a draw. */
static void game_is_a_draw_after_max_turns(void **state)
{
    (void)state;
    seqnum_t *g = dealt(&(deal_t){2, "{\"max_turns\":2}", {PLUS, "plus 4+1 4+2 5+2 6+2"}});
    play(g, 0, "plus", 44);
    assert_false(g->over);
    play(g, 1, "plus", 45);
    assert_true(g->over);
    json_t *r = game_result(&g->base);
    assert_int_equal(json_array_size(json_object_get(r, "winners")), 0);
    assert_string_equal(json_string_value(json_object_get(r, "reason")), "max_turns");
    json_decref(r);
    refused(g, 0, "{\"type\":\"draw\"}", "game_over");
    game_free(&g->base);
}

static void game_is_a_draw_when_nobody_holds_a_card(void **state)
{
    (void)state;
    seqnum_t *g = dealt(&(deal_t){2, NULL, {"", ""}});
    assert_true(legal_has(g, 0, "{\"type\":\"pass\"}"));
    OK(g, 0, "{\"type\":\"pass\"}");
    assert_true(g->over);
    assert_string_equal(g->reason, "no_cards");
    game_free(&g->base);
}

/* ------------------------------------------------------------------ */
/* Views, hidden hands, bots                                            */
/* ------------------------------------------------------------------ */

static const char *const private_keys[] = {"hands", "draw", "owe", "rng", NULL};

/* Random games at every step: a hand reaches its owner only, and redrawing what
 * a seat cannot see leaves its view as it was. */
static void hands_stay_hidden_over_random_games(void **state)
{
    (void)state;
    static const int seats[] = {2, 3, 4, 6};
    for (uint64_t seed = 1; seed <= SANITIZED_GAMES(60); seed++) {
        int n = seats[seed % 4];
        game_t *g = gt_table(&seqnum_desc, n, NULL, seed);
        rng_t r;
        rng_seed(&r, seed);
        int changed = 0, checks = 0;
        while (!game_is_over(g)) {
            for (int s = GAME_SPECTATOR; s < n; s++) {
                json_t *v = gt_view(g, s);
                for (int k = 0; private_keys[k]; k++)
                    assert_null(json_object_get(v, private_keys[k]));
                if (s >= 0) {
                    const seqnum_player_t *p = &((seqnum_t *)g)->p[s];
                    json_t *own = json_array();
                    for (int i = 0; i < p->nhand; i++)
                        json_array_append_new(own, json_string(seqnum_card_name(p->hand[i])));
                    assert_true(json_equal(json_object_get(v, "hand"), own));
                    json_decref(own);
                }
                gt_resample_keeps_view(g, s, rng_next(&r), v, &changed);
                checks++;
                json_decref(v);
            }
            unsigned wmask = seqnum_desc.waiting(g);
            int cand[8], k = 0;
            for (int s = 0; s < n; s++)
                if (wmask & (1u << s)) cand[k++] = s;
            assert_true(gt_bot_plays(g, cand[rng_below(&r, (uint32_t)k)], "random", &r, 0));
        }
        assert_true(changed > checks / 2);
        game_free(g);
    }
}

static void greedy_bot_beats_random_play(void **state)
{
    (void)state;
    int wins = 0, games = 100;
    for (int k = 0; k < games; k++) {
        game_t *g = gt_table(&seqnum_desc, 2, NULL, (uint64_t)k + 7);
        rng_t r;
        rng_seed(&r, (uint64_t)k);
        int greedy = k % 2;
        while (!game_is_over(g)) {
            unsigned wmask = seqnum_desc.waiting(g);
            int s = (wmask & 1u) && (wmask & 2u) ? (int)rng_below(&r, 2) : (wmask & 1u) ? 0 : 1;
            assert_true(gt_bot_plays(g, s, s == greedy ? "greedy" : "random", &r, 0));
        }
        json_t *res = game_result(g);
        json_t *w = json_array_get(json_object_get(res, "winners"), 0);
        wins += w && json_integer_value(w) == greedy;
        json_decref(res);
        game_free(g);
    }
    print_message("greedy won %d of %d games against random\n", wins, games);
    assert_true(wins >= 60); /* about 70%: the cards decide much of a game */
}

static void greedy_bot_completes_a_sequence_and_blocks(void **state)
{
    (void)state;
    seqnum_t *g = dealt(&(deal_t){2, NULL, {PLUS}});
    chips(g, 0, (const int[]){51, 52, 53, 54}, 4);
    chips(g, 1, (const int[]){71, 72, 73, 74}, 4);
    rng_t r;
    rng_seed(&r, 1);
    json_t *a = gt_bot_choice(&g->base, 0, "greedy", &r);
    json_t *want = json_pack("{s:s, s:s, s:i}", "type", "play", "card", "plus", "cell", 55);
    json_t *alt = json_pack("{s:s, s:s, s:i}", "type", "play", "card", "plus", "cell", 50);
    assert_true(json_equal(a, want) || json_equal(a, alt));
    json_decref(a);
    json_decref(want);
    json_decref(alt);
    /* Nothing of its own to complete: block the opponent's four, or remove one. */
    seqnum_put_chip(g, 54, SEQNUM_NO_CHIP);
    seqnum_put_chip(g, 53, SEQNUM_NO_CHIP);
    hand(g, 0, "plus minus 2+0 2+1 3+1");
    a = gt_bot_choice(&g->base, 0, "greedy", &r);
    int cell = (int)json_integer_value(json_object_get(a, "cell"));
    const char *card = json_string_value(json_object_get(a, "card"));
    assert_true((strcmp(card, "plus") == 0 && (cell == 70 || cell == 75)) ||
                (strcmp(card, "minus") == 0 && cell >= 71 && cell <= 74));
    json_decref(a);
    game_free(&g->base);
}

TEST_MAIN(cmocka_unit_test(board_holds_each_number_twice_never_adjacent),
          cmocka_unit_test(deck_follows_the_documented_rule),
          cmocka_unit_test(five_players_and_bad_team_counts_are_refused),
          cmocka_unit_test(deal_gives_five_to_two_or_three_and_four_to_teams),
          cmocka_unit_test(teams_are_seated_alternately),
          cmocka_unit_test(equation_card_takes_a_free_cell_showing_its_answer),
          cmocka_unit_test(plus_takes_any_free_cell_but_a_corner),
          cmocka_unit_test(minus_removes_an_unlocked_opponent_chip_and_ends_the_turn),
          cmocka_unit_test(minus_cannot_touch_a_finished_sequence),
          cmocka_unit_test(minus_removes_a_third_teams_chip),
          cmocka_unit_test(cell_freed_by_minus_is_not_retaken_the_same_turn),
          cmocka_unit_test(pass_only_when_no_card_can_be_played),
          cmocka_unit_test(inline_args_form_is_accepted),
          cmocka_unit_test(sequences_in_four_directions_without_corners),
          cmocka_unit_test(sequences_with_a_free_corner_need_four_chips),
          cmocka_unit_test(broken_or_short_lines_are_no_sequence),
          cmocka_unit_test(teams_need_two_sequences_sharing_at_most_one_chip),
          cmocka_unit_test(second_sequence_may_reuse_the_corner_of_the_first),
          cmocka_unit_test(several_teams_use_one_corner),
          cmocka_unit_test(one_chip_can_complete_two_sequences_at_once),
          cmocka_unit_test(dead_card_is_traded_once_per_turn_before_playing),
          cmocka_unit_test(draw_follows_a_play_once),
          cmocka_unit_test(draw_lapses_once_the_next_player_has_played_and_drawn),
          cmocka_unit_test(playing_again_without_drawing_loses_the_draw),
          cmocka_unit_test(empty_draw_pile_is_rebuilt_from_every_discard_pile),
          cmocka_unit_test(game_is_a_draw_after_max_turns),
          cmocka_unit_test(game_is_a_draw_when_nobody_holds_a_card),
          cmocka_unit_test(hands_stay_hidden_over_random_games),
          cmocka_unit_test(greedy_bot_beats_random_play),
          cmocka_unit_test(greedy_bot_completes_a_sequence_and_blocks))
