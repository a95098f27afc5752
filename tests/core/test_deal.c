/*
 * test_deal.c — the deal (core/deal.c, docs/FAIRNESS.md): the ChaCha20
 * generator is libsodium's keystream, the key is the keyed BLAKE2b of the
 * documented message, the unbiased draw, the deal's determinism, and the
 * journal's "seed" entries.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "core/deal.h"
#include "core/game.h"
#include "core/journal.h"
#include "tests/lib/test_main.h"

static void fill(uint8_t *b, int n, int mul, int add)
{
    for (int i = 0; i < n; i++)
        b[i] = (uint8_t)(mul * i + add);
}

static void the_stream_is_libsodiums_chacha20(void **state)
{
    (void)state;
    uint8_t key[32], want[512], got[512], nonce[8] = {0};
    fill(key, 32, 13, 5);
    crypto_stream_chacha20(want, sizeof want, nonce, key);
    rng_t r;
    rng_seed_chacha(&r, key);
    for (size_t i = 0; i < sizeof got; i += 8) { /* across several blocks */
        uint64_t w = rng_next(&r);
        for (int k = 0; k < 8; k++)
            got[i + k] = (uint8_t)(w >> (8 * k));
    }
    assert_memory_equal(got, want, sizeof want);
}

/* The key by hand: the message of docs/FAIRNESS.md written out byte by byte. */
static void the_key_is_the_keyed_blake2b_of_the_message(void **state)
{
    (void)state;
    uint8_t server[32];
    fill(server, 32, 1, 0);
    game_deal_t d;
    deal_v1(&d, server, "pq3x7");
    snprintf(d.seeds[0], sizeof d.seeds[0], "%s", "alice");
    snprintf(d.seeds[2], sizeof d.seeds[2], "%s", "zz");
    uint8_t msg[256];
    size_t n = 0;
    memcpy(msg, "tapis-deal-v1", 13);
    n = 13;
    const uint8_t tail[] = {5, 0,   0,   0,   'p', 'q', '3', 'x', '7', 3, 0, 0, 0, 5, 0,   0,
                            0, 'a', 'l', 'i', 'c', 'e', 0,   0,   0,   0, 2, 0, 0, 0, 'z', 'z'};
    memcpy(msg + n, tail, sizeof tail);
    n += sizeof tail;
    uint8_t want[32], got[32];
    crypto_generichash(want, 32, msg, n, server, 32);
    deal_key(&d, 3, got);
    assert_memory_equal(got, want, 32);
    /* The seats count: a fourth, empty seat is another key. */
    deal_key(&d, 4, got);
    assert_memory_not_equal(got, want, 32);
    /* The commitment is the unkeyed hash of the server seed. */
    crypto_generichash(want, 32, server, 32, NULL, 0);
    deal_commit(server, got);
    assert_memory_equal(got, want, 32);
}

static void hex_goes_both_ways(void **state)
{
    (void)state;
    uint8_t b[32], back[32];
    fill(b, 32, 37, 11);
    char hex[DEAL_HEX_LEN + 1];
    deal_hex(b, hex);
    assert_int_equal(strlen(hex), 64);
    assert_int_equal(deal_unhex(hex, back), 0);
    assert_memory_equal(b, back, 32);
    hex[0] = 'g';
    assert_int_equal(deal_unhex(hex, back), -1);
    assert_int_equal(deal_unhex("abcd", back), -1);
    assert_int_equal(deal_unhex(NULL, back), -1);
}

/* Words the rule rejects are skipped: below(n) is the next word < 2^32 - 2^32 % n, mod n. */
static void below_rejects_the_top_remainder(void **state)
{
    (void)state;
    uint8_t key[32], stream[4096], nonce[8] = {0};
    fill(key, 32, 3, 1);
    crypto_stream_chacha20(stream, sizeof stream, nonce, key);
    const uint32_t ns[] = {3, 7, 52, 100, 132, 140, 0x80000001u, 0xC0000000u};
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
        uint32_t n = ns[t];
        rng_t r;
        rng_seed_chacha(&r, key);
        size_t at = 0;
        for (int k = 0; k < 200; k++) {
            uint64_t limit = 0x100000000ULL - 0x100000000ULL % n;
            uint32_t u;
            do {
                u = (uint32_t)stream[at] | (uint32_t)stream[at + 1] << 8 |
                    (uint32_t)stream[at + 2] << 16 | (uint32_t)stream[at + 3] << 24;
                at += 4;
            } while (u >= limit);
            assert_int_equal(rng_below(&r, n), u % n);
        }
    }
}

static void a_seed_is_short_plain_text(void **state)
{
    (void)state;
    char s[DEAL_SEED_MAX + 2];
    memset(s, 'x', sizeof s - 1);
    s[sizeof s - 1] = '\0';
    assert_non_null(deal_seed_refusal(s));
    s[DEAL_SEED_MAX] = '\0';
    assert_null(deal_seed_refusal(s));
    assert_null(deal_seed_refusal(""));
    assert_null(deal_seed_refusal("caf\xc3\xa9 42"));
    assert_non_null(deal_seed_refusal("a\tb"));
    assert_non_null(deal_seed_refusal(NULL));
}

static char *dump(const game_t *g)
{
    json_t *d = game_dump(g);
    assert_non_null(d);
    char *t = json_dumps(d, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(d);
    return t;
}

/* Every game: the deal fixes the game; any seed, the server seed or the room changes it. */
static void the_deal_fixes_the_game(void **state)
{
    (void)state;
    int n;
    const game_desc_t *const *games = game_registry(&n);
    uint8_t server[32];
    fill(server, 32, 5, 9);
    for (int i = 0; i < n; i++) {
        const game_desc_t *d = games[i];
        int seats = d->min_seats;
        game_deal_t a;
        deal_v1(&a, server, "12");
        game_error_t err;
        game_t *g1 = game_new_dealt(d, seats, NULL, &a, &err),
               *g2 = game_new_dealt(d, seats, NULL, &a, &err);
        char *t1 = dump(g1), *t2 = dump(g2);
        assert_string_equal(t1, t2);
        game_deal_t b = a;
        snprintf(b.seeds[seats - 1], sizeof b.seeds[0], "%s", "mine");
        game_t *g3 = game_new_dealt(d, seats, NULL, &b, &err);
        char *t3 = dump(g3);
        assert_string_not_equal(t1, t3);
        game_deal_t c;
        deal_v1(&c, server, "13");
        game_t *g4 = game_new_dealt(d, seats, NULL, &c, &err);
        char *t4 = dump(g4);
        assert_string_not_equal(t1, t4);
        /* Version 0 is game_new(seed), as before deals were provable. */
        game_deal_t z;
        deal_v0(&z, 77);
        game_t *g5 = game_new_dealt(d, seats, NULL, &z, &err),
               *g6 = game_new(d, seats, NULL, 77, &err);
        char *t5 = dump(g5), *t6 = dump(g6);
        assert_string_equal(t5, t6);
        free(t1), free(t2), free(t3), free(t4), free(t5), free(t6);
        game_free(g1), game_free(g2), game_free(g3), game_free(g4), game_free(g5), game_free(g6);
    }
}

/* The journal's "seed" entries deal again; after the start, or in version 0, they are refused. */
static void seed_entries_deal_again(void **state)
{
    (void)state;
    const game_desc_t *d = game_find("slap");
    assert_non_null(d);
    uint8_t server[32];
    fill(server, 32, 7, 3);
    game_deal_t deal, want;
    deal_v1(&deal, server, "5");
    want = deal;
    snprintf(want.seeds[1], sizeof want.seeds[1], "%s", "bob");
    game_error_t err;
    game_t *g = game_new_dealt(d, 2, NULL, &want, &err);
    char *expect = dump(g);
    game_free(g);

    journal_replay_t jr;
    char why[300];
    assert_int_equal(journal_replay_start(&jr, d, 2, "{}", &deal, why, sizeof why), 0);
    assert_int_equal(
        journal_replay_entry(&jr, 1, "seed", 1, 0, "{\"seed\":\"bob\"}", why, sizeof why), 0);
    char *got = dump(jr.g);
    assert_string_equal(got, expect);
    assert_string_equal(jr.deal.seeds[1], "bob");
    assert_int_equal(jr.changes, 0); /* no state event */
    assert_int_equal(journal_replay_entry(&jr, 2, "start", -1, 0, NULL, why, sizeof why), 0);
    assert_int_equal(
        journal_replay_entry(&jr, 3, "seed", 0, 0, "{\"seed\":\"late\"}", why, sizeof why), -1);
    assert_string_equal(jr.error.code, JOURNAL_E_BAD_ENTRY);
    assert_non_null(strstr(why, "the game has started"));
    journal_replay_abandon(&jr);

    assert_int_equal(journal_replay_start(&jr, d, 2, "{}", &deal, why, sizeof why), 0);
    assert_int_equal(
        journal_replay_entry(&jr, 1, "seed", 2, 0, "{\"seed\":\"x\"}", why, sizeof why), -1);
    assert_non_null(strstr(why, "no such seat"));
    journal_replay_abandon(&jr);
    assert_int_equal(journal_replay_start(&jr, d, 2, "{}", &deal, why, sizeof why), 0);
    assert_int_equal(journal_replay_entry(&jr, 1, "seed", 0, 0, "{\"seed\":1}", why, sizeof why),
                     -1);
    journal_replay_abandon(&jr);

    game_deal_t old;
    deal_v0(&old, 3);
    assert_int_equal(journal_replay_start(&jr, d, 2, "{}", &old, why, sizeof why), 0);
    assert_int_equal(
        journal_replay_entry(&jr, 1, "seed", 0, 0, "{\"seed\":\"a\"}", why, sizeof why), -1);
    assert_non_null(strstr(why, "version 0"));
    journal_replay_abandon(&jr);

    game_deal_t future = deal;
    future.version = 2;
    assert_int_equal(journal_replay_start(&jr, d, 2, "{}", &future, why, sizeof why), -1);
    assert_string_equal(jr.error.code, JOURNAL_E_BAD_DEAL);
    free(expect);
    free(got);
}

static void a_record_gives_its_deal(void **state)
{
    (void)state;
    uint8_t server[32], commit[32];
    fill(server, 32, 11, 2);
    deal_commit(server, commit);
    char s[65], c[65], why[300];
    deal_hex(server, s);
    deal_hex(commit, c);
    json_t *rec = json_pack("{s:s, s:s, s:{s:i, s:s, s:s}}", "id", "9", "seed", "0", "deal",
                            "version", 1, "server_seed", s, "commit", c);
    game_deal_t d;
    assert_int_equal(deal_from_record(rec, &d, why, sizeof why), 0);
    assert_int_equal(d.version, 1);
    assert_string_equal(d.room, "9");
    assert_memory_equal(d.server, server, 32);
    json_t *j = deal_json(&d, 2, true);
    assert_string_equal(json_string_value(json_object_get(j, "commit")), c);
    assert_string_equal(json_string_value(json_object_get(j, "server_seed")), s);
    assert_int_equal(json_array_size(json_object_get(j, "seeds")), 2);
    json_decref(j);
    j = deal_json(&d, 0, false);
    assert_null(json_object_get(j, "server_seed"));
    assert_null(json_object_get(j, "seeds"));
    json_decref(j);
    /* A server seed that is not the committed one. */
    s[0] = s[0] == '0' ? '1' : '0';
    json_object_set_new(json_object_get(rec, "deal"), "server_seed", json_string(s));
    assert_int_equal(deal_from_record(rec, &d, why, sizeof why), -1);
    assert_non_null(strstr(why, "is not BLAKE2b-256(server_seed)"));
    /* No deal: version 0 and the seed. */
    json_object_del(rec, "deal");
    json_object_set_new(rec, "seed", json_string("12345"));
    assert_int_equal(deal_from_record(rec, &d, why, sizeof why), 0);
    assert_int_equal(d.version, 0);
    assert_int_equal(d.seed, 12345);
    json_object_set_new(rec, "seed", json_string("12x"));
    assert_int_equal(deal_from_record(rec, &d, why, sizeof why), -1);
    json_decref(rec);
}

TEST_MAIN(cmocka_unit_test(the_stream_is_libsodiums_chacha20),
          cmocka_unit_test(the_key_is_the_keyed_blake2b_of_the_message),
          cmocka_unit_test(hex_goes_both_ways), cmocka_unit_test(below_rejects_the_top_remainder),
          cmocka_unit_test(a_seed_is_short_plain_text), cmocka_unit_test(the_deal_fixes_the_game),
          cmocka_unit_test(seed_entries_deal_again), cmocka_unit_test(a_record_gives_its_deal))
