/* store_write.c — a turn's writes, in its one transaction; the store as a
   backend of the durability sink. See store.h. */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/journal.h"
#include "json/json_text.h"
#include "server/base/log.h"
#include "server/store/store_int.h"

/* ------------------------------------------------------------------------ */
/* Writes                                                                   */
/* ------------------------------------------------------------------------ */

bool store__open_txn(store_t *st)
{
    if (!st || st->srv->stopping) return false;
    if (!st->in_txn) {
        int rc = sqlite3_step(st->stmt[S_BEGIN]);
        sqlite3_reset(st->stmt[S_BEGIN]);
        if (rc != SQLITE_DONE) {
            log_error("store %s: BEGIN: %s", st->srv->opts.db_path, sqlite3_errmsg(st->db));
            return false;
        }
        st->in_txn = true;
    }
    return true;
}

/* The statement `which`, reset, inside the turn's transaction; NULL when nothing is written. */
static sqlite3_stmt *begin(store_t *st, int which)
{
    if (!store__open_txn(st)) return NULL;
    sqlite3_stmt *s = st->stmt[which];
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return s;
}

static void run(store_t *st, sqlite3_stmt *s)
{
    int rc = sqlite3_step(s);
    if (rc != SQLITE_DONE && !st->failed_txn) {
        st->failed_txn = true;
        log_error("store %s: write failed: %s", st->srv->opts.db_path, sqlite3_errmsg(st->db));
    }
    sqlite3_reset(s);
}

static void bind_text(sqlite3_stmt *s, int i, const char *text)
{
    if (text)
        sqlite3_bind_text(s, i, text, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(s, i);
}

/* Bind j's compact JSON text (NULL: SQL NULL): json_text(), the same bytes as
   json_dumps(), in a stack buffer when it fits (an action always does). */
static void bind_json(sqlite3_stmt *s, int i, const json_t *j)
{
    char small[1024];
    size_t n = j ? json_text(j, small, sizeof small) : 0;
    if (!j) {
        sqlite3_bind_null(s, i);
    } else if (n <= sizeof small) {
        sqlite3_bind_text(s, i, small, (int)n, SQLITE_TRANSIENT);
    } else {
        char *text = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
        bind_text(s, i, text);
        tapis_free(text);
    }
}

void store__bind(sqlite3_stmt *s, int first, const char *types, ...)
{
    va_list ap;
    va_start(ap, types);
    for (int i = first; *types; types++, i++) {
        switch (*types) {
        case 't': bind_text(s, i, va_arg(ap, const char *)); break;
        case 'o': {
            const char *text = va_arg(ap, const char *);
            bind_text(s, i, text && text[0] ? text : NULL);
            break;
        }
        case 'i': sqlite3_bind_int(s, i, va_arg(ap, int)); break;
        case 'I': sqlite3_bind_int64(s, i, va_arg(ap, int64_t)); break;
        case 'f': sqlite3_bind_double(s, i, va_arg(ap, double)); break;
        case 'j': bind_json(s, i, va_arg(ap, const json_t *)); break;
        default: abort(); /* a letter of no type: the arguments after it cannot be read */
        }
    }
    va_end(ap);
}

/* The store a backend entry writes to (its ctx is the server); NULL with --db none. */
static store_t *store_of(void *srv)
{
    return ((server_t *)srv)->store;
}

/* The statement `which` with ?1 = id (a session's or a room's number), or NULL. */
static sqlite3_stmt *begin_id(store_t *st, int which, uint64_t id)
{
    sqlite3_stmt *q = begin(st, which);
    if (q) sqlite3_bind_int64(q, 1, (sqlite3_int64)id);
    return q;
}

static void d_session_new(void *srv, const durable_session_t *s)
{
    store_t *st = store_of(srv);
    sqlite3_stmt *q = begin_id(st, S_SESSION_NEW, s->id);
    if (!q) return;
    store__bind(q, 2, "ttI", s->name, s->token_hash, s->created);
    run(st, q);
}

/* Run the UPDATE `which` of the row id, setting its one column (?2) to text. */
static void update_text(void *srv, int which, uint64_t id, const char *text)
{
    store_t *st = store_of(srv);
    sqlite3_stmt *q = begin_id(st, which, id);
    if (!q) return;
    bind_text(q, 2, text);
    run(st, q);
}

static void d_session_rename(void *srv, const durable_session_t *s)
{
    update_text(srv, S_SESSION_RENAME, s->id, s->name);
}

static void d_session_end(void *srv, const durable_session_t *s)
{
    store_t *st = store_of(srv);
    sqlite3_stmt *q = begin_id(st, S_SESSION_END, s->id);
    if (q) run(st, q);
}

static void d_room_new(void *srv, const durable_room_t *r, const json_t *options,
                       const game_deal_t *deal)
{
    store_t *st = store_of(srv);
    sqlite3_stmt *q = begin_id(st, S_ROOM_NEW, r->rid);
    if (!q) return;
    char hex[DEAL_HEX_LEN + 1];
    deal_hex(deal->server, hex);
    store__bind(q, 2, "ttijIitIitt", r->id, r->game, r->players, options, (int64_t)deal->seed,
                (int)r->private_room, r->title, server_wall_ms(), deal->version,
                deal->version ? hex : NULL, r->race);
    run(st, q);
}

static void d_room_started(void *srv, const durable_room_t *r)
{
    update_text(srv, S_ROOM_STATUS, r->rid, "playing");
}

void store__room_end(store_t *st, uint64_t rid, const char *status, const json_t *result,
                     const char *note)
{
    sqlite3_stmt *q = begin(st, S_ROOM_END);
    if (!q) return;
    store__bind(q, 1, "ItIjt", (int64_t)rid, status, server_wall_ms(), result, note);
    run(st, q);
}

static void d_room_over(void *srv, const durable_room_t *r, const json_t *result)
{
    store__room_end(store_of(srv), r->rid, "over", result, NULL);
}

/* A room that ended keeps its "over" row (its result, for the history). */
static void d_room_closed(void *srv, const durable_room_t *r, bool over)
{
    if (!over) store__room_end(store_of(srv), r->rid, "closed", NULL, NULL);
}

static void d_journal(void *srv, const durable_room_t *r, uint64_t n, const char *kind, int seat,
                      int64_t at, const json_t *data)
{
    store_t *st = store_of(srv);
    if (!store__open_txn(st)) return;
    struct pending *v = tapis_grow(st->pend, &st->cappend, st->npend, sizeof *v, 64);
    if (!v) goto oom;
    st->pend = v;
    struct pending *e = &st->pend[st->npend];
    *e = (struct pending){.rid = r->rid, .n = n, .at = at, .seat = seat, .len = SIZE_MAX};
    snprintf(e->kind, sizeof e->kind, "%s", kind);
    if (data) {
        /* Most actions fit in what is left; a longer one is written again. */
        size_t room = st->captexts - st->ntexts;
        size_t len = json_text(data, room ? st->texts + st->ntexts : NULL, room);
        if (len > room) {
            size_t cap = st->captexts ? st->captexts : 4096;
            while (cap - st->ntexts < len)
                cap *= 2;
            char *t = tapis_realloc(st->texts, cap);
            if (!t) goto oom;
            st->texts = t;
            st->captexts = cap;
            json_text(data, st->texts + st->ntexts, cap - st->ntexts);
        }
        e->text = st->ntexts;
        e->len = len;
        st->ntexts += len;
    }
    st->npend++;
    return;
oom:
    if (!st->failed_txn) {
        st->failed_txn = true;
        log_error("store %s: out of memory for the journal", st->srv->opts.db_path);
    }
}

/* Write the turn's journal entries: into journal, or with many, into the tail. */
void store__write_pending(store_t *st)
{
    bool tail = st->npend >= TAIL_MIN_ENTRIES;
    for (size_t i = 0; i < st->npend; i++) {
        const struct pending *e = &st->pend[i];
        int k = (int)(e->rid % TAIL_PARTS);
        sqlite3_stmt *q = tail ? st->tail_put[k] : st->stmt[S_JOURNAL];
        sqlite3_clear_bindings(q);
        sqlite3_bind_int64(q, 1, (sqlite3_int64)e->rid);
        sqlite3_bind_int64(q, 2, (sqlite3_int64)e->n);
        sqlite3_bind_text(q, 3, e->kind, -1, SQLITE_STATIC);
        sqlite3_bind_int(q, 4, e->seat);
        sqlite3_bind_int64(q, 5, e->at);
        if (e->len != SIZE_MAX)
            sqlite3_bind_text(q, 6, st->texts + e->text, (int)e->len, SQLITE_STATIC);
        run(st, q);
        if (tail) st->tail_rows[k]++;
    }
    st->npend = st->ntexts = 0;
}

static void d_seat(void *srv, const durable_room_t *r, int i, const durable_seat_t *t)
{
    store_t *st = store_of(srv);
    sqlite3_stmt *q = begin_id(st, S_SEAT, r->rid);
    if (!q) return;
    sqlite3_bind_int(q, 2, i);
    if (t->bot) {
        bind_text(q, 3, "bot");
        sqlite3_bind_int(q, 5, 1);
        bind_text(q, 6, t->strategy);
        bind_text(q, 7, t->bot_name);
        sqlite3_bind_int64(q, 8, t->delay_min);
        sqlite3_bind_int64(q, 9, t->delay_max);
    } else if (t->session) {
        bind_text(q, 3, t->name);
        sqlite3_bind_int64(q, 4, (sqlite3_int64)t->session);
        sqlite3_bind_int(q, 5, 0);
    } else {
        sqlite3_bind_int(q, 5, 0);
    }
    run(st, q);
}

/* ------------------------------------------------------------------------ */
/* The durability backend                                                   */
/* ------------------------------------------------------------------------ */

static int d_commit(void *srv)
{
    return store__commit(srv);
}

static json_t *d_history(void *srv, uint64_t viewer, bool all, int limit, long long offset,
                         long long *total)
{
    return store_history(srv, viewer, all, limit, offset, total);
}

static int d_game_record(void *srv, const char *id, uint64_t viewer, json_t **out)
{
    return store_game_record(srv, id, viewer, out);
}

static int d_restore(void *srv, const durable_restore_hooks_t *h, int *sessions_kept,
                     int *quarantined)
{
    store_t *st = store_of(srv);
    if (!st) {
        *sessions_kept = *quarantined = 0;
        return 0;
    }
    return store__restore(st, h, sessions_kept, quarantined);
}

const durable_backend_t store_durable = {.name = "store",
                                         DURABLE_OP(commit),
                                         DURABLE_OP(session_new),
                                         DURABLE_OP(session_rename),
                                         DURABLE_OP(session_end),
                                         DURABLE_OP(room_new),
                                         DURABLE_OP(room_started),
                                         DURABLE_OP(room_over),
                                         DURABLE_OP(room_closed),
                                         DURABLE_OP(seat),
                                         DURABLE_OP(journal),
                                         DURABLE_OP(history),
                                         DURABLE_OP(game_record),
                                         DURABLE_OP(restore)};
