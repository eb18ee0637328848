/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * reaper: run a command as the child of a child subreaper that reaps at once.
 *
 *   reaper PIDFILE COMMAND [ARG...]
 *
 * Becomes a child subreaper (PR_SET_CHILD_SUBREAPER), forks COMMAND, writes
 * its pid to PIDFILE (atomically, through PIDFILE.tmp and rename()), and then
 * reaps every child it gets: COMMAND, and every process orphaned below it.
 *
 * Why: the crash tests SIGKILL svd and then check that no service is left,
 * not even as a zombie. In fallback mode the services are svd's children;
 * once svd is gone the kernel hands them to the nearest subreaper, else to
 * PID 1, which must reap them. Not every PID 1 does so promptly (the VM
 * these tests were written on reaps orphans only every two seconds, and a
 * minimal initramfs init may not reap at all). Under reaper the tests
 * measure what svd and the kernel do, not what the host's init does.
 *
 * Exits when COMMAND has exited and no other child is left, or
 * REAP_GRACE_MS after COMMAND's exit, whichever comes first (left-over
 * processes then go to the next reaper up). Exit status: COMMAND's exit
 * status, or 128 + signal when it was killed, or 125 on a setup failure.
 * SIGTERM, SIGINT and SIGHUP are passed on to COMMAND.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* setresuid(), pidfd syscalls, prctl() and friends */
#endif

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REAP_GRACE_MS 10000

static volatile sig_atomic_t child_pid = 0;

static void forward(int sig) {
        if (child_pid > 0)
                kill((pid_t) child_pid, sig);
}

static int write_pidfile(const char *path, pid_t pid) {
        char tmp[4096];

        if ((size_t) snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp))
                return -ENAMETOOLONG;
        FILE *f = fopen(tmp, "we");
        if (!f)
                return -errno;
        fprintf(f, "%d\n", (int) pid);
        if (fclose(f) != 0)
                return -errno;
        if (rename(tmp, path) < 0)
                return -errno;
        return 0;
}

int main(int argc, char *argv[]) {
        int status = 0;
        int exit_code = -1;

        if (argc < 3) {
                fprintf(stderr, "usage: reaper PIDFILE COMMAND [ARG...]\n");
                return 125;
        }

        if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
                fprintf(stderr, "reaper: PR_SET_CHILD_SUBREAPER: %s\n", strerror(errno));
                return 125;
        }

        struct sigaction sa = { .sa_handler = forward };
        sigemptyset(&sa.sa_mask);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);

        pid_t pid = fork();
        if (pid < 0) {
                fprintf(stderr, "reaper: fork: %s\n", strerror(errno));
                return 125;
        }
        if (pid == 0) {
                signal(SIGTERM, SIG_DFL);
                signal(SIGINT, SIG_DFL);
                signal(SIGHUP, SIG_DFL);
                execvp(argv[2], argv + 2);
                fprintf(stderr, "reaper: exec %s: %s\n", argv[2], strerror(errno));
                _exit(127);
        }
        child_pid = pid;

        int r = write_pidfile(argv[1], pid);
        if (r < 0) {
                fprintf(stderr, "reaper: write %s: %s\n", argv[1], strerror(-r));
                kill(pid, SIGKILL);
        }

        struct timespec grace_end = { 0 };
        for (;;) {
                int options = 0;

                if (exit_code >= 0) {
                        /* COMMAND is done: reap what is left, but do not wait for ever. */
                        struct timespec now;
                        clock_gettime(CLOCK_MONOTONIC, &now);
                        if (now.tv_sec > grace_end.tv_sec ||
                            (now.tv_sec == grace_end.tv_sec && now.tv_nsec >= grace_end.tv_nsec))
                                break;
                        options = WNOHANG;
                }

                pid_t p = waitpid(-1, &status, options);
                if (p < 0) {
                        if (errno == EINTR)
                                continue;
                        break; /* ECHILD: nobody left */
                }
                if (p == 0) {
                        nanosleep(&(struct timespec) { .tv_nsec = 1000 * 1000 }, NULL);
                        continue;
                }
                if (p == pid) {
                        child_pid = 0;
                        exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
                        clock_gettime(CLOCK_MONOTONIC, &grace_end);
                        grace_end.tv_sec += REAP_GRACE_MS / 1000;
                }
        }

        if (r < 0)
                return 125;
        return exit_code >= 0 ? exit_code : 125;
}
