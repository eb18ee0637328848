/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * split_exec_line() and split_env_assignments() (basic/extract-word.c) on
 * arbitrary bytes up to the first NUL (a unit file value never holds one).
 *
 * Besides "no crash, no leak", checks what the header promises: a word limit
 * is never exceeded; an Environment= assignment always has a valid name and
 * '='; and every argv round-trips: each word quoted back with \xNN escapes
 * (any byte but NUL may be in a word) splits into exactly the same argv.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/extract-word.h"
#include "basic/macros.h"
#include "basic/strv.h"
#include "fuzz.h"

/* Small enough that the fuzzer reaches -E2BIG often. */
#define FUZZ_WORDS_MAX 64U

/* Every word as "\xNN\xNN…", separated by a space. */
static char *quote_words(char **words) {
        size_t n = 1;
        for (char **w = words; *w; w++)
                n += 3 + 4 * strlen(*w);
        char *s = malloc(n), *p = s;
        if (!s)
                abort();
        for (char **w = words; *w; w++) {
                if (w != words)
                        *p++ = ' ';
                *p++ = '"';
                for (const unsigned char *c = (const unsigned char *) *w; *c; c++)
                        p += sprintf(p, "\\x%02x", *c);
                *p++ = '"';
        }
        *p = 0;
        return s;
}

static void check_roundtrip(char **words, bool exec) {
        _cleanup_free_ char *quoted = quote_words(words);
        _cleanup_strv_free_ char **again = NULL;
        int r = exec ? split_exec_line(quoted, FUZZ_WORDS_MAX, &again)
                     : split_env_assignments(quoted, FUZZ_WORDS_MAX, &again);
        fuzz_assert(r == 0);
        size_t i;
        for (i = 0; words[i]; i++) {
                fuzz_assert(again[i]);
                fuzz_assert(streq(words[i], again[i]));
        }
        fuzz_assert(!again[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_free_ char *s = strndup((const char *) data, size);
        if (!s)
                return 0;

        _cleanup_strv_free_ char **argv = NULL;
        int r = split_exec_line(s, FUZZ_WORDS_MAX, &argv);
        if (r == 0) {
                fuzz_assert(argv);
                fuzz_assert(strv_length(argv) <= FUZZ_WORDS_MAX);
                check_roundtrip(argv, /* exec= */ true);
        } else
                fuzz_assert(IN_SET(r, -EINVAL, -E2BIG, -EOPNOTSUPP, -ENOMEM));

        _cleanup_strv_free_ char **env = NULL;
        r = split_env_assignments(s, FUZZ_WORDS_MAX, &env);
        if (r == 0) {
                fuzz_assert(strv_length(env) <= FUZZ_WORDS_MAX);
                for (char **e = env; *e; e++) {
                        const char *eq = strchr(*e, '=');
                        fuzz_assert(eq && eq != *e);
                        fuzz_assert(!(**e >= '0' && **e <= '9'));
                        for (const char *c = *e; c < eq; c++)
                                fuzz_assert((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                                            (*c >= '0' && *c <= '9') || *c == '_');
                }
                check_roundtrip(env, /* exec= */ false);
        } else
                fuzz_assert(IN_SET(r, -EINVAL, -E2BIG, -ENOMEM));

        /* The word extractor on its own: it always advances, and stops. */
        const char *p = s;
        for (size_t words = 0;; words++) {
                _cleanup_free_ char *w = NULL;
                const char *before = p;
                r = extract_first_word(&p, &w);
                if (r <= 0)
                        break;
                fuzz_assert(p > before);
                fuzz_assert(words <= size);
        }
        return 0;
}
