/*
 * fuzz_envelope.c — one request line (protocol/envelope.h), JSON or inline
 * form, from parse to the reply on the wire.
 *
 * Input: the line, as frame_next() would give it but in a buffer of exactly
 * its length (no NUL after it: envelope.h takes a length, so reading past it
 * is a bug the sanitizers show).
 *
 * Checked:
 *  - PROTO_EMPTY exactly for blank lines (spaces and tabs), with no request;
 *  - inline_form unless the first non-blank byte is '{' or '[' (JSON);
 *  - the request read without an object (a plain JSON line of a command
 *    flagged CMD_F_ARGS) is the one read as a tree (proto_request_parse_tree):
 *    the same result, error, re, id, command and arguments; the checks below
 *    are made on the tree;
 *  - PROTO_OK: msg is an object with a string "cmd", command is its table
 *    entry and re its name, every argument present has the type and range
 *    its command declares (commands.h) and is args' entry, id is msg's "id"
 *    and an inline line has none; the request validates again unchanged
 *    (and to the same args); an act's action renders
 *    as words (inline_render_action) that inline_parse() turns back into the
 *    same action; help's text exists for a command name;
 *  - PROTO_ERROR: a code of this layer, a NUL-terminated valid UTF-8 message,
 *    no command; a JSON line's bad_json has no "re" and no "id";
 *  - the reply (proto_reply / proto_reply_from_error) echoes re, id and the
 *    error, and proto_encode() gives one valid UTF-8 line, "\n" last and only,
 *    that parses back to the same reply, byte for byte jansson's encoding.
 */
#include "tests/fuzz/fuzz.h"

#include "protocol/commands.h"
#include "protocol/envelope.h"
#include "protocol/inline_form.h"

static bool blank(char c)
{
    return c == ' ' || c == '\t';
}

/* The encoded message: one line, valid UTF-8, that decodes to msg. */
static void check_encoded(const json_t *msg)
{
    size_t len = 0;
    char *line = proto_encode(msg, &len);
    FZ_CHECK(line != NULL, "proto_encode failed");
    FZ_CHECK(len > 0 && line[len - 1] == '\n' && line[len] == '\0', "no final \"\\n\"");
    FZ_CHECK(memchr(line, '\n', len - 1) == NULL, "a \"\\n\" inside an encoded message");
    FZ_CHECK(proto_utf8_valid(line, len), "encoded message is not valid UTF-8");
    json_error_t jerr;
    json_t *back = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
    FZ_CHECK(back && json_equal(back, (json_t *)msg), "encoded message does not decode back: %s",
             line);
    json_decref(back);
    /* The same bytes as jansson's own encoder (json_text.c replaces it). */
    char *want = json_dumps(msg, JSON_COMPACT);
    FZ_CHECK(want && strlen(want) == len - 1 && memcmp(want, line, len - 1) == 0,
             "proto_encode differs from json_dumps: %s", line);
    free(want);
    free(line);
}

/* Every argument present has the type and range its command declares. */
static void check_arguments(const command_t *c, const json_t *msg)
{
    for (const arg_spec_t *a = c->args; a < c->args + CMD_MAX_ARGS && a->name; a++) {
        json_t *v = json_object_get(msg, a->name);
        FZ_CHECK(v || !(a->flags & ARG_REQUIRED), "%s: required %s missing", c->name, a->name);
        if (!v) continue;
        FZ_CHECK(!json_is_null(v), "%s: %s is null", c->name, a->name);
        long long n = 0;
        switch (a->type) {
        case ARG_STRING:
        case ARG_ROOM:
            FZ_CHECK(json_is_string(v), "%s: %s is not a string", c->name, a->name);
            n = (long long)json_string_length(v);
            FZ_CHECK(n >= a->min && n <= a->max, "%s: %s is %lld bytes long", c->name, a->name, n);
            break;
        case ARG_INT:
            FZ_CHECK(json_is_integer(v), "%s: %s is not an integer", c->name, a->name);
            n = (long long)json_integer_value(v);
            FZ_CHECK(n >= a->min && n <= a->max, "%s: %s is %lld", c->name, a->name, n);
            break;
        case ARG_BOOL: FZ_CHECK(json_is_boolean(v), "%s: %s", c->name, a->name); break;
        case ARG_OBJECT: FZ_CHECK(json_is_object(v), "%s: %s", c->name, a->name); break;
        case ARG_ACTION: {
            FZ_CHECK(json_is_object(v), "%s: %s is not an object", c->name, a->name);
            json_t *type = json_object_get(v, "type");
            FZ_CHECK(json_is_string(type) && json_string_length(type) >= 1 &&
                         json_string_length(type) <= 32,
                     "%s: %s.type", c->name, a->name);
            break;
        }
        }
    }
}

/* inline_render_action(): words (or act {JSON}) that inline_parse() reads back. */
static void check_render(const json_t *action)
{
    char *line = inline_render_action(action);
    FZ_CHECK(line != NULL, "inline_render_action gave NULL");
    size_t len = strlen(line);
    FZ_CHECK(memchr(line, '\n', len) == NULL, "rendered action holds a \"\\n\"");
    proto_error_t err = {0};
    json_t *msg = inline_parse(line, len, &err);
    char *text = json_dumps(action, JSON_COMPACT);
    FZ_CHECK(msg != NULL, "the rendered action `%s` (of %s) does not parse: %s: %s", line, text,
             err.code, err.message);
    json_t *want = json_pack("{s:s,s:O}", "cmd", "act", "action", action);
    FZ_CHECK(json_equal(msg, want), "`%s` parses to another request than {cmd: act, action: %s}",
             line, text);
    json_decref(want);
    json_decref(msg);
    free(text);
    free(line);
}

static void check_ok(const proto_request_t *req, bool json_form)
{
    FZ_CHECK(json_is_object(req->msg), "PROTO_OK without an object");
    json_t *cmd = json_object_get(req->msg, "cmd");
    FZ_CHECK(json_is_string(cmd), "PROTO_OK without a string \"cmd\"");
    FZ_CHECK(req->command != NULL, "PROTO_OK without a command");
    FZ_CHECK(command_lookup(json_string_value(cmd)) == req->command, "command is not cmd's");
    FZ_CHECK(req->re && strcmp(req->re, req->command->name) == 0, "re is not the command's name");
    FZ_CHECK(req->id == json_object_get(req->msg, "id"), "id is not msg's \"id\"");
    FZ_CHECK(json_form || !req->id, "an inline request with an id");
    check_arguments(req->command, req->msg);
    for (int i = 0; i < CMD_MAX_ARGS && req->command->args[i].name; i++)
        FZ_CHECK(req->args[i] == json_object_get(req->msg, req->command->args[i].name),
                 "args[%d] is not msg's %s", i, req->command->args[i].name);

    json_t *copy = json_deep_copy(req->msg), *args[CMD_MAX_ARGS] = {0};
    proto_error_t err = {0};
    FZ_CHECK(command_validate(req->command, copy, args, &err) == 0, "valid once, not twice: %s",
             err.message);
    FZ_CHECK(json_equal(copy, req->msg), "validating again changed the request");
    for (int i = 0; i < CMD_MAX_ARGS && req->command->args[i].name; i++)
        FZ_CHECK(args[i] == json_object_get(copy, req->command->args[i].name),
                 "validate's args[%d]", i);
    json_decref(copy);

    if (req->command->id == CMD_ACT) check_render(json_object_get(req->msg, "action"));
    if (req->command->id == CMD_HELP) {
        const char *name = json_string_value(json_object_get(req->msg, "command"));
        char *help = command_help(name);
        FZ_CHECK(!help == (name && !command_lookup(name)), "help for %s", name ? name : "(all)");
        FZ_CHECK(!help || proto_utf8_valid(help, strlen(help)), "help text is not UTF-8");
        free(help);
    }

    json_t *reply = proto_reply(req->re, req->id);
    FZ_CHECK(reply && json_equal(json_object_get(reply, "re"), cmd), "reply's re");
    check_encoded(reply);
    json_decref(reply);
}

static void check_error(const proto_request_t *req, const proto_error_t *err, bool json_form)
{
    FZ_CHECK(req->command == NULL, "an error with a command");
    FZ_CHECK(err->code && (strcmp(err->code, PROTO_BAD_JSON) == 0 ||
                           strcmp(err->code, PROTO_BAD_REQUEST) == 0 ||
                           strcmp(err->code, PROTO_UNKNOWN_COMMAND) == 0),
             "error code %s", err->code ? err->code : "(null)");
    size_t mlen = strnlen(err->message, sizeof err->message);
    FZ_CHECK(mlen > 0 && mlen < sizeof err->message, "message of %zu bytes", mlen);
    FZ_CHECK(proto_utf8_valid(err->message, mlen), "message is not valid UTF-8");
    if (json_form && strcmp(err->code, PROTO_BAD_JSON) == 0)
        FZ_CHECK(req->re == NULL && req->id == NULL, "bad_json with re or id");
    if (req->id) FZ_CHECK(json_form, "an inline request with an id");

    json_t *reply = proto_reply_from_error(req, err);
    FZ_CHECK(json_is_object(reply), "no reply");
    FZ_CHECK(json_is_false(json_object_get(reply, "ok")), "an error reply is not ok: false");
    json_t *re = json_object_get(reply, "re");
    FZ_CHECK(re != NULL, "reply without \"re\"");
    if (req->re)
        FZ_CHECK(json_is_string(re) && strcmp(json_string_value(re), req->re) == 0, "re %s",
                 req->re);
    else
        FZ_CHECK(json_is_null(re), "re should be null");
    json_t *id = json_object_get(reply, "id");
    FZ_CHECK(req->id ? id && json_equal(id, req->id) : !id, "reply's id");
    json_t *code = json_object_get(json_object_get(reply, "error"), "code");
    FZ_CHECK(json_is_string(code) && strcmp(json_string_value(code), err->code) == 0,
             "reply's code");
    FZ_CHECK(json_is_string(json_object_get(json_object_get(reply, "error"), "message")),
             "reply's message");
    check_encoded(reply);
    json_decref(reply);
}

static bool same_json(const json_t *a, const json_t *b)
{
    return a == b || (a && b && json_equal(a, b));
}

/* The request read without an object (flat) is the one read as a tree. */
static void check_same(int rc, const proto_request_t *flat, const proto_error_t *ferr, int tree_rc,
                       const proto_request_t *tree, const proto_error_t *terr)
{
    FZ_CHECK(rc == tree_rc, "%d read as is, %d as a tree", rc, tree_rc);
    FZ_CHECK(!flat->owned || !flat->msg, "owned arguments with msg");
    FZ_CHECK(!flat->owned || !flat->command || (flat->command->flags & CMD_F_ARGS),
             "%s read without an object", flat->command->name);
    FZ_CHECK(flat->command == tree->command, "another command");
    FZ_CHECK(!flat->re == !tree->re && (!flat->re || strcmp(flat->re, tree->re) == 0), "re");
    FZ_CHECK(same_json(flat->id, tree->id), "id");
    if (rc == PROTO_ERROR)
        FZ_CHECK(strcmp(ferr->code, terr->code) == 0 && strcmp(ferr->message, terr->message) == 0,
                 "%s: %s read as is, %s: %s as a tree", ferr->code, ferr->message, terr->code,
                 terr->message);
    if (rc == PROTO_OK)
        for (int i = 0; i < CMD_MAX_ARGS; i++)
            FZ_CHECK(same_json(flat->args[i], tree->args[i]), "args[%d]", i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *line = malloc(size ? size : 1);
    FZ_CHECK(line != NULL, "out of memory");
    if (size)
        memcpy(line, data, size);
    else
        line[0] = '\0';

    size_t i = 0;
    while (i < size && blank(line[i]))
        i++;
    bool json_form = i < size && (line[i] == '{' || line[i] == '[');

    proto_request_t flat, req;
    proto_error_t ferr = {0}, err = {0};
    int frc = proto_request_parse(&flat, line, size, &ferr);
    int rc = proto_request_parse_tree(&req, line, size, &err);
    check_same(frc, &flat, &ferr, rc, &req, &err);
    proto_request_free(&flat);
    switch (rc) {
    case PROTO_EMPTY:
        FZ_CHECK(i == size, "PROTO_EMPTY for a line that is not blank");
        FZ_CHECK(req.msg == NULL && req.command == NULL, "PROTO_EMPTY with a request");
        break;
    case PROTO_OK:
        FZ_CHECK(req.inline_form == !json_form, "inline_form is %d", req.inline_form);
        check_ok(&req, json_form);
        break;
    case PROTO_ERROR:
        FZ_CHECK(i < size, "PROTO_ERROR for a blank line");
        check_error(&req, &err, json_form);
        break;
    default: FZ_CHECK(false, "proto_request_parse returned %d", rc);
    }
    proto_request_free(&req);
    FZ_CHECK(req.msg == NULL, "proto_request_free left msg");
    free(line);
    return 0;
}
