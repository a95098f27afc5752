/*
 * score.c — groups, winning combinations and round points of 233.
 *
 * The best grouping (g233_score_best) is a depth-first search over the hand held as
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
 * Winning combinations (g233_score_combo) walk the same tree, but every card must be
 * placed and the groups formed must be exactly those the combination still
 * needs once the locked melds are counted. The super sequence and the rainbow
 * are plain counts.
 *
 * Assumption: at most G233_MAX_GROUPS groups are formed, which a hand of up to
 * 16 cards cannot exceed (hands in play hold at most 10).
 */
#include <stddef.h>
#include <string.h>

#include "core/233/score.h"
#include "core/233/words.h"

enum {
    GROUPABLE = G233_CARD_REVERSE, /* kinds below this (and jokers) can be grouped */
    SQUARE_RATE = 5,               /* points per card of a square: no group does better */
    RAINBOW_POINTS = 100,
};

static const uint8_t group_size[] = {2, 3, 3, 4}; /* by g233_group_kind_t */

/* Slots of a combination's needs: doubles, groups of three, squares. */
enum { NEED_DOUBLE, NEED_THREE, NEED_SQUARE, NEEDS };

static int need_slot(g233_group_kind_t k)
{
    return group_size[k] - 2;
}

/* ------------------------------------------------------------------------ */
/* Tables                                                                    */
/* ------------------------------------------------------------------------ */

int g233_group_points(g233_group_kind_t k)
{
    switch (k) {
    case G233_GROUP_DOUBLE: return 5;
    case G233_GROUP_TRIPLE:
    case G233_GROUP_SEQUENCE: return 10;
    case G233_GROUP_SQUARE: return 20;
    }
    return 0;
}

int g233_combo_bonus(g233_combo_t c)
{
    switch (c) {
    case G233_COMBO_NONE: return 0;
    case G233_COMBO_233:
    case G233_COMBO_234:
    case G233_COMBO_244: return 25;
    case G233_COMBO_SUPER: return 50;
    case G233_COMBO_RAINBOW: return RAINBOW_POINTS;
    }
    return 0;
}

int g233_combo_points(g233_combo_t c)
{
    switch (c) {
    case G233_COMBO_NONE: return 0;
    case G233_COMBO_233: return 25 + 5 + 10 + 10;
    case G233_COMBO_234: return 25 + 5 + 10 + 20;
    case G233_COMBO_244: return 25 + 5 + 20 + 20;
    case G233_COMBO_SUPER: return 50 + 10 + 10;
    case G233_COMBO_RAINBOW: return RAINBOW_POINTS;
    }
    return 0;
}

const char *g233_combo_name(g233_combo_t c)
{
    switch (c) {
    case G233_COMBO_NONE: return "none";
    case G233_COMBO_233: return "2-3-3";
    case G233_COMBO_234: return "2-3-4";
    case G233_COMBO_244: return "2-4-4";
    case G233_COMBO_SUPER: return "super sequence";
    case G233_COMBO_RAINBOW: return "rainbow";
    }
    return "none";
}

/* ------------------------------------------------------------------------ */
/* One group                                                                 */
/* ------------------------------------------------------------------------ */

bool g233_group_check(g233_group_kind_t k, const g233_card_t *cards, int n)
{
    if (!cards || (unsigned)k > G233_GROUP_SQUARE || n != group_size[k]) return false;
    int first = -1;
    unsigned values = 0; /* bit v: value v seen (sequences) */
    int lo = 8, hi = 1;
    for (int i = 0; i < n; i++) {
        g233_card_t c = cards[i];
        if (c == G233_CARD_JOKER) continue;
        if (c >= GROUPABLE) return false; /* reverse, gifts, stop, or no card */
        if (k == G233_GROUP_SEQUENCE) {
            int v = g233_card_value(c);
            if (!g233_card_is_number(c) || (values & (1u << v))) return false;
            if (first >= 0 && g233_card_colour(c) != g233_card_colour((g233_card_t)first))
                return false;
            values |= 1u << v;
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        } else {
            if (k == G233_GROUP_DOUBLE && !g233_card_is_symbol(c)) return false;
            if (first >= 0 && c != first) return false;
        }
        first = c;
    }
    /* Distinct values spanning at most 3 fit one window of 1..8 (no wrap). */
    return k != G233_GROUP_SEQUENCE || first < 0 || hi - lo <= 2;
}

/* A group of kind k: `held` copies of c, jokers for the rest. */
static g233_group_t same_group(g233_group_kind_t k, g233_card_t c, int held)
{
    g233_group_t g = {.kind = (uint8_t)k, .n = group_size[k]};
    for (int i = 0; i < g.n; i++)
        g.cards[i] = i < held ? c : G233_CARD_JOKER;
    return g;
}

/*
 * The groups worth trying that hold c, the lowest kind held (see the top of
 * the file): held cards first, jokers where none is held. Best-paying first,
 * so the search finds a good bound early. Returns how many (at most 4).
 */
static int groups_with(const uint8_t *n, int jokers, g233_card_t c, g233_group_t *out)
{
    int k = 0;
    int held = n[c];
    for (int i = 0; i < 2; i++) { /* square, triple */
        g233_group_kind_t kind = i == 0 ? G233_GROUP_SQUARE : G233_GROUP_TRIPLE;
        int real = held < group_size[kind] ? held : group_size[kind];
        if (group_size[kind] - real <= jokers) out[k++] = same_group(kind, c, real);
    }
    if (g233_card_is_number(c)) {
        /* Only sequences with two held cards: one with a single held card
         * uses the same cards as the triple {c, joker, joker}. */
        int v = g233_card_value(c);
        g233_group_t g = {.kind = G233_GROUP_SEQUENCE, .n = 3};
        if (v <= 6) {
            int missing = !n[c + 1] + !n[c + 2];
            g.cards[0] = c;
            g.cards[1] = n[c + 1] ? (g233_card_t)(c + 1) : (g233_card_t)G233_CARD_JOKER;
            g.cards[2] = n[c + 2] ? (g233_card_t)(c + 2) : (g233_card_t)G233_CARD_JOKER;
            if (missing < 2 && missing <= jokers) out[k++] = g;
        } else if (v == 7 && n[c + 1] && jokers > 0) {
            g.cards[0] = G233_CARD_JOKER;
            g.cards[1] = c;
            g.cards[2] = (g233_card_t)(c + 1);
            out[k++] = g;
        }
    } else {
        int real = held < 2 ? held : 2;
        if (2 - real <= jokers) out[k++] = same_group(G233_GROUP_DOUBLE, c, real);
    }
    return k;
}

/* Takes g's cards out of n / *jokers (put back with sign -1). */
static void take(uint8_t *n, int *jokers, const g233_group_t *g, int sign)
{
    for (int i = 0; i < g->n; i++) {
        if (g->cards[i] == G233_CARD_JOKER)
            *jokers -= sign;
        else
            n[g->cards[i]] = (uint8_t)(n[g->cards[i]] - sign);
    }
}

/* ------------------------------------------------------------------------ */
/* Best grouping                                                             */
/* ------------------------------------------------------------------------ */

typedef struct best_search {
    uint8_t n[G233_WORDS_BYTES]; /* counts of groupable kinds, jokers aside, then 0s */
    int jokers;
    int left;   /* cards in n */
    int points; /* of the groups on the stack */
    int depth;
    g233_group_t stack[G233_MAX_GROUPS];
    int best;
    g233_group_t *out; /* NULL when the groups are not wanted */
    int nout;
} best_search_t;

/* A leaf: the remaining jokers form squares, then a triple or a double. */
static void best_leaf(best_search_t *s)
{
    int points = s->points;
    int depth = s->depth;
    int jokers = s->jokers;
    while (jokers >= 2 && depth < G233_MAX_GROUPS) {
        g233_group_kind_t k = jokers >= 4   ? G233_GROUP_SQUARE
                              : jokers == 3 ? G233_GROUP_TRIPLE
                                            : G233_GROUP_DOUBLE;
        s->stack[depth++] = same_group(k, G233_CARD_JOKER, 0);
        jokers -= group_size[k];
        points += g233_group_points(k);
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
    int c = g233_next_held(s->n, from);
    if (c >= GROUPABLE || s->depth == G233_MAX_GROUPS) {
        best_leaf(s);
        return;
    }
    g233_group_t groups[4];
    int ng = groups_with(s->n, s->jokers, (g233_card_t)c, groups);
    for (int i = 0; i < ng; i++) {
        const g233_group_t *g = &groups[i];
        int real = 0;
        for (int j = 0; j < g->n; j++)
            real += g->cards[j] != G233_CARD_JOKER;
        take(s->n, &s->jokers, g, 1);
        s->left -= real;
        s->points += g233_group_points((g233_group_kind_t)g->kind);
        s->stack[s->depth++] = *g;
        best_walk(s, c);
        s->depth--;
        s->points -= g233_group_points((g233_group_kind_t)g->kind);
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

int g233_score_best(const g233_hand_t *h, g233_group_t *out, int *nout)
{
    if (nout) *nout = 0;
    if (!h) return 0;
    best_search_t s = {.jokers = h->n[G233_CARD_JOKER], .best = -1, .out = out};
    memcpy(s.n, h->n, GROUPABLE);
    for (int c = 0; c < GROUPABLE; c++)
        s.left += s.n[c];
    best_walk(&s, 0);
    if (nout && out) *nout = s.nout;
    return s.best;
}

/* ------------------------------------------------------------------------ */
/* Winning combinations                                                      */
/* ------------------------------------------------------------------------ */

/* Can the cards in n plus `jokers` be split exactly into the groups in need?
   n holds G233_WORDS_BYTES counts, zero from GROUPABLE on. */
static bool fits(uint8_t *n, int jokers, int *need, int from)
{
    int c = g233_next_held(n, from);
    if (c >= GROUPABLE)
        return jokers == 2 * need[NEED_DOUBLE] + 3 * need[NEED_THREE] + 4 * need[NEED_SQUARE];
    g233_group_t groups[4];
    int ng = groups_with(n, jokers, (g233_card_t)c, groups);
    for (int i = 0; i < ng; i++) {
        const g233_group_t *g = &groups[i];
        int slot = need_slot((g233_group_kind_t)g->kind);
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
static bool is_rainbow(const g233_hand_t *h, int size, int last_drawn)
{
    if (size != 8) return false;
    for (int c = G233_CARD_SYMBOL; c < G233_CARD_REVERSE; c++)
        if (h->n[c] > 1) return false;
    for (int col = 0; col < G233_COLOURS; col++) /* one word of counts per colour */
        if (g233_bytes_sum(g233_word(h->n + 8 * col)) > 1) return false;
    int special = h->n[G233_CARD_REVERSE];
    for (int c = G233_CARD_GIFT_PLUS; c <= G233_CARD_STOP; c++) {
        if (h->n[c] && c != last_drawn) return false;
        special += h->n[c];
    }
    return special <= 1;
}

/* Super sequence: the numbers 1..8 of one colour, jokers for missing ones. The
 * caller has checked there are 8 cards in all and no special card in h. */
static bool is_super(const g233_hand_t *h, const g233_group_t *melds, int nmelds)
{
    uint8_t n[G233_KINDS];
    memcpy(n, h->n, sizeof n);
    for (int i = 0; i < nmelds; i++)
        for (int j = 0; j < melds[i].n; j++)
            n[melds[i].cards[j]]++;
    /* A word of counts per colour: at most one card of each number, one colour. */
    int colours = 0;
    for (int col = 0; col < G233_COLOURS; col++) {
        uint64_t w = g233_word(n + 8 * col);
        if (w & G233_WORD_ABOVE_ONE) return false;
        colours += w != 0;
    }
    if (colours > 1) return false;
    for (int c = G233_CARD_SYMBOL; c < G233_KINDS; c++)
        if (c != G233_CARD_JOKER && n[c]) return false;
    return true;
}

static const uint64_t ONES = 0x0101010101010101ull;

/* Of a colour's word of counts w, 0x01 in each byte of a number held once,
   alone; *twice gets those held twice, alone. */
static uint64_t alone_once(uint64_t w, uint64_t *twice)
{
    uint64_t held = g233_bytes_nonzero(w);
    uint64_t once = held & ~g233_bytes_nonzero(w & ~ONES);
    uint64_t alone = held & ~(held << 8 | held << 16 | held >> 8 | held >> 16);
    *twice = alone & ~g233_bytes_nonzero(w ^ (2 * ONES)) & ONES;
    return alone & once;
}

/* Of n's symbol counts, 0x01 in each byte of a symbol held once. */
static uint64_t symbols_once(const uint8_t *n)
{
    uint64_t symbols = g233_word(n + G233_CARD_SYMBOL) & 0xFFFFFFFFull; /* red..orange */
    return g233_bytes_nonzero(symbols) & ~g233_bytes_nonzero(symbols & ~ONES);
}

/*
 * A lower bound of the jokers that grouping every card of n (numbers and
 * symbols) needs. A number with no card of its colour held within two of
 * it can share a group only with its own copies and jokers: held once, it
 * needs two jokers (a triple or a sequence with two, a square with three);
 * twice, one (a triple). A symbol held once needs one (a double). Those
 * groups are all different, so their jokers add up. When the bound is more
 * than the jokers held, fits() cannot succeed, and is not run: most hands
 * tried (each discard of a legal list) are far from a combination.
 */
static int jokers_needed(const uint8_t *n)
{
    uint64_t need = 0; /* per byte: 0..3 jokers for that kind */
    for (int col = 0; col < G233_COLOURS; col++) {
        uint64_t twice, once = alone_once(g233_word(n + 8 * col), &twice);
        need += 2 * once + twice;
    }
    return g233_bytes_sum(need + symbols_once(n));
}

/*
 * The discards that lower jokers_needed() by `by` (1 or 2) or more: one of a
 * number held once, alone, lowers it by 2; one of a symbol held once by 1.
 * No other lowers it (a count of 2 or 3 left alone needs more, a neighbour
 * gone leaves others alone).
 */
static uint64_t lowering_discards(const uint8_t *n, int by)
{
    uint64_t kinds = by == 1 ? (uint64_t)g233_bytes_bits(symbols_once(n)) << G233_CARD_SYMBOL : 0;
    for (int col = 0; col < G233_COLOURS; col++) {
        uint64_t twice;
        kinds |= (uint64_t)g233_bytes_bits(alone_once(g233_word(n + 8 * col), &twice)) << 8 * col;
    }
    return kinds;
}

g233_combo_t g233_score_combo(const g233_hand_t *h, const g233_group_t *melds, int nmelds,
                              int last_drawn)
{
    return g233_score_combo_sized(h, h ? g233_hand_size(h) : 0, melds, nmelds, last_drawn);
}

g233_combo_t g233_score_combo_sized(const g233_hand_t *h, int size, const g233_group_t *melds,
                                    int nmelds, int last_drawn)
{
    if (!h || nmelds < 0 || (nmelds > 0 && !melds)) return G233_COMBO_NONE;
    int total = size;
    int need[NEEDS] = {1, 0, 0}; /* one double, set below by size */
    for (int i = 0; i < nmelds; i++) {
        if (!g233_group_check((g233_group_kind_t)melds[i].kind, melds[i].cards, melds[i].n))
            return G233_COMBO_NONE;
        total += melds[i].n;
    }
    /* Every combination holds 8, 9 or 10 cards (a rainbow 8, in hand). */
    if (total < 8 || total > 10) return G233_COMBO_NONE;
    /* The rainbow pays most: 100 flat. */
    if (nmelds == 0 && is_rainbow(h, size, last_drawn)) return G233_COMBO_RAINBOW;
    for (int c = G233_CARD_REVERSE; c < G233_KINDS; c++)
        if (c != G233_CARD_JOKER && h->n[c]) return G233_COMBO_NONE; /* cannot be grouped */
    /* A super sequence (70) pays more than a 2-3-3 (50) made of the same cards. */
    if (total == 8 && is_super(h, melds, nmelds)) return G233_COMBO_SUPER;
    g233_combo_t combo;
    switch (total) {
    case 8: combo = G233_COMBO_233, need[NEED_THREE] = 2; break;
    case 9: combo = G233_COMBO_234, need[NEED_THREE] = 1, need[NEED_SQUARE] = 1; break;
    default: combo = G233_COMBO_244, need[NEED_SQUARE] = 2; break;
    }
    for (int i = 0; i < nmelds; i++)
        if (--need[need_slot((g233_group_kind_t)melds[i].kind)] < 0) return G233_COMBO_NONE;
    uint8_t n[G233_WORDS_BYTES] = {0};
    memcpy(n, h->n, GROUPABLE);
    if (jokers_needed(n) > h->n[G233_CARD_JOKER]) return G233_COMBO_NONE;
    return fits(n, h->n[G233_CARD_JOKER], need, 0) ? combo : G233_COMBO_NONE;
}

/* ------------------------------------------------------------------------ */
/* One discard less                                                          */
/* ------------------------------------------------------------------------ */

#define KIND(c) ((uint64_t)1 << (c))

/*
 * The kinds whose discard may leave the 9 cards of h a rainbow (is_rainbow()
 * decides): after it, each slot (a symbol, a colour, the special card) holds
 * at most one card, and no gift or stop but the last card drawn is held. So
 * one card at most is beyond those, and the discard is that card's kind.
 */
static uint64_t rainbow_discards(const g233_hand_t *h, uint64_t held, int last_drawn)
{
    uint64_t may = held;
    int beyond = 0; /* cards beyond one a slot */
    for (int c = G233_CARD_SYMBOL; c < G233_CARD_REVERSE; c++)
        if (h->n[c] > 1) beyond += h->n[c] - 1, may &= KIND(c);
    for (int col = 0; col < G233_COLOURS; col++) {
        int k = g233_bytes_sum(g233_word(h->n + 8 * col));
        if (k > 1) beyond += k - 1, may &= (uint64_t)0xFF << 8 * col;
    }
    int special = h->n[G233_CARD_REVERSE], banned = 0;
    for (int c = G233_CARD_GIFT_PLUS; c <= G233_CARD_STOP; c++) {
        special += h->n[c];
        if (h->n[c] && c != last_drawn) banned += h->n[c], may &= KIND(c);
    }
    if (special > 1)
        beyond += special - 1, may &= KIND(G233_CARD_REVERSE) | KIND(G233_CARD_GIFT_PLUS) |
                                      KIND(G233_CARD_GIFT_MINUS) | KIND(G233_CARD_STOP);
    return beyond > 1 || banned > 1 ? 0 : may;
}

/*
 * The kinds whose discard may leave h's cards all in groups (the 2-3-3s and
 * the super sequence): no reverse, gift or stop is left, so h holds one at
 * most, and that is the discard. And at most as many jokers as needed
 * (jokers_needed()): a discard keeps or lowers the jokers held, so when the
 * bound is over them, only the discards that lower it enough may do (2 at
 * most). Not with melds and 8 cards in all: a super sequence's melds may
 * hold its jokers (is_super()).
 */
static uint64_t grouped_discards(const g233_hand_t *h, uint64_t held, bool super_melds)
{
    const uint64_t special = KIND(G233_CARD_REVERSE) | KIND(G233_CARD_GIFT_PLUS) |
                             KIND(G233_CARD_GIFT_MINUS) | KIND(G233_CARD_STOP);
    int specials = h->n[G233_CARD_REVERSE] + h->n[G233_CARD_GIFT_PLUS] +
                   h->n[G233_CARD_GIFT_MINUS] + h->n[G233_CARD_STOP];
    if (specials > 1) return 0;
    if (specials) held &= special;
    if (!super_melds) {
        uint8_t n[G233_WORDS_BYTES] = {0};
        memcpy(n, h->n, GROUPABLE);
        int over = jokers_needed(n) - h->n[G233_CARD_JOKER];
        if (over > 2) return 0;
        if (over > 0) held &= lowering_discards(n, over);
    }
    return held;
}

uint64_t g233_score_combo_discards(const g233_hand_t *h, int size, const g233_group_t *melds,
                                   int nmelds, int last_drawn, uint64_t kinds, bool rainbow_only)
{
    if (!h || nmelds < 0 || (nmelds > 0 && !melds)) return 0;
    int total = size - 1;
    for (int i = 0; i < nmelds; i++)
        total += melds[i].n;
    if (total < 8 || total > 10) return 0; /* as g233_score_combo_sized() */
    uint64_t held = g233_hand_kinds(h) & kinds;
    uint64_t may = nmelds == 0 && size - 1 == 8 ? rainbow_discards(h, held, last_drawn) : 0;
    if (!rainbow_only) may |= grouped_discards(h, held, nmelds > 0 && total == 8);
    uint64_t wins = 0;
    g233_hand_t rest = *h;
    for (; may; may &= may - 1) {
        int x = __builtin_ctzll(may);
        rest.n[x]--;
        g233_combo_t c = g233_score_combo_sized(&rest, size - 1, melds, nmelds, last_drawn);
        rest.n[x]++;
        if (rainbow_only ? c == G233_COMBO_RAINBOW : c != G233_COMBO_NONE) wins |= KIND(x);
    }
    return wins;
}

/* ------------------------------------------------------------------------ */
/* Round points                                                              */
/* ------------------------------------------------------------------------ */

int g233_score_round(const g233_hand_t *h, const g233_group_t *melds, int nmelds,
                     g233_combo_t combo)
{
    if (combo != G233_COMBO_NONE) return g233_combo_points(combo);
    int points = 0;
    for (int i = 0; melds && i < nmelds; i++)
        points += g233_group_points((g233_group_kind_t)melds[i].kind);
    return points + g233_score_best(h, NULL, NULL);
}
