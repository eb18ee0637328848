/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The seccomp filters of the sandboxing keys, compiled with libseccomp in svd (parent side): one
 * program per key, exported as classic BPF for the child to load. */
#include "spawn-seccomp.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <unistd.h>

#include "basic/macros.h"
#include "basic/syscall-groups.h"

#define SYSCALL_NR_MAX 1024 /* x86-64's numbers are below 512 */

bool seccomp_settings_any(const SeccompSettings *s) {
        return s->syscall_filter || s->native_only || s->address_families_set ||
               s->namespaces_allowed != UINT64_MAX || s->restrict_realtime || s->lock_personality ||
               s->memory_deny_write_execute || s->restrict_suid_sgid || s->protect_hostname ||
               s->protect_kernel_modules || s->protect_kernel_logs || s->private_devices || s->protect_clock;
}

/* Sets (add) or clears the bits of a name or @group, groups recursively (depth-bounded: the table has
 * no cycles, but a bound costs nothing). Names this architecture lacks are skipped. */
static void syscall_set_mark(uint8_t *set, const char *name, bool add, unsigned depth) {
        if (name[0] == '@') {
                const SyscallGroup *g = syscall_group_find(name);
                if (!g || depth > 8)
                        return;
                for (const char *const *m = g->members; *m; m++)
                        syscall_set_mark(set, *m, add, depth + 1);
                return;
        }
        int nr = seccomp_syscall_resolve_name(name);
        if (nr < 0 || nr >= SYSCALL_NR_MAX)
                return;
        set[nr] = add;
}

typedef struct Filter {
        scmp_filter_ctx ctx;
} Filter;

/* A new filter: default allow; with other_archs, for i386 and x32 calls too (the rules apply to
 * every architecture of the filter, translated by name); otherwise calls of other architectures pass
 * this filter (SystemCallArchitectures= decides about them). */
static scmp_filter_ctx filter_new(uint32_t default_action, bool other_archs) {
        scmp_filter_ctx ctx = seccomp_init(default_action);
        if (!ctx)
                return NULL;
        /* svd sets no_new_privs itself where it must (the loading happens in the child). */
        if (seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) < 0)
                goto fail;
        if (other_archs) {
                if (seccomp_arch_add(ctx, SCMP_ARCH_X86) < 0 || seccomp_arch_add(ctx, SCMP_ARCH_X32) < 0)
                        goto fail;
        } else if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW) < 0)
                goto fail;
        return ctx;
fail:
        seccomp_release(ctx);
        return NULL;
}

/* Exports ctx as BPF into a new entry of p->filters. */
static int filter_export(SandboxPlan *p, SandboxKey key, scmp_filter_ctx ctx) {
        int fd = memfd_create("svd-seccomp", MFD_CLOEXEC);
        if (fd < 0)
                return -errno;
        int r = seccomp_export_bpf(ctx, fd);
        struct stat st;
        if (r >= 0 && fstat(fd, &st) < 0)
                r = -errno;
        struct sock_filter *insns = NULL;
        size_t n = r >= 0 ? (size_t) st.st_size / sizeof(struct sock_filter) : 0;
        if (r >= 0 && (n == 0 || n > BPF_MAXINSNS))
                r = -E2BIG;
        if (r >= 0 && !(insns = malloc(n * sizeof(struct sock_filter))))
                r = -ENOMEM;
        if (r >= 0 && pread(fd, insns, n * sizeof(struct sock_filter), 0) != (ssize_t) (n * sizeof(struct sock_filter)))
                r = -EIO;
        (void) close(fd);
        SandboxFilter *a = r >= 0 ? reallocarray(p->filters, p->n_filters + 1, sizeof(SandboxFilter)) : NULL;
        if (r >= 0 && !a)
                r = -ENOMEM;
        if (r < 0) {
                free(insns);
                return r;
        }
        p->filters = a;
        p->filters[p->n_filters++] = (SandboxFilter){ .key = key,
                                                     .prog = { .len = (unsigned short) n, .filter = insns } };
        return 0;
}

static int rule(scmp_filter_ctx ctx, uint32_t action, const char *name, unsigned n, const struct scmp_arg_cmp *cmp) {
        int nr = seccomp_syscall_resolve_name(name);
        if (nr < 0)
                return 0; /* not on this architecture */
        return seccomp_rule_add_array(ctx, action, nr, n, cmp);
}

/* SystemCallFilter=, and the fixed sets of other keys (PrivateDevices= and the like: denied with
 * EPERM). */
static int build_syscall_filter(const SeccompSettings *s, scmp_filter_ctx ctx) {
        uint8_t set[SYSCALL_NR_MAX] = {};
        /* Entries in order: in an allow list "+" adds and "-" takes away; in a deny list the reverse. */
        for (char *const *e = s->syscall_filter; *e; e++) {
                if ((*e)[1] == '\0')
                        continue;
                bool plus = (*e)[0] == '+';
                syscall_set_mark(set, *e + 1, s->syscall_allow_list ? plus : !plus, 0);
        }
        if (s->syscall_allow_list)
                syscall_set_mark(set, "@default", true, 0); /* always permitted, as in systemd */
        uint32_t act = s->syscall_allow_list ? SCMP_ACT_ALLOW
                                             : (s->syscall_errno > 0 ? SCMP_ACT_ERRNO((uint32_t) s->syscall_errno)
                                                                     : SCMP_ACT_KILL_PROCESS);
        for (int nr = 0; nr < SYSCALL_NR_MAX; nr++)
                if (set[nr]) {
                        int r = seccomp_rule_add(ctx, act, nr, 0);
                        if (r < 0 && r != -EEXIST)
                                return r;
                }
        return 0;
}

static int build_fixed_denials(const SeccompSettings *s, scmp_filter_ctx ctx) {
        uint8_t set[SYSCALL_NR_MAX] = {};
        if (s->private_devices)
                syscall_set_mark(set, "@raw-io", true, 0);
        if (s->protect_kernel_modules)
                syscall_set_mark(set, "@module", true, 0);
        if (s->protect_kernel_logs)
                syscall_set_mark(set, "syslog", true, 0);
        if (s->protect_clock)
                syscall_set_mark(set, "@clock", true, 0);
        if (s->protect_hostname) {
                syscall_set_mark(set, "sethostname", true, 0);
                syscall_set_mark(set, "setdomainname", true, 0);
        }
        for (int nr = 0; nr < SYSCALL_NR_MAX; nr++)
                if (set[nr]) {
                        int r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
                        if (r < 0 && r != -EEXIST)
                                return r;
                }
        return 0;
}

/* socket(2)'s family: an allow list denies every other family below AF_MAX and everything above. */
static int build_address_families(const SeccompSettings *s, scmp_filter_ctx ctx) {
        enum { FAMILY_MAX = 64 };
        uint32_t act = SCMP_ACT_ERRNO(EAFNOSUPPORT);
        bool listed[FAMILY_MAX] = {};
        for (size_t i = 0; i < s->n_address_families; i++)
                if (s->address_families[i] >= 0 && s->address_families[i] < FAMILY_MAX)
                        listed[s->address_families[i]] = true;
        for (int af = 0; af < FAMILY_MAX; af++) {
                if (listed[af] == s->address_families_allow_list)
                        continue;
                struct scmp_arg_cmp c = SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t) af, 0);
                int r = rule(ctx, act, "socket", 1, &c);
                if (r < 0)
                        return r;
        }
        if (s->address_families_allow_list) {
                struct scmp_arg_cmp c = SCMP_A0(SCMP_CMP_GE, FAMILY_MAX, 0);
                int r = rule(ctx, act, "socket", 1, &c);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int build_namespaces(const SeccompSettings *s, scmp_filter_ctx ctx) {
        static const uint64_t flags[] = { CLONE_NEWCGROUP, CLONE_NEWIPC, CLONE_NEWNET, CLONE_NEWNS,
                                          CLONE_NEWPID,    CLONE_NEWUSER, CLONE_NEWUTS, 0x00000080 /* CLONE_NEWTIME */ };
        uint32_t eperm = SCMP_ACT_ERRNO(EPERM);
        int r;
        /* clone3() takes its flags in memory, out of seccomp's reach: ENOSYS makes libc use clone(). */
        r = rule(ctx, SCMP_ACT_ERRNO(ENOSYS), "clone3", 0, NULL);
        bool any_denied = false;
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(flags); i++) {
                if (s->namespaces_allowed & flags[i])
                        continue;
                any_denied = true;
                struct scmp_arg_cmp c = SCMP_A0(SCMP_CMP_MASKED_EQ, flags[i], flags[i]);
                r = rule(ctx, eperm, "unshare", 1, &c);
                if (r >= 0) /* x86-64: clone(flags, ...) */
                        r = rule(ctx, eperm, "clone", 1, &c);
                struct scmp_arg_cmp t = SCMP_A1(SCMP_CMP_MASKED_EQ, flags[i], flags[i]);
                if (r >= 0)
                        r = rule(ctx, eperm, "setns", 1, &t);
        }
        if (r >= 0 && any_denied) {
                /* setns() with type 0 joins whatever the fd is. */
                struct scmp_arg_cmp z = SCMP_A1(SCMP_CMP_EQ, 0, 0);
                r = rule(ctx, eperm, "setns", 1, &z);
        }
        return r;
}

static int build_realtime(scmp_filter_ctx ctx) {
        /* SCHED_FIFO 1, SCHED_RR 2, SCHED_DEADLINE 6, with or without SCHED_RESET_ON_FORK. */
        static const int policies[] = { 1, 2, 6 };
        for (size_t i = 0; i < ELEMENTSOF(policies); i++) {
                struct scmp_arg_cmp c = SCMP_A1(SCMP_CMP_MASKED_EQ, ~(scmp_datum_t) 0x40000000, policies[i]);
                int r = rule(ctx, SCMP_ACT_ERRNO(EPERM), "sched_setscheduler", 1, &c);
                if (r < 0)
                        return r;
        }
        /* sched_setattr(2) takes its policy in memory, out of a filter's reach: refused whole, else it
         * would set any realtime policy (SCHED_DEADLINE has no other way in). */
        return rule(ctx, SCMP_ACT_ERRNO(EPERM), "sched_setattr", 0, NULL);
}

/* The personality a service starts with: svd's own, which it inherits. */
static uint32_t current_personality(void) {
        int p = personality(0xffffffff);
        return p >= 0 ? (uint32_t) p : PER_LINUX;
}

/* personality(2) fails with EPERM unless its argument is the current personality or the query
 * 0xffffffff (which changes nothing). libseccomp compares an argument once per rule, and rules are
 * or-ed, so "neither A nor B" is spelled as rules that each match only values outside {A, B}:
 * anything above 32 bits; a zero where both have a one; and, where A has zeros (B, all ones, has
 * none), two neighbouring such bits that differ: a value with all of them equal there is A (all
 * zero) or B (all one). */
static int build_personality(scmp_filter_ctx ctx) {
        uint32_t a = current_personality();
        uint32_t eperm = SCMP_ACT_ERRNO(EPERM);
        unsigned zeros[32], n = 0;
        struct scmp_arg_cmp c = SCMP_A0(SCMP_CMP_GT, UINT32_MAX, 0);
        int r = rule(ctx, eperm, "personality", 1, &c);
        for (unsigned i = 0; r >= 0 && i < 32; i++) {
                scmp_datum_t bit = (scmp_datum_t) 1 << i;
                if (!(a & bit)) {
                        zeros[n++] = i;
                        continue;
                }
                c = (struct scmp_arg_cmp) SCMP_A0(SCMP_CMP_MASKED_EQ, bit, 0);
                r = rule(ctx, eperm, "personality", 1, &c);
        }
        for (unsigned k = 0; r >= 0 && n > 1 && k < n; k++) {
                scmp_datum_t x = (scmp_datum_t) 1 << zeros[k], y = (scmp_datum_t) 1 << zeros[(k + 1) % n];
                c = (struct scmp_arg_cmp) SCMP_A0(SCMP_CMP_MASKED_EQ, x | y, x);
                r = rule(ctx, eperm, "personality", 1, &c);
                if (r >= 0) {
                        c = (struct scmp_arg_cmp) SCMP_A0(SCMP_CMP_MASKED_EQ, x | y, y);
                        r = rule(ctx, eperm, "personality", 1, &c);
                }
        }
        /* n == 1: A and B differ in one bit, and both values of it are allowed. */
        return r;
}

static int build_wx(scmp_filter_ctx ctx) {
        uint32_t eperm = SCMP_ACT_ERRNO(EPERM);
        struct scmp_arg_cmp wx = SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC | PROT_WRITE, PROT_EXEC | PROT_WRITE);
        struct scmp_arg_cmp x = SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC);
        struct scmp_arg_cmp shm = SCMP_A2(SCMP_CMP_MASKED_EQ, SHM_EXEC, SHM_EXEC);
        int r = rule(ctx, eperm, "mmap", 1, &wx);
        /* Making memory executable later is what a W^X check cannot follow: denied, as in systemd. */
        if (r >= 0)
                r = rule(ctx, eperm, "mprotect", 1, &x);
        if (r >= 0)
                r = rule(ctx, eperm, "pkey_mprotect", 1, &x);
        if (r >= 0)
                r = rule(ctx, eperm, "shmat", 1, &shm);
        return r;
}

static int build_suid_sgid(scmp_filter_ctx ctx) {
        static const struct {
                const char *name;
                unsigned mode_arg;
                int flags_arg; /* the open flags' argument, -1 for none */
        } calls[] = {
                { "chmod", 1, -1 },   { "fchmod", 1, -1 },  { "fchmodat", 2, -1 }, { "fchmodat2", 2, -1 },
                { "mkdir", 1, -1 },   { "mkdirat", 2, -1 }, { "mknod", 1, -1 },    { "mknodat", 2, -1 },
                { "creat", 1, -1 },   { "open", 2, 1 },     { "openat", 3, 2 },
        };
        static const scmp_datum_t bits[] = { S_ISUID, S_ISGID };
        for (size_t i = 0; i < ELEMENTSOF(calls); i++)
                for (size_t b = 0; b < ELEMENTSOF(bits); b++) {
                        struct scmp_arg_cmp c[2] = {
                                { .arg = calls[i].mode_arg, .op = SCMP_CMP_MASKED_EQ, .datum_a = bits[b],
                                  .datum_b = bits[b] },
                        };
                        unsigned n = 1;
                        if (calls[i].flags_arg >= 0) {
                                c[1] = (struct scmp_arg_cmp){ .arg = (unsigned) calls[i].flags_arg,
                                                              .op = SCMP_CMP_MASKED_EQ,
                                                              .datum_a = O_CREAT,
                                                              .datum_b = O_CREAT };
                                n = 2;
                        }
                        int r = rule(ctx, SCMP_ACT_ERRNO(EPERM), calls[i].name, n, c);
                        if (r < 0)
                                return r;
                }
        /* openat2(2) takes its flags and mode in memory: refused whole, as in systemd. */
        return rule(ctx, SCMP_ACT_ERRNO(EPERM), "openat2", 0, NULL);
}

int seccomp_plan_build(const SeccompSettings *s, SandboxPlan *p, SandboxKey *ret_key) {
        struct {
                SandboxKey key;
                bool wanted;
                bool other_archs;
                uint32_t default_action;
        } filters[] = {
                /* First the architecture: every call of another one is killed before any other filter. */
                { SANDBOX_KEY_SYSTEM_CALL_ARCHITECTURES, s->native_only, false, SCMP_ACT_ALLOW },
                { SANDBOX_KEY_SYSTEM_CALL_FILTER, s->syscall_filter != NULL, !s->native_only,
                  !s->syscall_filter || !s->syscall_allow_list
                          ? SCMP_ACT_ALLOW
                          : (s->syscall_errno > 0 ? SCMP_ACT_ERRNO((uint32_t) s->syscall_errno) : SCMP_ACT_KILL_PROCESS) },
                { SANDBOX_KEY_PRIVATE_MOUNTS /* the keys' fixed sets; named below */,
                  s->private_devices || s->protect_kernel_modules || s->protect_kernel_logs || s->protect_hostname ||
                          s->protect_clock,
                  !s->native_only, SCMP_ACT_ALLOW },
                /* socket() is multiplexed through socketcall() on i386: native calls only, as in systemd. */
                { SANDBOX_KEY_RESTRICT_ADDRESS_FAMILIES, s->address_families_set, false, SCMP_ACT_ALLOW },
                { SANDBOX_KEY_RESTRICT_NAMESPACES, s->namespaces_allowed != UINT64_MAX, false, SCMP_ACT_ALLOW },
                { SANDBOX_KEY_RESTRICT_REALTIME, s->restrict_realtime, !s->native_only, SCMP_ACT_ALLOW },
                { SANDBOX_KEY_LOCK_PERSONALITY, s->lock_personality, !s->native_only, SCMP_ACT_ALLOW },
                { SANDBOX_KEY_MEMORY_DENY_WRITE_EXECUTE, s->memory_deny_write_execute, false, SCMP_ACT_ALLOW },
                { SANDBOX_KEY_RESTRICT_SUID_SGID, s->restrict_suid_sgid, !s->native_only, SCMP_ACT_ALLOW },
        };

        for (size_t i = 0; i < ELEMENTSOF(filters); i++) {
                if (!filters[i].wanted)
                        continue;
                SandboxKey key = filters[i].key;
                if (key == SANDBOX_KEY_PRIVATE_MOUNTS)
                        key = s->private_devices          ? SANDBOX_KEY_PRIVATE_DEVICES
                              : s->protect_kernel_modules ? SANDBOX_KEY_PROTECT_KERNEL_MODULES
                              : s->protect_kernel_logs    ? SANDBOX_KEY_PROTECT_KERNEL_LOGS
                              : s->protect_clock          ? SANDBOX_KEY_PROTECT_CLOCK
                                                          : SANDBOX_KEY_PROTECT_HOSTNAME;
                *ret_key = key;
                scmp_filter_ctx ctx = filter_new(filters[i].default_action, filters[i].other_archs);
                if (!ctx)
                        return -ENOMEM;
                if (filters[i].key == SANDBOX_KEY_SYSTEM_CALL_ARCHITECTURES &&
                    seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) < 0) {
                        seccomp_release(ctx);
                        return -EINVAL;
                }
                int r = 0;
                switch (filters[i].key) {
                case SANDBOX_KEY_SYSTEM_CALL_FILTER:
                        r = build_syscall_filter(s, ctx);
                        break;
                case SANDBOX_KEY_PRIVATE_MOUNTS:
                        r = build_fixed_denials(s, ctx);
                        break;
                case SANDBOX_KEY_RESTRICT_ADDRESS_FAMILIES:
                        r = build_address_families(s, ctx);
                        break;
                case SANDBOX_KEY_RESTRICT_NAMESPACES:
                        r = build_namespaces(s, ctx);
                        break;
                case SANDBOX_KEY_RESTRICT_REALTIME:
                        r = build_realtime(ctx);
                        break;
                case SANDBOX_KEY_LOCK_PERSONALITY:
                        r = build_personality(ctx);
                        break;
                case SANDBOX_KEY_MEMORY_DENY_WRITE_EXECUTE:
                        r = build_wx(ctx);
                        break;
                case SANDBOX_KEY_RESTRICT_SUID_SGID:
                        r = build_suid_sgid(ctx);
                        break;
                default:
                        break;
                }
                if (r >= 0)
                        r = filter_export(p, key, ctx);
                seccomp_release(ctx);
                if (r < 0)
                        return r;
        }
        return 0;
}
