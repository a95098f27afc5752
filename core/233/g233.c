/*
 * g233.c — the rules of 233: the turn, the race for the discard, the end of
 * a round and of the game. The deal is in deal.c; the view, dump, resample
 * and audit in view.c; the points in score.c.
 *
 * Every action goes through one path: parse (wire form to g233_act_t), check (the
 * rules: refuse with a stable code and change nothing), then run. legal()
 * enumerates candidate actions and keeps those that check() accepts, so the
 * list and the referee can never disagree.
 *
 * Past 800 lines on purpose: checking and running an action use the same
 * static helpers (the discard, gifts, combinations); split, they would go to
 * internal.h, which every 233 file includes, for one file's sake.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/233/g233.h"
#include "core/233/internal.h"
#include "core/233/words.h"
#include "include/tapis_alloc.h"

/* ------------------------------------------------------------------ */
/* Seats, piles, events                                                 */
/* ------------------------------------------------------------------ */

int g233_next(const g233_t *g, int seat, int k)
{
    int n = g->base.seats;
    return (((seat + k * g->dir) % n) + n) % n;
}

void g233_event(g233_t *g, json_t *ev)
{
    game_log_append(&g->events, ev);
}

static void event_seat(g233_t *g, int seat, const char *did, int card)
{
    game_log_seat_event(&g->events, seat, did, card >= 0 ? "card" : NULL,
                        card >= 0 ? g233_card_name((g233_card_t)card) : NULL);
}

static int top_discard(const g233_t *g)
{
    return g->ndiscard ? g->discard[g->ndiscard - 1] : -1;
}

static bool is_gift(int c)
{
    return c == G233_CARD_GIFT_PLUS || c == G233_CARD_GIFT_MINUS;
}

/* ------------------------------------------------------------------ */
/* Combinations                                                         */
/* ------------------------------------------------------------------ */

g233_combo_t g233_combo(const g233_t *g, int seat, const g233_hand_t *h)
{
    const g233_player_t *p = &g->p[seat];
    return g233_score_combo(h, p->melds, p->nmelds, p->last_drawn);
}

/* Four identical number or symbol cards in hand must be laid. */
static bool holds_natural_square(const g233_hand_t *h)
{
    /* Words at 0, 8, 16 and 20 cover the kinds 0..27; a byte of 4 or more has a bit in 0xFC. */
    const uint64_t four_or_more = 0xFCFCFCFCFCFCFCFCull;
    return ((g233_word(h->n) | g233_word(h->n + 8) | g233_word(h->n + 16) |
             g233_word(h->n + G233_CARD_REVERSE - 8)) &
            four_or_more) != 0;
}

/*
 * Could `seat`, holding its hand plus card c, discard another card and hold a
 * combination (only a rainbow if `rainbow`), scored with `last` as its last draw?
 */
static bool combo_after_discard(const g233_t *g, int seat, g233_card_t c, int last, bool rainbow)
{
    const g233_player_t *p = &g->p[seat];
    g233_hand_t h = p->hand;
    h.n[c]++;
    return g233_score_combo_discards(&h, g233_hand_size(&h), p->melds, p->nmelds, last,
                                     ~((uint64_t)1 << c), rainbow) != 0;
}

/* Could seat, holding h plus card c, discard one card and hold a rainbow? */
static bool rainbow_with(const g233_t *g, int seat, g233_card_t c)
{
    return combo_after_discard(g, seat, c, c, true);
}

/* Does taking the top discard t complete a winning combination for seat (during
   the last draws, only a rainbow counts)? */
static bool completes_combo(const g233_t *g, int seat, g233_card_t t)
{
    return combo_after_discard(g, seat, t, -1, g->declarer >= 0);
}

/* ------------------------------------------------------------------ */
/* Checking an action                                                   */
/* ------------------------------------------------------------------ */

static bool in_hand(const g233_hand_t *h, const g233_card_t *cards, int n)
{
    g233_hand_t need = {{0}};
    for (int i = 0; i < n; i++)
        if (++need.n[cards[i]] > h->n[cards[i]]) return false;
    return true;
}

static int check_turn(const g233_t *g, int seat, g233_phase_t phase, bool pending_ok,
                      game_error_t *err)
{
    if (seat != g->turn)
        return game_fail(err, TAPIS_E_NOT_YOUR_TURN, "it is seat %d's turn, not yours", g->turn);
    if (g->phase != phase) {
        if (g->phase == G233_PH_GIFT)
            return game_fail(err, "must_place_gift", "place the gift you drew first");
        if (phase == G233_PH_DRAW)
            return game_fail(err, "must_discard",
                             "you have drawn: discard a card (or lay a square)");
        return game_fail(err, "must_draw", "draw a card first");
    }
    if (g->nclaims > 0 && phase == G233_PH_DRAW && !pending_ok)
        return game_fail(err, "claim_pending", "a claim on the discard is being settled");
    return 0;
}

/* The top discard may be taken by seat (in turn) or claimed (out of turn). */
static int check_discard_available(const g233_t *g, int seat, game_error_t *err)
{
    int t = top_discard(g);
    bool last_draws = g->declarer >= 0;
    if (t < 0 || (!g->open && !last_draws))
        return game_fail(err, TAPIS_E_TOO_LATE, "the discard is no longer available");
    if (t == G233_CARD_STOP) return game_fail(err, "cannot_take", "a stop cannot be kept");
    if (g->discarder == seat)
        return game_fail(err, "own_discard", "you cannot take back your own discard");
    for (int i = 0; i < g->nclaims; i++)
        if (g->claims[i].seat == seat)
            return game_fail(err, "already_claimed", "you already claimed this discard");
    return 0;
}

int g233_claim_gate(const g233_t *g, int seat, game_error_t *err)
{
    if (seat == g->turn)
        return game_fail(err, "use_take", "on your turn, take the discard with \"take\"");
    if (g->declarer >= 0)
        return game_fail(err, "round_ending", "the round is ending: no more claims");
    if (g->phase != G233_PH_DRAW)
        return game_fail(err, TAPIS_E_TOO_LATE, "the discard is no longer available");
    return check_discard_available(g, seat, err);
}

/*
 * The conditions on the top discard taken to meld (a claim out of turn, and
 * with option take = "claim" the turn player's take): the discard completes
 * a winning combination (`final`), or with the cards named from hand makes a
 * triple or square (a sequence with claim_sequences), leaving a card to discard.
 */
static int check_meld(const g233_t *g, int seat, const g233_act_t *a, game_error_t *err)
{
    g233_card_t t = (g233_card_t)top_discard(g);
    const g233_hand_t *h = &g->p[seat].hand;
    if (a->final) {
        if (!completes_combo(g, seat, t))
            return game_fail(err, "cannot_claim", "%s does not complete a winning combination",
                             g233_card_name(t));
        return 0;
    }
    if (!in_hand(h, a->cards, a->ncards))
        return game_fail(err, "not_in_hand", "you do not hold those cards");
    if (a->ncards == 1)
        return game_fail(err, "cannot_claim",
                         "a discard never makes a double during the round (claim final instead)");
    if (a->ncards == 2 && g233_hand_size(h) < 3)
        return game_fail(err, "cannot_claim", "you would have no card left to discard");
    g233_card_t meld[4];
    memcpy(meld, a->cards, (size_t)a->ncards);
    meld[a->ncards] = t;
    int n = a->ncards + 1;
    if ((n == 3 && g233_group_check(G233_GROUP_TRIPLE, meld, n)) ||
        (n == 4 && g233_group_check(G233_GROUP_SQUARE, meld, n)) ||
        (n == 3 && g->claim_sequences && g233_group_check(G233_GROUP_SEQUENCE, meld, n)))
        return 0;
    return game_fail(err, "cannot_claim",
                     g->claim_sequences ? "a claimed discard must make a triple, sequence or square"
                                        : "a claimed discard must make a triple or a square");
}

static int check_claim(const g233_t *g, int seat, const g233_act_t *a, game_error_t *err)
{
    if (g233_claim_gate(g, seat, err)) return -1;
    return check_meld(g, seat, a, err);
}

/* The turn player takes the top discard: as a plain draw, or on a claim's conditions. */
static int check_take(const g233_t *g, int seat, const g233_act_t *a, game_error_t *err)
{
    if (check_turn(g, seat, G233_PH_DRAW, true, err) || check_discard_available(g, seat, err))
        return -1;
    if (g->take_draw) {
        if (a->ncards || a->final)
            return game_fail(err, TAPIS_E_BAD_ACTION,
                             "with option take \"draw\", take the discard with \"take\" alone");
        return 0;
    }
    if (!a->ncards && !a->final)
        return game_fail(err, "cannot_take",
                         "the discard is taken only to lay at once the triple or square it makes "
                         "(take CARDS) or to complete a winning combination (take final)");
    return check_meld(g, seat, a, err);
}

_Static_assert(G233_KINDS <= 64, "a discard memo holds a bit per card kind");

/*
 * Bit c: discarding c (held, not a gift) leaves seat a combination a discard
 * may declare: any before a declaration, only a rainbow during the last draws.
 */
static uint64_t discards_that_win(const g233_t *g, int seat)
{
    const g233_player_t *p = &g->p[seat];
    const uint64_t gifts = (uint64_t)1 << G233_CARD_GIFT_PLUS | (uint64_t)1 << G233_CARD_GIFT_MINUS;
    return g233_score_combo_discards(&p->hand, g233_hand_size(&p->hand), p->melds, p->nmelds,
                                     p->last_drawn, ~gifts, g->declarer >= 0);
}

static int check_discard(const g233_t *g, int seat, const g233_act_t *a, game_error_t *err,
                         g233_discard_memo_t *memo)
{
    if (seat != g->turn)
        return game_fail(err, TAPIS_E_NOT_YOUR_TURN, "it is seat %d's turn, not yours", g->turn);
    const g233_hand_t *h = &g->p[seat].hand;
    if (g->phase == G233_PH_GIFT && !a->declare)
        return game_fail(err, "must_place_gift", "place the gift you drew first");
    if (g->phase != G233_PH_DISCARD && g->phase != G233_PH_GIFT)
        return game_fail(err, "must_draw", "draw a card first");
    if (!h->n[a->card])
        return game_fail(err, "not_in_hand", "you hold no %s", g233_card_name(a->card));
    if (is_gift(a->card))
        return game_fail(err, "cannot_discard_gift", "a gift is placed face up, not discarded");
    if (g->must_win && !a->declare)
        return game_fail(err, "must_declare",
                         "you claimed the discard to win: discard and declare");
    if (holds_natural_square(h) && !g->must_win)
        return game_fail(err, "must_lay_square", "four identical cards must be laid first");
    g233_discard_memo_t mine = {0}; /* without the caller's: one for this check */
    if (!memo) memo = &mine;
    if (!memo->known) {
        memo->wins = discards_that_win(g, seat);
        memo->known = true;
    }
    bool wins = memo->wins >> a->card & 1;
    /* declare=must: "le premier à obtenir une combinaison gagnante dévoile ses
       cartes": when a discard can leave one, only such a discard is played (and
       the game declares it); a stop drawn last may be a rainbow's special card. */
    bool must = g->declare_must && g->phase == G233_PH_DISCARD;
    if (must && !wins && memo->wins != 0)
        return game_fail(err, "must_declare",
                         "another discard leaves you a winning combination: discard so as to keep "
                         "it, and it is declared");
    if (h->n[G233_CARD_STOP] && a->card != G233_CARD_STOP && !a->declare && !(must && wins))
        return game_fail(err, "must_discard_stop", "a stop cannot be kept: discard it");
    if (a->declare && !wins)
        return game_fail(err, "no_combination", "those cards are not a winning combination");
    return 0;
}

/*
 * Before the dealer's first draw, every dealt -5 is given away, all of them at
 * once (RULES.md, "dealt -5s are given all at once"): their holders give them,
 * nobody else acts.
 */
static int check_placing(const g233_t *g, int seat, const g233_act_t *a, game_error_t *err)
{
    if (!g->p[seat].to_place)
        return game_fail(err, "deal_pending", "wait: the deal is not settled yet");
    if (a->type != G233_ACT_GIFT)
        return game_fail(err, "must_place_gift", "give the -5 gift you were dealt first");
    if (a->to < 0 || a->to >= g->base.seats || a->to == seat)
        return game_fail(err, "bad_target", "give the -5 gift to another seat (0..%d)",
                         g->base.seats - 1);
    return 0;
}

int g233_check(const g233_t *g, int seat, const g233_act_t *a, game_error_t *err)
{
    return g233_check_with(g, seat, a, err, NULL);
}

int g233_check_with(const g233_t *g, int seat, const g233_act_t *a, game_error_t *err,
                    g233_discard_memo_t *memo)
{
    if (g->phase == G233_PH_OVER) return game_fail(err, TAPIS_E_GAME_OVER, "the game is over");
    if (seat < 0 || seat >= g->base.seats)
        return game_fail(err, TAPIS_E_NOT_SEATED, "only seated players act");
    if (g233_placing(g)) return check_placing(g, seat, a, err);
    const g233_hand_t *h = &g->p[seat].hand;
    switch (a->type) {
    case G233_ACT_DRAW: return check_turn(g, seat, G233_PH_DRAW, false, err);
    case G233_ACT_TAKE: return check_take(g, seat, a, err);
    case G233_ACT_DECLARE:
        if (check_turn(g, seat, G233_PH_DRAW, false, err)) return -1;
        if (g->declarer >= 0)
            return game_fail(err, "round_ending", "seat %d has already declared", g->declarer);
        if (g233_combo(g, seat, h) == G233_COMBO_NONE)
            return game_fail(err, "no_combination", "your cards are not a winning combination");
        return 0;
    case G233_ACT_DISCARD: return check_discard(g, seat, a, err, memo);
    case G233_ACT_LAY:
        if (check_turn(g, seat, G233_PH_DISCARD, false, err)) return -1;
        if (g->must_win)
            return game_fail(err, "must_declare",
                             "you claimed the discard to win: discard and declare");
        if (!in_hand(h, a->cards, a->ncards))
            return game_fail(err, "not_in_hand", "you do not hold those cards");
        if (a->ncards != 4 || !g233_group_check(G233_GROUP_SQUARE, a->cards, 4))
            return game_fail(err, "not_a_square", "only four identical cards are laid");
        return 0;
    case G233_ACT_CLAIM: return check_claim(g, seat, a, err);
    case G233_ACT_GIFT:
        if (check_turn(g, seat, G233_PH_GIFT, false, err)) return -1;
        if (h->n[G233_CARD_GIFT_MINUS]) {
            if (a->to < 0 || a->to >= g->base.seats || a->to == seat)
                return game_fail(err, "bad_target", "give the -5 gift to another seat (0..%d)",
                                 g->base.seats - 1);
        } else if (a->to >= 0 && a->to != seat) {
            return game_fail(err, "bad_target", "a +5 gift is placed in front of you");
        }
        return 0;
    }
    return game_fail(err, TAPIS_E_UNKNOWN_ACTION, "unknown action");
}

/* ------------------------------------------------------------------ */
/* Running an action                                                    */
/* ------------------------------------------------------------------ */

static void end_round(g233_t *g, const char *reason);

static void next_turn(g233_t *g, int seat)
{
    g->turn = seat;
    g->phase = G233_PH_DRAW;
    g->drawn = 0;
    g->must_win = false;
}

/* After a declaration, each other player in turn draws one last card. */
static void next_last_draw(g233_t *g)
{
    for (int k = 1; k <= g->base.seats; k++) {
        int s = g233_next(g, g->turn, k);
        if (!g->p[s].last_done) {
            next_turn(g, s);
            return;
        }
    }
    end_round(g, "declared");
}

static void start_last_draws(g233_t *g, int seat, g233_combo_t c)
{
    g->declarer = seat;
    g->declared = c;
    for (int s = 0; s < g->base.seats; s++)
        g->p[s].last_done = (s == seat);
    g->turn = seat;
    json_t *ev =
        json_pack("{s:i, s:s, s:s}", "seat", seat, "did", "declare", "combo", g233_combo_name(c));
    g233_event(g, ev);
    next_last_draw(g);
}

/* Rebuild an empty draw pile, or end the round when the table has run too long. */
static bool refill(g233_t *g)
{
    if (g->ndraw > 0) return true;
    if (g->rebuilds >= g->max_rebuilds || g->ndiscard <= 1) {
        end_round(g, g->declarer >= 0 ? "declared" : "draw_pile_exhausted");
        return false;
    }
    g233_card_t top = g->discard[g->ndiscard - 1];
    memcpy(g->draw, g->discard, (size_t)(g->ndiscard - 1));
    g->ndraw = g->ndiscard - 1;
    rng_shuffle_u8(&g->rng, g->draw, g->ndraw);
    g->discard[0] = top;
    g->ndiscard = 1;
    g->rebuilds++;
    g233_event(g, json_pack("{s:s, s:i}", "did", "rebuild", "rebuilds", g->rebuilds));
    return true;
}

static void run_draw(g233_t *g, int seat)
{
    g233_player_t *p = &g->p[seat];
    if (!refill(g)) return;
    g233_card_t c = g->draw[--g->ndraw];
    g->open = false;
    g->drawn++;
    p->last_drawn = c;
    if (is_gift(c)) {
        event_seat(g, seat, "draw", c); /* gifts are placed face up: everyone sees them */
        if (c == G233_CARD_GIFT_PLUS && !rainbow_with(g, seat, c)) {
            p->gifts_plus++;
            p->score += 5;
            return; /* and draws again */
        }
        p->hand.n[c]++;
        g->phase = G233_PH_GIFT;
        return;
    }
    event_seat(g, seat, "draw", -1);
    p->hand.n[c]++;
    g->phase = G233_PH_DISCARD;
}

static void run_gift(g233_t *g, int seat, int to)
{
    g233_player_t *p = &g->p[seat];
    if (p->to_place) { /* dealt: the turn does not move */
        p->to_place--;
        p->hand.n[G233_CARD_GIFT_MINUS]--;
        g->p[to].gifts_minus++;
        g->p[to].score -= 5;
        g233_event(g, json_pack("{s:i, s:s, s:s, s:i}", "seat", seat, "did", "gift", "card",
                                "gift-5", "to", to));
        return;
    }
    if (p->hand.n[G233_CARD_GIFT_MINUS]) {
        p->hand.n[G233_CARD_GIFT_MINUS]--;
        g->p[to].gifts_minus++;
        g->p[to].score -= 5;
        g233_event(g, json_pack("{s:i, s:s, s:s, s:i}", "seat", seat, "did", "gift", "card",
                                "gift-5", "to", to));
    } else {
        p->hand.n[G233_CARD_GIFT_PLUS]--;
        p->gifts_plus++;
        p->score += 5;
        g233_event(g, json_pack("{s:i, s:s, s:s, s:i}", "seat", seat, "did", "gift", "card",
                                "gift+5", "to", seat));
    }
    g->phase = G233_PH_DRAW;
}

static void run_discard(g233_t *g, int seat, g233_card_t c, bool declare)
{
    g233_player_t *p = &g->p[seat];
    p->hand.n[c]--;
    g->discard[g->ndiscard++] = c;
    g->discarder = seat;
    event_seat(g, seat, "discard", c);
    if (g->declarer >= 0) { /* a last draw: no effects, no claims */
        p->last_done = true;
        g->open = true;
        next_last_draw(g);
        return;
    }
    /* Option declare=must: cards that form a winning combination at the end of
     * a turn are declared (RULES.md, "Declaring"). */
    g233_combo_t combo =
        declare || g->declare_must ? g233_combo(g, seat, &p->hand) : G233_COMBO_NONE;
    if (combo != G233_COMBO_NONE) {
        g->open = false;
        start_last_draws(g, seat, combo);
        return;
    }
    g->open = true;
    int next;
    if (c == G233_CARD_REVERSE) {
        g->dir = -g->dir;
        next = g->base.seats == 2 ? seat : g233_next(g, seat, 1);
    } else if (c == G233_CARD_STOP) {
        next = g->base.seats == 2 ? seat : g233_next(g, seat, 2);
    } else {
        next = g233_next(g, seat, 1);
    }
    next_turn(g, next);
}

static void run_lay(g233_t *g, int seat, const g233_card_t *cards)
{
    g233_player_t *p = &g->p[seat];
    g233_group_t *m = &p->melds[p->nmelds++];
    m->kind = G233_GROUP_SQUARE;
    m->n = 4;
    for (int i = 0; i < 4; i++) {
        p->hand.n[cards[i]]--;
        m->cards[i] = cards[i];
    }
    p->squares++;
    g->phase = G233_PH_DRAW; /* a square takes the place of the discard: play again */
    json_t *ev = game_seat_event(seat, "lay");
    json_object_set_new(ev, "cards", g233_cards_json(cards, 4));
    g233_event(g, ev);
}

/* Settle the race for the discard: lowest score wins, ties to the earliest. */
static void resolve_claims(g233_t *g)
{
    const g233_claim_t *w = &g->claims[0];
    for (int i = 1; i < g->nclaims; i++)
        if (g->p[g->claims[i].seat].score < g->p[w->seat].score) w = &g->claims[i];
    g233_claim_t win = *w;
    int contenders = g->nclaims;
    g->nclaims = 0;
    g233_card_t t = g->discard[--g->ndiscard];
    g233_player_t *p = &g->p[win.seat];
    g->open = false;
    json_t *ev =
        json_pack("{s:i, s:s, s:s, s:i}", "seat", win.seat, "did", win.take ? "take" : "claim",
                  "card", g233_card_name(t), "contenders", contenders);
    if (!win.take) next_turn(g, win.seat);
    g->drawn = 1;
    p->last_drawn = -1;
    if (win.kind == G233_CLAIM_MELD) {
        g233_group_t *m = &p->melds[p->nmelds++];
        *m = win.meld;
        for (int i = 0; i < m->n - 1; i++)
            p->hand.n[m->cards[i]]--;
        if (m->kind == G233_GROUP_SQUARE) {
            p->squares++;
            g->phase = G233_PH_DRAW; /* a square: play again */
        } else {
            g->phase = G233_PH_DISCARD;
        }
        json_object_set_new(ev, "meld", g233_cards_json(m->cards, m->n));
        g233_event(g, ev); /* complete: a logged event never changes */
        return;
    }
    g233_event(g, ev);
    p->hand.n[t]++;
    g->phase = G233_PH_DISCARD;
    g->must_win = (win.kind == G233_CLAIM_FINAL);
}

static void add_claim(g233_t *g, int seat, const g233_act_t *a, int64_t now)
{
    g233_claim_t *c = &g->claims[g->nclaims++];
    memset(c, 0, sizeof *c);
    c->seat = seat;
    c->at = now;
    c->take = a->type == G233_ACT_TAKE;
    if (c->take && !a->ncards && !a->final) {
        c->kind = G233_CLAIM_TAKE;
    } else if (a->final) {
        c->kind = G233_CLAIM_FINAL;
    } else {
        c->kind = G233_CLAIM_MELD;
        c->meld.n = (uint8_t)(a->ncards + 1);
        memcpy(c->meld.cards, a->cards, (size_t)a->ncards);
        c->meld.cards[a->ncards] = (g233_card_t)top_discard(g);
        c->meld.kind = c->meld.n == 4 ? G233_GROUP_SQUARE
                       : g233_group_check(G233_GROUP_TRIPLE, c->meld.cards, 3)
                           ? G233_GROUP_TRIPLE
                           : G233_GROUP_SEQUENCE;
    }
    /* Claims received up to and including window_end join the dispute. */
    if (g->nclaims == 1) g->window_end = now + g->dispute_ms;
    /* No window to wait for: alone at the end of a round, or no dispute window. */
    if (g->declarer >= 0 || g->dispute_ms <= 0) resolve_claims(g);
}

/*
 * Option declare=must, when a turn starts: a player whose cards form a winning
 * combination as their turn comes (a hand dealt winning, or one completed by a
 * square laid, which takes the place of a discard) declares before drawing.
 * Runs after every change; the end of a turn is run_discard's.
 */
static void declare_if_must(g233_t *g)
{
    if (!g->declare_must || g->phase != G233_PH_DRAW || g->declarer >= 0 || g->nclaims ||
        g233_placing(g))
        return;
    g233_combo_t c = g233_combo(g, g->turn, &g->p[g->turn].hand);
    if (c != G233_COMBO_NONE) start_last_draws(g, g->turn, c);
}

void g233_run(g233_t *g, int seat, const g233_act_t *a, int64_t now)
{
    switch (a->type) {
    case G233_ACT_DRAW: run_draw(g, seat); break;
    case G233_ACT_TAKE:
    case G233_ACT_CLAIM: add_claim(g, seat, a, now); break;
    case G233_ACT_DECLARE: start_last_draws(g, seat, g233_combo(g, seat, &g->p[seat].hand)); break;
    case G233_ACT_DISCARD: run_discard(g, seat, (g233_card_t)a->card, a->declare); break;
    case G233_ACT_LAY: run_lay(g, seat, a->cards); break;
    case G233_ACT_GIFT: run_gift(g, seat, a->to); break;
    }
    declare_if_must(g);
}

/* ------------------------------------------------------------------ */
/* End of a round, end of the game                                      */
/* ------------------------------------------------------------------ */

static void end_round(g233_t *g, const char *reason)
{
    int n = g->base.seats;
    json_t *hands = json_array();
    for (int s = 0; s < n; s++) {
        g233_player_t *p = &g->p[s];
        g233_combo_t c = s == g->declarer ? g->declared : G233_COMBO_NONE;
        if (c == G233_COMBO_NONE && g233_combo(g, s, &p->hand) == G233_COMBO_RAINBOW)
            c = G233_COMBO_RAINBOW;
        int points = g233_score_round(&p->hand, p->melds, p->nmelds, c);
        p->score += points;
        json_t *melds = json_array();
        for (int i = 0; i < p->nmelds; i++)
            json_array_append_new(melds, g233_cards_json(p->melds[i].cards, p->melds[i].n));
        json_array_append_new(hands, json_pack("{s:i, s:o, s:o, s:s, s:i, s:i, s:i, s:i}", "seat",
                                               s, "cards", g233_hand_json(&p->hand), "melds", melds,
                                               "combo", g233_combo_name(c), "points", points,
                                               "gifts", 5 * (p->gifts_plus - p->gifts_minus),
                                               "score", p->score, "last_drawn", p->last_drawn));
    }
    game_shared_set(&g->last_round,
                    json_pack("{s:i, s:s, s:o, s:o}", "round", g->round, "reason", reason, "winner",
                              g->declarer >= 0 ? json_integer(g->declarer) : json_null(), "hands",
                              hands));
    g233_event(g, json_pack("{s:s, s:i}", "did", "round_over", "round", g->round));

    /* A total over the target ends the game; a tie at the top plays another round. */
    int best = 0, nbest = 0, mask = 0;
    for (int s = 0; s < n; s++) {
        int sc = g->p[s].score;
        if (nbest == 0 || sc > best) {
            best = sc;
            nbest = 1;
            mask = 1 << s;
        } else if (sc == best) {
            nbest++;
            mask |= 1 << s;
        }
    }
    if (best > g->target && nbest == 1) {
        g->phase = G233_PH_OVER;
        g->winners = mask;
        g->nclaims = 0;
        return;
    }
    g233_start_round(g, g->declarer >= 0 ? g->declarer : (g->dealer + 1) % n);
}

/* ------------------------------------------------------------------ */
/* The descriptor's functions                                           */
/* ------------------------------------------------------------------ */

/* Options: game_new() has checked them against this table. */
static const char *const declare_choices[] = {"must", "may", NULL};
static const char *const take_choices[] = {"claim", "draw", NULL};
static const game_option_t g233_options[] = {
    GAME_OPTION_INT_AT("dispute_ms", 200, 0, 60000, g233_t, dispute_ms,
                       "claims received within this many ms of the first make a dispute"),
    GAME_OPTION_INT_AT("max_rebuilds", 3, 0, 100, g233_t, max_rebuilds,
                       "a round ends with no winner when the draw pile runs out after this many "
                       "rebuilds"),
    GAME_OPTION_INT_AT("target", 233, 1, 100000, g233_t, target,
                       "the game ends after a round in which a total passes this"),
    GAME_OPTION_BOOL_AT("claim_sequences", false, g233_t, claim_sequences,
                        "out-of-turn claims may also form a sequence (the English text)"),
    GAME_OPTION_STRING("declare", "must", declare_choices,
                       "\"must\": a winning combination at the end of a turn is declared by the "
                       "game; \"may\": declaring is the player's choice"),
    GAME_OPTION_STRING("take", "claim", take_choices,
                       "\"claim\": the turn player takes the top discard only as a claim (a triple "
                       "or square laid at once, or a winning combination); \"draw\": as a plain "
                       "draw"),
    GAME_OPTION_END,
};

static int g233_create(game_t *base, const json_t *o, const rng_t *rng, game_error_t *err)
{
    g233_t *g = (g233_t *)base;
    (void)err; /* nothing is refused */
    g->declare_must = strcmp(game_option_string(o, "declare"), "must") == 0;
    g->take_draw = strcmp(game_option_string(o, "take"), "draw") == 0;
    g->rng = *rng;
    game_log_init(&g->events, G233_EVENTS);
    g->round = 0;
    g233_start_round(g, 0);
    declare_if_must(g);
    return 0;
}

/* Settle the claims due. */
static bool g233_tick(game_t *base, int64_t now)
{
    g233_t *g = (g233_t *)base;
    if (g->nclaims == 0 || now <= g->window_end) return false;
    resolve_claims(g);
    declare_if_must(g);
    return true;
}

static int g233_apply(game_t *base, int seat, const json_t *action, int64_t now, game_error_t *err)
{
    g233_t *g = (g233_t *)base;
    g233_act_t a;
    if (g233_parse(action, &a, err)) return -1;
    g233_tick(base, now);
    int r = g233_check(g, seat, &a, err);
    if (r == 0) g233_run(g, seat, &a, now);
    return r;
}

static int64_t g233_next_deadline(const game_t *base)
{
    const g233_t *g = (const g233_t *)base;
    return g->nclaims ? g->window_end + 1 : GAME_NO_DEADLINE;
}

/* The turn player; before the dealer's first draw, every holder of a dealt -5. */
static unsigned g233_waiting(const game_t *base)
{
    const g233_t *g = (const g233_t *)base;
    if (g->phase == G233_PH_OVER) return 0u;
    unsigned placing = g233_placing(g);
    return placing ? placing : 1u << g->turn;
}

/* The kit's (the greedy bot's: a dealt -5 goes to the leader among the others),
   but nothing while a claim is being settled. */
static json_t *g233_default_action(const game_t *base, int seat)
{
    if (((const g233_t *)base)->nclaims) return NULL;
    return game_default_bot_action(base, seat);
}

static bool g233_is_over(const game_t *base)
{
    return ((const g233_t *)base)->phase == G233_PH_OVER;
}

static json_t *g233_result(const game_t *base)
{
    const g233_t *g = (const g233_t *)base;
    unsigned long mark = tapis_alloc_failures();
    json_t *scores = json_array();
    for (int s = 0; s < g->base.seats; s++)
        json_array_append_new(scores, json_integer(g->p[s].score));
    return game_json_checked(json_pack("{s:o, s:o, s:i}", "winners",
                                       game_winners_json((unsigned)g->winners, base->seats),
                                       "scores", scores, "rounds", g->round),
                             mark);
}

/* Bot levels and their pace (a person draws, discards and claims in a second or two). */
static const game_bot_level_t g233_bot_levels[] = {
    GAME_BOT_LEVELS_KIT(800, 1600, /* easy: */ 1600, 3200, /* fast: */ 150, 400,
                        "normal wins 74% of games against it", "wins 79% of games against normal"),
};

const game_desc_t g233_desc = {
    .id = "233",
    .title = "233",
    .min_seats = 2,
    .max_seats = G233_MAX_SEATS,
    GAME_HOOKS(g233),
    .next_deadline = g233_next_deadline,
    .tick = g233_tick,
    .default_action = g233_default_action,
    .logs = {offsetof(g233_t, events)},
    .shared = {offsetof(g233_t, last_round)},
};
