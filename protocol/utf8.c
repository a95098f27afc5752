/* utf8.c — the one UTF-8 decoder. See utf8.h. */
#include "protocol/utf8.h"

size_t utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
    unsigned char b = s[0];
    size_t n;
    uint32_t c, min; /* min: the smallest code point of n bytes, below which the form is overlong */
    if (b < 0x80) {
        n = 1, c = b, min = 0;
    } else if (b >= 0xc2 && b <= 0xdf) { /* 0xc0 and 0xc1 only start overlong forms */
        n = 2, c = b & 0x1f, min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
        n = 3, c = b & 0x0f, min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) { /* 0xf5 and up only start what is beyond U+10FFFF */
        n = 4, c = b & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (len < n) return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        c = (c << 6) | (s[i] & 0x3f);
    }
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) return 0;
    if (cp) *cp = c;
    return n;
}
