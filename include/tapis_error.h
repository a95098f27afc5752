/*
 * tapis_error.h — the one error type of tapis, and the protocol's error codes.
 *
 * Every refusal is a tapis_error_t, whoever makes it: the protocol layer
 * (proto_fail(), envelope.h), the server (room_sit() and friends, room.h)
 * and the games (game_fail(), core/game.h, where it is called game_error_t).
 * The code travels unchanged as the "code" of an error reply or event.
 *
 * This header needs libc alone, so that core/ and protocol/ can both include
 * it and still know nothing of each other (DESIGN.md, "Layers"). It sits in
 * the top-level include/ directory, on the include path of core, protocol
 * and server (their meson.build files).
 *
 * The codes: stable snake_case words (a client tests them; they never
 * change), as named constants for the code of this repository. The protocol
 * layer and the server use only these. Games keep their own rule codes
 * (233: must_draw, must_place_gift...; see each core/<game>/RULES.md) next
 * to the rules that refuse with them; the refusals every game may make are
 * listed in protocol/PROTOCOL.md, section 4, which says when each code below
 * is sent.
 */
#ifndef TAPIS_ERROR_H
#define TAPIS_ERROR_H

/* Room for a message, its NUL included: longer messages are truncated. */
#define TAPIS_ERROR_MESSAGE_SIZE 192

/* A refusal: a code (static storage, one of the words below or a game's) and a message. */
typedef struct tapis_error {
    const char *code;
    char message[TAPIS_ERROR_MESSAGE_SIZE]; /* for people; NUL-terminated */
} tapis_error_t;

/* ---------------------------------------------------------- protocol layer --- */

/* Malformed JSON, too deep, a duplicate key, invalid UTF-8 or NUL in a JSON line. */
#define TAPIS_E_BAD_JSON "bad_json"
/* Not a request: not an object, no string "cmd", an argument missing, mistyped or out
   of range, a bad inline line. The server also uses it (a missing room, a bad seat). */
#define TAPIS_E_BAD_REQUEST "bad_request"
/* No such command. */
#define TAPIS_E_UNKNOWN_COMMAND "unknown_command"
/* A line over --max-line bytes; the connection is closed after the reply. */
#define TAPIS_E_LINE_TOO_LONG "line_too_long"

/* ------------------------------------------------------------------ server --- */

/* The command needs a successful hello first (see CMD_F_BEFORE_HELLO, commands.h). */
#define TAPIS_E_HELLO_FIRST "hello_first"
/* No such room, game or command (help); an unknown or expired reconnect token. */
#define TAPIS_E_NOT_FOUND "not_found"
/* hello with another session's token on a connection that has a session. */
#define TAPIS_E_ALREADY_HELLO "already_hello"
/* A name people could not read or tell apart, or one kept for the built-in bots. */
#define TAPIS_E_BAD_NAME "bad_name"
/* A live session already has that name (ASCII case folded). */
#define TAPIS_E_NAME_TAKEN "name_taken"
/* A chat line with a control, invisible or direction-changing character. */
#define TAPIS_E_BAD_TEXT "bad_text"
/* A chat line over --max-chat bytes. */
#define TAPIS_E_TEXT_TOO_LONG "text_too_long"
/* Too many lines, chat lines, rooms created or new connections: wait and retry. */
#define TAPIS_E_RATE_LIMITED "rate_limited"
/* --max-rooms rooms (create), or --max-conns connections (error event). */
#define TAPIS_E_SERVER_FULL "server_full"
/* The game is not played by that many players (also a game's code). */
#define TAPIS_E_BAD_PLAYERS "bad_players"
/* An option the game does not have, mistyped or out of range (also a game's code). */
#define TAPIS_E_BAD_OPTION "bad_option"
/* join or watch a table where the session already sits. */
#define TAPIS_E_ALREADY_SEATED "already_seated"
/* The chosen seat is taken. */
#define TAPIS_E_SEAT_TAKEN "seat_taken"
/* No free seat, or the table already plays. */
#define TAPIS_E_ROOM_FULL "room_full"
/* leave, say or state in a room the session neither sits in nor watches. */
#define TAPIS_E_NOT_IN_ROOM "not_in_room"
/* act or addbot in a room where the session does not sit. */
#define TAPIS_E_NOT_SEATED "not_seated"
/* seed after the table filled and the game started. */
#define TAPIS_E_GAME_STARTED "game_started"
/* seed of more than 64 bytes. */
#define TAPIS_E_SEED_TOO_LONG "seed_too_long"
/* act before the table is full. */
#define TAPIS_E_NOT_STARTED "not_started"
/* act after the end of the game. */
#define TAPIS_E_GAME_OVER "game_over"
/* addbot for a game without a built-in bot. */
#define TAPIS_E_NO_BOT "no_bot"
/* A session is in SESSION_MAX_ROOMS rooms already. */
#define TAPIS_E_TOO_MANY_ROOMS "too_many_rooms"
/* `replay` of a game that has not ended (waiting, playing, closed unfinished or quarantined). */
#define TAPIS_E_NOT_FINISHED "not_finished"
/* An operator command (admin.c) from a session that has not said `admin TOKEN`. */
#define TAPIS_E_FORBIDDEN "forbidden"
/* A wrong password or key for an account, or a password too short to register. */
#define TAPIS_E_BAD_PASSWORD "bad_password"
/* A rated room (create, join) or a rated seek by a guest: log in to an account first. */
#define TAPIS_E_ACCOUNT_REQUIRED "account_required"
/* `create` while the server drains for an upgrade: play on where you are. */
#define TAPIS_E_DRAINING "draining"
/* A cluster node that hosts the room cannot be reached now (docs/CLUSTER.md). */
#define TAPIS_E_UNAVAILABLE "unavailable"
/* An action the game refused without a code of its own (games use it too). */
#define TAPIS_E_ILLEGAL_ACTION "illegal_action"

/* ---------------------------------------- refusals every game may make --- */
/* (PROTOCOL.md, section 4: "Every game may answer"; core/game.c and the games) */

/* An action out of turn. */
#define TAPIS_E_NOT_YOUR_TURN "not_your_turn"
/* A race lost: the card was already taken, the window closed. */
#define TAPIS_E_TOO_LATE "too_late"
/* The game has no action of that "type". */
#define TAPIS_E_UNKNOWN_ACTION "unknown_action"
/* The action's fields are missing, unknown or of the wrong type. */
#define TAPIS_E_BAD_ACTION "bad_action"
/*
 * The out-of-memory code, and any other server fault (logged): the request
 * may be sent again later. The only code tapis sends when an allocation
 * fails, whatever layer it failed in.
 */
#define TAPIS_E_INTERNAL "internal"

/* Error events (not replies), each just before the server closes the connection. */
#define TAPIS_E_TOO_MANY_ERRORS "too_many_errors"           /* the error budget is spent */
#define TAPIS_E_HELLO_TIMEOUT "hello_timeout"               /* no hello in --hello-timeout */
#define TAPIS_E_IDLE_TIMEOUT "idle_timeout"                 /* no line in --idle-timeout */
#define TAPIS_E_TOO_MANY_CONNECTIONS "too_many_connections" /* --max-conns-per-ip reached */

#endif
