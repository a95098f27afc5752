/*
 * commands.c — the command table and its validation. See commands.h.
 */
#include "protocol/commands.h"
#include "protocol/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------------- table --- */

#define NAME_MAX_LEN 32
#define ROOM_MAX_LEN 32
#define SEAT_MAX 63
#define PLAYERS_MAX 64
#define TEXT_MAX_LEN 1000
#define ROOMS_PAGE_MAX 200
#define HISTORY_PAGE_MAX 100
#define PASSWORD_MAX_LEN 128
#define LEADERBOARD_PAGE_MAX 200

/* A required argument at inline position pos: a string (or a room) of 1 to
   maximum bytes, or an integer from 1 to maximum. */
#define REQUIRED(arg_name, arg_type, maximum, pos)                                                 \
    {                                                                                              \
        .name = (arg_name), .type = (arg_type), .flags = ARG_REQUIRED, .min = 1, .max = (maximum), \
        .position = (pos)                                                                          \
    }
#define REQUIRED_STRING(arg_name, maxlen, pos) REQUIRED(arg_name, ARG_STRING, maxlen, pos)
/* A page of a list: its limit (1 to limit_max) and offset, at inline positions pos and pos + 1. */
#define PAGE_ARGS(limit_max, pos)                                                                  \
    {.name = "limit", .type = ARG_INT, .min = 1, .max = (limit_max), .position = (pos)},           \
    {                                                                                              \
        .name = "offset", .type = ARG_INT, .min = 0, .max = 1000000, .position = (pos) + 1         \
    }
/* How many players a table is for (create, seek). */
#define PLAYERS_ARG                                                                                \
    {                                                                                              \
        .name = "players", .type = ARG_INT, .min = 1, .max = PLAYERS_MAX, .position = 2            \
    }
/* The text that is the rest of the line (say, seed, announce): 1 to TEXT_MAX_LEN bytes. */
#define REST_TEXT                                                                                  \
    {                                                                                              \
        .name = "text", .type = ARG_STRING, .flags = ARG_REQUIRED | ARG_REST, .min = 1,            \
        .max = TEXT_MAX_LEN, .position = 1                                                         \
    }
#define REPLAY_STEP_MAX 100000000

#define ROOM_ARG(arg_flags, pos)                                                                   \
    {                                                                                              \
        .name = "room", .type = ARG_ROOM, .flags = (arg_flags), .min = 1, .max = ROOM_MAX_LEN,     \
        .position = (pos)                                                                          \
    }

static const command_t commands[CMD__COUNT] = {
    {
        .name = "hello",
        .id = CMD_HELLO,
        .flags = CMD_F_BEFORE_HELLO,
        .usage = "hello NAME [TOKEN] [password=PASSWORD | key=KEY]",
        .summary = "say who you are (TOKEN: reconnect to your seats; PASSWORD or KEY: your "
                   "account)",
        .args = {REQUIRED_STRING("name", NAME_MAX_LEN, 1),
                 {.name = "token", .type = ARG_STRING, .min = 1, .max = 128, .position = 2},
                 /* a cluster node relaying for a client names itself (docs/CLUSTER.md) */
                 {.name = "via", .type = ARG_STRING, .min = 1, .max = 32},
                 {.name = "password", .type = ARG_STRING, .min = 1, .max = PASSWORD_MAX_LEN},
                 {.name = "key", .type = ARG_STRING, .min = 1, .max = 128}},
    },
    {
        .name = "games",
        .id = CMD_GAMES,
        .flags = CMD_F_BEFORE_HELLO,
        .usage = "games",
        .summary = "list the games this server hosts",
    },
    {
        .name = "create",
        .id = CMD_CREATE,
        .usage = "create GAME [PLAYERS] [private] [rated] [option=value...]",
        .summary = "open a room for a game; the reply names the room (rated: accounts only)",
        .args = {REQUIRED_STRING("game", NAME_MAX_LEN, 1),
                 PLAYERS_ARG,
                 {.name = "private", .type = ARG_BOOL, .flags = ARG_FLAG},
                 {.name = "options", .type = ARG_OBJECT, .flags = ARG_EXTRAS},
                 {.name = "rated", .type = ARG_BOOL, .flags = ARG_FLAG}},
    },
    {
        .name = "rooms",
        .id = CMD_ROOMS,
        .usage = "rooms [LIMIT] [OFFSET] [game=GAME] [status=waiting|playing|over]",
        .summary = "list the open rooms, newest first, a page at a time (default 50, at most 200)",
        .args = {PAGE_ARGS(ROOMS_PAGE_MAX, 1),
                 {.name = "game", .type = ARG_STRING, .min = 1, .max = NAME_MAX_LEN},
                 {.name = "status", .type = ARG_STRING, .min = 1, .max = 16}},
    },
    {
        .name = "history",
        .id = CMD_HISTORY,
        .usage = "history [all] [LIMIT] [OFFSET]",
        .summary =
            "your finished games (all: the server's), newest first (default 20, at most 100)",
        .args = {{.name = "all", .type = ARG_BOOL, .flags = ARG_FLAG},
                 PAGE_ARGS(HISTORY_PAGE_MAX, 1)},
    },
    {
        .name = "replay",
        .id = CMD_REPLAY,
        .usage = "replay ID [STEP]",
        .summary = "the record of a finished game (options, seed, seats, journal), or with "
                   "STEP what a spectator saw after that many moves",
        .args =
            {REQUIRED("game_id", ARG_ROOM, ROOM_MAX_LEN, 1),
             {.name = "step", .type = ARG_INT, .min = 0, .max = REPLAY_STEP_MAX, .position = 2}},
    },
    {
        .name = "join",
        .id = CMD_JOIN,
        .usage = "join ROOM [SEAT]",
        .summary = "take a seat; a table starts when its last seat fills",
        .args = {ROOM_ARG(ARG_REQUIRED, 1),
                 {.name = "seat", .type = ARG_INT, .min = 0, .max = SEAT_MAX, .position = 2}},
    },
    {
        .name = "watch",
        .id = CMD_WATCH,
        .usage = "watch ROOM",
        .summary = "watch a room as a spectator",
        .args = {ROOM_ARG(ARG_REQUIRED, 1)},
    },
    {
        .name = "leave",
        .id = CMD_LEAVE,
        .flags = CMD_F_ROOM,
        .usage = "leave [ROOM]",
        .summary = "leave a room",
        .args = {ROOM_ARG(0, 1)},
    },
    {
        .name = "addbot",
        .id = CMD_ADDBOT,
        .flags = CMD_F_ROOM,
        .usage = "addbot [ROOM] [strategy=NAME]",
        .summary = "seat a bot in a free seat",
        .args = {ROOM_ARG(0, 1),
                 {.name = "strategy", .type = ARG_STRING, .min = 1, .max = NAME_MAX_LEN}},
    },
    {
        .name = "act",
        .id = CMD_ACT,
        .flags = CMD_F_ROOM | CMD_F_ARGS,
        .usage = "act TYPE [key=value...] [word...] [seq=N]",
        .summary = "play an action; `act` may be left out: draw, discard card=Y3",
        .args = {ROOM_ARG(0, 0),
                 {.name = "action", .type = ARG_ACTION, .flags = ARG_REQUIRED | ARG_EXTRAS},
                 {.name = "seq", .type = ARG_INT, .min = 0, .max = 1LL << 53}},
    },
    {
        .name = "state",
        .id = CMD_STATE,
        .flags = CMD_F_ROOM,
        .usage = "state [ROOM]",
        .summary = "send me the room's state again",
        .args = {ROOM_ARG(0, 1)},
    },
    {
        .name = "say",
        .id = CMD_SAY,
        .flags = CMD_F_ROOM,
        .usage = "say TEXT...",
        .summary = "talk to the room (the rest of the line is the text)",
        .args = {ROOM_ARG(0, 0), REST_TEXT},
    },
    {
        .name = "seed",
        .id = CMD_SEED,
        .flags = CMD_F_ROOM,
        .usage = "seed TEXT...",
        .summary = "add your seed to the deal, until the game starts (docs/FAIRNESS.md)",
        .args = {ROOM_ARG(0, 0), REST_TEXT},
    },
    {
        .name = "ping",
        .id = CMD_PING,
        .flags = CMD_F_BEFORE_HELLO,
        .usage = "ping",
        .summary = "check the connection",
    },
    {
        .name = "pong",
        .id = CMD_PONG,
        .usage = "pong N",
        .summary = "answer the server's ping N at once: it measures your round trip",
        .args = {REQUIRED("n", ARG_INT, 1LL << 53, 1)},
    },
    {
        .name = "help",
        .id = CMD_HELP,
        .flags = CMD_F_BEFORE_HELLO,
        .usage = "help [COMMAND]",
        .summary = "this list, or one command in detail",
        .args =
            {{.name = "command", .type = ARG_STRING, .min = 1, .max = NAME_MAX_LEN, .position = 1}},
    },
    {
        .name = "quit",
        .id = CMD_QUIT,
        .flags = CMD_F_BEFORE_HELLO,
        .usage = "quit",
        .summary = "say goodbye and close",
    },
    {
        .name = "register",
        .id = CMD_REGISTER,
        .flags = CMD_F_BEFORE_HELLO,
        .usage = "register NAME PASSWORD",
        .summary = "keep a name: an account with its password; the reply holds a key for bots "
                   "(shown once)",
        .args = {REQUIRED_STRING("name", NAME_MAX_LEN, 1),
                 REQUIRED_STRING("password", PASSWORD_MAX_LEN, 2)},
    },
    {
        .name = "profile",
        .id = CMD_PROFILE,
        .usage = "profile [NAME]",
        .summary = "an account's ratings per game and recent results (yours by default)",
        .args =
            {{.name = "name", .type = ARG_STRING, .min = 1, .max = NAME_MAX_LEN, .position = 1}},
    },
    {
        .name = "leaderboard",
        .id = CMD_LEADERBOARD,
        .usage = "leaderboard GAME [LIMIT] [OFFSET]",
        .summary = "the best rated of a game (default 20, at most 200); provisional ones apart",
        .args = {REQUIRED_STRING("game", NAME_MAX_LEN, 1), PAGE_ARGS(LEADERBOARD_PAGE_MAX, 2)},
    },
    {
        .name = "seek",
        .id = CMD_SEEK,
        .usage = "seek GAME [PLAYERS] [rated]",
        .summary = "wait for a table: the server seats players of close ratings together",
        .args = {REQUIRED_STRING("game", NAME_MAX_LEN, 1),
                 PLAYERS_ARG,
                 {.name = "rated", .type = ARG_BOOL, .flags = ARG_FLAG}},
    },
    {
        .name = "cancel",
        .id = CMD_CANCEL,
        .usage = "cancel",
        .summary = "stop seeking",
    },
    {
        .name = "admin",
        .id = CMD_ADMIN,
        .usage = "admin TOKEN",
        .summary = "become the operator (the token of tapisd --admin-token-file)",
        .args = {REQUIRED_STRING("token", 128, 1)},
    },
    {
        .name = "announce",
        .id = CMD_ANNOUNCE,
        .flags = CMD_F_ADMIN,
        .usage = "announce TEXT...",
        .summary = "tell every connection (the rest of the line is the text)",
        .args = {REST_TEXT},
    },
    {
        .name = "drain",
        .id = CMD_DRAIN,
        .flags = CMD_F_ADMIN,
        .usage = "drain",
        .summary = "no new rooms; games play on; the server stops when the last one ends",
    },
    {
        .name = "close",
        .id = CMD_CLOSE,
        .flags = CMD_F_ADMIN,
        .usage = "close ROOM",
        .summary = "close a room, whatever its state (its game is not finished)",
        .args = {ROOM_ARG(ARG_REQUIRED, 1)},
    },
    {
        .name = "kick",
        .id = CMD_KICK,
        .flags = CMD_F_ADMIN,
        .usage = "kick NAME",
        .summary = "close a player's connection and end their session (bots take the seats)",
        .args = {REQUIRED_STRING("name", NAME_MAX_LEN, 1)},
    },
    {
        .name = "stats",
        .id = CMD_STATS,
        .flags = CMD_F_ADMIN,
        .usage = "stats",
        .summary = "the server's metrics (those of --metrics) as JSON",
    },
};

const command_t *command_table(int *n)
{
    if (n) *n = CMD__COUNT;
    return commands;
}

const command_t *command_lookup(const char *name)
{
    if (!name) return NULL;
    for (int i = 0; i < CMD__COUNT; i++) /* the first letter before the call */
        if (commands[i].name[0] == name[0] && strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

const command_t *command_get(cmd_id_t id)
{
    return (unsigned)id < CMD__COUNT ? &commands[id] : NULL;
}

const arg_spec_t *command_arg(const command_t *c, const char *name)
{
    for (const arg_spec_t *a = c->args; a < c->args + CMD_MAX_ARGS && a->name; a++)
        if (strcmp(a->name, name) == 0) return a;
    return NULL;
}

/* ------------------------------------------------------------ validation --- */

static int check_length(const command_t *c, const arg_spec_t *a, size_t n, tapis_error_t *err)
{
    if ((long long)n < a->min || (long long)n > a->max)
        return proto_fail(err, TAPIS_E_BAD_REQUEST, "%s: %s: must be %lld to %lld bytes long",
                          c->name, a->name, a->min, a->max);
    return 0;
}

int command_check_arg(const command_t *c, const arg_spec_t *a, const json_t *v, json_t **room,
                      tapis_error_t *err)
{
    *room = NULL;
    if (!v) {
        if (a->flags & ARG_REQUIRED)
            return proto_fail(err, TAPIS_E_BAD_REQUEST, "%s: %s: required (usage: %s)", c->name,
                              a->name, c->usage);
        return 0;
    }
    switch (a->type) {
    case ARG_STRING:
        if (!json_is_string(v))
            return proto_fail(err, TAPIS_E_BAD_REQUEST, "%s: %s: must be a string", c->name,
                              a->name);
        return check_length(c, a, json_string_length(v), err);
    case ARG_INT:
        if (!json_is_integer(v))
            return proto_fail(err, TAPIS_E_BAD_REQUEST, "%s: %s: must be an integer", c->name,
                              a->name);
        if (json_integer_value(v) < a->min || json_integer_value(v) > a->max)
            return proto_fail(err, TAPIS_E_BAD_REQUEST, "%s: %s: must be between %lld and %lld",
                              c->name, a->name, a->min, a->max);
        return 0;
    case ARG_BOOL:
        if (!json_is_boolean(v))
            return proto_fail(err, TAPIS_E_BAD_REQUEST, "%s: %s: must be true or false", c->name,
                              a->name);
        return 0;
    case ARG_OBJECT:
        if (!json_is_object(v))
            return proto_fail(err, TAPIS_E_BAD_REQUEST, "%s: %s: must be an object", c->name,
                              a->name);
        return 0;
    case ARG_ROOM:
        if (json_is_integer(v) && json_integer_value(v) >= 0) {
            char buf[24];
            snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
            *room = json_string(buf);
            if (!*room)
                return proto_fail(err, TAPIS_E_INTERNAL, "%s: %s: out of memory", c->name, a->name);
            return 0;
        }
        if (!json_is_string(v))
            return proto_fail(err, TAPIS_E_BAD_REQUEST, "%s: %s: must be a string", c->name,
                              a->name);
        return check_length(c, a, json_string_length(v), err);
    case ARG_ACTION: {
        if (!json_is_object(v))
            return proto_fail(err, TAPIS_E_BAD_REQUEST, "%s: %s: must be an object", c->name,
                              a->name);
        json_t *type = json_object_get(v, "type");
        if (!json_is_string(type) || json_string_length(type) == 0 ||
            json_string_length(type) > NAME_MAX_LEN)
            return proto_fail(err, TAPIS_E_BAD_REQUEST,
                              "%s: %s.type: must be a string of 1 to %d bytes", c->name, a->name,
                              NAME_MAX_LEN);
        return 0;
    }
    }
    return 0;
}

int command_validate(const command_t *c, json_t *msg, json_t **args, tapis_error_t *err)
{
    for (int i = 0; i < CMD_MAX_ARGS && c->args[i].name; i++) {
        const arg_spec_t *a = &c->args[i];
        json_t *v = json_object_get(msg, a->name), *room;
        if (json_is_null(v) && !(a->flags & ARG_REQUIRED)) {
            /* An optional argument sent as null is absent: handlers see one case. */
            json_object_del(msg, a->name);
            v = NULL;
        }
        if (command_check_arg(c, a, v, &room, err) < 0) return PROTO_ERROR;
        if (room) {
            if (json_object_set_new(msg, a->name, room) < 0)
                return proto_fail(err, TAPIS_E_INTERNAL, "%s: %s: out of memory", c->name, a->name);
            v = room;
        }
        if (args) args[i] = v;
    }
    return 0;
}

json_t *command_arg_value(const command_t *c, json_t *const *args, const char *name)
{
    for (int i = 0; i < CMD_MAX_ARGS && c->args[i].name; i++)
        if (strcmp(c->args[i].name, name) == 0) return args[i];
    return NULL;
}

/* ------------------------------------------------------------------ help --- */

static const char *type_name(arg_type_t t)
{
    switch (t) {
    case ARG_STRING: return "string";
    case ARG_INT: return "integer";
    case ARG_BOOL: return "boolean";
    case ARG_OBJECT: return "object";
    case ARG_ROOM: return "room id";
    case ARG_ACTION: return "action object";
    }
    return "?";
}

static void help_command(buf_t *t, const command_t *c)
{
    buf_printf(t, "%s\n  %s", c->usage, c->summary);
    if (c->flags & CMD_F_ADMIN)
        buf_printf(t, " (operators only: after admin TOKEN)");
    else if (!(c->flags & CMD_F_BEFORE_HELLO))
        buf_printf(t, " (after hello)");
    if (c->flags & CMD_F_ROOM) buf_printf(t, "\n  room may be left out when you are in one room");
    for (const arg_spec_t *a = c->args; a < c->args + CMD_MAX_ARGS && a->name; a++) {
        buf_printf(t, "\n  %s: %s%s", a->name, type_name(a->type),
                   a->flags & ARG_REQUIRED ? ", required" : "");
        if (a->type == ARG_INT) buf_printf(t, ", %lld..%lld", a->min, a->max);
    }
    if (c->id == CMD_ADMIN) {
        buf_printf(t, "\n  then, for this session:");
        for (int i = 0; i < CMD__COUNT; i++)
            if (commands[i].flags & CMD_F_ADMIN)
                buf_printf(t, "\n    %-18s %s", commands[i].usage, commands[i].summary);
    }
    buf_printf(t, "\n  JSON: {\"cmd\":\"%s\"", c->name);
    for (const arg_spec_t *a = c->args; a < c->args + CMD_MAX_ARGS && a->name; a++)
        buf_printf(t, ",\"%s\":...", a->name);
    buf_printf(t, "}");
}

char *command_help(const char *name)
{
    buf_t t = BUF_INIT;
    if (name) {
        const command_t *c = command_lookup(name);
        if (!c) return NULL;
        help_command(&t, c);
    } else {
        buf_printf(&t, "commands (type the words, or send JSON {\"cmd\":NAME,...}):");
        for (int i = 0; i < CMD__COUNT; i++) {
            if (commands[i].flags & CMD_F_ADMIN) continue;
            const char *u = commands[i].usage;
            if (strlen(u) > 34)
                buf_printf(&t, "\n  %s\n  %-34s", u, "");
            else
                buf_printf(&t, "\n  %-34s", u);
            buf_printf(&t, " %s", commands[i].summary);
        }
        buf_printf(&t, "\nbefore hello only hello, games, ping, help and quit are allowed."
                       "\nfrom netcat: hello alice / games / create 233 4 / join 1 / addbot."
                       "\nyour state event lists your legal actions; type one back as words,"
                       "\ne.g. draw, discard card=Y3, claim cards=Y3,Y3 (or act {JSON})."
                       "\nhelp COMMAND tells more about one command; operators: help admin.");
    }
    return buf_take(&t, NULL);
}
