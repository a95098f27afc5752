/*
 * bot.c — the slap bot: a pure function of one seat's view (never the state).
 * The server's built-in bots and tapis-bot both call it.
 *
 * Strategies: "greedy" and "random", each optionally with a reaction time,
 * "greedy:250". The reaction time is not the bot's business (a pure function
 * has no clock): whoever runs the bot waits that long before sending its
 * choice — tapisd's bot delay (--bot-delay), or a client. slap_bot_reaction_ms()
 * reads it for them.
 *
 * "greedy" slaps the smallest free pile (the first slap boxes it; a racer
 * takes the fewest cards home), else plays a face-up card — from the longest
 * column first (it uncovers the most), onto the pile where it fits most
 * tightly — else turns up a face-down top, else moves a card into an empty
 * column from the longest column. "random" is the kit's (a uniformly drawn
 * legal action).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/slap/internal.h"
#include "core/search.h"

static const char *type_of(const json_t *a)
{
    return json_string_value(json_object_get(a, "type"));
}

static int int_of(const json_t *o, const char *key)
{
    return (int)json_integer_value(json_object_get(o, key));
}

/* Column c of the viewer: its size and its face-up top (-1 if none). */
static int my_column(const json_t *view, int c, int *top)
{
    int seat = int_of(view, "seat");
    json_t *p = json_array_get(json_object_get(view, "players"), (size_t)seat);
    *top =
        slap_card_parse(json_string_value(json_array_get(json_object_get(p, "tops"), (size_t)c)));
    return (int)json_integer_value(json_array_get(json_object_get(p, "sizes"), (size_t)c));
}

static json_t *pile(const json_t *view, int k)
{
    return json_array_get(json_object_get(view, "piles"), (size_t)k);
}

/* Higher is better; the first of equal scores wins. */
static int score(const json_t *view, const json_t *a)
{
    const char *t = type_of(a);
    if (strcmp(t, "slap") == 0) return 1000000 - int_of(pile(view, int_of(a, "pile")), "cards");
    int card, size = my_column(view, int_of(a, "column"), &card);
    if (strcmp(t, "play") == 0) {
        int top = slap_card_parse(
            json_string_value(json_object_get(pile(view, int_of(a, "pile")), "top")));
        int gap = card >= 0 && top >= 0
                      ? abs(slap_value((slap_card_t)card) - slap_value((slap_card_t)top))
                      : 0;
        return 500000 + size * 100 - gap;
    }
    if (strcmp(t, "turn") == 0) return 300000;
    if (strcmp(t, "move") == 0) return 100000 + size;
    return 0;
}

json_t *slap_greedy(const json_t *view, const json_t *legal, const char *strategy, rng_t *rng)
{
    (void)strategy;
    (void)rng;
    const json_t *best = NULL;
    int best_score = -1;
    size_t i;
    json_t *a;
    json_array_foreach(legal, i, a)
    {
        int s = score(view, a);
        if (s > best_score) {
            best = a;
            best_score = s;
        }
    }
    return json_deep_copy(best);
}

int slap_bot_reaction_ms(const char *strategy)
{
    const char *colon = strategy ? strchr(strategy, ':') : NULL;
    if (!colon || !colon[1]) return -1;
    char *end;
    long ms = strtol(colon + 1, &end, 10);
    if (*end || ms < 0 || ms > 60000) return -1;
    return (int)ms;
}
