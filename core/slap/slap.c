/*
 * slap.c — the rules of slap: the deal, the go, simultaneous play on the
 * discard piles, stalls, the slap race that ends a round, and the end of the
 * game. The view, dump, resample and audit live in view.c; the wire form of
 * actions and the legal list in actions.c.
 *
 * Every action goes through one path: parse (wire form to slap_act_t), check
 * (the rules: refuse with a stable code and change nothing), then run. There
 * are no turns: apply() calls are the order of play (the server makes it the
 * order of the received timestamps), so "the first received wins" is simply
 * what checking each action against the state left by the previous one does.
 */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/slap/internal.h"
#include "include/tapis_alloc.h"

/* ------------------------------------------------------------------ */
/* Cards, events                                                        */
/* ------------------------------------------------------------------ */

static const char colour_letters[SLAP_COLOURS] = {'R', 'G', 'B', 'Y'};

const char *slap_card_name(slap_card_t c)
{
    static const char *const names[SLAP_KINDS] = {
        "R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9", "R10", "R11",
        "G1", "G2", "G3", "G4", "G5", "G6", "G7", "G8", "G9", "G10", "G11",
        "B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "B10", "B11",
        "Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7", "Y8", "Y9", "Y10", "Y11",
    };
    return c < SLAP_KINDS ? names[c] : "?";
}

int slap_card_parse(const char *name)
{
    if (!name || !name[0] || !name[1]) return -1;
    int colour = -1;
    for (int i = 0; i < SLAP_COLOURS; i++)
        if (toupper((unsigned char)name[0]) == colour_letters[i]) colour = i;
    if (colour < 0) return -1;
    const char *v = name + 1;
    if (v[0] < '1' || v[0] > '9') return -1; /* no sign, no leading zero */
    int value = v[0] - '0';
    if (v[1]) {
        if (v[1] < '0' || v[1] > '9' || v[2]) return -1;
        value = value * 10 + (v[1] - '0');
    }
    if (value > SLAP_VALUES) return -1;
    return colour * SLAP_VALUES + value - 1;
}

/*
 * A card goes on a pile's top if it is higher and of another colour, or if it
 * is odd and lands on an even card of its own colour.
 */
bool slap_fits(slap_card_t card, slap_card_t top)
{
    int v = slap_value(card), t = slap_value(top);
    if (slap_colour(card) != slap_colour(top)) return v > t;
    return v % 2 == 1 && t % 2 == 0;
}

/* Events are a game_log_t, shared by every view: an event is complete when logged. */
void slap_event(slap_t *g, json_t *ev)
{
    game_log_append(&g->events, ev);
}

/* A seat's cards in play: draw pile and columns. */
int slap_cards_held(const slap_t *g, int seat)
{
    const slap_player_t *p = &g->p[seat];
    int n = p->ndraw;
    for (int c = 0; c < SLAP_COLUMNS; c++)
        n += p->col[c].n;
    return n;
}

static bool columns_empty(const slap_player_t *p)
{
    for (int c = 0; c < SLAP_COLUMNS; c++)
        if (p->col[c].n) return false;
    return true;
}

/* Slide n cards, face down, under a draw pile: cards[0] becomes its bottom. */
static void put_under(slap_player_t *p, const slap_card_t *cards, int n)
{
    memmove(&p->draw[n], &p->draw[0], (size_t)p->ndraw);
    memcpy(p->draw, cards, (size_t)n);
    p->ndraw += n;
}

/* A face-up stack turned over: its top becomes its bottom. */
static void put_under_turned(slap_player_t *p, const slap_card_t *cards, int n)
{
    slap_card_t turned[SLAP_DECK];
    for (int i = 0; i < n; i++)
        turned[i] = cards[n - 1 - i];
    put_under(p, turned, n);
}

/* ------------------------------------------------------------------ */
/* Rounds                                                               */
/* ------------------------------------------------------------------ */

/*
 * Lay each player's four columns of 1, 2, 3 and 4 cards from the top of their
 * draw pile, tops face up. A player with fewer than 11 cards keeps one for the
 * go and fills the columns in order with the rest (RULES.md, interpretation 3).
 */
static void start_round(slap_t *g, int64_t t)
{
    g->round++;
    g->stalls = 0;
    g->first = -1;
    g->phase = SLAP_SETUP;
    g->go_at = t == SLAP_UNSET ? SLAP_UNSET : t + g->go_ms;
    g->stall_at = SLAP_UNSET;
    for (int s = 0; s < g->base.seats; s++) {
        slap_player_t *p = &g->p[s];
        int spare = p->ndraw - 1;
        if (spare > 10) spare = 10;
        p->slapped = -1;
        for (int c = 0; c < SLAP_COLUMNS; c++) {
            slap_column_t *col = &p->col[c];
            col->n = 0;
            for (int i = 0; i <= c && spare > 0; i++, spare--)
                col->cards[col->n++] = p->draw[--p->ndraw];
            col->up = col->n > 0;
        }
        g->pile[s].n = 0;
        g->pile[s].taken_by = -1;
    }
    slap_event(g, json_pack("{s:s, s:i}", "did", "deal", "round", g->round));
}

/* Go: each player's next draw card is turned up as their discard pile. */
static void go(slap_t *g, int64_t t)
{
    for (int s = 0; s < g->base.seats; s++) {
        slap_player_t *p = &g->p[s];
        if (p->ndraw) g->pile[s].cards[g->pile[s].n++] = p->draw[--p->ndraw];
    }
    g->phase = SLAP_PLAY;
    g->go_at = SLAP_UNSET;
    g->now = t;
    slap_event(g, json_pack("{s:s, s:i}", "did", "go", "round", g->round));
    slap_update_stall(g, t);
}

static void end_game(slap_t *g, unsigned winners)
{
    g->phase = SLAP_OVER;
    g->winners = winners;
    g->go_at = g->stall_at = SLAP_UNSET;
}

/*
 * Everyone puts the pile they took (a blocked round: their own pile) and what
 * is left in their columns under their draw pile. Then a player with zero or
 * one card wins; otherwise a new round, unless max_rounds is reached (the
 * fewest cards win).
 */
static void end_round(slap_t *g, int64_t t, bool blocked)
{
    int n = g->base.seats;
    for (int s = 0; s < n; s++) {
        slap_player_t *p = &g->p[s];
        int k = blocked ? s : p->slapped;
        if (k >= 0 && (blocked || s != g->first)) {
            put_under_turned(p, g->pile[k].cards, g->pile[k].n);
            g->pile[k].n = 0;
        }
        for (int c = 0; c < SLAP_COLUMNS; c++) {
            put_under_turned(p, p->col[c].cards, p->col[c].n);
            p->col[c].n = 0;
            p->col[c].up = false;
        }
    }
    json_t *counts = json_array();
    unsigned low = 0, fewest = 0;
    int least = SLAP_DECK + 1;
    for (int s = 0; s < n; s++) {
        int held = slap_cards_held(g, s);
        json_array_append_new(counts, json_integer(held));
        if (held <= 1) low |= 1u << s;
        if (held < least) {
            least = held;
            fewest = 0;
        }
        if (held == least) fewest |= 1u << s;
    }
    slap_event(g, json_pack("{s:s, s:i, s:b, s:o}", "did", "round_end", "round", g->round,
                            "blocked", blocked, "cards", counts));
    g->now = t;
    if (low)
        end_game(g, low);
    else if (g->round >= g->max_rounds)
        end_game(g, fewest);
    else
        start_round(g, t);
}

/*
 * Nobody can play: one card from each draw pile onto the next pile (player i's
 * onto pile (i + 1) % n). With no card left to turn, or after max_stalls
 * stalls, the round ends blocked (server rule).
 */
static void stall(slap_t *g, int64_t t)
{
    int n = g->base.seats;
    bool any = false;
    for (int s = 0; s < n; s++)
        any |= g->p[s].ndraw > 0;
    g->stall_at = SLAP_UNSET;
    g->now = t;
    if (!any || g->stalls >= g->max_stalls) {
        end_round(g, t, true);
        return;
    }
    g->stalls++;
    json_t *cards = json_array();
    for (int s = 0; s < n; s++) {
        slap_player_t *p = &g->p[s];
        if (!p->ndraw) {
            json_array_append_new(cards, json_null());
            continue;
        }
        slap_card_t c = p->draw[--p->ndraw];
        slap_pile_t *to = &g->pile[(s + 1) % n];
        to->cards[to->n++] = c;
        json_array_append_new(cards, json_string(slap_card_name(c)));
    }
    slap_event(g,
               json_pack("{s:s, s:i, s:o}", "did", "stall", "stalls", g->stalls, "cards", cards));
    slap_update_stall(g, t);
}

/* When nobody can act during play, the next stall is due stall_ms from now. */
void slap_update_stall(slap_t *g, int64_t t)
{
    if (g->phase != SLAP_PLAY) {
        g->stall_at = SLAP_UNSET;
        return;
    }
    for (int s = 0; s < g->base.seats; s++)
        if (slap_can_act(g, s)) {
            g->stall_at = SLAP_UNSET;
            return;
        }
    if (g->stall_at == SLAP_UNSET) g->stall_at = t + g->stall_ms;
}

/* ------------------------------------------------------------------ */
/* Checking an action                                                   */
/* ------------------------------------------------------------------ */

static int check_slap(const slap_t *g, int seat, const slap_act_t *a, game_error_t *err)
{
    const slap_player_t *p = &g->p[seat];
    if (p->slapped >= 0 || seat == g->first)
        return game_fail(err, "already_slapped", "you have slapped pile %d this round", p->slapped);
    if (g->phase == SLAP_PLAY && !columns_empty(p))
        return game_fail(err, "columns_not_empty",
                         "only a player whose four columns are empty slaps first");
    const slap_pile_t *k = &g->pile[a->pile];
    if (k->taken_by >= 0)
        return game_fail(err, "pile_taken", "seat %d slapped pile %d first: slap another",
                         k->taken_by, a->pile);
    return 0;
}

static int check_column(const slap_column_t *col, int c, game_error_t *err)
{
    if (!col->n) return game_fail(err, "empty_column", "column %d is empty", c);
    if (!col->up)
        return game_fail(err, "face_down", "column %d's top card is face down: turn it up", c);
    return 0;
}

static int check_play(const slap_t *g, int seat, const slap_act_t *a, game_error_t *err)
{
    const slap_column_t *col = &g->p[seat].col[a->column];
    if (check_column(col, a->column, err)) return -1;
    const slap_pile_t *k = &g->pile[a->pile];
    slap_card_t c = col->cards[col->n - 1];
    if (!k->n) return game_fail(err, "empty_pile", "pile %d is empty", a->pile);
    if (slap_fits(c, k->cards[k->n - 1])) return 0;
    /* It would have gone on the card now covered: someone played there first. */
    if (k->n >= 2 && slap_fits(c, k->cards[k->n - 2]))
        return game_fail(err, TAPIS_E_TOO_LATE, "%s was played on pile %d first",
                         slap_card_name(k->cards[k->n - 1]), a->pile);
    return game_fail(err, "cannot_play",
                     "%s goes on a lower card of another colour, or odd on an even card of its "
                     "own colour; not on %s",
                     slap_card_name(c), slap_card_name(k->cards[k->n - 1]));
}

int slap_check(const slap_t *g, int seat, const slap_act_t *a, game_error_t *err)
{
    if (g->phase == SLAP_OVER) return game_fail(err, TAPIS_E_GAME_OVER, "the game is over");
    if (seat < 0 || seat >= g->base.seats)
        return game_fail(err, TAPIS_E_NOT_SEATED, "only seated players act");
    if ((a->type == SLAP_ACT_PLAY || a->type == SLAP_ACT_SLAP) && a->pile >= g->base.seats)
        return game_fail(err, "no_such_pile", "the piles are 0..%d", g->base.seats - 1);
    if (g->phase == SLAP_SETUP) return game_fail(err, "too_early", "wait for the go");
    if (a->type == SLAP_ACT_SLAP) return check_slap(g, seat, a, err);
    if (g->phase == SLAP_RACE)
        return game_fail(err, "round_over", "seat %d has slapped: slap a pile", g->first);
    const slap_player_t *p = &g->p[seat];
    const slap_column_t *col = &p->col[a->column];
    switch (a->type) {
    case SLAP_ACT_PLAY: return check_play(g, seat, a, err);
    case SLAP_ACT_TURN:
        if (!col->n) return game_fail(err, "empty_column", "column %d is empty", a->column);
        if (col->up) return game_fail(err, "already_up", "column %d's top is face up", a->column);
        return 0;
    case SLAP_ACT_MOVE:
        if (a->to == a->column)
            return game_fail(err, "same_column", "move a card to another column");
        if (check_column(col, a->column, err)) return -1;
        if (p->col[a->to].n)
            return game_fail(err, "column_not_empty", "column %d is not empty", a->to);
        if (col->n == 1)
            return game_fail(err, "pointless_move",
                             "moving a column's only card uncovers nothing (RULES.md)");
        return 0;
    case SLAP_ACT_SLAP: break;
    }
    return game_fail(err, TAPIS_E_UNKNOWN_ACTION, "unknown action");
}

/* ------------------------------------------------------------------ */
/* Running an action                                                    */
/* ------------------------------------------------------------------ */

/* A seat slaps pile k: the first slap boxes it, the others take it. */
static void run_slap(slap_t *g, int seat, int k, int64_t t)
{
    slap_pile_t *pile = &g->pile[k];
    json_t *ev = game_seat_event(seat, "slap");
    json_object_set_new(ev, "pile", json_integer(k));
    json_object_set_new(ev, "cards", json_integer(pile->n));
    g->p[seat].slapped = k;
    pile->taken_by = seat;
    if (g->phase == SLAP_PLAY) {
        g->first = seat;
        g->phase = SLAP_RACE;
        g->stall_at = SLAP_UNSET;
        memcpy(&g->box[g->nbox], pile->cards, (size_t)pile->n);
        g->nbox += pile->n;
        pile->n = 0;
        json_object_set_new(ev, "boxed", json_true());
    }
    slap_event(g, ev);
    /* The last player gets the last pile. */
    int left = -1, racers = 0, free_pile = -1;
    for (int s = 0; s < g->base.seats; s++)
        if (s != g->first && g->p[s].slapped < 0) {
            left = s;
            racers++;
        }
    for (int i = 0; i < g->base.seats; i++)
        if (g->pile[i].taken_by < 0) free_pile = i;
    if (racers == 1 && free_pile >= 0) {
        g->p[left].slapped = free_pile;
        g->pile[free_pile].taken_by = left;
        ev = game_seat_event(left, "last_pile");
        json_object_set_new(ev, "pile", json_integer(free_pile));
        json_object_set_new(ev, "cards", json_integer(g->pile[free_pile].n));
        slap_event(g, ev);
        racers = 0;
    }
    if (racers == 0) end_round(g, t, false);
}

/* The column's top card, taken off: the card under it is face down. */
static slap_card_t take_top(slap_column_t *col)
{
    col->up = false;
    return col->cards[--col->n];
}

/* The event of a seat's action on a column's card: {"seat", "did", "card", "column"}. */
static json_t *column_event(int seat, const char *did, slap_card_t c, int column)
{
    json_t *ev = game_seat_event(seat, did);
    json_object_set_new(ev, "card", json_string(slap_card_name(c)));
    json_object_set_new(ev, "column", json_integer(column));
    return ev;
}

static void run(slap_t *g, int seat, const slap_act_t *a, int64_t t)
{
    slap_player_t *p = &g->p[seat];
    slap_column_t *col = &p->col[a->column];
    json_t *ev;
    g->now = t;
    switch (a->type) {
    case SLAP_ACT_PLAY: {
        slap_card_t c = take_top(col);
        slap_pile_t *k = &g->pile[a->pile];
        k->cards[k->n++] = c;
        ev = column_event(seat, "play", c, a->column);
        json_object_set_new(ev, "pile", json_integer(a->pile));
        slap_event(g, ev);
        break;
    }
    case SLAP_ACT_TURN:
        col->up = true;
        slap_event(g, column_event(seat, "turn", col->cards[col->n - 1], a->column));
        break;
    case SLAP_ACT_MOVE: {
        slap_column_t *to = &p->col[a->to];
        to->cards[0] = take_top(col);
        to->n = 1;
        to->up = true;
        ev = column_event(seat, "move", to->cards[0], a->column);
        json_object_set_new(ev, "to", json_integer(a->to));
        slap_event(g, ev);
        break;
    }
    case SLAP_ACT_SLAP: run_slap(g, seat, a->pile, t); break;
    }
    slap_update_stall(g, t);
}

/* ------------------------------------------------------------------ */
/* The game interface                                                   */
/* ------------------------------------------------------------------ */

/* Options: game_new() has checked them against this table. */
static const game_option_t slap_options[] = {
    GAME_OPTION_INT_AT("go_ms", 1000, 0, 60000, slap_t, go_ms,
                       "the \"go\" of a round comes this many ms after its set-up"),
    GAME_OPTION_INT_AT("stall_ms", 1500, 0, 60000, slap_t, stall_ms,
                       "when nobody can play, new cards are turned up after this many ms"),
    GAME_OPTION_INT_AT("max_stalls", 30, 0, 1000, slap_t, max_stalls,
                       "a round in which nobody can play once more after this many stalls ends "
                       "blocked"),
    GAME_OPTION_INT_AT("max_rounds", 20, 1, 1000, slap_t, max_rounds,
                       "the game ends after this many rounds at most"),
    GAME_OPTION_END,
};

static int slap_create(game_t *base, const json_t *o, const rng_t *rng, game_error_t *err)
{
    slap_t *g = (slap_t *)base;
    int seats = base->seats;
    (void)o, (void)err; /* every option is stored by the table; nothing is refused */
    g->rng = *rng;
    game_log_init(&g->events, SLAP_EVENTS);
    slap_card_t deck[SLAP_DECK];
    for (int i = 0; i < SLAP_DECK; i++)
        deck[i] = (slap_card_t)(i % SLAP_KINDS);
    rng_shuffle_u8(&g->rng, deck, SLAP_DECK);
    int each = SLAP_DECK / seats, k = 0;
    for (int s = 0; s < seats; s++) {
        memcpy(g->p[s].draw, &deck[k], (size_t)each);
        g->p[s].ndraw = each;
        k += each;
    }
    g->nout = SLAP_DECK - k;
    memcpy(g->out, &deck[k], (size_t)g->nout);
    g->now = 0;
    start_round(g, SLAP_UNSET); /* the go is set by the first tick: the clock is unknown */
    return 0;
}

/* Settle what is due. */
static bool slap_tick(game_t *base, int64_t now)
{
    slap_t *g = (slap_t *)base;
    bool changed = false;
    for (;;) {
        if (g->phase == SLAP_SETUP && g->go_at == SLAP_UNSET) {
            g->go_at = now + g->go_ms;
            g->now = now;
        } else if (g->phase == SLAP_SETUP && g->go_at <= now) {
            go(g, g->go_at);
        } else if (g->phase == SLAP_PLAY && g->stall_at != SLAP_UNSET && g->stall_at <= now) {
            stall(g, g->stall_at);
        } else {
            return changed;
        }
        changed = true;
    }
}

static int slap_apply(game_t *base, int seat, const json_t *action, int64_t now, game_error_t *err)
{
    slap_t *g = (slap_t *)base;
    slap_act_t a;
    if (slap_parse(action, &a, err)) return -1;
    slap_tick(base, now);
    int r = slap_check(g, seat, &a, err);
    if (r == 0) run(g, seat, &a, now);
    return r;
}

static int64_t slap_next_deadline(const game_t *base)
{
    const slap_t *g = (const slap_t *)base;
    if (g->phase == SLAP_SETUP) return g->go_at == SLAP_UNSET ? 0 : g->go_at;
    if (g->phase == SLAP_PLAY && g->stall_at != SLAP_UNSET) return g->stall_at;
    return GAME_NO_DEADLINE;
}

static unsigned slap_waiting(const game_t *base)
{
    const slap_t *g = (const slap_t *)base;
    unsigned w = 0;
    for (int s = 0; s < base->seats; s++)
        if (slap_can_act(g, s)) w |= 1u << s;
    return w;
}

static bool slap_is_over(const game_t *base)
{
    return ((const slap_t *)base)->phase == SLAP_OVER;
}

static json_t *slap_result(const game_t *base)
{
    const slap_t *g = (const slap_t *)base;
    unsigned long mark = tapis_alloc_failures();
    json_t *cards = json_array();
    for (int s = 0; s < base->seats; s++)
        json_array_append_new(cards, json_integer(slap_cards_held(g, s)));
    return game_json_checked(json_pack("{s:o, s:o, s:i}", "winners",
                                       game_winners_json(g->winners, base->seats), "cards", cards,
                                       "rounds", g->round),
                             mark);
}

void slap_refresh(slap_t *g)
{
    g->stall_at = SLAP_UNSET;
    slap_update_stall(g, g->now);
}

/* Bot levels and their pace (about a second per action: a person can keep up). */
static const game_bot_level_t slap_bot_levels[] = {
    GAME_BOT_LEVELS_KIT(800, 1200, /* easy: */ 1400, 2200, /* fast: */ 250, 450,
                        "normal wins 64% of games against it", "wins 65% of games against normal"),
};

const game_desc_t slap_desc = {
    .id = "slap",
    .title = "Slap",
    .min_seats = 2,
    .max_seats = SLAP_MAX_SEATS,
    GAME_HOOKS(slap),
    .next_deadline = slap_next_deadline,
    .tick = slap_tick,
    .simultaneous = true,
    .logs = {offsetof(slap_t, events)},
};
