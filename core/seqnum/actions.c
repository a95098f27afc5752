/*
 * actions.c — seqnum actions on the wire: parsing (canonical fields, or the
 * positional "args" of the protocol's inline form), the canonical JSON form,
 * and the list of legal actions.
 *
 * Canonical forms (what legal() lists and what is sent back):
 *   {"type":"play","card":C,"cell":N}   play card C on cell N (0..99, row * 10 + column);
 *                                       for "minus", N is the opponent's chip to remove
 *   {"type":"trade","card":C}           trade the dead card C for a new one (before playing)
 *   {"type":"draw"}                     draw after your play
 *   {"type":"pass"}                     only when no card in hand can be played
 * Inline: "play 25-24 37", "play plus 44", "trade 32+16", "draw", "pass".
 */
#include <stdlib.h>
#include <string.h>

#include "core/seqnum/internal.h"

static const char *const type_names[] = {"play", "trade", "draw", "pass"};

/*
 * The field `key`, or else the next positional argument of the inline form
 * (*pos counts those taken): the fields not given by name take the words in
 * order.
 */
static const json_t *field(const json_t *o, const char *key, size_t *pos, bool *positional)
{
    const json_t *v = json_object_get(o, key);
    *positional = !v;
    return v ? v : json_array_get(json_object_get(o, "args"), (*pos)++);
}

static int parse_card(const json_t *v, seqnum_act_t *a, game_error_t *err)
{
    if (!json_is_string(v))
        return game_bad_action(err, "give the card by name, e.g. \"card\":\"25-24\"");
    a->card = seqnum_card_parse(json_string_value(v));
    if (a->card < 0)
        return game_fail(err, "unknown_card", "no such card in seqnum (e.g. 25-24, 32+16, plus)");
    return 0;
}

/* A cell: an integer field, or in the inline form a number or its digits. */
static int parse_cell(const json_t *v, bool inline_arg, seqnum_act_t *a, game_error_t *err)
{
    json_int_t n;
    if (json_is_integer(v)) {
        n = json_integer_value(v);
    } else if (inline_arg && json_is_string(v) && *json_string_value(v)) {
        char *end;
        long x = strtol(json_string_value(v), &end, 10);
        if (*end) return game_bad_action(err, "a cell is a number 0..99");
        n = x;
    } else {
        return game_bad_action(err, "\"cell\" must be a number 0..99");
    }
    a->cell = n >= 0 && n < SEQNUM_CELLS ? (int)n : -1;
    return 0;
}

int seqnum_parse(const json_t *o, seqnum_act_t *a, game_error_t *err)
{
    memset(a, 0, sizeof *a);
    a->card = -1;
    a->cell = -1;
    int t = game_action_type(o, type_names, GAME_COUNT(type_names), "seqnum", err);
    if (t < 0) return -1;
    a->type = (seqnum_act_type_t)t;

    const json_t *args = json_object_get(o, "args");
    if (args && (!json_is_array(args) || json_array_size(args) == 0))
        return game_bad_action(err, "\"args\" must be a non-empty list");
    size_t nargs = json_array_size(args);
    static const char *const trade_keys[] = {"card", NULL};
    static const char *const play_keys[] = {"card", "cell", NULL};
    size_t pos = 0;
    bool positional = false;

    switch (a->type) {
    case SEQNUM_ACT_DRAW:
    case SEQNUM_ACT_PASS:
        if (!game_action_bare(o)) return game_bad_action(err, "this action takes no arguments");
        return 0;
    case SEQNUM_ACT_TRADE: {
        if (!game_action_keys_ok(o, trade_keys))
            return game_bad_action(err, "trade takes a \"card\"");
        const json_t *card = field(o, "card", &pos, &positional);
        if (pos != nargs) return game_bad_action(err, "inline: trade CARD");
        return parse_card(card, a, err);
    }
    case SEQNUM_ACT_PLAY: {
        if (!game_action_keys_ok(o, play_keys))
            return game_bad_action(err, "play takes a \"card\" and a \"cell\"");
        const json_t *card = field(o, "card", &pos, &positional);
        const json_t *cell = field(o, "cell", &pos, &positional);
        if (pos < nargs) return game_bad_action(err, "inline: play CARD CELL");
        if (parse_card(card, a, err)) return -1;
        if (!cell) return game_bad_action(err, "play needs a \"cell\"");
        return parse_cell(cell, positional, a, err);
    }
    }
    return game_bad_action(err, "unknown action");
}

/* The canonical form of an action, as an item of the array open in w. */
static void act_write(jw_t *w, const seqnum_act_t *a)
{
    jw_obj(w, NULL);
    jw_str(w, "type", type_names[a->type]);
    if (a->type == SEQNUM_ACT_PLAY || a->type == SEQNUM_ACT_TRADE)
        jw_str(w, "card", seqnum_card_name(a->card));
    if (a->type == SEQNUM_ACT_PLAY) jw_int(w, "cell", a->cell);
    jw_end(w);
}

/* ------------------------------------------------------------------ */
/* Legal actions: candidates the referee accepts                        */
/* ------------------------------------------------------------------ */

/* The cells worth trying for a card: its answer's two, or the whole board. */
static int candidate_cells(int kind, int *cells)
{
    int n = seqnum_answer(kind);
    if (n) {
        seqnum_cells_of(n, cells);
        return 2;
    }
    for (int c = 0; c < SEQNUM_CELLS; c++)
        cells[c] = c;
    return SEQNUM_CELLS;
}

bool seqnum_each_play(const seqnum_t *g, int seat, bool (*out)(const seqnum_act_t *, void *),
                      void *ctx)
{
    const seqnum_player_t *p = &g->p[seat];
    seqnum_act_t a = {.type = SEQNUM_ACT_PLAY};
    for (int i = 0; i < p->nhand; i++) {
        if (i > 0 && p->hand[i] == p->hand[i - 1]) continue;
        int cells[SEQNUM_CELLS], n = candidate_cells(p->hand[i], cells);
        a.card = p->hand[i];
        for (int k = 0; k < n; k++) {
            a.cell = cells[k];
            if (seqnum_check(g, seat, &a, NULL) == 0 && out(&a, ctx)) return true;
        }
    }
    return false;
}

static bool stop_at_first(const seqnum_act_t *a, void *ctx)
{
    (void)a;
    (void)ctx;
    return true;
}

/* The plays written so far into the legal list. */
typedef struct play_out {
    jw_t *w;
    int n;
} play_out_t;

static bool write_play(const seqnum_act_t *a, void *ctx)
{
    play_out_t *o = ctx;
    act_write(o->w, a);
    o->n++;
    return false;
}

bool seqnum_can_play(const seqnum_t *g, int seat)
{
    return seqnum_each_play(g, seat, stop_at_first, NULL);
}

void seqnum_legal(const game_t *base, int seat, jw_t *w)
{
    const seqnum_t *g = (const seqnum_t *)base;
    if (g->over || seat < 0 || seat >= base->seats) return;
    const seqnum_player_t *p = &g->p[seat];
    seqnum_act_t a = {.type = SEQNUM_ACT_DRAW, .card = -1, .cell = -1};
    if (p->owe >= 0) act_write(w, &a);
    if (seat != g->turn) return;
    a.type = SEQNUM_ACT_TRADE;
    for (int i = 0; i < p->nhand; i++) {
        if (i > 0 && p->hand[i] == p->hand[i - 1]) continue;
        a.card = p->hand[i];
        if (seqnum_check(g, seat, &a, NULL) == 0) act_write(w, &a);
    }
    play_out_t plays = {w, 0};
    seqnum_each_play(g, seat, write_play, &plays);
    if (plays.n == 0) { /* a pass only when nothing can be played (as check() says) */
        a.type = SEQNUM_ACT_PASS;
        act_write(w, &a);
    }
}
