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

#include "basic/missing-syscall.h"

/* How long the start-up probe waits for its throwaway child to exit. */
#define PROBE_TIMEOUT_MSEC 5000
/* The probe child's exit status, checked when read back through pidfs. */
#define PROBE_EXIT_STATUS 42

static const char *const spawn_stage_table[_SPAWN_STAGE_MAX] = {
        [SPAWN_STAGE_CLOSE_FDS] = "close-fds",
        [SPAWN_STAGE_SIGNALS] = "signals",
        [SPAWN_STAGE_SETSID] = "setsid",
        [SPAWN_STAGE_STDIN] = "stdin",
        [SPAWN_STAGE_RLIMITS] = "rlimits",
        [SPAWN_STAGE_CHDIR] = "chdir",
        [SPAWN_STAGE_SETGROUPS] = "setgroups",
        [SPAWN_STAGE_SETGID] = "setgid",
        [SPAWN_STAGE_SETUID] = "setuid",
        [SPAWN_STAGE_NO_NEW_PRIVS] = "no-new-privileges",
        [SPAWN_STAGE_PDEATHSIG] = "pdeathsig",
        [SPAWN_STAGE_PARENT] = "parent-check",
        [SPAWN_STAGE_EXEC] = "exec",
};

const char *spawn_stage_to_string(SpawnStage s) {
        return s >= 0 && s < _SPAWN_STAGE_MAX ? spawn_stage_table[s] : NULL;
}

/* ---- child side: only async-signal-safe calls from here to exec ---- */

static _noreturn_ void child_fail(int report_fd, SpawnStage stage, int error) {
        SpawnFailure f = { .stage = stage, .error = error };
        (void) !write(report_fd, &f, sizeof(f));
        _exit(127);
}

static _noreturn_ void child_run(const SpawnParams *p, int report_fd, pid_t parent) {
        /* First of all drop every fd but 0-2 and the report pipe: until then
         * the child holds copies of svd's other pidfds, which would keep
         * those services alive past svd in autokill mode. */
        if (report_fd != 3) {
                if (dup3(report_fd, 3, O_CLOEXEC) < 0)
                        child_fail(report_fd, SPAWN_STAGE_CLOSE_FDS, errno);
                report_fd = 3;
        }
        if (sys_close_range(4, ~0U, 0) < 0)
                child_fail(report_fd, SPAWN_STAGE_CLOSE_FDS, errno);

        /* CLONE_CLEAR_SIGHAND reset the handlers; ignored signals stay
         * ignored across exec, so reset those too, and unblock everything
         * svd blocked for its signalfds. */
        for (int sig = 1; sig < NSIG; sig++) {
                if (sig == SIGKILL || sig == SIGSTOP)
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

        int null = open("/dev/null", O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (null < 0)
                child_fail(report_fd, SPAWN_STAGE_STDIN, errno);
        if (null != STDIN_FILENO) {
                if (dup2(null, STDIN_FILENO) < 0)
                        child_fail(report_fd, SPAWN_STAGE_STDIN, errno);
                (void) close(null);
        } else if (fcntl(STDIN_FILENO, F_SETFD, 0) < 0)
                child_fail(report_fd, SPAWN_STAGE_STDIN, errno);

        if (p->nofile && setrlimit(RLIMIT_NOFILE, p->nofile) < 0)
                child_fail(report_fd, SPAWN_STAGE_RLIMITS, errno);

        if (p->working_directory && chdir(p->working_directory) < 0 &&
            !(p->working_directory_missing_ok && errno == ENOENT))
                child_fail(report_fd, SPAWN_STAGE_CHDIR, errno);

        if (p->change_credentials) {
                if (setgroups(p->n_groups, p->groups) < 0)
                        child_fail(report_fd, SPAWN_STAGE_SETGROUPS, errno);
                if (setresgid(p->gid, p->gid, p->gid) < 0)
                        child_fail(report_fd, SPAWN_STAGE_SETGID, errno);
                if (setresuid(p->uid, p->uid, p->uid) < 0)
                        child_fail(report_fd, SPAWN_STAGE_SETUID, errno);
        }

        if (p->no_new_privileges && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                child_fail(report_fd, SPAWN_STAGE_NO_NEW_PRIVS, errno);

        if (p->mode == SPAWN_MODE_FALLBACK) {
                /* FIXME: drop when 7.1 is the oldest kernel we support.
                 * Without autokill the leash is the parent-death signal. The
                 * kernel clears it on a credential change, so it is set after
                 * the last one; and svd may already have died before it was
                 * set, so check that svd is still the parent. */
                if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
                        child_fail(report_fd, SPAWN_STAGE_PDEATHSIG, errno);
                if (getppid() != parent)
                        child_fail(report_fd, SPAWN_STAGE_PARENT, ESRCH);
        }

        execve(p->path, p->argv, p->envp);
        child_fail(report_fd, SPAWN_STAGE_EXEC, errno);
}

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

        uint64_t flags = spawn_clone_flags(p, &exit_signal);
        struct clone_args args = {
                .flags = flags,
                .pidfd = (uint64_t) (uintptr_t) &pidfd,
                .exit_signal = (uint64_t) exit_signal,
        };
        pid_t parent = getpid();
        pid_t pid = sys_clone3(&args, sizeof(args));
        if (pid < 0)
                return -errno;
        if (pid == 0)
                child_run(p, report[1], parent);

        report[1] = safe_close(report[1]);
        if (fcntl(report[0], F_SETFL, O_NONBLOCK) < 0) {
                int r = -errno;
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

void spawn_probe(bool force_fallback, SpawnProbe *ret) {
        int pidfd;

        assert(ret);
        *ret = (SpawnProbe){ .mode = SPAWN_MODE_FALLBACK };

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
