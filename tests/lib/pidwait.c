/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pidwait: wait for processes to die, by pidfd, and say how long it took.
 *
 *   pidwait [--kill PID] [--timeout MS] [--reaped] PID...
 *
 * Opens a pidfd for every PID first (each must be alive and not a zombie;
 * /proc/PID/stat is read before and after pidfd_open() so that a reused PID
 * is never mistaken for the process the caller meant). With --kill, sends
 * SIGKILL to that PID through a pidfd and starts the clock right before the
 * signal; without it the clock starts once all pidfds are open. Then polls
 * all pidfds: a pidfd polls readable when its process has exited (zombie or
 * reaped). With --reaped, also waits until each process is gone from /proc,
 * i.e. reaped by whoever is its parent by then, so that "dead" and "not a
 * zombie" are measured separately.
 *
 * Prints one line on stdout:
 *   pids=N dead=D dead_ms=X dead_us=U reaped=R reaped_ms=Y
 * (reaped and reaped_ms only with --reaped; dead_ms rounded up). Every PID
 * still alive or still a zombie at the deadline gets a line on stderr.
 *
 * Exit status: 0 all died (and were reaped, with --reaped) in time; 1 the
 * timeout passed first; 2 usage error or a PID that was not alive at start.
 *
 * Kept self-contained (C11 + Linux headers, no project code) so that the
 * kernel lab can build it into an initramfs on its own.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* setresuid(), pidfd syscalls, prctl() and friends */
#endif

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

#define PIDS_MAX 4096
#define DEFAULT_TIMEOUT_MS 10000
#define REAP_POLL_NSEC (1000 * 1000) /* 1 ms between /proc looks */

typedef struct Proc {
        pid_t pid;
        unsigned long long starttime;
        int pidfd;       /* -1 once dead */
        int64_t dead_us; /* -1 while alive */
        bool reaped;
} Proc;

static int pidfd_open(pid_t pid) {
        return (int) syscall(SYS_pidfd_open, pid, 0);
}

static int pidfd_send_signal(int pidfd, int sig) {
        return (int) syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

static int64_t now_us(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Reads state and starttime (field 22) of /proc/PID/stat. Returns 0, or
 * -ENOENT when there is no such process (any more). */
static int proc_stat(pid_t pid, char *ret_state, unsigned long long *ret_starttime) {
        char path[64], buf[1024];

        snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
        FILE *f = fopen(path, "re");
        if (!f)
                return -ENOENT;
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        if (n == 0) /* raced with the reap */
                return -ENOENT;
        buf[n] = 0;

        /* comm may hold spaces and parentheses: the fields start after the last ')'. */
        char *p = strrchr(buf, ')');
        if (!p || p[1] != ' ')
                return -EBADMSG;
        p += 2;

        char state = *p;
        for (int field = 3; field < 22; field++) {
                p = strchr(p, ' ');
                if (!p)
                        return -EBADMSG;
                p++;
        }
        char *end;
        errno = 0;
        unsigned long long st = strtoull(p, &end, 10);
        if (errno != 0 || end == p)
                return -EBADMSG;

        *ret_state = state;
        *ret_starttime = st;
        return 0;
}

/* PPid: from /proc/PID/status, or -1. */
static long proc_ppid(pid_t pid) {
        char path[64], line[256];
        long ppid = -1;

        snprintf(path, sizeof(path), "/proc/%d/status", (int) pid);
        FILE *f = fopen(path, "re");
        if (!f)
                return -1;
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "PPid: %ld", &ppid) == 1)
                        break;
        fclose(f);
        return ppid;
}

/* True while the process we opened is still in /proc (alive or a zombie). */
static bool proc_present(const Proc *p, char *ret_state) {
        unsigned long long st;
        char state;

        if (proc_stat(p->pid, &state, &st) < 0 || st != p->starttime)
                return false;
        *ret_state = state;
        return true;
}

static int parse_pid(const char *s, pid_t *ret) {
        char *end;

        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno != 0 || end == s || *end != 0 || v <= 0 || v > INT_MAX)
                return -EINVAL;
        *ret = (pid_t) v;
        return 0;
}

/* Opens a pidfd for a process that must be alive now; fills starttime. */
static int open_alive(pid_t pid, unsigned long long *ret_starttime) {
        unsigned long long before, after;
        char state;

        if (proc_stat(pid, &state, &before) < 0) {
                fprintf(stderr, "pidwait: pid %d is not running\n", (int) pid);
                return -ESRCH;
        }
        if (state == 'Z') {
                fprintf(stderr, "pidwait: pid %d is already a zombie\n", (int) pid);
                return -ESRCH;
        }
        int fd = pidfd_open(pid);
        if (fd < 0) {
                fprintf(stderr, "pidwait: pidfd_open(%d): %s\n", (int) pid, strerror(errno));
                return -errno;
        }
        /* Same starttime after the open: the pidfd is the process we looked at. */
        if (proc_stat(pid, &state, &after) < 0 || after != before) {
                fprintf(stderr, "pidwait: pid %d went away while it was being opened\n", (int) pid);
                close(fd);
                return -ESRCH;
        }
        *ret_starttime = before;
        return fd;
}

static void usage(void) {
        fprintf(stderr, "usage: pidwait [--kill PID] [--timeout MS] [--reaped] PID...\n");
}

int main(int argc, char *argv[]) {
        static Proc procs[PIDS_MAX];
        static struct pollfd pfds[PIDS_MAX];
        static size_t idx[PIDS_MAX];
        pid_t kill_pid = 0;
        long timeout_ms = DEFAULT_TIMEOUT_MS;
        bool want_reaped = false;
        size_t n = 0;
        int i;

        for (i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--kill") == 0 && i + 1 < argc) {
                        if (parse_pid(argv[++i], &kill_pid) < 0) {
                                usage();
                                return 2;
                        }
                } else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc) {
                        char *end;
                        errno = 0;
                        timeout_ms = strtol(argv[++i], &end, 10);
                        if (errno != 0 || *end != 0 || timeout_ms <= 0) {
                                usage();
                                return 2;
                        }
                } else if (strcmp(argv[i], "--reaped") == 0)
                        want_reaped = true;
                else if (strcmp(argv[i], "--") == 0) {
                        i++;
                        break;
                } else if (argv[i][0] == '-') {
                        usage();
                        return 2;
                } else
                        break;
        }
        for (; i < argc; i++) {
                if (n >= PIDS_MAX) {
                        fprintf(stderr, "pidwait: more than %d pids\n", PIDS_MAX);
                        return 2;
                }
                if (parse_pid(argv[i], &procs[n].pid) < 0) {
                        usage();
                        return 2;
                }
                n++;
        }
        if (n == 0) {
                usage();
                return 2;
        }

        for (size_t k = 0; k < n; k++) {
                int fd = open_alive(procs[k].pid, &procs[k].starttime);
                if (fd < 0)
                        return 2;
                procs[k].pidfd = fd;
                procs[k].dead_us = -1;
                procs[k].reaped = false;
        }

        int kill_fd = -1;
        if (kill_pid > 0) {
                unsigned long long st;
                kill_fd = open_alive(kill_pid, &st);
                if (kill_fd < 0)
                        return 2;
        }

        int64_t start = now_us();
        if (kill_fd >= 0) {
                if (pidfd_send_signal(kill_fd, SIGKILL) < 0) {
                        fprintf(stderr, "pidwait: pidfd_send_signal(%d, SIGKILL): %s\n", (int) kill_pid,
                                strerror(errno));
                        return 2;
                }
                close(kill_fd);
        }
        int64_t deadline = start + (int64_t) timeout_ms * 1000;

        /* Phase 1: every pidfd readable. */
        size_t dead = 0;
        int64_t last_dead = start;
        while (dead < n) {
                int64_t now = now_us();
                if (now >= deadline)
                        break;

                nfds_t m = 0;
                for (size_t k = 0; k < n; k++)
                        if (procs[k].pidfd >= 0) {
                                pfds[m] = (struct pollfd) { .fd = procs[k].pidfd, .events = POLLIN };
                                idx[m++] = k;
                        }
                int wait_ms = (int) ((deadline - now + 999) / 1000);
                int r = poll(pfds, m, wait_ms);
                if (r < 0) {
                        if (errno == EINTR)
                                continue;
                        fprintf(stderr, "pidwait: poll: %s\n", strerror(errno));
                        return 2;
                }
                now = now_us();
                for (nfds_t j = 0; j < m; j++) {
                        if (!(pfds[j].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)))
                                continue;
                        Proc *p = &procs[idx[j]];
                        close(p->pidfd);
                        p->pidfd = -1;
                        p->dead_us = now - start;
                        last_dead = now;
                        dead++;
                }
        }

        /* Phase 2: gone from /proc, i.e. not a zombie any more. */
        size_t reaped = 0;
        int64_t last_reaped = last_dead;
        if (want_reaped && dead == n) {
                while (reaped < n) {
                        int64_t now = now_us();
                        for (size_t k = 0; k < n; k++) {
                                char state;
                                if (!procs[k].reaped && !proc_present(&procs[k], &state)) {
                                        procs[k].reaped = true;
                                        reaped++;
                                        last_reaped = now;
                                }
                        }
                        if (reaped == n || now >= deadline)
                                break;
                        nanosleep(&(struct timespec) { .tv_nsec = REAP_POLL_NSEC }, NULL);
                }
        }

        /* Not all dead: report how long we waited instead. */
        int64_t dead_us = (dead == n ? last_dead : now_us()) - start;
        printf("pids=%zu dead=%zu dead_ms=%lld dead_us=%lld", n, dead, (long long) ((dead_us + 999) / 1000),
               (long long) dead_us);
        if (want_reaped)
                printf(" reaped=%zu reaped_ms=%lld", reaped,
                       (long long) ((last_reaped - start + 999) / 1000));
        printf("\n");
        fflush(stdout);

        bool ok = dead == n && (!want_reaped || reaped == n);
        if (!ok)
                for (size_t k = 0; k < n; k++) {
                        char state;
                        if (procs[k].dead_us < 0)
                                fprintf(stderr, "pidwait: pid %d still alive after %ld ms\n",
                                        (int) procs[k].pid, timeout_ms);
                        else if (want_reaped && !procs[k].reaped && proc_present(&procs[k], &state))
                                fprintf(stderr, "pidwait: pid %d is still in /proc (state %c, ppid %ld) after %ld ms\n",
                                        (int) procs[k].pid, state, proc_ppid(procs[k].pid), timeout_ms);
                }

        return ok ? 0 : 1;
}
