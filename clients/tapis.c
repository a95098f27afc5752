/*
 * tapis.c — the terminal client of tapis: options, the main loop, and the
 * glue to libedit.
 *
 *     tapis [HOST:PORT] [--name NAME] [--no-color] [--keepalive TIME]
 *     tapis [HOST:PORT] --json
 *     tapis [HOST:PORT] replay ID [--json] [--name NAME] [--no-color]
 *
 * Interactive: asks for a name, says hello, and reads commands with libedit
 * (history, tab completion) while server events are printed at any time:
 * one thread around poll() on the terminal and the socket, with libedit's
 * callback interface (rl_callback_read_char) so that an event can be printed
 * above the line being typed and the line redrawn after it. The session
 * (session.h) holds all the client knows; its files: input.c (typed lines),
 * link.c (the connection, reconnection, keepalive), events.c (what the server
 * says), show.c (output, through render*.c and safe_text.h), complete.c (Tab).
 *
 * --json (json_mode.c) passes raw protocol lines between stdin/stdout and
 * the server, for scripts. `replay ID` (replay_cmd.c, replay.c) steps through
 * a finished game, re-run through core/.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <editline/readline.h>

#include "clients/session.h"
#include "clients/tapis.h"

/*
 * The only file-scope state (besides the stop signal, stop_signal.c).
 * SESSION is the session for libedit's callbacks (the line handler, the
 * completion function and its generator), which take no user pointer; it is
 * set once in run_interactive() and read only by those callbacks.
 */
static session_t *SESSION;

/*
 * libedit's own signal handling re-sends a signal to the whole process group,
 * which would also hit whoever started us; so it is off, and SIGINT, SIGTERM
 * and SIGHUP end the main loop, which puts the terminal back.
 */
static void install_signals(void)
{
    tapis_catch_stop_signals();
    signal(SIGPIPE, SIG_IGN);
    rl_catch_signals = 0;
}

/* ------------------------------------------------------------------------ */
/* libedit's callbacks                                                      */
/* ------------------------------------------------------------------------ */

static char *next_candidate(const char *text, int state)
{
    session_t *s = SESSION;
    if (state == 0) s->next_candidate = 0;
    size_t len = strlen(text);
    while (s->next_candidate < json_array_size(s->candidates)) {
        const char *c = json_string_value(json_array_get(s->candidates, s->next_candidate++));
        if (c && strncmp(c, text, len) == 0) return strdup(c);
    }
    return NULL;
}

static char **complete(const char *text, int start, int end)
{
    (void)end;
    json_decref(SESSION->candidates);
    SESSION->candidates = complete_candidates(SESSION, rl_line_buffer, start);
    rl_attempted_completion_over = 1;
    return rl_completion_matches(text, next_candidate);
}

static void on_readline(char *line)
{
    session_t *s = SESSION;
    if (!line) { /* Ctrl-D */
        printf("\n");
        link_quit(s);
        return;
    }
    /* libedit keeps the submitted line in its buffer until the next key, and a
     * redraw for an event would show it again: start a fresh line instead. */
    rl_callback_handler_remove();
    s->prompt_on = false;
    input_line(s, line);
    free(line);
    if (!s->done) {
        rl_callback_handler_install(s->prompt, on_readline);
        s->prompt_on = true;
    }
}

/* ------------------------------------------------------------------------ */
/* Interactive mode                                                         */
/* ------------------------------------------------------------------------ */

/* stdin is not a terminal: whole lines, as they come. */
static void read_stdin_lines(session_t *s)
{
    char buf[4096];
    ssize_t n = read(0, buf, sizeof buf);
    if (n <= 0) {
        s->stdin_eof = true;
        s->quit_deadline = net_now_ms() + 3000;
        link_quit(s);
        return;
    }
    frame_feed(&s->stdin_frame, buf, (size_t)n);
    const char *line;
    size_t len;
    while (frame_next(&s->stdin_frame, &line, &len) == FRAME_LINE) {
        char *copy = strndup(line, len);
        if (copy) input_line(s, copy);
        free(copy);
    }
}

static void ask_name(session_t *s)
{
    if (s->name[0]) return;
    char *line = NULL;
    if (s->tty_in) {
        line = readline("your name: ");
    } else {
        /* Byte by byte: what follows the name is read later with read(2). */
        char buf[128];
        size_t n = 0;
        char ch;
        while (n + 1 < sizeof buf && read(0, &ch, 1) == 1 && ch != '\n')
            buf[n++] = ch;
        buf[n] = '\0';
        line = strdup(buf);
    }
    if (line) {
        line[strcspn(line, "\r\n")] = '\0';
        char *p = line;
        while (*p == ' ')
            p++;
        snprintf(s->name, sizeof s->name, "%.32s", p);
        for (char *q = s->name; *q; q++)
            if (*q == ' ' || *q == '\t') *q = '_';
    }
    free(line);
    if (!s->name[0]) {
        const char *user = getenv("USER");
        snprintf(s->name, sizeof s->name, "%.32s", user && *user ? user : "player");
    }
}

/* The poll() timeout: the next reconnection, the end of a quit, the next keepalive. */
static int loop_timeout(const session_t *s, long long now)
{
    int timeout = -1;
    if (!link_connected(s) && !s->quitting && !s->no_reconnect)
        timeout = s->reconnect_at > now ? (int)(s->reconnect_at - now) : 0;
    if (s->quit_deadline) timeout = (int)(s->quit_deadline - now);
    if (link_connected(s) && s->keepalive_ms > 0) {
        long long due = s->net.last_write_ms + s->keepalive_ms;
        int wait = due > now ? (int)(due - now) : 0;
        if (timeout < 0 || wait < timeout) timeout = wait;
    }
    return timeout;
}

static int run_interactive(session_t *s)
{
    SESSION = s;
    ask_name(s);
    if (link_open(s) < 0) {
        fprintf(stderr, "tapis: cannot connect to %s:%s: %s\n", s->host, s->port, strerror(errno));
        return 1;
    }
    link_send_hello(s);
    show_prompt_update(s);
    if (s->tty_in) {
        rl_readline_name = "tapis";
        rl_attempted_completion_function = complete;
        using_history();
        rl_callback_handler_install(s->prompt, on_readline);
        s->prompt_on = true;
    } else {
        frame_init(&s->stdin_frame, 0);
    }
    while (!s->done && !tapis_stop_signal()) {
        struct pollfd pfd[2];
        int nfd = 0;
        long long now = net_now_ms();
        if (s->quit_deadline && now >= s->quit_deadline) break;
        if (!s->stdin_eof) pfd[nfd++] = (struct pollfd){.fd = 0, .events = POLLIN};
        int sock = -1;
        if (link_connected(s)) {
            sock = nfd;
            pfd[nfd++] = (struct pollfd){.fd = s->net.fd, .events = POLLIN};
        }
        int timeout = loop_timeout(s, now);
        if (nfd == 0 && timeout < 0) break;
        int n = poll(pfd, (nfds_t)nfd, timeout);
        if (n < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (sock >= 0 && pfd[sock].revents) link_read(s);
        if (!s->stdin_eof && pfd[0].revents) {
            if (s->tty_in)
                rl_callback_read_char();
            else
                read_stdin_lines(s);
        }
        link_maybe_reconnect(s);
        link_keepalive(s);
        if (!link_connected(s) && (s->quitting || s->no_reconnect)) s->done = true;
    }
    if (s->prompt_on) {
        s->prompt_on = false;
        rl_callback_handler_remove();
    }
    fflush(stdout);
    link_close(s);
    if (!s->tty_in) frame_free(&s->stdin_frame);
    session_free(s);
    SESSION = NULL;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Main                                                                     */
/* ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
    fprintf(f, "usage: tapis [HOST:PORT] [--name NAME] [--no-color] [--keepalive TIME]\n"
               "       tapis [HOST:PORT] --json\n"
               "       tapis [HOST:PORT] replay ID [--json] [--name NAME] [--no-color]\n"
               "       tapis [HOST:PORT] verify ID [--commit HEX] [--name NAME]\n"
               "       tapis verify --record FILE [--commit HEX]\n"
               "\n"
               "The terminal client of tapis (default " NET_DEFAULT_HOST ":" NET_DEFAULT_PORT
               "; HOST:PORT,HOST:PORT,...\n"
               "names a cluster's nodes: a lost connection is opened again on the next).\n"
               "Type `help` once connected. --json passes raw protocol lines between\n"
               "stdin/stdout and the server. Colours follow NO_COLOR and the terminal.\n"
               "replay ID: step through finished game ID, re-run through the game's rules\n"
               "(keys: n/Enter/Right next, p/Left back, g N step N, r N round N, 0/$ first/last,\n"
               "q quit; lines of the same when stdin is not a terminal); with --json, one JSON\n"
               "line per step. The server's refusal (not_found, not_finished) exits 1.\n"
               "verify ID: check finished game ID's deal (docs/FAIRNESS.md): the server seed\n"
               "against its commitment (and --commit, the one you saw before the deal), then\n"
               "every deck and move replayed to the recorded result; exits 1 naming the first\n"
               "difference. --record FILE checks a record saved as JSON (`replay ID --json`\n"
               "is not one: the `replay` reply, its `record`, or tapisd's export of the game).\n"
               "--keepalive: send a ping after TIME without sending anything (2m; 0 = never;\n"
               "TIME is a number with an optional unit ms, s or m, bare = seconds).\n");
}

/* TIME as --keepalive takes it ("90", "90s", "500ms", "2m") in ms, or -1. */
static long long parse_time_ms(const char *s)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || errno || v < 0 || v > 24LL * 3600 * 1000) return -1;
    if (strcmp(end, "ms") == 0) return v;
    if (*end == '\0' || strcmp(end, "s") == 0) return v <= 24LL * 3600 ? v * 1000 : -1;
    if (strcmp(end, "m") == 0) return v <= 24LL * 60 ? v * 60 * 1000 : -1;
    return -1;
}

int main(int argc, char **argv)
{
    static const struct option longs[] = {
        {"json", no_argument, NULL, 'j'},         {"name", required_argument, NULL, 'n'},
        {"no-color", no_argument, NULL, 'C'},     {"keepalive", required_argument, NULL, 'k'},
        {"help", no_argument, NULL, 'h'},         {"commit", required_argument, NULL, 'c'},
        {"record", required_argument, NULL, 'r'}, {NULL, 0, NULL, 0}};
    const char *commit = NULL, *record_file = NULL;
    session_t s;
    session_init(&s);
    bool json_mode = false, no_color = false;
    int ch;
    while ((ch = getopt_long(argc, argv, "jn:h", longs, NULL)) != -1) {
        switch (ch) {
        case 'j': json_mode = true; break;
        case 'n': snprintf(s.name, sizeof s.name, "%.32s", optarg); break;
        case 'C': no_color = true; break;
        case 'k':
            s.keepalive_ms = parse_time_ms(optarg);
            if (s.keepalive_ms < 0) {
                fprintf(stderr, "tapis: --keepalive: a time such as 2m, 90s or 500ms, not \"%s\"\n",
                        optarg);
                return 2;
            }
            break;
        case 'c': commit = optarg; break;
        case 'r': record_file = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    /* Operands: [HOST:PORT] [replay ID | verify ID | verify (with --record)]. */
    int operands = argc - optind;
    const char *replay_id = NULL;
    if (record_file) {
        if (operands < 1 || strcmp(argv[argc - 1], "verify") != 0) {
            fprintf(stderr, "tapis: --record goes with verify (tapis verify --record FILE)\n");
            return 2;
        }
        return tapis_verify(NULL, NULL, NULL, NULL, record_file, commit);
    }
    if (operands >= 2 && strcmp(argv[argc - 2], "verify") == 0) {
        operands -= 2;
        if (operands > 1 || (operands == 1 && net_parse_addrs(argv[optind], &s.addrs) != 0)) {
            usage(stderr);
            return 2;
        }
        if (operands == 0) net_parse_addrs(NULL, &s.addrs);
        return tapis_verify(s.addrs.host[0], s.addrs.port[0], s.name[0] ? s.name : NULL,
                            argv[argc - 1], NULL, commit);
    }
    if (commit) {
        fprintf(stderr, "tapis: --commit goes with verify\n");
        return 2;
    }
    if (operands >= 1 && strcmp(argv[argc - 1], "verify") == 0) {
        fprintf(stderr, "tapis: verify: which game? (tapis [HOST:PORT] verify ID)\n");
        return 2;
    }
    if (operands >= 2 && strcmp(argv[argc - 2], "replay") == 0) {
        replay_id = argv[argc - 1];
        operands -= 2;
    } else if (operands >= 1 && strcmp(argv[argc - 1], "replay") == 0) {
        fprintf(stderr, "tapis: replay: which game? (tapis [HOST:PORT] replay ID)\n");
        return 2;
    }
    if (operands > 1) {
        usage(stderr);
        return 2;
    }
    if (net_parse_addrs(operands ? argv[optind] : NULL, &s.addrs) == 0) {
        snprintf(s.host, sizeof s.host, "%s", s.addrs.host[0]);
        snprintf(s.port, sizeof s.port, "%s", s.addrs.port[0]);
    } else {
        fprintf(stderr, "tapis: bad address \"%s\" (HOST:PORT)\n", argv[optind]);
        return 2;
    }
    if (replay_id) {
        const char *nc = getenv("NO_COLOR");
        return tapis_replay(s.host, s.port, s.name[0] ? s.name : NULL, replay_id, json_mode,
                            !no_color && isatty(1) && !(nc && *nc));
    }
    if (json_mode) {
        /* No terminal to restore: SIGINT, SIGTERM and SIGHUP end it at once. */
        signal(SIGPIPE, SIG_IGN);
        return tapis_json_mode(s.host, s.port);
    }
    install_signals();
    const char *nc = getenv("NO_COLOR");
    s.color = !no_color && isatty(1) && !(nc && *nc);
    s.tty_in = isatty(0);
    return run_interactive(&s);
}
