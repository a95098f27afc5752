/*
 * test_room.c — a room of 233 (server/room) driven by the real scheduler on
 * the set clock: the dispute window and the turn timer, deterministically;
 * and tables of seqnum's server bots, whose at-once draws come first.
 *
 * The server is the smallest that hosts a room: a server_t of the test's,
 * the room, scheduler, net, durable, metrics and base parts linked, and
 * core's games. The four players are sessions of the test's with no
 * connection (the lobby is not linked: session_add_room() and
 * session_remove_room() are room_stubs.c's, and so are the seeds, fixed). An
 * action reaches the room as a line would, through room_apply() with the
 * stamp the test chose; deadlines run through sched_turn() at the µs the
 * clock is set to. A durability backend records the room's journal: what
 * the game was given, by whom and at what room time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "server/base/log.h"
#include "server/net/conn.h"
#include "server/room/room.h"
#include "server/sched/scheduler.h"
#include "server/server.h"
#include "tests/server/room_stubs.h"
#include "tests/lib/test_main.h"

#define WINDOW_MS 200 /* 233's dispute_ms */
#define TURN_MS 1000  /* --turn-timer 1s: the turn timer test */

/* ------------------------------------------------------------------------ */
/* The journal                                                              */
/* ------------------------------------------------------------------------ */

#define MAX_ENTRIES 20000

typedef struct entry {
    char kind[8];
    int seat;
    int64_t at;
    int64_t credit_us; /* a race entry's credit, or -1 */
} entry_t;

static entry_t journal[MAX_ENTRIES];
static int njournal;

static void on_journal(void *ctx, const durable_room_t *r, uint64_t n, const char *kind, int seat,
                       int64_t at, const json_t *data)
{
    (void)ctx;
    (void)r;
    (void)n;
    assert_true(njournal < MAX_ENTRIES);
    entry_t *e = &journal[njournal++];
    snprintf(e->kind, sizeof e->kind, "%s", kind);
    e->seat = seat;
    e->at = at;
    json_t *credit = json_object_get(data, "credit_us");
    e->credit_us = credit ? json_integer_value(credit) : -1;
}

static const durable_backend_t recorder = {.name = "recorder", .journal = on_journal};

/* ------------------------------------------------------------------------ */
/* A table of four                                                          */
/* ------------------------------------------------------------------------ */

static server_t srv;
static uv_loop_t loop;
static session_t players[4];
static room_t *room;
static json_t *views[4];

static conn_t conns[4]; /* the players' connections: round trips, nothing written */

static void start_table(uint64_t seed, const char *turn_timer)
{
    memset(&srv, 0, sizeof srv);
    memset(players, 0, sizeof players);
    memset(conns, 0, sizeof conns);
    njournal = 0;
    room_stub_seed = seed;
    log_set_level(LOG_ERROR);
    char *argv[] = {"tapisd", "--turn-timer", (char *)turn_timer, NULL};
    assert_int_equal(options_parse(&srv.opts, 3, argv), 0);
    assert_true(srv.opts.turn_timer == 0 || srv.opts.turn_timer == TURN_MS);
    assert_int_equal(uv_loop_init(&loop), 0);
    server_lists_init(&srv, &loop);
    clock_set(&srv.clock, 1000000); /* 1 s after the start */
    assert_int_equal(durable_add(&srv.durable, &recorder, NULL), 0);
    tapis_error_t err = {0};
    json_t *opts = json_pack("{s:i}", "dispute_ms", WINDOW_MS);
    room = room_create(&srv, game_find("233"), 4, opts, false, room_race_default(&srv), &err);
    json_decref(opts);
    assert_non_null(room);
    for (int i = 0; i < 4; i++) {
        players[i].srv = &srv;
        players[i].id = (uint64_t)i + 1;
        snprintf(players[i].name, sizeof players[i].name, "s%d", i);
        players[i].race_quota_us = SESSION_RACE_QUOTA_CAPS * srv.opts.race_cap * 1000;
        conns[i].state = CONN_CLOSING; /* it takes nothing: the test reads the room */
        players[i].conn = &conns[i];
        assert_int_equal(room_sit(room, &players[i], -1, &err), i);
        room_seated(room);
    }
    assert_int_equal(room->status, ROOM_PLAYING);
}

static void end_table(void)
{
    for (int i = 0; i < 4; i++) {
        json_decref(views[i]);
        views[i] = NULL;
    }
    room_destroy(room);
    sched_turn(&srv); /* frees the room */
    heap_free(&srv.timers);
    heap_free(&srv.ready);
    assert_int_equal(uv_loop_close(&loop), 0);
}

/* A bot's search on the thread pool holds its room (room_think.c): until it is
   in, nothing is due. The next scheduler turn takes the result. */
static void await_search(void)
{
    while (room->thinking && !heap_min(&srv.timers))
        uv_run(&loop, UV_RUN_ONCE);
}

static json_t *sync_views(void)
{
    for (int i = 0; i < 4; i++) {
        json_decref(views[i]);
        views[i] = room_state_event(room, i);
    }
    return json_object_get(views[0], "view");
}

static json_t *view(int seat)
{
    return json_object_get(views[seat], "view");
}

static json_int_t score(int seat)
{
    return json_integer_value(json_object_get(
        json_array_get(json_object_get(view(0), "players"), (size_t)seat), "score"));
}

static uint64_t now_us(void)
{
    return clock_now_us(&srv.clock);
}

/* Scheduler turns until nothing is due by now: the scheduler decides what is. */
static void run_due(void)
{
    for (int i = 0; i < 100; i++) {
        sched_turn(&srv);
        heap_node_t *due = heap_min(&srv.timers);
        if (!due || due->key > now_us()) return;
    }
    fail_msg("deadlines keep coming");
}

/* An action of `type` legal for seat, or NULL (a new reference). */
static json_t *legal_of(int seat, const char *type)
{
    json_t *legal = json_object_get(view(seat), "legal"), *a;
    size_t i;
    json_array_foreach(legal, i, a)
    {
        if (strcmp(json_string_value(json_object_get(a, "type")), type) == 0) return json_incref(a);
    }
    return NULL;
}

/* seat plays `action` read at `us`: what room_apply() says (as the lobby does after it). */
static int act_at(int seat, json_t *action, uint64_t us, tapis_error_t *err)
{
    clock_set(&srv.clock, us);
    run_due();
    srv.work_us = us;
    int rc = room_apply(room, seat, action, us, NULL, err);
    if (rc == 0) room_changed(room);
    srv.work_us = 0;
    sync_views();
    return rc;
}

/*
 * Play plain actions (no take, no claim), 1 ms apart, until the turn
 * player may take the discard and another seat may claim it, with scores
 * equal or not as asked (the same search as test_races.py).
 */
static void find_race(bool equal_scores, int *turn, json_t **take, int *other, json_t **claim)
{
    uint32_t pick = 12345;
    sync_views();
    for (int step = 0; step < 20000; step++) {
        json_t *v = view(0);
        assert_string_not_equal(json_string_value(json_object_get(v, "phase")), "over");
        int t = (int)json_integer_value(json_object_get(v, "turn"));
        json_t *tk = legal_of(t, "take");
        for (int o = 0; tk && o < 4; o++) {
            json_t *cl = o != t ? legal_of(o, "claim") : NULL;
            if (cl && (score(t) == score(o)) == equal_scores) {
                *turn = t, *take = tk, *other = o, *claim = cl;
                return;
            }
            json_decref(cl);
        }
        json_decref(tk);
        bool acted = false;
        for (int seat = 0; seat < 4 && !acted; seat++) {
            json_t *legal = json_object_get(view(seat), "legal"), *plain = json_array();
            size_t i;
            json_t *a;
            json_array_foreach(legal, i, a)
            {
                const char *type = json_string_value(json_object_get(a, "type"));
                if (strcmp(type, "take") && strcmp(type, "claim")) json_array_append(plain, a);
            }
            if (json_array_size(plain)) {
                pick = pick * 1103515245u + 12345u;
                json_t *chosen =
                    json_incref(json_array_get(plain, (pick >> 8) % json_array_size(plain)));
                tapis_error_t err = {0};
                assert_int_equal(act_at(seat, chosen, now_us() + 1000, &err), 0);
                json_decref(chosen);
                acted = true;
            }
            json_decref(plain);
        }
        if (!acted) { /* the game waits on a deadline of its own (a deal): let it come */
            heap_node_t *due = heap_min(&srv.timers);
            assert_non_null(due);
            clock_set(&srv.clock, due->key > now_us() ? due->key : now_us() + 1000);
            run_due();
            sync_views();
        }
    }
    fail_msg("the position never arose");
}

/* The event of the settled race (the last take or claim of the view). */
static json_t *settled(void)
{
    json_t *v = sync_views();
    assert_int_equal(json_array_size(json_object_get(v, "claims")), 0);
    json_t *events = json_object_get(v, "events");
    for (size_t i = json_array_size(events); i-- > 0;) {
        json_t *e = json_array_get(events, i);
        const char *did = json_string_value(json_object_get(e, "did"));
        if (did && (!strcmp(did, "take") || !strcmp(did, "claim"))) return e;
    }
    fail_msg("no take or claim among the events");
    return NULL;
}

static json_int_t int_of(json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

/* ------------------------------------------------------------------------ */
/* The dispute window                                                       */
/* ------------------------------------------------------------------------ */

/* A race set up on a new table: the turn player's take and another seat's
   claim, the higher score first (first/second) and each seat's action. */
typedef struct race {
    int turn, o, first, second;
    json_t *take, *claim, *acts[4];
} race_t;

static void race_begin(race_t *rc, int seed, bool equal_scores)
{
    start_table(seed, "0");
    memset(rc, 0, sizeof *rc);
    find_race(equal_scores, &rc->turn, &rc->take, &rc->o, &rc->claim);
    rc->first = score(rc->turn) > score(rc->o) ? rc->turn : rc->o;
    rc->second = rc->first == rc->turn ? rc->o : rc->turn;
    rc->acts[rc->turn] = rc->take, rc->acts[rc->o] = rc->claim;
}

static void race_end(race_t *rc)
{
    json_decref(rc->take);
    json_decref(rc->claim);
    end_table();
}

/*
 * Two claims stamped WINDOW_MS apart, the second at the window's last ms
 * (the window includes first + dispute_ms): a dispute, which the lower
 * score wins although it came second. Settled by the deadline at the
 * window's end, run by the scheduler: not 1 µs before it.
 */
static void claims_within_the_window_go_to_the_lower_score(void **state)
{
    (void)state;
    race_t rc;
    race_begin(&rc, 3, false);
    uint64_t t0 = (now_us() / 1000 + 10) * 1000; /* on a ms */
    tapis_error_t err = {0};
    assert_int_equal(act_at(rc.first, rc.acts[rc.first], t0, &err), 0);
    assert_int_equal(act_at(rc.second, rc.acts[rc.second], t0 + WINDOW_MS * 1000 + 999, &err), 0);
    assert_int_equal(json_array_size(json_object_get(view(0), "claims")), 2);
    /* the window closes at t0 + WINDOW_MS ms: settled at the first µs after it */
    heap_node_t *due = heap_min(&srv.timers);
    assert_non_null(due);
    assert_int_equal(due->key, t0 + (WINDOW_MS + 1) * 1000);
    clock_set(&srv.clock, due->key - 1);
    run_due();
    assert_int_equal(json_array_size(json_object_get(sync_views(), "claims")), 2);
    clock_set(&srv.clock, due->key);
    run_due();
    json_t *e = settled();
    assert_int_equal(int_of(e, "seat"), rc.second);
    assert_int_equal(int_of(e, "contenders"), 2);
    race_end(&rc);
}

/* Equal scores within the window: the earlier stamp wins, whoever's
   callback ran first (the claim is stamped 1 µs before the take). */
static void claims_within_the_window_with_equal_scores_go_to_the_earlier(void **state)
{
    (void)state;
    race_t rc;
    race_begin(&rc, 4, true);
    uint64_t t0 = now_us() + 5000;
    tapis_error_t err = {0};
    assert_int_equal(act_at(rc.o, rc.claim, t0, &err), 0);
    assert_int_equal(act_at(rc.turn, rc.take, t0 + 1, &err), 0);
    clock_set(&srv.clock, t0 + (WINDOW_MS + 1) * 1000);
    run_due();
    json_t *e = settled();
    assert_int_equal(int_of(e, "seat"), rc.o);
    assert_string_equal(json_string_value(json_object_get(e, "did")), "claim");
    assert_int_equal(int_of(e, "contenders"), 2);
    race_end(&rc);
}

/* One ms beyond the window the first claim has won: the second is too late,
   even with the lower score, and even before any deadline ran. */
static void claims_beyond_the_window_go_to_the_earlier(void **state)
{
    (void)state;
    race_t rc;
    race_begin(&rc, 3, false);
    uint64_t t0 = (now_us() / 1000 + 10) * 1000;
    tapis_error_t err = {0};
    assert_int_equal(act_at(rc.first, rc.acts[rc.first], t0, &err), 0);
    /* room_apply() settles what is due first: no sched_turn() in between */
    srv.work_us = t0 + (WINDOW_MS + 1) * 1000;
    clock_set(&srv.clock, srv.work_us);
    assert_int_equal(room_apply(room, rc.second, rc.acts[rc.second], srv.work_us, NULL, &err), -1);
    srv.work_us = 0;
    assert_string_equal(err.code, "too_late");
    json_t *e = settled();
    assert_int_equal(int_of(e, "seat"), rc.first);
    assert_int_equal(int_of(e, "contenders"), 1);
    race_end(&rc);
}

/* ------------------------------------------------------------------------ */
/* The turn timer                                                           */
/* ------------------------------------------------------------------------ */

/* The earliest turn-timer deadline (room ms) and its seat, or -1. */
static int64_t turn_deadline(int *seat)
{
    int64_t best = -1;
    for (int i = 0; i < room->nseats; i++) {
        int64_t since = room->seats[i].wait_since;
        if (since >= 0 && (best < 0 || since + TURN_MS < best)) {
            best = since + TURN_MS;
            *seat = i;
        }
    }
    return best;
}

static int acts_of(int seat)
{
    int n = 0;
    for (int i = 0; i < njournal; i++)
        n += !strcmp(journal[i].kind, "act") && journal[i].seat == seat;
    return n;
}

/*
 * A seat waited on for TURN_MS: nothing at its deadline minus 1 µs; at the
 * deadline's µs, its default action, journalled at the deadline's room time.
 */
static void a_turn_timer_plays_the_default_action_at_its_deadline_not_before(void **state)
{
    (void)state;
    start_table(7, "1s");
    int seat = -1;
    int64_t at = turn_deadline(&seat);
    assert_true(at > 0);
    /* a game deadline of its own (a deal) may come first: run it, and look again */
    for (int k = 0; k < 10; k++) {
        clock_set(&srv.clock, (uint64_t)at * 1000 - 1);
        run_due();
        for (int i = 0; i < njournal; i++) /* nobody's time ran out yet */
            assert_string_not_equal(journal[i].kind, "act");
        int s2 = -1;
        int64_t again = turn_deadline(&s2);
        if (again == at && s2 == seat) break;
        at = again, seat = s2;
    }
    assert_int_equal(acts_of(seat), 0);
    uint64_t seq = room->seq;
    int mark = njournal;
    clock_set(&srv.clock, (uint64_t)at * 1000);
    run_due();
    assert_int_equal(acts_of(seat), 1);
    assert_true(room->seq > seq);
    /* every seat whose time ran out then played at the deadline's room time */
    for (int i = mark; i < njournal; i++)
        if (!strcmp(journal[i].kind, "act")) assert_int_equal(journal[i].at, at);
    end_table();
}

/* ------------------------------------------------------------------------ */
/* Bots: an at-once draw comes first                                        */
/* ------------------------------------------------------------------------ */

/*
 * A seqnum table of server bots, levels[s] at seat s, run by the scheduler to
 * its end (at most `turns` turns), the clock set to each deadline as it falls
 * due: with --bot-delay `delay` (NULL: each level's own pace). With `lag_us`,
 * each turn comes that late after its deadline (a busy loop, a slow search):
 * the moves due next must not fall before the clock, or a table of bots
 * with no reaction time would come before every line read meanwhile.
 * Returns the final public view.
 */
static json_t *bot_game(uint64_t seed, int seats, const char *const *levels, const char *delay,
                        int turns, uint64_t lag_us)
{
    memset(&srv, 0, sizeof srv);
    room_stub_seed = seed;
    log_set_level(LOG_ERROR);
    char *argv[] = {"tapisd", "--turn-timer", "0", "--bot-delay", (char *)delay, NULL};
    assert_int_equal(options_parse(&srv.opts, delay ? 5 : 3, argv), 0);
    assert_int_equal(uv_loop_init(&loop), 0);
    server_lists_init(&srv, &loop);
    clock_set(&srv.clock, 1000000);
    tapis_error_t err = {0};
    json_t *opts = json_pack("{s:i}", "max_turns", turns);
    room =
        room_create(&srv, game_find("seqnum"), seats, opts, false, room_race_default(&srv), &err);
    json_decref(opts);
    assert_non_null(room);
    for (int i = 0; i < seats; i++) {
        assert_int_equal(room_add_bot(room, levels[i], &err), i);
        room_seated(room);
    }
    assert_int_equal(room->status, ROOM_PLAYING);
    for (int turns = 0; room->status == ROOM_PLAYING; turns++) {
        if (turns > 100000) fail_msg("seed %llu: the bots never finish", (unsigned long long)seed);
        await_search();
        heap_node_t *due = heap_min(&srv.timers);
        assert_non_null(due); /* a bot always has a move due */
        if (lag_us)
            clock_set(&srv.clock, (due->key > now_us() ? due->key : now_us()) + lag_us);
        else if (due->key > now_us())
            clock_set(&srv.clock, due->key);
        if (!lag_us) {
            sched_turn(&srv);
            continue;
        }
        /* One step of a turn, as sched_turn() takes it: on a clock that stands
           still a whole turn would run the table to its end. */
        srv.work_us = due->key;
        room_run_due(room);
        srv.work_us = 0;
        due = heap_min(&srv.timers);
        if (room->status == ROOM_PLAYING && due && due->key < now_us())
            fail_msg("seed %llu: a bot's move due at %llu µs, before the clock (%llu µs)",
                     (unsigned long long)seed, (unsigned long long)due->key,
                     (unsigned long long)now_us());
    }
    json_t *ev = room_state_event(room, GAME_SPECTATOR);
    json_t *v = json_incref(json_object_get(ev, "view"));
    json_decref(ev);
    room_destroy(room);
    sched_turn(&srv);
    uv_run(&loop, UV_RUN_DEFAULT); /* a search let go when the game ended comes back */
    heap_free(&srv.timers);
    heap_free(&srv.ready);
    assert_int_equal(uv_loop_close(&loop), 0);
    return v;
}

/* No seat of the finished game `v` lost a draw: each may still hold the whole deal. */
static void no_draw_lost(json_t *v, const char *what, uint64_t seed)
{
    json_t *players = json_object_get(v, "players"), *p;
    json_t *p0 = json_array_get(players, 0);
    json_int_t deal = json_integer_value(json_object_get(p0, "max_cards")) +
                      json_integer_value(json_object_get(p0, "lapsed"));
    size_t s;
    json_array_foreach(players, s, p)
    {
        json_int_t lapsed = json_integer_value(json_object_get(p, "lapsed"));
        json_int_t max = json_integer_value(json_object_get(p, "max_cards"));
        if (lapsed != 0 || max != deal)
            fail_msg("%s, seed %llu: seat %zu lost %lld draws (may hold %lld of %lld)", what,
                     (unsigned long long)seed, s, (long long)lapsed, (long long)max,
                     (long long)deal);
    }
    assert_true(deal >= 4);
}

/*
 * seqnum RULES.md, "a bot never forgets": at --bot-delay 0 every bot's move is
 * due at once, the next seat's play with the last seat's draw; the draw runs
 * first, at every level, for two to four seats. Then every level at its own
 * pace (the server's levels at the default --bot-delay), mixed at one table.
 */
static void server_bots_draw_before_the_next_seat_moves(void **state)
{
    (void)state;
    const game_bot_level_t *levels = game_find("seqnum")->bot_levels;
    int nlevels = 0;
    while (levels[nlevels].name)
        nlevels++;
    assert_true(nlevels >= 2);
    for (int l = 0; l < nlevels; l++)
        for (int seats = 2; seats <= 4; seats++) {
            const char *names[4] = {levels[l].name, levels[l].name, levels[l].name, levels[l].name};
            uint64_t seed = (uint64_t)(10 * l + seats);
            json_t *v = bot_game(seed, seats, names, "0", 16, 0); /* "hard" searches: short */
            no_draw_lost(v, levels[l].name, seed);
            json_decref(v);
        }
    /* random, the level that lost most draws before, on more tables */
    for (int seats = 2; seats <= 4; seats++)
        for (uint64_t seed = 1; seed <= 6; seed++) {
            const char *names[4] = {"random", "random", "random", "random"};
            json_t *v = bot_game(seed * 10 + (uint64_t)seats, seats, names, "0", 120, 0);
            no_draw_lost(v, "random", seed * 10 + (uint64_t)seats);
            json_decref(v);
        }
    for (uint64_t seed = 1; seed <= 2; seed++) {
        const char *names[4];
        for (int s = 0; s < 4; s++)
            names[s] = levels[(s + (int)seed) % nlevels].name;
        json_t *v = bot_game(seed, 3, names, NULL, 16, 0);
        no_draw_lost(v, "mixed levels at their own pace", seed);
        json_decref(v);
    }
}

/*
 * A table of bots with no reaction time holds nobody up: each turn of the
 * scheduler comes 2.5 ms after the moves it runs fell due (the loop was busy,
 * a search took that long), and the moves due next fall no earlier than the
 * clock, so the lines read meanwhile go first. The draws still come first.
 */
static void bots_with_no_reaction_time_fall_due_after_the_clock(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        const char *names[4] = {"random", "greedy", "random", "greedy"};
        json_t *v = bot_game(seed, 4, names, "0", 120, 2500);
        no_draw_lost(v, "no reaction time, late turns", seed);
        json_decref(v);
    }
}

/* ------------------------------------------------------------------------ */
/* Races settled by reaction time                                           */
/* ------------------------------------------------------------------------ */

#define MS 1000

/*
 * seat's action read at `read_us`, settled as the lobby's hook and act would
 * (dispatch.c): credited min(its round trip, the cap, its quota, the time
 * since the state was written at `written_us`), held (hold - credit). The
 * scheduler takes lines in that order (test_scheduler.c); here the test
 * calls them in it. Returns room_apply()'s verdict.
 */
static int act_settled(int seat, json_t *action, uint64_t written_us, uint64_t read_us,
                       tapis_error_t *err)
{
    uint64_t hold = room_hold_us(room), credit = room_credit_us(room, &players[seat]);
    if (credit > read_us - written_us) credit = read_us - written_us;
    room_settle_t how = {.credit_us = credit,
                         .hold_us = hold,
                         .rtt_us = conns[seat].rtt.est_us,
                         .written_us = written_us,
                         .response_us = read_us - written_us,
                         .seq = (int64_t)room->seq};
    uint64_t at = read_us + hold - credit;
    clock_set(&srv.clock, at);
    run_due();
    srv.work_us = at;
    int rc = room_apply(room, seat, action, read_us, &how, err);
    if (rc == 0) room_changed(room);
    srv.work_us = 0;
    sync_views();
    return rc;
}

/* The hold is the greatest credit of the seated: round trips, capped, under quotas. */
static void the_hold_is_the_greatest_credit_capped_and_under_quota(void **state)
{
    (void)state;
    start_table(3, "0");
    conns[0].rtt.est_us = 5 * MS;
    conns[1].rtt.est_us = 60 * MS;
    conns[2].rtt.est_us = 150 * MS;
    assert_int_equal(room_credit_us(room, &players[0]), 5 * MS);
    assert_int_equal(room_credit_us(room, &players[3]), 0); /* answers no ping */
    assert_int_equal(room_hold_us(room), 150 * MS);
    conns[2].rtt.est_us = 900 * MS; /* beyond --race-cap */
    assert_int_equal(room_credit_us(room, &players[2]), 200 * MS);
    assert_int_equal(room_hold_us(room), 200 * MS);
    players[2].race_quota_us = 30 * MS;
    assert_int_equal(room_credit_us(room, &players[2]), 30 * MS);
    assert_int_equal(room_hold_us(room), 60 * MS);
    room->race = ROOM_RACE_ARRIVAL;
    assert_int_equal(room_hold_us(room), 0);
    assert_int_equal(room_credit_us(room, &players[1]), 0);
    end_table();
}

/*
 * A take and a claim of equal scores answer one state: the near player (5
 * ms) reacts in 100 ms, the far one (150 ms) in 80 ms. By arrival the near
 * one's line is read first and wins; by reaction time the far one's
 * reaches the game first and wins, and the journal says how each was
 * settled.
 */
static void the_quicker_reaction_wins_however_far(void **state)
{
    (void)state;
    for (int rule = 0; rule < 2; rule++) {
        race_t rc;
        race_begin(&rc, 4, true);
        room->race = rule ? ROOM_RACE_ARRIVAL : ROOM_RACE_REACTION;
        int near = rc.turn, far = rc.o;
        conns[near].rtt.est_us = 5 * MS;
        conns[far].rtt.est_us = 150 * MS;
        uint64_t w = (now_us() / MS + 10) * MS; /* the state's writing */
        uint64_t near_read = w + 105 * MS, far_read = w + 230 * MS;
        tapis_error_t err = {0};
        int mark = njournal;
        if (rule == 0) { /* held: near's at w + 250 ms, far's at w + 230 ms */
            assert_int_equal(act_settled(far, rc.acts[far], w, far_read, &err), 0);
            assert_int_equal(act_settled(near, rc.acts[near], w, near_read, &err), 0);
        } else {
            assert_int_equal(act_settled(near, rc.acts[near], w, near_read, &err), 0);
            assert_int_equal(act_settled(far, rc.acts[far], w, far_read, &err), 0);
        }
        clock_set(&srv.clock, w + 1000 * MS);
        run_due();
        json_t *e = settled();
        assert_int_equal(int_of(e, "seat"), rule == 0 ? far : near);
        assert_int_equal(int_of(e, "contenders"), 2);
        int races = 0;
        for (int i = mark; i < njournal; i++) {
            if (strcmp(journal[i].kind, "race")) continue;
            races++;
            assert_true(i + 1 < njournal);
            assert_string_equal(journal[i + 1].kind, "act"); /* it says how the next was settled */
            assert_int_equal(journal[i].at, journal[i + 1].at);
            if (rule == 1) { /* arrival: nothing credited, nothing held */
                assert_int_equal(journal[i].credit_us, 0);
                assert_int_equal(journal[i].at * MS,
                                 (int64_t)(journal[i].seat == far ? far_read : near_read));
                continue;
            }
            assert_int_equal(journal[i].credit_us, journal[i].seat == far ? 150 * MS : 5 * MS);
            assert_int_equal(journal[i].at * MS,
                             (int64_t)(journal[i].seat == far ? far_read : near_read + 145 * MS));
        }
        assert_int_equal(races, 2); /* both named the state they answer */
        race_end(&rc);
    }
}

/*
 * The dispute window still joins claims whose reactions are near, and the
 * lower score still wins them: the higher score reacted first (far, 80 ms),
 * the lower within the window (near, 150 ms).
 */
static void the_dispute_rule_holds_among_near_reactions(void **state)
{
    (void)state;
    race_t rc;
    race_begin(&rc, 3, false);
    int hi = rc.first, lo = rc.second;
    conns[hi].rtt.est_us = 150 * MS;
    conns[lo].rtt.est_us = 5 * MS;
    uint64_t w = (now_us() / MS + 10) * MS;
    tapis_error_t err = {0};
    assert_int_equal(act_settled(hi, rc.acts[hi], w, w + 230 * MS, &err), 0);
    assert_int_equal(act_settled(lo, rc.acts[lo], w, w + 155 * MS, &err), 0);
    clock_set(&srv.clock, w + 1000 * MS);
    run_due();
    json_t *e = settled();
    assert_int_equal(int_of(e, "seat"), lo);
    assert_int_equal(int_of(e, "contenders"), 2);
    race_end(&rc);
}

/*
 * A client that delays its pongs to look 150 ms far (its real round trip
 * is 5) but answers states 25 ms after they are written: the first such
 * answer takes its quota, and its credit is gone; an honest player's
 * quota stays full, and nobody is ever credited more than the cap. (These
 * connections cannot be pinged, so the lie is proven at once; a real one
 * is pinged and its pong decides: test_rtt.py.)
 */
static void a_client_faking_its_round_trip_loses_its_credit(void **state)
{
    (void)state;
    start_table(5, "0");
    conns[0].rtt.est_us = 150 * MS; /* the liar */
    conns[1].rtt.est_us = 60 * MS;  /* honest */
    uint64_t full = SESSION_RACE_QUOTA_CAPS * 200 * MS;
    assert_int_equal(room_credit_us(room, &players[0]), 150 * MS);
    json_t *bogus = json_pack("{s:s}", "type", "no_such_action");
    uint64_t w = (now_us() / MS + 10) * MS;
    tapis_error_t err = {0};
    /* refused or not, a line says how soon it answered */
    act_settled(1, bogus, w, w + 60 * MS + 120 * MS, &err);
    act_settled(0, bogus, w, w + 25 * MS, &err);
    assert_int_equal(players[1].race_quota_us, full);
    assert_int_equal(players[0].race_quota_us, 0); /* 400 - 4 x (150 - 25) */
    assert_int_equal(room_credit_us(room, &players[0]), 0);
    /* honest answers give a little back, an eighth of the cap each */
    w += 1000 * MS;
    act_settled(0, bogus, w, w + 170 * MS, &err);
    assert_int_equal(players[0].race_quota_us, 25 * MS);
    assert_int_equal(room_credit_us(room, &players[0]), 25 * MS);
    /* and the next fast one takes it again */
    act_settled(0, bogus, w, w + 1030 * MS, &err); /* (a reaction after another state) */
    w += 2000 * MS;
    act_settled(0, bogus, w, w + 40 * MS, &err);
    assert_int_equal(room_credit_us(room, &players[0]), 0);
    json_decref(bogus);
    end_table();
}

TEST_MAIN(cmocka_unit_test(claims_within_the_window_go_to_the_lower_score),
          cmocka_unit_test(claims_within_the_window_with_equal_scores_go_to_the_earlier),
          cmocka_unit_test(claims_beyond_the_window_go_to_the_earlier),
          cmocka_unit_test(a_turn_timer_plays_the_default_action_at_its_deadline_not_before),
          cmocka_unit_test(server_bots_draw_before_the_next_seat_moves),
          cmocka_unit_test(bots_with_no_reaction_time_fall_due_after_the_clock),
          cmocka_unit_test(the_hold_is_the_greatest_credit_capped_and_under_quota),
          cmocka_unit_test(the_quicker_reaction_wins_however_far),
          cmocka_unit_test(the_dispute_rule_holds_among_near_reactions),
          cmocka_unit_test(a_client_faking_its_round_trip_loses_its_credit))
