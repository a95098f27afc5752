/*
 * game_log.c — the kit's immutable event log (game_log_t, core/game.h): a
 * text made once per entry and shared by every copy and view of the state.
 */
#include <stddef.h>
#include <string.h>

#include "core/game.h"
#include "json/json_text.h"
#include "include/tapis_alloc.h"

struct game_text {
    size_t refs, len;
    char *bytes;   /* len bytes, after ends[] in the same allocation */
    size_t ends[]; /* a log's: entry i ends at bytes[ends[i]] (a ',' or the final ']') */
};

static void text_release(game_text_t *t)
{
    if (t && --t->refs == 0) tapis_free(t);
}

void game_log_init(game_log_t *l, size_t cap)
{
    l->text = NULL;
    l->n = 0;
    l->cap = cap;
}

static const char *log_bytes(const game_log_t *l, size_t *n)
{
    *n = l->text ? l->text->len : 2;
    return l->text ? l->text->bytes : "[]";
}

/* The new text: the old one with `drop` entries cut from its front and the
   entry's text at its end (the old entries are copied, not walked again:
   where each ends is kept with them). */
void game_log_append_text(game_log_t *l, const char *entry, size_t elen)
{
    const game_text_t *old = l->text;
    size_t n, had = old ? l->n : 0;
    const char *t = log_bytes(l, &n);
    size_t drop = l->cap && had >= l->cap ? had + 1 - l->cap : 0;
    size_t from = drop ? old->ends[drop - 1] + (drop < had) : 1;
    size_t body = n - 1 - from; /* the kept entries, without ']' */
    size_t kept = had - drop;
    size_t len = 1 + body + (body ? 1 : 0) + elen + 1;
    game_text_t *next = tapis_malloc(sizeof *next + (kept + 1) * sizeof next->ends[0] + len);
    if (!next) return;
    char *p = next->bytes = (char *)(next->ends + kept + 1);
    *p++ = '[';
    memcpy(p, t + from, body), p += body;
    for (size_t i = 0; i < kept; i++)
        next->ends[i] = old->ends[drop + i] + 1 - from;
    if (body) *p++ = ',';
    memcpy(p, entry, elen);
    p += elen;
    next->ends[kept] = (size_t)(p - next->bytes);
    *p = ']';
    next->refs = 1;
    next->len = len;
    text_release(l->text);
    l->text = next;
    l->n = kept + 1;
}

void game_log_append(game_log_t *l, json_t *entry)
{
    char tmp[512]; /* the entry's text, written once when it fits (always, in practice) */
    size_t elen = entry ? json_text(entry, tmp, sizeof tmp) : 0;
    if (!entry) {
        /* out of memory where the entry was made: the log stays as it was */
    } else if (elen <= sizeof tmp) {
        game_log_append_text(l, tmp, elen);
    } else {
        char *big = tapis_malloc(elen);
        if (big) {
            json_text(entry, big, elen);
            game_log_append_text(l, big, elen);
            tapis_free(big);
        }
    }
    json_decref(entry);
}

/* s copied to p, when it is at most JW_STR_INLINE plain bytes (none below
   0x20, no quote or backslash): then jw writes it as it is. Where it ends,
   or NULL. */
static char *put_plain(char *p, const char *s)
{
    for (size_t i = 0; s[i]; i++)
        if (i == JW_STR_INLINE || (unsigned char)s[i] < 0x20 || s[i] == '"' || s[i] == '\\')
            return NULL;
        else
            *p++ = s[i];
    return p;
}

/*
 * {"seat":S,"did":"DID"} and {"seat":S,"did":"DID","KEY":"VALUE"}, as the
 * jw calls below write them, for a seat of 0..999 and plain names (what
 * every event is): 4 calls of jw and its checks cost more than the event.
 * Its length, or 0 for the general path.
 */
static size_t seat_event_text(char *buf, int seat, const char *did, const char *key,
                              const char *value)
{
    if (seat < 0 || seat > 999) return 0;
    char *p = buf;
    memcpy(p, "{\"seat\":", 8), p += 8;
    if (seat >= 100) *p++ = (char)('0' + seat / 100);
    if (seat >= 10) *p++ = (char)('0' + seat / 10 % 10);
    *p++ = (char)('0' + seat % 10);
    memcpy(p, ",\"did\":\"", 8), p += 8;
    if (!(p = put_plain(p, did))) return 0;
    *p++ = '"';
    if (key) {
        memcpy(p, ",\"", 2), p += 2;
        if (!(p = put_plain(p, key))) return 0;
        memcpy(p, "\":\"", 3), p += 3;
        if (!(p = put_plain(p, value))) return 0;
        *p++ = '"';
    }
    *p++ = '}';
    return (size_t)(p - buf);
}

void game_log_seat_event(game_log_t *l, int seat, const char *did, const char *key,
                         const char *value)
{
    char buf[256]; /* (a plain event takes 75 bytes at most) */
    size_t n = seat_event_text(buf, seat, did, key, value);
    if (n) {
        game_log_append_text(l, buf, n);
        return;
    }
    jw_t w;
    jw_text(&w, buf, sizeof buf);
    jw_obj(&w, NULL);
    jw_int(&w, "seat", seat);
    jw_str(&w, "did", did);
    if (key) jw_str_n(&w, key, strlen(key), value);
    jw_end(&w);
    if (jw_ok(&w)) {
        game_log_append_text(l, buf, jw_len(&w));
        return;
    }
    json_t *ev = game_seat_event(seat, did); /* longer than buf: through a tree */
    if (ev && key && json_object_set_new_nocheck(ev, key, json_string(value)) < 0) {
        json_decref(ev);
        ev = NULL;
    }
    game_log_append(l, ev);
}

json_t *game_log_json(const game_log_t *l)
{
    size_t n;
    const char *t = log_bytes(l, &n);
    return json_loadb(t, n, 0, NULL);
}

void game_write_log(jw_t *w, const char *key, const game_log_t *l)
{
    size_t n;
    const char *t = log_bytes(l, &n);
    jw_json_text(w, key, NULL, t, n);
}

size_t game_log_size(const game_log_t *l)
{
    return l->n;
}

void game_log_share(game_log_t *dst, const game_log_t *src)
{
    *dst = *src;
    if (dst->text) dst->text->refs++;
}

void game_log_free(game_log_t *l)
{
    text_release(l->text);
    l->text = NULL;
    l->n = 0;
}
