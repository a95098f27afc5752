#include <stddef.h>

#include "core/233/cards.h"
#include "core/233/words.h"
#include "core/game.h"

#define NAME(name) name
static const char *const names[] = {G233_CARD_NAMES(NAME)};
#undef NAME
_Static_assert(sizeof names / sizeof names[0] == G233_KINDS, "a name per kind");

int g233_card_copies(g233_card_t c)
{
    if (g233_card_is_number(c)) return 4;
    switch (c) {
    case G233_CARD_REVERSE: return 6;
    case G233_CARD_JOKER: return 2;
    case G233_CARD_GIFT_PLUS:
    case G233_CARD_GIFT_MINUS: return 5;
    case G233_CARD_STOP: return 6;
    default: return c < G233_KINDS ? 5 : 0; /* symbols */
    }
}

const char *g233_card_name(g233_card_t c)
{
    return c < G233_KINDS ? names[c] : NULL;
}

int g233_card_parse(const char *name)
{
    /* Most names are numbers ("Y3", or "y3": names are read case-insensitively),
       read at once: no other name is a letter and a digit. */
    if (name && name[0] && name[1] >= '1' && name[1] <= '8' && !name[2])
        for (int col = 0; col < G233_COLOURS; col++)
            if ((name[0] | 0x20) == "ybg"[col]) return g233_card_number(col, name[1] - '0');
    return game_name_index(name, names, G233_KINDS);
}

/* g233_bytes_sum() over the four words of counts at once: their 16-bit
   sums of byte pairs are added (each at most 4 * 510) before the one sum
   of the lanes, exact for any counts. */
_Static_assert(G233_KINDS == 33, "four words of counts, then the stop");
int g233_hand_size(const g233_hand_t *h)
{
    const uint64_t even = 0x00FF00FF00FF00FFull;
    uint64_t pairs = 0;
    for (int c = 0; c < 32; c += 8) {
        uint64_t w = g233_word(h->n + c);
        pairs += (w & even) + (w >> 8 & even);
    }
    return (int)((pairs * 0x0001000100010001ull) >> 48) + h->n[32];
}

uint64_t g233_hand_kinds(const g233_hand_t *h)
{
    uint64_t m = 0;
    for (int c = 0; c + 8 <= G233_KINDS; c += 8)
        m |= (uint64_t)g233_bytes_bits(g233_word(h->n + c)) << c;
    for (int c = G233_KINDS & ~7; c < G233_KINDS; c++)
        m |= (uint64_t)(h->n[c] != 0) << c;
    return m;
}
