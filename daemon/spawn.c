/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spawn_process(), the parent side: clone flags, the vfork path with its reserved fd slots, the
 * fork-like fallback, and the report pipe. The child side is spawn-child.c. */
#include "spawn.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "basic/missing-syscall.h"
#include "basic/string-table.h"
#include "spawn-child.h"
#include "svd-log.h"

static const char *const spawn_stage_base_table[_SPAWN_STAGE_MAX] = {
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
        [SPAWN_STAGE_PERSONALITY] = "personality",
        [SPAWN_STAGE_NOTIFY_SOCKET] = "notify-socket",
};

static DEFINE_STRING_TABLE_LOOKUP_TO_STRING(spawn_stage_base, SpawnStage);

const char *spawn_stage_to_string(SpawnStage s) {
        if (s >= SPAWN_STAGE_SANDBOX && s < SPAWN_STAGE_SANDBOX + _SANDBOX_KEY_MAX)
                return sandbox_key_to_string((SandboxKey) (s - SPAWN_STAGE_SANDBOX));
        return spawn_stage_base_to_string(s);
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
 * own stack (and errno): spawn_child_run() neither allocates nor logs.
 *
 * Not for PrivatePIDs=yes (the child stays on as the namespace's init), not
 * in the ASan/UBSan build (the sanitizers' runtime does not expect a second
 * process on svd's memory), not without clone3() (valgrind), and only on
 * x86-64 (the stack switch is a few lines of assembly): those spawn
 * fork-like as before. */

/* Says at debug level, once for each way, how svd spawns services without
 * PrivatePIDs=: on the vfork path, or fork-like and why.
 * tests/integration/spawn-vfork.sh reads it to know which path it ran. */
static void spawn_log_path(bool vfork, const char *why_not) {
        static bool logged[2] = { false, false };

        if (logged[vfork])
                return;
        logged[vfork] = true;
        if (vfork)
                log_debug("Spawning on the vfork path (CLONE_VM|CLONE_VFORK|CLONE_FILES).");
        else
                log_debug("Spawning fork-like, not on the vfork path: %s.", why_not);
}

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

#if defined(HAVE_SYS_CLONE3_RUN) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_UNDEFINED__)
#define SPAWN_HAVE_VFORK 1

/* The child's stack. One suffices: CLONE_VFORK holds svd until the child
 * has exec'd, and only then may the next spawn begin. */
#define SPAWN_STACK_SIZE (64U << 10)
static uint8_t spawn_stack[SPAWN_STACK_SIZE] __attribute__((aligned(64)));

/* 1 and the child (exec'd or failed, its report complete) when spawned;
 * 0 when this path does not apply or clone3() is not there (the caller
 * spawns fork-like); -errno on failure. */
static int spawn_vfork(const SpawnParams *p, uint64_t flags, int exit_signal, int report_w, int *ret_pidfd,
                       pid_t *ret_pid) {
        if (p->private_pids)
                return 0;
        if (p->n_listen_fds > 0 || p->stdin_fd >= 3) /* they do not fit the reserved slots */
                return 0;
        if (spawn_reserve_fds() < 0) {
                spawn_log_path(/* vfork= */ false, "no fds could be reserved for it");
                return 0;
        }

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

        SpawnVforkChild c = { .p = &q,
                              .ignored = &spawn_ignored,
                              .report_fd = spawn_slots[SLOT_REPORT],
                              .parent = getpid(),
                              .keep = (unsigned) keep };
        struct clone_args args = {
                .flags = flags | CLONE_VM | CLONE_VFORK | CLONE_FILES,
                .pidfd = (uint64_t) (uintptr_t) ret_pidfd,
                .exit_signal = (uint64_t) exit_signal,
                .cgroup = p->cgroup_fd >= 0 ? (uint64_t) p->cgroup_fd : 0,
                .stack = (uint64_t) (uintptr_t) spawn_stack,
                .stack_size = SPAWN_STACK_SIZE,
        };
        long pid = sys_clone3_run(&args, spawn_child_vfork, &c);
        if (pid == -ENOSYS || pid == -EINVAL) {
                /* no clone3(), or not with these flags: fork-like */
                spawn_log_path(/* vfork= */ false, pid == -ENOSYS ? "clone3() is not available"
                                                                  : "clone3() refused its flags");
                r = 0;
        } else if (pid < 0)
                r = (int) pid;
        else {
                spawn_log_path(/* vfork= */ true, NULL);
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
        if (!p->private_pids)
                spawn_log_path(/* vfork= */ false, "not built in (sanitizer build, or not x86-64)");
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
                flags |= CLONE_NEWPID | CLONE_NEWNS;
        if (p->join_pidns)
                flags |= CLONE_NEWNS; /* for the namespace's /proc */
        if (p->sandbox)
                flags |= sandbox_plan_clone_flags(p->sandbox);
        if (p->user_namespace)
                flags |= CLONE_NEWUSER;
        if (p->cgroup_fd >= 0)
                flags |= CLONE_INTO_CGROUP;
        return flags;
}

/* join_pidns: svd's children are created in the namespace of p->pidns_pidfd's process from here
 * until spawn_leave_pidns(). setns() of a PID namespace changes only where children go. */
static int spawn_enter_pidns(const SpawnParams *p, int *ret_own) {
        _cleanup_close_ int own = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
        if (own < 0)
                return -errno;
        if (setns(p->pidns_pidfd, CLONE_NEWPID) < 0)
                return -errno;
        *ret_own = TAKE_FD(own);
        return 0;
}

static void spawn_leave_pidns(int *own) {
        if (*own < 0)
                return;
        /* Back to svd's own namespace, where every other child belongs. It is the caller's active
         * namespace, which setns() always allows; failing would put the next service somewhere else. */
        if (setns(*own, CLONE_NEWPID) < 0) {
                log_error("Cannot return to svd's own PID namespace: %m");
                abort();
        }
        *own = safe_close(*own);
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
        _cleanup_(spawn_leave_pidns) int own_pidns = -EBADF;
        if (p->join_pidns) {
                int r = spawn_enter_pidns(p, &own_pidns);
                if (r < 0)
                        return r;
        }
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
                spawn_child_run(p, &spawn_ignored, report[1], parent, legacy);

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
