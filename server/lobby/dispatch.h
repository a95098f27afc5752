/*
 * dispatch.h — from a line to a handler and back to exactly one reply.
 *
 * dispatch_line() parses a line with the protocol layer (which validates
 * arguments against the command table), checks hello-first, defaults the
 * room, runs the handler, and makes sure one reply goes out for every
 * request that is not a blank line. Handlers reply through req_ok() or
 * req_fail() BEFORE they broadcast what the request changed, so a client
 * reads the answer to its request before the events it caused.
 */
#ifndef TAPIS_SERVER_DISPATCH_H
#define TAPIS_SERVER_DISPATCH_H

#include "protocol/commands.h"
#include "server/server.h"

typedef struct request {
    conn_t *conn;
    session_t *session;  /* NULL before hello */
    json_t *msg;         /* validated request object (borrowed), NULL for CMD_F_ARGS (below) */
    json_t *const *args; /* its arguments' values (proto_request_t's; req_arg()) */
    const command_t *command;
    const char *re;
    const json_t *id;
    uint64_t stamp; /* µs, when the line was read */
    room_t *room;   /* for commands with a room: the room it names or defaults to */
    bool replied;
} request_t;

/*
 * Run one line stamped `stamp`. `limited`: the connection's line budget is
 * spent, so the line is answered rate_limited instead of run. Every error
 * reply also spends a unit of the connection's error budget.
 */
void dispatch_line(conn_t *c, const char *line, size_t len, uint64_t stamp, bool limited);

/* The connections' hooks (conn.h): lines to dispatch_line(), a closing
   connection's links closed and its session detached, the cluster's nodes
   recognised by address. main.c sets srv->conn_hooks to it. */
extern const conn_hooks_t dispatch_conn_hooks;

/* True when every command of the table has a handler (main() checks it at start). */
bool dispatch_handles_every_command(void);

/*
 * Reply ok with the fields of `fields` (stolen). NULL fields (they could not
 * be built), or no memory for the reply, answer internal instead: so a
 * handler calls it only where nothing happened yet, or nothing the same
 * request sent again would not do. Returns 0, or -1 when it answered internal.
 */
int req_ok(request_t *req, json_t *fields);
/*
 * A handler that changes something builds its reply first: the ok reply
 * with `fields` (stolen), or NULL (out of memory: answer internal, nothing
 * happened). Once the change is made, req_send() sends it (stolen); a field
 * known only then is set in place (json_integer_set(), no allocation).
 */
json_t *req_ok_prepare(request_t *req, json_t *fields);
void req_send(request_t *req, json_t *reply);
/* Reply ok with no other field. */
void req_ok_bare(request_t *req);
/* Reply with an error. */
void req_fail(request_t *req, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The value of the request's argument `name` (NULL: absent): what a
   handler of a CMD_F_ARGS command reads, msg being NULL. */
static inline json_t *req_arg(const request_t *req, const char *name)
{
    return command_arg_value(req->command, req->args, name);
}

/* A name a session may bear (protocol/text.h's rules, not a bot's): true, or
   false after answering bad_name. */
bool req_name_ok(request_t *req, const char *name);

/*
 * The command handlers of the lobby's files, each with the command it serves: declared just
 * below as void HANDLER(request_t *req), and dispatch.c's table of handlers by command.
 * Each replies once. Operator commands (CMD_F_ADMIN) come to theirs from the operator's
 * session only: dispatch refuses the others first.
 */
#define LOBBY_HANDLERS(X)                                                                          \
    /* lobby.c: rooms and chat */                                                                  \
    X(CMD_CREATE, lobby_create)                                                                    \
    X(CMD_ROOMS, lobby_rooms)                                                                      \
    X(CMD_HISTORY, lobby_history)                                                                  \
    X(CMD_REPLAY, lobby_replay)                                                                    \
    X(CMD_JOIN, lobby_join)                                                                        \
    X(CMD_WATCH, lobby_watch)                                                                      \
    X(CMD_LEAVE, lobby_leave)                                                                      \
    X(CMD_ADDBOT, lobby_addbot)                                                                    \
    X(CMD_SAY, lobby_say)                                                                          \
    X(CMD_SEED, lobby_seed)                                                                        \
    /* accounts.c */                                                                               \
    X(CMD_REGISTER, lobby_register)                                                                \
    X(CMD_PROFILE, lobby_profile)                                                                  \
    X(CMD_LEADERBOARD, lobby_leaderboard)                                                          \
    /* seek.c: matchmaking */                                                                      \
    X(CMD_SEEK, lobby_seek)                                                                        \
    X(CMD_CANCEL, lobby_cancel)                                                                    \
    /* admin.c: CMD_ADMIN (any session) and the operator's commands */                             \
    X(CMD_ADMIN, admin_login)                                                                      \
    X(CMD_ANNOUNCE, admin_announce)                                                                \
    X(CMD_DRAIN, admin_drain)                                                                      \
    X(CMD_CLOSE, admin_close)                                                                      \
    X(CMD_KICK, admin_kick)                                                                        \
    X(CMD_STATS, admin_stats)
#define LOBBY_HANDLER_DECLARE(cmd, handler) void handler(request_t *req);
LOBBY_HANDLERS(LOBBY_HANDLER_DECLARE)

/* Accounts (accounts.c): a hello with a password or key; the rated rooms at a restart. */
struct account;
void lobby_account_hello(request_t *req);
/* After the restore: the rooms that were rated play rated again (the accounts' backend).
   Returns 0 or -1 (logged). */
int lobby_accounts_restore(server_t *srv);
/* A room taken over from a dead node (restore.c): rated again, or its end rated now. */
void lobby_accounts_taken_over(server_t *srv, const char *room_id, durable_verdict_t v, room_t *r,
                               const json_t *result);
/* Password hashes under way for c: their replies go nowhere (c is closing). */
void lobby_accounts_conn_closed(conn_t *c);
/* Matchmaking (seek.c; seek and cancel in LOBBY_HANDLERS): a session that drops or ends
   leaves the queue; the queue's timer closed at the stop. */
void lobby_seek_forget(session_t *s);
void lobby_seek_close(server_t *srv);
/* In a cluster, another node seated this node's seeker (the cluster's hook, with the
   server as ctx): it is told, and linked to the room's node. */
void lobby_seek_matched(void *ctx, const json_t *msg);
/* A new table's options (lobby.c): `user`'s (NULL: none) over d's defaults, the server's
   dispute window where d has one; NULL when out of memory. */
json_t *lobby_room_options(server_t *srv, const game_desc_t *d, const json_t *user);
/* The players a table of d gets when nobody says: 4 if it can. */
int lobby_default_players(const game_desc_t *d);
/* The hello of dispatch.c, once the account `a` (NULL: a guest) is known. */
void lobby_hello_as(request_t *req, struct account *a);

#endif
