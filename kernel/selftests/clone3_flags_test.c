// SPDX-License-Identifier: GPL-2.0
/*
 * Selftests for the clone3() flags svd relies on: CLONE_AUTOREAP, CLONE_NNP
 * and CLONE_PIDFD_AUTOKILL (Linux 7.1), and for PIDFD_GET_INFO's
 * PIDFD_INFO_EXIT, through which an autoreaped child's exit status is read.
 *
 * Written for svd from the semantics in DESIGN.md ("Kernel interface"), one
 * test per property. Every test runs in its own forked process and process
 * group, with a timeout. A kernel without the flags answers clone3() with
 * EINVAL: the flag tests then SKIP with that reason, they never fail.
 *
 * Output is TAP 13 (kselftest style), followed by one summary line
 * "svd-selftests: N passed, N failed, N skipped". Exit status: 1 if a test
 * failed, 77 if every test skipped, else 0.
 *
 * Usage: svd-selftests [-l] [TEST...]   (-l lists the tests; names select)
 *
 * Only libc and the kernel's UAPI numbers: the flags, struct clone_args and
 * struct pidfd_info are defined here because Debian 12's headers predate them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- UAPI numbers (include/uapi/linux/sched.h, pidfd.h of Linux 7.1) ---- */

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
#ifndef CLONE_AUTOREAP
#define CLONE_AUTOREAP (1ULL << 34)
#endif
#ifndef CLONE_NNP
#define CLONE_NNP (1ULL << 35)
#endif
#ifndef CLONE_PIDFD_AUTOKILL
#define CLONE_PIDFD_AUTOKILL (1ULL << 36)
#endif
#ifndef P_PIDFD
#define P_PIDFD 3
#endif
#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_pidfd_send_signal
#define __NR_pidfd_send_signal 424
#endif

/* struct clone_args, CLONE_ARGS_SIZE_VER2 (88 bytes). */
struct test_clone_args {
        uint64_t flags;
        uint64_t pidfd;
        uint64_t child_tid;
        uint64_t parent_tid;
        uint64_t exit_signal;
        uint64_t stack;
        uint64_t stack_size;
        uint64_t tls;
        uint64_t set_tid;
        uint64_t set_tid_size;
        uint64_t cgroup;
};

/* struct pidfd_info, PIDFD_INFO_SIZE_VER0 (64 bytes). */
struct test_pidfd_info {
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
        int32_t exit_code;
};
_Static_assert(sizeof(struct test_pidfd_info) == 64, "PIDFD_INFO_SIZE_VER0");

#define TEST_PIDFD_INFO_EXIT (1ULL << 3)
#define TEST_PIDFD_GET_INFO _IOWR(0xFF, 11, struct test_pidfd_info)

/* ---- harness ---- */

#define TEST_TIMEOUT_SEC 60   /* generous: QEMU TCG is slow */
#define LONG_MS 20000         /* waiting for something that must happen */
#define SHORT_MS 500          /* waiting for something that must not happen */

#define KSFT_PASS 0
#define KSFT_FAIL 1
#define KSFT_SKIP 77

struct test_shared {
        char skip_reason[256];
};
static struct test_shared *shared;

static struct {
        int autoreap;       /* 0 or -errno from the probe */
        int nnp;
        int autokill;
        int pidfd_info_exit;
} probe;

__attribute__((format(printf, 3, 4), noreturn)) static void test_fail(const char *file, int line,
                                                                      const char *fmt, ...)
{
        int saved = errno;
        va_list ap;

        printf("# %s:%d: ", file, line);
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        printf(" (errno %d: %s)\n", saved, strerror(saved));
        fflush(stdout);
        _exit(KSFT_FAIL);
}

__attribute__((format(printf, 1, 2), noreturn)) static void test_skip(const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(shared->skip_reason, sizeof(shared->skip_reason), fmt, ap);
        va_end(ap);
        fflush(stdout);
        _exit(KSFT_SKIP);
}

#define FAIL(...) test_fail(__FILE__, __LINE__, __VA_ARGS__)
#define CHECK(cond, ...)                                                      \
        do {                                                                  \
                if (!(cond))                                                  \
                        FAIL("check '" #cond "' failed: " __VA_ARGS__);       \
        } while (0)
#define SKIP(...) test_skip(__VA_ARGS__)

/* ---- syscall wrappers ---- */

static pid_t sys_clone3(struct test_clone_args *args)
{
        return (pid_t)syscall(__NR_clone3, args, sizeof(*args));
}

static int sys_pidfd_open(pid_t pid, unsigned int flags)
{
        return (int)syscall(__NR_pidfd_open, pid, flags);
}

static int sys_pidfd_send_signal(int pidfd, int sig)
{
        return (int)syscall(__NR_pidfd_send_signal, pidfd, sig, NULL, 0);
}

/*
 * fork()-like clone3(): returns 0 in the child, which must only call
 * async-signal-safe functions and leave through _exit().
 */
static pid_t clone3_fork(uint64_t flags, int exit_signal, int *ret_pidfd)
{
        struct test_clone_args args = {
                .flags = flags,
                .exit_signal = (uint64_t)exit_signal,
                .pidfd = (uint64_t)(uintptr_t)ret_pidfd,
        };

        return sys_clone3(&args);
}

/* ---- helpers ---- */

static void msleep(int ms)
{
        struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

/* 1 when fd polls readable within timeout_ms, 0 when not, -1 on error. */
static int wait_readable(int fd, int timeout_ms)
{
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int r;

        do
                r = poll(&p, 1, timeout_ms);
        while (r < 0 && errno == EINTR);
        if (r < 0)
                return -1;
        return r > 0 && (p.revents & (POLLIN | POLLHUP));
}

/* State letter from /proc/PID/stat, or 0 when the process is gone. */
static char proc_state(pid_t pid)
{
        char path[64], buf[512], *p;
        ssize_t n;
        int fd;

        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return 0;
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
                return 0;
        buf[n] = 0;
        p = strrchr(buf, ')');
        return p && p[1] == ' ' ? p[2] : 0;
}

/* Parent pid from /proc/PID/stat, or -1. */
static pid_t proc_ppid(pid_t pid)
{
        char path[64], buf[512], *p;
        ssize_t n;
        int fd, ppid;

        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -1;
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
                return -1;
        buf[n] = 0;
        p = strrchr(buf, ')');
        if (!p || sscanf(p + 2, "%*c %d", &ppid) != 1)
                return -1;
        return ppid;
}

/* Whether /proc/PID disappears within timeout_ms (the task was released). */
static bool proc_gone(pid_t pid, int timeout_ms)
{
        char path[64];

        snprintf(path, sizeof(path), "/proc/%d", (int)pid);
        for (int waited = 0;; waited += 10) {
                if (access(path, F_OK) < 0 && errno == ENOENT)
                        return true;
                if (waited >= timeout_ms)
                        return false;
                msleep(10);
        }
}

/*
 * Exit status (wait-status format) through PIDFD_GET_INFO/PIDFD_INFO_EXIT.
 * Returns 0 or -errno; -ENODATA when the kernel does not report the exit
 * within timeout_ms. The pidfd may poll readable a moment before the exit
 * information is recorded, hence the retry.
 */
static int pidfd_exit_status(int pidfd, int timeout_ms, int *ret_status)
{
        for (int waited = 0;; waited += 10) {
                struct test_pidfd_info info;

                memset(&info, 0, sizeof(info));
                info.mask = TEST_PIDFD_INFO_EXIT;
                if (ioctl(pidfd, TEST_PIDFD_GET_INFO, &info) < 0) {
                        if (errno != ESRCH)
                                return -errno;
                } else if (info.mask & TEST_PIDFD_INFO_EXIT) {
                        *ret_status = info.exit_code;
                        return 0;
                }
                if (waited >= timeout_ms)
                        return -ENODATA;
                msleep(10);
        }
}

/* Wait for an autoreaped child's exit and return its wait status. */
static int autoreap_wait(int pidfd)
{
        int status = 0, r;

        CHECK(wait_readable(pidfd, LONG_MS) == 1, "pidfd did not poll readable");
        r = pidfd_exit_status(pidfd, LONG_MS, &status);
        if (r < 0) {
                errno = -r;
                FAIL("PIDFD_GET_INFO with PIDFD_INFO_EXIT");
        }
        return status;
}

static bool is_exited(int status, int code)
{
        return WIFEXITED(status) && WEXITSTATUS(status) == code;
}

static bool is_killed(int status, int sig)
{
        return WIFSIGNALED(status) && WTERMSIG(status) == sig;
}

static void need(int probe_result, const char *flag)
{
        if (probe_result < 0)
                SKIP("kernel lacks %s (clone3: %s)", flag, strerror(-probe_result));
}

#define need_autoreap() need(probe.autoreap, "CLONE_AUTOREAP")
#define need_nnp() need(probe.nnp, "CLONE_NNP")
#define need_autokill() need(probe.autokill, "CLONE_PIDFD_AUTOKILL")

/* clone3() with these arguments must fail with expected_errno. */
static void expect_clone3_error(struct test_clone_args *args, int expected_errno)
{
        pid_t pid = sys_clone3(args);

        if (pid == 0)
                _exit(0);
        if (pid > 0) {
                (void)waitpid(pid, NULL, __WALL);
                FAIL("clone3(flags=%#" PRIx64 ", exit_signal=%" PRIu64 ") succeeded", args->flags,
                     args->exit_signal);
        }
        CHECK(errno == expected_errno, "clone3(flags=%#" PRIx64 ") expected %s", args->flags,
              strerror(expected_errno));
}

/* An autoreap + autokill child that sleeps until killed; *ret_pidfd is its clone3 pidfd. */
static pid_t spawn_autokill(int *ret_pidfd)
{
        pid_t pid = clone3_fork(CLONE_PIDFD | CLONE_AUTOREAP | CLONE_PIDFD_AUTOKILL | CLONE_NNP, 0, ret_pidfd);

        CHECK(pid >= 0, "clone3 with CLONE_PIDFD_AUTOKILL");
        if (pid == 0)
                for (;;)
                        pause();
        return pid;
}

/* The child is alive: its pidfd stays unreadable for SHORT_MS. */
static void check_alive(int watch_fd, const char *what)
{
        CHECK(wait_readable(watch_fd, SHORT_MS) == 0, "child died %s", what);
}

/* The child dies of SIGKILL and leaves no zombie. */
static void check_autokilled(int watch_fd, pid_t pid, const char *what)
{
        int status = autoreap_wait(watch_fd);

        CHECK(is_killed(status, SIGKILL), "%s: wait status %#x, expected SIGKILL", what, status);
        CHECK(proc_gone(pid, LONG_MS), "%s: /proc/%d remains (state %c)", what, (int)pid, proc_state(pid));
}

static bool has_cap_sys_admin(void)
{
        struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct data[2];

        memset(data, 0, sizeof(data));
        if (syscall(SYS_capget, &hdr, data) < 0)
                return false;
        return data[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective & CAP_TO_MASK(CAP_SYS_ADMIN);
}

static int drop_all_caps(void)
{
        struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct data[2];

        memset(data, 0, sizeof(data));
        return (int)syscall(SYS_capset, &hdr, data);
}

/* ---- CLONE_AUTOREAP ---- */

/* The child exits without ever being a zombie; wait*() has nothing to reap. */
static void test_autoreap_no_zombie(void)
{
        int pidfd = -1;
        siginfo_t si;
        pid_t pid;

        need_autoreap();
        pid = clone3_fork(CLONE_PIDFD | CLONE_AUTOREAP, 0, &pidfd);
        CHECK(pid >= 0, "clone3");
        if (pid == 0)
                _exit(0);

        CHECK(wait_readable(pidfd, LONG_MS) == 1, "pidfd did not poll readable");
        CHECK(proc_gone(pid, LONG_MS), "/proc/%d remains (state %c)", (int)pid, proc_state(pid));
        errno = 0;
        CHECK(waitpid(pid, NULL, WNOHANG | __WALL) < 0 && errno == ECHILD, "waitpid");
        errno = 0;
        memset(&si, 0, sizeof(si));
        CHECK(waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED | WNOHANG) < 0 && errno == ECHILD,
              "waitid(P_PIDFD)");
}

/* The parent gets no SIGCHLD for an autoreaped child. */
static void test_autoreap_no_sigchld(void)
{
        sigset_t block, pending;
        int pidfd = -1;
        pid_t pid;

        need_autoreap();
        sigemptyset(&block);
        sigaddset(&block, SIGCHLD);
        CHECK(sigprocmask(SIG_BLOCK, &block, NULL) == 0, "sigprocmask");

        pid = clone3_fork(CLONE_PIDFD | CLONE_AUTOREAP, 0, &pidfd);
        CHECK(pid >= 0, "clone3");
        if (pid == 0)
                _exit(0);

        CHECK(wait_readable(pidfd, LONG_MS) == 1, "pidfd did not poll readable");
        CHECK(proc_gone(pid, LONG_MS), "/proc/%d remains", (int)pid);
        CHECK(sigpending(&pending) == 0, "sigpending");
        CHECK(!sigismember(&pending, SIGCHLD), "SIGCHLD is pending");
}

/* Fire and forget: CLONE_AUTOREAP without CLONE_PIDFD. */
static void test_autoreap_without_pidfd(void)
{
        pid_t pid;

        need_autoreap();
        pid = clone3_fork(CLONE_AUTOREAP, 0, NULL);
        CHECK(pid >= 0, "clone3");
        if (pid == 0)
                _exit(0);

        CHECK(proc_gone(pid, LONG_MS), "/proc/%d remains (state %c)", (int)pid, proc_state(pid));
        errno = 0;
        CHECK(waitpid(pid, NULL, WNOHANG | __WALL) < 0 && errno == ECHILD, "waitpid");
}

/* The exit code is read back through PIDFD_GET_INFO. */
static void test_autoreap_exit_code(void)
{
        int pidfd = -1, status;
        pid_t pid;

        need_autoreap();
        pid = clone3_fork(CLONE_PIDFD | CLONE_AUTOREAP, 0, &pidfd);
        CHECK(pid >= 0, "clone3");
        if (pid == 0)
                _exit(42);

        status = autoreap_wait(pidfd);
        CHECK(is_exited(status, 42), "wait status %#x, expected exit 42", status);
}

/* The killing signal is read back through PIDFD_GET_INFO. */
static void test_autoreap_exit_signal(void)
{
        int pidfd = -1, status;
        pid_t pid;

        need_autoreap();
        pid = clone3_fork(CLONE_PIDFD | CLONE_AUTOREAP, 0, &pidfd);
        CHECK(pid >= 0, "clone3");
        if (pid == 0)
                for (;;)
                        pause();

        CHECK(sys_pidfd_send_signal(pidfd, SIGTERM) == 0, "pidfd_send_signal");
        status = autoreap_wait(pidfd);
        CHECK(is_killed(status, SIGTERM), "wait status %#x, expected SIGTERM", status);
}

/*
 * The pidfd of an autoreaped child may poll readable (EPOLLIN) a moment
 * before PIDFD_INFO_EXIT is recorded: EPOLLIN comes when the child exits,
 * the exit information when it is released. EPOLLHUP comes with the
 * release: once it is seen, the exit information must be there. This is
 * the contract svd relies on (measured on 7.3.4 under TCG: ~1.5% of exits
 * show EPOLLIN without the exit information for a short while).
 */
static void test_autoreap_pollhup_has_exit_info(void)
{
        int early = 0;

        need_autoreap();
        for (int i = 0; i < 50; i++) {
                struct pollfd p;
                int pidfd = -1, status = -1;
                struct test_pidfd_info info;
                pid_t pid;

                pid = clone3_fork(CLONE_PIDFD | CLONE_AUTOREAP, 0, &pidfd);
                CHECK(pid >= 0, "clone3");
                if (pid == 0)
                        _exit(i);

                p = (struct pollfd){ .fd = pidfd, .events = POLLIN };
                CHECK(poll(&p, 1, LONG_MS) == 1, "pidfd did not poll readable");
                if (!(p.revents & POLLHUP)) {
                        early++;
                        /* events = 0: only POLLHUP (or POLLERR) ends the wait. */
                        p = (struct pollfd){ .fd = pidfd, .events = 0 };
                        CHECK(poll(&p, 1, LONG_MS) == 1 && (p.revents & POLLHUP), "no POLLHUP after exit");
                }
                memset(&info, 0, sizeof(info));
                info.mask = TEST_PIDFD_INFO_EXIT;
                CHECK(ioctl(pidfd, TEST_PIDFD_GET_INFO, &info) == 0, "PIDFD_GET_INFO");
                CHECK(info.mask & TEST_PIDFD_INFO_EXIT, "POLLHUP without PIDFD_INFO_EXIT (iteration %d)", i);
                status = info.exit_code;
                CHECK(is_exited(status, i), "wait status %#x, expected exit %d", status, i);
                close(pidfd);
        }
        printf("# %d of 50 exits polled readable before POLLHUP\n", early);
}

static void test_autoreap_rejects_exit_signal(void)
{
        int pidfd = -1;
        struct test_clone_args args = {
                .flags = CLONE_PIDFD | CLONE_AUTOREAP,
                .exit_signal = SIGCHLD,
                .pidfd = (uint64_t)(uintptr_t)&pidfd,
        };

        need_autoreap();
        expect_clone3_error(&args, EINVAL);
}

static void test_autoreap_rejects_parent(void)
{
        int pidfd = -1, status;
        struct test_clone_args args = {
                .flags = CLONE_PIDFD | CLONE_AUTOREAP | CLONE_PARENT,
                .pidfd = (uint64_t)(uintptr_t)&pidfd,
        };
        pid_t mid;

        need_autoreap();

        /* Control: without CLONE_AUTOREAP the same call works (from a child of ours). */
        mid = fork();
        CHECK(mid >= 0, "fork");
        if (mid == 0) {
                struct test_clone_args control = args;
                pid_t sibling;

                control.flags &= ~CLONE_AUTOREAP;
                sibling = sys_clone3(&control);
                if (sibling == 0)
                        _exit(0);
                _exit(sibling > 0 ? 0 : 1);
        }
        CHECK(waitpid(mid, &status, 0) == mid && is_exited(status, 0),
              "clone3(CLONE_PIDFD | CLONE_PARENT) failed without CLONE_AUTOREAP");
        while (waitpid(-1, NULL, __WALL) > 0) /* the sibling */
                ;

        expect_clone3_error(&args, EINVAL);
}

/* A stack for the tests that create threads (or would, if the kernel erred). */
static char thread_stack[64 * 1024] __attribute__((aligned(16)));

static void test_autoreap_rejects_thread(void)
{
        /*
         * A valid thread request apart from CLONE_AUTOREAP, so that only the
         * new flag can be the reason for EINVAL. Should the kernel accept it,
         * the new thread crashes on its fresh stack and so fails the test.
         */
        struct test_clone_args args = {
                .flags = CLONE_AUTOREAP | CLONE_THREAD | CLONE_SIGHAND | CLONE_VM,
                .stack = (uint64_t)(uintptr_t)thread_stack,
                .stack_size = sizeof(thread_stack),
        };

        need_autoreap();
        expect_clone3_error(&args, EINVAL);
}

/* A process created with CLONE_AUTOREAP may not use CLONE_PARENT itself. */
static void test_autoreap_child_no_clone_parent(void)
{
        int pidfd = -1, status;
        pid_t pid, control;

        need_autoreap();

        /*
         * Control: a plain child may use CLONE_PARENT; its sibling is ours to
         * reap. clone3() wants exit_signal 0 with CLONE_PARENT: the sibling
         * inherits the caller's exit signal.
         */
        control = clone3_fork(0, SIGCHLD, NULL);
        CHECK(control >= 0, "clone3");
        if (control == 0) {
                pid_t sibling = clone3_fork(CLONE_PARENT, 0, NULL);

                if (sibling == 0)
                        _exit(0);
                _exit(sibling > 0 ? 0 : 1);
        }
        CHECK(waitpid(control, &status, 0) == control, "waitpid");
        CHECK(is_exited(status, 0), "a plain child could not use CLONE_PARENT (status %#x)", status);
        while (waitpid(-1, NULL, __WALL) > 0) /* the sibling */
                ;

        pid = clone3_fork(CLONE_PIDFD | CLONE_AUTOREAP, 0, &pidfd);
        CHECK(pid >= 0, "clone3");
        if (pid == 0) {
                pid_t sibling = clone3_fork(CLONE_PARENT, 0, NULL);

                if (sibling == 0)
                        _exit(0);
                if (sibling > 0)
                        _exit(100); /* accepted */
                _exit(errno == EINVAL ? 0 : 101);
        }
        status = autoreap_wait(pidfd);
        CHECK(!is_exited(status, 100), "an autoreap process could use CLONE_PARENT");
        CHECK(is_exited(status, 0), "CLONE_PARENT from an autoreap process failed with another errno than EINVAL (status %#x)",
              status);
        while (waitpid(-1, NULL, __WALL | WNOHANG) > 0)
                ;
}

/*
 * CLONE_AUTOREAP is not inherited: the autoreap child's own plain child
 * becomes a zombie that the autoreap child reaps as usual.
 */
static void test_autoreap_not_inherited(void)
{
        int pidfd = -1, status;
        pid_t pid;

        need_autoreap();
        pid = clone3_fork(CLONE_PIDFD | CLONE_AUTOREAP, 0, &pidfd);
        CHECK(pid >= 0, "clone3");
        if (pid == 0) {
                siginfo_t si;
                pid_t gc = clone3_fork(0, SIGCHLD, NULL);
                int st;

                if (gc < 0)
                        _exit(10);
                if (gc == 0)
                        _exit(9);
                memset(&si, 0, sizeof(si));
                if (waitid(P_PID, (id_t)gc, &si, WEXITED | WNOWAIT) < 0)
                        _exit(11); /* not waitable */
                if (proc_state(gc) != 'Z')
                        _exit(12); /* not a zombie */
                if (waitpid(gc, &st, 0) != gc)
                        _exit(13);
                if (!WIFEXITED(st) || WEXITSTATUS(st) != 9)
                        _exit(14);
                if (proc_state(gc) != 0)
                        _exit(15); /* still there after reaping */
                _exit(0);
        }
        status = autoreap_wait(pidfd);
        CHECK(is_exited(status, 0),
              "autoreap child reported %d (10 clone3, 11 not waitable, 12 not a zombie, 13/14 waitpid, 15 remains)",
              WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* An autoreap process orphaned to a subreaper is still autoreaped there. */
static void test_autoreap_reparent_subreaper(void)
{
        int ready[2], release[2], status, watch;
        pid_t mid, gc = 0;

        need_autoreap();
        CHECK(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0, "PR_SET_CHILD_SUBREAPER");
        CHECK(pipe2(ready, O_CLOEXEC) == 0 && pipe2(release, O_CLOEXEC) == 0, "pipe2");

        mid = fork();
        CHECK(mid >= 0, "fork");
        if (mid == 0) {
                int fd = -1;
                pid_t p = clone3_fork(CLONE_PIDFD | CLONE_AUTOREAP, 0, &fd);

                if (p == 0) {
                        char c;

                        (void)!read(release[0], &c, 1);
                        _exit(23);
                }
                if (p < 0)
                        _exit(1);
                (void)!write(ready[1], &p, sizeof(p));
                _exit(0); /* orphan p */
        }
        close(ready[1]);
        close(release[0]);
        CHECK(read(ready[0], &gc, sizeof(gc)) == sizeof(gc), "the middle process failed");
        CHECK(waitpid(mid, &status, 0) == mid && is_exited(status, 0), "middle process");

        watch = sys_pidfd_open(gc, 0);
        CHECK(watch >= 0, "pidfd_open(%d)", (int)gc);
        for (int i = 0; proc_ppid(gc) != getpid(); i++) {
                CHECK(i < LONG_MS / 10, "%d was not reparented to the subreaper (ppid %d)", (int)gc,
                      (int)proc_ppid(gc));
                msleep(10);
        }

        CHECK(write(release[1], "x", 1) == 1, "write");
        status = autoreap_wait(watch);
        CHECK(is_exited(status, 23), "wait status %#x, expected exit 23", status);
        CHECK(proc_gone(gc, LONG_MS), "/proc/%d remains (state %c)", (int)gc, proc_state(gc));
        errno = 0;
        CHECK(waitpid(gc, NULL, WNOHANG | __WALL) < 0 && errno == ECHILD, "waitpid");
}

static int thread_wait_and_exit(void *arg)
{
        char c;

        /* Raw syscall: this thread has no TLS of its own. */
        (void)syscall(SYS_read, (int)(intptr_t)arg, &c, 1);
        return 0; /* glibc's clone() ends the thread with exit(2), not exit_group(2) */
}

/*
 * A multithreaded autoreap process: its leader exits first, the process is
 * reaped only when the last thread has exited.
 */
static void test_autoreap_multithreaded(void)
{
        int pidfd = -1, go[2], status;
        pid_t pid;

        need_autoreap();
        CHECK(pipe2(go, O_CLOEXEC) == 0, "pipe2");
        pid = clone3_fork(CLONE_PIDFD | CLONE_AUTOREAP, 0, &pidfd);
        CHECK(pid >= 0, "clone3");
        if (pid == 0) {
                if (clone(thread_wait_and_exit, thread_stack + sizeof(thread_stack),
                          CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM,
                          (void *)(intptr_t)go[0]) < 0)
                        _exit(1);
                syscall(SYS_exit, 0); /* the leader alone */
                _exit(2);
        }
        close(go[0]);

        /* The leader has exited (state Z) while the other thread runs. */
        for (int i = 0; proc_state(pid) != 'Z'; i++) {
                CHECK(i < LONG_MS / 10, "leader of %d did not exit (state %c)", (int)pid, proc_state(pid));
                msleep(10);
        }
        CHECK(wait_readable(pidfd, SHORT_MS) == 0, "pidfd readable while a thread is alive");
        CHECK(proc_state(pid) != 0, "process released while a thread is alive");

        CHECK(write(go[1], "x", 1) == 1, "write");
        status = autoreap_wait(pidfd);
        CHECK(is_exited(status, 0), "wait status %#x, expected exit 0", status);
        CHECK(proc_gone(pid, LONG_MS), "/proc/%d remains (state %c)", (int)pid, proc_state(pid));
        errno = 0;
        CHECK(waitpid(pid, NULL, WNOHANG | __WALL) < 0 && errno == ECHILD, "waitpid");
}

/* ---- CLONE_NNP ---- */

/* CLONE_NNP sets no_new_privs in the child; the parent's stays unset. */
static void test_nnp_child_only(void)
{
        int pidfd = -1, status;
        siginfo_t si;
        pid_t pid;

        need_nnp();
        if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 0)
                SKIP("the test process already has no_new_privs");

        pid = clone3_fork(CLONE_PIDFD | CLONE_NNP, SIGCHLD, &pidfd);
        CHECK(pid >= 0, "clone3");
        if (pid == 0)
                _exit(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1 ? 0 : 1);

        memset(&si, 0, sizeof(si));
        CHECK(waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED) == 0, "waitid");
        status = si.si_status;
        CHECK(si.si_code == CLD_EXITED && status == 0, "child has no no_new_privs");
        CHECK(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 0, "parent got no_new_privs");
}

/* CLONE_AUTOREAP alone does not imply no_new_privs. */
static void test_autoreap_no_nnp(void)
{
        int pidfd = -1, status;
        pid_t pid;

        need_autoreap();
        if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 0)
                SKIP("the test process already has no_new_privs");

        pid = clone3_fork(CLONE_PIDFD | CLONE_AUTOREAP, 0, &pidfd);
        CHECK(pid >= 0, "clone3");
        if (pid == 0)
                _exit(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 0 ? 0 : 1);
        status = autoreap_wait(pidfd);
        CHECK(is_exited(status, 0), "autoreap child has no_new_privs");
}

static void test_nnp_rejects_thread(void)
{
        struct test_clone_args args = {
                .flags = CLONE_NNP | CLONE_THREAD | CLONE_SIGHAND | CLONE_VM,
                .stack = (uint64_t)(uintptr_t)thread_stack,
                .stack_size = sizeof(thread_stack),
        };

        need_nnp();
        expect_clone3_error(&args, EINVAL);
}

/* ---- CLONE_PIDFD_AUTOKILL ---- */

/* Closing the clone3 pidfd SIGKILLs the child. */
static void test_autokill_on_close(void)
{
        int pidfd = -1, watch;
        pid_t pid;

        need_autokill();
        pid = spawn_autokill(&pidfd);
        watch = sys_pidfd_open(pid, 0);
        CHECK(watch >= 0, "pidfd_open");
        check_alive(watch, "before its pidfd was closed");

        CHECK(close(pidfd) == 0, "close");
        check_autokilled(watch, pid, "after close");
}

/* A pidfd from pidfd_open() carries no autokill: closing it kills nothing. */
static void test_autokill_not_pidfd_open(void)
{
        int pidfd = -1, other, watch;
        pid_t pid;

        need_autokill();
        pid = spawn_autokill(&pidfd);
        other = sys_pidfd_open(pid, 0);
        CHECK(other >= 0, "pidfd_open");
        watch = sys_pidfd_open(pid, 0);
        CHECK(watch >= 0, "pidfd_open");

        CHECK(close(other) == 0, "close");
        check_alive(watch, "when a pidfd_open() fd was closed");

        CHECK(close(pidfd) == 0, "close");
        check_autokilled(watch, pid, "after closing the clone3 pidfd");
}

/* dup() shares the file: the child lives until the last copy is closed. */
static void test_autokill_dup(void)
{
        int pidfd = -1, copy, watch;
        pid_t pid;

        need_autokill();
        pid = spawn_autokill(&pidfd);
        watch = sys_pidfd_open(pid, 0);
        CHECK(watch >= 0, "pidfd_open");
        copy = fcntl(pidfd, F_DUPFD_CLOEXEC, 3);
        CHECK(copy >= 0, "F_DUPFD_CLOEXEC");

        CHECK(close(pidfd) == 0, "close");
        check_alive(watch, "when the original fd was closed with a dup() left");

        CHECK(close(copy) == 0, "close");
        check_autokilled(watch, pid, "after closing the dup()");
}

/* fork() shares the file: the child lives until the forked holder exits. */
static void test_autokill_fork(void)
{
        int pidfd = -1, watch, release[2], status;
        pid_t pid, holder;

        need_autokill();
        pid = spawn_autokill(&pidfd);
        watch = sys_pidfd_open(pid, 0);
        CHECK(watch >= 0, "pidfd_open");
        CHECK(pipe2(release, O_CLOEXEC) == 0, "pipe2");

        holder = fork();
        CHECK(holder >= 0, "fork");
        if (holder == 0) {
                char c;

                close(release[1]);
                (void)!read(release[0], &c, 1); /* EOF when the test lets go */
                _exit(0);
        }
        close(release[0]);

        CHECK(close(pidfd) == 0, "close");
        check_alive(watch, "while a fork()ed process held the pidfd");

        close(release[1]);
        CHECK(waitpid(holder, &status, 0) == holder, "waitpid");
        check_autokilled(watch, pid, "after the fork()ed holder exited");
}

/* SCM_RIGHTS shares the file: the receiver keeps the child alive. */
static void test_autokill_scm_rights(void)
{
        int pidfd = -1, watch, sv[2], status;
        char ack = 0;
        pid_t pid, holder;

        need_autokill();
        CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0, "socketpair");

        /* Forked before the autokill child, so only SCM_RIGHTS gives it the fd. */
        holder = fork();
        CHECK(holder >= 0, "fork");
        if (holder == 0) {
                char data, cbuf[CMSG_SPACE(sizeof(int))];
                struct iovec iov = { .iov_base = &data, .iov_len = 1 };
                struct msghdr msg = {
                        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf),
                };

                close(sv[0]);
                if (recvmsg(sv[1], &msg, MSG_CMSG_CLOEXEC) != 1 || !CMSG_FIRSTHDR(&msg) ||
                    CMSG_FIRSTHDR(&msg)->cmsg_type != SCM_RIGHTS)
                        _exit(1);
                if (write(sv[1], "a", 1) != 1)
                        _exit(2);
                (void)!read(sv[1], &data, 1); /* hold the fd until told */
                _exit(0);
        }
        close(sv[1]);

        pid = spawn_autokill(&pidfd);
        watch = sys_pidfd_open(pid, 0);
        CHECK(watch >= 0, "pidfd_open");

        {
                char data = 'p', cbuf[CMSG_SPACE(sizeof(int))];
                struct iovec iov = { .iov_base = &data, .iov_len = 1 };
                struct msghdr msg = {
                        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf),
                };
                struct cmsghdr *cmsg;

                memset(cbuf, 0, sizeof(cbuf));
                cmsg = CMSG_FIRSTHDR(&msg);
                cmsg->cmsg_level = SOL_SOCKET;
                cmsg->cmsg_type = SCM_RIGHTS;
                cmsg->cmsg_len = CMSG_LEN(sizeof(int));
                memcpy(CMSG_DATA(cmsg), &pidfd, sizeof(int));
                CHECK(sendmsg(sv[0], &msg, 0) == 1, "sendmsg");
        }
        CHECK(read(sv[0], &ack, 1) == 1 && ack == 'a', "the receiver did not get the fd");

        CHECK(close(pidfd) == 0, "close");
        check_alive(watch, "while an SCM_RIGHTS receiver held the pidfd");

        CHECK(write(sv[0], "x", 1) == 1, "write");
        CHECK(waitpid(holder, &status, 0) == holder && is_exited(status, 0), "receiver");
        check_autokilled(watch, pid, "after the receiver exited");
}

static void test_autokill_requires_pidfd(void)
{
        struct test_clone_args args = {
                .flags = CLONE_AUTOREAP | CLONE_PIDFD_AUTOKILL | CLONE_NNP,
        };

        need_autokill();
        expect_clone3_error(&args, EINVAL);
}

static void test_autokill_requires_autoreap(void)
{
        int pidfd = -1;
        struct test_clone_args args = {
                .flags = CLONE_PIDFD | CLONE_PIDFD_AUTOKILL | CLONE_NNP,
                .exit_signal = SIGCHLD,
                .pidfd = (uint64_t)(uintptr_t)&pidfd,
        };

        need_autokill();
        expect_clone3_error(&args, EINVAL);
}

/*
 * Without CAP_SYS_ADMIN, autokill needs CLONE_NNP (EPERM otherwise), and
 * with CLONE_NNP it works.
 */
static void test_autokill_unprivileged_needs_nnp(void)
{
        pid_t helper;
        int status;

        need_autokill();
        helper = fork();
        CHECK(helper >= 0, "fork");
        if (helper == 0) {
                int fd = -1, watch;
                pid_t p;

                if (drop_all_caps() < 0)
                        _exit(1);
                if (has_cap_sys_admin())
                        _exit(2);
                p = clone3_fork(CLONE_PIDFD | CLONE_AUTOREAP | CLONE_PIDFD_AUTOKILL, 0, &fd);
                if (p == 0)
                        _exit(0);
                if (p > 0)
                        _exit(3); /* accepted */
                if (errno != EPERM)
                        _exit(4);
                p = clone3_fork(CLONE_PIDFD | CLONE_AUTOREAP | CLONE_PIDFD_AUTOKILL | CLONE_NNP, 0, &fd);
                if (p == 0)
                        for (;;)
                                pause();
                if (p < 0)
                        _exit(5);
                watch = sys_pidfd_open(p, 0);
                if (watch < 0)
                        _exit(6);
                close(fd);
                if (wait_readable(watch, LONG_MS) != 1)
                        _exit(7); /* not killed */
                _exit(0);
        }
        CHECK(waitpid(helper, &status, 0) == helper, "waitpid");
        CHECK(is_exited(status, 0),
              "unprivileged helper reported %d (1/2 capset, 3 accepted without CLONE_NNP, 4 errno not EPERM, 5 failed with CLONE_NNP, 6 pidfd_open, 7 not killed)",
              WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* With CAP_SYS_ADMIN autokill works without CLONE_NNP, and sets no no_new_privs. */
static void test_autokill_privileged_without_nnp(void)
{
        int pidfd = -1, watch, p[2];
        char nnp = 'x';
        pid_t pid;

        need_autokill();
        if (!has_cap_sys_admin())
                SKIP("needs CAP_SYS_ADMIN (run as root)");
        if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 0)
                SKIP("the test process already has no_new_privs");
        CHECK(pipe2(p, O_CLOEXEC) == 0, "pipe2");

        pid = clone3_fork(CLONE_PIDFD | CLONE_AUTOREAP | CLONE_PIDFD_AUTOKILL, 0, &pidfd);
        CHECK(pid >= 0, "clone3 without CLONE_NNP, with CAP_SYS_ADMIN");
        if (pid == 0) {
                char v = (char)('0' + prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));

                (void)!write(p[1], &v, 1);
                for (;;)
                        pause();
        }
        close(p[1]);
        CHECK(read(p[0], &nnp, 1) == 1, "read");
        CHECK(nnp == '0', "child has no_new_privs without CLONE_NNP");

        watch = sys_pidfd_open(pid, 0);
        CHECK(watch >= 0, "pidfd_open");
        CHECK(close(pidfd) == 0, "close");
        check_autokilled(watch, pid, "after close");
}

/* Autokill kills the direct child only; its own children live on. */
static void test_autokill_direct_child_only(void)
{
        int pidfd = -1, watch, gwatch, p[2];
        pid_t pid, gc = 0;
        siginfo_t si;

        need_autokill();
        CHECK(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0, "PR_SET_CHILD_SUBREAPER");
        CHECK(pipe2(p, O_CLOEXEC) == 0, "pipe2");

        pid = clone3_fork(CLONE_PIDFD | CLONE_AUTOREAP | CLONE_PIDFD_AUTOKILL | CLONE_NNP, 0, &pidfd);
        CHECK(pid >= 0, "clone3");
        if (pid == 0) {
                pid_t g = clone3_fork(0, SIGCHLD, NULL);

                if (g == 0)
                        for (;;)
                                pause();
                (void)!write(p[1], &g, sizeof(g));
                for (;;)
                        pause();
        }
        close(p[1]);
        CHECK(read(p[0], &gc, sizeof(gc)) == sizeof(gc) && gc > 0, "the child could not fork");
        gwatch = sys_pidfd_open(gc, 0);
        CHECK(gwatch >= 0, "pidfd_open(grandchild)");
        watch = sys_pidfd_open(pid, 0);
        CHECK(watch >= 0, "pidfd_open");

        CHECK(close(pidfd) == 0, "close");
        check_autokilled(watch, pid, "after close");
        check_alive(gwatch, "(the grandchild) with its autokilled parent");

        CHECK(sys_pidfd_send_signal(gwatch, SIGKILL) == 0, "pidfd_send_signal");
        memset(&si, 0, sizeof(si));
        CHECK(waitid(P_PIDFD, (id_t)gwatch, &si, WEXITED) == 0, "waitid(grandchild)");
}

/* ---- PIDFD_GET_INFO without the new flags (Linux 6.15) ---- */

/* A plain child's exit status, read through PIDFD_INFO_EXIT after reaping it. */
static void test_pidfd_info_exit(void)
{
        int pidfd = -1, status = 0, r;
        siginfo_t si;
        pid_t pid;

        if (probe.pidfd_info_exit < 0)
                SKIP("kernel lacks PIDFD_GET_INFO with PIDFD_INFO_EXIT (%s)", strerror(-probe.pidfd_info_exit));
        pid = clone3_fork(CLONE_PIDFD, SIGCHLD, &pidfd);
        CHECK(pid >= 0, "clone3");
        if (pid == 0)
                _exit(5);
        memset(&si, 0, sizeof(si));
        CHECK(waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED) == 0, "waitid");
        r = pidfd_exit_status(pidfd, LONG_MS, &status);
        errno = -r;
        CHECK(r == 0, "PIDFD_GET_INFO");
        CHECK(is_exited(status, 5), "wait status %#x, expected exit 5", status);
}

/* ---- probes and main ---- */

/* 0 when clone3() accepts flags (plus CLONE_PIDFD when set), else -errno. */
static int probe_clone3(uint64_t flags, int exit_signal)
{
        int pidfd = -1;
        pid_t pid = clone3_fork(flags, exit_signal, (flags & CLONE_PIDFD) ? &pidfd : NULL);

        if (pid == 0)
                _exit(0);
        if (pid < 0)
                return -errno;
        if (exit_signal)
                (void)waitpid(pid, NULL, 0);
        if (pidfd >= 0)
                close(pidfd);
        return 0;
}

static int probe_pidfd_info_exit(void)
{
        int pidfd = -1, status, r;
        pid_t pid = clone3_fork(CLONE_PIDFD, SIGCHLD, &pidfd);

        if (pid == 0)
                _exit(0);
        if (pid < 0)
                return -errno;
        (void)waitpid(pid, NULL, 0);
        r = pidfd_exit_status(pidfd, /* timeout_ms= */ 1000, &status);
        close(pidfd);
        return r == -ENOTTY ? -EOPNOTSUPP : r;
}

static void run_probes(void)
{
        probe.autoreap = probe_clone3(CLONE_AUTOREAP, 0);
        probe.nnp = probe_clone3(CLONE_NNP, SIGCHLD);
        probe.autokill = probe_clone3(CLONE_PIDFD | CLONE_AUTOREAP | CLONE_PIDFD_AUTOKILL | CLONE_NNP, 0);
        probe.pidfd_info_exit = probe_pidfd_info_exit();
}

struct test {
        const char *name;
        void (*fn)(void);
};

#define T(n) { #n, test_##n }
static const struct test tests[] = {
        T(autoreap_no_zombie),
        T(autoreap_no_sigchld),
        T(autoreap_without_pidfd),
        T(autoreap_exit_code),
        T(autoreap_exit_signal),
        T(autoreap_pollhup_has_exit_info),
        T(autoreap_rejects_exit_signal),
        T(autoreap_rejects_parent),
        T(autoreap_rejects_thread),
        T(autoreap_child_no_clone_parent),
        T(autoreap_not_inherited),
        T(autoreap_reparent_subreaper),
        T(autoreap_multithreaded),
        T(autoreap_no_nnp),
        T(nnp_child_only),
        T(nnp_rejects_thread),
        T(autokill_on_close),
        T(autokill_not_pidfd_open),
        T(autokill_dup),
        T(autokill_fork),
        T(autokill_scm_rights),
        T(autokill_requires_pidfd),
        T(autokill_requires_autoreap),
        T(autokill_unprivileged_needs_nnp),
        T(autokill_privileged_without_nnp),
        T(autokill_direct_child_only),
        T(pidfd_info_exit),
};
#undef T
#define N_TESTS (sizeof(tests) / sizeof(tests[0]))

static bool selected(const char *name, int argc, char **argv)
{
        if (argc <= 1)
                return true;
        for (int i = 1; i < argc; i++)
                if (strcmp(argv[i], name) == 0)
                        return true;
        return false;
}

static const char *probe_string(int r)
{
        return r == 0 ? "supported" : strerror(-r);
}

/* Run one test in its own process group; returns KSFT_PASS, KSFT_FAIL or KSFT_SKIP. */
static int run_test(const struct test *t)
{
        int status;
        pid_t pid;

        shared->skip_reason[0] = 0;
        fflush(stdout);
        pid = fork();
        if (pid < 0) {
                printf("# fork: %s\n", strerror(errno));
                return KSFT_FAIL;
        }
        if (pid == 0) {
                setpgid(0, 0);
                alarm(TEST_TIMEOUT_SEC);
                t->fn();
                fflush(stdout);
                _exit(KSFT_PASS);
        }
        setpgid(pid, pid); /* either side may win the race */
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR) {
                        printf("# waitpid: %s\n", strerror(errno));
                        return KSFT_FAIL;
                }
        /* Whatever the test left behind in its process group. */
        (void)kill(-pid, SIGKILL);

        if (WIFEXITED(status) && (WEXITSTATUS(status) == KSFT_PASS || WEXITSTATUS(status) == KSFT_SKIP))
                return WEXITSTATUS(status);
        if (WIFSIGNALED(status))
                printf("# %s: killed by signal %d (%s)%s\n", t->name, WTERMSIG(status),
                       strsignal(WTERMSIG(status)), WTERMSIG(status) == SIGALRM ? ": timeout" : "");
        return KSFT_FAIL;
}

int main(int argc, char **argv)
{
        unsigned pass = 0, fail = 0, skip = 0, n = 0, planned = 0;
        struct utsname u;

        if (argc == 2 && strcmp(argv[1], "-l") == 0) {
                for (size_t i = 0; i < N_TESTS; i++)
                        puts(tests[i].name);
                return 0;
        }
        for (int i = 1; i < argc; i++) {
                bool known = false;

                for (size_t j = 0; j < N_TESTS; j++)
                        known |= strcmp(argv[i], tests[j].name) == 0;
                if (!known) {
                        fprintf(stderr, "svd-selftests: unknown test '%s' (-l lists them)\n", argv[i]);
                        return 2;
                }
        }

        shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (shared == MAP_FAILED) {
                perror("mmap");
                return 1;
        }
        setvbuf(stdout, NULL, _IOLBF, 0);
        run_probes();

        for (size_t i = 0; i < N_TESTS; i++)
                planned += selected(tests[i].name, argc, argv);
        printf("TAP version 13\n1..%u\n", planned);
        if (uname(&u) == 0)
                printf("# kernel: %s %s\n", u.release, u.version);
        printf("# uid %d, CAP_SYS_ADMIN %s\n", (int)getuid(), has_cap_sys_admin() ? "yes" : "no");
        printf("# CLONE_AUTOREAP: %s\n", probe_string(probe.autoreap));
        printf("# CLONE_NNP: %s\n", probe_string(probe.nnp));
        printf("# CLONE_PIDFD_AUTOKILL: %s\n", probe_string(probe.autokill));
        printf("# PIDFD_INFO_EXIT: %s\n", probe_string(probe.pidfd_info_exit));

        for (size_t i = 0; i < N_TESTS; i++) {
                const struct test *t = &tests[i];

                if (!selected(t->name, argc, argv))
                        continue;
                n++;
                switch (run_test(t)) {
                case KSFT_PASS:
                        pass++;
                        printf("ok %u %s\n", n, t->name);
                        break;
                case KSFT_SKIP:
                        skip++;
                        printf("ok %u %s # SKIP %s\n", n, t->name, shared->skip_reason);
                        break;
                default:
                        fail++;
                        printf("not ok %u %s\n", n, t->name);
                        break;
                }
        }
        printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:%u error:0\n", pass, fail, skip);
        printf("svd-selftests: %u passed, %u failed, %u skipped\n", pass, fail, skip);
        if (fail)
                return 1;
        return pass ? 0 : KSFT_SKIP;
}
