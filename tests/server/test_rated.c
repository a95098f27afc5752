/*
 * test_rated.c — a rated room's end (server/account/rated.c) alone, linked
 * with the accounts part only: the places it gives (winners first, the rest
 * tied, a seat that left last and alone, a draw, seqnum's teams as one side,
 * a bot level at several seats rated once), and in a cluster the update
 * computed again when another node's game changed a rating meanwhile, so
 * that neither update is lost. The cluster is this test's fake
 * (account_shared_t): one "remote" rating per account, with its version.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "server/account/account.h"
#include "server/server.h"
#include "tests/lib/test_main.h"

/* What the accounts part needs of the parts it is not linked with. */
int64_t server_wall_ms(void)
{
    return 1;
}

void session_name_key(char out[64], const char *name)
{
    snprintf(out, 64, "%s", name);
}

static void assert_near(double got, double want)
{
    if (fabs(got - want) > 1e-9) fail_msg("got %.12f, want %.12f", got, want);
}

/* ------------------------------------------------------------------------ */
/* A table                                                                  */
/* ------------------------------------------------------------------------ */

static server_t srv;

static int setup(void **state)
{
    (void)state;
    memset(&srv, 0, sizeof srv);
    return accounts_init(&srv);
}

static int teardown(void **state)
{
    (void)state;
    accounts_free(&srv);
    return 0;
}

static account_t *player(const char *name)
{
    account_t *a = accounts_loaded(&srv, name, "$argon2id$x", "", 1);
    assert_non_null(a);
    return a;
}

/* A started rated table of `game`, seat i to who[i] (NULL: the bot level `bots[i]`). */
static rated_room_t *table(const char *game, int n, account_t **who, const char *const *bots)
{
    rated_room_t *rr = rated_room_new(game);
    assert_non_null(rr);
    for (int i = 0; i < n; i++)
        rated_room_seat(&srv, rr, i, who[i], who[i] || !bots ? NULL : bots[i]);
    return rr;
}

/* The place each of the n seats got, from the changes of the event, is want[seat]. */
static void assert_places(json_t *changes, int n, const int *want)
{
    int got[GAME_MAX_SEATS];
    for (int i = 0; i < n; i++)
        got[i] = -1;
    size_t k;
    json_t *c;
    json_array_foreach(changes, k, c)
    {
        int seat = (int)json_integer_value(json_object_get(c, "seat"));
        assert_true(seat >= 0 && seat < n);
        got[seat] = (int)json_integer_value(json_object_get(c, "place"));
    }
    for (int i = 0; i < n; i++)
        if (got[i] != want[i]) fail_msg("seat %d: place %d, want %d", i, got[i], want[i]);
}

static json_t *over(rated_room_t *rr, const char *result)
{
    json_t *r = result ? json_loads(result, 0, NULL) : NULL;
    json_t *changes = rated_room_over(&srv, rr, "7", r);
    json_decref(r);
    return changes;
}

/* ------------------------------------------------------------------------ */
/* Places                                                                   */
/* ------------------------------------------------------------------------ */

static void winners_first_the_rest_tied_and_who_left_last(void **state)
{
    (void)state;
    account_t *who[4] = {player("ann"), player("bob"), player("cid"), player("dan")};
    rated_room_t *rr = table("233", 4, who, NULL);
    rated_room_abandon(&srv, rr, "7", 3);
    json_t *ch = over(rr, "{\"winners\":[2]}");
    assert_places(ch, 4, (int[]){2, 2, 1, 3});
    const account_rating_t *ann = account_rating(who[0], "233"),
                           *bob = account_rating(who[1], "233");
    assert_near(ann->mu, bob->mu); /* tied */
    assert_true(account_rating(who[2], "233")->mu > ann->mu);
    assert_true(account_rating(who[3], "233")->mu < ann->mu);
    assert_int_equal(account_rating(who[2], "233")->wins, 1);
    assert_int_equal(ann->wins, 0);
    assert_true(who[3]->recent[0].abandoned);
    json_decref(ch);
    rated_room_free(rr);
}

static void no_winners_is_a_draw_and_nobody_to_blame_is_not_rated(void **state)
{
    (void)state;
    account_t *who[2] = {player("ann"), player("bob")};
    rated_room_t *rr = table("slap", 2, who, NULL);
    assert_null(over(rr, NULL)); /* closed unfinished, nobody left: not rated */
    json_t *ch = over(rr, "{\"winners\":[]}");
    assert_places(ch, 2, (int[]){1, 1});
    assert_near(account_rating(who[0], "slap")->mu, RATING_MU);
    json_decref(ch);
    rated_room_free(rr);
}

static void seqnum_partners_are_one_side(void **state)
{
    (void)state;
    account_t *who[4] = {player("ann"), player("bob"), player("cid"), player("dan")};
    rated_room_t *rr = table("seqnum", 4, who, NULL);
    /* Two teams: seats 0 and 2, seats 1 and 3. */
    json_t *ch = over(rr, "{\"winners\":[0,2],\"teams\":2}");
    assert_places(ch, 4, (int[]){1, 2, 1, 2});
    /* Two sides of two: exactly the two-team update of core/rating.c. */
    rating_t r[4] = {rating_new(), rating_new(), rating_new(), rating_new()};
    assert_int_equal(rating_update(NULL, 2, (int[]){2, 2}, (int[]){1, 2}, r), 0);
    assert_near(account_rating(who[0], "seqnum")->mu, r[0].mu);
    assert_near(account_rating(who[3], "seqnum")->mu, r[3].mu);
    assert_near(account_rating(who[3], "seqnum")->sigma, r[3].sigma);
    json_decref(ch);
    rated_room_free(rr);
}

static void a_bot_level_at_several_seats_is_rated_once(void **state)
{
    (void)state;
    account_t *who[3] = {player("ann"), NULL, NULL};
    static const char *const bots[3] = {NULL, "normal", "normal:300"};
    rated_room_t *rr = table("233", 3, who, bots);
    json_t *ch = over(rr, "{\"winners\":[0]}");
    assert_int_equal(json_array_size(ch), 2); /* ann and bot:normal */
    account_t *bot = account_here(&srv, "bot:normal");
    assert_non_null(bot);
    assert_true(bot->bot);
    assert_int_equal(account_rating(bot, "233")->games, 1);
    json_decref(ch);
    rated_room_free(rr);
}

/* ------------------------------------------------------------------------ */
/* A cluster: another node's game in between                                */
/* ------------------------------------------------------------------------ */

/* The cluster's truth, by account: its rating in "aspoint3" and its version. */
static struct remote {
    char name[16];
    account_rating_t r;
} remote[2];
static int rate_calls, conflicts_left;

static struct remote *remote_of(const char *name)
{
    for (int i = 0; i < 2; i++)
        if (strcmp(remote[i].name, name) == 0) return &remote[i];
    return NULL;
}

static int fake_fetch(void *ctx, server_t *s, const char *name)
{
    (void)ctx;
    struct remote *m = remote_of(name);
    account_t *a = account_here(s, name);
    if (!m || !a) return 0;
    if (m->r.ver == 0) return 1;
    account_rating_t *r =
        account_rating_set(a, "aspoint3", m->r.mu, m->r.sigma, m->r.games, m->r.wins);
    r->ver = m->r.ver;
    return 1;
}

static int fake_rate(void *ctx, const char *game, account_t *const *who,
                     const account_rating_t *now, const account_result_t *res, int n)
{
    (void)ctx;
    (void)res;
    assert_string_equal(game, "aspoint3");
    rate_calls++;
    if (conflicts_left > 0) {
        /* Meanwhile, on another node, "ann" lost a game to someone new: her rating moved. */
        conflicts_left--;
        struct remote *m = remote_of("ann");
        rating_t r[2] = {{m->r.mu, m->r.sigma}, rating_new()};
        if (m->r.ver == 0) r[0] = rating_new();
        assert_int_equal(rating_update(NULL, 2, (int[]){1, 1}, (int[]){2, 1}, r), 0);
        m->r = (account_rating_t){.mu = r[0].mu,
                                  .sigma = r[0].sigma,
                                  .games = m->r.games + 1,
                                  .wins = m->r.wins,
                                  .ver = m->r.ver + 1};
        return 0;
    }
    for (int i = 0; i < n; i++)
        if (remote_of(who[i]->name)->r.ver != now[i].ver) return 0;
    for (int i = 0; i < n; i++) {
        struct remote *m = remote_of(who[i]->name);
        m->r = now[i];
        m->r.ver = now[i].ver + 1;
    }
    return 1;
}

/* The same cluster answering later, as Redis on the asynchronous context: each read and
   write waits in `later` until the test answers it (answer_all(): the loop's turns). */
static struct later {
    bool rate;
    char name[64];
    account_fetched_fn fetched;
    account_rated_fn rated;
    void *arg;
    const char *game;
    account_t *const *who;
    const account_rating_t *now;
    const account_result_t *res;
    int n;
} later[32];
static int nlater;

static int fake_fetch_async(void *ctx, server_t *s, const char *name, account_fetched_fn done,
                            void *arg)
{
    (void)ctx;
    (void)s;
    assert_true(nlater < 32);
    later[nlater] = (struct later){.fetched = done, .arg = arg};
    snprintf(later[nlater++].name, sizeof later[0].name, "%s", name);
    return 0;
}

static int fake_rate_async(void *ctx, const char *game, account_t *const *who,
                           const account_rating_t *now, const account_result_t *res, int n,
                           account_rated_fn done, void *arg)
{
    (void)ctx;
    assert_true(nlater < 32);
    later[nlater++] = (struct later){.rate = true,
                                     .rated = done,
                                     .arg = arg,
                                     .game = game,
                                     .who = who,
                                     .now = now,
                                     .res = res,
                                     .n = n};
    return 0;
}

/* Answer what waits, first come first answered, until nothing does. */
static void answer_all(void)
{
    while (nlater > 0) {
        struct later l = later[0];
        memmove(later, later + 1, sizeof later[0] * (size_t)--nlater);
        if (l.rate)
            l.rated(&srv, fake_rate(NULL, l.game, l.who, l.now, l.res, l.n), l.arg);
        else
            l.fetched(&srv, fake_fetch(NULL, &srv, l.name), l.arg);
    }
}

static const account_shared_t fake_cluster = {.fetch = fake_fetch, .rate = fake_rate};
static const account_shared_t fake_async_cluster = {.fetch = fake_fetch,
                                                    .rate = fake_rate,
                                                    .fetch_async = fake_fetch_async,
                                                    .rate_async = fake_rate_async};

/* ann and bob, new on the "remote" side, where two other games will end while theirs does. */
static void two_remote_players(const account_shared_t *sh)
{
    memset(remote, 0, sizeof remote);
    snprintf(remote[0].name, sizeof remote[0].name, "ann");
    snprintf(remote[1].name, sizeof remote[1].name, "bob");
    rate_calls = 0;
    conflicts_left = 2; /* two other games end in between */
    accounts_set_shared(&srv, sh, NULL);
}

/* ann beat bob after losing twice elsewhere meanwhile: every update counted, in order. */
static void ann_lost_twice_then_beat_bob(account_t **who)
{
    assert_int_equal(rate_calls, 3);
    rating_t ann = rating_new();
    for (int k = 0; k < 2; k++) {
        rating_t r[2] = {ann, rating_new()};
        rating_update(NULL, 2, (int[]){1, 1}, (int[]){2, 1}, r);
        ann = r[0];
    }
    rating_t r[2] = {ann, rating_new()};
    rating_update(NULL, 2, (int[]){1, 1}, (int[]){1, 2}, r);
    const account_rating_t *mine = account_rating(who[0], "aspoint3");
    assert_near(mine->mu, r[0].mu);
    assert_near(mine->sigma, r[0].sigma);
    assert_int_equal(mine->games, 3);
    assert_int_equal(mine->ver, 3);
    assert_near(remote[0].r.mu, r[0].mu);
    assert_int_equal(remote[0].r.games, 3);
    assert_int_equal(remote[1].r.games, 1);
    assert_near(account_rating(who[1], "aspoint3")->mu, r[1].mu);
}

static void a_rating_changed_on_another_node_meanwhile_is_not_lost(void **state)
{
    (void)state;
    two_remote_players(&fake_cluster);
    account_t *who[2] = {player("ann"), player("bob")};
    rated_room_t *rr = table("aspoint3", 2, who, NULL);
    json_t *ch = over(rr, "{\"winners\":[0]}"); /* ann beats bob here */
    ann_lost_twice_then_beat_bob(who);
    json_decref(ch);
    rated_room_free(rr);
}

static json_t *async_changes;
static int async_done;

static void on_async_over(server_t *s, const char *room_id, json_t *changes, void *arg)
{
    (void)s;
    (void)arg;
    assert_string_equal(room_id, "7");
    async_done++;
    async_changes = changes;
}

static void the_same_without_waiting_for_the_cluster(void **state)
{
    (void)state;
    two_remote_players(&fake_async_cluster);
    account_t *who[2] = {player("ann"), player("bob")};
    rated_room_t *rr = table("aspoint3", 2, who, NULL);
    json_t *result = json_loads("{\"winners\":[0]}", 0, NULL);
    async_done = 0;
    assert_int_equal(rated_room_over_async(&srv, rr, "7", result, on_async_over, NULL), 0);
    json_decref(result);
    rated_room_free(rr);             /* the room may go: the update goes on */
    assert_int_equal(async_done, 0); /* nothing answered yet: nothing decided */
    assert_int_equal(nlater, 2);     /* ann's and bob's accounts asked for at once */
    answer_all();
    assert_int_equal(async_done, 1);
    assert_int_equal(json_array_size(async_changes), 2);
    ann_lost_twice_then_beat_bob(who);
    json_decref(async_changes);
    /* A game that is not rated (nobody left, no result) is said at once, not later. */
    rr = table("aspoint3", 2, who, NULL);
    assert_int_equal(rated_room_over_async(&srv, rr, "7", NULL, on_async_over, NULL), -1);
    rated_room_free(rr);
}

#define WITH_ACCOUNTS(test) cmocka_unit_test_setup_teardown(test, setup, teardown)

TEST_MAIN(WITH_ACCOUNTS(winners_first_the_rest_tied_and_who_left_last),
          WITH_ACCOUNTS(no_winners_is_a_draw_and_nobody_to_blame_is_not_rated),
          WITH_ACCOUNTS(seqnum_partners_are_one_side),
          WITH_ACCOUNTS(a_bot_level_at_several_seats_is_rated_once),
          WITH_ACCOUNTS(a_rating_changed_on_another_node_meanwhile_is_not_lost),
          WITH_ACCOUNTS(the_same_without_waiting_for_the_cluster))
