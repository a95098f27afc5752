/*
 * json_mode.c — `tapis --json`: raw protocol lines both ways, for scripts.
 *
 * stdin lines go to the server unchanged (blank lines are not sent: they get
 * no reply), server lines go to stdout unchanged as long as they are safe for
 * a terminal. The server's JSON escapes control characters but not DEL, C1
 * controls or bidi overrides (valid raw UTF-8 in JSON strings): a line with
 * those is written as the same JSON with them as \uXXXX escapes; a line that
 * is not JSON at all is written with visible escapes (safe_text.h). At the
 * end of stdin it waits (up to 5 s) for the replies still due, then closes.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "clients/net.h"
#include "clients/safe_text.h"
#include "clients/tapis.h"

/* ------------------------------------------------------------------------ */

/* One line from the server to stdout, unchanged unless a terminal would obey part of it. */
static void put_server_line(const char *line, size_t len)
{
    if (safe_is_clean(line, len)) {
        fwrite(line, 1, len, stdout);
    } else {
        json_t *j = json_loadb(line, len, JSON_DECODE_ANY, NULL);
        if (j)
            safe_fwrite_json(stdout, line, len);
        else
            safe_fwrite(stdout, line, len);
        json_decref(j);
    }
    fputc('\n', stdout);
}

/* ------------------------------------------------------------------------ */

int tapis_json_mode(const char *host, const char *port)
{
    net_conn_t net = {.fd = -1};
    if (net_open(&net, host, port) < 0) {
        fprintf(stderr, "tapis: cannot connect to %s:%s: %s\n", host, port, strerror(errno));
        return 1;
    }
    frame_t in;
    frame_init(&in, NET_MAX_LINE);
    long long sent = 0, replies = 0, deadline = 0;
    bool eof = false;
    int rc = 0;
    for (;;) {
        if (eof && replies >= sent) break;
        struct pollfd pfd[2] = {{.fd = net.fd, .events = POLLIN},
                                {.fd = eof ? -1 : 0, .events = POLLIN}};
        int timeout = -1;
        if (eof) {
            long long left = deadline - net_now_ms();
            if (left <= 0) break;
            timeout = (int)left;
        }
        int n = poll(pfd, 2, timeout);
        if (n < 0) {
            if (errno == EINTR) continue;
            rc = 1;
            break;
        }
        if (pfd[0].revents) {
            long r = net_read(&net);
            if (r <= 0) break;
            const char *line;
            size_t len;
            while (frame_next(&net.frame, &line, &len) == FRAME_LINE) {
                put_server_line(line, len);
                /* A reply starts with {"re": (the server's encoding is compact). */
                if (strncmp(line, "{\"re\"", 5) == 0) replies++;
            }
            fflush(stdout);
        }
        if (!eof && pfd[1].revents) {
            char buf[65536];
            ssize_t r = read(0, buf, sizeof buf);
            if (r <= 0) {
                eof = true;
                deadline = net_now_ms() + 5000;
                continue;
            }
            frame_feed(&in, buf, (size_t)r);
            const char *line;
            size_t len;
            while (frame_next(&in, &line, &len) == FRAME_LINE) {
                bool blank = true;
                for (size_t i = 0; i < len && blank; i++)
                    blank = line[i] == ' ' || line[i] == '\t';
                if (blank) continue;
                if (net_write(&net, line, len) < 0 || net_write(&net, "\n", 1) < 0) {
                    rc = 1;
                    break;
                }
                sent++;
            }
        }
    }
    frame_free(&in);
    net_close(&net);
    return rc;
}
