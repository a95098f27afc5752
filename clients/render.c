/*
 * render.c — the renderer table, shared helpers and the JSON fallback.
 */
#include <stdlib.h>
#include <string.h>

#include "render.h"

static const renderer_t render_fallback = {
    .game = NULL,
    .table = render_json_table,
    .hand_order = NULL,
    .translate = NULL,
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
    return buf;
}

void render_json_table(const render_ctx_t *ctx, const json_t *view)
{
    json_t *copy = json_copy((json_t *)view);
    json_object_del(copy, "legal");
    char *text = json_dumps(copy, JSON_COMPACT);
    fprintf(ctx->out, "%s-- room %s --%s\n", render_sgr(ctx, RENDER_BOLD), ctx->room,
            render_sgr(ctx, RENDER_OFF));
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
