/*
 * cards.h — the 140 cards of 233 (seed 000, French, authoritative).
 *
 * Cards of one kind are indistinguishable, so a card is its kind (g233_card_t,
 * 0..G233_KINDS-1) and a hand is a count per kind (g233_hand_t).
 *
 *   0..23   number cards: colour * 8 + (value - 1); colours yellow, blue, green;
 *           four copies of each (96)
 *   24..27  symbol cards red, pink, purple, orange; five of each (20)
 *   28      reverse (6)   29 joker (2)   30 gift +5 (5)   31 gift -5 (5)   32 stop (6)
 *
 * Names (protocol and people): "Y1".."Y8", "B1".."B8", "G1".."G8", "red",
 * "pink", "purple", "orange", "reverse", "joker", "gift+5", "gift-5", "stop".
 */
#ifndef TAPIS_233_CARDS_H
#define TAPIS_233_CARDS_H

#include <stdbool.h>
#include <stdint.h>

typedef uint8_t g233_card_t;

enum {
    G233_CARD_NUMBER = 0, /* first number card */
    G233_CARD_SYMBOL = 24,
    G233_CARD_REVERSE = 28,
    G233_CARD_JOKER = 29,
    G233_CARD_GIFT_PLUS = 30,
    G233_CARD_GIFT_MINUS = 31,
    G233_CARD_STOP = 32,
    G233_KINDS = 33,
    G233_DECK = 140,
    G233_COLOURS = 3,
    G233_SYMBOLS = 4,
};

/* The names of the kinds in order, X(name) each, separated by commas: names[]
   and the texts made from them. */
#define G233_CARD_NAMES(X)                                                                         \
    X("Y1"), X("Y2"), X("Y3"), X("Y4"), X("Y5"), X("Y6"), X("Y7"), X("Y8"), X("B1"), X("B2"),      \
        X("B3"), X("B4"), X("B5"), X("B6"), X("B7"), X("B8"), X("G1"), X("G2"), X("G3"), X("G4"),  \
        X("G5"), X("G6"), X("G7"), X("G8"), X("red"), X("pink"), X("purple"), X("orange"),         \
        X("reverse"), X("joker"), X("gift+5"), X("gift-5"), X("stop")

typedef struct g233_hand {
    uint8_t n[G233_KINDS];
} g233_hand_t;

static inline bool g233_card_is_number(g233_card_t c)
{
    return c < G233_CARD_SYMBOL;
}
static inline bool g233_card_is_symbol(g233_card_t c)
{
    return c >= G233_CARD_SYMBOL && c < G233_CARD_REVERSE;
}
static inline int g233_card_colour(g233_card_t c) /* 0 yellow, 1 blue, 2 green */
{
    return c / 8;
}
static inline int g233_card_value(g233_card_t c) /* 1..8 */
{
    return c % 8 + 1;
}
static inline g233_card_t g233_card_number(int colour, int value)
{
    return (g233_card_t)(colour * 8 + value - 1);
}

/* Copies of kind c in a full deck. */
int g233_card_copies(g233_card_t c);
/* The name of a kind, or NULL when c is out of range. */
const char *g233_card_name(g233_card_t c);
/* The kind a name stands for (case-insensitive), or -1. */
int g233_card_parse(const char *name);

int g233_hand_size(const g233_hand_t *h);
/* The kinds h holds: bit c set when h->n[c] is not 0. */
uint64_t g233_hand_kinds(const g233_hand_t *h);

#endif
