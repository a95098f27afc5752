/*
 * actions.c — As.point3 actions on the wire: parsing (canonical fields, or the
 * positional "args" of the protocol's inline form), the canonical JSON form,
 * and the list of legal actions.
 *
 * Canonical forms (what legal() lists and what is sent back):
 *   {"type":"swap","card":C}       the starter gives C for the face-down card, blind
 *   {"type":"keep"}                the starter keeps both cards
 *   {"type":"pick","card":"down"}  the other player takes the face-down card
 *   {"type":"pick","card":"up"}    ... or the face-up card: a challenge
 * Inline: "swap KH", "keep", "pick down", "pick up".
 */
#include <string.h>

#include "core/aspoint3/internal.h"

static const char *const type_names[] = {"swap", "keep", "pick"};

/* The one argument of swap and pick: "card", or the single inline word. */
static const json_t *one_arg(const json_t *o, const json_t *args, game_error_t *err)
{
    size_t n = json_array_size(args);
    if (args && json_object_get(o, "card")) {
        game_bad_action(err, "give \"card\" or \"args\", not both");
        return NULL;
    }
    if (args && n != 1) {
        game_bad_action(err, "inline: swap CARD, or pick down|up");
        return NULL;
    }
    const json_t *v = args ? json_array_get(args, 0) : json_object_get(o, "card");
    if (!json_is_string(v)) {
        game_bad_action(err, "this action needs a \"card\" string");
        return NULL;
    }
    return v;
}

int ap3_parse(const json_t *o, ap3_act_t *a, game_error_t *err)
{
    memset(a, 0, sizeof *a);
    a->card = -1;
    const json_t *args;
    int t = game_action_open(o, type_names, GAME_COUNT(type_names), "As.point3", &args, err);
    if (t < 0) return -1;
    a->type = (ap3_act_type_t)t;

    if (a->type == AP3_ACT_KEEP) {
        if (!game_action_bare(o)) return game_bad_action(err, "keep takes no arguments");
        return 0;
    }
    static const char *const card_key[] = {"card", NULL};
    if (!game_action_keys_ok(o, card_key))
        return game_bad_action(err, "this action takes only \"card\"");
    const json_t *v = one_arg(o, args, err);
    if (!v) return -1;
    const char *s = json_string_value(v);
    if (a->type == AP3_ACT_PICK) {
        if (strcmp(s, "up") && strcmp(s, "down"))
            return game_bad_action(err, "pick takes the card \"down\" or \"up\"");
        a->up = strcmp(s, "up") == 0;
        return 0;
    }
    a->card = ap3_card_parse(s);
    if (a->card < 0)
        return game_fail(err, "unknown_card", "no card \"%.20s\" (e.g. AS, 10H, QD)", s);
    return 0;
}

/* The canonical form: legal() writes it, default_action sends it as a tree. */
static void act_write(jw_t *w, const ap3_act_t *a)
{
    jw_obj(w, NULL);
    jw_str(w, "type", type_names[a->type]);
    if (a->type == AP3_ACT_SWAP)
        jw_str(w, "card", ap3_card_name((ap3_card_t)a->card));
    else if (a->type == AP3_ACT_PICK)
        jw_str(w, "card", a->up ? "up" : "down");
    jw_end(w);
}

json_t *ap3_act_json(const ap3_act_t *a)
{
    jw_t w;
    jw_tree(&w);
    act_write(&w, a);
    return jw_take(&w);
}

/* ------------------------------------------------------------------ */
/* Legal actions: candidates the referee accepts                        */
/* ------------------------------------------------------------------ */

static void offer(const ap3_t *g, int seat, const ap3_act_t *a, jw_t *out)
{
    /* err NULL: a legal list asks only whether, and formats no refusal */
    if (ap3_check(g, seat, a, NULL) == 0) act_write(out, a);
}

void ap3_legal(const game_t *base, int seat, jw_t *out)
{
    const ap3_t *g = (const ap3_t *)base;
    if (seat < 0 || seat >= base->seats || seat != ap3_turn(g)) return;
    ap3_act_t a = {.type = AP3_ACT_KEEP, .card = -1};
    offer(g, seat, &a, out);
    a.type = AP3_ACT_SWAP;
    for (int i = 0; i < 2; i++) {
        a.card = g->hand[seat][i];
        offer(g, seat, &a, out);
    }
    a.type = AP3_ACT_PICK;
    a.card = -1;
    for (int up = 0; up <= 1; up++) {
        a.up = up;
        offer(g, seat, &a, out);
    }
}
