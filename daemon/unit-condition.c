/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Condition*= and Assert*=: the parameters of each kind, and the checks as systemd.unit(5)
 * describes them. */
#include "unit-condition.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <cap-ng.h>
#include <systemd/sd-id128.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "basic/extract-word.h"
#include "basic/parse-util.h"
#include "basic/string-table.h"
#include "basic/strv.h"

extern char **environ;

#define CONDITION_FILE_READ_MAX 4096U /* bytes read of a /proc or /sys file */
#define SYSTEM_UID_MAX 999U           /* Debian's last system uid and gid (systemd's SYSTEM_UID_MAX) */

static const char *const condition_type_table[_CONDITION_TYPE_MAX] = {
        [CONDITION_PATH_EXISTS] = "PathExists",
        [CONDITION_PATH_EXISTS_GLOB] = "PathExistsGlob",
        [CONDITION_PATH_IS_DIRECTORY] = "PathIsDirectory",
        [CONDITION_PATH_IS_SYMBOLIC_LINK] = "PathIsSymbolicLink",
        [CONDITION_PATH_IS_MOUNT_POINT] = "PathIsMountPoint",
        [CONDITION_PATH_IS_READ_WRITE] = "PathIsReadWrite",
        [CONDITION_DIRECTORY_NOT_EMPTY] = "DirectoryNotEmpty",
        [CONDITION_FILE_NOT_EMPTY] = "FileNotEmpty",
        [CONDITION_FILE_IS_EXECUTABLE] = "FileIsExecutable",
        [CONDITION_VIRTUALIZATION] = "Virtualization",
        [CONDITION_HOST] = "Host",
        [CONDITION_KERNEL_COMMAND_LINE] = "KernelCommandLine",
        [CONDITION_SECURITY] = "Security",
        [CONDITION_CAPABILITY] = "Capability",
        [CONDITION_AC_POWER] = "ACPower",
        [CONDITION_NEEDS_UPDATE] = "NeedsUpdate",
        [CONDITION_FIRST_BOOT] = "FirstBoot",
        [CONDITION_USER] = "User",
        [CONDITION_GROUP] = "Group",
        [CONDITION_ENVIRONMENT] = "Environment",
        [CONDITION_CPUS] = "CPUs",
        [CONDITION_ARCHITECTURE] = "Architecture",
        [CONDITION_CREDENTIAL] = "Credential",
};

DEFINE_STRING_TABLE_LOOKUP(condition_type, ConditionType);

/* ConditionCPUs=: systemd's comparison operators, longest first so that "<=" is not taken for "<". */
typedef enum CompareOp { OP_LE, OP_GE, OP_NE, OP_LT, OP_GT, OP_EQ, _OP_MAX } CompareOp;
static const char *const compare_op_prefix[_OP_MAX] = {
        [OP_LE] = "<=", [OP_GE] = ">=", [OP_NE] = "!=", [OP_LT] = "<", [OP_GT] = ">", [OP_EQ] = "=",
};

void unit_conditions_done(UnitConditions *l) {
        for (size_t i = 0; i < l->n; i++)
                free(l->items[i].parameter);
        free(l->items);
        l->items = NULL;
        l->n = 0;
}

static void conditions_drop(UnitConditions *l, bool assertion) {
        size_t j = 0;

        for (size_t i = 0; i < l->n; i++)
                if (l->items[i].assertion == assertion)
                        free(l->items[i].parameter);
                else
                        l->items[j++] = l->items[i];
        l->n = j;
}

static bool valid_absolute_path(const char *p) {
        return p[0] == '/' && strlen(p) < PATH_MAX;
}

/* Checks p (the parameter of c) for its kind and resolves what is resolved at load time. */
static int condition_prepare(UnitCondition *c, const char **ret_reason) {
        const char *p = c->parameter;
        bool b;

        switch (c->type) {
        case CONDITION_PATH_EXISTS:
        case CONDITION_PATH_EXISTS_GLOB:
        case CONDITION_PATH_IS_DIRECTORY:
        case CONDITION_PATH_IS_SYMBOLIC_LINK:
        case CONDITION_PATH_IS_MOUNT_POINT:
        case CONDITION_PATH_IS_READ_WRITE:
        case CONDITION_DIRECTORY_NOT_EMPTY:
        case CONDITION_FILE_NOT_EMPTY:
        case CONDITION_FILE_IS_EXECUTABLE:
        case CONDITION_NEEDS_UPDATE:
                if (!valid_absolute_path(p)) {
                        *ret_reason = "expected an absolute path";
                        return -EINVAL;
                }
                return 0;

        case CONDITION_AC_POWER:
        case CONDITION_FIRST_BOOT:
                if (parse_boolean(p, &b) < 0) {
                        *ret_reason = "expected a boolean";
                        return -EINVAL;
                }
                c->found = b;
                return 0;

        case CONDITION_CAPABILITY: {
                const char *name = strncasecmp(p, "cap_", 4) == 0 ? p + 4 : p;
                int cap = capng_name_to_capability(name);
                if (cap < 0 || cap >= 64) {
                        *ret_reason = "unknown capability";
                        return -EINVAL;
                }
                c->id = (unsigned) cap;
                return 0;
        }

        case CONDITION_USER: {
                uid_t uid;
                if (streq(p, "@system") || parse_uid(p, &uid) >= 0) {
                        c->found = true;
                        if (!streq(p, "@system"))
                                c->id = uid;
                        return 0;
                }
                /* Resolved now, as User= is: a name that does not exist never matches. */
                struct passwd pw, *res = NULL;
                char buf[4096];
                c->found = getpwnam_r(p, &pw, buf, sizeof(buf), &res) == 0 && res;
                if (c->found)
                        c->id = res->pw_uid;
                return 0;
        }

        case CONDITION_GROUP: {
                gid_t gid;
                if (parse_gid(p, &gid) >= 0) {
                        c->found = true;
                        c->id = gid;
                        return 0;
                }
                struct group gr, *res = NULL;
                char buf[4096];
                c->found = getgrnam_r(p, &gr, buf, sizeof(buf), &res) == 0 && res;
                if (c->found)
                        c->id = res->gr_gid;
                return 0;
        }

        case CONDITION_CPUS: {
                uint64_t n;
                c->op = OP_EQ; /* systemd: a bare number compares for equality */
                for (int op = 0; op < _OP_MAX; op++)
                        if (strneq(p, compare_op_prefix[op], strlen(compare_op_prefix[op]))) {
                                c->op = op;
                                p += strlen(compare_op_prefix[op]);
                                break;
                        }
                p += strspn(p, " \t");
                if (safe_atou64(p, &n) < 0 || n > UINT32_MAX) {
                        *ret_reason = "expected a comparison such as '>=2'";
                        return -EINVAL;
                }
                c->id = (unsigned) n;
                return 0;
        }

        case CONDITION_CREDENTIAL:
                if (strchr(p, '/') || streq(p, ".") || streq(p, "..") || strlen(p) > NAME_MAX) {
                        *ret_reason = "expected a credential name";
                        return -EINVAL;
                }
                return 0;

        case CONDITION_HOST:
        case CONDITION_KERNEL_COMMAND_LINE:
        case CONDITION_SECURITY:
        case CONDITION_ENVIRONMENT:
        case CONDITION_ARCHITECTURE:
        case CONDITION_VIRTUALIZATION:
                if (strpbrk(p, " \t")) {
                        *ret_reason = "expected a single word";
                        return -EINVAL;
                }
                return 0;

        default:
                assert(!"bad condition type");
                return -EINVAL;
        }
}

int unit_conditions_add(UnitConditions *l, ConditionType type, bool assertion, const char *value,
                        const char **ret_reason) {
        UnitCondition c = { .type = type, .assertion = assertion };
        int r;

        assert(l);
        assert(type >= 0 && type < _CONDITION_TYPE_MAX);

        if (isempty(value)) {
                conditions_drop(l, assertion);
                return 0;
        }
        if (l->n >= UNIT_CONDITIONS_MAX) {
                *ret_reason = "too many conditions and assertions in this unit";
                return -E2BIG;
        }
        if (*value == '|') {
                c.trigger = true;
                value++;
                value += strspn(value, " \t");
        }
        if (*value == '!') {
                c.negate = true;
                value++;
                value += strspn(value, " \t");
        }
        if (isempty(value)) {
                *ret_reason = "nothing after '|' or '!'";
                return -EINVAL;
        }
        c.parameter = strdup(value);
        if (!c.parameter)
                return -ENOMEM;
        r = condition_prepare(&c, ret_reason);
        if (r < 0) {
                free(c.parameter);
                return r;
        }
        UnitCondition *items = reallocarray(l->items, l->n + 1, sizeof(UnitCondition));
        if (!items) {
                free(c.parameter);
                return -ENOMEM;
        }
        l->items = items;
        l->items[l->n++] = c;
        return 0;
}

/* ---- reading /proc and /sys ---- */

/* The first line (or all, with whole) of a small file, without the trailing newline; -errno. */
static int read_small_file(const char *path, bool whole, char **ret) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        char *buf;
        size_t n = 0;

        if (fd < 0)
                return -errno;
        buf = malloc(CONDITION_FILE_READ_MAX + 1);
        if (!buf)
                return -ENOMEM;
        while (n < CONDITION_FILE_READ_MAX) {
                ssize_t k = read(fd, buf + n, CONDITION_FILE_READ_MAX - n);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        int r = -errno;
                        free(buf);
                        return r;
                }
                if (k == 0)
                        break;
                n += (size_t) k;
        }
        buf[n] = '\0';
        if (!whole)
                buf[strcspn(buf, "\n")] = '\0';
        else
                while (n > 0 && buf[n - 1] == '\n')
                        buf[--n] = '\0';
        *ret = buf;
        return (int) n;
}

/* ---- virtualization, as systemd-detect-virt ---- */

static const char *detect_container(void) {
        _cleanup_free_ char *v = NULL, *env = NULL;
        int n;

        /* What the container manager tells its payload: systemd's own record of it, podman's and
         * docker's marker files, then $container of PID 1 (svd's own when it is PID 1). */
        if (read_small_file("/run/systemd/container", false, &v) >= 0 && !isempty(v)) {
                static const char *const known[] = { "lxc", "lxc-libvirt", "systemd-nspawn", "docker",
                                                     "podman", "rkt", "wsl", "proot", "pouch", "openvz" };
                for (size_t i = 0; i < ELEMENTSOF(known); i++)
                        if (streq(v, known[i]))
                                return known[i];
                return "container-other";
        }
        if (access("/run/.containerenv", F_OK) >= 0)
                return "podman";
        if (access("/.dockerenv", F_OK) >= 0)
                return "docker";
        if (getpid() == 1) {
                const char *e = getenv("container");
                if (!isempty(e))
                        return streq(e, "oci") ? "container-other" : e;
        }
        n = read_small_file("/proc/1/environ", true, &env);
        if (n > 0)
                for (char *p = env; p < env + n; p += strlen(p) + 1)
                        if (strneq(p, "container=", 10)) {
                                const char *e = p + 10;
                                static const char *const known[] = { "lxc",    "lxc-libvirt", "systemd-nspawn",
                                                                     "docker", "podman",      "rkt", "wsl" };
                                for (size_t i = 0; i < ELEMENTSOF(known); i++)
                                        if (streq(e, known[i]))
                                                return known[i];
                                return *e ? "container-other" : NULL;
                        }
        /* OpenVZ: /proc/vz without /proc/bc (which only the host has). */
        if (access("/proc/vz", F_OK) >= 0 && access("/proc/bc", F_OK) < 0)
                return "openvz";
        free(v);
        v = NULL;
        if (read_small_file("/proc/sys/kernel/osrelease", false, &v) >= 0 &&
            (strstr(v, "Microsoft") || strstr(v, "WSL")))
                return "wsl";
        return NULL;
}

static const char *detect_vm_dmi(void) {
        static const char *const files[] = { "/sys/class/dmi/id/product_name", "/sys/class/dmi/id/sys_vendor",
                                             "/sys/class/dmi/id/board_vendor", "/sys/class/dmi/id/bios_vendor",
                                             "/sys/class/dmi/id/product_version" };
        static const struct {
                const char *prefix, *vm;
        } vendors[] = {
                { "KVM", "kvm" },         { "OpenStack", "kvm" },        { "KubeVirt", "kvm" },
                { "Amazon EC2", "amazon" }, { "QEMU", "qemu" },          { "VMware", "vmware" },
                { "VMW", "vmware" },      { "innotek GmbH", "oracle" },  { "VirtualBox", "oracle" },
                { "Oracle Corporation", "oracle" }, { "Xen", "xen" },    { "Bochs", "bochs" },
                { "Parallels", "parallels" }, { "BHYVE", "bhyve" },      { "Hyper-V", "microsoft" },
                { "Apple Virtualization", "apple" }, { "Google Compute Engine", "google" },
        };

        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                _cleanup_free_ char *s = NULL;
                if (read_small_file(files[i], false, &s) < 0)
                        continue;
                for (size_t j = 0; j < ELEMENTSOF(vendors); j++)
                        if (strneq(s, vendors[j].prefix, strlen(vendors[j].prefix)))
                                return vendors[j].vm;
        }
        return NULL;
}

/* The hypervisor bit of CPUID leaf 1 and the vendor signature of leaf 0x40000000. */
static const char *detect_vm_cpuid(void) {
#if defined(__x86_64__) || defined(__i386__)
        static const struct {
                const char *sig, *vm;
        } vendors[] = {
                { "XenVMMXenVMM", "xen" },      { "KVMKVMKVM", "kvm" },        { "Linux KVM Hv", "kvm" },
                { "TCGTCGTCGTCG", "qemu" },     { "VMwareVMware", "vmware" },  { "Microsoft Hv", "microsoft" },
                { "bhyve bhyve ", "bhyve" },    { "QNXQVMBSQG", "qnx" },       { "ACRNACRNACRN", "acrn" },
                { "SRESRESRESRE", "sre" },      { "Apple VZ", "apple" },
        };
        unsigned eax, ebx, ecx, edx;
        char sig[13] = {};

        if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & 0x80000000U))
                return NULL;
        __cpuid(0x40000000U, eax, ebx, ecx, edx);
        memcpy(sig, &ebx, 4);
        memcpy(sig + 4, &ecx, 4);
        memcpy(sig + 8, &edx, 4);
        for (size_t i = 0; i < ELEMENTSOF(vendors); i++)
                if (streq(sig, vendors[i].sig))
                        return vendors[i].vm;
        return "vm-other";
#else
        return NULL;
#endif
}

static const char *detect_vm(void) {
        const char *dmi = detect_vm_dmi(), *cpuid;
        _cleanup_free_ char *caps = NULL;

        /* As systemd: these DMI vendors run on hypervisors that CPUID names differently. */
        if (dmi && (streq(dmi, "oracle") || streq(dmi, "amazon")))
                return dmi;
        cpuid = detect_vm_cpuid();
        if (cpuid && !(streq(cpuid, "vm-other") && dmi))
                return cpuid;
        if (dmi)
                return dmi;
        /* A Xen guest without the CPUID leaf (PV): /proc/xen, unless it is dom0. */
        if (read_small_file("/proc/xen/capabilities", true, &caps) >= 0 && !strstr(caps, "control_d"))
                return "xen";
        return cpuid;
}

const char *condition_detect_virtualization(bool *ret_container) {
        const char *v = detect_container();

        if (ret_container)
                *ret_container = v != NULL;
        if (v)
                return v;
        v = detect_vm();
        return v ?: "none";
}

/* Whether svd runs in a user namespace other than the initial one. */
static bool running_in_userns(void) {
        _cleanup_free_ char *m = NULL;
        unsigned long a, b, c;

        if (read_small_file("/proc/self/uid_map", true, &m) < 0)
                return false;
        if (sscanf(m, "%lu %lu %lu", &a, &b, &c) != 3)
                return true;
        return !(a == 0 && b == 0 && c == 4294967295UL && !strchr(m, '\n'));
}

static int test_virtualization(const char *p) {
        bool container, b;
        const char *v;

        if (streq(p, "private-users"))
                return running_in_userns();
        v = condition_detect_virtualization(&container);
        if (parse_boolean(p, &b) >= 0)
                return b == !streq(v, "none");
        if (streq(p, "vm"))
                return !container && !streq(v, "none");
        if (streq(p, "container"))
                return container;
        return streq(p, v);
}

/* ---- the other kinds ---- */

/* systemd's list of names that hidden_or_backup_file() skips. */
static bool hidden_or_backup(const char *name) {
        static const char *const suffixes[] = { "~",         ".rpmnew",    ".rpmsave",   ".rpmorig",
                                                ".dpkg-old", ".dpkg-new",  ".dpkg-tmp",  ".dpkg-dist",
                                                ".dpkg-bak", ".dpkg-backup", ".dpkg-remove", ".ucf-new",
                                                ".ucf-old",  ".ucf-dist",  ".swp",       ".bak",
                                                ".old",      ".new" };
        size_t n = strlen(name);

        if (name[0] == '.')
                return true;
        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++) {
                size_t k = strlen(suffixes[i]);
                if (n > k && streq(name + n - k, suffixes[i]))
                        return true;
        }
        return false;
}

/* 1 empty (hidden and backup files do not count), 0 not, -errno. */
static int dir_is_empty(const char *path) {
        _cleanup_(closedirp) DIR *d = opendir(path);
        struct dirent *de;

        if (!d)
                return -errno;
        while ((errno = 0, de = readdir(d)))
                if (!hidden_or_backup(de->d_name))
                        return 0;
        return errno != 0 ? -errno : 1;
}

static bool path_is_mount_point(const char *path) {
        struct statx sx;
        struct stat a, b;
        _cleanup_free_ char *parent = NULL;

        if (statx(AT_FDCWD, path, 0, STATX_BASIC_STATS, &sx) < 0)
                return false;
        if (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT)
                return sx.stx_attributes & STATX_ATTR_MOUNT_ROOT;
        /* Kernels before 5.8: a different device than the parent's. */
        if (asprintf(&parent, "%s/..", path) < 0 || stat(path, &a) < 0 || stat(parent, &b) < 0)
                return false;
        return a.st_dev != b.st_dev || a.st_ino == b.st_ino;
}

static int test_kernel_command_line(const char *p) {
        _cleanup_free_ char *cmdline = NULL;
        bool container = false;
        int n;

        /* In a container systemd reads the command line of the container's PID 1. */
        (void) condition_detect_virtualization(&container);
        if (container) {
                n = read_small_file("/proc/1/cmdline", true, &cmdline);
                if (n < 0)
                        return false;
                for (int i = 0; i < n; i++)
                        if (cmdline[i] == '\0')
                                cmdline[i] = ' ';
        } else if (read_small_file("/proc/cmdline", false, &cmdline) < 0)
                return false;

        bool equal = strchr(p, '=');
        const char *s = cmdline;
        for (;;) {
                _cleanup_free_ char *word = NULL;
                int r = extract_first_word(&s, &word);
                if (r == -ENOMEM)
                        return r;
                if (r <= 0)
                        return false;
                if (equal ? streq(word, p)
                          : (strneq(word, p, strlen(p)) && IN_SET(word[strlen(p)], '\0', '=')))
                        return true;
        }
}

static int test_security(const char *p) {
        _cleanup_free_ char *s = NULL;

        if (streq(p, "selinux"))
                return access("/sys/fs/selinux/enforce", F_OK) >= 0;
        if (streq(p, "apparmor"))
                return read_small_file("/sys/module/apparmor/parameters/enabled", false, &s) >= 0 && s[0] == 'Y';
        if (streq(p, "smack"))
                return access("/sys/fs/smackfs", F_OK) >= 0;
        if (streq(p, "ima"))
                return access("/sys/kernel/security/ima", F_OK) >= 0;
        if (streq(p, "tomoyo"))
                return access("/sys/kernel/security/tomoyo/version", F_OK) >= 0;
        if (streq(p, "audit")) {
                _cleanup_close_ int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
                return fd >= 0 || !IN_SET(errno, EAFNOSUPPORT, EPROTONOSUPPORT, EPERM);
        }
        if (streq(p, "uefi-secureboot")) {
                /* EFI variable: four bytes of attributes, then the value. */
                int n = read_small_file("/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c",
                                        true, &s);
                return n == 5 && s[4] == 1;
        }
        if (streq(p, "tpm2")) {
                int r = dir_is_empty("/sys/class/tpmrm");
                return r == 0;
        }
        if (streq(p, "measured-uki"))
                return access("/sys/firmware/efi/efivars/StubPcrKernelImage-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f",
                              F_OK) >= 0;
        return false; /* "cvm" and names svd does not know */
}

/* systemd's on_ac_power(): true when a mains supply is online, or when there is none to ask. */
static bool on_ac_power(void) {
        _cleanup_(closedirp) DIR *d = opendir("/sys/class/power_supply");
        bool found_online = false, found_offline = false;
        struct dirent *de;

        if (!d)
                return true;
        while ((de = readdir(d))) {
                _cleanup_free_ char *path = NULL, *type = NULL, *online = NULL;
                if (de->d_name[0] == '.')
                        continue;
                if (asprintf(&path, "/sys/class/power_supply/%s/type", de->d_name) < 0)
                        return true;
                if (read_small_file(path, false, &type) < 0 || !streq(type, "Mains"))
                        continue;
                free(path);
                if (asprintf(&path, "/sys/class/power_supply/%s/online", de->d_name) < 0)
                        return true;
                if (read_small_file(path, false, &online) < 0)
                        continue;
                if (streq(online, "1")) {
                        found_online = true;
                        break;
                }
                found_offline = true;
        }
        return found_online || !found_offline;
}

static bool test_needs_update(const char *p) {
        _cleanup_free_ char *stamp = NULL;
        struct statvfs sv;
        struct stat usr, other;

        /* A read-only file system cannot be updated, so nothing needs it. */
        if (statvfs(p, &sv) >= 0 && (sv.f_flag & ST_RDONLY))
                return false;
        if (stat("/usr", &usr) < 0)
                return false;
        if (asprintf(&stamp, "%s/.updated", p) < 0)
                return false;
        if (lstat(stamp, &other) < 0)
                return true;
        return usr.st_mtim.tv_sec > other.st_mtim.tv_sec ||
               (usr.st_mtim.tv_sec == other.st_mtim.tv_sec && usr.st_mtim.tv_nsec > other.st_mtim.tv_nsec);
}

static bool test_group(gid_t gid) {
        gid_t groups[NGROUPS_MAX];
        int n;

        if (gid == getgid() || gid == getegid())
                return true;
        n = getgroups(ELEMENTSOF(groups), groups);
        for (int i = 0; i < n; i++)
                if (groups[i] == gid)
                        return true;
        return false;
}

static bool test_environment(const char *p) {
        bool equal = strchr(p, '=');
        size_t n = strlen(p);

        for (char **e = environ; e && *e; e++)
                if (equal ? streq(*e, p) : (strneq(*e, p, n) && (*e)[n] == '='))
                        return true;
        return false;
}

static bool test_cpus(const UnitCondition *c) {
        cpu_set_t set;
        unsigned n;

        if (sched_getaffinity(0, sizeof(set), &set) < 0)
                return false;
        n = (unsigned) CPU_COUNT(&set);
        switch (c->op) {
        case OP_LE: return n <= c->id;
        case OP_GE: return n >= c->id;
        case OP_NE: return n != c->id;
        case OP_LT: return n < c->id;
        case OP_GT: return n > c->id;
        default: return n == c->id;
        }
}

/* systemd's architecture name for uname's machine (u->machine itself when it has none). */
static const char *architecture(const struct utsname *u) {
        static const struct {
                const char *machine, *arch;
        } table[] = {
                { "x86_64", "x86-64" }, { "i386", "x86" },         { "i486", "x86" },
                { "i586", "x86" },      { "i686", "x86" },         { "aarch64", "arm64" },
                { "aarch64_be", "arm64-be" }, { "armv7l", "arm" }, { "armv6l", "arm" },
                { "ppc64le", "ppc64-le" }, { "ppc64", "ppc64" },   { "s390x", "s390x" },
                { "riscv64", "riscv64" }, { "loongarch64", "loongarch64" }, { "mips64", "mips64" },
        };
        for (size_t i = 0; i < ELEMENTSOF(table); i++)
                if (streq(u->machine, table[i].machine))
                        return table[i].arch;
        return u->machine;
}

static const char *native_architecture(void) {
#if defined(__x86_64__)
        return "x86-64";
#elif defined(__i386__)
        return "x86";
#elif defined(__aarch64__)
        return "arm64";
#else
        return NULL;
#endif
}

static bool test_credential(const char *p) {
        const char *dirs[] = { getenv("CREDENTIALS_DIRECTORY"), "/run/credentials/@system" };

        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                _cleanup_free_ char *path = NULL;
                if (isempty(dirs[i]) || asprintf(&path, "%s/%s", dirs[i], p) < 0)
                        continue;
                if (access(path, F_OK) >= 0)
                        return true;
        }
        return false;
}

/* 1 or 0 for whether c's check (before '!') holds, -ENOMEM. */
static int condition_check(const UnitCondition *c) {
        const char *p = c->parameter;
        struct stat st;

        switch (c->type) {
        case CONDITION_PATH_EXISTS:
                return access(p, F_OK) >= 0;
        case CONDITION_PATH_EXISTS_GLOB: {
                glob_t g = {};
                int r = glob(p, GLOB_NOSORT | GLOB_BRACE, NULL, &g);
                globfree(&g);
                if (r == GLOB_NOSPACE)
                        return -ENOMEM;
                return r == 0;
        }
        case CONDITION_PATH_IS_DIRECTORY:
                return stat(p, &st) >= 0 && S_ISDIR(st.st_mode);
        case CONDITION_PATH_IS_SYMBOLIC_LINK:
                return lstat(p, &st) >= 0 && S_ISLNK(st.st_mode);
        case CONDITION_PATH_IS_MOUNT_POINT:
                return path_is_mount_point(p);
        case CONDITION_PATH_IS_READ_WRITE: {
                struct statvfs sv;
                return statvfs(p, &sv) >= 0 && !(sv.f_flag & ST_RDONLY);
        }
        case CONDITION_DIRECTORY_NOT_EMPTY: {
                int r = dir_is_empty(p);
                /* As systemd: only a missing path or a non-directory fail; an unreadable directory passes. */
                return r <= 0 && !IN_SET(r, -ENOTDIR, -ENOENT);
        }
        case CONDITION_FILE_NOT_EMPTY:
                return stat(p, &st) >= 0 && S_ISREG(st.st_mode) && st.st_size > 0;
        case CONDITION_FILE_IS_EXECUTABLE:
                return stat(p, &st) >= 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111);
        case CONDITION_VIRTUALIZATION:
                return test_virtualization(p);
        case CONDITION_HOST: {
                sd_id128_t want, machine;
                char host[HOST_NAME_MAX + 1] = {};
                if (sd_id128_from_string(p, &want) >= 0)
                        return sd_id128_get_machine(&machine) >= 0 && sd_id128_equal(want, machine);
                if (gethostname(host, sizeof(host) - 1) < 0)
                        return false;
                return fnmatch(p, host, FNM_CASEFOLD) == 0;
        }
        case CONDITION_KERNEL_COMMAND_LINE:
                return test_kernel_command_line(p);
        case CONDITION_SECURITY:
                return test_security(p);
        case CONDITION_CAPABILITY:
                /* In svd's bounding set, as systemd reads its own CapBnd. */
                return prctl(PR_CAPBSET_READ, (unsigned long) c->id, 0, 0, 0) > 0;
        case CONDITION_AC_POWER:
                return on_ac_power() == c->found;
        case CONDITION_NEEDS_UPDATE:
                return test_needs_update(p);
        case CONDITION_FIRST_BOOT:
                /* systemd marks the first boot of a machine with this file. */
                return (access("/run/systemd/first-boot", F_OK) >= 0) == c->found;
        case CONDITION_USER:
                if (streq(p, "@system"))
                        return getuid() <= SYSTEM_UID_MAX || geteuid() <= SYSTEM_UID_MAX;
                return c->found && (c->id == getuid() || c->id == geteuid());
        case CONDITION_GROUP:
                return c->found && test_group((gid_t) c->id);
        case CONDITION_ENVIRONMENT:
                return test_environment(p);
        case CONDITION_CPUS:
                return test_cpus(c);
        case CONDITION_ARCHITECTURE: {
                struct utsname u;
                if (uname(&u) < 0)
                        return false;
                if (streq(p, "native"))
                        p = native_architecture();
                return p && streq(architecture(&u), p);
        }
        case CONDITION_CREDENTIAL:
                return test_credential(p);
        default:
                assert(!"bad condition type");
                return false;
        }
}

static char *condition_to_string(const UnitCondition *c) {
        char *s = NULL;

        if (asprintf(&s, "%s%s=%s%s%s", c->assertion ? "Assert" : "Condition",
                     condition_type_to_string(c->type), c->trigger ? "|" : "", c->negate ? "!" : "",
                     c->parameter) < 0)
                return NULL;
        return s;
}

int unit_conditions_test(const UnitConditions *l, bool asserts, char **ret_failed) {
        const UnitCondition *first_trigger = NULL;
        unsigned n_triggers = 0;
        bool trigger_met = false;

        assert(l);
        assert(ret_failed);

        for (size_t i = 0; i < l->n; i++) {
                const UnitCondition *c = &l->items[i];
                if (c->assertion != asserts)
                        continue;
                int r = condition_check(c);
                if (r < 0)
                        return r;
                bool met = (r > 0) != c->negate;
                if (c->trigger) {
                        if (!first_trigger)
                                first_trigger = c;
                        n_triggers++;
                        trigger_met = trigger_met || met;
                        continue;
                }
                if (!met) {
                        *ret_failed = condition_to_string(c);
                        return *ret_failed ? 0 : -ENOMEM;
                }
        }
        if (n_triggers > 0 && !trigger_met) {
                _cleanup_free_ char *s = condition_to_string(first_trigger);
                if (!s)
                        return -ENOMEM;
                if (n_triggers == 1) {
                        *ret_failed = TAKE_PTR(s);
                        return 0;
                }
                if (asprintf(ret_failed, "%s and the %u other triggering ones", s, n_triggers - 1) < 0)
                        return -ENOMEM;
                return 0;
        }
        *ret_failed = NULL;
        return 1;
}
