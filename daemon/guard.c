/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The guard: ends every service's whole tree when svd dies (guard.h). */
#include "guard.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/macros.h"
#include "basic/missing-syscall.h"
#include "basic/time-util.h"
#include "svd-log.h"

#define GUARD_FD_SVD 3
#define GUARD_FD_CGROUP 4
#define GUARD_RESTART_USEC (1 * USEC_PER_SEC) /* a guard that died sooner is started again this late */

void guard_init(Guard *g, sd_event *e, CgroupRoot *cg, const char *exe_path) {
        *g = (Guard){
                .proc = PROCESS_NULL,
                .event = e,
                .cgroup = cg,
                .exe_path = exe_path,
        };
}

int guard_takeover(const CgroupRoot *cg) {
        int r;

        if (!cg->available)
                return 0;
        /* The predecessor's guard may still be at work: it goes first, so that it cannot kill what this
         * svd starts. */
        if (cg->guard_fd >= 0) {
                r = cgroup_kill_and_wait(cg->guard_fd, GUARD_KILL_TIMEOUT_MSEC);
                if (r < 0)
                        log_warning_errno(r, "Failed to end the guard of a previous svd in %s: %m", cg->guard_path);
                else if (r > 0)
                        log_info("Ended the guard of a previous svd.");
        }
        r = cgroup_kill_and_wait(cg->services_fd, GUARD_KILL_TIMEOUT_MSEC);
        if (r < 0) {
                char left[1024] = "";
                if (r == -ETIMEDOUT)
                        (void) cgroup_describe_processes(cg->services_fd, left, sizeof(left));
                return log_error_errno(r, "Failed to kill what a previous svd's services left in %s: %m%s%s",
                                       cg->services_path, *left ? "; still there: " : "", left);
        }
        if (r > 0)
                log_warning("Killed the processes a previous svd's services left in %s.", cg->services_path);
        return r;
}

static int on_guard_exit(sd_event_source *source, int fd, uint32_t revents, void *userdata);

static int on_guard_retry(sd_event_source *source, uint64_t usec, void *userdata) {
        Guard *g = userdata;

        g->retry_source = sd_event_source_disable_unref(g->retry_source);
        (void) guard_start(g);
        return 0;
}

static int guard_watch(Guard *g) {
        int r = process_watch(&g->proc);
        if (r < 0)
                return r;
        return sd_event_add_io(g->event, &g->exit_source, g->proc.pidfd, PROCESS_EXIT_EVENTS, on_guard_exit, g);
}

/* The child, before its exec: the guard's fds in their places, nothing else of svd's. */
_noreturn_ static void guard_child(int svd_pidfd, int cgroup_fd, const char *exe, bool join_cgroup, int guard_cg_fd) {
        sigset_t none;

        if (join_cgroup && guard_cg_fd >= 0) {
                int fd = openat(guard_cg_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
                if (fd >= 0) {
                        (void) !write(fd, "0", 1);
                        (void) close(fd);
                }
        }
        /* Its own session: a ^C or a hang-up of svd's terminal is not for it. */
        (void) setsid();
        /* Above the target slots first, so that one dup2() cannot close the other's source. */
        int a = fcntl(svd_pidfd, F_DUPFD, 10), b = fcntl(cgroup_fd, F_DUPFD, 10);
        if (a < 0 || b < 0 || dup2(a, GUARD_FD_SVD) < 0 || dup2(b, GUARD_FD_CGROUP) < 0)
                _exit(127);
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null >= 0) {
                (void) dup2(null, STDIN_FILENO);
                (void) dup2(null, STDOUT_FILENO);
        }
        if (sys_close_range(GUARD_FD_CGROUP + 1, ~0U, 0) < 0)
                for (int fd = GUARD_FD_CGROUP + 1; fd < 1024; fd++)
                        (void) close(fd);
        sigemptyset(&none);
        (void) sigprocmask(SIG_SETMASK, &none, NULL);
        char *argv[] = { (char *) "svd", (char *) "--guard", NULL };
        execv(exe, argv);
        _exit(127);
}

int guard_start(Guard *g) {
        CgroupRoot *cg = g->cgroup;
        _cleanup_close_ int self = -EBADF;
        int pidfd = -EBADF;
        pid_t pid;

        if (!cg->available)
                return -EOPNOTSUPP;
        assert(!process_is_set(&g->proc));

        /* A cgroup of its own that was never killed: see cgroup_guard_renew(). Where it cannot be made
         * anew, the guard goes into it all the same; a guard that dies at once is started again. */
        int k = cgroup_guard_renew(cg);
        if (k < 0)
                log_warning_errno(k, "Failed to make the guard's cgroup %s anew, using it as it is: %m", cg->guard_path);
        const char *exe = g->exe_path ?: "/proc/self/exe";
        self = sys_pidfd_open(getpid(), 0);
        if (self < 0)
                return log_error_errno(errno, "Failed to open svd's own pidfd, no guard: %m");
        struct clone_args args = {
                .flags = CLONE_PIDFD | (cg->guard_fd >= 0 ? CLONE_INTO_CGROUP : 0),
                .pidfd = (uint64_t) (uintptr_t) &pidfd,
                .exit_signal = SIGCHLD,
                .cgroup = (uint64_t) (cg->guard_fd >= 0 ? cg->guard_fd : 0),
        };
        bool legacy = false;
        pid = sys_clone3(&args, sizeof(args));
        if (pid < 0 && IN_SET(errno, ENOSYS, E2BIG, EINVAL)) {
                /* Without clone3() (valgrind, a seccomp profile): fork, and the child joins its cgroup. */
                legacy = true;
                pid = sys_clone_fork(CLONE_PIDFD | SIGCHLD, &pidfd);
        }
        if (pid < 0)
                return log_error_errno(errno, "Failed to start the guard: %m");
        if (pid == 0)
                guard_child(self, cg->services_fd, exe, legacy, cg->guard_fd);

        g->proc = (Process){ .pid = pid, .pidfd = pidfd, .mode = SPAWN_MODE_FALLBACK };
        g->started_usec = now_usec(CLOCK_MONOTONIC);
        int r = guard_watch(g);
        if (r < 0) {
                log_error_errno(r, "Failed to watch the guard, stopping it: %m");
                process_kill_and_reap(&g->proc);
                return r;
        }
        log_info("Guard pid %d: when svd dies, it kills every process of the services in %s.", (int) pid,
                 cg->services_path);
        return 0;
}

int guard_resume(Guard *g, pid_t pid, int pidfd) {
        assert(!process_is_set(&g->proc));

        g->proc = (Process){ .pid = pid, .pidfd = pidfd, .mode = SPAWN_MODE_FALLBACK };
        g->started_usec = now_usec(CLOCK_MONOTONIC);
        int r = guard_watch(g);
        if (r < 0)
                process_done(&g->proc);
        return r;
}

static void guard_reap(Guard *g) {
        g->exit_source = sd_event_source_disable_unref(g->exit_source);
        /* svd reaps orphans too (manager_reap()): ECHILD means that happened first. */
        (void) waitid(P_PIDFD, (id_t) g->proc.pidfd, &(siginfo_t){}, WEXITED | WNOHANG);
        process_done(&g->proc);
}

static int on_guard_exit(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        Guard *g = userdata;
        bool quick = now_usec(CLOCK_MONOTONIC) - g->started_usec < GUARD_RESTART_USEC;

        log_warning("The guard (pid %d) is gone; starting it again%s.", (int) g->proc.pid,
                    quick ? " in a second" : "");
        guard_reap(g);
        if (!quick) {
                (void) guard_start(g);
                return 0;
        }
        int r = sd_event_add_time_relative(g->event, &g->retry_source, CLOCK_MONOTONIC, GUARD_RESTART_USEC,
                                           /* accuracy= */ 0, on_guard_retry, g);
        if (r < 0)
                (void) guard_start(g);
        return 0;
}

void guard_stop(Guard *g) {
        g->retry_source = sd_event_source_disable_unref(g->retry_source);
        if (!process_is_set(&g->proc))
                return;
        g->exit_source = sd_event_source_disable_unref(g->exit_source);
        process_kill_and_reap(&g->proc); /* a plain child: reaped by the waitid() of fallback mode */
}

void guard_done(Guard *g) {
        g->retry_source = sd_event_source_disable_unref(g->retry_source);
        g->exit_source = sd_event_source_disable_unref(g->exit_source);
        process_done(&g->proc);
}

int guard_main(void) {
        struct pollfd p = { .fd = GUARD_FD_SVD, .events = POLLIN };

        (void) prctl(PR_SET_NAME, "svd-guard");
        /* Only SIGKILL ends it: svd's stop signals are svd's, and a signal meant for svd's
         * process group or session (it has its own) is not for it either. */
        for (int sig = 1; sig < SIGRTMIN; sig++)
                if (!IN_SET(sig, SIGKILL, SIGSTOP))
                        (void) signal(sig, SIG_IGN);
        if (fcntl(GUARD_FD_SVD, F_GETFD) < 0 || fcntl(GUARD_FD_CGROUP, F_GETFD) < 0) {
                fprintf(stderr, "svd --guard: run by svd only (fds 3 and 4 are its pidfd and cgroup).\n");
                return 2;
        }
        for (;;) {
                int n = poll(&p, 1, -1);
                if (n > 0)
                        break;
                if (n < 0 && errno != EINTR) {
                        fprintf(stderr, "svd-guard: poll: %s\n", strerror(errno));
                        return 1;
                }
        }
        uint64_t woke = now_usec(CLOCK_MONOTONIC);
        int r = cgroup_kill_and_wait(GUARD_FD_CGROUP, GUARD_KILL_TIMEOUT_MSEC);
        if (r < 0) {
                char left[1024] = "";
                if (r == -ETIMEDOUT)
                        (void) cgroup_describe_processes(GUARD_FD_CGROUP, left, sizeof(left));
                fprintf(stderr, "svd-guard: svd is gone; killing its services failed: %s%s%s\n", strerror(-r),
                        *left ? "; still there: " : "", left);
                return 1;
        }
        if (r > 0)
                fprintf(stderr, "svd-guard: svd is gone; killed every process of its services (%.1f ms to empty).\n",
                        (double) (now_usec(CLOCK_MONOTONIC) - woke) / 1000.0);
        return 0;
}
