/* verify.c — a finished game's deal checked from its record. See verify.h. */
#include "clients/verify.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "clients/replay.h"
#include "core/deal.h"

/* r->message says what differs; returns -1. */
static int differ(verify_report_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int differ(verify_report_t *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->message, sizeof r->message, fmt, ap);
    va_end(ap);
    return -1;
}

/* The "seed" entries: all before "start", each of a seat of the table. */
static int check_seed_entries(const json_t *record, verify_report_t *r)
{
    const json_t *e;
    size_t i;
    bool started = false;
    json_int_t players = replay_entry_int(record, "players", 0);
    bool given[64] = {false};
    json_array_foreach(json_object_get(record, "actions"), i, e)
    {
        const char *kind = json_string_value(json_object_get(e, "kind"));
        if (!kind) continue;
        if (strcmp(kind, "start") == 0) started = true;
        if (strcmp(kind, "seed") != 0) continue;
        json_int_t seat = replay_entry_int(e, "seat", -1);
        if (started)
            return differ(r, "entry %lld: a seed after the start",
                          (long long)replay_entry_int(e, "n", 0));
        if (seat >= 0 && seat < players && seat < 64) {
            const char *t = json_string_value(json_object_get(json_object_get(e, "data"), "seed"));
            given[seat] = t && *t;
        }
    }
    r->seeds = 0;
    for (int s = 0; s < 64; s++)
        r->seeds += given[s];
    return 0;
}

/* Each seat of the record is who the journal's last "seat" entry of it says. */
static int check_seats(const json_t *record, verify_report_t *r)
{
    const json_t *seats = json_object_get(record, "seats"), *e;
    size_t i;
    json_array_foreach(seats, i, e)
    {
        json_int_t seat = replay_entry_int(e, "seat", -1);
        const json_t *last = NULL, *a;
        size_t k;
        json_array_foreach(json_object_get(record, "actions"), k, a)
        {
            const char *kind = json_string_value(json_object_get(a, "kind"));
            if (kind && strcmp(kind, "seat") == 0 && replay_entry_int(a, "seat", -2) == seat)
                last = json_object_get(a, "data");
        }
        const char *name = json_string_value(json_object_get(e, "name"));
        bool bot = json_is_true(json_object_get(e, "bot"));
        const char *strategy = json_string_value(json_object_get(e, "strategy"));
        const char *jbot = json_string_value(json_object_get(last, "bot"));
        const char *jname = json_string_value(json_object_get(last, "name"));
        if (!bot && !name) continue; /* a person who left after the end: the seat is free */
        if (bot ? !jbot || !strategy || strcmp(jbot, strategy) != 0
                : !jname || !name || strcmp(jname, name) != 0)
            return differ(r, "seats[%lld]: %s is not who the journal seats there", (long long)seat,
                          bot ? (strategy ? strategy : "a bot") : (name ? name : "?"));
    }
    return 0;
}

int verify_record(const json_t *record, const char *commit_seen, verify_report_t *r)
{
    memset(r, 0, sizeof *r);
    game_deal_t deal;
    char why[400];
    if (deal_from_record(record, &deal, why, sizeof why) < 0) return differ(r, "the deal: %s", why);
    r->version = deal.version;
    if (deal.version == 0)
        return differ(r, "the game was dealt before deals were provable (no deal, seed %s)",
                      json_string_value(json_object_get(record, "seed")));
    const char *commit =
        json_string_value(json_object_get(json_object_get(record, "deal"), "commit"));
    snprintf(r->commit, sizeof r->commit, "%s", commit);
    if (commit_seen && strcasecmp(commit_seen, commit) != 0)
        return differ(r, "deal.commit %s is not the commitment seen before the deal, %s", commit,
                      commit_seen);
    const char *seed = json_string_value(json_object_get(record, "seed"));
    if (!seed || strcmp(seed, "0") != 0)
        return differ(r, "seed is \"%s\": a deal of version 1 has none (\"0\")", seed ? seed : "?");
    if (check_seed_entries(record, r) < 0 || check_seats(record, r) < 0) return -1;
    replay_t rp;
    replay_run(&rp, record);
    bool ok = rp.as_recorded;
    if (ok)
        snprintf(r->message, sizeof r->message,
                 "verified: BLAKE2b-256(server_seed) = commit %.16s..., %d of %lld seats gave a "
                 "seed, %zu steps replayed from the key to the recorded result",
                 commit, r->seeds, (long long)replay_entry_int(record, "players", 0), rp.nsteps);
    else
        snprintf(r->message, sizeof r->message, "%s", rp.message);
    r->entries = json_array_size(json_object_get(record, "actions"));
    replay_free(&rp);
    return ok ? 0 : -1;
}
