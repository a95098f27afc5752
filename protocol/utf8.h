/*
 * utf8.h — the one UTF-8 decoder of tapis, strict (RFC 3629).
 *
 * Two parts need to know where a character ends and whether the bytes are
 * UTF-8 at all: the protocol layer, which refuses a line that is not valid
 * UTF-8 and scrubs its own messages (envelope.c), and the clients, which
 * escape for a terminal what they cannot show as is (clients/safe_text.c).
 * They must agree on what is valid, so there is one decoder: here, in
 * protocol/, because the clients may use protocol/ and protocol/ may not use
 * the clients (DESIGN.md, "Layers"). libc only.
 */
#ifndef TAPIS_PROTOCOL_UTF8_H
#define TAPIS_PROTOCOL_UTF8_H

#include <stddef.h>
#include <stdint.h>

/*
 * Decode the character at s[0..len) (len > 0): returns its length in bytes
 * (1-4) and sets *cp (when cp is not NULL), or returns 0 when s does not
 * start with valid UTF-8: a stray continuation byte, a sequence cut short
 * (by len or by a byte that does not continue it), an overlong form, a
 * surrogate (U+D800-U+DFFF), or beyond U+10FFFF.
 */
size_t utf8_decode(const unsigned char *s, size_t len, uint32_t *cp);

#endif
