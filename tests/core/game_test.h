/*
 * game_test.h — what every game's rule tests need, over the generic game
 * interface: create a table, apply a JSON action, check a refusal changes
 * nothing, look for an action in a legal list. Include after <cmocka.h>.
 */
#ifndef TAPIS_TESTS_GAME_TEST_H
#define TAPIS_TESTS_GAME_TEST_H

#include "game.h"

/* The refusal of the last gt_act() that failed. */
static game_error_t gt_err;

static inline game_t *gt_table(const game_desc_t *d, int seats, const char *opts, uint64_t seed)
{
    game_error_t err = {0};
    json_t *o = opts ? json_loads(opts, 0, NULL) : NULL;
    game_t *g = game_new(d, seats, o, seed, &err);
    json_decref(o);
    if (!g) fail_msg("create: %s %s", err.code, err.message);
    return g;
}

static inline void gt_audit_ok(game_t *g)
{
    game_error_t err = {0};
    if (g->desc->audit(g, &err)) fail_msg("audit: %s", err.message);
}

/* Apply `action` (JSON text); "ok", or the refusal's code. The state is audited. */
static inline const char *gt_act(game_t *g, int seat, const char *action, int64_t now)
{
    json_t *a = json_loads(action, 0, NULL);
    if (!a) fail_msg("bad test JSON: %s", action);
    int rc = game_apply(g, seat, a, now, &gt_err);
    json_decref(a);
    if (rc == 0) gt_audit_ok(g);
    return rc == 0 ? "ok" : gt_err.code;
}

/* A refusal must carry the code and a message, and leave the state exactly as it was. */
static inline void gt_refused(game_t *g, int seat, const char *action, int64_t now,
                              const char *code)
{
    json_t *before = g->desc->dump(g);
    assert_string_equal(gt_act(g, seat, action, now), code);
    assert_true(gt_err.message[0] != '\0');
    json_t *after = g->desc->dump(g);
    assert_true(json_equal(before, after));
    json_decref(before);
    json_decref(after);
}

static inline bool gt_legal_has(game_t *g, int seat, const char *action)
{
    json_t *want = json_loads(action, 0, NULL), *legal = game_legal(g, seat);
    bool found = false;
    size_t i;
    json_t *a;
    json_array_foreach(legal, i, a) found |= json_equal(a, want);
    json_decref(want);
    json_decref(legal);
    return found;
}

static inline size_t gt_legal_count(game_t *g, int seat)
{
    json_t *legal = game_legal(g, seat);
    size_t n = json_array_size(legal);
    json_decref(legal);
    return n;
}

#endif
