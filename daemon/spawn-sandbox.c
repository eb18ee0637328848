/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sandbox plan, parent side: the list of mount operations and namespaces a child applies
 * (spawn-sandbox-child.c), built and sorted before the spawn. */
#include "spawn-sandbox.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macros.h"
#include "basic/string-table.h"

static const char *const sandbox_key_table[_SANDBOX_KEY_MAX] = {
        [SANDBOX_KEY_PRIVATE_TMP] = "PrivateTmp=",
        [SANDBOX_KEY_PROTECT_SYSTEM] = "ProtectSystem=",
        [SANDBOX_KEY_PROTECT_HOME] = "ProtectHome=",
        [SANDBOX_KEY_PRIVATE_DEVICES] = "PrivateDevices=",
        [SANDBOX_KEY_PROTECT_KERNEL_TUNABLES] = "ProtectKernelTunables=",
        [SANDBOX_KEY_PROTECT_KERNEL_MODULES] = "ProtectKernelModules=",
        [SANDBOX_KEY_PROTECT_KERNEL_LOGS] = "ProtectKernelLogs=",
        [SANDBOX_KEY_PROTECT_CONTROL_GROUPS] = "ProtectControlGroups=",
        [SANDBOX_KEY_READ_ONLY_PATHS] = "ReadOnlyPaths=",
        [SANDBOX_KEY_READ_WRITE_PATHS] = "ReadWritePaths=",
        [SANDBOX_KEY_INACCESSIBLE_PATHS] = "InaccessiblePaths=",
        [SANDBOX_KEY_TEMPORARY_FILE_SYSTEM] = "TemporaryFileSystem=",
        [SANDBOX_KEY_BIND_PATHS] = "BindPaths=",
        [SANDBOX_KEY_BIND_READ_ONLY_PATHS] = "BindReadOnlyPaths=",
        [SANDBOX_KEY_PROTECT_PROC] = "ProtectProc=",
        [SANDBOX_KEY_PRIVATE_NETWORK] = "PrivateNetwork=",
        [SANDBOX_KEY_PRIVATE_MOUNTS] = "mount-namespace",
        [SANDBOX_KEY_ROOT_MOUNT] = "mount-namespace (\"/\" is no mount point, as in a chroot not bind-mounted onto itself)",
        [SANDBOX_KEY_SYSTEM_CALL_FILTER] = "SystemCallFilter=",
        [SANDBOX_KEY_SYSTEM_CALL_ARCHITECTURES] = "SystemCallArchitectures=",
        [SANDBOX_KEY_RESTRICT_ADDRESS_FAMILIES] = "RestrictAddressFamilies=",
        [SANDBOX_KEY_RESTRICT_NAMESPACES] = "RestrictNamespaces=",
        [SANDBOX_KEY_RESTRICT_REALTIME] = "RestrictRealtime=",
        [SANDBOX_KEY_LOCK_PERSONALITY] = "LockPersonality=",
        [SANDBOX_KEY_MEMORY_DENY_WRITE_EXECUTE] = "MemoryDenyWriteExecute=",
        [SANDBOX_KEY_RESTRICT_SUID_SGID] = "RestrictSUIDSGID=",
        [SANDBOX_KEY_PROTECT_HOSTNAME] = "ProtectHostname=",
        [SANDBOX_KEY_PRIVATE_USERS] = "PrivateUsers=",
        [SANDBOX_KEY_PROTECT_CLOCK] = "ProtectClock=",
        [SANDBOX_KEY_EXEC_PATHS] = "ExecPaths=",
        [SANDBOX_KEY_NO_EXEC_PATHS] = "NoExecPaths=",
        [SANDBOX_KEY_MOUNT_FLAGS] = "MountFlags=",
        [SANDBOX_KEY_KEYRING_MODE] = "KeyringMode=",
        [SANDBOX_KEY_SECURE_BITS] = "SecureBits=",
        [SANDBOX_KEY_EXEC_DIRECTORIES] = "RuntimeDirectory=/StateDirectory=/CacheDirectory=/LogsDirectory=",
        [SANDBOX_KEY_DYNAMIC_USER] = "DynamicUser=",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(sandbox_key, SandboxKey);

SandboxPlan *sandbox_plan_new(void) {
        return calloc(1, sizeof(SandboxPlan));
}

SandboxPlan *sandbox_plan_free(SandboxPlan *p) {
        if (!p)
                return NULL;
        for (size_t i = 0; i < p->n_strings; i++)
                free(p->strings[i]);
        free(p->strings);
        free(p->mounts);
        for (size_t i = 0; i < p->n_filters; i++)
                free(p->filters[i].prog.filter);
        free(p->filters);
        free(p);
        return NULL;
}

static int plan_strdup(SandboxPlan *p, const char *s, const char **ret) {
        if (!s) {
                *ret = NULL;
                return 0;
        }
        char **a = reallocarray(p->strings, p->n_strings + 1, sizeof(char *));
        if (!a)
                return -ENOMEM;
        p->strings = a;
        char *c = strdup(s);
        if (!c)
                return -ENOMEM;
        p->strings[p->n_strings++] = c;
        *ret = c;
        return 0;
}

/* The directory that holds path ("/" for "/x"), with no trailing "/": "/a//b/" gives "/a". */
static int parent_directory(const char *path, char **ret) {
        size_t n = strlen(path);
        while (n > 1 && path[n - 1] == '/')
                n--;
        while (n > 0 && path[n - 1] != '/')
                n--;
        while (n > 1 && path[n - 1] == '/')
                n--;
        char *d = n == 0 ? strdup("/") : strndup(path, n);
        if (!d)
                return -ENOMEM;
        *ret = d;
        return 0;
}

static int plan_append(SandboxPlan *p, const SandboxMount *m) {
        if (p->n_mounts >= SANDBOX_MOUNTS_MAX || (m->kind == SANDBOX_MOUNT_BIND && p->n_binds >= SANDBOX_BINDS_MAX))
                return -E2BIG;
        SandboxMount c = *m;
        c.order = (unsigned) p->n_mounts;
        if (plan_strdup(p, m->path, &c.path) < 0 || plan_strdup(p, m->source, &c.source) < 0 ||
            plan_strdup(p, m->options, &c.options) < 0)
                return -ENOMEM;
        if (m->kind == SANDBOX_MOUNT_INACCESSIBLE && !m->source) {
                /* Where the child attaches the tmpfs it clones an inaccessible file from. */
                _cleanup_free_ char *d = NULL;
                if (parent_directory(m->path, &d) < 0 || plan_strdup(p, d, &c.source) < 0)
                        return -ENOMEM;
        }
        SandboxMount *a = reallocarray(p->mounts, p->n_mounts + 1, sizeof(SandboxMount));
        if (!a)
                return -ENOMEM;
        p->mounts = a;
        p->mounts[p->n_mounts++] = c;
        if (m->kind == SANDBOX_MOUNT_BIND)
                p->n_binds++;
        p->mount_namespace = true;
        return 0;
}

int sandbox_plan_add(SandboxPlan *p, SandboxMountKind kind, SandboxKey key, const char *path, const char *source,
                     const char *options, unsigned long flags, bool ignore_missing) {
        return plan_append(p, &(SandboxMount){ .kind = kind,
                                               .key = key,
                                               .path = path,
                                               .source = source,
                                               .options = options,
                                               .flags = flags,
                                               .ignore_missing = ignore_missing });
}

int sandbox_plan_add_bind(SandboxPlan *p, SandboxKey key, const char *source, const char *path, bool recursive,
                          bool read_only, bool ignore_missing) {
        return plan_append(p, &(SandboxMount){ .kind = SANDBOX_MOUNT_BIND,
                                               .key = key,
                                               .path = path,
                                               .source = source,
                                               .recursive = recursive,
                                               .read_only = read_only,
                                               .ignore_missing = ignore_missing });
}

/* Paths compare component by component, so that a directory sorts right before what is under it
 * ("/a" < "/a/b" < "/a-b"): a parent is set up before its children. */
static int path_compare(const char *a, const char *b) {
        for (;;) {
                while (*a == '/')
                        a++;
                while (*b == '/')
                        b++;
                if (!*a || !*b)
                        return (*a != 0) - (*b != 0);
                size_t na = strcspn(a, "/"), nb = strcspn(b, "/");
                int r = strncmp(a, b, na < nb ? na : nb);
                if (r != 0)
                        return r;
                if (na != nb)
                        return na < nb ? -1 : 1;
                a += na;
                b += nb;
        }
}

static int mount_compare(const void *x, const void *y) {
        const SandboxMount *a = x, *b = y;
        int r = path_compare(a->path, b->path);
        if (r != 0)
                return r;
        if (a->kind != b->kind)
                return a->kind < b->kind ? -1 : 1;
        /* same path, same kind: the order they were added */
        return a->order < b->order ? -1 : a->order > b->order;
}

void sandbox_plan_finish(SandboxPlan *p) {
        if (p->n_mounts > 1)
                qsort(p->mounts, p->n_mounts, sizeof(SandboxMount), mount_compare);
}

uint64_t sandbox_plan_clone_flags(const SandboxPlan *p) {
        uint64_t f = 0;
        if (p->mount_namespace)
                f |= CLONE_NEWNS;
        if (p->private_network)
                f |= CLONE_NEWNET;
        if (p->private_uts)
                f |= CLONE_NEWUTS;
        if (p->private_ipc)
                f |= CLONE_NEWIPC;
        return f;
}
