/*
 * registry.c — the one table of games. Immutable.
 *
 * The games are listed once, in core/meson.build (tapis_games), which builds
 * each game's folder and generates tapis_games.h: TAPIS_GAMES(X) expands to
 * X(prefix) once per game, in the list's order. This file turns that into the
 * table, so adding a game never touches it; a game listed without its
 * descriptor <prefix>_desc is a link error.
 */
#include <string.h>

#include "core/game.h"
#include "core/tapis_games.h"

#define TAPIS_GAME_DECLARE(prefix) extern const game_desc_t prefix##_desc;
TAPIS_GAMES(TAPIS_GAME_DECLARE)
#undef TAPIS_GAME_DECLARE

#define TAPIS_GAME_ENTRY(prefix) &prefix##_desc,
static const game_desc_t *const games[] = {TAPIS_GAMES(TAPIS_GAME_ENTRY)};
#undef TAPIS_GAME_ENTRY

const game_desc_t *const *game_registry(int *n)
{
    *n = (int)(sizeof games / sizeof games[0]);
    return games;
}

const game_desc_t *game_find(const char *id)
{
    for (size_t i = 0; i < sizeof games / sizeof games[0]; i++)
        if (id && strcmp(games[i]->id, id) == 0) return games[i];
    return NULL;
}
