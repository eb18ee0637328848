/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The sandboxing keys of a unit (systemd.exec(5), "Sandboxing" and "System
 * Call Filtering"), as parsed: what the service's mount namespace, other
 * namespaces and seccomp filter are to be. unit-parse.c hands every such key's
 * value to unit_sandbox_parse(); the spawn code (spawn-sandbox.h) turns the
 * result into what the child applies.
 *
 * A sandboxing key svd does not enforce is never dropped silently: unit-parse.c
 * records it in not_applied, and the manager refuses the unit unless svd
 * runs with --allow-unsandboxed.
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum ProtectSystem {
        PROTECT_SYSTEM_NO,
        PROTECT_SYSTEM_YES,    /* /usr, /boot, /efi read-only */
        PROTECT_SYSTEM_FULL,   /* and /etc */
        PROTECT_SYSTEM_STRICT, /* the whole tree but /dev, /proc, /sys */
        _PROTECT_SYSTEM_MAX,
        _PROTECT_SYSTEM_INVALID = -EINVAL,
} ProtectSystem;

typedef enum ProtectHome {
        PROTECT_HOME_NO,
        PROTECT_HOME_YES,       /* /home, /root, /run/user inaccessible */
        PROTECT_HOME_READ_ONLY, /* read-only */
        PROTECT_HOME_TMPFS,     /* an empty read-only tmpfs on each */
        _PROTECT_HOME_MAX,
        _PROTECT_HOME_INVALID = -EINVAL,
} ProtectHome;

typedef enum ProtectProc {
        PROTECT_PROC_DEFAULT,
        PROTECT_PROC_NOACCESS,   /* procfs hidepid=noaccess */
        PROTECT_PROC_INVISIBLE,  /* hidepid=invisible */
        PROTECT_PROC_PTRACEABLE, /* hidepid=ptraceable */
        _PROTECT_PROC_MAX,
        _PROTECT_PROC_INVALID = -EINVAL,
} ProtectProc;

typedef enum ProcSubset {
        PROC_SUBSET_ALL,
        PROC_SUBSET_PID, /* procfs subset=pid */
        _PROC_SUBSET_MAX,
        _PROC_SUBSET_INVALID = -EINVAL,
} ProcSubset;

typedef enum PrivateUsers {
        PRIVATE_USERS_NO,
        PRIVATE_USERS_SELF,     /* yes, self: root and the unit's user and group map to themselves */
        PRIVATE_USERS_IDENTITY, /* ids 0-65535 map to themselves */
        _PRIVATE_USERS_MAX,
        _PRIVATE_USERS_INVALID = -EINVAL,
} PrivateUsers;

typedef enum MountPropagation {
        MOUNT_PROPAGATION_DEFAULT, /* slave, as the namespace starts */
        MOUNT_PROPAGATION_SHARED,
        MOUNT_PROPAGATION_SLAVE,
        MOUNT_PROPAGATION_PRIVATE,
        _MOUNT_PROPAGATION_MAX,
        _MOUNT_PROPAGATION_INVALID = -EINVAL,
} MountPropagation;

typedef enum KeyringMode {
        KEYRING_MODE_INHERIT, /* svd's session keyring */
        KEYRING_MODE_PRIVATE, /* a new session keyring */
        KEYRING_MODE_SHARED,  /* a new one, with the user's keyring linked into it */
        _KEYRING_MODE_MAX,
        _KEYRING_MODE_INVALID = -EINVAL,
} KeyringMode;

/* BindPaths=/BindReadOnlyPaths= entries: "[-]SOURCE[:DEST[:rbind|norbind]]". */
typedef struct UnitBind {
        char *source;
        char *destination;
        bool read_only;
        bool recursive;      /* rbind (the default) */
        bool ignore_missing; /* "-" prefix */
} UnitBind;

/* TemporaryFileSystem= entries: "PATH[:OPTIONS]". */
typedef struct UnitTmpfs {
        char *path;
        char *options; /* mount options, may be NULL */
} UnitTmpfs;

/* RestrictNamespaces= as the CLONE_NEW* flags a service may still use. */
#define UNIT_NAMESPACES_ALL UINT64_MAX

typedef struct UnitSandbox {
        /* the mount namespace */
        bool private_tmp;
        bool private_devices;
        bool protect_kernel_tunables;
        bool protect_kernel_modules;
        bool protect_kernel_logs;
        bool protect_control_groups;
        ProtectSystem protect_system;
        ProtectHome protect_home;
        ProtectProc protect_proc;
        ProcSubset proc_subset;
        char **read_only_paths;    /* "-" prefix: missing is fine; "+" prefix removed */
        char **read_write_paths;
        char **inaccessible_paths;
        char **exec_paths;         /* ExecPaths=, NoExecPaths= */
        char **no_exec_paths;
        bool private_mounts;
        MountPropagation mount_propagation; /* MountFlags= */
        UnitTmpfs *temporary_filesystems;
        size_t n_temporary_filesystems;
        UnitBind *binds;
        size_t n_binds;

        /* other namespaces */
        bool private_network;
        bool protect_hostname;
        bool private_ipc;
        PrivateUsers private_users;

        /* the process */
        bool remove_ipc;           /* RemoveIPC=: when the service has stopped (service-ipc.c) */
        KeyringMode keyring_mode;
        unsigned secure_bits;      /* SecureBits=: SECBIT_* */

        /* seccomp */
        char **syscall_filter;     /* names and @groups, in order, as written */
        bool syscall_allow_list;   /* the first SystemCallFilter= was not "~…": everything else is denied */
        int syscall_errno;         /* SystemCallErrorNumber=: 0 = kill the process (SIGSYS) */
        bool syscall_native_only;  /* SystemCallArchitectures=native */
        int *address_families;     /* RestrictAddressFamilies=, AF_* numbers */
        size_t n_address_families;
        bool address_families_set;
        bool address_families_allow_list;
        uint64_t namespaces_allowed; /* RestrictNamespaces=: UNIT_NAMESPACES_ALL = unrestricted */
        bool restrict_realtime;
        bool lock_personality;
        bool memory_deny_write_execute;
        bool restrict_suid_sgid;
        bool protect_clock;

        /* Sandboxing keys svd does not enforce that the file sets, as "Key="; the line of the
         * first. The manager refuses such a unit unless told otherwise. */
        char **not_applied;
        unsigned not_applied_line;

        /* What the spawn code compiled from the keys above (mount plan, seccomp programs), kept with
         * the unit so that a restart does not compile it again, and freed with it. A cache, not part
         * of the definition: the parser never sets it. */
        void *compiled;
        void (*compiled_free)(void *compiled);
} UnitSandbox;

#define UNIT_SANDBOX_DEFAULTS { .namespaces_allowed = UNIT_NAMESPACES_ALL, .syscall_errno = 0 }

/* Parses one assignment of sandboxing key `key` (an empty value resets it) into s. Returns 0, -ENOMEM,
 * or another -errno with *ret_reason (static text) for "Invalid value …: REASON"; -ENOENT when key is
 * not one of the keys handled here. */
int unit_sandbox_parse(UnitSandbox *s, const char *key, const char *value, const char **ret_reason);

/* Whether any key asks for a mount namespace, another namespace, or a seccomp filter. */
bool unit_sandbox_wants_mounts(const UnitSandbox *s);
bool unit_sandbox_wants_seccomp(const UnitSandbox *s);
bool unit_sandbox_is_set(const UnitSandbox *s);

void unit_sandbox_done(UnitSandbox *s);
