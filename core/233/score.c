/*
 * score.c — groups, winning combinations and round points of 233.
 *
 * The best grouping (score_best) is a depth-first search over the hand held as
 * a count per kind. At each step it takes the lowest kind c still held, jokers
 * aside, and either
 *   - forms one group holding c: a double (symbols only), a triple or a square
 *     of c, or a sequence whose lowest held card is c, or
 *   - leaves every remaining copy of c ungrouped.
 * Lower kinds are settled by then, so a group holding c cannot need them (a
 * sequence ending at 7-8 starts with a joker). Each group is filled with held
 * cards wherever the hand has them, jokers elsewhere: when a grouping uses a
 * joker where a held card fits, swapping the two keeps every group valid and
 * the points unchanged, so the other fillings never need a visit. Jokers left
 * once nothing else remains form squares, then a triple or a double; leaving a
 * joker unused is a choice too. A branch stops when its points plus 5 per card
 * left (a square's rate, the best there is) cannot beat the best found so far.
 * A typical 8-10 card hand takes a fraction of a microsecond (see
 * tests/bench/bench_233_score.c).
 *
 * Winning combinations (score_combo) walk the same tree, but every card must be
 * placed and the groups formed must be exactly those the combination still
 * needs once the locked melds are counted. The super sequence and the rainbow
 * are plain counts.
 *
 * Assumption: at most SCORE_MAX_GROUPS groups are formed, which a hand of up to
 * 16 cards cannot exceed (hands in play hold at most 10).
 */
#include <stddef.h>
#include <string.h>

#include "score.h"

enum {
    GROUPABLE = CARD_REVERSE, /* kinds below this (and jokers) can be grouped */
    SQUARE_RATE = 5,          /* points per card of a square: no group does better */
    RAINBOW_POINTS = 100,
};

static const uint8_t group_size[] = {2, 3, 3, 4}; /* by group_kind_t */

/* Slots of a combination's needs: doubles, groups of three, squares. */
enum { NEED_DOUBLE, NEED_THREE, NEED_SQUARE, NEEDS };

static int need_slot(group_kind_t k)
{
    return group_size[k] - 2;
}

/* ------------------------------------------------------------------------ */
/* Tables                                                                    */
/* ------------------------------------------------------------------------ */

int group_points(group_kind_t k)
{
    switch (k) {
    case GROUP_DOUBLE: return 5;
    case GROUP_TRIPLE:
    case GROUP_SEQUENCE: return 10;
    case GROUP_SQUARE: return 20;
    }
    return 0;
}

int combo_bonus(combo_t c)
{
    switch (c) {
    case COMBO_NONE: return 0;
    case COMBO_233:
    case COMBO_234:
    case COMBO_244: return 25;
    case COMBO_SUPER: return 50;
    case COMBO_RAINBOW: return RAINBOW_POINTS;
    }
    return 0;
}

int combo_points(combo_t c)
{
    switch (c) {
    case COMBO_NONE: return 0;
    case COMBO_233: return 25 + 5 + 10 + 10;
    case COMBO_234: return 25 + 5 + 10 + 20;
    case COMBO_244: return 25 + 5 + 20 + 20;
    case COMBO_SUPER: return 50 + 10 + 10;
    case COMBO_RAINBOW: return RAINBOW_POINTS;
    }
    return 0;
}

const char *combo_name(combo_t c)
{
    switch (c) {
    case COMBO_NONE: return "none";
    case COMBO_233: return "2-3-3";
    case COMBO_234: return "2-3-4";
    case COMBO_244: return "2-4-4";
    case COMBO_SUPER: return "super sequence";
    case COMBO_RAINBOW: return "rainbow";
    }
    return "none";
}

/* ------------------------------------------------------------------------ */
/* One group                                                                 */
/* ------------------------------------------------------------------------ */

bool group_check(group_kind_t k, const card_t *cards, int n)
{
    if (!cards || (unsigned)k > GROUP_SQUARE || n != group_size[k]) return false;
    int first = -1;
    unsigned values = 0; /* bit v: value v seen (sequences) */
    int lo = 8, hi = 1;
    for (int i = 0; i < n; i++) {
        card_t c = cards[i];
        if (c == CARD_JOKER) continue;
        if (c >= GROUPABLE) return false; /* reverse, gifts, stop, or no card */
        if (k == GROUP_SEQUENCE) {
            int v = card_value(c);
            if (!card_is_number(c) || (values & (1u << v))) return false;
            if (first >= 0 && card_colour(c) != card_colour((card_t)first)) return false;
            values |= 1u << v;
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        } else {
            if (k == GROUP_DOUBLE && !card_is_symbol(c)) return false;
            if (first >= 0 && c != first) return false;
        }
        first = c;
    }
    /* Distinct values spanning at most 3 fit one window of 1..8 (no wrap). */
    return k != GROUP_SEQUENCE || first < 0 || hi - lo <= 2;
}

/* A group of kind k: `held` copies of c, jokers for the rest. */
static group_t same_group(group_kind_t k, card_t c, int held)
{
    group_t g = {.kind = (uint8_t)k, .n = group_size[k]};
    for (int i = 0; i < g.n; i++)
        g.cards[i] = i < held ? c : CARD_JOKER;
    return g;
}

/*
 * The groups worth trying that hold c, the lowest kind held (see the top of
 * the file): held cards first, jokers where none is held. Best-paying first,
 * so the search finds a good bound early. Returns how many (at most 4).
 */
static int groups_with(const uint8_t *n, int jokers, card_t c, group_t *out)
{
    int k = 0;
    int held = n[c];
    for (int i = 0; i < 2; i++) { /* square, triple */
        group_kind_t kind = i == 0 ? GROUP_SQUARE : GROUP_TRIPLE;
        int real = held < group_size[kind] ? held : group_size[kind];
        if (group_size[kind] - real <= jokers) out[k++] = same_group(kind, c, real);
    }
    if (card_is_number(c)) {
        /* Only sequences with two held cards: one with a single held card
         * uses the same cards as the triple {c, joker, joker}. */
        int v = card_value(c);
        group_t g = {.kind = GROUP_SEQUENCE, .n = 3};
        if (v <= 6) {
            int missing = !n[c + 1] + !n[c + 2];
            g.cards[0] = c;
            g.cards[1] = n[c + 1] ? (card_t)(c + 1) : (card_t)CARD_JOKER;
            g.cards[2] = n[c + 2] ? (card_t)(c + 2) : (card_t)CARD_JOKER;
            if (missing < 2 && missing <= jokers) out[k++] = g;
        } else if (v == 7 && n[c + 1] && jokers > 0) {
            g.cards[0] = CARD_JOKER;
            g.cards[1] = c;
            g.cards[2] = (card_t)(c + 1);
            out[k++] = g;
        }
    } else {
        int real = held < 2 ? held : 2;
        if (2 - real <= jokers) out[k++] = same_group(GROUP_DOUBLE, c, real);
    }
    return k;
}

/* Takes g's cards out of n / *jokers (put back with sign -1). */
static void take(uint8_t *n, int *jokers, const group_t *g, int sign)
{
    for (int i = 0; i < g->n; i++) {
        if (g->cards[i] == CARD_JOKER)
            *jokers -= sign;
        else
            n[g->cards[i]] = (uint8_t)(n[g->cards[i]] - sign);
    }
}

/* ------------------------------------------------------------------------ */
/* Best grouping                                                             */
/* ------------------------------------------------------------------------ */

typedef struct best_search {
    uint8_t n[GROUPABLE]; /* counts of groupable kinds, jokers aside */
    int jokers;
    int left;   /* cards in n */
    int points; /* of the groups on the stack */
    int depth;
    group_t stack[SCORE_MAX_GROUPS];
    int best;
    group_t *out; /* NULL when the groups are not wanted */
    int nout;
} best_search_t;

/* A leaf: the remaining jokers form squares, then a triple or a double. */
static void best_leaf(best_search_t *s)
{
    int points = s->points;
    int depth = s->depth;
    int jokers = s->jokers;
    while (jokers >= 2 && depth < SCORE_MAX_GROUPS) {
        group_kind_t k = jokers >= 4 ? GROUP_SQUARE : jokers == 3 ? GROUP_TRIPLE : GROUP_DOUBLE;
        s->stack[depth++] = same_group(k, CARD_JOKER, 0);
        jokers -= group_size[k];
        points += group_points(k);
    }
    if (points <= s->best) return;
    s->best = points;
    if (s->out) {
        memcpy(s->out, s->stack, (size_t)depth * sizeof s->stack[0]);
        s->nout = depth;
    }
}

static void best_walk(best_search_t *s, int from)
{
    if (s->points + SQUARE_RATE * (s->left + s->jokers) <= s->best) return;
    int c = from;
    while (c < GROUPABLE && !s->n[c])
        c++;
    if (c == GROUPABLE || s->depth == SCORE_MAX_GROUPS) {
        best_leaf(s);
        return;
    }
    group_t groups[4];
    int ng = groups_with(s->n, s->jokers, (card_t)c, groups);
    for (int i = 0; i < ng; i++) {
        const group_t *g = &groups[i];
        int real = 0;
        for (int j = 0; j < g->n; j++)
            real += g->cards[j] != CARD_JOKER;
        take(s->n, &s->jokers, g, 1);
        s->left -= real;
        s->points += group_points((group_kind_t)g->kind);
        s->stack[s->depth++] = *g;
        best_walk(s, c);
        s->depth--;
        s->points -= group_points((group_kind_t)g->kind);
        s->left += real;
        take(s->n, &s->jokers, g, -1);
    }
    int held = s->n[c];
    s->n[c] = 0;
    s->left -= held;
    best_walk(s, c + 1);
    s->left += held;
    s->n[c] = (uint8_t)held;
}

int score_best(const hand_t *h, group_t *out, int *nout)
{
    if (nout) *nout = 0;
    if (!h) return 0;
    best_search_t s = {.jokers = h->n[CARD_JOKER], .best = -1, .out = out};
    memcpy(s.n, h->n, sizeof s.n);
    for (int c = 0; c < GROUPABLE; c++)
        s.left += s.n[c];
    best_walk(&s, 0);
    if (nout && out) *nout = s.nout;
    return s.best;
}

/* ------------------------------------------------------------------------ */
/* Winning combinations                                                      */
/* ------------------------------------------------------------------------ */

/* Can the cards in n plus `jokers` be split exactly into the groups in need? */
static bool fits(uint8_t *n, int jokers, int *need, int from)
{
    int c = from;
    while (c < GROUPABLE && !n[c])
        c++;
    if (c == GROUPABLE)
        return jokers == 2 * need[NEED_DOUBLE] + 3 * need[NEED_THREE] + 4 * need[NEED_SQUARE];
    group_t groups[4];
    int ng = groups_with(n, jokers, (card_t)c, groups);
    for (int i = 0; i < ng; i++) {
        const group_t *g = &groups[i];
        int slot = need_slot((group_kind_t)g->kind);
        if (!need[slot]) continue;
        take(n, &jokers, g, 1);
        need[slot]--;
        bool ok = fits(n, jokers, need, c);
        need[slot]++;
        take(n, &jokers, g, -1);
        if (ok) return true;
    }
    return false;
}

/*
 * Rainbow: 8 cards, one per slot — 4 symbols, 3 colours, 1 special. Each card
 * other than a joker has a single slot it can take, so it is enough that no
 * slot is claimed twice; the jokers fill the empty ones.
 */
static bool is_rainbow(const hand_t *h, int last_drawn)
{
    if (hand_size(h) != 8) return false;
    for (int c = CARD_SYMBOL; c < CARD_REVERSE; c++)
        if (h->n[c] > 1) return false;
    for (int col = 0; col < G233_COLOURS; col++) {
        int held = 0;
        for (int v = 1; v <= 8; v++)
            held += h->n[card_number(col, v)];
        if (held > 1) return false;
    }
    int special = h->n[CARD_REVERSE];
    for (int c = CARD_GIFT_PLUS; c <= CARD_STOP; c++) {
        if (h->n[c] && c != last_drawn) return false;
        special += h->n[c];
    }
    return special <= 1;
}

/* Super sequence: the numbers 1..8 of one colour, jokers for missing ones. The
 * caller has checked there are 8 cards in all and no special card in h. */
static bool is_super(const hand_t *h, const group_t *melds, int nmelds)
{
    uint8_t n[G233_KINDS];
    memcpy(n, h->n, sizeof n);
    for (int i = 0; i < nmelds; i++)
        for (int j = 0; j < melds[i].n; j++)
            n[melds[i].cards[j]]++;
    int colour = -1;
    for (int c = 0; c < CARD_SYMBOL; c++) {
        if (!n[c]) continue;
        if (n[c] > 1 || (colour >= 0 && card_colour((card_t)c) != colour)) return false;
        colour = card_colour((card_t)c);
    }
    for (int c = CARD_SYMBOL; c < G233_KINDS; c++)
        if (c != CARD_JOKER && n[c]) return false;
    return true;
}

combo_t score_combo(const hand_t *h, const group_t *melds, int nmelds, int last_drawn)
{
    if (!h || nmelds < 0 || (nmelds > 0 && !melds)) return COMBO_NONE;
    int total = hand_size(h);
    int need[NEEDS] = {1, 0, 0}; /* one double, set below by size */
    for (int i = 0; i < nmelds; i++) {
        if (!group_check((group_kind_t)melds[i].kind, melds[i].cards, melds[i].n))
            return COMBO_NONE;
        total += melds[i].n;
    }
    /* The rainbow pays most: 100 flat. */
    if (nmelds == 0 && is_rainbow(h, last_drawn)) return COMBO_RAINBOW;
    for (int c = CARD_REVERSE; c < G233_KINDS; c++)
        if (c != CARD_JOKER && h->n[c]) return COMBO_NONE; /* cannot be grouped */
    /* A super sequence (70) pays more than a 2-3-3 (50) made of the same cards. */
    if (total == 8 && is_super(h, melds, nmelds)) return COMBO_SUPER;
    combo_t combo;
    switch (total) {
    case 8: combo = COMBO_233, need[NEED_THREE] = 2; break;
    case 9: combo = COMBO_234, need[NEED_THREE] = 1, need[NEED_SQUARE] = 1; break;
    case 10: combo = COMBO_244, need[NEED_SQUARE] = 2; break;
    default: return COMBO_NONE;
    }
    for (int i = 0; i < nmelds; i++)
        if (--need[need_slot((group_kind_t)melds[i].kind)] < 0) return COMBO_NONE;
    uint8_t n[GROUPABLE];
    memcpy(n, h->n, sizeof n);
    return fits(n, h->n[CARD_JOKER], need, 0) ? combo : COMBO_NONE;
}

/* ------------------------------------------------------------------------ */
/* Round points                                                              */
/* ------------------------------------------------------------------------ */

int score_round(const hand_t *h, const group_t *melds, int nmelds, combo_t combo)
{
    if (combo != COMBO_NONE) return combo_points(combo);
    int points = 0;
    for (int i = 0; melds && i < nmelds; i++)
        points += group_points((group_kind_t)melds[i].kind);
    return points + score_best(h, NULL, NULL);
}
