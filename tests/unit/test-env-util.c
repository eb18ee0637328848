/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Environment files and variable substitution in command lines (basic/env-util.c), with systemd's
 * rules: quotes, comments, continuations, "$NAME" split into words, "${NAME}" kept whole, "$$". */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/env-util.h"
#include "basic/macros.h"
#include "basic/strv.h"
#include "check-run.h"

static char **parse(const char *text) {
        char **env = NULL;
        ck_assert_int_eq(env_file_parse(text, strlen(text), &env), 0);
        ck_assert_ptr_nonnull(env);
        return env;
}

static void assert_strv(char **got, const char *const *want) {
        size_t i = 0;
        for (; want[i]; i++) {
                ck_assert_msg(got[i], "entry %zu missing, want '%s'", i, want[i]);
                ck_assert_str_eq(got[i], want[i]);
        }
        ck_assert_msg(!got[i], "extra entry %zu: '%s'", i, got[i]);
}

START_TEST(test_env_file_syntax) {
        _cleanup_strv_free_ char **env = parse("# comment\n"
                                               "; another comment\n"
                                               "A=plain\n"
                                               "  B  =  spaced value  \n"
                                               "C='single $quoted \\n'\n"
                                               "D=\"double \\\"q\\\" \\$x \\n \\\\\"\n"
                                               "E=con\\\n"
                                               "tinued\n"
                                               "F=\"multi\\\n"
                                               "line\"\n"
                                               "# a comment ending in a backslash \\\n"
                                               "G=swallowed\n"
                                               "no equals sign\n"
                                               "1BAD=x\n"
                                               "H=\n"
                                               "I=esc\\ aped\\#x\n"
                                               "A=override\n"
                                               "J=a'b c'd\n" /* quotes count only at the start of a value */
                                               "K=last");
        static const char *const want[] = {
                "A=override", "B=spaced value", "C=single $quoted \\n", "D=double \"q\" $x \\n \\",
                "E=continued", "F=multiline", "H=", "I=esc aped#x", "J=a'b c'd", "K=last", NULL,
        };
        assert_strv(env, want);
}
END_TEST

START_TEST(test_env_file_merge_and_errors) {
        _cleanup_strv_free_ char **env = NULL;

        ck_assert_int_eq(strv_extend(&env, "A=1"), 0);
        ck_assert_int_eq(strv_extend(&env, "B=2"), 0);
        ck_assert_int_eq(env_file_parse("B=3\nC=4\n", 8, &env), 0);
        static const char *const want[] = { "A=1", "B=3", "C=4", NULL };
        assert_strv(env, want);

        /* Invalid UTF-8 fails the file and leaves the list alone. */
        ck_assert_int_eq(env_file_parse("D=\xff\n", 4, &env), -EINVAL);
        assert_strv(env, want);
        ck_assert_int_eq(env_file_parse("D=a\0b\n", 6, &env), -EINVAL);
        assert_strv(env, want);

        /* An empty file gives an empty list, not NULL. */
        _cleanup_strv_free_ char **empty = NULL;
        ck_assert_int_eq(env_file_parse("", 0, &empty), 0);
        ck_assert_ptr_nonnull(empty);
        ck_assert_ptr_null(empty[0]);

        ck_assert_int_eq(env_file_load("/nonexistent/env", &env), -ENOENT);
        ck_assert_int_eq(env_file_load("/", &env), -EISDIR);
}
END_TEST

START_TEST(test_env_file_load) {
        char path[] = "/tmp/test-env-util.XXXXXX";
        int fd = mkstemp(path);
        ck_assert_int_ge(fd, 0);
        static const char text[] = "OPTS=\"-a 'b c'\"\n";
        ck_assert_int_eq(write(fd, text, sizeof text - 1), (int) sizeof text - 1);
        close(fd);
        _cleanup_strv_free_ char **env = NULL;
        ck_assert_int_eq(env_file_load(path, &env), 0);
        unlink(path);
        static const char *const want[] = { "OPTS=-a 'b c'", NULL };
        assert_strv(env, want);
}
END_TEST

START_TEST(test_replace_argv) {
        char *env[] = { "OPTS=-a  'b c' \"d\\\"e\"", "EMPTY=", "X=x y", NULL };
        char *argv[] = { "/bin/cmd", "$OPTS",  "${OPTS}", "pre${X}post", "$UNSET", "${UNSET}", "$EMPTY",
                         "$$X",      "a$$b",   "$X-y",    "${X:-d}",     "$",      "${1BAD}",  "$(date)",
                         "${X",      "$X",     NULL };
        _cleanup_strv_free_ char **out = NULL;

        ck_assert_int_eq(env_replace_argv(argv, env, &out), 0);
        static const char *const want[] = {
                "/bin/cmd", "-a", "b c", "d\"e", "-a  'b c' \"d\\\"e\"", "prex ypost", "", "$X", "a$b",
                /* "$X-y" is no variable name: no word */
                "${X:-d}", /* "$" alone: no word */ "", /* "$(date)" alone: no valid name, no word */
                "${X", "x", "y", NULL,
        };
        assert_strv(out, want);
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("env-util");
        TCase *tc = tcase_create("env");

        tcase_add_test(tc, test_env_file_syntax);
        tcase_add_test(tc, test_env_file_merge_and_errors);
        tcase_add_test(tc, test_env_file_load);
        tcase_add_test(tc, test_replace_argv);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(suite());
}
