/*
 * game_records — finished games written as the server's records (`replay ID`,
 * docs/STORE.md), played through core/ alone: for tests of record checkers
 * (tests/clients/test_verify_py.py runs clients/examples/verify.py on them).
 *
 *   game_records GAME COUNT SEED [OPTIONS_JSON]
 *
 * prints COUNT records of GAME, one JSON object a line. Game i is dealt by
 * deal version 1 from a server seed, a room id and seats' seeds drawn from
 * SEED and i (some seats give none), with 2 to the game's most seats; its
 * seats play by turns drawn at random among those that may act, each move
 * the game's greedy bot's or a random legal one, at times that advance by
 * random steps; a deadline that comes first is settled by a `tick` entry
 * (or, one time in four, by the next act, as apply() settles it first).
 * OPTIONS_JSON (default {}) is merged over the game's defaults.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/deal.h"
#include "core/game.h"

static json_t *entry(json_t *actions, const char *kind, int seat, int64_t at, json_t *data)
{
    json_t *e = json_pack("{s:I, s:s, s:i, s:I, s:o}", "n",
                          (json_int_t)json_array_size(actions) + 1, "kind", kind, "seat", seat,
                          "at", (json_int_t)at, "data", data ? data : json_null());
    json_array_append_new(actions, e);
    return e;
}

static json_t *one(const game_desc_t *d, const json_t *user, rng_t *r, int index)
{
    int span = d->max_seats - d->min_seats + 1, seats;
    game_error_t err = {0};
    for (int tries = 0;; tries++) { /* a count of seats the game takes (seqnum: not 5) */
        seats = d->min_seats + (int)rng_below(r, (uint32_t)span);
        game_t *probe = game_new(d, seats, user, 1, &err);
        bool taken = probe != NULL;
        game_free(probe);
        if (taken) break;
        if (tries == 100) {
            fprintf(stderr, "game_records: %s: %s\n", err.code, err.message);
            exit(2);
        }
    }
    uint8_t server[32];
    for (int i = 0; i < 32; i++)
        server[i] = (uint8_t)rng_below(r, 256);
    char room[16];
    snprintf(room, sizeof room, "%d", 100 + index);
    game_deal_t deal;
    deal_v1(&deal, server, room);
    json_t *actions = json_array();
    for (int s = 0; s < seats; s++) {
        entry(actions, "seat", s, 1000, json_pack("{s:s}", "bot", "random"));
        if (rng_below(r, 3) == 0) continue; /* no seed: the empty string */
        snprintf(deal.seeds[s], sizeof deal.seeds[s], "seat %d's seed %u", s, rng_below(r, 100000));
        entry(actions, "seed", s, 1000, json_pack("{s:s}", "seed", deal.seeds[s]));
    }
    game_t *g = game_new_dealt(d, seats, user, &deal, &err);
    if (!g) {
        fprintf(stderr, "game_records: %s: %s\n", err.code, err.message);
        exit(2);
    }
    entry(actions, "start", -1, 1000, NULL);
    int64_t now = 1000;
    bool greedy[GAME_MAX_SEATS];
    for (int s = 0; s < seats; s++)
        greedy[s] = rng_below(r, 3) != 0;
    for (int steps = 0; !game_is_over(g) && steps < 100000; steps++) {
        int can[GAME_MAX_SEATS], ncan = 0;
        json_t *legal[GAME_MAX_SEATS] = {0};
        for (int s = 0; s < seats; s++) {
            legal[s] = game_legal(g, s);
            if (json_array_size(legal[s])) can[ncan++] = s;
        }
        int64_t due = game_next_deadline(g);
        now += rng_below(r, 4) == 0 ? 0 : (int64_t)rng_below(r, 400);
        bool settle_in_act = rng_below(r, 4) == 0;
        if (due != GAME_NO_DEADLINE && (due <= now || !ncan) && (!ncan || !settle_in_act)) {
            if (due > now) now = due;
            if (game_tick(g, now)) entry(actions, "tick", -1, now, NULL);
        } else if (ncan) {
            int s = can[rng_below(r, (uint32_t)ncan)];
            json_t *a = NULL;
            if (greedy[s]) {
                json_t *view = game_view(g, s);
                a = game_bot(d, view, "greedy", r);
                json_decref(view);
            }
            if (!a)
                a = json_deep_copy(
                    json_array_get(legal[s], rng_below(r, (uint32_t)json_array_size(legal[s]))));
            if (game_apply(g, s, a, now, &err) == 0)
                entry(actions, "act", s, now, a);
            else
                json_decref(a); /* a deadline settled first made it late: refused, not journaled */
        } else {
            fprintf(stderr, "game_records: nobody can act and nothing is due\n");
            exit(2);
        }
        for (int s = 0; s < seats; s++)
            json_decref(legal[s]);
    }
    if (!game_is_over(g)) {
        fprintf(stderr, "game_records: game %d does not end\n", index);
        exit(2);
    }
    json_t *seats_json = json_array();
    for (int s = 0; s < seats; s++)
        json_array_append_new(seats_json, json_pack("{s:i, s:s, s:b, s:s}", "seat", s, "name",
                                                    "bot", "bot", 1, "strategy", "random"));
    json_t *options = game_default_options(d);
    json_object_update(options, (json_t *)user);
    json_t *dj = deal_json(&deal, 0, true);
    json_t *rec = json_pack("{s:s, s:s, s:i, s:o, s:s, s:o, s:o, s:o, s:I, s:I, s:o}", "id", room,
                            "game", d->id, "players", seats, "options", options, "seed", "0",
                            "seats", seats_json, "actions", actions, "result", game_result(g),
                            "started", (json_int_t)1000, "ended", (json_int_t)now, "deal", dj);
    game_free(g);
    return rec;
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: game_records GAME COUNT SEED [OPTIONS_JSON]\n");
        return 2;
    }
    const game_desc_t *d = game_find(argv[1]);
    json_t *user = json_loads(argc == 5 ? argv[4] : "{}", 0, NULL);
    if (!d || !json_is_object(user)) {
        fprintf(stderr, "game_records: no game %s, or options not an object\n", argv[1]);
        return 2;
    }
    rng_t r;
    rng_seed(&r, strtoull(argv[3], NULL, 10));
    int count = atoi(argv[2]);
    for (int i = 0; i < count; i++) {
        json_t *rec = one(d, user, &r, i);
        char *text = json_dumps(rec, JSON_COMPACT);
        puts(text);
        free(text);
        json_decref(rec);
    }
    json_decref(user);
    return 0;
}
