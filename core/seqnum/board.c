/*
 * board.c — the fixed board, the cards, and the sequences.
 *
 * The layout was generated once (1..48 twice each, shuffled by a seeded
 * generator, drawn again until no number's two cells touch, even diagonally)
 * and is written out here and in RULES.md; the table is the authority.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "core/seqnum/seqnum.h"

/* ------------------------------------------------------------------ */
/* The board                                                            */
/* ------------------------------------------------------------------ */

static const uint8_t layout[SEQNUM_CELLS] = {
    0,  40, 34, 44, 40, 11, 23, 26, 1,  0,  /* row 0 */
    1,  44, 32, 17, 20, 25, 43, 25, 22, 39, /* row 1 */
    17, 8,  6,  48, 9,  31, 10, 2,  30, 13, /* row 2 */
    12, 33, 13, 36, 29, 24, 23, 15, 11, 47, /* row 3 */
    31, 16, 7,  20, 2,  45, 42, 29, 41, 12, /* row 4 */
    45, 21, 30, 32, 34, 39, 22, 27, 18, 48, /* row 5 */
    19, 35, 18, 46, 14, 19, 9,  3,  38, 46, /* row 6 */
    47, 37, 15, 8,  37, 43, 28, 36, 41, 16, /* row 7 */
    5,  27, 28, 6,  3,  14, 33, 4,  38, 24, /* row 8 */
    0,  7,  35, 5,  4,  42, 26, 10, 21, 0,  /* row 9 */
};

int seqnum_number(int cell)
{
    return cell >= 0 && cell < SEQNUM_CELLS ? layout[cell] : 0;
}

bool seqnum_corner(int cell)
{
    return cell == 0 || cell == 9 || cell == 90 || cell == 99;
}

void seqnum_cells_of(int n, int out[2])
{
    int k = 0;
    out[0] = out[1] = -1;
    for (int c = 0; c < SEQNUM_CELLS && k < 2; c++)
        if (layout[c] == n) out[k++] = c;
}

/* ------------------------------------------------------------------ */
/* The cards                                                            */
/* ------------------------------------------------------------------ */

int seqnum_answer(int kind)
{
    if (kind >= 0 && kind < SEQNUM_TOP) return kind + 1;
    if (kind >= SEQNUM_TOP && kind < 2 * SEQNUM_TOP) return kind - SEQNUM_TOP + 1;
    return 0;
}

/*
 * The rule of the deck (RULES.md, "Cards"): n = (n - n/3) + n/3, and
 * n = (n + (49 - n)/2) - (49 - n)/2; every operand is within 0..48.
 */
void seqnum_operands(int kind, int *a, int *b)
{
    int n = seqnum_answer(kind);
    if (kind < SEQNUM_TOP) {
        *b = n / 3;
        *a = n - *b;
    } else {
        *b = (49 - n) / 2;
        *a = n + *b;
    }
}

int seqnum_copies(int kind)
{
    return kind >= SEQNUM_CARD_PLUS ? 2 : 1;
}

/* Generated from the rule above (test_seqnum_rules checks that they agree). */
static const char *const names[2 * SEQNUM_TOP] = {
    "1+0",   "2+0",   "2+1",   "3+1",   "4+1",   "4+2",   "5+2",   "6+2",   "6+3",   "7+3",
    "8+3",   "8+4",   "9+4",   "10+4",  "10+5",  "11+5",  "12+5",  "12+6",  "13+6",  "14+6",
    "14+7",  "15+7",  "16+7",  "16+8",  "17+8",  "18+8",  "18+9",  "19+9",  "20+9",  "20+10",
    "21+10", "22+10", "22+11", "23+11", "24+11", "24+12", "25+12", "26+12", "26+13", "27+13",
    "28+13", "28+14", "29+14", "30+14", "30+15", "31+15", "32+15", "32+16", "25-24", "25-23",
    "26-23", "26-22", "27-22", "27-21", "28-21", "28-20", "29-20", "29-19", "30-19", "30-18",
    "31-18", "31-17", "32-17", "32-16", "33-16", "33-15", "34-15", "34-14", "35-14", "35-13",
    "36-13", "36-12", "37-12", "37-11", "38-11", "38-10", "39-10", "39-9",  "40-9",  "40-8",
    "41-8",  "41-7",  "42-7",  "42-6",  "43-6",  "43-5",  "44-5",  "44-4",  "45-4",  "45-3",
    "46-3",  "46-2",  "47-2",  "47-1",  "48-1",  "48-0",
};

const char *seqnum_card_name(int kind)
{
    if (kind == SEQNUM_CARD_PLUS) return "plus";
    if (kind == SEQNUM_CARD_MINUS) return "minus";
    if (kind < 0 || kind >= 2 * SEQNUM_TOP) return "?";
    return names[kind];
}

int seqnum_card_parse(const char *name)
{
    if (!name) return -1;
    if (strcasecmp(name, "plus") == 0) return SEQNUM_CARD_PLUS;
    if (strcasecmp(name, "minus") == 0) return SEQNUM_CARD_MINUS;
    /* "A+B" or "A-B": digits, one sign, digits, and no more. */
    int a = 0, b = 0, i = 0, da = 0, db = 0;
    for (; isdigit((unsigned char)name[i]) && da < 3; i++, da++)
        a = a * 10 + name[i] - '0';
    char op = name[i];
    if (!da || (op != '+' && op != '-')) return -1;
    for (i++; isdigit((unsigned char)name[i]) && db < 3; i++, db++)
        b = b * 10 + name[i] - '0';
    if (!db || name[i]) return -1;
    int n = op == '+' ? a + b : a - b;
    if (n < 1 || n > SEQNUM_TOP) return -1;
    int kind = op == '+' ? n - 1 : SEQNUM_TOP + n - 1;
    return strcmp(seqnum_card_name(kind), name) == 0 ? kind : -1;
}

int seqnum_team(const seqnum_t *g, int seat)
{
    return seat % g->nteams;
}

/* ------------------------------------------------------------------ */
/* Sequences                                                            */
/* ------------------------------------------------------------------ */

bool seqnum_locked(const seqnum_t *g, int cell)
{
    if (seqnum_corner(cell) || g->chip[cell] == SEQNUM_NO_CHIP) return false;
    for (int i = 0; i < g->nseqs; i++)
        for (int k = 0; k < 5; k++)
            if (g->seqs[i].cells[k] == cell) return true;
    return false;
}

bool seqnum_dead(const seqnum_t *g, int kind)
{
    int n = seqnum_answer(kind), c[2];
    if (!n) return false;
    seqnum_cells_of(n, c);
    return g->chip[c[0]] != SEQNUM_NO_CHIP && g->chip[c[1]] != SEQNUM_NO_CHIP;
}

int seqnum_team_sequences(const seqnum_t *g, int team)
{
    int k = 0;
    for (int i = 0; i < g->nseqs; i++)
        k += g->seqs[i].team == team;
    return k;
}

/* Chips (not corners) that the window shares with the team's sequence s. */
static int shared(const seqnum_seq_t *s, const int *cells)
{
    int k = 0;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++)
            k += s->cells[i] == cells[j] && !seqnum_corner(cells[j]);
    return k;
}

int seqnum_find_sequences(seqnum_t *g, int team, int cell)
{
    static const int dirs[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
    int found = 0, r0 = cell / SEQNUM_SIDE, c0 = cell % SEQNUM_SIDE;
    for (int d = 0; d < 4; d++)
        for (int back = 4; back >= 0; back--) {
            int cells[5], ok = 1;
            for (int i = 0; i < 5 && ok; i++) {
                int r = r0 + (i - back) * dirs[d][0], c = c0 + (i - back) * dirs[d][1];
                if (r < 0 || r >= SEQNUM_SIDE || c < 0 || c >= SEQNUM_SIDE) {
                    ok = 0;
                    break;
                }
                cells[i] = r * SEQNUM_SIDE + c;
                ok = seqnum_corner(cells[i]) || g->chip[cells[i]] == team;
            }
            for (int s = 0; s < g->nseqs && ok; s++)
                if (g->seqs[s].team == team && shared(&g->seqs[s], cells) > 1) ok = 0;
            if (!ok || g->nseqs >= SEQNUM_MAX_SEQS) continue;
            seqnum_seq_t *s = &g->seqs[g->nseqs++];
            s->team = team;
            memcpy(s->cells, cells, sizeof cells);
            found++;
        }
    return found;
}
