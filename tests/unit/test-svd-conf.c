/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* svd.conf (svd-conf.c): every key of [Manager], bad values and syntax with "FILE:LINE: reason",
 * unknown keys and sections as warnings, what inih does differently from a plain reading, limits,
 * files that cannot be read, options over the file, and the default file the package installs. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "basic/macros.h"
#include "basic/strv.h"
#include "svd-conf.h"
#include "check-run.h"

#define PATH "/etc/svd/svd.conf"

/* "E: message" or "W: message", one string each. */
static void collect(int level, const char *message, void *userdata) {
        char ***l = userdata;
        _cleanup_free_ char *s = NULL;
        ck_assert_int_ge(asprintf(&s, "%s: %s", level == LOG_ERR ? "E" : "W", message), 0);
        ck_assert_int_eq(strv_extend(l, s), 0);
}

/* Loads text into c (initialized here); returns the result, messages in *ret_messages. */
static int load(SvdConf *c, const char *text, char ***ret_messages) {
        svd_conf_init(c);
        return svd_conf_load_string(c, text, strlen(text), PATH, collect, ret_messages);
}

/* text must load without any message. */
static void load_ok(SvdConf *c, const char *text) {
        _cleanup_strv_free_ char **m = NULL;
        int r = load(c, text, &m);
        ck_assert_msg(r == 1 && !m, "load gave %d, first message: %s", r, m ? m[0] : "(none)");
}

/* text must fail with error and exactly the one message. */
static void assert_error(const char *text, int error, const char *message) {
        _cleanup_strv_free_ char **m = NULL;
        SvdConf c;
        int r = load(&c, text, &m);
        ck_assert_msg(r == error, "got %d, want %d for '%s'", r, error, text);
        ck_assert_msg(m && strv_length(m) == 1, "want one message for '%s', got %zu", text, m ? strv_length(m) : 0);
        ck_assert_str_eq(m[0], message);
        svd_conf_done(&c);
}

START_TEST(test_builtin) {
        SvdConf c;
        UnitDefaults d;

        svd_conf_init(&c);
        unit_defaults_init(&d);
        ck_assert_ptr_null(c.unit_dir);
        ck_assert_ptr_null(c.socket_path);
        ck_assert(!c.force_fallback);
        ck_assert(!c.allow_unsandboxed);
        ck_assert_int_eq(c.forward_output, LOG_CONSOLE_OFF);
        ck_assert_ptr_null(c.main_service);
        ck_assert_ptr_null(c.log_group);
        ck_assert_ptr_null(c.manage_group);
        ck_assert_int_eq(c.log_level, -1);
        ck_assert_mem_eq(&c.unit_defaults, &d, sizeof(d));
        svd_conf_done(&c);

        /* An empty file, and one of comments only, change nothing. */
        load_ok(&c, "");
        ck_assert_mem_eq(&c.unit_defaults, &d, sizeof(d));
        svd_conf_done(&c);
        load_ok(&c, "# nothing\n; nothing either\n\n[Manager]\n");
        ck_assert_int_eq(c.log_level, -1);
        svd_conf_done(&c);
}
END_TEST

START_TEST(test_every_key) {
        SvdConf c;

        load_ok(&c, "[Manager]\n"
                    "UnitDirectory=/srv/units\n"
                    "ControlSocket=/run/x/svd.sock\n"
                    "SpawnMode=fallback\n"
                    "AllowUnsandboxed=yes\n"
                    "ForwardOutput=time\n"
                    "MainService=web.service\n"
                    "LogGroup=staff\n"
                    "ManageGroup=1000\n"
                    "LogLevel=debug\n"
                    "DefaultTimeoutStartSec=2min\n"
                    "DefaultTimeoutStopSec=1s\n"
                    "DefaultRestartSec=500ms\n"
                    "DefaultStartLimitIntervalSec=30s\n"
                    "DefaultStartLimitBurst=10\n"
                    "DefaultLimitNOFILE=8192:524288\n"
                    "DefaultLimitNPROC=512\n"
                    "DefaultLimitCORE=infinity\n");
        ck_assert_str_eq(c.unit_dir, "/srv/units");
        ck_assert_str_eq(c.socket_path, "/run/x/svd.sock");
        ck_assert(c.force_fallback);
        ck_assert(c.allow_unsandboxed);
        ck_assert_int_eq(c.forward_output, LOG_CONSOLE_TIME);
        ck_assert_str_eq(c.main_service, "web"); /* ".service" is cut off */
        ck_assert_str_eq(c.log_group, "staff");
        ck_assert_str_eq(c.manage_group, "1000");
        ck_assert_int_eq(c.log_level, LOG_DEBUG);
        ck_assert_uint_eq(c.unit_defaults.timeout_start_usec, 120 * USEC_PER_SEC);
        ck_assert_uint_eq(c.unit_defaults.timeout_stop_usec, USEC_PER_SEC);
        ck_assert_uint_eq(c.unit_defaults.restart_usec, 500 * USEC_PER_MSEC);
        ck_assert_uint_eq(c.unit_defaults.start_limit_interval_usec, 30 * USEC_PER_SEC);
        ck_assert_uint_eq(c.unit_defaults.start_limit_burst, 10);
        ck_assert(c.unit_defaults.limit_nofile.set);
        ck_assert_uint_eq(c.unit_defaults.limit_nofile.soft, 8192);
        ck_assert_uint_eq(c.unit_defaults.limit_nofile.hard, 524288);
        ck_assert(c.unit_defaults.limit_nproc.set && c.unit_defaults.limit_nproc.soft == 512 &&
                  c.unit_defaults.limit_nproc.hard == 512);
        ck_assert(c.unit_defaults.limit_core.set && c.unit_defaults.limit_core.soft == RLIM_INFINITY);
        svd_conf_done(&c);

        /* The other spellings of the values. */
        load_ok(&c, "[Manager]\nSpawnMode=auto\nForwardOutput=yes\nAllowUnsandboxed=off\nLogLevel=3\n"
                    "DefaultTimeoutStopSec=infinity\nLogGroup=\n");
        ck_assert(!c.force_fallback);
        ck_assert_int_eq(c.forward_output, LOG_CONSOLE_PLAIN);
        ck_assert(!c.allow_unsandboxed);
        ck_assert_int_eq(c.log_level, LOG_ERR);
        ck_assert_uint_eq(c.unit_defaults.timeout_stop_usec, USEC_INFINITY);
        ck_assert_str_eq(c.log_group, ""); /* none, as --log-group= says */
        svd_conf_done(&c);
        load_ok(&c, "[Manager]\nForwardOutput=plain\nDefaultTimeoutStopSec=0\n");
        ck_assert_int_eq(c.forward_output, LOG_CONSOLE_PLAIN);
        ck_assert_uint_eq(c.unit_defaults.timeout_stop_usec, USEC_INFINITY); /* 0 is no timeout, as in units */
        svd_conf_done(&c);
        load_ok(&c, "[Manager]\nForwardOutput=no\nMainService=db\n");
        ck_assert_int_eq(c.forward_output, LOG_CONSOLE_OFF);
        ck_assert_str_eq(c.main_service, "db");
        svd_conf_done(&c);
}
END_TEST

/* The last assignment wins; an empty one goes back to the default. */
START_TEST(test_override_and_reset) {
        SvdConf c;

        load_ok(&c, "[Manager]\nDefaultTimeoutStopSec=1s\nDefaultTimeoutStopSec=2s\n"
                    "UnitDirectory=/a\nUnitDirectory=\nSpawnMode=fallback\nSpawnMode=\n"
                    "ForwardOutput=time\nForwardOutput=\nLogLevel=debug\nLogLevel=\nMainService=x\nMainService=\n"
                    "AllowUnsandboxed=yes\nAllowUnsandboxed=\nDefaultLimitNOFILE=10\nDefaultLimitNOFILE=\n"
                    "DefaultRestartSec=5s\nDefaultRestartSec=\n");
        ck_assert_uint_eq(c.unit_defaults.timeout_stop_usec, 2 * USEC_PER_SEC);
        ck_assert_ptr_null(c.unit_dir);
        ck_assert(!c.force_fallback);
        ck_assert_int_eq(c.forward_output, LOG_CONSOLE_OFF);
        ck_assert_int_eq(c.log_level, -1);
        ck_assert_ptr_null(c.main_service);
        ck_assert(!c.allow_unsandboxed);
        ck_assert(!c.unit_defaults.limit_nofile.set);
        ck_assert_uint_eq(c.unit_defaults.restart_usec, 100 * USEC_PER_MSEC);
        svd_conf_done(&c);
}
END_TEST

/* A bad value of a known key: an error naming file, line, key and reason. */
START_TEST(test_bad_values) {
        assert_error("[Manager]\nDefaultTimeoutStopSec=soon\n", -EINVAL,
                     "E: " PATH ":2: Invalid value 'soon' for DefaultTimeoutStopSec=: expected a time span such "
                     "as '90s' or '5min', or 'infinity'");
        assert_error("[Manager]\n\nDefaultTimeoutStartSec=-1\n", -EINVAL,
                     "E: " PATH ":3: Invalid value '-1' for DefaultTimeoutStartSec=: expected a time span such "
                     "as '90s' or '5min', or 'infinity'");
        assert_error("[Manager]\nDefaultRestartSec=infinity\n", -ERANGE,
                     "E: " PATH ":2: Invalid value 'infinity' for DefaultRestartSec=: 'infinity' is not allowed, "
                     "use Restart=no");
        assert_error("[Manager]\nDefaultStartLimitBurst=many\n", -ERANGE,
                     "E: " PATH ":2: Invalid value 'many' for DefaultStartLimitBurst=: expected a number (0: no "
                     "limit)");
        assert_error("[Manager]\nDefaultStartLimitIntervalSec=x\n", -EINVAL,
                     "E: " PATH ":2: Invalid value 'x' for DefaultStartLimitIntervalSec=: expected a time span "
                     "such as '10s', or 0 for no limit");
        assert_error("[Manager]\nDefaultLimitNOFILE=2:1\n", -EINVAL,
                     "E: " PATH ":2: Invalid value '2:1' for DefaultLimitNOFILE=: the soft limit is above the "
                     "hard limit");
        assert_error("[Manager]\nDefaultLimitNPROC=lots\n", -EINVAL,
                     "E: " PATH ":2: Invalid value 'lots' for DefaultLimitNPROC=: expected a number, 'infinity' "
                     "or 'SOFT:HARD'");
        assert_error("[Manager]\nDefaultLimitCORE=-5\n", -EINVAL,
                     "E: " PATH ":2: Invalid value '-5' for DefaultLimitCORE=: expected a number, 'infinity' or "
                     "'SOFT:HARD'");
        assert_error("[Manager]\nUnitDirectory=units\n", -EINVAL,
                     "E: " PATH ":2: Invalid value 'units' for UnitDirectory=: expected an absolute path");
        assert_error("[Manager]\nControlSocket=svd.sock\n", -EINVAL,
                     "E: " PATH ":2: Invalid value 'svd.sock' for ControlSocket=: expected an absolute path");
        assert_error("[Manager]\nSpawnMode=autokill\n", -EINVAL,
                     "E: " PATH ":2: Invalid value 'autokill' for SpawnMode=: expected 'auto' or 'fallback'");
        assert_error("[Manager]\nAllowUnsandboxed=maybe\n", -EINVAL,
                     "E: " PATH ":2: Invalid value 'maybe' for AllowUnsandboxed=: expected a boolean (yes/no, "
                     "true/false, on/off, 1/0)");
        assert_error("[Manager]\nForwardOutput=json\n", -EINVAL,
                     "E: " PATH ":2: Invalid value 'json' for ForwardOutput=: expected 'no', 'yes', 'plain' or "
                     "'time'");
        assert_error("[Manager]\nMainService=a/b\n", -EINVAL,
                     "E: " PATH ":2: Invalid value 'a/b' for MainService=: not a unit name (the name contains a "
                     "character other than [A-Za-z0-9:_.@\\-])");
        assert_error("[Manager]\nLogGroup=a b\n", -EINVAL,
                     "E: " PATH ":2: Invalid value 'a b' for LogGroup=: expected a group name or number");
        assert_error("[Manager]\nManageGroup=x:y\n", -EINVAL,
                     "E: " PATH ":2: Invalid value 'x:y' for ManageGroup=: expected a group name or number");
        assert_error("[Manager]\nLogLevel=loud\n", -EINVAL,
                     "E: " PATH ":2: Invalid value 'loud' for LogLevel=: expected emerg, alert, crit, err, "
                     "warning, notice, info or debug");
        /* Control characters are escaped in the message. */
        assert_error("[Manager]\nLogLevel=\x1b[31m\n", -EINVAL,
                     "E: " PATH ":2: Invalid value '\\x1b[31m' for LogLevel=: expected emerg, alert, crit, err, "
                     "warning, notice, info or debug");
}
END_TEST

START_TEST(test_bad_value_keeps_the_rest) {
        _cleanup_strv_free_ char **m = NULL;
        SvdConf c;

        /* Each bad line is reported and not applied; the good ones are (what a re-exec carries on with). */
        ck_assert_int_eq(load(&c, "[Manager]\nDefaultTimeoutStopSec=1s\nLogLevel=loud\nDefaultTimeoutStopSec=bad\n"
                                  "SpawnMode=fallback\nNoEquals\n",
                              &m),
                         -EINVAL);
        ck_assert_uint_eq(strv_length(m), 3);
        ck_assert(strneq(m[0], "E: " PATH ":3: Invalid value 'loud'", 30));
        ck_assert(strneq(m[1], "E: " PATH ":4: Invalid value 'bad'", 29));
        ck_assert_str_eq(m[2], "E: " PATH ":6: Expected '[Section]' or 'Key=Value'");
        ck_assert_uint_eq(c.unit_defaults.timeout_stop_usec, USEC_PER_SEC);
        ck_assert_int_eq(c.log_level, -1);
        ck_assert(c.force_fallback);
        svd_conf_done(&c);
}
END_TEST

/* Unknown keys and sections warn and load; "X-" ones are silent. */
START_TEST(test_unknown) {
        _cleanup_strv_free_ char **m = NULL;
        SvdConf c;

        ck_assert_int_eq(load(&c,
                              "[Manager]\nDefaultTimeoutStopSec=3s\nDefaultTimeoutSec=5s\nX-Vendor=1\n"
                              "[Journal]\nStorage=auto\nCompress=yes\n[X-Mine]\nFoo=1\n[Manager]\nLogLevel=notice\n",
                              &m),
                         1);
        ck_assert_uint_eq(strv_length(m), 2);
        ck_assert_str_eq(m[0], "W: " PATH ":3: Unknown key 'DefaultTimeoutSec=' in [Manager], ignoring.");
        ck_assert_str_eq(m[1], "W: " PATH ":6: Unknown section 'Journal', ignoring.");
        ck_assert_uint_eq(c.unit_defaults.timeout_stop_usec, 3 * USEC_PER_SEC);
        ck_assert_int_eq(c.log_level, LOG_NOTICE);
        svd_conf_done(&c);
}
END_TEST

START_TEST(test_syntax_errors) {
        assert_error("DefaultTimeoutStopSec=1s\n", -EINVAL,
                     "E: " PATH ":1: Assignment 'DefaultTimeoutStopSec=' outside of a section");
        assert_error("[Manager]\nDefaultTimeoutStopSec\n", -EINVAL,
                     "E: " PATH ":2: Expected '[Section]' or 'Key=Value'");
        assert_error("[Manager]\n\n[Manager\n", -EINVAL, "E: " PATH ":3: Invalid section header '[Manager'");
        assert_error("[]\n", -EINVAL, "E: " PATH ":1: Invalid section header '[]'");
        assert_error("[Man ager]\n", -EINVAL, "E: " PATH ":1: Invalid section header '[Man ager]'");
        assert_error("[Manager] extra\n", -EINVAL, "E: " PATH ":1: Invalid section header '[Manager] extra'");
        assert_error("[Manager]\nLog Level=debug\n", -EINVAL, "E: " PATH ":2: Invalid key name 'Log Level'");
        assert_error("[Manager]\n=debug\n", -EINVAL, "E: " PATH ":2: Invalid key name ''");

        /* The assignments below a bad header are not applied (nor reported again). */
        _cleanup_strv_free_ char **m = NULL;
        SvdConf c;
        ck_assert_int_eq(load(&c, "[Manager\nLogLevel=debug\n", &m), -EINVAL);
        ck_assert_uint_eq(strv_length(m), 1);
        ck_assert_int_eq(c.log_level, -1);
        svd_conf_done(&c);
}
END_TEST

/* What inih reads differently from a plain split at '=', and what the reader makes of it. */
START_TEST(test_syntax) {
        SvdConf c;

        /* Indentation is ignored (no continuation lines); whitespace around '=' and the value goes. */
        load_ok(&c, "  [Manager]\n\tLogLevel =  debug  \n    DefaultTimeoutStopSec=4s\n");
        ck_assert_int_eq(c.log_level, LOG_DEBUG);
        ck_assert_uint_eq(c.unit_defaults.timeout_stop_usec, 4 * USEC_PER_SEC);
        svd_conf_done(&c);
        /* A comment after " ;"; "#" and ";" start comment lines; a ';' inside a value stays. */
        load_ok(&c, "[Manager] ; the one section\n# comment\n; comment\nLogLevel=notice ; quieter\n"
                    "UnitDirectory=/srv/a;b\n");
        ck_assert_int_eq(c.log_level, LOG_NOTICE);
        ck_assert_str_eq(c.unit_dir, "/srv/a;b");
        svd_conf_done(&c);
        /* ':' separates as '=' does; CRLF and a byte order mark. */
        load_ok(&c, "\xEF\xBB\xBF[Manager]\r\nLogLevel: err\r\nDefaultRestartSec=1s\r\n");
        ck_assert_int_eq(c.log_level, LOG_ERR);
        ck_assert_uint_eq(c.unit_defaults.restart_usec, USEC_PER_SEC);
        svd_conf_done(&c);
        /* No newline at the end. */
        load_ok(&c, "[Manager]\nLogLevel=warning");
        ck_assert_int_eq(c.log_level, LOG_WARNING);
        svd_conf_done(&c);
}
END_TEST

START_TEST(test_limits) {
        _cleanup_free_ char *text = NULL, *fits = NULL, *big = NULL, *msg = NULL;
        _cleanup_strv_free_ char **m = NULL;
        SvdConf c;

        /* A line of SVD_CONF_LINE_MAX bytes loads; one byte more is an error, never cut in two. */
        ck_assert_int_ge(asprintf(&fits, "[Manager]\nUnitDirectory=/%0*d\n", (int) SVD_CONF_LINE_MAX - 15, 0), 0);
        load_ok(&c, fits);
        ck_assert_uint_eq(strlen(c.unit_dir), SVD_CONF_LINE_MAX - 14);
        svd_conf_done(&c);
        ck_assert_int_ge(asprintf(&text, "[Manager]\nUnitDirectory=/%0*dLogLevel=debug\nLogLevel=info\n",
                                  (int) SVD_CONF_LINE_MAX - 14 - 14, 0),
                         0);
        ck_assert_int_ge(asprintf(&msg, "E: " PATH ":2: Line too long (more than %u bytes)", SVD_CONF_LINE_MAX), 0);
        assert_error(text, -ENOBUFS, msg);

        /* A NUL byte. */
        svd_conf_init(&c);
        ck_assert_int_eq(svd_conf_load_string(&c, "[Manager]\nLog\0Level=debug\n", 26, PATH, collect, &m), -EINVAL);
        ck_assert_str_eq(m[0], "E: " PATH ":2: Line contains a NUL byte");
        ck_assert_int_eq(c.log_level, -1);
        svd_conf_done(&c);
        m = strv_free(m);

        /* Too large; a flood of bad lines ends in one line that says so. */
        big = malloc(SVD_CONF_FILE_SIZE_MAX + 1);
        ck_assert_ptr_nonnull(big);
        memset(big, '\n', SVD_CONF_FILE_SIZE_MAX + 1);
        svd_conf_init(&c);
        ck_assert_int_eq(svd_conf_load_string(&c, big, SVD_CONF_FILE_SIZE_MAX + 1, PATH, collect, &m), -EFBIG);
        ck_assert_str_eq(m[0], "E: " PATH ": File too large (65537 bytes, the limit is 65536)");
        m = strv_free(m);
        for (size_t i = 0; i < 1000; i++)
                memcpy(big + i * 6, "x=1\ny\n", 6);
        big[6000] = '\0';
        ck_assert_int_eq(load(&c, big, &m), -EINVAL);
        ck_assert_uint_eq(strv_length(m), SVD_CONF_MESSAGES_MAX + 1);
        ck_assert_str_eq(m[SVD_CONF_MESSAGES_MAX], "W: " PATH ": Too many messages, suppressing the rest.");
        svd_conf_done(&c);
}
END_TEST

static char *tmp_dir(void) {
        char *d = strdup("/tmp/test-svd-conf.XXXXXX");
        ck_assert_ptr_nonnull(d);
        ck_assert_ptr_nonnull(mkdtemp(d));
        return d;
}

static void write_file(const char *path, const char *text) {
        FILE *f = fopen(path, "we");
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(fputs(text, f) >= 0, 1);
        ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_files) {
        _cleanup_free_ char *dir = tmp_dir(), *ok = NULL, *missing = NULL, *fifo = NULL, *big = NULL;
        _cleanup_strv_free_ char **m = NULL;
        SvdConf c;

        ck_assert_int_ge(asprintf(&ok, "%s/svd.conf", dir), 0);
        ck_assert_int_ge(asprintf(&missing, "%s/none.conf", dir), 0);
        ck_assert_int_ge(asprintf(&fifo, "%s/fifo.conf", dir), 0);
        ck_assert_int_ge(asprintf(&big, "%s/big.conf", dir), 0);

        write_file(ok, "[Manager]\nDefaultTimeoutStopSec=7s\nFoo=1\n");
        svd_conf_init(&c);
        ck_assert_int_eq(svd_conf_load(&c, ok, collect, &m), 1);
        ck_assert_uint_eq(c.unit_defaults.timeout_stop_usec, 7 * USEC_PER_SEC);
        ck_assert_uint_eq(strv_length(m), 1);
        ck_assert(strneq(m[0], "W: /tmp/test-svd-conf.", 22) && strstr(m[0], "/svd.conf:3: Unknown key 'Foo='"));
        m = strv_free(m);

        /* A missing file is no error and changes nothing. */
        ck_assert_int_eq(svd_conf_load(&c, missing, collect, &m), 0);
        ck_assert_ptr_null(m);
        ck_assert_uint_eq(c.unit_defaults.timeout_stop_usec, 7 * USEC_PER_SEC);

        /* A directory, a FIFO (not opened for good: no hang), a file too large. */
        ck_assert_int_eq(svd_conf_load(&c, dir, collect, &m), -EISDIR);
        ck_assert(strstr(m[0], ": Not a regular file but a directory"));
        m = strv_free(m);
        ck_assert_int_eq(mkfifo(fifo, 0600), 0);
        ck_assert_int_eq(svd_conf_load(&c, fifo, collect, &m), -EBADFD);
        ck_assert(strstr(m[0], "/fifo.conf: Not a regular file"));
        m = strv_free(m);
        int fd = open(big, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(ftruncate(fd, SVD_CONF_FILE_SIZE_MAX + 1), 0);
        close(fd);
        ck_assert_int_eq(svd_conf_load(&c, big, collect, &m), -EFBIG);
        m = strv_free(m);
        ck_assert_uint_eq(c.unit_defaults.timeout_stop_usec, 7 * USEC_PER_SEC);
        svd_conf_done(&c);

        unlink(ok);
        unlink(fifo);
        unlink(big);
        rmdir(dir);
}
END_TEST

START_TEST(test_default_path) {
        _cleanup_free_ char *p = NULL;

        if (getuid() == 0) {
                ck_assert_int_eq(svd_conf_default_path(&p), 0);
                ck_assert_str_eq(p, "/etc/svd/svd.conf");
                return;
        }
        ck_assert_int_eq(setenv("XDG_CONFIG_HOME", "/home/u/.cfg", 1), 0);
        ck_assert_int_eq(svd_conf_default_path(&p), 0);
        ck_assert_str_eq(p, "/home/u/.cfg/svd/svd.conf");
        free(p);
        p = NULL;
        ck_assert_int_eq(setenv("XDG_CONFIG_HOME", "relative", 1), 0);
        ck_assert_int_eq(setenv("HOME", "/home/u", 1), 0);
        ck_assert_int_eq(svd_conf_default_path(&p), 0);
        ck_assert_str_eq(p, "/home/u/.config/svd/svd.conf");
        free(p);
        p = NULL;
        ck_assert_int_eq(unsetenv("XDG_CONFIG_HOME"), 0);
        ck_assert_int_eq(unsetenv("HOME"), 0);
        ck_assert_int_eq(svd_conf_default_path(&p), -ENXIO);
}
END_TEST

/* The options override the file, each one alone; what they do not say stays as the file says. */
START_TEST(test_options_override) {
        SvdConf c;
        SvdConfOptions o = SVD_CONF_OPTIONS_NONE;

        load_ok(&c, "[Manager]\nUnitDirectory=/file/units\nControlSocket=/file/sock\nSpawnMode=fallback\n"
                    "AllowUnsandboxed=yes\nForwardOutput=time\nMainService=file\nLogGroup=adm\nManageGroup=wheel\n"
                    "LogLevel=debug\nDefaultTimeoutStopSec=1s\n");
        ck_assert_int_eq(svd_conf_apply_options(&c, &o), 0);
        ck_assert_str_eq(c.unit_dir, "/file/units");
        ck_assert(c.force_fallback && c.allow_unsandboxed);
        ck_assert_int_eq(c.forward_output, LOG_CONSOLE_TIME);
        ck_assert_int_eq(c.log_level, LOG_DEBUG);

        o = (SvdConfOptions){ .unit_dir = "opt-units", .socket_path = "/opt/sock", .force_fallback = 0,
                              .allow_unsandboxed = 0, .forward_output = LOG_CONSOLE_OFF, .main_service = "opt",
                              .log_group = "", .manage_group = "staff", .log_level = LOG_WARNING };
        ck_assert_int_eq(svd_conf_apply_options(&c, &o), 0);
        ck_assert_str_eq(c.unit_dir, "opt-units");
        ck_assert_str_eq(c.socket_path, "/opt/sock");
        ck_assert(!c.force_fallback && !c.allow_unsandboxed);
        ck_assert_int_eq(c.forward_output, LOG_CONSOLE_OFF);
        ck_assert_str_eq(c.main_service, "opt");
        ck_assert_str_eq(c.log_group, "");
        ck_assert_str_eq(c.manage_group, "staff");
        ck_assert_int_eq(c.log_level, LOG_WARNING);
        /* No option for the units' defaults: the file's stay. */
        ck_assert_uint_eq(c.unit_defaults.timeout_stop_usec, USEC_PER_SEC);
        svd_conf_done(&c);

        /* Over no file: the options alone. */
        svd_conf_init(&c);
        o = SVD_CONF_OPTIONS_NONE;
        o.forward_output = LOG_CONSOLE_PLAIN;
        o.force_fallback = 1;
        ck_assert_int_eq(svd_conf_apply_options(&c, &o), 0);
        ck_assert_int_eq(c.forward_output, LOG_CONSOLE_PLAIN);
        ck_assert(c.force_fallback);
        ck_assert_ptr_null(c.unit_dir);
        svd_conf_done(&c);

        LogConsoleMode mode;
        bool fallback;
        ck_assert_int_eq(svd_conf_parse_forward_output("time", &mode), 0);
        ck_assert_int_eq(mode, LOG_CONSOLE_TIME);
        ck_assert_int_eq(svd_conf_parse_forward_output("off", &mode), 0);
        ck_assert_int_eq(mode, LOG_CONSOLE_OFF);
        ck_assert_int_eq(svd_conf_parse_forward_output("bogus", &mode), -EINVAL);
        ck_assert_int_eq(svd_conf_parse_spawn_mode("fallback", &fallback), 0);
        ck_assert(fallback);
        ck_assert_int_eq(svd_conf_parse_spawn_mode("Fallback", &fallback), -EINVAL);
}
END_TEST

static void add_key(const char *key, void *userdata) {
        ck_assert_int_eq(strv_extend(userdata, key), 0);
}

/* contrib/svd.conf, the file the package installs: it loads without a word, it shows every key, and
 * each of its commented-out lines, uncommented, is the built-in setting it says it is. */
START_TEST(test_default_file) {
        const char *src = getenv("SVD_SOURCE_DIR");
        _cleanup_free_ char *path = NULL, *text = NULL, *uncommented = NULL;
        _cleanup_strv_free_ char **keys = NULL, **m = NULL;
        SvdConf c, builtin;
        size_t len = 0;

        ck_assert_msg(src, "SVD_SOURCE_DIR is not set (ctest sets it)");
        ck_assert_int_ge(asprintf(&path, "%s/contrib/svd.conf", src), 0);
        FILE *f = fopen(path, "re");
        ck_assert_ptr_nonnull(f);
        ck_assert_int_ge(getdelim(&text, &len, '\0', f), 0);
        fclose(f);

        svd_conf_init(&builtin);
        load_ok(&c, text);
        ck_assert_mem_eq(&c.unit_defaults, &builtin.unit_defaults, sizeof(UnitDefaults));
        ck_assert_int_eq(c.log_level, -1);
        svd_conf_done(&c);

        svd_conf_foreach_key(add_key, &keys);
        ck_assert_uint_ge(strv_length(keys), 17);
        for (char **k = keys; *k; k++) {
                _cleanup_free_ char *line = NULL;
                ck_assert_int_ge(asprintf(&line, "\n#%s=", *k), 0);
                ck_assert_msg(strstr(text, line), "contrib/svd.conf does not show %s=", *k);
        }

        /* "#Key=" lines uncommented. */
        uncommented = strdup(text);
        ck_assert_ptr_nonnull(uncommented);
        for (char *p = uncommented; (p = strstr(p, "\n#")); p++) {
                const char *eq = strchr(p + 2, '='), *nl = strchr(p + 2, '\n');
                if (p[2] >= 'A' && p[2] <= 'Z' && eq && (!nl || eq < nl))
                        p[1] = ' ';
        }
        ck_assert_int_eq(load(&c, uncommented, &m), 1);
        ck_assert_ptr_null(m);
        ck_assert_mem_eq(&c.unit_defaults, &builtin.unit_defaults, sizeof(UnitDefaults));
        /* The paths and the group are root's defaults written out. */
        ck_assert_str_eq(c.unit_dir, "/etc/svd/units");
        ck_assert_str_eq(c.socket_path, "/run/svd/svd.sock");
        ck_assert_str_eq(c.log_group, "adm");
        ck_assert_str_eq(c.manage_group, "");
        ck_assert_ptr_null(c.main_service);
        ck_assert(!c.force_fallback && !c.allow_unsandboxed);
        ck_assert_int_eq(c.forward_output, LOG_CONSOLE_OFF);
        ck_assert_int_eq(c.log_level, LOG_INFO);
        svd_conf_done(&c);
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("svd-conf");
        TCase *tc = tcase_create("keys");
        tcase_add_test(tc, test_builtin);
        tcase_add_test(tc, test_every_key);
        tcase_add_test(tc, test_override_and_reset);
        tcase_add_test(tc, test_bad_values);
        tcase_add_test(tc, test_bad_value_keeps_the_rest);
        tcase_add_test(tc, test_unknown);
        suite_add_tcase(s, tc);

        tc = tcase_create("syntax");
        tcase_add_test(tc, test_syntax_errors);
        tcase_add_test(tc, test_syntax);
        tcase_add_test(tc, test_limits);
        suite_add_tcase(s, tc);

        tc = tcase_create("files");
        tcase_add_test(tc, test_files);
        tcase_add_test(tc, test_default_path);
        tcase_add_test(tc, test_options_override);
        tcase_add_test(tc, test_default_file);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(suite());
}
