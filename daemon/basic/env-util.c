/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Environment files and variable substitution in command lines, as systemd does them. */
#include "env-util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file-util.h"
#include "macros.h"
#include "strv.h"
#include "utf8.h"

#define WHITESPACE " \t\n\r"

bool env_name_is_valid_n(const char *s, size_t n) {
        if (!s || n == 0)
                return false;
        if (!((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
                return false;
        for (size_t i = 1; i < n; i++)
                if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
                      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
                        return false;
        return true;
}

const char *env_get_n(char *const *env, const char *name, size_t n) {
        for (char *const *e = env; e && *e; e++)
                if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
                        return *e + n + 1;
        return NULL;
}

/* A growing byte buffer. */
typedef struct Buf {
        char *s;
        size_t n, size;
} Buf;

static int buf_put(Buf *b, const char *s, size_t n) {
        if (b->n + n + 1 > b->size) {
                size_t size = b->size * 2 > b->n + n + 64 ? b->size * 2 : b->n + n + 64;
                char *t = realloc(b->s, size);
                if (!t)
                        return -ENOMEM;
                b->s = t;
                b->size = size;
        }
        memcpy(b->s + b->n, s, n);
        b->n += n;
        b->s[b->n] = '\0';
        return 0;
}

static int buf_putc(Buf *b, char c) {
        return buf_put(b, &c, 1);
}

static void buf_reset(Buf *b) {
        b->n = 0;
        if (b->s)
                b->s[0] = '\0';
}

/* One finished line: "name=value" into *env when the name is valid. */
static int env_file_push(Buf *key, size_t key_end, Buf *value, size_t value_end, char ***env, unsigned *n) {
        _cleanup_free_ char *a = NULL;
        size_t kn = key_end < key->n ? key_end : key->n;
        size_t vn = value_end < value->n ? value_end : value->n;

        if (!env_name_is_valid_n(key->s, kn))
                return 0; /* dropped, as systemd drops invalid assignments from the environment */
        if (++*n > ENV_FILE_ASSIGNMENTS_MAX)
                return -E2BIG;
        a = malloc(kn + 1 + vn + 1);
        if (!a)
                return -ENOMEM;
        memcpy(a, key->s, kn);
        a[kn] = '=';
        if (vn > 0)
                memcpy(a + kn + 1, value->s, vn);
        a[kn + 1 + vn] = '\0';
        if (!utf8_is_valid(a))
                return -EINVAL;
        return strv_env_replace_consume(env, TAKE_PTR(a));
}

int env_file_parse(const char *text, size_t len, char ***env) {
        enum {
                PRE_KEY,
                KEY,
                PRE_VALUE,
                VALUE,
                VALUE_ESCAPE,
                SINGLE_QUOTED,
                DOUBLE_QUOTED,
                DOUBLE_QUOTED_ESCAPE,
                COMMENT,
                COMMENT_ESCAPE,
        } state = PRE_KEY;
        _cleanup_strv_free_ char **out = NULL;
        Buf key = {}, value = {};
        /* Where trailing whitespace of the key / an unquoted value starts (SIZE_MAX: none). */
        size_t key_ws = SIZE_MAX, value_ws = SIZE_MAX;
        unsigned n = 0;
        int r = 0;

        assert(text || len == 0);
        assert(env);

        out = strv_copy(*env);
        if (*env && !out)
                return -ENOMEM;

        for (size_t i = 0; i < len && r >= 0; i++) {
                char c = text[i];

                if (c == '\0') {
                        r = -EINVAL; /* a NUL byte: not a text file */
                        break;
                }
                switch (state) {
                case PRE_KEY:
                        if (c == '#' || c == ';')
                                state = COMMENT;
                        else if (!strchr(WHITESPACE, c)) {
                                buf_reset(&key);
                                key_ws = SIZE_MAX;
                                r = buf_putc(&key, c);
                                state = KEY;
                        }
                        break;
                case KEY:
                        if (c == '\n')
                                state = PRE_KEY; /* no '=': not an assignment */
                        else if (c == '=') {
                                buf_reset(&value);
                                value_ws = SIZE_MAX;
                                state = PRE_VALUE;
                        } else {
                                if (!strchr(WHITESPACE, c))
                                        key_ws = SIZE_MAX;
                                else if (key_ws == SIZE_MAX)
                                        key_ws = key.n;
                                r = buf_putc(&key, c);
                        }
                        break;
                case PRE_VALUE:
                        if (c == '\n') {
                                r = env_file_push(&key, key_ws, &value, SIZE_MAX, &out, &n);
                                state = PRE_KEY;
                        } else if (c == '\'')
                                state = SINGLE_QUOTED;
                        else if (c == '"')
                                state = DOUBLE_QUOTED;
                        else if (c == '\\')
                                state = VALUE_ESCAPE;
                        else if (!strchr(WHITESPACE, c)) {
                                r = buf_putc(&value, c);
                                state = VALUE;
                        }
                        break;
                case VALUE:
                        if (c == '\n') {
                                r = env_file_push(&key, key_ws, &value, value_ws, &out, &n);
                                state = PRE_KEY;
                        } else if (c == '\\') {
                                value_ws = SIZE_MAX;
                                state = VALUE_ESCAPE;
                        } else {
                                if (!strchr(WHITESPACE, c))
                                        value_ws = SIZE_MAX;
                                else if (value_ws == SIZE_MAX)
                                        value_ws = value.n;
                                r = buf_putc(&value, c);
                        }
                        break;
                case VALUE_ESCAPE:
                        /* A backslash-newline continues the value; any other character is literal. */
                        if (c != '\n')
                                r = buf_putc(&value, c);
                        state = VALUE;
                        break;
                case SINGLE_QUOTED:
                        if (c == '\'')
                                state = PRE_VALUE;
                        else
                                r = buf_putc(&value, c);
                        break;
                case DOUBLE_QUOTED:
                        if (c == '"')
                                state = PRE_VALUE;
                        else if (c == '\\')
                                state = DOUBLE_QUOTED_ESCAPE;
                        else
                                r = buf_putc(&value, c);
                        break;
                case DOUBLE_QUOTED_ESCAPE:
                        /* As in the shell: the characters special inside double quotes lose the
                         * backslash, a newline is dropped with it, anything else keeps it. */
                        if (strchr("\"\\`$", c))
                                r = buf_putc(&value, c);
                        else if (c != '\n') {
                                r = buf_putc(&value, '\\');
                                if (r >= 0)
                                        r = buf_putc(&value, c);
                        }
                        state = DOUBLE_QUOTED;
                        break;
                case COMMENT:
                        if (c == '\\')
                                state = COMMENT_ESCAPE;
                        else if (c == '\n')
                                state = PRE_KEY;
                        break;
                case COMMENT_ESCAPE:
                        /* A comment ending in a backslash swallows the next line too. */
                        state = COMMENT;
                        break;
                }
        }

        /* The last line need not end in a newline. */
        if (r >= 0 && state != PRE_KEY && state != KEY && state != COMMENT && state != COMMENT_ESCAPE)
                r = env_file_push(&key, key_ws, &value, state == VALUE ? value_ws : SIZE_MAX, &out, &n);

        free(key.s);
        free(value.s);
        if (r < 0)
                return r;
        if (!out) {
                /* An empty file into an empty list: an empty list, not NULL. */
                if (strv_extend(&out, NULL) < 0)
                        return -ENOMEM;
        }
        strv_free(*env);
        *env = TAKE_PTR(out);
        return 0;
}

int env_file_load(const char *path, char ***env) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *buf = NULL;
        size_t n = 0;

        assert(path);
        assert(env);

        int r = open_regular_file(path, &fd);
        if (r < 0)
                return r;
        r = read_full_fd(fd, ENV_FILE_SIZE_MAX, &buf, &n);
        if (r < 0)
                return r;
        return env_file_parse(buf, n, env);
}

/* Splits a value at whitespace for "$NAME": quotes group words and are removed, a backslash
 * takes the next character literally; unbalanced quotes end at the end of the value. */
static int split_value(const char *v, char ***words, size_t *n_words) {
        Buf w = {};
        int r = 0;

        for (;;) {
                char quote = 0;
                bool any = false;

                v += strspn(v, WHITESPACE);
                if (*v == '\0')
                        break;
                buf_reset(&w);
                for (; *v; v++) {
                        if (quote) {
                                if (*v == quote)
                                        quote = 0;
                                else if (*v == '\\' && quote == '"' && v[1])
                                        r = buf_putc(&w, *++v);
                                else
                                        r = buf_putc(&w, *v);
                        } else if (strchr(WHITESPACE, *v))
                                break;
                        else if (*v == '\'' || *v == '"')
                                quote = *v;
                        else if (*v == '\\' && v[1])
                                r = buf_putc(&w, *++v);
                        else
                                r = buf_putc(&w, *v);
                        any = true;
                        if (r < 0)
                                goto out;
                }
                if (!any)
                        continue;
                if (++*n_words > ENV_ARGV_MAX) {
                        r = -E2BIG;
                        goto out;
                }
                r = strv_extend(words, w.s ?: "");
                if (r < 0)
                        goto out;
        }
out:
        free(w.s);
        return r;
}

/* "${NAME}" and "$$" in one word. */
static int replace_in_word(const char *s, char *const *env, char **ret) {
        Buf b = {};
        int r = 0;

        r = buf_put(&b, "", 0);
        while (r >= 0 && *s) {
                const char *end;

                if (s[0] == '$' && s[1] == '$') {
                        r = buf_putc(&b, '$');
                        s += 2;
                } else if (s[0] == '$' && s[1] == '{' && (end = strchr(s + 2, '}'))) {
                        size_t n = (size_t) (end - s - 2);
                        const char *v = env_name_is_valid_n(s + 2, n) ? env_get_n(env, s + 2, n) : NULL;

                        /* "${A:-b}" and the like are no substitution for systemd in command lines:
                         * the text stays. An invalid or unset name gives "". */
                        if (memchr(s + 2, ':', n)) {
                                r = buf_put(&b, s, (size_t) (end - s) + 1);
                        } else if (v)
                                r = buf_put(&b, v, strlen(v));
                        s = end + 1;
                } else {
                        r = buf_putc(&b, *s);
                        s++;
                }
        }
        if (r < 0) {
                free(b.s);
                return r;
        }
        *ret = b.s;
        return 0;
}

int env_replace_argv(char *const *argv, char *const *env, char ***ret) {
        _cleanup_strv_free_ char **out = NULL;
        size_t n = 0;
        int r;

        assert(ret);

        for (char *const *a = argv; a && *a; a++) {
                const char *w = *a;

                if (w[0] == '$' && w[1] != '{' && w[1] != '$') {
                        const char *v = env_name_is_valid_n(w + 1, strlen(w + 1)) ?
                                                env_get_n(env, w + 1, strlen(w + 1)) :
                                                NULL;
                        if (v) {
                                r = split_value(v, &out, &n);
                                if (r < 0)
                                        return r;
                        }
                        continue;
                }

                char *t;
                r = replace_in_word(w, env, &t);
                if (r < 0)
                        return r;
                if (++n > ENV_ARGV_MAX) {
                        free(t);
                        return -E2BIG;
                }
                r = strv_consume(&out, t);
                if (r < 0)
                        return r;
        }
        if (!out && strv_extend(&out, NULL) < 0)
                return -ENOMEM;
        *ret = TAKE_PTR(out);
        return 0;
}
