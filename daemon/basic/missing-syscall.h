/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The one place where svd enters the kernel without a libc wrapper: every
 * syscall(2) call, and the one raw `syscall` instruction (sys_clone3_run()).
 * glibc 2.36 (Debian 12) lacks wrappers for clone3(), bpf() and
 * pidfd_send_signal(), and its headers predate the Linux 7.1 clone3 flags
 * and pidfs' PIDFD_GET_INFO, so the mainline ABI is spelled out here.
 * System call numbers come from <sys/syscall.h>; the fallbacks below are
 * for headers older than the calls.
 */

#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_pidfd_send_signal
#define __NR_pidfd_send_signal 424
#endif
#ifndef __NR_close_range
#define __NR_close_range 436
#endif

/* Linux 7.1, include/uapi/linux/sched.h. */
#ifndef CLONE_AUTOREAP
#define CLONE_AUTOREAP (1ULL << 34)
#endif
#ifndef CLONE_NNP
#define CLONE_NNP (1ULL << 35)
#endif
#ifndef CLONE_PIDFD_AUTOKILL
#define CLONE_PIDFD_AUTOKILL (1ULL << 36)
#endif

#ifndef CLONE_ARGS_SIZE_VER2
#define CLONE_ARGS_SIZE_VER2 88
#endif

/* Linux 6.13/6.15, include/uapi/linux/pidfd.h: the extensible pidfd info ioctl. */
struct svd_pidfd_info {
        uint64_t mask;
        uint64_t cgroupid;
        uint32_t pid;
        uint32_t tgid;
        uint32_t ppid;
        uint32_t ruid;
        uint32_t rgid;
        uint32_t euid;
        uint32_t egid;
        uint32_t suid;
        uint32_t sgid;
        uint32_t fsuid;
        uint32_t fsgid;
        int32_t exit_code; /* wait status format, as in waitpid(2) */
};
_Static_assert(sizeof(struct svd_pidfd_info) == 64, "PIDFD_INFO_SIZE_VER0");

#define SVD_PIDFD_INFO_PID (1ULL << 0)
#define SVD_PIDFD_INFO_CREDS (1ULL << 1)
#define SVD_PIDFD_INFO_CGROUPID (1ULL << 2)
#define SVD_PIDFD_INFO_EXIT (1ULL << 3)
#define SVD_PIDFS_IOCTL_MAGIC 0xFF
#define SVD_PIDFD_GET_INFO _IOWR(SVD_PIDFS_IOCTL_MAGIC, 11, struct svd_pidfd_info)

static inline pid_t sys_clone3(struct clone_args *args, size_t size) {
        return (pid_t) syscall(__NR_clone3, args, size);
}

/* The clone(2) system call, fork-like (no new stack): for kernels and
 * sandboxes without clone3() (ENOSYS: seccomp profiles, valgrind). With
 * CLONE_PIDFD the pidfd is stored at *pidfd. x86_64 argument order. */
static inline pid_t sys_clone_fork(unsigned long flags, int *pidfd) {
        return (pid_t) syscall(__NR_clone, flags, NULL, pidfd, NULL, 0UL);
}

/* keyctl(2): glibc has no wrapper (libkeyutils has). */
static inline long sys_keyctl(int operation, unsigned long arg2, unsigned long arg3, unsigned long arg4,
                              unsigned long arg5) {
        return syscall(__NR_keyctl, operation, arg2, arg3, arg4, arg5);
}

static inline int sys_pidfd_open(pid_t pid, unsigned flags) {
        return (int) syscall(__NR_pidfd_open, pid, flags);
}

static inline int sys_pidfd_send_signal(int pidfd, int sig, siginfo_t *info, unsigned flags) {
        return (int) syscall(__NR_pidfd_send_signal, pidfd, sig, info, flags);
}

struct __user_cap_header_struct;
struct __user_cap_data_struct;
static inline int sys_capget(struct __user_cap_header_struct *h, struct __user_cap_data_struct *d) {
        return (int) syscall(__NR_capget, h, d);
}

static inline int sys_capset(struct __user_cap_header_struct *h, struct __user_cap_data_struct *d) {
        return (int) syscall(__NR_capset, h, d);
}

static inline int sys_close_range(unsigned first, unsigned last, unsigned flags) {
        return (int) syscall(__NR_close_range, first, last, flags);
}

/* bpf(2): glibc has no wrapper (libbpf has). The attribute union is linux/bpf.h's. */
union bpf_attr;
static inline long sys_bpf(int cmd, union bpf_attr *attr, unsigned size) {
        return syscall(__NR_bpf, cmd, attr, size);
}

#if defined(__x86_64__)
#define HAVE_SYS_CLONE3_RUN 1
/* clone3() whose child runs fn(arg) on args->stack and then exit(2)s with
 * fn's return value; returns the child's pid, or -errno. syscall(2) cannot
 * do this: its child would return into the caller's frame on a stack it
 * does not own (with CLONE_VM, svd's own), so the stack switch is a few
 * lines of assembly. The child starts with rbp cleared (the end of any
 * backtrace) and the new stack aligned for a call. */
static inline long sys_clone3_run(struct clone_args *args, int (*fn)(void *), void *arg) {
        register long rax __asm__("rax") = __NR_clone3;
        register void *r12 __asm__("r12") = (void *) fn;
        register void *r13 __asm__("r13") = arg;
        __asm__ volatile("syscall\n\t"
                         "test %%rax, %%rax\n\t"
                         "jnz 1f\n\t"
                         /* child: on the new stack */
                         "xor %%ebp, %%ebp\n\t"
                         "mov %%r13, %%rdi\n\t"
                         "call *%%r12\n\t"
                         "mov %%eax, %%edi\n\t"
                         "mov %[nr_exit], %%eax\n\t"
                         "syscall\n\t"
                         "ud2\n"
                         "1:\n\t"
                         : "+r"(rax)
                         : "D"(args), "S"(sizeof(*args)), "r"(r12), "r"(r13), [nr_exit] "i"(__NR_exit)
                         : "rcx", "r11", "memory", "cc");
        return rax;
}
#endif
