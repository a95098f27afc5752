/*
 * safe_text.h — text from the wire, made safe to show on a terminal.
 *
 * Names, chat, room ids, error messages and every other string a client gets
 * from the server may carry bytes that a terminal obeys instead of showing:
 * ESC sequences (clear the screen, recolour, move the cursor), BEL, CR and LF
 * (forge a line), Unicode bidi overrides (reorder what follows). The clients
 * never trust the server with that, and print such strings only through
 * these functions.
 *
 * What passes unchanged: valid UTF-8 of printable characters (accents, CJK,
 * emoji, joiners). What is written as a visible escape instead:
 *   - C0 control bytes 0x00-0x1f (ESC, BEL, CR, LF, TAB...) and DEL: \x1b
 *   - C1 controls U+0080-U+009F: \u0085
 *   - bidi controls U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069,
 *     and the other invisible format or separator characters U+180E, U+200B,
 *     U+2028, U+2029, U+2060-U+2064, U+206A-U+206F, U+FEFF, U+FFF9-U+FFFB,
 *     and the noncharacters U+FFFE, U+FFFF: \u202e
 *   - each byte of invalid UTF-8 (stray continuation bytes, overlong forms,
 *     surrogates, beyond U+10FFFF, cut sequences): \xff
 * Backslashes are kept as they are: `\x1b` typed by a player shows the same
 * as an escaped ESC, which is harmless.
 */
#ifndef TAPIS_CLIENTS_SAFE_TEXT_H
#define TAPIS_CLIENTS_SAFE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* True when s[0..len) has nothing to escape (so it may be shown, or typed, as is). */
bool safe_is_clean(const char *s, size_t len);

/*
 * Escape s[0..len) into out (cap bytes, always NUL-terminated when cap > 0).
 * When the escaped text does not fit, it is cut before a whole character or
 * escape (never inside one) and ends with "...". Returns the length written.
 */
size_t safe_escape(char *out, size_t cap, const char *s, size_t len);

/* safe_escape() of a NUL-terminated string, or "?" when s is NULL. Returns out. */
const char *safe_text(char *out, size_t cap, const char *s);

/* Write s[0..len) escaped to f. Returns the number of bytes written. */
size_t safe_fwrite(FILE *f, const char *s, size_t len);

/* safe_fwrite() of a NUL-terminated string, or "?" when s is NULL. */
size_t safe_fputs(FILE *f, const char *s);

/*
 * As safe_fputs(), except that LF is written as a line break: for text made
 * of lines (the server's `help`). Every other control, CR included, is escaped.
 */
size_t safe_fputs_lines(FILE *f, const char *s);

/*
 * Write JSON text (json_dumps() output, or a line a JSON parser accepted) so
 * that it is both safe for a terminal and the same JSON value: DEL, C1, bidi
 * and the other characters above become \uXXXX escapes (they can only occur
 * inside strings), and raw control bytes (in valid JSON only blanks between
 * tokens: TAB, CR, LF) become spaces. Bytes that are not valid UTF-8 (never in
 * valid JSON) are written as \xNN, so any input gives safe output.
 */
size_t safe_fwrite_json(FILE *f, const char *s, size_t len);

#endif
