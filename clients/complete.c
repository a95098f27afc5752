/*
 * complete.c — what Tab offers for the word being typed.
 *
 *   first word        commands, and the types of the legal actions
 *   join/watch/leave/room ROOM       the rooms we are in
 *   create GAME       the games the server hosts (its `games` reply)
 *   create GAME ...   the player counts, `private`, and KEY=DEFAULT for each
 *                     option of that game (after KEY=, its default)
 *   addbot ...        strategy=LEVEL for the bot levels of the room's game
 *                     (after strategy=, the levels); the rooms, first
 *   help CMD, autodraw on|off
 *   anything else     the words of the legal actions as the inline form
 *                     writes them (`pick d<Tab>` -> `pick down`), hand cards
 *
 * Game ids, options and bot levels come from the server only: the client
 * asks `games` itself the first time it needs them (link_games()).
 *
 * libedit (like readline) breaks words at '=' too, so the word being
 * completed may be the value of a KEY=VALUE word.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/protocol.h"
#include "clients/safe_text.h"
#include "clients/session.h"

/* How long Tab may wait for the server's `games` reply, the first time. */
#define GAMES_WAIT_MS 1000
#define MAX_WORDS 16

static const char *const COMMANDS[] = {
    "hello", "games", "create", "rooms", "join",  "watch", "leave",    "addbot", "act", "state",
    "say",   "ping",  "help",   "quit",  "legal", "view",  "autodraw", "room",   NULL};

/* Add s unless it is there already, or has characters that must be escaped to be shown. */
static void add_unique(json_t *list, const char *s)
{
    size_t i;
    json_t *v;
    if (!s || !safe_is_clean(s, strlen(s))) return;
    json_array_foreach(list, i, v) if (strcmp(json_string_value(v), s) == 0) return;
    json_array_append_new(list, json_string(s));
}

/* Split s (modified) into at most max blank-separated words. */
static int split_words(char *s, char **words, int max)
{
    int n = 0;
    char *save;
    for (char *w = strtok_r(s, " \t", &save); w && n < max; w = strtok_r(NULL, " \t", &save))
        words[n++] = w;
    return n;
}

/* A typed word stands for a rendered one: the same, or its value (`down` for card=down). */
static bool word_matches(const char *rendered, const char *typed)
{
    const char *eq = strchr(rendered, '=');
    return strcmp(rendered, typed) == 0 || (eq && strcmp(eq + 1, typed) == 0);
}

/* ------------------------------------------------------------------------ */
/* Actions, rooms                                                           */
/* ------------------------------------------------------------------------ */

/*
 * Any game: the word being completed, from the legal actions as the inline
 * form writes them (`pick card=down`, `play column=2 pile=1`) whose earlier
 * words match what is typed; both key=value and the bare value are offered.
 */
static void add_action_words(json_t *out, const json_t *legal, const char *line, int start)
{
    char typed_buf[1024], *typed[MAX_WORDS];
    snprintf(typed_buf, sizeof typed_buf, "%.*s", start, line);
    int nt = split_words(typed_buf, typed, MAX_WORDS);
    size_t i;
    json_t *a;
    json_array_foreach(legal, i, a)
    {
        char *text = inline_render_action(a), *words[MAX_WORDS + 1];
        int nw = text ? split_words(text, words, MAX_WORDS + 1) : 0;
        bool match = nw > nt;
        for (int k = 0; match && k < nt; k++)
            match = word_matches(words[k], typed[k]);
        if (match) {
            add_unique(out, words[nt]);
            const char *eq = strchr(words[nt], '=');
            if (eq && eq[1]) add_unique(out, eq + 1);
        }
        free(text);
    }
}

static void add_rooms(json_t *out, const session_t *s)
{
    for (int k = 0; k < SESSION_MAX_ROOMS; k++)
        if (s->rooms[k].id[0]) add_unique(out, s->rooms[k].id);
}

static void add_commands(json_t *out)
{
    for (int k = 0; COMMANDS[k]; k++)
        add_unique(out, COMMANDS[k]);
}

/* ------------------------------------------------------------------------ */
/* Games: create, addbot                                                    */
/* ------------------------------------------------------------------------ */

/* An option's default as the inline form would type it, or NULL (arrays, objects). */
static const char *value_word(const json_t *v, char *buf, size_t cap)
{
    if (json_is_string(v)) return strchr(json_string_value(v), ' ') ? NULL : json_string_value(v);
    if (json_is_integer(v)) {
        snprintf(buf, cap, "%lld", (long long)json_integer_value(v));
        return buf;
    }
    if (json_is_boolean(v)) return json_is_true(v) ? "true" : "false";
    return json_is_null(v) ? "null" : NULL;
}

/* `create GAME ...`: players (as the second word), private, KEY=DEFAULT; after KEY=, DEFAULT. */
static void add_create_words(json_t *out, const json_t *game, int nt, const char *key)
{
    const json_t *options = json_object_get(game, "options");
    const char *k;
    json_t *v;
    char buf[64], word[160];
    size_t klen = strlen(key);
    if (klen && key[klen - 1] == '=') {
        json_object_foreach((json_t *)options, k,
                            v) if (strlen(k) == klen - 1 && strncmp(k, key, klen - 1) == 0)
            add_unique(out, value_word(v, buf, sizeof buf));
        return;
    }
    if (nt == 2) {
        json_int_t lo = json_integer_value(json_object_get(game, "min_players"));
        json_int_t hi = json_integer_value(json_object_get(game, "max_players"));
        for (json_int_t n = lo; n >= 1 && n <= hi && n <= 64; n++) {
            snprintf(buf, sizeof buf, "%lld", (long long)n);
            add_unique(out, buf);
        }
    }
    add_unique(out, "private");
    json_object_foreach((json_t *)options, k, v)
    {
        const char *value = value_word(v, buf, sizeof buf);
        if (!value) continue;
        snprintf(word, sizeof word, "%s=%s", k, value);
        add_unique(out, word);
    }
}

/* The bot levels of a game, each as prefix + level. */
static void add_levels(json_t *out, const json_t *game, const char *prefix)
{
    size_t i;
    json_t *b;
    char word[160];
    json_array_foreach(json_object_get(game, "bots"), i, b)
    {
        const char *level = json_string_value(json_object_get(b, "level"));
        if (!level) continue;
        snprintf(word, sizeof word, "%s%s", prefix, level);
        add_unique(out, word);
    }
}

/*
 * `addbot [ROOM] [strategy=LEVEL]`: the levels of the room's game (the room
 * typed, else the current one), or of every game when it is not known.
 */
static void add_addbot_words(json_t *out, session_t *s, char **typed, int nt, const char *key)
{
    const json_t *games = link_games(s, GAMES_WAIT_MS);
    room_info_t *r = nt >= 2 ? session_room(s, typed[1], false) : NULL;
    if (!r) r = session_current_room(s);
    const json_t *game = session_game_info(s, session_room_game(r));
    const char *prefix = strcmp(key, "strategy=") == 0 ? "" : "strategy=";
    if (key[0] && prefix[0]) return; /* some other KEY= */
    if (game) {
        add_levels(out, game, prefix);
    } else {
        size_t i;
        json_t *g;
        json_array_foreach(games, i, g) add_levels(out, g, prefix);
    }
    if (nt == 1 && !key[0]) add_rooms(out, s);
}

/* ------------------------------------------------------------------------ */

json_t *complete_candidates(session_t *s, const char *line, int start)
{
    json_t *out = json_array();
    size_t len = strlen(line);
    if (start < 0 || (size_t)start > len) start = (int)len;
    /* The blank-separated word being typed starts at word; line[word..start) is a KEY= or "". */
    int word = start;
    while (word > 0 && line[word - 1] != ' ' && line[word - 1] != '\t')
        word--;
    char key[64], before[1024], *typed[MAX_WORDS];
    snprintf(key, sizeof key, "%.*s", start - word, line + word);
    snprintf(before, sizeof before, "%.*s", word, line);
    int nt = split_words(before, typed, MAX_WORDS);
    const char *first = nt ? typed[0] : "";
    const json_t *legal = session_current_legal(s);
    size_t i;
    json_t *v;

    if (start == 0) {
        add_commands(out);
        json_array_foreach(legal, i, v)
            add_unique(out, json_string_value(json_object_get(v, "type")));
    } else if (!strcmp(first, "join") || !strcmp(first, "watch") || !strcmp(first, "leave") ||
               !strcmp(first, "room")) {
        add_rooms(out, s);
    } else if (!strcmp(first, "create")) {
        const json_t *games = link_games(s, GAMES_WAIT_MS);
        if (nt == 1 && !key[0]) {
            json_array_foreach(games, i, v)
                add_unique(out, json_string_value(json_object_get(v, "id")));
        } else if (nt >= 2) {
            add_create_words(out, session_game_info(s, typed[1]), nt, key);
        }
    } else if (!strcmp(first, "addbot")) {
        add_addbot_words(out, s, typed, nt, key);
    } else if (!strcmp(first, "help")) {
        add_commands(out);
    } else if (!strcmp(first, "autodraw")) {
        add_unique(out, "on");
        add_unique(out, "off");
    } else {
        add_action_words(out, legal, line, start);
        room_info_t *r = session_current_room(s);
        json_array_foreach(r && r->view ? json_object_get(r->view, "hand") : NULL, i, v)
            add_unique(out, json_string_value(v));
    }
    return out;
}
