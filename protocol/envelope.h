/*
 * envelope.h — one line in, one request out; replies and events out as lines.
 *
 * proto_request_parse() is the whole way from a line (as frame_next() gives
 * it) to a request the server may dispatch: JSON or inline form, then the
 * command table's validation (commands.h). A handler may trust what it gets:
 * every argument present has the type and range its command declares.
 *
 * Lines:
 *  - Empty or white-space-only (space, tab) lines are ignored: no reply
 *    (PROTO_EMPTY), so a person pressing Enter in netcat gets no noise.
 *  - A line whose first non-blank byte is '{' or '[' is JSON; anything else
 *    is the inline form (inline_form.h).
 *  - JSON: valid UTF-8, nesting at most PROTO_MAX_DEPTH levels, no duplicate
 *    keys, nothing after the value but white space; otherwise bad_json. A
 *    valid JSON value that is not an object (an array) gives bad_request.
 *    "cmd" must be a string (else bad_request); "id" is optional, any JSON
 *    value, echoed in the reply. Unknown extra fields are ignored (forward
 *    compatibility); known ones are checked.
 *  - Inline form: invalid UTF-8 or a control byte (other than tab) gives
 *    bad_request. A NUL byte gives bad_json in a JSON line and bad_request in
 *    an inline one.
 *
 * Replies: {"re": NAME, "id": ID, "ok": true, ...} or
 * {"re": NAME, "id": ID, "ok": false, "error": {"code": C, "message": M}}.
 * "id" appears only when the request had one. "re" is the command name as
 * the client sent it (the inline shortcuts send "act"), or null when no
 * command name could be read (bad_json, "cmd" missing or not a string,
 * line_too_long).
 *
 * Events: {"ev": NAME, ...}, never with "re".
 *
 * Ownership: json_t * results are new references; the caller decrefs them.
 */
#ifndef TAPIS_PROTOCOL_ENVELOPE_H
#define TAPIS_PROTOCOL_ENVELOPE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "include/tapis_error.h"

/*
 * Errors are tapis_error_t (tapis_error.h), whose codes this layer uses:
 * TAPIS_E_BAD_JSON, TAPIS_E_BAD_REQUEST, TAPIS_E_UNKNOWN_COMMAND, and
 * TAPIS_E_INTERNAL when memory runs out (the server adds its own codes).
 * The older names below stay for code outside protocol/ and server/ that
 * still uses them (clients/, tests/fuzz/); new code says tapis_error_t and TAPIS_E_*.
 */
typedef tapis_error_t proto_error_t;
#define PROTO_BAD_JSON TAPIS_E_BAD_JSON
#define PROTO_BAD_REQUEST TAPIS_E_BAD_REQUEST
#define PROTO_UNKNOWN_COMMAND TAPIS_E_UNKNOWN_COMMAND
#define PROTO_LINE_TOO_LONG TAPIS_E_LINE_TOO_LONG
#define PROTO_HELLO_FIRST TAPIS_E_HELLO_FIRST

/* Deepest accepted nesting of a JSON request (the request object is level 1). */
#define PROTO_MAX_DEPTH 32

/* Results of proto_request_parse(). */
#define PROTO_OK 0
#define PROTO_EMPTY 1 /* blank line: ignore, send nothing */
#define PROTO_ERROR -1

/* The most arguments a command has (commands.h). */
#define PROTO_MAX_ARGS 5

struct command;

typedef struct proto_request {
    json_t *msg;                   /* the request object {"cmd":..., ...}; owned, or NULL (below) */
    const struct command *command; /* the table entry; NULL unless PROTO_OK */
    const char *re;                /* "re" to reply with, or NULL */
    json_t *id;                    /* "id", or NULL when absent */
    /* PROTO_OK: the value of each of the command's arguments, in its table's
       order (NULL: absent). In msg, or, for a command flagged CMD_F_ARGS
       sent as plain JSON, the request's own (`owned`), msg NULL: its
       handler reads nothing else, so no object is built. */
    json_t *args[PROTO_MAX_ARGS];
    bool owned;       /* args and id are the request's references, not msg's */
    bool inline_form; /* the line was the inline form */
} proto_request_t;

/*
 * Parse and validate one line (`len` bytes; NUL bytes inside are an error).
 * Always initialises *req; call proto_request_free() whatever the result.
 *  PROTO_OK:    req->command is its entry, req->args its arguments, and
 *               req->msg the normalised request (NULL: see args above).
 *  PROTO_EMPTY: blank line; nothing to answer.
 *  PROTO_ERROR: *err says why; answer with
 *               proto_reply_error(req->re, req->id, err->code, err->message)
 *               (req->re and req->id are set when they could be read).
 */
int proto_request_parse(proto_request_t *req, const char *line, size_t len, tapis_error_t *err);

/* proto_request_parse() with the request object always built (msg set, no
   argument owned): the same answer for every line (tests check that the
   two paths agree). */
int proto_request_parse_tree(proto_request_t *req, const char *line, size_t len,
                             tapis_error_t *err);

void proto_request_free(proto_request_t *req);

/*
 * Parse a JSON line into an object: depth checked before jansson sees it,
 * UTF-8 and syntax checked by jansson, duplicate keys refused. Returns a new
 * object, or NULL with err filled (code bad_json).
 */
json_t *proto_json_parse(const char *line, size_t len, tapis_error_t *err);

/* {"re": re (null if NULL), "id": id (only if id != NULL), "ok": true}. Add fields to it. */
json_t *proto_reply(const char *re, const json_t *id);

/* {"re": re, "id": id, "ok": false, "error": {"code": code, "message": message}}. */
json_t *proto_reply_error(const char *re, const json_t *id, const char *code, const char *message);

/* The same as proto_reply_error() from a request and its parse error. */
json_t *proto_reply_from_error(const proto_request_t *req, const tapis_error_t *err);

/* {"ev": ev}. Add fields to it. */
json_t *proto_event(const char *ev);

/*
 * Encode a message as one compact JSON line ending in "\n" (UTF-8, not
 * ASCII-escaped; JSON escaping guarantees the only "\n" is the last byte).
 * Returns a tapis_malloc()ed buffer the caller tapis_free()s (tapis_alloc.h;
 * free() while no test hooks are installed) (a write request can own
 * it until its callback), with its length in *len (if len != NULL), or NULL
 * on allocation failure or if msg cannot be encoded.
 */
char *proto_encode(const json_t *msg, size_t *len);

/*
 * The line of proto_reply(re, id) with no other field -- {"re":RE,"id":ID,"ok":true}
 * and its newline -- or, when key is not NULL, with one string field after
 * "ok" (an act's "room": {"re":"act","ok":true,"room":"12"}), written into
 * buf (size bytes) without building the object: the common replies (ping,
 * leave, act...) cost no allocation. `re` must be a command name (lower-case
 * letters and '_'), `key` a plain ASCII literal. Returns the length, or 0
 * when it does not fit, `re` is not such a name or `value` is not UTF-8
 * (then build the reply instead).
 */
size_t proto_encode_ok(const char *re, const json_t *id, const char *key, const char *value,
                       char *buf, size_t size);

/* Fill err (printf-style message) and return PROTO_ERROR. */
int proto_fail(tapis_error_t *err, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* True if s[0..len) is valid UTF-8 (no overlongs, surrogates or > U+10FFFF). */
bool proto_utf8_valid(const char *s, size_t len);

#endif
