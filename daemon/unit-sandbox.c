/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sandboxing keys' values (systemd.exec(5)): parsed into UnitSandbox, checked where a wrong value
 * would only show at the service's start (system call and group names, errno and family names). */
#include "unit-sandbox.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "basic/extract-word.h"
#include "basic/macros.h"
#include "basic/parse-util.h"
#include "basic/strv.h"
#include "basic/syscall-groups.h"
#include "basic/utf8.h"

#define SANDBOX_WORDS_MAX 4096U /* words in one assignment */
#define SANDBOX_ENTRIES_MAX 1024U /* paths, binds, file systems in one unit */

static const char *const protect_system_names[_PROTECT_SYSTEM_MAX] = { "no", "yes", "full", "strict" };
static const char *const protect_home_names[_PROTECT_HOME_MAX] = { "no", "yes", "read-only", "tmpfs" };
static const char *const protect_proc_names[_PROTECT_PROC_MAX] = { "default", "noaccess", "invisible",
                                                                    "ptraceable" };
static const char *const proc_subset_names[_PROC_SUBSET_MAX] = { "all", "pid" };
static const char *const private_users_names[_PRIVATE_USERS_MAX] = { "no", "self", "identity" };
static const char *const mount_propagation_names[_MOUNT_PROPAGATION_MAX] = { "", "shared", "slave", "private" };
static const char *const keyring_mode_names[_KEYRING_MODE_MAX] = { "inherit", "private", "shared" };

/* SecureBits= names and their bits (linux/securebits.h). */
static const struct {
        const char *name;
        unsigned bit;
} secure_bit_names[] = {
        { "noroot", 1U << 0 },          { "noroot-locked", 1U << 1 },   { "no-setuid-fixup", 1U << 2 },
        { "no-setuid-fixup-locked", 1U << 3 }, { "keep-caps", 1U << 4 }, { "keep-caps-locked", 1U << 5 },
};

static int lookup(const char *const *names, int n, const char *s) {
        for (int i = 0; i < n; i++)
                if (streq(names[i], s))
                        return i;
        return -EINVAL;
}

/* "yes"/"no" or one of the names; a boolean true means index 1. */
static int parse_bool_or_name(const char *const *names, int n, const char *v, int *ret) {
        bool b;
        if (parse_boolean(v, &b) >= 0) {
                *ret = b ? 1 : 0;
                return 0;
        }
        int i = lookup(names, n, v);
        if (i < 0)
                return i;
        *ret = i;
        return 0;
}

static bool path_is_ok(const char *p) {
        size_t n = strlen(p);
        return p[0] == '/' && n < 4096 && utf8_is_valid(p) && !strstr(p, "/../") &&
               !(n >= 3 && streq(p + n - 3, "/.."));
}

/* A list of words as systemd splits them (quotes, escapes), at most
 * SANDBOX_WORDS_MAX; on a syntax error *ret_reason says what was expected. */
static int split_words(const char *value, const char *expected, char ***ret, const char **ret_reason) {
        int r = split_exec_line(value, SANDBOX_WORDS_MAX, ret);
        if (r < 0 && r != -ENOMEM)
                *ret_reason = expected;
        return r;
}

/* A leading "~" turns a list into one of what is not allowed. */
static bool strip_invert(const char **value) {
        if (**value != '~')
                return false;
        (*value)++;
        return true;
}

/* ReadOnlyPaths= and the like: absolute paths, "-" (missing is fine) and "+" prefixes. */
static int parse_paths(char ***field, const char *value, const char **ret_reason) {
        _cleanup_strv_free_ char **l = NULL;
        int r = split_words(value, "expected paths separated by spaces", &l, ret_reason);
        if (r < 0)
                return r;
        for (char **w = l; *w; w++) {
                const char *p = *w;
                bool minus = false;
                while (*p == '-' || *p == '+') {
                        if (*p == '-')
                                minus = true;
                        p++;
                }
                if (!path_is_ok(p)) {
                        *ret_reason = "expected absolute paths, optionally prefixed by '-' or '+'";
                        return -EINVAL;
                }
                _cleanup_free_ char *s = NULL;
                if (asprintf(&s, "%s%s", minus ? "-" : "", p) < 0)
                        return -ENOMEM;
                r = strv_extend(field, s);
                if (r < 0)
                        return r;
        }
        if (strv_length(*field) > SANDBOX_ENTRIES_MAX) {
                *ret_reason = "too many paths";
                return -E2BIG;
        }
        return 0;
}

static int parse_binds(UnitSandbox *s, const char *value, bool read_only, const char **ret_reason) {
        _cleanup_strv_free_ char **l = NULL;
        int r = split_words(value, "expected SOURCE[:DESTINATION[:OPTIONS]] separated by spaces", &l, ret_reason);
        if (r < 0)
                return r;
        for (char **w = l; *w; w++) {
                if (s->n_binds >= SANDBOX_ENTRIES_MAX) {
                        *ret_reason = "too many bind mounts";
                        return -E2BIG;
                }
                char *src = *w, *dst, *opt = NULL;
                UnitBind b = { .read_only = read_only, .recursive = true };
                if (*src == '-') {
                        b.ignore_missing = true;
                        src++;
                }
                dst = strchr(src, ':');
                if (dst) {
                        *dst++ = '\0';
                        opt = strchr(dst, ':');
                        if (opt)
                                *opt++ = '\0';
                }
                if (opt && streq(opt, "norbind"))
                        b.recursive = false;
                else if (opt && !streq(opt, "rbind") && !isempty(opt)) {
                        *ret_reason = "the only options are 'rbind' and 'norbind'";
                        return -EINVAL;
                }
                if (!path_is_ok(src) || (dst && !path_is_ok(dst))) {
                        *ret_reason = "expected absolute paths";
                        return -EINVAL;
                }
                UnitBind *a = reallocarray(s->binds, s->n_binds + 1, sizeof(UnitBind));
                if (!a)
                        return -ENOMEM;
                s->binds = a;
                b.source = strdup(src);
                b.destination = strdup(dst ?: src);
                if (!b.source || !b.destination) {
                        free(b.source);
                        free(b.destination);
                        return -ENOMEM;
                }
                s->binds[s->n_binds++] = b;
        }
        return 0;
}

static int parse_tmpfs(UnitSandbox *s, const char *value, const char **ret_reason) {
        _cleanup_strv_free_ char **l = NULL;
        int r = split_words(value, "expected PATH[:OPTIONS] separated by spaces", &l, ret_reason);
        if (r < 0)
                return r;
        for (char **w = l; *w; w++) {
                if (s->n_temporary_filesystems >= SANDBOX_ENTRIES_MAX) {
                        *ret_reason = "too many file systems";
                        return -E2BIG;
                }
                char *opt = strchr(*w, ':');
                if (opt)
                        *opt++ = '\0';
                if (!path_is_ok(*w) || (opt && !utf8_is_valid(opt))) {
                        *ret_reason = "expected an absolute path";
                        return -EINVAL;
                }
                UnitTmpfs *a = reallocarray(s->temporary_filesystems, s->n_temporary_filesystems + 1,
                                            sizeof(UnitTmpfs));
                if (!a)
                        return -ENOMEM;
                s->temporary_filesystems = a;
                UnitTmpfs t = { .path = strdup(*w), .options = opt && *opt ? strdup(opt) : NULL };
                if (!t.path || (opt && *opt && !t.options)) {
                        free(t.path);
                        free(t.options);
                        return -ENOMEM;
                }
                s->temporary_filesystems[s->n_temporary_filesystems++] = t;
        }
        return 0;
}

/* A system call or "@group" name that exists (a call unknown on this architecture is fine, as in
 * systemd: the filter skips it). */
static bool syscall_name_is_ok(const char *n) {
        if (n[0] == '@')
                return syscall_group_find(n) != NULL;
        for (const char *c = n; *c; c++)
                if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
                        return false;
        return *n != '\0';
}

static int parse_syscall_filter(UnitSandbox *s, const char *value, const char **ret_reason) {
        bool invert = strip_invert(&value);
        _cleanup_strv_free_ char **l = NULL;
        int r = split_words(value, "expected system call names and @groups separated by spaces", &l, ret_reason);
        if (r < 0)
                return r;
        /* The first assignment decides: an allow list denies everything not named. */
        if (!s->syscall_filter)
                s->syscall_allow_list = !invert;
        for (char **w = l; *w; w++) {
                /* "name:errno" overrides the error number for one call; the name is what matters. */
                char *colon = strchr(*w, ':');
                if (colon)
                        *colon = '\0';
                if (!syscall_name_is_ok(*w)) {
                        *ret_reason = "unknown system call group or invalid name";
                        return -EINVAL;
                }
                /* Entries are "+name" (allow) or "-name" (deny), so that later assignments of the
                 * other kind are kept in order as systemd applies them. */
                _cleanup_free_ char *e = NULL;
                if (asprintf(&e, "%c%s", invert ? '-' : '+', *w) < 0)
                        return -ENOMEM;
                r = strv_extend(&s->syscall_filter, e);
                if (r < 0)
                        return r;
        }
        if (!s->syscall_filter && (r = strv_extend(&s->syscall_filter, invert ? "-" : "+")) < 0)
                return r; /* "SystemCallFilter=~" alone still starts a list */
        if (strv_length(s->syscall_filter) > SANDBOX_WORDS_MAX) {
                *ret_reason = "too many system calls";
                return -E2BIG;
        }
        return 0;
}

static int errno_from_name(const char *s) {
        uint64_t n;
        if (safe_atou64(s, &n) >= 0)
                return n > 0 && n < 4096 ? (int) n : -ERANGE;
        for (int e = 1; e < 4096; e++) {
                const char *name = strerrorname_np(e);
                if (name && streq(name, s))
                        return e;
        }
        return -EINVAL;
}

static const struct {
        const char *name;
        int family;
} address_families[] = {
        { "AF_UNIX", AF_UNIX },       { "AF_LOCAL", AF_LOCAL },         { "AF_INET", AF_INET },
        { "AF_INET6", AF_INET6 },     { "AF_NETLINK", AF_NETLINK },     { "AF_PACKET", AF_PACKET },
        { "AF_AX25", AF_AX25 },       { "AF_IPX", AF_IPX },             { "AF_APPLETALK", AF_APPLETALK },
        { "AF_NETROM", AF_NETROM },   { "AF_BRIDGE", AF_BRIDGE },       { "AF_ATMPVC", AF_ATMPVC },
        { "AF_X25", AF_X25 },         { "AF_ROSE", AF_ROSE },           { "AF_DECnet", AF_DECnet },
        { "AF_NETBEUI", AF_NETBEUI }, { "AF_SECURITY", AF_SECURITY },   { "AF_KEY", AF_KEY },
        { "AF_ROUTE", AF_ROUTE },     { "AF_ASH", AF_ASH },             { "AF_ECONET", AF_ECONET },
        { "AF_ATMSVC", AF_ATMSVC },   { "AF_RDS", AF_RDS },             { "AF_SNA", AF_SNA },
        { "AF_IRDA", AF_IRDA },       { "AF_PPPOX", AF_PPPOX },         { "AF_WANPIPE", AF_WANPIPE },
        { "AF_LLC", AF_LLC },         { "AF_IB", AF_IB },               { "AF_MPLS", AF_MPLS },
        { "AF_CAN", AF_CAN },         { "AF_TIPC", AF_TIPC },           { "AF_BLUETOOTH", AF_BLUETOOTH },
        { "AF_IUCV", AF_IUCV },       { "AF_RXRPC", AF_RXRPC },         { "AF_ISDN", AF_ISDN },
        { "AF_PHONET", AF_PHONET },   { "AF_IEEE802154", AF_IEEE802154 }, { "AF_CAIF", AF_CAIF },
        { "AF_ALG", AF_ALG },         { "AF_NFC", AF_NFC },             { "AF_VSOCK", AF_VSOCK },
        { "AF_KCM", AF_KCM },         { "AF_QIPCRTR", AF_QIPCRTR },     { "AF_SMC", AF_SMC },
        { "AF_XDP", 44 },             { "AF_MCTP", 45 },
};

static int parse_address_families(UnitSandbox *s, const char *value, const char **ret_reason) {
        bool invert = false;
        if (streq(value, "none")) {
                /* No family at all: an empty allow list. */
                s->n_address_families = 0;
                s->address_families_set = true;
                s->address_families_allow_list = true;
                return 0;
        }
        invert = strip_invert(&value);
        _cleanup_strv_free_ char **l = NULL;
        int r = split_words(value, "expected address family names separated by spaces", &l, ret_reason);
        if (r < 0)
                return r;
        if (!s->address_families_set) {
                s->address_families_set = true;
                s->address_families_allow_list = !invert;
        }
        for (char **w = l; *w; w++) {
                int f = -1;
                for (size_t i = 0; i < ELEMENTSOF(address_families); i++)
                        if (streq(address_families[i].name, *w))
                                f = address_families[i].family;
                if (f < 0) {
                        *ret_reason = "unknown address family";
                        return -EINVAL;
                }
                /* A second assignment of the other kind removes from the list (systemd). */
                bool add = invert != s->address_families_allow_list;
                size_t i;
                for (i = 0; i < s->n_address_families && s->address_families[i] != f; i++)
                        ;
                if (add && i == s->n_address_families) {
                        int *a = reallocarray(s->address_families, s->n_address_families + 1, sizeof(int));
                        if (!a)
                                return -ENOMEM;
                        s->address_families = a;
                        s->address_families[s->n_address_families++] = f;
                } else if (!add && i < s->n_address_families)
                        s->address_families[i] = s->address_families[--s->n_address_families];
        }
        return 0;
}

static const struct {
        const char *name;
        uint64_t flag;
} namespace_names[] = {
        { "cgroup", CLONE_NEWCGROUP }, { "ipc", CLONE_NEWIPC }, { "net", CLONE_NEWNET },
        { "mnt", CLONE_NEWNS },        { "pid", CLONE_NEWPID }, { "user", CLONE_NEWUSER },
        { "uts", CLONE_NEWUTS },       { "time", 0x00000080 /* CLONE_NEWTIME */ },
};

static int parse_namespaces(UnitSandbox *s, const char *value, const char **ret_reason) {
        bool b, invert = false;
        if (parse_boolean(value, &b) >= 0) {
                /* yes: no namespace may be created; no: no restriction. */
                s->namespaces_allowed = b ? 0 : UNIT_NAMESPACES_ALL;
                return 0;
        }
        invert = strip_invert(&value);
        _cleanup_strv_free_ char **l = NULL;
        int r = split_words(value, "expected namespace types separated by spaces", &l, ret_reason);
        if (r < 0)
                return r;
        uint64_t flags = 0;
        for (char **w = l; *w; w++) {
                size_t i;
                for (i = 0; i < ELEMENTSOF(namespace_names) && !streq(namespace_names[i].name, *w); i++)
                        ;
                if (i == ELEMENTSOF(namespace_names)) {
                        *ret_reason = "expected cgroup, ipc, net, mnt, pid, user, uts or time";
                        return -EINVAL;
                }
                flags |= namespace_names[i].flag;
        }
        uint64_t all = 0;
        for (size_t i = 0; i < ELEMENTSOF(namespace_names); i++)
                all |= namespace_names[i].flag;
        /* As in systemd, a list replaces what an earlier one said. */
        s->namespaces_allowed = invert ? (all & ~flags) : flags;
        return 0;
}

static void binds_free(UnitSandbox *s) {
        for (size_t i = 0; i < s->n_binds; i++) {
                free(s->binds[i].source);
                free(s->binds[i].destination);
        }
        free(s->binds);
        s->binds = NULL;
        s->n_binds = 0;
}

static void tmpfs_free(UnitSandbox *s) {
        for (size_t i = 0; i < s->n_temporary_filesystems; i++) {
                free(s->temporary_filesystems[i].path);
                free(s->temporary_filesystems[i].options);
        }
        free(s->temporary_filesystems);
        s->temporary_filesystems = NULL;
        s->n_temporary_filesystems = 0;
}

static const struct {
        const char *key;
        size_t offset; /* of a bool field */
} bool_keys[] = {
        { "PrivateTmp", offsetof(UnitSandbox, private_tmp) },
        { "PrivateDevices", offsetof(UnitSandbox, private_devices) },
        { "ProtectKernelTunables", offsetof(UnitSandbox, protect_kernel_tunables) },
        { "ProtectKernelModules", offsetof(UnitSandbox, protect_kernel_modules) },
        { "ProtectKernelLogs", offsetof(UnitSandbox, protect_kernel_logs) },
        { "ProtectControlGroups", offsetof(UnitSandbox, protect_control_groups) },
        { "PrivateNetwork", offsetof(UnitSandbox, private_network) },
        { "ProtectHostname", offsetof(UnitSandbox, protect_hostname) },
        { "PrivateIPC", offsetof(UnitSandbox, private_ipc) },
        { "RestrictRealtime", offsetof(UnitSandbox, restrict_realtime) },
        { "LockPersonality", offsetof(UnitSandbox, lock_personality) },
        { "MemoryDenyWriteExecute", offsetof(UnitSandbox, memory_deny_write_execute) },
        { "RestrictSUIDSGID", offsetof(UnitSandbox, restrict_suid_sgid) },
        { "ProtectClock", offsetof(UnitSandbox, protect_clock) },
        { "PrivateMounts", offsetof(UnitSandbox, private_mounts) },
        { "RemoveIPC", offsetof(UnitSandbox, remove_ipc) },
};

static const struct {
        const char *key;
        size_t offset; /* of a char ** field */
} path_keys[] = {
        { "ReadOnlyPaths", offsetof(UnitSandbox, read_only_paths) },
        { "ReadWritePaths", offsetof(UnitSandbox, read_write_paths) },
        { "InaccessiblePaths", offsetof(UnitSandbox, inaccessible_paths) },
        { "ReadOnlyDirectories", offsetof(UnitSandbox, read_only_paths) },
        { "ReadWriteDirectories", offsetof(UnitSandbox, read_write_paths) },
        { "InaccessibleDirectories", offsetof(UnitSandbox, inaccessible_paths) },
        { "ExecPaths", offsetof(UnitSandbox, exec_paths) },
        { "NoExecPaths", offsetof(UnitSandbox, no_exec_paths) },
};

int unit_sandbox_parse(UnitSandbox *s, const char *key, const char *value, const char **ret_reason) {
        bool empty = isempty(value);
        int r, v;

        *ret_reason = NULL;
        for (size_t i = 0; i < ELEMENTSOF(bool_keys); i++)
                if (streq(key, bool_keys[i].key)) {
                        bool b = false;
                        if (!empty && parse_boolean(value, &b) < 0) {
                                *ret_reason = "expected a boolean (yes/no, true/false, on/off, 1/0)";
                                return -EINVAL;
                        }
                        *(bool *) ((uint8_t *) s + bool_keys[i].offset) = b;
                        return 0;
                }
        for (size_t i = 0; i < ELEMENTSOF(path_keys); i++)
                if (streq(key, path_keys[i].key)) {
                        char ***field = (char ***) ((uint8_t *) s + path_keys[i].offset);
                        if (empty) {
                                *field = strv_free(*field);
                                return 0;
                        }
                        return parse_paths(field, value, ret_reason);
                }

#define ENUM_KEY(name, field, names, n, reason)                                              \
        if (streq(key, name)) {                                                              \
                if (empty) {                                                                 \
                        s->field = 0;                                                        \
                        return 0;                                                            \
                }                                                                            \
                r = parse_bool_or_name(names, n, value, &v);                                 \
                if (r < 0) {                                                                 \
                        *ret_reason = reason;                                                \
                        return r;                                                            \
                }                                                                            \
                s->field = v;                                                                \
                return 0;                                                                    \
        }
        ENUM_KEY("ProtectSystem", protect_system, protect_system_names, _PROTECT_SYSTEM_MAX,
                 "expected a boolean, 'full' or 'strict'");
        ENUM_KEY("ProtectHome", protect_home, protect_home_names, _PROTECT_HOME_MAX,
                 "expected a boolean, 'read-only' or 'tmpfs'");
        ENUM_KEY("PrivateUsers", private_users, private_users_names, _PRIVATE_USERS_MAX,
                 "expected a boolean, 'self' or 'identity'");
#undef ENUM_KEY
        if (streq(key, "ProtectProc")) {
                v = empty ? PROTECT_PROC_DEFAULT : lookup(protect_proc_names, _PROTECT_PROC_MAX, value);
                if (v < 0) {
                        *ret_reason = "expected 'noaccess', 'invisible', 'ptraceable' or 'default'";
                        return v;
                }
                s->protect_proc = v;
                return 0;
        }
        if (streq(key, "ProcSubset")) {
                v = empty ? PROC_SUBSET_ALL : lookup(proc_subset_names, _PROC_SUBSET_MAX, value);
                if (v < 0) {
                        *ret_reason = "expected 'all' or 'pid'";
                        return v;
                }
                s->proc_subset = v;
                return 0;
        }
        if (streq(key, "MountFlags")) {
                v = empty ? MOUNT_PROPAGATION_DEFAULT
                          : lookup(mount_propagation_names + 1, _MOUNT_PROPAGATION_MAX - 1, value);
                if (v < 0) {
                        *ret_reason = "expected 'shared', 'slave' or 'private'";
                        return v;
                }
                s->mount_propagation = empty ? MOUNT_PROPAGATION_DEFAULT : v + 1;
                return 0;
        }
        if (streq(key, "KeyringMode")) {
                v = empty ? KEYRING_MODE_INHERIT : lookup(keyring_mode_names, _KEYRING_MODE_MAX, value);
                if (v < 0) {
                        *ret_reason = "expected 'inherit', 'private' or 'shared'";
                        return v;
                }
                s->keyring_mode = v;
                return 0;
        }
        if (streq(key, "SecureBits")) {
                if (empty) {
                        s->secure_bits = 0;
                        return 0;
                }
                _cleanup_strv_free_ char **l = NULL;
                r = split_words(value, "expected secure bit names separated by spaces", &l, ret_reason);
                if (r < 0)
                        return r;
                /* Repeated assignments add bits (systemd). */
                for (char **w = l; *w; w++) {
                        size_t i;
                        for (i = 0; i < ELEMENTSOF(secure_bit_names) && !streq(secure_bit_names[i].name, *w); i++)
                                ;
                        if (i == ELEMENTSOF(secure_bit_names)) {
                                *ret_reason = "expected keep-caps, keep-caps-locked, no-setuid-fixup, "
                                              "no-setuid-fixup-locked, noroot or noroot-locked";
                                return -EINVAL;
                        }
                        s->secure_bits |= secure_bit_names[i].bit;
                }
                return 0;
        }
        if (streq(key, "TemporaryFileSystem")) {
                if (empty) {
                        tmpfs_free(s);
                        return 0;
                }
                return parse_tmpfs(s, value, ret_reason);
        }
        if (streq(key, "BindPaths") || streq(key, "BindReadOnlyPaths")) {
                if (empty) {
                        /* resets the entries of this key only */
                        bool ro = streq(key, "BindReadOnlyPaths");
                        size_t k = 0;
                        for (size_t i = 0; i < s->n_binds; i++)
                                if (s->binds[i].read_only == ro) {
                                        free(s->binds[i].source);
                                        free(s->binds[i].destination);
                                } else
                                        s->binds[k++] = s->binds[i];
                        s->n_binds = k;
                        if (k == 0)
                                binds_free(s);
                        return 0;
                }
                return parse_binds(s, value, streq(key, "BindReadOnlyPaths"), ret_reason);
        }
        if (streq(key, "SystemCallFilter")) {
                if (empty) {
                        s->syscall_filter = strv_free(s->syscall_filter);
                        s->syscall_allow_list = false;
                        return 0;
                }
                return parse_syscall_filter(s, value, ret_reason);
        }
        if (streq(key, "SystemCallErrorNumber")) {
                if (empty || streq(value, "kill")) {
                        s->syscall_errno = 0;
                        return 0;
                }
                r = errno_from_name(value);
                if (r < 0) {
                        *ret_reason = "expected an errno name (EPERM), a number from 1 to 4095, or 'kill'";
                        return r;
                }
                s->syscall_errno = r;
                return 0;
        }
        if (streq(key, "SystemCallArchitectures")) {
                _cleanup_strv_free_ char **l = NULL;
                r = split_exec_line(value, SANDBOX_WORDS_MAX, &l);
                if (r == -ENOMEM)
                        return r;
                s->syscall_native_only = false;
                for (char **w = l; r >= 0 && *w; w++) {
                        if (!streq(*w, "native") && !streq(*w, "x86-64")) {
                                *ret_reason = "svd supports 'native' only (x86-64)";
                                return -EOPNOTSUPP;
                        }
                        s->syscall_native_only = true;
                }
                if (r < 0) {
                        *ret_reason = "expected architecture names";
                        return r;
                }
                return 0;
        }
        if (streq(key, "RestrictAddressFamilies")) {
                if (empty) {
                        free(s->address_families);
                        s->address_families = NULL;
                        s->n_address_families = 0;
                        s->address_families_set = false;
                        return 0;
                }
                return parse_address_families(s, value, ret_reason);
        }
        if (streq(key, "RestrictNamespaces")) {
                if (empty) {
                        s->namespaces_allowed = UNIT_NAMESPACES_ALL;
                        return 0;
                }
                return parse_namespaces(s, value, ret_reason);
        }
        return -ENOENT;
}

bool unit_sandbox_wants_mounts(const UnitSandbox *s) {
        return s->private_tmp || s->private_devices || s->protect_kernel_tunables || s->protect_kernel_modules ||
               s->protect_kernel_logs || s->protect_control_groups || s->protect_system != PROTECT_SYSTEM_NO ||
               s->protect_home != PROTECT_HOME_NO || s->protect_proc != PROTECT_PROC_DEFAULT ||
               s->proc_subset != PROC_SUBSET_ALL || s->read_only_paths || s->read_write_paths ||
               s->inaccessible_paths || s->n_temporary_filesystems > 0 || s->n_binds > 0 || s->exec_paths ||
               s->no_exec_paths || s->private_mounts || s->mount_propagation != MOUNT_PROPAGATION_DEFAULT;
}

bool unit_sandbox_wants_seccomp(const UnitSandbox *s) {
        return s->syscall_filter || s->syscall_native_only || s->address_families_set ||
               s->namespaces_allowed != UNIT_NAMESPACES_ALL || s->restrict_realtime || s->lock_personality ||
               s->memory_deny_write_execute || s->restrict_suid_sgid || s->protect_hostname ||
               s->protect_kernel_modules || s->protect_kernel_logs || s->private_devices || s->protect_clock;
}

bool unit_sandbox_is_set(const UnitSandbox *s) {
        return unit_sandbox_wants_mounts(s) || unit_sandbox_wants_seccomp(s) || s->private_network ||
               s->protect_hostname || s->private_ipc || s->private_users != PRIVATE_USERS_NO ||
               s->keyring_mode != KEYRING_MODE_INHERIT || s->secure_bits != 0;
}

void unit_sandbox_done(UnitSandbox *s) {
        if (!s)
                return;
        strv_free(s->read_only_paths);
        strv_free(s->read_write_paths);
        strv_free(s->inaccessible_paths);
        strv_free(s->exec_paths);
        strv_free(s->no_exec_paths);
        tmpfs_free(s);
        binds_free(s);
        strv_free(s->syscall_filter);
        free(s->address_families);
        strv_free(s->not_applied);
        if (s->compiled && s->compiled_free)
                s->compiled_free(s->compiled);
}
