/*
 * test_rating.c — the Weng–Lin Plackett–Luce update of core/rating.h.
 *
 * The known answers are those of issue 27 (OpenSkill's own test vectors):
 * two teams of two with τ = 0, and four new players ranked 1 to 4 with the
 * default τ. The properties hold for every game: the order in which sides
 * are listed does not matter, only the order of the ranks does, equal
 * players who tie keep their μ, a winner gains and a last loses, and bad
 * input changes nothing.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/rating.h"
#include "core/rng.h"
#include "tests/lib/test_main.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static void assert_near(double got, double want, double eps)
{
    if (fabs(got - want) > eps) fail_msg("got %.9f, want %.9f (within %g)", got, want, eps);
}

/* ------------------------------------------------------------------------ */
/* Known answers                                                            */
/* ------------------------------------------------------------------------ */

/* Updates r as one game of sides of `size` ranked `rank`, and checks each {μ, σ}. */
static void assert_update_gives(const rating_params_t *p, int n_teams, const int *size,
                                const int *rank, rating_t *r, const double (*want)[2], int n,
                                double eps)
{
    assert_int_equal(rating_update(p, n_teams, size, rank, r), 0);
    for (int j = 0; j < n; j++) {
        assert_near(r[j].mu, want[j][0], eps);
        assert_near(r[j].sigma, want[j][1], eps);
    }
}

static void two_teams_of_two_match_the_known_answer(void **state)
{
    (void)state;
    rating_params_t p = rating_default_params;
    p.tau = 0;
    rating_t r[] = {{25, 25.0 / 3}, {32.444, 5.123}, {43.381, 2.421}, {25.188, 6.211}};
    int size[] = {2, 2}, rank[] = {1, 2};
    static const double want[][2] = {
        {28.669648, 8.071521}, {33.830870, 5.062773}, {43.071275, 2.416690}, {23.149503, 6.137861}};
    assert_update_gives(&p, 2, size, rank, r, want, 4, 1e-5);
}

static void four_new_players_ranked_match_the_known_answer(void **state)
{
    (void)state;
    rating_t r[4];
    for (int j = 0; j < 4; j++)
        r[j] = rating_new();
    int size[] = {1, 1, 1, 1}, rank[] = {1, 2, 3, 4};
    static const double want[][2] = {
        {27.7953, 8.2636}, {26.5529, 8.1796}, {24.6894, 8.0841}, {20.9624, 8.0841}};
    assert_update_gives(NULL, 4, size, rank, r, want, 4, 1e-4);
}

static void a_new_player_is_shown_zero(void **state)
{
    (void)state;
    assert_near(rating_display(rating_new()), 0, 1e-12);
    assert_near(rating_display((rating_t){30, 2}), 24, 1e-12);
}

/* ------------------------------------------------------------------------ */
/* Properties                                                               */
/* ------------------------------------------------------------------------ */

/* A random game of 2 to 6 sides, 1 to 3 players a side, ranks with ties. */
typedef struct game {
    int n_teams, total;
    int size[6], rank[6];
    rating_t r[18];
} game_t;

static void random_game(rng_t *g, game_t *out)
{
    memset(out, 0, sizeof *out);
    out->n_teams = 2 + (int)rng_below(g, 5);
    for (int t = 0; t < out->n_teams; t++) {
        out->size[t] = 1 + (int)rng_below(g, 3);
        out->rank[t] = 1 + (int)rng_below(g, (uint32_t)out->n_teams);
        for (int k = 0; k < out->size[t]; k++, out->total++) {
            out->r[out->total].mu = 5 + rng_below(g, 40000) / 1000.0;
            out->r[out->total].sigma = 0.5 + rng_below(g, 8000) / 1000.0;
        }
    }
}

/* Where team t's first player sits in the flattened list. */
static int first_of(const game_t *gm, int t)
{
    int j = 0;
    for (int u = 0; u < t; u++)
        j += gm->size[u];
    return j;
}

/* Update the game's ratings (p: the defaults when NULL), which must succeed. */
static void rate(const rating_params_t *p, game_t *gm)
{
    assert_int_equal(rating_update(p, gm->n_teams, gm->size, gm->rank, gm->r), 0);
}

/* check(a) on 2000 random games drawn from seed. */
static void over_random_games(uint64_t seed, void (*check)(game_t *a))
{
    rng_t g;
    rng_seed(&g, seed);
    for (int n = 0; n < 2000; n++) {
        game_t a;
        random_game(&g, &a);
        check(&a);
    }
}

/* b: the same game with its sides listed in reverse; each player rated the same. */
static void reversed_sides_rate_the_same(game_t *a)
{
    game_t b = *a;
    b.total = 0;
    for (int t = 0; t < a->n_teams; t++) {
        int from = a->n_teams - 1 - t;
        b.size[t] = a->size[from];
        b.rank[t] = a->rank[from];
        memcpy(&b.r[b.total], &a->r[first_of(a, from)], sizeof(rating_t) * a->size[from]);
        b.total += a->size[from];
    }
    rate(NULL, a);
    rate(NULL, &b);
    for (int t = 0; t < a->n_teams; t++) {
        int ja = first_of(a, t), jb = first_of(&b, a->n_teams - 1 - t);
        for (int k = 0; k < a->size[t]; k++) {
            assert_near(a->r[ja + k].mu, b.r[jb + k].mu, 1e-9);
            assert_near(a->r[ja + k].sigma, b.r[jb + k].sigma, 1e-9);
        }
    }
}

static void the_order_of_the_sides_does_not_matter(void **state)
{
    (void)state;
    over_random_games(27, reversed_sides_rate_the_same);
}

/* b: the same game with other ranks in the same order; every rating the same. */
static void ranks_in_the_same_order_rate_the_same(game_t *a)
{
    game_t b = *a;
    for (int t = 0; t < b.n_teams; t++)
        b.rank[t] = b.rank[t] * 10 - 1000;
    rate(NULL, a);
    rate(NULL, &b);
    assert_memory_equal(a->r, b.r, sizeof(rating_t) * a->total);
}

static void only_the_order_of_the_ranks_matters(void **state)
{
    (void)state;
    over_random_games(28, ranks_in_the_same_order_rate_the_same);
}

static void equal_players_who_tie_keep_their_mu(void **state)
{
    (void)state;
    for (int n = 2; n <= 6; n++) {
        rating_t r[6];
        int size[6], rank[6];
        for (int t = 0; t < n; t++) {
            r[t] = (rating_t){31.5, 4.25};
            size[t] = 1;
            rank[t] = 1;
        }
        assert_int_equal(rating_update(NULL, n, size, rank, r), 0);
        for (int t = 0; t < n; t++) {
            assert_near(r[t].mu, 31.5, 1e-9);
            assert_near(r[t].sigma, r[0].sigma, 1e-12);
            assert_true(r[t].sigma < 4.25); /* the game taught the server something */
        }
    }
}

static void a_tie_sits_between_a_win_and_a_loss(void **state)
{
    (void)state;
    rating_t win[2] = {rating_new(), {28, 5}}, tie[2] = {rating_new(), {28, 5}},
             loss[2] = {rating_new(), {28, 5}};
    int size[] = {1, 1};
    assert_int_equal(rating_update(NULL, 2, size, (int[]){1, 2}, win), 0);
    assert_int_equal(rating_update(NULL, 2, size, (int[]){1, 1}, tie), 0);
    assert_int_equal(rating_update(NULL, 2, size, (int[]){2, 1}, loss), 0);
    assert_true(win[0].mu > tie[0].mu && tie[0].mu > loss[0].mu);
    assert_true(win[1].mu < tie[1].mu && tie[1].mu < loss[1].mu);
    /* The weaker side gains by a tie, the stronger loses. */
    assert_true(tie[0].mu > RATING_MU && tie[1].mu < 28);
}

/* With strict places and no drift (tau 0): the first side gains, the last
   loses, and no sigma grows. */
static void first_gains_last_loses(game_t *a)
{
    rating_params_t p = rating_default_params;
    p.tau = 0;
    for (int t = 0; t < a->n_teams; t++)
        a->rank[t] = t + 1; /* strict places */
    game_t before = *a;
    rate(&p, a);
    int last = first_of(a, a->n_teams - 1);
    for (int k = 0; k < a->size[0]; k++)
        assert_true(a->r[k].mu > before.r[k].mu);
    for (int k = 0; k < a->size[a->n_teams - 1]; k++)
        assert_true(a->r[last + k].mu < before.r[last + k].mu);
    for (int j = 0; j < a->total; j++) {
        assert_true(a->r[j].sigma <= before.r[j].sigma);
        assert_true(a->r[j].sigma > 0);
    }
}

static void the_first_gains_and_the_last_loses(void **state)
{
    (void)state;
    over_random_games(29, first_gains_last_loses);
}

static void ratings_far_apart_stay_finite(void **state)
{
    (void)state;
    rating_t r[] = {{100000, 1}, {-100000, 1}, {0, 25}};
    int size[] = {1, 1, 1}, rank[] = {3, 1, 2};
    assert_int_equal(rating_update(NULL, 3, size, rank, r), 0);
    for (size_t j = 0; j < ARRAY_LEN(r); j++)
        assert_true(isfinite(r[j].mu) && isfinite(r[j].sigma) && r[j].sigma > 0);
    assert_true(r[1].mu > -100000 && r[0].mu < 100000);
}

static void bad_input_changes_nothing(void **state)
{
    (void)state;
    const rating_t fresh[3] = {{25, 8}, {26, 7}, {27, 6}};
    rating_t r[3];
    int one[] = {1, 1, 1}, rank[] = {1, 2, 3};
    struct {
        int n_teams;
        int size[3];
        rating_t bad; /* replaces r[1] when its sigma is not 0 */
    } cases[] = {
        {1, {1, 1, 1}, {0, 0}},   /* one side */
        {0, {1, 1, 1}, {0, 0}},   /* none */
        {3, {1, 0, 1}, {0, 0}},   /* an empty side */
        {3, {1, -4, 1}, {0, 0}},  /* a negative side */
        {3, {1, 1, 1}, {25, -1}}, /* a negative σ */
        {3, {1, 1, 1}, {NAN, 5}}, /* μ not a number */
        {3, {1, 1, 1}, {25, INFINITY}}, {RATING_MAX_TEAMS + 1, {1, 1, 1}, {0, 0}},
    };
    for (size_t c = 0; c < ARRAY_LEN(cases); c++) {
        memcpy(r, fresh, sizeof r);
        if (cases[c].bad.sigma != 0 || cases[c].bad.mu != 0) r[1] = cases[c].bad;
        rating_t before[3];
        memcpy(before, r, sizeof r);
        assert_int_equal(rating_update(NULL, cases[c].n_teams, cases[c].size, rank, r), -1);
        assert_memory_equal(r, before, sizeof r);
    }
    memcpy(r, fresh, sizeof r);
    assert_int_equal(rating_update(NULL, 3, NULL, rank, r), -1);
    assert_int_equal(rating_update(NULL, 3, one, NULL, r), -1);
    rating_params_t p = rating_default_params;
    p.beta = 0;
    assert_int_equal(rating_update(&p, 3, one, rank, r), -1);
    assert_memory_equal(r, fresh, sizeof r);
    /* More players than the update takes. */
    rating_t many[RATING_MAX_PLAYERS + 1];
    for (int j = 0; j <= RATING_MAX_PLAYERS; j++)
        many[j] = rating_new();
    int big[] = {RATING_MAX_PLAYERS, 1};
    assert_int_equal(rating_update(NULL, 2, big, (int[]){1, 2}, many), -1);
}

TEST_MAIN(cmocka_unit_test(two_teams_of_two_match_the_known_answer),
          cmocka_unit_test(four_new_players_ranked_match_the_known_answer),
          cmocka_unit_test(a_new_player_is_shown_zero),
          cmocka_unit_test(the_order_of_the_sides_does_not_matter),
          cmocka_unit_test(only_the_order_of_the_ranks_matters),
          cmocka_unit_test(equal_players_who_tie_keep_their_mu),
          cmocka_unit_test(a_tie_sits_between_a_win_and_a_loss),
          cmocka_unit_test(the_first_gains_and_the_last_loses),
          cmocka_unit_test(ratings_far_apart_stay_finite),
          cmocka_unit_test(bad_input_changes_nothing))
