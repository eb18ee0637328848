/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* systemd's quoting: words of ExecStart= and the like, NAME=VALUE assignments of Environment=. */
#include "extract-word.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "macros.h"
#include "strv.h"

#define WHITESPACE    " \t\n\r"
#define UTF8_CHAR_MAX 4U /* bytes of the longest character an escape can produce */

static bool is_whitespace(char c) {
        return c != '\0' && strchr(WHITESPACE, c);
}

static int unhex(char c) {
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -EINVAL;
}

/* Same test as systemd's unichar_is_valid(): no surrogates, no non-characters, nothing above U+10FFFF. */
static bool unichar_is_valid(uint32_t c) {
        if (c >= 0x110000)
                return false;
        if ((c & 0xFFFFF800) == 0xD800)
                return false;
        if (c >= 0xFDD0 && c <= 0xFDEF)
                return false;
        if ((c & 0xFFFE) == 0xFFFE)
                return false;
        return true;
}

static size_t utf8_encode(uint32_t c, char *out) {
        if (c < 0x80) {
                out[0] = (char) c;
                return 1;
        }
        if (c < 0x800) {
                out[0] = (char) (0xC0 | (c >> 6));
                out[1] = (char) (0x80 | (c & 0x3F));
                return 2;
        }
        if (c < 0x10000) {
                out[0] = (char) (0xE0 | (c >> 12));
                out[1] = (char) (0x80 | ((c >> 6) & 0x3F));
                out[2] = (char) (0x80 | (c & 0x3F));
                return 3;
        }
        out[0] = (char) (0xF0 | (c >> 18));
        out[1] = (char) (0x80 | ((c >> 12) & 0x3F));
        out[2] = (char) (0x80 | ((c >> 6) & 0x3F));
        out[3] = (char) (0x80 | (c & 0x3F));
        return 4;
}

/* Decodes the escape sequence that follows a backslash at p. Writes at most UTF8_CHAR_MAX bytes to
 * out and returns how many characters after the backslash it consumed. Like systemd's cunescape_one()
 * without "accept_nul": an escape that yields a NUL byte is refused. "\;" is ours: systemd only knows it as
 * a word of its own in ExecStart=, where it stands for a literal ";". */
static int unescape_one(const char *p, char *out, size_t *ret_len) {
        static const char simple[][2] = {
                { 'a', '\a' }, { 'b', '\b' },  { 'f', '\f' }, { 'n', '\n' },  { 'r', '\r' }, { 't', '\t' },
                { 'v', '\v' }, { '\\', '\\' }, { '"', '"' },  { '\'', '\'' }, { 's', ' ' },  { ';', ';' },
        };
        uint32_t c = 0;
        int digits;

        for (size_t i = 0; i < ELEMENTSOF(simple); i++)
                if (*p == simple[i][0]) {
                        out[0] = simple[i][1];
                        *ret_len = 1;
                        return 1;
                }

        switch (*p) {
        case 'x':
                for (int i = 1; i <= 2; i++) {
                        int v = unhex(p[i]);
                        if (v < 0)
                                return -EINVAL;
                        c = c << 4 | (uint32_t) v;
                }
                if (c == 0)
                        return -EINVAL;
                out[0] = (char) c; /* a raw byte, which may be above 0x7F */
                *ret_len = 1;
                return 3;

        case 'u':
        case 'U':
                digits = *p == 'u' ? 4 : 8;
                for (int i = 1; i <= digits; i++) {
                        int v = unhex(p[i]);
                        if (v < 0)
                                return -EINVAL;
                        c = c << 4 | (uint32_t) v;
                }
                if (c == 0 || !unichar_is_valid(c))
                        return -EINVAL;
                *ret_len = utf8_encode(c, out);
                return 1 + digits;

        case '0' ... '7':
                /* Exactly three octal digits, as in systemd: "\0" alone is an error. */
                for (int i = 0; i < 3; i++) {
                        if (p[i] < '0' || p[i] > '7')
                                return -EINVAL;
                        c = c << 3 | (uint32_t) (p[i] - '0');
                }
                if (c == 0 || c > 0xFF)
                        return -EINVAL;
                out[0] = (char) c;
                *ret_len = 1;
                return 3;

        default:
                /* Unknown escapes and a trailing backslash (*p == '\0'). */
                return -EINVAL;
        }
}

int extract_first_word(const char **p, char **ret) {
        _cleanup_free_ char *buf = NULL;
        const char *s;
        size_t n = 0, allocated = 0;
        char quote = 0;

        assert(p);
        assert(*p);
        assert(ret);

        s = *p + strspn(*p, WHITESPACE);
        if (*s == '\0') {
                *p = s;
                *ret = NULL;
                return 0;
        }

        for (;; s++) {
                char c = *s;

                /* Room for the longest step (a 4-byte UTF-8 character) and the NUL. The buffer grows
                 * by doubling, so that n words of a long line cost O(line), not O(n × line). */
                if (n + UTF8_CHAR_MAX + 1 > allocated) {
                        size_t a = allocated ? allocated * 2 : 64;
                        char *b = realloc(buf, a);
                        if (!b)
                                return -ENOMEM;
                        buf = b;
                        allocated = a;
                }

                if (c == '\0') {
                        if (quote)
                                return -EINVAL; /* unterminated quote */
                        break;
                }
                if (!quote && is_whitespace(c))
                        break;

                if (c == '\\') {
                        size_t k;
                        int r = unescape_one(s + 1, buf + n, &k);
                        if (r < 0)
                                return r;
                        n += k;
                        s += r;
                } else if (quote) {
                        if (c == quote)
                                quote = 0;
                        else
                                buf[n++] = c;
                } else if (c == '"' || c == '\'')
                        quote = c; /* a quote may start in the middle of a word */
                else
                        buf[n++] = c;
        }
        buf[n] = '\0';

        *p = s + strspn(s, WHITESPACE);

        /* Give back the slack; keep the larger buffer if that fails. */
        char *shrunk = realloc(buf, n + 1);
        if (shrunk)
                buf = shrunk;
        *ret = TAKE_PTR(buf);
        return 1;
}

/* Appends to a vector whose capacity we track, so that n words cost O(n), not O(n²). */
static int append_word(char ***l, size_t *n, size_t *allocated, char *word) {
        _cleanup_free_ char *w = word;

        if (*n + 2 > *allocated) {
                size_t a = *allocated ? *allocated * 2 : 8;
                char **c;

                if (a > SIZE_MAX / sizeof(char *))
                        return -ENOMEM;
                c = realloc(*l, a * sizeof(char *));
                if (!c)
                        return -ENOMEM;
                *l = c;
                *allocated = a;
        }
        (*l)[(*n)++] = TAKE_PTR(w);
        (*l)[*n] = NULL;
        return 0;
}

static bool env_name_is_valid_n(const char *s, size_t n) {
        if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = s[i];
                if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_'))
                        return false;
        }
        return true;
}

static int split_words(const char *s, size_t max, bool exec, char ***ret) {
        _cleanup_strv_free_ char **l = NULL;
        size_t n = 0, allocated = 0;
        const char *p = s;
        int r;

        assert(s);
        assert(ret);

        for (;;) {
                char *w;

                p += strspn(p, WHITESPACE);

                /* In systemd a bare ";" separates several command lines in one ExecStart= (for
                 * Type=oneshot). svd runs one command, so refuse it rather than pass ";" as an argument. */
                if (exec && p[0] == ';' && (p[1] == '\0' || is_whitespace(p[1])))
                        return -EOPNOTSUPP;

                r = extract_first_word(&p, &w);
                if (r < 0)
                        return r;
                if (r == 0)
                        break;

                if (n >= max) {
                        free(w);
                        return -E2BIG;
                }

                if (!exec) {
                        const char *eq = strchr(w, '=');
                        if (!eq || !env_name_is_valid_n(w, (size_t) (eq - w))) {
                                free(w);
                                return -EINVAL;
                        }
                }

                r = append_word(&l, &n, &allocated, w);
                if (r < 0)
                        return r;
        }

        if (!l) {
                l = calloc(1, sizeof(char *));
                if (!l)
                        return -ENOMEM;
        }

        *ret = TAKE_PTR(l);
        return 0;
}

int split_exec_line(const char *s, size_t max_words, char ***ret) {
        return split_words(s, max_words, /* exec= */ true, ret);
}

int split_env_assignments(const char *s, size_t max, char ***ret) {
        return split_words(s, max, /* exec= */ false, ret);
}
