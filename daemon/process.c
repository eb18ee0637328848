/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A service process as pid and pidfd together: signals through the pidfd, exit status in both modes. */
#include "process.h"

#include <search.h>
#include <string.h>
#include <sys/wait.h>

#include "basic/missing-syscall.h"
#include "basic/string-table.h"

static const char *const spawn_mode_table[_SPAWN_MODE_MAX] = {
        [SPAWN_MODE_AUTOKILL] = "autokill",
        [SPAWN_MODE_FALLBACK] = "fallback",
};

DEFINE_STRING_TABLE_LOOKUP(spawn_mode, SpawnMode);

/* Watched fallback-mode processes not reaped yet, by PID (a tsearch() tree of Process *). */
static void *process_index;

static int process_compare(const void *a, const void *b) {
        pid_t x = ((const Process *) a)->pid, y = ((const Process *) b)->pid;
        return (x > y) - (x < y);
}

int process_watch(Process *p) {
        assert(p);
        assert(!p->indexed);

        if (p->mode != SPAWN_MODE_FALLBACK || p->pid <= 0 || p->reaped || !process_is_set(p))
                return 0;
        Process **node = tsearch(p, &process_index, process_compare);
        if (!node)
                return -ENOMEM;
        if (*node != p)
                return -EEXIST;
        p->indexed = true;
        return 0;
}

static void process_unwatch(Process *p) {
        if (!p->indexed)
                return;
        (void) tdelete(p, &process_index, process_compare);
        p->indexed = false;
}

static Process *process_find(pid_t pid) {
        Process key = { .pid = pid };
        Process **node = tfind(&key, &process_index, process_compare);
        return node ? *node : NULL;
}

const char *exit_code_to_string(int code) {
        switch (code) {
        case CLD_EXITED:
                return "exited";
        case CLD_KILLED:
                return "killed";
        case CLD_DUMPED:
                return "dumped";
        default:
                return NULL;
        }
}

int process_kill(Process *p, int sig) {
        assert(p);

        if (p->pidfd < 0)
                return -ESRCH;
        if (sys_pidfd_send_signal(p->pidfd, sig, NULL, 0) >= 0)
                return 0;
        /* No pidfd_send_signal() (a seccomp profile, valgrind). In fallback
         * mode the child is ours and not reaped until svd waits for it, so
         * its PID cannot name another process yet: kill() is as exact. An
         * autoreaped child's PID can be reused at any time; never fall back. */
        if (errno == ENOSYS && p->mode == SPAWN_MODE_FALLBACK && p->pid > 0 && !p->reaped)
                return kill(p->pid, sig) < 0 ? -errno : 0;
        return -errno;
}

ExitStatus exit_status_from_wait_status(int wstatus) {
        if (WIFEXITED(wstatus))
                return (ExitStatus){ .code = CLD_EXITED, .status = WEXITSTATUS(wstatus) };
        if (WIFSIGNALED(wstatus))
                return (ExitStatus){ .code = WCOREDUMP(wstatus) ? CLD_DUMPED : CLD_KILLED,
                                     .status = WTERMSIG(wstatus) };
        return (ExitStatus){ .code = 0, .status = 0 };
}

int process_exit_status(Process *p, ExitStatus *ret) {
        assert(p);
        assert(ret);
        assert(p->pidfd >= 0);

        if (p->mode == SPAWN_MODE_AUTOKILL) {
                /* Autoreaped: waitid() answers ECHILD; pidfs keeps the status
                 * for as long as a pidfd to the process is open. */
                struct svd_pidfd_info info = { .mask = SVD_PIDFD_INFO_EXIT };
                if (ioctl(p->pidfd, SVD_PIDFD_GET_INFO, &info) < 0)
                        return errno == ESRCH ? -EAGAIN : -errno;
                if (!(info.mask & SVD_PIDFD_INFO_EXIT))
                        return -EAGAIN;
                *ret = exit_status_from_wait_status(info.exit_code);
                return 0;
        }

        /* FIXME: drop the fallback when 7.1 is the oldest kernel we support. */
        if (p->have_exit) {
                *ret = p->exit;
                return 0;
        }
        siginfo_t si = {};
        if (waitid(P_PIDFD, (id_t) p->pidfd, &si, WEXITED | WNOHANG) < 0)
                return -errno;
        if (si.si_pid == 0)
                return -EAGAIN;
        p->reaped = true;
        process_unwatch(p);
        *ret = (ExitStatus){ .code = si.si_code, .status = si.si_status };
        return 0;
}

int process_reap_children(void) {
        int n = 0;

        for (;;) {
                siginfo_t si = {};
                if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0) {
                        if (errno == EINTR)
                                continue;
                        return errno == ECHILD ? n : -errno;
                }
                if (si.si_pid == 0)
                        return n;

                Process *p = process_find(si.si_pid);
                if (p) {
                        siginfo_t ps = {};
                        if (waitid(P_PIDFD, (id_t) p->pidfd, &ps, WEXITED | WNOHANG) < 0)
                                return -errno;
                        if (ps.si_pid != si.si_pid)
                                return -ESRCH; /* cannot be: a zombie child's PID is its own */
                        p->reaped = true;
                        process_unwatch(p);
                        p->have_exit = true;
                        p->exit = (ExitStatus){ .code = ps.si_code, .status = ps.si_status };
                        continue;
                }
                /* Not ours to watch. The PID names this zombie until it is
                 * reaped, and only svd reaps its children. */
                if (waitid(P_PID, (id_t) si.si_pid, &(siginfo_t){}, WEXITED | WNOHANG) < 0 && errno != EINTR)
                        return -errno;
                n++;
        }
}

void process_kill_and_reap(Process *p) {
        assert(p);
        if (!process_is_set(p))
                return;
        (void) process_kill(p, SIGKILL);
        if (p->mode == SPAWN_MODE_FALLBACK)
                (void) waitid(P_PIDFD, (id_t) p->pidfd, &(siginfo_t){}, WEXITED);
        process_done(p);
}

void process_done(Process *p) {
        assert(p);
        process_unwatch(p);
        p->pidfd = safe_close(p->pidfd);
        p->pid = 0;
        p->have_exit = false;
}
