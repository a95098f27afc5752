/*
 * slap.h — the state of a slap table (the one-hand discard race), exposed for
 * the game's own files and its tests (hand-built states). Everyone else uses
 * core/game.h.
 *
 * Rules: ../../shared/seeds/004 (French); what is implemented, and every
 * interpretation and server rule, is in RULES.md beside this.
 * Options (the table slap_options in slap.c):
 *   go_ms       the "go" of a round comes this many ms after its set-up (1000)
 *   stall_ms    when nobody can play, the server turns up new cards after this
 *               many ms (1500)
 *   max_stalls  a round in which nobody can play once more after this many
 *               stalls ends blocked (30)
 *   max_rounds  the game ends after this many rounds at most (20)
 *
 * Everyone acts at once: the only order is the order of apply() calls, which
 * the server makes the order of the received timestamps (`now`, ms).
 */
#ifndef TAPIS_SLAP_SLAP_H
#define TAPIS_SLAP_SLAP_H

#include "core/game.h"

#define SLAP_COLOURS 4
#define SLAP_VALUES 11
#define SLAP_COPIES 3
#define SLAP_KINDS (SLAP_COLOURS * SLAP_VALUES)
#define SLAP_DECK (SLAP_KINDS * SLAP_COPIES) /* 132 */
#define SLAP_MAX_SEATS 6
#define SLAP_COLUMNS 4
#define SLAP_COLUMN_MAX 4 /* the longest column (dealt); moves only fill empty ones */
#define SLAP_EVENTS 6
#define SLAP_UNSET INT64_MIN /* a time not set */

/* A card is its kind: colour * 11 + (value - 1). Names "R1".."R11", "G..", "B..", "Y..". */
typedef uint8_t slap_card_t;

static inline int slap_colour(slap_card_t c)
{
    return c / SLAP_VALUES;
}
static inline int slap_value(slap_card_t c)
{
    return c % SLAP_VALUES + 1;
}
/* "R7" (static storage); the parse is case-insensitive, -1 if unknown. */
const char *slap_card_name(slap_card_t c);
int slap_card_parse(const char *name);

typedef enum slap_phase {
    SLAP_SETUP, /* columns laid; waiting for the go */
    SLAP_PLAY,  /* everyone plays at once */
    SLAP_RACE,  /* a pile was boxed: the others race to slap the rest */
    SLAP_OVER,
} slap_phase_t;

typedef struct slap_column {
    slap_card_t cards[SLAP_COLUMN_MAX]; /* bottom first; top is cards[n - 1] */
    int n;
    bool up; /* the top card is face up */
} slap_column_t;

typedef struct slap_player {
    slap_card_t draw[SLAP_DECK]; /* face down; top is draw[ndraw - 1] */
    int ndraw;
    slap_column_t col[SLAP_COLUMNS];
    int slapped; /* this round: the pile this player slapped, or -1 */
} slap_player_t;

typedef struct slap_pile {
    slap_card_t cards[SLAP_DECK]; /* face up; top is cards[n - 1] */
    int n;
    int taken_by; /* this round: the seat that slapped it, or -1 */
} slap_pile_t;

typedef struct slap {
    game_t base;
    /* options */
    int go_ms, stall_ms, max_stalls, max_rounds;

    rng_t rng;
    slap_player_t p[SLAP_MAX_SEATS];
    slap_pile_t pile[SLAP_MAX_SEATS]; /* one discard pile per player (pile i: seat i's go card) */
    slap_card_t box[SLAP_DECK];       /* boxed piles: out of the game */
    int nbox;
    slap_card_t out[SLAP_DECK]; /* leftovers of the deal, face down, out of play */
    int nout;

    int round, stalls;
    slap_phase_t phase;
    int64_t now;       /* the time of the last change */
    int64_t go_at;     /* SLAP_SETUP: the go; SLAP_UNSET until the clock is known */
    int64_t stall_at;  /* SLAP_PLAY with nobody able to act: the next stall */
    int first;         /* the seat that boxed a pile this round, or -1 */
    unsigned winners;  /* bit mask, once over */
    game_log_t events; /* the last public events, oldest first (shared by views) */
} slap_t;

extern const game_desc_t slap_desc;

/* May `card` go on a pile whose top is `top`? (higher and of another colour, or odd on an
 * even card of its own colour) */
bool slap_fits(slap_card_t card, slap_card_t top);
/* A seat's cards in play: its draw pile and its columns. */
int slap_cards_held(const slap_t *g, int seat);

/* --- for tests: hand-built states (every card stays accounted for) --- */

/*
 * Make `seat`'s column `col` exactly the named cards, bottom first ("" for an
 * empty column), its top face up or not. The column's old cards go under the
 * seat's draw pile; the new ones are taken from the draw piles (this seat's
 * first) or the leftovers. Returns -1 if a card cannot be found.
 */
int slap_set_column(slap_t *g, int seat, int col, const char *names, bool up);
/* Make pile k exactly the named cards, bottom first; old cards go under seat k's draw pile. */
int slap_set_pile(slap_t *g, int k, const char *names);
/*
 * Make `seat`'s draw pile exactly the named cards, bottom first: its old cards
 * go to the leftovers (out of play), the named ones come from there or from
 * the other draw piles.
 */
int slap_set_draw(slap_t *g, int seat, const char *names);
/* After hand-building: recompute the stall deadline as apply() would at g->now. */
void slap_refresh(slap_t *g);

/*
 * The reaction time a strategy string names ("greedy:250" -> 250), or -1 when
 * it names none. The bot itself is pure: the server (tapisd's bot delay) or a
 * client (tapis-bot) waits that long before sending its choice.
 */
int slap_bot_reaction_ms(const char *strategy);

#endif
