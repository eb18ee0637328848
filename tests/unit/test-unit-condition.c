/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Condition*= and Assert*= (unit-condition.c): parsing through the unit parser ('!', '|', empty
 * assignments, bad parameters) and the checks against files this test makes and facts it reads. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "basic/macros.h"
#include "unit.h"
#include "check-run.h"

static char tmp[] = "/tmp/svd-test-cond.XXXXXX";

static void setup(void) {
        ck_assert_ptr_nonnull(mkdtemp(tmp));
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

static void teardown(void) {
        (void) nftw(tmp, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static bool prctl_capbset_has_chown(void) {
        return prctl(PR_CAPBSET_READ, 0 /* CAP_CHOWN */, 0, 0, 0) > 0;
}

static Unit *load(const char *unit_section) {
        _cleanup_free_ char *text = NULL, *error = NULL;
        Unit *u = NULL;

        ck_assert_int_ge(asprintf(&text, "[Unit]\n%s\n[Service]\nExecStart=/bin/true\n", unit_section), 0);
        int r = unit_load_string(text, strlen(text), "test.service", "test", NULL, NULL, NULL, &u, &error);
        ck_assert_msg(r == 0, "load failed: %s", error ?: "?");
        return u;
}

static int load_error(const char *unit_section, char **ret_error) {
        _cleanup_free_ char *text = NULL;
        Unit *u = NULL;

        ck_assert_int_ge(asprintf(&text, "[Unit]\n%s\n[Service]\nExecStart=/bin/true\n", unit_section), 0);
        int r = unit_load_string(text, strlen(text), "test.service", "test", NULL, NULL, NULL, &u, ret_error);
        ck_assert_msg(r < 0, "'%s' loaded", unit_section);
        return r;
}

/* 1 when the conditions (asserts) of the unit allow a start; *failed gets the one that did not. */
static int check(const char *unit_section, bool asserts, char **failed) {
        _cleanup_(unit_freep) Unit *u = load(unit_section);
        char *f = NULL;
        int r = unit_conditions_test(&u->conditions, asserts, &f);
        ck_assert_int_ge(r, 0);
        if (failed)
                *failed = f;
        else
                free(f);
        return r;
}

_printf_(1, 2) static bool holds(const char *fmt, ...) {
        _cleanup_free_ char *line = NULL;
        va_list ap;
        va_start(ap, fmt);
        ck_assert_int_ge(vasprintf(&line, fmt, ap), 0);
        va_end(ap);
        return check(line, /* asserts= */ false, NULL) == 1;
}

START_TEST(test_parse) {
        _cleanup_(unit_freep) Unit *u = load("ConditionPathExists=|!/a\n"
                                             "AssertPathIsDirectory=/b\n"
                                             "ConditionHost=%n\n");
        ck_assert_int_eq(u->conditions.n, 3);
        UnitCondition *c = &u->conditions.items[0];
        ck_assert_int_eq(c->type, CONDITION_PATH_EXISTS);
        ck_assert(c->trigger && c->negate && !c->assertion);
        ck_assert_str_eq(c->parameter, "/a");
        ck_assert(u->conditions.items[1].assertion);
        ck_assert_str_eq(u->conditions.items[2].parameter, "test.service"); /* specifiers resolved */

        /* An empty Condition*= drops every condition, of any kind, and leaves the assertions. */
        unit_free(u);
        u = load("ConditionPathExists=/a\nConditionHost=x\nAssertHost=y\nConditionFirstBoot=\n"
                 "ConditionPathIsDirectory=/c\n");
        ck_assert_int_eq(u->conditions.n, 2);
        ck_assert(u->conditions.items[0].assertion);
        ck_assert_str_eq(u->conditions.items[1].parameter, "/c");
        unit_free(u);
        u = load("AssertPathExists=/a\nConditionHost=x\nAssertUser=\n");
        ck_assert_int_eq(u->conditions.n, 1);
        ck_assert(!u->conditions.items[0].assertion);
}
END_TEST

START_TEST(test_parse_errors) {
        static const char *const bad[] = {
                "ConditionPathExists=relative/path",
                "AssertFileNotEmpty=!",
                "ConditionACPower=maybe",
                "ConditionFirstBoot=sometimes",
                "ConditionCapability=CAP_NO_SUCH_THING",
                "ConditionCPUs=>=many",
                "ConditionCredential=a/b",
                "ConditionHost=two words",
                "ConditionPathExists=/%z",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                _cleanup_free_ char *error = NULL;
                ck_assert_int_eq(load_error(bad[i], &error), -EINVAL);
                ck_assert_msg(error && strstr(error, "test.service:2: Invalid value"), "%s: %s", bad[i], error);
        }
}
END_TEST

START_TEST(test_paths) {
        char p[256];

        snprintf(p, sizeof(p), "%s/file", tmp);
        ck_assert(!holds("ConditionPathExists=%s", p));
        ck_assert(holds("ConditionPathExists=!%s", p));
        ck_assert(!holds("ConditionFileNotEmpty=%s", p));
        int fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
        ck_assert_int_ge(fd, 0);
        ck_assert(holds("ConditionPathExists=%s", p));
        ck_assert(!holds("ConditionFileNotEmpty=%s", p)); /* empty */
        ck_assert_int_eq(write(fd, "x", 1), 1);
        close(fd);
        ck_assert(holds("ConditionFileNotEmpty=%s", p));
        ck_assert(!holds("ConditionFileIsExecutable=%s", p));
        ck_assert_int_eq(chmod(p, 0744), 0);
        ck_assert(holds("ConditionFileIsExecutable=%s", p));
        ck_assert(!holds("ConditionPathIsDirectory=%s", p));
        ck_assert(holds("ConditionPathIsDirectory=%s", tmp));
        ck_assert(holds("ConditionPathExistsGlob=%s/f*e", tmp));
        ck_assert(!holds("ConditionPathExistsGlob=%s/g*", tmp));
        ck_assert(holds("ConditionPathIsReadWrite=%s", tmp));
        ck_assert(!holds("ConditionPathIsReadWrite=%s/missing", tmp));
        /* /proc rather than /, which is no mount point in a chroot. */
        if (access("/proc/self", F_OK) >= 0)
                ck_assert(holds("ConditionPathIsMountPoint=/proc"));
        ck_assert(!holds("ConditionPathIsMountPoint=%s", tmp));

        char l[256];
        snprintf(l, sizeof(l), "%s/link", tmp);
        ck_assert_int_eq(symlink(p, l), 0);
        ck_assert(holds("ConditionPathIsSymbolicLink=%s", l));
        ck_assert(!holds("ConditionPathIsSymbolicLink=%s", p));

        /* DirectoryNotEmpty=: hidden and backup files do not count; a file is no directory. */
        char d[256], f[300];
        snprintf(d, sizeof(d), "%s/dir", tmp);
        ck_assert_int_eq(mkdir(d, 0755), 0);
        ck_assert(!holds("ConditionDirectoryNotEmpty=%s", d));
        snprintf(f, sizeof(f), "%s/.hidden", d);
        ck_assert_int_eq(close(open(f, O_CREAT | O_WRONLY | O_CLOEXEC, 0644)), 0);
        snprintf(f, sizeof(f), "%s/x.dpkg-old", d);
        ck_assert_int_eq(close(open(f, O_CREAT | O_WRONLY | O_CLOEXEC, 0644)), 0);
        ck_assert(!holds("ConditionDirectoryNotEmpty=%s", d));
        snprintf(f, sizeof(f), "%s/real", d);
        ck_assert_int_eq(close(open(f, O_CREAT | O_WRONLY | O_CLOEXEC, 0644)), 0);
        ck_assert(holds("ConditionDirectoryNotEmpty=%s", d));
        ck_assert(!holds("ConditionDirectoryNotEmpty=%s", p));
        ck_assert(!holds("ConditionDirectoryNotEmpty=%s/missing", tmp));

        /* NeedsUpdate=: a missing stamp file means an update is due; a newer one that none is. */
        ck_assert(holds("ConditionNeedsUpdate=%s", d));
        snprintf(f, sizeof(f), "%s/.updated", d);
        ck_assert_int_eq(close(open(f, O_CREAT | O_WRONLY | O_CLOEXEC, 0644)), 0);
        ck_assert(!holds("ConditionNeedsUpdate=%s", d));
}
END_TEST

START_TEST(test_combination) {
        _cleanup_free_ char *failed = NULL;

        /* Every plain condition must hold; of the triggering ones, one. */
        ck_assert_int_eq(check("ConditionPathExists=/\nConditionPathExists=|/nonexistent\nConditionPathExists=|/",
                               false, NULL),
                         1);
        ck_assert_int_eq(check("ConditionPathExists=|/nonexistent\nConditionPathExists=|!/", false, &failed), 0);
        ck_assert_str_eq(failed, "ConditionPathExists=|/nonexistent and the 1 other triggering ones");
        free(failed);
        ck_assert_int_eq(check("ConditionPathExists=|/\nConditionPathExists=!/", false, &failed), 0);
        ck_assert_str_eq(failed, "ConditionPathExists=!/");
        free(failed);
        failed = NULL;

        /* Assertions are checked apart from conditions. */
        ck_assert_int_eq(check("AssertPathExists=/nonexistent\nConditionPathExists=/", false, NULL), 1);
        ck_assert_int_eq(check("AssertPathExists=/nonexistent\nConditionPathExists=/", true, &failed), 0);
        ck_assert_str_eq(failed, "AssertPathExists=/nonexistent");
}
END_TEST

START_TEST(test_facts) {
        char host[256] = {};
        struct utsname u;

        /* The manager's own user, groups, environment. */
        ck_assert(holds("ConditionUser=%u", (unsigned) getuid()));
        ck_assert(!holds("ConditionUser=%u", (unsigned) getuid() + 1));
        ck_assert(holds("ConditionUser=%s", getuid() < 1000 ? "@system" : "!@system"));
        ck_assert(holds("ConditionUser=!no-such-user-svd-test"));
        if (getuid() == 0)
                ck_assert(holds("ConditionUser=root"));
        ck_assert(holds("ConditionGroup=%u", (unsigned) getgid()));
        ck_assert(!holds("ConditionGroup=no-such-group-svd-test"));
        ck_assert_int_eq(setenv("SVD_COND_TEST", "v", 1), 0);
        ck_assert(holds("ConditionEnvironment=SVD_COND_TEST"));
        ck_assert(holds("ConditionEnvironment=SVD_COND_TEST=v"));
        ck_assert(!holds("ConditionEnvironment=SVD_COND_TEST=w"));
        ck_assert(!holds("ConditionEnvironment=SVD_COND_TES"));

        ck_assert_int_eq(gethostname(host, sizeof(host) - 1), 0);
        ck_assert(holds("ConditionHost=%s", host));
        ck_assert(holds("ConditionHost=!%s-not", host));
        ck_assert(holds("ConditionHost=*"));

        ck_assert(holds("ConditionCPUs=>=1"));
        ck_assert(!holds("ConditionCPUs=<1"));
        ck_assert(holds("ConditionCPUs=!=0"));
        ck_assert_int_eq(uname(&u), 0);
        if (streq(u.machine, "x86_64")) {
                ck_assert(holds("ConditionArchitecture=x86-64"));
                ck_assert(holds("ConditionArchitecture=native"));
                ck_assert(!holds("ConditionArchitecture=arm64"));
        }
        ck_assert(!holds("ConditionSecurity=no-such-module"));

        /* The bounding set of this process: CAP_CHOWN is in it unless someone dropped it. */
        ck_assert(holds("ConditionCapability=%sCAP_CHOWN", prctl_capbset_has_chown() ? "" : "!"));
}
END_TEST

START_TEST(test_kernel_command_line) {
        FILE *f = fopen("/proc/cmdline", "re");
        char line[4096] = {}, word[4096] = {};
        bool container = false;

        (void) condition_detect_virtualization(&container);
        if (!f || container || !fgets(line, sizeof(line), f) || sscanf(line, "%4095s", word) != 1) {
                if (f)
                        fclose(f);
                return; /* nothing to compare with here */
        }
        fclose(f);
        ck_assert(holds("ConditionKernelCommandLine=%s", word));
        ck_assert(!holds("ConditionKernelCommandLine=svd.no-such-option"));
        char *eq = strchr(word, '=');
        if (eq) {
                /* "key" matches "key=value"; "key=value" only itself. */
                *eq = '\0';
                ck_assert(holds("ConditionKernelCommandLine=%s", word));
                ck_assert(!holds("ConditionKernelCommandLine=%s=svd-other-value", word));
        }
}
END_TEST

START_TEST(test_virtualization) {
        bool container = false;
        const char *v = condition_detect_virtualization(&container);

        ck_assert_ptr_nonnull(v);
        bool any = !streq(v, "none");
        ck_assert(holds("ConditionVirtualization=%s", any ? "yes" : "no"));
        ck_assert(!holds("ConditionVirtualization=%s", any ? "no" : "yes"));
        ck_assert(holds("ConditionVirtualization=%scontainer", container ? "" : "!"));
        ck_assert(holds("ConditionVirtualization=%svm", any && !container ? "" : "!"));
        if (any)
                ck_assert(holds("ConditionVirtualization=%s", v));
        ck_assert(!holds("ConditionVirtualization=no-such-hypervisor"));
}
END_TEST

/* Not a condition, but the same [Unit] bookkeeping: what svd does not apply is listed. */
START_TEST(test_not_applied) {
        _cleanup_(unit_freep) Unit *u = load("After=network.target foo.service\n"
                                             "Wants=network-online.target\n"
                                             "IgnoreOnIsolate=yes\n"
                                             "X-Vendor=ignored silently\n"
                                             "[Service]\n"
                                             "Nice=5\n"
                                             "IOSchedulingClass=idle\n"
                                             "IOSchedulingClass=\n"
                                             "Nice=7\n"
                                             "[Install]\n"
                                             "WantedBy=multi-user.target graphical.target");
        static const char *const want[] = { "After=network.target", "Wants=network-online.target",
                                            "IgnoreOnIsolate=", "Nice=", "WantedBy=graphical.target", NULL };
        size_t i = 0;
        for (; want[i]; i++) {
                ck_assert_msg(u->not_applied && u->not_applied[i], "entry %zu missing, want '%s'", i, want[i]);
                ck_assert_str_eq(u->not_applied[i], want[i]);
        }
        ck_assert_ptr_null(u->not_applied[i]);
        unit_free(u);
        u = load("Description=x");
        ck_assert_ptr_null(u->not_applied);
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("unit-condition");
        TCase *tc = tcase_create("conditions");

        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_parse);
        tcase_add_test(tc, test_parse_errors);
        tcase_add_test(tc, test_paths);
        tcase_add_test(tc, test_combination);
        tcase_add_test(tc, test_facts);
        tcase_add_test(tc, test_kernel_command_line);
        tcase_add_test(tc, test_virtualization);
        tcase_add_test(tc, test_not_applied);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(suite());
}
