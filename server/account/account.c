/*
 * account.c — the accounts in memory, their credentials' checks, the login
 * budgets and the profile. See account.h.
 */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/account/account.h"
#include "server/base/log.h"
#include "server/session/session.h"

#define ADDRESS_SWEEP 4096 /* addresses kept before the full ones are forgotten */

struct address_budget {
    char addr[64];
    budget_t b;
    UT_hash_handle hh;
};

/* ------------------------------------------------------------------------ */
/* The table                                                                */
/* ------------------------------------------------------------------------ */

int accounts_init(server_t *srv)
{
    srv->accounts = tapis_calloc(1, sizeof *srv->accounts);
    if (!srv->accounts) return -1;
    queue_init(&srv->accounts->jobs);
    return 0;
}

static void account_free(account_t *a)
{
    tapis_free(a->ratings);
    tapis_free(a);
}

void accounts_free(server_t *srv)
{
    accounts_t *t = srv->accounts;
    if (!t) return;
    account_t *a, *tmp;
    HASH_ITER(hh, t->by_key, a, tmp)
    {
        HASH_DEL(t->by_key, a);
        account_free(a);
    }
    address_budget_t *p, *ptmp;
    HASH_ITER(hh, t->addresses, p, ptmp)
    {
        HASH_DEL(t->addresses, p);
        tapis_free(p);
    }
    tapis_free(t);
    srv->accounts = NULL;
}

void accounts_set_backend(server_t *srv, const account_backend_t *b, void *ctx)
{
    srv->accounts->backend = b;
    srv->accounts->backend_ctx = ctx;
}

int accounts_load(server_t *srv)
{
    accounts_t *t = srv->accounts;
    if (!t->backend || !t->backend->load) return 0;
    if (t->backend->load(t->backend_ctx, srv) < 0) return -1;
    return t->n;
}

account_t *account_here(server_t *srv, const char *name)
{
    char key[64];
    session_name_key(key, name);
    account_t *a = NULL;
    HASH_FIND_STR(srv->accounts->by_key, key, a);
    return a;
}

account_t *account_find(server_t *srv, const char *name)
{
    accounts_t *t = srv->accounts;
    account_t *a = account_here(srv, name);
    if (!a && t->shared && t->shared->fetch && t->shared->fetch(t->shared_ctx, srv, name) > 0)
        a = account_here(srv, name);
    return a;
}

void account_name_key(char out[64], const char *name)
{
    session_name_key(out, name); /* the same folding as the sessions' names */
}

account_t *account_fresh(server_t *srv, const char *name)
{
    accounts_t *t = srv->accounts;
    account_t *a = account_here(srv, name);
    if (t->shared && t->shared->fetch && !(a && a->pending))
        t->shared->fetch(t->shared_ctx, srv, name);
    return account_here(srv, name);
}

void accounts_set_shared(server_t *srv, const account_shared_t *sh, void *ctx)
{
    srv->accounts->shared = sh;
    srv->accounts->shared_ctx = ctx;
}

account_t *account_create(server_t *srv, const char *name, int64_t created)
{
    account_t *a = tapis_calloc(1, sizeof *a);
    if (!a) return NULL;
    snprintf(a->name, sizeof a->name, "%s", name);
    session_name_key(a->name_key, name);
    a->created = created;
    a->pending = true;
    HASH_ADD_STR(srv->accounts->by_key, name_key, a);
    if (!a->hh.tbl) { /* out of memory */
        account_free(a);
        return NULL;
    }
    srv->accounts->n++;
    return a;
}

void account_drop(server_t *srv, account_t *a)
{
    HASH_DEL(srv->accounts->by_key, a);
    srv->accounts->n--;
    account_free(a);
}

void account_saved(server_t *srv, account_t *a)
{
    accounts_t *t = srv->accounts;
    a->pending = false;
    if (t->backend && t->backend->put) t->backend->put(t->backend_ctx, a);
    if (t->shared && t->shared->put) t->shared->put(t->shared_ctx, a);
}

account_t *accounts_loaded(server_t *srv, const char *name, const char *pwhash,
                           const char *key_hash, int64_t created)
{
    if (account_here(srv, name)) return NULL;
    account_t *a = account_create(srv, name, created);
    if (!a) return NULL;
    a->pending = false;
    a->bot = strncmp(name, ACCOUNT_BOT_PREFIX, strlen(ACCOUNT_BOT_PREFIX)) == 0;
    snprintf(a->pwhash, sizeof a->pwhash, "%s", pwhash ? pwhash : "");
    snprintf(a->key_hash, sizeof a->key_hash, "%s", key_hash ? key_hash : "");
    return a;
}

/* "greedy:250" -> "bot:greedy". */
static void bot_name(char out[64], const char *strategy)
{
    snprintf(out, 64, ACCOUNT_BOT_PREFIX "%.*s", (int)strcspn(strategy, ":"), strategy);
}

account_t *account_bot_find(server_t *srv, const char *bot_strategy)
{
    char name[64];
    bot_name(name, bot_strategy);
    return account_here(srv, name); /* the room's seats: memory only, never a round trip */
}

account_t *account_bot(server_t *srv, const char *bot_strategy)
{
    char name[64];
    bot_name(name, bot_strategy);
    account_t *a = account_find(srv, name);
    if (a) return a;
    if (!(a = account_create(srv, name, server_wall_ms()))) return NULL;
    a->bot = true;
    account_saved(srv, a);
    return a;
}

/* ------------------------------------------------------------------------ */
/* Ratings and results                                                      */
/* ------------------------------------------------------------------------ */

account_rating_t *account_rating(const account_t *a, const char *game)
{
    for (int i = 0; i < a->nratings; i++)
        if (strcmp(a->ratings[i].game, game) == 0) return &a->ratings[i];
    return NULL;
}

account_rating_t *account_rating_set(account_t *a, const char *game, double mu, double sigma,
                                     int games, int wins)
{
    account_rating_t *r = account_rating(a, game);
    if (!r) {
        account_rating_t *more =
            tapis_realloc(a->ratings, sizeof *more * (size_t)(a->nratings + 1));
        if (!more) return NULL;
        a->ratings = more;
        r = &a->ratings[a->nratings++];
        memset(r, 0, sizeof *r);
        snprintf(r->game, sizeof r->game, "%s", game);
    }
    r->mu = mu;
    r->sigma = sigma;
    r->games = games;
    r->wins = wins;
    return r;
}

void account_recent_add(account_t *a, const account_result_t *res)
{
    a->recent[a->recent_head] = *res;
    a->recent_head = (a->recent_head + 1) % ACCOUNT_RECENT;
    if (a->nrecent < ACCOUNT_RECENT) a->nrecent++;
}

bool account_shown_rating(const account_t *a, const char *game, double *out)
{
    if (!a || a->pending) return false;
    const account_rating_t *r = account_rating(a, game);
    *out = r ? rating_display((rating_t){r->mu, r->sigma}) : rating_display(rating_new());
    return true;
}

/* A rating as people read it: one decimal. */
static double shown(double x)
{
    char text[32];
    snprintf(text, sizeof text, "%.1f", x);
    return strtod(text, NULL);
}

json_t *account_rating_json(const account_rating_t *r)
{
    return json_pack("{s:s, s:f, s:f, s:f, s:i, s:i, s:b}", "game", r->game, "rating",
                     shown(rating_display((rating_t){r->mu, r->sigma})), "mu", r->mu, "sigma",
                     r->sigma, "games", r->games, "wins", r->wins, "provisional",
                     r->sigma > ACCOUNT_PROVISIONAL);
}

json_t *account_board_row(const account_t *a, const account_rating_t *r)
{
    json_t *e = account_rating_json(r);
    json_object_del(e, "game");
    json_object_set_new(e, "name", json_string(a->name));
    json_object_set_new(e, "bot", json_boolean(a->bot));
    return e;
}

json_t *account_profile_json(const account_t *a)
{
    unsigned long mark = tapis_alloc_failures();
    json_t *ratings = json_array(), *recent = json_array();
    for (int i = 0; i < a->nratings; i++)
        json_array_append_new(ratings, account_rating_json(&a->ratings[i]));
    for (int k = 1; k <= a->nrecent; k++) {
        const account_result_t *r =
            &a->recent[(a->recent_head - k + ACCOUNT_RECENT) % ACCOUNT_RECENT];
        json_array_append_new(recent,
                              json_pack("{s:s, s:s, s:i, s:i, s:b, s:f, s:f, s:I}", "game", r->game,
                                        "room", r->room, "place", r->place, "sides", r->sides,
                                        "abandoned", r->abandoned, "before", shown(r->before),
                                        "after", shown(r->after), "at", (json_int_t)r->at));
    }
    return game_json_checked(json_pack("{s:s, s:b, s:I, s:o, s:o}", "name", a->name, "bot", a->bot,
                                       "created", (json_int_t)a->created, "ratings", ratings,
                                       "recent", recent),
                             mark);
}

/* ------------------------------------------------------------------------ */
/* Credentials                                                              */
/* ------------------------------------------------------------------------ */

void account_key_hash(const char *key, char out[ACCOUNT_HASH_LEN + 1])
{
    unsigned char h[32];
    crypto_generichash(h, sizeof h, (const unsigned char *)key, strlen(key), NULL, 0);
    sodium_bin2hex(out, ACCOUNT_HASH_LEN + 1, h, sizeof h);
}

bool account_key_ok(const account_t *a, const char *key)
{
    if (a->bot || a->pending || strlen(a->key_hash) != ACCOUNT_HASH_LEN) return false;
    char h[ACCOUNT_HASH_LEN + 1];
    account_key_hash(key, h);
    return sodium_memcmp(h, a->key_hash, ACCOUNT_HASH_LEN) == 0;
}

/* Forget the addresses whose budget is full again (they have nothing to remember). */
static void sweep_addresses(accounts_t *t, uint64_t now)
{
    address_budget_t *p, *tmp;
    HASH_ITER(hh, t->addresses, p, tmp)
    {
        if (p->b.tat <= now) {
            HASH_DEL(t->addresses, p);
            tapis_free(p);
            t->naddresses--;
        }
    }
}

bool account_attempt(server_t *srv, account_t *a, const char *addr, uint64_t now_us)
{
    accounts_t *t = srv->accounts;
    /* --login-rate N: a burst of N, then N a minute. */
    uint64_t burst = srv->opts.login_rate, interval = burst ? 60000000 / burst : 0;
    if (!interval) return true;
    address_budget_t *p = NULL;
    HASH_FIND_STR(t->addresses, addr, p);
    if (!p) {
        if (t->naddresses >= ADDRESS_SWEEP) sweep_addresses(t, now_us);
        if ((p = tapis_calloc(1, sizeof *p))) {
            snprintf(p->addr, sizeof p->addr, "%s", addr);
            HASH_ADD_STR(t->addresses, addr, p);
            if (p->hh.tbl) {
                t->naddresses++;
            } else {
                tapis_free(p);
                p = NULL;
            }
        }
    }
    /* No memory to remember the address: its attempts count on the name only. */
    if (p && !budget_take(&p->b, now_us, interval, burst)) return false;
    return !a || budget_take(&a->login_budget, now_us, interval, burst);
}
