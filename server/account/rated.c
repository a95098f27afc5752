/*
 * rated.c — a rated room's ranking and the ratings' update at its end. See
 * account.h, "Rated rooms".
 *
 * Places: a side holding one of the result's winners is first, every other
 * side second (tied), and a seat whose person left the game under way is a
 * side of its own, last (tied with any other who left): a game abandoned by
 * a seat counts as that seat's loss, and its team-mates are not punished
 * for it. A result without winners is a draw: every side that stayed ties.
 */
#include <string.h>

#include "server/account/account.h"
#include "server/base/log.h"

rated_room_t *rated_room_new(const char *game)
{
    rated_room_t *rr = tapis_calloc(1, sizeof *rr);
    if (rr) snprintf(rr->game, sizeof rr->game, "%s", game);
    return rr;
}

void rated_room_free(rated_room_t *rr)
{
    tapis_free(rr);
}

void rated_room_seat(server_t *srv, rated_room_t *rr, int i, account_t *a, const char *bot_strategy)
{
    if (i < 0 || i >= GAME_MAX_SEATS) return;
    rr->started = true;
    if (i >= rr->nseats) rr->nseats = i + 1;
    if (!a && bot_strategy) a = account_bot(srv, bot_strategy); /* the level, not its pace */
    rr->seats[i].who = a;
    rr->seats[i].abandoned = false;
}

/* Tell the backend what rr is now (NULL: it ended). */
static void keep(server_t *srv, const rated_room_t *rr, const char *room_id)
{
    accounts_t *t = srv->accounts;
    if (!(t->backend && t->backend->rated_room) && !(t->shared && t->shared->rated_room)) return;
    json_t *data = rr ? rated_room_json(rr) : NULL;
    if (rr && !data) log_error("room %s: no memory to keep it rated across a restart", room_id);
    if (t->backend && t->backend->rated_room) t->backend->rated_room(t->backend_ctx, room_id, data);
    if (t->shared && t->shared->rated_room) t->shared->rated_room(t->shared_ctx, room_id, data);
    json_decref(data);
}

void rated_room_begin(server_t *srv, rated_room_t *rr, const char *room_id)
{
    keep(srv, rr, room_id);
}

void rated_room_abandon(server_t *srv, rated_room_t *rr, const char *room_id, int i)
{
    if (!rr->started || i < 0 || i >= rr->nseats) return;
    rr->seats[i].abandoned = true;
    keep(srv, rr, room_id);
}

json_t *rated_room_json(const rated_room_t *rr)
{
    unsigned long mark = tapis_alloc_failures();
    json_t *seats = json_array();
    for (int i = 0; i < rr->nseats; i++)
        json_array_append_new(seats, json_pack("{s:s?, s:b}", "name",
                                               rr->seats[i].who ? rr->seats[i].who->name : NULL,
                                               "abandoned", rr->seats[i].abandoned));
    return game_json_checked(json_pack("{s:s, s:o}", "game", rr->game, "seats", seats), mark);
}

rated_room_t *rated_room_from_json(server_t *srv, const json_t *data)
{
    const char *game = json_string_value(json_object_get(data, "game"));
    json_t *seats = json_object_get(data, "seats");
    if (!game || json_array_size(seats) < 2 || json_array_size(seats) > GAME_MAX_SEATS) return NULL;
    rated_room_t *rr = rated_room_new(game);
    if (!rr) return NULL;
    rr->started = true;
    rr->nseats = (int)json_array_size(seats);
    for (int i = 0; i < rr->nseats; i++) {
        json_t *s = json_array_get(seats, (size_t)i);
        const char *name = json_string_value(json_object_get(s, "name"));
        rr->seats[i].who = name ? account_find(srv, name) : NULL;
        rr->seats[i].abandoned = json_is_true(json_object_get(s, "abandoned"));
    }
    return rr;
}

/* ------------------------------------------------------------------------ */
/* The end                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct sides {
    int n;                       /* sides */
    int side_of[GAME_MAX_SEATS]; /* each seat's side */
    int place[GAME_MAX_SEATS];   /* each side's place */
    int size[GAME_MAX_SEATS];    /* each side's players */
    int order[GAME_MAX_SEATS];   /* the seats, side after side */
} sides_t;

static bool is_winner(const json_t *result, int seat)
{
    size_t i;
    json_t *w;
    json_array_foreach(json_object_get(result, "winners"), i,
                       w) if (json_integer_value(w) == seat) return true;
    return false;
}

/* Group rr's seats into sides and place them (the top of this file). */
static void make_sides(const rated_room_t *rr, const json_t *result, sides_t *sd)
{
    int n = rr->nseats;
    json_int_t teams = json_integer_value(json_object_get(result, "teams"));
    if (teams <= 1 || teams >= n) teams = n; /* every seat alone */
    bool any_winner = json_array_size(json_object_get(result, "winners")) > 0;
    int team_side[GAME_MAX_SEATS];
    for (int t = 0; t < GAME_MAX_SEATS; t++)
        team_side[t] = -1;
    memset(sd, 0, sizeof *sd);
    for (int s = 0; s < n; s++) {
        int side;
        if (rr->seats[s].abandoned) {
            side = sd->n++;
            sd->place[side] = 3;
        } else {
            int t = (int)(s % teams);
            if (team_side[t] < 0) {
                team_side[t] = sd->n++;
                sd->place[team_side[t]] = any_winner ? 2 : 1;
            }
            side = team_side[t];
            if (is_winner(result, s)) sd->place[side] = 1;
        }
        sd->side_of[s] = side;
        sd->size[side]++;
    }
    for (int side = 0, k = 0; side < sd->n; side++)
        for (int s = 0; s < n; s++)
            if (sd->side_of[s] == side) sd->order[k++] = s;
    /* Places as people count them: 1, 2, 3 with no gap (a draw and a leaver: 1 and 2). */
    bool used[4] = {false};
    for (int side = 0; side < sd->n; side++)
        used[sd->place[side]] = true;
    int dense[4] = {0}, next = 1;
    for (int p = 1; p <= 3; p++)
        if (used[p]) dense[p] = next++;
    for (int side = 0; side < sd->n; side++)
        sd->place[side] = dense[sd->place[side]];
}

/* One game's changes, computed before they are written (perhaps again: a cluster). */
typedef struct outcome {
    int n; /* accounts rated: each once, though a bot level may sit at several seats */
    account_t *who[GAME_MAX_SEATS];
    int seat[GAME_MAX_SEATS];
    account_rating_t now[GAME_MAX_SEATS]; /* with the version it was computed from */
    account_result_t res[GAME_MAX_SEATS];
} outcome_t;

/* Did the account at the k-th seat of sd's order sit at an earlier one (bots of one level)? */
static bool seen_before(const rated_room_t *rr, const sides_t *sd, int k)
{
    for (int e = 0; e < k; e++)
        if (rr->seats[sd->order[e]].who == rr->seats[sd->order[k]].who) return true;
    return false;
}

/* The new ratings from the ratings in memory now. Returns 0, or -1 (logged). */
static int compute(const rated_room_t *rr, const sides_t *sd, const char *room_id,
                   const json_t *result, outcome_t *o)
{
    rating_t players[GAME_MAX_SEATS];
    for (int k = 0; k < rr->nseats; k++) {
        const account_rating_t *r = account_rating(rr->seats[sd->order[k]].who, rr->game);
        players[k] = r ? (rating_t){r->mu, r->sigma} : rating_new();
    }
    if (rating_update(NULL, sd->n, sd->size, sd->place, players) < 0) {
        log_error("room %s: ratings refused the table", room_id);
        return -1;
    }
    bool any_winner = json_array_size(json_object_get(result, "winners")) > 0;
    int64_t at = server_wall_ms();
    o->n = 0;
    for (int k = 0; k < rr->nseats; k++) {
        int s = sd->order[k], side = sd->side_of[s];
        if (seen_before(rr, sd, k)) continue; /* a bot level at several seats: rated once */
        account_t *a = rr->seats[s].who;
        const account_rating_t *old = account_rating(a, rr->game);
        account_rating_t *now = &o->now[o->n];
        account_result_t *res = &o->res[o->n];
        memset(now, 0, sizeof *now);
        memset(res, 0, sizeof *res);
        snprintf(now->game, sizeof now->game, "%s", rr->game);
        now->mu = players[k].mu;
        now->sigma = players[k].sigma;
        now->games = (old ? old->games : 0) + 1;
        now->wins = (old ? old->wins : 0) + (any_winner && sd->place[side] == 1);
        now->ver = old ? old->ver : 0;
        snprintf(res->game, sizeof res->game, "%s", rr->game);
        snprintf(res->room, sizeof res->room, "%s", room_id);
        res->place = sd->place[side];
        res->sides = sd->n;
        res->abandoned = rr->seats[s].abandoned;
        res->before = rating_display(old ? (rating_t){old->mu, old->sigma} : rating_new());
        res->after = rating_display(players[k]);
        res->at = at;
        o->who[o->n] = a;
        o->seat[o->n++] = s;
    }
    return 0;
}

/*
 * In a cluster, write the outcome as one atomic change, computed again from
 * fresh ratings whenever another node's game changed one of them meanwhile
 * (two games ending at once on two nodes lose neither update). Returns 0, or
 * -1 when it cannot be computed.
 */
static int settle(server_t *srv, const rated_room_t *rr, const sides_t *sd, const char *room_id,
                  const json_t *result, outcome_t *o)
{
    accounts_t *t = srv->accounts;
    for (int attempt = 0;; attempt++) {
        if (t->shared) /* the cluster's ratings, not this node's copies */
            for (int s = 0; s < rr->nseats; s++)
                account_fresh(srv, rr->seats[s].who->name);
        if (compute(rr, sd, room_id, result, o) < 0) return -1;
        if (!t->shared || !t->shared->rate) return 0;
        int rc = t->shared->rate(t->shared_ctx, rr->game, o->who, o->now, o->res, o->n);
        if (rc > 0) {
            for (int i = 0; i < o->n; i++)
                o->now[i].ver++;
            return 0;
        }
        if (rc == 0)
            log_info("room %s: ratings changed on another node meanwhile: computed again", room_id);
        if (rc < 0 || attempt == 50) {
            log_error("room %s: the cluster's ratings cannot be written (%s): this node's only",
                      room_id, rc < 0 ? "unreachable" : "changing too fast");
            return 0;
        }
    }
}

/* Write the outcome into memory and the backend; the changes for the event. */
static json_t *apply(server_t *srv, const outcome_t *o)
{
    accounts_t *t = srv->accounts;
    json_t *changes = json_array();
    for (int i = 0; i < o->n; i++) {
        account_t *a = o->who[i];
        const account_rating_t *now = &o->now[i];
        const account_result_t *res = &o->res[i];
        account_rating_t *r =
            account_rating_set(a, now->game, now->mu, now->sigma, now->games, now->wins);
        if (!r) {
            log_error("ratings: no memory for %s's rating in %s", a->name, now->game);
            continue;
        }
        r->ver = now->ver;
        account_recent_add(a, res);
        if (t->backend && t->backend->rating) t->backend->rating(t->backend_ctx, a, r);
        if (t->backend && t->backend->result) t->backend->result(t->backend_ctx, a, res);
        json_array_append_new(changes, json_pack("{s:i, s:s, s:i, s:b, s:f, s:f}", "seat",
                                                 o->seat[i], "name", a->name, "place", res->place,
                                                 "abandoned", res->abandoned, "before", res->before,
                                                 "after", res->after));
    }
    return changes;
}

/* Is rr's end rated (someone left, or a result; every seat known; two sides)? Fills sd. */
static bool rated_end(const rated_room_t *rr, const char *room_id, const json_t *result,
                      sides_t *sd)
{
    bool left = false;
    for (int s = 0; s < rr->nseats; s++)
        left |= rr->seats[s].abandoned;
    if (!result && !left) return false; /* closed unfinished, nobody to blame: not rated */
    for (int s = 0; s < rr->nseats; s++)
        if (!rr->seats[s].who) {
            log_warn("room %s: seat %d has no account: the game is not rated", room_id, s);
            return false;
        }
    make_sides(rr, result, sd);
    return sd->n >= 2;
}

/* The ratings of rr's end (rated_room_over(), which forgets rr after them). */
static json_t *rate_end(server_t *srv, rated_room_t *rr, const char *room_id, const json_t *result)
{
    sides_t sd;
    if (!rated_end(rr, room_id, result, &sd)) return NULL;
    outcome_t o;
    if (settle(srv, rr, &sd, room_id, result, &o) < 0) return NULL;
    log_info("room %s: rated game over (%d sides)", room_id, sd.n);
    return apply(srv, &o);
}

json_t *rated_room_over(server_t *srv, rated_room_t *rr, const char *room_id, const json_t *result)
{
    if (!rr || !rr->started || rr->nseats < 2) return NULL;
    json_t *changes = rate_end(srv, rr, room_id, result);
    keep(srv, NULL, room_id); /* rated or not, it has ended: once its ratings are written */
    return changes;
}

/* ------------------------------------------------------------------------ */
/* The same in a cluster, without waiting for Redis                         */
/* ------------------------------------------------------------------------ */

/* settle()'s loop as callbacks: read every seat's account, compute, write all or none,
   again while another node's game changed one meanwhile. */
typedef struct rate_job {
    server_t *srv;
    rated_room_t rr; /* a copy: the room may go meanwhile */
    char room_id[32];
    json_t *result;
    sides_t sd;
    outcome_t o;
    int reading; /* accounts still to come */
    int attempt;
    rated_over_fn done;
    void *arg;
} rate_job_t;

static void job_read(rate_job_t *j);

static void job_end(rate_job_t *j, bool written)
{
    server_t *srv = j->srv;
    json_t *changes = NULL;
    if (!srv->stopping) { /* else the restart (or the takeover) rates it from the journal */
        if (!written)
            log_error("room %s: the cluster's ratings cannot be written: this node's only",
                      j->room_id);
        log_info("room %s: rated game over (%d sides)", j->room_id, j->sd.n);
        changes = apply(srv, &j->o);
        keep(srv, NULL, j->room_id);
    }
    j->done(srv, j->room_id, changes, j->arg);
    json_decref(j->result);
    tapis_free(j);
}

static void job_rated(server_t *srv, int rc, void *arg)
{
    (void)srv;
    rate_job_t *j = arg;
    if (rc > 0) {
        for (int i = 0; i < j->o.n; i++)
            j->o.now[i].ver++;
        job_end(j, true);
    } else if (rc == 0 && ++j->attempt <= 50 && !j->srv->stopping) {
        log_info("room %s: ratings changed on another node meanwhile: computed again", j->room_id);
        job_read(j);
    } else {
        job_end(j, false);
    }
}

static void job_compute(rate_job_t *j)
{
    accounts_t *t = j->srv->accounts;
    if (compute(&j->rr, &j->sd, j->room_id, j->result, &j->o) < 0) {
        j->done(j->srv, j->room_id, NULL, j->arg);
        keep(j->srv, NULL, j->room_id);
        json_decref(j->result);
        tapis_free(j);
        return;
    }
    if (j->srv->stopping || t->shared->rate_async(t->shared_ctx, j->rr.game, j->o.who, j->o.now,
                                                  j->o.res, j->o.n, job_rated, j) < 0)
        job_end(j, false);
}

static void job_fetched(server_t *srv, int found, void *arg)
{
    (void)srv;
    (void)found; /* unreachable: this node's copy */
    rate_job_t *j = arg;
    if (--j->reading == 0) job_compute(j);
}

/* Read every seat's account again (the cluster's ratings, not this node's copies). */
static void job_read(rate_job_t *j)
{
    accounts_t *t = j->srv->accounts;
    j->reading = 1; /* this loop's own, so that no answer completes it early */
    for (int s = 0; s < j->rr.nseats; s++) {
        j->reading++;
        if (t->shared->fetch_async(t->shared_ctx, j->srv, j->rr.seats[s].who->name, job_fetched,
                                   j) < 0)
            j->reading--;
    }
    if (--j->reading == 0) job_compute(j);
}

int rated_room_over_async(server_t *srv, rated_room_t *rr, const char *room_id,
                          const json_t *result, rated_over_fn done, void *arg)
{
    accounts_t *t = srv->accounts;
    if (!t->shared || !t->shared->fetch_async || !t->shared->rate_async) return -1;
    if (!rr || !rr->started || rr->nseats < 2) return -1;
    rate_job_t *j = tapis_calloc(1, sizeof *j);
    if (!j) return -1;
    if (!rated_end(rr, room_id, result, &j->sd)) {
        tapis_free(j);
        return -1; /* not rated: rated_room_over() says so at once */
    }
    j->srv = srv;
    j->rr = *rr;
    snprintf(j->room_id, sizeof j->room_id, "%s", room_id);
    j->result = json_incref((json_t *)result);
    j->done = done;
    j->arg = arg;
    job_read(j);
    return 0;
}
