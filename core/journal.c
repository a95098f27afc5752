/* journal.c — replaying a game's journal through the core. See journal.h. */
#include "core/journal.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Fill jr->error (the caller's own wording: a code and the detail) and return -1. */
static int refuse(journal_replay_t *jr, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int refuse(journal_replay_t *jr, const char *code, const char *fmt, ...)
{
    va_list ap;
    jr->error.code = code;
    va_start(ap, fmt);
    vsnprintf(jr->error.message, sizeof jr->error.message, fmt, ap);
    va_end(ap);
    return -1;
}

/* ------------------------------------------------------------------------ */
/* The start                                                                */
/* ------------------------------------------------------------------------ */

/* Both forms: o is the options object, or not one (`unparsed` says why). */
static int start(journal_replay_t *jr, const game_desc_t *d, int players, const json_t *o,
                 const char *unparsed, const game_deal_t *deal, char *why, size_t whylen)
{
    memset(jr, 0, sizeof *jr);
    jr->d = d;
    jr->players = players;
    jr->options = o;
    jr->deal = *deal;
    if (!json_is_object(o)) {
        snprintf(why, whylen, "its options are not a JSON object: %s", unparsed);
        return refuse(jr, TAPIS_E_BAD_OPTION, "the options are not a JSON object: %s", unparsed);
    }
    if (deal->version != 0 && deal->version != DEAL_VERSION) {
        snprintf(why, whylen, "its deal has version %d, this server knows 0 and %d", deal->version,
                 DEAL_VERSION);
        return refuse(jr, JOURNAL_E_BAD_DEAL, "deal version %d is not 0 or %d", deal->version,
                      DEAL_VERSION);
    }
    game_error_t err = {0};
    jr->g = game_new_dealt(d, players, o, &jr->deal, &err);
    if (!jr->g) {
        snprintf(why, whylen, "game_new refuses it: %s: %s", err.code, err.message);
        jr->error = err;
        return -1;
    }
    jr->owned = json_incref((json_t *)o); /* for the "seed" entries' new deals */
    return 0;
}

int journal_replay_start(journal_replay_t *jr, const game_desc_t *d, int players,
                         const char *options, const game_deal_t *deal, char *why, size_t whylen)
{
    json_error_t jerr;
    json_t *o = json_loads(options, 0, &jerr);
    int rc = start(jr, d, players, o, jerr.text, deal, why, whylen);
    json_decref(o);
    return rc;
}

int journal_replay_start_tree(journal_replay_t *jr, const game_desc_t *d, int players,
                              const json_t *options, const game_deal_t *deal, char *why,
                              size_t whylen)
{
    return start(jr, d, players, options, options ? "not an object" : "none", deal, why, whylen);
}

void journal_replay_abandon(journal_replay_t *jr)
{
    game_free(jr->g);
    jr->g = NULL;
    json_decref(jr->owned);
    jr->owned = NULL;
    jr->options = NULL;
}

game_t *journal_replay_take(journal_replay_t *jr)
{
    game_t *g = jr->g;
    jr->g = NULL;
    journal_replay_abandon(jr);
    return g;
}

/* A "seed" entry: seat's seed is data's "seed"; the game is dealt again. */
static int replay_seed(journal_replay_t *jr, unsigned long long nn, int seat, const json_t *data,
                       char *why, size_t whylen)
{
    const char *text = json_string_value(json_object_get(data, "seed"));
    const char *bad = jr->deal.version == 0             ? "a deal of version 0 takes no seeds"
                      : jr->started                     ? "the game has started"
                      : seat < 0 || seat >= jr->players ? "no such seat"
                                                        : deal_seed_refusal(text);
    if (bad) {
        snprintf(why, whylen, "entry %llu (seed seat %d): %s", nn, seat, bad);
        return refuse(jr, JOURNAL_E_BAD_ENTRY, "seed of seat %d: %s", seat, bad);
    }
    game_deal_t deal = jr->deal;
    snprintf(deal.seeds[seat], sizeof deal.seeds[seat], "%s", text);
    game_error_t err = {0};
    game_t *g = game_new_dealt(jr->d, jr->players, jr->options, &deal, &err);
    if (!g) {
        snprintf(why, whylen, "entry %llu (seed seat %d): game_new refuses it: %s: %s", nn, seat,
                 err.code, err.message);
        jr->error = err;
        return -1;
    }
    game_free(jr->g);
    jr->g = g;
    jr->deal = deal;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The entries                                                              */
/* ------------------------------------------------------------------------ */

/*
 * Both forms: `action` is an act's data (NULL, or not an object, for the
 * other kinds or when it is missing or unreadable: `unparsed` says why).
 * The checks run in the order the messages promise: the number, then the
 * time, then what the entry does, then the audit.
 */
static int replay_entry(journal_replay_t *jr, uint64_t n, const char *kind, int seat, int64_t at,
                        const json_t *action, const char *unparsed, char *why, size_t whylen)
{
    game_error_t err = {0};
    unsigned long long nn = (unsigned long long)n, next = (unsigned long long)(jr->n + 1);
    if (n != jr->n + 1) {
        snprintf(why, whylen, "entry %llu is missing (found %llu)", next, nn);
        return refuse(jr, JOURNAL_E_MISSING_ENTRY, "entry %llu is missing (found %llu)", next, nn);
    }
    jr->n = n;
    if (at > jr->last_at) jr->last_at = at;
    bool act = strcmp(kind, "act") == 0, tick = strcmp(kind, "tick") == 0;
    if ((act || tick) && at < jr->game_at) { /* the game's clock never goes back */
        snprintf(why, whylen, "entry %llu: time goes back (%lld < %lld)", nn, (long long)at,
                 (long long)jr->game_at);
        return refuse(jr, JOURNAL_E_TIME_GOES_BACK, "time goes back (%lld < %lld)", (long long)at,
                      (long long)jr->game_at);
    }
    if (act || tick) jr->game_at = at;
    if (act || tick || strcmp(kind, "start") == 0) jr->changes++;
    if (act) {
        if (!json_is_object(action)) {
            snprintf(why, whylen, "entry %llu (act): the action is not a JSON object: %s", nn,
                     unparsed);
            return refuse(jr, JOURNAL_E_BAD_ENTRY, "the action is not a JSON object: %s", unparsed);
        }
        if (seat < 0 || seat >= jr->players) {
            snprintf(why, whylen, "entry %llu (act): no seat %d", nn, seat);
            return refuse(jr, JOURNAL_E_BAD_ENTRY, "no seat %d", seat);
        }
        if (game_apply(jr->g, seat, action, at, &err) < 0) {
            snprintf(why, whylen, "entry %llu (act seat %d): the game refuses it: %s: %s", nn, seat,
                     err.code, err.message);
            jr->error = err;
            return -1;
        }
    } else if (tick) {
        if (!game_tick(jr->g, at)) {
            snprintf(why, whylen, "entry %llu (tick at %lld): nothing was due", nn, (long long)at);
            return refuse(jr, JOURNAL_E_NOTHING_DUE, "the tick at %lld changes nothing",
                          (long long)at);
        }
    } else if (strcmp(kind, "seed") == 0) {
        return replay_seed(jr, nn, seat, action, why, whylen);
    } else if (strcmp(kind, "start") == 0) {
        jr->started = true;
        return 0;
    } else if (strcmp(kind, "seat") == 0 ||
               strcmp(kind, "race") == 0) { /* a race's settlement: said, not replayed */
        return 0;
    } else {
        snprintf(why, whylen, "entry %llu: unknown kind \"%.20s\"", nn, kind);
        return refuse(jr, JOURNAL_E_BAD_ENTRY, "unknown kind \"%.20s\"", kind);
    }
    if (jr->d->audit && jr->d->audit(jr->g, &err) < 0) {
        snprintf(why, whylen, "entry %llu: the state fails its audit: %s", nn, err.message);
        jr->error = err;
        return -1;
    }
    return 0;
}

int journal_replay_entry(journal_replay_t *jr, uint64_t n, const char *kind, int seat, int64_t at,
                         const char *data, char *why, size_t whylen)
{
    json_error_t jerr;
    json_t *action = NULL;
    const char *unparsed = "no data";
    if (!kind) kind = "?";
    /* Only an act's and a seed's data are parsed: a seat's is the store's business. */
    if (data && (strcmp(kind, "act") == 0 || strcmp(kind, "seed") == 0)) {
        action = json_loads(data, 0, &jerr);
        unparsed = jerr.text;
    }
    int rc = replay_entry(jr, n, kind, seat, at, action, unparsed, why, whylen);
    json_decref(action);
    return rc;
}

int journal_replay_entry_tree(journal_replay_t *jr, uint64_t n, const char *kind, int seat,
                              int64_t at, const json_t *data, char *why, size_t whylen)
{
    if (!kind) kind = "?";
    return replay_entry(jr, n, kind, seat, at, data, data ? "not an object" : "no data", why,
                        whylen);
}
