/*
 * replay.c — re-running a record through core/ (replay.h): the steps of
 * `tapis replay`, and the check that the game ends as recorded.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/journal.h"
#include "clients/replay.h"

/* ------------------------------------------------------------------------ */
/* The record                                                               */
/* ------------------------------------------------------------------------ */

json_int_t replay_entry_int(const json_t *entry, const char *key, json_int_t dflt)
{
    const json_t *v = json_object_get(entry, key);
    return json_is_integer(v) ? json_integer_value(v) : dflt;
}

static bool is_kind(const json_t *entry, const char *kind)
{
    const char *k = json_string_value(json_object_get(entry, "kind"));
    return k && strcmp(k, kind) == 0;
}

/*
 * Start the replay of the record's game, players, options and seed. 0, or -1
 * with r->message (then there is no game to abandon).
 */
static int start_game(replay_t *r, journal_replay_t *jr, const json_t *record)
{
    const char *id = json_string_value(json_object_get(record, "game"));
    json_int_t players = replay_entry_int(record, "players", -1);
    const json_t *options = json_object_get(record, "options");
    game_deal_t deal;
    char why[300];
    r->desc = id ? game_find(id) : NULL;
    if (!r->desc) {
        snprintf(r->message, sizeof r->message, "this client has no game \"%.40s\"", id ? id : "?");
        return -1;
    }
    if (players < r->desc->min_seats || players > r->desc->max_seats || players > GAME_MAX_SEATS) {
        snprintf(r->message, sizeof r->message, "the record's players is not a table of %s",
                 r->desc->id);
        return -1;
    }
    if (!json_is_object(options) || !json_is_array(json_object_get(record, "actions"))) {
        snprintf(r->message, sizeof r->message,
                 "the record has no options object or actions array");
        return -1;
    }
    if (deal_from_record(record, &deal, why, sizeof why) < 0) {
        snprintf(r->message, sizeof r->message, "the record's deal does not hold: %s", why);
        return -1;
    }
    if (journal_replay_start_tree(jr, r->desc, (int)players, options, &deal, NULL, 0) < 0) {
        snprintf(r->message, sizeof r->message, "game_new refuses the record: %s: %s",
                 jr->error.code, jr->error.message);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Replaying                                                                */
/* ------------------------------------------------------------------------ */

/* Append the spectator's view of g as the next step. 0, or -1 (no memory). */
static int add_step(replay_t *r, const game_t *g, const json_t *entry)
{
    json_t *view = game_view(g, GAME_SPECTATOR);
    if (!view) {
        snprintf(r->message, sizeof r->message, "out of memory");
        return -1;
    }
    r->steps[r->nsteps].entry = entry;
    r->steps[r->nsteps].view = view;
    r->nsteps++;
    return 0;
}

/*
 * Run one entry through core's journal replay, with the checks of a restore
 * (its number, its time, the game's verdict and audit: core/journal.h). act
 * and tick change the game (and are a step), start and seat do not. 1 for a
 * step, 0 for none, -1 with r->message when it does not replay.
 */
static int run_entry(replay_t *r, journal_replay_t *jr, const json_t *entry)
{
    json_int_t n = replay_entry_int(entry, "n", 0), seat = replay_entry_int(entry, "seat", -1);
    const char *kind = json_string_value(json_object_get(entry, "kind"));
    /* A number the journal's types cannot hold is no entry 0 and no seat -1:
       refused as that, not wrapped into another entry or seat. */
    uint64_t un = n < 0 ? 0 : (uint64_t)n;
    int iseat = seat < INT_MIN || seat > INT_MAX ? -1 : (int)seat;
    /* No `why`: that is the server's wording; the client words jr->error its own way. */
    if (journal_replay_entry_tree(jr, un, kind, iseat, replay_entry_int(entry, "at", 0),
                                  json_object_get(entry, "data"), NULL, 0) < 0) {
        snprintf(r->message, sizeof r->message, "entry %lld does not replay: %s: %s", (long long)n,
                 jr->error.code, jr->error.message);
        return -1;
    }
    return is_kind(entry, "act") || is_kind(entry, "tick");
}

/* Does the replayed game end as recorded? Sets r->result, r->as_recorded, r->message. */
static void check_end(replay_t *r, const game_t *g, const json_t *record)
{
    const json_t *recorded = json_object_get(record, "result");
    r->result = game_result(g);
    if (!r->result) {
        snprintf(r->message, sizeof r->message,
                 "warning: the journal ends before the game does: not as recorded");
        return;
    }
    if (!json_equal(r->result, (json_t *)recorded)) {
        char *text = json_dumps(r->result, JSON_COMPACT);
        snprintf(r->message, sizeof r->message,
                 "warning: the replay ends with the result %.300s, not the recorded one",
                 text ? text : "?");
        free(text);
        return;
    }
    r->as_recorded = true;
    snprintf(r->message, sizeof r->message, "the replay ends as recorded");
}

int replay_run(replay_t *r, const json_t *record)
{
    memset(r, 0, sizeof *r);
    r->record = json_incref((json_t *)record);
    journal_replay_t jr;
    if (start_game(r, &jr, record) < 0) return -1;
    const json_t *actions = json_object_get(record, "actions");
    size_t changes = 0, i;
    const json_t *entry, *start = NULL;
    json_array_foreach(actions, i, entry)
    {
        if (is_kind(entry, "act") || is_kind(entry, "tick")) changes++;
        if (!start && is_kind(entry, "start")) start = entry;
    }
    r->start_at = replay_entry_int(start, "at", 0);
    r->steps = calloc(changes + 1, sizeof *r->steps);
    if (!r->steps) {
        snprintf(r->message, sizeof r->message, "out of memory");
        journal_replay_abandon(&jr);
        return -1;
    }
    /* Step 0 is the game as dealt: after the "seed" entries, before the first move. */
    int rc = 0;
    json_array_foreach(actions, i, entry)
    {
        if (rc < 0) break;
        if (r->nsteps == 0 && (is_kind(entry, "act") || is_kind(entry, "tick")) &&
            (rc = add_step(r, jr.g, start)) < 0)
            break;
        rc = run_entry(r, &jr, entry);
        if (rc > 0) rc = add_step(r, jr.g, entry);
    }
    if (r->nsteps == 0 && add_step(r, jr.g, start) < 0) rc = -1;
    if (rc >= 0) check_end(r, jr.g, record);
    journal_replay_abandon(&jr);
    return r->as_recorded ? 0 : -1;
}

void replay_free(replay_t *r)
{
    for (size_t i = 0; i < r->nsteps; i++)
        json_decref(r->steps[i].view);
    free(r->steps);
    json_decref(r->result);
    json_decref(r->record);
    memset(r, 0, sizeof *r);
}

/* ------------------------------------------------------------------------ */
/* Rounds                                                                   */
/* ------------------------------------------------------------------------ */

long replay_round_step(const replay_t *r, json_int_t round)
{
    bool rounds = false;
    for (size_t k = 0; k < r->nsteps; k++) {
        const json_t *v = json_object_get(r->steps[k].view, "round");
        if (!json_is_integer(v)) continue;
        rounds = true;
        if (json_integer_value(v) == round) return (long)k;
    }
    return rounds ? REPLAY_NO_SUCH_ROUND : REPLAY_NO_ROUNDS;
}

void replay_round_range(const replay_t *r, json_int_t *first, json_int_t *last)
{
    bool any = false;
    *first = *last = 0;
    for (size_t k = 0; k < r->nsteps; k++) {
        const json_t *v = json_object_get(r->steps[k].view, "round");
        if (!json_is_integer(v)) continue;
        json_int_t x = json_integer_value(v);
        if (!any || x < *first) *first = x;
        if (!any || x > *last) *last = x;
        any = true;
    }
}
