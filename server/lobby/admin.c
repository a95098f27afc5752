/*
 * admin.c — the operator's commands over the protocol: admin TOKEN, then
 * announce, drain, close, kick and stats (protocol/PROTOCOL.md, section 9).
 *
 * The token is read from --admin-token-file at start and on SIGHUP; without
 * one, `admin` is refused and so is everything after it (forbidden). Every
 * operator command, refused or not, is logged with the session it came from;
 * the token itself never is.
 */
#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "server/lobby/admin.h"
#include "server/net/conn.h"
#include "protocol/envelope.h"
#include "server/base/log.h"
#include "server/metrics/metrics.h"
#include "server/room/room.h"
#include "server/lobby/sessions.h"
#include "server/session/session.h"
#include "protocol/text.h"

int admin_load_token(server_t *srv)
{
    const char *path = srv->opts.admin_token_file;
    srv->admin_token[0] = 0;
    if (!path[0]) return 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        log_error("--admin-token-file %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && (st.st_mode & 0077))
        log_warn("--admin-token-file %s: readable by others than its owner (chmod 600)", path);
    char line[sizeof srv->admin_token + 2];
    size_t n = 0;
    if (fgets(line, sizeof line, f)) n = strcspn(line, "\r\n");
    fclose(f);
    while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == '\t'))
        n--;
    if (n < 16 || n >= sizeof srv->admin_token) {
        log_error("--admin-token-file %s: the first line must hold a token of 16 to %zu bytes",
                  path, sizeof srv->admin_token - 1);
        return -1;
    }
    memcpy(srv->admin_token, line, n);
    srv->admin_token[n] = 0;
    return 0;
}

static const char *who(const request_t *req)
{
    return req->session ? req->session->name : "?";
}

void admin_login(request_t *req)
{
    server_t *srv = req->conn->srv;
    const char *token = json_string_value(json_object_get(req->msg, "token"));
    size_t n = strlen(token);
    /* Constant time in the token's bytes: its length alone may show. */
    if (!srv->admin_token[0] || n != strlen(srv->admin_token) ||
        sodium_memcmp(token, srv->admin_token, n) != 0) {
        log_warn("admin: refused for %s on conn %llu (%s)", who(req),
                 (unsigned long long)req->conn->id,
                 srv->admin_token[0] ? "wrong token" : "no --admin-token-file");
        req_fail(req, TAPIS_E_FORBIDDEN, "%s",
                 srv->admin_token[0] ? "wrong admin token"
                                     : "this server has no admin token (--admin-token-file)");
        return;
    }
    /* The reply first: `internal` must mean that nothing happened. */
    json_t *reply = req_ok_prepare(req, json_pack("{s:b}", "admin", 1));
    if (!reply) {
        req_fail(req, TAPIS_E_INTERNAL, "out of memory");
        return;
    }
    req->session->admin = true;
    log_notice("admin: %s (session %llu) is the operator on conn %llu", who(req),
               (unsigned long long)req->session->id, (unsigned long long)req->conn->id);
    req_send(req, reply);
}

void admin_announce(request_t *req)
{
    server_t *srv = req->conn->srv;
    json_t *text = json_object_get(req->msg, "text");
    if (text_find_unsafe(json_string_value(text), json_string_length(text)) >= 0) {
        req_fail(req, TAPIS_E_BAD_TEXT, "an announcement is one line of plain text");
        return;
    }
    log_notice("admin: %s announces: %s", who(req), json_string_value(text));
    json_t *ev = proto_event("announce");
    json_object_set_new(ev, "from", json_string("operator"));
    json_object_set(ev, "text", text);
    int n = 0;
    req_ok_bare(req);
    for (queue_t *q = queue_head(&srv->conns); q != &srv->conns; q = queue_next(q))
        if (conn_send(queue_data(q, conn_t, node), ev) == 0) n++;
    json_decref(ev);
    log_info("admin: announcement sent to %d connections", n);
}

/* Rooms whose game is in play: what a drain waits for. */
static int playing_rooms(server_t *srv)
{
    int n = 0;
    for (queue_t *q = queue_head(&srv->rooms); q != &srv->rooms; q = queue_next(q))
        if (queue_data(q, room_t, node)->status == ROOM_PLAYING) n++;
    return n;
}

void admin_drain(request_t *req)
{
    server_t *srv = req->conn->srv;
    int playing = 0, waiting = 0;
    for (queue_t *q = queue_head(&srv->rooms); q != &srv->rooms; q = queue_next(q)) {
        room_status_t st = queue_data(q, room_t, node)->status;
        playing += st == ROOM_PLAYING;
        waiting += st == ROOM_WAITING;
    }
    json_t *reply = req_ok_prepare(
        req, json_pack("{s:b, s:i, s:i}", "draining", 1, "playing", playing, "closed", waiting));
    if (!reply) {
        req_fail(req, TAPIS_E_INTERNAL, "out of memory");
        return;
    }
    log_notice("admin: %s drains the server: %d games play on, %d waiting rooms closed", who(req),
               playing, waiting);
    req_send(req, reply);
    srv->draining = true;
    /* Waiting tables would never end: close them now (none are left after a first drain). */
    for (queue_t *q = queue_head(&srv->rooms), *next; q != &srv->rooms; q = next) {
        next = queue_next(q);
        room_t *r = queue_data(q, room_t, node);
        if (r->status == ROOM_WAITING) room_close(r, "draining");
    }
}

bool admin_drained(server_t *srv)
{
    return srv->draining && playing_rooms(srv) == 0;
}

void admin_close(request_t *req)
{
    room_t *r = req->room;
    log_notice("admin: %s closes room %s (%s, %s)", who(req), r->id, r->desc->id,
               room_status_name(r->status));
    if (req_ok(req, json_pack("{s:s}", "room", r->id)) == 0)
        room_close(r, "closed by the operator");
}

void admin_kick(request_t *req)
{
    const char *name = json_string_value(json_object_get(req->msg, "name"));
    session_t *s = session_find_name(req->conn->srv, name);
    if (!s) {
        req_fail(req, TAPIS_E_NOT_FOUND, "nobody here is called \"%s\"", name);
        return;
    }
    log_notice("admin: %s kicks %s (session %llu)", who(req), s->name, (unsigned long long)s->id);
    if (req_ok(req, json_pack("{s:s}", "name", s->name)) == 0)
        lobby_session_kick(s, "the operator closed your session");
}

void admin_stats(request_t *req)
{
    json_t *stats = metrics_json(&req->conn->srv->metrics, req->conn->srv);
    if (!stats) {
        req_fail(req, TAPIS_E_INTERNAL, "out of memory");
        return;
    }
    log_notice("admin: %s reads the stats", who(req));
    req_ok(req, json_pack("{s:o}", "stats", stats));
}

void admin_refuse(request_t *req, const command_t *cmd)
{
    log_warn("admin: %s refused %s on conn %llu (not the operator)", who(req), cmd->name,
             (unsigned long long)req->conn->id);
    req_fail(req, TAPIS_E_FORBIDDEN, "operators only: say admin TOKEN first");
}
