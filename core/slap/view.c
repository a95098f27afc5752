/*
 * view.c — what each seat may see of a slap table (the ONLY route by which a
 * state reaches a client), the full dump, resampling of hidden cards, the
 * audit of invariants, and the test constructors.
 *
 * Hidden from everyone, owners included: the draw piles, the face-down cards
 * of the columns, the leftovers of the deal and the boxed cards (only their
 * counts are shown). Public: the face-up top of each column, every discard
 * pile's top card and size, who slapped what, and the events. A player has no
 * private cards, so "hand" is always empty.
 */
#include <stdlib.h>
#include <string.h>

#include "core/slap/internal.h"
#include "include/tapis_alloc.h"

static const char *const phase_names[] = {"setup", "play", "race", "over"};

static json_t *cards_json(const slap_card_t *cards, int n)
{
    return game_cards_json(cards, n, slap_card_name);
}

static void write_time(jw_t *w, const char *key, int64_t t)
{
    if (t == SLAP_UNSET)
        jw_null(w, key);
    else
        jw_int(w, key, (json_int_t)t);
}

/* The top card of a stack if it is shown, else null. */
static void write_top(jw_t *w, const char *key, const slap_card_t *cards, int n, bool shown)
{
    if (n > 0 && shown)
        jw_str(w, key, slap_card_name(cards[n - 1]));
    else
        jw_null(w, key);
}

/* What everyone sees of seat s (game_write_players()). */
static void write_player(const game_t *base, int s, jw_t *w)
{
    const slap_t *g = (const slap_t *)base;
    const slap_player_t *p = &g->p[s];
    jw_int(w, "draw", p->ndraw);
    jw_arr(w, "sizes");
    for (int c = 0; c < SLAP_COLUMNS; c++)
        jw_int(w, NULL, p->col[c].n);
    jw_end(w);
    jw_arr(w, "tops");
    for (int c = 0; c < SLAP_COLUMNS; c++)
        write_top(w, NULL, p->col[c].cards, p->col[c].n, p->col[c].up);
    jw_end(w);
    jw_int(w, "cards", slap_cards_held(g, s));
    game_write_seat(w, "slapped", p->slapped);
}

/* The public part of the table: identical for every viewer. */
void slap_view_public(const game_t *base, jw_t *w)
{
    const slap_t *g = (const slap_t *)base;
    jw_str(w, "game", "slap");
    jw_int(w, "round", g->round);
    jw_int(w, "max_rounds", g->max_rounds);
    jw_str(w, "phase", phase_names[g->phase]);
    jw_int(w, "now", (json_int_t)g->now);
    write_time(w, "go_at", g->go_at);
    write_time(w, "stall_at", g->stall_at);
    jw_int(w, "stalls", g->stalls);
    jw_int(w, "max_stalls", g->max_stalls);
    game_write_seat(w, "first", g->first);
    jw_arr(w, "piles");
    for (int s = 0; s < g->base.seats; s++) {
        const slap_pile_t *k = &g->pile[s];
        jw_obj(w, NULL);
        jw_int(w, "pile", s);
        write_top(w, "top", k->cards, k->n, true);
        jw_int(w, "cards", k->n);
        game_write_seat(w, "taken_by", k->taken_by);
        jw_bool(w, "boxed", g->first >= 0 && g->p[g->first].slapped == s);
        jw_end(w);
    }
    jw_end(w);
    game_write_players(base, w, write_player);
    jw_int(w, "box", g->nbox);
    jw_int(w, "out", g->nout);
    /* The events (a game_log_t) are kept as their text: a view copies it. */
    game_write_log(w, "events", &g->events);
    game_write_result(base, w);
}

/* What only `seat` sees (game_write_own() writes "seat" before and "legal" after). */
void slap_view_seat(const game_t *base, int seat, jw_t *w)
{
    (void)base;
    (void)seat;
    jw_arr(w, "hand"); /* no card is private to its owner */
    jw_end(w);
}

/* ------------------------------------------------------------------ */
/* Dump: the whole state                                                */
/* ------------------------------------------------------------------ */

void slap_dump(const game_t *base, json_t *d)
{
    const slap_t *g = (const slap_t *)base;
    json_t *draws = json_array(), *cols = json_array(), *piles = json_array();
    for (int s = 0; s < base->seats; s++) {
        const slap_player_t *p = &g->p[s];
        json_array_append_new(draws, cards_json(p->draw, p->ndraw));
        json_t *c = json_array();
        for (int i = 0; i < SLAP_COLUMNS; i++)
            json_array_append_new(c, json_pack("{s:o, s:b}", "cards",
                                               cards_json(p->col[i].cards, p->col[i].n), "up",
                                               p->col[i].up));
        json_array_append_new(cols, c);
        json_array_append_new(piles, cards_json(g->pile[s].cards, g->pile[s].n));
    }
    json_object_set_new(d, "draws", draws);
    json_object_set_new(d, "all_columns", cols);
    json_object_set_new(d, "all_piles", piles);
    json_object_set_new(d, "boxed", cards_json(g->box, g->nbox));
    json_object_set_new(d, "leftovers", cards_json(g->out, g->nout));
    json_object_set_new(d, "winners", json_integer(g->winners));
    json_object_set_new(d, "rng", game_rng_json(&g->rng));
    json_object_set_new(d, "options",
                        json_pack("{s:i, s:i, s:i, s:i}", "go_ms", g->go_ms, "stall_ms",
                                  g->stall_ms, "max_stalls", g->max_stalls, "max_rounds",
                                  g->max_rounds));
}

/* ------------------------------------------------------------------ */
/* Resample: redraw what `seat` cannot see                              */
/* ------------------------------------------------------------------ */

/*
 * Face-down cards are hidden from every seat, their owner's too, so the same
 * redraw serves every viewer: the draw piles, the face-down column cards and
 * the leftovers are pooled, shuffled and dealt back into the same places.
 * (The boxed cards stay: they were face up when boxed.)
 */
game_t *slap_resample(const game_t *base, int seat, uint64_t seed)
{
    (void)seat;
    slap_t *g = (slap_t *)game_copy(base); /* the events: shared, never changed once made */
    if (!g) return NULL;
    slap_card_t pool[SLAP_DECK];
    int n = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            rng_t r;
            rng_seed(&r, seed);
            rng_shuffle_u8(&r, pool, n);
            n = 0;
        }
        for (int s = 0; s < base->seats; s++) {
            slap_player_t *p = &g->p[s];
            for (int i = 0; i < p->ndraw; i++) {
                if (pass == 0)
                    pool[n++] = p->draw[i];
                else
                    p->draw[i] = pool[n++];
            }
            for (int c = 0; c < SLAP_COLUMNS; c++) {
                slap_column_t *col = &p->col[c];
                int hidden = col->n - (col->up ? 1 : 0);
                for (int i = 0; i < hidden; i++) {
                    if (pass == 0)
                        pool[n++] = col->cards[i];
                    else
                        col->cards[i] = pool[n++];
                }
            }
        }
        for (int i = 0; i < g->nout; i++) {
            if (pass == 0)
                pool[n++] = g->out[i];
            else
                g->out[i] = pool[n++];
        }
    }
    return &g->base;
}

/* ------------------------------------------------------------------ */
/* Audit                                                                */
/* ------------------------------------------------------------------ */

int slap_audit(const game_t *base, game_error_t *err)
{
    const slap_t *g = (const slap_t *)base;
    int count[SLAP_KINDS] = {0}, n = base->seats;
    for (int s = 0; s < n; s++) {
        const slap_player_t *p = &g->p[s];
        game_count_cards(count, p->draw, p->ndraw);
        for (int c = 0; c < SLAP_COLUMNS; c++) {
            const slap_column_t *col = &p->col[c];
            if (col->n < 0 || col->n > SLAP_COLUMN_MAX)
                return game_fail(err, "bad_column", "seat %d column %d has %d cards", s, c, col->n);
            if (g->phase == SLAP_OVER && col->n)
                return game_fail(err, "bad_column", "seat %d kept column %d at the end", s, c);
            game_count_cards(count, col->cards, col->n);
        }
        game_count_cards(count, g->pile[s].cards, g->pile[s].n);
        if (g->phase == SLAP_PLAY && g->pile[s].n == 0)
            return game_fail(err, "empty_pile", "pile %d is empty during play", s);
        if (g->phase == SLAP_SETUP && g->pile[s].n)
            return game_fail(err, "bad_pile", "pile %d has cards before the go", s);
        int k = g->p[s].slapped;
        if (k >= 0 && (k >= n || g->pile[k].taken_by != s))
            return game_fail(err, "bad_slap", "seat %d slapped pile %d, not marked so", s, k);
    }
    game_count_cards(count, g->box, g->nbox);
    game_count_cards(count, g->out, g->nout);
    for (int c = 0; c < SLAP_KINDS; c++)
        if (count[c] != SLAP_COPIES)
            return game_fail(err, "cards_lost", "%d %s in the game, not %d", count[c],
                             slap_card_name((slap_card_t)c), SLAP_COPIES);
    if ((g->phase == SLAP_RACE) != (g->first >= 0 && g->phase != SLAP_OVER))
        return game_fail(err, "bad_phase", "a race without a first slap, or the reverse");
    if (g->phase == SLAP_PLAY && g->stall_at == SLAP_UNSET) {
        bool any = false;
        for (int s = 0; s < n && !any; s++)
            any = slap_can_act(g, s);
        if (!any) return game_fail(err, "no_stall", "nobody can play and no stall is due");
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Test constructors                                                    */
/* ------------------------------------------------------------------ */

/* Take a card of kind c from the draw piles (`seat`'s first) or the leftovers. */
static int take_card(slap_t *g, int seat, slap_card_t c)
{
    if (seat >= 0 && game_take_card(g->p[seat].draw, &g->p[seat].ndraw, c)) return 0;
    for (int s = 0; s < g->base.seats; s++)
        if (s != seat && game_take_card(g->p[s].draw, &g->p[s].ndraw, c)) return 0;
    return game_take_card(g->out, &g->nout, c) ? 0 : -1;
}

static void under(slap_player_t *p, const slap_card_t *cards, int n)
{
    memmove(&p->draw[n], &p->draw[0], (size_t)p->ndraw);
    memcpy(p->draw, cards, (size_t)n);
    p->ndraw += n;
}

/*
 * Replace the stack cards[0..*n-1] (a column or a pile of `seat`'s) with the
 * named cards (at most max), taken from the draw piles, `seat`'s first: the
 * old ones go under its draw pile. The card count, or -1.
 */
static int restack(slap_t *g, int seat, slap_card_t *cards, int *n, const char *names, int max)
{
    int want[SLAP_DECK], nwant = game_parse_cards(names, slap_card_parse, want, max);
    if (nwant < 0) return -1;
    under(&g->p[seat], cards, *n);
    *n = 0;
    for (int i = 0; i < nwant; i++) {
        if (take_card(g, seat, (slap_card_t)want[i])) return -1;
        cards[(*n)++] = (slap_card_t)want[i];
    }
    return nwant;
}

int slap_set_column(slap_t *g, int seat, int col, const char *names, bool up)
{
    slap_column_t *c = &g->p[seat].col[col];
    int n = restack(g, seat, c->cards, &c->n, names, SLAP_COLUMN_MAX);
    if (n < 0) return -1;
    c->up = up && n > 0;
    return 0;
}

int slap_set_pile(slap_t *g, int k, const char *names)
{
    slap_pile_t *pile = &g->pile[k];
    return restack(g, k, pile->cards, &pile->n, names, SLAP_DECK) < 0 ? -1 : 0;
}

int slap_set_draw(slap_t *g, int seat, const char *names)
{
    int want[SLAP_DECK], n = game_parse_cards(names, slap_card_parse, want, SLAP_DECK);
    if (n < 0) return -1;
    slap_player_t *p = &g->p[seat];
    slap_card_t parked[SLAP_DECK];
    int nparked = p->ndraw;
    memcpy(parked, p->draw, (size_t)p->ndraw);
    p->ndraw = 0;
    for (int i = 0; i < n; i++) {
        slap_card_t c = (slap_card_t)want[i];
        if (!game_take_card(parked, &nparked, c) && take_card(g, -1, c)) return -1;
        p->draw[p->ndraw++] = c;
    }
    /* What is left goes out of play (counted as leftovers by the audit). */
    memcpy(&g->out[g->nout], parked, (size_t)nparked);
    g->nout += nparked;
    return 0;
}
