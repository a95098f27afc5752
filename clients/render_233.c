/*
 * render_233.c — the 233 table (core/233/RULES.md) as its viewer sees it.
 *
 *   -- room 2 . 233 . round 1 . target 233 . dealer alice --
 *   > seat 0  alice (you)   9 cards  score   0
 *     seat 1  bot1          8 cards  score  15  melds [red red red]  gifts +5
 *     pile 122 . discard G6 (bot1) . direction -> . claims open
 *     last: bot1 discard G6 | alice draw
 *     hand  1 Y5 | 2 B5 | 3 G3  4 G4  5 G6  6 G8 | 7 red  8 red | 9 stop
 *
 * The hand is sorted and grouped by colour (yellow, blue, green, symbols,
 * specials); its numbers are the positions `discard 3` refers to.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "clients/render.h"

/* ------------------------------------------------------------------------ */
/* Cards                                                                    */
/* ------------------------------------------------------------------------ */

static const char *const symbols[] = {"red", "pink", "purple", "orange"};
static const char *const specials[] = {"joker", "reverse", "stop", "gift+5", "gift-5"};

/* Sort key of a card name: group * 100 + rank; unknown names last. */
static int card_key(const char *c)
{
    static const char colours[] = "YBG";
    if (!c) return 999;
    const char *k = strchr(colours, c[0]);
    if (k && c[0] && c[1] >= '1' && c[1] <= '8' && !c[2]) return (int)(k - colours) * 100 + c[1];
    for (int i = 0; i < 4; i++)
        if (strcasecmp(c, symbols[i]) == 0) return 300 + i;
    for (int i = 0; i < 5; i++)
        if (strcasecmp(c, specials[i]) == 0) return 400 + i;
    return 999;
}

static const char *card_sgr(const char *c)
{
    switch (card_key(c) / 100) {
    case 0: return "33"; /* yellow */
    case 1: return "34"; /* blue */
    case 2: return "32"; /* green */
    case 3:
        if (strcasecmp(c, "red") == 0) return "31";
        if (strcasecmp(c, "pink") == 0) return "95";
        if (strcasecmp(c, "purple") == 0) return "35";
        return "38;5;208"; /* orange */
    case 4: return strcasecmp(c, "joker") == 0 ? "1" : "36";
    default: return "0";
    }
}

static int put_card(const render_ctx_t *ctx, const char *c)
{
    return render_put_sgr(ctx, card_sgr(c), c);
}

static int cmp_cards(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    int d = card_key(x) - card_key(y);
    return d ? d : strcmp(x, y);
}

static json_t *hand_233(const json_t *view)
{
    json_t *hand = json_object_get(view, "hand");
    if (!json_is_array(hand)) return NULL;
    size_t n = json_array_size(hand);
    const char **names = calloc(n ? n : 1, sizeof *names);
    if (!names) return NULL;
    for (size_t i = 0; i < n; i++) {
        names[i] = json_string_value(json_array_get(hand, i));
        if (!names[i]) names[i] = "?";
    }
    qsort(names, n, sizeof *names, cmp_cards);
    json_t *out = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(out, json_string(names[i]));
    free(names);
    return out;
}

/* ------------------------------------------------------------------------ */
/* The table                                                                */
/* ------------------------------------------------------------------------ */

static void put_cards(const render_ctx_t *ctx, const json_t *cards)
{
    render_put_cards(ctx, cards, put_card);
}

static void put_event(const render_ctx_t *ctx, const json_t *ev)
{
    char name[64];
    const char *did = json_string_value(json_object_get(ev, "did"));
    int seat = render_int(ev, "seat", -1);
    render_event_head(ctx, ev, did, put_card);
    json_t *cards = json_object_get(ev, "cards");
    if (json_is_array(cards)) {
        fputc(' ', ctx->out);
        put_cards(ctx, cards);
    }
    const char *combo = json_string_value(json_object_get(ev, "combo"));
    if (combo) {
        fputc(' ', ctx->out);
        safe_fputs(ctx->out, combo);
    }
    int to = render_int(ev, "to", -1);
    if (to >= 0 && to != seat)
        fprintf(ctx->out, " to %s", render_seat_name(ctx, to, name, sizeof name));
    if (strcmp(did ? did : "", "deal") == 0 || strcmp(did ? did : "", "round_over") == 0)
        fprintf(ctx->out, " (round %d)", render_int(ev, "round", 0));
}

static void put_last_round(const render_ctx_t *ctx, const json_t *lr)
{
    char name[64], why[128];
    int winner = render_int(lr, "winner", -1);
    const char *reason = json_string_value(json_object_get(lr, "reason"));
    fprintf(ctx->out, "  round %d over: %s%s%s%s\n", render_int(lr, "round", 0),
            winner >= 0 ? render_seat_name(ctx, winner, name, sizeof name) : "no winner",
            winner >= 0 ? " wins" : "", reason && winner < 0 ? ": " : "",
            reason && winner < 0 ? safe_text(why, sizeof why, reason) : "");
    size_t i;
    json_t *h;
    json_array_foreach(json_object_get(lr, "hands"), i, h)
    {
        const char *combo = json_string_value(json_object_get(h, "combo"));
        fprintf(ctx->out, "    %-10s %+4d -> %4d  ",
                render_seat_name(ctx, render_int(h, "seat", 0), name, sizeof name),
                render_int(h, "points", 0), render_int(h, "score", 0));
        put_cards(ctx, json_object_get(h, "cards"));
        size_t k;
        json_t *m;
        json_array_foreach(json_object_get(h, "melds"), k, m)
        {
            fputs(" [", ctx->out);
            put_cards(ctx, m);
            fputc(']', ctx->out);
        }
        if (combo && strcmp(combo, "none") != 0) {
            fputs("  ", ctx->out);
            safe_fputs(ctx->out, combo);
        }
        fputc('\n', ctx->out);
    }
}

static void table_233(const render_ctx_t *ctx, const json_t *view)
{
    FILE *o = ctx->out;
    char name[64], text[128];
    int me = render_int(view, "seat", -1), turn = render_int(view, "turn", -1);
    const char *phase = json_string_value(json_object_get(view, "phase"));
    bool over = phase && strcmp(phase, "over") == 0;

    render_heading(ctx, "233 . round %d . target %d . dealer %s", render_int(view, "round", 0),
                   render_int(view, "target", 0),
                   render_seat_name(ctx, render_int(view, "dealer", 0), name, sizeof name));

    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(view, "players"), i, p)
    {
        int s;
        bool turn_here = render_turn_head(ctx, p, i, turn, over, me, &s);
        fprintf(o, " %2d cards  score %4d", render_int(p, "cards", 0), render_int(p, "score", 0));
        if (turn_here) fputs(render_sgr(ctx, RENDER_OFF), o);
        json_t *melds = json_object_get(p, "melds");
        if (json_array_size(melds)) {
            fputs("  melds", o);
            size_t k;
            json_t *m;
            json_array_foreach(melds, k, m)
            {
                fputs(" [", o);
                put_cards(ctx, m);
                fputc(']', o);
            }
        }
        int gp = render_int(p, "gifts_plus", 0), gm = render_int(p, "gifts_minus", 0);
        if (gp || gm) fprintf(o, "  gifts +5x%d -5x%d", gp, gm);
        fputc('\n', o);
    }

    const char *top = json_string_value(json_object_get(view, "discard"));
    fprintf(o, "  pile %d . discard ", render_int(view, "draw_pile", 0));
    if (top) {
        put_card(ctx, top);
        int by = render_int(view, "discarder", -1);
        if (by >= 0) fprintf(o, " (%s)", render_seat_name(ctx, by, name, sizeof name));
    } else {
        fputs("-", o);
    }
    fprintf(o, " . direction %s", render_int(view, "direction", 1) > 0 ? "->" : "<-");
    if (json_is_true(json_object_get(view, "claim_open"))) fputs(" . claims open", o);
    if (json_array_size(json_object_get(view, "claims")))
        fprintf(o, " . %zu claim(s) pending", json_array_size(json_object_get(view, "claims")));
    const char *gift = json_string_value(json_object_get(view, "pending_gift"));
    if (gift) fprintf(o, " . %s drawn", safe_text(text, sizeof text, gift));
    int decl = render_int(view, "declarer", -1);
    if (decl >= 0)
        fprintf(
            o, " . %s declared %s (last draws)", render_seat_name(ctx, decl, name, sizeof name),
            json_string_value(json_object_get(view, "combo"))
                ? safe_text(text, sizeof text, json_string_value(json_object_get(view, "combo")))
                : "");
    fputc('\n', o);

    /* The last few events, oldest first. */
    json_t *events = json_object_get(view, "events");
    render_last_events(ctx, events, 4, put_event);
    json_t *lr = json_object_get(view, "last_round");
    size_t n = json_array_size(events);
    json_t *last = json_array_get(events, n ? n - 1 : 0);
    const char *last_did = json_string_value(json_object_get(last, "did"));
    if (lr && (over || (last_did && strcmp(last_did, "round_over") == 0) ||
               render_int(lr, "round", 0) == render_int(view, "round", 0)))
        put_last_round(ctx, lr);

    json_t *hand = hand_233(view);
    if (hand) {
        fputs("  hand ", o);
        int prev = -1;
        json_t *c;
        json_array_foreach(hand, i, c)
        {
            int group = card_key(json_string_value(c)) / 100;
            if (i) fputs(group != prev ? " | " : "  ", o);
            prev = group;
            fprintf(o, "%s%zu%s ", render_sgr(ctx, RENDER_DIM), i + 1, render_sgr(ctx, RENDER_OFF));
            put_card(ctx, json_string_value(c));
        }
        fputc('\n', o);
        json_decref(hand);
    }
    if (me >= 0 && !over) {
        if (turn == me)
            fprintf(o, "  %syour turn%s (%s)%s\n", render_sgr(ctx, RENDER_BOLD),
                    render_sgr(ctx, RENDER_OFF), safe_text(text, sizeof text, phase),
                    json_is_true(json_object_get(view, "must_win")) ? ", you must win" : "");
        else if (turn >= 0)
            fprintf(o, "  %s to play (%s)\n", render_seat_name(ctx, turn, name, sizeof name),
                    safe_text(text, sizeof text, phase));
    }
}

/* ------------------------------------------------------------------------ */
/* Typed lines                                                              */
/* ------------------------------------------------------------------------ */

/*
 * `discard 3`, `claim 2 3`, `take 2 3`, `lay 1 2 3 4`: numbers are positions in the
 * sorted hand as drawn (1-based) and become card names. Other words (card
 * names, declare, key=value) are kept.
 */
static char *translate_233(const json_t *view, const char *line)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", line);
    char *save, *w = strtok_r(buf, " \t", &save);
    static const char *const words[] = {"discard", "claim", "take", "lay"};
    bool known = false;
    for (size_t i = 0; w && i < sizeof words / sizeof *words; i++)
        known |= strcmp(w, words[i]) == 0;
    if (!known) return NULL;
    json_t *hand = hand_233(view);
    if (!hand) return NULL;
    char out[1024];
    size_t len = (size_t)snprintf(out, sizeof out, "%s", w);
    bool changed = false;
    while ((w = strtok_r(NULL, " \t", &save)) && len < sizeof out) {
        char *end;
        long k = strtol(w, &end, 10);
        const char *word = w;
        if (*w >= '1' && *w <= '9' && !*end && k >= 1 && (size_t)k <= json_array_size(hand)) {
            word = json_string_value(json_array_get(hand, (size_t)k - 1));
            changed = true;
        }
        len += (size_t)snprintf(out + len, sizeof out - len, " %s", word);
    }
    json_decref(hand);
    return changed && len < sizeof out ? strdup(out) : NULL;
}

static void result_233(const render_ctx_t *ctx, const json_t *result)
{
    render_rounds_result(ctx, result, NULL, "scores", "scores");
}

const renderer_t render_233 = {
    .game = "233",
    .table = table_233,
    .hand_order = hand_233,
    .translate = translate_233,
    .result = result_233,
};
