/*
 * conformance_util.h — helpers of the conformance suite (test_conformance.c)
 * that know no playout and no particular game: JSON comparison up to array
 * order, error-code shape, the mutations that turn a legal action into a
 * candidate illegal one, and option sets drawn from a game's defaults.
 */
#ifndef TAPIS_TESTS_CONFORMANCE_UTIL_H
#define TAPIS_TESTS_CONFORMANCE_UTIL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/game.h"
#include "core/rng.h"

/* ------------------------------------------------------------------------ */
/* Printing and comparing                                                   */
/* ------------------------------------------------------------------------ */

/* Compact text of j (at most size-1 bytes, "..." when cut); "(null)" for NULL. */
static inline const char *cu_text(const json_t *j, char *buf, size_t size)
{
    if (!j) {
        snprintf(buf, size, "(null)");
        return buf;
    }
    char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    if (!s) {
        snprintf(buf, size, "(unprintable)");
        return buf;
    }
    size_t n = strlen(s);
    if (n < size) {
        memcpy(buf, s, n + 1);
    } else {
        memcpy(buf, s, size - 4);
        memcpy(buf + size - 4, "...", 4);
    }
    free(s);
    return buf;
}

/* Compact text of j for messages, in one of four rotating buffers: a message
   may show four values at once. */
static inline const char *cu_show(const json_t *j)
{
    static char buf[4][512];
    static int next;
    next = (next + 1) % 4;
    return cu_text(j, buf[next], sizeof buf[next]);
}

/* Is a json_equal to an element of the array list? */
static inline bool cu_contains(const json_t *list, const json_t *a)
{
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e) if (json_equal(e, a)) return true;
    return false;
}

typedef struct cu_sorted {
    char *text;
    json_t *item;
} cu_sorted_t;

static int cu_cmp_sorted(const void *x, const void *y)
{
    return strcmp(((const cu_sorted_t *)x)->text, ((const cu_sorted_t *)y)->text);
}

/*
 * A copy of j in which every array is sorted (by its elements' text): two
 * actions that differ only by the order of a list are the same move (a meld
 * laid as Y1 Y2 Y3 or Y3 Y1 Y2), so a candidate illegal action is compared to
 * the legal ones in this form.
 */
static inline json_t *cu_canon(const json_t *j)
{
    if (json_is_object(j)) {
        json_t *o = json_object();
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)j, k, v) json_object_set_new(o, k, cu_canon(v));
        return o;
    }
    if (!json_is_array(j)) return json_deep_copy(j);
    size_t n = json_array_size(j);
    cu_sorted_t *e = calloc(n ? n : 1, sizeof *e);
    for (size_t i = 0; i < n; i++) {
        e[i].item = cu_canon(json_array_get(j, i));
        e[i].text = json_dumps(e[i].item, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
        if (!e[i].text) e[i].text = strdup("");
    }
    qsort(e, n, sizeof *e, cu_cmp_sorted);
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(a, e[i].item);
        free(e[i].text);
    }
    free(e);
    return a;
}

/* A stable error code: a non-empty snake_case word. */
static inline bool cu_snake_case(const char *s)
{
    if (!s || !*s) return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || *s == '_')) return false;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Mutations                                                                */
/* ------------------------------------------------------------------------ */

/*
 * A word no game uses: "zz" and a few random letters. It never differs from a
 * real name by case only (card names are parsed case-insensitively), which
 * would make a mutation legal without being listed.
 */
static inline json_t *cu_random_word(rng_t *r)
{
    char w[12] = "zz";
    int n = 1 + (int)rng_below(r, 6);
    for (int i = 0; i < n; i++)
        w[2 + i] = (char)('a' + rng_below(r, 26));
    w[2 + n] = 0;
    return json_string(w);
}

/* Up to max strings found anywhere in j (borrowed pointers into j). */
static inline void cu_strings(const json_t *j, const char **out, int *n, int max)
{
    if (*n >= max) return;
    if (json_is_string(j)) {
        out[(*n)++] = json_string_value(j);
    } else if (json_is_object(j)) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)j, k, v) cu_strings(v, out, n, max);
    } else if (json_is_array(j)) {
        size_t i;
        json_t *v;
        json_array_foreach(j, i, v) cu_strings(v, out, n, max);
    }
}

/* A place inside an action: a member of an object or an element of an array. */
typedef struct cu_slot {
    json_t *parent;
    char key[64]; /* parent is an object */
    size_t index; /* parent is an array */
} cu_slot_t;

#define CU_MAX_SLOTS 64

static inline void cu_slots(json_t *j, cu_slot_t *s, int *n)
{
    if (json_is_object(j)) {
        const char *k;
        json_t *v;
        json_object_foreach(j, k, v)
        {
            if (*n >= CU_MAX_SLOTS || strlen(k) >= sizeof s->key) continue;
            s[*n].parent = j;
            snprintf(s[*n].key, sizeof s->key, "%s", k);
            (*n)++;
            cu_slots(v, s, n);
        }
    } else if (json_is_array(j)) {
        size_t i;
        json_t *v;
        json_array_foreach(j, i, v)
        {
            if (*n >= CU_MAX_SLOTS) continue;
            s[*n].parent = j;
            s[*n].key[0] = 0;
            s[*n].index = i;
            (*n)++;
            cu_slots(v, s, n);
        }
    }
}

/*
 * A value to put in place of old: same type but wrong (a random word, an
 * integer out of range, a list one element short or long...) or another type.
 * `word` is a string seen in some other action (a real card or type name), or
 * NULL.
 */
static inline json_t *cu_replacement(const json_t *old, rng_t *r, const char *word)
{
    switch (json_typeof(old)) {
    case JSON_STRING:
        switch (rng_below(r, 7)) {
        case 0: return json_string("zzz");
        case 1: return json_string("");
        case 2: return cu_random_word(r);
        case 3: return json_string(word ? word : "zzz");
        case 4: {
            char big[301];
            memset(big, 'x', 300);
            big[300] = 0;
            return json_string(big);
        }
        case 5: return json_integer(7);
        default: return json_null();
        }
    case JSON_INTEGER: {
        json_int_t v = json_integer_value(old);
        switch (rng_below(r, 10)) {
        case 0: return json_integer(-1);
        case 1: return json_integer(99);
        case 2: return json_integer(INT64_MAX);
        case 3: return json_integer(INT64_MIN);
        case 4: return json_integer(v < INT64_MAX ? v + 1 : 0);
        case 5: return json_integer(v > INT64_MIN ? v - 1 : 0);
        case 6: return json_integer((json_int_t)1 << 32);
        case 7: return json_real(0.5);
        case 8: return json_string("zzz");
        default: return json_null();
        }
    }
    case JSON_REAL:
        switch (rng_below(r, 4)) {
        case 0: return json_real(-1.0);
        case 1: return json_real(1e300);
        case 2: return json_string("zzz");
        default: return json_null();
        }
    case JSON_TRUE:
    case JSON_FALSE:
        switch (rng_below(r, 3)) {
        case 0: return json_boolean(!json_is_true(old));
        case 1: return json_integer(1);
        default: return json_string("zzz");
        }
    case JSON_NULL: return rng_below(r, 2) ? json_integer(0) : json_string("zzz");
    case JSON_ARRAY: {
        json_t *a = json_deep_copy(old);
        size_t n = json_array_size(a);
        switch (rng_below(r, 5)) {
        case 0:
            if (n)
                json_array_remove(a, rng_below(r, (uint32_t)n));
            else
                json_array_append_new(a, json_string("zzz"));
            return a;
        case 1:
            if (n)
                json_array_append(a, json_array_get(a, rng_below(r, (uint32_t)n)));
            else
                json_array_append_new(a, json_integer(-1));
            return a;
        case 2: json_array_append_new(a, word ? json_string(word) : cu_random_word(r)); return a;
        case 3: json_array_clear(a); return a;
        default: json_decref(a); return json_object();
        }
    }
    case JSON_OBJECT: {
        json_t *o = json_deep_copy(old);
        switch (rng_below(r, 3)) {
        case 0: json_object_clear(o); return o;
        case 1: json_object_set_new(o, "zzz_bogus", json_integer(1)); return o;
        default: json_decref(o); return json_array();
        }
    }
    }
    return json_string("zzz");
}

/*
 * Mutate one place of action a (a fresh copy the caller owns): replace a value
 * (see cu_replacement) or remove a member or an element. Returns false when a
 * has no place to mutate.
 */
static inline bool cu_mutate(json_t *a, rng_t *r, const char *word)
{
    cu_slot_t s[CU_MAX_SLOTS];
    int n = 0;
    cu_slots(a, s, &n);
    if (n == 0) return false;
    cu_slot_t *t = &s[rng_below(r, (uint32_t)n)];
    bool remove = rng_below(r, 5) == 0;
    if (json_is_object(t->parent)) {
        if (remove) return json_object_del(t->parent, t->key) == 0;
        json_t *old = json_object_get(t->parent, t->key);
        return json_object_set_new(t->parent, t->key, cu_replacement(old, r, word)) == 0;
    }
    if (remove) return json_array_remove(t->parent, t->index) == 0;
    json_t *old = json_array_get(t->parent, t->index);
    return json_array_set_new(t->parent, t->index, cu_replacement(old, r, word)) == 0;
}

/* ------------------------------------------------------------------------ */
/* Illegal candidates and options                                           */
/* ------------------------------------------------------------------------ */

static inline json_t *cu_garbage_type(rng_t *r, const json_t *other)
{
    switch (rng_below(r, 7)) {
    case 0: return json_string("zzz");
    case 1: return json_string("");
    case 2: return cu_random_word(r);
    case 3: return json_integer(7);
    case 4: return json_null();
    case 5: return json_array();
    default: {
        json_t *t = json_object_get(other, "type");
        return t ? json_incref(t) : json_string("zzz");
    }
    }
}

/*
 * A candidate illegal action (a new reference), made from `own` (a listed
 * action of the seat, or NULL) and `other` (another seat's or an earlier one,
 * or NULL): other itself, own with a field mutated or removed, with a garbage
 * or borrowed type, without type, with an extra field, or no object at all.
 * The caller skips it when it is listed after all.
 */
static inline json_t *cu_candidate(const json_t *own, const json_t *other, rng_t *r)
{
    const json_t *base = own ? own : other;
    json_t *c = base ? json_deep_copy(base) : json_pack("{s:s}", "type", "zzz");
    const char *words[32];
    int nwords = 0;
    cu_strings(other, words, &nwords, 32);
    const char *word = nwords ? words[rng_below(r, (uint32_t)nwords)] : NULL;
    switch (rng_below(r, 10)) {
    case 0: json_decref(c); return other ? json_deep_copy(other) : json_string("zzz");
    case 1: /* a field (or an element of a list) mutated or removed */
    case 2:
    case 3:
    case 4: cu_mutate(c, r, word); return c;
    case 5: json_object_set_new(c, "type", cu_garbage_type(r, other)); return c;
    case 6: json_object_del(c, "type"); return c;
    case 7: json_object_set_new(c, "zzz_bogus", json_integer(1)); return c;
    default:
        switch (rng_below(r, 8)) {
        case 0: json_decref(c); return json_null();
        case 1: json_decref(c); return json_true();
        case 2: json_decref(c); return json_integer(0);
        case 3: json_decref(c); return json_real(1.5);
        case 4: {
            json_t *t = json_incref(json_object_get(c, "type"));
            json_decref(c);
            return t ? t : json_string("zzz");
        }
        case 5: return json_pack("[o]", c);
        case 6: json_decref(c); return json_array();
        default: json_decref(c); return json_object();
        }
    }
}

enum { OPTIONS_DEFAULT, OPTIONS_AROUND, OPTIONS_SMALL };

/*
 * Options moved from the defaults: booleans at random; each integer near its
 * default (AROUND: half, one more or less) or at the small end (SMALL: 0, 1,
 * an eighth, a quarter); reals halved or doubled. Other types keep their
 * default (no valid value can be guessed).
 */
static inline json_t *cu_options(const game_desc_t *d, int kind, rng_t *r)
{
    json_t *def = game_default_options(d), *o = json_object();
    const char *k;
    json_t *v;
    json_object_foreach(def, k, v)
    {
        if (json_is_boolean(v)) {
            json_object_set_new(o, k, json_boolean(rng_below(r, 2)));
        } else if (json_is_integer(v)) {
            json_int_t n = json_integer_value(v);
            json_int_t around[] = {n, n / 2, n + 1, n > 0 ? n - 1 : 0};
            json_int_t small[] = {0, 1, n / 8, n / 4};
            json_int_t *choice = kind == OPTIONS_SMALL ? small : around;
            json_object_set_new(o, k, json_integer(choice[rng_below(r, 4)]));
        } else if (json_is_real(v)) {
            double x = json_real_value(v);
            json_object_set_new(o, k, json_real(rng_below(r, 2) ? x / 2 : x * 2));
        }
    }
    json_decref(def);
    return o;
}

#endif
