/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit file loading (unit-load.c, unit-keys.c, unit-parse.c): every key, systemd's syntax where common
 * ini parsers differ, exact "FILE:LINE: reason" messages, limits, the table of keys, and the example
 * units in units/. */
#include <check.h>
#include <inttypes.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "basic/macros.h"
#include "basic/strv.h"
#include "unit.h"
#include "check-run.h"

#define PATH "test.service"
#define NAME "test"

static char *mfree_test(char *p) {
        free(p);
        return NULL;
}

static void collect_warning(const char *message, void *userdata) {
        char ***l = userdata;
        ck_assert_int_eq(strv_extend(l, message), 0);
}

/* Loads text, which must succeed; warnings go to *warnings when given, else there must be none. */
static Unit *load_ok_n(const char *text, size_t len, char ***warnings) {
        _cleanup_free_ char *error = NULL;
        _cleanup_strv_free_ char **own = NULL;
        Unit *u = NULL;
        int r;

        r = unit_load_string(text, len, PATH, NAME, NULL, collect_warning, warnings ?: &own, &u, &error);
        ck_assert_msg(r == 0, "load failed with %d: %s", r, error ?: "(no message)");
        ck_assert_ptr_nonnull(u);
        ck_assert_ptr_null(error);
        ck_assert_msg(!own, "unexpected warning: %s", own ? own[0] : "");
        return u;
}

static Unit *load_ok(const char *text, char ***warnings) {
        return load_ok_n(text, strlen(text), warnings);
}

/* Loads text, which must fail with error; returns the message. */
static char *load_fail_n(const char *text, size_t len, int error) {
        char *message = NULL;
        Unit *u = NULL;
        int r;

        r = unit_load_string(text, len, PATH, NAME, NULL, NULL, NULL, &u, &message);
        ck_assert_msg(r == error, "got %d, want %d (%s)", r, error, message ?: "(no message)");
        ck_assert_ptr_null(u);
        ck_assert_ptr_nonnull(message);
        return message;
}

static char *load_fail(const char *text, int error) {
        return load_fail_n(text, strlen(text), error);
}

static void assert_fails_with(const char *text, int error, const char *message) {
        _cleanup_free_ char *m = load_fail(text, error);
        ck_assert_str_eq(m, message);
}

/* The message must start with prefix (the reason after it is free text) and go on. */
static void assert_fails_prefix(const char *text, int error, const char *prefix) {
        _cleanup_free_ char *m = load_fail(text, error);
        ck_assert_msg(strneq(m, prefix, strlen(prefix)), "message '%s' does not start with '%s'", m, prefix);
        ck_assert_msg(strlen(m) > strlen(prefix), "message '%s' has no reason", m);
}

/* ---- keys ---- */

START_TEST(test_minimal_defaults) {
        _cleanup_strv_free_ char **w = NULL;
        _cleanup_(unit_freep) Unit *u = load_ok("[Service]\nExecStart=/bin/true\n", &w);

        ck_assert_ptr_null(w);
        ck_assert_str_eq(u->name, NAME);
        ck_assert_str_eq(u->path, PATH);
        ck_assert_ptr_null(u->description);
        ck_assert_uint_eq(strv_length(u->exec_start), 1);
        ck_assert_str_eq(u->exec_start[0], "/bin/true");
        ck_assert_ptr_null(u->working_directory);
        ck_assert(!u->working_directory_home);
        ck_assert(!u->working_directory_missing_ok);
        ck_assert_ptr_null(u->environment);
        ck_assert_ptr_null(u->user);
        ck_assert_ptr_null(u->group);
        ck_assert_int_eq(u->restart, RESTART_NO);
        ck_assert_uint_eq(u->restart_usec, 100 * USEC_PER_MSEC);
        ck_assert_int_eq(u->kill_signal, SIGTERM);
        ck_assert_uint_eq(u->timeout_stop_usec, 90 * USEC_PER_SEC);
        ck_assert(!u->no_new_privileges);
        ck_assert(!u->wanted_by_default);
}
END_TEST

START_TEST(test_every_key) {
        static const char text[] = "[Unit]\n"
                                   "Description=Every key\n"
                                   "[Service]\n"
                                   "Type=exec\n"
                                   "ExecStart=/usr/bin/env -i \"A B\" 'c'\n"
                                   "WorkingDirectory=-/srv/www\n"
                                   "Environment=FOO=1 \"BAR=two words\"\n"
                                   "User=www-data\n"
                                   "Group=1234\n"
                                   "Restart=always\n"
                                   "RestartSec=1min 30s\n"
                                   "KillSignal=SIGINT\n"
                                   "TimeoutStopSec=infinity\n"
                                   "NoNewPrivileges=yes\n"
                                   "[Install]\n"
                                   "WantedBy=default.target\n";
        _cleanup_strv_free_ char **w = NULL;
        _cleanup_(unit_freep) Unit *u = load_ok(text, &w);

        ck_assert_ptr_null(w);
        ck_assert_str_eq(u->description, "Every key");
        ck_assert_uint_eq(strv_length(u->exec_start), 4);
        ck_assert_str_eq(u->exec_start[0], "/usr/bin/env");
        ck_assert_str_eq(u->exec_start[1], "-i");
        ck_assert_str_eq(u->exec_start[2], "A B");
        ck_assert_str_eq(u->exec_start[3], "c");
        ck_assert_str_eq(u->working_directory, "/srv/www");
        ck_assert(u->working_directory_missing_ok);
        ck_assert(!u->working_directory_home);
        ck_assert_uint_eq(strv_length(u->environment), 2);
        ck_assert_str_eq(u->environment[0], "FOO=1");
        ck_assert_str_eq(u->environment[1], "BAR=two words");
        ck_assert_str_eq(u->user, "www-data");
        ck_assert_str_eq(u->group, "1234");
        ck_assert_int_eq(u->restart, RESTART_ALWAYS);
        ck_assert_uint_eq(u->restart_usec, 90 * USEC_PER_SEC);
        ck_assert_int_eq(u->kill_signal, SIGINT);
        ck_assert(u->timeout_stop_usec == USEC_INFINITY);
        ck_assert(u->no_new_privileges);
        ck_assert(u->wanted_by_default);
}
END_TEST

START_TEST(test_key_variants) {
        _cleanup_(unit_freep) Unit *u = NULL;

        u = load_ok("[Service]\nExecStart=sleep 1\nType=simple\nRestart=on-failure\nRestartSec=250ms\n"
                    "KillSignal=9\nTimeoutStopSec=0\nNoNewPrivileges=off\nWorkingDirectory=~\nUser=0\n",
                    NULL);
        /* A plain command name is kept as written; the manager looks it up in $PATH. */
        ck_assert_str_eq(u->exec_start[0], "sleep");
        ck_assert_int_eq(u->restart, RESTART_ON_FAILURE);
        ck_assert_uint_eq(u->restart_usec, 250 * USEC_PER_MSEC);
        ck_assert_int_eq(u->kill_signal, SIGKILL);
        /* TimeoutStopSec=0 disables the timeout, as in systemd. */
        ck_assert(u->timeout_stop_usec == USEC_INFINITY);
        ck_assert(!u->no_new_privileges);
        ck_assert(u->working_directory_home);
        ck_assert_ptr_null(u->working_directory);
        ck_assert(!u->working_directory_missing_ok);
        ck_assert_str_eq(u->user, "0");
        u = unit_free(u);

        u = load_ok("[Service]\nExecStart=/x\nWorkingDirectory=-~\nKillSignal=RTMIN+2\nTimeoutStopSec=5\n"
                    "RestartSec=0\nGroup=staff\n",
                    NULL);
        ck_assert(u->working_directory_home);
        ck_assert(u->working_directory_missing_ok);
        ck_assert_int_eq(u->kill_signal, SIGRTMIN + 2);
        ck_assert_uint_eq(u->timeout_stop_usec, 5 * USEC_PER_SEC);
        ck_assert_uint_eq(u->restart_usec, 0);
        ck_assert_str_eq(u->group, "staff");
}
END_TEST

START_TEST(test_exec_start_quoting) {
        _cleanup_(unit_freep) Unit *u = NULL;

        /* The brief's example. */
        u = load_ok("[Service]\nExecStart=/bin/sh -c \"echo \\\"hi\\\"; exit 1\"\n", NULL);
        ck_assert_uint_eq(strv_length(u->exec_start), 3);
        ck_assert_str_eq(u->exec_start[0], "/bin/sh");
        ck_assert_str_eq(u->exec_start[1], "-c");
        ck_assert_str_eq(u->exec_start[2], "echo \"hi\"; exit 1");
        u = unit_free(u);

        /* inih would end the value at " ;" (an inline comment); systemd has no inline comments. */
        u = load_ok("[Service]\nExecStart=/bin/sh -c 'echo a ; echo b' ;not-a-comment\n", NULL);
        ck_assert_uint_eq(strv_length(u->exec_start), 4);
        ck_assert_str_eq(u->exec_start[2], "echo a ; echo b");
        ck_assert_str_eq(u->exec_start[3], ";not-a-comment");
        u = unit_free(u);
}
END_TEST

START_TEST(test_exec_start_longer_than_inih_buffer) {
        /* inih's line buffer is 200 bytes and it cuts longer lines silently. */
        char arg[1001], text[1200];
        _cleanup_(unit_freep) Unit *u = NULL;

        memset(arg, 'a', sizeof(arg) - 1);
        arg[sizeof(arg) - 1] = '\0';
        snprintf(text, sizeof(text), "[Service]\nExecStart=/bin/echo %s end\nRestart=always\n", arg);
        u = load_ok(text, NULL);
        ck_assert_uint_eq(strv_length(u->exec_start), 3);
        ck_assert_str_eq(u->exec_start[1], arg);
        ck_assert_str_eq(u->exec_start[2], "end");
        ck_assert_int_eq(u->restart, RESTART_ALWAYS); /* and the next line is still a line of its own */
}
END_TEST

/* ---- syntax ---- */

START_TEST(test_comments_and_whitespace) {
        static const char text[] = "# comment\n"
                                   "; comment\n"
                                   "   # indented comment\n"
                                   "\n"
                                   "  [Unit]  \n"
                                   "\t Description =  spaced out  \n"
                                   "[Service]\n"
                                   "ExecStart=/bin/true\n"
                                   "    Restart=always\n" /* inih: a continuation of ExecStart= */
                                   "#Restart=no\n"
                                   ";Restart=no\n";
        _cleanup_strv_free_ char **w = NULL;
        _cleanup_(unit_freep) Unit *u = load_ok(text, &w);

        ck_assert_ptr_null(w);
        ck_assert_str_eq(u->description, "spaced out");
        ck_assert_int_eq(u->restart, RESTART_ALWAYS);
        ck_assert_uint_eq(strv_length(u->exec_start), 1);
        ck_assert_str_eq(u->exec_start[0], "/bin/true");
        /* "#" is an ordinary word here, and not a valid assignment. */
        unit_free(TAKE_PTR(u));
        assert_fails_prefix("[Service]\nExecStart=/x\nEnvironment=A=1 # c\n", -EINVAL,
                            PATH ":3: Invalid value 'A=1 # c' for Environment=: ");
}
END_TEST

START_TEST(test_crlf_and_bom) {
        _cleanup_(unit_freep) Unit *u = NULL;

        u = load_ok("\xEF\xBB\xBF[Unit]\r\nDescription=dos\r\n[Service]\r\nExecStart=/bin/true x\r\n", NULL);
        ck_assert_str_eq(u->description, "dos");
        ck_assert_str_eq(u->exec_start[1], "x");
}
END_TEST

START_TEST(test_continuation) {
        _cleanup_(unit_freep) Unit *u = NULL;

        /* A trailing backslash joins the next line; comment lines in between are dropped. */
        u = load_ok("[Service]\n"
                    "ExecStart=/bin/echo a \\\n"
                    "# dropped\n"
                    "    b \\\n"
                    "c\n"
                    "Environment=A=x\\\\\n" /* an escaped backslash does not continue */
                    "Restart=always\n",
                    NULL);
        ck_assert_uint_eq(strv_length(u->exec_start), 4);
        ck_assert_str_eq(u->exec_start[1], "a");
        ck_assert_str_eq(u->exec_start[2], "b");
        ck_assert_str_eq(u->exec_start[3], "c");
        ck_assert_str_eq(u->environment[0], "A=x\\");
        ck_assert_int_eq(u->restart, RESTART_ALWAYS);
        u = unit_free(u);

        /* At the end of the file the last continued line still counts. */
        u = load_ok("[Service]\nExecStart=/bin/echo a \\", NULL);
        ck_assert_uint_eq(strv_length(u->exec_start), 2);
        u = unit_free(u);

        /* Errors name the first line of a continued line. */
        assert_fails_prefix("[Service]\nExecStart=/x\nRestartSec=1 \\\n2 \\\nbad\n", -EINVAL,
                            PATH ":3: Invalid value '1  2  bad' for RestartSec=: ");
}
END_TEST

START_TEST(test_syntax_errors) {
        assert_fails_with("ExecStart=/bin/true\n[Service]\n", -EINVAL,
                          PATH ":1: Assignment 'ExecStart=' outside of a section");
        assert_fails_with("# c\n\nDescription=x\n", -EINVAL,
                          PATH ":3: Assignment 'Description=' outside of a section");
        assert_fails_with("[Service]\nExecStart=/bin/true\nRestart\n", -EINVAL,
                          PATH ":3: Missing '=' in 'Restart'");
        /* inih would take ':' as a separator. */
        assert_fails_with("[Service]\nExecStart:/bin/true\n", -EINVAL,
                          PATH ":2: Missing '=' in 'ExecStart:/bin/true'");
        /* An indented line is no continuation. */
        assert_fails_with("[Unit]\nDescription=a\n  b\n", -EINVAL, PATH ":3: Missing '=' in 'b'");
        assert_fails_with("[Service\nExecStart=/bin/true\n", -EINVAL,
                          PATH ":1: Invalid section header '[Service'");
        assert_fails_with("[Service] junk\n", -EINVAL, PATH ":1: Invalid section header '[Service] junk'");
        assert_fails_with("[Service] ; c\n", -EINVAL, PATH ":1: Invalid section header '[Service] ; c'");
        assert_fails_with("[]\n", -EINVAL, PATH ":1: Invalid section header '[]'");
        assert_fails_with("[A B]\n", -EINVAL, PATH ":1: Invalid section header '[A B]'");
        assert_fails_with("[Service]\nExec Start=/bin/true\n", -EINVAL,
                          PATH ":2: Invalid key name 'Exec Start'");
        assert_fails_with("[Service]\n=/bin/true\n", -EINVAL, PATH ":2: Invalid key name ''");
        assert_fails_with("[Service]\nExec:Start=/bin/true\n", -EINVAL,
                          PATH ":2: Invalid key name 'Exec:Start'");
}
END_TEST

START_TEST(test_syntax_limits) {
        char text[200];

        /* A section name inih could not hold whole. */
        snprintf(text, sizeof(text), "[%s]\n", "S1234567890123456789012345678901234567890123456789");
        _cleanup_free_ char *m = load_fail(text, -EINVAL);
        ck_assert(strneq(m, PATH ":1: Invalid section header", strlen(PATH ":1: Invalid section header")));

        snprintf(text, sizeof(text), "[Service]\n%s=1\n",
                 "K12345678901234567890123456789012345678901234567890123456789012345");
        assert_fails_prefix(text, -EINVAL, PATH ":2: Invalid key name 'K1234");
}
END_TEST

START_TEST(test_nul_byte) {
        static const char text[] = "[Service]\nExecStart=/bin/true\nDescription=a\0b\n";
        _cleanup_free_ char *m = load_fail_n(text, sizeof(text) - 1, -EINVAL);
        ck_assert_str_eq(m, PATH ":3: Line contains a NUL byte");
}
END_TEST

/* ---- repeated keys ---- */

START_TEST(test_environment_accumulates_and_resets) {
        _cleanup_(unit_freep) Unit *u = NULL;

        u = load_ok("[Service]\n"
                    "ExecStart=/bin/true\n"
                    "Environment=\"A=1 2\" B=3 'C=x y'\n"
                    "Environment=A=override D=\n",
                    NULL);
        ck_assert_uint_eq(strv_length(u->environment), 4);
        ck_assert_str_eq(u->environment[0], "A=override"); /* the last one wins, in place */
        ck_assert_str_eq(u->environment[1], "B=3");
        ck_assert_str_eq(u->environment[2], "C=x y");
        ck_assert_str_eq(u->environment[3], "D=");
        u = unit_free(u);

        /* An empty assignment drops all earlier ones. */
        u = load_ok("[Service]\nExecStart=/bin/true\nEnvironment=A=1\nEnvironment=\nEnvironment=B=2\n",
                    NULL);
        ck_assert_uint_eq(strv_length(u->environment), 1);
        ck_assert_str_eq(u->environment[0], "B=2");
        u = unit_free(u);

        u = load_ok("[Service]\nExecStart=/bin/true\nEnvironment=A=1\nEnvironment=   \n", NULL);
        ck_assert_ptr_null(u->environment);
}
END_TEST

START_TEST(test_single_valued_last_wins_and_reset) {
        _cleanup_(unit_freep) Unit *u = NULL;

        u = load_ok("[Unit]\nDescription=one\nDescription=two\n"
                    "[Service]\nExecStart=/bin/true\nRestartSec=5\nRestartSec=7\nUser=a\nUser=b\n"
                    "Restart=always\nRestart=no\nKillSignal=INT\nKillSignal=HUP\n"
                    "WorkingDirectory=/a\nWorkingDirectory=-/b\n",
                    NULL);
        ck_assert_str_eq(u->description, "two");
        ck_assert_uint_eq(u->restart_usec, 7 * USEC_PER_SEC);
        ck_assert_str_eq(u->user, "b");
        ck_assert_int_eq(u->restart, RESTART_NO);
        ck_assert_int_eq(u->kill_signal, SIGHUP);
        ck_assert_str_eq(u->working_directory, "/b");
        ck_assert(u->working_directory_missing_ok);
        u = unit_free(u);

        /* An empty assignment resets to the default. */
        u = load_ok(
                "[Unit]\nDescription=one\nDescription=\n"
                "[Service]\nExecStart=/bin/true\nRestartSec=5\nRestartSec=\nUser=a\nUser=\nGroup=g\nGroup=\n"
                "Restart=always\nRestart=\nKillSignal=INT\nKillSignal=\nTimeoutStopSec=1\nTimeoutStopSec=\n"
                "NoNewPrivileges=yes\nNoNewPrivileges=\nWorkingDirectory=-~\nWorkingDirectory=\n"
                "Type=exec\nType=\n"
                "[Install]\nWantedBy=default.target\nWantedBy=\n",
                NULL);
        ck_assert_ptr_null(u->description);
        ck_assert_uint_eq(u->restart_usec, 100 * USEC_PER_MSEC);
        ck_assert_ptr_null(u->user);
        ck_assert_ptr_null(u->group);
        ck_assert_int_eq(u->restart, RESTART_NO);
        ck_assert_int_eq(u->kill_signal, SIGTERM);
        ck_assert_uint_eq(u->timeout_stop_usec, 90 * USEC_PER_SEC);
        ck_assert(!u->no_new_privileges);
        ck_assert(!u->working_directory_home);
        ck_assert(!u->working_directory_missing_ok);
        ck_assert(!u->wanted_by_default);
}
END_TEST

START_TEST(test_exec_start_duplicate_and_reset) {
        assert_fails_with("[Service]\nExecStart=/bin/true\n\nExecStart=/bin/false\n", -EINVAL,
                          PATH ":4: Several ExecStart= (the first one is on line 2) are allowed with Type=oneshot only");

        /* An empty ExecStart= clears the earlier one, as in systemd. */
        _cleanup_(unit_freep) Unit *u =
                load_ok("[Service]\nExecStart=/bin/true\nExecStart=\nExecStart=/bin/false x\n", NULL);
        ck_assert_uint_eq(strv_length(u->exec_start), 2);
        ck_assert_str_eq(u->exec_start[0], "/bin/false");

        assert_fails_with("[Service]\nExecStart=/bin/true\nExecStart=\n", -EINVAL,
                          PATH ": Missing ExecStart= in [Service] (or ExecStop= or SuccessAction=)");
}
END_TEST

START_TEST(test_missing_exec_start) {
        static const char *const texts[] = {
                "",
                "\n\n",
                "# only a comment\n; and another\n",
                "[Unit]\nDescription=x\n",
                "[Service]\n",
                "[Service]\nRestart=always\n",
                "[Foo]\nExecStart=/bin/true\n", /* in an unknown section it does not count */
                "[Unit]\nExecStart=/bin/true\n",
        };

        for (size_t i = 0; i < ELEMENTSOF(texts); i++) {
                _cleanup_free_ char *m = load_fail(texts[i], -EINVAL);
                ck_assert_msg(streq(m, PATH ": Missing ExecStart= in [Service] (or ExecStop= or SuccessAction=)"), "text %zu: %s", i, m);
        }
}
END_TEST

/* ---- bad values ---- */

START_TEST(test_bad_values) {
        static const struct {
                const char *line;
                int error;
                const char *prefix;
        } cases[] = {
                { "RestartSec=xyz", -EINVAL, "Invalid value 'xyz' for RestartSec=: " },
                { "RestartSec=-1", -EINVAL, "Invalid value '-1' for RestartSec=: " },
                { "RestartSec=infinity", -ERANGE, "Invalid value 'infinity' for RestartSec=: " },
                { "TimeoutStopSec=5 parsecs", -EINVAL, "Invalid value '5 parsecs' for TimeoutStopSec=: " },
                { "Restart=sometimes", -EINVAL,
                  "Invalid value 'sometimes' for Restart=: expected one of: no, on-success, on-failure, "
                  "on-abnormal, on-watchdog, on-abort, always" },
                { "KillSignal=SIGFOO", -EINVAL, "Invalid value 'SIGFOO' for KillSignal=: " },
                { "KillSignal=0", -ERANGE, "Invalid value '0' for KillSignal=: " },
                { "KillSignal=sigterm", -EINVAL, "Invalid value 'sigterm' for KillSignal=: " },
                { "NoNewPrivileges=maybe", -EINVAL, "Invalid value 'maybe' for NoNewPrivileges=: " },
                { "Type=notify-reload", -EOPNOTSUPP,
                  "Invalid value 'notify-reload' for Type=: not supported (supported: simple, exec, notify, "
                  "oneshot, forking, idle, dbus)" },
                { "Type=bogus", -EINVAL, "Invalid value 'bogus' for Type=: expected simple, exec, notify, "
                  "oneshot, forking, idle or dbus" },
                { "TimeoutStartSec=soon", -EINVAL, "Invalid value 'soon' for TimeoutStartSec=: " },
                { "WatchdogSec=-1", -EINVAL, "Invalid value '-1' for WatchdogSec=: " },
                { "RemainAfterExit=maybe", -EINVAL, "Invalid value 'maybe' for RemainAfterExit=: " },
                { "RestartSteps=3601", -ERANGE, "Invalid value '3601' for RestartSteps=: " },
                { "RestartMaxDelaySec=x", -EINVAL, "Invalid value 'x' for RestartMaxDelaySec=: " },
                { "StartLimitBurst=-1", -ERANGE, "Invalid value '-1' for StartLimitBurst=: " },
                { "StartLimitIntervalSec=1 fortnight", -EINVAL,
                  "Invalid value '1 fortnight' for StartLimitIntervalSec=: " },

                { "User=a:b", -EINVAL, "Invalid value 'a:b' for User=: not a valid user name or id" },
                { "User=65535", -EINVAL, "Invalid value '65535' for User=: " },
                { "User=4294967295", -EINVAL, "Invalid value '4294967295' for User=: " },
                { "User=-1", -EINVAL, "Invalid value '-1' for User=: " },
                { "User=..", -EINVAL, "Invalid value '..' for User=: " },
                { "User=a/b", -EINVAL, "Invalid value 'a/b' for User=: " },
                { "User=\xff", -EINVAL, "Invalid value '\\xff' for User=: not valid UTF-8" },
                { "Group=/x", -EINVAL, "Invalid value '/x' for Group=: not a valid group name or id" },
                { "WorkingDirectory=relative", -EINVAL, "Invalid value 'relative' for WorkingDirectory=: " },
                { "WorkingDirectory=-relative", -EINVAL,
                  "Invalid value '-relative' for WorkingDirectory=: " },
                { "WorkingDirectory=-", -EINVAL, "Invalid value '-' for WorkingDirectory=: " },
                { "WorkingDirectory=~/x", -EINVAL, "Invalid value '~/x' for WorkingDirectory=: " },
                { "Environment=1A=x", -EINVAL, "Invalid value '1A=x' for Environment=: " },
                { "Environment=NOEQUALS", -EINVAL, "Invalid value 'NOEQUALS' for Environment=: " },
                { "Environment=\"A=1", -EINVAL, "Invalid value '\"A=1' for Environment=: " },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char text[512], prefix[512];

                /* The bad line is line 3, after a valid ExecStart=. */
                snprintf(text, sizeof(text), "[Service]\nExecStart=/bin/true\n%s\nDescription=after\n",
                         cases[i].line);
                snprintf(prefix, sizeof(prefix), PATH ":3: %s", cases[i].prefix);
                _cleanup_free_ char *m = load_fail(text, cases[i].error);
                ck_assert_msg(strneq(m, prefix, strlen(prefix)), "'%s': message '%s', want '%s...'",
                              cases[i].line, m, prefix);
        }
}
END_TEST

START_TEST(test_bad_exec_start) {
        static const struct {
                const char *value;
                int error;
                const char *reason;
        } cases[] = {
                { "bin/true", -EINVAL, "the command must be an absolute path or a plain file name" },
                { "./true", -EINVAL, "the command must be an absolute path or a plain file name" },
                { "\"\"", -EINVAL, "the command must be an absolute path or a plain file name" },
                { "..", -EINVAL, "the command must be an absolute path or a plain file name" },
                { "|/bin/true", -EOPNOTSUPP, "the prefix '|' is not supported" },
                { "--/bin/true", -EINVAL, "a prefix is repeated" },
                { "+!/bin/true", -EINVAL, "the prefixes '+', '!' and '!!' exclude each other" },
                { "!!!/bin/true", -EINVAL, "the prefixes '+', '!' and '!!' exclude each other" },
                { "@/bin/true", -EINVAL, "'@' needs argv[0] after the command" },
                { "-", -EINVAL, "the command must be an absolute path or a plain file name" },
                { "/bin/echo \"unterminated", -EINVAL, "unbalanced quotes or invalid escape sequence" },
                { "/bin/echo \\q", -EINVAL, "unbalanced quotes or invalid escape sequence" },
                { "/bin/true ; /bin/false", -EOPNOTSUPP,
                  "several commands separated by ';' are not supported; write '\\;' for a literal ';'" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char text[512], want[512];

                snprintf(text, sizeof(text), "[Unit]\nDescription=x\n[Service]\nExecStart=%s\n",
                         cases[i].value);
                snprintf(want, sizeof(want), PATH ":4: Invalid value '%s' for ExecStart=: %s",
                         cases[i].value, cases[i].reason);
                assert_fails_with(text, cases[i].error, want);
        }
}
END_TEST

START_TEST(test_specifiers_and_variables) {
        _cleanup_(unit_freep) Unit *u = NULL;

        /* "%%" is systemd's escape for '%'. Variables in ExecStart= ("$$", "$NAME", "${NAME}") stay as
         * written: they are substituted when the command runs (env-util.h). */
        u = load_ok("[Unit]\nDescription=100%%\n[Service]\n"
                    "ExecStart=/bin/sh -c 'date +%%T; echo $$ $HOME $(id -u)' $$x $OPTS ${A}b\n"
                    "Environment=\"FMT=%%s\" PRICE=$5\nWorkingDirectory=/srv/100%%\n",
                    NULL);
        ck_assert_str_eq(u->description, "100%");
        ck_assert_str_eq(u->exec_start[2], "date +%T; echo $$ $HOME $(id -u)");
        ck_assert_str_eq(u->exec_start[3], "$$x");
        ck_assert_str_eq(u->exec_start[4], "$OPTS");
        ck_assert_str_eq(u->exec_start[5], "${A}b");
        ck_assert_str_eq(u->environment[0], "FMT=%s");
        ck_assert_str_eq(u->environment[1], "PRICE=$5");
        ck_assert_str_eq(u->working_directory, "/srv/100%");
        u = unit_free(u);

        /* Specifiers of the unit's name, resolved at load time. */
        {
                _cleanup_free_ char *error = NULL;
                static const char text[] = "[Unit]\nDescription=%n %N %p %i %I %f %j\n[Service]\n"
                                           "ExecStart=/bin/echo %i x%Iy\nEnvironment=U=%U\n";
                ck_assert_int_eq(unit_load_string(text, strlen(text), PATH, "getty-x@tty\\x2d1-a", NULL, NULL, NULL,
                                                  &u, &error),
                                 0);
                ck_assert_str_eq(u->description,
                                 "getty-x@tty\\x2d1-a.service getty-x@tty\\x2d1-a getty-x tty\\x2d1-a tty-1/a "
                                 "/tty-1/a x");
                ck_assert_str_eq(u->exec_start[1], "tty\\x2d1-a");
                ck_assert_str_eq(u->exec_start[2], "xtty-1/ay");
                char want[64];
                snprintf(want, sizeof want, "U=%u", (unsigned) getuid());
                ck_assert_str_eq(u->environment[0], want);
                u = unit_free(u);
        }
        /* User=%i (systemd's user@.service): the template loads without a user, each instance checks its
         * own; an instance whose name is no user name fails. */
        {
                static const char text[] = "[Service]\nExecStart=/x\nUser=%i\n";
                _cleanup_free_ char *error = NULL;
                ck_assert_int_eq(unit_load_string(text, strlen(text), PATH, "user@", NULL, NULL, NULL, &u, &error), 0);
                ck_assert_ptr_null(u->user);
                u = unit_free(u);
                ck_assert_int_eq(unit_load_string(text, strlen(text), PATH, "user@1000", NULL, NULL, NULL, &u, &error), 0);
                ck_assert_str_eq(u->user, "1000");
                u = unit_free(u);
                ck_assert_int_lt(unit_load_string(text, strlen(text), PATH, "user@a:b", NULL, NULL, NULL, &u, &error), 0);
                ck_assert_ptr_nonnull(strstr(error, "not a valid user name or id"));
                _cleanup_free_ char *error2 = NULL;
                ck_assert_int_lt(unit_load_string(text, strlen(text), PATH, "plain", NULL, NULL, NULL, &u, &error2), 0);
        }
        /* A name without instance: %i is empty, %p the whole name. */
        u = load_ok("[Unit]\nDescription=[%i] %p %n\n[Service]\nExecStart=/x\n", NULL);
        ck_assert_str_eq(u->description, "[] " NAME " " NAME ".service");
        u = unit_free(u);

        assert_fails_with(
                "[Service]\nExecStart=/bin/echo %q\n", -EINVAL,
                PATH ":2: Invalid value '/bin/echo %q' for ExecStart=: specifier '%q' is not supported; "
                     "write '%%' for a literal '%'");
        assert_fails_with("[Unit]\nDescription=50%\n", -EINVAL,
                          PATH
                          ":2: Invalid value '50%' for Description=: a lone '%' at the end; write '%%' for "
                          "a literal '%'");
        assert_fails_prefix("[Service]\nExecStart=/x\nEnvironment=A=%y\n", -EINVAL,
                            PATH
                            ":3: Invalid value 'A=%y' for Environment=: specifier '%y' is not supported");
        assert_fails_prefix("[Service]\nExecStart=/x\n[Install]\nWantedBy=%q.target\n", -EINVAL,
                            PATH
                            ":4: Invalid value '%q.target' for WantedBy=: specifier '%q' is not supported");

        /* The machine's: %v the kernel release, %H the host name. */
        struct utsname un;
        char host[256] = {}, want_vh[600];
        ck_assert_int_eq(uname(&un), 0);
        ck_assert_int_eq(gethostname(host, sizeof(host) - 1), 0);
        snprintf(want_vh, sizeof(want_vh), "%s %s", un.release, host);
        u = load_ok("[Unit]\nDescription=%v %H\n[Service]\nExecStart=/x\n", NULL);
        ck_assert_str_eq(u->description, want_vh);
        u = unit_free(u);
}
END_TEST

START_TEST(test_exec_prefixes) {
        static const struct {
                const char *value;
                unsigned flags;
                const char *argv0, *arg1;
        } cases[] = {
                { "-/bin/true x", EXEC_IGNORE_FAILURE, NULL, "x" },
                { "@/bin/true name x", EXEC_ARGV0, "name", "x" },
                { "-@/bin/true name x", EXEC_IGNORE_FAILURE | EXEC_ARGV0, "name", "x" },
                { "@-/bin/true name x", EXEC_IGNORE_FAILURE | EXEC_ARGV0, "name", "x" },
                { ":/bin/true $X", EXEC_NO_ENV_EXPAND, NULL, "$X" },
                { "+/bin/true x", EXEC_PRIVILEGED, NULL, "x" },
                { "!/bin/true x", EXEC_NO_SETUID, NULL, "x" },
                { "!!/bin/true x", EXEC_AMBIENT_FALLBACK, NULL, "x" },
                { "-!!/bin/true x", EXEC_IGNORE_FAILURE | EXEC_AMBIENT_FALLBACK, NULL, "x" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char text[256];

                snprintf(text, sizeof text, "[Service]\nExecStart=%s\n", cases[i].value);
                _cleanup_(unit_freep) Unit *u = load_ok(text, NULL);
                ck_assert_str_eq(u->exec_start[0], "/bin/true");
                ck_assert_str_eq(u->exec_start[1], cases[i].arg1);
                ck_assert_ptr_null(u->exec_start[2]);
                ck_assert_uint_eq(u->exec_start_flags, cases[i].flags);
                if (cases[i].argv0)
                        ck_assert_str_eq(u->exec_argv0, cases[i].argv0);
                else
                        ck_assert_ptr_null(u->exec_argv0);
        }

        /* An empty assignment resets the prefixes too. */
        _cleanup_(unit_freep) Unit *u = load_ok("[Service]\nExecStart=-@/bin/a b\nExecStart=\nExecStart=/bin/c\n",
                                                NULL);
        ck_assert_uint_eq(u->exec_start_flags, 0);
        ck_assert_ptr_null(u->exec_argv0);
}
END_TEST

START_TEST(test_log_output_mapped) {
        static const char *const mapped[] = { "journal+console", "kmsg", "kmsg+console", "syslog", "syslog+console" };

        for (size_t i = 0; i < ELEMENTSOF(mapped); i++) {
                char text[256];
                _cleanup_strv_free_ char **warnings = NULL;

                snprintf(text, sizeof text, "[Service]\nExecStart=/x\nStandardOutput=%s\nStandardError=%s\n",
                         mapped[i], mapped[i]);
                _cleanup_(unit_freep) Unit *u = load_ok(text, &warnings);
                ck_assert_int_eq(u->std_output, LOG_OUTPUT_LOG);
                ck_assert_int_eq(u->std_error, LOG_OUTPUT_LOG);
                ck_assert_uint_eq(strv_length(warnings), 2);
                ck_assert_ptr_nonnull(strstr(warnings[0], "the service's log (svctl logs) gets it"));
        }
        assert_fails_prefix("[Service]\nExecStart=/x\nStandardOutput=fd:foo\n", -EOPNOTSUPP,
                            PATH ":3: Invalid value 'fd:foo' for StandardOutput=: not supported");
}
END_TEST

/* systemd.exec(5): StandardInput=socket makes the socket stdout too (StandardError= follows stdout),
 * unless StandardOutput= says otherwise. */
START_TEST(test_std_socket) {
        _cleanup_(unit_freep) Unit *a = load_ok("[Service]\nExecStart=/x\nStandardInput=socket\n", NULL);
        ck_assert_int_eq(a->std_input, EXEC_INPUT_SOCKET);
        ck_assert_int_eq(a->std_output, LOG_OUTPUT_SOCKET);
        ck_assert_int_eq(a->std_error, LOG_OUTPUT_INHERIT);
        _cleanup_(unit_freep) Unit *b =
                load_ok("[Service]\nExecStart=/x\nStandardInput=socket\nStandardOutput=null\nStandardError=socket\n",
                        NULL);
        ck_assert_int_eq(b->std_output, LOG_OUTPUT_NULL);
        ck_assert_int_eq(b->std_error, LOG_OUTPUT_SOCKET);
        _cleanup_(unit_freep) Unit *c =
                load_ok("[Service]\nExecStart=/x\nStandardOutput=null\nStandardOutput=\nStandardInput=socket\n", NULL);
        ck_assert_int_eq(c->std_output, LOG_OUTPUT_SOCKET);
        _cleanup_(unit_freep) Unit *d = load_ok("[Service]\nExecStart=/x\nStandardOutput=socket\n", NULL);
        ck_assert_int_eq(d->std_input, EXEC_INPUT_NULL);
        ck_assert_int_eq(d->std_output, LOG_OUTPUT_SOCKET);
        assert_fails_prefix("[Service]\nExecStart=/x\nStandardInput=fd:x\n", -EOPNOTSUPP,
                            PATH ":3: Invalid value 'fd:x' for StandardInput=: not supported");
}
END_TEST

START_TEST(test_environment_file_key) {
        _cleanup_(unit_freep) Unit *u = NULL;

        u = load_ok("[Service]\nExecStart=/x\nEnvironmentFile=/etc/default/%p -/etc/default/b\n"
                    "EnvironmentFile=-/c\n",
                    NULL);
        ck_assert_str_eq(u->environment_files[0], "/etc/default/" NAME);
        ck_assert_str_eq(u->environment_files[1], "-/etc/default/b");
        ck_assert_str_eq(u->environment_files[2], "-/c");
        ck_assert_ptr_null(u->environment_files[3]);
        u = unit_free(u);

        u = load_ok("[Service]\nExecStart=/x\nEnvironmentFile=/a\nEnvironmentFile=\n", NULL);
        ck_assert_ptr_null(u->environment_files);
        u = unit_free(u);

        assert_fails_prefix("[Service]\nExecStart=/x\nEnvironmentFile=relative\n", -EINVAL,
                            PATH ":3: Invalid value 'relative' for EnvironmentFile=: expected absolute paths");
}
END_TEST

START_TEST(test_user_group_names) {
        static const char *const good[] = { "root", "www-data", "a.b",        "user@domain", "a b", "_x",
                                            "0",    "1000",     "4294967294", "Ünïcödé",     "x$" };

        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                char text[256];

                snprintf(text, sizeof(text), "[Service]\nExecStart=/x\nUser=%s\nGroup=%s\n", good[i],
                         good[i]);
                _cleanup_(unit_freep) Unit *u = load_ok(text, NULL);
                ck_assert_str_eq(u->user, good[i]);
                ck_assert_str_eq(u->group, good[i]);
        }

        /* Longer than LOGIN_NAME_MAX allows. */
        char text[400], name[300];
        memset(name, 'u', 256);
        name[256] = '\0';
        snprintf(text, sizeof(text), "[Service]\nExecStart=/x\nUser=%s\n", name);
        _cleanup_free_ char *m = load_fail(text, -EINVAL);
        ck_assert(strstr(m, "not a valid user name or id"));
}
END_TEST

/* ---- warnings ---- */

START_TEST(test_unknown_keys_and_sections) {
        static const char text[] = "[Unit]\n"
                                   "Description=x\n"
                                   "After=network.target\n"
                                   "[Service]\n"
                                   "ExecStart=/bin/true\n"
                                   "Foo=bar\n"
                                   "X-Vendor=ignored silently\n"
                                   "[Foo]\n"
                                   "Bar=1\n"
                                   "Baz=2\n"
                                   "[X-Extension]\n"
                                   "Anything=goes\n"
                                   "[Install]\n"
                                   "Alias=other.service\n"
                                   "WantedBy=multi-user.target\n";
        _cleanup_strv_free_ char **w = NULL;
        _cleanup_(unit_freep) Unit *u = load_ok(text, &w);

        ck_assert_uint_eq(strv_length(w), 3);
        ck_assert_str_eq(w[0], PATH ":3: After=network.target: svd has only services, ignoring.");
        ck_assert_str_eq(w[1], PATH ":6: Unknown key 'Foo=' in [Service], ignoring.");
        /* One warning for the section, none for its keys. */
        ck_assert_str_eq(w[2], PATH ":8: Unknown section 'Foo', ignoring.");
        ck_assert(u->wanted_by_default);
        /* Alias= names the unit (without ".service"). */
        ck_assert_ptr_nonnull(u->aliases);
        ck_assert_str_eq(u->aliases[0], "other");
}
END_TEST

START_TEST(test_warning_flood) {
        /* A file of nothing but unknown keys produces a bounded number of warnings. */
        size_t n = 5000, len = 0;
        _cleanup_free_ char *text = malloc(32 + n * 16);
        _cleanup_strv_free_ char **w = NULL;

        ck_assert_ptr_nonnull(text);
        len += (size_t) sprintf(text + len, "[Service]\nExecStart=/x\n");
        for (size_t i = 0; i < n; i++)
                len += (size_t) sprintf(text + len, "Unknown%zu=1\n", i);

        _cleanup_(unit_freep) _unused_ Unit *u = load_ok_n(text, len, &w);
        ck_assert_uint_lt(strv_length(w), 100);
        ck_assert_str_eq(w[0], PATH ":3: Unknown key 'Unknown0=' in [Service], ignoring.");
        ck_assert_str_eq(w[strv_length(w) - 1], PATH ": Too many warnings, suppressing the rest.");
}
END_TEST

START_TEST(test_message_quoting) {
        char text[600], value[300];

        /* Control characters are escaped... */
        assert_fails_prefix("[Service]\nExecStart=/x\nRestartSec=\x1b[31mred\x7f\n", -EINVAL,
                            PATH ":3: Invalid value '\\x1b[31mred\\x7f' for RestartSec=: ");

        /* ...and long values cut. */
        memset(value, 'v', sizeof(value) - 1);
        value[sizeof(value) - 1] = '\0';
        snprintf(text, sizeof(text), "[Service]\nExecStart=/x\nRestartSec=%s\n", value);
        _cleanup_free_ char *m = load_fail(text, -EINVAL);
        ck_assert_ptr_nonnull(strstr(m, "vvv...' for RestartSec=: "));
        ck_assert_uint_lt(strlen(m), 250);
}
END_TEST

START_TEST(test_wanted_by) {
        _cleanup_strv_free_ char **w = NULL;
        _cleanup_(unit_freep) Unit *u = NULL;

        u = load_ok("[Service]\nExecStart=/x\n[Install]\nWantedBy=multi-user.target\n", NULL);
        ck_assert(u->wanted_by_default);
        u = unit_free(u);

        u = load_ok("[Service]\nExecStart=/x\n[Install]\nWantedBy=timers.target default.target\n", &w);
        ck_assert(u->wanted_by_default);
        ck_assert_uint_eq(strv_length(w), 1);
        ck_assert_str_eq(w[0], PATH ":4: Target 'timers.target' in WantedBy= is not supported (only "
                                    "default.target and multi-user.target), ignoring.");
        u = unit_free(u);
        w = strv_free(w);

        u = load_ok("[Service]\nExecStart=/x\n[Install]\nWantedBy=graphical.target\n", &w);
        ck_assert(!u->wanted_by_default);
        ck_assert_uint_eq(strv_length(w), 1);
        /* Kept as written, for `svctl enable`: which directories it links into, whether it refuses. */
        ck_assert_uint_eq(strv_length(u->wanted_by), 1);
        ck_assert_str_eq(u->wanted_by[0], "graphical.target");
        u = unit_free(u);

        /* Several lines accumulate, without repeats; an empty one resets. */
        u = load_ok("[Service]\nExecStart=/x\n[Install]\nWantedBy=default.target\nWantedBy=\n", NULL);
        ck_assert(!u->wanted_by_default);
        ck_assert_ptr_null(u->wanted_by);
        u = unit_free(u);
        u = load_ok("[Service]\nExecStart=/x\n[Install]\nWantedBy=default.target\nWantedBy=multi-user.target "
                    "default.target\n",
                    NULL);
        ck_assert_uint_eq(strv_length(u->wanted_by), 2);
        ck_assert_str_eq(u->wanted_by[0], "default.target");
        ck_assert_str_eq(u->wanted_by[1], "multi-user.target");
        ck_assert_ptr_null(u->required_by);
        u = unit_free(u);

        /* RequiredBy= is a list of its own (svctl enable links into T.requires/); an empty WantedBy=
         * leaves it alone. */
        u = load_ok("[Service]\nExecStart=/x\n[Install]\nRequiredBy=multi-user.target\nWantedBy=\n", NULL);
        ck_assert(u->wanted_by_default);
        ck_assert_ptr_null(u->wanted_by);
        ck_assert_uint_eq(strv_length(u->required_by), 1);
        ck_assert_str_eq(u->required_by[0], "multi-user.target");
}
END_TEST

START_TEST(test_also) {
        _cleanup_strv_free_ char **w = NULL;
        _cleanup_(unit_freep) Unit *u = NULL;

        /* Also=: service names without ".service", as the dependency keys take them; a socket unit
         * as NAME.socket; a unit of another type is svd's to ignore, with a warning. */
        u = load_ok("[Service]\nExecStart=/x\n[Install]\nAlso=a.service b\nAlso=a c.socket d.timer\n", &w);
        ck_assert_uint_eq(strv_length(u->also), 3);
        ck_assert_str_eq(u->also[0], "a");
        ck_assert_str_eq(u->also[1], "b");
        ck_assert_str_eq(u->also[2], "c.socket");
        ck_assert(!u->wanted_by_default);
        ck_assert_uint_eq(strv_length(w), 1);
        ck_assert_str_eq(w[0], PATH ":5: Also=d.timer: svd has only services, ignoring.");
        u = unit_free(u);

        u = load_ok("[Service]\nExecStart=/x\n[Install]\nAlso=a\nAlso=\n", NULL);
        ck_assert_ptr_null(u->also);
}
END_TEST

/* ---- limits ---- */

START_TEST(test_file_too_large) {
        size_t n = UNIT_FILE_SIZE_MAX + 1;
        _cleanup_free_ char *text = malloc(n);
        char want[128];

        ck_assert_ptr_nonnull(text);
        memset(text, '#', n);
        snprintf(want, sizeof(want), PATH ": File too large (%zu bytes, the limit is %u)", n,
                 UNIT_FILE_SIZE_MAX);
        _cleanup_free_ char *m = load_fail_n(text, n, -EFBIG);
        ck_assert_str_eq(m, want);
}
END_TEST

START_TEST(test_file_at_size_limit) {
        /* Exactly UNIT_FILE_SIZE_MAX bytes, mostly comments, loads. */
        static const char head[] = "[Service]\nExecStart=/bin/true\n";
        size_t n = UNIT_FILE_SIZE_MAX;
        _cleanup_free_ char *text = malloc(n);

        ck_assert_ptr_nonnull(text);
        memcpy(text, head, strlen(head));
        for (size_t i = strlen(head); i < n; i += 64) {
                size_t k = n - i < 64 ? n - i : 64;
                memset(text + i, ' ', k);
                text[i] = '#';
                text[i + k - 1] = '\n';
        }
        _cleanup_(unit_freep) Unit *u = load_ok_n(text, n, NULL);
        ck_assert_str_eq(u->exec_start[0], "/bin/true");
}
END_TEST

START_TEST(test_long_lines) {
#define HEAD "[Service]\nExecStart=/x\n[Unit]\n"
        size_t n = UNIT_LINE_MAX + 64;
        _cleanup_free_ char *text = malloc(n + 64);
        size_t len;

        ck_assert_ptr_nonnull(text);

        /* A line of exactly UNIT_LINE_MAX bytes is fine. */
        len = (size_t) sprintf(text, HEAD "Description=");
        memset(text + len, 'd', UNIT_LINE_MAX - strlen("Description="));
        len += UNIT_LINE_MAX - strlen("Description=");
        text[len++] = '\n';
        _cleanup_(unit_freep) Unit *u = load_ok_n(text, len, NULL);
        ck_assert_uint_eq(strlen(u->description), UNIT_LINE_MAX - strlen("Description="));

        /* One more byte is not, even in a comment. */
        char want[128];
        snprintf(want, sizeof(want), PATH ":4: Line too long (more than %u bytes)", UNIT_LINE_MAX);
        text[len - 1] = 'd';
        text[len++] = '\n';
        _cleanup_free_ char *m = load_fail_n(text, len, -ENOBUFS);
        ck_assert_str_eq(m, want);

        text[strlen(HEAD)] = '#';
        _cleanup_free_ char *m2 = load_fail_n(text, len, -ENOBUFS);
        ck_assert_str_eq(m2, want);

        /* Nor is a continued line that adds up to more. */
        len = (size_t) sprintf(text, HEAD "Description=");
        for (size_t i = 0; i < 3; i++) {
                memset(text + len, 'c', UNIT_LINE_MAX / 3);
                len += UNIT_LINE_MAX / 3;
                len += (size_t) sprintf(text + len, "\\\n");
        }
        _cleanup_free_ char *m3 = load_fail_n(text, len, -ENOBUFS);
        ck_assert_str_eq(m3, want);
#undef HEAD
}
END_TEST

START_TEST(test_argv_and_env_limits) {
        /* Room for UNIT_ENV_MAX + 1 lines "Environment=A=NNNN". */
        _cleanup_free_ char *text = malloc(64 + (UNIT_ENV_MAX + 1) * 32);
        size_t len;

        ck_assert_ptr_nonnull(text);

        len = (size_t) sprintf(text, "[Service]\nExecStart=/x");
        for (size_t i = 1; i < UNIT_ARGV_MAX; i++)
                len += (size_t) sprintf(text + len, " a");
        text[len++] = '\n';
        _cleanup_(unit_freep) Unit *u = load_ok_n(text, len, NULL);
        ck_assert_uint_eq(strv_length(u->exec_start), UNIT_ARGV_MAX);

        text[len - 1] = ' ';
        text[len++] = 'a';
        text[len++] = '\n';
        _cleanup_free_ char *m = load_fail_n(text, len, -E2BIG);
        ck_assert(strneq(m, PATH ":2: Invalid value '/x a a a", strlen(PATH ":2: Invalid value '/x a a a")));
        ck_assert_ptr_nonnull(strstr(m, "' for ExecStart=: more than 4096 words"));

        /* Environment= assignments count over the whole file, replaced ones included. */
        len = (size_t) sprintf(text, "[Service]\nExecStart=/x\n");
        for (size_t i = 0; i < UNIT_ENV_MAX; i++)
                len += (size_t) sprintf(text + len, "Environment=A=%zu\n", i);
        unit_free(TAKE_PTR(u));
        u = load_ok_n(text, len, NULL);
        ck_assert_uint_eq(strv_length(u->environment), 1);
        ck_assert_str_eq(u->environment[0], "A=4095");
        len += (size_t) sprintf(text + len, "Environment=B=1\n");
        _cleanup_free_ char *m2 = load_fail_n(text, len, -E2BIG);
        char want[128];
        snprintf(want, sizeof(want),
                 PATH ":%u: Invalid value 'B=1' for Environment=: more than %u assignments in this file",
                 UNIT_ENV_MAX + 3, UNIT_ENV_MAX);
        ck_assert_str_eq(m2, want);
}
END_TEST

/* ---- files ---- */

static char *make_temp_dir(void) {
        const char *tmp = getenv("TMPDIR");
        char *d;

        ck_assert_int_ge(asprintf(&d, "%s/test-unit-XXXXXX", tmp ?: "/tmp"), 0);
        ck_assert_ptr_nonnull(mkdtemp(d));
        return d;
}

static void write_file(const char *path, const char *text, size_t len) {
        FILE *f = fopen(path, "we");
        ck_assert_ptr_nonnull(f);
        ck_assert_uint_eq(fwrite(text, 1, len, f), len);
        ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_load_file) {
        _cleanup_free_ char *dir = make_temp_dir(), *ok = NULL, *missing = NULL, *fifo = NULL, *big = NULL,
                            *m = NULL;
        _cleanup_strv_free_ char **w = NULL;
        Unit *u = NULL;

        ck_assert_int_ge(asprintf(&ok, "%s/web.service", dir), 0);
        write_file(ok, "[Service]\nExecStart=/bin/true\nFoo=1\n",
                   strlen("[Service]\nExecStart=/bin/true\nFoo=1\n"));
        ck_assert_int_eq(unit_load_file(ok, "web", NULL, collect_warning, &w, &u, &m), 0);
        ck_assert_str_eq(u->name, "web");
        ck_assert_str_eq(u->path, ok);
        ck_assert_uint_eq(strv_length(w), 1);
        ck_assert_ptr_nonnull(strstr(w[0], "/web.service:3: Unknown key 'Foo=' in [Service], ignoring."));
        u = unit_free(u);

        /* Without ret_error the error code still comes back. */
        ck_assert_int_eq(unit_load_file(ok, "not valid/", NULL, NULL, NULL, &u, NULL), -EINVAL);

        ck_assert_int_ge(asprintf(&missing, "%s/missing.service", dir), 0);
        ck_assert_int_eq(unit_load_file(missing, "missing", NULL, NULL, NULL, &u, &m), -ENOENT);
        ck_assert_ptr_nonnull(m);
        ck_assert_ptr_nonnull(
                strstr(m, "/missing.service: Failed to open unit file: No such file or directory"));
        m = mfree_test(m);

        ck_assert_int_eq(unit_load_file(dir, "dir", NULL, NULL, NULL, &u, &m), -EISDIR);
        m = mfree_test(m);

        /* A FIFO must not block the loader. */
        ck_assert_int_ge(asprintf(&fifo, "%s/fifo.service", dir), 0);
        ck_assert_int_eq(mkfifo(fifo, 0600), 0);
        ck_assert_int_eq(unit_load_file(fifo, "fifo", NULL, NULL, NULL, &u, &m), -EBADFD);
        ck_assert_ptr_nonnull(strstr(m, "/fifo.service: Not a regular file"));
        m = mfree_test(m);

        ck_assert_int_ge(asprintf(&big, "%s/big.service", dir), 0);
        FILE *f = fopen(big, "we");
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(ftruncate(fileno(f), UNIT_FILE_SIZE_MAX + 1), 0);
        ck_assert_int_eq(fclose(f), 0);
        ck_assert_int_eq(unit_load_file(big, "big", NULL, NULL, NULL, &u, &m), -EFBIG);
        ck_assert_ptr_nonnull(strstr(m, "/big.service: File too large"));
        m = mfree_test(m);
        ck_assert_ptr_null(u);

        unlink(ok);
        unlink(fifo);
        unlink(big);
        rmdir(dir);
}
END_TEST

/* ---- names ---- */

START_TEST(test_unit_names) {
        static const char *const good[] = { "web", "a",     "a.b",           "foo@bar",
                                            "a:b", "x-y_z", "dev-sda\\x2d1", "0" };
        static const char *const bad[] = { "",  ".hidden", "-x",  "a/b", "a b", "a\nb", "a\tb",
                                           "é", "a*",      "a;b", "a$b", "..",  "/" };
        char name[UNIT_NAME_MAX + 2];

        for (size_t i = 0; i < ELEMENTSOF(good); i++)
                ck_assert_msg(unit_name_is_valid(good[i]), "'%s'", good[i]);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                ck_assert_msg(!unit_name_is_valid(bad[i]), "'%s'", bad[i]);
        ck_assert(!unit_name_is_valid(NULL));
        /* The reason a bad name is told with. */
        static const struct {
                const char *name, *reason;
        } reasons[] = {
                { "", "the name is empty" },
                { ".hidden", "the name starts with '.'" },
                { "-x", "the name starts with '-'" },
                { "a b", "the name contains whitespace" },
                { "a\tb", "the name contains whitespace" },
                { "a\nb", "the name contains a control character" },
                { "\xc3\xbcn\xc3\xaf\xe2\x82\xac", "the name contains a non-ASCII character" },
                { "a;b", "the name contains a character other than [A-Za-z0-9:_.@\\-]" },
        };
        for (size_t i = 0; i < ELEMENTSOF(reasons); i++)
                ck_assert_str_eq(unit_name_invalid_reason(reasons[i].name), reasons[i].reason);
        ck_assert_ptr_null(unit_name_invalid_reason("web@8080"));

        memset(name, 'n', UNIT_NAME_MAX);
        name[UNIT_NAME_MAX] = '\0';
        ck_assert(unit_name_is_valid(name));
        name[UNIT_NAME_MAX] = 'n';
        name[UNIT_NAME_MAX + 1] = '\0';
        ck_assert(!unit_name_is_valid(name));
        ck_assert_str_eq(unit_name_invalid_reason(name), "the name is longer than 255 bytes");

        /* A bad name is refused before the text is looked at. */
        char *m = NULL;
        Unit *u = NULL;
        ck_assert_int_eq(unit_load_string("[Service]\nExecStart=/x\n", 23, PATH, "a/b", NULL, NULL, NULL, &u, &m),
                         -EINVAL);
        ck_assert_str_eq(m, PATH ": Invalid unit name 'a/b'");
        free(m);
}
END_TEST

START_TEST(test_unit_name_from_filename) {
        static const char *const bad[] = { "web",          "web.socket",  ".service",    "web.service.bak",
                                           ".web.service", "a b.service", "web.Service", "web.service/" };
        char *n = NULL;

        ck_assert_int_eq(unit_name_from_filename("web.service", &n), 0);
        ck_assert_str_eq(n, "web");
        free(n);
        ck_assert_int_eq(unit_name_from_filename("a.b.service", &n), 0);
        ck_assert_str_eq(n, "a.b");
        free(n);
        ck_assert_int_eq(unit_name_from_filename("web.service.service", &n), 0);
        ck_assert_str_eq(n, "web.service");
        free(n);

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                n = NULL;
                ck_assert_msg(unit_name_from_filename(bad[i], &n) == -EINVAL, "'%s'", bad[i]);
                ck_assert_ptr_null(n);
        }
}
END_TEST

START_TEST(test_restart_policy_strings) {
        for (RestartPolicy p = 0; p < _RESTART_POLICY_MAX; p++) {
                const char *s = restart_policy_to_string(p);
                ck_assert_ptr_nonnull(s);
                ck_assert_int_eq(restart_policy_from_string(s), p);
        }
        ck_assert_str_eq(restart_policy_to_string(RESTART_ON_FAILURE), "on-failure");
        ck_assert_ptr_null(restart_policy_to_string(_RESTART_POLICY_MAX));
        ck_assert_ptr_null(restart_policy_to_string(_RESTART_POLICY_INVALID));
        ck_assert_int_eq(restart_policy_from_string("On-Failure"), _RESTART_POLICY_INVALID);
        ck_assert_int_eq(restart_policy_from_string(""), _RESTART_POLICY_INVALID);
        ck_assert_int_eq(restart_policy_from_string(NULL), _RESTART_POLICY_INVALID);
}
END_TEST

START_TEST(test_service_types) {
        _cleanup_(unit_freep) Unit *u = load_ok("[Service]\nExecStart=/x\n", NULL);
        ck_assert_int_eq(u->type, SERVICE_TYPE_SIMPLE);
        ck_assert(!u->remain_after_exit);
        ck_assert_uint_eq(u->timeout_start_usec, 90 * USEC_PER_SEC);
        ck_assert_uint_eq(u->watchdog_usec, 0);

        for (ServiceType t = 0; t < _SERVICE_TYPE_MAX; t++) {
                char text[128];
                snprintf(text, sizeof(text), "[Service]\nExecStart=/x\nType=%s\nBusName=org.example.X\n",
                         service_type_to_string(t));
                _cleanup_(unit_freep) Unit *v = load_ok(text, NULL);
                ck_assert_int_eq(v->type, t);
                ck_assert_int_eq(service_type_from_string(service_type_to_string(t)), t);
        }
        ck_assert_int_eq(service_type_from_string("Notify"), _SERVICE_TYPE_INVALID);
        ck_assert_ptr_null(service_type_to_string(_SERVICE_TYPE_MAX));

        _cleanup_(unit_freep) Unit *o = load_ok("[Service]\nExecStart=/x\nType=oneshot\nRemainAfterExit=yes\n"
                                                "TimeoutStartSec=0\nWatchdogSec=2s\n", NULL);
        ck_assert_int_eq(o->type, SERVICE_TYPE_ONESHOT);
        ck_assert(o->remain_after_exit);
        ck_assert_uint_eq(o->timeout_start_usec, USEC_INFINITY);
        ck_assert_uint_eq(o->watchdog_usec, 2 * USEC_PER_SEC);

        /* TimeoutSec= sets both; a later TimeoutStartSec= wins for the start; empty resets. */
        _cleanup_(unit_freep) Unit *t = load_ok("[Service]\nExecStart=/x\nTimeoutSec=7s\nTimeoutStartSec=3s\n"
                                                "Type=notify\nType=\n", NULL);
        ck_assert_uint_eq(t->timeout_start_usec, 3 * USEC_PER_SEC);
        ck_assert_uint_eq(t->timeout_stop_usec, 7 * USEC_PER_SEC);
        ck_assert_int_eq(t->type, SERVICE_TYPE_SIMPLE);

        /* Every type takes it (systemd: active, exited, once the processes ended successfully). */
        _cleanup_(unit_freep) Unit *r = load_ok("[Service]\nExecStart=/x\nType=forking\nRemainAfterExit=yes\n", NULL);
        ck_assert(r->remain_after_exit);
}
END_TEST

START_TEST(test_dependencies) {
        _cleanup_strv_free_ char **w = NULL;
        _cleanup_(unit_freep) Unit *u = load_ok("[Unit]\n"
                                                "Requires=a b.service\n"
                                                "Requires=c a\n"
                                                "Wants=\"d\" network-online.target\n"
                                                "After=a.service syslog.socket\n"
                                                "Before=e\n"
                                                "Before=\n"
                                                "Before=f x.socket\n"
                                                "Requires=t@%i.socket\n"
                                                "[Service]\nExecStart=/x\n",
                                                &w);
        ck_assert_uint_eq(strv_length(u->dependencies[UNIT_REQUIRES]), 3);
        ck_assert_str_eq(u->dependencies[UNIT_REQUIRES][0], "a");
        ck_assert_str_eq(u->dependencies[UNIT_REQUIRES][1], "b");
        ck_assert_str_eq(u->dependencies[UNIT_REQUIRES][2], "c");
        ck_assert_uint_eq(strv_length(u->dependencies[UNIT_WANTS]), 1);
        ck_assert_str_eq(u->dependencies[UNIT_WANTS][0], "d");
        /* A socket unit, in Requires=, Wants= and After=, is kept with its suffix (deps.c starts it). */
        ck_assert_uint_eq(strv_length(u->dependencies[UNIT_AFTER]), 2);
        ck_assert_str_eq(u->dependencies[UNIT_AFTER][0], "a");
        ck_assert_str_eq(u->dependencies[UNIT_AFTER][1], "syslog.socket");
        ck_assert_uint_eq(strv_length(u->dependencies[UNIT_BEFORE]), 1);
        ck_assert_str_eq(u->dependencies[UNIT_BEFORE][0], "f");
        ck_assert_uint_eq(strv_length(w), 3);
        ck_assert_str_eq(w[0], PATH ":4: Wants=network-online.target: svd has only services, ignoring.");
        ck_assert_str_eq(w[1], PATH ":8: Before=x.socket: svd relates services to socket units only with "
                               "Requires=, Wants= and After=, ignoring.");
        ck_assert_str_eq(w[2], PATH ":9: Requires=t@.socket: svd has no socket unit templates, ignoring.");
        _cleanup_free_ char *m0 = load_fail("[Service]\nExecStart=/x\n[Unit]\nWants=-x.socket\n", -EINVAL);
        ck_assert_str_eq(m0, PATH ":4: Invalid value '-x.socket' for Wants=: '-x.socket' is not a valid socket unit name");
        ck_assert_str_eq(unit_dependency_to_string(UNIT_BEFORE), "Before");

        _cleanup_free_ char *m1 = load_fail("[Service]\nExecStart=/x\n[Unit]\nRequires=a/b\n", -EINVAL);
        ck_assert_str_eq(m1, PATH ":4: Invalid value 'a/b' for Requires=: 'a/b' is not a valid unit name");
        _cleanup_free_ char *m2 = load_fail("[Service]\nExecStart=/x\n[Unit]\nWants=-dash\n", -EINVAL);
        ck_assert_ptr_nonnull(strstr(m2, "'-dash' is not a valid unit name"));
        _cleanup_free_ char *m3 = load_fail("[Service]\nExecStart=/x\n[Unit]\nAfter=%y\n", -EINVAL);
        ck_assert_ptr_nonnull(strstr(m3, "specifier '%y' is not supported"));

        /* Bounded: more than UNIT_DEPENDENCIES_MAX names is an error. */
        size_t n = UNIT_DEPENDENCIES_MAX + 1, len = 0;
        _cleanup_free_ char *text = malloc(64 + n * 16);
        ck_assert_ptr_nonnull(text);
        len += (size_t) sprintf(text + len, "[Service]\nExecStart=/x\n[Unit]\nWants=");
        for (size_t i = 0; i < n; i++)
                len += (size_t) sprintf(text + len, " u%zu", i);
        text[len++] = '\n';
        _cleanup_free_ char *m = load_fail_n(text, len, -E2BIG);
        ck_assert_ptr_nonnull(strstr(m, "more than 256 names"));
}
END_TEST

START_TEST(test_restart_settings) {
        _cleanup_(unit_freep) Unit *d = load_ok("[Service]\nExecStart=/x\n", NULL);
        ck_assert_uint_eq(d->start_limit_burst, 5);
        ck_assert_uint_eq(d->start_limit_interval_usec, 10 * USEC_PER_SEC);
        ck_assert_uint_eq(d->restart_steps, 0);
        ck_assert_uint_eq(d->restart_max_delay_usec, USEC_INFINITY);
        /* Without steps the delay stays RestartSec=. */
        ck_assert_uint_eq(unit_restart_delay_usec(d, 1), 100 * USEC_PER_MSEC);
        ck_assert_uint_eq(unit_restart_delay_usec(d, 9), 100 * USEC_PER_MSEC);

        const char *policies[] = { "no", "on-success", "on-failure", "on-abnormal", "on-watchdog", "on-abort",
                                   "always" };
        for (size_t i = 0; i < ELEMENTSOF(policies); i++) {
                char text[128];
                snprintf(text, sizeof(text), "[Service]\nExecStart=/x\nRestart=%s\n", policies[i]);
                _cleanup_(unit_freep) Unit *v = load_ok(text, NULL);
                ck_assert_str_eq(restart_policy_to_string(v->restart), policies[i]);
        }

        /* StartLimit*= in [Unit] as in systemd, and in [Service] as older systemd took them. */
        _cleanup_(unit_freep) Unit *l = load_ok("[Unit]\nStartLimitBurst=3\nStartLimitIntervalSec=1min\n"
                                                "[Service]\nExecStart=/x\n", NULL);
        ck_assert_uint_eq(l->start_limit_burst, 3);
        ck_assert_uint_eq(l->start_limit_interval_usec, 60 * USEC_PER_SEC);
        _cleanup_(unit_freep) Unit *l2 = load_ok("[Service]\nExecStart=/x\nStartLimitBurst=0\n"
                                                 "StartLimitIntervalSec=infinity\n", NULL);
        ck_assert_uint_eq(l2->start_limit_burst, 0);
        ck_assert_uint_eq(l2->start_limit_interval_usec, USEC_INFINITY);

        /* systemd's exponential interpolation: 1s → 16s in 4 steps is 1, 2, 4, 8, 16, 16 ... */
        _cleanup_(unit_freep) Unit *b = load_ok("[Service]\nExecStart=/x\nRestartSec=1s\nRestartSteps=4\n"
                                                "RestartMaxDelaySec=16s\n", NULL);
        ck_assert_uint_eq(b->restart_steps, 4);
        ck_assert_uint_eq(b->restart_max_delay_usec, 16 * USEC_PER_SEC);
        const uint64_t want[] = { 1, 2, 4, 8, 16, 16, 16 };
        for (unsigned i = 0; i < ELEMENTSOF(want); i++) {
                uint64_t got = unit_restart_delay_usec(b, i + 1);
                /* powl() may land a hair below the exact value */
                ck_assert_msg(got + 10 >= want[i] * USEC_PER_SEC && got <= want[i] * USEC_PER_SEC,
                              "restart %u: %" PRIu64 " usec, want %" PRIu64 " s", i + 1, got, want[i]);
        }

        /* A maximum below RestartSec= is a warning and ends the back-off. */
        _cleanup_strv_free_ char **w = NULL;
        _cleanup_(unit_freep) Unit *c = load_ok("[Service]\nExecStart=/x\nRestartSec=10s\nRestartSteps=3\n"
                                                "RestartMaxDelaySec=1s\n", &w);
        ck_assert_uint_eq(strv_length(w), 1);
        ck_assert_ptr_nonnull(strstr(w[0], "RestartMaxDelaySec= is smaller than RestartSec="));
        ck_assert_uint_eq(unit_restart_delay_usec(c, 3), 10 * USEC_PER_SEC);
}
END_TEST

/* ---- the example units ---- */

static Unit *load_example(const char *name, char ***warnings) {
        const char *src = getenv("SVD_SOURCE_DIR");
        _cleanup_free_ char *path = NULL, *m = NULL;
        Unit *u = NULL;
        int r;

        ck_assert_msg(src, "SVD_SOURCE_DIR is not set (ctest sets it)");
        ck_assert_int_ge(asprintf(&path, "%s/units/%s.service", src, name), 0);
        r = unit_load_file(path, name, NULL, collect_warning, warnings, &u, &m);
        ck_assert_msg(r == 0, "%s: %s", path, m ?: "?");
        return u;
}

START_TEST(test_example_units) {
        const char *src = getenv("SVD_SOURCE_DIR");
        _cleanup_free_ char *dir = NULL;
        size_t n = 0;
        DIR *d;
        struct dirent *de;

        /* Every example loads without a warning and starts with svd. */
        ck_assert_ptr_nonnull(src);
        ck_assert_int_ge(asprintf(&dir, "%s/units", src), 0);
        d = opendir(dir);
        ck_assert_ptr_nonnull(d);
        while ((de = readdir(d))) {
                _cleanup_free_ char *name = NULL;
                _cleanup_strv_free_ char **w = NULL;

                if (unit_name_from_filename(de->d_name, &name) < 0)
                        continue;
                _cleanup_(unit_freep) Unit *u = load_example(name, &w);
                ck_assert_msg(!w, "%s: %s", de->d_name, w[0]);
                ck_assert_msg(u->wanted_by_default, "%s", de->d_name);
                ck_assert_msg(u->description, "%s", de->d_name);
                n++;
        }
        closedir(d);
        ck_assert_uint_ge(n, 4);
}
END_TEST

START_TEST(test_example_unit_contents) {
        _cleanup_(unit_freep) Unit *ticker = load_example("ticker", NULL),
                                   *web = load_example("webserver", NULL),
                                   *flaky = load_example("flaky", NULL),
                                   *env = load_example("hello-env", NULL);

        ck_assert_str_eq(ticker->exec_start[0], "/bin/sh");
        ck_assert_str_eq(ticker->exec_start[1], "-c");
        ck_assert_ptr_null(strchr(ticker->exec_start[2], '%'));
        ck_assert_ptr_null(ticker->exec_start[3]);

        ck_assert_str_eq(web->exec_start[0], "/usr/bin/python3");
        ck_assert_int_eq(web->restart, RESTART_ON_FAILURE);

        ck_assert_int_eq(flaky->restart, RESTART_ON_FAILURE);
        ck_assert_uint_eq(flaky->restart_usec, 2 * USEC_PER_SEC);

        ck_assert_ptr_nonnull(strstr(env->exec_start[2], "exec sleep infinity"));
        ck_assert(strv_contains(env->environment, "GREETING=hello world"));
        ck_assert(strv_contains(env->environment, "QUOTED=say \"hi\""));
        ck_assert(strv_contains(env->environment, "TAB=a\tb"));
        ck_assert(strv_contains(env->environment, "NAME=svd-example"));
        ck_assert(!strv_contains(env->environment, "NAME=svd"));
}
END_TEST

/* ---- the table of keys ---- */

/* A non-default value of a scalar key, the field it sets, and the field's size. */
typedef struct ScalarKey {
        const char *assignment;
        size_t offset, size;
        const char *context; /* lines the unit needs besides */
} ScalarKey;

#define SCALAR(a, f, ...) { a, offsetof(Unit, f), sizeof(((Unit *) NULL)->f), "" __VA_ARGS__ }

static const ScalarKey scalar_keys[] = {
        SCALAR("Type=notify", type),
        SCALAR("Restart=always", restart),
        SCALAR("RestartSec=7s", restart_usec),
        SCALAR("RestartSteps=3", restart_steps),
        SCALAR("RestartMaxDelaySec=1min", restart_max_delay_usec),
        SCALAR("StartLimitIntervalSec=0", start_limit_interval_usec),
        SCALAR("StartLimitBurst=0", start_limit_burst),
        SCALAR("RemainAfterExit=yes", remain_after_exit, "Type=oneshot\n"),
        SCALAR("TimeoutStartSec=0", timeout_start_usec),
        SCALAR("TimeoutStopSec=3s", timeout_stop_usec),
        SCALAR("WatchdogSec=4s", watchdog_usec),
        SCALAR("KillSignal=SIGINT", kill_signal),
        SCALAR("KillMode=mixed", kill_mode),
        SCALAR("NoNewPrivileges=yes", no_new_privileges),
        SCALAR("CapabilityBoundingSet=CAP_CHOWN", capability_bounding_set),
        SCALAR("AmbientCapabilities=CAP_CHOWN", ambient_capabilities),
        SCALAR("UMask=0077", umask),
        SCALAR("LimitNOFILE=10:20", limit_nofile),
        SCALAR("LimitNPROC=infinity", limit_nproc),
        SCALAR("LimitCORE=0", limit_core),
        SCALAR("PrivatePIDs=no", private_pids),
        SCALAR("MemoryMax=1G", memory_max),
        SCALAR("TasksMax=10", tasks_max),
        SCALAR("CPUWeight=5", cpu_weight),
        SCALAR("StandardOutput=null", std_output),
        SCALAR("StandardError=null", std_error),
        SCALAR("LogRotateSize=infinity", log_rotate_size),
        SCALAR("LogRotateKeep=0", log_rotate_keep),
};

/* Each scalar key's row sets its field, and an empty assignment puts the default back. */
START_TEST(test_key_table_reset) {
        const ScalarKey *k = &scalar_keys[_i];
        _cleanup_free_ char *set = NULL, *reset = NULL;
        _cleanup_free_ char *base = NULL;
        ck_assert_int_ge(asprintf(&base, "[Service]\nExecStart=/x\n%s", k->context), 0);
        _cleanup_(unit_freep) Unit *d = load_ok(base, NULL);

        ck_assert_int_ge(asprintf(&set, "%s%s\n", base, k->assignment), 0);
        _cleanup_(unit_freep) Unit *u = load_ok(set, NULL);
        ck_assert_msg(memcmp((uint8_t *) u + k->offset, (uint8_t *) d + k->offset, k->size) != 0,
                      "%s left the default", k->assignment);

        const char *eq = strchr(k->assignment, '=');
        ck_assert_int_ge(asprintf(&reset, "%s%.*s=\n", set, (int) (eq - k->assignment), k->assignment), 0);
        _cleanup_(unit_freep) Unit *r = load_ok(reset, NULL);
        ck_assert_msg(memcmp((uint8_t *) r + k->offset, (uint8_t *) d + k->offset, k->size) == 0,
                      "an empty assignment after %s did not restore the default", k->assignment);
}
END_TEST

/* ExecStartPre= ... ExecStopPost=: lists in order, prefixes as ExecStart=, an empty assignment resets. */
START_TEST(test_exec_command_lists) {
        _cleanup_strv_free_ char **w = NULL;
        _cleanup_(unit_freep) Unit *u = load_ok("[Service]\n"
                                                "ExecStartPre=/bin/echo pre1\n"
                                                "ExecStartPre=-/bin/false\n"
                                                "ExecStart=/bin/sleep 1\n"
                                                "ExecStartPost=@/bin/echo post argv0 x\n"
                                                "ExecReload=/bin/kill -HUP $MAINPID\n"
                                                "ExecStop=/bin/kill $MAINPID\n"
                                                "ExecStop=\n"
                                                "ExecStop=+/bin/echo stop\n"
                                                "ExecStopPost=:/bin/echo $SERVICE_RESULT\n",
                                                &w);
        ck_assert_uint_eq(strv_length(w), 0);
        ck_assert_uint_eq(u->exec[UNIT_EXEC_START_PRE].n, 2);
        ck_assert_str_eq(u->exec[UNIT_EXEC_START_PRE].commands[0].argv[1], "pre1");
        ck_assert_uint_eq(u->exec[UNIT_EXEC_START_PRE].commands[1].flags, EXEC_IGNORE_FAILURE);
        ck_assert_str_eq(u->exec[UNIT_EXEC_START_PRE].commands[1].argv[0], "/bin/false");
        ck_assert_uint_eq(u->exec[UNIT_EXEC_START].n, 1);
        ck_assert_ptr_eq(u->exec_start, u->exec[UNIT_EXEC_START].commands[0].argv);
        ck_assert_uint_eq(u->exec[UNIT_EXEC_START_POST].n, 1);
        ck_assert_uint_eq(u->exec[UNIT_EXEC_START_POST].commands[0].flags, EXEC_ARGV0);
        ck_assert_str_eq(u->exec[UNIT_EXEC_START_POST].commands[0].argv0, "post");
        ck_assert_str_eq(u->exec[UNIT_EXEC_START_POST].commands[0].argv[1], "argv0");
        ck_assert_str_eq(u->exec[UNIT_EXEC_RELOAD].commands[0].argv[2], "$MAINPID");
        /* The empty ExecStop= dropped the first one. */
        ck_assert_uint_eq(u->exec[UNIT_EXEC_STOP].n, 1);
        ck_assert_uint_eq(u->exec[UNIT_EXEC_STOP].commands[0].flags, EXEC_PRIVILEGED);
        ck_assert_str_eq(u->exec[UNIT_EXEC_STOP].commands[0].argv[1], "stop");
        ck_assert_uint_eq(u->exec[UNIT_EXEC_STOP_POST].commands[0].flags, EXEC_NO_ENV_EXPAND);

        /* Several ExecStart= for Type=oneshot, in order; the type may come after them. */
        _cleanup_(unit_freep) Unit *o =
                load_ok("[Service]\nExecStart=/bin/echo 1\nExecStart=-/bin/echo 2\nType=oneshot\n", NULL);
        ck_assert_uint_eq(o->exec[UNIT_EXEC_START].n, 2);
        ck_assert_str_eq(o->exec_start[1], "1");
        ck_assert_str_eq(o->exec[UNIT_EXEC_START].commands[1].argv[1], "2");
        ck_assert_uint_eq(o->exec[UNIT_EXEC_START].commands[1].flags, EXEC_IGNORE_FAILURE);
        ck_assert_uint_eq(o->exec_start_flags, 0);

        /* A bad command line of a helper key fails the unit as one of ExecStart= does. */
        assert_fails_with("[Service]\nExecStart=/x\nExecStop=bin/x\n", -EINVAL,
                          PATH ":3: Invalid value 'bin/x' for ExecStop=: the command must be an absolute path or a "
                               "plain file name");
        assert_fails_with("[Service]\nExecStart=/x\nExecStartPre=|/bin/sh\n", -EOPNOTSUPP,
                          PATH ":3: Invalid value '|/bin/sh' for ExecStartPre=: the prefix '|' is not supported");
        /* ExecStart= is required, but for a Type=oneshot with ExecStop= or SuccessAction= (systemd.service(5));
         * without Type=, such a unit is a oneshot. */
        assert_fails_with("[Service]\nExecStartPre=/x\n", -EINVAL,
                          PATH ": Missing ExecStart= in [Service] (or ExecStop= or SuccessAction=)");
        assert_fails_with("[Service]\nType=oneshot\nExecStopPost=/x\n", -EINVAL,
                          PATH ": Missing ExecStart= in [Service] (or ExecStop= or SuccessAction=)");
        assert_fails_with("[Service]\nType=simple\nExecStop=/x\n", -EINVAL,
                          PATH ": Missing ExecStart= in [Service] (only Type=oneshot may do without it)");
        _cleanup_(unit_freep) Unit *sa = load_ok("[Unit]\nSuccessAction=exit\n", NULL);
        ck_assert_int_eq(sa->type, SERVICE_TYPE_ONESHOT);
        ck_assert_int_eq(sa->success_action, UNIT_ACTION_EXIT);
        _cleanup_(unit_freep) Unit *st = load_ok("[Service]\nExecStop=/x\n", NULL);
        ck_assert_int_eq(st->type, SERVICE_TYPE_ONESHOT);
        _cleanup_(unit_freep) Unit *so = load_ok("[Service]\nType=oneshot\nRemainAfterExit=yes\nExecStop=/x\n", NULL);
        ck_assert_ptr_null(so->exec_start);
        ck_assert_uint_eq(so->exec[UNIT_EXEC_START].n, 0);
}
END_TEST

/* SuccessExitStatus=, RestartPreventExitStatus=, RestartForceExitStatus=, KillMode=. */
START_TEST(test_exit_status_keys) {
        _cleanup_(unit_freep) Unit *u = load_ok("[Service]\nExecStart=/x\n"
                                                "SuccessExitStatus=3 TEMPFAIL SIGUSR1\n"
                                                "SuccessExitStatus=KILL 255\n"
                                                "RestartPreventExitStatus=42 SIGTERM\n"
                                                "RestartForceExitStatus=7\n"
                                                "RestartForceExitStatus=\n"
                                                "RestartForceExitStatus=8\n"
                                                "KillMode=process\n",
                                                NULL);
        const ExitStatusSet *ok = &u->success_exit_status;
        ck_assert(exit_status_set_has_status(ok, 3));
        ck_assert(exit_status_set_has_status(ok, 75)); /* TEMPFAIL */
        ck_assert(exit_status_set_has_status(ok, 255));
        ck_assert(!exit_status_set_has_status(ok, 0));
        ck_assert(!exit_status_set_has_status(ok, 4));
        ck_assert(exit_status_set_has_signal(ok, SIGUSR1));
        ck_assert(exit_status_set_has_signal(ok, SIGKILL));
        ck_assert(!exit_status_set_has_signal(ok, SIGTERM));
        ck_assert(exit_status_set_has_status(&u->restart_prevent_exit_status, 42));
        ck_assert(exit_status_set_has_signal(&u->restart_prevent_exit_status, SIGTERM));
        ck_assert(!exit_status_set_has_status(&u->restart_force_exit_status, 7)); /* reset */
        ck_assert(exit_status_set_has_status(&u->restart_force_exit_status, 8));
        ck_assert_int_eq(u->kill_mode, KILL_MODE_PROCESS);

        _cleanup_(unit_freep) Unit *d = load_ok("[Service]\nExecStart=/x\n", NULL);
        ck_assert(exit_status_set_is_empty(&d->success_exit_status));
        ck_assert_int_eq(d->kill_mode, KILL_MODE_CONTROL_GROUP);

        assert_fails_with("[Service]\nExecStart=/x\nSuccessExitStatus=1 256\n", -EINVAL,
                          PATH ":3: Invalid value '1 256' for SuccessExitStatus=: '256' is neither an exit status "
                               "(0-255 or a name such as 'TEMPFAIL') nor a signal name");
        assert_fails_with("[Service]\nExecStart=/x\nRestartPreventExitStatus=SIGNOPE\n", -EINVAL,
                          PATH ":3: Invalid value 'SIGNOPE' for RestartPreventExitStatus=: 'SIGNOPE' is neither an "
                               "exit status (0-255 or a name such as 'TEMPFAIL') nor a signal name");
        assert_fails_with("[Service]\nExecStart=/x\nKillMode=all\n", -EINVAL,
                          PATH ":3: Invalid value 'all' for KillMode=: expected one of: control-group, mixed, "
                               "process, none");
}
END_TEST

START_TEST(test_key_table_rows) {
        _cleanup_strv_free_ char **w = NULL;

        /* TimeoutSec= goes through the rows of TimeoutStartSec= and TimeoutStopSec=. */
        _cleanup_(unit_freep) Unit *a = load_ok("[Service]\nExecStart=/x\nTimeoutSec=5\n", NULL);
        ck_assert_uint_eq(a->timeout_start_usec, 5 * USEC_PER_SEC);
        ck_assert_uint_eq(a->timeout_stop_usec, 5 * USEC_PER_SEC);
        assert_fails_with("[Service]\nExecStart=/x\nTimeoutSec=soon\n", -EINVAL,
                          PATH ":3: Invalid value 'soon' for TimeoutSec=: expected a time span such as '90s' or "
                               "'5min', or 'infinity'");

        /* The start limit has a row in [Unit] and one in [Service], for the same fields. */
        _cleanup_(unit_freep) Unit *b =
                load_ok("[Unit]\nStartLimitBurst=2\n[Service]\nExecStart=/x\nStartLimitIntervalSec=3s\n", NULL);
        ck_assert_uint_eq(b->start_limit_burst, 2);
        ck_assert_uint_eq(b->start_limit_interval_usec, 3 * USEC_PER_SEC);

        /* A key of the table is taken without a word; one that is not in it is unknown. */
        _cleanup_(unit_freep) _unused_ Unit *c = load_ok("[Service]\nExecStart=/x\n[Install]\nAlso=y.service\nAlsa=x\n", &w);
        ck_assert_uint_eq(strv_length(w), 1);
        ck_assert_str_eq(w[0], PATH ":5: Unknown key 'Alsa=' in [Install], ignoring.");

        /* A key of another section is unknown there. */
        _cleanup_strv_free_ char **w2 = NULL;
        _cleanup_(unit_freep) Unit *e = load_ok("[Unit]\nExecStart=/y\n[Service]\nExecStart=/x\n", &w2);
        ck_assert_uint_eq(strv_length(w2), 1);
        ck_assert_str_eq(w2[0], PATH ":2: Unknown key 'ExecStart=' in [Unit], ignoring.");
        ck_assert_str_eq(e->exec_start[0], "/x");

        /* The unit keeps the bytes it was parsed from. */
        static const char text[] = "[Service]\nExecStart=/x\n";
        _cleanup_(unit_freep) Unit *f = load_ok(text, NULL);
        ck_assert_uint_eq(f->source_len, strlen(text));
        ck_assert_mem_eq(f->source, text, strlen(text));
}
END_TEST

/* UnitDefaults: what a unit has for the keys it does not set, parsed as the key is in a unit file. */
START_TEST(test_unit_defaults) {
        const char *text = "[Service]\nExecStart=/bin/true\n";
        _cleanup_free_ char *error = NULL;
        UnitDefaults d;
        Unit *u = NULL;

        unit_defaults_init(&d);
        ck_assert_uint_eq(d.timeout_stop_usec, 90 * USEC_PER_SEC);
        ck_assert_uint_eq(d.timeout_start_usec, 90 * USEC_PER_SEC);
        ck_assert_uint_eq(d.restart_usec, 100 * USEC_PER_MSEC);
        ck_assert_uint_eq(d.start_limit_interval_usec, 10 * USEC_PER_SEC);
        ck_assert_uint_eq(d.start_limit_burst, 5);
        ck_assert(!d.limit_nofile.set && !d.limit_nproc.set && !d.limit_core.set);

        ck_assert(unit_defaults_has_key("TimeoutStopSec"));
        ck_assert(unit_defaults_has_key("LimitNOFILE"));
        ck_assert(!unit_defaults_has_key("ExecStart"));
        ck_assert_int_eq(unit_defaults_set(&d, "ExecStart", "/x", "c", 1, "DefaultExecStart", NULL), -ENOENT);

        ck_assert_int_eq(unit_defaults_set(&d, "TimeoutStopSec", "1s", "c", 1, "DefaultTimeoutStopSec", NULL), 0);
        ck_assert_int_eq(unit_defaults_set(&d, "TimeoutStartSec", "0", "c", 2, "DefaultTimeoutStartSec", NULL), 0);
        ck_assert_int_eq(unit_defaults_set(&d, "RestartSec", "250ms", "c", 3, "DefaultRestartSec", NULL), 0);
        ck_assert_int_eq(unit_defaults_set(&d, "StartLimitIntervalSec", "1min", "c", 4, "X", NULL), 0);
        ck_assert_int_eq(unit_defaults_set(&d, "StartLimitBurst", "20", "c", 5, "X", NULL), 0);
        ck_assert_int_eq(unit_defaults_set(&d, "LimitNOFILE", "4096:65536", "c", 6, "X", NULL), 0);
        ck_assert_int_eq(unit_defaults_set(&d, "LimitCORE", "infinity", "c", 7, "X", NULL), 0);
        ck_assert_uint_eq(d.timeout_stop_usec, USEC_PER_SEC);
        ck_assert_uint_eq(d.timeout_start_usec, USEC_INFINITY); /* 0 is "no timeout", as in a unit */
        ck_assert(d.limit_nofile.set && d.limit_nofile.soft == 4096 && d.limit_nofile.hard == 65536);

        /* A bad value names file, line and the caller's key; d keeps what it had. */
        ck_assert_int_eq(unit_defaults_set(&d, "TimeoutStopSec", "soon", "/etc/svd/svd.conf", 12,
                                           "DefaultTimeoutStopSec", &error),
                         -EINVAL);
        ck_assert_str_eq(error, "/etc/svd/svd.conf:12: Invalid value 'soon' for DefaultTimeoutStopSec=: expected "
                                "a time span such as '90s' or '5min', or 'infinity'");
        error = mfree_test(error);
        ck_assert_int_lt(unit_defaults_set(&d, "RestartSec", "infinity", "c", 3, "DefaultRestartSec", &error), 0);
        ck_assert_str_eq(error, "c:3: Invalid value 'infinity' for DefaultRestartSec=: 'infinity' is not allowed, "
                                "use Restart=no");
        error = mfree_test(error);
        ck_assert_int_lt(unit_defaults_set(&d, "LimitNOFILE", "9:8", "c", 4, "DefaultLimitNOFILE", &error), 0);
        ck_assert_str_eq(error, "c:4: Invalid value '9:8' for DefaultLimitNOFILE=: the soft limit is above the hard "
                                "limit");
        ck_assert_uint_eq(d.timeout_stop_usec, USEC_PER_SEC);
        ck_assert(d.limit_nofile.soft == 4096);

        /* A unit that sets nothing gets them. */
        ck_assert_int_eq(unit_load_string(text, strlen(text), PATH, NAME, &d, NULL, NULL, &u, NULL), 0);
        ck_assert_uint_eq(u->timeout_stop_usec, USEC_PER_SEC);
        ck_assert_uint_eq(u->timeout_start_usec, USEC_INFINITY);
        ck_assert_uint_eq(u->restart_usec, 250 * USEC_PER_MSEC);
        ck_assert_uint_eq(u->start_limit_interval_usec, 60 * USEC_PER_SEC);
        ck_assert_uint_eq(u->start_limit_burst, 20);
        ck_assert(u->limit_nofile.set && u->limit_nofile.soft == 4096 && u->limit_nofile.hard == 65536);
        ck_assert(u->limit_core.set && u->limit_core.soft == RLIM_INFINITY);
        ck_assert(!u->limit_nproc.set);
        u = unit_free(u);

        /* Its own values win; an empty assignment goes back to the given default, not the built-in. */
        const char *own = "[Service]\nExecStart=/bin/true\nTimeoutStopSec=5\nLimitNOFILE=100\nRestartSec=7\n"
                          "RestartSec=\n";
        ck_assert_int_eq(unit_load_string(own, strlen(own), PATH, NAME, &d, NULL, NULL, &u, NULL), 0);
        ck_assert_uint_eq(u->timeout_stop_usec, 5 * USEC_PER_SEC);
        ck_assert(u->limit_nofile.set && u->limit_nofile.soft == 100 && u->limit_nofile.hard == 100);
        ck_assert_uint_eq(u->restart_usec, 250 * USEC_PER_MSEC);
        u = unit_free(u);

        /* An empty value restores the built-in default. */
        ck_assert_int_eq(unit_defaults_set(&d, "TimeoutStopSec", "", "c", 1, "DefaultTimeoutStopSec", NULL), 0);
        ck_assert_int_eq(unit_defaults_set(&d, "LimitNOFILE", "", "c", 1, "DefaultLimitNOFILE", NULL), 0);
        ck_assert_uint_eq(d.timeout_stop_usec, 90 * USEC_PER_SEC);
        ck_assert(!d.limit_nofile.set);

        /* NULL is the built-in defaults. */
        ck_assert_int_eq(unit_load_string(text, strlen(text), PATH, NAME, NULL, NULL, NULL, &u, NULL), 0);
        ck_assert_uint_eq(u->timeout_stop_usec, 90 * USEC_PER_SEC);
        ck_assert(!u->limit_nofile.set);
        u = unit_free(u);
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("unit");
        TCase *tc = tcase_create("keys");
        tcase_add_test(tc, test_minimal_defaults);
        tcase_add_test(tc, test_every_key);
        tcase_add_test(tc, test_key_variants);
        tcase_add_test(tc, test_exec_start_quoting);
        tcase_add_test(tc, test_exec_start_longer_than_inih_buffer);
        tcase_add_test(tc, test_environment_accumulates_and_resets);
        tcase_add_test(tc, test_single_valued_last_wins_and_reset);
        tcase_add_test(tc, test_exec_start_duplicate_and_reset);
        tcase_add_test(tc, test_missing_exec_start);
        tcase_add_test(tc, test_bad_values);
        tcase_add_test(tc, test_bad_exec_start);
        tcase_add_test(tc, test_specifiers_and_variables);
        tcase_add_test(tc, test_environment_file_key);
        tcase_add_test(tc, test_log_output_mapped);
        tcase_add_test(tc, test_std_socket);
        tcase_add_test(tc, test_exec_prefixes);
        tcase_add_test(tc, test_user_group_names);
        tcase_add_test(tc, test_wanted_by);
        tcase_add_test(tc, test_also);
        tcase_add_test(tc, test_service_types);
        tcase_add_test(tc, test_dependencies);
        tcase_add_test(tc, test_restart_settings);
        suite_add_tcase(s, tc);

        tc = tcase_create("syntax");
        tcase_add_test(tc, test_comments_and_whitespace);
        tcase_add_test(tc, test_crlf_and_bom);
        tcase_add_test(tc, test_continuation);
        tcase_add_test(tc, test_syntax_errors);
        tcase_add_test(tc, test_syntax_limits);
        tcase_add_test(tc, test_nul_byte);
        tcase_add_test(tc, test_unknown_keys_and_sections);
        tcase_add_test(tc, test_warning_flood);
        tcase_add_test(tc, test_message_quoting);
        suite_add_tcase(s, tc);

        tc = tcase_create("limits");
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_file_too_large);
        tcase_add_test(tc, test_file_at_size_limit);
        tcase_add_test(tc, test_long_lines);
        tcase_add_test(tc, test_argv_and_env_limits);
        suite_add_tcase(s, tc);

        tc = tcase_create("files");
        tcase_add_test(tc, test_load_file);
        tcase_add_test(tc, test_unit_names);
        tcase_add_test(tc, test_unit_name_from_filename);
        tcase_add_test(tc, test_restart_policy_strings);
        tcase_add_loop_test(tc, test_key_table_reset, 0, ELEMENTSOF(scalar_keys));
        tcase_add_test(tc, test_key_table_rows);
        tcase_add_test(tc, test_exec_command_lists);
        tcase_add_test(tc, test_exit_status_keys);
        tcase_add_test(tc, test_example_units);
        tcase_add_test(tc, test_example_unit_contents);
        suite_add_tcase(s, tc);

        tc = tcase_create("defaults");
        tcase_add_test(tc, test_unit_defaults);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(suite());
}
