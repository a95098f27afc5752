/*
 * link.c — the session's connection to the server: sending requests,
 * keepalive pings, reading lines, re-opening the connection when it drops
 * (then `hello NAME TOKEN` takes the seats back), and the `games` list the
 * client asks for by itself when completion first needs it.
 *
 * Requests the client sends by itself carry an id (KEEPALIVE_ID, GAMES_ID)
 * so that events.c can keep their replies off the screen.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "clients/session.h"

/* ------------------------------------------------------------------------ */
/* Sending                                                                  */
/* ------------------------------------------------------------------------ */

bool link_connected(const session_t *s)
{
    return s->net.fd >= 0;
}

/* Open the connection: the current address, else the next of a list. */
int link_open(session_t *s)
{
    int r = net_open_any(&s->net, &s->addrs);
    snprintf(s->host, sizeof s->host, "%s", s->addrs.host[s->addrs.cur]);
    snprintf(s->port, sizeof s->port, "%s", s->addrs.port[s->addrs.cur]);
    return r;
}

void link_close(session_t *s)
{
    net_close(&s->net);
}

void link_send_line(session_t *s, const char *line)
{
    if (!link_connected(s)) {
        say(s, "! not connected (reconnecting); try again in a moment");
        return;
    }
    size_t n = strlen(line);
    char *buf = malloc(n + 2);
    if (!buf) return;
    memcpy(buf, line, n);
    buf[n] = '\n';
    net_write(&s->net, buf, n + 1);
    free(buf);
}

void link_send_msg(session_t *s, json_t *msg)
{
    if (!link_connected(s))
        say(s, "! not connected (reconnecting); try again in a moment");
    else
        net_send(&s->net, msg);
    json_decref(msg);
}

void link_send_quiet(session_t *s, json_t *msg)
{
    if (link_connected(s)) net_send(&s->net, msg);
    json_decref(msg);
}

void link_send_act(session_t *s, const json_t *action)
{
    json_t *msg = json_pack("{s:s, s:O}", "cmd", "act", "action", action);
    if (s->current[0]) json_object_set_new(msg, "room", json_string(s->current));
    /* The state it answers: the server counts the reaction time from it. */
    const room_info_t *r = session_current_room(s);
    if (r && r->view) json_object_set_new(msg, "seq", json_integer(r->seq));
    link_send_msg(s, msg);
}

void link_send_hello(session_t *s)
{
    json_t *msg = json_pack("{s:s, s:s}", "cmd", "hello", "name", s->name);
    if (s->token[0]) json_object_set_new(msg, "token", json_string(s->token));
    link_send_msg(s, msg);
}

void link_quit(session_t *s)
{
    s->quitting = true;
    if (link_connected(s))
        link_send_line(s, "quit");
    else
        s->done = true;
}

void link_keepalive(session_t *s)
{
    if (!link_connected(s) || s->keepalive_ms <= 0) return;
    if (net_now_ms() - s->net.last_write_ms < s->keepalive_ms) return;
    link_send_quiet(s, json_pack("{s:s, s:s}", "cmd", "ping", "id", KEEPALIVE_ID));
}

/* ------------------------------------------------------------------------ */
/* Reading and reconnecting                                                 */
/* ------------------------------------------------------------------------ */

static void connection_lost(session_t *s)
{
    net_close(&s->net);
    if (s->quitting || s->no_reconnect) {
        s->done = true;
        return;
    }
    if (!s->reconnect_delay) s->reconnect_delay = RECONNECT_MIN_MS;
    s->reconnect_at = net_now_ms() + s->reconnect_delay;
    say(s, "! connection lost; reconnecting to %s:%s ...", s->host, s->port);
}

void link_maybe_reconnect(session_t *s)
{
    if (link_connected(s) || s->quitting || s->no_reconnect || net_now_ms() < s->reconnect_at)
        return;
    if (link_open(s) == 0) {
        s->games_asked = false;
        say(s, "reconnected to %s:%s", s->host, s->port);
        link_send_hello(s);
        return;
    }
    s->reconnect_delay =
        s->reconnect_delay * 2 > RECONNECT_MAX_MS ? RECONNECT_MAX_MS : s->reconnect_delay * 2;
    s->reconnect_at = net_now_ms() + s->reconnect_delay;
}

void link_read(session_t *s)
{
    long r = net_read(&s->net);
    if (r <= 0) {
        connection_lost(s);
        return;
    }
    const char *line;
    size_t len;
    int fr;
    while ((fr = frame_next(&s->net.frame, &line, &len)) == FRAME_LINE)
        events_server_line(s, line, len);
    if (fr == FRAME_TOO_LONG) connection_lost(s);
}

/* ------------------------------------------------------------------------ */
/* The games list                                                           */
/* ------------------------------------------------------------------------ */

const json_t *link_games(session_t *s, int timeout_ms)
{
    if (s->games || !link_connected(s) || s->games_asked) return s->games;
    s->games_asked = true;
    link_send_quiet(s, json_pack("{s:s, s:s}", "cmd", "games", "id", GAMES_ID));
    long long until = net_now_ms() + timeout_ms;
    while (!s->games && link_connected(s)) {
        long long left = until - net_now_ms();
        if (left <= 0) break;
        struct pollfd pfd = {.fd = s->net.fd, .events = POLLIN};
        int n = poll(&pfd, 1, (int)left);
        if (n < 0 && errno != EINTR) break;
        if (n > 0) link_read(s);
    }
    return s->games;
}
