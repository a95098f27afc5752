/*
 * test_slap_rules.c — one test per rule of slap (core/slap/RULES.md), on
 * hand-built states with an injected clock: the table is created with a fixed
 * seed, its clock started by tick(0) (the go is then due at go_ms), columns,
 * piles and draw piles are set with the test constructors of slap.h, and the
 * rule is exercised through the public apply()/tick() with JSON actions and
 * explicit `now` values (same millisecond, one apart...).
 *
 * About 1100 lines, on purpose: one test per rule (33) sharing one set of
 * hand-building and checking helpers (freeze, columns, seat0_finishes,
 * stack_is, events_are, result_is); split in two files, the helpers would be
 * duplicated.
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

#include "tests/core/game_test.h"

#include "core/slap/slap.h"
#include "tests/lib/test_main.h"
#include "tests/lib/sanitized.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                              */
/* ------------------------------------------------------------------ */

/* A table whose clock started at 0: the go is due at go_ms. */
static slap_t *table(int seats, const char *opts)
{
    game_t *g = gt_table(&slap_desc, seats, opts, 42);
    assert_int_equal(game_next_deadline(g), 0);
    assert_true(game_tick(g, 0));
    audit_ok((slap_t *)g);
    return (slap_t *)g;
}

/* A table after its go. */
static slap_t *playing(int seats, const char *opts)
{
    slap_t *g = table(seats, opts);
    assert_true(game_tick(&g->base, g->go_ms));
    assert_int_equal(g->phase, SLAP_PLAY);
    return g;
}

static void pile(slap_t *g, int k, const char *names)
{
    assert_int_equal(slap_set_pile(g, k, names), 0);
}

static void draw(slap_t *g, int seat, const char *names)
{
    assert_int_equal(slap_set_draw(g, seat, names), 0);
}

static int card(const char *name)
{
    int c = slap_card_parse(name);
    assert_true(c >= 0);
    return c;
}

static int top_of_pile(slap_t *g, int k)
{
    return g->pile[k].n ? g->pile[k].cards[g->pile[k].n - 1] : -1;
}

/*
 * Nobody can act: every pile topped by an 11 (nothing is higher, and 11 is
 * odd), every column's top face up, no column empty. Then refresh the stall.
 */
static void freeze(slap_t *g)
{
    static const char *const elevens[] = {"R11", "G11", "B11", "Y11", "R11", "G11"};
    for (int k = 0; k < g->base.seats; k++)
        pile(g, k, elevens[k]);
    for (int s = 0; s < g->base.seats; s++)
        for (int c = 0; c < SLAP_COLUMNS; c++)
            if (g->p[s].col[c].n) g->p[s].col[c].up = true;
    slap_refresh(g);
    audit_ok(g);
}

/* Seat s's four columns: the named cards (one column each), "" for empty. */
static void columns(slap_t *g, int s, const char *c0, const char *c1, const char *c2,
                    const char *c3)
{
    const char *names[SLAP_COLUMNS] = {c0, c1, c2, c3};
    for (int c = 0; c < SLAP_COLUMNS; c++)
        assert_int_equal(slap_set_column(g, s, c, names[c], true), 0);
    slap_refresh(g);
    audit_ok(g);
}

/*
 * What a test lays out on a frozen table, as names (NULL: left as it is):
 * piles[k] is pile k's cards, columns[s] seat s's four columns ("" for an
 * empty one), draws[s] seat s's draw pile. Piles first, then the columns,
 * then the draw piles.
 */
typedef struct {
    const char *piles[SLAP_MAX_SEATS];
    const char *columns[SLAP_MAX_SEATS][SLAP_COLUMNS];
    const char *draws[SLAP_MAX_SEATS];
} layout_t;

/* A table of `seats` after its go where nobody can act (freeze()), laid out as l says. */
static slap_t *frozen(int seats, const char *opts, const layout_t *l)
{
    slap_t *g = playing(seats, opts);
    freeze(g);
    for (int k = 0; k < seats; k++)
        if (l->piles[k]) pile(g, k, l->piles[k]);
    for (int s = 0; s < seats; s++)
        if (l->columns[s][0]) {
            const char *const *c = l->columns[s];
            columns(g, s, c[0], c[1], c[2], c[3]);
        }
    for (int s = 0; s < seats; s++)
        if (l->draws[s]) draw(g, s, l->draws[s]);
    slap_refresh(g);
    audit_ok(g);
    return g;
}

/* A frozen table of `seats`, pile 1 topped by G2, seat 0's columns c0..c3. */
static slap_t *on_g2(int seats, const char *c0, const char *c1, const char *c2, const char *c3)
{
    return frozen(seats, NULL, &(layout_t){.piles = {[1] = "G2"}, .columns = {{c0, c1, c2, c3}}});
}

/* Names, space-separated, into `out` (room for max). Returns the count. */
static int cards_of(const char *names, slap_card_t *out, int max)
{
    char buf[512];
    int n = 0;
    snprintf(buf, sizeof buf, "%s", names);
    for (char *save, *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        assert_true(n < max);
        out[n++] = (slap_card_t)card(w);
    }
    return n;
}

static void names_of(const slap_card_t *cards, int n, char *out, size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < n && len < size; i++)
        len +=
            (size_t)snprintf(out + len, size - len, "%s%s", i ? " " : "", slap_card_name(cards[i]));
}

/*
 * All of seat s's cards, bottom first, as they were just before this round
 * was laid out: the draw pile, then the columns put back on top in the
 * reverse of the lay-out (col0's card was the top, col3's top card the
 * deepest laid). Only meaningful right after a lay-out.
 */
static int stack_before_lay_out(slap_t *g, int s, slap_card_t *out)
{
    assert_int_equal(g->phase, SLAP_SETUP);
    const slap_player_t *p = &g->p[s];
    int n = 0;
    for (int i = 0; i < p->ndraw; i++)
        out[n++] = p->draw[i];
    for (int c = SLAP_COLUMNS - 1; c >= 0; c--)
        for (int i = p->col[c].n - 1; i >= 0; i--)
            out[n++] = p->col[c].cards[i];
    return n;
}

/*
 * Seat s's cards before this round's lay-out were exactly `under` (names,
 * bottom first) with `above` (n_above cards, bottom first) on top of them.
 */
static void stack_is(slap_t *g, int s, const char *under, const slap_card_t *above, int n_above)
{
    slap_card_t want[SLAP_DECK], got[SLAP_DECK];
    int nw = cards_of(under, want, SLAP_DECK);
    assert_true(nw + n_above <= SLAP_DECK);
    for (int i = 0; i < n_above; i++)
        want[nw++] = above[i];
    int ng = stack_before_lay_out(g, s, got);
    if (ng != nw || memcmp(want, got, (size_t)nw) != 0) {
        static char w[SLAP_DECK * 4], h[SLAP_DECK * 4];
        names_of(want, nw, w, sizeof w);
        names_of(got, ng, h, sizeof h);
        fail_msg("seat %d, bottom first:\n  want %s\n  got  %s", s, w, h);
    }
}

/* Print what was wanted and what came, compact, to the test's output. */
static void show_both(const char *what, const json_t *want, const json_t *got)
{
    char *a = json_dumps(want, JSON_COMPACT), *b = json_dumps(got, JSON_COMPACT);
    print_error("%s:\n  want %s\n  got  %s\n", what, a, b);
    free(a);
    free(b);
}

/* The table's whole event list equals `want` (JSON text); both are printed if not. */
static void events_are(slap_t *g, const char *want)
{
    json_t *w = json_loads(want, 0, NULL);
    assert_non_null(w);
    bool same = json_equal(gt_log(&g->events), w);
    if (!same) show_both("events", w, gt_log(&g->events));
    json_decref(w);
    if (!same) fail();
}

/* The game is over with exactly these winners and card counts (JSON arrays as text). */
static void result_is(slap_t *g, const char *winners, const char *cards, int rounds)
{
    assert_true(game_is_over(&g->base));
    json_t *r = game_result(&g->base);
    json_t *want = json_pack("{s:o, s:o, s:i}", "winners", json_loads(winners, 0, NULL), "cards",
                             json_loads(cards, 0, NULL), "rounds", rounds);
    bool same = json_equal(r, want);
    if (!same) show_both("result", want, r);
    json_decref(want);
    json_decref(r);
    if (!same) fail();
}

/* ------------------------------------------------------------------ */
/* Cards and the deal                                                   */
/* ------------------------------------------------------------------ */

static void deck_has_132_cards_four_colours_eleven_values_three_copies(void **state)
{
    (void)state;
    assert_int_equal(SLAP_DECK, 132);
    for (int c = 0; c < SLAP_KINDS; c++) {
        assert_int_equal(slap_card_parse(slap_card_name((slap_card_t)c)), c);
        assert_true(slap_value((slap_card_t)c) >= 1 && slap_value((slap_card_t)c) <= 11);
    }
    assert_int_equal(slap_card_parse("y11"), card("Y11"));
    static const char *const bad[] = {"R12", "R0", "R01", "Q3", "R", "", "R1x", "G+1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(slap_card_parse(bad[i]), -1);
}

static void cards_are_dealt_evenly_leftovers_out_of_play(void **state)
{
    (void)state;
    for (int seats = 2; seats <= 6; seats++) {
        slap_t *g = table(seats, NULL);
        assert_int_equal(g->nout, 132 % seats);
        for (int s = 0; s < seats; s++) {
            assert_int_equal(slap_cards_held(g, s), 132 / seats);
            for (int c = 0; c < SLAP_COLUMNS; c++) {
                assert_int_equal(g->p[s].col[c].n, c + 1); /* columns of 1, 2, 3, 4 */
                assert_true(g->p[s].col[c].up);            /* top face up */
            }
            assert_int_equal(g->pile[s].n, 0);
        }
        game_free(&g->base);
    }
}

static void table_sizes_outside_two_to_six_and_bad_options_are_refused(void **state)
{
    (void)state;
    gt_new_refused(&slap_desc, 1, NULL, "bad_players");
    gt_new_refused(&slap_desc, 7, NULL, "bad_players");
    const char *bad[] = {"{\"go_ms\":-1}", "{\"stall_ms\":60001}", "{\"max_rounds\":0}",
                         "{\"max_stalls\":-3}", "{\"rounds\":3}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        gt_new_refused(&slap_desc, 3, bad[i], "bad_option");
}

static void go_comes_go_ms_after_the_set_up_and_turns_up_one_card_per_pile(void **state)
{
    (void)state;
    slap_t *g = table(4, "{\"go_ms\":800}");
    assert_int_equal(g->phase, SLAP_SETUP);
    assert_int_equal(game_next_deadline(&g->base), 800);
    assert_int_equal(slap_desc.waiting(&g->base), 0);
    assert_int_equal(legal_count(g, 0), 0);
    refused(g, 0, "{\"type\":\"turn\",\"column\":3}", 500, "too_early");
    int next[4];
    for (int s = 0; s < 4; s++)
        next[s] = g->p[s].draw[g->p[s].ndraw - 1];
    assert_false(game_tick(&g->base, 799));
    assert_true(game_tick(&g->base, 800));
    assert_int_equal(g->phase, SLAP_PLAY);
    for (int s = 0; s < 4; s++) {
        assert_int_equal(g->pile[s].n, 1);
        assert_int_equal(top_of_pile(g, s), next[s]); /* each player's next draw card */
    }
    game_free(&g->base);
}

static void an_action_before_the_first_tick_starts_the_clock(void **state)
{
    (void)state;
    game_error_t err = {0};
    slap_t *g = (slap_t *)game_new(&slap_desc, 2, NULL, 7, &err);
    /* Deadlines due are settled first: the clock starts, then the turn is refused. */
    assert_string_equal(act(g, 1, "{\"type\":\"turn\",\"column\":0}", 5000), "too_early");
    assert_int_equal(game_next_deadline(&g->base), 6000);
    refused(g, 1, "{\"type\":\"turn\",\"column\":0}", 5001, "too_early");
    game_free(&g->base);
}

/* ------------------------------------------------------------------ */
/* Playing                                                              */
/* ------------------------------------------------------------------ */

static void card_goes_on_higher_of_another_colour_or_odd_on_even_of_its_own(void **state)
{
    (void)state;
    static const struct {
        const char *card, *top;
        bool fits;
    } cases[] = {
        {"G5", "R4", true},   {"G4", "R4", false}, {"G3", "R4", false}, {"R5", "R4", true},
        {"R3", "R4", true},   {"R6", "R4", false}, {"R5", "R3", false}, {"R11", "R10", true},
        {"G1", "R11", false}, {"B2", "Y1", true},  {"Y1", "Y10", true}, {"Y10", "Y1", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_int_equal(
            slap_fits((slap_card_t)card(cases[i].card), (slap_card_t)card(cases[i].top)),
            cases[i].fits);

    slap_t *g = frozen(2, NULL,
                       &(layout_t){.piles = {[1] = "R4"},
                                   .columns = {{"G5", "R1 R6", "B1 B2 R3", "Y1 Y2 Y3 G4"}}});
    assert_true(legal_has(g, 0, "{\"type\":\"play\",\"column\":0,\"pile\":1}"));
    assert_true(legal_has(g, 0, "{\"type\":\"play\",\"column\":2,\"pile\":1}"));
    refused(g, 0, "{\"type\":\"play\",\"column\":1,\"pile\":1}", 1100, "cannot_play");
    refused(g, 0, "{\"type\":\"play\",\"column\":3,\"pile\":1}", 1100, "cannot_play");
    refused(g, 0, "{\"type\":\"play\",\"column\":0,\"pile\":0}", 1100, "cannot_play");
    OK(g, 0, "{\"type\":\"play\",\"column\":2,\"pile\":1}", 1100); /* odd on even, own colour */
    assert_int_equal(top_of_pile(g, 1), card("R3"));
    OK(g, 0, "{\"type\":\"play\",\"column\":0,\"pile\":1}", 1101); /* higher, another colour */
    assert_int_equal(top_of_pile(g, 1), card("G5"));
    game_free(&g->base);
}

static void any_player_plays_on_any_pile_own_included(void **state)
{
    (void)state;
    slap_t *g = frozen(3, NULL,
                       &(layout_t){.piles = {"B2", NULL, "Y2"},
                                   .columns = {{"R3", "G1 R9", "G2 G3 G9", "G4 G5 G6 B9"}}});
    assert_true(legal_has(g, 0, "{\"type\":\"play\",\"column\":0,\"pile\":0}"));
    assert_true(legal_has(g, 0, "{\"type\":\"play\",\"column\":0,\"pile\":2}"));
    OK(g, 0, "{\"type\":\"play\",\"column\":0,\"pile\":2}", 1200);
    game_free(&g->base);
}

static void next_card_of_a_column_is_turned_up_by_an_explicit_action(void **state)
{
    (void)state;
    slap_t *g = on_g2(2, "R9", "B5 R3", "B1 B2 B3", "Y1 Y2 Y3 Y4");
    OK(g, 0, "{\"type\":\"play\",\"column\":1,\"pile\":1}", 1100);
    assert_int_equal(g->p[0].col[1].n, 1);
    assert_false(g->p[0].col[1].up);
    refused(g, 0, "{\"type\":\"play\",\"column\":1,\"pile\":1}", 1101, "face_down");
    assert_true(legal_has(g, 0, "{\"type\":\"turn\",\"column\":1}"));
    assert_true(slap_desc.waiting(&g->base) & 1u);
    OK(g, 0, "{\"type\":\"turn\",\"column\":1}", 1102);
    assert_true(g->p[0].col[1].up);
    refused(g, 0, "{\"type\":\"turn\",\"column\":1}", 1103, "already_up");
    OK(g, 0, "{\"type\":\"play\",\"column\":1,\"pile\":1}", 1104); /* B5 on R3 */
    game_free(&g->base);
}

static void top_card_moves_into_an_empty_column_only_to_uncover_one(void **state)
{
    (void)state;
    slap_t *g = frozen(2, NULL, &(layout_t){.columns = {{"", "R9", "B1 B2 B9", "Y1 Y2 Y3 Y9"}}});
    assert_true(legal_has(g, 0, "{\"type\":\"move\",\"column\":3,\"to\":0}"));
    refused(g, 0, "{\"type\":\"move\",\"column\":1,\"to\":0}", 1100, "pointless_move");
    refused(g, 0, "{\"type\":\"move\",\"column\":3,\"to\":2}", 1100, "column_not_empty");
    refused(g, 0, "{\"type\":\"move\",\"column\":3,\"to\":3}", 1100, "same_column");
    refused(g, 0, "{\"type\":\"move\",\"column\":0,\"to\":3}", 1100, "empty_column");
    OK(g, 0, "{\"type\":\"move\",\"column\":3,\"to\":0}", 1100);
    assert_int_equal(g->p[0].col[0].n, 1);
    assert_true(g->p[0].col[0].up);
    assert_int_equal(g->p[0].col[0].cards[0], card("Y9"));
    assert_int_equal(g->p[0].col[3].n, 3);
    assert_false(g->p[0].col[3].up);
    refused(g, 0, "{\"type\":\"move\",\"column\":3,\"to\":0}", 1101, "face_down");
    game_free(&g->base);
}

static void inline_args_form_is_accepted(void **state)
{
    (void)state;
    slap_t *g = on_g2(3, "R3", "B1 G9", "B2 B3 B9", "Y1 Y2 Y4 Y9");
    refused(g, 0, "{\"type\":\"play\",\"args\":[0]}", 1100, "bad_action");
    refused(g, 0, "{\"type\":\"play\",\"args\":[0,1],\"pile\":1}", 1100, "bad_action");
    refused(g, 0, "{\"type\":\"play\",\"column\":\"0\",\"pile\":1}", 1100, "bad_action");
    refused(g, 0, "{\"type\":\"play\",\"column\":4,\"pile\":1}", 1100, "no_such_column");
    refused(g, 0, "{\"type\":\"play\",\"column\":0,\"pile\":3}", 1100, "no_such_pile");
    refused(g, 0, "{\"type\":\"play\",\"column\":0,\"pile\":9}", 1100, "no_such_pile");
    refused(g, 0, "{\"type\":\"play\",\"column\":0,\"pile\":1,\"card\":\"R3\"}", 1100,
            "bad_action");
    refused(g, 0, "{\"type\":\"fly\"}", 1100, "unknown_action");
    refused(g, -1, "{\"type\":\"play\",\"column\":0,\"pile\":1}", 1100, "not_seated");
    OK(g, 0, "{\"type\":\"play\",\"args\":[0,1]}", 1100);
    OK(g, 0, "{\"type\":\"play\",\"args\":[1,1]}", 1101);
    OK(g, 0, "{\"type\":\"turn\",\"args\":[1]}", 1102);
    game_free(&g->base);
}

/* ------------------------------------------------------------------ */
/* Races on one pile                                                    */
/* ------------------------------------------------------------------ */

/* Three seats, pile 0 topped by R4 on which seat 1's G5 fits; seat 2's columns c0..c3. */
static slap_t *on_r4(const char *c0, const char *c1, const char *c2, const char *c3)
{
    return frozen(
        3, NULL,
        &(layout_t){
            .piles = {"R4"},
            .columns = {[1] = {"G5", "B1 R9", "B2 B3 B9", "Y1 Y2 Y4 Y9"}, [2] = {c0, c1, c2, c3}}});
}

static void plays_on_one_pile_in_the_same_ms_first_applied_wins_second_too_late(void **state)
{
    (void)state;
    slap_t *g = on_r4("G7", "B1 G9", "B5 B6 B9", "Y3 Y5 Y6 R9");
    assert_true(legal_has(g, 1, "{\"type\":\"play\",\"column\":0,\"pile\":0}"));
    assert_true(legal_has(g, 2, "{\"type\":\"play\",\"column\":0,\"pile\":0}"));
    /* Both sent within the same millisecond: the server applies them in
     * timestamp order, so the first applied covers R4 with G5 ... */
    OK(g, 1, "{\"type\":\"play\",\"column\":0,\"pile\":0}", 1500);
    /* ... and G7, which went on R4, does not go on G5 (odd on odd). */
    refused(g, 2, "{\"type\":\"play\",\"column\":0,\"pile\":0}", 1500, "too_late");
    assert_false(legal_has(g, 2, "{\"type\":\"play\",\"column\":0,\"pile\":0}"));
    assert_int_equal(top_of_pile(g, 0), card("G5"));
    assert_int_equal(g->pile[0].n, 2);
    game_free(&g->base);
}

static void later_play_that_still_fits_goes_on_top_one_that_never_fitted_cannot(void **state)
{
    (void)state;
    slap_t *g = on_r4("B6", "R2", "B5 B7 B9", "Y3 Y5 Y6 R9");
    OK(g, 1, "{\"type\":\"play\",\"column\":0,\"pile\":0}", 1500);
    refused(g, 2, "{\"type\":\"play\",\"column\":1,\"pile\":0}", 1500, "cannot_play");
    OK(g, 2, "{\"type\":\"play\",\"column\":0,\"pile\":0}", 1500);
    assert_int_equal(top_of_pile(g, 0), card("B6"));
    game_free(&g->base);
}

/* ------------------------------------------------------------------ */
/* Stalls: nobody can play                                              */
/* ------------------------------------------------------------------ */

static void no_move_deal_turns_one_card_from_each_draw_pile_onto_the_next_pile(void **state)
{
    (void)state;
    slap_t *g = frozen(3, NULL, &(layout_t){0}); /* stall_ms 1500 */
    assert_int_equal(slap_desc.waiting(&g->base), 0);
    assert_int_equal(game_next_deadline(&g->base), 1000 + 1500);
    int next[3], before[3];
    for (int s = 0; s < 3; s++) {
        next[s] = g->p[s].draw[g->p[s].ndraw - 1];
        before[s] = g->p[s].ndraw;
    }
    assert_false(game_tick(&g->base, 2499));
    assert_true(game_tick(&g->base, 2500));
    assert_int_equal(g->stalls, 1);
    for (int s = 0; s < 3; s++) {
        assert_int_equal(g->p[s].ndraw, before[s] - 1);
        assert_int_equal(top_of_pile(g, (s + 1) % 3), next[s]); /* a different pile */
        assert_int_equal(g->pile[s].n, 2);
    }
    game_free(&g->base);
}

static void no_move_deal_skips_a_player_without_draw_pile(void **state)
{
    (void)state;
    slap_t *g = frozen(3, NULL, &(layout_t){.draws = {[1] = ""}});
    assert_true(game_tick(&g->base, 2500));
    assert_int_equal(g->pile[2].n, 1); /* seat 1 had nothing to turn */
    assert_int_equal(g->pile[0].n, 2);
    assert_int_equal(g->pile[1].n, 2);
    game_free(&g->base);
}

static void no_stall_while_someone_can_act(void **state)
{
    (void)state;
    slap_t *g = frozen(2, NULL, &(layout_t){0});
    g->p[1].col[3].up = false;
    slap_refresh(g);
    assert_int_equal(game_next_deadline(&g->base), GAME_NO_DEADLINE);
    assert_int_equal(slap_desc.waiting(&g->base), 2u);
    OK(g, 1, "{\"type\":\"turn\",\"column\":3}", 4000);
    /* After the turn nobody can act (an 11 tops every pile): the pause starts now. */
    assert_int_equal(slap_desc.waiting(&g->base), 0);
    assert_int_equal(game_next_deadline(&g->base), 4000 + 1500);
    game_free(&g->base);
}

/*
 * The round ended blocked at 2500 (no stall counted, nobody slapped, nothing
 * boxed, every pile back) and the next one is laid out, its go due 1 s later.
 */
static void blocked_and_laid_out_again(slap_t *g)
{
    assert_int_equal(g->round, 2);
    assert_int_equal(g->phase, SLAP_SETUP);
    assert_int_equal(g->stalls, 0);
    assert_int_equal(g->first, -1);
    assert_int_equal(game_next_deadline(&g->base), 2500 + 1000);
    assert_int_equal(g->nbox, 0);
    for (int k = 0; k < g->base.seats; k++) {
        assert_int_equal(g->pile[k].n, 0);
        assert_int_equal(g->pile[k].taken_by, -1);
        assert_int_equal(g->p[k].slapped, -1);
    }
}

static void round_ends_blocked_after_max_stalls_piles_back_to_their_owners(void **state)
{
    (void)state;
    slap_t *g = frozen(2, "{\"max_stalls\":0}", &(layout_t){0});
    int held[2];
    for (int s = 0; s < 2; s++)
        held[s] = slap_cards_held(g, s) + g->pile[s].n;
    assert_true(game_tick(&g->base, 2500));
    blocked_and_laid_out_again(g);
    for (int s = 0; s < 2; s++)
        assert_int_equal(slap_cards_held(g, s), held[s]);
    game_free(&g->base);
}

/*
 * Server rule 1, with interpretation 8's order: every pile has its own content
 * and size, every seat its own columns (one colour each), so a pile that went
 * to the wrong seat, on top instead of under, or unturned shows.
 */
static void round_ends_blocked_each_pile_goes_under_its_owners_draw_pile(void **state)
{
    (void)state;
    slap_t *g = frozen(4, "{\"max_stalls\":0}",
                       &(layout_t){.piles = {"B3 Y8 R11", "G11", "R2 Y5 B9 Y11", "G6 B11"},
                                   .columns = {{"R1", "R2 R3", "R4", "R5 R6 R7"},
                                               {"G1 G2", "G3", "G4 G5 G6", "G7"},
                                               {"B1", "B2", "B4 B5", "B6"},
                                               {"Y1 Y2 Y3", "Y4", "Y6", "Y7 Y9 Y10"}}});
    assert_int_equal(slap_desc.waiting(&g->base), 0);
    assert_int_equal(game_next_deadline(&g->base), 1000 + 1500);
    slap_card_t old_draw[4][SLAP_DECK];
    int old_n[4], held[4], nout = g->nout;
    for (int s = 0; s < 4; s++) {
        old_n[s] = g->p[s].ndraw;
        memcpy(old_draw[s], g->p[s].draw, (size_t)old_n[s]);
        held[s] = slap_cards_held(g, s);
    }
    assert_true(game_tick(&g->base, 2500));

    /* Blocked at once (max_stalls 0): no stall, nobody slapped, a new round. */
    blocked_and_laid_out_again(g);
    assert_int_equal(g->nout, nout);
    /* Pile K under seat K's draw pile, turned over (its top at the bottom),
     * then columns 0 to 3, each turned over and slid under it. */
    stack_is(g, 0, "R7 R6 R5 R4 R3 R2 R1 R11 Y8 B3", old_draw[0], old_n[0]);
    stack_is(g, 1, "G7 G6 G5 G4 G3 G2 G1 G11", old_draw[1], old_n[1]);
    stack_is(g, 2, "B6 B5 B4 B2 B1 Y11 B9 Y5 R2", old_draw[2], old_n[2]);
    stack_is(g, 3, "Y10 Y9 Y7 Y6 Y4 Y3 Y2 Y1 B11 G6", old_draw[3], old_n[3]);
    static const int pile_size[4] = {3, 1, 4, 2};
    char want[512];
    snprintf(want, sizeof want,
             "[{\"did\":\"deal\",\"round\":1}, {\"did\":\"go\",\"round\":1},"
             " {\"did\":\"round_end\",\"round\":1,\"blocked\":true,\"cards\":[%d,%d,%d,%d]},"
             " {\"did\":\"deal\",\"round\":2}]",
             held[0] + pile_size[0], held[1] + pile_size[1], held[2] + pile_size[2],
             held[3] + pile_size[3]);
    events_are(g, want);
    audit_ok(g);
    game_free(&g->base);
}

/*
 * No draw pile has a card when the stall is due: the round ends blocked
 * without a stall, everyone's pile and columns come back, and the next round
 * is laid out from them alone (interpretation 3: fewer than 11 cards).
 */
static void round_ends_blocked_when_no_draw_pile_has_a_card(void **state)
{
    (void)state;
    /* max_stalls 30: the empty draw piles block it */
    slap_t *g = frozen(3, NULL,
                       &(layout_t){.piles = {"G4 R11", "G11", "Y2 B7 B11"},
                                   .columns = {{"R1", "R2", "R3 R4", "R5"},
                                               {"G1 G2 G3", "G5", "G6", "G7 G8"},
                                               {"B1", "B2 B3", "B4", "B5 B6"}},
                                   .draws = {"", "", ""}});
    assert_int_equal(game_next_deadline(&g->base), 1000 + 1500);
    assert_false(game_tick(&g->base, 2499));
    assert_true(game_tick(&g->base, 2500));
    blocked_and_laid_out_again(g);
    /* 7, 8 and 9 cards: each seat exactly its own pile and columns. */
    stack_is(g, 0, "R5 R4 R3 R2 R1 R11 G4", NULL, 0);
    stack_is(g, 1, "G8 G7 G6 G5 G3 G2 G1 G11", NULL, 0);
    stack_is(g, 2, "B6 B5 B4 B3 B2 B1 B11 B7 Y2", NULL, 0);
    /* Laid out with one card kept for the go: 6 = 1 + 2 + 3, 7 = 1 + 2 + 3 + 1. */
    static const int sizes[3][SLAP_COLUMNS] = {{1, 2, 3, 0}, {1, 2, 3, 1}, {1, 2, 3, 2}};
    for (int s = 0; s < 3; s++) {
        assert_int_equal(g->p[s].ndraw, 1);
        for (int c = 0; c < SLAP_COLUMNS; c++)
            assert_int_equal(g->p[s].col[c].n, sizes[s][c]);
    }
    events_are(g, "[{\"did\":\"deal\",\"round\":1}, {\"did\":\"go\",\"round\":1},"
                  " {\"did\":\"round_end\",\"round\":1,\"blocked\":true,\"cards\":[7,8,9]},"
                  " {\"did\":\"deal\",\"round\":2}]");
    game_free(&g->base);
}

/* ------------------------------------------------------------------ */
/* The slap race                                                        */
/* ------------------------------------------------------------------ */

/* Seat 0 empties its columns by playing R3 on pile 1 (topped by G2) at `now`. */
static void seat0_finishes(slap_t *g, int64_t now)
{
    pile(g, 1, "G2");
    columns(g, 0, "R3", "", "", "");
    OK(g, 0, "{\"type\":\"play\",\"column\":0,\"pile\":1}", now);
}

/* A frozen table of `seats` where seat 0 emptied its columns at 1200: the race is on. */
static slap_t *racing(int seats)
{
    slap_t *g = frozen(seats, NULL, &(layout_t){0});
    seat0_finishes(g, 1200);
    return g;
}

/* The same, once seat 0 has slapped pile `boxed` at 1300 (out of the game). */
static slap_t *racing_after_the_box(int seats, int boxed)
{
    slap_t *g = racing(seats);
    char a[64];
    snprintf(a, sizeof a, "{\"type\":\"slap\",\"pile\":%d}", boxed);
    OK(g, 0, a, 1300);
    return g;
}

/*
 * Two racers for one pile: seat `winner` slaps `pile` at `at`; seat `loser`,
 * `gap` ms later, is refused it (taken) and slaps pile `other` `gap` ms after.
 */
typedef struct {
    int winner, loser, pile, other;
    int64_t at, gap;
} race_t;

static void race(slap_t *g, race_t r)
{
    char a[64], b[64];
    snprintf(a, sizeof a, "{\"type\":\"slap\",\"pile\":%d}", r.pile);
    snprintf(b, sizeof b, "{\"type\":\"slap\",\"pile\":%d}", r.other);
    OK(g, r.winner, a, r.at);
    refused(g, r.loser, a, r.at + r.gap, "pile_taken"); /* must slap another */
    assert_int_equal(g->pile[r.pile].taken_by, r.winner);
    OK(g, r.loser, b, r.at + 2 * r.gap);
}

static void first_with_empty_columns_slaps_a_pile_out_of_the_game(void **state)
{
    (void)state;
    slap_t *g = frozen(4, NULL, &(layout_t){0});
    refused(g, 0, "{\"type\":\"slap\",\"pile\":0}", 1100, "columns_not_empty");
    seat0_finishes(g, 1200);
    assert_true(legal_has(g, 0, "{\"type\":\"slap\",\"pile\":2}"));
    refused(g, 1, "{\"type\":\"slap\",\"pile\":2}", 1201, "columns_not_empty");
    int n2 = g->pile[2].n;
    OK(g, 0, "{\"type\":\"slap\",\"pile\":2}", 1300);
    assert_int_equal(g->phase, SLAP_RACE);
    assert_int_equal(g->first, 0);
    assert_int_equal(g->nbox, n2);
    assert_int_equal(g->pile[2].n, 0);
    refused(g, 0, "{\"type\":\"slap\",\"pile\":1}", 1301, "already_slapped");
    refused(g, 1, "{\"type\":\"slap\",\"pile\":2}", 1301, "pile_taken");
    refused(g, 1, "{\"type\":\"turn\",\"column\":0}", 1301, "round_over");
    assert_int_equal(slap_desc.waiting(&g->base), 0xeu);
    game_free(&g->base);
}

static void slap_race_tie_in_the_same_ms_first_applied_wins(void **state)
{
    (void)state;
    slap_t *g = racing_after_the_box(4, 2);
    race(g, (race_t){.winner = 2, .loser = 3, .pile = 0, .other = 1, .at = 1400, .gap = 0});
    /* The last player got the last pile: the round is over. */
    assert_int_equal(g->round, 2);
    game_free(&g->base);
}

static void slap_race_near_tie_one_ms_apart_goes_to_the_earlier(void **state)
{
    (void)state;
    slap_t *g = racing_after_the_box(5, 4);
    race(g, (race_t){.winner = 3, .loser = 1, .pile = 1, .other = 0, .at = 1350, .gap = 1});
    assert_int_equal(g->phase, SLAP_RACE); /* seats 2 and 4 still race for piles 2 and 3 */
    assert_int_equal(slap_desc.waiting(&g->base), (1u << 2) | (1u << 4));
    OK(g, 4, "{\"type\":\"slap\",\"pile\":3}", 1360);
    /* Seat 2 got the last pile automatically (the events tell it: the state is a new round). */
    json_t *want =
        json_pack("{s:i, s:s, s:i, s:i}", "seat", 2, "did", "last_pile", "pile", 2, "cards", 1);
    bool found = gt_json_in(gt_log(&g->events), want);
    json_decref(want);
    assert_true(found);
    assert_int_equal(g->round, 2);
    game_free(&g->base);
}

static void with_two_players_the_other_gets_the_last_pile_at_once(void **state)
{
    (void)state;
    slap_t *g = racing(2);
    int draw1 = g->p[1].ndraw, cols1 = slap_cards_held(g, 1) - draw1, pile1 = g->pile[1].n;
    int draw0 = g->p[0].ndraw;
    OK(g, 0, "{\"type\":\"slap\",\"pile\":0}", 1300);
    /* Seat 1 put pile 1 and its columns under its draw pile; a new round is laid out. */
    assert_int_equal(g->round, 2);
    assert_int_equal(slap_cards_held(g, 1), draw1 + cols1 + pile1);
    assert_int_equal(slap_cards_held(g, 0), draw0);
    assert_int_equal(g->phase, SLAP_SETUP);
    assert_int_equal(game_next_deadline(&g->base), 1300 + 1000);
    game_free(&g->base);
}

static void round_end_puts_the_pile_and_columns_under_the_draw_pile(void **state)
{
    (void)state;
    slap_t *g = racing(3);
    int draw2 = g->p[2].ndraw, cols2 = slap_cards_held(g, 2) - draw2, pile1 = g->pile[1].n;
    int old_top = g->p[2].draw[draw2 - 1];
    OK(g, 0, "{\"type\":\"slap\",\"pile\":0}", 1300);
    OK(g, 2, "{\"type\":\"slap\",\"pile\":1}", 1310);
    assert_int_equal(g->round, 2);
    assert_int_equal(slap_cards_held(g, 2), draw2 + cols2 + pile1);
    /* Under: the new columns come from the old top of the draw pile. */
    assert_int_equal(g->p[2].col[0].cards[0], old_top);
    game_free(&g->base);
}

/* ------------------------------------------------------------------ */
/* The end of the game                                                  */
/* ------------------------------------------------------------------ */

/*
 * A table of two where seat 0, left with `draw0` in its draw pile and R3 alone
 * in its columns, plays R3 on pile 1 (G2) at 1200 and slaps pile 0 at 1300.
 */
static slap_t *seat0_ends_the_round(const char *draw0)
{
    slap_t *g = frozen(
        2, NULL,
        &(layout_t){.piles = {[1] = "G2"}, .columns = {{"R3", "", "", ""}}, .draws = {draw0}});
    OK(g, 0, "{\"type\":\"play\",\"column\":0,\"pile\":1}", 1200);
    OK(g, 0, "{\"type\":\"slap\",\"pile\":0}", 1300);
    return g;
}

static void player_with_zero_or_one_card_at_round_end_wins(void **state)
{
    (void)state;
    slap_t *g = seat0_ends_the_round("G5");
    assert_true(game_is_over(&g->base));
    json_t *r = game_result(&g->base);
    assert_int_equal(json_array_size(json_object_get(r, "winners")), 1);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(r, "winners"), 0)), 0);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(r, "cards"), 0)), 1);
    json_decref(r);
    assert_int_equal(slap_desc.waiting(&g->base), 0);
    assert_int_equal(legal_count(g, 1), 0);
    refused(g, 1, "{\"type\":\"slap\",\"pile\":1}", 1400, "game_over");
    assert_null(game_default_action(&g->base, 0));
    assert_int_equal(game_next_deadline(&g->base), GAME_NO_DEADLINE);
    game_free(&g->base);
}

static void new_round_while_everyone_has_two_cards_or_more(void **state)
{
    (void)state;
    slap_t *g = seat0_ends_the_round("G5 G6");
    assert_false(game_is_over(&g->base));
    assert_int_equal(g->round, 2);
    /* Two cards: one column card and the go card. */
    assert_int_equal(g->p[0].col[0].n, 1);
    assert_int_equal(g->p[0].col[1].n, 0);
    assert_true(game_tick(&g->base, 2300));
    assert_int_equal(g->pile[0].n, 1);
    assert_int_equal(g->p[0].ndraw, 0);
    game_free(&g->base);
}

static void after_max_rounds_the_fewest_cards_win(void **state)
{
    (void)state;
    slap_t *g = playing(2, "{\"max_rounds\":1,\"max_stalls\":0}");
    draw(g, 1, "R1 R2");
    freeze(g);
    assert_true(game_tick(&g->base, 2500));
    assert_true(game_is_over(&g->base));
    gt_winners(&g->base, "[1]");
    game_free(&g->base);
}

/*
 * Interpretation 11: every player left with zero or one card wins, a 0-card
 * player and 1-card players alike. Only the first slapper can end a round
 * with nothing (every racer takes a pile, never empty), so the widest tie is
 * one 0-card player and 1-card racers.
 */
static void players_with_zero_and_one_card_at_round_end_win_together(void **state)
{
    (void)state;
    slap_t *g =
        frozen(4, NULL,
               &(layout_t){.piles = {"R4 R6 R11", [3] = "Y1 Y3 Y11"},
                           .columns = {{"", "", "", ""}, {"", "", "", ""}, {"", "", "", ""}},
                           .draws = {"", "", ""}});
    int held3 = slap_cards_held(g, 3);
    OK(g, 0, "{\"type\":\"slap\",\"pile\":0}", 1100); /* boxed: seat 0 keeps nothing */
    OK(g, 2, "{\"type\":\"slap\",\"pile\":2}", 1101); /* B11: one card */
    OK(g, 1, "{\"type\":\"slap\",\"pile\":1}", 1102); /* G11: one card; seat 3 gets pile 3 */
    char cards[64];
    snprintf(cards, sizeof cards, "[0,1,1,%d]", held3 + 3);
    result_is(g, "[0,1,2]", cards, 1);
    assert_int_equal(g->round, 1); /* no new round */
    json_t *v = game_view(&g->base, 3);
    assert_string_equal(json_string_value(json_object_get(v, "phase")), "over");
    json_decref(v);
    game_free(&g->base);
}

/* Two 1-card players share the win; the third, with two, does not. */
static void one_card_players_win_together_two_cards_do_not(void **state)
{
    (void)state;
    slap_t *g =
        frozen(3, NULL,
               &(layout_t){.columns = {{"", "", "", ""}, {"", "", "", ""}, {"Y3", "", "", ""}},
                           .draws = {"G5", "", ""}});
    OK(g, 0, "{\"type\":\"slap\",\"pile\":2}", 1100); /* boxed: seat 0 keeps G5 */
    OK(g, 1, "{\"type\":\"slap\",\"pile\":1}", 1101); /* G11; seat 2 gets pile 0 (R11) */
    result_is(g, "[0,1]", "[1,1,2]", 1);
    game_free(&g->base);
}

/* Server rule 2: on a tie for the fewest cards, all of them win. */
static void after_max_rounds_a_tie_on_the_fewest_cards_shares_the_win(void **state)
{
    (void)state;
    slap_t *g = frozen(3, "{\"max_rounds\":1,\"max_stalls\":0}",
                       &(layout_t){.draws = {"R1 R2", NULL, "B1 B2"}});
    int held1 = slap_cards_held(g, 1) + 1;
    assert_true(held1 > 13);
    assert_true(game_tick(&g->base, 2500));
    /* 2 drawn + 10 in columns + the pile's 11 back: 13 each for seats 0 and 2. */
    char cards[64];
    snprintf(cards, sizeof cards, "[13,%d,13]", held1);
    result_is(g, "[0,2]", cards, 1);
    game_free(&g->base);
}

/* ------------------------------------------------------------------ */
/* Views, bots, timers                                                  */
/* ------------------------------------------------------------------ */

/* Every card named outside the events is a face-up column top or a pile top. */
static void only_face_up_cards_named(slap_t *g, const json_t *view)
{
    bool up[SLAP_KINDS] = {0};
    for (int s = 0; s < g->base.seats; s++) {
        for (int c = 0; c < SLAP_COLUMNS; c++) {
            const slap_column_t *col = &g->p[s].col[c];
            if (col->n && col->up) up[col->cards[col->n - 1]] = true;
        }
        if (g->pile[s].n) up[top_of_pile(g, s)] = true;
    }
    json_t *strings = json_array();
    gt_strings(view, "events", strings);
    size_t i;
    json_t *v;
    json_array_foreach(strings, i, v)
    {
        int c = slap_card_parse(json_string_value(v));
        if (c >= 0 && !up[c]) fail_msg("view names %s, which is not face up", slap_card_name(c));
    }
    json_decref(strings);
}

static void face_down_cards_never_reach_anyone_over_random_games(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= SANITIZED_GAMES(60); seed++) {
        int seats = 2 + (int)(seed % 5);
        game_t *g = gt_table(&slap_desc, seats, NULL, seed);
        rng_t r;
        rng_seed(&r, seed);
        int64_t now = 0;
        for (int step = 0; step < 5000 && !game_is_over(g); step++) {
            if (game_next_deadline(g) <= now) game_tick(g, now);
            for (int s = GAME_SPECTATOR; s < seats; s++) {
                json_t *v = gt_view(g, s);
                only_face_up_cards_named((slap_t *)g, v);
                if (s >= 0) {
                    assert_int_equal(json_array_size(json_object_get(v, "hand")), 0);
                    /* waiting() is exactly the seats with something to play */
                    assert_int_equal(json_array_size(json_object_get(v, "legal")) > 0,
                                     (slap_desc.waiting(g) >> s) & 1);
                }
                if (step % 16 == 0)
                    gt_resample_keeps_view(g, s, seed * 1000 + (uint64_t)step, v, NULL);
                json_decref(v);
            }
            int s = (int)rng_below(&r, (uint32_t)seats);
            if (!gt_bot_plays(g, s, seed % 2 ? "random" : "greedy", &r, now) &&
                slap_desc.waiting(g) == 0) {
                now = game_next_deadline(g);
                continue;
            }
            now += rng_below(&r, 200);
        }
        assert_true(game_is_over(g));
        game_free(g);
    }
}

static void greedy_bot_slaps_the_smallest_free_pile_and_plays_before_turning(void **state)
{
    (void)state;
    slap_t *g = frozen(3, NULL, &(layout_t){.piles = {[2] = "R1 R2 G11"}});
    seat0_finishes(g, 1200); /* pile 1: G2 R3 */
    rng_t r;
    rng_seed(&r, 1);
    json_t *a = gt_bot_choice(&g->base, 0, "greedy", &r);
    assert_string_equal(json_string_value(json_object_get(a, "type")), "slap");
    assert_int_equal(json_integer_value(json_object_get(a, "pile")), 0); /* one card */
    json_t *d = game_default_action(&g->base, 0);
    assert_true(json_equal(a, d));
    json_decref(a);
    json_decref(d);

    slap_t *h = on_g2(2, "R9", "B1 R3", "B1 B2 B9", "Y1 Y2 Y3 Y9");
    h->p[0].col[3].up = false;
    slap_refresh(h);
    a = gt_bot_choice(&h->base, 0, "greedy", &r);
    assert_string_equal(json_string_value(json_object_get(a, "type")), "play");
    json_decref(a);
    game_free(&h->base);
    game_free(&g->base);
}

static void reaction_time_is_read_from_the_strategy_string_not_played(void **state)
{
    (void)state;
    assert_int_equal(slap_bot_reaction_ms("greedy:250"), 250);
    assert_int_equal(slap_bot_reaction_ms("random:0"), 0);
    assert_int_equal(slap_bot_reaction_ms("greedy"), -1);
    assert_int_equal(slap_bot_reaction_ms("greedy:fast"), -1);
    assert_int_equal(slap_bot_reaction_ms(NULL), -1);
    /* The bot is pure: the delay is the caller's; the choice is plain greedy's. */
    slap_t *g = playing(4, NULL);
    rng_t r1, r2;
    rng_seed(&r1, 3);
    rng_seed(&r2, 3);
    gt_json_same(gt_bot_choice(&g->base, 2, "greedy:250", &r1),
                 gt_bot_choice(&g->base, 2, "greedy", &r2));
    game_free(&g->base);
}

static void views_show_counts_for_face_down_cards_and_legal_for_the_seat(void **state)
{
    (void)state;
    slap_t *g = playing(3, NULL);
    for (int s = -1; s < 3; s++) {
        json_t *v = gt_view(&g->base, s);
        json_t *p = json_array_get(json_object_get(v, "players"), 1);
        assert_int_equal(json_integer_value(json_object_get(p, "draw")), g->p[1].ndraw);
        assert_int_equal(json_integer_value(json_array_get(json_object_get(p, "sizes"), 3)), 4);
        assert_string_equal(json_string_value(json_array_get(json_object_get(p, "tops"), 3)),
                            slap_card_name(g->p[1].col[3].cards[3]));
        json_decref(v);
    }
    game_free(&g->base);
}

TEST_MAIN(cmocka_unit_test(deck_has_132_cards_four_colours_eleven_values_three_copies),
          cmocka_unit_test(cards_are_dealt_evenly_leftovers_out_of_play),
          cmocka_unit_test(table_sizes_outside_two_to_six_and_bad_options_are_refused),
          cmocka_unit_test(go_comes_go_ms_after_the_set_up_and_turns_up_one_card_per_pile),
          cmocka_unit_test(an_action_before_the_first_tick_starts_the_clock),
          cmocka_unit_test(card_goes_on_higher_of_another_colour_or_odd_on_even_of_its_own),
          cmocka_unit_test(any_player_plays_on_any_pile_own_included),
          cmocka_unit_test(next_card_of_a_column_is_turned_up_by_an_explicit_action),
          cmocka_unit_test(top_card_moves_into_an_empty_column_only_to_uncover_one),
          cmocka_unit_test(inline_args_form_is_accepted),
          cmocka_unit_test(plays_on_one_pile_in_the_same_ms_first_applied_wins_second_too_late),
          cmocka_unit_test(later_play_that_still_fits_goes_on_top_one_that_never_fitted_cannot),
          cmocka_unit_test(no_move_deal_turns_one_card_from_each_draw_pile_onto_the_next_pile),
          cmocka_unit_test(no_move_deal_skips_a_player_without_draw_pile),
          cmocka_unit_test(no_stall_while_someone_can_act),
          cmocka_unit_test(round_ends_blocked_after_max_stalls_piles_back_to_their_owners),
          cmocka_unit_test(round_ends_blocked_each_pile_goes_under_its_owners_draw_pile),
          cmocka_unit_test(round_ends_blocked_when_no_draw_pile_has_a_card),
          cmocka_unit_test(first_with_empty_columns_slaps_a_pile_out_of_the_game),
          cmocka_unit_test(slap_race_tie_in_the_same_ms_first_applied_wins),
          cmocka_unit_test(slap_race_near_tie_one_ms_apart_goes_to_the_earlier),
          cmocka_unit_test(with_two_players_the_other_gets_the_last_pile_at_once),
          cmocka_unit_test(round_end_puts_the_pile_and_columns_under_the_draw_pile),
          cmocka_unit_test(player_with_zero_or_one_card_at_round_end_wins),
          cmocka_unit_test(new_round_while_everyone_has_two_cards_or_more),
          cmocka_unit_test(players_with_zero_and_one_card_at_round_end_win_together),
          cmocka_unit_test(one_card_players_win_together_two_cards_do_not),
          cmocka_unit_test(after_max_rounds_the_fewest_cards_win),
          cmocka_unit_test(after_max_rounds_a_tie_on_the_fewest_cards_shares_the_win),
          cmocka_unit_test(face_down_cards_never_reach_anyone_over_random_games),
          cmocka_unit_test(greedy_bot_slaps_the_smallest_free_pile_and_plays_before_turning),
          cmocka_unit_test(reaction_time_is_read_from_the_strategy_string_not_played),
          cmocka_unit_test(views_show_counts_for_face_down_cards_and_legal_for_the_seat))
