/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The start-up probe: does this kernel accept the clone3() autokill flags, and does pidfs report an
 * autoreaped child's exit status? Asked once, of the kernel itself, never from its version. */
#include "spawn-probe.h"

#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "basic/missing-syscall.h"

/* How long the start-up probe waits for its throwaway child to exit. */
#define PROBE_TIMEOUT_MSEC 5000
/* The probe child's exit status, checked when read back through pidfs. */
#define PROBE_EXIT_STATUS 42

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
