/*
 * restore.h — the lobby's side of a restore: the records the backends hand
 * up (durable.h) become sessions and rooms again here, the rooms through
 * room_rebuild() (room.h), the one replay of a journal.
 *
 * At a start, lobby_restore() asks the sink (the store) for every session
 * and unfinished room. In a cluster, cluster.c finds a dead node's rooms and
 * the sessions of another node in Redis and hands their records to the hooks
 * below (lobby_cluster_hooks, set by main.c).
 */
#ifndef TAPIS_SERVER_LOBBY_RESTORE_H
#define TAPIS_SERVER_LOBBY_RESTORE_H

#include "server/cluster/cluster.h"
#include "server/server.h"

/* Rebuild what the store kept. Returns the rooms restored, or -1 (logged). */
int lobby_restore(server_t *srv, int *sessions_restored, int *quarantined);
/* The hooks of the cluster's takeover and adoption, with the server as ctx. */
extern const cluster_hooks_t lobby_cluster_hooks;
/* The session numbered sid: this node's, or restored (held) from the cluster's
   record, or NULL. */
session_t *lobby_session_by_id(server_t *srv, uint64_t sid);
/* This node's session numbered id, or NULL (never asks the cluster). */
session_t *lobby_session_here(server_t *srv, uint64_t id);
/* The session of rec: this node's, or restored from the record (held), or NULL. */
session_t *lobby_session_of_record(server_t *srv, const durable_session_rec_t *rec);
/* The session of a token another node made: restored here (held), or NULL. */
session_t *lobby_session_fetch(server_t *srv, const char *token);

#endif
