/*
 * text.h — what text from one client may show to others: names and chat.
 *
 * A client's name and chat lines reach other people's terminals. Text that
 * is not plain printable text can forge lines (newlines, carriage returns),
 * clear or recolour a screen (ESC), ring bells, or reorder what a reader
 * sees (bidirectional overrides). The protocol layer already guarantees
 * valid UTF-8 without NUL; these checks refuse the rest.
 */
#ifndef TAPIS_PROTOCOL_TEXT_H
#define TAPIS_PROTOCOL_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The first character of s (n bytes) that must not reach a terminal, as a
 * code point: C0 controls (tab included), DEL, C1 controls, the bidi
 * controls (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069), the
 * invisible format characters U+200B-U+200D, U+2028, U+2029, U+2060-U+2064,
 * U+FEFF, and noncharacters U+FFFE/U+FFFF. Invalid UTF-8 gives 0xFFFD.
 * Returns -1 when s is clean.
 */
long text_find_unsafe(const char *s, size_t n);

/*
 * A name people can read and tell apart: 1 to `max` bytes, clean (above),
 * no space at either end and no two spaces in a row. Returns NULL when the
 * name is fine, or a message saying what is wrong (static storage).
 */
const char *text_check_name(const char *s, size_t n, size_t max);

/* True for the names kept for built-in bots: "bot", "Bot 2", "bot-1"... (not "bottom"). */
bool text_is_bot_name(const char *s, size_t n);

#endif
