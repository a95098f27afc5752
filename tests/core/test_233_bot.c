/*
 * test_233_bot.c — the 233 bot strategy, a pure function of one view: it
 * declares as soon as it can, claims discards that complete a meld, lays
 * squares, gives -5 gifts (drawn or dealt) to the leader, discards what helps least, and only
 * ever returns one of the view's legal actions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/233/g233.h"

#include "tests/core/game_test.h"
#include "tests/lib/test_main.h"
#include "tests/lib/sanitized.h"

/* A table with a plain deal (the first such seed from 7 up): hands start clean. */
static g233_t *table(int seats)
{
    return gt_233_plain_table(seats, "{\"dispute_ms\":0}", 7);
}

/* What the greedy bot plays for `seat`, as compact JSON text (caller frees). */
static char *bot_says(g233_t *g, int seat)
{
    rng_t r;
    rng_seed(&r, 1);
    json_t *a = gt_bot_choice(&g->base, seat, "greedy", &r);
    char *s = a ? json_dumps(a, JSON_COMPACT | JSON_SORT_KEYS) : strdup("null");
    json_decref(a);
    return s;
}

/* The bot playing for `seat` answers `want` (JSON text; "null": nothing); `what` names the case. */
static void expect(g233_t *g, int seat, const char *want, const char *what)
{
    char *got = bot_says(g, seat);
    json_t *w = json_loads(want, JSON_DECODE_ANY, NULL);
    char *ws = json_dumps(w, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    if (strcmp(got, ws) != 0) fail_msg("%s: the bot plays %s, not %s", what, got, ws);
    free(got);
    free(ws);
    json_decref(w);
}

static void apply(g233_t *g, int seat, const char *action)
{
    game_error_t err = {0};
    json_t *a = json_loads(action, 0, NULL);
    if (game_apply(&g->base, seat, a, 0, &err)) fail_msg("%s: %s", action, err.message);
    json_decref(a);
}

/*
 * A position and the greedy bot's move in it (`what` it shows): a plain table
 * of `seats` with the scores and the hands given (NULL: as dealt); seat 0
 * draws `drawn` (put on the draw pile; NULL: no draw) and discards `discarded`
 * (NULL: not yet); the bot playing for `seat` must answer `want`.
 */
typedef struct {
    const char *what;
    int seats;
    int scores[G233_MAX_SEATS];
    const char *hands[G233_MAX_SEATS];
    const char *drawn, *discarded;
    int seat;
    const char *want;
} position_t;

static g233_t *set_up(const position_t *p)
{
    g233_t *g = table(p->seats);
    for (int s = 0; s < p->seats; s++) {
        g->p[s].score += p->scores[s];
        if (p->hands[s]) assert_int_equal(g233_give_hand(g, s, p->hands[s]), 0);
    }
    if (p->drawn) {
        assert_int_equal(g233_stack_draw(g, p->drawn), 0);
        apply(g, 0, "{\"type\":\"draw\"}");
    }
    if (p->discarded) {
        char a[64];
        snprintf(a, sizeof a, "{\"type\":\"discard\",\"card\":\"%s\"}", p->discarded);
        apply(g, 0, a);
    }
    return g;
}

static void bot_answers(const position_t *p)
{
    g233_t *g = set_up(p);
    expect(g, p->seat, p->want, p->what);
    game_free(&g->base);
}

/* A catalogue of positions, one behaviour of the bot each. */
static const position_t positions[] = {
    {"declares as soon as it can", .seats = 3, .hands = {"red red Y1 Y2 Y3 B5 B5 B5"},
     .want = "{\"type\":\"declare\"}"},
    {"declares after its draw", .seats = 3, .hands = {"red Y1 Y2 Y3 B5 B5 B5 G8"}, .drawn = "red",
     .want = "{\"type\":\"discard\",\"card\":\"G8\",\"declare\":true}"},
    {"claims a discard that makes a triple", .seats = 4,
     .hands = {"Y1 Y5 B2 B7 G3 G8 red pink", NULL, "G6 G6 B1 B4 Y4 Y7 orange purple"},
     .drawn = "G6", .discarded = "G6", .seat = 2,
     .want = "{\"type\":\"claim\",\"cards\":[\"G6\",\"G6\"]}"},
    {"lays a square", .seats = 3, .hands = {"G2 G2 G2 B7 G3 G8 red pink"}, .drawn = "G2",
     .want = "{\"type\":\"lay\",\"cards\":[\"G2\",\"G2\",\"G2\",\"G2\"]}"},
    {"gives a drawn -5 to the leader", .seats = 4, .scores = {0, 30, 120, 60}, .drawn = "gift-5",
     .want = "{\"type\":\"gift\",\"to\":2}"},
    /* Two sequences, a symbol double, a triple in the making, one loner. */
    {"keeps its groups and discards the loner", .seats = 3, .hands = {"Y1 Y2 Y3 B4 B5 B6 red red"},
     .drawn = "G8", .want = "{\"type\":\"discard\",\"card\":\"G8\",\"declare\":true}"},
    {"gives a dealt -5 to the leader", .seats = 4, .scores = {90, 30, 0, 60},
     .hands = {NULL, NULL, "Y1 Y5 B2 B7 G3 G8 red pink gift-5"}, .seat = 2,
     .want = "{\"type\":\"gift\",\"to\":0}"},
    {"the dealer waits for a dealt -5 to be given", .seats = 4, .scores = {90, 30, 0, 60},
     .hands = {NULL, NULL, "Y1 Y5 B2 B7 G3 G8 red pink gift-5"}, .want = "null"},
};

static void bot_answers_each_position_of_the_catalogue(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof positions / sizeof positions[0]; i++)
        bot_answers(&positions[i]);
}

static void bot_never_breaks_a_sequence_or_a_double(void **state)
{
    (void)state;
    g233_t *g =
        set_up(&(position_t){.seats = 3, .hands = {"Y1 Y2 Y3 B4 B5 G1 red red"}, .drawn = "G8"});
    char *got = bot_says(g, 0);
    assert_null(strstr(got, "\"Y1\""));
    assert_null(strstr(got, "\"Y2\""));
    assert_null(strstr(got, "\"red\""));
    free(got);
    game_free(&g->base);
}

static void bot_picks_only_legal_actions_over_random_games(void **state)
{
    (void)state;
    const char *strategies[] = {"greedy", "random"};
    for (int k = 0; k < 2; k++)
        for (uint64_t seed = 1; seed <= SANITIZED_GAMES(20); seed++) {
            /* Odd seeds with declare=may, which the conformance suite (strings
             * at their default) does not draw. */
            game_error_t err;
            json_t *o = json_pack("{s:s}", "declare", seed % 2 ? "may" : "must");
            game_t *g = game_new(&g233_desc, 2 + (int)(seed % 5), o, seed, &err);
            json_decref(o);
            assert_non_null(g);
            rng_t r;
            rng_seed(&r, seed);
            int64_t now = 0;
            for (int step = 0; step < 3000 && !game_is_over(g); step++) {
                now += 250;
                game_tick(g, now);
                gt_bot_plays(g, __builtin_ctz(g233_desc.waiting(g)), strategies[k], &r, now);
            }
            game_free(g);
        }
}

TEST_MAIN(cmocka_unit_test(bot_answers_each_position_of_the_catalogue),
          cmocka_unit_test(bot_never_breaks_a_sequence_or_a_double),
          cmocka_unit_test(bot_picks_only_legal_actions_over_random_games))
