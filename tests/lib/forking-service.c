/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * forking-service: a test daemon that starts as nginx and classic daemons do (Type=forking).
 *
 *   forking-service [--pidfile PATH] [--late [--gate FIFO]] [--workers N] [--record FILE] [--exit N]
 *
 * The command forks, the child calls setsid() and forks the daemon ("master") and exits, so
 * the master is orphaned (a grandchild of whoever started the command). The master writes its
 * pid (as its own PID namespace sees it) to PATH, forks N workers (default 2) that wait for
 * signals, and appends lines to FILE: "master NSPID", "worker NSPID" for each worker, "hup"
 * for every SIGHUP (a reload), "term" when a SIGTERM ends it (it kills its workers first and
 * exits 0). The command exits 0 once the master has written the PID file; with --late it
 * exits first and the master writes the PID file only once the command is gone (as nginx,
 * whose daemon writes it after its parent exited); --gate: and once a line came through FIFO
 * (the test decides when). --exit N: the command exits N at once,
 * forking nothing (a failed start).
 * Plain C11, no project code: the kernel lab builds it on its own.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define WORKERS_MAX 16

static const char *record_path, *gate_path;
static volatile sig_atomic_t got_hup, got_term;

/* Appends "WORD V" (V >= 0) or "WORD" as a line. */
static void record(const char *word, long v) {
        if (!record_path)
                return;
        char line[64];
        int n = v >= 0 ? snprintf(line, sizeof(line), "%s %ld\n", word, v) : snprintf(line, sizeof(line), "%s\n", word);
        int fd = open(record_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
                return;
        (void) !write(fd, line, (size_t) n);
        close(fd);
}

static void on_signal(int sig) {
        if (sig == SIGHUP)
                got_hup = 1;
        else
                got_term = 1;
}

static int write_pidfile(const char *path) {
        char tmp[4096], buf[32];
        snprintf(tmp, sizeof(tmp), "%s.tmp", path);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
                return -1;
        int n = snprintf(buf, sizeof(buf), "%d\n", (int) getpid());
        if (write(fd, buf, (size_t) n) != n || close(fd) < 0)
                return -1;
        return rename(tmp, path);
}

static void master(const char *pidfile, int workers, int ready_fd, int late_fd) {
        pid_t pids[WORKERS_MAX];
        int n = 0;

        if (late_fd >= 0) {
                /* The command holds the other end: EOF once it has exited. Nobody reads ready_fd then. */
                char c;
                while (read(late_fd, &c, 1) < 0 && errno == EINTR)
                        ;
                close(late_fd);
                close(ready_fd);
                ready_fd = -1;
                if (gate_path) {
                        FILE *g = fopen(gate_path, "re");
                        char line[16];
                        if (!g || !fgets(line, sizeof(line), g)) {
                                perror("forking-service: gate");
                                _exit(1);
                        }
                        fclose(g);
                }
        }
        if (pidfile && write_pidfile(pidfile) < 0) {
                perror("forking-service: PID file");
                _exit(1);
        }
        record("master", (long) getpid());
        for (int i = 0; i < workers && i < WORKERS_MAX; i++) {
                pid_t w = fork();
                if (w == 0) {
                        signal(SIGHUP, SIG_DFL);
                        signal(SIGTERM, SIG_DFL);
                        sigset_t none;
                        sigemptyset(&none);
                        sigprocmask(SIG_SETMASK, &none, NULL);
                        for (;;)
                                pause();
                }
                if (w > 0) {
                        pids[n++] = w;
                        record("worker", (long) w);
                }
        }
        if (ready_fd >= 0) {
                (void) !write(ready_fd, "r", 1);
                close(ready_fd);
        }
        sigset_t none;
        sigemptyset(&none);
        for (;;) {
                sigsuspend(&none);
                if (got_hup) {
                        got_hup = 0;
                        record("hup", -1);
                }
                if (got_term) {
                        for (int i = 0; i < n; i++)
                                kill(pids[i], SIGTERM);
                        for (int i = 0; i < n; i++)
                                waitpid(pids[i], NULL, 0);
                        record("term", -1);
                        _exit(0);
                }
        }
}

int main(int argc, char **argv) {
        const char *pidfile = NULL;
        int workers = 2, late = 0;

        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--pidfile") == 0 && i + 1 < argc)
                        pidfile = argv[++i];
                else if (strcmp(argv[i], "--late") == 0)
                        late = 1;
                else if (strcmp(argv[i], "--gate") == 0 && i + 1 < argc)
                        gate_path = argv[++i];
                else if (strcmp(argv[i], "--workers") == 0 && i + 1 < argc)
                        workers = atoi(argv[++i]);
                else if (strcmp(argv[i], "--record") == 0 && i + 1 < argc)
                        record_path = argv[++i];
                else if (strcmp(argv[i], "--exit") == 0 && i + 1 < argc)
                        return atoi(argv[++i]);
                else {
                        fprintf(stderr, "usage: forking-service [--pidfile PATH] [--late [--gate FIFO]] [--workers N] "
                                        "[--record FILE] [--exit N]\n");
                        return 2;
                }
        }

        /* Signals are blocked until the master waits for them: none is lost in between. */
        struct sigaction sa = { .sa_handler = on_signal };
        sigaction(SIGHUP, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        sigset_t block;
        sigemptyset(&block);
        sigaddset(&block, SIGHUP);
        sigaddset(&block, SIGTERM);
        sigprocmask(SIG_BLOCK, &block, NULL);

        int ready[2], hold[2] = { -1, -1 };
        if (pipe2(ready, O_CLOEXEC) < 0 || (late && pipe2(hold, O_CLOEXEC) < 0)) {
                perror("forking-service: pipe");
                return 1;
        }
        pid_t child = fork();
        if (child < 0) {
                perror("forking-service: fork");
                return 1;
        }
        if (child == 0) {
                setsid();
                pid_t m = fork();
                if (m == 0) {
                        close(ready[0]);
                        if (hold[1] >= 0)
                                close(hold[1]);
                        master(pidfile, workers, ready[1], hold[0]);
                }
                _exit(m < 0);
        }
        close(ready[1]);
        if (hold[0] >= 0)
                close(hold[0]);
        int status;
        waitpid(child, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                return 1;
        if (late)
                return 0; /* the master goes on once hold[1] closes with this process */
        char c;
        while (read(ready[0], &c, 1) < 0 && errno == EINTR)
                ;
        return 0;
}
