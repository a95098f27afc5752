/*
 * room_race.c — how a room settles races: by reaction time (each player's
 * round trip credited, capped, under a quota) or by arrival. room_apply()
 * (room_play.c) takes a line at its stamp plus the room's hold less the
 * line's credit; here are the rule's names, the credit and the hold, the
 * quota's evidence and the journal's race entry. See room.h.
 */
#include "server/base/log.h"
#include "server/net/rtt.h"
#include "server/room/room_int.h"
#include "server/session/session.h"

/* ------------------------------------------------------------------------ */
/* Races                                                                    */
/* ------------------------------------------------------------------------ */

/*
 * A player's line reaches the server one round trip after the state it
 * answers was written, plus the time the player took: its reaction time is
 * (arrival - written - round trip). The whole round trip is taken, not
 * half: the state went out on the way down and the line came back on the
 * way up, and both legs lie between the writing and the arrival, whatever
 * their split. Settling by reaction time is then settling by (arrival -
 * round trip), the credit, since every racer answers the same state.
 *
 * The server does that by holding lines, not by reordering the past: the
 * room's hold H is the greatest credit any of its seated players may get
 * now, and a line credited c is taken (hold - c) after it was read. Every
 * line then reaches the game at (arrival - c + H): in the order of the
 * reaction times, each game rule (233's dispute window and its lowest-score
 * rule, slap's first play) applying as before to the times the game is
 * given, and a far player is heard before the race is settled. A player
 * credited nothing (a netcat user who answers no ping) is settled by its
 * arrival, H after it. Built-in bots, who see a state the moment it is
 * made, act H later than their reaction time, as the players see it.
 *
 * The credit is the connection's estimate (rtt.h), at most --race-cap, at
 * most the time since the state it answers was written (the seq it names,
 * else the latest written before the line arrived: a reaction is never
 * negative), at most the session's quota. The quota is what a client that
 * delays its pongs to look far runs into: a line that answers its state
 * sooner than the sender's claimed round trip (less a tolerance of 10 ms
 * and a tenth) is proof of the lie, and takes 4 times the difference from
 * the quota; so is a line naming a state older than one written a round
 * trip before it came (which it had seen: naming it would dodge the first
 * check), which takes 4 round trips. Every other settled action gives back
 * an eighth of the cap, up to twice the cap. An
 * honest player never loses any; a liar who reacts as fast as the others
 * loses its credit within a few races and keeps it near nothing.
 *
 * Unless the estimate is old: it is the least of the last pongs, and after
 * a congested spell of the network all of them may be slow, so a player's
 * quick line right after it looks like a liar's until the next pong. So a
 * line too quick for the estimate raises a doubt and a ping at once, and
 * its pong decides: back within the line's response (plus the tolerance),
 * the round trip did shrink, the estimate now says so, and nothing is
 * taken; slower, or no pong within RACE_DOUBT_US, the lie is proven and the
 * quota pays for the doubt's largest shortfall. A liar that answers that
 * ping at once is let off, but its estimate then drops to its true round
 * trip, and only RTT_SAMPLES slow pongs raise it again.
 */
#define RACE_TOLERANCE_US 10000
#define RACE_PENALTY 4
#define RACE_REFILL_DIV 8
#define RACE_DOUBT_US 1000000 /* a doubt's pong later than this: the lie proven */

int room_race_parse(const char *word, room_race_t *out)
{
    if (!word) return -1;
    if (strcmp(word, "reaction") == 0)
        *out = ROOM_RACE_REACTION;
    else if (strcmp(word, "arrival") == 0)
        *out = ROOM_RACE_ARRIVAL;
    else
        return -1;
    return 0;
}

const char *room_race_name(room_race_t race)
{
    return race == ROOM_RACE_ARRIVAL ? "arrival" : "reaction";
}

room_race_t room_race_default(const server_t *srv)
{
    return srv->opts.race_arrival ? ROOM_RACE_ARRIVAL : ROOM_RACE_REACTION;
}

uint64_t room_credit_us(const room_t *r, const session_t *s)
{
    if (r->race != ROOM_RACE_REACTION || !s || !s->conn) return 0;
    uint64_t c = rtt_estimate(s->conn), cap = r->srv->opts.race_cap * 1000;
    if (c > cap) c = cap;
    if (c > s->race_quota_us) c = s->race_quota_us;
    return c;
}

uint64_t room_hold_us(const room_t *r)
{
    if (r->race != ROOM_RACE_REACTION || r->status != ROOM_PLAYING) return 0;
    uint64_t hold = 0;
    for (int i = 0; i < r->nseats; i++) {
        uint64_t c = room_credit_us(r, r->seats[i].session);
        if (c > hold) hold = c;
    }
    return hold;
}

/* The lie proven: the quota pays 4 times the shortfall. */
static void race_caught(session_t *s, uint64_t response_us, uint64_t shortfall_us, const char *why)
{
    uint64_t take = RACE_PENALTY * shortfall_us;
    s->race_quota_us = take >= s->race_quota_us ? 0 : s->race_quota_us - take;
    s->srv->metrics.race_caught++;
    log_info("session %llu: a line answered %llu ms after its state, %llu ms sooner than the "
             "sender's round trip allows (%s): quota %llu ms",
             (unsigned long long)s->id, (unsigned long long)(response_us / 1000),
             (unsigned long long)(shortfall_us / 1000), why,
             (unsigned long long)(s->race_quota_us / 1000));
}

static void doubt_proven(session_t *s, const char *why)
{
    race_caught(s, s->race_doubt.response_us, s->race_doubt.shortfall_us, why);
    memset(&s->race_doubt, 0, sizeof s->race_doubt);
}

void room_race_pong(session_t *s, uint64_t sent_us, uint64_t sample_us)
{
    /* (any ping sent since the doubt: after a reconnection, the new connection's) */
    if (!s || !s->race_doubt.open || sent_us < s->race_doubt.since_us) return;
    uint64_t response = s->race_doubt.response_us;
    if (sample_us <= response + RACE_TOLERANCE_US + response / 10) {
        memset(&s->race_doubt, 0, sizeof s->race_doubt); /* the round trip did shrink */
        log_info("session %llu: its round trip shrank to %llu ms: no race quota taken",
                 (unsigned long long)s->id, (unsigned long long)(sample_us / 1000));
        return;
    }
    doubt_proven(s, "its next pong was as slow");
}

/* What the line says of its sender's round trip: the quota (above). */
void room__race_evidence(room_t *r, session_t *s, uint64_t stamp_us, const room_settle_t *st)
{
    uint64_t cap = r->srv->opts.race_cap * 1000, full = SESSION_RACE_QUOTA_CAPS * cap;
    if (!st->rtt_us || !s->conn) return;
    if (s->race_doubt.open && stamp_us - s->race_doubt.since_us > RACE_DOUBT_US)
        doubt_proven(s, "no pong came");
    uint64_t tolerance = RACE_TOLERANCE_US + st->rtt_us / 10;
    /* Naming a state older than one it had seen when it sent the line (one
       written a round trip before it came) says as much as answering at once:
       it would dodge the check below. That is no old estimate's doing. */
    if (st->written_us && stamp_us > st->rtt_us + tolerance &&
        rtt_latest_state(s->conn, r->rid, stamp_us - st->rtt_us - tolerance) > st->written_us) {
        race_caught(s, 0, st->rtt_us, "it named a state older than one it had seen");
        return;
    }
    uint64_t response = st->response_us;
    if (response < st->rtt_us && response + tolerance < st->rtt_us) {
        uint64_t shortfall = st->rtt_us - response;
        if (!s->race_doubt.open) { /* ask at once */
            if (!rtt_ping(s->conn, server_now_us(r->srv), 0)) {
                race_caught(s, response, shortfall, "it cannot be pinged");
                return;
            }
            s->race_doubt.open = true;
            s->race_doubt.since_us = stamp_us;
            s->race_doubt.response_us = response;
        }
        if (shortfall > s->race_doubt.shortfall_us) s->race_doubt.shortfall_us = shortfall;
        if (response < s->race_doubt.response_us) s->race_doubt.response_us = response;
        return;
    }
    s->race_quota_us += cap / RACE_REFILL_DIV;
    if (s->race_quota_us > full) s->race_quota_us = full;
}

/* The journal says how the action that follows was settled, so that a reader sees why. */
void room__race_journal(room_t *r, int seat, int64_t now, uint64_t stamp_us,
                        const room_settle_t *st, bool held)
{
    unsigned long mark = tapis_alloc_failures();
    uint64_t credit = held ? st->credit_us : 0, hold = held ? st->hold_us : 0;
    json_t *d =
        json_pack("{s:s, s:I, s:I, s:I, s:I}", "rule", room_race_name(r->race), "arrival",
                  (json_int_t)(stamp_us / 1000) + r->clock_offset, "credit_us", (json_int_t)credit,
                  "hold_us", (json_int_t)hold, "rtt_us", (json_int_t)st->rtt_us);
    if (d && st->seq >= 0) json_object_set_new(d, "seq", json_integer(st->seq));
    d = game_json_checked(d, mark);
    if (d) room__journal(r, "race", seat, now, d);
    json_decref(d);
}
