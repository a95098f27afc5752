/*
 * aspoint3.c — the rules of As.point3: the deal, the starter's blind swap, the
 * other player's pick (and challenge), the scoring of a deal, the 210 rule,
 * the end of a round ("manche"), of a pack (a round of its own when the packs
 * variant counts by manche) and of the game. The view, dump, resample and
 * audit live in view.c; the card values in cards.c.
 *
 * Every action goes through one path: parse (wire form to ap3_act_t), check
 * (the rules: refuse with a stable code and change nothing), then run.
 * legal() lists the candidates that check() accepts.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/aspoint3/internal.h"
#include "include/tapis_alloc.h"

/* ------------------------------------------------------------------ */
/* Deck and deal                                                        */
/* ------------------------------------------------------------------ */

static void sort2(ap3_card_t *h)
{
    if (h[0] > h[1]) {
        ap3_card_t t = h[0];
        h[0] = h[1];
        h[1] = t;
    }
}

/* Every card back into the stock, shuffled: a new pack. Only between deals. */
static void shuffle_all(ap3_t *g)
{
    for (int c = 0; c < AP3_DECK; c++)
        g->stock[c] = (ap3_card_t)c;
    g->nstock = AP3_DECK;
    g->ndiscard = 0;
    rng_shuffle_u8(&g->rng, g->stock, g->nstock);
    g->deal_in_pack = 0;
    g->pack++;
}

static ap3_card_t pop(ap3_t *g)
{
    return g->stock[--g->nstock];
}

/* Deal 2 hidden cards to each player (the other player first, one at a time),
 * then the face-down and the face-up centre cards. The starter alternates. */
static void start_deal(ap3_t *g)
{
    if (g->nstock < 6) shuffle_all(g);
    g->deal++;
    g->deal_in_pack++;
    g->starter = (g->deal - 1) % 2;
    int other = 1 - g->starter;
    for (int i = 0; i < 2; i++) {
        g->hand[other][i] = pop(g);
        g->hand[g->starter][i] = pop(g);
    }
    sort2(g->hand[0]);
    sort2(g->hand[1]);
    g->down = pop(g);
    g->up = pop(g);
    g->swapped_out = AP3_NONE;
    g->phase = AP3_SWAP;
}

static void start_round(ap3_t *g)
{
    g->round++;
    g->score[0] = g->score[1] = 0;
    g->bonus_by = -1;
}

int ap3_turn(const ap3_t *g)
{
    switch (g->phase) {
    case AP3_SWAP: return g->starter;
    case AP3_PICK: return 1 - g->starter;
    default: return -1;
    }
}

const char *ap3_pack_scoring_name(const ap3_t *g)
{
    return g->pack_scoring == AP3_PACK_MANCHE ? "manche" : "total";
}

/* ------------------------------------------------------------------ */
/* Checking an action                                                   */
/* ------------------------------------------------------------------ */

int ap3_check(const ap3_t *g, int seat, const ap3_act_t *a, game_error_t *err)
{
    if (g->phase == AP3_OVER) return game_fail(err, TAPIS_E_GAME_OVER, "the game is over");
    if (seat < 0 || seat >= g->base.seats)
        return game_fail(err, TAPIS_E_NOT_SEATED, "only seated players act");
    int turn = ap3_turn(g);
    if (seat != turn)
        return game_fail(err, TAPIS_E_NOT_YOUR_TURN, "it is seat %d's turn, not yours", turn);
    bool pick = a->type == AP3_ACT_PICK;
    if (pick != (g->phase == AP3_PICK))
        return game_fail(err, "wrong_step",
                         g->phase == AP3_SWAP
                             ? "you start this deal: swap a card with the face-down one, or keep"
                             : "take the face-down card or the face-up card");
    if (a->type == AP3_ACT_SWAP && g->hand[seat][0] != a->card && g->hand[seat][1] != a->card)
        return game_fail(err, "not_in_hand", "you do not hold %s",
                         ap3_card_name((ap3_card_t)a->card));
    return 0;
}

/* ------------------------------------------------------------------ */
/* Scoring a deal                                                       */
/* ------------------------------------------------------------------ */

static void end_game(ap3_t *g, const int *by)
{
    g->phase = AP3_OVER;
    g->winners = by[0] > by[1] ? 1 : by[1] > by[0] ? 2 : 3;
}

/*
 * The 210 rule: the first player to reach 210 in a round gives the opponent 30
 * points if the opponent has under 200 at that moment. Spent once someone has
 * reached 210 (bonus or not). Two players reaching it in one deal: neither is
 * first, and neither is under 200.
 */
static json_t *bonus_rule(ap3_t *g)
{
    if (g->bonus_by >= 0) return json_null();
    bool r0 = g->score[0] >= AP3_BONUS_AT, r1 = g->score[1] >= AP3_BONUS_AT;
    if (!r0 && !r1) return json_null();
    if (r0 && r1) {
        g->bonus_by = 2; /* spent, by both */
        return json_null();
    }
    int first = r0 ? 0 : 1, other = 1 - first;
    g->bonus_by = first;
    if (g->score[other] >= AP3_BONUS_UNDER) return json_null();
    g->score[other] += AP3_BONUS;
    return json_pack("{s:i, s:i, s:i}", "from", first, "to", other, "points", AP3_BONUS);
}

/*
 * A round is over: `winner` (or -1, a drawn round) scores `points`. The entry
 * goes to the history and to the reveal. The history is a game_log_t: views
 * and results take its entries as they are, and never see later rounds.
 */
static void end_round(ap3_t *g, json_t *reveal, int winner, int points)
{
    if (winner < 0) points = 0;
    if (winner >= 0) g->total[winner] += points;
    json_t *r = json_pack("{s:i, s:o, s:[i,i], s:i, s:[i,i]}", "round", g->round, "winner",
                          winner >= 0 ? json_integer(winner) : json_null(), "scores", g->score[0],
                          g->score[1], "points", points, "totals", g->total[0], g->total[1]);
    game_log_append(&g->history, json_incref(r));
    json_object_set_new(reveal, "round_over", r);
}

/* The seat with more (by[0] against by[1]), or -1 when they are equal. */
static int more(const int *by)
{
    return by[0] > by[1] ? 0 : by[1] > by[0] ? 1 : -1;
}

/* The first total over the target wins the round and scores the difference. */
static bool round_rule(ap3_t *g, json_t *reveal)
{
    bool o0 = g->score[0] > g->target, o1 = g->score[1] > g->target;
    if (!o0 && !o1) return false;
    end_round(g, reveal, more(g->score), abs(g->score[0] - g->score[1]));
    return true;
}

/*
 * The packs variant by manche, once a pack is used up: more deals won on it
 * wins it like a round (equal counts: a drawn pack). True when its winner has
 * now won `packs` packs: the game is over.
 */
static bool pack_rule(ap3_t *g, json_t *reveal)
{
    int winner = more(g->score);
    end_round(g, reveal, winner, 1);
    return winner >= 0 && g->total[winner] >= g->packs;
}

static void run_pick(ap3_t *g, bool up)
{
    int st = g->starter, pk = 1 - st;
    ap3_card_t cards[2][3];
    for (int s = 0; s < 2; s++)
        memcpy(cards[s], g->hand[s], 2);
    cards[pk][2] = up ? g->up : g->down;
    cards[st][2] = up ? g->down : g->up;
    int v[2] = {ap3_points(cards[0], 3), ap3_points(cards[1], 3)};
    int pts[2] = {v[0], v[1]}, winner;
    if (!up) {
        winner = more(v);
    } else if (v[pk] > v[st]) { /* a challenge won: the opponent scores nothing */
        winner = pk;
        pts[st] = 0;
    } else { /* lost (a tie too): the opponent adds the face-up card and 5 */
        winner = st;
        pts[st] += ap3_card_value(g->up) + AP3_CHALLENGE_EXTRA;
    }
    bool packs = g->packs > 0;
    if (packs) {
        pts[0] = winner == 0;
        pts[1] = winner == 1;
    }
    g->score[0] += pts[0];
    g->score[1] += pts[1];

    json_t *reveal = json_pack(
        "{s:i, s:i, s:i, s:i, s:b, s:s, s:b, s:o, s:o, s:[o,o], s:[i,i], s:[i,i], s:o}", "deal",
        g->deal, "round", g->round, "starter", st, "picker", pk, "swapped",
        g->swapped_out != AP3_NONE, "pick", up ? "up" : "down", "challenge", up, "up",
        ap3_card_json(g->up), "down", ap3_card_json(g->down), "cards", ap3_cards_json(cards[0], 3),
        ap3_cards_json(cards[1], 3), "values", v[0], v[1], "points", pts[0], pts[1], "winner",
        winner >= 0 ? json_integer(winner) : json_null());

    /* The six cards go to the discard pile; the hands and the centre are empty. */
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < 3; i++)
            g->discard[g->ndiscard++] = cards[s][i];
    memset(g->hand, AP3_NONE, sizeof g->hand);
    g->up = g->down = g->swapped_out = AP3_NONE;

    if (!packs) json_object_set_new(reveal, "bonus", bonus_rule(g));
    json_object_set_new(reveal, "scores", json_pack("[i,i]", g->score[0], g->score[1]));
    bool next = true;
    if (packs) {
        if (g->nstock >= 6) {
            /* the pack goes on */
        } else if (g->pack_scoring == AP3_PACK_MANCHE) {
            if (pack_rule(g, reveal)) {
                end_game(g, g->total);
                next = false;
            } else {
                start_round(g); /* the next deal opens a new pack */
            }
        } else if (g->pack >= g->packs) {
            end_game(g, g->score);
            next = false;
        }
    } else {
        if (round_rule(g, reveal)) {
            if (g->round >= g->rounds) {
                end_game(g, g->total);
                next = false;
            } else {
                start_round(g);
                shuffle_all(g); /* a new round, a new pack */
            }
        }
    }
    game_shared_set(&g->last_deal, reveal);
    if (next) start_deal(g);
}

void ap3_run(ap3_t *g, int seat, const ap3_act_t *a)
{
    switch (a->type) {
    case AP3_ACT_SWAP: {
        /* Blind: the face-down card joins the hand, the given card lies face down. */
        ap3_card_t *h = g->hand[seat];
        int i = h[0] == a->card ? 0 : 1;
        h[i] = g->down;
        g->down = (ap3_card_t)a->card;
        g->swapped_out = (ap3_card_t)a->card;
        sort2(h);
        g->phase = AP3_PICK;
        break;
    }
    case AP3_ACT_KEEP: g->phase = AP3_PICK; break;
    case AP3_ACT_PICK: run_pick(g, a->up); break;
    }
}

/* ------------------------------------------------------------------ */
/* The descriptor's functions                                           */
/* ------------------------------------------------------------------ */

/* Options: game_new() has checked them against this table. */
static const char *const pack_scoring_choices[] = {"manche", "total", NULL};
static const game_option_t ap3_options[] = {
    GAME_OPTION_INT_AT("rounds", 3, 1, AP3_MAX_ROUNDS, ap3_t, rounds,
                       "rounds (\"manches\") of the points game (the text: 3 or 5)"),
    GAME_OPTION_INT_AT("target", 350, 0, 10000, ap3_t, target,
                       "a round is won by the first total over this"),
    GAME_OPTION_INT_AT("packs", 0, 0, 20, ap3_t, packs,
                       "0: the points game; N > 0: the packs variant, one point per deal won"),
    GAME_OPTION_STRING_AT("pack_scoring", "manche", pack_scoring_choices, ap3_t, pack_scoring,
                          "the packs variant's count: \"manche\", the first to win N packs wins; "
                          "\"total\", N packs are played, more deals won wins"),
    GAME_OPTION_END,
};

static int ap3_create(game_t *base, const json_t *o, const rng_t *rng, game_error_t *err)
{
    ap3_t *g = (ap3_t *)base;
    (void)o, (void)err; /* every option is stored by the table; nothing is refused */
    g->rng = *rng;
    game_log_init(&g->history, 0);
    start_round(g);
    start_deal(g);
    return 0;
}

static int ap3_apply(game_t *base, int seat, const json_t *action, int64_t now, game_error_t *err)
{
    (void)now; /* no timers (no tick): the server's turn timer plays default_action() */
    ap3_t *g = (ap3_t *)base;
    ap3_act_t a;
    if (ap3_parse(action, &a, err)) return -1;
    if (ap3_check(g, seat, &a, err)) return -1;
    ap3_run(g, seat, &a);
    return 0;
}

static unsigned ap3_waiting(const game_t *base)
{
    int t = ap3_turn((const ap3_t *)base);
    return t < 0 ? 0u : 1u << t;
}

/* A seat out of time keeps its cards, or takes the face-down card (no challenge). */
static json_t *ap3_default_action(const game_t *base, int seat)
{
    const ap3_t *g = (const ap3_t *)base;
    if (seat != ap3_turn(g)) return NULL;
    ap3_act_t a = {
        .type = g->phase == AP3_SWAP ? AP3_ACT_KEEP : AP3_ACT_PICK, .card = -1, .up = false};
    unsigned long mark = tapis_alloc_failures();
    return game_json_checked(ap3_act_json(&a), mark);
}

static bool ap3_is_over(const game_t *base)
{
    return ((const ap3_t *)base)->phase == AP3_OVER;
}

static json_t *ap3_result(const game_t *base)
{
    const ap3_t *g = (const ap3_t *)base;
    unsigned long mark = tapis_alloc_failures();
    const int *by = g->packs && g->pack_scoring == AP3_PACK_TOTAL ? g->score : g->total;
    json_t *r = json_pack("{s:o, s:[i,i], s:s, s:i, s:i, s:o}", "winners",
                          game_winners_json((unsigned)g->winners, 2), "scores", by[0], by[1],
                          "mode", g->packs ? "packs" : "points", "rounds", g->round, "deals",
                          g->deal, "history", game_log_json(&g->history));
    if (g->packs) json_object_set_new(r, "pack_scoring", json_string(ap3_pack_scoring_name(g)));
    return game_json_checked(r, mark);
}

/* Bot levels and their pace (a person takes a second or two to look and swap). */
static const game_bot_level_t ap3_bot_levels[] = {
    GAME_BOT_LEVEL_NORMAL(800, 1600),
    GAME_BOT_LEVEL_EASY(1600, 3200, "normal wins 80% of games against it"),
    /* Not the kit's words: hard weighs every hidden deal of the points game (search.c). */
    {"hard", "hard", 800, 1600,
     "weighs each move over every deal the cards it cannot see allow; a little stronger than "
     "normal: wins 56% of games against it (the luck of the deal leaves little more)"},
    GAME_BOT_LEVEL_FAST(150, 400),
    GAME_BOT_LEVELS_AT_SERVER_PACE,
};

const game_desc_t aspoint3_desc = {
    .id = "aspoint3",
    .title = "As.point3",
    .min_seats = 2,
    .max_seats = 2,
    GAME_HOOKS(ap3),
    .default_action = ap3_default_action,
    .logs = {offsetof(ap3_t, history)},
    .shared = {offsetof(ap3_t, last_deal)},
};
