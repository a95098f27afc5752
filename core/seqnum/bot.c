/*
 * bot.c — the seqnum bot: a pure function of one seat's view (never the
 * state). The server's built-in bots and tapis-bot both call it.
 *
 * "random" is the kit's (a uniformly drawn legal action). "greedy" draws as soon as
 * it owes a draw, trades a dead card, then plays the card and cell that score
 * best: every line of five through the cell that holds no opponent chip
 * counts by how many of its own chips (or free corners) it already has (a
 * completed line counts most), plus how much the cell blocks an opponent's
 * line. Plus cards pay a fee, so they are kept for a good cell; a Minus
 * removes the opponent chip whose lines threaten most, when the threat is
 * worth the card. seqnum_greedy_act() makes the same choice from the state,
 * for the search's playouts (core/seqnum/search.c).
 */
#include <string.h>

#include "core/seqnum/internal.h"
#include "core/search.h"

static const int own_weight[5] = {1, 4, 16, 80, 100000};
static const int block_weight[5] = {0, 2, 10, 70, 8000};
#define PLUS_FEE 60
#define MINUS_FEE 120

typedef struct board {
    int chip[SEQNUM_CELLS];
} board_t;

static bool corner(int c)
{
    return c == 0 || c == 9 || c == 90 || c == 99;
}

/*
 * Lines of five through cell c holding only `team`'s chips and corners
 * (cell c itself aside): sum of weight[how many they hold].
 */
static int lines(const board_t *b, int c, int team, const int *weight)
{
    static const int dirs[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
    int r0 = c / SEQNUM_SIDE, c0 = c % SEQNUM_SIDE, total = 0;
    for (int d = 0; d < 4; d++)
        for (int back = 0; back < 5; back++) {
            int held = 0, ok = 1;
            for (int i = 0; i < 5 && ok; i++) {
                int r = r0 + (i - back) * dirs[d][0], col = c0 + (i - back) * dirs[d][1];
                if (r < 0 || r >= SEQNUM_SIDE || col < 0 || col >= SEQNUM_SIDE) {
                    ok = 0;
                    break;
                }
                int x = r * SEQNUM_SIDE + col;
                if (x == c) continue;
                if (corner(x) || b->chip[x] == team)
                    held++;
                else if (b->chip[x] != SEQNUM_NO_CHIP)
                    ok = 0;
            }
            if (ok) total += weight[held];
        }
    return total;
}

static int place_value(const board_t *b, int c, int team, int nteams)
{
    int v = lines(b, c, team, own_weight);
    for (int t = 0; t < nteams; t++)
        if (t != team) v += lines(b, c, t, block_weight);
    return v;
}

/* Greedy's score of playing card on cell c. */
static long play_value(const board_t *b, int card, int c, int team, int nteams)
{
    if (card == SEQNUM_CARD_MINUS) return lines(b, c, b->chip[c], block_weight) - MINUS_FEE;
    return place_value(b, c, team, nteams) - (card == SEQNUM_CARD_PLUS ? PLUS_FEE : 0);
}

json_t *seqnum_greedy(const json_t *view, const json_t *legal, const char *strategy, rng_t *rng)
{
    (void)strategy;
    (void)rng;
    board_t b;
    const json_t *chips = json_object_get(view, "chips");
    for (int c = 0; c < SEQNUM_CELLS; c++) {
        json_t *x = json_array_get(chips, (size_t)c);
        b.chip[c] = x ? (int)json_integer_value(x) : SEQNUM_NO_CHIP;
    }
    int team = (int)json_integer_value(json_object_get(view, "team"));
    int nteams = (int)json_integer_value(json_object_get(view, "teams"));
    size_t i;
    json_t *a, *best = NULL, *pass = NULL;
    long best_value = 0;
    json_array_foreach(legal, i, a)
    {
        const char *t = json_string_value(json_object_get(a, "type"));
        if (strcmp(t, "draw") == 0 || strcmp(t, "trade") == 0) return json_deep_copy(a);
        if (strcmp(t, "pass") == 0) pass = a;
        if (strcmp(t, "play") != 0) continue;
        int card = seqnum_card_parse(json_string_value(json_object_get(a, "card")));
        int c = (int)json_integer_value(json_object_get(a, "cell"));
        if (c < 0 || c >= SEQNUM_CELLS) continue;
        long v = play_value(&b, card, c, team, nteams);
        if (!best || v > best_value) {
            best = a;
            best_value = v;
        }
    }
    a = best ? best : pass;
    return a ? json_deep_copy(a) : NULL;
}

/* The best play so far of seqnum_greedy_act(). */
typedef struct pick {
    const seqnum_t *g;
    board_t b;
    int team;
    seqnum_act_t best;
    long value;
    bool found;
} pick_t;

static bool pick_play(const seqnum_act_t *a, void *ctx)
{
    pick_t *p = ctx;
    long v = play_value(&p->b, a->card, a->cell, p->team, p->g->nteams);
    if (!p->found || v > p->value) {
        p->best = *a;
        p->value = v;
        p->found = true;
    }
    return false;
}

void seqnum_greedy_act(const seqnum_t *g, int seat, seqnum_act_t *a)
{
    const seqnum_player_t *me = &g->p[seat];
    *a = (seqnum_act_t){.type = SEQNUM_ACT_DRAW, .card = -1, .cell = -1};
    if (me->owe >= 0) return;
    a->type = SEQNUM_ACT_TRADE;
    for (int i = 0; i < me->nhand && !g->traded; i++) {
        a->card = me->hand[i];
        if (seqnum_dead(g, a->card)) return;
    }
    pick_t p = {.g = g, .team = seqnum_team(g, seat)};
    for (int c = 0; c < SEQNUM_CELLS; c++)
        p.b.chip[c] = g->chip[c];
    seqnum_each_play(g, seat, pick_play, &p);
    *a = p.found ? p.best : (seqnum_act_t){.type = SEQNUM_ACT_PASS, .card = -1, .cell = -1};
}
