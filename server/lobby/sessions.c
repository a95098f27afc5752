/* sessions.c — what a session does to its rooms: it is detached (seats
   held, watching left), attached again, kicked, ended. See sessions.h. */
#include <string.h>

#include "protocol/envelope.h"
#include "server/base/log.h"
#include "server/cluster/cluster.h"
#include "server/lobby/dispatch.h"
#include "server/lobby/sessions.h"
#include "server/net/conn.h"
#include "server/room/room.h"

static bool holds_a_seat(const session_t *s)
{
    for (int i = 0; i < s->nrooms; i++)
        if (room_holds_seat(s->rooms[i], s)) return true;
    return false;
}

static void on_hold_expired(session_t *s)
{
    log_info("session %llu (%s): reconnect window passed; bots take the seats",
             (unsigned long long)s->id, s->name);
    lobby_session_destroy(s);
}

void lobby_session_kick(session_t *s, const char *message)
{
    conn_t *c = s->conn;
    if (c) {
        s->conn = NULL;
        c->session = NULL;
        json_t *ev = proto_event("kicked");
        json_object_set_new(ev, "message", json_string(message));
        conn_send_new(c, ev);
        conn_close_after_flush(c, "kicked");
    }
    session_unhold(s);
    lobby_session_destroy(s);
}

void lobby_session_detach(session_t *s)
{
    server_t *srv = s->srv;
    s->conn = NULL;
    lobby_seek_forget(s); /* a seeker who drops leaves the queue */
    if (s->gone) return;
    if (srv->stopping || !holds_a_seat(s)) {
        lobby_session_destroy(s);
        return;
    }
    log_info("session %llu (%s): disconnected; seats held for %llu ms", (unsigned long long)s->id,
             s->name, (unsigned long long)srv->opts.reconnect_window);
    /* Watching needs a connection; seats wait for the player. */
    for (int i = s->nrooms - 1; i >= 0; i--) {
        room_t *r = s->rooms[i];
        if (room_holds_seat(r, s))
            room_member_disconnected(r, s);
        else
            room_release(r, s);
    }
    session_hold(s, srv->opts.reconnect_window, on_hold_expired);
}

void lobby_session_attach(session_t *s, conn_t *c)
{
    if (s->conn && s->conn != c) {
        conn_t *old = s->conn;
        old->session = NULL;
        json_t *ev = json_pack("{s:s, s:s}", "ev", "replaced", "message",
                               "this session was taken over by a new connection");
        conn_send_new(old, ev);
        conn_close_after_flush(old, "session taken over");
    }
    session_unhold(s);
    s->conn = c;
    c->session = s;
    log_info("session %llu (%s): back on conn %llu", (unsigned long long)s->id, s->name,
             (unsigned long long)c->id);
    for (int i = 0; i < s->nrooms; i++)
        room_member_reconnected(s->rooms[i], s);
}

void lobby_session_destroy(session_t *s)
{
    if (s->gone) return;
    s->gone = true;
    lobby_seek_forget(s);
    if (s->conn) { /* detached first: rooms left now tell nobody on it */
        s->conn->session = NULL;
        s->conn = NULL;
    }
    while (s->nrooms > 0)
        room_release(s->rooms[s->nrooms - 1], s);
    session_close(s);
}

void lobby_session_hold(session_t *s)
{
    /* Held from the restart: seats of people not back in time go to bots. */
    session_hold(s, s->srv->opts.reconnect_window, on_hold_expired);
}

/* A new name is the cluster's first: claimed, and the old one released. */
static int claim_in_cluster(session_t *s, const char *key)
{
    if (cluster_claim_name(s->srv, key, s->id, false) < 0) return -1;
    cluster_release_name(s->srv, s->name_key, s->id);
    return 0;
}

int lobby_session_rename(session_t *s, const char *name)
{
    return session_rename(s, name, claim_in_cluster);
}
