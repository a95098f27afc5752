/*
 * accounts.c — the lobby's account commands: register, hello with a
 * password or a key, profile, leaderboard (server/account/account.h keeps
 * the accounts).
 *
 * Argon2id costs tens of milliseconds and 64 MiB by design: a password is
 * hashed or checked on libuv's thread pool, never on the loop. Meanwhile
 * the connection's next lines wait (conn.h, lines_held), so replies keep
 * the order of the requests; a connection that closes meanwhile gets
 * nothing, and a register it made is forgotten. Passwords and keys are
 * never logged: the log says "account NAME registered" and "hello NAME
 * (account)".
 */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/account/account.h"
#include "server/base/log.h"
#include "server/lobby/dispatch.h"
#include "server/net/conn.h"
#include "server/room/room.h"
#include "server/session/session.h"
#include "protocol/commands.h"
#include "protocol/text.h"

#define LEADERBOARD_PAGE_DEFAULT 20

/* ------------------------------------------------------------------------ */
/* Password jobs on the thread pool                                         */
/* ------------------------------------------------------------------------ */

typedef struct pw_job {
    uv_work_t work;
    server_t *srv;
    conn_t *conn; /* NULL once it closed */
    json_t *msg;  /* the request, kept */
    cmd_id_t cmd; /* CMD_REGISTER or CMD_HELLO */
    uint64_t stamp;
    account_t *account;                      /* register: the pending one; hello: the one */
    char password[ACCOUNT_PASSWORD_MAX + 1]; /* wiped when done */
    char pwhash[ACCOUNT_PWHASH_SIZE];        /* register: made; hello: to check */
    int rc;                                  /* the thread's verdict: 0 = made, or it matches */
    queue_t node;                            /* in accounts->jobs */
} pw_job_t;

static void pw_work(uv_work_t *w)
{
    pw_job_t *j = w->data;
    size_t len = strlen(j->password);
    if (j->cmd == CMD_REGISTER) {
        bool min = j->srv->opts.pwhash_min;
        j->rc = crypto_pwhash_str(
            j->pwhash, j->password, len,
            min ? crypto_pwhash_OPSLIMIT_MIN : crypto_pwhash_OPSLIMIT_INTERACTIVE,
            min ? crypto_pwhash_MEMLIMIT_MIN : crypto_pwhash_MEMLIMIT_INTERACTIVE);
    } else {
        j->rc = crypto_pwhash_str_verify(j->pwhash, j->password, len);
    }
    sodium_memzero(j->password, sizeof j->password);
}

static void register_done(request_t *req, pw_job_t *j);
static void login_done(request_t *req, pw_job_t *j);

/* A register that did not end: its name is free again, here and in the cluster. */
static void register_failed(server_t *srv, account_t *a)
{
    accounts_t *t = srv->accounts;
    if (t->shared && t->shared->release) t->shared->release(t->shared_ctx, a);
    account_drop(srv, a);
}

static void pw_after(uv_work_t *w, int status)
{
    pw_job_t *j = w->data;
    queue_remove(&j->node);
    sodium_memzero(j->password, sizeof j->password);
    conn_t *c = j->conn;
    if (!c) {
        if (j->cmd == CMD_REGISTER) register_failed(j->srv, j->account); /* nobody learnt its key */
    } else {
        request_t req = {
            .conn = c,
            .session = c->session,
            .msg = j->msg,
            .re = command_get(j->cmd)->name,
            .id = json_object_get(j->msg, "id"),
            .stamp = j->stamp,
        };
        if (status < 0) j->rc = -1;
        if (j->cmd == CMD_REGISTER)
            register_done(&req, j);
        else
            login_done(&req, j);
        if (!req.replied) req_fail(&req, TAPIS_E_INTERNAL, "internal error");
        c->lines_held--;
        conn_update_ready(c);
    }
    sodium_memzero(j->pwhash, sizeof j->pwhash);
    json_decref(j->msg);
    tapis_free(j);
}

/* Hash or check `password` off the loop; the reply comes from register_done()/login_done(). */
static void pw_start(request_t *req, cmd_id_t cmd, account_t *a, const char *password)
{
    server_t *srv = req->conn->srv;
    pw_job_t *j = tapis_calloc(1, sizeof *j);
    if (!j) {
        if (cmd == CMD_REGISTER) register_failed(srv, a);
        req_fail(req, TAPIS_E_INTERNAL, "out of memory");
        return;
    }
    j->work.data = j;
    j->srv = srv;
    j->conn = req->conn;
    j->msg = json_incref(req->msg);
    j->cmd = cmd;
    j->stamp = req->stamp;
    j->account = a;
    snprintf(j->password, sizeof j->password, "%s", password);
    if (cmd == CMD_HELLO) memcpy(j->pwhash, a->pwhash, sizeof j->pwhash);
    if (uv_queue_work(srv->loop, &j->work, pw_work, pw_after) < 0) {
        if (cmd == CMD_REGISTER) register_failed(srv, a);
        sodium_memzero(j->password, sizeof j->password);
        json_decref(j->msg);
        tapis_free(j);
        req_fail(req, TAPIS_E_INTERNAL, "cannot start the password's hash");
        return;
    }
    queue_insert_tail(&srv->accounts->jobs, &j->node);
    req->replied = true; /* later, in order: the connection's next lines wait */
    req->conn->lines_held++;
}

void lobby_accounts_conn_closed(conn_t *c)
{
    accounts_t *t = c->srv->accounts;
    if (!t) return;
    for (queue_t *q = queue_head(&t->jobs); q != &t->jobs; q = queue_next(q)) {
        pw_job_t *j = queue_data(q, pw_job_t, node);
        if (j->conn == c) j->conn = NULL;
    }
}

/* ------------------------------------------------------------------------ */
/* register                                                                 */
/* ------------------------------------------------------------------------ */

/* The client's address, without its port: the unit of the address budget. */
static void client_addr(const conn_t *c, char out[64])
{
    const char *colon = strrchr(c->peer, ':');
    size_t n = colon ? (size_t)(colon - c->peer) : strlen(c->peer);
    snprintf(out, 64, "%.*s", (int)n, c->peer);
}

/* One attempt of a's (NULL: a register) from req's address; false after replying rate_limited. */
static bool attempt(request_t *req, account_t *a)
{
    server_t *srv = req->conn->srv;
    char addr[64];
    client_addr(req->conn, addr);
    if (account_attempt(srv, a, addr, req->stamp)) return true;
    srv->metrics.rate_limited[BUDGET_LOGIN]++;
    req_fail(req, TAPIS_E_RATE_LIMITED,
             "%llu registers and logins a minute per name and address; wait a little",
             (unsigned long long)srv->opts.login_rate);
    return false;
}

void lobby_register(request_t *req)
{
    server_t *srv = req->conn->srv;
    const char *name = json_string_value(json_object_get(req->msg, "name"));
    const char *password = json_string_value(json_object_get(req->msg, "password"));
    if (!req_name_ok(req, name)) return;
    if (strlen(password) < ACCOUNT_PASSWORD_MIN) {
        req_fail(req, TAPIS_E_BAD_PASSWORD, "a password has at least %d bytes",
                 ACCOUNT_PASSWORD_MIN);
        return;
    }
    if (!attempt(req, NULL)) return;
    if (account_find(srv, name)) {
        req_fail(req, TAPIS_E_NAME_TAKEN, "\"%s\" is registered already", name);
        return;
    }
    session_t *same = session_find_name(srv, name);
    if (same && same != req->session) {
        req_fail(req, TAPIS_E_NAME_TAKEN, "someone here is called \"%s\" now", name);
        return;
    }
    account_t *a = account_create(srv, name, server_wall_ms());
    if (!a) {
        req_fail(req, TAPIS_E_INTERNAL, "out of memory");
        return;
    }
    accounts_t *t = srv->accounts; /* in a cluster, the name is the cluster's */
    int claimed = t->shared && t->shared->claim ? t->shared->claim(t->shared_ctx, a) : 1;
    if (claimed <= 0) {
        account_drop(srv, a);
        if (claimed == 0)
            req_fail(req, TAPIS_E_NAME_TAKEN, "\"%s\" is registered already", name);
        else
            req_fail(req, TAPIS_E_UNAVAILABLE, "the cluster cannot be reached; try again");
        return;
    }
    pw_start(req, CMD_REGISTER, a, password);
}

static void register_done(request_t *req, pw_job_t *j)
{
    server_t *srv = req->conn->srv;
    account_t *a = j->account;
    unsigned char raw[ACCOUNT_KEY_LEN / 2];
    char key[ACCOUNT_KEY_LEN + 1];
    if (j->rc != 0 || server_random(raw, sizeof raw) < 0) {
        register_failed(srv, a);
        req_fail(req, TAPIS_E_INTERNAL, "the password could not be hashed");
        return;
    }
    sodium_bin2hex(key, sizeof key, raw, sizeof raw);
    /* The guest who holds the name now (this connection's session) becomes its owner. */
    session_t *s = req->session;
    bool logged_in = s && strcmp(s->name_key, a->name_key) == 0;
    json_t *reply = req_ok_prepare(
        req, json_pack("{s:s, s:s, s:b}", "name", a->name, "key", key, "logged_in", logged_in));
    if (!reply) {
        register_failed(srv, a);
        req_fail(req, TAPIS_E_INTERNAL, "out of memory");
        return;
    }
    memcpy(a->pwhash, j->pwhash, sizeof a->pwhash);
    account_key_hash(key, a->key_hash);
    sodium_memzero(key, sizeof key);
    account_saved(srv, a);
    if (logged_in) s->account = a;
    log_info("conn %llu: account %s registered", (unsigned long long)req->conn->id, a->name);
    req_send(req, reply);
}

/* ------------------------------------------------------------------------ */
/* hello with a password or a key                                           */
/* ------------------------------------------------------------------------ */

void lobby_account_hello(request_t *req)
{
    server_t *srv = req->conn->srv;
    const char *name = json_string_value(json_object_get(req->msg, "name"));
    const char *password = json_string_value(json_object_get(req->msg, "password"));
    const char *key = json_string_value(json_object_get(req->msg, "key"));
    if (password && key) {
        req_fail(req, TAPIS_E_BAD_REQUEST, "hello: a password or a key, not both");
        return;
    }
    account_t *a = account_find(srv, name);
    if (!a || a->bot || a->pending) {
        if (attempt(req, NULL))
            req_fail(req, TAPIS_E_NOT_FOUND, "no account \"%s\" (register NAME PASSWORD)", name);
        return;
    }
    if (!attempt(req, a)) return;
    if (key) {
        if (account_key_ok(a, key))
            lobby_hello_as(req, a);
        else
            req_fail(req, TAPIS_E_BAD_PASSWORD, "wrong key for \"%s\"", a->name);
        return;
    }
    pw_start(req, CMD_HELLO, a, password);
}

static void login_done(request_t *req, pw_job_t *j)
{
    if (j->rc != 0) {
        req_fail(req, TAPIS_E_BAD_PASSWORD, "wrong password for \"%s\"", j->account->name);
        return;
    }
    lobby_hello_as(req, j->account);
}

/* ------------------------------------------------------------------------ */
/* profile and leaderboard                                                  */
/* ------------------------------------------------------------------------ */

void lobby_profile(request_t *req)
{
    const char *name = json_string_value(json_object_get(req->msg, "name"));
    session_t *s = req->session;
    if (!name) name = s->account ? s->account->name : s->name;
    account_t *a = account_fresh(req->conn->srv, name); /* another node may have rated it */
    if (!a || a->pending) {
        req_fail(req, TAPIS_E_NOT_FOUND, "no account \"%s\"", name);
        return;
    }
    req_ok(req, account_profile_json(a));
}

typedef struct ranked {
    const account_t *a;
    const account_rating_t *r;
    double shown;
} ranked_t;

static int by_rating(const void *x, const void *y)
{
    const ranked_t *a = x, *b = y;
    if (a->shown != b->shown) return a->shown < b->shown ? 1 : -1;
    return strcmp(a->a->name_key, b->a->name_key);
}

/* Sorted entries [from, to) of list as JSON, places counted from `first`. */
static json_t *board_json(const ranked_t *list, long long from, long long to, long long first)
{
    json_t *out = json_array();
    for (long long i = from; i < to; i++) {
        json_t *e = account_board_row(list[i].a, list[i].r);
        if (first > 0) json_object_set_new(e, "place", json_integer(first + i - from));
        json_array_append_new(out, e);
    }
    return out;
}

void lobby_leaderboard(request_t *req)
{
    server_t *srv = req->conn->srv;
    json_t *m = req->msg;
    const char *game = json_string_value(json_object_get(m, "game"));
    int limit = json_object_get(m, "limit") ? (int)json_integer_value(json_object_get(m, "limit"))
                                            : LEADERBOARD_PAGE_DEFAULT;
    long long offset = json_integer_value(json_object_get(m, "offset"));
    if (!game_find(game)) {
        req_fail(req, TAPIS_E_NOT_FOUND, "no game \"%s\" (see games)", game);
        return;
    }
    accounts_t *t = srv->accounts;
    json_t *shared =
        t->shared && t->shared->board ? t->shared->board(t->shared_ctx, game, limit, offset) : NULL;
    if (shared) { /* the cluster's board: the same page, read from Redis */
        json_object_set_new(shared, "game", json_string(game));
        uint64_t rate = srv->opts.line_rate;
        budget_charge(&req->conn->line_budget, req->stamp, rate ? 1000000 / rate : 0,
                      (uint64_t)(2 * limit / 5));
        req_ok(req, shared);
        return;
    }
    ranked_t *list = tapis_malloc(sizeof *list * (size_t)(t->n ? t->n : 1));
    if (!list) {
        req_fail(req, TAPIS_E_INTERNAL, "out of memory");
        return;
    }
    /* The established first (sorted), then the provisional (sorted) after them. */
    long long n = 0, nprov = 0;
    for (const account_t *a = t->by_key; a; a = a->hh.next) {
        const account_rating_t *r = account_rating(a, game);
        if (r && r->sigma <= ACCOUNT_PROVISIONAL)
            list[n++] = (ranked_t){a, r, rating_display((rating_t){r->mu, r->sigma})};
    }
    for (const account_t *a = t->by_key; a; a = a->hh.next) {
        const account_rating_t *r = account_rating(a, game);
        if (r && r->sigma > ACCOUNT_PROVISIONAL)
            list[n + nprov++] = (ranked_t){a, r, rating_display((rating_t){r->mu, r->sigma})};
    }
    qsort(list, (size_t)n, sizeof *list, by_rating);
    qsort(list + n, (size_t)nprov, sizeof *list, by_rating);
    long long from = offset < n ? offset : n, to = from + limit < n ? from + limit : n;
    long long pto = nprov < limit ? nprov : limit;
    unsigned long mark = tapis_alloc_failures();
    json_t *page =
        json_pack("{s:s, s:o, s:I, s:i, s:I, s:o, s:I, s:f}", "game", game, "players",
                  board_json(list, from, to, from + 1), "total", (json_int_t)n, "limit", limit,
                  "offset", (json_int_t)offset, "provisional", board_json(list + n, 0, pto, 0),
                  "provisional_total", (json_int_t)nprov, "provisional_sigma", ACCOUNT_PROVISIONAL);
    tapis_free(list);
    /* Charged like a page of rooms: one line per 100 accounts looked at, per 5 sent. */
    uint64_t rate = srv->opts.line_rate;
    budget_charge(&req->conn->line_budget, req->stamp, rate ? 1000000 / rate : 0,
                  (uint64_t)(t->n / 100 + (to - from + pto) / 5));
    req_ok(req, game_json_checked(page, mark));
}

/* ------------------------------------------------------------------------ */
/* The restart                                                              */
/* ------------------------------------------------------------------------ */

/* A rated room the backend kept: the restored room of that id plays rated again. */
static void attach_rated(server_t *srv, const char *room_id, const json_t *data)
{
    accounts_t *t = srv->accounts;
    room_t *r = room_find(srv, room_id);
    rated_room_t *rr =
        r && !r->rated && r->status == ROOM_PLAYING ? rated_room_from_json(srv, data) : NULL;
    if (rr) {
        r->rated = rr;
        log_info("room %s: rated again", room_id);
    } else if (t->backend->rated_room) { /* gone, over or unreadable: forget it */
        t->backend->rated_room(t->backend_ctx, room_id, NULL);
    }
}

int lobby_accounts_restore(server_t *srv)
{
    accounts_t *t = srv->accounts;
    if (!t->backend || !t->backend->rated_rooms) return 0;
    return t->backend->rated_rooms(t->backend_ctx, srv, attach_rated);
}

/* A room taken over from a dead node: rated again if it was, or rated now if its journal
   ended the game before the dead node could. */
void lobby_accounts_taken_over(server_t *srv, const char *room_id, durable_verdict_t v, room_t *r,
                               const json_t *result)
{
    accounts_t *t = srv->accounts;
    json_t *data = t->shared && t->shared->rated_room_get
                       ? t->shared->rated_room_get(t->shared_ctx, room_id)
                       : NULL;
    if (!data) return;
    rated_room_t *rr = rated_room_from_json(srv, data);
    json_decref(data);
    if (rr && v == DURABLE_ROOM_REBUILT && r && !r->rated && r->status == ROOM_PLAYING) {
        r->rated = rr;
        log_info("room %s: rated again after its node's death", room_id);
        return;
    }
    if (rr && v == DURABLE_ROOM_OVER && result) /* ended on the dead node, not yet rated */
        json_decref(rated_room_over(srv, rr, room_id, result));
    rated_room_free(rr);
}
