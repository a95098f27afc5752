/*
 * render_slap.c — the slap table (core/slap/RULES.md) as its viewer sees it.
 *
 *   -- room 7 . slap . round 2/20 . play --
 *     piles   0: R5 (12)   1: Y7 (4)
 *   > seat 0  alice (you)   draw 31  cards 44
 *       col 0: G6    col 1: ## 1   col 2: --    col 3: R10 +2
 *     seat 1  bot1          draw 29  cards 40
 *       col 0: --    col 1: B3     col 2: Y11   col 3: ## 3
 *     nobody can play: the server turns up new cards in 1.2 s
 *     last: bot1 play B3 col 1 -> pile 0 | alice turn G6 col 0
 *
 * A column shows its face-up top card and how many face-down cards lie under
 * it (`R10 +2`), or `## N` when its top card is face down (N cards: `turn C`
 * shows it), or `--` when empty. Countdowns (the go, the next stall) are
 * counted from the view's `now`, the server's time of the change.
 * Actions are numbers (play C K, turn C, move C D, slap K); the `legal` list
 * numbers them too.
 */
#include <stdlib.h>
#include <string.h>

#include "clients/render.h"

static const char *card_sgr(const char *c)
{
    switch (c ? c[0] : 0) {
    case 'R': return "1;31";
    case 'G': return "1;32";
    case 'B': return "1;34";
    case 'Y': return "1;33";
    default: return RENDER_BOLD;
    }
}

/* A card, escaped; returns the width written (colour aside). */
static int put_card(const render_ctx_t *ctx, const char *c)
{
    return render_put_sgr(ctx, card_sgr(c), c);
}

/* Milliseconds from the view's now to key's time, or -1 when key is null. */
static long long ms_until(const json_t *view, const char *key)
{
    json_t *at = json_object_get(view, key), *now = json_object_get(view, "now");
    if (!json_is_integer(at)) return -1;
    long long d = json_integer_value(at) - (json_is_integer(now) ? json_integer_value(now) : 0);
    return d < 0 ? 0 : d;
}

static void put_columns(const render_ctx_t *ctx, const json_t *p)
{
    FILE *o = ctx->out;
    json_t *sizes = json_object_get(p, "sizes"), *tops = json_object_get(p, "tops");
    fputs("     ", o);
    for (size_t c = 0; c < json_array_size(sizes); c++) {
        int n = (int)json_integer_value(json_array_get(sizes, c));
        const char *top = json_string_value(json_array_get(tops, c));
        int w = 0;
        fprintf(o, " col %zu: ", c);
        if (n == 0) {
            w = fprintf(o, "--");
        } else if (top) {
            w = put_card(ctx, top);
            if (n > 1) w += fprintf(o, " +%d", n - 1);
        } else {
            fputs(render_sgr(ctx, RENDER_DIM), o);
            w = fprintf(o, "## %d", n);
            fputs(render_sgr(ctx, RENDER_OFF), o);
        }
        fprintf(o, "%*s", w < 7 ? 7 - w : 0, "");
    }
    fputc('\n', o);
}

static void put_event(const render_ctx_t *ctx, const json_t *ev)
{
    FILE *o = ctx->out;
    const char *did = json_string_value(json_object_get(ev, "did"));
    if (!did) did = "?";
    if (strcmp(did, "deal") == 0 || strcmp(did, "go") == 0) {
        fprintf(o, "%s (round %d)", did, render_int(ev, "round", 0)); /* a known word */
        return;
    }
    if (strcmp(did, "stall") == 0) {
        fprintf(o, "stall %d:", render_int(ev, "stalls", 0));
        size_t i;
        json_t *c;
        json_array_foreach(json_object_get(ev, "cards"), i, c)
        {
            fputc(' ', o);
            if (json_is_string(c))
                put_card(ctx, json_string_value(c));
            else
                fputc('-', o);
        }
        return;
    }
    if (strcmp(did, "round_end") == 0) {
        fprintf(o, "round %d ends%s, cards", render_int(ev, "round", 0),
                json_is_true(json_object_get(ev, "blocked")) ? " blocked" : "");
        size_t i;
        json_t *c;
        json_array_foreach(json_object_get(ev, "cards"), i, c)
            fprintf(o, " %d", (int)json_integer_value(c));
        return;
    }
    render_event_head(ctx, ev, did, put_card);
    int col = render_int(ev, "column", -1), to = render_int(ev, "to", -1);
    int pile = render_int(ev, "pile", -1);
    if (col >= 0) fprintf(o, " col %d", col);
    if (to >= 0) fprintf(o, " -> col %d", to);
    if (pile >= 0) fprintf(o, "%s pile %d", col >= 0 ? " ->" : "", pile);
    if (strcmp(did, "slap") == 0 || strcmp(did, "last_pile") == 0)
        fprintf(o, " (%d cards%s)", render_int(ev, "cards", 0),
                json_is_true(json_object_get(ev, "boxed")) ? ", boxed" : "");
}

static void table_slap(const render_ctx_t *ctx, const json_t *view)
{
    FILE *o = ctx->out;
    char name[64], shown[128];
    int me = render_int(view, "seat", -1);
    const char *phase = json_string_value(json_object_get(view, "phase"));
    if (!phase) phase = "?";

    render_heading(ctx, "slap . round %d/%d . %s", render_int(view, "round", 0),
                   render_int(view, "max_rounds", 0), safe_text(shown, sizeof shown, phase));

    fputs("  piles ", o);
    size_t i;
    json_t *k;
    json_array_foreach(json_object_get(view, "piles"), i, k)
    {
        fprintf(o, "  %d: ", render_int(k, "pile", (int)i));
        const char *top = json_string_value(json_object_get(k, "top"));
        if (top)
            put_card(ctx, top);
        else
            fputs("--", o);
        fprintf(o, " (%d)", render_int(k, "cards", 0));
        if (json_is_true(json_object_get(k, "boxed")))
            fputs(" boxed", o);
        else if (render_int(k, "taken_by", -1) >= 0)
            fprintf(o, " taken by %s",
                    render_seat_name(ctx, render_int(k, "taken_by", 0), name, sizeof name));
    }
    int box = render_int(view, "box", 0), out = render_int(view, "out", 0);
    if (box || out) fprintf(o, "   . out of play: boxed %d, leftovers %d", box, out);
    fputc('\n', o);

    json_t *p;
    json_array_foreach(json_object_get(view, "players"), i, p)
    {
        int s = render_int(p, "seat", (int)i);
        render_player_head(ctx, s, s == me, false, s == me);
        fprintf(o, "  draw %3d  cards %3d", render_int(p, "draw", 0), render_int(p, "cards", 0));
        int slapped = render_int(p, "slapped", -1);
        if (slapped >= 0) fprintf(o, "  slapped pile %d", slapped);
        fputc('\n', o);
        put_columns(ctx, p);
    }

    long long go = ms_until(view, "go_at"), stall = ms_until(view, "stall_at");
    if (strcmp(phase, "setup") == 0 && go >= 0)
        fprintf(o, "  %sgo in %.1f s%s: the draw piles turn up the discard piles\n",
                render_sgr(ctx, RENDER_BOLD), (double)go / 1000.0, render_sgr(ctx, RENDER_OFF));
    if (stall >= 0)
        fprintf(o, "  nobody can play: the server turns up new cards in %.1f s (stall %d/%d)\n",
                (double)stall / 1000.0, render_int(view, "stalls", 0) + 1,
                render_int(view, "max_stalls", 0));
    if (strcmp(phase, "race") == 0) {
        int first = render_int(view, "first", -1);
        fprintf(o, "  %s%s emptied their columns: slap a pile to take it home!%s\n",
                render_sgr(ctx, RENDER_BOLD),
                first >= 0 ? render_seat_name(ctx, first, name, sizeof name) : "someone",
                render_sgr(ctx, RENDER_OFF));
    }

    json_t *events = json_object_get(view, "events");
    render_last_events(ctx, events, 4, put_event);
    if (me >= 0 && strcmp(phase, "play") == 0 && !json_array_size(json_object_get(view, "legal")) &&
        stall < 0)
        fputs("  nothing for you to play: wait for the others\n", o);
}

static void result_slap(const render_ctx_t *ctx, const json_t *result)
{
    render_rounds_result(ctx, result, " no winner", "cards held", "cards");
}

const renderer_t render_slap = {
    .game = "slap",
    .table = table_slap,
    .result = result_slap,
};
