/*
 * render_aspoint3.c — the As.point3 table (core/aspoint3/RULES.md) as its
 * viewer sees it.
 *
 *   -- room 4 . aspoint3 . round 1/3 . deal 5 . target 350 --
 *   > seat 0  alice (you)   round  123  total    0  starter
 *     seat 1  bot1          round   88  total    0
 *     centre  up QH  down ??  . stock 22 . discards 24
 *     your cards  AS 10H
 *     last deal 4: bot1 started and kept; alice took up (a challenge), won by alice
 *       alice   AS 3H 5C  = 33  +33 -> 123
 *       bot1    KD QS 2H  = 37   +0 ->  88
 *     your turn: keep, or swap CARD (with the face-down card, unseen)
 *
 * Hearts and diamonds are red. The face-down centre card is "??": nobody sees
 * it (a starter who swapped knows the card they put there: "you put 9C
 * there"). Actions are few and named (keep, swap 9H, pick down, pick up), so
 * typed lines need no translation.
 */
#include <stdlib.h>
#include <string.h>

#include "clients/render.h"

static bool red_card(const char *c)
{
    size_t n = c ? strlen(c) : 0;
    return n && (c[n - 1] == 'H' || c[n - 1] == 'h' || c[n - 1] == 'D' || c[n - 1] == 'd');
}

/* A card (escaped, "??" when unknown); returns the width written (colour aside). */
static int put_card(const render_ctx_t *ctx, const char *c)
{
    return render_put_sgr(ctx, red_card(c) ? RENDER_RED : RENDER_BOLD, c ? c : "??");
}

/* The packs variant counted by manche (each pack a round): pack_scoring "manche". */
static bool by_manche(const json_t *v)
{
    const char *ps = json_string_value(json_object_get(v, "pack_scoring"));
    return ps && strcmp(ps, "manche") == 0;
}

static bool packs_mode(const json_t *view)
{
    const char *mode = json_string_value(json_object_get(view, "mode"));
    return mode && strcmp(mode, "packs") == 0;
}

static void put_round_over(const render_ctx_t *ctx, const json_t *ro)
{
    char name[64];
    int w = render_int(ro, "winner", -1);
    json_t *totals = json_object_get(ro, "totals");
    if (w >= 0)
        fprintf(ctx->out, "    %sround %d over: %s wins it, +%d%s", render_sgr(ctx, RENDER_BOLD),
                render_int(ro, "round", 0), render_seat_name(ctx, w, name, sizeof name),
                render_int(ro, "points", 0), render_sgr(ctx, RENDER_OFF));
    else
        fprintf(ctx->out, "    %sround %d over: drawn%s", render_sgr(ctx, RENDER_BOLD),
                render_int(ro, "round", 0), render_sgr(ctx, RENDER_OFF));
    fprintf(ctx->out, " (game totals %d - %d)\n",
            (int)json_integer_value(json_array_get(totals, 0)),
            (int)json_integer_value(json_array_get(totals, 1)));
}

/* The reveal of the last deal: who did what, the six cards and the points. */
static void put_last_deal(const render_ctx_t *ctx, const json_t *ld, bool packs)
{
    FILE *o = ctx->out;
    char a[64], b[64];
    int st = render_int(ld, "starter", 0), pk = render_int(ld, "picker", 1);
    bool up = json_is_true(json_object_get(ld, "challenge"));
    int winner = render_int(ld, "winner", -1);
    fprintf(o, "  last deal %d: %s started and %s; %s took %s", render_int(ld, "deal", 0),
            render_seat_name(ctx, st, a, sizeof a),
            json_is_true(json_object_get(ld, "swapped")) ? "swapped" : "kept",
            render_seat_name(ctx, pk, b, sizeof b), up ? "up (a challenge)" : "down");
    if (winner >= 0)
        fprintf(o, ", won by %s", render_seat_name(ctx, winner, a, sizeof a));
    else
        fputs(", a tie", o);
    fputs(" . up ", o);
    put_card(ctx, json_string_value(json_object_get(ld, "up")));
    fputs(" down ", o);
    put_card(ctx, json_string_value(json_object_get(ld, "down")));
    fputc('\n', o);
    for (int s = 0; s < 2; s++) {
        fprintf(o, "    %-12s ", render_seat_name(ctx, s, a, sizeof a));
        int w = render_put_cards(ctx, json_array_get(json_object_get(ld, "cards"), (size_t)s),
                                 put_card);
        fprintf(o, "%*s  = %3d  %+4d%s -> %4d\n", w < 10 ? 10 - w : 0, "",
                (int)json_integer_value(json_array_get(json_object_get(ld, "values"), (size_t)s)),
                (int)json_integer_value(json_array_get(json_object_get(ld, "points"), (size_t)s)),
                packs ? " deal" : "",
                (int)json_integer_value(json_array_get(json_object_get(ld, "scores"), (size_t)s)));
    }
    json_t *bonus = json_object_get(ld, "bonus");
    if (json_is_object(bonus))
        fprintf(o, "    210 rule: %s reached 210 first; %s gets +%d\n",
                render_seat_name(ctx, render_int(bonus, "from", 0), a, sizeof a),
                render_seat_name(ctx, render_int(bonus, "to", 1), b, sizeof b),
                render_int(bonus, "points", 30));
    json_t *ro = json_object_get(ld, "round_over");
    if (json_is_object(ro)) put_round_over(ctx, ro);
}

static void table_aspoint3(const render_ctx_t *ctx, const json_t *view)
{
    FILE *o = ctx->out;
    char name[64];
    int me = render_int(view, "seat", -1), turn = render_int(view, "turn", -1);
    int starter = render_int(view, "starter", -1);
    const char *phase = json_string_value(json_object_get(view, "phase"));
    bool over = phase && strcmp(phase, "over") == 0;
    bool packs = packs_mode(view);

    char stage[64], target[32] = "";
    if (packs && by_manche(view))
        snprintf(stage, sizeof stage, "pack %d . first to %d packs", render_int(view, "pack", 0),
                 render_int(view, "packs", 0));
    else if (packs)
        snprintf(stage, sizeof stage, "pack %d/%d", render_int(view, "pack", 0),
                 render_int(view, "packs", 0));
    else
        snprintf(stage, sizeof stage, "round %d/%d", render_int(view, "round", 0),
                 render_int(view, "rounds", 0));
    if (!packs) snprintf(target, sizeof target, " . target %d", render_int(view, "target", 0));
    render_heading(ctx, "aspoint3 . %s . deal %d%s", stage, render_int(view, "deal", 0), target);

    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(view, "players"), i, p)
    {
        int s;
        bool here = render_turn_head(ctx, p, i, turn, over, me, &s);
        if (packs && by_manche(view))
            fprintf(o, "  deals won %3d  packs won %2d", render_int(p, "score", 0),
                    render_int(p, "total", 0));
        else if (packs)
            fprintf(o, "  deals won %3d", render_int(p, "score", 0));
        else
            fprintf(o, "  round %4d  total %4d", render_int(p, "score", 0),
                    render_int(p, "total", 0));
        if (here) fputs(render_sgr(ctx, RENDER_OFF), o);
        if (s == starter && !over) fputs("  starter", o);
        if (!packs && render_int(view, "bonus_by", -1) == s) fputs("  (reached 210 first)", o);
        fputc('\n', o);
    }

    if (!over) {
        fputs("  centre  up ", o);
        put_card(ctx, json_string_value(json_object_get(view, "up")));
        fputs("  down ", o);
        if (json_is_true(json_object_get(view, "down")))
            fprintf(o, "%s??%s", render_sgr(ctx, RENDER_DIM), render_sgr(ctx, RENDER_OFF));
        else
            fputs("-", o);
        json_t *sw = json_object_get(view, "swapped");
        if (json_is_boolean(sw))
            fprintf(o, " (%s %s)", render_seat_name(ctx, starter, name, sizeof name),
                    json_is_true(sw) ? "swapped" : "kept");
        fprintf(o, "  . stock %d . discards %zu\n", render_int(view, "stock", 0),
                json_array_size(json_object_get(view, "discards")));
    }
    json_t *hand = json_object_get(view, "hand");
    if (json_array_size(hand)) {
        fputs("  your cards  ", o);
        render_put_cards(ctx, hand, put_card);
        const char *out = json_string_value(json_object_get(view, "swapped_out"));
        if (out) {
            fputs("   (you put ", o);
            put_card(ctx, out);
            fputs(" face down)", o);
        }
        fputc('\n', o);
    }
    json_t *ld = json_object_get(view, "last_deal");
    if (json_is_object(ld)) put_last_deal(ctx, ld, packs);

    if (over || turn < 0) return;
    if (turn == me) {
        fprintf(o, "  %syour turn:%s ", render_sgr(ctx, RENDER_BOLD), render_sgr(ctx, RENDER_OFF));
        if (phase && strcmp(phase, "swap") == 0)
            fputs("keep, or swap CARD (for the face-down card, unseen)\n", o);
        else
            fputs("pick down (both score), or pick up (a challenge)\n", o);
    } else {
        fprintf(o, "  %s to %s\n", render_seat_name(ctx, turn, name, sizeof name),
                phase && strcmp(phase, "swap") == 0 ? "keep or swap" : "pick a centre card");
    }
}

static void result_aspoint3(const render_ctx_t *ctx, const json_t *result)
{
    char name[64];
    FILE *o = ctx->out;
    const char *mode = json_string_value(json_object_get(result, "mode"));
    bool packs = mode && strcmp(mode, "packs") == 0;
    render_game_over(ctx, "%d deals", render_int(result, "deals", 0));
    if (!render_seat_list(ctx, json_object_get(result, "winners"), " winner "))
        fputs(" no winner", o);
    fputs(packs ? (by_manche(result) ? " . packs won" : " . deals won") : " . scores", o);
    render_seat_values(ctx, json_object_get(result, "scores"));
    fputc('\n', o);
    size_t i;
    json_t *h;
    json_array_foreach(json_object_get(result, "history"), i, h)
    {
        int rw = render_int(h, "winner", -1);
        json_t *sc = json_object_get(h, "scores");
        fprintf(o, "  round %d: %d - %d, %s%s +%d\n", render_int(h, "round", 0),
                (int)json_integer_value(json_array_get(sc, 0)),
                (int)json_integer_value(json_array_get(sc, 1)),
                rw >= 0 ? render_seat_name(ctx, rw, name, sizeof name) : "drawn",
                rw >= 0 ? " wins" : "", render_int(h, "points", 0));
    }
}

const renderer_t render_aspoint3 = {
    .game = "aspoint3",
    .table = table_aspoint3,
    .result = result_aspoint3,
};
