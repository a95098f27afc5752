/* session.c — identities, reconnect tokens, names, the rooms of a session, its hold. */
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "server/net/conn.h"
#include "server/base/log.h"
#include "server/session/session.h"
#include "server/durable/durable.h"

/* ------------------------------------------------------------------------ */
/* Creation and lookup                                                      */
/* ------------------------------------------------------------------------ */

static int make_token(char out[TOKEN_LEN + 1])
{
    unsigned char raw[TOKEN_LEN / 2];
    if (server_random(raw, sizeof raw) < 0) return -1;
    for (size_t i = 0; i < sizeof raw; i++) {
        out[2 * i] = "0123456789abcdef"[raw[i] >> 4];
        out[2 * i + 1] = "0123456789abcdef"[raw[i] & 15];
    }
    out[TOKEN_LEN] = 0;
    return 0;
}

void session_token_hash(const char *token, char out[TOKEN_HASH_LEN + 1])
{
    unsigned char h[TOKEN_HASH_LEN / 2];
    crypto_generichash(h, sizeof h, (const unsigned char *)token, strlen(token), NULL, 0);
    for (size_t i = 0; i < sizeof h; i++) {
        out[2 * i] = "0123456789abcdef"[h[i] >> 4];
        out[2 * i + 1] = "0123456789abcdef"[h[i] & 15];
    }
    out[TOKEN_HASH_LEN] = 0;
}

static void on_hold_close(uv_handle_t *h)
{
    session_t *s = h->data;
    if (s->rooms != s->rooms_here) tapis_free(s->rooms);
    tapis_free(s);
}

void session_name_key(char out[64], const char *name)
{
    size_t i = 0;
    for (; name[i] && i < 63; i++)
        out[i] = name[i] >= 'A' && name[i] <= 'Z' ? (char)(name[i] - 'A' + 'a') : name[i];
    out[i] = 0;
}

session_t *session_find_name(server_t *srv, const char *name)
{
    char key[64];
    session_name_key(key, name);
    session_t *s;
    HASH_FIND(hh_name, srv->by_name, key, strlen(key), s);
    return s;
}

/* The key of `name` into `key`; 1 when it is not s's own and no other session
   here holds it, 0 when it is s's own, -1 when another session holds it. */
static int name_change(session_t *s, const char *name, char key[64])
{
    session_name_key(key, name);
    if (strcmp(key, s->name_key) == 0) return 0;
    session_t *same = session_find_name(s->srv, name);
    return same && same != s ? -1 : 1;
}

int session_rename(session_t *s, const char *name, session_claim_fn claim)
{
    server_t *srv = s->srv;
    char key[64];
    int change = name_change(s, name, key);
    if (change < 0 || (change > 0 && claim && claim(s, key) < 0)) return -1;
    if (change > 0) {
        char old[sizeof s->name_key];
        memcpy(old, s->name_key, sizeof old);
        HASH_DELETE(hh_name, srv->by_name, s);
        snprintf(s->name_key, sizeof s->name_key, "%s", key);
        HASH_ADD(hh_name, srv->by_name, name_key[0], strlen(s->name_key), s);
        if (!s->hh_name.tbl) { /* out of memory: keep the old name (if it can be put back) */
            memcpy(s->name_key, old, sizeof old);
            HASH_ADD(hh_name, srv->by_name, name_key[0], strlen(s->name_key), s);
            return -1;
        }
    }
    bool changed = strcmp(s->name, name) != 0;
    snprintf(s->name, sizeof s->name, "%s", name);
    if (changed) {
        durable_session_t d = session_durable(s);
        durable_session_rename(&srv->durable, &d);
    }
    return 0;
}

/* Fill and index a new session (no connection yet). Returns -1 when out of memory. */
static int session_insert(server_t *srv, session_t *s, const char *name)
{
    s->srv = srv;
    s->race_quota_us = SESSION_RACE_QUOTA_CAPS * srv->opts.race_cap * 1000; /* full */
    snprintf(s->name, sizeof s->name, "%s", name);
    session_name_key(s->name_key, name);
    HASH_ADD(hh, srv->by_token, token_hash[0], strlen(s->token_hash), s);
    if (!s->hh.tbl) return -1;
    HASH_ADD(hh_name, srv->by_name, name_key[0], strlen(s->name_key), s);
    if (!s->hh_name.tbl) {
        HASH_DELETE(hh, srv->by_token, s);
        return -1;
    }
    uv_timer_init(srv->loop, &s->hold);
    s->hold.data = s;
    s->hold_open = true;
    queue_insert_head(&srv->sessions, &s->node);
    return 0;
}

session_t *session_create(server_t *srv, conn_t *c, const char *name)
{
    session_t *s = tapis_calloc(1, sizeof *s);
    if (!s || make_token(s->token) < 0) {
        log_error("hello: cannot create a session (out of memory or no OS randomness)");
        tapis_free(s);
        return NULL;
    }
    session_token_hash(s->token, s->token_hash);
    uint64_t cid = durable_next_id(&srv->durable, "session");
    s->id = cid ? cid : ++srv->next_session_id;
    if (s->id > srv->next_session_id) srv->next_session_id = s->id;
    s->created = server_wall_ms();
    if (session_insert(srv, s, name) < 0) {
        tapis_free(s);
        return NULL;
    }
    s->conn = c;
    c->session = s;
    durable_session_t d = session_durable(s);
    durable_session_new(&srv->durable, &d);
    return s;
}

session_t *session_restore(server_t *srv, uint64_t id, const char *name, const char *token_hash,
                           int64_t created)
{
    session_t *s = tapis_calloc(1, sizeof *s);
    if (!s || strlen(token_hash) != TOKEN_HASH_LEN || session_find_name(srv, name)) {
        tapis_free(s);
        return NULL;
    }
    s->id = id;
    s->created = created;
    snprintf(s->token_hash, sizeof s->token_hash, "%s", token_hash);
    if (session_insert(srv, s, name) < 0) {
        tapis_free(s);
        return NULL;
    }
    return s;
}

session_t *session_find(server_t *srv, const char *token)
{
    char hash[TOKEN_HASH_LEN + 1];
    session_token_hash(token, hash);
    session_t *s;
    HASH_FIND(hh, srv->by_token, hash, TOKEN_HASH_LEN, s);
    /* A restored session learns its token again from the hello that proves it. */
    if (s && !s->token[0] && strlen(token) == TOKEN_LEN) memcpy(s->token, token, TOKEN_LEN + 1);
    return s;
}

/* ------------------------------------------------------------------------ */
/* Membership                                                               */
/* ------------------------------------------------------------------------ */

durable_session_t session_durable(const session_t *s)
{
    return (durable_session_t){.id = s->id,
                               .name = s->name,
                               .name_key = s->name_key,
                               .token_hash = s->token_hash,
                               .created = s->created};
}

int session_add_room(session_t *s, struct room *r)
{
    for (int i = 0; i < s->nrooms; i++)
        if (s->rooms[i] == r) return 0;
    if (!s->caprooms) {
        s->rooms = s->rooms_here;
        s->caprooms = SESSION_ROOMS_HERE;
    }
    if (s->nrooms == s->caprooms) {
        int cap = 2 * s->caprooms;
        bool here = s->rooms == s->rooms_here;
        struct room **n = tapis_realloc(here ? NULL : s->rooms, (size_t)cap * sizeof *n);
        if (!n) return -1;
        if (here) memcpy(n, s->rooms_here, sizeof s->rooms_here);
        s->rooms = n;
        s->caprooms = cap;
    }
    s->rooms[s->nrooms++] = r;
    return 1;
}

bool session_remove_room(session_t *s, struct room *r)
{
    for (int i = 0; i < s->nrooms; i++)
        if (s->rooms[i] == r) {
            memmove(s->rooms + i, s->rooms + i + 1, (size_t)(s->nrooms - i - 1) * sizeof *s->rooms);
            s->nrooms--;
            return true;
        }
    return false;
}

struct room *session_single_room(const session_t *s)
{
    return s->nrooms == 1 ? s->rooms[0] : NULL;
}

/* ------------------------------------------------------------------------ */
/* Hold and end                                                             */
/* ------------------------------------------------------------------------ */

static void on_hold_expired(uv_timer_t *t)
{
    session_t *s = t->data;
    if (s->on_expired) s->on_expired(s);
}

void session_hold(session_t *s, uint64_t ms, session_expired_fn on_expired)
{
    s->on_expired = on_expired;
    uv_timer_start(&s->hold, on_hold_expired, ms, 0);
}

void session_unhold(session_t *s)
{
    uv_timer_stop(&s->hold);
}

void session_close(session_t *s)
{
    server_t *srv = s->srv;
    s->gone = true;
    if (s->conn) {
        s->conn->session = NULL;
        s->conn = NULL;
    }
    durable_session_t d = session_durable(s);
    durable_session_end(&srv->durable, &d);
    HASH_DELETE(hh, srv->by_token, s);
    if (s->hh_name.tbl) HASH_DELETE(hh_name, srv->by_name, s); /* else a rename lost it */
    queue_remove(&s->node);
    if (s->hold_open) {
        s->hold_open = false;
        uv_close((uv_handle_t *)&s->hold, on_hold_close);
    }
}
