/*
 * json_out.c — see json_out.h.
 */
#include "json_out.h"

#include <string.h>

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t l;
    if (s[0] < 0x80) return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf) l = 2;
    else if (s[0] >= 0xe0 && s[0] <= 0xef) l = 3;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4) l = 4;
    else return 0;
    if (l > n) return 0;
    for (size_t i = 1; i < l; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    if (l == 3 && s[0] == 0xe0 && s[1] < 0xa0) return 0;   /* overlong */
    if (l == 3 && s[0] == 0xed && s[1] >= 0xa0) return 0;  /* surrogates */
    if (l == 4 && s[0] == 0xf0 && s[1] < 0x90) return 0;
    if (l == 4 && s[0] == 0xf4 && s[1] >= 0x90) return 0;
    return l;
}

void json_strn(FILE *out, const char *text, size_t n)
{
    const unsigned char *s = (const unsigned char *)text;
    putc('"', out);
    size_t i = 0;
    while (i < n && s[i]) {
        unsigned char c = s[i];
        if (c == '"' || c == '\\') {
            putc('\\', out);
            putc(c, out);
            i++;
        } else if (c < 0x20 || c == 0x7f) {
            fprintf(out, "\\u%04x", c);
            i++;
        } else if (c < 0x80) {
            putc(c, out);
            i++;
        } else {
            size_t l = utf8_len(s + i, strnlen(text + i, n - i));
            if (l == 0) {
                putc('?', out);
                i++;
            } else {
                fwrite(s + i, 1, l, out);
                i += l;
            }
        }
    }
    putc('"', out);
}

void json_str(FILE *out, const char *text)
{
    json_strn(out, text, text ? strlen(text) : 0);
}
