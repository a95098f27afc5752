/*
 * render.h — pictures of a table for the `tapis` terminal client.
 *
 * One renderer per game, found by the view's "game" key (or the room's game
 * id); a game without one falls back to a compact view of its JSON. A
 * renderer only reads a view (the one the server sent this viewer), so it
 * can never show more than the viewer may see.
 *
 * Colours are ANSI escapes, used only when ctx->color is set (the client
 * clears it for NO_COLOR and for output that is not a terminal).
 *
 * Every string of a view is the server's word, so a renderer writes none of
 * them raw: names come escaped from render_seat_name(), the rest goes through
 * safe_fputs() / safe_text() (safe_text.h), JSON through safe_fwrite_json().
 */
#ifndef TAPIS_CLIENTS_RENDER_H
#define TAPIS_CLIENTS_RENDER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "clients/safe_text.h"

typedef struct render_ctx {
    FILE *out;
    bool color;
    const char *room;    /* the room's id, already escaped (safe_text.h) */
    const json_t *seats; /* the room's seats as in its "room" event, or NULL */
} render_ctx_t;

typedef struct renderer {
    const char *game; /* game id */
    /* Draw the table for this viewer. */
    void (*table)(const render_ctx_t *ctx, const json_t *view);
    /*
     * The viewer's hand in the order the picture numbers it (a new array of
     * card names), or NULL when the game has no hand. `discard 3` uses it.
     */
    json_t *(*hand_order)(const json_t *view);
    /*
     * Rewrite a typed line into the line to send, or NULL to keep it as is:
     * 233 turns hand positions into card names (`discard 3`). A malloc()ed
     * string on success.
     */
    char *(*translate)(const json_t *view, const char *line);
    /* Describe a game_over result (optional). */
    void (*result)(const render_ctx_t *ctx, const json_t *result);
    /*
     * An action the client may send by itself as soon as this view allows it
     * (a new object), or NULL: seqnum's draw, for `autodraw on`. Optional.
     */
    json_t *(*auto_action)(const json_t *view);
} renderer_t;

/* The renderer of a game, or the compact-JSON fallback (never NULL). */
const renderer_t *render_find(const char *game);

/* ANSI SGR on/off around text, or nothing when colour is off. */
const char *render_sgr(const render_ctx_t *ctx, const char *sgr);
#define RENDER_OFF "0"
#define RENDER_BOLD "1"
#define RENDER_DIM "2"
#define RENDER_RED "31"
/* text (escaped: safe_fputs()) in the colour sgr; returns the width written (colour aside). */
int render_put_sgr(const render_ctx_t *ctx, const char *sgr, const char *text);

/* o[key] as an int, or dflt when it is not an integer (null, missing). */
int render_int(const json_t *o, const char *key, int dflt);

/* A seat's name from the room's seats, escaped ("botK" for bots, "seat K" when unknown). */
const char *render_seat_name(const render_ctx_t *ctx, int seat, char *buf, size_t cap);

/*
 * The table's first line, in bold: "-- room R . <fmt ...> --", or
 * "-- room R --" when fmt is NULL. What fmt adds must be escaped already.
 */
void render_heading(const render_ctx_t *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The first words of a result, in bold: "game over in room R after <fmt ...>:". */
void render_game_over(const render_ctx_t *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * The start of a player's line, "> seat 2  alice (you)", the name padded so
 * that the rest lines up: ">" when `marked`, bold when `bold` (the caller
 * turns it off), " (you)" when `you`.
 */
void render_player_head(const render_ctx_t *ctx, int seat, bool marked, bool bold, bool you);

/*
 * render_player_head() for the i-th entry `p` of a view's "players" in a turn
 * game: its seat (p's "seat", else i) in *seat, marked and bold when it is its
 * turn (`turn`) and the game is not over, " (you)" for `me`. Returns whether
 * it is that seat's turn: then the caller turns bold off.
 */
bool render_turn_head(const render_ctx_t *ctx, const json_t *p, size_t i, int turn, bool over,
                      int me, int *seat);

/* `before`, then the names of the seats of the array `seats` joined by ", ";
   nothing when it is empty. Returns the number of seats. */
size_t render_seat_list(const render_ctx_t *ctx, const json_t *seats, const char *before);

/* " name N" for every seat, N its value in the array `values` (scores, cards held). */
void render_seat_values(const render_ctx_t *ctx, const json_t *values);

/*
 * A result counted in rounds, on one line: "game over ... after N rounds:",
 * " winner A, B" (or `none` when nobody won and `none` is not NULL), then
 * " . <label>" and " name N" for each seat of result[key].
 */
void render_rounds_result(const render_ctx_t *ctx, const json_t *result, const char *none,
                          const char *label, const char *key);

/* A game's card writer: the card (escaped, maybe coloured); returns its width. */
typedef int render_card_fn(const render_ctx_t *ctx, const char *card);
/* The cards of the array `cards`, blank-separated, each written by put_card;
   returns the width written (colour aside). */
int render_put_cards(const render_ctx_t *ctx, const json_t *cards, render_card_fn *put_card);

/* The start of an event: "name did card", the name when it has a seat, the
   card when it has one, written by put_card (escaped text when NULL). */
void render_event_head(const render_ctx_t *ctx, const json_t *ev, const char *did,
                       render_card_fn *put_card);

/*
 * The line "  last: A | B | ..." of the newest `max` events of `events`
 * (oldest first), each written by the game's `put`; nothing when empty.
 */
void render_last_events(const render_ctx_t *ctx, const json_t *events, size_t max,
                        void (*put)(const render_ctx_t *ctx, const json_t *ev));

/* The fallback: the view's JSON, compact, without "legal". */
void render_json_table(const render_ctx_t *ctx, const json_t *view);
void render_json_result(const render_ctx_t *ctx, const json_t *result);

extern const renderer_t render_233;
extern const renderer_t render_aspoint3;
extern const renderer_t render_seqnum;
extern const renderer_t render_slap;

#endif
