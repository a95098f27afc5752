/*
 * safe_text.c — escaping text from the wire for a terminal (safe_text.h).
 */
#include <stdint.h>
#include <string.h>

#include "clients/safe_text.h"
#include "protocol/utf8.h" /* protocol/'s decoder: what the server calls valid is what we show raw */

/* ------------------------------------------------------------------------ */
/* One unit: a character, or one byte that is not valid UTF-8               */
/* ------------------------------------------------------------------------ */

/* Code points a terminal must not get raw (see safe_text.h). */
static bool unsafe_cp(uint32_t c)
{
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true;
    if (c < 0x600) return false;
    return c == 0x061c || c == 0x180e || c == 0x200b || c == 0x200e || c == 0x200f ||
           (c >= 0x2028 && c <= 0x202e) || (c >= 0x2060 && c <= 0x2064) ||
           (c >= 0x2066 && c <= 0x206f) || c == 0xfeff || (c >= 0xfff9 && c <= 0xfffb) ||
           c == 0xfffe || c == 0xffff;
}

typedef enum { UNIT_RAW, UNIT_BYTE, UNIT_CP } unit_kind_t;

typedef struct unit {
    size_t len; /* bytes of input */
    unit_kind_t kind;
    uint32_t cp; /* UNIT_CP: the code point; UNIT_BYTE: the byte */
} unit_t;

/* The unit at s[0..len) (len > 0) and how it is to be shown. */
static unit_t next_unit(const unsigned char *s, size_t len)
{
    uint32_t cp;
    size_t n = utf8_decode(s, len, &cp);
    if (n == 0) return (unit_t){1, UNIT_BYTE, s[0]};
    if (n == 1 && unsafe_cp(cp)) return (unit_t){1, UNIT_BYTE, cp}; /* C0, DEL */
    if (unsafe_cp(cp)) return (unit_t){n, UNIT_CP, cp};
    return (unit_t){n, UNIT_RAW, 0};
}

/* The visible escape of a unit that is not raw; returns its length. */
static size_t escape_of(unit_t u, char buf[16])
{
    if (u.kind == UNIT_BYTE) return (size_t)snprintf(buf, 16, "\\x%02x", (unsigned)u.cp);
    return (size_t)snprintf(buf, 16, u.cp > 0xffff ? "\\U%08x" : "\\u%04x", (unsigned)u.cp);
}

/* Length of the unit as shown. */
static size_t shown_len(unit_t u)
{
    char esc[16];
    return u.kind == UNIT_RAW ? u.len : escape_of(u, esc);
}

/* ------------------------------------------------------------------------ */
/* Strings and buffers                                                      */
/* ------------------------------------------------------------------------ */

bool safe_is_clean(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        unit_t u = next_unit(p + i, len - i);
        if (u.kind != UNIT_RAW) return false;
        i += u.len;
    }
    return true;
}

size_t safe_escape(char *out, size_t cap, const char *s, size_t len)
{
    if (cap == 0) return 0;
    const unsigned char *p = (const unsigned char *)s;
    size_t total = 0;
    for (size_t i = 0; i < len;) {
        unit_t u = next_unit(p + i, len - i);
        total += shown_len(u);
        i += u.len;
    }
    bool cut = total > cap - 1;
    size_t room = !cut ? cap - 1 : cap > 4 ? cap - 4 : 0; /* leave room for "..." */
    size_t n = 0;
    for (size_t i = 0; i < len;) {
        unit_t u = next_unit(p + i, len - i);
        char esc[16];
        const char *text = u.kind == UNIT_RAW ? (const char *)p + i : esc;
        size_t tl = u.kind == UNIT_RAW ? u.len : escape_of(u, esc);
        if (n + tl > room) break;
        memcpy(out + n, text, tl);
        n += tl;
        i += u.len;
    }
    for (int dots = 0; cut && dots < 3 && n < cap - 1; dots++)
        out[n++] = '.';
    out[n] = '\0';
    return n;
}

const char *safe_text(char *out, size_t cap, const char *s)
{
    if (!s) s = "?";
    safe_escape(out, cap, s, strlen(s));
    return out;
}

/* ------------------------------------------------------------------------ */
/* Streams                                                                  */
/* ------------------------------------------------------------------------ */

typedef enum { AS_TEXT, AS_LINES, AS_JSON } shown_as_t;

static size_t write_mode(FILE *f, const char *s, size_t len, shown_as_t mode)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t written = 0, run = 0; /* raw bytes not yet written: s[i - run, i) */
    size_t i = 0;
    while (i < len) {
        unit_t u = next_unit(p + i, len - i);
        bool keep = u.kind == UNIT_RAW || (mode == AS_LINES && p[i] == '\n' && u.len == 1);
        if (keep) {
            run += u.len;
            i += u.len;
            continue;
        }
        if (run) written += fwrite(p + i - run, 1, run, f);
        run = 0;
        char esc[16];
        size_t el;
        if (mode == AS_JSON && u.kind == UNIT_BYTE && u.cp < 0x20) {
            esc[0] = ' ';
            el = 1;
        } else if (mode == AS_JSON && u.kind == UNIT_BYTE && u.cp == 0x7f) {
            el = (size_t)snprintf(esc, sizeof esc, "\\u007f");
        } else if (mode == AS_JSON && u.kind == UNIT_CP && u.cp > 0xffff) {
            uint32_t v = u.cp - 0x10000;
            el = (size_t)snprintf(esc, sizeof esc, "\\u%04x\\u%04x", 0xd800 + (unsigned)(v >> 10),
                                  0xdc00 + (unsigned)(v & 0x3ff));
        } else {
            el = escape_of(u, esc);
        }
        written += fwrite(esc, 1, el, f);
        i += u.len;
    }
    if (run) written += fwrite(p + i - run, 1, run, f);
    return written;
}

size_t safe_fwrite(FILE *f, const char *s, size_t len)
{
    return write_mode(f, s, len, AS_TEXT);
}

size_t safe_fputs(FILE *f, const char *s)
{
    if (!s) s = "?";
    return write_mode(f, s, strlen(s), AS_TEXT);
}

size_t safe_fputs_lines(FILE *f, const char *s)
{
    if (!s) s = "?";
    return write_mode(f, s, strlen(s), AS_LINES);
}

size_t safe_fwrite_json(FILE *f, const char *s, size_t len)
{
    return write_mode(f, s, len, AS_JSON);
}
