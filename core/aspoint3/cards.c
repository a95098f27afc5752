/* cards.c — the 52 cards of As.point3: names, values, the points of a hand. */
#include <stddef.h>

#include "core/aspoint3/aspoint3.h"

static const char *const names[AP3_DECK] = {
    "AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS",
    "AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH",
    "AD", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "10D", "JD", "QD", "KD",
    "AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC",
};

int ap3_card_value(ap3_card_t c)
{
    static const int values[AP3_RANKS] = {30, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 20};
    return c < AP3_DECK ? values[ap3_rank(c)] : 0;
}

int ap3_points(const ap3_card_t *cards, int n)
{
    int aces = 0, threes = 0, sum = 0;
    for (int i = 0; i < n; i++) {
        if (cards[i] >= AP3_DECK) continue;
        aces += ap3_rank(cards[i]) == AP3_ACE;
        threes += ap3_rank(cards[i]) == AP3_THREE;
        sum += ap3_card_value(cards[i]);
    }
    /* Aces combine with each other and with threes only: every ace with every three. */
    return aces ? aces * (ap3_card_value(AP3_ACE) + 3 * threes) : sum;
}

const char *ap3_card_name(ap3_card_t c)
{
    return c < AP3_DECK ? names[c] : NULL;
}

int ap3_card_parse(const char *name)
{
    return game_name_index(name, names, AP3_DECK);
}
