/* registry.c — the one table of games. Immutable: a game is added here once. */
#include <string.h>

#include "game.h"

extern const game_desc_t g233_desc;
extern const game_desc_t aspoint3_desc;
extern const game_desc_t seqnum_desc;
extern const game_desc_t slap_desc;

static const game_desc_t *const games[] = {
    &g233_desc,
#ifdef TAPIS_GAME_ASPOINT3
    &aspoint3_desc,
#endif
#ifdef TAPIS_GAME_SEQNUM
    &seqnum_desc,
#endif
#ifdef TAPIS_GAME_SLAP
    &slap_desc,
#endif
};

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
