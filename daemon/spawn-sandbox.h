/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A service's sandbox as the child applies it: the namespaces to create and
 * a list of mount operations in the order they run, all prepared by svd
 * before the spawn (sandbox_plan_*() allocate and may fail); the child side
 * (sandbox_child_apply(), spawn-sandbox-child.c) only walks the list with
 * system calls, in the child's own mount namespace, and reports the key
 * whose operation failed.
 *
 * The order is systemd's: a path's parents before the path, and on the same
 * path new file systems first, then read-write, then read-only, then
 * inaccessible, so that the narrower and the stricter setting wins. Bind
 * sources and the host's device nodes are opened (open_tree) before any
 * mount hides them.
 */

#include <errno.h>
#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What a mount operation does; the order of the values is their order on one path. */
typedef enum SandboxMountKind {
        SANDBOX_MOUNT_PROC,         /* a new procfs instance with options (ProtectProc=, ProcSubset=) */
        SANDBOX_MOUNT_TMPFS,        /* a tmpfs with options */
        SANDBOX_MOUNT_DEV,          /* a private /dev with the basic device nodes (PrivateDevices=) */
        SANDBOX_MOUNT_BIND,         /* source onto path */
        SANDBOX_MOUNT_READ_WRITE,   /* path and what is under it writable again */
        SANDBOX_MOUNT_READ_ONLY,    /* path and what is under it read-only */
        SANDBOX_MOUNT_EXEC,         /* path and what is under it executable again */
        SANDBOX_MOUNT_NO_EXEC,      /* path and what is under it noexec */
        SANDBOX_MOUNT_INACCESSIBLE, /* an empty, mode 000 file system (directory) or file on path */
        _SANDBOX_MOUNT_KIND_MAX,
} SandboxMountKind;

/* The sandboxing keys, for "failed at KEY" messages; a failed operation names its key. */
typedef enum SandboxKey {
        SANDBOX_KEY_PRIVATE_TMP,
        SANDBOX_KEY_PROTECT_SYSTEM,
        SANDBOX_KEY_PROTECT_HOME,
        SANDBOX_KEY_PRIVATE_DEVICES,
        SANDBOX_KEY_PROTECT_KERNEL_TUNABLES,
        SANDBOX_KEY_PROTECT_KERNEL_MODULES,
        SANDBOX_KEY_PROTECT_KERNEL_LOGS,
        SANDBOX_KEY_PROTECT_CONTROL_GROUPS,
        SANDBOX_KEY_READ_ONLY_PATHS,
        SANDBOX_KEY_READ_WRITE_PATHS,
        SANDBOX_KEY_INACCESSIBLE_PATHS,
        SANDBOX_KEY_TEMPORARY_FILE_SYSTEM,
        SANDBOX_KEY_BIND_PATHS,
        SANDBOX_KEY_BIND_READ_ONLY_PATHS,
        SANDBOX_KEY_PROTECT_PROC,
        SANDBOX_KEY_PRIVATE_NETWORK,
        SANDBOX_KEY_PRIVATE_MOUNTS, /* the namespace itself */
        SANDBOX_KEY_ROOT_MOUNT,     /* "/" is no mount point, so mounts would reach the host */
        SANDBOX_KEY_SYSTEM_CALL_FILTER,
        SANDBOX_KEY_SYSTEM_CALL_ARCHITECTURES,
        SANDBOX_KEY_RESTRICT_ADDRESS_FAMILIES,
        SANDBOX_KEY_RESTRICT_NAMESPACES,
        SANDBOX_KEY_RESTRICT_REALTIME,
        SANDBOX_KEY_LOCK_PERSONALITY,
        SANDBOX_KEY_MEMORY_DENY_WRITE_EXECUTE,
        SANDBOX_KEY_RESTRICT_SUID_SGID,
        SANDBOX_KEY_PROTECT_HOSTNAME,
        SANDBOX_KEY_PRIVATE_USERS,
        SANDBOX_KEY_PROTECT_CLOCK,
        SANDBOX_KEY_EXEC_PATHS,
        SANDBOX_KEY_NO_EXEC_PATHS,
        SANDBOX_KEY_MOUNT_FLAGS,
        SANDBOX_KEY_KEYRING_MODE,
        SANDBOX_KEY_SECURE_BITS,
        SANDBOX_KEY_EXEC_DIRECTORIES, /* RuntimeDirectory= ... LogsDirectory=: writable under ProtectSystem= */
        SANDBOX_KEY_DYNAMIC_USER,     /* its private directories: a bind's missing target is made */
        _SANDBOX_KEY_MAX,
        _SANDBOX_KEY_INVALID = -EINVAL,
} SandboxKey;

const char *sandbox_key_to_string(SandboxKey k); /* "ProtectSystem=" */

typedef struct SandboxMount {
        SandboxMountKind kind;
        SandboxKey key;
        const char *path;    /* the target */
        const char *source;  /* BIND: what is bound; INACCESSIBLE: the path's parent directory */
        const char *options; /* PROC, TMPFS: mount data, may be NULL */
        unsigned long flags; /* PROC, TMPFS: MS_* */
        bool ignore_missing; /* a missing path (or bind source) is skipped */
        bool recursive;      /* BIND: rbind */
        bool read_only;      /* BIND: read-only afterwards */
        unsigned order;      /* when it was added: ties on one path keep that order */
} SandboxMount;

#define SANDBOX_MOUNTS_MAX 4096U
#define SANDBOX_BINDS_MAX 256U /* the child holds an fd for each, on its stack */

/* One compiled seccomp program and the key it enforces. */
typedef struct SandboxFilter {
        SandboxKey key;
        struct sock_fprog prog;
} SandboxFilter;

/* PrivateUsers=: which user namespace the service gets. */
typedef enum SandboxUsers {
        SANDBOX_USERS_NONE,
        SANDBOX_USERS_SELF,     /* root and the service's own user and group map to themselves */
        SANDBOX_USERS_IDENTITY, /* ids 0-65535 map to themselves */
} SandboxUsers;

/* KeyringMode=. */
typedef enum SandboxKeyring {
        SANDBOX_KEYRING_INHERIT,
        SANDBOX_KEYRING_PRIVATE,
        SANDBOX_KEYRING_SHARED,
} SandboxKeyring;

typedef struct SandboxPlan {
        SandboxMount *mounts; /* sorted by sandbox_plan_finish() */
        size_t n_mounts;
        size_t n_binds;
        char **strings;       /* owned copies of every path and option above */
        size_t n_strings;
        bool mount_namespace; /* CLONE_NEWNS */
        bool private_network; /* CLONE_NEWNET, and the loopback brought up */
        bool private_uts;     /* CLONE_NEWUTS */
        bool private_ipc;     /* CLONE_NEWIPC */
        SandboxUsers private_users; /* a user namespace of its own (sandbox_child_private_users()) */
        unsigned long propagation; /* MountFlags=: MS_SHARED or MS_PRIVATE for the whole tree at the end; 0 */
        SandboxKeyring keyring;    /* KeyringMode= (sandbox_child_keyring()) */
        unsigned secure_bits;      /* SecureBits=, set before the user change */
        uint64_t bounding_drop; /* capabilities the keys take away (CAP_SYS_MODULE, ...) */
        SandboxFilter *filters; /* seccomp programs (spawn-seccomp.h), loaded in this order */
        size_t n_filters;
} SandboxPlan;

SandboxPlan *sandbox_plan_new(void);
SandboxPlan *sandbox_plan_free(SandboxPlan *p);

/* Adds one operation; path, source and options are copied. 0 or -ENOMEM, -E2BIG past
 * SANDBOX_MOUNTS_MAX (SANDBOX_BINDS_MAX bind mounts). */
int sandbox_plan_add(SandboxPlan *p, SandboxMountKind kind, SandboxKey key, const char *path, const char *source,
                     const char *options, unsigned long flags, bool ignore_missing);
/* The same for a bind mount. */
int sandbox_plan_add_bind(SandboxPlan *p, SandboxKey key, const char *source, const char *path, bool recursive,
                          bool read_only, bool ignore_missing);
/* Sorts the operations into the order they are applied. */
void sandbox_plan_finish(SandboxPlan *p);

/* The clone flags of the plan's namespaces. */
uint64_t sandbox_plan_clone_flags(const SandboxPlan *p);

/* Child side (async-signal-safe: system calls only, no allocation, nothing written but its own
 * stack): applies the plan in the mount and network namespaces the child was cloned into. Returns 0,
 * or -errno with *ret_key set to the key whose operation failed. */
int sandbox_child_apply(const SandboxPlan *p, SandboxKey *ret_key);

/* Child side, after the mounts and the group change, before the user change: enters a new user
 * namespace whose maps (PrivateUsers=, p->private_users) a helper process left in svd's user
 * namespace writes; setgroups() is denied in it. For an svd with CAP_SETUID and CAP_SETGID; an
 * unprivileged svd's services have a user namespace from the clone already. uid and gid are the ids
 * the service runs with. 0 or -errno. */
int sandbox_child_private_users(const SandboxPlan *p, uid_t uid, gid_t gid);

/* Child side, after the user change: a new session keyring (KeyringMode=private), with the user's
 * keyring linked into it (shared). A kernel without keyrings (ENOSYS) has nothing to share. 0 or
 * -errno. */
int sandbox_child_keyring(const SandboxPlan *p);

/* Child side, the last step before execve(): loads the plan's seccomp filters. 0, or -errno with
 * *ret_key. Needs no_new_privs or CAP_SYS_ADMIN. */
int sandbox_child_load_filters(const SandboxPlan *p, SandboxKey *ret_key);
