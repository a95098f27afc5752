/*
 * inline_form.h — the word form of requests, for people on netcat or telnet.
 *
 * A line that does not start with '{' is `NAME word word ...`, words
 * separated by spaces or tabs. It becomes the same JSON request a program
 * would send, so one validator (commands.h) serves both forms.
 *
 * Words of a command NAME (a name in the command table):
 *  - key=value sets the argument `key` (value converted as below); a key
 *    that names no argument goes to the command's ARG_EXTRAS argument if it
 *    has one (create: options; act: the action), otherwise it is bad_request;
 *  - a bare word equal to the name of an ARG_FLAG argument sets it true
 *    (`create 233 4 private`);
 *  - other bare words fill the arguments with a position, in order;
 *    a word too many is bad_request;
 *  - an ARG_REST argument takes the rest of the line verbatim (say's text,
 *    from its first non-blank byte to the end of the line, trailing blanks
 *    removed).
 * Bare words are typed by their argument (an ARG_INT argument parses the
 * word strictly as an integer, ARG_STRING and ARG_ROOM keep it a string).
 *
 * Actions. `act TYPE word...` and the shortcut `TYPE word...` (TYPE is not a
 * command name and is an identifier: [a-z_][a-z0-9_]*) both become
 * {"cmd":"act","action":{"type":TYPE,...}}: key=value words become action
 * fields (except room=..., which is act's room), bare words are collected,
 * in order, in the array "args". `act {JSON}` takes the rest of the line as
 * the action object, for actions the words cannot express.
 *
 * Values (of key=value words and action bare words):
 *  - true, false, null -> JSON true, false, null;
 *  - a decimal integer without leading zeros or '+' in int64 range
 *    ("0", "12", "-3") -> integer;
 *  - a word containing ',' -> array of the comma-separated elements, each
 *    typed by these rules; a trailing comma marks a one-element array
 *    ("Y3," -> ["Y3"]) and "," alone is the empty array;
 *  - anything else (including "" from "key=") -> string.
 *
 * A line must be valid UTF-8 without control bytes other than tab:
 * otherwise bad_request.
 */
#ifndef TAPIS_PROTOCOL_INLINE_FORM_H
#define TAPIS_PROTOCOL_INLINE_FORM_H

#include <jansson.h>
#include <stddef.h>

#include "protocol/envelope.h"

/*
 * Turn an inline line (len bytes, leading blanks allowed, not blank) into a
 * request object {"cmd": NAME, ...}. Returns a new object, or NULL with err
 * filled (bad_request, or unknown_command for a first word that is neither a
 * command nor an identifier, or internal when memory runs out).
 */
json_t *inline_parse(const char *line, size_t len, tapis_error_t *err);

/*
 * Render an action object as an inline line (no "\n") that inline_parse()
 * turns back into {"cmd":"act","action": A} with A json_equal to action:
 * `discard card=Y3 declare=true` when the words can express it, `act TYPE
 * ...` when TYPE is also a command name, and `act {JSON}` otherwise.
 * Returns a tapis_malloc()ed string (the caller tapis_free()s it), or NULL if action is not an
 * object with a string "type" or on allocation failure.
 */
char *inline_render_action(const json_t *action);

#endif
