/*
 * json_text.h — compact JSON text of a jansson value, several times faster
 * than json_dumpb() for the server's nested messages (json_text.c says why).
 */
#ifndef TAPIS_JSON_TEXT_H
#define TAPIS_JSON_TEXT_H

#include <jansson.h>
#include <stddef.h>

/*
 * Write v as compact JSON (the bytes of json_dumpb(v, buf, size, JSON_COMPACT
 * | JSON_ENCODE_ANY)) into buf, no terminating NUL. Returns the text's whole
 * length: when it is more than size, only the first size bytes were written.
 * v must hold no reference loop (the server's messages are trees). NULL: 0.
 */
size_t json_text(const json_t *v, char *buf, size_t size);

/*
 * The length of the JSON value at the start of t[0, n), compact text as
 * json_text() writes it: up to its closing bracket, brace or quote, or, for a
 * number, true, false or null, up to the ',', ']' or '}' after it. n when the
 * value does not end within t[0, n). Finds a value in a longer text without
 * parsing it (the event log's entries, a load generator's legal actions).
 */
size_t json_text_len(const char *t, size_t n);

#endif
