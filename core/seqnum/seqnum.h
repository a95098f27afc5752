/*
 * seqnum.h — the state of a seqnum table ("sequence numbers"), exposed for
 * the game's own files and its tests (hand-built states). Everyone else uses
 * core/game.h.
 *
 * Rules: ../../shared/seeds/003 (French); what is implemented, and every
 * interpretation, is in RULES.md beside this.
 * Options (the table seqnum_options in seqnum.c):
 *   teams      0: automatic (players alone at 2-3, two teams at 4 and 6);
 *              otherwise the number of teams: 2 or 3 players alone (teams ==
 *              players), 4 players in 2 teams, 6 players in 2 or 3 teams (0)
 *   max_turns  server rule: the game ends as a draw after this many turns
 *              (plays and passes), 1..10000 (400)
 */
#ifndef TAPIS_SEQNUM_SEQNUM_H
#define TAPIS_SEQNUM_SEQNUM_H

#include "core/game.h"

#define SEQNUM_MAX_SEATS 6
#define SEQNUM_SIDE 10
#define SEQNUM_CELLS 100
#define SEQNUM_TOP 48   /* the numbers on the board are 1..48 */
#define SEQNUM_KINDS 98 /* 48 additions, 48 subtractions, plus, minus */
#define SEQNUM_DECK 100 /* plus and minus have two copies each */
#define SEQNUM_MAX_HAND 5
#define SEQNUM_MAX_SEQS 32
#define SEQNUM_EVENTS 8

/* Card kinds: 0..47 the addition whose answer is k + 1, 48..95 the subtraction
 * whose answer is k - 47, then the two action cards. */
#define SEQNUM_CARD_PLUS 96
#define SEQNUM_CARD_MINUS 97

/* A cell's chip: a team index, or SEQNUM_NO_CHIP. */
#define SEQNUM_NO_CHIP (-1)

typedef struct seqnum_seq {
    int team;
    int cells[5];
} seqnum_seq_t;

typedef struct seqnum_player {
    uint8_t hand[SEQNUM_MAX_HAND]; /* card kinds, sorted */
    int nhand;
    int max_cards;                 /* cards the player may hold: the deal, less every lapsed draw */
    int owe;                       /* the turn number of a play whose draw is pending, or -1 */
    int lapsed;                    /* draws lost */
    uint8_t discards[SEQNUM_DECK]; /* the player's face-up discard pile, oldest first */
    int ndiscards;
} seqnum_player_t;

typedef struct seqnum {
    game_t base;
    /* options and what follows from the player count */
    int nteams, goal, max_turns, deal;

    rng_t rng;
    uint8_t draw[SEQNUM_DECK]; /* top is draw[ndraw - 1] */
    int ndraw;
    int reshuffles;
    seqnum_player_t p[SEQNUM_MAX_SEATS];

    int8_t chip[SEQNUM_CELLS];
    seqnum_seq_t seqs[SEQNUM_MAX_SEQS];
    int nseqs;

    int turn;    /* the seat to play */
    int turns;   /* plays and passes so far */
    bool traded; /* the turn seat has traded a dead card this turn */
    bool over;
    int winner;         /* winning team, or -1 (a draw) */
    const char *reason; /* why it ended: "sequences", "max_turns", "no_cards" */
    game_log_t events;  /* the last public events, oldest first (shared by views) */
} seqnum_t;

extern const game_desc_t seqnum_desc;

/* --- the board and the cards (board.c) --- */

/* The number printed on a cell, 0 on the four free corners. */
int seqnum_number(int cell);
bool seqnum_corner(int cell);
/* The two cells that show n (1..48). */
void seqnum_cells_of(int n, int out[2]);
/* The answer of an equation card (1..48); 0 for plus and minus. */
int seqnum_answer(int kind);
/* An equation's operands: answer = a + b (additions) or a - b (subtractions). */
void seqnum_operands(int kind, int *a, int *b);
int seqnum_copies(int kind);
/* "32+16", "48-0", "plus", "minus". */
const char *seqnum_card_name(int kind);
/* The kind of a card name (case-insensitive), or -1. */
int seqnum_card_parse(const char *name);
int seqnum_team(const seqnum_t *g, int seat);
/* Is the chip on cell part of a finished sequence? */
bool seqnum_locked(const seqnum_t *g, int cell);
/* An equation card whose two cells are covered. */
bool seqnum_dead(const seqnum_t *g, int kind);
/*
 * The team's chip has just been put on cell: record every sequence it
 * completes (five in a line of the team's chips or free corners, sharing at
 * most one chip with each of the team's earlier sequences). Returns how many.
 */
int seqnum_find_sequences(seqnum_t *g, int team, int cell);
int seqnum_team_sequences(const seqnum_t *g, int team);

/* --- for tests: hand-built states (view.c) --- */

/*
 * Give `seat` exactly the cards named ("32+16 plus"), taking them from the
 * draw pile (or, failing that, from another seat's hand, which gets cards of
 * the pile instead) and putting the seat's old hand back into the pile.
 * The hand must fit max_cards. Returns -1 on an unknown or missing card.
 */
int seqnum_give_hand(seqnum_t *g, int seat, const char *names);
/* Put the named card on top of the draw pile (taken from the pile). */
int seqnum_stack_draw(seqnum_t *g, const char *name);
/* Put a chip of `team` on cell (SEQNUM_NO_CHIP clears it), with no sequence check. */
void seqnum_put_chip(seqnum_t *g, int cell, int team);

#endif
