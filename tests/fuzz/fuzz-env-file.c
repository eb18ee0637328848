/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * env_file_parse() and env_replace_argv() (basic/env-util.c) on arbitrary bytes: an
 * EnvironmentFile= is whatever the administrator or a package put there.
 *
 * Besides "no crash, no leak", checks what the header promises: every assignment has a valid name
 * and '=', a name appears once, the list is valid UTF-8; and substituting the parsed variables into
 * a command line of "$NAME" and "${NAME}" words for each of them stays bounded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/env-util.h"
#include "basic/macros.h"
#include "basic/strv.h"
#include "basic/utf8.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_strv_free_ char **env = NULL;

        if (size > ENV_FILE_SIZE_MAX)
                return 0;
        int r = env_file_parse((const char *) data, size, &env);
        if (r < 0) {
                fuzz_assert(IN_SET(r, -EINVAL, -E2BIG, -ENOMEM));
                fuzz_assert(!env);
                return 0;
        }
        fuzz_assert(env);
        fuzz_assert(strv_length(env) <= ENV_FILE_ASSIGNMENTS_MAX);

        _cleanup_strv_free_ char **argv = NULL;
        fuzz_assert(strv_extend(&argv, "/bin/cmd") == 0);
        for (char **e = env; *e; e++) {
                const char *eq = strchr(*e, '=');
                fuzz_assert(eq && env_name_is_valid_n(*e, (size_t) (eq - *e)));
                fuzz_assert(utf8_is_valid(*e));
                for (char **o = env; o < e; o++)
                        fuzz_assert(strncmp(*o, *e, (size_t) (eq - *e) + 1) != 0);
                if (e - env < 64) {
                        char *a = NULL, *b = NULL;
                        if (asprintf(&a, "$%.*s", (int) (eq - *e), *e) < 0 ||
                            asprintf(&b, "x${%.*s}$$", (int) (eq - *e), *e) < 0)
                                abort();
                        fuzz_assert(strv_consume(&argv, a) == 0);
                        fuzz_assert(strv_consume(&argv, b) == 0);
                }
        }

        _cleanup_strv_free_ char **out = NULL;
        r = env_replace_argv(argv, env, &out);
        if (r < 0)
                fuzz_assert(IN_SET(r, -E2BIG, -ENOMEM));
        else {
                fuzz_assert(out && streq(out[0], "/bin/cmd"));
                fuzz_assert(strv_length(out) <= ENV_ARGV_MAX);
        }
        return 0;
}
