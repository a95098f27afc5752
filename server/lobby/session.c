/* session.c — identities, reconnect tokens and the reconnect window. */
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "server/cluster/cluster.h"
#include "server/net/conn.h"
#include "protocol/envelope.h"
#include "server/base/log.h"
#include "server/room/room.h"
#include "server/lobby/session.h"
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
    tapis_free(s->rooms);
    tapis_free(s);
}

/* The lookup key of a name: ASCII letters folded to lower case. */
static void name_key(char out[64], const char *name)
{
    size_t i = 0;
    for (; name[i] && i < 63; i++)
        out[i] = name[i] >= 'A' && name[i] <= 'Z' ? (char)(name[i] - 'A' + 'a') : name[i];
    out[i] = 0;
}

session_t *session_find_name(server_t *srv, const char *name)
{
    char key[64];
    name_key(key, name);
    session_t *s;
    HASH_FIND(hh_name, srv->by_name, key, strlen(key), s);
    return s;
}

int session_rename(session_t *s, const char *name)
{
    server_t *srv = s->srv;
    char key[64];
    name_key(key, name);
    if (strcmp(key, s->name_key) != 0) {
        session_t *same = session_find_name(srv, name);
        if (same && same != s) return -1;
        char old[sizeof s->name_key];
        memcpy(old, s->name_key, sizeof old);
        if (cluster_claim_name(srv, key, s->id) < 0) return -1;
        cluster_release_name(srv, old, s->id);
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
        durable_session_rename(&srv->durable, s);
    }
    return 0;
}

/* Fill and index a new session (no connection yet). Returns -1 when out of memory. */
static int session_insert(server_t *srv, session_t *s, const char *name)
{
    s->srv = srv;
    snprintf(s->name, sizeof s->name, "%s", name);
    name_key(s->name_key, name);
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
    durable_session_new(&srv->durable, s);
    return s;
}

static void on_hold_expired(uv_timer_t *t);

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
    /* Held from the restart: seats of people not back in time go to bots. */
    uv_timer_start(&s->hold, on_hold_expired, srv->opts.reconnect_window, 0);
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

int session_add_room(session_t *s, room_t *r)
{
    for (int i = 0; i < s->nrooms; i++)
        if (s->rooms[i] == r) return 0;
    if (s->nrooms == s->caprooms) {
        int cap = s->caprooms ? 2 * s->caprooms : 4;
        room_t **n = tapis_realloc(s->rooms, (size_t)cap * sizeof *n);
        if (!n) return -1;
        s->rooms = n;
        s->caprooms = cap;
    }
    s->rooms[s->nrooms++] = r;
    durable_session_room(&s->srv->durable, s, r, true);
    return 0;
}

void session_remove_room(session_t *s, room_t *r)
{
    for (int i = 0; i < s->nrooms; i++)
        if (s->rooms[i] == r) {
            memmove(s->rooms + i, s->rooms + i + 1, (size_t)(s->nrooms - i - 1) * sizeof *s->rooms);
            s->nrooms--;
            durable_session_room(&s->srv->durable, s, r, false);
            return;
        }
}

room_t *session_single_room(const session_t *s)
{
    return s->nrooms == 1 ? s->rooms[0] : NULL;
}

/* ------------------------------------------------------------------------ */
/* Disconnect, hold, reconnect                                              */
/* ------------------------------------------------------------------------ */

static bool holds_a_seat(const session_t *s)
{
    for (int i = 0; i < s->nrooms; i++)
        if (room_holds_seat(s->rooms[i], s)) return true;
    return false;
}

/* Leave every room (bots take the seats of games in play), then destroy s. */
static void session_end(session_t *s)
{
    while (s->nrooms > 0) /* leaving a room edits s->rooms */
        room_release(s->rooms[s->nrooms - 1], s);
    session_destroy(s);
}

static void on_hold_expired(uv_timer_t *t)
{
    session_t *s = t->data;
    log_info("session %llu (%s): reconnect window passed; bots take the seats",
             (unsigned long long)s->id, s->name);
    session_end(s);
}

void session_kick(session_t *s, const char *message)
{
    conn_t *c = s->conn;
    if (c) {
        s->conn = NULL;
        c->session = NULL;
        json_t *ev = proto_event("kicked");
        json_object_set_new(ev, "message", json_string(message));
        conn_send_new(c, ev);
        conn_close_after_flush(c, "kicked");
    }
    uv_timer_stop(&s->hold);
    session_end(s);
}

void session_detach(session_t *s)
{
    server_t *srv = s->srv;
    s->conn = NULL;
    if (s->gone) return;
    if (srv->stopping || !holds_a_seat(s)) {
        session_destroy(s);
        return;
    }
    log_info("session %llu (%s): disconnected; seats held for %llu ms", (unsigned long long)s->id,
             s->name, (unsigned long long)srv->opts.reconnect_window);
    /* Watching needs a connection; seats wait for the player. */
    for (int i = s->nrooms - 1; i >= 0; i--) {
        room_t *r = s->rooms[i];
        if (room_holds_seat(r, s))
            room_member_disconnected(r, s);
        else
            room_release(r, s);
    }
    uv_timer_start(&s->hold, on_hold_expired, srv->opts.reconnect_window, 0);
}

void session_attach(session_t *s, conn_t *c)
{
    if (s->conn && s->conn != c) {
        conn_t *old = s->conn;
        old->session = NULL;
        json_t *ev = json_pack("{s:s, s:s}", "ev", "replaced", "message",
                               "this session was taken over by a new connection");
        conn_send_new(old, ev);
        conn_close_after_flush(old, "session taken over");
    }
    uv_timer_stop(&s->hold);
    s->conn = c;
    c->session = s;
    log_info("session %llu (%s): back on conn %llu", (unsigned long long)s->id, s->name,
             (unsigned long long)c->id);
    for (int i = 0; i < s->nrooms; i++)
        room_member_reconnected(s->rooms[i], s);
}

void session_destroy(session_t *s)
{
    server_t *srv = s->srv;
    if (s->gone) return;
    s->gone = true;
    if (s->conn) {
        s->conn->session = NULL;
        s->conn = NULL;
    }
    while (s->nrooms > 0)
        room_release(s->rooms[s->nrooms - 1], s);
    durable_session_end(&srv->durable, s);
    HASH_DELETE(hh, srv->by_token, s);
    if (s->hh_name.tbl) HASH_DELETE(hh_name, srv->by_name, s); /* else a rename lost it */
    queue_remove(&s->node);
    if (s->hold_open) {
        s->hold_open = false;
        uv_close((uv_handle_t *)&s->hold, on_hold_close);
    }
}
