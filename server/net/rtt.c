/* rtt.c — each connection's round trip, measured by the server. See rtt.h. */
#include "server/net/rtt.h"

#include "protocol/envelope.h"
#include "server/net/conn.h"

uint64_t rtt_ping(conn_t *c, uint64_t now_us, uint64_t interval_us)
{
    rtt_t *t = &c->rtt;
    /* A node's link is pinged too: the node at its other end passes the ping
       on to its client and the pong back (relay.h). */
    if (c->state != CONN_OPEN || !c->session) return 0;
    if (t->nsamples == 0 && t->unanswered >= RTT_GIVE_UP) return 0; /* it never answers */
    if (t->last_ping_us && now_us - t->last_ping_us < interval_us) return 0;
    json_t *ev = proto_event("ping");
    uint64_t n = ++t->next_n;
    json_object_set_new(ev, "n", json_integer((json_int_t)n));
    if (conn_send_new(c, ev) < 0) return 0;
    int k = (int)(n % RTT_PINGS);
    t->sent_n[k] = n;
    t->sent_us[k] = now_us;
    t->last_ping_us = now_us;
    t->unanswered++;
    return n;
}

/* Whether c stopped being pinged: it answered none of its first pings. */
static bool given_up(const conn_t *c)
{
    return c->rtt.nsamples == 0 && c->rtt.unanswered >= RTT_GIVE_UP;
}

/* c into srv->pinging in its place, from the tail (where a connection just pinged goes). */
static void insert_by_check(server_t *srv, conn_t *c)
{
    queue_t *q = queue_tail(&srv->pinging);
    while (q != &srv->pinging && queue_data(q, conn_t, ping_node)->ping_check_us > c->ping_check_us)
        q = q->prev;
    queue_insert_head(q, &c->ping_node); /* after q */
}

/* Ping c if it is due, and put it back in srv->pinging in its place. */
static void ping_and_requeue(server_t *srv, conn_t *c, uint64_t now, uint64_t interval)
{
    queue_remove(&c->ping_node);
    rtt_ping(c, now, interval);
    /* pinged now, or given up: either way nothing is due before then */
    c->ping_check_us = (given_up(c) ? now : c->rtt.last_ping_us) + interval;
    insert_by_check(srv, c);
}

static bool pingable(const conn_t *c)
{
    return c->state == CONN_OPEN && c->session;
}

/* c (in srv->pinging) can no longer be pinged (its session went): to srv->unpinged. */
static void unlist(server_t *srv, conn_t *c)
{
    queue_remove(&c->ping_node);
    c->ping_check_us = 0;
    queue_insert_tail(&srv->unpinged, &c->ping_node);
}

/* Every pingable connection of srv->unpinged into srv->pinging, due at once (the interval
   was set: a connection past hello and silent since would not be flushed again). */
static void list_pingable(server_t *srv)
{
    queue_t *q = queue_head(&srv->unpinged);
    while (q != &srv->unpinged) {
        conn_t *c = queue_data(q, conn_t, ping_node);
        q = queue_next(q);
        if (!pingable(c)) continue;
        queue_remove(&c->ping_node);
        c->ping_check_us = 1;
        queue_insert_head(&srv->pinging, &c->ping_node);
    }
}

/*
 * Only the connections whose ping may be due are looked at: srv->pinging
 * holds the connections past hello in the order of ping_check_us, the time
 * each was pinged or found given up plus the interval; the others wait in
 * srv->unpinged, which a connection leaves at its first flush past hello
 * (rtt_ping_due()). At 4,000 connections, going through all of them every
 * tick was most of a percent of the server's time.
 *
 * A connection with output gets its ping as that output is written, so
 * this pass only pings the ones due `late_us` ago and silent since, at most
 * `most` of them: pings spread over the connections' own writes and over
 * the passes, instead of leaving in bursts (4,000 silent connections that
 * said hello together were 4,000 pings in one turn, 25 ms of everyone's
 * wait, every interval).
 */
void rtt_ping_all(server_t *srv, uint64_t late_us, int most)
{
    uint64_t interval = srv->opts.ping_interval * 1000, now = server_now_us(srv);
    queue_t *q;
    if (interval != srv->pinging_interval) { /* set at a reload: look at each again */
        srv->pinging_interval = interval;
        queue_foreach(q, &srv->pinging)
        {
            queue_data(q, conn_t, ping_node)->ping_check_us = 1;
        }
        if (interval) list_pingable(srv);
    }
    if (!interval) return;
    for (int n = 0; n < most && !queue_empty(&srv->pinging); n++) {
        conn_t *c = queue_data(queue_head(&srv->pinging), conn_t, ping_node);
        if (c->ping_check_us > now || now - c->ping_check_us < late_us) break;
        if (pingable(c))
            ping_and_requeue(srv, c, now, interval);
        else
            unlist(srv, c);
    }
}

void rtt_ping_due(conn_t *c, uint64_t now_us)
{
    server_t *srv = c->srv;
    /* (the interval the check times were set with: a reload's waits for the tick) */
    if (!srv->pinging_interval || c->ping_check_us > now_us || !pingable(c)) return;
    ping_and_requeue(srv, c, now_us, srv->pinging_interval); /* (from either list) */
}

uint64_t rtt_pong(conn_t *c, uint64_t n, uint64_t stamp_us)
{
    rtt_t *t = &c->rtt;
    int k = (int)(n % RTT_PINGS);
    if (n == 0 || t->sent_n[k] != n || stamp_us < t->sent_us[k]) return 0;
    if (given_up(c) && c->ping_check_us) { /* a late answer: pinged again as soon as it is due */
        c->ping_check_us = 1;
        queue_remove(&c->ping_node);
        queue_insert_head(&c->srv->pinging, &c->ping_node);
    }
    uint64_t sample = stamp_us - t->sent_us[k];
    if (sample == 0) sample = 1; /* 0 means "no estimate" */
    t->sent_n[k] = 0;            /* one pong a ping */
    t->unanswered = 0;
    t->samples[t->next_sample] = sample;
    t->next_sample = (t->next_sample + 1) % RTT_SAMPLES;
    if (t->nsamples < RTT_SAMPLES) t->nsamples++;
    t->est_us = t->samples[0];
    for (int i = 1; i < t->nsamples; i++)
        if (t->samples[i] < t->est_us) t->est_us = t->samples[i];
    return sample;
}

uint64_t rtt_estimate(const conn_t *c)
{
    return c ? c->rtt.est_us : 0;
}

void rtt_note_state(conn_t *c, uint64_t room, uint64_t seq, uint64_t us)
{
    rtt_t *t = &c->rtt;
    t->states[t->next_state].room = room;
    t->states[t->next_state].seq = seq;
    t->states[t->next_state].us = us;
    t->next_state = (t->next_state + 1) % RTT_STATES;
    if (t->nstates < RTT_STATES) t->nstates++;
}

bool rtt_state_time(const conn_t *c, uint64_t room, uint64_t seq, uint64_t *us)
{
    const rtt_t *t = &c->rtt;
    for (int i = 0; i < t->nstates; i++)
        if (t->states[i].room == room && t->states[i].seq == seq) {
            *us = t->states[i].us;
            return true;
        }
    return false;
}

uint64_t rtt_latest_state(const conn_t *c, uint64_t room, uint64_t at_us)
{
    const rtt_t *t = &c->rtt;
    uint64_t best = 0;
    for (int i = 0; i < t->nstates; i++)
        if ((!room || t->states[i].room == room) && t->states[i].us <= at_us &&
            t->states[i].us > best)
            best = t->states[i].us;
    return best;
}
