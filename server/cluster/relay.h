/*
 * relay.h — serving a client through the node that hosts its room.
 *
 * A client connected to this node that names a room another node hosts
 * (join, watch, act, ...) is served through a link: a TCP connection from
 * this node to the other's game port, speaking the same protocol as any
 * client, opened with `hello NAME TOKEN` for the client's session (sessions
 * are the cluster's). The client's line goes over the link as it came; the
 * reply and every event come back and are written to the client as they
 * are. While a relayed request waits for its reply, the client's next
 * lines wait too, so replies stay in request order.
 *
 * A link that breaks (its node died) is opened again when the directory
 * shows the client's rooms on a node again (the node that took them over).
 * A node that refused a link, or whose link broke, gets no new link for a
 * while (cluster_link_failed(): 100 ms, doubling, up to a heartbeat): the
 * requests for it meanwhile are answered `unavailable` at once, which costs
 * the client nothing of its error budget. A room that moved is not delayed:
 * its new node has no wait of its own.
 */
#ifndef TAPIS_SERVER_RELAY_H
#define TAPIS_SERVER_RELAY_H

#include "server/server.h"

typedef struct relay relay_t;
typedef struct relay_client relay_client_t; /* conn_t.relay: a client's links */

/* Send c's line (a request `re` with `id`) to node. The reply comes later
   (or at once, `unavailable`, while new links to node wait). */
void relay_forward(conn_t *c, const char *node, const char *line, size_t len, const char *re,
                   const json_t *id);
/* Open a link to node for c's session and its room there (the room's state
   follows); while new links to node wait, at a later heartbeat. */
void relay_link(conn_t *c, const char *node, const char *room);
/* The node of c's only link, or of its rooms whose link broke, as the
   directory shows them; NULL when none, or several. */
const char *relay_single_node(const conn_t *c);
/*
 * Pings. A node pings its links as any connection (rtt.h); the other node
 * passes each ping on to its client under a number of the client's own
 * pings and sends the client's pong back over the link, so the node that
 * hosts the room measures the whole round trip (link and client) and
 * settles the client's races by reaction time like any other. A client that
 * answers no ping is settled by arrival there too.
 */
/* The client's pong n: true when it answered a node's ping (sent back over its link). */
bool relay_pong(conn_t *c, uint64_t n);
/* c is closing: close its links and free its relay state. */
void relay_close_all(conn_t *c);
/* The directory shows room id on a node (again): a link broken before may open again. */
void relay_room_moved(server_t *srv, const char *id);
/* Each heartbeat: open again the broken links whose rooms are back (a message missed). */
void relay_retry(server_t *srv);

#endif
