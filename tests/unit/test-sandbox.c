/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sandboxing keys: their values as unit-parse.c and unit-sandbox.c parse them, the keys svd does not
 * enforce (recorded, never dropped), the order of the mount plan (spawn-sandbox.c), and the
 * seccomp filters compiling (spawn-seccomp.c). */
#include <check.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "basic/macros.h"
#include "basic/strv.h"
#include "basic/syscall-groups.h"
#include "spawn-sandbox.h"
#include "spawn-seccomp.h"
#include "unit.h"
#include "check-run.h"

static Unit *load(const char *body, char **ret_error) {
        char *text = NULL;
        Unit *u = NULL;
        ck_assert_int_ge(asprintf(&text, "[Service]\nExecStart=/bin/true\n%s", body), 0);
        (void) unit_load_string(text, strlen(text), "t.service", "t", NULL, NULL, NULL, &u, ret_error);
        free(text);
        return u;
}

static Unit *load_ok(const char *body) {
        char *error = NULL;
        Unit *u = load(body, &error);
        ck_assert_msg(u, "load failed: %s", error ?: "?");
        return u;
}

static void assert_fails(const char *body, const char *needle) {
        char *error = NULL;
        Unit *u = load(body, &error);
        ck_assert_ptr_null(u);
        ck_assert_msg(error && strstr(error, needle), "error '%s' lacks '%s'", error ?: "", needle);
        free(error);
}

START_TEST(test_mount_keys) {
        Unit *u = load_ok("PrivateTmp=yes\nProtectSystem=strict\nProtectHome=read-only\nPrivateDevices=1\n"
                          "ProtectProc=invisible\nProcSubset=pid\n"
                          "ReadOnlyPaths=/a -/b +/c\nReadOnlyPaths=/d\nReadWritePaths=/var/lib/x\n"
                          "InaccessiblePaths=\"/with space\"\n"
                          "TemporaryFileSystem=/t:ro,mode=0700 /u\n"
                          "BindPaths=/s:/d:norbind -/missing\nBindReadOnlyPaths=/r\n");
        const UnitSandbox *s = &u->sandbox;
        ck_assert(s->private_tmp && s->private_devices);
        ck_assert_int_eq(s->protect_system, PROTECT_SYSTEM_STRICT);
        ck_assert_int_eq(s->protect_home, PROTECT_HOME_READ_ONLY);
        ck_assert_int_eq(s->protect_proc, PROTECT_PROC_INVISIBLE);
        ck_assert_int_eq(s->proc_subset, PROC_SUBSET_PID);
        ck_assert_int_eq(strv_length(s->read_only_paths), 4);
        ck_assert_str_eq(s->read_only_paths[1], "-/b");
        ck_assert_str_eq(s->read_only_paths[2], "/c"); /* "+" dropped: no RootDirectory= */
        ck_assert_str_eq(s->inaccessible_paths[0], "/with space");
        ck_assert_uint_eq(s->n_temporary_filesystems, 2);
        ck_assert_str_eq(s->temporary_filesystems[0].options, "ro,mode=0700");
        ck_assert_ptr_null(s->temporary_filesystems[1].options);
        ck_assert_uint_eq(s->n_binds, 3);
        ck_assert(!s->binds[0].recursive && !s->binds[0].read_only);
        ck_assert_str_eq(s->binds[0].destination, "/d");
        ck_assert(s->binds[1].ignore_missing);
        ck_assert(s->binds[2].read_only);
        ck_assert_str_eq(s->binds[2].destination, "/r");
        ck_assert_ptr_null(s->not_applied);
        unit_free(u);

        /* An empty assignment resets. */
        u = load_ok("ReadOnlyPaths=/a\nReadOnlyPaths=\nProtectSystem=full\nProtectSystem=\n"
                    "BindPaths=/a\nBindReadOnlyPaths=/b\nBindPaths=\n");
        ck_assert_ptr_null(u->sandbox.read_only_paths);
        ck_assert_int_eq(u->sandbox.protect_system, PROTECT_SYSTEM_NO);
        ck_assert_uint_eq(u->sandbox.n_binds, 1);
        ck_assert(u->sandbox.binds[0].read_only);
        ck_assert(unit_sandbox_is_set(&u->sandbox));
        unit_free(u);

        assert_fails("ProtectSystem=very\n", "ProtectSystem=");
        assert_fails("ProtectHome=maybe\n", "ProtectHome=");
        assert_fails("ReadOnlyPaths=relative\n", "expected absolute paths");
        assert_fails("ReadWritePaths=/a/../b\n", "expected absolute paths");
        assert_fails("BindPaths=/a:/b:bogus\n", "rbind");
        assert_fails("ProtectProc=yes\n", "ProtectProc=");
        assert_fails("PrivateTmp=sometimes\n", "expected a boolean");
}
END_TEST

START_TEST(test_seccomp_keys) {
        Unit *u = load_ok("SystemCallFilter=@system-service @clock\nSystemCallFilter=~@privileged uname\n"
                          "SystemCallErrorNumber=EPERM\nSystemCallArchitectures=native\n"
                          "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6\nRestrictAddressFamilies=~AF_INET6\n"
                          "RestrictNamespaces=uts ipc\nRestrictRealtime=yes\nLockPersonality=yes\n"
                          "MemoryDenyWriteExecute=yes\nRestrictSUIDSGID=yes\n");
        const UnitSandbox *s = &u->sandbox;
        ck_assert(s->syscall_allow_list);
        ck_assert_int_eq(strv_length(s->syscall_filter), 4);
        ck_assert_str_eq(s->syscall_filter[0], "+@system-service");
        ck_assert_str_eq(s->syscall_filter[3], "-uname");
        ck_assert_int_eq(s->syscall_errno, EPERM);
        ck_assert(s->syscall_native_only);
        ck_assert(s->address_families_allow_list);
        ck_assert_uint_eq(s->n_address_families, 2); /* AF_INET6 taken out again */
        ck_assert_uint_eq(s->namespaces_allowed, CLONE_NEWUTS | CLONE_NEWIPC);
        ck_assert(s->restrict_realtime && s->lock_personality && s->memory_deny_write_execute &&
                  s->restrict_suid_sgid);
        unit_free(u);

        u = load_ok("SystemCallFilter=~@mount\nSystemCallErrorNumber=13\nRestrictNamespaces=~net\n"
                    "RestrictAddressFamilies=none\n");
        ck_assert(!u->sandbox.syscall_allow_list);
        ck_assert_int_eq(u->sandbox.syscall_errno, 13);
        ck_assert(!(u->sandbox.namespaces_allowed & CLONE_NEWNET));
        ck_assert(u->sandbox.namespaces_allowed & CLONE_NEWUSER);
        ck_assert(u->sandbox.address_families_set && u->sandbox.address_families_allow_list);
        ck_assert_uint_eq(u->sandbox.n_address_families, 0);
        unit_free(u);

        u = load_ok("RestrictNamespaces=yes\nSystemCallErrorNumber=kill\n");
        ck_assert_uint_eq(u->sandbox.namespaces_allowed, 0);
        ck_assert_int_eq(u->sandbox.syscall_errno, 0);
        unit_free(u);

        u = load_ok("PrivateUsers=yes\n");
        ck_assert_int_eq(u->sandbox.private_users, PRIVATE_USERS_SELF);
        ck_assert(unit_sandbox_is_set(&u->sandbox));
        unit_free(u);
        u = load_ok("PrivateUsers=identity\nPrivateUsers=self\nPrivateUsers=identity\n");
        ck_assert_int_eq(u->sandbox.private_users, PRIVATE_USERS_IDENTITY);
        unit_free(u);
        u = load_ok("PrivateUsers=yes\nPrivateUsers=\n");
        ck_assert_int_eq(u->sandbox.private_users, PRIVATE_USERS_NO);
        ck_assert(!unit_sandbox_is_set(&u->sandbox));
        unit_free(u);
        assert_fails("PrivateUsers=full\n", "'self' or 'identity'");

        u = load_ok("MountFlags=shared\nKeyringMode=shared\nSecureBits=noroot keep-caps\nSecureBits=noroot-locked\n"
                    "ExecPaths=/usr -/opt\nNoExecPaths=/\nProtectClock=yes\nPrivateMounts=yes\n");
        ck_assert_int_eq(u->sandbox.mount_propagation, MOUNT_PROPAGATION_SHARED);
        ck_assert_int_eq(u->sandbox.keyring_mode, KEYRING_MODE_SHARED);
        ck_assert_uint_eq(u->sandbox.secure_bits, (1U << 0) | (1U << 4) | (1U << 1));
        ck_assert_str_eq(u->sandbox.exec_paths[1], "-/opt");
        ck_assert_str_eq(u->sandbox.no_exec_paths[0], "/");
        ck_assert(u->sandbox.protect_clock && u->sandbox.private_mounts);
        ck_assert(!u->sandbox.remove_ipc);
        ck_assert(unit_sandbox_wants_mounts(&u->sandbox) && unit_sandbox_wants_seccomp(&u->sandbox));
        unit_free(u);
        u = load_ok("MountFlags=private\nMountFlags=\nKeyringMode=private\nKeyringMode=inherit\n"
                    "SecureBits=noroot\nSecureBits=\n");
        ck_assert(!unit_sandbox_is_set(&u->sandbox));
        unit_free(u);
        u = load_ok("RemoveIPC=yes\n");
        ck_assert(u->sandbox.remove_ipc);
        ck_assert_ptr_null(u->sandbox.not_applied);
        unit_free(u);
        assert_fails("MountFlags=rshared\n", "'shared', 'slave' or 'private'");
        assert_fails("KeyringMode=yes\n", "'inherit', 'private' or 'shared'");
        assert_fails("SecureBits=keep-caps bogus\n", "keep-caps-locked");
        assert_fails("NoExecPaths=relative\n", "absolute paths");

        assert_fails("SystemCallFilter=@no-such-group\n", "unknown system call group");
        assert_fails("SystemCallFilter=Uname\n", "invalid name");
        assert_fails("SystemCallErrorNumber=ENOTANERRNO\n", "errno name");
        assert_fails("SystemCallErrorNumber=4096\n", "SystemCallErrorNumber=");
        assert_fails("SystemCallArchitectures=x86\n", "native");
        assert_fails("RestrictAddressFamilies=AF_BOGUS\n", "unknown address family");
        assert_fails("RestrictNamespaces=bogus\n", "RestrictNamespaces=");
}
END_TEST

START_TEST(test_not_applied_recorded) {
        Unit *u = load_ok("RestrictNetworkInterfaces=eth0\nSystemCallLog=no\nMemoryKSM=no\n"
                          "RestrictNetworkInterfaces=eth1\nRestrictFileSystems=ext4\nSocketBindDeny=any\n");
        ck_assert_int_eq(strv_length(u->sandbox.not_applied), 3);
        ck_assert_str_eq(u->sandbox.not_applied[0], "RestrictNetworkInterfaces=");
        ck_assert_str_eq(u->sandbox.not_applied[1], "RestrictFileSystems=");
        ck_assert_str_eq(u->sandbox.not_applied[2], "SocketBindDeny=");
        ck_assert_uint_eq(u->sandbox.not_applied_line, 3);
        unit_free(u);

        /* An empty assignment takes one back. */
        u = load_ok("SocketBindDeny=any\nSocketBindDeny=\n");
        ck_assert_ptr_null(u->sandbox.not_applied);
        unit_free(u);

        /* A security label svd cannot apply: with '-', not applied where the kernel would enforce it
         * (systemd would apply it); without AppArmor in the kernel, ignored as systemd ignores it. */
        bool apparmor = access("/sys/module/apparmor/parameters/enabled", F_OK) == 0;
        char c = 0;
        FILE *f = apparmor ? fopen("/sys/module/apparmor/parameters/enabled", "re") : NULL;
        if (f) {
                apparmor = fread(&c, 1, 1, f) == 1 && c == 'Y';
                fclose(f);
        }
        u = load_ok("AppArmorProfile=-some_profile\n");
        if (apparmor)
                ck_assert_str_eq(u->sandbox.not_applied[0], "AppArmorProfile=");
        else
                ck_assert_ptr_null(u->sandbox.not_applied);
        unit_free(u);
        u = load_ok("SELinuxContext=-system_u:system_r:foo_t\n");
        ck_assert_str_eq(u->sandbox.not_applied[0], "SELinuxContext=");
        unit_free(u);

        /* Units without sandboxing keys have nothing to set up. */
        u = load_ok("User=nobody\n");
        ck_assert(!unit_sandbox_is_set(&u->sandbox));
        unit_free(u);
}
END_TEST

START_TEST(test_plan_order) {
        SandboxPlan *p = sandbox_plan_new();
        ck_assert_ptr_nonnull(p);
        ck_assert_int_eq(sandbox_plan_add(p, SANDBOX_MOUNT_INACCESSIBLE, SANDBOX_KEY_INACCESSIBLE_PATHS, "/a/b", NULL,
                                          NULL, 0, false), 0);
        ck_assert_int_eq(sandbox_plan_add(p, SANDBOX_MOUNT_READ_ONLY, SANDBOX_KEY_PROTECT_SYSTEM, "/", NULL, NULL, 0,
                                          false), 0);
        ck_assert_int_eq(sandbox_plan_add(p, SANDBOX_MOUNT_READ_ONLY, SANDBOX_KEY_READ_ONLY_PATHS, "/a/b", NULL, NULL,
                                          0, false), 0);
        ck_assert_int_eq(sandbox_plan_add(p, SANDBOX_MOUNT_READ_WRITE, SANDBOX_KEY_READ_WRITE_PATHS, "/a", NULL, NULL,
                                          0, false), 0);
        ck_assert_int_eq(sandbox_plan_add(p, SANDBOX_MOUNT_TMPFS, SANDBOX_KEY_TEMPORARY_FILE_SYSTEM, "/a-b", NULL,
                                          "mode=0755", 0, false), 0);
        ck_assert_int_eq(sandbox_plan_add_bind(p, SANDBOX_KEY_BIND_PATHS, "/src", "/a/b", true, false, false), 0);
        sandbox_plan_finish(p);
        /* Parents first ("/a" before "/a/b" before "/a-b"); on one path bind, read-only, inaccessible. */
        const char *paths[] = { "/", "/a", "/a/b", "/a/b", "/a/b", "/a-b" };
        const SandboxMountKind kinds[] = { SANDBOX_MOUNT_READ_ONLY, SANDBOX_MOUNT_READ_WRITE, SANDBOX_MOUNT_BIND,
                                           SANDBOX_MOUNT_READ_ONLY, SANDBOX_MOUNT_INACCESSIBLE, SANDBOX_MOUNT_TMPFS };
        ck_assert_uint_eq(p->n_mounts, 6);
        ck_assert_uint_eq(p->n_binds, 1);
        for (size_t i = 0; i < 6; i++) {
                ck_assert_str_eq(p->mounts[i].path, paths[i]);
                ck_assert_int_eq(p->mounts[i].kind, kinds[i]);
        }
        ck_assert_uint_eq(sandbox_plan_clone_flags(p), CLONE_NEWNS);
        ck_assert_str_eq(sandbox_key_to_string(SANDBOX_KEY_BIND_PATHS), "BindPaths=");
        /* An inaccessible path carries its parent: where the child attaches its tmpfs. */
        ck_assert_str_eq(p->mounts[4].source, "/a");
        sandbox_plan_free(p);
}
END_TEST

START_TEST(test_plan_inaccessible_parent) {
        static const char *const cases[][2] = {
                { "/x", "/" }, { "/a/b/", "/a" }, { "/a//b", "/a" }, { "/a/b/c", "/a/b" }, { "/", "/" },
        };
        SandboxPlan *p = sandbox_plan_new();
        ck_assert_ptr_nonnull(p);
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                ck_assert_int_eq(sandbox_plan_add(p, SANDBOX_MOUNT_INACCESSIBLE, SANDBOX_KEY_INACCESSIBLE_PATHS,
                                                  cases[i][0], NULL, NULL, 0, false), 0);
                ck_assert_str_eq(p->mounts[i].source, cases[i][1]);
        }
        sandbox_plan_free(p);
}
END_TEST

START_TEST(test_seccomp_build) {
        char *filter[] = { "+@system-service", "+@clock", "-uname", NULL };
        int families[] = { AF_UNIX, AF_INET };
        SeccompSettings s = {
                .syscall_filter = filter,
                .syscall_allow_list = true,
                .syscall_errno = EPERM,
                .native_only = true,
                .address_families = families,
                .n_address_families = 2,
                .address_families_set = true,
                .address_families_allow_list = true,
                .namespaces_allowed = 0,
                .restrict_realtime = true,
                .lock_personality = true,
                .memory_deny_write_execute = true,
                .restrict_suid_sgid = true,
                .protect_hostname = true,
                .private_devices = true,
        };
        SandboxPlan *p = sandbox_plan_new();
        SandboxKey key = _SANDBOX_KEY_INVALID;
        ck_assert(seccomp_settings_any(&s));
        ck_assert_int_eq(seccomp_plan_build(&s, p, &key), 0);
        /* One program per key; the architecture's first. */
        ck_assert_uint_eq(p->n_filters, 9);
        ck_assert_int_eq(p->filters[0].key, SANDBOX_KEY_SYSTEM_CALL_ARCHITECTURES);
        ck_assert_int_eq(p->filters[1].key, SANDBOX_KEY_SYSTEM_CALL_FILTER);
        for (size_t i = 0; i < p->n_filters; i++)
                ck_assert(p->filters[i].prog.len > 0 && p->filters[i].prog.filter);
        sandbox_plan_free(p);

        /* Nothing asked: no filter. */
        SeccompSettings none = { .namespaces_allowed = UINT64_MAX };
        ck_assert(!seccomp_settings_any(&none));
}
END_TEST

START_TEST(test_syscall_groups) {
        /* Every group named in a group exists. */
        for (const SyscallGroup *g = syscall_groups; g->name; g++)
                for (const char *const *m = g->members; *m; m++)
                        if ((*m)[0] == '@')
                                ck_assert_msg(syscall_group_find(*m), "%s names unknown %s", g->name, *m);
        ck_assert_ptr_nonnull(syscall_group_find("@system-service"));
        ck_assert_ptr_null(syscall_group_find("@nope"));
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("sandbox");
        TCase *tc = tcase_create("keys");
        tcase_add_test(tc, test_mount_keys);
        tcase_add_test(tc, test_seccomp_keys);
        tcase_add_test(tc, test_not_applied_recorded);
        tcase_add_test(tc, test_plan_order);
        tcase_add_test(tc, test_plan_inaccessible_parent);
        tcase_add_test(tc, test_seccomp_build);
        tcase_add_test(tc, test_syscall_groups);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(suite());
}
