/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "spawn.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <grp.h>
#include <time.h>
#include <sys/mount.h>
#include <linux/capability.h>

#include "basic/missing-syscall.h"
#include "basic/string-table.h"
#include "svd-log.h"

/* How long the start-up probe waits for its throwaway child to exit. */
#define PROBE_TIMEOUT_MSEC 5000
/* The probe child's exit status, checked when read back through pidfs. */
#define PROBE_EXIT_STATUS 42

static const char *const spawn_stage_table[_SPAWN_STAGE_MAX] = {
        [SPAWN_STAGE_CGROUP] = "cgroup",
        [SPAWN_STAGE_CLOSE_FDS] = "close-fds",
        [SPAWN_STAGE_SIGNALS] = "signals",
        [SPAWN_STAGE_SETSID] = "setsid",
        [SPAWN_STAGE_USER_NAMESPACE] = "user-namespace",
        [SPAWN_STAGE_MOUNT_PROC] = "mount-proc",
        [SPAWN_STAGE_PID1_FORK] = "pid1-fork",
        [SPAWN_STAGE_STDIN] = "stdin",
        [SPAWN_STAGE_RLIMITS] = "rlimits",
        [SPAWN_STAGE_UMASK] = "umask",
        [SPAWN_STAGE_CHDIR] = "chdir",
        [SPAWN_STAGE_SETGROUPS] = "setgroups",
        [SPAWN_STAGE_SETGID] = "setgid",
        [SPAWN_STAGE_BOUNDING_SET] = "capability-bounding-set",
        [SPAWN_STAGE_KEEPCAPS] = "keep-capabilities",
        [SPAWN_STAGE_SETUID] = "setuid",
        [SPAWN_STAGE_CAPABILITIES] = "capabilities",
        [SPAWN_STAGE_AMBIENT] = "ambient-capabilities",
        [SPAWN_STAGE_NO_NEW_PRIVS] = "no-new-privileges",
        [SPAWN_STAGE_PDEATHSIG] = "pdeathsig",
        [SPAWN_STAGE_PARENT] = "parent-check",
        [SPAWN_STAGE_EXEC] = "exec",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(spawn_stage, SpawnStage);

/* ---- child side: only async-signal-safe calls from here to exec ---- */

static void child_report(int fd, int32_t stage, int32_t value) {
        SpawnFailure f = { .stage = stage, .error = value };
        (void) !write(fd, &f, sizeof(f));
}

static _noreturn_ void child_fail(int report_fd, SpawnStage stage, int error) {
        child_report(report_fd, stage, error);
        _exit(127);
}

/* Writes a whole short string to a /proc file; returns 0 or -errno. */
static int child_write_file(const char *path, const char *text, size_t len) {
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        ssize_t n = write(fd, text, len);
        int r = n < 0 ? -errno : (size_t) n == len ? 0 : -EIO;
        (void) close(fd);
        return r;
}

/* "U U 1\n" without stdio (async-signal-safe). */
static size_t format_id_map(char *buf, unsigned id) {
        char digits[16];
        size_t n = 0, k = 0;
        do
                digits[k++] = (char) ('0' + id % 10);
        while ((id /= 10) > 0);
        for (int rep = 0; rep < 2; rep++) {
                for (size_t i = k; i > 0; i--)
                        buf[n++] = digits[i - 1];
                buf[n++] = ' ';
        }
        buf[n++] = '1';
        buf[n++] = '\n';
        return n;
}

/* In a new user namespace (unprivileged svd): map our own uid and gid onto
 * themselves, which the kernel allows without privilege once setgroups is
 * denied (user_namespaces(7)). */
static void child_setup_user_namespace(const SpawnParams *p, int report_fd) {
        char map[48];
        int r = child_write_file("/proc/self/setgroups", "deny", 4);
        if (r >= 0)
                r = child_write_file("/proc/self/uid_map", map, format_id_map(map, p->outer_uid));
        if (r >= 0)
                r = child_write_file("/proc/self/gid_map", map, format_id_map(map, p->outer_gid));
        if (r < 0)
                child_fail(report_fd, SPAWN_STAGE_USER_NAMESPACE, -r);
}

/* The PID namespace's init. It is PID 1 there: the kernel only delivers
 * signals to it for which it has a handler, and when it exits everything
 * else in the namespace is SIGKILLed. It forwards stop signals to the
 * command, reaps orphans, and reports the command's exit through the pipe
 * (its own exit status could not carry a signal), then exits. */
static _noreturn_ void pid1_run(pid_t main_pid, int report_fd, int exec_fd, const sigset_t *all) {
        SpawnFailure f;
        ssize_t n;

        /* The command's end of exec_fd closes on exec; a record means it failed. */
        do
                n = read(exec_fd, &f, sizeof(f));
        while (n < 0 && errno == EINTR);
        (void) close(exec_fd);
        if (n == (ssize_t) sizeof(f)) {
                child_report(report_fd, f.stage, f.error);
                (void) waitpid(main_pid, NULL, 0);
                _exit(127);
        }
        child_report(report_fd, SPAWN_REPORT_EXECED, 0);

        for (;;) {
                siginfo_t si;
                int sig = sigwaitinfo(all, &si);
                if (sig < 0)
                        continue;
                if (sig != SIGCHLD) {
                        (void) kill(main_pid, sig);
                        continue;
                }
                for (;;) {
                        int status;
                        pid_t pid = waitpid(-1, &status, WNOHANG);
                        if (pid <= 0)
                                break;
                        if (pid == main_pid) {
                                child_report(report_fd, SPAWN_REPORT_EXIT_STATUS, status);
                                _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
                        }
                }
        }
}

/* Becomes init of the new PID namespace and returns in the command's
 * process, with *report_fd switched to the pipe that init relays. */
static void child_become_pid1(const SpawnParams *p, int *report_fd) {
        int exec_pipe[2];

        if (p->user_namespace)
                child_setup_user_namespace(p, *report_fd);

        /* A /proc of our own namespace, without leaking the mount to the host. */
        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
                child_fail(*report_fd, SPAWN_STAGE_MOUNT_PROC, errno);
        if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
                child_fail(*report_fd, SPAWN_STAGE_MOUNT_PROC, errno);

        if (pipe2(exec_pipe, O_CLOEXEC) < 0)
                child_fail(*report_fd, SPAWN_STAGE_PID1_FORK, errno);

        /* Every signal stays blocked in init, taken with sigwaitinfo(). */
        sigset_t all;
        sigfillset(&all);
        if (sigprocmask(SIG_SETMASK, &all, NULL) < 0)
                child_fail(*report_fd, SPAWN_STAGE_SIGNALS, errno);

        struct clone_args args = { .exit_signal = SIGCHLD };
        pid_t pid = sys_clone3(&args, sizeof(args));
        if (pid < 0 && errno == ENOSYS)
                pid = sys_clone_fork(SIGCHLD, NULL);
        if (pid < 0)
                child_fail(*report_fd, SPAWN_STAGE_PID1_FORK, errno);
        if (pid > 0) {
                (void) close(exec_pipe[1]);
                pid1_run(pid, *report_fd, exec_pipe[0], &all);
        }

        /* The command: failures go to init, which relays them. */
        (void) close(exec_pipe[0]);
        (void) close(*report_fd);
        *report_fd = exec_pipe[1];
        sigset_t none;
        sigemptyset(&none);
        if (sigprocmask(SIG_SETMASK, &none, NULL) < 0)
                child_fail(*report_fd, SPAWN_STAGE_SIGNALS, errno);
}

static int child_apply_capabilities(const SpawnParams *p) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct d[2] = {};

        if (sys_capget(&h, d) < 0)
                return -errno;
        for (int i = 0; i < 2; i++) {
                uint32_t amb = (uint32_t) (p->ambient >> (32 * i));
                d[i].permitted |= 0; /* keep: KEEPCAPS preserved them across setuid */
                d[i].inheritable |= amb;
                d[i].effective |= amb & d[i].permitted;
        }
        if (sys_capset(&h, d) < 0)
                return -errno;
        return 0;
}

/* The signals svd ignores, as found at the first spawn: CLONE_CLEAR_SIGHAND
 * resets handlers, but an ignored signal stays ignored across exec. */
static sigset_t spawn_ignored;

static void spawn_note_ignored(void) {
        static bool done = false;
        if (done)
                return;
        sigemptyset(&spawn_ignored);
        for (int sig = 1; sig < NSIG; sig++) {
                struct sigaction sa;
                if (sig != SIGKILL && sig != SIGSTOP && sigaction(sig, NULL, &sa) >= 0 && sa.sa_handler == SIG_IGN)
                        sigaddset(&spawn_ignored, sig);
        }
        done = true;
}

/* legacy: spawned by clone(), without CLONE_INTO_CGROUP and
 * CLONE_CLEAR_SIGHAND. */
static _noreturn_ void child_run(const SpawnParams *p, int report_fd, pid_t parent, bool legacy) {
        /* clone() has no CLONE_INTO_CGROUP: join the service's cgroup before
         * anything else happens in the child. */
        if (legacy && p->cgroup_fd >= 0) {
                int fd = openat(p->cgroup_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
                if (fd < 0 || write(fd, "0", 1) != 1)
                        child_fail(report_fd, SPAWN_STAGE_CGROUP, errno);
                (void) close(fd);
        }

        /* First of all drop every fd but 0-2 and the report pipe: until then
         * the child holds copies of svd's other pidfds, which would keep
         * those services alive past svd in autokill mode. stdout/stderr go
         * to 1 and 2 before that (dup2 clears O_CLOEXEC there); both numbers
         * are free to overwrite, and the report pipe, >= 3, is untouched. */
        if (p->stdout_fd >= 3 && dup2(p->stdout_fd, STDOUT_FILENO) < 0)
                child_fail(report_fd, SPAWN_STAGE_CLOSE_FDS, errno);
        if (p->stderr_fd >= 3 && dup2(p->stderr_fd, STDERR_FILENO) < 0)
                child_fail(report_fd, SPAWN_STAGE_CLOSE_FDS, errno);
        if (report_fd != 3) {
                if (dup3(report_fd, 3, O_CLOEXEC) < 0)
                        child_fail(report_fd, SPAWN_STAGE_CLOSE_FDS, errno);
                report_fd = 3;
        }
        if (sys_close_range(4, ~0U, 0) < 0)
                child_fail(report_fd, SPAWN_STAGE_CLOSE_FDS, errno);

        /* CLONE_CLEAR_SIGHAND reset the handlers; ignored signals stay
         * ignored across exec, so reset those too (all of them after
         * clone()), and unblock everything svd blocked for its signalfds. */
        for (int sig = 1; sig < NSIG; sig++) {
                if (sig == SIGKILL || sig == SIGSTOP || (!legacy && !sigismember(&spawn_ignored, sig)))
                        continue;
                struct sigaction sa = { .sa_handler = SIG_DFL };
                if (sigaction(sig, &sa, NULL) < 0 && errno != EINVAL)
                        child_fail(report_fd, SPAWN_STAGE_SIGNALS, errno);
        }
        sigset_t none;
        sigemptyset(&none);
        if (sigprocmask(SIG_SETMASK, &none, NULL) < 0)
                child_fail(report_fd, SPAWN_STAGE_SIGNALS, errno);

        if (setsid() < 0)
                child_fail(report_fd, SPAWN_STAGE_SETSID, errno);

        if (p->mode == SPAWN_MODE_FALLBACK) {
                /* FIXME: drop when 7.1 is the oldest kernel we support.
                 * Without autokill the leash is the parent-death signal. The
                 * kernel clears it on a credential change, so unless init
                 * (which keeps its credentials) holds it, it is set after the
                 * last change below; and svd may already have died, so check
                 * that svd is still the parent. */
                if (p->private_pids) {
                        if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
                                child_fail(report_fd, SPAWN_STAGE_PDEATHSIG, errno);
                        /* getppid() is 0 in the new namespace; the report
                         * pipe tells instead: no reader means svd is gone. */
                        struct pollfd pfd = { .fd = report_fd, .events = POLLOUT };
                        if (poll(&pfd, 1, 0) < 0 || (pfd.revents & POLLERR))
                                child_fail(report_fd, SPAWN_STAGE_PARENT, ESRCH);
                }
        }

        if (p->private_pids)
                child_become_pid1(p, &report_fd);

        int null = open("/dev/null", O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (null < 0)
                child_fail(report_fd, SPAWN_STAGE_STDIN, errno);
        if (null != STDIN_FILENO) {
                if (dup2(null, STDIN_FILENO) < 0)
                        child_fail(report_fd, SPAWN_STAGE_STDIN, errno);
                (void) close(null);
        } else if (fcntl(STDIN_FILENO, F_SETFD, 0) < 0)
                child_fail(report_fd, SPAWN_STAGE_STDIN, errno);

        for (size_t i = 0; i < p->n_rlimits; i++)
                if (setrlimit(p->rlimits[i].resource, &p->rlimits[i].limit) < 0)
                        child_fail(report_fd, SPAWN_STAGE_RLIMITS, errno);
        if (p->umask >= 0)
                (void) umask((mode_t) p->umask);

        if (p->working_directory && chdir(p->working_directory) < 0 &&
            !(p->working_directory_missing_ok && errno == ENOENT))
                child_fail(report_fd, SPAWN_STAGE_CHDIR, errno);

        if (p->change_credentials) {
                if (setgroups(p->n_groups, p->groups) < 0)
                        child_fail(report_fd, SPAWN_STAGE_SETGROUPS, errno);
                if (setresgid(p->gid, p->gid, p->gid) < 0)
                        child_fail(report_fd, SPAWN_STAGE_SETGID, errno);
        }

        /* The bounding set needs CAP_SETPCAP, so it goes before setuid. */
        for (int cap = 0; cap <= p->cap_last && cap < 64; cap++)
                if ((p->bounding_drop & (UINT64_C(1) << cap)) && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0)
                        child_fail(report_fd, SPAWN_STAGE_BOUNDING_SET, errno);

        if (p->change_credentials) {
                /* Ambient capabilities must survive the switch away from uid 0. */
                if (p->ambient && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
                        child_fail(report_fd, SPAWN_STAGE_KEEPCAPS, errno);
                if (setresuid(p->uid, p->uid, p->uid) < 0)
                        child_fail(report_fd, SPAWN_STAGE_SETUID, errno);
        }

        if (p->ambient) {
                int r = child_apply_capabilities(p);
                if (r < 0)
                        child_fail(report_fd, SPAWN_STAGE_CAPABILITIES, -r);
                for (int cap = 0; cap <= p->cap_last && cap < 64; cap++)
                        if ((p->ambient & (UINT64_C(1) << cap)) &&
                            prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0) < 0)
                                child_fail(report_fd, SPAWN_STAGE_AMBIENT, errno);
        }

        if (p->no_new_privileges && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                child_fail(report_fd, SPAWN_STAGE_NO_NEW_PRIVS, errno);

        if (p->mode == SPAWN_MODE_FALLBACK && !p->private_pids) {
                if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
                        child_fail(report_fd, SPAWN_STAGE_PDEATHSIG, errno);
                if (getppid() != parent)
                        child_fail(report_fd, SPAWN_STAGE_PARENT, ESRCH);
        }

        execve(p->path, p->argv, p->envp);
        child_fail(report_fd, SPAWN_STAGE_EXEC, errno);
}

/* ---- the vfork path ----
 *
 * A fork-like clone copies svd's page tables and fd table for every spawn,
 * and the child then closes all those fds again: with a thousand services
 * that is a few thousand fds and megabytes of mappings, per spawn (the
 * benchmark measured 2.5 times the cost of a bare clone3+execve at 1000
 * services). Where it can, svd spawns as posix_spawn() does instead:
 * CLONE_VM | CLONE_VFORK | CLONE_FILES, on a stack of its own, svd
 * suspended until the child has exec'd or exited. The child first unshares
 * its fd table with close_range(SLOTS_END, ~0U, CLOSE_RANGE_UNSHARE),
 * which copies only the fds below SLOTS_END; the parent put the fds the
 * child needs into three reserved slots there (spawn_reserve_fds(), at the
 * bottom of the table). The child writes nothing of svd's memory but its
 * own stack (and errno): child_run() neither allocates nor logs.
 *
 * Not for PrivatePIDs=yes (the child stays on as the namespace's init), not
 * in the ASan/UBSan build (the sanitizers' runtime does not expect a second
 * process on svd's memory), not without clone3() (valgrind), and only on
 * x86-64 (the stack switch is a few lines of assembly): those spawn
 * fork-like as before. */

enum { SLOT_STDOUT, SLOT_STDERR, SLOT_REPORT, _SLOT_MAX };
static int spawn_slots[_SLOT_MAX] = { -EBADF, -EBADF, -EBADF };
static int spawn_null = -EBADF;

int spawn_reserve_fds(void) {
        if (spawn_null >= 0)
                return 0;
        int null = open("/dev/null", O_RDWR | O_CLOEXEC | O_NOCTTY);
        if (null < 0)
                return -errno;
        for (int i = 0; i < _SLOT_MAX; i++) {
                spawn_slots[i] = fcntl(null, F_DUPFD_CLOEXEC, 3);
                if (spawn_slots[i] < 0) {
                        int r = -errno;
                        for (int k = 0; k <= i; k++)
                                spawn_slots[k] = safe_close(spawn_slots[k]);
                        safe_close(null);
                        return r;
                }
        }
        spawn_null = null;
        return 0;
}

#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_UNDEFINED__)
#define SPAWN_HAVE_VFORK 1

/* The child's stack. One suffices: CLONE_VFORK holds svd until the child
 * has exec'd, and only then may the next spawn begin. */
#define SPAWN_STACK_SIZE (64U << 10)
static uint8_t spawn_stack[SPAWN_STACK_SIZE] __attribute__((aligned(64)));

typedef struct VforkChild {
        const SpawnParams *p;
        int report_fd;
        pid_t parent;
        unsigned keep; /* fds below this survive the unshare */
} VforkChild;

static int vfork_child(void *arg) {
        const VforkChild *c = arg;
        /* First, before anything touches the shared table: a table of our own. */
        if (sys_close_range(c->keep, ~0U, CLOSE_RANGE_UNSHARE) < 0)
                child_fail(c->report_fd, SPAWN_STAGE_CLOSE_FDS, errno);
        child_run(c->p, c->report_fd, c->parent, /* legacy= */ false);
}

/* clone3() that runs fn(arg) on args->stack in the child, which then exits
 * with fn's return value. Returns the child's pid or -errno. */
static long clone3_run(struct clone_args *args, int (*fn)(void *), void *arg) {
        register long rax __asm__("rax") = __NR_clone3;
        register void *r12 __asm__("r12") = (void *) fn;
        register void *r13 __asm__("r13") = arg;
        __asm__ volatile("syscall\n\t"
                         "test %%rax, %%rax\n\t"
                         "jnz 1f\n\t"
                         /* child: on the new stack, aligned for a call */
                         "xor %%ebp, %%ebp\n\t"
                         "mov %%r13, %%rdi\n\t"
                         "call *%%r12\n\t"
                         "mov %%eax, %%edi\n\t"
                         "mov $60, %%eax\n\t" /* exit */
                         "syscall\n\t"
                         "ud2\n"
                         "1:\n\t"
                         : "+r"(rax)
                         : "D"(args), "S"(sizeof(*args)), "r"(r12), "r"(r13)
                         : "rcx", "r11", "memory", "cc");
        return rax;
}

/* 1 and the child (exec'd or failed, its report complete) when spawned;
 * 0 when this path does not apply or clone3() is not there (the caller
 * spawns fork-like); -errno on failure. */
static int spawn_vfork(const SpawnParams *p, uint64_t flags, int exit_signal, int report_w, int *ret_pidfd,
                       pid_t *ret_pid) {
        if (p->private_pids || spawn_reserve_fds() < 0)
                return 0;

        /* The child's fds into the slots; what it finds there is what it uses. */
        SpawnParams q = *p;
        int fds[_SLOT_MAX] = { p->stdout_fd, p->stderr_fd, report_w };
        int *targets[_SLOT_MAX] = { &q.stdout_fd, &q.stderr_fd, NULL };
        int keep = 0, r = 0;
        for (int i = 0; i < _SLOT_MAX; i++) {
                if (spawn_slots[i] + 1 > keep)
                        keep = spawn_slots[i] + 1;
                if (fds[i] < 3) /* 0: svd's own stdout/stderr, nothing to pass */
                        continue;
                if (dup3(fds[i], spawn_slots[i], O_CLOEXEC) < 0) {
                        r = -errno;
                        goto restore;
                }
                if (targets[i])
                        *targets[i] = spawn_slots[i];
        }

        VforkChild c = { .p = &q, .report_fd = spawn_slots[SLOT_REPORT], .parent = getpid(), .keep = (unsigned) keep };
        struct clone_args args = {
                .flags = flags | CLONE_VM | CLONE_VFORK | CLONE_FILES,
                .pidfd = (uint64_t) (uintptr_t) ret_pidfd,
                .exit_signal = (uint64_t) exit_signal,
                .cgroup = p->cgroup_fd >= 0 ? (uint64_t) p->cgroup_fd : 0,
                .stack = (uint64_t) (uintptr_t) spawn_stack,
                .stack_size = SPAWN_STACK_SIZE,
        };
        long pid = clone3_run(&args, vfork_child, &c);
        if (pid == -ENOSYS || pid == -EINVAL)
                r = 0; /* no clone3(), or not with these flags: fork-like */
        else if (pid < 0)
                r = (int) pid;
        else {
                *ret_pid = (pid_t) pid;
                r = 1;
        }
restore:
        /* The slots hold /dev/null again, so that no pipe end stays open here. */
        for (int i = 0; i < _SLOT_MAX; i++)
                (void) dup3(spawn_null, spawn_slots[i], O_CLOEXEC);
        return r;
}
#else
static int spawn_vfork(const SpawnParams *p, uint64_t flags, int exit_signal, int report_w, int *ret_pidfd,
                       pid_t *ret_pid) {
        return 0;
}
#endif

/* ---- parent side ---- */

static uint64_t spawn_clone_flags(const SpawnParams *p, int *ret_exit_signal) {
        /* CLONE_CLEAR_SIGHAND: svd's handlers mean nothing in the child. */
        uint64_t flags = CLONE_PIDFD | CLONE_CLEAR_SIGHAND;

        if (p->mode == SPAWN_MODE_AUTOKILL) {
                flags |= CLONE_AUTOREAP | CLONE_PIDFD_AUTOKILL;
                /* Autokill without CLONE_NNP needs CAP_SYS_ADMIN; with it, the
                 * child can never gain privileges, so an unprivileged parent
                 * cannot use the kill-on-close to attack a setuid program. */
                if (p->no_new_privileges || !p->cap_sys_admin)
                        flags |= CLONE_NNP;
                *ret_exit_signal = 0; /* CLONE_AUTOREAP requires it */
        } else
                *ret_exit_signal = SIGCHLD;
        if (p->private_pids)
                flags |= CLONE_NEWPID | CLONE_NEWNS | (p->user_namespace ? CLONE_NEWUSER : 0);
        if (p->cgroup_fd >= 0)
                flags |= CLONE_INTO_CGROUP;
        return flags;
}

int spawn_process(const SpawnParams *p, Process *ret, int *ret_report_fd) {
        _cleanup_close_pair_ int report[2] = { -EBADF, -EBADF };
        int pidfd = -EBADF, exit_signal;

        assert(p);
        assert(p->path);
        assert(p->argv && p->argv[0]);
        assert(p->envp);
        assert(ret);
        assert(ret_report_fd);

        if (pipe2(report, O_CLOEXEC) < 0)
                return -errno;
        spawn_note_ignored();

        uint64_t flags = spawn_clone_flags(p, &exit_signal);
        struct clone_args args = {
                .flags = flags,
                .pidfd = (uint64_t) (uintptr_t) &pidfd,
                .exit_signal = (uint64_t) exit_signal,
                .cgroup = p->cgroup_fd >= 0 ? (uint64_t) p->cgroup_fd : 0,
        };
        pid_t parent = getpid();
        bool legacy = false;
        pid_t pid = 0;
        int r = spawn_vfork(p, flags, exit_signal, report[1], &pidfd, &pid);
        if (r < 0)
                return r;
        if (r > 0)
                goto spawned;
        pid = sys_clone3(&args, sizeof(args));
        if (pid < 0 && errno == ENOSYS && p->mode == SPAWN_MODE_FALLBACK) {
                /* No clone3() (a seccomp profile, valgrind): clone() has
                 * CLONE_PIDFD but neither CLONE_INTO_CGROUP nor
                 * CLONE_CLEAR_SIGHAND; the child joins its cgroup itself and
                 * resets its signal handlers anyway. */
                static bool logged = false;
                if (!logged) {
                        log_notice("clone3() is not available (ENOSYS): spawning with clone().");
                        logged = true;
                }
                legacy = true;
                pid = sys_clone_fork((unsigned long) (flags & ~(uint64_t) (CLONE_CLEAR_SIGHAND | CLONE_INTO_CGROUP)) |
                                             (unsigned long) exit_signal,
                                     &pidfd);
        }
        if (pid < 0)
                return -errno;
        if (pid == 0)
                child_run(p, report[1], parent, legacy);

spawned:
        report[1] = safe_close(report[1]);
        if (fcntl(report[0], F_SETFL, O_NONBLOCK) < 0) {
                r = -errno;
                /* The child must not outlive a failed setup in either mode. */
                (void) sys_pidfd_send_signal(pidfd, SIGKILL, NULL, 0);
                if (p->mode == SPAWN_MODE_FALLBACK)
                        (void) waitid(P_PIDFD, (id_t) pidfd, &(siginfo_t){}, WEXITED);
                safe_close(pidfd);
                return r;
        }

        *ret = (Process){ .pid = pid, .pidfd = pidfd, .mode = p->mode };
        *ret_report_fd = TAKE_FD(report[0]);
        return 0;
}

int spawn_read_failure(int fd, SpawnFailure *ret) {
        SpawnFailure f;
        ssize_t n;

        assert(fd >= 0);
        assert(ret);

        do
                n = read(fd, &f, sizeof(f));
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        if (n == 0)
                return 0;
        /* A pipe write of this size is atomic (PIPE_BUF), so a short read is a bug. */
        if ((size_t) n != sizeof(f))
                return -EIO;
        *ret = f;
        return 1;
}

int spawn_find_executable(const char *name, const char *search_path, char **ret) {
        assert(name);
        assert(ret);

        if (strchr(name, '/')) {
                char *c = strdup(name);
                if (!c)
                        return -ENOMEM;
                *ret = c;
                return 0;
        }
        if (!*name)
                return -ENOENT;

        const char *p = search_path ? search_path : SPAWN_DEFAULT_PATH;
        while (*p) {
                size_t l = strcspn(p, ":");
                if (l > 0) {
                        char *c;
                        if (asprintf(&c, "%.*s/%s", (int) l, p, name) < 0)
                                return -ENOMEM;
                        struct stat st;
                        if (stat(c, &st) == 0 && S_ISREG(st.st_mode) && access(c, X_OK) == 0) {
                                *ret = c;
                                return 0;
                        }
                        free(c);
                }
                p += l;
                if (*p == ':')
                        p++;
        }
        return -ENOENT;
}

/* ---- the start-up probe ---- */

/* clone3() a child that exits at once with PROBE_EXIT_STATUS. */
static int probe_clone(uint64_t flags, int exit_signal, int *ret_pidfd) {
        int pidfd = -EBADF;
        struct clone_args args = {
                .flags = flags | CLONE_PIDFD,
                .pidfd = (uint64_t) (uintptr_t) &pidfd,
                .exit_signal = (uint64_t) exit_signal,
        };
        pid_t pid = sys_clone3(&args, sizeof(args));
        if (pid < 0)
                return -errno;
        if (pid == 0)
                _exit(PROBE_EXIT_STATUS);
        *ret_pidfd = pidfd;
        return 0;
}

static int probe_wait(int pidfd) {
        struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
        int r;
        do
                r = poll(&pfd, 1, PROBE_TIMEOUT_MSEC);
        while (r < 0 && errno == EINTR);
        if (r < 0)
                return -errno;
        return r == 0 ? -ETIMEDOUT : 0;
}

/* Reaps a probe child created with SIGCHLD (nothing to do for an autoreaped one). */
static void probe_reap(int pidfd) {
        (void) waitid(P_PIDFD, (id_t) pidfd, &(siginfo_t){}, WEXITED);
}

/* The full autokill combination, and whether pidfs hands back the exit status. */
static int probe_autokill(char *reason, size_t n) {
        _cleanup_close_ int pidfd = -EBADF;
        int r = probe_clone(CLONE_AUTOREAP | CLONE_NNP | CLONE_PIDFD_AUTOKILL, 0, &pidfd);
        if (r < 0) {
                snprintf(reason, n, "clone3() rejected CLONE_AUTOREAP|CLONE_NNP|CLONE_PIDFD_AUTOKILL: %s",
                         strerror(-r));
                return r;
        }
        r = probe_wait(pidfd);
        if (r < 0) {
                snprintf(reason, n, "probe child did not exit: %s", strerror(-r));
                return r;
        }

        /* pidfs may publish the exit information a moment after the pidfd
         * polls readable; retry briefly. */
        Process proc = { .pid = 0, .pidfd = pidfd, .mode = SPAWN_MODE_AUTOKILL };
        ExitStatus st;
        for (int i = 0;; i++) {
                r = process_exit_status(&proc, &st);
                if (r != -EAGAIN || i >= 1000)
                        break;
                (void) nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
        }
        if (r < 0) {
                snprintf(reason, n, "PIDFD_GET_INFO cannot report an autoreaped child's exit status: %s",
                         strerror(-r));
                return r;
        }
        if (st.code != CLD_EXITED || st.status != PROBE_EXIT_STATUS) {
                snprintf(reason, n, "PIDFD_INFO_EXIT reported %s/%d, expected exited/%d",
                         strna(exit_code_to_string(st.code)), st.status, PROBE_EXIT_STATUS);
                return -EIO;
        }
        return 0;
}

static int probe_cap_last(void) {
        FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
        int last = CAP_LAST_CAP;
        if (f) {
                if (fscanf(f, "%d", &last) != 1 || last < 0 || last > 63)
                        last = CAP_LAST_CAP;
                fclose(f);
        }
        return last;
}

void spawn_probe(bool force_fallback, SpawnProbe *ret) {
        int pidfd;

        assert(ret);
        *ret = (SpawnProbe){ .mode = SPAWN_MODE_FALLBACK, .cap_last = probe_cap_last() };

        /* Each flag on its own, for Info's list of what the kernel accepts. */
        if (probe_clone(CLONE_AUTOREAP, 0, &pidfd) >= 0) {
                ret->flags |= CLONE_AUTOREAP;
                safe_close(pidfd);
        }
        if (probe_clone(CLONE_NNP, SIGCHLD, &pidfd) >= 0) {
                ret->flags |= CLONE_NNP;
                probe_reap(pidfd);
                safe_close(pidfd);
        }

        int r = probe_autokill(ret->reason, sizeof(ret->reason));
        if (r >= 0) {
                ret->flags |= CLONE_PIDFD_AUTOKILL;
                /* Without CLONE_NNP the kernel wants CAP_SYS_ADMIN. Ask it rather than guess. */
                if (probe_clone(CLONE_AUTOREAP | CLONE_PIDFD_AUTOKILL, 0, &pidfd) >= 0) {
                        ret->cap_sys_admin = true;
                        safe_close(pidfd); /* autokill: the child dies with this close */
                }
        }

        if (force_fallback) {
                snprintf(ret->reason, sizeof(ret->reason), "fallback mode requested with --mode=fallback%s",
                         r >= 0 ? " (the kernel supports autokill)" : "");
                return;
        }
        if (r < 0)
                return; /* reason already written */

        ret->mode = SPAWN_MODE_AUTOKILL;
        snprintf(ret->reason, sizeof(ret->reason),
                 "clone3() accepts CLONE_AUTOREAP|CLONE_NNP|CLONE_PIDFD_AUTOKILL and pidfs reports exit status%s",
                 ret->cap_sys_admin ? "" : "; no CAP_SYS_ADMIN, so every service gets CLONE_NNP");
}
