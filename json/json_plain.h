/*
 * json_plain.h — the jansson tree of a plain JSON text, parsed in one pass,
 * or nothing: the caller then parses with json_loadb().
 *
 * Plain: an object or an array at the top, strings of printable ASCII
 * (0x20-0x7e) without escapes, integers of at most 18 digits with no
 * leading zero, true, false and null, JSON's whitespace between, no key
 * twice in an object. Every request a client or bot sends in play is plain.
 * Within that subset the tree is json_loadb(s, n, JSON_REJECT_DUPLICATES)'s
 * (same values, keys in the same order); anything else (an escape, any
 * other byte in a string, a real, an error, a duplicate key, more than
 * max_depth levels, an allocation that fails) gives NULL, and json_loadb()
 * says what it is. So a refusal here needs no care, and an answer is
 * jansson's (tests/json/test_json_plain.c: both, over random texts).
 *
 * Why: json_loadb() reads through a stream one byte at a time, and was a
 * quarter of the server's instructions per act.
 */
#ifndef TAPIS_JSON_PLAIN_H
#define TAPIS_JSON_PLAIN_H

#include <jansson.h>
#include <stddef.h>

json_t *json_plain_parse(const char *s, size_t n, int max_depth);

/*
 * json_plain_parse()'s tree of s[0, n), shared: the tree of a text seen
 * lately is given again (a new reference) instead of being built anew. A
 * game's actions are a few texts sent again and again (the server's
 * requests: protocol/envelope.c), and building and freeing their trees was
 * a tenth of an act's instructions. The trees are kept in a small table of
 * fixed size (texts of at most JSON_PLAIN_SHARED_TEXT bytes; a longer one
 * is built as json_plain_parse() builds it) and a cache hit allocates
 * nothing. The caller must not change the tree: others hold it. One thread
 * only. NULL when json_plain_parse() would give NULL.
 */
#define JSON_PLAIN_SHARED_TEXT 96
json_t *json_plain_shared(const char *s, size_t n, int max_depth);
/* Drop the table's references (at exit, or to start afresh). */
void json_plain_shared_clear(void);

/*
 * The members of a plain object, read without building anything: for a
 * request whose few arguments are all its handler reads (protocol/
 * envelope.c), the object, its keys and its strings would be made and
 * freed for nothing.
 *
 * kind: 's' a string (value: its bytes, without the quotes), 'i' an
 * integer (integer), 't' true, 'f' false, 'n' null, '{' or '[' a
 * container (value: its whole text, checked only for where it ends:
 * json_plain_parse() it to use it, which checks the rest).
 */
typedef struct json_plain_member {
    const char *key, *value;
    size_t klen, vlen;
    long long integer;
    char kind;
} json_plain_member_t;

/* The members of the plain object s[0, n) into m[0, max), in order: their
   count, or -1 when s is not a plain object as far as this reads (not an
   object, a member not plain, a key twice, more than max members). */
int json_plain_members(const char *s, size_t n, json_plain_member_t *m, int max);

#endif
