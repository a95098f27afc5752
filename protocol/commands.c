/*
 * commands.c — the command table and its validation. See commands.h.
 */
#include "commands.h"

#include <stdarg.h>
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

#define ROOM_ARG(flags, pos)                                                                       \
    {                                                                                              \
        "room", ARG_ROOM, flags, 1, ROOM_MAX_LEN, pos                                              \
    }

static const command_t commands[CMD__COUNT] = {
    {"hello",
     CMD_HELLO,
     CMD_F_BEFORE_HELLO,
     "hello NAME [TOKEN]",
     "say who you are (TOKEN: reconnect to your seats)",
     {{"name", ARG_STRING, ARG_REQUIRED, 1, NAME_MAX_LEN, 1}, {"token", ARG_STRING, 0, 1, 128, 2}}},
    {"games", CMD_GAMES, CMD_F_BEFORE_HELLO, "games", "list the games this server hosts", {{0}}},
    {"create",
     CMD_CREATE,
     0,
     "create GAME [PLAYERS] [private] [option=value...]",
     "open a room for a game; the reply names the room",
     {{"game", ARG_STRING, ARG_REQUIRED, 1, NAME_MAX_LEN, 1},
      {"players", ARG_INT, 0, 1, PLAYERS_MAX, 2},
      {"private", ARG_BOOL, ARG_FLAG, 0, 0, 0},
      {"options", ARG_OBJECT, ARG_EXTRAS, 0, 0, 0}}},
    {"rooms",
     CMD_ROOMS,
     0,
     "rooms [LIMIT] [OFFSET] [game=GAME] [status=waiting|playing|over]",
     "list the open rooms, newest first, a page at a time (default 50, at most 200)",
     {{"limit", ARG_INT, 0, 1, ROOMS_PAGE_MAX, 1},
      {"offset", ARG_INT, 0, 0, 1000000, 2},
      {"game", ARG_STRING, 0, 1, NAME_MAX_LEN, 0},
      {"status", ARG_STRING, 0, 1, 16, 0}}},
    {"join",
     CMD_JOIN,
     0,
     "join ROOM [SEAT]",
     "take a seat; a table starts when its last seat fills",
     {ROOM_ARG(ARG_REQUIRED, 1), {"seat", ARG_INT, 0, 0, SEAT_MAX, 2}}},
    {"watch",
     CMD_WATCH,
     0,
     "watch ROOM",
     "watch a room as a spectator",
     {ROOM_ARG(ARG_REQUIRED, 1)}},
    {"leave", CMD_LEAVE, CMD_F_ROOM, "leave [ROOM]", "leave a room", {ROOM_ARG(0, 1)}},
    {"addbot",
     CMD_ADDBOT,
     CMD_F_ROOM,
     "addbot [ROOM] [strategy=NAME]",
     "seat a bot in a free seat",
     {ROOM_ARG(0, 1), {"strategy", ARG_STRING, 0, 1, NAME_MAX_LEN, 0}}},
    {"act",
     CMD_ACT,
     CMD_F_ROOM,
     "act TYPE [key=value...] [word...]",
     "play an action; `act` may be left out: draw, discard card=Y3",
     {ROOM_ARG(0, 0), {"action", ARG_ACTION, ARG_REQUIRED | ARG_EXTRAS, 0, 0, 0}}},
    {"state",
     CMD_STATE,
     CMD_F_ROOM,
     "state [ROOM]",
     "send me the room's state again",
     {ROOM_ARG(0, 1)}},
    {"say",
     CMD_SAY,
     CMD_F_ROOM,
     "say TEXT...",
     "talk to the room (the rest of the line is the text)",
     {ROOM_ARG(0, 0), {"text", ARG_STRING, ARG_REQUIRED | ARG_REST, 1, TEXT_MAX_LEN, 1}}},
    {"ping", CMD_PING, CMD_F_BEFORE_HELLO, "ping", "check the connection", {{0}}},
    {"help",
     CMD_HELP,
     CMD_F_BEFORE_HELLO,
     "help [COMMAND]",
     "this list, or one command in detail",
     {{"command", ARG_STRING, 0, 1, NAME_MAX_LEN, 1}}},
    {"quit", CMD_QUIT, CMD_F_BEFORE_HELLO, "quit", "say goodbye and close", {{0}}},
};

const command_t *command_table(int *n)
{
    if (n) *n = CMD__COUNT;
    return commands;
}

const command_t *command_lookup(const char *name)
{
    if (!name) return NULL;
    for (int i = 0; i < CMD__COUNT; i++)
        if (strcmp(commands[i].name, name) == 0) return &commands[i];
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

static int check_length(const command_t *c, const arg_spec_t *a, size_t n, proto_error_t *err)
{
    if ((long long)n < a->min || (long long)n > a->max)
        return proto_fail(err, PROTO_BAD_REQUEST, "%s: %s: must be %lld to %lld bytes long",
                          c->name, a->name, a->min, a->max);
    return 0;
}

static int check_arg(const command_t *c, const arg_spec_t *a, json_t *msg, json_t *v,
                     proto_error_t *err)
{
    switch (a->type) {
    case ARG_STRING:
        if (!json_is_string(v))
            return proto_fail(err, PROTO_BAD_REQUEST, "%s: %s: must be a string", c->name, a->name);
        return check_length(c, a, json_string_length(v), err);
    case ARG_INT:
        if (!json_is_integer(v))
            return proto_fail(err, PROTO_BAD_REQUEST, "%s: %s: must be an integer", c->name,
                              a->name);
        if (json_integer_value(v) < a->min || json_integer_value(v) > a->max)
            return proto_fail(err, PROTO_BAD_REQUEST, "%s: %s: must be between %lld and %lld",
                              c->name, a->name, a->min, a->max);
        return 0;
    case ARG_BOOL:
        if (!json_is_boolean(v))
            return proto_fail(err, PROTO_BAD_REQUEST, "%s: %s: must be true or false", c->name,
                              a->name);
        return 0;
    case ARG_OBJECT:
        if (!json_is_object(v))
            return proto_fail(err, PROTO_BAD_REQUEST, "%s: %s: must be an object", c->name,
                              a->name);
        return 0;
    case ARG_ROOM:
        if (json_is_integer(v) && json_integer_value(v) >= 0) {
            char buf[24];
            snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
            if (json_object_set_new(msg, a->name, json_string(buf)) < 0)
                return proto_fail(err, PROTO_BAD_REQUEST, "%s: %s: out of memory", c->name,
                                  a->name);
            return 0;
        }
        if (!json_is_string(v))
            return proto_fail(err, PROTO_BAD_REQUEST, "%s: %s: must be a string", c->name, a->name);
        return check_length(c, a, json_string_length(v), err);
    case ARG_ACTION: {
        if (!json_is_object(v))
            return proto_fail(err, PROTO_BAD_REQUEST, "%s: %s: must be an object", c->name,
                              a->name);
        json_t *type = json_object_get(v, "type");
        if (!json_is_string(type) || json_string_length(type) == 0 ||
            json_string_length(type) > NAME_MAX_LEN)
            return proto_fail(err, PROTO_BAD_REQUEST,
                              "%s: %s.type: must be a string of 1 to %d bytes", c->name, a->name,
                              NAME_MAX_LEN);
        return 0;
    }
    }
    return 0;
}

int command_validate(const command_t *c, json_t *msg, proto_error_t *err)
{
    for (const arg_spec_t *a = c->args; a < c->args + CMD_MAX_ARGS && a->name; a++) {
        json_t *v = json_object_get(msg, a->name);
        if (json_is_null(v) && !(a->flags & ARG_REQUIRED)) {
            /* An optional argument sent as null is absent: handlers see one case. */
            json_object_del(msg, a->name);
            v = NULL;
        }
        if (!v) {
            if (a->flags & ARG_REQUIRED)
                return proto_fail(err, PROTO_BAD_REQUEST, "%s: %s: required (usage: %s)", c->name,
                                  a->name, c->usage);
            continue;
        }
        if (check_arg(c, a, msg, v, err) < 0) return PROTO_ERROR;
    }
    return 0;
}

/* ------------------------------------------------------------------ help --- */

typedef struct text {
    char *s;
    size_t len, cap;
    bool failed;
} text_t;

static void text_add(text_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void text_add(text_t *t, const char *fmt, ...)
{
    if (t->failed) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = true;
            return;
        }
        if (t->s && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = t->cap ? t->cap : 1024;
        while (cap - t->len <= (size_t)n)
            cap *= 2;
        char *p = realloc(t->s, cap);
        if (!p) {
            t->failed = true;
            return;
        }
        t->s = p;
        t->cap = cap;
    }
}

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

static void help_command(text_t *t, const command_t *c)
{
    text_add(t, "%s\n  %s", c->usage, c->summary);
    if (!(c->flags & CMD_F_BEFORE_HELLO)) text_add(t, " (after hello)");
    if (c->flags & CMD_F_ROOM) text_add(t, "\n  room may be left out when you are in one room");
    for (const arg_spec_t *a = c->args; a < c->args + CMD_MAX_ARGS && a->name; a++) {
        text_add(t, "\n  %s: %s%s", a->name, type_name(a->type),
                 a->flags & ARG_REQUIRED ? ", required" : "");
        if (a->type == ARG_INT) text_add(t, ", %lld..%lld", a->min, a->max);
    }
    text_add(t, "\n  JSON: {\"cmd\":\"%s\"", c->name);
    for (const arg_spec_t *a = c->args; a < c->args + CMD_MAX_ARGS && a->name; a++)
        text_add(t, ",\"%s\":...", a->name);
    text_add(t, "}");
}

char *command_help(const char *name)
{
    text_t t = {0};
    if (name) {
        const command_t *c = command_lookup(name);
        if (!c) return NULL;
        help_command(&t, c);
    } else {
        text_add(&t, "commands (type the words, or send JSON {\"cmd\":NAME,...}):");
        for (int i = 0; i < CMD__COUNT; i++) {
            const char *u = commands[i].usage;
            if (strlen(u) > 34)
                text_add(&t, "\n  %s\n  %-34s", u, "");
            else
                text_add(&t, "\n  %-34s", u);
            text_add(&t, " %s", commands[i].summary);
        }
        text_add(&t, "\nbefore hello only hello, games, ping, help and quit are allowed."
                     "\nfrom netcat: hello alice / games / create 233 4 / join 1 / addbot."
                     "\nyour state event lists your legal actions; type one back as words,"
                     "\ne.g. draw, discard card=Y3, claim cards=Y3,Y3 (or act {JSON})."
                     "\nhelp COMMAND tells more about one command.");
    }
    if (t.failed) {
        free(t.s);
        return NULL;
    }
    return t.s;
}
