/*
 * floor_script.h — the script the floor replays (floor.c): for each request
 * of `loadgen tables`, the bytes tapisd wrote for it to each of the table's
 * two seats, as `floor record` took them down (floor_record.c).
 *
 * The file is text, one item a line ('#' starts a comment):
 *   step KIND SEAT   a request of seat SEAT (0 or 1): hello, create, leave1
 *                    (the first to leave) or leave2 (the last), which every
 *                    game shares, or join or act, a step of the game above
 *   in TEXT          the request line, as loadgen sends it
 *   out SEAT TEXT    a line tapisd wrote to seat SEAT for it, in order
 *   game over|cut    a new game: played to its end (game_over), or cut short
 * TEXT is verbatim except for its holes: byte 0x01 (which JSON text never
 * holds raw) and 'R' for the room id, 'A' for seat 0's name, 'B' for seat 1's.
 */
#ifndef TAPIS_BENCH_FLOOR_SCRIPT_H
#define TAPIS_BENCH_FLOOR_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>

#define SCRIPT_HOLE '\1'

enum { K_HELLO, K_CREATE, K_JOIN, K_ACT, K_LEAVE_FIRST, K_LEAVE_LAST, K_COUNT };

/* Text with holes, appended to as it is built. */
typedef struct {
    char *data;
    size_t len, cap;
} text_t;

/* One request of a seat and what tapisd wrote for it to each seat. */
typedef struct {
    int kind, seat;
    text_t in, out[2];
} step_t;

/* One game: its join, then its acts; if `over`, the last act's output holds game_over. */
typedef struct {
    step_t *steps;
    size_t n, cap;
    bool over;
} game_script_t;

/*
 * The steps every game shares, by kind and seat (hello: seat 0's, which
 * serves any connection; create; each seat's leave, first or last), a step
 * not recorded having no `in` text; and the games.
 */
typedef struct {
    step_t shared[K_COUNT][2];
    game_script_t *games;
    size_t ngames;
} script_t;

/* The values of the holes: the room id and the names of seats 0 and 1. */
typedef struct {
    const char *room, *name[2];
} fill_t;

void text_add(text_t *t, const char *p, size_t n);
void step_free(step_t *st);

/* A new, empty game at the end of sc. */
game_script_t *script_new_game(script_t *sc);
/* A new, empty step of game g. */
step_t *script_new_step(game_script_t *g);
/* Take the last game out of sc (the recorder drops a game it cannot replay). */
void script_drop_game(script_t *sc);
/* Make st the shared step of its kind and seat, unless one is kept already (then free st). */
void script_keep_shared(script_t *sc, step_t *st);

/* Read a script file into sc (empty). 0, or -1 with the reason printed. */
int script_load(script_t *sc, const char *path);
/* Write sc to path, after a comment line. 0, or -1 with the reason printed. */
int script_write(const script_t *sc, const char *path, const char *comment);
void script_free(script_t *sc);

/* t with its holes filled, in a buffer kept for the next call; its length in *len. */
const char *script_render(const text_t *t, const fill_t *fill, size_t *len);

/*
 * floor_record.c: play `games` games against the tapisd on 127.0.0.1:port,
 * each cut at `acts` acts, created with the option target (0: the game's
 * default), and write their script to path. Returns 0; exits 1 on trouble.
 */
int record_games(int port, const char *path, int games, int acts, int target);

#endif
