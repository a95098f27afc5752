/*
 * game.c — the kit: what every game shares. Refusals and action parsing,
 * the option table (checking, defaults, description), the view skeleton,
 * the kit's defaults for optional functions, the "random" bot, results and
 * shared parts (the immutable event log is game_log.c's). core/README.md
 * says what a game gets from it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/game.h"
#include "core/deal.h"
#include "json/json_text.h"
#include "include/tapis_alloc.h"

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

int game_bad_action(game_error_t *err, const char *what)
{
    return game_fail(err, TAPIS_E_BAD_ACTION, "%s", what);
}

int game_no_memory(game_error_t *err)
{
    return game_fail(err, TAPIS_E_INTERNAL, "out of memory");
}

int game_action_type(const json_t *action, const char *const *names, int n, const char *title,
                     game_error_t *err)
{
    if (!json_is_object(action))
        return game_fail(err, TAPIS_E_BAD_ACTION, "an action is a JSON object with a \"type\"");
    const char *type = json_string_value(json_object_get(action, "type"));
    if (!type) return game_fail(err, TAPIS_E_BAD_ACTION, "an action needs a \"type\" string");
    for (int i = 0; i < n; i++)
        if (strcmp(type, names[i]) == 0) return i;
    return game_fail(err, TAPIS_E_UNKNOWN_ACTION, "%s has no action \"%.40s\"", title, type);
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

bool game_action_bare(const json_t *action)
{
    /* Most actions are "type" alone: seen without a lookup. */
    if (json_object_size(action) == 1 &&
        strcmp(json_object_iter_key(json_object_iter((json_t *)action)), "type") == 0)
        return true;
    return game_action_keys_ok(action, NULL) &&
           json_array_size(json_object_get(action, "args")) == 0;
}

int game_action_args(const json_t *action, const json_t **args, game_error_t *err)
{
    *args = json_object_get(action, "args");
    if (*args && !json_is_array(*args)) return game_bad_action(err, "\"args\" must be a list");
    return 0;
}

int game_action_open(const json_t *action, const char *const *names, int n, const char *title,
                     const json_t **args, game_error_t *err)
{
    *args = NULL;
    int t = game_action_type(action, names, n, title, err);
    if (t < 0) return -1;
    /* "type" alone (most actions): no "args" to look up */
    if (json_object_size(action) > 1 && game_action_args(action, args, err)) return -1;
    return t;
}

/* ------------------------------------------------------------------ */
/* Options                                                              */
/* ------------------------------------------------------------------ */

static const char *const option_type_names[] = {"int", "bool", "string"};

static const game_option_t *option_row(const game_desc_t *d, const char *name)
{
    for (const game_option_t *o = d->options; o && o->name; o++)
        if (strcmp(o->name, name) == 0) return o;
    return NULL;
}

static json_t *option_default(const game_option_t *o)
{
    switch (o->type) {
    case GAME_OPT_INT: return json_integer(o->def);
    case GAME_OPT_BOOL: return json_boolean(o->def);
    case GAME_OPT_STRING: return json_string(o->def_string ? o->def_string : "");
    }
    return json_null();
}

/* "\"must\" or \"may\"", "\"a\", \"b\" or \"c\"" */
static void choices_text(const game_option_t *o, char *buf, size_t size)
{
    size_t n = 0, count = 0;
    buf[0] = 0;
    while (o->choices && o->choices[count])
        count++;
    for (size_t i = 0; i < count && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s\"%s\"",
                              i == 0           ? ""
                              : i + 1 == count ? " or "
                                               : ", ",
                              o->choices[i]);
}

int game_option_check(const game_desc_t *d, const char *name, const json_t *v, game_error_t *err)
{
    const game_option_t *o = option_row(d, name);
    if (!o) return game_fail(err, TAPIS_E_BAD_OPTION, "%s has no option \"%.40s\"", d->title, name);
    switch (o->type) {
    case GAME_OPT_INT:
        if (!json_is_integer(v))
            return game_fail(err, TAPIS_E_BAD_OPTION,
                             "option \"%s\" is an integer, %" JSON_INTEGER_FORMAT
                             "..%" JSON_INTEGER_FORMAT,
                             name, o->min, o->max);
        if (json_integer_value(v) < o->min || json_integer_value(v) > o->max)
            return game_fail(err, TAPIS_E_BAD_OPTION,
                             "option \"%s\" must be %" JSON_INTEGER_FORMAT "..%" JSON_INTEGER_FORMAT
                             ", not %" JSON_INTEGER_FORMAT,
                             name, o->min, o->max, json_integer_value(v));
        return 0;
    case GAME_OPT_BOOL:
        if (!json_is_boolean(v))
            return game_fail(err, TAPIS_E_BAD_OPTION, "option \"%s\" is true or false", name);
        return 0;
    case GAME_OPT_STRING: {
        char list[128];
        choices_text(o, list, sizeof list);
        const char *s = json_string_value(v);
        for (size_t i = 0; s && o->choices && o->choices[i]; i++)
            if (strcmp(s, o->choices[i]) == 0) return 0;
        return game_fail(err, TAPIS_E_BAD_OPTION, "option \"%s\" must be %s", name, list);
    }
    }
    return game_fail(err, TAPIS_E_BAD_OPTION, "option \"%s\" has an unknown type", name);
}

int game_option_int(const json_t *options, const char *name)
{
    return (int)json_integer_value(json_object_get(options, name));
}

bool game_option_bool(const json_t *options, const char *name)
{
    return json_is_true(json_object_get(options, name));
}

const char *game_option_string(const json_t *options, const char *name)
{
    return json_string_value(json_object_get(options, name));
}

json_t *game_default_options(const game_desc_t *d)
{
    json_t *opts = json_object();
    for (const game_option_t *o = d->options; opts && o && o->name; o++)
        if (json_object_set_new(opts, o->name, option_default(o)) < 0) {
            json_decref(opts); /* out of memory */
            opts = NULL;
        }
    return opts;
}

json_t *game_options_json(const game_desc_t *d)
{
    unsigned long mark = tapis_alloc_failures();
    json_t *list = json_array();
    for (const game_option_t *o = d->options; o && o->name; o++) {
        json_t *row = json_object();
        json_object_set_new(row, "name", json_string(o->name));
        json_object_set_new(row, "type", json_string(option_type_names[o->type]));
        json_object_set_new(row, "default", option_default(o));
        if (o->type == GAME_OPT_INT) {
            json_object_set_new(row, "min", json_integer(o->min));
            json_object_set_new(row, "max", json_integer(o->max));
        } else if (o->type == GAME_OPT_STRING) {
            json_t *choices = json_array();
            for (size_t i = 0; o->choices && o->choices[i]; i++)
                json_array_append_new(choices, json_string(o->choices[i]));
            json_object_set_new(row, "choices", choices);
        }
        json_object_set_new(row, "help", json_string(o->help ? o->help : ""));
        json_array_append_new(list, row);
    }
    if (tapis_alloc_failed_since(mark)) {
        json_decref(list); /* some part may be missing */
        return NULL;
    }
    return list;
}

static game_t *game_new_rng(const game_desc_t *d, int seats, const json_t *user,
                            const game_deal_t *deal, game_error_t *err)
{
    if (seats < d->min_seats || seats > d->max_seats) {
        game_fail(err, TAPIS_E_BAD_PLAYERS, "%s is played by %d to %d players, not %d", d->title,
                  d->min_seats, d->max_seats, seats);
        return NULL;
    }
    if (user && !json_is_object(user)) {
        game_fail(err, TAPIS_E_BAD_OPTION, "options must be a JSON object");
        return NULL;
    }
    json_t *opts = game_default_options(d);
    if (!opts) {
        game_fail(err, TAPIS_E_INTERNAL, "out of memory");
        return NULL;
    }
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)user, key, v)
    {
        if (game_option_check(d, key, v, err)) {
            json_decref(opts);
            return NULL;
        }
        if (json_object_set(opts, key, v) < 0) {
            json_decref(opts);
            game_fail(err, TAPIS_E_INTERNAL, "out of memory");
            return NULL;
        }
    }
    rng_t rng;
    deal_rng(deal, seats, &rng);
    unsigned long mark = tapis_alloc_failures();
    game_t *g = game_state_new(d->size, d, seats, opts, err);
    if (g && d->create(g, opts, &rng, err) < 0) {
        game_free(g);
        g = NULL;
    } else if (g && tapis_alloc_failed_since(mark)) {
        game_free(g); /* a part of the state may be missing */
        game_no_memory(err);
        g = NULL;
    }
    json_decref(opts);
    return g;
}

game_t *game_new(const game_desc_t *d, int seats, const json_t *user, uint64_t seed,
                 game_error_t *err)
{
    game_deal_t deal;
    deal_v0(&deal, seed);
    return game_new_rng(d, seats, user, &deal, err);
}

game_t *game_new_dealt(const game_desc_t *d, int seats, const json_t *user, const game_deal_t *deal,
                       game_error_t *err)
{
    return game_new_rng(d, seats, user, deal, err);
}

/* ------------------------------------------------------------------ */
/* A game's state                                                       */
/* ------------------------------------------------------------------ */

/* Store in g each option of `options` whose row says where it lands (its `at`):
   an int or a bool as it is, a string as the index of its choice. */
static void options_store(game_t *g, const json_t *options)
{
    if (!options) return;
    for (const game_option_t *o = g->desc->options; o && o->name; o++) {
        if (!o->at) continue;
        char *field = (char *)g + o->at;
        switch (o->type) {
        case GAME_OPT_INT: *(int *)field = game_option_int(options, o->name); break;
        case GAME_OPT_BOOL: *(bool *)field = game_option_bool(options, o->name); break;
        case GAME_OPT_STRING: {
            const char *v = game_option_string(options, o->name);
            int i = 0;
            while (o->choices[i] && strcmp(o->choices[i], v) != 0)
                i++;
            *(int *)field = i;
            break;
        }
        }
    }
}

void *game_state_new(size_t size, const game_desc_t *d, int seats, const json_t *options,
                     game_error_t *err)
{
    game_t *g = tapis_calloc(1, size);
    if (g) {
        g->desc = d;
        g->seats = seats;
        options_store(g, options);
    } else {
        game_no_memory(err);
    }
    return g;
}

/* A copy of g's bytes in copy, holding its own references to the shared parts. */
static void game_hold(game_t *copy, const game_t *g)
{
    const game_desc_t *d = g->desc;
    memcpy(copy, g, d->size);
    for (int i = 0; i < GAME_MAX_HELD && d->logs[i]; i++)
        game_log_share((game_log_t *)((char *)copy + d->logs[i]),
                       (const game_log_t *)((const char *)g + d->logs[i]));
    for (int i = 0; i < GAME_MAX_HELD && d->shared[i]; i++)
        game_shared_hold((game_shared_t *)((char *)copy + d->shared[i]));
}

/* Release what g holds by reference. */
static void game_drop(game_t *g)
{
    const game_desc_t *d = g->desc;
    for (int i = 0; i < GAME_MAX_HELD && d->logs[i]; i++)
        game_log_free((game_log_t *)((char *)g + d->logs[i]));
    for (int i = 0; i < GAME_MAX_HELD && d->shared[i]; i++)
        game_shared_free((game_shared_t *)((char *)g + d->shared[i]));
}

game_t *game_copy(const game_t *g)
{
    game_t *copy = tapis_malloc(g->desc->size);
    if (copy) game_hold(copy, g);
    return copy;
}

void game_free(game_t *g)
{
    if (!g) return;
    game_drop(g);
    tapis_free(g);
}

/* The max_align_t words of a snapshot of g: its bytes, on the stack of apply or tick. */
#define SNAPSHOT_WORDS(g) (((g)->desc->size + sizeof(max_align_t) - 1) / sizeof(max_align_t))

/* The end of a step with a snapshot `saved` of g taken before it: if an
   allocation failed since `mark`, g goes back to the snapshot (true);
   otherwise the snapshot is dropped (false). */
static bool game_restore(game_t *g, game_t *saved, unsigned long mark)
{
    if (!tapis_alloc_failed_since(mark)) {
        game_drop(saved);
        return false;
    }
    game_drop(g);
    memcpy(g, saved, g->desc->size);
    return true;
}

int game_apply(game_t *g, int seat, const json_t *a, int64_t now, game_error_t *e)
{
    max_align_t bytes[SNAPSHOT_WORDS(g)];
    game_t *saved = (game_t *)bytes;
    game_hold(saved, g);
    unsigned long mark = tapis_alloc_failures();
    int r = g->desc->apply(g, seat, a, now, e);
    if (game_restore(g, saved, mark)) return game_no_memory(e);
    return r;
}

bool game_tick(game_t *g, int64_t now)
{
    if (!g->desc->tick) return false;
    max_align_t bytes[SNAPSHOT_WORDS(g)];
    game_t *saved = (game_t *)bytes;
    game_hold(saved, g);
    unsigned long mark = tapis_alloc_failures();
    bool changed = g->desc->tick(g, now);
    return game_restore(g, saved, mark) ? false : changed;
}

/* ------------------------------------------------------------------ */
/* Views                                                                */
/* ------------------------------------------------------------------ */

void game_write_public(const game_t *g, jw_t *w)
{
    g->desc->view_public(g, w);
}

void game_write_own(const game_t *g, int seat, jw_t *w)
{
    jw_int(w, "seat", seat);
    if (g->desc->view_seat) g->desc->view_seat(g, seat, w);
    jw_arr(w, "legal");
    g->desc->legal(g, seat, w);
    jw_end(w);
}

void game_write_view(const game_t *g, int seat, jw_t *w)
{
    jw_obj(w, NULL);
    game_write_public(g, w);
    if (seat >= 0 && seat < g->seats) game_write_own(g, seat, w);
    jw_end(w);
}

json_t *game_view(const game_t *g, int seat)
{
    jw_t w;
    jw_tree(&w);
    game_write_view(g, seat, &w);
    return jw_take(&w);
}

json_t *game_legal(const game_t *g, int seat)
{
    jw_t w;
    jw_tree(&w);
    jw_arr(&w, NULL);
    g->desc->legal(g, seat, &w);
    jw_end(&w);
    return jw_take(&w);
}

void game_write_result(const game_t *g, jw_t *w)
{
    if (!game_is_over(g)) return;
    json_t *result = game_result(g);
    if (result)
        jw_json(w, "result", result);
    else
        jw_fail(w); /* out of memory: a view without its result would be wrong */
    json_decref(result);
}

void game_write_players(const game_t *g, jw_t *w, game_seat_write_fn *player)
{
    jw_arr(w, "players");
    for (int s = 0; s < g->seats; s++) {
        jw_obj(w, NULL);
        jw_int(w, "seat", s);
        player(g, s, w);
        jw_end(w);
    }
    jw_end(w);
}

json_t *game_dump(const game_t *g)
{
    unsigned long mark = tapis_alloc_failures();
    json_t *d = game_view(g, GAME_SPECTATOR);
    if (d) g->desc->dump(g, d);
    return game_json_checked(d, mark);
}

json_t *game_rng_json(const rng_t *r)
{
    if (r->kind == RNG_CHACHA) {
        char key[DEAL_HEX_LEN + 1];
        deal_hex(r->key, key);
        return json_pack("{s:s, s:I, s:i}", "chacha20", key, "block", (json_int_t)r->block, "pos",
                         r->pos);
    }
    json_t *a = json_array();
    for (int i = 0; i < 4; i++)
        json_array_append_new(a, json_integer((json_int_t)r->s[i]));
    return a;
}

static unsigned char ascii_lower(char c)
{
    return (unsigned char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
}

/* strcasecmp(a, b) == 0 in the C locale (tapisd sets no other), inline:
   most names differ at their first byte. */
static bool same_name(const char *a, const char *b)
{
    for (; ascii_lower(*a) == ascii_lower(*b); a++, b++)
        if (!*a) return true;
    return false;
}

int game_name_index(const char *name, const char *const *names, int n)
{
    for (int i = 0; name && i < n; i++)
        if (same_name(name, names[i])) return i;
    return -1;
}

json_t *game_cards_json(const uint8_t *cards, int n, const char *(*name)(uint8_t))
{
    jw_t w;
    jw_tree(&w);
    game_write_cards(&w, NULL, cards, n, name);
    return jw_take(&w);
}

void game_write_cards(jw_t *w, const char *key, const uint8_t *cards, int n,
                      const char *(*name)(uint8_t))
{
    jw_arr(w, key);
    for (int i = 0; i < n; i++) {
        const char *s = name(cards[i]);
        if (s) jw_str(w, NULL, s);
    }
    jw_end(w);
}

/* ------------------------------------------------------------------ */
/* Audits and test constructors                                         */
/* ------------------------------------------------------------------ */

void game_count_cards(int *count, const uint8_t *cards, int n)
{
    for (int i = 0; i < n; i++)
        count[cards[i]]++;
}

bool game_take_card(uint8_t *cards, int *n, uint8_t c)
{
    for (int i = *n - 1; i >= 0; i--)
        if (cards[i] == c) {
            memmove(&cards[i], &cards[i + 1], (size_t)(*n - 1 - i));
            (*n)--;
            return true;
        }
    return false;
}

int game_parse_cards(const char *names, int (*parse)(const char *), int *out, int max)
{
    char buf[512];
    int n = 0;
    snprintf(buf, sizeof buf, "%s", names ? names : "");
    for (char *save, *w = strtok_r(buf, " ,", &save); w; w = strtok_r(NULL, " ,", &save)) {
        int c = parse(w);
        if (c < 0 || n >= max) return -1;
        out[n++] = c;
    }
    return n;
}

/* ------------------------------------------------------------------ */
/* Bots and default actions                                             */
/* ------------------------------------------------------------------ */

json_t *game_bot_random(const json_t *view, rng_t *rng)
{
    const json_t *legal = json_object_get(view, "legal");
    size_t n = json_array_size(legal);
    if (n == 0) return NULL;
    return json_deep_copy(json_array_get(legal, rng_below(rng, (uint32_t)n)));
}

json_t *game_bot_run(const json_t *view, const char *strategy, rng_t *rng, game_strategy_fn *own)
{
    const json_t *legal = json_object_get(view, "legal");
    if (json_array_size(legal) == 0) return NULL;
    if (strategy && strncmp(strategy, "random", 6) == 0 && (strategy[6] == 0 || strategy[6] == ':'))
        return game_bot_random(view, rng);
    return own(view, legal, strategy, rng);
}

json_t *game_default_bot_action(const game_t *g, int seat)
{
    if (seat < 0 || seat >= g->seats || !(game_waiting(g) & (1u << seat))) return NULL;
    const game_bot_level_t *first = g->desc->bot_levels;
    const char *strategy = first && first->name ? first->strategy : "greedy";
    unsigned long mark = tapis_alloc_failures();
    json_t *view = game_view(g, seat);
    rng_t r;
    rng_seed(&r, GAME_DEFAULT_ACTION_SEED);
    json_t *a = game_bot(g->desc, view, strategy, &r);
    json_decref(view);
    return game_json_checked(a, mark);
}

/* ------------------------------------------------------------------ */
/* Results and logs                                                     */
/* ------------------------------------------------------------------ */

json_t *game_winners_json(unsigned mask, int seats)
{
    json_t *a = json_array();
    for (int s = 0; a && s < seats && s < 32; s++)
        if ((mask & (1u << s)) && json_array_append_new(a, json_integer(s)) < 0) {
            json_decref(a); /* out of memory */
            a = NULL;
        }
    return a;
}

void game_shared_set(game_shared_t *s, json_t *tree)
{
    game_shared_free(s);
    s->tree = tree;
    if (!tree) return;
    size_t n = json_text(tree, NULL, 0);
    char *buf = tapis_malloc(n ? n : 1);
    if (!buf) return; /* (a failure the caller's allocation mark sees) */
    json_text(tree, buf, n);
    s->text = json_stringn_nocheck(buf, n);
    tapis_free(buf);
}

void game_shared_hold(game_shared_t *s)
{
    json_incref(s->tree);
    json_incref(s->text);
}

void game_shared_free(game_shared_t *s)
{
    json_decref(s->tree);
    json_decref(s->text);
    s->tree = s->text = NULL;
}

void game_write_shared(jw_t *w, const char *key, const game_shared_t *s)
{
    const char *text = s->text ? json_string_value(s->text) : NULL;
    jw_json_text(w, key, s->tree, text, text ? json_string_length(s->text) : 0);
}

json_t *game_seat_event(int seat, const char *did)
{
    /* json_pack("{s:i, s:s}")'s object, without parsing a format per event */
    json_t *ev = json_object();
    if (json_object_set_new_nocheck(ev, "seat", json_integer(seat)) < 0 ||
        json_object_set_new_nocheck(ev, "did", json_string(did)) < 0) {
        json_decref(ev);
        return NULL;
    }
    return ev;
}

/* ------------------------------------------------------------------ */
/* Out of memory                                                        */
/* ------------------------------------------------------------------ */

/*
 * Every function of a game that builds JSON (views, legal lists, results,
 * dumps) ends with this: jansson's setters and appenders fail quietly, so a
 * failed allocation anywhere in the build may have left a part out, and the
 * only safe answer is none (NULL: out of memory).
 */
json_t *game_json_checked(json_t *v, unsigned long mark)
{
    if (!tapis_alloc_failed_since(mark)) return v;
    json_decref(v);
    return NULL;
}
