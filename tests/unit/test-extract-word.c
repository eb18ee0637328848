/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* systemd-style word splitting (basic/extract-word) for ExecStart= and Environment=. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "basic/extract-word.h"
#include "basic/macros.h"
#include "basic/strv.h"
#include "check-run.h"

#define WORDS_MAX 64U

/* Splits s and compares with the NULL-terminated expected words. */
static void check_exec(const char *s, ...) {
        _cleanup_strv_free_ char **argv = NULL;
        va_list ap;
        size_t i = 0;
        int r;

        r = split_exec_line(s, WORDS_MAX, &argv);
        ck_assert_msg(r == 0, "split_exec_line(%s): %d", s, r);
        ck_assert_ptr_nonnull(argv);

        va_start(ap, s);
        for (const char *w; (w = va_arg(ap, const char *)); i++) {
                ck_assert_msg(argv[i], "split_exec_line(%s): only %zu words, want '%s' next", s, i, w);
                ck_assert_msg(streq(argv[i], w), "split_exec_line(%s): word %zu is '%s', want '%s'", s, i,
                              argv[i], w);
        }
        va_end(ap);
        ck_assert_msg(!argv[i], "split_exec_line(%s): extra word '%s'", s, argv[i]);
}

static void check_exec_fails(const char *s, int error) {
        char **argv = (char **) 0x1; /* must stay untouched */
        int r = split_exec_line(s, WORDS_MAX, &argv);
        ck_assert_msg(r == error, "split_exec_line(%s): %d, want %d", s, r, error);
        ck_assert_ptr_eq(argv, (char **) 0x1);
}

START_TEST(test_brief_examples) {
        /* ExecStart=/bin/sh -c "echo \"hi\"; exit 1" */
        check_exec("/bin/sh -c \"echo \\\"hi\\\"; exit 1\"", "/bin/sh", "-c", "echo \"hi\"; exit 1", NULL);

        /* Environment="A=1 2" B=3 'C=x y' */
        _cleanup_strv_free_ char **env = NULL;
        ck_assert_int_eq(split_env_assignments("\"A=1 2\" B=3 'C=x y'", WORDS_MAX, &env), 0);
        ck_assert_uint_eq(strv_length(env), 3);
        ck_assert_str_eq(env[0], "A=1 2");
        ck_assert_str_eq(env[1], "B=3");
        ck_assert_str_eq(env[2], "C=x y");
}
END_TEST

START_TEST(test_whitespace_and_quotes) {
        check_exec("", NULL);
        check_exec("   \t  ", NULL);
        check_exec("a", "a", NULL);
        check_exec("  a \t b\r\n c  ", "a", "b", "c", NULL);
        check_exec("'a b' \"c d\"", "a b", "c d", NULL);
        /* A quote may start and end mid-word. */
        check_exec("a\"b c\"d'e f'g", "ab cde fg", NULL);
        check_exec("--opt=\"x y\"", "--opt=x y", NULL);
        /* Empty quotes are an empty word, not no word. */
        check_exec("\"\" ''", "", "", NULL);
        check_exec("a \"\" b", "a", "", "b", NULL);
        /* Quotes of the other kind are plain characters inside. */
        check_exec("\"it's\" 'say \"hi\"'", "it's", "say \"hi\"", NULL);
        /* No comments, no shell. */
        check_exec("a # b && c | d > e", "a", "#", "b", "&&", "c", "|", "d", ">", "e", NULL);
}
END_TEST

START_TEST(test_escapes) {
        check_exec("\\n\\t\\\\\\\"\\'\\a\\b\\f\\r\\v", "\n\t\\\"'\a\b\f\r\v", NULL);
        check_exec("a\\sb", "a b", NULL);
        /* Only the escapes systemd knows: "\ " is no escaped space (that is "\s"). */
        check_exec_fails("a\\ b", -EINVAL);
}
END_TEST

START_TEST(test_escapes_numeric) {
        check_exec("\\x41\\x62 \\101\\142", "Ab", "Ab", NULL);
        check_exec("\\u00e9 \\U0001F600", "\xc3\xa9", "\xf0\x9f\x98\x80", NULL);
        check_exec("\\xff", "\xff", NULL); /* a raw byte, not UTF-8 */
        check_exec("\\377", "\xff", NULL);
        /* Escapes work inside both kinds of quotes (systemd, unlike sh). */
        check_exec("'a\\tb' \"c\\nd\"", "a\tb", "c\nd", NULL);
        check_exec("\"\\\"\" '\\''", "\"", "'", NULL);
        /* "\;" is a literal semicolon. */
        check_exec("/bin/find . -exec echo {} \\;", "/bin/find", ".", "-exec", "echo", "{}", ";", NULL);
        /* An escaped backslash before a quote does not escape the quote. */
        check_exec("\"a\\\\\" b", "a\\", "b", NULL);
}
END_TEST

START_TEST(test_escape_errors) {
        static const char *const bad[] = {
                "\"unterminated", "'unterminated", "a\"b",  "trailing\\", "\\q",   "\\x4",
                "\\xZZ",          "\\x00",         "\\000", "\\0",        "\\08",  "\\u0000",
                "\\ud800",        "\\U00110000",   "\\u12", "\\U0001F60", "\\777", "\"a\\\"",
                "'\\'",           "\\uFFFE",       "a \\",  "\"\\x00\"",
        };

        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                check_exec_fails(bad[i], -EINVAL);
}
END_TEST

START_TEST(test_semicolon) {
        /* systemd separates command lines with a bare ";"; svd runs one command. */
        check_exec_fails("/bin/true ; /bin/false", -EOPNOTSUPP);
        check_exec_fails("/bin/true ;", -EOPNOTSUPP);
        check_exec_fails(";", -EOPNOTSUPP);
        /* Quoted, escaped or part of a word, it is an ordinary character. */
        check_exec("/bin/echo \";\" ';' \\; a; ;b", "/bin/echo", ";", ";", ";", "a;", ";b", NULL);
}
END_TEST

START_TEST(test_max_words) {
        _cleanup_strv_free_ char **argv = NULL;
        char **fail = NULL;

        ck_assert_int_eq(split_exec_line("a b c", 3, &argv), 0);
        ck_assert_uint_eq(strv_length(argv), 3);
        ck_assert_int_eq(split_exec_line("a b c d", 3, &fail), -E2BIG);
        ck_assert_ptr_null(fail);
        ck_assert_int_eq(split_env_assignments("A=1 B=2", 1, &fail), -E2BIG);
        ck_assert_ptr_null(fail);
}
END_TEST

START_TEST(test_large_input) {
        /* One 64 KiB word and 4096 words: linear work, exact results. */
        size_t n = 65536;
        _cleanup_free_ char *big = malloc(n + 1);
        _cleanup_strv_free_ char **argv = NULL;

        ck_assert_ptr_nonnull(big);
        memset(big, 'x', n);
        big[n] = '\0';
        ck_assert_int_eq(split_exec_line(big, 1, &argv), 0);
        ck_assert_uint_eq(strlen(argv[0]), n);
        argv = strv_free(argv);

        for (size_t i = 0; i < n; i += 2) {
                big[i] = 'w';
                big[i + 1] = ' ';
        }
        ck_assert_int_eq(split_exec_line(big, n / 2, &argv), 0);
        ck_assert_uint_eq(strv_length(argv), n / 2);
        ck_assert_str_eq(argv[n / 2 - 1], "w");
        argv = strv_free(argv);
        ck_assert_int_eq(split_exec_line(big, n / 2 - 1, &argv), -E2BIG);
}
END_TEST

START_TEST(test_extract_first_word) {
        const char *p = "  one 'two three'\tfour  ";
        char *w = (char *) 0x1;

        ck_assert_int_eq(extract_first_word(&p, &w), 1);
        ck_assert_str_eq(w, "one");
        free(w);
        ck_assert_int_eq(extract_first_word(&p, &w), 1);
        ck_assert_str_eq(w, "two three");
        free(w);
        ck_assert_int_eq(extract_first_word(&p, &w), 1);
        ck_assert_str_eq(w, "four");
        free(w);
        ck_assert_int_eq(extract_first_word(&p, &w), 0);
        ck_assert_ptr_null(w);
        ck_assert_str_eq(p, "");
        /* Stays at the end. */
        ck_assert_int_eq(extract_first_word(&p, &w), 0);

        p = "ok \"bad";
        ck_assert_int_eq(extract_first_word(&p, &w), 1);
        ck_assert_str_eq(w, "ok");
        free(w);
        ck_assert_int_eq(extract_first_word(&p, &w), -EINVAL);
}
END_TEST

START_TEST(test_env_assignments) {
        static const char *const bad[] = { "A",     "=x",    "1A=x",  "A-B=1", "'A B=1'",
                                           "A=1 B", "A.B=1", "\"=\"", "A=\"x", "é=1" };
        _cleanup_strv_free_ char **e = NULL;

        ck_assert_int_eq(
                split_env_assignments("_A= A1=x A==b C=\"\" D=\\x41 E='$HOME' F=a\\tb", WORDS_MAX, &e), 0);
        ck_assert_uint_eq(strv_length(e), 7);
        ck_assert_str_eq(e[0], "_A=");
        ck_assert_str_eq(e[1], "A1=x");
        ck_assert_str_eq(e[2], "A==b");
        ck_assert_str_eq(e[3], "C=");
        ck_assert_str_eq(e[4], "D=A");
        ck_assert_str_eq(e[5], "E=$HOME");
        ck_assert_str_eq(e[6], "F=a\tb");
        e = strv_free(e);

        /* Duplicates are kept in order; the caller decides that the last wins. */
        ck_assert_int_eq(split_env_assignments("A=1 A=2", WORDS_MAX, &e), 0);
        ck_assert_uint_eq(strv_length(e), 2);
        e = strv_free(e);

        ck_assert_int_eq(split_env_assignments("", WORDS_MAX, &e), 0);
        ck_assert_ptr_nonnull(e);
        ck_assert_ptr_null(e[0]);
        e = strv_free(e);

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                char **f = NULL;
                ck_assert_msg(split_env_assignments(bad[i], WORDS_MAX, &f) == -EINVAL, "'%s'", bad[i]);
                ck_assert_ptr_null(f);
        }
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("extract-word");
        TCase *tc = tcase_create("split");
        tcase_add_test(tc, test_brief_examples);
        tcase_add_test(tc, test_whitespace_and_quotes);
        tcase_add_test(tc, test_escapes);
        tcase_add_test(tc, test_escapes_numeric);
        tcase_add_test(tc, test_escape_errors);
        tcase_add_test(tc, test_semicolon);
        tcase_add_test(tc, test_max_words);
        tcase_add_test(tc, test_large_input);
        tcase_add_test(tc, test_extract_first_word);
        tcase_add_test(tc, test_env_assignments);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(suite());
}
