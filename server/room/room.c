/*
 * room.c — hosting one core game: creation, seats and spectators, and the
 * rebuilding of a restored room. Its events, clock, actions and its one
 * deadline are in room_play.c.
 */
#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <sodium.h>
#include <string.h>

#include "server/net/conn.h"
#include "protocol/envelope.h"
#include "json/jw.h"
#include "server/base/log.h"
#include "server/account/account.h"
#include "server/room/room_int.h"
#include "server/session/session.h"
#include "server/durable/durable.h"
#include "core/journal.h"

static int fail(tapis_error_t *err, const char *code, const char *msg);

/* The first 40 bytes of seats 0 and 1 (room.h: what an act reads) each in one cache line. */
_Static_assert(offsetof(room_t, seats) % 64 == 0 && sizeof(seat_t) % 16 == 0,
               "seats start on a cache line");

/* ------------------------------------------------------------------------ */
/* Creation, lookup, destruction                                            */
/* ------------------------------------------------------------------------ */

/*
 * A private room's id is its join code: "p" and 13 characters of a
 * 32-letter alphabet (65 bits from the OS, no modulo bias: 32 divides 256).
 */
#define PRIVATE_CODE_CHARS 13
static int private_code(char *out)
{
    static const char alphabet[32] = "abcdefghjkmnpqrstuvwxyz023456789";
    unsigned char raw[PRIVATE_CODE_CHARS];
    if (server_random(raw, sizeof raw) < 0) return -1;
    out[0] = 'p';
    for (int i = 0; i < PRIVATE_CODE_CHARS; i++)
        out[i + 1] = alphabet[raw[i] & 31];
    out[PRIVATE_CODE_CHARS + 1] = 0;
    return 0;
}

/* What the durability sink is told of r, once its id is set. */
static void set_durable(room_t *r)
{
    r->durable = (durable_room_t){.rid = r->rid,
                                  .id = r->id,
                                  .game = r->desc->id,
                                  .title = r->desc->title,
                                  .players = r->nseats,
                                  .private_room = r->private_room,
                                  .race = room_race_name(r->race)};
}

/* Entry n of r's journal: to the durability sink (the store and, with --redis, the cluster). */
void room__journal(room_t *r, const char *kind, int seat, int64_t at, const json_t *data)
{
    uint64_t n = ++r->journal_n;
    durable_journal(&r->srv->durable, &r->durable, n, kind, seat, at, data);
}

/* s is in r now (sits or watches): the session's list of rooms, and the sink. */
static int member_add(room_t *r, session_t *s)
{
    int added = session_add_room(s, r);
    if (added > 0) durable_session_room(&r->srv->durable, s->id, &r->durable, true);
    return added < 0 ? -1 : 0;
}

static void member_remove(room_t *r, session_t *s)
{
    if (session_remove_room(s, r))
        durable_session_room(&r->srv->durable, s->id, &r->durable, false);
}

/*
 * Deal r's game again with seat's seed set to text: the new game first, so
 * that nothing changes when there is no memory for it; then a "seed" entry.
 */
static int deal_again(room_t *r, int seat, const char *text, int64_t at, tapis_error_t *err)
{
    game_deal_t deal = r->deal;
    snprintf(deal.seeds[seat], sizeof deal.seeds[seat], "%s", text);
    unsigned long mark = tapis_alloc_failures();
    json_t *data = json_pack("{s:s}", "seed", text);
    game_t *g = data ? game_new_dealt(r->desc, r->nseats, r->options, &deal, err) : NULL;
    if (!g || tapis_alloc_failed_since(mark)) {
        json_decref(data);
        game_free(g);
        game_fail(err, TAPIS_E_INTERNAL, "out of memory");
        return -1;
    }
    game_free(r->game);
    r->game = g;
    r->deal = deal;
    if (durable_any(&r->srv->durable))
        room__journal(r, "seed", seat, at, data);
    else
        r->journal_n++;
    json_decref(data);
    return 0;
}

int room_seed(room_t *r, int seat, const char *text, tapis_error_t *err)
{
    if (r->status != ROOM_WAITING)
        return fail(err, TAPIS_E_GAME_STARTED,
                    "the game has started: seeds are taken until the table fills");
    if (r->deal.version == 0)
        return fail(err, TAPIS_E_BAD_REQUEST,
                    "this table was dealt before seeds existed (deal version 0)");
    const char *why = deal_seed_refusal(text);
    if (why)
        return fail(err, strlen(text) > DEAL_SEED_MAX ? TAPIS_E_SEED_TOO_LONG : TAPIS_E_BAD_TEXT,
                    why);
    if (deal_again(r, seat, text, room__clock(r), err) < 0) return -1;
    log_info("room %s: seat %d gave a seed", r->id, seat);
    return 0;
}

/* Seat i changed (sat, freed, a bot took it): its row, and a "seat" entry saying who. */
static void seat_changed(room_t *r, int i, int64_t at)
{
    /* Whoever sits there now did not give the seat's seed: it goes (kept when no
       memory to deal again: the journal says which, and the replay follows it). */
    tapis_error_t ignored;
    if (r->status == ROOM_WAITING && r->deal.seeds[i][0] && deal_again(r, i, "", at, &ignored) < 0)
        log_warn("room %s: seat %d keeps its seed (out of memory)", r->id, i);
    if (!durable_any(&r->srv->durable)) { /* nothing keeps a journal */
        r->journal_n++;
        return;
    }
    const seat_t *t = &r->seats[i];
    json_t *who = t->bot       ? json_pack("{s:s}", "bot", t->bot_strategy)
                  : t->session ? json_pack("{s:s, s:I}", "name", t->session->name, "session",
                                           (json_int_t)t->session->id)
                               : json_object();
    durable_seat_t seat = {.bot = t->bot};
    if (t->bot) {
        seat.strategy = t->bot_strategy;
        seat.bot_name = t->bot_name;
        seat.delay_min = t->bot_delay_min;
        seat.delay_max = t->bot_delay_max;
    } else if (t->session) {
        seat.session = t->session->id;
        seat.name = t->session->name;
    }
    durable_seat(&r->srv->durable, &r->durable, i, &seat);
    room__journal(r, "seat", i, at, who);
    json_decref(who);
}

/* r in srv's index of rooms by id. Returns 0, or -1 (no memory). */
static int rooms_add(server_t *srv, room_t *r)
{
    if (!srv->rooms_by_id.n) idmap_init(&srv->rooms_by_id, offsetof(room_t, id));
    return idmap_add(&srv->rooms_by_id, r);
}

room_t *room_create(server_t *srv, const game_desc_t *d, int nseats, const json_t *options,
                    bool private_room, room_race_t race, tapis_error_t *err)
{
    if (srv->nrooms >= srv->opts.max_rooms) {
        game_fail(err, TAPIS_E_SERVER_FULL,
                  "the server hosts as many rooms as it may; try again later");
        return NULL;
    }
    /* The options are checked first (a number or a code is spent only on a room
       that will be); the game is dealt once the room has its id (its deal names it). */
    game_t *g = game_new(d, nseats, options, 0, err);
    if (!g) return NULL;
    /* The complete options (the defaults merged in): what a replay gives game_new().
       And the room's place in the timer heap, so that its deadlines never need memory. */
    unsigned long mark = tapis_alloc_failures();
    json_t *all = game_default_options(d);
    if (options) json_object_update(all, (json_t *)options);
    room_t *r = NULL;
    if (!(all = game_json_checked(all, mark)) ||
        heap_reserve(&srv->timers, (size_t)srv->nrooms + 1) < 0 ||
        !(r = tapis_calloc(1, sizeof *r))) {
        json_decref(all);
        game_free(g);
        game_fail(err, TAPIS_E_INTERNAL, "out of memory");
        return NULL;
    }
    r->srv = srv;
    r->desc = d;
    r->nseats = nseats;
    r->game = g;
    r->private_room = private_room;
    r->race = race;
    r->status = ROOM_WAITING;
    r->timer_at = GAME_NO_DEADLINE;
    r->unattended_at = -1;
    for (int i = 0; i < GAME_MAX_SEATS; i++) {
        r->seats[i].bot_due = GAME_NO_DEADLINE;
        r->seats[i].wait_since = -1;
    }
    uint64_t cid = durable_next_id(&srv->durable, "room"); /* in a cluster, the cluster's */
    r->rid = cid ? cid : ++srv->rooms_created;
    if (r->rid > srv->rooms_created) srv->rooms_created = r->rid;
    if (private_room) {
        int tries = 0;
        do {
            if (private_code(r->id) < 0 || ++tries > 8) {
                json_decref(all);
                game_free(g);
                tapis_free(r);
                game_fail(err, TAPIS_E_INTERNAL, "no randomness for a private code");
                return NULL;
            }
        } while (room_find(srv, r->id));
    } else {
        snprintf(r->id, sizeof r->id, "%llu", (unsigned long long)r->rid);
    }
    server_game_deal(srv, r->id, &r->deal);
    game_free(g);
    r->game = g = game_new_dealt(d, nseats, all, &r->deal, err);
    r->options = all;
    set_durable(r);
    if (!g || rooms_add(srv, r) < 0) {
        json_decref(all);
        game_free(g);
        tapis_free(r);
        game_fail(err, TAPIS_E_INTERNAL, "out of memory");
        return NULL;
    }
    queue_insert_head(&srv->rooms, &r->node);
    srv->nrooms++;
    log_info("room %s: created (%s, %d seats%s)", r->id, d->id, nseats,
             private_room ? ", private" : "");
    durable_room_new(&srv->durable, &r->durable, all, &r->deal);
    return r;
}

void room_free_graveyard(server_t *srv)
{
    while (!queue_empty(&srv->graveyard)) {
        room_t *r = queue_data(queue_head(&srv->graveyard), room_t, node);
        queue_remove(&r->node);
        game_free(r->game);
        json_decref(r->options);
        sodium_memzero(&r->deal, sizeof r->deal);
        durable_room_free(&srv->durable, &r->durable);
        rated_room_free(r->rated);
        tapis_free(r->watchers);
        tapis_free(r);
    }
}

void room_destroy(room_t *r)
{
    server_t *srv = r->srv;
    if (r->closed) return;
    r->closed = true;
    room__think_drop(r); /* a bot's search in flight frees itself when it comes back */
    heap_remove(&srv->timers, &r->due);
    if (r->rated && r->status == ROOM_PLAYING && !srv->stopping) /* left: who abandoned loses */
        json_decref(rated_room_over(srv, r->rated, r->id, NULL));
    log_info("room %s: closed", r->id);
    for (int i = 0; i < r->nseats; i++)
        if (r->seats[i].session) member_remove(r, r->seats[i].session);
    for (int i = 0; i < r->nwatchers; i++)
        member_remove(r, r->watchers[i]);
    durable_room_closed(&srv->durable, &r->durable, r->status == ROOM_OVER);
    idmap_remove(&srv->rooms_by_id, r);
    queue_remove(&r->node);
    srv->nrooms--;
    /* Callers up the stack may still look at r: it is freed at the end of the turn. */
    queue_insert_head(&srv->graveyard, &r->node);
}

room_t *room_find(server_t *srv, const char *id)
{
    return idmap_find(&srv->rooms_by_id, id);
}

/* ------------------------------------------------------------------------ */
/* Membership                                                               */
/* ------------------------------------------------------------------------ */

int room_seat_of(const room_t *r, const session_t *s)
{
    for (int i = 0; i < r->nseats; i++)
        if (r->seats[i].session == s) return i;
    return -1;
}

bool room_holds_seat(const room_t *r, const session_t *s)
{
    return r->status != ROOM_OVER && room_seat_of(r, s) >= 0;
}

bool room_is_watcher(const room_t *r, const session_t *s)
{
    for (int i = 0; i < r->nwatchers; i++)
        if (r->watchers[i] == s) return true;
    return false;
}

static int fail(tapis_error_t *err, const char *code, const char *msg)
{
    err->code = code;
    snprintf(err->message, sizeof err->message, "%s", msg);
    return -1;
}

static bool seat_free(const room_t *r, int i)
{
    return !r->seats[i].session && !r->seats[i].bot;
}

static int first_free(const room_t *r)
{
    for (int i = 0; i < r->nseats; i++)
        if (seat_free(r, i)) return i;
    return -1;
}

static bool has_people(const room_t *r)
{
    if (r->nwatchers > 0) return true;
    for (int i = 0; i < r->nseats; i++)
        if (r->seats[i].session) return true;
    return false;
}

void room_seated(room_t *r)
{
    bool starts = r->status == ROOM_WAITING && first_free(r) < 0;
    if (starts) {
        r->status = ROOM_PLAYING;
        r->last_now = room__clock(r);
        log_info("room %s: table full, game starts", r->id);
        durable_room_started(&r->srv->durable, &r->durable);
        for (int i = 0; r->rated && i < r->nseats; i++) /* who plays, for the ratings */
            rated_room_seat(r->srv, r->rated, i,
                            r->seats[i].session ? r->seats[i].session->account : NULL,
                            r->seats[i].bot ? r->seats[i].bot_strategy : NULL);
        if (r->rated) rated_room_begin(r->srv, r->rated, r->id);
        room__journal(r, "start", -1, r->last_now, NULL);
    }
    room_notify(r); /* the seats, and "playing" when it starts: before the first state */
    if (starts)
        room_changed(r);
    else
        room__reschedule(r);
}

static void remove_watcher(room_t *r, session_t *s)
{
    for (int i = 0; i < r->nwatchers; i++)
        if (r->watchers[i] == s) {
            r->watchers[i] = r->watchers[--r->nwatchers];
            durable_watcher(&r->srv->durable, &r->durable, s->id, false);
            return;
        }
}

int room_sit(room_t *r, session_t *s, int seat, tapis_error_t *err)
{
    if (room_seat_of(r, s) >= 0)
        return fail(err, TAPIS_E_ALREADY_SEATED, "you already sit at this table");
    if (r->status != ROOM_WAITING)
        return fail(err, TAPIS_E_ROOM_FULL, "this table is already playing");
    if (seat >= r->nseats) return fail(err, TAPIS_E_BAD_REQUEST, "no such seat at this table");
    if (seat >= 0 && !seat_free(r, seat))
        return fail(err, TAPIS_E_SEAT_TAKEN, "that seat is taken");
    if (seat < 0 && (seat = first_free(r)) < 0) return fail(err, TAPIS_E_ROOM_FULL, "no free seat");
    if (s->nrooms >= SESSION_MAX_ROOMS)
        return fail(err, TAPIS_E_TOO_MANY_ROOMS, "leave a room first (you are in too many)");
    if (member_add(r, s) < 0) return fail(err, TAPIS_E_INTERNAL, "out of memory");
    remove_watcher(r, s);
    r->seats[seat].session = s;
    log_info("room %s: %s sits at seat %d", r->id, s->name, seat);
    seat_changed(r, seat, room__clock(r));
    return seat;
}

/* A delay in ms: digits only, at most BOT_DELAY_MAX_MS. Returns -1 when malformed. */
static int64_t parse_ms(const char *s, size_t len)
{
    if (len == 0 || len > 5) return -1;
    int64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v <= BOT_DELAY_MAX_MS ? v : -1;
}

/* The level of r's game named `name` (n bytes), or NULL. */
static const game_bot_level_t *find_level(const room_t *r, const char *name, size_t n)
{
    for (const game_bot_level_t *l = r->desc->bot_levels; l && l->name; l++)
        if (strlen(l->name) == n && memcmp(l->name, name, n) == 0) return l;
    return NULL;
}

void room_bot_pace(const server_t *srv, const game_bot_level_t *l, int64_t *lo, int64_t *hi)
{
    if (srv->opts.bot_delay_set || l->min_ms < 0) {
        *lo = (int64_t)srv->opts.bot_delay_min;
        *hi = (int64_t)srv->opts.bot_delay_max;
    } else {
        *lo = l->min_ms;
        *hi = l->max_ms;
    }
}

/*
 * Parse a bot strategy "LEVEL", "LEVEL:MS" or "LEVEL:MIN-MAX" (NULL: the
 * game's first level) into st: the level's strategy for the game's bot and
 * the reaction time (the one named, else the level's pace). Returns 0, or -1
 * with err.
 */
static int parse_strategy(room_t *r, seat_t *st, const char *strategy, tapis_error_t *err)
{
    const game_bot_level_t *levels = r->desc->bot_levels;
    if (!strategy) strategy = levels && levels[0].name ? levels[0].name : "greedy";
    const char *colon = strchr(strategy, ':');
    size_t nlen = colon ? (size_t)(colon - strategy) : strlen(strategy);
    const game_bot_level_t *level = find_level(r, strategy, nlen);
    if (!level) {
        char msg[160];
        int n = snprintf(msg, sizeof msg, "strategy: no bot level \"%.*s\" here (",
                         (int)(nlen > 32 ? 32 : nlen), strategy);
        for (const game_bot_level_t *l = levels; l && l->name && n < (int)sizeof msg; l++)
            n +=
                snprintf(msg + n, sizeof msg - (size_t)n, "%s%s", l == levels ? "" : ", ", l->name);
        if (n < (int)sizeof msg)
            snprintf(msg + n, sizeof msg - (size_t)n, "; optionally :MS or :MIN-MAX)");
        return fail(err, TAPIS_E_BAD_REQUEST, msg);
    }
    int64_t lo, hi;
    room_bot_pace(r->srv, level, &lo, &hi);
    if (colon) {
        const char *d = colon + 1, *dash = strchr(d, '-');
        lo = parse_ms(d, dash ? (size_t)(dash - d) : strlen(d));
        hi = dash ? parse_ms(dash + 1, strlen(dash + 1)) : lo;
        if (lo < 0 || hi < lo) {
            char msg[160];
            snprintf(msg, sizeof msg,
                     "strategy: the reaction time after ':' is MS or MIN-MAX, in ms from 0 to %d",
                     BOT_DELAY_MAX_MS);
            return fail(err, TAPIS_E_BAD_REQUEST, msg);
        }
    }
    snprintf(st->bot_strategy, sizeof st->bot_strategy, "%s", strategy);
    snprintf(st->bot_name, sizeof st->bot_name, "%s", level->strategy);
    st->bot_delay_min = lo;
    st->bot_delay_max = hi;
    return 0;
}

/* Seat i becomes a bot (a new one, or one replacing a person) of the strategy st holds. */
static void make_bot(room_t *r, int i)
{
    seat_t *st = &r->seats[i];
    st->session = NULL;
    st->bot = true;
    rng_seed(&st->bot_rng, rng_next(&r->srv->rng));
    st->bot_due = GAME_NO_DEADLINE;
    st->bot_passed_seq = UINT64_MAX;
}

int room_add_bot(room_t *r, const char *strategy, tapis_error_t *err)
{
    if (!game_has_bot(r->desc)) return fail(err, TAPIS_E_NO_BOT, "this game has no built-in bot");
    if (r->status != ROOM_WAITING)
        return fail(err, TAPIS_E_ROOM_FULL, "this table is already playing");
    int seat = first_free(r);
    if (seat < 0) return fail(err, TAPIS_E_ROOM_FULL, "no free seat");
    if (parse_strategy(r, &r->seats[seat], strategy, err) < 0) return -1;
    make_bot(r, seat);
    log_info("room %s: bot (%s) at seat %d", r->id, r->seats[seat].bot_strategy, seat);
    seat_changed(r, seat, room__clock(r));
    return seat;
}

int room_watch(room_t *r, session_t *s, tapis_error_t *err)
{
    if (room_seat_of(r, s) >= 0) return fail(err, TAPIS_E_ALREADY_SEATED, "you sit at this table");
    if (room_is_watcher(r, s)) return 0;
    if (s->nrooms >= SESSION_MAX_ROOMS)
        return fail(err, TAPIS_E_TOO_MANY_ROOMS, "leave a room first (you are in too many)");
    if (r->nwatchers == r->capwatchers) {
        int cap = r->capwatchers ? 2 * r->capwatchers : 4;
        session_t **n = tapis_realloc(r->watchers, (size_t)cap * sizeof *n);
        if (!n) return fail(err, TAPIS_E_INTERNAL, "out of memory");
        r->watchers = n;
        r->capwatchers = cap;
    }
    if (member_add(r, s) < 0) return fail(err, TAPIS_E_INTERNAL, "out of memory");
    r->watchers[r->nwatchers++] = s;
    durable_watcher(&r->srv->durable, &r->durable, s->id, true);
    log_info("room %s: %s watches", r->id, s->name);
    room__reschedule(r);
    return 0;
}

void room_release(room_t *r, session_t *s)
{
    member_remove(r, s);
    if (r->closed) return;
    remove_watcher(r, s);
    int seat = room_seat_of(r, s);
    if (seat >= 0) {
        if (r->status == ROOM_PLAYING && r->rated && !r->srv->stopping) /* a loss */
            rated_room_abandon(r->srv, r->rated, r->id, seat);
        if (r->status == ROOM_PLAYING && game_has_bot(r->desc)) {
            log_info("room %s: %s leaves seat %d; a bot takes it", r->id, s->name, seat);
            tapis_error_t ignored;
            parse_strategy(r, &r->seats[seat], "greedy", &ignored);
            make_bot(r, seat);
        } else {
            log_info("room %s: %s leaves seat %d", r->id, s->name, seat);
            r->seats[seat].session = NULL;
        }
        seat_changed(r, seat, room__clock(r));
    }
    if (!has_people(r) && !r->srv->stopping) {
        room_destroy(r);
        return;
    }
    if (r->srv->stopping) return;
    room_notify(r);
    room__reschedule(r);
}

static void member_event(room_t *r, session_t *s, const char *ev)
{
    if (!room__attended(r)) return; /* nobody to tell: build nothing */
    unsigned long mark = tapis_alloc_failures();
    json_t *m = room_new_event(r, ev);
    json_object_set_new(m, "seat", json_integer(room_seat_of(r, s)));
    json_object_set_new(m, "name", json_string(s->name));
    if (strcmp(ev, "disconnect") == 0)
        json_object_set_new(m, "hold_ms", json_integer((json_int_t)r->srv->opts.reconnect_window));
    room_broadcast_new(r, m, mark);
}

void room_member_disconnected(room_t *r, session_t *s)
{
    log_info("room %s: %s disconnected (seat %d held)", r->id, s->name, room_seat_of(r, s));
    member_event(r, s, "disconnect");
    room_notify(r); /* "connected": false */
    room__reschedule(r);
}

void room_member_reconnected(room_t *r, session_t *s)
{
    log_info("room %s: %s reconnected", r->id, s->name);
    member_event(r, s, "reconnect");
    room_notify(r); /* "connected": true, to everyone (the returning player included) */
    if (r->status != ROOM_WAITING) conn_send_new(s->conn, room_state_event(r, room_seat_of(r, s)));
    room__reschedule(r);
}

/* ------------------------------------------------------------------------ */
/* Restoring: a backend's record replayed here, then hosted                 */
/* ------------------------------------------------------------------------ */

room_t *room_restore(server_t *srv, const game_desc_t *d, game_t *g, const room_record_t *rec)
{
    room_t *r = NULL;
    json_t *options = json_loads(rec->options, 0, NULL);
    if (srv->nrooms >= srv->opts.max_rooms || room_find(srv, rec->id) || !options ||
        heap_reserve(&srv->timers, (size_t)srv->nrooms + 1) < 0 ||
        !(r = tapis_calloc(1, sizeof *r))) {
        json_decref(options);
        game_free(g);
        return NULL;
    }
    r->options = options;
    r->deal = *rec->deal;
    r->srv = srv;
    r->desc = d;
    r->nseats = rec->nseats;
    r->game = g;
    r->rid = rec->rid;
    snprintf(r->id, sizeof r->id, "%s", rec->id);
    r->private_room = rec->private_room;
    if (room_race_parse(rec->race, &r->race) < 0) r->race = room_race_default(srv);
    r->status = rec->playing ? ROOM_PLAYING : ROOM_WAITING;
    r->seq = rec->seq;
    r->journal_n = rec->journal_n;
    set_durable(r);
    r->last_now = rec->last_at;
    r->clock_offset = rec->last_at - server_now_ms(srv);
    r->timer_at = GAME_NO_DEADLINE;
    r->unattended_at = -1;
    if (rooms_add(srv, r) < 0) {
        json_decref(options);
        game_free(g);
        tapis_free(r);
        return NULL;
    }
    queue_insert_head(&srv->rooms, &r->node);
    srv->nrooms++;
    durable_room_rebuilt(&srv->durable, &r->durable, rec->from);
    for (int i = 0; i < r->nseats; i++) {
        seat_t *st = &r->seats[i];
        st->bot_due = GAME_NO_DEADLINE;
        st->wait_since = -1;
        if (rec->seats[i].bot) {
            tapis_error_t ignored;
            if (parse_strategy(r, st, rec->seats[i].strategy, &ignored) < 0)
                parse_strategy(r, st, NULL, &ignored); /* a level this build no longer has */
            make_bot(r, i);
        } else if (rec->seats[i].session && member_add(r, rec->seats[i].session) == 0) {
            st->session = rec->seats[i].session;
        } else if (rec->seats[i].session || (rec->playing && !rec->seats[i].bot)) {
            /* A person whose session did not come back: a bot plays on (as after the
               reconnect window), or the seat of a waiting table is free again. */
            if (r->status == ROOM_PLAYING && game_has_bot(r->desc)) {
                tapis_error_t ignored;
                parse_strategy(r, st, "greedy", &ignored);
                make_bot(r, i);
            }
            seat_changed(r, i, r->last_now);
        }
    }
    log_info("room %s: restored (%s, %d seats, %s, seq %llu, %llu journal entries)", r->id, d->id,
             r->nseats, room_status_name(r->status), (unsigned long long)r->seq,
             (unsigned long long)r->journal_n);
    if (!has_people(r)) { /* as when its last person leaves */
        room_destroy(r);
        return NULL;
    }
    room__reschedule(r);
    return r;
}

/*
 * The one replay of a restore: the store's at a restart and the cluster's at
 * a takeover both come here with their record (see room.h).
 */
durable_verdict_t room_rebuild(server_t *srv, durable_room_rec_t *rec, const char *here,
                               room_find_session_fn find, void *ctx, room_t **out, json_t **result,
                               char *why, size_t whylen)
{
    *out = NULL;
    *result = NULL;
    const game_desc_t *d = game_find(rec->game);
    int n = rec->players;
    if (!d) {
        snprintf(why, whylen, "this %s has no game \"%s\"", here, rec->game);
        return DURABLE_ROOM_BAD;
    }
    if (n < d->min_seats || n > d->max_seats || n > GAME_MAX_SEATS) {
        snprintf(why, whylen, "%d players is not a table of %s", n, d->id);
        return DURABLE_ROOM_BAD;
    }
    journal_replay_t jr;
    if (journal_replay_start(&jr, d, n, rec->options, &rec->deal, why, whylen) < 0)
        return DURABLE_ROOM_BAD;
    int ok = 0;
    for (size_t i = 0; ok == 0 && i < rec->nentries; i++) {
        const durable_entry_t *e = &rec->entries[i];
        ok = journal_replay_entry(&jr, e->n, e->kind, e->seat, e->at, e->data, why, whylen);
    }
    if (ok == 0 && rec->error[0]) { /* the backend could not read it all */
        snprintf(why, whylen, "%s", rec->error);
        ok = -1;
    }
    if (ok < 0) {
        journal_replay_abandon(&jr);
        return DURABLE_ROOM_BAD;
    }
    if (game_is_over(jr.g)) {
        *result = game_result(jr.g);
        journal_replay_abandon(&jr);
        return DURABLE_ROOM_OVER;
    }
    room_record_t rr = {.rid = rec->rid,
                        .private_room = rec->private_room,
                        .race = rec->race,
                        .playing = rec->playing,
                        .seq = rec->seq,
                        .last_at = jr.last_at,
                        .journal_n = jr.n,
                        .options = rec->options,
                        .deal = &jr.deal,
                        .from = rec,
                        .nseats = n};
    snprintf(rr.id, sizeof rr.id, "%s", rec->id);
    /* Each change of a room is one journal entry and one state event: the count
       is the room's seq (the store's rooms.seq, kept by databases of schema 2
       written before this counted, is never more). */
    if (jr.changes > rr.seq) rr.seq = jr.changes;
    for (int i = 0; i < n; i++) {
        rr.seats[i].bot = rec->seats[i].bot;
        snprintf(rr.seats[i].strategy, sizeof rr.seats[i].strategy, "%s", rec->seats[i].strategy);
        if (!rec->seats[i].bot && rec->seats[i].session)
            rr.seats[i].session = find(ctx, rec, i, rec->seats[i].session);
    }
    room_t *r = room_restore(srv, d, journal_replay_take(&jr), &rr);
    if (!r) {
        snprintf(why, whylen, "no room for it here (--max-rooms, or nobody in it)");
        return DURABLE_ROOM_NO_ROOM;
    }
    for (size_t i = 0; i < rec->nwatchers; i++) {
        session_t *s = find(ctx, rec, -1, rec->watchers[i]);
        tapis_error_t ignored;
        if (s && room_seat_of(r, s) < 0) room_watch(r, s, &ignored);
    }
    /* Members connected to this node see the room come back at once (a takeover:
       at a restart nobody is connected yet). */
    for (int i = 0; i < r->nseats; i++)
        if (r->seats[i].session && r->seats[i].session->conn)
            room_member_reconnected(r, r->seats[i].session);
    for (int i = 0; i < r->nwatchers; i++)
        if (r->watchers[i]->conn) room_member_reconnected(r, r->watchers[i]);
    *out = r;
    return DURABLE_ROOM_REBUILT;
}
