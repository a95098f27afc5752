/*
 * deal.h — where a game's randomness comes from: the deal, versioned
 * (docs/FAIRNESS.md gives the rule exactly, with test vectors).
 *
 * Version 0 (games recorded before deals were provable): the game's
 * generator is xoshiro256** seeded with the record's 64-bit `seed`.
 *
 * Version 1, "tapis-deal-v1": the server draws a 32-byte server seed and
 * publishes its commitment, BLAKE2b-256(server seed) (unkeyed), before the
 * deal; each seat may add a seed of its own (0 to DEAL_SEED_MAX bytes of
 * text; absent is empty). The game's key is
 *
 *   key = BLAKE2b-256(key = server seed,
 *                     message = "tapis-deal-v1" || lp(room id) || u32(seats)
 *                               || lp(seed of seat 0) || ... || lp(seed of seat n-1))
 *
 * where u32(x) is x as 4 bytes little-endian and lp(s) is u32(length of s)
 * followed by the bytes of s; every shuffle of the game then reads the
 * ChaCha20 keystream under that key (core/rng.h, RNG_CHACHA), in order.
 *
 * Pure functions of their inputs (libsodium's BLAKE2b and ChaCha20, never
 * its random source): the server draws the server seed itself.
 */
#ifndef TAPIS_CORE_DEAL_H
#define TAPIS_CORE_DEAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/rng.h"

#define DEAL_VERSION 1             /* the version new games are dealt by */
#define DEAL_SEED_MAX 64           /* a player's seed: at most this many bytes */
#define DEAL_ROOM_MAX 32           /* a room id: at most this many bytes */
#define DEAL_MAX_SEATS 8           /* = GAME_MAX_SEATS (checked in deal.c) */
#define DEAL_HEX_LEN 64            /* 32 bytes as hex */
#define DEAL_LABEL "tapis-deal-v1" /* the derivation's label, version 1 */

typedef struct game_deal {
    int version;        /* 0 or 1 */
    uint64_t seed;      /* version 0: the generator's seed */
    uint8_t server[32]; /* version 1: the server seed (secret until the game is over) */
    char room[DEAL_ROOM_MAX + 1];
    char seeds[DEAL_MAX_SEATS][DEAL_SEED_MAX + 1]; /* version 1: each seat's seed, "" if none */
} game_deal_t;

/* A deal of version 0 from a 64-bit seed (what tests and old records give). */
void deal_v0(game_deal_t *d, uint64_t seed);
/* A deal of version 1: server seed, room id (truncated past DEAL_ROOM_MAX), no seeds yet. */
void deal_v1(game_deal_t *d, const uint8_t server[32], const char *room);
/* The commitment of a server seed: BLAKE2b-256 of its 32 bytes. */
void deal_commit(const uint8_t server[32], uint8_t out[32]);
/* The game's key of a version 1 deal for `seats` seats (the rule above). */
void deal_key(const game_deal_t *d, int seats, uint8_t out[32]);
/* The game's generator at its start: version 0's xoshiro, version 1's ChaCha20. */
void deal_rng(const game_deal_t *d, int seats, rng_t *out);

/* 32 bytes as 64 lowercase hex digits and a NUL. */
void deal_hex(const uint8_t in[32], char out[DEAL_HEX_LEN + 1]);
/* 64 hex digits (either case) into 32 bytes. Returns 0, or -1 when it is not that. */
int deal_unhex(const char *hex, uint8_t out[32]);

/*
 * The deal as JSON (version 1): {"version", "commit"} and, when `reveal`,
 * "server_seed"; with seats > 0, "seeds" too (seat order). NULL out of memory.
 */
json_t *deal_json(const game_deal_t *d, int seats, bool reveal);
/*
 * The deal of a record (docs/STORE.md, "Records"): its "deal" object
 * ({"version": 1, "server_seed": HEX, "commit": HEX}) and its "id" (the
 * room), or without one version 0 and its "seed" (a decimal string). The
 * commitment is checked against the server seed. Returns 0, or -1 with why.
 */
int deal_from_record(const json_t *record, game_deal_t *out, char *why, size_t whylen);

/* Can `text` be a player's seed? NULL if it can, else why not (a sentence). */
const char *deal_seed_refusal(const char *text);

#endif
