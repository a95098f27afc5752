/*
 * test_room_think.c — bots' searches on libuv's thread pool
 * (server/room/room_think.c), on the set clock: a result comes back to the
 * move an on-loop decision would have made, at the same room time; a result
 * for a state the room left is dropped and the bot decides again; a room
 * closed while its bot searches, or while the search waits for the pool,
 * frees everything, and the loop closes.
 *
 * The server is test_room.c's: a server_t of the test's, the room,
 * scheduler, net, durable, metrics and base parts, core's games, the stubs
 * of room_stubs.c. The loop runs only when the test waits for a search
 * (uv_run()): the clock stands still meanwhile, as it would if the search
 * took no time, so the journals can be compared entry by entry.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "server/base/log.h"
#include "server/room/room.h"
#include "server/room/room_int.h"
#include "server/sched/scheduler.h"
#include "server/server.h"
#include "tests/server/room_stubs.h"
#include "tests/lib/test_main.h"

/* ------------------------------------------------------------------------ */
/* The journal: what each room's game was given, by whom, when              */
/* ------------------------------------------------------------------------ */

#define MAX_ENTRIES 20000

typedef struct entry {
    char kind[8];
    int seat;
    int64_t at;
    char data[160]; /* its data's JSON (the action), cut */
} entry_t;

typedef struct journal {
    entry_t e[MAX_ENTRIES];
    int n;
} journal_t;

static journal_t journal, first;

static void on_journal(void *ctx, const durable_room_t *r, uint64_t n, const char *kind, int seat,
                       int64_t at, const json_t *data)
{
    (void)ctx, (void)r, (void)n;
    assert_true(journal.n < MAX_ENTRIES);
    entry_t *e = &journal.e[journal.n++];
    snprintf(e->kind, sizeof e->kind, "%s", kind);
    e->seat = seat;
    e->at = at;
    char *text = data ? json_dumps(data, JSON_COMPACT) : NULL;
    snprintf(e->data, sizeof e->data, "%s", text ? text : "");
    free(text);
}

static const durable_backend_t recorder = {.name = "recorder", .journal = on_journal};

/* The bot at `seat`'s acts in the journal from entry `from` on. */
static int bot_acts(int seat, int from)
{
    int n = 0;
    for (int i = from; i < journal.n; i++)
        n += strcmp(journal.e[i].kind, "act") == 0 && journal.e[i].seat == seat;
    return n;
}

/* ------------------------------------------------------------------------ */
/* A server, its rooms                                                      */
/* ------------------------------------------------------------------------ */

static server_t srv;
static uv_loop_t loop;
static session_t person;

/* A server with bots at no reaction time, at most `searches` on the pool at once. */
static void start_server(const char *searches)
{
    memset(&srv, 0, sizeof srv);
    memset(&person, 0, sizeof person);
    memset(&journal, 0, sizeof journal);
    log_set_level(LOG_ERROR);
    char *argv[] = {"tapisd",         "--turn-timer",   "0", "--bot-delay", "0",
                    "--bot-searches", (char *)searches, NULL};
    assert_int_equal(options_parse(&srv.opts, 7, argv), 0);
    assert_int_equal(uv_loop_init(&loop), 0);
    server_lists_init(&srv, &loop);
    clock_set(&srv.clock, 1000000);
    assert_int_equal(durable_add(&srv.durable, &recorder, NULL), 0);
    person.srv = &srv;
    person.id = 1;
    snprintf(person.name, sizeof person.name, "p");
}

/* Everything freed, and the loop closes: no search is left behind. */
static void stop_server(void)
{
    while (!queue_empty(&srv.rooms))
        room_destroy(queue_data(queue_head(&srv.rooms), room_t, node));
    sched_turn(&srv); /* frees the rooms */
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(srv.metrics.bot_searches_running, 0);
    assert_int_equal(srv.metrics.bot_searches_waiting, 0);
    assert_true(queue_empty(&srv.searches));
    heap_free(&srv.timers);
    heap_free(&srv.ready);
    assert_int_equal(uv_loop_close(&loop), 0);
}

/* A table of `game` (options as JSON text), seat i a bot of levels[i] or, for NULL, the person. */
static room_t *start_room(const char *game, const char *options, int seats,
                          const char *const *levels, uint64_t seed)
{
    room_stub_seed = seed;
    tapis_error_t err = {0};
    json_t *opts = json_loads(options, 0, NULL);
    room_t *r =
        room_create(&srv, game_find(game), seats, opts, false, room_race_default(&srv), &err);
    json_decref(opts);
    assert_non_null(r);
    for (int i = 0; i < seats; i++) {
        if (levels[i])
            assert_int_equal(room_add_bot(r, levels[i], &err), i);
        else
            assert_int_equal(room_sit(r, &person, -1, &err), i);
        room_seated(r);
    }
    assert_int_equal(r->status, ROOM_PLAYING);
    return r;
}

static uint64_t now_us(void)
{
    return clock_now_us(&srv.clock);
}

/* Wait for the searches the rooms wait on (the loop runs; the clock stands still). */
static void await_searches(void)
{
    while (srv.metrics.bot_searches_running > 0 && !heap_min(&srv.timers))
        uv_run(&loop, UV_RUN_ONCE);
}

/* One step: the searches awaited, the clock moved to the next deadline, a turn. */
static void step(void)
{
    await_searches();
    heap_node_t *due = heap_min(&srv.timers);
    assert_non_null(due); /* a bot, a game's timer, or a search's result is due */
    if (due->key > now_us()) clock_set(&srv.clock, due->key);
    sched_turn(&srv);
}

/* ------------------------------------------------------------------------ */
/* The tests                                                                */
/* ------------------------------------------------------------------------ */

typedef struct table {
    const char *game, *options;
    int seats;
} table_t;

static const table_t tables[] = {
    {"seqnum", "{\"max_turns\": 16}", 3}, /* turns, with at-once draws */
    {"slap", "{\"max_rounds\": 1}", 2},   /* all at once, with the game's own timers */
    {"aspoint3", "{\"rounds\": 1, \"target\": 40}", 2},
};

/*
 * Tables of hard bots played to their end twice, their searches on the loop
 * (--bot-searches 0) and on the pool: the same actions by the same seats at
 * the same room times, entry for entry. Nothing was dropped: with no person
 * at the table nothing moves while a bot searches.
 */
static void a_search_off_the_loop_makes_the_move_the_loop_would(void **state)
{
    (void)state;
    const char *const hard[] = {"hard", "hard", "hard"};
    for (size_t t = 0; t < sizeof tables / sizeof *tables; t++)
        for (uint64_t seed = 1; seed <= 2; seed++) {
            for (int pass = 0; pass < 2; pass++) {
                start_server(pass == 0 ? "0" : "3");
                room_t *r =
                    start_room(tables[t].game, tables[t].options, tables[t].seats, hard, seed);
                for (int steps = 0; r->status == ROOM_PLAYING; steps++) {
                    if (steps > 100000) fail_msg("%s: the bots never finish", tables[t].game);
                    step();
                }
                if (pass == 0) {
                    assert_int_equal(srv.metrics.bot_searches, 0);
                    first = journal;
                } else {
                    assert_true(srv.metrics.bot_searches > 0);
                    assert_int_equal(srv.metrics.bot_searches_dropped, 0);
                }
                stop_server();
            }
            assert_int_equal(journal.n, first.n);
            for (int i = 0; i < journal.n; i++) {
                const entry_t *a = &first.e[i], *b = &journal.e[i];
                if (strcmp(a->kind, b->kind) || a->seat != b->seat || a->at != b->at ||
                    strcmp(a->data, b->data))
                    fail_msg("%s, seed %llu, entry %d: on the loop %s seat %d at %lld %s; off it "
                             "%s seat %d at %lld %s",
                             tables[t].game, (unsigned long long)seed, i, a->kind, a->seat,
                             (long long)a->at, a->data, b->kind, b->seat, (long long)b->at,
                             b->data);
            }
        }
}

/*
 * slap, a person and a hard bot: while the bot searches, the room's timer
 * waits; the person's action changes the room, so the search's result is
 * dropped when it comes (nothing of it reaches the game); the bot, due
 * afresh, searches again from the new state and its move is applied.
 */
static void a_stale_search_is_dropped_and_the_bot_decides_again(void **state)
{
    (void)state;
    const char *const levels[] = {NULL, "hard"};
    start_server("3");
    room_t *r = start_room("slap", "{\"max_rounds\": 3}", 2, levels, 7);
    bool dropped = false;
    for (int steps = 0; !dropped && r->status == ROOM_PLAYING; steps++) {
        if (steps > 100000) fail_msg("the person never had a move while the bot searched");
        if (r->thinking) {
            assert_null(heap_min(&srv.timers)); /* the room waits for the search */
            json_t *ev = room_state_event(r, 0);
            json_t *legal = json_object_get(json_object_get(ev, "view"), "legal");
            if (json_array_size(legal) > 0) {
                uint64_t searches = srv.metrics.bot_searches;
                tapis_error_t err = {0};
                srv.work_us = now_us();
                assert_int_equal(room_apply(r, 0, json_array_get(legal, 0), now_us(), NULL, &err),
                                 0);
                room_changed(r);
                srv.work_us = 0;
                json_decref(ev);
                assert_null(r->thinking);
                assert_int_equal(srv.metrics.bot_searches_dropped, 1);
                int mark = journal.n;
                while (srv.metrics.bot_searches_running > 0)
                    uv_run(&loop, UV_RUN_ONCE); /* the dropped one comes back: to nothing */
                assert_int_equal(srv.metrics.bot_searches, searches);
                assert_non_null(heap_min(&srv.timers)); /* the bot is due afresh */
                sched_turn(&srv);
                assert_int_equal(bot_acts(1, mark), 0);
                /* The bot decides again, and plays. */
                for (int more = 0; bot_acts(1, mark) == 0 && r->status == ROOM_PLAYING; more++) {
                    if (more > 100000) fail_msg("the bot never played again");
                    step();
                }
                assert_true(srv.metrics.bot_searches > searches);
                dropped = true;
                continue;
            }
            json_decref(ev);
        }
        step();
    }
    assert_true(dropped);
    stop_server();
}

/* The person at seat 0 plays its first legal action now, if it has one. */
static bool person_acts(room_t *r)
{
    json_t *ev = room_state_event(r, 0);
    json_t *legal = json_object_get(json_object_get(ev, "view"), "legal");
    bool acts = json_array_size(legal) > 0;
    if (acts) {
        tapis_error_t err = {0};
        srv.work_us = now_us();
        assert_int_equal(room_apply(r, 0, json_array_get(legal, 0), now_us(), NULL, &err), 0);
        room_changed(r);
        srv.work_us = 0;
    }
    json_decref(ev);
    return acts;
}

/*
 * slap, a person who acts during every search of the hard bot that it can
 * (and when the game waits on it): each such search is dropped, but never
 * more than ROOM_THINK_DROPS in a row (the bot then decides on the loop, and
 * plays), and the bot keeps playing.
 */
static void a_player_acting_during_every_search_cannot_starve_the_bot(void **state)
{
    (void)state;
    const char *const levels[] = {NULL, "hard"};
    start_server("3");
    room_t *r = start_room("slap", "{\"max_rounds\": 3}", 2, levels, 11);
    int in_a_row = 0, most = 0, bot_moves = 0;
    for (int steps = 0; r->status == ROOM_PLAYING; steps++) {
        if (steps > 100000) fail_msg("the game never ended");
        if (bot_acts(1, 0) > bot_moves) { /* the bot played: a new run of drops */
            bot_moves = bot_acts(1, 0);
            in_a_row = 0;
        }
        uint64_t dropped = srv.metrics.bot_searches_dropped;
        if (r->thinking && person_acts(r)) {
            if (srv.metrics.bot_searches_dropped > dropped && ++in_a_row > most) most = in_a_row;
            continue;
        }
        await_searches();
        if (heap_min(&srv.timers))
            step();
        else if (!person_acts(r)) /* nothing due: the game waits on the person */
            fail_msg("nothing is due and the person has nothing to play");
    }
    assert_true(most > 0); /* the person did act during searches */
    assert_true(most <= ROOM_THINK_DROPS);
    assert_true(bot_acts(1, 0) > 0);
    stop_server();
}

/*
 * Two rooms of hard bots and room for one search on the pool (--bot-searches
 * 1, or 3 on a pool of two threads, one of them kept for the passwords):
 * one searches, the other's search waits. Both rooms close: the waiting
 * one is freed at once, the running one when it comes back; the loop then
 * closes (a leak or a search left behind fails here, or under ASan).
 */
static void two_rooms_close_while_one_searches(const char *searches, int pool_threads)
{
    const char *const hard[] = {"hard", "hard"};
    start_server(searches);
    srv.pool_threads = pool_threads;
    room_t *a = start_room("slap", "{\"max_rounds\": 1}", 2, hard, 3);
    room_t *b = start_room("slap", "{\"max_rounds\": 1}", 2, hard, 4);
    for (int steps = 0; !(a->thinking && b->thinking); steps++) {
        if (steps > 100000) fail_msg("the bots never searched at once");
        assert_true(a->status == ROOM_PLAYING && b->status == ROOM_PLAYING);
        heap_node_t *due = heap_min(&srv.timers);
        if (!due) {
            uv_run(&loop, UV_RUN_ONCE); /* a search comes back */
            continue;
        }
        if (due->key > now_us()) clock_set(&srv.clock, due->key);
        sched_turn(&srv);
    }
    assert_int_equal(srv.metrics.bot_searches_running, 1);
    assert_int_equal(srv.metrics.bot_searches_waiting, 1);
    uint64_t dropped = srv.metrics.bot_searches_dropped;
    room_destroy(b);
    room_destroy(a);
    assert_int_equal(srv.metrics.bot_searches_dropped, dropped + 2);
    assert_int_equal(srv.metrics.bot_searches_waiting, 0);
    stop_server(); /* the running one comes back to no room */
}

static void rooms_closed_while_their_bots_search_free_everything(void **state)
{
    (void)state;
    two_rooms_close_while_one_searches("1", 0);
}

static void the_searches_leave_a_thread_of_the_pool_to_the_passwords(void **state)
{
    (void)state;
    two_rooms_close_while_one_searches("3", 2);
}

/* A server stopping with a search on the pool: the room is freed, the search after it. */
static void a_server_stopping_while_a_bot_searches_frees_everything(void **state)
{
    (void)state;
    const char *const hard[] = {"hard", "hard", "hard"};
    start_server("3");
    room_t *r = start_room("seqnum", "{\"max_turns\": 16}", 3, hard, 5);
    while (!r->thinking)
        step();
    srv.stopping = true;
    stop_server();
}

TEST_MAIN(cmocka_unit_test(a_search_off_the_loop_makes_the_move_the_loop_would),
          cmocka_unit_test(a_stale_search_is_dropped_and_the_bot_decides_again),
          cmocka_unit_test(a_player_acting_during_every_search_cannot_starve_the_bot),
          cmocka_unit_test(rooms_closed_while_their_bots_search_free_everything),
          cmocka_unit_test(the_searches_leave_a_thread_of_the_pool_to_the_passwords),
          cmocka_unit_test(a_server_stopping_while_a_bot_searches_frees_everything))
