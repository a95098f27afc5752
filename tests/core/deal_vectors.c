/*
 * deal_vectors — the test vectors of docs/FAIRNESS.md, computed by core/
 * (core/deal.c, core/rng.c): for each case its inputs (server seed, room,
 * seats' seeds), the commitment, the key, the first 64 bytes of keystream
 * and the first deck of each game (the Fisher–Yates shuffle of its fresh
 * deck, the game's first use of the stream). One JSON object on stdout;
 * tests/clients/test_fairness.py checks that clients/examples/verify.py
 * computes the same, and that docs/FAIRNESS.md shows it.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "core/233/cards.h"
#include "core/aspoint3/aspoint3.h"
#include "core/deal.h"
#include "core/seqnum/seqnum.h"
#include "core/slap/slap.h"

/* The fresh deck of each game, in the order its create() builds it. */
static int fresh(const char *game, uint8_t *deck)
{
    int n = 0;
    if (strcmp(game, "233") == 0) {
        for (int c = 0; c < G233_KINDS; c++)
            for (int i = 0; i < g233_card_copies((g233_card_t)c); i++)
                deck[n++] = (uint8_t)c;
    } else if (strcmp(game, "aspoint3") == 0) {
        for (int c = 0; c < AP3_DECK; c++)
            deck[n++] = (uint8_t)c;
    } else if (strcmp(game, "seqnum") == 0) {
        for (int k = 0; k < SEQNUM_KINDS; k++)
            for (int i = 0; i < seqnum_copies(k); i++)
                deck[n++] = (uint8_t)k;
    } else {
        for (int i = 0; i < SLAP_DECK; i++)
            deck[n++] = (uint8_t)(i % SLAP_KINDS);
    }
    return n;
}

static json_t *bytes_json(const uint8_t *b, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(b[i]));
    return a;
}

static json_t *one(const uint8_t server[32], const char *room, int seats, const char *const *seeds)
{
    game_deal_t d;
    deal_v1(&d, server, room);
    for (int i = 0; i < seats; i++)
        snprintf(d.seeds[i], sizeof d.seeds[i], "%s", seeds[i]);
    uint8_t commit[32], key[32], stream[64];
    char hex[DEAL_HEX_LEN + 1], shex[129];
    deal_commit(server, commit);
    deal_key(&d, seats, key);
    rng_t r;
    rng_seed_chacha(&r, key);
    for (int i = 0; i < 64; i += 8) {
        uint64_t w = rng_next(&r);
        for (int k = 0; k < 8; k++)
            stream[i + k] = (uint8_t)(w >> (8 * k));
    }
    for (int i = 0; i < 64; i++)
        snprintf(&shex[2 * i], 3, "%02x", stream[i]);
    json_t *o = json_object(), *s = json_array(), *decks = json_object(), *fr = json_object();
    deal_hex(server, hex);
    json_object_set_new(o, "server_seed", json_string(hex));
    json_object_set_new(o, "room", json_string(room));
    for (int i = 0; i < seats; i++)
        json_array_append_new(s, json_string(seeds[i]));
    json_object_set_new(o, "seeds", s);
    deal_hex(commit, hex);
    json_object_set_new(o, "commit", json_string(hex));
    deal_hex(key, hex);
    json_object_set_new(o, "key", json_string(hex));
    json_object_set_new(o, "stream", json_string(shex));
    static const char *const games[] = {"233", "aspoint3", "seqnum", "slap"};
    for (int g = 0; g < 4; g++) {
        uint8_t deck[256];
        int n = fresh(games[g], deck);
        json_object_set_new(fr, games[g], bytes_json(deck, n));
        rng_seed_chacha(&r, key);
        rng_shuffle_u8(&r, deck, n);
        json_object_set_new(decks, games[g], bytes_json(deck, n));
    }
    json_object_set_new(o, "fresh", fr);
    json_object_set_new(o, "first_decks", decks);
    return o;
}

int main(void)
{
    uint8_t a[32], b[32];
    for (int i = 0; i < 32; i++) {
        a[i] = (uint8_t)i;
        b[i] = (uint8_t)(0xff - 7 * i);
    }
    static const char *const none[] = {"", ""};
    static const char *const four[] = {"alice", "", "graine \xc3\xa0 moi", "4"};
    json_t *v = json_array();
    json_array_append_new(v, one(a, "1", 2, none));
    json_array_append_new(v, one(b, "pq3x7hkd2mzr9", 4, four));
    json_t *out = json_pack("{s:s, s:o}", "version", DEAL_LABEL, "vectors", v);
    json_dumpf(out, stdout, JSON_COMPACT);
    putchar('\n');
    json_decref(out);
    return 0;
}
