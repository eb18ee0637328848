/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A unit's sandboxing keys (unit-sandbox.h) turned into what the child applies (spawn-sandbox.h), with
 * systemd.exec(5)'s meaning of each key. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>

#include "basic/macros.h"
#include "basic/strv.h"
#include "service-dirs.h"
#include "service-sandbox.h"
#include "spawn-seccomp.h"

#define CAP_BIT(n) (UINT64_C(1) << (n))
enum { CAP_SYS_MODULE_ = 16, CAP_SYS_RAWIO_ = 17, CAP_SYS_TIME_ = 25, CAP_MKNOD_ = 27, CAP_SYSLOG_ = 34, CAP_WAKE_ALARM_ = 35 };

static int add_paths(SandboxPlan *p, SandboxMountKind kind, SandboxKey key, char **paths) {
        for (char **i = paths; i && *i; i++) {
                const char *path = *i;
                bool missing_ok = path[0] == '-';
                int r = sandbox_plan_add(p, kind, key, path + missing_ok, NULL, NULL, 0, missing_ok);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int add_list(SandboxPlan *p, SandboxMountKind kind, SandboxKey key, const char *const *paths,
                    bool missing_ok) {
        for (; *paths; paths++) {
                int r = sandbox_plan_add(p, kind, key, *paths, NULL, NULL, 0, missing_ok);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* TemporaryFileSystem= options: the flag words become MS_* flags, the rest is tmpfs's data. */
static int add_tmpfs(SandboxPlan *p, const UnitTmpfs *t) {
        static const struct {
                const char *name;
                unsigned long set, clear;
        } words[] = {
                { "ro", MS_RDONLY, 0 },       { "rw", 0, MS_RDONLY },         { "nosuid", MS_NOSUID, 0 },
                { "suid", 0, MS_NOSUID },     { "nodev", MS_NODEV, 0 },       { "dev", 0, MS_NODEV },
                { "noexec", MS_NOEXEC, 0 },   { "exec", 0, MS_NOEXEC },       { "strictatime", MS_STRICTATIME, 0 },
                { "noatime", MS_NOATIME, 0 }, { "relatime", MS_RELATIME, 0 },
        };
        unsigned long flags = MS_NODEV | MS_STRICTATIME; /* systemd's defaults for these */
        char data[1024] = "mode=0755";
        size_t n = strlen(data);
        bool mode_given = false;
        const char *o = t->options ?: "";

        while (*o) {
                size_t len = strcspn(o, ",");
                bool known = false;
                for (size_t i = 0; i < ELEMENTSOF(words); i++)
                        if (strlen(words[i].name) == len && strneq(o, words[i].name, len)) {
                                flags = (flags | words[i].set) & ~words[i].clear;
                                known = true;
                        }
                if (!known && len > 0) {
                        if (strneq(o, "mode=", 5) && !mode_given) {
                                n = 0; /* the unit's mode replaces the default */
                                data[0] = '\0';
                                mode_given = true;
                        }
                        if (n + 1 + len >= sizeof(data))
                                return -E2BIG;
                        if (n > 0)
                                data[n++] = ',';
                        memcpy(data + n, o, len);
                        n += len;
                        data[n] = '\0';
                }
                o += len;
                if (*o == ',')
                        o++;
        }
        return sandbox_plan_add(p, SANDBOX_MOUNT_TMPFS, SANDBOX_KEY_TEMPORARY_FILE_SYSTEM, t->path, NULL, data, flags,
                                false);
}

/* The directories svd makes for the service stay writable under ProtectSystem= and ReadOnlyPaths=, as
 * in systemd (ConfigurationDirectory= does not). DynamicUser='s state, cache and logs directories are
 * in BASE/private, which only root may enter (service-dirs.c): the service gets an empty tmpfs there
 * instead, with its own directories alone bound into it. */
static int add_exec_directories(const Unit *u, SandboxPlan *p) {
        for (ExecDirectoryType t = 0; t < EXEC_DIRECTORY_CONFIGURATION; t++) {
                _cleanup_free_ char *base = NULL, *private = NULL;
                bool is_private = u->dynamic_user && t != EXEC_DIRECTORY_RUNTIME;
                int r;

                if (!u->exec_directories[t])
                        continue;
                r = service_dirs_base(t, &base);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        continue; /* the start fails in service_dirs_prepare(), saying why */
                if (is_private) {
                        if (asprintf(&private, "%s/private", base) < 0)
                                return -ENOMEM;
                        r = sandbox_plan_add(p, SANDBOX_MOUNT_TMPFS, SANDBOX_KEY_DYNAMIC_USER, private, NULL,
                                             "mode=0755", MS_NOSUID | MS_NODEV | MS_NOEXEC, false);
                        if (r < 0)
                                return r;
                }
                for (char **d = u->exec_directories[t]; *d; d++) {
                        _cleanup_free_ char *path = NULL;
                        if (asprintf(&path, "%s/%s", is_private ? private : base, *d) < 0)
                                return -ENOMEM;
                        r = is_private ? sandbox_plan_add_bind(p, SANDBOX_KEY_DYNAMIC_USER, path, path,
                                                               /* recursive= */ true, /* read_only= */ false,
                                                               /* ignore_missing= */ false)
                                       : 0;
                        if (r >= 0)
                                r = sandbox_plan_add(p, SANDBOX_MOUNT_READ_WRITE, SANDBOX_KEY_EXEC_DIRECTORIES, path,
                                                     NULL, NULL, 0, /* ignore_missing= */ true);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

static void plan_free(void *p) {
        sandbox_plan_free(p);
}

static int sandbox_plan_build(const Unit *u, SandboxPlan **ret, char **ret_error) {
        const UnitSandbox *s = &u->sandbox;
        int r = 0;

        SandboxPlan *p = sandbox_plan_new();
        if (!p)
                return -ENOMEM;

        static const char *const system_yes[] = { "/usr", "/boot", "/efi", NULL };
        static const char *const api_dirs[] = { "/dev", "/proc", "/sys", NULL };
        static const char *const homes[] = { "/home", "/root", "/run/user", NULL };
        static const char *const tunables_ro[] = { "/proc/sys", "/sys", "/proc/sysrq-trigger", "/proc/latency_stats",
                                                   "/proc/acpi", "/proc/timer_stats", "/proc/fs", "/proc/irq",
                                                   NULL };
        static const char *const tunables_hidden[] = { "/proc/kallsyms", "/proc/kcore", NULL };
        static const char *const modules[] = { "/usr/lib/modules", "/lib/modules", NULL };
        static const char *const kernel_logs[] = { "/proc/kmsg", "/dev/kmsg", NULL };
        static const char *const tmp_dirs[] = { "/tmp", "/var/tmp", NULL };

        switch (s->protect_system) {
        case PROTECT_SYSTEM_STRICT:
                r = sandbox_plan_add(p, SANDBOX_MOUNT_READ_ONLY, SANDBOX_KEY_PROTECT_SYSTEM, "/", NULL, NULL, 0, false);
                if (r >= 0)
                        r = add_list(p, SANDBOX_MOUNT_READ_WRITE, SANDBOX_KEY_PROTECT_SYSTEM, api_dirs, true);
                break;
        case PROTECT_SYSTEM_FULL:
                r = sandbox_plan_add(p, SANDBOX_MOUNT_READ_ONLY, SANDBOX_KEY_PROTECT_SYSTEM, "/etc", NULL, NULL, 0, true);
                _fallthrough_;
        case PROTECT_SYSTEM_YES:
                if (r >= 0)
                        r = add_list(p, SANDBOX_MOUNT_READ_ONLY, SANDBOX_KEY_PROTECT_SYSTEM, system_yes, true);
                break;
        default:
                break;
        }
        if (r >= 0 && s->protect_home == PROTECT_HOME_YES)
                r = add_list(p, SANDBOX_MOUNT_INACCESSIBLE, SANDBOX_KEY_PROTECT_HOME, homes, true);
        else if (r >= 0 && s->protect_home == PROTECT_HOME_READ_ONLY)
                r = add_list(p, SANDBOX_MOUNT_READ_ONLY, SANDBOX_KEY_PROTECT_HOME, homes, true);
        else if (r >= 0 && s->protect_home == PROTECT_HOME_TMPFS)
                for (size_t i = 0; r >= 0 && homes[i]; i++)
                        r = sandbox_plan_add(p, SANDBOX_MOUNT_TMPFS, SANDBOX_KEY_PROTECT_HOME, homes[i], NULL, "mode=0755",
                                             MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, true);
        if (r >= 0 && s->private_tmp)
                for (size_t i = 0; r >= 0 && tmp_dirs[i]; i++)
                        r = sandbox_plan_add(p, SANDBOX_MOUNT_TMPFS, SANDBOX_KEY_PRIVATE_TMP, tmp_dirs[i], NULL,
                                             "mode=1777", MS_NOSUID | MS_NODEV | MS_STRICTATIME, false);
        if (r >= 0 && s->private_devices) {
                r = sandbox_plan_add(p, SANDBOX_MOUNT_DEV, SANDBOX_KEY_PRIVATE_DEVICES, "/dev", NULL, NULL, 0, false);
                p->bounding_drop |= CAP_BIT(CAP_MKNOD_) | CAP_BIT(CAP_SYS_RAWIO_);
        }
        if (r >= 0 && s->protect_kernel_tunables) {
                r = add_list(p, SANDBOX_MOUNT_READ_ONLY, SANDBOX_KEY_PROTECT_KERNEL_TUNABLES, tunables_ro, true);
                if (r >= 0)
                        r = add_list(p, SANDBOX_MOUNT_INACCESSIBLE, SANDBOX_KEY_PROTECT_KERNEL_TUNABLES,
                                     tunables_hidden, true);
        }
        if (r >= 0 && s->protect_kernel_modules) {
                r = add_list(p, SANDBOX_MOUNT_INACCESSIBLE, SANDBOX_KEY_PROTECT_KERNEL_MODULES, modules, true);
                p->bounding_drop |= CAP_BIT(CAP_SYS_MODULE_);
        }
        if (r >= 0 && s->protect_kernel_logs) {
                r = add_list(p, SANDBOX_MOUNT_INACCESSIBLE, SANDBOX_KEY_PROTECT_KERNEL_LOGS, kernel_logs, true);
                p->bounding_drop |= CAP_BIT(CAP_SYSLOG_);
        }
        if (r >= 0 && s->protect_control_groups)
                r = sandbox_plan_add(p, SANDBOX_MOUNT_READ_ONLY, SANDBOX_KEY_PROTECT_CONTROL_GROUPS, "/sys/fs/cgroup", NULL,
                                     NULL, 0, true);
        if (r >= 0 && (s->protect_proc != PROTECT_PROC_DEFAULT || s->proc_subset != PROC_SUBSET_ALL)) {
                static const char *const hidepid[_PROTECT_PROC_MAX] = {
                        [PROTECT_PROC_DEFAULT] = "off",
                        [PROTECT_PROC_NOACCESS] = "noaccess",
                        [PROTECT_PROC_INVISIBLE] = "invisible",
                        [PROTECT_PROC_PTRACEABLE] = "ptraceable",
                };
                char opts[64];
                (void) snprintf(opts, sizeof(opts), "hidepid=%s%s", hidepid[s->protect_proc],
                                s->proc_subset == PROC_SUBSET_PID ? ",subset=pid" : "");
                r = sandbox_plan_add(p, SANDBOX_MOUNT_PROC, SANDBOX_KEY_PROTECT_PROC, "/proc", NULL, opts,
                                     MS_NOSUID | MS_NODEV | MS_NOEXEC, false);
        }
        if (r >= 0)
                r = add_paths(p, SANDBOX_MOUNT_READ_ONLY, SANDBOX_KEY_READ_ONLY_PATHS, s->read_only_paths);
        if (r >= 0)
                r = add_paths(p, SANDBOX_MOUNT_READ_WRITE, SANDBOX_KEY_READ_WRITE_PATHS, s->read_write_paths);
        if (r >= 0)
                r = add_paths(p, SANDBOX_MOUNT_INACCESSIBLE, SANDBOX_KEY_INACCESSIBLE_PATHS, s->inaccessible_paths);
        if (r >= 0)
                r = add_paths(p, SANDBOX_MOUNT_EXEC, SANDBOX_KEY_EXEC_PATHS, s->exec_paths);
        if (r >= 0)
                r = add_paths(p, SANDBOX_MOUNT_NO_EXEC, SANDBOX_KEY_NO_EXEC_PATHS, s->no_exec_paths);
        if (s->protect_clock)
                p->bounding_drop |= CAP_BIT(CAP_SYS_TIME_) | CAP_BIT(CAP_WAKE_ALARM_);
        for (size_t i = 0; r >= 0 && i < s->n_temporary_filesystems; i++)
                r = add_tmpfs(p, &s->temporary_filesystems[i]);
        if (r >= 0 && (p->n_mounts > 0 || u->dynamic_user))
                r = add_exec_directories(u, p);
        for (size_t i = 0; r >= 0 && i < s->n_binds; i++) {
                const UnitBind *b = &s->binds[i];
                r = sandbox_plan_add_bind(p, b->read_only ? SANDBOX_KEY_BIND_READ_ONLY_PATHS : SANDBOX_KEY_BIND_PATHS,
                                          b->source, b->destination, b->recursive, b->read_only, b->ignore_missing);
        }
        if (r < 0) {
                sandbox_plan_free(p);
                return r;
        }
        p->private_network = s->private_network;
        p->private_uts = s->protect_hostname;
        p->private_ipc = s->private_ipc;
        /* PrivateMounts=, MountFlags=: a mount namespace even without a mount of its own. */
        if (s->private_mounts || s->mount_propagation != MOUNT_PROPAGATION_DEFAULT)
                p->mount_namespace = true;
        p->propagation = s->mount_propagation == MOUNT_PROPAGATION_SHARED    ? MS_SHARED
                         : s->mount_propagation == MOUNT_PROPAGATION_PRIVATE ? MS_PRIVATE
                                                                             : 0;
        p->keyring = s->keyring_mode == KEYRING_MODE_PRIVATE  ? SANDBOX_KEYRING_PRIVATE
                     : s->keyring_mode == KEYRING_MODE_SHARED ? SANDBOX_KEYRING_SHARED
                                                              : SANDBOX_KEYRING_INHERIT;
        p->secure_bits = s->secure_bits;
        p->private_users = s->private_users == PRIVATE_USERS_IDENTITY ? SANDBOX_USERS_IDENTITY
                           : s->private_users == PRIVATE_USERS_SELF   ? SANDBOX_USERS_SELF
                                                                      : SANDBOX_USERS_NONE;
        sandbox_plan_finish(p);

        const SeccompSettings seccomp = {
                .syscall_filter = s->syscall_filter,
                .syscall_allow_list = s->syscall_allow_list,
                .syscall_errno = s->syscall_errno,
                .native_only = s->syscall_native_only,
                .address_families = s->address_families,
                .n_address_families = s->n_address_families,
                .address_families_set = s->address_families_set,
                .address_families_allow_list = s->address_families_allow_list,
                .namespaces_allowed = s->namespaces_allowed,
                .restrict_realtime = s->restrict_realtime,
                .lock_personality = s->lock_personality,
                .memory_deny_write_execute = s->memory_deny_write_execute,
                .restrict_suid_sgid = s->restrict_suid_sgid,
                .protect_hostname = s->protect_hostname,
                .protect_kernel_modules = s->protect_kernel_modules,
                .protect_kernel_logs = s->protect_kernel_logs,
                .private_devices = s->private_devices,
                .protect_clock = s->protect_clock,
        };
        if (seccomp_settings_any(&seccomp)) {
                SandboxKey key;
                r = seccomp_plan_build(&seccomp, p, &key);
                if (r < 0) {
                        sandbox_plan_free(p);
                        if (r != -ENOMEM && asprintf(ret_error, "Failed to build the seccomp filter of %s: %s",
                                                     sandbox_key_to_string(key), strerror(-r)) < 0)
                                *ret_error = NULL;
                        return r;
                }
        }
        *ret = p;
        return 0;
}

int service_sandbox_prepare(const Unit *u, const SandboxPlan **ret, char **ret_error) {
        *ret = NULL;
        if (!unit_sandbox_is_set(&u->sandbox))
                return 0;
        if (!u->sandbox.compiled) {
                SandboxPlan *p = NULL;
                int r = sandbox_plan_build(u, &p, ret_error);
                if (r < 0)
                        return r;
                /* Kept with the unit (a cache: the Unit is the manager's, never const in memory). */
                UnitSandbox *cache = (UnitSandbox *) &u->sandbox;
                cache->compiled = p;
                cache->compiled_free = plan_free;
        }
        *ret = u->sandbox.compiled;
        return 0;
}
