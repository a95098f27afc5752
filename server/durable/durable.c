/* durable.c — the one durability sink: each call to each backend in turn. See durable.h. */
#include "server/durable/durable.h"

#include <stdio.h>
#include <string.h>

#include "include/tapis_alloc.h"

#define EACH(d, fn, ...)                                                                           \
    do {                                                                                           \
        for (int i_ = 0; i_ < (d)->n; i_++)                                                        \
            if ((d)->backends[i_].b->fn)                                                           \
                (d)->backends[i_].b->fn((d)->backends[i_].ctx, __VA_ARGS__);                       \
    } while (0)

int durable_add(durable_t *d, const durable_backend_t *b, void *ctx)
{
    if (d->n == DURABLE_MAX_BACKENDS) return -1;
    d->backends[d->n].b = b;
    d->backends[d->n].ctx = ctx;
    d->n++;
    return 0;
}

int durable_commit(durable_t *d)
{
    int r = 0;
    for (int i = 0; i < d->n; i++)
        if (d->backends[i].b->commit && d->backends[i].b->commit(d->backends[i].ctx) < 0) r = -1;
    return r;
}

uint64_t durable_next_id(durable_t *d, const char *what)
{
    for (int i = 0; i < d->n; i++) {
        uint64_t id =
            d->backends[i].b->next_id ? d->backends[i].b->next_id(d->backends[i].ctx, what) : 0;
        if (id) return id;
    }
    return 0;
}

void durable_session_new(durable_t *d, const durable_session_t *s)
{
    EACH(d, session_new, s);
}

void durable_session_rename(durable_t *d, const durable_session_t *s)
{
    EACH(d, session_rename, s);
}

void durable_session_end(durable_t *d, const durable_session_t *s)
{
    EACH(d, session_end, s);
}

void durable_session_room(durable_t *d, uint64_t sid, const durable_room_t *r, bool in)
{
    EACH(d, session_room, sid, r, in);
}

void durable_room_new(durable_t *d, const durable_room_t *r, const json_t *options,
                      const game_deal_t *deal)
{
    EACH(d, room_new, r, options, deal);
}

void durable_room_rebuilt(durable_t *d, const durable_room_t *r, const durable_room_rec_t *rec)
{
    EACH(d, room_rebuilt, r, rec);
}

void durable_room_started(durable_t *d, const durable_room_t *r)
{
    EACH(d, room_started, r);
}

void durable_room_over(durable_t *d, const durable_room_t *r, const json_t *result)
{
    EACH(d, room_over, r, result);
}

void durable_room_closed(durable_t *d, const durable_room_t *r, bool over)
{
    EACH(d, room_closed, r, over);
}

bool durable_wants_summary(const durable_t *d)
{
    for (int i = 0; i < d->n; i++)
        if (d->backends[i].b->room_changed) return true;
    return false;
}

void durable_room_changed(durable_t *d, const durable_room_t *r, const json_t *summary)
{
    EACH(d, room_changed, r, summary);
}

void durable_room_free(durable_t *d, const durable_room_t *r)
{
    EACH(d, room_free, r);
}

void durable_seat(durable_t *d, const durable_room_t *r, int i, const durable_seat_t *seat)
{
    EACH(d, seat, r, i, seat);
}

void durable_watcher(durable_t *d, const durable_room_t *r, uint64_t sid, bool watching)
{
    EACH(d, watcher, r, sid, watching);
}

void durable_journal(durable_t *d, const durable_room_t *r, uint64_t n, const char *kind, int seat,
                     int64_t at, const json_t *data)
{
    EACH(d, journal, r, n, kind, seat, at, data);
}

json_t *durable_history(durable_t *d, uint64_t viewer, bool all, int limit, long long offset,
                        long long *total)
{
    for (int i = 0; i < d->n; i++)
        if (d->backends[i].b->history)
            return d->backends[i].b->history(d->backends[i].ctx, viewer, all, limit, offset, total);
    *total = 0;
    return json_array();
}

int durable_game_record(durable_t *d, const char *id, uint64_t viewer, json_t **out)
{
    for (int i = 0; i < d->n; i++)
        if (d->backends[i].b->game_record)
            return d->backends[i].b->game_record(d->backends[i].ctx, id, viewer, out);
    *out = NULL;
    return DURABLE_REC_NOT_FOUND;
}

int durable_restore(durable_t *d, const durable_restore_hooks_t *h, int *sessions_kept,
                    int *quarantined)
{
    *sessions_kept = *quarantined = 0;
    for (int i = 0; i < d->n; i++)
        if (d->backends[i].b->restore)
            return d->backends[i].b->restore(d->backends[i].ctx, h, sessions_kept, quarantined);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Records                                                                  */
/* ------------------------------------------------------------------------ */

int durable_rec_add_entry(durable_room_rec_t *rec, uint64_t n, const char *kind, int seat,
                          int64_t at, const char *data)
{
    durable_entry_t *v = tapis_grow(rec->entries, &rec->capentries, rec->nentries, sizeof *v, 64);
    if (!v) return -1;
    rec->entries = v;
    durable_entry_t *e = &rec->entries[rec->nentries];
    e->n = n;
    snprintf(e->kind, sizeof e->kind, "%s", kind);
    e->seat = seat;
    e->at = at;
    e->data = NULL;
    if (data && !(e->data = tapis_strdup(data))) return -1;
    rec->nentries++;
    return 0;
}

int durable_rec_add_watcher(durable_room_rec_t *rec, uint64_t session)
{
    uint64_t *v = tapis_grow(rec->watchers, &rec->capwatchers, rec->nwatchers, sizeof *v, 8);
    if (!v) return -1;
    rec->watchers = v;
    rec->watchers[rec->nwatchers++] = session;
    return 0;
}

void durable_rec_clear(durable_room_rec_t *rec)
{
    for (size_t i = 0; i < rec->nentries; i++)
        tapis_free(rec->entries[i].data);
    tapis_free(rec->entries);
    tapis_free(rec->watchers);
    tapis_free(rec->options);
    memset(rec, 0, sizeof *rec);
}
