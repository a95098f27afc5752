/*
 * test_233_outputs.c — every output byte of 233 over many seeded games,
 * against a digest recorded before the game's hot path was made faster: a
 * change of speed must not change a byte.
 *
 * Games with varied seats and options are played by a seeded mix of moves:
 * the greedy bot's, a random legal action, or a random action from every
 * form the parser knows (most of them refused), by a random seat, at times
 * that advance by random steps (ticks settle the claims). After each move
 * the digest takes every seat's view and the spectator's as text (the
 * server's path: legal lists included), the answer to the move (its code
 * and message when refused), and now and then the views as trees and the
 * full dump. A failure prints the new digest: update DIGEST only for a
 * change of behaviour that is meant (and said in RULES.md or PROTOCOL.md).
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
#include "json/jw.h"

#include "tests/core/game_test.h"
#include "tests/lib/test_main.h"
#include "tests/lib/xorshift.h"

/* The digest of main's 653118b (before the hot path's rework). */
#define DIGEST 0xd893f557127f4f83ull

typedef struct digest {
    uint64_t h;
    long bytes, accepted, rounds, over; /* how much the games covered, printed */
} digest_t;

static void add(digest_t *d, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        d->h ^= b[i];
        d->h *= 0x100000001b3ull; /* FNV-1a */
    }
    d->bytes += (long)n;
}

static void add_str(digest_t *d, const char *s)
{
    add(d, s ? s : "(null)", strlen(s ? s : "(null)") + 1);
}

static void add_tree(digest_t *d, json_t *v)
{
    char *t = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
    add_str(d, t);
    free(t);
    json_decref(v);
}

/* Every view as the server writes it: text, legal list included. */
static void add_views(digest_t *d, const game_t *g)
{
    static char buf[1 << 16];
    for (int s = -1; s < g->seats; s++) {
        jw_t w;
        jw_text(&w, buf, sizeof buf);
        game_write_view(g, s, &w);
        assert_true(jw_ok(&w));
        add(d, buf, jw_len(&w));
    }
}

static const char *const card_names[] = {
    "Y1", "Y2", "Y3",  "Y4",   "Y5",     "Y6",     "Y7",      "Y8",    "B1",     "B2",     "B3",
    "B4", "B5", "B6",  "B7",   "B8",     "G1",     "G2",      "G3",    "G4",     "G5",     "G6",
    "G7", "G8", "red", "pink", "purple", "orange", "reverse", "joker", "gift+5", "gift-5", "stop",
};
enum { NAMES = sizeof card_names / sizeof card_names[0] };

/* A card a seat likely holds (from its view), or any card. */
static const char *some_card(uint64_t *r, const json_t *hand)
{
    size_t n = json_array_size(hand);
    if (n && xorshift_below(r, 4))
        return json_string_value(json_array_get(hand, xorshift_below(r, (unsigned)n)));
    return card_names[xorshift_below(r, NAMES)];
}

/* A random action of any form the parser knows, and a few it does not. */
static json_t *random_action(uint64_t *r, const game_t *g, int seat)
{
    json_t *v = game_view(g, seat), *hand = json_object_get(v, "hand");
    json_t *a = NULL;
    const char *c1 = some_card(r, hand), *c2 = some_card(r, hand), *c3 = some_card(r, hand);
    switch (xorshift_below(r, 14)) {
    case 0: a = json_pack("{s:s}", "type", "draw"); break;
    case 1: a = json_pack("{s:s}", "type", "declare"); break;
    case 2: a = json_pack("{s:s, s:s}", "type", "discard", "card", c1); break;
    case 3: a = json_pack("{s:s, s:s, s:b}", "type", "discard", "card", c1, "declare", 1); break;
    case 4: a = json_pack("{s:s, s:[s,s]}", "type", "claim", "cards", c1, c2); break;
    case 5: a = json_pack("{s:s, s:[s,s,s]}", "type", "claim", "cards", c1, c1, c3); break;
    case 6:
        a = json_pack("{s:s, s:b}", "type", xorshift_below(r, 2) ? "claim" : "take", "final", 1);
        break;
    case 7: a = json_pack("{s:s, s:[s,s]}", "type", "take", "cards", c1, c2); break;
    case 8: a = json_pack("{s:s}", "type", "take"); break;
    case 9: a = json_pack("{s:s, s:[s,s,s,s]}", "type", "lay", "cards", c1, c1, c1, c2); break;
    case 10:
        a = json_pack("{s:s, s:i}", "type", "gift", "to", (int)xorshift_below(r, 7) - 1);
        break;
    case 11: a = json_pack("{s:s, s:[s,s]}", "type", "discard", "args", c1, "declare"); break;
    case 12:
        a = json_pack("{s:s, s:[s]}", "type", "claim", "args", xorshift_below(r, 2) ? "final" : c2);
        break;
    default:
        a = json_pack("{s:s, s:s}", "type", xorshift_below(r, 2) ? "pass" : "discard", "cards", c1);
        break;
    }
    json_decref(v);
    return a;
}

/* One game: its moves and outputs into d. */
static void play(digest_t *d, int seats, const char *opts, uint64_t seed, int moves)
{
    game_t *g = gt_table(&g233_desc, seats, opts, seed);
    uint64_t r = seed * 0x9E3779B97F4A7C15ull + 1;
    rng_t bot;
    rng_seed(&bot, seed);
    int64_t now = 0;
    add_views(d, g);
    for (int m = 0; m < moves && !game_is_over(g); m++) {
        now += xorshift_below(&r, 4) ? (int64_t)xorshift_below(&r, 120) : 400;
        if (xorshift_below(&r, 3) == 0) {
            bool t = game_tick(g, now);
            add(d, &t, sizeof t);
        }
        int seat = (int)xorshift_below(&r, (unsigned)seats);
        unsigned waiting = game_waiting(g);
        if (waiting && xorshift_below(&r, 2)) /* mostly someone the table waits for */
            while (!(waiting & (1u << seat)))
                seat = (seat + 1) % seats;
        json_t *a = NULL;
        unsigned how = xorshift_below(&r, 8);
        if (how < 4) {
            a = gt_bot_choice(g, seat, "greedy", &bot);
        } else if (how < 7) {
            json_t *legal = game_legal(g, seat);
            size_t n = json_array_size(legal);
            if (n) a = json_incref(json_array_get(legal, xorshift_below(&r, (unsigned)n)));
            json_decref(legal);
        }
        if (!a) a = random_action(&r, g, seat);
        add_tree(d, json_incref(a));
        game_error_t err = {0};
        int rc = game_apply(g, seat, a, now, &err);
        json_decref(a);
        add(d, &rc, sizeof rc);
        d->accepted += rc == 0;
        if (rc) {
            add_str(d, err.code);
            add_str(d, err.message);
        }
        add_views(d, g);
        if (m % 16 == 0) {
            add_tree(d, game_view(g, seat));
            add_tree(d, game_dump(g));
        }
    }
    add_tree(d, game_dump(g));
    d->rounds += ((const g233_t *)g)->round;
    d->over += game_is_over(g);
    if (game_is_over(g)) add_tree(d, game_result(g));
    game_free(g);
}

static void outputs_match_the_recorded_digest(void **state)
{
    (void)state;
    static const struct {
        int seats;
        const char *opts;
    } tables[] = {
        {2, "{\"target\": 120}"},
        {2, "{\"target\": 80, \"declare\": \"may\"}"},
        {3, "{\"target\": 80, \"take\": \"draw\"}"},
        {4, "{\"target\": 60, \"claim_sequences\": true}"},
        {5, "{\"target\": 60, \"dispute_ms\": 0, \"max_rebuilds\": 0}"},
        {6,
         "{\"target\": 50, \"declare\": \"may\", \"take\": \"draw\", \"claim_sequences\": true}"},
        {2, NULL},
    };
    digest_t d = {.h = 0xcbf29ce484222325ull};
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        for (uint64_t seed = 1; seed <= 12; seed++)
            play(&d, tables[t].seats, tables[t].opts, 1000 * t + seed, 1500);
    print_message("233 outputs: digest 0x%016llxull over %ld bytes: %ld moves accepted, %ld "
                  "rounds, %ld games over\n",
                  (unsigned long long)d.h, d.bytes, d.accepted, d.rounds, d.over);
    assert_int_equal(d.h, DIGEST);
}

TEST_MAIN(cmocka_unit_test(outputs_match_the_recorded_digest))
