/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* UTF-8 validation and repair for strings that go into JSON. */
#include "utf8.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t utf8_char_len(const char *str, size_t n) {
        const unsigned char *s = (const unsigned char *) str;
        size_t len;
        uint32_t cp;

        if (n == 0 || s[0] == 0)
                return 0;
        if (s[0] < 0x80)
                return 1;
        if ((s[0] & 0xe0) == 0xc0)
                len = 2, cp = s[0] & 0x1f;
        else if ((s[0] & 0xf0) == 0xe0)
                len = 3, cp = s[0] & 0x0f;
        else if ((s[0] & 0xf8) == 0xf0)
                len = 4, cp = s[0] & 0x07;
        else
                return 0;
        if (len > n)
                return 0;
        for (size_t i = 1; i < len; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                cp = (cp << 6) | (s[i] & 0x3f);
        }
        /* No overlong forms, no surrogates, nothing above U+10FFFF. */
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
            (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
                return 0;
        return len;
}

bool utf8_is_valid_n(const char *s, size_t n) {
        for (size_t i = 0; i < n;) {
                size_t k = utf8_char_len(s + i, n - i);
                if (k == 0)
                        return false;
                i += k;
        }
        return true;
}

bool utf8_is_valid(const char *s) {
        return utf8_is_valid_n(s, strlen(s));
}

char *utf8_escape_invalid(const char *s, size_t n) {
        static const char replacement[] = "\xef\xbf\xbd"; /* U+FFFD */
        /* Each byte becomes at most three. */
        char *out = malloc(n * 3 + 1), *q = out;

        if (!out)
                return NULL;
        for (size_t i = 0; i < n;) {
                size_t k = utf8_char_len(s + i, n - i);
                if (k == 0) {
                        memcpy(q, replacement, 3);
                        q += 3;
                        i++;
                        continue;
                }
                memcpy(q, s + i, k);
                q += k;
                i += k;
        }
        *q = '\0';
        return out;
}

char *utf8_escape_for_log(const char *s) {
        size_t n = strlen(s);
        /* Each byte becomes at most four (\xNN). */
        char *out = malloc(n * 4 + 1), *q = out;

        if (!out)
                return NULL;
        for (size_t i = 0; i < n;) {
                unsigned char c = (unsigned char) s[i];
                size_t k = utf8_char_len(s + i, n - i);
                if (c == '\\' || c == '\n' || c == '\t') {
                        *q++ = '\\';
                        *q++ = c == '\n' ? 'n' : c == '\t' ? 't' : '\\';
                } else if (k == 0 || c < 0x20 || c == 0x7f)
                        q += sprintf(q, "\\x%02x", c);
                else {
                        memcpy(q, s + i, k);
                        q += k;
                        i += k;
                        continue;
                }
                i++;
        }
        *q = '\0';
        return out;
}
