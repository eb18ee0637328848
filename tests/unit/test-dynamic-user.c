/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* DynamicUser=: the allocator (dynamic-user.c) in a lock directory of the test's own, and the unit
 * keys that change who a service runs as (unit-load.c). Unprivileged. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/macros.h"
#include "basic/strv.h"
#include "dynamic-user.h"
#include "unit.h"

#include "check-run.h"

static char lock_dir[] = "/tmp/svd-test-dynuser-XXXXXX";

static void remove_lock_dir(void) {
        (void) rmdir(lock_dir);
}

static void make_lock_dir(void) {
        ck_assert_ptr_nonnull(mkdtemp(lock_dir));
        ck_assert_int_eq(atexit(remove_lock_dir), 0);
}

static bool held_elsewhere(uid_t uid) {
        char path[128];
        (void) snprintf(path, sizeof(path), "%s/%u", lock_dir, (unsigned) uid);
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return false;
        return flock(fd, LOCK_EX | LOCK_NB) < 0; /* another open file description holds it */
}

START_TEST(test_acquire_in_range_and_exclusive) {
        uid_t a, b;
        int fa = -EBADF, fb = -EBADF;

        make_lock_dir();
        ck_assert_int_eq(dynamic_user_acquire(lock_dir, "web", (uid_t) -1, &a, &fa), 0);
        ck_assert(dynamic_uid_is_valid(a));
        ck_assert(held_elsewhere(a));
        /* The same name again, while the first holds it: the next free uid, not the same one. */
        ck_assert_int_eq(dynamic_user_acquire(lock_dir, "web", (uid_t) -1, &b, &fb), 0);
        ck_assert(dynamic_uid_is_valid(b));
        ck_assert_uint_ne(a, b);
        /* Given back: the file goes, and the name gets its uid again. */
        ck_assert_int_eq(dynamic_user_release(lock_dir, a, fa), -EBADF);
        ck_assert(!held_elsewhere(a));
        uid_t c;
        int fc = -EBADF;
        ck_assert_int_eq(dynamic_user_acquire(lock_dir, "web", (uid_t) -1, &c, &fc), 0);
        ck_assert_uint_eq(c, a);
        (void) dynamic_user_release(lock_dir, b, fb);
        (void) dynamic_user_release(lock_dir, c, fc);
}
END_TEST

START_TEST(test_hash_is_stable_and_hint_first) {
        uid_t u;
        int fd = -EBADF;

        make_lock_dir();
        ck_assert_uint_eq(dynamic_user_hash_uid("web"), dynamic_user_hash_uid("web"));
        ck_assert(dynamic_uid_is_valid(dynamic_user_hash_uid("")));
        /* A hint in the range wins over the hash; one outside it is ignored. */
        uid_t hint = dynamic_user_hash_uid("web") == 62000 ? 62001 : 62000;
        ck_assert_int_eq(dynamic_user_acquire(lock_dir, "web", hint, &u, &fd), 0);
        ck_assert_uint_eq(u, hint);
        (void) dynamic_user_release(lock_dir, u, fd);
        ck_assert_int_eq(dynamic_user_acquire(lock_dir, "web", 0, &u, &fd), 0);
        ck_assert(dynamic_uid_is_valid(u));
        (void) dynamic_user_release(lock_dir, u, fd);
}
END_TEST

START_TEST(test_stale_lock_file_is_free) {
        char path[128];
        uid_t u;
        int fd = -EBADF;

        make_lock_dir();
        /* A file left by a crashed svd, locked by nobody: the uid is free. */
        uid_t h = dynamic_user_hash_uid("db");
        (void) snprintf(path, sizeof(path), "%s/%u", lock_dir, (unsigned) h);
        int f = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        ck_assert_int_ge(f, 0);
        close(f);
        ck_assert_int_eq(dynamic_user_acquire(lock_dir, "db", (uid_t) -1, &u, &fd), 0);
        ck_assert_uint_eq(u, h);
        (void) dynamic_user_release(lock_dir, u, fd);
}
END_TEST

/* ---- unit keys ---- */

static Unit *load(const char *name, const char *text, char **ret_error) {
        Unit *u = NULL;
        *ret_error = NULL;
        (void) unit_load_string(text, strlen(text), "test.service", name, NULL, NULL, NULL, &u, ret_error);
        return u;
}

START_TEST(test_dynamic_user_implies) {
        _cleanup_free_ char *e = NULL;
        _cleanup_(unit_freep) Unit *u = load("web", "[Service]\nExecStart=/bin/true\nDynamicUser=yes\n"
                                                    "ProtectSystem=full\nNoNewPrivileges=no\nPrivateTmp=no\n", &e);
        ck_assert_msg(u, "%s", e);
        ck_assert(u->dynamic_user);
        ck_assert_str_eq(u->user, "web");
        ck_assert_int_eq(u->sandbox.protect_system, PROTECT_SYSTEM_STRICT);
        ck_assert_int_eq(u->sandbox.protect_home, PROTECT_HOME_READ_ONLY);
        ck_assert(u->sandbox.private_tmp);
        ck_assert(u->sandbox.remove_ipc);
        ck_assert(u->sandbox.restrict_suid_sgid);
        ck_assert(u->no_new_privileges);
        ck_assert_ptr_null(u->not_applied);

        /* ProtectHome= is only raised from "no"; User= gives the name. */
        unit_free(u);
        u = load("web", "[Service]\nExecStart=/bin/true\nDynamicUser=yes\nProtectHome=yes\nUser=svc\n", &e);
        ck_assert_msg(u, "%s", e);
        ck_assert_int_eq(u->sandbox.protect_home, PROTECT_HOME_YES);
        ck_assert_str_eq(u->user, "svc");
}
END_TEST

START_TEST(test_dynamic_user_name) {
        _cleanup_free_ char *a = NULL, *b = NULL, *c = NULL, *d = NULL;
        ck_assert_int_eq(unit_dynamic_user_name("web", &a), 0);
        ck_assert_str_eq(a, "web");
        ck_assert_int_eq(unit_dynamic_user_name("getty@tty1", &b), 0);
        ck_assert_uint_eq(strlen(b), 3 + 16);
        ck_assert(strneq(b, "_du", 3));
        ck_assert_int_eq(unit_dynamic_user_name("1abc", &c), 0);
        ck_assert(strneq(c, "_du", 3));
        ck_assert_int_eq(unit_dynamic_user_name("a-very-long-unit-name-of-more-than-31", &d), 0);
        ck_assert(strneq(d, "_du", 3));
}
END_TEST

START_TEST(test_pam_name) {
        _cleanup_free_ char *e = NULL;
        /* With a user: a PAM session svd does not open would restrict it. */
        Unit *u = load("web", "[Service]\nExecStart=/bin/true\nPAMName=login\nUser=nobody\n", &e);
        ck_assert_ptr_null(u);
        ck_assert_msg(strstr(e, "test.service:3: PAMName= asks for a PAM session"), "%s", e);
        free(e);
        u = load("web", "[Service]\nExecStart=/bin/true\nDynamicUser=yes\nPAMName=login\n", &e);
        ck_assert_ptr_null(u);
        free(e);
        /* Without one systemd ignores it too; an empty assignment takes it back. */
        u = load("web", "[Service]\nExecStart=/bin/true\nPAMName=login\n", &e);
        ck_assert_msg(u, "%s", e);
        ck_assert(strv_contains(u->not_applied, "PAMName="));
        unit_free(u);
        u = load("web", "[Service]\nExecStart=/bin/true\nPAMName=login\nPAMName=\nUser=nobody\n", &e);
        ck_assert_msg(u, "%s", e);
        unit_free(u);
}
END_TEST

START_TEST(test_security_labels) {
        static const char *const keys[] = { "SELinuxContext", "AppArmorProfile", "SmackProcessLabel" };
        for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                char text[256], want[64];
                _cleanup_free_ char *e = NULL;
                (void) snprintf(text, sizeof(text), "[Service]\nExecStart=/bin/true\n%s=confined\n", keys[i]);
                Unit *u = load("web", text, &e);
                ck_assert_ptr_null(u);
                (void) snprintf(want, sizeof(want), "test.service:3: %s= asks for a security label", keys[i]);
                ck_assert_msg(strstr(e, want), "%s", e);
                free(e);
                /* "-": fine if it cannot be applied; then a sandboxing key svd does not enforce. */
                (void) snprintf(text, sizeof(text), "[Service]\nExecStart=/bin/true\n%s=-confined\n", keys[i]);
                u = load("web", text, &e);
                ck_assert_msg(u, "%s", e);
                (void) snprintf(want, sizeof(want), "%s=", keys[i]);
                /* Where the kernel has no AppArmor at all, "-" runs without the profile (test-sandbox). */
                if (streq(keys[i], "AppArmorProfile") && access("/sys/module/apparmor/parameters/enabled", F_OK) < 0)
                        ck_assert_ptr_null(u->sandbox.not_applied);
                else
                        ck_assert(strv_contains(u->sandbox.not_applied, want));
                unit_free(u);
        }
}
END_TEST

START_TEST(test_personality) {
        _cleanup_free_ char *e = NULL;
        Unit *u = load("web", "[Service]\nExecStart=/bin/true\n", &e);
        ck_assert_uint_eq(u->personality, UNIT_PERSONALITY_KEEP);
        unit_free(u);
#if defined(__x86_64__)
        u = load("web", "[Service]\nExecStart=/bin/true\nPersonality=x86\n", &e);
        ck_assert_msg(u, "%s", e);
        ck_assert_uint_eq(u->personality, 0x0008);
        ck_assert_ptr_null(u->not_applied);
        unit_free(u);
        u = load("web", "[Service]\nExecStart=/bin/true\nPersonality=x86-64\n", &e);
        ck_assert_uint_eq(u->personality, 0);
        unit_free(u);
#endif
        u = load("web", "[Service]\nExecStart=/bin/true\nPersonality=mips64-le\n", &e);
        ck_assert_ptr_null(u);
        ck_assert_msg(strstr(e, "Personality="), "%s", e);
}
END_TEST

START_TEST(test_implied_no_new_privileges) {
        static const char *const keys[] = {
                "SystemCallFilter=@system-service", "SystemCallArchitectures=native", "RestrictAddressFamilies=AF_UNIX",
                "RestrictNamespaces=yes", "PrivateDevices=yes", "ProtectKernelModules=yes", "ProtectKernelLogs=yes",
                "ProtectKernelTunables=yes", "ProtectClock=yes", "ProtectHostname=yes", "MemoryDenyWriteExecute=yes",
                "RestrictRealtime=yes", "RestrictSUIDSGID=yes", "LockPersonality=yes",
        };
        _cleanup_free_ char *e = NULL;
        Unit *u = load("web", "[Service]\nExecStart=/bin/true\nProtectSystem=strict\nPrivateTmp=yes\n", &e);
        ck_assert(!unit_implies_no_new_privileges(u));
        unit_free(u);
        for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                char text[256];
                (void) snprintf(text, sizeof(text), "[Service]\nExecStart=/bin/true\n%s\n", keys[i]);
                u = load("web", text, &e);
                ck_assert_msg(u, "%s", e);
                ck_assert_msg(unit_implies_no_new_privileges(u), "%s", keys[i]);
                unit_free(u);
        }
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("dynamic-user");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_acquire_in_range_and_exclusive);
        tcase_add_test(tc, test_hash_is_stable_and_hint_first);
        tcase_add_test(tc, test_stale_lock_file_is_free);
        tcase_add_test(tc, test_dynamic_user_implies);
        tcase_add_test(tc, test_dynamic_user_name);
        tcase_add_test(tc, test_pam_name);
        tcase_add_test(tc, test_security_labels);
        tcase_add_test(tc, test_personality);
        tcase_add_test(tc, test_implied_no_new_privileges);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(suite());
}
