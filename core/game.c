/* game.c — what every game shares: option merging and the refusal helper. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "game.h"

int game_fail(game_error_t *err, const char *code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->code = code;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int game_action_type(const json_t *action, const char *const *names, int n, const char *title,
                     game_error_t *err)
{
    if (!json_is_object(action))
        return game_fail(err, "bad_action", "an action is a JSON object with a \"type\"");
    const char *type = json_string_value(json_object_get(action, "type"));
    if (!type) return game_fail(err, "bad_action", "an action needs a \"type\" string");
    for (int i = 0; i < n; i++)
        if (strcmp(type, names[i]) == 0) return i;
    return game_fail(err, "unknown_action", "%s has no action \"%.40s\"", title, type);
}

bool game_action_keys_ok(const json_t *action, const char *const *keys)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)action, k, v)
    {
        bool known = strcmp(k, "type") == 0 || strcmp(k, "args") == 0;
        for (int i = 0; keys && keys[i] && !known; i++)
            known = strcmp(k, keys[i]) == 0;
        if (!known) return false;
    }
    return true;
}

json_t *game_default_options(const game_desc_t *d)
{
    json_t *o = json_loads(d->default_options, 0, NULL);
    return o ? o : json_object();
}

static bool same_kind(const json_t *def, const json_t *v)
{
    if (json_is_boolean(def)) return json_is_boolean(v);
    if (json_is_integer(def)) return json_is_integer(v);
    if (json_is_number(def)) return json_is_number(v);
    return json_typeof(def) == json_typeof(v);
}

game_t *game_new(const game_desc_t *d, int seats, const json_t *user, uint64_t seed,
                 game_error_t *err)
{
    if (seats < d->min_seats || seats > d->max_seats) {
        game_fail(err, "bad_players", "%s is played by %d to %d players, not %d", d->title,
                  d->min_seats, d->max_seats, seats);
        return NULL;
    }
    if (user && !json_is_object(user)) {
        game_fail(err, "bad_option", "options must be a JSON object");
        return NULL;
    }
    json_t *opts = game_default_options(d);
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)user, key, v)
    {
        json_t *def = json_object_get(opts, key);
        if (!def) {
            game_fail(err, "bad_option", "%s has no option \"%s\"", d->title, key);
            json_decref(opts);
            return NULL;
        }
        if (!same_kind(def, v)) {
            game_fail(err, "bad_option", "option \"%s\" has the wrong type", key);
            json_decref(opts);
            return NULL;
        }
        json_object_set(opts, key, v);
    }
    game_t *g = d->create(seats, opts, seed, err);
    json_decref(opts);
    return g;
}

json_t *game_view_own(const game_t *g, int seat)
{
    json_t *own = json_object();
    json_object_set_new(own, "seat", json_integer(seat));
    json_t *mine = g->desc->view_seat ? g->desc->view_seat(g, seat) : NULL;
    json_object_update(own, mine);
    json_decref(mine);
    json_t *legal = game_legal(g, seat);
    json_object_set_new(own, "legal", legal ? legal : json_array());
    return own;
}

json_t *game_view(const game_t *g, int seat)
{
    json_t *v = g->desc->view_public(g);
    if (!v || seat < 0 || seat >= g->seats) return v;
    json_t *own = game_view_own(g, seat);
    json_object_update(v, own);
    json_decref(own);
    return v;
}
