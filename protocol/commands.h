/*
 * commands.h — the command table, checked before any handler runs.
 *
 * Like Redis's table: each command has a name, an argument specification,
 * flags, and a one-line summary for `help`. proto_request_parse() looks the
 * command up and validates its arguments, so a handler can trust them:
 *  - a missing required argument or a wrong JSON type is bad_request, with a
 *    message naming the field ("join: room: required", "create: players:
 *    must be an integer");
 *  - integers are checked strictly (JSON integers only: 4.0 and "4" are
 *    refused) against the range in the table;
 *  - strings are checked against the byte-length range in the table;
 *  - a room may be given as a string or as a non-negative integer; an
 *    integer is replaced in the request by its decimal string, so handlers
 *    always see a string;
 *  - act's "action" must be an object whose "type" is a non-empty string;
 *  - unknown extra fields are ignored (forward compatibility).
 * An unknown command name is unknown_command.
 *
 * What the protocol cannot know (does the room exist, is the seat free, is
 * the game id registered, is the action legal) is the server's business.
 */
#ifndef TAPIS_PROTOCOL_COMMANDS_H
#define TAPIS_PROTOCOL_COMMANDS_H

#include <jansson.h>
#include <stdbool.h>

#include "protocol/envelope.h"

typedef enum cmd_id {
    CMD_HELLO,
    CMD_GAMES,
    CMD_CREATE,
    CMD_ROOMS,
    CMD_HISTORY,
    CMD_REPLAY,
    CMD_JOIN,
    CMD_WATCH,
    CMD_LEAVE,
    CMD_ADDBOT,
    CMD_ACT,
    CMD_STATE,
    CMD_SAY,
    CMD_SEED, /* a seat's seed for the deal (docs/FAIRNESS.md) */
    CMD_PING,
    CMD_PONG,
    CMD_HELP,
    CMD_QUIT,
    CMD_REGISTER, /* accounts and ratings (server/lobby/accounts.c) */
    CMD_PROFILE,
    CMD_LEADERBOARD,
    CMD_SEEK, /* matchmaking (server/lobby/seek.c) */
    CMD_CANCEL,
    CMD_ADMIN, /* the operator's commands (server/lobby/admin.c), last */
    CMD_ANNOUNCE,
    CMD_DRAIN,
    CMD_CLOSE,
    CMD_KICK,
    CMD_STATS,
    CMD__COUNT
} cmd_id_t;

/* Argument types. */
typedef enum arg_type {
    ARG_STRING, /* JSON string, length in [min, max] bytes */
    ARG_INT,    /* JSON integer in [min, max] */
    ARG_BOOL,   /* JSON true/false */
    ARG_OBJECT, /* JSON object */
    ARG_ROOM,   /* string (length in [min, max]) or integer >= 0, normalised to string */
    ARG_ACTION  /* JSON object with a non-empty string "type" */
} arg_type_t;

/* Argument flags. */
#define ARG_REQUIRED 0x1 /* must be present */
#define ARG_REST 0x2     /* inline form: the rest of the line, verbatim (say's text) */
#define ARG_FLAG 0x4     /* inline form: a bare word equal to the name sets it true */
#define ARG_EXTRAS 0x8   /* inline form: key=value words not naming an argument go here */

typedef struct arg_spec {
    const char *name;
    arg_type_t type;
    int flags;
    long long min, max; /* integer range, or string length range in bytes */
    int position;       /* inline form: 1-based position of a bare word, 0 = none */
} arg_spec_t;

/* Command flags. */
#define CMD_F_BEFORE_HELLO 0x1 /* allowed before a successful hello */
#define CMD_F_ROOM 0x2         /* takes an optional "room" the server defaults */
#define CMD_F_ADMIN 0x4        /* only after `admin TOKEN` (else forbidden); not in help's list */

/* Its handler reads only its arguments (proto_request_t's args), never the
   request object: sent as plain JSON, none is built (envelope.c). */
#define CMD_F_ARGS 0x8

#define CMD_MAX_ARGS PROTO_MAX_ARGS

typedef struct command {
    const char *name;
    cmd_id_t id;
    int flags;
    const char *usage;             /* inline form, e.g. "join ROOM [SEAT]" */
    const char *summary;           /* one line for help */
    arg_spec_t args[CMD_MAX_ARGS]; /* terminated by a NULL name */
} command_t;

/* The table, in help order; *n receives its length (CMD__COUNT). */
const command_t *command_table(int *n);

/* The entry named `name` (exact, case-sensitive), or NULL. */
const command_t *command_lookup(const char *name);

/* The entry of id (always found for id < CMD__COUNT). */
const command_t *command_get(cmd_id_t id);

/* The spec of argument `name` of c, or NULL. */
const arg_spec_t *command_arg(const command_t *c, const char *name);

/*
 * Check msg's arguments against c (see the top of this file), and put
 * each one's value (in msg; NULL: absent) in args[] if not NULL. May
 * normalise msg in place (room integers become strings, optional nulls are
 * removed). Returns 0, or PROTO_ERROR with err filled (bad_request;
 * internal when memory runs out).
 */
int command_validate(const command_t *c, json_t *msg, json_t **args, tapis_error_t *err);

/*
 * Check the value v of c's argument a (NULL: absent; an optional null must
 * be made absent first). 0, with *room a new string when a room was given
 * as an integer (the value to use instead; NULL otherwise), or PROTO_ERROR
 * with err filled.
 */
int command_check_arg(const command_t *c, const arg_spec_t *a, const json_t *v, json_t **room,
                      tapis_error_t *err);

/* The value of c's argument `name` in args (command_validate()'s), or NULL. */
json_t *command_arg_value(const command_t *c, json_t *const *args, const char *name);

/*
 * Help text, several "\n"-separated lines without a final "\n": for
 * name == NULL every command with its usage and summary plus how to play
 * from netcat; for a command name its usage, summary and arguments. NULL if
 * `name` is no command. Static storage is not used: the caller tapis_free()s it.
 */
char *command_help(const char *name);

#endif
