/*
 * render_seqnum.c — the seqnum board (core/seqnum/RULES.md) as its viewer
 * sees it: a 10 x 10 grid of numbers, chips by team, free corners, finished
 * sequences marked.
 *
 *   -- room 5 . seqnum . turn 12 . 2 teams . goal 1 sequence --
 *          0   1   2   3   4   5   6   7   8   9
 *      0  **  40  34  44  40  11  23  26   1  **
 *      1   1 A44  32  17 B20  25  43  25  22  39
 *      ...
 *   > seat 0  alice (you)   team A  5/5 cards  discard 12+6
 *     seat 1  bot1          team B  4/5 cards  draw pending
 *     A = your team . A40* = in a finished sequence . ** = free corner . cell = row col
 *     last: bot1 play 36-12 at 35 | alice draw
 *     hand  1+0=1 (8 10)  36-12=24 (35x 89) dead  plus  minus
 *     your turn: play CARD CELL (trade CARD first for a dead card)
 *
 * A cell shows its number; a chip shows its team's letter before the number
 * (and the team's background colour on a colour terminal), with `*` after it
 * when the chip is locked in a finished sequence. The cell typed in
 * `play 12+6 58` is the row digit then the column digit. A hand card lists the
 * cells of its answer; a covered one is marked x, and a card whose two cells
 * are covered is dead (it may be traded).
 */
#include <stdlib.h>
#include <string.h>

#include "clients/render.h"

#define SIDE_MAX 16

static const char *const team_sgr[] = {"41;97", "44;97", "42;30", "45;97", "43;30", "46;30"};

static char team_letter(int t)
{
    return t >= 0 && t < 26 ? (char)('A' + t) : '?';
}

/* The answer of an equation card ("12+6" -> 18), 0 for plus/minus/unknown. */
static int card_answer(const char *c)
{
    if (!c) return 0;
    char *end;
    long a = strtol(c, &end, 10);
    if (end == c || (*end != '+' && *end != '-')) return 0;
    char op = *end;
    const char *rest = end + 1;
    long b = strtol(rest, &end, 10);
    if (end == rest || *end) return 0;
    return (int)(op == '+' ? a + b : a - b);
}

static int cell_int(const json_t *arr, int cell, int dflt)
{
    json_t *v = json_array_get(arr, (size_t)cell);
    return json_is_integer(v) ? (int)json_integer_value(v) : dflt;
}

static bool in_sequence(const json_t *seqs, int cell)
{
    size_t i, k;
    json_t *s, *c;
    json_array_foreach(seqs, i, s) json_array_foreach(
        json_object_get(s, "cells"), k, c) if (json_integer_value(c) == cell) return true;
    return false;
}

static void put_grid(const render_ctx_t *ctx, const json_t *view)
{
    FILE *o = ctx->out;
    int side = render_int(view, "side", 10);
    if (side < 1 || side > SIDE_MAX) side = 10;
    json_t *layout = json_object_get(view, "layout"), *chips = json_object_get(view, "chips");
    json_t *seqs = json_object_get(view, "sequences");
    fputs("      ", o);
    for (int c = 0; c < side; c++)
        fprintf(o, "%s%3d %s", render_sgr(ctx, RENDER_DIM), c, render_sgr(ctx, RENDER_OFF));
    fputc('\n', o);
    for (int r = 0; r < side; r++) {
        fprintf(o, "  %s%2d%s  ", render_sgr(ctx, RENDER_DIM), r, render_sgr(ctx, RENDER_OFF));
        for (int c = 0; c < side; c++) {
            int cell = r * side + c;
            int num = cell_int(layout, cell, 0), team = cell_int(chips, cell, -1);
            if (num == 0) {
                fprintf(o, "%s ** %s", render_sgr(ctx, "1;33"), render_sgr(ctx, RENDER_OFF));
            } else if (team >= 0) {
                bool locked = in_sequence(seqs, cell);
                char sgr[24];
                snprintf(sgr, sizeof sgr, "%s%s", team_sgr[team % 6], locked ? ";1;4" : "");
                fprintf(o, "%s%c%2d%c%s", render_sgr(ctx, sgr), team_letter(team), num,
                        locked ? '*' : ' ', render_sgr(ctx, RENDER_OFF));
            } else {
                fprintf(o, " %2d ", num);
            }
        }
        fputc('\n', o);
    }
}

/* A hand card: its name, and for an equation its answer and the two cells. */
static void put_hand_card(const render_ctx_t *ctx, const json_t *view, const char *card)
{
    FILE *o = ctx->out;
    int n = card_answer(card);
    render_put_sgr(ctx, RENDER_BOLD, card);
    if (!n) return;
    json_t *layout = json_object_get(view, "layout"), *chips = json_object_get(view, "chips");
    fprintf(o, "=%d (", n);
    int found = 0, covered = 0;
    for (int cell = 0; cell < (int)json_array_size(layout); cell++) {
        if (cell_int(layout, cell, 0) != n) continue;
        bool taken = cell_int(chips, cell, -1) >= 0;
        fprintf(o, "%s%s%d%s%s", found ? " " : "", taken ? render_sgr(ctx, RENDER_DIM) : "", cell,
                taken ? "x" : "", taken ? render_sgr(ctx, RENDER_OFF) : "");
        found++;
        covered += taken;
    }
    fputc(')', o);
    if (found && covered == found)
        fprintf(o, " %sdead%s", render_sgr(ctx, RENDER_RED), render_sgr(ctx, RENDER_OFF));
}

static void put_event(const render_ctx_t *ctx, const json_t *ev)
{
    FILE *o = ctx->out;
    const char *did = json_string_value(json_object_get(ev, "did"));
    if (!did) did = "?";
    if (strcmp(did, "sequence") == 0) {
        fprintf(o, "%steam %c sequence", render_sgr(ctx, RENDER_BOLD),
                team_letter(render_int(ev, "team", 0)));
        size_t i;
        json_t *c;
        json_array_foreach(json_object_get(ev, "cells"), i, c)
            fprintf(o, " %d", (int)json_integer_value(c));
        fputs(render_sgr(ctx, RENDER_OFF), o);
        return;
    }
    if (strcmp(did, "game_over") == 0) {
        const char *reason = json_string_value(json_object_get(ev, "reason"));
        fputs("game over (", o);
        safe_fputs(o, reason);
        fputc(')', o);
        return;
    }
    render_event_head(ctx, ev, did, NULL);
    int cell = render_int(ev, "cell", -1);
    if (cell >= 0) fprintf(o, " at %d", cell);
}

static void table_seqnum(const render_ctx_t *ctx, const json_t *view)
{
    FILE *o = ctx->out;
    char name[64];
    int me = render_int(view, "seat", -1), turn = render_int(view, "turn", -1);
    int my_team = render_int(view, "team", -1), goal = render_int(view, "goal", 1);
    bool over = json_is_true(json_object_get(view, "over"));

    render_heading(ctx, "seqnum . %s %d . %d teams . goal %d sequence%s",
                   over ? "over after turn" : "turn", render_int(view, "turns", 0) + (over ? 0 : 1),
                   render_int(view, "teams", 0), goal, goal == 1 ? "" : "s");
    put_grid(ctx, view);

    bool owe_me = false;
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(view, "players"), i, p)
    {
        int s, t = render_int(p, "team", 0);
        bool here = render_turn_head(ctx, p, i, turn, over, me, &s);
        fprintf(o, "  team %s%c%s  %d/%d cards", render_sgr(ctx, team_sgr[t % 6]), team_letter(t),
                render_sgr(ctx, RENDER_OFF), render_int(p, "cards", 0),
                render_int(p, "max_cards", 0));
        if (here) fputs(render_sgr(ctx, RENDER_OFF), o);
        if (json_is_true(json_object_get(p, "owes_draw"))) {
            fputs("  draw pending", o);
            if (s == me) owe_me = true;
        }
        int lapsed = render_int(p, "lapsed", 0);
        if (lapsed) fprintf(o, "  %d draw%s lost", lapsed, lapsed == 1 ? "" : "s");
        json_t *d = json_object_get(p, "discards");
        size_t nd = json_array_size(d);
        if (nd) {
            fputs("  discard ", o);
            safe_fputs(o, json_string_value(json_array_get(d, nd - 1)));
        }
        fputc('\n', o);
    }
    fprintf(o, "  ");
    if (my_team >= 0) fprintf(o, "%c = your team . ", team_letter(my_team));
    fprintf(o, "A40* = in a sequence . ** = free corner . cell = row col . draw pile %d\n",
            render_int(view, "draw_pile", 0));

    json_t *seqs = json_object_get(view, "sequences");
    if (json_array_size(seqs)) {
        fputs("  sequences:", o);
        json_t *s;
        json_array_foreach(seqs, i, s)
        {
            fprintf(o, "%s team %c", i ? " ;" : "", team_letter(render_int(s, "team", 0)));
            size_t k;
            json_t *c;
            json_array_foreach(json_object_get(s, "cells"), k, c)
                fprintf(o, " %d", (int)json_integer_value(c));
        }
        fputc('\n', o);
    }

    json_t *events = json_object_get(view, "events");
    render_last_events(ctx, events, 4, put_event);

    json_t *hand = json_object_get(view, "hand");
    if (json_is_array(hand)) {
        fputs("  hand ", o);
        if (!json_array_size(hand)) fputs(" (empty)", o);
        json_t *c;
        json_array_foreach(hand, i, c)
        {
            fputs(i ? "  " : " ", o);
            put_hand_card(ctx, view, json_string_value(c));
        }
        fputc('\n', o);
    }
    if (over || me < 0) return;
    if (owe_me) fputs("  you owe a draw: `draw` before the next player has played and drawn\n", o);
    if (turn == me)
        fprintf(o, "  %syour turn:%s play CARD CELL%s\n", render_sgr(ctx, RENDER_BOLD),
                render_sgr(ctx, RENDER_OFF),
                json_is_true(json_object_get(view, "traded")) ? ""
                                                              : " (trade CARD first: a dead card)");
    else if (turn >= 0)
        fprintf(o, "  %s to play\n", render_seat_name(ctx, turn, name, sizeof name));
}

static void result_seqnum(const render_ctx_t *ctx, const json_t *result)
{
    FILE *o = ctx->out;
    char why[128];
    const char *reason = json_string_value(json_object_get(result, "reason"));
    render_game_over(ctx, "%d turns (%s)", render_int(result, "turns", 0),
                     safe_text(why, sizeof why, reason));
    int team = render_int(result, "team", -1);
    if (team >= 0) fprintf(o, " team %c wins", team_letter(team));
    if (render_seat_list(ctx, json_object_get(result, "winners"), " ("))
        fputc(')', o);
    else
        fputs(" no winner", o);
    size_t i;
    json_t *w;
    fputs(" . sequences", o);
    json_array_foreach(json_object_get(result, "sequences"), i, w)
        fprintf(o, " %c %d", team_letter((int)i), (int)json_integer_value(w));
    fputc('\n', o);
}

/* `autodraw on`: the draw, as soon as it is legal for this viewer. */
static json_t *auto_seqnum(const json_t *view)
{
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(view, "legal"), i, a)
    {
        const char *type = json_string_value(json_object_get(a, "type"));
        if (type && strcmp(type, "draw") == 0) return json_deep_copy(a);
    }
    return NULL;
}

const renderer_t render_seqnum = {
    .game = "seqnum",
    .table = table_seqnum,
    .result = result_seqnum,
    .auto_action = auto_seqnum,
};
