/*
 * room.h — one table: seats, spectators, a core game, its clock and timers.
 *
 * A room is created with its game (so options are checked at once) and
 * plays once its last seat fills. Everything a client learns about the game
 * comes from game_view() in a state event:
 *   {"ev":"state","room":R,"seq":N,"view":VIEW}
 * sent to every connected seated player (their own view, with "seat" and
 * "legal") and spectator (the spectator view) after every change; then
 *   {"ev":"game_over","room":R,"result":RESULT}
 * at the end. Changes of the room summary -- seats, spectators, a seated
 * player's connection, the status (the start, before the first state; the
 * end, after game_over) -- send {"ev":"room", ...room_summary...}.
 *
 * A room has one deadline in the scheduler (scheduler.h): the earliest of the
 * game's next deadline, the turn timer of a seat the game waits on, a bot's
 * move, and -- while waiting with no connected person -- its closing.
 */
#ifndef TAPIS_SERVER_ROOM_H
#define TAPIS_SERVER_ROOM_H

#include "server/server.h"
#include "server/session/session.h"
#include "core/deal.h"

#define ROOM_ID_LEN 16

/* ------------------------------------------------------------------------ */
/* Room                                                                     */
/* ------------------------------------------------------------------------ */

typedef enum room_status {
    ROOM_WAITING, /* seats still free */
    ROOM_PLAYING,
    ROOM_OVER,
} room_status_t;

/* How a room settles its races (room_race.c). */
typedef enum room_race {
    ROOM_RACE_REACTION, /* by reaction time: each round trip credited, capped, under a quota */
    ROOM_RACE_ARRIVAL,  /* by arrival: the line read first */
} room_race_t;

/* A seat: what an act reads first (the game waits on it, its bot's turn), then
   its bot's settings and generator (272 bytes in all: 2,000 tables are more than
   the cache holds, and each line an act reads is a miss). */
typedef struct seat {
    session_t *session;      /* a person (connected or held), or NULL */
    bool bot;                /* a built-in bot sits here */
    int think_drops;         /* its searches let go in a row since it last moved */
    int64_t bot_due;         /* ms when the bot acts next, or GAME_NO_DEADLINE */
    int64_t wait_since;      /* ms since which the game waits on this seat, or -1 */
    uint64_t bot_passed_seq; /* the bot had nothing to play at this seq */
    int64_t bot_delay_min;   /* ms: the bot's reaction time, drawn in [min, max] */
    int64_t bot_delay_max;
    char bot_strategy[33]; /* as given: "normal", "greedy:250", "fast:100-400" */
    char bot_name[33];     /* the level's strategy, passed to the game's bot */
    rng_t bot_rng;
} seat_t;

/* The members an act reads come first, in as few cache lines as they fit
   (finding the room by id reads its id; its deadline due and timer_at),
   then the seats, then what only a deal, a restart or a close reads. */
struct room {
    server_t *srv;
    char id[ROOM_ID_LEN + 1];
    room_status_t status;
    bool closed; /* room_destroy() ran: freed at the end of the turn */
    bool private_room;
    room_race_t race; /* option race= (or --race) */
    int nseats;
    uint64_t rid; /* its number (the store's key; a public room's id) */
    const game_desc_t *desc;
    game_t *game;          /* created with the room, dealt again at each seed, played once full */
    uint64_t seq;          /* state events sent */
    int64_t last_now;      /* the game's clock never goes back */
    int64_t clock_offset;  /* ms: room time = server time + offset (0 unless restored) */
    heap_node_t due;       /* in srv->timers while timer_at is set */
    int64_t timer_at;      /* ms: the earliest of game deadline, turn timer, bots, or
                              GAME_NO_DEADLINE */
    int64_t unattended_at; /* ms since which a waiting room has no connected person, or -1 */
    session_t **watchers;
    int nwatchers, capwatchers;
    struct rated_room *rated; /* a rated game (account.h), or NULL: casual */
    uint64_t journal_n;       /* journal entries written (the next one's number) */
    /* A bot's decision on libuv's thread pool (room_think.c), or NULL. While it
       is current the room's deadline waits for it: the run of due moves it
       paused (at run_at, the seats in run_done moved, run_left at-once moves
       left) goes on with its result, as if it had come at once. */
    struct room_think *thinking;
    int64_t run_at;
    unsigned run_done;
    int run_left;
    durable_room_t durable;       /* what the durability sink is told of it (durable.h) */
    queue_t node;                 /* in srv->rooms, newest first; then in srv->graveyard */
    seat_t seats[GAME_MAX_SEATS]; /* on a cache line of the room (room.c) */
    json_t *options;              /* its complete options (a new deal needs them) */
    game_deal_t deal; /* the deal (core/deal.h): the server seed, the seats' seeds so far */
};

/* room_sit() and friends refuse with a tapis_error_t (tapis_error.h): a TAPIS_E_* code. */

/*
 * Seat `seat`'s seed for the deal (docs/FAIRNESS.md): until the game starts,
 * the game is dealt again from the new key and a "seed" entry journaled.
 * Refuses game_started, seed_too_long, bad_text, bad_request (a room of deal
 * version 0) or internal, changing nothing.
 */
int room_seed(room_t *r, int seat, const char *text, tapis_error_t *err);

/* A room settling its races by `race` (kept in its durable record: a restart keeps it). */
room_t *room_create(server_t *srv, const game_desc_t *d, int nseats, const json_t *options,
                    bool private_room, room_race_t race, tapis_error_t *err);
/* A room as a record gave it, its game already replayed (room_rebuild()). */
typedef struct room_record {
    uint64_t rid;
    char id[ROOM_ID_LEN + 1];
    bool private_room;
    const char *race;    /* its rule's name, or "" (a record older than the rule: --race) */
    bool playing;        /* else waiting */
    uint64_t seq;        /* state events sent before the restart */
    int64_t last_at;     /* room time of its last journal entry: its clock goes on from there */
    uint64_t journal_n;  /* entries in its journal */
    const char *options; /* its complete options (JSON text) and deal */
    const game_deal_t *deal;
    const durable_room_rec_t *from; /* the backend's record it was rebuilt from (borrowed) */
    int nseats;
    struct {
        session_t *session; /* a person (restored session), or NULL */
        bool bot;           /* else free when no session */
        char strategy[33];  /* the bot's strategy as given */
    } seats[GAME_MAX_SEATS];
} room_record_t;

/*
 * Host a restored room: it takes g (freed on failure). Its clock resumes at
 * rec->last_at (time did not pass while no server hosted it), its turn
 * timers start afresh. Returns NULL when out of memory or over --max-rooms.
 */
room_t *room_restore(server_t *srv, const game_desc_t *d, game_t *g, const room_record_t *rec);
/*
 * Rebuild a room from a backend's record (durable.h): check its game and
 * table, replay its journal through core/journal.c, then host it as
 * room_restore() does, its seats' and watchers' sessions found by `find`
 * (seat -1: a watcher; NULL when the session is gone). `here` words the
 * refusal of an unknown game ("server", "node"). The sink is told the room
 * was rebuilt from rec (durable_room_rebuilt(): the cluster keeps a copy of
 * its journal) before anything new is written of it. Returns the verdict: REBUILT
 * (*out), OVER (*result, the caller's), BAD or NO_ROOM (why).
 */
typedef session_t *(*room_find_session_fn)(void *ctx, const durable_room_rec_t *rec, int seat,
                                           uint64_t id);
durable_verdict_t room_rebuild(server_t *srv, durable_room_rec_t *rec, const char *here,
                               room_find_session_fn find, void *ctx, room_t **out, json_t **result,
                               char *why, size_t whylen);
/* Take the room out of the server; its memory is freed by room_free_graveyard(). */
void room_destroy(room_t *r);
/* Tell everyone in r `{"ev":"closed","room","reason"}`, then room_destroy() it. */
void room_close(room_t *r, const char *reason);
/* Free the rooms destroyed so far (the end of a scheduler turn, and shutdown). */
void room_free_graveyard(server_t *srv);
/* The room's deadline came (the scheduler calls it, in time order with lines). */
void room_run_due(room_t *r);
room_t *room_find(server_t *srv, const char *id);

/* The seat of s in r, or -1. */
int room_seat_of(const room_t *r, const session_t *s);
/* s sits in r and the game is not over: a drop holds the seat. */
bool room_holds_seat(const room_t *r, const session_t *s);
bool room_is_watcher(const room_t *r, const session_t *s);

/* Seat s (seat -1: the first free one). Returns the seat, or -1 with err. */
int room_sit(room_t *r, session_t *s, int seat, tapis_error_t *err);
#define BOT_DELAY_MAX_MS 60000 /* the longest reaction time a strategy may name */

/*
 * Seat a built-in bot in the first free seat. `strategy` (NULL: the game's
 * first level) is "LEVEL", "LEVEL:MS" or "LEVEL:MIN-MAX": LEVEL is one of the
 * game's bot levels (game.h), which names the strategy its bot plays and its
 * pace; MS or MIN-MAX is this bot's own reaction time. Returns the seat, or
 * -1 with err (bad_request for an unknown level or a malformed time).
 */
int room_add_bot(room_t *r, const char *strategy, tapis_error_t *err);
/* The pace (ms) of a bot level on this server: the level's, or --bot-delay's. */
void room_bot_pace(const server_t *srv, const game_bot_level_t *l, int64_t *lo, int64_t *hi);
/* Add s as a spectator. Returns 0, or -1 with err. */
int room_watch(room_t *r, session_t *s, tapis_error_t *err);
/*
 * s leaves r: a seat in a game being played goes to a bot, a seat at a
 * waiting table is freed. The room is destroyed when no person is left in
 * it, so r must not be used after this call.
 */
void room_release(room_t *r, session_t *s);

/*
 * After room_sit()/room_add_bot() and the reply: tell the room, and start
 * the game if that filled the last seat.
 */
void room_seated(room_t *r);
/* Send the room event (seats, connections, status) to every connected member
   (and room_publish() it). */
void room_notify(room_t *r);
/* r's summary to the sink's backends that list rooms (the cluster's directory);
   nothing is made without one. */
void room_publish(room_t *r);

void room_member_disconnected(room_t *r, session_t *s);
void room_member_reconnected(room_t *r, session_t *s);

/*
 * Races settled by reaction time (room_race.c). A room's hold is
 * the most any of its seated players may be credited now (0 under
 * race=arrival, or while nobody answers pings): each line of a seated
 * player waits (hold - its credit) before it is taken (the connections'
 * line_delay hook), so the credit is the whole rule. A connection's credit
 * is its round trip's estimate (rtt.h), at most --race-cap, at most its
 * session's quota, and at most the time since the last state written to it.
 */
uint64_t room_hold_us(const room_t *r);
uint64_t room_credit_us(const room_t *r, const session_t *s);
/* s's pong came for a ping sent at sent_us, a round trip of sample_us: it
   settles a doubt of its race quota (room_race.c), if it has one. */
void room_race_pong(session_t *s, uint64_t sent_us, uint64_t sample_us);
/* "reaction" or "arrival": 0 and *out, or -1. */
int room_race_parse(const char *word, room_race_t *out);
const char *room_race_name(room_race_t race);
/* The rule of rooms whose creator did not choose one: --race. */
room_race_t room_race_default(const server_t *srv);

/* How a seated player's line was settled, for the journal and the quota. */
typedef struct room_settle {
    uint64_t credit_us;   /* the round trip credited (the line waited hold - credit) */
    uint64_t hold_us;     /* the room's hold when the line's wait was set */
    uint64_t rtt_us;      /* the connection's estimate then (0: none) */
    uint64_t written_us;  /* when the state it answers was written to it (0: none) */
    uint64_t response_us; /* arrival minus that (UINT64_MAX: none) */
    int64_t seq;          /* the state it named (`seq`), or -1 */
} room_settle_t;

/*
 * Apply seat's action read at `stamp_us`, settled as `settle` says (NULL:
 * by arrival). Returns 0, or -1 with err (the game's refusal, or
 * not_started/game_over). On success the caller replies and then calls
 * room_changed().
 */
int room_apply(room_t *r, int seat, const json_t *action, uint64_t stamp_us,
               const room_settle_t *settle, tapis_error_t *err);
/* After a change: state events to everyone, game_over if it ended, timers. */
void room_changed(room_t *r);

/* The state as sent to `seat` (GAME_SPECTATOR for a spectator). */
json_t *room_state_event(room_t *r, int seat);
/* {"room","game","title","players","private","status","seats":[...],"spectators"} */
json_t *room_summary(const room_t *r);
/* {"ev":"room", ...room_summary...} */
json_t *room_event(const room_t *r);
/* Send ev (borrowed) to every connected member. */
void room_broadcast(room_t *r, const json_t *ev);
/* A new event `name` of room r: {"ev": name, "room": id}, for its other keys. */
json_t *room_new_event(const room_t *r, const char *name);
/*
 * The end of building event ev (taken) since `mark` (tapis_alloc_failures()):
 * room_broadcast() it whole, or NULL when an allocation failed (the members
 * are dropped rather than told an incomplete one), then release it.
 */
void room_broadcast_new(room_t *r, json_t *ev, unsigned long mark);
/* "waiting", "playing" or "over". */
const char *room_status_name(room_status_t st);

#endif
