/*
 * verify.h — checking a finished game's deal (docs/FAIRNESS.md) from its
 * record (docs/STORE.md, "Records"), as `tapis verify ID` and `tapis-bot
 * --verify` do: the server seed hashes to the commitment (and to the one
 * the caller saw before the deal, when it kept it); every "seed" entry
 * comes before the start; the game replays through core/ from the key of
 * the server seed, the room and the seats' seeds (every shuffle drawn
 * again, every move applied with the journal's checks, core/journal.h) to
 * the recorded result; the seats the record names are the journal's last
 * "seat" entries. The first thing that differs is named in `why`.
 *
 * What it does not check: the wall times (`started`, `ended`), and what
 * the server could see while the game was played (docs/FAIRNESS.md).
 */
#ifndef TAPIS_CLIENTS_VERIFY_H
#define TAPIS_CLIENTS_VERIFY_H

#include <jansson.h>
#include <stddef.h>

typedef struct verify_report {
    int version;       /* the deal's version (0: nothing to verify but the replay) */
    char commit[65];   /* its commitment (hex) */
    int seeds;         /* seats that gave a seed */
    size_t entries;    /* journal entries replayed */
    char message[700]; /* "verified: ..." or the first difference */
} verify_report_t;

/*
 * Verify `record`. `commit_seen` (NULL: none) is the commitment the caller
 * saw before the deal (a `room` event's deal.commit). Returns 0 when every
 * check holds, -1 otherwise; r->message says which check failed first.
 */
int verify_record(const json_t *record, const char *commit_seen, verify_report_t *r);

#endif
