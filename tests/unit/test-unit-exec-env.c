/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit file keys of service types and the execution environment (unit-parse.c): Type=forking and
 * Type=idle, PIDFile=, PrivatePIDs='s default that depends on the type, NotifyAccess=. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/macros.h"
#include "unit.h"
#include "check-run.h"

#define PATH "test.service"

static Unit *load_ok(const char *text) {
        _cleanup_free_ char *error = NULL;
        Unit *u = NULL;
        int r = unit_load_string(text, strlen(text), PATH, "test", NULL, NULL, NULL, &u, &error);
        ck_assert_msg(r == 0, "load failed with %d: %s", r, error ?: "(no message)");
        return u;
}

static char *load_fail(const char *text, int error) {
        char *message = NULL;
        Unit *u = NULL;
        int r = unit_load_string(text, strlen(text), PATH, "test", NULL, NULL, NULL, &u, &message);
        ck_assert_msg(r == error, "got %d, want %d (%s)", r, error, message ?: "(no message)");
        ck_assert_ptr_null(u);
        ck_assert_ptr_nonnull(message);
        return message;
}

START_TEST(test_types) {
        static const struct {
                const char *value;
                ServiceType type;
        } cases[] = {
                { "forking", SERVICE_TYPE_FORKING },
                { "idle", SERVICE_TYPE_IDLE },
                { "dbus", SERVICE_TYPE_DBUS },
                { "simple", SERVICE_TYPE_SIMPLE },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char text[128];
                snprintf(text, sizeof(text), "[Service]\nExecStart=/bin/true\nType=%s\nBusName=org.example.X\n",
                         cases[i].value);
                _cleanup_(unit_freep) Unit *u = load_ok(text);
                ck_assert_int_eq(u->type, cases[i].type);
                ck_assert_str_eq(service_type_to_string(u->type), cases[i].value);
        }
        _cleanup_free_ char *m = load_fail("[Service]\nExecStart=/bin/true\nType=notify-reload\n", -EOPNOTSUPP);
        ck_assert_str_eq(m, PATH ":3: Invalid value 'notify-reload' for Type=: not supported (supported: simple, exec, "
                            "notify, oneshot, forking, idle, dbus)");
}
END_TEST

START_TEST(test_private_pids_default) {
        Unit *u;

        /* Type=forking: a PID namespace unless PrivatePIDs=no says otherwise. */
        u = load_ok("[Service]\nExecStart=/bin/true\nType=forking\n");
        ck_assert(unit_private_pids(u));
        unit_free(u);
        u = load_ok("[Service]\nExecStart=/bin/true\nType=forking\nPrivatePIDs=no\n");
        ck_assert(!unit_private_pids(u));
        unit_free(u);
        /* An empty assignment restores the default. */
        u = load_ok("[Service]\nExecStart=/bin/true\nType=forking\nPrivatePIDs=no\nPrivatePIDs=\n");
        ck_assert(unit_private_pids(u));
        unit_free(u);
        /* Every other type: none unless asked for. */
        u = load_ok("[Service]\nExecStart=/bin/true\nType=simple\n");
        ck_assert(!unit_private_pids(u));
        unit_free(u);
        u = load_ok("[Service]\nExecStart=/bin/true\nType=idle\nPrivatePIDs=yes\n");
        ck_assert(unit_private_pids(u));
        unit_free(u);
}
END_TEST

START_TEST(test_pid_file) {
        Unit *u;

        u = load_ok("[Service]\nExecStart=/bin/true\nType=forking\nPIDFile=/run/nginx.pid\n");
        ck_assert_str_eq(u->pid_file, "/run/nginx.pid");
        unit_free(u);
        /* A relative path is below /run (systemd.service(5)). */
        u = load_ok("[Service]\nExecStart=/bin/true\nPIDFile=chrony/chronyd.pid\n");
        ck_assert_str_eq(u->pid_file, "/run/chrony/chronyd.pid");
        unit_free(u);
        /* Specifiers: %t is the runtime directory; %n the unit's name. */
        u = load_ok("[Service]\nExecStart=/bin/true\nPIDFile=/run/%N.pid\n");
        ck_assert_str_eq(u->pid_file, "/run/test.pid");
        unit_free(u);
        /* Empty: none. */
        u = load_ok("[Service]\nExecStart=/bin/true\nPIDFile=/run/x.pid\nPIDFile=\n");
        ck_assert_ptr_null(u->pid_file);
        unit_free(u);
        _cleanup_free_ char *m = load_fail("[Service]\nExecStart=/bin/true\nPIDFile=/run/%Q\n", -EINVAL);
        ck_assert_msg(strstr(m, PATH ":3: Invalid value '/run/%Q' for PIDFile=:"), "%s", m);
}
END_TEST

START_TEST(test_notify_access) {
        static const struct {
                const char *text;
                NotifyAccess access;
        } cases[] = {
                { "Type=notify\n", NOTIFY_ACCESS_MAIN },
                { "Type=simple\n", NOTIFY_ACCESS_NONE },
                { "Type=simple\nWatchdogSec=5\n", NOTIFY_ACCESS_MAIN },
                { "Type=notify\nNotifyAccess=all\n", NOTIFY_ACCESS_ALL },
                { "Type=notify\nNotifyAccess=none\n", NOTIFY_ACCESS_NONE },
                { "Type=forking\nNotifyAccess=exec\n", NOTIFY_ACCESS_EXEC },
                { "Type=simple\nNotifyAccess=main\n", NOTIFY_ACCESS_MAIN },
                { "Type=notify\nNotifyAccess=none\nNotifyAccess=\n", NOTIFY_ACCESS_MAIN },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char text[256];
                snprintf(text, sizeof(text), "[Service]\nExecStart=/bin/true\n%s", cases[i].text);
                _cleanup_(unit_freep) Unit *u = load_ok(text);
                ck_assert_msg(unit_notify_access(u) == cases[i].access, "%s: %d", cases[i].text, unit_notify_access(u));
        }
        _cleanup_free_ char *m = load_fail("[Service]\nExecStart=/bin/true\nNotifyAccess=some\n", -EINVAL);
        ck_assert_str_eq(m, PATH ":3: Invalid value 'some' for NotifyAccess=: expected none, main, exec or all");
}
END_TEST

START_TEST(test_bus_name) {
        static const char *const good[] = { "org.freedesktop.NetworkManager", "a.b", "org.example.my-daemon",
                                            "_x.y_2" };
        static const char *const bad[] = { "org", ".org.x", "org.x.", "org..x", "org.9x", "9org.x", "org.x!",
                                           ":1.42" };
        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                char text[256];
                snprintf(text, sizeof(text), "[Service]\nExecStart=/bin/true\nType=dbus\nBusName=%s\n", good[i]);
                _cleanup_(unit_freep) Unit *u = load_ok(text);
                ck_assert_str_eq(u->bus_name, good[i]);
        }
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                char text[256], want[256];
                snprintf(text, sizeof(text), "[Service]\nExecStart=/bin/true\nBusName=%s\n", bad[i]);
                snprintf(want, sizeof(want), PATH ":3: Invalid value '%s' for BusName=: expected a well-known D-Bus name",
                         bad[i]);
                _cleanup_free_ char *m = load_fail(text, -EINVAL);
                ck_assert_msg(strncmp(m, want, strlen(want)) == 0, "%s", m);
        }
        /* Type=dbus without a name cannot tell when it is ready. */
        _cleanup_free_ char *m = load_fail("[Service]\nExecStart=/bin/true\nType=dbus\n", -EINVAL);
        ck_assert_str_eq(m, PATH ": Type=dbus needs BusName=");
}
END_TEST

START_TEST(test_exec_directories) {
        Unit *u = load_ok("[Service]\nExecStart=/bin/true\nRuntimeDirectory=a b/c\nRuntimeDirectory=%N\n"
                          "RuntimeDirectoryMode=0700\nStateDirectory=s\nCacheDirectory=c\nLogsDirectory=l\n"
                          "ConfigurationDirectory=f\nStateDirectoryMode=750\nRuntimeDirectoryPreserve=restart\n");
        ck_assert_str_eq(u->exec_directories[EXEC_DIRECTORY_RUNTIME][0], "a");
        ck_assert_str_eq(u->exec_directories[EXEC_DIRECTORY_RUNTIME][1], "b/c");
        ck_assert_str_eq(u->exec_directories[EXEC_DIRECTORY_RUNTIME][2], "test");
        ck_assert_ptr_null(u->exec_directories[EXEC_DIRECTORY_RUNTIME][3]);
        ck_assert_str_eq(u->exec_directories[EXEC_DIRECTORY_STATE][0], "s");
        ck_assert_str_eq(u->exec_directories[EXEC_DIRECTORY_CACHE][0], "c");
        ck_assert_str_eq(u->exec_directories[EXEC_DIRECTORY_LOGS][0], "l");
        ck_assert_str_eq(u->exec_directories[EXEC_DIRECTORY_CONFIGURATION][0], "f");
        ck_assert_int_eq(u->exec_directory_mode[EXEC_DIRECTORY_RUNTIME], 0700);
        ck_assert_int_eq(u->exec_directory_mode[EXEC_DIRECTORY_STATE], 0750);
        ck_assert_int_eq(u->exec_directory_mode[EXEC_DIRECTORY_CACHE], 0755);
        ck_assert_int_eq(u->runtime_directory_preserve, EXEC_PRESERVE_RESTART);
        unit_free(u);

        /* Empty resets the list and the mode; booleans for the preserve key. */
        u = load_ok("[Service]\nExecStart=/bin/true\nRuntimeDirectory=a\nRuntimeDirectory=\n"
                    "RuntimeDirectoryMode=0700\nRuntimeDirectoryMode=\nRuntimeDirectoryPreserve=yes\n");
        ck_assert_ptr_null(u->exec_directories[EXEC_DIRECTORY_RUNTIME]);
        ck_assert_int_eq(u->exec_directory_mode[EXEC_DIRECTORY_RUNTIME], 0755);
        ck_assert_int_eq(u->runtime_directory_preserve, EXEC_PRESERVE_YES);
        unit_free(u);
        /* Set-id and sticky bits (redis-server.service: RuntimeDirectoryMode=2755). */
        u = load_ok("[Service]\nExecStart=/bin/true\nRuntimeDirectoryMode=2755\nCacheDirectoryMode=1777\n");
        ck_assert_int_eq(u->exec_directory_mode[EXEC_DIRECTORY_RUNTIME], 02755);
        ck_assert_int_eq(u->exec_directory_mode[EXEC_DIRECTORY_CACHE], 01777);
        unit_free(u);

        static const struct {
                const char *line;
                int error;
        } bad[] = {
                { "RuntimeDirectory=/abs", -EINVAL },    { "StateDirectory=a/../b", -EINVAL },
                { "CacheDirectory=./a", -EINVAL },       { "LogsDirectory=a//b", -EINVAL },
                { "RuntimeDirectory=a:b", -EOPNOTSUPP }, { "RuntimeDirectoryMode=0999", -EINVAL },
                { "StateDirectoryMode=17777", -EINVAL },
                { "RuntimeDirectoryPreserve=later", -EINVAL },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                char text[256];
                snprintf(text, sizeof(text), "[Service]\nExecStart=/bin/true\n%s\n", bad[i].line);
                _cleanup_free_ char *m = load_fail(text, bad[i].error);
                ck_assert_msg(strstr(m, PATH ":3: Invalid value"), "%s", m);
        }
}
END_TEST

START_TEST(test_percent_limits) {
        long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
        Unit *u = load_ok("[Service]\nExecStart=/bin/true\nTasksMax=50%\nMemoryMax=25%\n");
        ck_assert_uint_eq(u->memory_max, (uint64_t) pages * (uint64_t) size / 10000 * 2500);
        ck_assert_uint_gt(u->tasks_max, 0);
        ck_assert_uint_lt(u->tasks_max, UINT64_MAX);
        uint64_t half = u->tasks_max;
        unit_free(u);
        u = load_ok("[Service]\nExecStart=/bin/true\nTasksMax=100%\n");
        ck_assert_msg(u->tasks_max >= 2 * half - 1 && u->tasks_max <= 2 * half + 1, "%ju vs %ju",
                      (uintmax_t) u->tasks_max, (uintmax_t) half);
        unit_free(u);
        u = load_ok("[Service]\nExecStart=/bin/true\nTasksMax=99.5%\nMemoryMax=1G\n");
        ck_assert_uint_eq(u->memory_max, UINT64_C(1) << 30);
        unit_free(u);
        static const char *const bad[] = { "TasksMax=0%", "TasksMax=101%", "TasksMax=-5%", "TasksMax=x%",
                                           "MemoryMax=150%", "MemoryMax=%" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                char text[128];
                snprintf(text, sizeof(text), "[Service]\nExecStart=/bin/true\n%s\n", bad[i]);
                _cleanup_free_ char *m = load_fail(text, -EINVAL);
                ck_assert_msg(strstr(m, PATH ":3: Invalid value"), "%s: %s", bad[i], m);
        }
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("unit-exec-env");
        TCase *tc = tcase_create("types");
        tcase_add_test(tc, test_types);
        tcase_add_test(tc, test_private_pids_default);
        tcase_add_test(tc, test_pid_file);
        tcase_add_test(tc, test_notify_access);
        tcase_add_test(tc, test_bus_name);
        tcase_add_test(tc, test_exec_directories);
        tcase_add_test(tc, test_percent_limits);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(suite());
}
