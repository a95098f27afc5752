/* deal.c — the versioned rule a game's randomness comes from. See deal.h. */
#include "core/deal.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/game.h"

_Static_assert(DEAL_MAX_SEATS == GAME_MAX_SEATS, "a deal has a seed for every seat");

void deal_v0(game_deal_t *d, uint64_t seed)
{
    memset(d, 0, sizeof *d);
    d->version = 0;
    d->seed = seed;
}

void deal_v1(game_deal_t *d, const uint8_t server[32], const char *room)
{
    memset(d, 0, sizeof *d);
    d->version = 1;
    memcpy(d->server, server, sizeof d->server);
    snprintf(d->room, sizeof d->room, "%s", room);
}

void deal_commit(const uint8_t server[32], uint8_t out[32])
{
    crypto_generichash(out, 32, server, 32, NULL, 0);
}

static void put_u32(crypto_generichash_state *st, uint32_t x)
{
    uint8_t b[4] = {(uint8_t)x, (uint8_t)(x >> 8), (uint8_t)(x >> 16), (uint8_t)(x >> 24)};
    crypto_generichash_update(st, b, sizeof b);
}

static void put_lp(crypto_generichash_state *st, const char *s)
{
    size_t n = strlen(s);
    put_u32(st, (uint32_t)n);
    crypto_generichash_update(st, (const uint8_t *)s, n);
}

void deal_key(const game_deal_t *d, int seats, uint8_t out[32])
{
    crypto_generichash_state st;
    crypto_generichash_init(&st, d->server, sizeof d->server, 32);
    crypto_generichash_update(&st, (const uint8_t *)DEAL_LABEL, strlen(DEAL_LABEL));
    put_lp(&st, d->room);
    put_u32(&st, (uint32_t)seats);
    for (int i = 0; i < seats && i < DEAL_MAX_SEATS; i++)
        put_lp(&st, d->seeds[i]);
    crypto_generichash_final(&st, out, 32);
}

void deal_rng(const game_deal_t *d, int seats, rng_t *out)
{
    if (d->version == 0) {
        rng_seed(out, d->seed);
        return;
    }
    uint8_t key[32];
    deal_key(d, seats, key);
    rng_seed_chacha(out, key);
}

void deal_hex(const uint8_t in[32], char out[DEAL_HEX_LEN + 1])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[DEAL_HEX_LEN] = '\0';
}

static int nibble(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int deal_unhex(const char *hex, uint8_t out[32])
{
    if (!hex || strlen(hex) != DEAL_HEX_LEN) return -1;
    for (int i = 0; i < 32; i++) {
        int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

json_t *deal_json(const game_deal_t *d, int seats, bool reveal)
{
    char hex[DEAL_HEX_LEN + 1];
    uint8_t commit[32];
    deal_commit(d->server, commit);
    deal_hex(commit, hex);
    json_t *o = json_pack("{s:i, s:s}", "version", d->version, "commit", hex);
    if (!o) return NULL;
    bool ok = true;
    if (reveal) {
        deal_hex(d->server, hex);
        ok = json_object_set_new(o, "server_seed", json_string(hex)) == 0;
    }
    if (ok && seats > 0) {
        json_t *a = json_array();
        ok = json_object_set_new(o, "seeds", a) == 0;
        for (int i = 0; ok && i < seats && i < DEAL_MAX_SEATS; i++)
            ok = json_array_append_new(a, json_string(d->seeds[i])) == 0;
    }
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int deal_from_record(const json_t *record, game_deal_t *out, char *why, size_t whylen)
{
    const json_t *deal = json_object_get(record, "deal");
    if (!deal) {
        const char *seed = json_string_value(json_object_get(record, "seed"));
        char *end = NULL;
        unsigned long long v = seed ? strtoull(seed, &end, 10) : 0;
        if (!seed || !*seed || *end) {
            snprintf(why, whylen, "the record has no deal and no seed");
            return -1;
        }
        deal_v0(out, (uint64_t)v);
        return 0;
    }
    json_int_t version = json_integer_value(json_object_get(deal, "version"));
    const char *room = json_string_value(json_object_get(record, "id"));
    const char *server = json_string_value(json_object_get(deal, "server_seed"));
    const char *commit = json_string_value(json_object_get(deal, "commit"));
    uint8_t s[32], c[32], want[32];
    if (version != DEAL_VERSION) {
        snprintf(why, whylen, "deal.version is %lld, not %d", (long long)version, DEAL_VERSION);
        return -1;
    }
    if (!room || strlen(room) > DEAL_ROOM_MAX) {
        snprintf(why, whylen, "the record's id is not a room id");
        return -1;
    }
    if (deal_unhex(server, s) < 0) {
        snprintf(why, whylen, "deal.server_seed is not 64 hex digits");
        return -1;
    }
    if (deal_unhex(commit, c) < 0) {
        snprintf(why, whylen, "deal.commit is not 64 hex digits");
        return -1;
    }
    deal_commit(s, want);
    if (memcmp(c, want, sizeof c) != 0) {
        char hex[DEAL_HEX_LEN + 1];
        deal_hex(want, hex);
        snprintf(why, whylen, "deal.commit %.64s is not BLAKE2b-256(server_seed) = %s", commit,
                 hex);
        return -1;
    }
    deal_v1(out, s, room);
    return 0;
}

const char *deal_seed_refusal(const char *text)
{
    if (!text) return "a seed is text";
    if (strlen(text) > DEAL_SEED_MAX) return "a seed is at most 64 bytes";
    for (const unsigned char *c = (const unsigned char *)text; *c; c++)
        if (*c < 0x20 || *c == 0x7f) return "a seed holds no control characters";
    return NULL;
}
