/* text.c — names and chat that are safe to show. See text.h. */
#include "protocol/text.h"

#include <stdint.h>

#include "protocol/utf8.h"

/* The code point at s[*i], moving *i past it: U+FFFD (unsafe) for a byte that
   does not start valid UTF-8 (protocol/utf8.h; a line was checked before). */
static long next_code_point(const unsigned char *s, size_t n, size_t *i)
{
    uint32_t cp;
    size_t len = utf8_decode(s + *i, n - *i, &cp);
    *i += len ? len : 1;
    return len ? (long)cp : 0xFFFD;
}

static bool unsafe(long cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x061C ||
           (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
           (cp >= 0x2060 && cp <= 0x2069) || cp == 0xFEFF || cp == 0xFFFE || cp == 0xFFFF ||
           cp == 0xFFFD;
}

long text_find_unsafe(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        long cp = next_code_point(p, n, &i);
        if (unsafe(cp)) return cp;
    }
    return -1;
}

const char *text_check_name(const char *s, size_t n, size_t max)
{
    if (n == 0) return "a name cannot be empty";
    if (n > max) return "that name is too long";
    if (text_find_unsafe(s, n) >= 0)
        return "a name may not hold control, invisible or direction-changing characters";
    if (s[0] == ' ' || s[n - 1] == ' ') return "a name may not start or end with a space";
    for (size_t i = 1; i < n; i++)
        if (s[i] == ' ' && s[i - 1] == ' ') return "a name may not hold two spaces in a row";
    return NULL;
}

bool text_is_bot_name(const char *s, size_t n)
{
    if (n < 3) return false;
    for (int i = 0; i < 3; i++)
        if ((s[i] | 0x20) != "bot"[i]) return false;
    if (n == 3) return true;
    char c = s[3];
    return !((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}
