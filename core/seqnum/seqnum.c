/*
 * seqnum.c — the rules of seqnum: the deal, the turn (trade a dead card,
 * play a card, draw), sequences and the end of the game. The view, dump,
 * resample and audit live in view.c; the board, cards and sequence search in
 * board.c.
 *
 * Every action goes through one path: parse (wire form to seqnum_act_t), check (the
 * rules: refuse with a stable code and change nothing), then run. legal()
 * enumerates candidate actions and keeps those that check() accepts, so the
 * list and the referee can never disagree.
 *
 * No clock: the draw's deadline ("before the next player has played and
 * drawn") is a matter of the order of actions, not of time.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/seqnum/internal.h"
#include "include/tapis_alloc.h"

/* ------------------------------------------------------------------ */
/* Hands, piles, events                                                 */
/* ------------------------------------------------------------------ */

bool seqnum_holds(const seqnum_player_t *p, int kind)
{
    for (int i = 0; i < p->nhand; i++)
        if (p->hand[i] == kind) return true;
    return false;
}

void seqnum_hand_add(seqnum_player_t *p, int kind)
{
    int i = p->nhand++;
    for (; i > 0 && p->hand[i - 1] > kind; i--)
        p->hand[i] = p->hand[i - 1];
    p->hand[i] = (uint8_t)kind;
}

void seqnum_hand_remove(seqnum_player_t *p, int kind)
{
    for (int i = 0; i < p->nhand; i++)
        if (p->hand[i] == kind) {
            memmove(&p->hand[i], &p->hand[i + 1], (size_t)(p->nhand - 1 - i));
            p->nhand--;
            return;
        }
}

static void event(seqnum_t *g, json_t *ev)
{
    game_log_append(&g->events, ev);
}

/* An empty draw pile is rebuilt from every discard pile, shuffled. */
static void draw_card(seqnum_t *g, int seat)
{
    if (g->ndraw == 0) {
        for (int s = 0; s < g->base.seats; s++) {
            seqnum_player_t *p = &g->p[s];
            memcpy(&g->draw[g->ndraw], p->discards, (size_t)p->ndiscards);
            g->ndraw += p->ndiscards;
            p->ndiscards = 0;
        }
        rng_shuffle_u8(&g->rng, g->draw, g->ndraw);
        g->reshuffles++;
        event(g, json_pack("{s:s, s:i}", "did", "reshuffle", "draw_pile", g->ndraw));
    }
    /* Never empty here: hands hold at most 24 of the 100 cards. */
    if (g->ndraw > 0) seqnum_hand_add(&g->p[seat], g->draw[--g->ndraw]);
}

static void discard(seqnum_t *g, int seat, int kind)
{
    seqnum_player_t *p = &g->p[seat];
    seqnum_hand_remove(p, kind);
    p->discards[p->ndiscards++] = (uint8_t)kind;
}

/* The seat's pending draw is lost for the rest of the game. */
static void lapse(seqnum_t *g, int seat)
{
    seqnum_player_t *p = &g->p[seat];
    p->owe = -1;
    p->max_cards--;
    p->lapsed++;
    event(g, game_seat_event(seat, "lapse"));
}

/* ------------------------------------------------------------------ */
/* Checking an action                                                   */
/* ------------------------------------------------------------------ */

static int check_cell(const seqnum_t *g, int seat, const seqnum_act_t *a, game_error_t *err)
{
    int c = a->cell;
    if (c < 0 || c >= SEQNUM_CELLS)
        return game_fail(err, "bad_cell", "cells are numbered 0 to 99 (row * 10 + column)");
    if (a->card == SEQNUM_CARD_MINUS) {
        if (g->chip[c] == SEQNUM_NO_CHIP)
            return game_fail(err, "no_chip", "cell %d holds no chip", c);
        if (g->chip[c] == seqnum_team(g, seat))
            return game_fail(err, "own_chip", "a minus removes an opponent's chip, not yours");
        if (seqnum_locked(g, c))
            return game_fail(err, "locked", "the chip on cell %d is in a finished sequence", c);
        return 0;
    }
    if (seqnum_corner(c))
        return game_fail(err, "free_corner",
                         "the corners are free for everyone: no chip goes there");
    int n = seqnum_answer(a->card);
    if (n && seqnum_number(c) != n)
        return game_fail(err, "wrong_cell", "%s makes %d, and cell %d shows %d",
                         seqnum_card_name(a->card), n, c, seqnum_number(c));
    if (g->chip[c] != SEQNUM_NO_CHIP) return game_fail(err, "occupied", "cell %d is taken", c);
    return 0;
}

int seqnum_check(const seqnum_t *g, int seat, const seqnum_act_t *a, game_error_t *err)
{
    if (g->over) return game_fail(err, TAPIS_E_GAME_OVER, "the game is over");
    if (seat < 0 || seat >= g->base.seats)
        return game_fail(err, TAPIS_E_NOT_SEATED, "only seated players act");
    const seqnum_player_t *p = &g->p[seat];
    if (a->type == SEQNUM_ACT_DRAW) {
        if (p->owe < 0)
            return game_fail(err, "nothing_to_draw",
                             "you draw once after each play, before the next player has played "
                             "and drawn");
        return 0;
    }
    if (seat != g->turn)
        return game_fail(err, TAPIS_E_NOT_YOUR_TURN, "it is seat %d's turn, not yours", g->turn);
    switch (a->type) {
    case SEQNUM_ACT_TRADE:
        if (g->traded) return game_fail(err, "already_traded", "one dead card per turn");
        if (!seqnum_holds(p, a->card))
            return game_fail(err, "not_in_hand", "you hold no %s", seqnum_card_name(a->card));
        if (!seqnum_dead(g, a->card))
            return game_fail(err, "not_dead", "%s is not dead: a free cell still shows its answer",
                             seqnum_card_name(a->card));
        return 0;
    case SEQNUM_ACT_PLAY:
        if (!seqnum_holds(p, a->card))
            return game_fail(err, "not_in_hand", "you hold no %s", seqnum_card_name(a->card));
        return check_cell(g, seat, a, err);
    case SEQNUM_ACT_PASS:
        if (seqnum_can_play(g, seat))
            return game_fail(err, "must_play", "you hold a card you can play");
        return 0;
    case SEQNUM_ACT_DRAW: break;
    }
    return game_fail(err, TAPIS_E_UNKNOWN_ACTION, "unknown action");
}

/* ------------------------------------------------------------------ */
/* Running an action                                                    */
/* ------------------------------------------------------------------ */

static void finish(seqnum_t *g, int winner, const char *reason)
{
    g->over = true;
    g->winner = winner;
    g->reason = reason;
    event(g, json_pack("{s:s, s:s}", "did", "game_over", "reason", reason));
}

/* After a play or a pass: the next seat, or one of the server's ends. */
static void end_turn(seqnum_t *g)
{
    if (g->over) return;
    g->turn = (g->turn + 1) % g->base.seats;
    g->traded = false;
    if (g->turns >= g->max_turns) {
        finish(g, -1, "max_turns");
        return;
    }
    for (int s = 0; s < g->base.seats; s++)
        if (g->p[s].nhand > 0 || g->p[s].owe >= 0) return;
    finish(g, -1, "no_cards");
}

static void run_play(seqnum_t *g, int seat, int kind, int cell)
{
    seqnum_player_t *p = &g->p[seat];
    int team = seqnum_team(g, seat);
    if (p->owe >= 0) lapse(g, seat); /* playing again closes your own window */
    discard(g, seat, kind);
    g->turns++;
    p->owe = g->turns;
    json_t *ev = game_seat_event(seat, kind == SEQNUM_CARD_MINUS ? "remove" : "play");
    json_object_set_new(ev, "card", json_string(seqnum_card_name(kind)));
    json_object_set_new(ev, "cell", json_integer(cell));
    if (kind == SEQNUM_CARD_MINUS) {
        json_object_set_new(ev, "team", json_integer(g->chip[cell]));
        g->chip[cell] = SEQNUM_NO_CHIP;
        event(g, ev);
        end_turn(g);
        return;
    }
    g->chip[cell] = (int8_t)team;
    event(g, ev);
    int found = seqnum_find_sequences(g, team, cell);
    for (int i = g->nseqs - found; i < g->nseqs; i++) {
        json_t *cells = json_array();
        for (int k = 0; k < 5; k++)
            json_array_append_new(cells, json_integer(g->seqs[i].cells[k]));
        event(g, json_pack("{s:s, s:i, s:o}", "did", "sequence", "team", team, "cells", cells));
    }
    if (found && seqnum_team_sequences(g, team) >= g->goal) finish(g, team, "sequences");
    end_turn(g);
}

/* The seat draws for its last play: every earlier play still waiting for its
 * draw has now been overtaken, and that draw is lost. */
static void run_draw(seqnum_t *g, int seat)
{
    int t = g->p[seat].owe;
    for (int s = 0; s < g->base.seats; s++)
        if (s != seat && g->p[s].owe >= 0 && g->p[s].owe < t) lapse(g, s);
    g->p[seat].owe = -1;
    draw_card(g, seat);
    event(g, game_seat_event(seat, "draw"));
}

void seqnum_run(seqnum_t *g, int seat, const seqnum_act_t *a)
{
    switch (a->type) {
    case SEQNUM_ACT_PLAY: run_play(g, seat, a->card, a->cell); break;
    case SEQNUM_ACT_DRAW: run_draw(g, seat); break;
    case SEQNUM_ACT_TRADE: {
        discard(g, seat, a->card);
        draw_card(g, seat);
        g->traded = true;
        json_t *ev = game_seat_event(seat, "trade");
        json_object_set_new(ev, "card", json_string(seqnum_card_name(a->card)));
        event(g, ev);
        break;
    }
    case SEQNUM_ACT_PASS:
        g->turns++;
        event(g, game_seat_event(seat, "pass"));
        end_turn(g);
        break;
    }
}

/* ------------------------------------------------------------------ */
/* The descriptor's functions                                           */
/* ------------------------------------------------------------------ */

/*
 * Options: game_new() has checked them against this table; create() checks
 * what depends on the seat count (teams).
 */
static const game_option_t seqnum_options[] = {
    GAME_OPTION_INT("teams", 0, 0, SEQNUM_MAX_SEATS,
                    "0: automatic (alone at 2-3, two teams at 4 and 6); otherwise the number of "
                    "teams: 2 or 3 players alone, 4 players in 2 teams, 6 players in 2 or 3"),
    GAME_OPTION_INT_AT("max_turns", 400, 1, 10000, seqnum_t, max_turns,
                       "server rule: the game ends as a draw after this many turns (plays and "
                       "passes)"),
    GAME_OPTION_END,
};

static int seqnum_create(game_t *base, const json_t *o, const rng_t *rng, game_error_t *err)
{
    seqnum_t *g = (seqnum_t *)base;
    int seats = base->seats, teams = game_option_int(o, "teams");
    if (seats == 5 || seats < 2 || seats > SEQNUM_MAX_SEATS) {
        game_fail(err, TAPIS_E_BAD_PLAYERS,
                  "seqnum is played by 2 or 3 players alone, or 4 or 6 in teams; not %d", seats);
        return -1;
    }
    if (seats <= 3 && teams != 0 && teams != seats) {
        game_fail(err, TAPIS_E_BAD_OPTION,
                  "with %d players everyone plays alone: teams must be 0 or %d", seats, seats);
        return -1;
    }
    if (seats >= 4 && teams != 0 && (teams < 2 || teams > 3 || seats % teams != 0)) {
        game_fail(err, TAPIS_E_BAD_OPTION,
                  "%d players make 2%s teams of equal size (teams = 0, 2%s)", seats,
                  seats == 6 ? " or 3" : "", seats == 6 ? " or 3" : "");
        return -1;
    }
    g->nteams = seats <= 3 ? seats : teams ? teams : 2;
    g->goal = seats <= 3 ? 1 : 2;
    g->deal = seats <= 3 ? 5 : 4;
    g->winner = -1;
    g->rng = *rng;
    game_log_init(&g->events, SEQNUM_EVENTS);
    for (int k = 0; k < SEQNUM_KINDS; k++)
        for (int i = 0; i < seqnum_copies(k); i++)
            g->draw[g->ndraw++] = (uint8_t)k;
    rng_shuffle_u8(&g->rng, g->draw, g->ndraw);
    memset(g->chip, SEQNUM_NO_CHIP, sizeof g->chip);
    for (int s = 0; s < seats; s++) {
        g->p[s].max_cards = g->deal;
        g->p[s].owe = -1;
    }
    /* One at a time, starting left of the dealer (the last seat). */
    for (int r = 0; r < g->deal; r++)
        for (int s = 0; s < seats; s++)
            draw_card(g, s);
    return 0;
}

static int seqnum_apply(game_t *base, int seat, const json_t *action, int64_t now,
                        game_error_t *err)
{
    seqnum_t *g = (seqnum_t *)base;
    seqnum_act_t a;
    (void)now;
    if (seqnum_parse(action, &a, err)) return -1;
    if (seqnum_check(g, seat, &a, err)) return -1;
    seqnum_run(g, seat, &a);
    return 0;
}

/* The turn seat, and every seat that owes a draw. */
static unsigned seqnum_waiting(const game_t *base)
{
    const seqnum_t *g = (const seqnum_t *)base;
    if (g->over) return 0;
    unsigned m = 1u << g->turn;
    for (int s = 0; s < base->seats; s++)
        if (g->p[s].owe >= 0) m |= 1u << s;
    return m;
}

/* A seat that owes a draw draws; otherwise the kit's (the greedy bot's choice). */
static json_t *seqnum_default_action(const game_t *base, int seat)
{
    const seqnum_t *g = (const seqnum_t *)base;
    if (g->over || seat < 0 || seat >= base->seats || g->p[seat].owe < 0)
        return game_default_bot_action(base, seat);
    unsigned long mark = tapis_alloc_failures();
    return game_json_checked(json_pack("{s:s}", "type", "draw"), mark);
}

static bool seqnum_is_over(const game_t *base)
{
    return ((const seqnum_t *)base)->over;
}

static json_t *seqnum_result(const game_t *base)
{
    const seqnum_t *g = (const seqnum_t *)base;
    unsigned long mark = tapis_alloc_failures();
    json_t *seqs = json_array();
    unsigned winners = 0;
    for (int s = 0; s < base->seats; s++)
        if (g->winner >= 0 && seqnum_team(g, s) == g->winner) winners |= 1u << s;
    for (int t = 0; t < g->nteams; t++)
        json_array_append_new(seqs, json_integer(seqnum_team_sequences(g, t)));
    json_t *r =
        json_pack("{s:o, s:o, s:o, s:s, s:i}", "winners", game_winners_json(winners, base->seats),
                  "team", g->winner >= 0 ? json_integer(g->winner) : json_null(), "sequences", seqs,
                  "reason", g->reason, "turns", g->turns);
    /* Partners (seat s plays for team s % teams): the ratings rate a team as one side. */
    if (g->nteams < base->seats) json_object_set_new(r, "teams", json_integer(g->nteams));
    return game_json_checked(r, mark);
}

/* A play's draw is part of the move: bots take it at once (game.h). */
static bool seqnum_at_once(const game_t *base, int seat)
{
    const seqnum_t *g = (const seqnum_t *)base;
    return !g->over && seat >= 0 && seat < base->seats && g->p[seat].owe >= 0;
}

/* Bot levels and their pace (a person needs a moment to find a cell for an equation). */
static const game_bot_level_t seqnum_bot_levels[] = {
    GAME_BOT_LEVELS_KIT(1000, 2000, /* easy: */ 2000, 4000, /* fast: */ 150, 400,
                        "normal wins 76% of games against it", "wins 55% of games against normal"),
};

const game_desc_t seqnum_desc = {
    .id = "seqnum",
    .title = "Sequence numbers",
    .min_seats = 2,
    .max_seats = SEQNUM_MAX_SEATS,
    GAME_HOOKS(seqnum),
    .at_once = seqnum_at_once,
    .default_action = seqnum_default_action,
    .logs = {offsetof(seqnum_t, events)},
};
