/*
 * render.c — the renderer table, shared helpers and the JSON fallback.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "clients/render.h"

static const renderer_t render_fallback = {
    .table = render_json_table,
    .result = render_json_result,
};

/* One line per game that has a picture; the others use the fallback. */
static const renderer_t *const renderers[] = {&render_233, &render_aspoint3, &render_seqnum,
                                              &render_slap};

const renderer_t *render_find(const char *game)
{
    for (size_t i = 0; game && i < sizeof renderers / sizeof *renderers; i++)
        if (strcmp(renderers[i]->game, game) == 0) return renderers[i];
    return &render_fallback;
}

const char *render_sgr(const render_ctx_t *ctx, const char *sgr)
{
    static char buf[8][24];
    static int next;
    if (!ctx->color) return "";
    char *b = buf[next++ % 8];
    snprintf(b, sizeof buf[0], "\033[%sm", sgr);
    return b;
}

int render_put_sgr(const render_ctx_t *ctx, const char *sgr, const char *text)
{
    fputs(render_sgr(ctx, sgr), ctx->out);
    size_t w = safe_fputs(ctx->out, text);
    fputs(render_sgr(ctx, RENDER_OFF), ctx->out);
    return (int)w;
}

int render_put_cards(const render_ctx_t *ctx, const json_t *cards, render_card_fn *put_card)
{
    size_t i;
    json_t *c;
    int w = 0;
    json_array_foreach(cards, i, c)
    {
        if (i) fputc(' ', ctx->out);
        w += (int)(i > 0) + put_card(ctx, json_string_value(c));
    }
    return w;
}

int render_int(const json_t *o, const char *key, int dflt)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (int)json_integer_value(v) : dflt;
}

const char *render_seat_name(const render_ctx_t *ctx, int seat, char *buf, size_t cap)
{
    json_t *s = ctx->seats ? json_array_get(ctx->seats, (size_t)seat) : NULL;
    const char *name = json_string_value(json_object_get(s, "name"));
    if (name && json_is_true(json_object_get(s, "bot")))
        snprintf(buf, cap, "bot%d", seat);
    else if (name)
        safe_text(buf, cap, name);
    else
        snprintf(buf, cap, "seat %d", seat);
    json_t *rating = json_object_get(s, "rating"); /* an account's, a rated table's bot */
    size_t n = strlen(buf);
    if (json_is_number(rating) && n < cap)
        snprintf(buf + n, cap - n, " (%.1f)", json_number_value(rating));
    return buf;
}

void render_heading(const render_ctx_t *ctx, const char *fmt, ...)
{
    fprintf(ctx->out, "%s-- room %s ", render_sgr(ctx, RENDER_BOLD), ctx->room);
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        fputs(". ", ctx->out);
        vfprintf(ctx->out, fmt, ap);
        fputc(' ', ctx->out);
        va_end(ap);
    }
    fprintf(ctx->out, "--%s\n", render_sgr(ctx, RENDER_OFF));
}

void render_game_over(const render_ctx_t *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(ctx->out, "%sgame over in room %s after ", render_sgr(ctx, RENDER_BOLD), ctx->room);
    vfprintf(ctx->out, fmt, ap);
    fprintf(ctx->out, ":%s", render_sgr(ctx, RENDER_OFF));
    va_end(ap);
}

void render_player_head(const render_ctx_t *ctx, int seat, bool marked, bool bold, bool you)
{
    char name[64];
    fprintf(ctx->out, "%s%s seat %d  %-12s%s", bold ? render_sgr(ctx, RENDER_BOLD) : "",
            marked ? ">" : " ", seat, render_seat_name(ctx, seat, name, sizeof name),
            you ? " (you)" : "      ");
}

bool render_turn_head(const render_ctx_t *ctx, const json_t *p, size_t i, int turn, bool over,
                      int me, int *seat)
{
    int s = render_int(p, "seat", (int)i);
    bool here = s == turn && !over;
    render_player_head(ctx, s, here, here, s == me);
    *seat = s;
    return here;
}

size_t render_seat_list(const render_ctx_t *ctx, const json_t *seats, const char *before)
{
    char name[64];
    size_t i;
    json_t *s;
    json_array_foreach(seats, i, s)
        fprintf(ctx->out, "%s%s", i ? ", " : before,
                render_seat_name(ctx, (int)json_integer_value(s), name, sizeof name));
    return json_array_size(seats);
}

void render_seat_values(const render_ctx_t *ctx, const json_t *values)
{
    char name[64];
    size_t i;
    json_t *v;
    json_array_foreach(values, i, v)
        fprintf(ctx->out, " %s %d", render_seat_name(ctx, (int)i, name, sizeof name),
                (int)json_integer_value(v));
}

void render_rounds_result(const render_ctx_t *ctx, const json_t *result, const char *none,
                          const char *label, const char *key)
{
    render_game_over(ctx, "%d rounds", render_int(result, "rounds", 0));
    if (!render_seat_list(ctx, json_object_get(result, "winners"), " winner ") && none)
        fputs(none, ctx->out);
    fprintf(ctx->out, " . %s", label);
    render_seat_values(ctx, json_object_get(result, key));
    fputc('\n', ctx->out);
}

void render_event_head(const render_ctx_t *ctx, const json_t *ev, const char *did,
                       render_card_fn *put_card)
{
    char name[64];
    int seat = render_int(ev, "seat", -1);
    if (seat >= 0) fprintf(ctx->out, "%s ", render_seat_name(ctx, seat, name, sizeof name));
    safe_fputs(ctx->out, did);
    const char *card = json_string_value(json_object_get(ev, "card"));
    if (!card) return;
    fputc(' ', ctx->out);
    if (put_card)
        put_card(ctx, card);
    else
        safe_fputs(ctx->out, card);
}

void render_json_table(const render_ctx_t *ctx, const json_t *view)
{
    json_t *copy = json_copy((json_t *)view);
    json_object_del(copy, "legal");
    char *text = json_dumps(copy, JSON_COMPACT);
    render_heading(ctx, NULL);
    safe_fwrite_json(ctx->out, text ? text : "{}", text ? strlen(text) : 2);
    fputc('\n', ctx->out);
    free(text);
    json_decref(copy);
}

void render_json_result(const render_ctx_t *ctx, const json_t *result)
{
    char *text = json_dumps(result, JSON_COMPACT);
    fputs("result: ", ctx->out);
    safe_fwrite_json(ctx->out, text ? text : "{}", text ? strlen(text) : 2);
    fputc('\n', ctx->out);
    free(text);
}

void render_last_events(const render_ctx_t *ctx, const json_t *events, size_t max,
                        void (*put)(const render_ctx_t *ctx, const json_t *ev))
{
    size_t n = json_array_size(events), from = n > max ? n - max : 0;
    if (!n) return;
    fputs("  last:", ctx->out);
    for (size_t k = from; k < n; k++) {
        fputs(k == from ? " " : " | ", ctx->out);
        put(ctx, json_array_get(events, k));
    }
    fputc('\n', ctx->out);
}
