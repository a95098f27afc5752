/* journal.c — replaying a room's journal through the core. See journal.h. */
#include "journal.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

int journal_replay_start(journal_replay_t *jr, const game_desc_t *d, int players,
                         const char *options, uint64_t seed, char *why, size_t whylen)
{
    memset(jr, 0, sizeof *jr);
    jr->d = d;
    jr->players = players;
    tapis_error_t err = {0};
    json_error_t jerr;
    json_t *o = json_loads(options, 0, &jerr);
    if (!json_is_object(o)) {
        snprintf(why, whylen, "its options are not a JSON object: %s", jerr.text);
        json_decref(o);
        return -1;
    }
    jr->g = game_new(d, players, o, seed, &err);
    json_decref(o);
    if (!jr->g) {
        snprintf(why, whylen, "game_new refuses it: %s: %s", err.code, err.message);
        return -1;
    }
    return 0;
}

void journal_replay_abandon(journal_replay_t *jr)
{
    game_free(jr->g);
    jr->g = NULL;
}

int journal_replay_entry(journal_replay_t *jr, uint64_t n, const char *kind, int seat, int64_t at,
                         const char *data, char *why, size_t whylen)
{
    tapis_error_t err = {0};
    json_error_t jerr;
    unsigned long long nn = (unsigned long long)n;
    if (n != jr->n + 1) {
        snprintf(why, whylen, "entry %llu is missing (found %llu)", (unsigned long long)(jr->n + 1),
                 nn);
        return -1;
    }
    jr->n = n;
    if (at > jr->last_at) jr->last_at = at;
    bool act = strcmp(kind, "act") == 0, tick = strcmp(kind, "tick") == 0;
    if ((act || tick) && at < jr->game_at) { /* the game's clock never goes back */
        snprintf(why, whylen, "entry %llu: time goes back (%lld < %lld)", nn, (long long)at,
                 (long long)jr->game_at);
        return -1;
    }
    if (act || tick) jr->game_at = at;
    if (act || tick || strcmp(kind, "start") == 0) jr->changes++;
    if (act) {
        json_t *action = data ? json_loads(data, 0, &jerr) : NULL;
        int rc = -1;
        if (!json_is_object(action))
            snprintf(why, whylen, "entry %llu (act): the action is not a JSON object: %s", nn,
                     data ? jerr.text : "no data");
        else if (seat < 0 || seat >= jr->players)
            snprintf(why, whylen, "entry %llu (act): no seat %d", nn, seat);
        else if (game_apply(jr->g, seat, action, at, &err) < 0)
            snprintf(why, whylen, "entry %llu (act seat %d): the game refuses it: %s: %s", nn, seat,
                     err.code, err.message);
        else
            rc = 0;
        json_decref(action);
        if (rc < 0) return -1;
    } else if (tick) {
        if (!game_tick(jr->g, at)) {
            snprintf(why, whylen, "entry %llu (tick at %lld): nothing was due", nn, (long long)at);
            return -1;
        }
    } else if (strcmp(kind, "seat") == 0 || strcmp(kind, "start") == 0) {
        return 0;
    } else {
        snprintf(why, whylen, "entry %llu: unknown kind \"%.20s\"", nn, kind);
        return -1;
    }
    if (jr->d->audit && jr->d->audit(jr->g, &err) < 0) {
        snprintf(why, whylen, "entry %llu: the state fails its audit: %s", nn, err.message);
        return -1;
    }
    return 0;
}
