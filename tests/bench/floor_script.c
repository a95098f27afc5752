/*
 * floor_script.c — the floor's script in memory and on file (floor_script.h).
 */
#include "tests/bench/floor_script.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static const char *const kind_names[K_COUNT] = {"hello", "create", "join",
                                                "act",   "leave1", "leave2"};

void text_add(text_t *t, const char *p, size_t n)
{
    if (t->len + n > t->cap) {
        t->cap = (t->len + n) * 2 + 64;
        t->data = realloc(t->data, t->cap);
        if (!t->data) abort();
    }
    memcpy(t->data + t->len, p, n);
    t->len += n;
}

void step_free(step_t *st)
{
    free(st->in.data);
    free(st->out[0].data);
    free(st->out[1].data);
    memset(st, 0, sizeof *st);
}

game_script_t *script_new_game(script_t *sc)
{
    sc->games = realloc(sc->games, (sc->ngames + 1) * sizeof *sc->games);
    if (!sc->games) abort();
    memset(&sc->games[sc->ngames], 0, sizeof *sc->games);
    return &sc->games[sc->ngames++];
}

step_t *script_new_step(game_script_t *g)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 256;
        g->steps = realloc(g->steps, g->cap * sizeof *g->steps);
        if (!g->steps) abort();
    }
    step_t *st = &g->steps[g->n++];
    memset(st, 0, sizeof *st);
    return st;
}

void script_drop_game(script_t *sc)
{
    game_script_t *g = &sc->games[--sc->ngames];
    for (size_t i = 0; i < g->n; i++)
        step_free(&g->steps[i]);
    free(g->steps);
}

void script_keep_shared(script_t *sc, step_t *st)
{
    step_t *kept = &sc->shared[st->kind][st->seat];
    if (kept->in.len)
        step_free(st);
    else
        *kept = *st;
}

void script_free(script_t *sc)
{
    for (int k = 0; k < K_COUNT; k++)
        for (int s = 0; s < 2; s++)
            step_free(&sc->shared[k][s]);
    while (sc->ngames)
        script_drop_game(sc);
    free(sc->games);
    sc->games = NULL;
}

/* ------------------------------------------------------------------------ */
/* The file                                                                  */
/* ------------------------------------------------------------------------ */

/* A new step of kind and seat: a shared one, or the next of the last game (NULL: none). */
static step_t *load_step(script_t *sc, int kind, int seat)
{
    step_t *st = &sc->shared[kind][seat];
    if (kind == K_JOIN || kind == K_ACT) {
        if (!sc->ngames) return NULL;
        st = script_new_step(&sc->games[sc->ngames - 1]);
    }
    step_free(st);
    st->kind = kind;
    st->seat = seat;
    return st;
}

int script_load(script_t *sc, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "floor: %s: %s\n", path, strerror(errno));
        return -1;
    }
    char *line = NULL, word[16];
    size_t cap = 0, lineno = 0;
    ssize_t n;
    step_t *st = NULL;
    bool bad = false;
    while (!bad && (n = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (line[n - 1] == '\n') line[--n] = '\0';
        int seat = 0, kind, used = 0;
        if (n == 0 || line[0] == '#') continue;
        if (sscanf(line, "game %15s", word) == 1 &&
            (!strcmp(word, "over") || !strcmp(word, "cut"))) {
            script_new_game(sc)->over = word[0] == 'o';
            st = NULL;
        } else if (sscanf(line, "step %15s %d", word, &seat) == 2) {
            for (kind = 0; kind < K_COUNT && strcmp(word, kind_names[kind]) != 0; kind++)
                ;
            st = kind < K_COUNT && (seat == 0 || seat == 1) ? load_step(sc, kind, seat) : NULL;
            bad = !st;
        } else if (st && n > 3 && memcmp(line, "in ", 3) == 0) {
            text_add(&st->in, line + 3, (size_t)n - 3);
        } else if (st && sscanf(line, "out %d %n", &seat, &used) == 1 && used > 0 &&
                   (seat == 0 || seat == 1)) {
            text_add(&st->out[seat], line + used, (size_t)(n - used));
            text_add(&st->out[seat], "\n", 1);
        } else {
            bad = true;
        }
    }
    free(line);
    fclose(f);
    for (size_t g = 0; !bad && g < sc->ngames; g++)
        bad = sc->games[g].n < 2 || sc->games[g].steps[0].kind != K_JOIN;
    if (bad || !sc->shared[K_HELLO][0].in.len || !sc->shared[K_CREATE][0].in.len || !sc->ngames) {
        fprintf(stderr, "floor: %s: not a whole script (line %zu)\n", path, lineno);
        return -1;
    }
    return 0;
}

static void write_step(FILE *f, const step_t *st)
{
    fprintf(f, "step %s %d\nin %.*s\n", kind_names[st->kind], st->seat, (int)st->in.len,
            st->in.data);
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < st->out[s].len;) {
            const char *p = st->out[s].data + i;
            size_t n = (size_t)((const char *)memchr(p, '\n', st->out[s].len - i) - p);
            fprintf(f, "out %d %.*s\n", s, (int)n, p);
            i += n + 1;
        }
}

int script_write(const script_t *sc, const char *path, const char *comment)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "floor: %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(f, "# %s\n", comment);
    for (int k = 0; k < K_COUNT; k++)
        for (int s = 0; s < 2; s++)
            if (sc->shared[k][s].in.len) write_step(f, &sc->shared[k][s]);
    for (size_t g = 0; g < sc->ngames; g++) {
        fprintf(f, "game %s\n", sc->games[g].over ? "over" : "cut");
        for (size_t i = 0; i < sc->games[g].n; i++)
            write_step(f, &sc->games[g].steps[i]);
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "floor: %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

const char *script_render(const text_t *t, const fill_t *fill, size_t *len)
{
    static text_t out;
    out.len = 0;
    const char *p = t->data, *end = t->data + t->len;
    while (p < end) {
        const char *h = memchr(p, SCRIPT_HOLE, (size_t)(end - p));
        if (!h || h + 1 == end) {
            text_add(&out, p, (size_t)(end - p));
            break;
        }
        text_add(&out, p, (size_t)(h - p));
        const char *v = h[1] == 'R' ? fill->room : fill->name[h[1] == 'B'];
        text_add(&out, v, strlen(v));
        p = h + 2;
    }
    *len = out.len;
    return out.data ? out.data : "";
}
