/*
 * room_play.c — a room at play: its events (state, game over), its clock and
 * actions, and its one deadline (game deadlines, turn timer, bots). See room.h;
 * how a race is settled is room_race.c's.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "server/net/conn.h"
#include "server/net/rtt.h"
#include "protocol/envelope.h"
#include "json/jw.h"
#include "server/base/log.h"
#include "server/account/account.h"
#include "server/room/room_int.h"
#include "server/session/session.h"
#include "server/durable/durable.h"

/* ------------------------------------------------------------------------ */
/* Events                                                                   */
/* ------------------------------------------------------------------------ */

const char *room_status_name(room_status_t st)
{
    switch (st) {
    case ROOM_WAITING: return "waiting";
    case ROOM_PLAYING: return "playing";
    default: return "over";
    }
}

/* Beside a seat's name, its rating in the game: a person's account's, a bot level's in a
   rated room (account.h). Guests have none. */
static void seat_rating(const room_t *r, int i, json_t *seat)
{
    const seat_t *st = &r->seats[i];
    const account_t *a = st->session ? st->session->account : NULL;
    if (st->bot && r->rated) a = account_bot_find(r->srv, st->bot_strategy);
    double shown;
    if (seat && account_shown_rating(a, r->desc->id, &shown))
        json_object_set_new(seat, "rating", json_real(shown));
}

json_t *room_summary(const room_t *r)
{
    unsigned long mark = tapis_alloc_failures();
    json_t *seats = json_array();
    for (int i = 0; i < r->nseats; i++) {
        const seat_t *st = &r->seats[i];
        if (st->bot)
            json_array_append_new(seats, json_pack("{s:i, s:s, s:b, s:s}", "seat", i, "name", "bot",
                                                   "bot", 1, "strategy", st->bot_strategy));
        else if (st->session)
            json_array_append_new(seats, json_pack("{s:i, s:s, s:b, s:b}", "seat", i, "name",
                                                   st->session->name, "bot", 0, "connected",
                                                   st->session->conn != NULL));
        else
            json_array_append_new(seats, json_null());
        seat_rating(r, i, json_array_get(seats, (size_t)i));
        uint64_t rtt = !st->bot && st->session ? rtt_estimate(st->session->conn) : 0;
        if (rtt) /* the server's estimate of this player's round trip, rounded up */
            json_object_set_new(json_array_get(seats, (size_t)i), "lag_ms",
                                json_integer((json_int_t)((rtt + 999) / 1000)));
    }
    json_t *sum = json_pack("{s:s, s:s, s:s, s:i, s:b, s:s, s:o, s:i}", "room", r->id, "game",
                            r->desc->id, "title", r->desc->title, "players", r->nseats, "private",
                            r->private_room, "status", room_status_name(r->status), "seats", seats,
                            "spectators", r->nwatchers);
    if (r->srv->node_id) json_object_set_new(sum, "node", json_string(r->srv->node_id));
    if (r->rated) json_object_set_new(sum, "rated", json_true());
    json_object_set_new(sum, "race", json_string(room_race_name(r->race)));
    if (r->deal.version > 0) { /* the commitment, and which seats gave a seed */
        json_t *deal = deal_json(&r->deal, 0, false), *seeded = json_array();
        for (int i = 0; i < r->nseats; i++)
            json_array_append_new(seeded, json_boolean(r->deal.seeds[i][0] != '\0'));
        json_object_set_new(deal, "seeded", seeded);
        json_object_set_new(sum, "deal", deal);
    }
    return game_json_checked(sum, mark);
}

json_t *room_event(const room_t *r)
{
    unsigned long mark = tapis_alloc_failures();
    json_t *ev = proto_event("room");
    json_t *sum = room_summary(r);
    json_object_update(ev, sum);
    json_decref(sum);
    return game_json_checked(ev, mark);
}

/*
 * Send ev to the spectators, and to the seated players too if `seated`:
 * encoded once (or into each connection's buffer if that failed). ev NULL
 * (it could not be built) drops every connection that should have had it:
 * none misses an event and goes on; each may say hello again with its token.
 */
static void send_members(room_t *r, const json_t *ev, bool seated)
{
    size_t len = 0;
    char *line = ev ? proto_encode(ev, &len) : NULL;
    for (int i = 0; seated && i < r->nseats; i++) {
        conn_t *c = r->seats[i].session ? r->seats[i].session->conn : NULL;
        if (line)
            conn_send_encoded(c, line, len);
        else
            conn_send(c, ev);
    }
    for (int i = 0; i < r->nwatchers; i++) {
        if (line)
            conn_send_encoded(r->watchers[i]->conn, line, len);
        else
            conn_send(r->watchers[i]->conn, ev);
    }
    tapis_free(line);
}

void room_broadcast(room_t *r, const json_t *ev)
{
    send_members(r, ev, true);
}

json_t *room_new_event(const room_t *r, const char *name)
{
    json_t *ev = proto_event(name);
    json_object_set_new(ev, "room", json_string(r->id));
    return ev;
}

void room_broadcast_new(room_t *r, json_t *ev, unsigned long mark)
{
    ev = game_json_checked(ev, mark);
    room_broadcast(r, ev);
    json_decref(ev);
}

void room_publish(room_t *r)
{
    if (r->closed || !durable_wants_summary(&r->srv->durable)) return;
    json_t *summary = room_summary(r);
    if (summary) durable_room_changed(&r->srv->durable, &r->durable, summary);
    json_decref(summary);
}

void room_notify(room_t *r)
{
    room_publish(r);
    if (r->closed || !room__attended(r))
        return; /* (thousands of rooms may lose their last
                    connection at once: build nothing then) */
    json_t *ev = room_event(r);
    room_broadcast(r, ev);
    json_decref(ev);
}

/* Does seat's next action follow its last at once (game.h, at_once)? */
static bool at_once(const room_t *r, int seat)
{
    return r->status == ROOM_PLAYING && game_at_once(r->game, seat);
}

/* The seats the game waits on (a bit mask); none unless playing. */
static unsigned waiting_mask(const room_t *r)
{
    return r->status == ROOM_PLAYING ? game_waiting(r->game) : 0;
}

/* The room's clock: server time plus the room's offset, never before the game's. */
int64_t room__clock(const room_t *r)
{
    /* In a turn, the time of the work in hand (the line's stamp, the deadline):
       everything one line or deadline causes sees one time, however long the
       work takes, so a turn timer started and told in the same event agree. */
    uint64_t us = r->srv->work_us ? r->srv->work_us : server_now_us(r->srv);
    int64_t now = (int64_t)(us / 1000) + r->clock_offset;
    return now < r->last_now ? r->last_now : now;
}

/* Start the turn timer of the seats the game now waits on; stop the others'. */
static void update_waits(room_t *r, int64_t now)
{
    unsigned waiting = waiting_mask(r);
    for (int i = 0; i < r->nseats; i++) {
        seat_t *st = &r->seats[i];
        if (!(waiting & (1u << i)))
            st->wait_since = -1;
        else if (st->wait_since < 0)
            st->wait_since = now;
    }
}

/*
 * "waiting": the seats the game waits on; "deadline_ms": the ms left on the
 * turn timer of the first of them to run out (bots have none), or null when
 * the timer is off or runs for nobody.
 */
static void write_turn_clock(room_t *r, jw_t *w)
{
    unsigned waiting = waiting_mask(r);
    uint64_t turn = r->srv->opts.turn_timer;
    int64_t now = room__clock(r), left = -1;
    jw_arr(w, "waiting");
    for (int i = 0; i < r->nseats; i++) {
        const seat_t *st = &r->seats[i];
        if (!(waiting & (1u << i))) continue;
        jw_int(w, NULL, i);
        if (turn == 0 || st->bot || st->wait_since < 0) continue;
        int64_t l = st->wait_since + (int64_t)turn - now;
        if (l < 0) l = 0;
        if (left < 0 || l < left) left = l;
    }
    jw_end(w);
    if (left >= 0)
        jw_int(w, "deadline_ms", (json_int_t)left);
    else
        jw_null(w, "deadline_ms");
}

/*
 * A state event is written in two parts (json/jw.h): what every member gets,
 * the envelope and the public view, left open; then one seat's own keys
 * ("seat", its hidden cards, "legal", "at_once": true when its next action
 * is part of its move) and the closing braces. GAME_SPECTATOR: no own keys.
 */
static void write_state_common(room_t *r, jw_t *w)
{
    jw_obj(w, NULL);
    jw_str(w, "ev", "state");
    jw_str(w, "room", r->id);
    jw_int(w, "seq", (json_int_t)r->seq);
    if (r->seq == 1 && r->deal.version > 0) { /* the first state: the deal it comes from */
        uint8_t commit[32];
        char hex[DEAL_HEX_LEN + 1];
        deal_commit(r->deal.server, commit);
        deal_hex(commit, hex);
        jw_obj(w, "deal");
        jw_int(w, "version", r->deal.version);
        jw_str(w, "commit", hex);
        jw_end(w);
    }
    write_turn_clock(r, w);
    jw_obj(w, "view");
    game_write_public(r->game, w);
}

static void write_own(room_t *r, int seat, jw_t *w)
{
    if (seat < 0) return;
    game_write_own(r->game, seat, w);
    if (at_once(r, seat)) jw_bool(w, "at_once", true);
}

static void write_state_end(room_t *r, int seat, jw_t *w)
{
    write_own(r, seat, w);
    jw_end(w);
    jw_end(w);
}

/* A seat's view (GAME_SPECTATOR: the public part alone), or NULL (out of memory). */
static json_t *view_for(room_t *r, int seat)
{
    jw_t w;
    jw_tree(&w);
    jw_obj(&w, NULL);
    game_write_public(r->game, &w);
    write_own(r, seat, &w);
    jw_end(&w);
    return jw_take(&w);
}

json_t *room_state_event(room_t *r, int seat)
{
    jw_t w;
    jw_tree(&w);
    write_state_common(r, &w);
    write_state_end(r, seat, &w);
    return jw_take(&w);
}

/*
 * The text of state events: the common part written once per change, each
 * seat's end written after it in the same buffer, from a copy of the writer
 * taken where the common part stops. No jansson tree is built, encoded or
 * freed on this path (it was most of the server's work at 2,000 tables).
 */
static char state_line[256 * 1024];

/* Send seat's state event to c (the tree's encoding when it is too big for the buffer). */
static void send_state(room_t *r, const jw_t *common, int seat, conn_t *c)
{
    jw_t w = *common;
    rtt_note_state(c, r->rid, r->seq, server_now_us(r->srv));
    write_state_end(r, seat, &w);
    size_t n = jw_len(&w);
    if (jw_ok(&w) && n < sizeof state_line) {
        state_line[n] = '\n';
        conn_send_encoded(c, state_line, n + 1);
    } else {
        conn_send_new(c, room_state_event(r, seat));
    }
}

/* A rated game's ratings are written (a cluster's, rated_room_over_async()): its game_over
   goes out with them, if its room is still there. */
static void rated_over(server_t *srv, const char *room_id, json_t *changes, void *arg)
{
    json_t *ev = arg;
    room_t *r = room_find(srv, room_id);
    if (r && !r->closed) {
        if (changes) json_object_set_new(ev, "ratings", changes);
        room_broadcast(r, ev);
        room_notify(r); /* "status": "over" */
    } else {
        json_decref(changes);
    }
    json_decref(ev);
}

void room_changed(room_t *r)
{
    if (r->closed) return;
    r->seq++;                        /* the store counts it from the journal (store.c, replay()) */
    update_waits(r, room__clock(r)); /* the events tell the turn timer: start it first */
    /* state_line holds a seat's hidden cards between two sends: sending only
       queues or writes bytes, and a connection that fails is closed later
       (conn_doom()), so nothing here may run room_changed() again. */
    static bool writing;
    assert(!writing);
    writing = true;
    jw_t common;
    jw_text(&common, state_line, sizeof state_line);
    write_state_common(r, &common);
    for (int i = 0; i < r->nseats; i++) {
        session_t *s = r->seats[i].session;
        if (s && s->conn) {
            send_state(r, &common, i, s->conn);
            r->srv->metrics.state_events++;
        }
    }
    r->srv->metrics.state_events += (uint64_t)r->nwatchers;
    for (int i = 0; i < r->nwatchers; i++)
        send_state(r, &common, GAME_SPECTATOR, r->watchers[i]->conn);
    writing = false;
    if (r->status == ROOM_PLAYING && game_is_over(r->game)) {
        r->status = ROOM_OVER;
        /* No memory for the event: the members are dropped (send_members) rather
           than told an incomplete one. */
        unsigned long mark = tapis_alloc_failures();
        json_t *result = game_result(r->game);
        json_t *ev = room_new_event(r, "game_over");
        json_object_set(ev, "result", result);
        if (r->deal.version > 0) /* the server seed revealed: anyone may check every deck */
            json_object_set_new(ev, "deal", deal_json(&r->deal, r->nseats, true));
        /* In a cluster the ratings are written without waiting for Redis: the event waits
           for them (rated_over() sends it; ev is its own then). */
        bool later = false;
        if (r->rated && ev) {
            later = rated_room_over_async(r->srv, r->rated, r->id, result, rated_over, ev) == 0;
            if (!later)
                json_object_set_new(ev, "ratings",
                                    rated_room_over(r->srv, r->rated, r->id, result));
        }
        if (!later) ev = game_json_checked(ev, mark);
        durable_room_over(&r->srv->durable, &r->durable, result);
        char *text = json_dumps(result, JSON_COMPACT);
        log_info("room %s: game over %s", r->id, text ? text : "");
        tapis_free(text);
        json_decref(result);
        if (!later) {
            room_broadcast(r, ev);
            json_decref(ev);
            room_notify(r); /* "status": "over" */
        }
    }
    room__reschedule(r);
}

/* ------------------------------------------------------------------------ */
/* The room's clock and actions                                             */
/* ------------------------------------------------------------------------ */

/*
 * `now` for a game: never earlier than the last `now` it was given. Lines
 * and deadlines reach the room in time order (scheduler.c), so a deadline runs
 * at its own time, after every line stamped before it.
 */
static int64_t clock_at(room_t *r, int64_t ms)
{
    if (ms < r->last_now) ms = r->last_now;
    r->last_now = ms;
    return ms;
}

/*
 * Settle what is due at `now` and tell everyone, BEFORE an action at `now`
 * is tried: game_apply() would settle it too, but a refused action must not
 * leave a change nobody was told about. Returns true if still playing.
 */
static bool settle(room_t *r, int64_t now)
{
    if (game_next_deadline(r->game) <= now && game_tick(r->game, now)) {
        room__journal(r, "tick", -1, now, NULL);
        room_changed(r);
    }
    return r->status == ROOM_PLAYING;
}

/* game_apply(), counted in the metrics (applied, or refused with its code). */
static int apply_counted(room_t *r, int seat, const json_t *action, int64_t now, tapis_error_t *err)
{
    int rc = game_apply(r->game, seat, action, now, err);
    metrics_t *m = &r->srv->metrics;
    int g = metrics_game_index(r->desc->id);
    if (rc == 0)
        m->applied[g]++;
    else
        metrics_refused(m, g, err->code);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Actions                                                                  */
/* ------------------------------------------------------------------------ */

int room_apply(room_t *r, int seat, const json_t *action, uint64_t stamp_us,
               const room_settle_t *how, tapis_error_t *err)
{
    if (r->status == ROOM_WAITING) {
        metrics_refused(&r->srv->metrics, metrics_game_index(r->desc->id), TAPIS_E_NOT_STARTED);
        return game_fail(err, TAPIS_E_NOT_STARTED, "the table starts when its last seat fills");
    }
    /* A held line reaches the game when it was taken: its arrival, its hold
       less its credit (room_race.c). */
    bool held = how && how->hold_us > 0 && r->race == ROOM_RACE_REACTION;
    uint64_t at_us = held ? stamp_us + how->hold_us - how->credit_us : stamp_us;
    int64_t now =
        r->status == ROOM_PLAYING ? clock_at(r, (int64_t)(at_us / 1000) + r->clock_offset) : 0;
    if (r->status == ROOM_OVER || !settle(r, now)) {
        metrics_refused(&r->srv->metrics, metrics_game_index(r->desc->id), TAPIS_E_GAME_OVER);
        return game_fail(err, TAPIS_E_GAME_OVER, "this game is over");
    }
    if (held) room__race_evidence(r, r->seats[seat].session, stamp_us, how);
    int rc = apply_counted(r, seat, action, now, err);
    /* The journal says how: a held line, or one that names the state it answers. */
    if (rc == 0 && how && (held || how->seq >= 0))
        room__race_journal(r, seat, now, stamp_us, how, held);
    if (rc == 0 && held)
        histogram_observe(&r->srv->metrics.race_credit, (double)how->credit_us / 1e6);
    if (rc == 0) room__journal(r, "act", seat, now, action);
    /* In a simultaneous game (slap) the turn timer measures each seat's inactivity:
       an action starts that seat's clock afresh. In a turn game it runs from the
       start of the turn (233: draw and discard share one timer). */
    if (rc == 0 && r->desc->simultaneous) r->seats[seat].wait_since = -1;
    /* The order of these lines is the order actions reach the game (tests check it). */
    log_debug("room %s: act seat=%d stamp=%llu type=%s %s", r->id, seat,
              (unsigned long long)stamp_us, json_string_value(json_object_get(action, "type")),
              rc == 0 ? "ok" : err->code);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Timers: game deadlines, the turn timer, bots                             */
/* ------------------------------------------------------------------------ */

/* A reaction time drawn in the bot's range (its level's pace, or the one it names). */
static int64_t bot_delay(room_t *r, const seat_t *st)
{
    uint64_t lo = (uint64_t)st->bot_delay_min, hi = (uint64_t)st->bot_delay_max;
    uint64_t d = lo;
    if (hi > lo) d += rng_next(&r->srv->rng) % (hi - lo + 1);
    return (int64_t)d;
}

/* Does the bot at seat i have something to do? Yes when memory ran out: bot_move() will see. */
static bool bot_has_move(room_t *r, int i)
{
    json_t *legal = game_legal(r->game, i);
    bool any = !legal || json_array_size(legal) > 0;
    json_decref(legal);
    return any;
}

/* Arm the room's deadline (GAME_NO_DEADLINE: none) in the scheduler. */
static void set_timer(room_t *r, int64_t at)
{
    r->timer_at = at;
    if (at == GAME_NO_DEADLINE) {
        heap_remove(&r->srv->timers, &r->due);
        return;
    }
    /* Deadlines are in ms; what a line or deadline causes "at once" must still come
       after it (and after lines read with it): never before the work in hand. */
    int64_t server_at = at - r->clock_offset; /* room time to server time */
    uint64_t key = (uint64_t)(server_at < 0 ? 0 : server_at) * 1000;
    if (key < r->srv->work_us) key = r->srv->work_us;
    if (heap_set(&r->srv->timers, &r->due, key) < 0)
        log_error("room %s: out of memory for its timer", r->id);
}

/* A waiting room with no connected person in it is closed after --waiting-timeout. */
bool room__attended(const room_t *r)
{
    for (int i = 0; i < r->nseats; i++)
        if (r->seats[i].session && r->seats[i].session->conn) return true;
    for (int i = 0; i < r->nwatchers; i++)
        if (r->watchers[i]->conn) return true;
    return false;
}

void room__reschedule(room_t *r)
{
    if (r->closed) return;
    /* A bot's decision on the thread pool (room_think.c): the room's deadline waits
       for it, then the run it paused goes on at its time; once the room changed,
       it is let go and the seats are due as usual. */
    if (r->thinking && !room__think_current(r)) room__think_drop(r);
    if (r->thinking) {
        set_timer(r, room__think_ready(r, -1) ? r->run_at : GAME_NO_DEADLINE);
        return;
    }
    if (r->srv->stopping || r->status == ROOM_OVER) {
        set_timer(r, GAME_NO_DEADLINE);
        return;
    }
    if (r->status == ROOM_WAITING) {
        if (room__attended(r)) {
            r->unattended_at = -1;
            set_timer(r, GAME_NO_DEADLINE);
            return;
        }
        if (r->unattended_at < 0) r->unattended_at = room__clock(r);
        set_timer(r, r->unattended_at + (int64_t)r->srv->opts.waiting_timeout);
        return;
    }
    int64_t now = room__clock(r);
    int64_t at = game_next_deadline(r->game);
    uint64_t turn = r->srv->opts.turn_timer;
    /* A bot's next move falls due no earlier than the server's clock now,
       rounded up: with no reaction time, a room of bots would otherwise keep
       its moves at the time of the work in hand, before every line read
       since, and hold the whole server until its game ended. Only an
       at-once move (the rest of a move) stays at the time of its cause. */
    int64_t real = (int64_t)((server_now_us(r->srv) + 999) / 1000) + r->clock_offset;
    update_waits(r, now);
    for (int i = 0; i < r->nseats; i++) {
        seat_t *st = &r->seats[i];
        if (turn > 0 && !st->bot && st->wait_since >= 0 && st->wait_since + (int64_t)turn < at)
            at = st->wait_since + (int64_t)turn;
        if (st->bot) {
            if (st->bot_due == GAME_NO_DEADLINE && st->bot_passed_seq != r->seq &&
                bot_has_move(r, i)) {
                if (at_once(r, i))
                    st->bot_due = now;
                else {
                    /* a bot's move waits the room's hold, as a near player's line does */
                    st->bot_due = now + bot_delay(r, st) + (int64_t)(room_hold_us(r) / 1000);
                    if (st->bot_due < real) st->bot_due = real;
                }
            }
            if (st->bot_due < at) at = st->bot_due;
        }
    }
    set_timer(r, at);
}

/* What bot_move() did: nothing, a move, or its decision went to the thread pool. */
enum { BOT_IDLE, BOT_MOVED, BOT_THINKING };

/*
 * The bot at seat i plays from its own view: decided here, or on the thread
 * pool (room_think.c) if its level searches, when it comes back to the run
 * it paused (room_run_due()) with the room unchanged.
 */
static int bot_move(room_t *r, int i, int64_t now)
{
    seat_t *st = &r->seats[i];
    unsigned long mark = tapis_alloc_failures();
    bool oom = false;
    json_t *action;
    if (room__think_ready(r, i)) {
        st->bot_due = GAME_NO_DEADLINE;
        action = room__think_take(r, &oom);
    } else {
        st->bot_due = GAME_NO_DEADLINE;
        if (!settle(r, now)) return BOT_IDLE;
        /* Out of memory, the bot has not passed: it tries again after a new delay
           (room__reschedule()), or the game would wait on it for ever. */
        json_t *view = view_for(r, i);
        if (view && room__thinks_off_loop(r, i, view) && room__think_start(r, i, view) == 0) {
            json_decref(view);
            st->bot_due = now; /* still due: the run goes on with the result */
            return BOT_THINKING;
        }
        action = view ? game_bot(r->desc, view, st->bot_name, &st->bot_rng) : NULL;
        json_decref(view);
    }
    oom = oom || tapis_alloc_failed_since(mark);
    if (!action) {
        if (!oom) st->bot_passed_seq = r->seq;
        return BOT_IDLE;
    }
    tapis_error_t err = {0};
    int rc = apply_counted(r, i, action, now, &err);
    if (rc < 0) {
        log_debug("room %s: bot at seat %d refused: %s (%s)", r->id, i, err.code, err.message);
        if (!oom && !tapis_alloc_failed_since(mark)) st->bot_passed_seq = r->seq;
    } else {
        room__journal(r, "act", i, now, action);
        st->think_drops = 0;
        log_debug("room %s: bot seat=%d at=%lld type=%s", r->id, i, (long long)now,
                  json_string_value(json_object_get(action, "type")));
    }
    json_decref(action);
    return rc == 0 ? BOT_MOVED : BOT_IDLE;
}

/* Seat i ran out of time: the game's default action for it. */
static bool turn_timeout(room_t *r, int i, int64_t now)
{
    seat_t *st = &r->seats[i];
    int64_t since = st->wait_since;
    st->wait_since = now; /* whatever happens, the next timeout is a full turn away */
    if (!settle(r, now)) return false;
    unsigned long mark = tapis_alloc_failures();
    json_t *action = game_default_action(r->game, i);
    tapis_error_t err = {0};
    int rc = action ? apply_counted(r, i, action, now, &err) : -1;
    if (rc < 0 && tapis_alloc_failed_since(mark)) {
        st->wait_since = since; /* out of memory: the timeout is still due (tried again) */
        json_decref(action);
        return false;
    }
    if (!action) return false;
    if (rc < 0)
        log_warn("room %s: default action for seat %d refused: %s", r->id, i, err.code);
    else
        log_info("room %s: seat %d timed out; default action played", r->id, i);
    if (rc == 0) room__journal(r, "act", i, now, action);
    json_decref(action);
    if (rc == 0) {
        mark = tapis_alloc_failures();
        json_t *ev = room_new_event(r, "timeout");
        json_object_set_new(ev, "seat", json_integer(i));
        room_broadcast_new(r, ev, mark);
    }
    return rc == 0;
}

void room_close(room_t *r, const char *reason)
{
    if (r->closed) return;
    unsigned long mark = tapis_alloc_failures();
    json_t *ev = room_new_event(r, "closed");
    json_object_set_new(ev, "reason", json_string(reason));
    room_broadcast_new(r, ev, mark);
    room_destroy(r);
}

/* Nobody came back to a waiting table: close it. */
static void close_unattended(room_t *r)
{
    log_info("room %s: waiting with nobody connected for %llu ms; closing", r->id,
             (unsigned long long)r->srv->opts.waiting_timeout);
    room_close(r, "waiting_timeout");
}

/*
 * The seat whose move is due at `now` to run first, or -1. A bot's at-once
 * action (game.h, at_once: the rest of its move, as seqnum's draw after a
 * play) comes before any other seat's move due at the same time, or the next
 * seat could play and draw first and the draw would lapse; then the turn
 * timers that ran out, then the bots, each in seat order. A seat in `done`
 * moved in this run already: only an at-once action of its own (if
 * `once_ok`) may follow. *once says the seat returned acts at once.
 */
static int next_due(room_t *r, int64_t now, unsigned done, bool once_ok, bool *once)
{
    uint64_t turn = r->srv->opts.turn_timer;
    int timeout = -1, bot = -1;
    for (int i = 0; i < r->nseats; i++) {
        seat_t *st = &r->seats[i];
        if (st->bot && st->bot_due <= now && at_once(r, i) && once_ok) {
            *once = true;
            return i;
        }
        if (done & (1u << i)) continue;
        if (!st->bot && turn > 0 && st->wait_since >= 0 && st->wait_since + (int64_t)turn <= now &&
            timeout < 0)
            timeout = i;
        if (st->bot && st->bot_due <= now && bot < 0) bot = i;
    }
    return timeout >= 0 ? timeout : bot;
}

void room_run_due(room_t *r)
{
    int64_t due = r->timer_at;
    set_timer(r, GAME_NO_DEADLINE);
    if (r->status == ROOM_WAITING) {
        if (!room__attended(r) && r->unattended_at >= 0 &&
            room__clock(r) >= r->unattended_at + (int64_t)r->srv->opts.waiting_timeout)
            close_unattended(r);
        else
            room__reschedule(r);
        return;
    }
    if (r->status != ROOM_PLAYING) return;
    int64_t now = clock_at(r, due);
    settle(r, now);
    /* Each seat moves at most once a run, but for its at-once actions (a bounded
       number of them, should a game keep saying at_once). A run that a bot's
       search paused goes on where it stopped, with its result. */
    bool resumed = room__think_ready(r, -1) && r->run_at == due;
    unsigned done = resumed ? r->run_done : 0;
    for (int left = resumed ? r->run_left : 4 * r->nseats; r->status == ROOM_PLAYING;) {
        bool once = false;
        int i = next_due(r, now, done, left > 0, &once);
        if (i < 0) break;
        if (once) left--;
        if (r->thinking && !room__think_ready(r, i)) room__think_drop(r); /* not this one's */
        int did = !r->seats[i].bot ? (turn_timeout(r, i, now) ? BOT_MOVED : BOT_IDLE)
                                   : bot_move(r, i, now);
        if (did == BOT_THINKING) { /* room__reschedule() holds the room until it is in */
            r->run_at = due;
            r->run_done = done;
            r->run_left = left + (once ? 1 : 0);
            break;
        }
        done |= 1u << i;
        if (did == BOT_MOVED) room_changed(r);
    }
    room__reschedule(r);
}
