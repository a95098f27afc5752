/*
 * admin.h — the operator's commands (admin.c) and the token that opens them.
 */
#ifndef TAPIS_SERVER_ADMIN_H
#define TAPIS_SERVER_ADMIN_H

#include <stdbool.h>

#include "protocol/commands.h"
#include "server/lobby/dispatch.h"
#include "server/server.h"

/* Read srv->opts.admin_token_file into srv->admin_token ("" when none is set).
   Returns 0, or -1 after logging why (unreadable, no token on its first line). */
int admin_load_token(server_t *srv);

/* Refuse an operator command to a session that is not the operator (forbidden, logged). */
void admin_refuse(request_t *req, const command_t *cmd);

/* The handlers of CMD_ADMIN and of the operator's commands: dispatch.h's LOBBY_HANDLERS. */

/* True when a drain is on and no game is left in play: time to stop. */
bool admin_drained(server_t *srv);

#endif
