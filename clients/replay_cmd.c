/*
 * replay_cmd.c — `tapis [HOST:PORT] replay ID`: fetch a finished game's
 * record from the server, re-run it through core/ (replay.c), and step
 * through it.
 *
 * The record comes over a connection of its own: `hello` with a throwaway
 * name (or --name), `replay ID`, `quit`. The server's refusal (not_found,
 * not_finished) is printed and the exit status is 1. Then:
 *
 *   --json       one JSON line per step, {"step", "entry", "kind", "seat",
 *                "at", "action", "view"}, and a last line {"end": true,
 *                "steps", "result", "as_recorded", "message"};
 *   a terminal   a viewer of single keys: n, Enter, space or Right = next,
 *                p or Left = back, g N Enter = step N, r N Enter = the first
 *                step of round N, 0 and $ = first and last, q = quit;
 *   otherwise    the same commands, one a line (blank = next; end of input
 *                quits): for scripts and tests.
 *
 * Each step is drawn by the game's renderer (render.h) from the spectator's
 * view, under a heading "step K/N — what happened". The exit status is 1
 * when the record does not replay to its recorded result.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "clients/net.h"
#include "protocol/protocol.h"
#include "clients/render.h"
#include "clients/replay.h"
#include "clients/safe_text.h"
#include "clients/tapis.h"
#include "clients/verify.h"

#define REPLAY_WAIT_MS 10000 /* for each reply of the server */
#define REPLAY_NAME_TRIES 4  /* throwaway names tried when one is taken */

/* ------------------------------------------------------------------------ */
/* Fetching the record                                                      */
/* ------------------------------------------------------------------------ */

/* The next reply to `re` (events and other lines are skipped), or NULL with a message on stderr. */
static json_t *wait_reply(net_conn_t *net, const char *re)
{
    long long until = net_now_ms() + REPLAY_WAIT_MS;
    for (;;) {
        const char *line;
        size_t len;
        int fr;
        while ((fr = frame_next(&net->frame, &line, &len)) == FRAME_LINE) {
            proto_error_t err;
            json_t *msg = proto_json_parse(line, len, &err);
            const char *r = json_string_value(json_object_get(msg, "re"));
            if (r && strcmp(r, re) == 0) return msg;
            json_decref(msg);
        }
        if (fr != FRAME_NEED_MORE) {
            fprintf(stderr, "tapis: the server's reply to %s is too long\n", re);
            return NULL;
        }
        long long left = until - net_now_ms();
        if (left <= 0) {
            fprintf(stderr, "tapis: no reply to %s from the server\n", re);
            return NULL;
        }
        struct pollfd pfd = {.fd = net->fd, .events = POLLIN};
        int n = poll(&pfd, 1, (int)left);
        if (n < 0 && errno != EINTR) return NULL;
        if (n > 0 && net_read(net) <= 0) {
            fprintf(stderr, "tapis: the server closed the connection\n");
            return NULL;
        }
    }
}

/* "tapis: WHAT: CODE: MESSAGE" on stderr, the server's words escaped. */
static void print_refusal(const char *what, const json_t *reply)
{
    const json_t *err = json_object_get(reply, "error");
    char code[64], message[400];
    fprintf(stderr, "tapis: %s: %s: %s\n", what,
            safe_text(code, sizeof code, json_string_value(json_object_get(err, "code"))),
            safe_text(message, sizeof message, json_string_value(json_object_get(err, "message"))));
}

static const char *error_code(const json_t *reply)
{
    const char *c = json_string_value(json_object_get(json_object_get(reply, "error"), "code"));
    return c ? c : "";
}

/* `hello` with name, or throwaway names until one is free. 0, or -1 (said on stderr). */
static int say_hello(net_conn_t *net, const char *name)
{
    for (int i = 0; i < REPLAY_NAME_TRIES; i++) {
        char mine[40];
        if (i == 0)
            snprintf(mine, sizeof mine, "viewer-%ld", (long)getpid());
        else
            snprintf(mine, sizeof mine, "viewer-%ld-%d", (long)getpid(), i);
        json_t *msg = json_pack("{s:s, s:s}", "cmd", "hello", "name", name ? name : mine);
        int rc = msg ? net_send(net, msg) : -1;
        json_decref(msg);
        json_t *reply = rc == 0 ? wait_reply(net, "hello") : NULL;
        if (!reply) return -1;
        bool ok = json_is_true(json_object_get(reply, "ok"));
        bool again = !ok && !name && strcmp(error_code(reply), "name_taken") == 0;
        if (!ok && !again) print_refusal("hello", reply);
        json_decref(reply);
        if (ok) return 0;
        if (!again) return -1;
    }
    fprintf(stderr, "tapis: hello: every throwaway name is taken (try --name)\n");
    return -1;
}

/* The record of game `id`, or NULL (said on stderr). */
static json_t *fetch_record(const char *host, const char *port, const char *name, const char *id)
{
    net_conn_t net = {.fd = -1};
    if (net_open(&net, host, port) < 0) {
        fprintf(stderr, "tapis: cannot connect to %s:%s: %s\n", host, port, strerror(errno));
        return NULL;
    }
    json_t *record = NULL;
    if (say_hello(&net, name) == 0) {
        json_t *msg = json_pack("{s:s, s:s}", "cmd", "replay", "game_id", id);
        int rc = msg ? net_send(&net, msg) : -1;
        json_decref(msg);
        json_t *reply = rc == 0 ? wait_reply(&net, "replay") : NULL;
        char what[200], shown[160];
        snprintf(what, sizeof what, "replay %s", safe_text(shown, sizeof shown, id));
        if (reply && !json_is_true(json_object_get(reply, "ok")))
            print_refusal(what, reply);
        else if (reply && !json_is_object(json_object_get(reply, "record")))
            fprintf(stderr, "tapis: %s: the reply has no record\n", what);
        else if (reply)
            record = json_incref(json_object_get(reply, "record"));
        json_decref(reply);
        net_write(&net, "quit\n", 5);
    }
    net_close(&net);
    return record;
}

/* ------------------------------------------------------------------------ */
/* --json: one line per step                                                */
/* ------------------------------------------------------------------------ */

/* j (stolen) as one line, with what a terminal would obey escaped as JSON allows. */
static void put_json_line(json_t *j)
{
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!text) return;
    size_t len = strlen(text);
    if (safe_is_clean(text, len))
        fwrite(text, 1, len, stdout);
    else
        safe_fwrite_json(stdout, text, len);
    fputc('\n', stdout);
    free(text);
}

/* The entry's field as JSON, or null. */
static json_t *entry_field(const json_t *entry, const char *key)
{
    json_t *v = json_object_get(entry, key);
    return v ? json_incref(v) : json_null();
}

static void put_json_steps(const replay_t *rp)
{
    for (size_t k = 0; k < rp->nsteps; k++) {
        const json_t *e = rp->steps[k].entry;
        const char *kind = json_string_value(json_object_get(e, "kind"));
        bool act = kind && strcmp(kind, "act") == 0;
        json_t *line = json_object();
        json_object_set_new(line, "step", json_integer((json_int_t)k));
        json_object_set_new(line, "entry", entry_field(e, "n"));
        json_object_set_new(line, "kind", entry_field(e, "kind"));
        json_object_set_new(line, "seat", act ? entry_field(e, "seat") : json_null());
        json_object_set_new(line, "at", entry_field(e, "at"));
        json_object_set_new(line, "action", act ? entry_field(e, "data") : json_null());
        json_object_set(line, "view", rp->steps[k].view);
        put_json_line(line);
    }
    json_t *end = json_object();
    json_object_set_new(end, "end", json_true());
    json_object_set_new(end, "steps", json_integer((json_int_t)rp->nsteps));
    json_object_set_new(end, "result", rp->result ? json_incref(rp->result) : json_null());
    json_object_set_new(end, "as_recorded", json_boolean(rp->as_recorded));
    json_object_set_new(end, "message", json_string(rp->message));
    put_json_line(end);
    fflush(stdout);
}

/* ------------------------------------------------------------------------ */
/* The viewer: drawing a step                                               */
/* ------------------------------------------------------------------------ */

typedef struct viewer {
    const replay_t *rp;
    const renderer_t *rd;
    render_ctx_t ctx;
    char room[160]; /* the game's id, escaped */
    bool clear;     /* stdout is a terminal: each step on a clean screen */
    size_t k;       /* the step shown */
    size_t last;
    char note[600]; /* a line under the step: what the last command could not do */
} viewer_t;

/* What made step k, for its heading (escaped). */
static void describe(const viewer_t *v, size_t k, char *buf, size_t cap)
{
    const json_t *e = v->rp->steps[k].entry;
    const char *kind = json_string_value(json_object_get(e, "kind"));
    double t = (double)(replay_entry_int(e, "at", v->rp->start_at) - v->rp->start_at) / 1000.0;
    if (k == 0) {
        snprintf(buf, cap, "the game starts");
    } else if (kind && strcmp(kind, "tick") == 0) {
        snprintf(buf, cap, "the game's clock: a timer ran out (+%.1f s)", t);
    } else {
        int seat = (int)replay_entry_int(e, "seat", -1);
        char name[64], words[200];
        char *w = inline_render_action(json_object_get(e, "data"));
        snprintf(buf, cap, "seat %d (%s) played %s (+%.1f s)", seat,
                 render_seat_name(&v->ctx, seat, name, sizeof name),
                 safe_text(words, sizeof words, w), t);
        free(w);
    }
}

/* The note under the step, escaped (it may be the replay's message), then none. */
static void show_note(viewer_t *v)
{
    if (!v->note[0]) return;
    fputs("  ", stdout);
    safe_fputs(stdout, v->note);
    fputc('\n', stdout);
    v->note[0] = '\0';
}

static void draw(viewer_t *v)
{
    char what[400];
    if (v->clear) fputs("\033[H\033[2J", stdout);
    describe(v, v->k, what, sizeof what);
    printf("%sstep %zu/%zu — %s%s\n", render_sgr(&v->ctx, RENDER_BOLD), v->k, v->last, what,
           render_sgr(&v->ctx, RENDER_OFF));
    v->rd->table(&v->ctx, v->rp->steps[v->k].view);
    if (v->k == v->last) {
        if (v->rp->result) v->rd->result(&v->ctx, v->rp->result);
        /* The message may quote the record (a game's refusal names the action). */
        printf("  %s", v->rp->as_recorded ? "" : render_sgr(&v->ctx, RENDER_RED));
        safe_fputs(stdout, v->rp->message);
        printf("%s\n", v->rp->as_recorded ? "" : render_sgr(&v->ctx, RENDER_OFF));
    }
    show_note(v);
    printf("  n/Enter/→ next . p/← back . g N step . r N round . 0/$ first/last . q quit\n");
    fflush(stdout);
}

/* ------------------------------------------------------------------------ */
/* The viewer: commands                                                     */
/* ------------------------------------------------------------------------ */

typedef enum view_cmd {
    VIEW_NONE,
    VIEW_NEXT,
    VIEW_BACK,
    VIEW_GO,    /* step arg */
    VIEW_ROUND, /* round arg */
    VIEW_FIRST,
    VIEW_LAST,
    VIEW_HELP,
    VIEW_BAD,
    VIEW_QUIT
} view_cmd_t;

/* Run one command: the step moves (true, draw it), or v->note says why not (false). */
static bool run_command(viewer_t *v, view_cmd_t c, long arg)
{
    size_t k = v->k;
    switch (c) {
    case VIEW_NEXT:
        if (k < v->last)
            k++;
        else
            snprintf(v->note, sizeof v->note, "this is the last step (q quits)");
        break;
    case VIEW_BACK:
        if (k > 0)
            k--;
        else
            snprintf(v->note, sizeof v->note, "this is the first step");
        break;
    case VIEW_GO:
        if (arg >= 0 && (size_t)arg <= v->last)
            k = (size_t)arg;
        else
            snprintf(v->note, sizeof v->note, "no step %ld: the steps go from 0 to %zu", arg,
                     v->last);
        break;
    case VIEW_ROUND: {
        long s = replay_round_step(v->rp, arg);
        json_int_t first, last;
        replay_round_range(v->rp, &first, &last);
        if (s >= 0)
            k = (size_t)s;
        else if (s == REPLAY_NO_ROUNDS)
            snprintf(v->note, sizeof v->note, "this game has no rounds: g N goes to step N");
        else
            snprintf(v->note, sizeof v->note, "no round %ld: the rounds go from %lld to %lld", arg,
                     (long long)first, (long long)last);
        break;
    }
    case VIEW_FIRST: k = 0; break;
    case VIEW_LAST: k = v->last; break;
    case VIEW_BAD:
    case VIEW_HELP:
        snprintf(v->note, sizeof v->note,
                 "keys: n, Enter, space or Right: next; p or Left: back; g N: step N; "
                 "r N: round N; 0, $: first, last; q: quit");
        break;
    case VIEW_NONE:
    case VIEW_QUIT: break;
    }
    if (k == v->k) return false;
    v->k = k;
    return true;
}

/* A whole decimal number (blanks around it allowed) into *out: 0, or -1. */
static int parse_number(const char *s, long *out)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    while (*end == ' ' || *end == '\t')
        end++;
    if (end == s || *end || errno || x < 0) return -1;
    *out = x;
    return 0;
}

/* A typed line (not a terminal): n, blank, p, g N, r N, 0, $, q, or the arrows' escapes. */
static view_cmd_t parse_line(char *line, long *arg)
{
    line[strcspn(line, "\r\n")] = '\0';
    while (*line == ' ' || *line == '\t')
        line++;
    size_t len = strlen(line);
    while (len && (line[len - 1] == ' ' || line[len - 1] == '\t'))
        line[--len] = '\0';
    if (!*line || !strcmp(line, "n") || !strcmp(line, "next") || !strcmp(line, "\033[C") ||
        !strcmp(line, "\033OC"))
        return VIEW_NEXT;
    if (!strcmp(line, "p") || !strcmp(line, "back") || !strcmp(line, "\033[D") ||
        !strcmp(line, "\033OD"))
        return VIEW_BACK;
    if (!strcmp(line, "0")) return VIEW_FIRST;
    if (!strcmp(line, "$")) return VIEW_LAST;
    if (!strcmp(line, "q") || !strcmp(line, "quit")) return VIEW_QUIT;
    if (!strcmp(line, "?") || !strcmp(line, "h") || !strcmp(line, "help")) return VIEW_HELP;
    if ((line[0] == 'g' || line[0] == 'r') && parse_number(line + 1, arg) == 0)
        return line[0] == 'g' ? VIEW_GO : VIEW_ROUND;
    return VIEW_BAD;
}

/* One byte of the terminal, or -1 (end, error, a stop signal, or timeout_ms passed). */
static int read_byte(int timeout_ms)
{
    if (tapis_stop_signal()) return -1;
    if (timeout_ms >= 0) {
        struct pollfd pfd = {.fd = 0, .events = POLLIN};
        if (poll(&pfd, 1, timeout_ms) <= 0) return -1;
    }
    unsigned char c;
    return read(0, &c, 1) == 1 ? c : -1;
}

/* A number typed after `g` or `r`, echoed: 1 with *out, 0 if cancelled (Esc, empty), -1 at end. */
static int read_number(const char *prompt, long *out)
{
    char buf[12];
    size_t n = 0;
    printf("%s", prompt);
    fflush(stdout);
    for (;;) {
        int c = read_byte(-1);
        if (c < 0 || c == 4) return -1;
        if (c == '\n' || c == '\r') break;
        if (c == 27 || c == 'q') {
            putchar('\n');
            return 0;
        }
        if ((c == 127 || c == 8) && n > 0) {
            n--;
            fputs("\b \b", stdout);
        } else if (c >= '0' && c <= '9' && n + 1 < sizeof buf) {
            buf[n++] = (char)c;
            putchar(c);
        }
        fflush(stdout);
    }
    putchar('\n');
    buf[n] = '\0';
    return n > 0 && parse_number(buf, out) == 0 ? 1 : 0;
}

/* One key of the terminal (and the number after g or r). */
static view_cmd_t read_key(long *arg)
{
    int c = read_byte(-1);
    int got;
    switch (c) {
    case -1:
    case 4: /* Ctrl-D */
    case 'q': return VIEW_QUIT;
    case 'n':
    case ' ':
    case '\n':
    case '\r': return VIEW_NEXT;
    case 'p': return VIEW_BACK;
    case '0': return VIEW_FIRST;
    case '$': return VIEW_LAST;
    case '?':
    case 'h': return VIEW_HELP;
    case 27: /* ESC [ C, ESC O C: Right; D: Left */
        c = read_byte(50);
        if (c != '[' && c != 'O') return VIEW_NONE;
        c = read_byte(50);
        return c == 'C' ? VIEW_NEXT : c == 'D' ? VIEW_BACK : VIEW_NONE;
    case 'g':
    case 'r':
        got = read_number(c == 'g' ? "go to step: " : "go to round: ", arg);
        return got < 0 ? VIEW_QUIT : got == 0 ? VIEW_NONE : c == 'g' ? VIEW_GO : VIEW_ROUND;
    default: return VIEW_BAD;
    }
}

/* Step through rp until q, the end of input or a signal. */
static void view_steps(const replay_t *rp, const char *id, bool color)
{
    viewer_t v = {.rp = rp, .last = rp->nsteps - 1, .clear = isatty(1)};
    safe_text(v.room, sizeof v.room, id);
    v.ctx = (render_ctx_t){.out = stdout,
                           .color = color,
                           .room = v.room,
                           .seats = json_object_get(rp->record, "seats")};
    v.rd = render_find(rp->desc->id);
    if (!rp->as_recorded) snprintf(v.note, sizeof v.note, "%s", rp->message);

    bool keys = isatty(0);
    struct termios saved;
    if (keys && tcgetattr(0, &saved) == 0) {
        struct termios raw = saved;
        raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
        raw.c_cc[VMIN] = 1;
        raw.c_cc[VTIME] = 0;
        tcsetattr(0, TCSANOW, &raw);
    } else {
        keys = false;
    }
    draw(&v);
    char line[256];
    for (;;) {
        long arg = 0;
        view_cmd_t c;
        if (keys)
            c = read_key(&arg);
        else
            c = !tapis_stop_signal() && fgets(line, sizeof line, stdin) ? parse_line(line, &arg)
                                                                        : VIEW_QUIT;
        if (c == VIEW_QUIT || tapis_stop_signal()) break;
        if (run_command(&v, c, arg)) {
            draw(&v);
        } else {
            show_note(&v);
            fflush(stdout);
        }
    }
    if (keys) tcsetattr(0, TCSANOW, &saved);
}

/* ------------------------------------------------------------------------ */

int tapis_verify(const char *host, const char *port, const char *name, const char *id,
                 const char *record_file, const char *commit)
{
    json_t *record;
    char shown[64];
    if (record_file) {
        json_error_t jerr;
        json_t *file = json_load_file(record_file, 0, &jerr);
        /* A file may hold the record, or a `replay` reply that carries it. */
        record =
            json_incref(json_object_get(file, "record") ? json_object_get(file, "record") : file);
        json_decref(file);
        if (!json_is_object(record)) {
            fprintf(stderr, "tapis: verify: %s: not a record: %s\n", record_file, jerr.text);
            json_decref(record);
            return 1;
        }
        id = json_string_value(json_object_get(record, "id"));
        if (!id) id = "?";
    } else if (!(record = fetch_record(host, port, name, id))) {
        return 1;
    }
    verify_report_t vr;
    int rc = verify_record(record, commit, &vr);
    char why[sizeof vr.message * 4];
    safe_text(shown, sizeof shown, id);
    safe_text(why, sizeof why, vr.message);
    if (rc == 0)
        printf("game %s: %s\n", shown, why);
    else
        fprintf(stderr, "tapis: verify %s: %s\n", shown, why);
    json_decref(record);
    return rc == 0 ? 0 : 1;
}

int tapis_replay(const char *host, const char *port, const char *name, const char *id, bool json,
                 bool color)
{
    json_t *record = fetch_record(host, port, name, id);
    if (!record) return 1;
    replay_t rp;
    replay_run(&rp, record);
    json_decref(record);
    if (json) {
        put_json_steps(&rp);
    } else if (rp.nsteps == 0) {
        char shown[64], why[sizeof rp.message * 4];
        fprintf(stderr, "tapis: replay %s: %s\n", safe_text(shown, sizeof shown, id),
                safe_text(why, sizeof why, rp.message));
    } else {
        /* Signals end the viewer (which puts the terminal back), not the process. */
        tapis_catch_stop_signals();
        view_steps(&rp, id, color);
    }
    int rc = rp.as_recorded ? 0 : 1;
    replay_free(&rp);
    return rc;
}
