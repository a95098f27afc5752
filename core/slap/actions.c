/*
 * actions.c — slap actions on the wire: parsing (named fields, or the
 * positional "args" of the protocol's inline form), the canonical JSON form,
 * and the list of legal actions.
 *
 * Canonical forms (what legal() lists and what is sent back); columns are
 * 0..3 (dealt with 1, 2, 3, 4 cards), piles are 0..seats-1 (pile K started
 * with seat K's go card):
 *   {"type":"play","column":C,"pile":K}   column C's face-up top card onto pile K
 *   {"type":"turn","column":C}            turn up column C's face-down top card
 *   {"type":"move","column":C,"to":D}     column C's face-up top card into empty column D
 *   {"type":"slap","pile":K}              slap pile K (end of the round)
 * Inline: "play 2 1", "turn 3", "move 3 0", "slap 1" (args [2,1], [3], ...).
 */
#include <string.h>

#include "core/slap/internal.h"

static const char *const type_names[] = {"play", "turn", "move", "slap"};

/* The named fields of each type, in args order. */
static const char *const fields[][2] = {
    {"column", "pile"},
    {"column", NULL},
    {"column", "to"},
    {"pile", NULL},
};

static int read_int(const json_t *v, const char *name, int hi, const char *code, int *out,
                    game_error_t *err)
{
    if (!json_is_integer(v))
        return game_fail(err, TAPIS_E_BAD_ACTION, "\"%s\" must be an integer", name);
    json_int_t x = json_integer_value(v);
    if (x < 0 || x > hi) return game_fail(err, code, "\"%s\" must be 0..%d", name, hi);
    *out = (int)x;
    return 0;
}

int slap_parse(const json_t *o, slap_act_t *a, game_error_t *err)
{
    memset(a, 0, sizeof *a);
    int t = game_action_type(o, type_names, GAME_COUNT(type_names), "slap", err);
    if (t < 0) return -1;
    const char *type = type_names[t];
    a->type = (slap_act_type_t)t;

    const char *const *want = fields[t];
    int nwant = want[1] ? 2 : 1;
    const json_t *args = json_object_get(o, "args");
    if (args && (!json_is_array(args) || json_array_size(args) != (size_t)nwant))
        return game_fail(err, TAPIS_E_BAD_ACTION, "inline: %s takes %d number%s", type, nwant,
                         nwant > 1 ? "s" : "");
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)o, k, v)
    {
        bool known = strcmp(k, "type") == 0 || (!args && strcmp(k, want[0]) == 0) ||
                     (!args && want[1] && strcmp(k, want[1]) == 0) ||
                     (args && strcmp(k, "args") == 0);
        if (!known)
            return game_fail(err, TAPIS_E_BAD_ACTION, "%s takes \"%s\"%s%s%s (or \"args\")", type,
                             want[0], want[1] ? " and \"" : "", want[1] ? want[1] : "",
                             want[1] ? "\"" : "");
    }
    for (int i = 0; i < nwant; i++) {
        const json_t *x = args ? json_array_get(args, (size_t)i) : json_object_get(o, want[i]);
        if (!x) return game_fail(err, TAPIS_E_BAD_ACTION, "%s needs \"%s\"", type, want[i]);
        int *slot = strcmp(want[i], "column") == 0 ? &a->column
                    : strcmp(want[i], "pile") == 0 ? &a->pile
                                                   : &a->to;
        bool is_pile = slot == &a->pile;
        if (read_int(x, want[i], is_pile ? SLAP_MAX_SEATS - 1 : SLAP_COLUMNS - 1,
                     is_pile ? "no_such_pile" : "no_such_column", slot, err))
            return -1;
    }
    return 0;
}

/* Written for every legal action of every view: static ASCII keys and names. */
static void act_write(jw_t *w, const slap_act_t *a)
{
    jw_obj(w, NULL);
    jw_str(w, "type", type_names[a->type]);
    if (a->type != SLAP_ACT_SLAP) jw_int(w, "column", a->column);
    if (a->type == SLAP_ACT_PLAY || a->type == SLAP_ACT_SLAP) jw_int(w, "pile", a->pile);
    if (a->type == SLAP_ACT_MOVE) jw_int(w, "to", a->to);
    jw_end(w);
}

/* ------------------------------------------------------------------ */
/* Legal actions: candidates the referee accepts                        */
/* ------------------------------------------------------------------ */

/* Offer a candidate: listed when the referee accepts it. */
static void offer(const slap_t *g, int seat, const slap_act_t *a, jw_t *out)
{
    if (slap_check(g, seat, a, NULL) == 0) act_write(out, a);
}

/* Every candidate action, in the canonical order: plays, turns, moves, slaps. */
void slap_legal(const game_t *base, int seat, jw_t *out)
{
    const slap_t *g = (const slap_t *)base;
    if (g->phase != SLAP_PLAY && g->phase != SLAP_RACE) return;
    if (seat < 0 || seat >= base->seats) return;
    int n = base->seats;
    slap_act_t a = {0};
    if (g->phase == SLAP_PLAY) {
        a.type = SLAP_ACT_PLAY;
        for (a.column = 0; a.column < SLAP_COLUMNS; a.column++)
            for (a.pile = 0; a.pile < n; a.pile++)
                offer(g, seat, &a, out);
        a.type = SLAP_ACT_TURN;
        a.pile = 0;
        for (a.column = 0; a.column < SLAP_COLUMNS; a.column++)
            offer(g, seat, &a, out);
        a.type = SLAP_ACT_MOVE;
        for (a.column = 0; a.column < SLAP_COLUMNS; a.column++)
            for (a.to = 0; a.to < SLAP_COLUMNS; a.to++)
                offer(g, seat, &a, out);
    }
    a = (slap_act_t){.type = SLAP_ACT_SLAP};
    for (a.pile = 0; a.pile < n; a.pile++)
        offer(g, seat, &a, out);
}

/*
 * The same answer as "legal(seat) is not empty", without trying every
 * candidate: it runs after every change, for every seat (the stall rule and
 * waiting()). Tests check that the two agree over random games.
 */
bool slap_can_act(const slap_t *g, int seat)
{
    if (seat < 0 || seat >= g->base.seats) return false;
    const slap_player_t *p = &g->p[seat];
    if (g->phase == SLAP_RACE) return seat != g->first && p->slapped < 0;
    if (g->phase != SLAP_PLAY) return false;
    bool some_empty = false, all_empty = true;
    for (int c = 0; c < SLAP_COLUMNS; c++) {
        some_empty |= p->col[c].n == 0;
        all_empty &= p->col[c].n == 0;
    }
    if (all_empty) return true; /* the first slap: every pile is free */
    for (int c = 0; c < SLAP_COLUMNS; c++) {
        const slap_column_t *col = &p->col[c];
        if (!col->n) continue;
        if (!col->up || (col->n >= 2 && some_empty)) return true; /* turn, move */
        for (int k = 0; k < g->base.seats; k++)
            if (g->pile[k].n &&
                slap_fits(col->cards[col->n - 1], g->pile[k].cards[g->pile[k].n - 1]))
                return true;
    }
    return false;
}
