/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Value parsers (basic/parse-util) and string vectors (basic/strv). */
#include <check.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "basic/macros.h"
#include "basic/parse-util.h"
#include "basic/strv.h"
#include "check-run.h"

#define SEC(x)  ((uint64_t) (x) *USEC_PER_SEC)
#define MSEC(x) ((uint64_t) (x) *USEC_PER_MSEC)

/* ---- booleans ---- */

START_TEST(test_parse_boolean) {
        static const char *const yes[] = { "1", "yes", "y", "true", "t", "on", "YES", "True", "ON", "Y" };
        static const char *const no[] = { "0", "no", "n", "false", "f", "off", "NO", "False", "oFF", "N" };
        static const char *const bad[] = { "", "2", "yess", " yes", "yes ", "enable", "-1", "o", "nope" };
        bool b;

        for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
                b = false;
                ck_assert_msg(parse_boolean(yes[i], &b) == 0, "'%s'", yes[i]);
                ck_assert_msg(b, "'%s'", yes[i]);
        }
        for (size_t i = 0; i < ELEMENTSOF(no); i++) {
                b = true;
                ck_assert_msg(parse_boolean(no[i], &b) == 0, "'%s'", no[i]);
                ck_assert_msg(!b, "'%s'", no[i]);
        }
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                b = true;
                ck_assert_msg(parse_boolean(bad[i], &b) == -EINVAL, "'%s'", bad[i]);
                ck_assert_msg(b, "'%s' wrote *ret on failure", bad[i]); /* untouched */
        }
}
END_TEST

/* ---- time spans ---- */

static const struct {
        const char *text;
        uint64_t usec;
} good_spans[] = {
        { "5", SEC(5) },
        { "0", 0 },
        { "5s", SEC(5) },
        { "5 s", SEC(5) },
        { "5sec", SEC(5) },
        { "5seconds", SEC(5) },
        { "100ms", MSEC(100) },
        { "100msec", MSEC(100) },
        { "1min 30s", SEC(90) },
        { "1min30s", SEC(90) },
        { "1min 30", SEC(90) },
        { "  1min   30s  ", SEC(90) },
        { "1m", SEC(60) },
        { "2h", SEC(7200) },
        { "1hr", SEC(3600) },
        { "1d", SEC(86400) },
        { "1w", SEC(7 * 86400) },
        { "1M", SEC(2629800) },
        { "1y", SEC(31557600) },
        { "1.5s", MSEC(1500) },
        { ".5s", MSEC(500) },
        { "1.5min", SEC(90) },
        { "0.000001s", 1 },
        { "0.0000019s", 1 }, /* below a microsecond is dropped */
        { "1us", 1 },
        { "1usec", 1 },
        { "1\xc2\xb5s", 1 },
        { "1\xce\xbcs", 1 },
        { "1 2", SEC(3) }, /* like systemd: a second bare number is more seconds */
        { "1h 1min 1s 1ms 1us", SEC(3661) + MSEC(1) + 1 },
        { "infinity", USEC_INFINITY },
        { " infinity ", USEC_INFINITY },
        { "18446744073709s", SEC(18446744073709ULL) }, /* the largest whole number of seconds */
        { "584542y", SEC(31557600ULL * 584542) },
};

START_TEST(test_parse_sec_good) {
        for (size_t i = 0; i < ELEMENTSOF(good_spans); i++) {
                uint64_t u = 42;
                int r = parse_sec(good_spans[i].text, &u);
                ck_assert_msg(r == 0, "'%s': %d", good_spans[i].text, r);
                ck_assert_msg(u == good_spans[i].usec, "'%s': got %llu, want %llu", good_spans[i].text,
                              (unsigned long long) u, (unsigned long long) good_spans[i].usec);
        }
}
END_TEST

START_TEST(test_parse_sec_bad) {
        static const char *const einval[] = { "",    " ",    "s",     "-1",   "+5",   "1.",
                                              "1.s", "1. s", "1.2.3", "5x",   "5 x",  "infinityx",
                                              "inf", "0x10", ".",     "1,5s", "5s5x", "5 infinity" };
        static const char *const erange[] = { "18446744073709551616", "18446744073710s", "584542y 1y",
                                              "99999999999999999999999" };

        for (size_t i = 0; i < ELEMENTSOF(einval); i++) {
                uint64_t u = 42;
                int r = parse_sec(einval[i], &u);
                ck_assert_msg(r == -EINVAL, "'%s': %d", einval[i], r);
                ck_assert_msg(u == 42, "'%s' wrote *ret on failure", einval[i]);
        }
        for (size_t i = 0; i < ELEMENTSOF(erange); i++) {
                uint64_t u = 42;
                int r = parse_sec(erange[i], &u);
                ck_assert_msg(r == -ERANGE, "'%s': %d", erange[i], r);
                ck_assert_uint_eq(u, 42);
        }
}
END_TEST

START_TEST(test_format_timespan) {
        static const struct {
                uint64_t usec;
                const char *text;
        } cases[] = {
                { 0, "0" },
                { 1, "1us" },
                { MSEC(100), "100ms" },
                { MSEC(1500), "1.5s" },
                { 1250, "1.25ms" },
                { SEC(2), "2s" },
                { SEC(90), "1min 30s" },
                { SEC(90) + MSEC(500), "1min 30.5s" },
                { SEC(3600 + 1), "1h 1s" },
                { SEC(86400), "1d" },
                { USEC_INFINITY, "infinity" },
        };
        char buf[FORMAT_TIMESPAN_MAX];

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                ck_assert_str_eq(format_timespan(buf, sizeof(buf), cases[i].usec), cases[i].text);

        /* Truncation keeps a terminated prefix. */
        char small[4];
        ck_assert_str_eq(format_timespan(small, sizeof(small), SEC(90)), "1mi");

        /* The largest finite value fits the advertised buffer size. */
        format_timespan(buf, sizeof(buf), USEC_INFINITY - 1);
        ck_assert_uint_lt(strlen(buf), FORMAT_TIMESPAN_MAX - 1);
}
END_TEST

START_TEST(test_format_timespan_roundtrip) {
        uint64_t values[] = { 1,
                              999,
                              1000,
                              1001,
                              MSEC(100),
                              MSEC(1500),
                              SEC(59) + 1,
                              SEC(61) + 7,
                              SEC(3599),
                              SEC(86401),
                              SEC(1234567),
                              SEC(31557600) + 12345,
                              USEC_INFINITY - 1 };

        for (size_t i = 0; i < ELEMENTSOF(values); i++) {
                char buf[FORMAT_TIMESPAN_MAX];
                uint64_t u;

                format_timespan(buf, sizeof(buf), values[i]);
                ck_assert_msg(parse_sec(buf, &u) == 0, "'%s'", buf);
                ck_assert_msg(u == values[i], "'%s' gave %llu, want %llu", buf, (unsigned long long) u,
                              (unsigned long long) values[i]);
        }
}
END_TEST

/* ---- signals ---- */

START_TEST(test_signal_from_string) {
        static const struct {
                const char *text;
                int sig;
        } good[] = {
                { "SIGTERM", SIGTERM }, { "TERM", SIGTERM }, { "SIGKILL", SIGKILL }, { "INT", SIGINT },
                { "SIGHUP", SIGHUP },   { "USR1", SIGUSR1 }, { "SIGSYS", SIGSYS },   { "9", 9 },
                { "15", 15 },           { "1", 1 },
        };
        static const char *const bad[] = { "",         "SIG",      "sigterm", "Term",       "0",
                                           "-1",       "SIGTERM ", " TERM",   "SIG9",       "9x",
                                           "+9",       "SIGFOO",   "RTMIN-1", "RTMAX+1",    "RTMIN+",
                                           "RTMIN+-1", "RTMINX",   "65",      "99999999999" };
        int sig;

        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                sig = 0;
                ck_assert_msg(signal_from_string(good[i].text, &sig) == 0, "'%s'", good[i].text);
                ck_assert_int_eq(sig, good[i].sig);
        }
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                sig = 4242;
                int r = signal_from_string(bad[i], &sig);
                ck_assert_msg(r == -EINVAL || r == -ERANGE, "'%s': %d", bad[i], r);
                ck_assert_int_eq(sig, 4242);
        }

        /* Real-time signals relative to the libc's run-time SIGRTMIN. */
        ck_assert_int_eq(signal_from_string("RTMIN", &sig), 0);
        ck_assert_int_eq(sig, SIGRTMIN);
        ck_assert_int_eq(signal_from_string("RTMIN+3", &sig), 0);
        ck_assert_int_eq(sig, SIGRTMIN + 3);
        ck_assert_int_eq(signal_from_string("SIGRTMIN+3", &sig), 0);
        ck_assert_int_eq(sig, SIGRTMIN + 3);
        ck_assert_int_eq(signal_from_string("RTMAX", &sig), 0);
        ck_assert_int_eq(sig, SIGRTMAX);
        ck_assert_int_eq(signal_from_string("SIGRTMAX-2", &sig), 0);
        ck_assert_int_eq(sig, SIGRTMAX - 2);

        char buf[32];
        snprintf(buf, sizeof(buf), "RTMIN+%d", SIGRTMAX - SIGRTMIN + 1);
        ck_assert_int_eq(signal_from_string(buf, &sig), -ERANGE);
        snprintf(buf, sizeof(buf), "%d", SIGRTMAX);
        ck_assert_int_eq(signal_from_string(buf, &sig), 0);
        ck_assert_int_eq(sig, SIGRTMAX);
        snprintf(buf, sizeof(buf), "%d", SIGRTMAX + 1);
        ck_assert_int_eq(signal_from_string(buf, &sig), -ERANGE);
}
END_TEST

START_TEST(test_signal_to_string) {
        ck_assert_str_eq(signal_to_string(SIGTERM), "SIGTERM");
        ck_assert_str_eq(signal_to_string(SIGKILL), "SIGKILL");
        ck_assert_str_eq(signal_to_string(SIGRTMIN), "SIGRTMIN");
        ck_assert_str_eq(signal_to_string(SIGRTMIN + 3), "SIGRTMIN+3");
        ck_assert_ptr_null(signal_to_string(0));
        ck_assert_ptr_null(signal_to_string(-1));
        ck_assert_ptr_null(signal_to_string(SIGRTMAX + 1));

        /* Every name we give out parses back to its number. */
        for (int s = 1; s <= SIGRTMAX; s++) {
                const char *n = signal_to_string(s);
                int back;

                if (!n)
                        continue;
                ck_assert_msg(signal_from_string(n, &back) == 0, "%s", n);
                ck_assert_msg(back == s, "%s: %d != %d", n, back, s);
                ck_assert_msg(signal_from_string(n + 3, &back) == 0 && back == s, "%s without SIG", n);
        }
}
END_TEST

/* ---- numbers and ids ---- */

START_TEST(test_parse_uid) {
        static const char *const bad[] = { "",      "-1",   "+1",         " 1",
                                           "1 ",    "0x10", "4294967295", "4294967296",
                                           "65535", "1e3",  "abc",        "99999999999999999999999",
                                           "1000\n" };
        uid_t u;
        gid_t g;

        ck_assert_int_eq(parse_uid("0", &u), 0);
        ck_assert_uint_eq(u, 0);
        ck_assert_int_eq(parse_uid("1000", &u), 0);
        ck_assert_uint_eq(u, 1000);
        ck_assert_int_eq(parse_uid("4294967294", &u), 0);
        ck_assert_uint_eq(u, 4294967294U);
        ck_assert_int_eq(parse_uid("65534", &u), 0);
        ck_assert_uint_eq(u, 65534);
        ck_assert_int_eq(parse_gid("100", &g), 0);
        ck_assert_uint_eq(g, 100);

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                u = 7;
                g = 7;
                ck_assert_msg(parse_uid(bad[i], &u) < 0, "uid '%s'", bad[i]);
                ck_assert_msg(parse_gid(bad[i], &g) < 0, "gid '%s'", bad[i]);
                ck_assert_uint_eq(u, 7);
                ck_assert_uint_eq(g, 7);
        }
        ck_assert_int_eq(parse_uid("4294967295", &u), -ERANGE);
        ck_assert_int_eq(parse_uid("65535", &u), -ERANGE);
}
END_TEST

START_TEST(test_safe_ato) {
        uint64_t v;
        int i;

        ck_assert_int_eq(safe_atou64("0", &v), 0);
        ck_assert_uint_eq(v, 0);
        ck_assert_int_eq(safe_atou64("18446744073709551615", &v), 0);
        ck_assert(v == UINT64_MAX);
        ck_assert_int_eq(safe_atou64("18446744073709551616", &v), -ERANGE);
        ck_assert_int_eq(safe_atou64("", &v), -EINVAL);
        ck_assert_int_eq(safe_atou64("-1", &v), -EINVAL);
        ck_assert_int_eq(safe_atou64("+1", &v), -EINVAL);
        ck_assert_int_eq(safe_atou64(" 1", &v), -EINVAL);
        ck_assert_int_eq(safe_atou64("0x1", &v), -EINVAL);

        ck_assert_int_eq(safe_atoi("-2147483648", &i), 0);
        ck_assert_int_eq(i, INT32_MIN);
        ck_assert_int_eq(safe_atoi("2147483647", &i), 0);
        ck_assert_int_eq(i, INT32_MAX);
        ck_assert_int_eq(safe_atoi("-17", &i), 0);
        ck_assert_int_eq(i, -17);
        ck_assert_int_eq(safe_atoi("2147483648", &i), -ERANGE);
        ck_assert_int_eq(safe_atoi("-2147483649", &i), -ERANGE);
        ck_assert_int_eq(safe_atoi("-", &i), -EINVAL);
        ck_assert_int_eq(safe_atoi("--1", &i), -EINVAL);
        ck_assert_int_eq(i, -17);
}
END_TEST

/* ---- strv ---- */

START_TEST(test_strv) {
        _cleanup_strv_free_ char **l = NULL, **c = NULL;

        ck_assert_uint_eq(strv_length(NULL), 0);
        ck_assert(!strv_contains(NULL, "a"));
        ck_assert_int_eq(strv_extend(&l, "a"), 0);
        ck_assert_int_eq(strv_consume(&l, strdup("b")), 0);
        ck_assert_uint_eq(strv_length(l), 2);
        ck_assert_str_eq(l[0], "a");
        ck_assert_str_eq(l[1], "b");
        ck_assert_ptr_null(l[2]);
        ck_assert(strv_contains(l, "b"));
        ck_assert(!strv_contains(l, "c"));
        ck_assert_int_eq(strv_consume(&l, NULL), -ENOMEM); /* a failed strdup() passed on */
        ck_assert_uint_eq(strv_length(l), 2);

        c = strv_copy(l);
        ck_assert_ptr_nonnull(c);
        ck_assert_uint_eq(strv_length(c), 2);
        ck_assert_ptr_ne(c[0], l[0]);
        ck_assert_str_eq(c[1], "b");

        char **empty = strv_copy(NULL);
        ck_assert_ptr_nonnull(empty);
        ck_assert_ptr_null(empty[0]);
        strv_free(empty);
        ck_assert_ptr_null(strv_free(NULL));
}
END_TEST

START_TEST(test_strv_env_replace) {
        _cleanup_strv_free_ char **e = NULL;

        ck_assert_int_eq(strv_env_replace_consume(&e, strdup("A=1")), 0);
        ck_assert_int_eq(strv_env_replace_consume(&e, strdup("AB=2")), 0);
        ck_assert_int_eq(strv_env_replace_consume(&e, strdup("A=3")), 0);
        ck_assert_int_eq(strv_env_replace_consume(&e, strdup("B=")), 0);
        ck_assert_int_eq(strv_env_replace_consume(&e, strdup("NOEQUALS")), -EINVAL);
        ck_assert_uint_eq(strv_length(e), 3);
        ck_assert_str_eq(e[0], "A=3"); /* replaced in place, not appended */
        ck_assert_str_eq(e[1], "AB=2");
        ck_assert_str_eq(e[2], "B=");
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("parse-util");
        TCase *tc = tcase_create("parse");
        tcase_add_test(tc, test_parse_boolean);
        tcase_add_test(tc, test_parse_sec_good);
        tcase_add_test(tc, test_parse_sec_bad);
        tcase_add_test(tc, test_format_timespan);
        tcase_add_test(tc, test_format_timespan_roundtrip);
        tcase_add_test(tc, test_signal_from_string);
        tcase_add_test(tc, test_signal_to_string);
        tcase_add_test(tc, test_parse_uid);
        tcase_add_test(tc, test_safe_ato);
        suite_add_tcase(s, tc);

        tc = tcase_create("strv");
        tcase_add_test(tc, test_strv);
        tcase_add_test(tc, test_strv_env_replace);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(suite());
}
