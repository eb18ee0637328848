/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The power-loss fault's layers (crashtest-powerloss.h). */
#include "crashtest-powerloss.h"

#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crashtest-options.h"
#include "missing-syscall.h"

#define LAYER_READY_TIMEOUT_USEC (120 * USEC_PER_SEC) /* it copies the directory first */
#define LAYER_CUT_TIMEOUT_USEC (300 * USEC_PER_SEC)   /* it copies the durable state back */

/* Reads the layer's stdout until a whole line is there (or EOF): 1 and the line, 0 at EOF, -ETIMEDOUT. */
static int layer_read_line(PowerLayer *l, char *buf, size_t size, uint64_t deadline) {
        size_t len = 0;
        for (;;) {
                char *nl = memchr(buf, '\n', len);
                if (nl) {
                        *nl = 0;
                        return 1;
                }
                uint64_t now = now_usec(CLOCK_MONOTONIC);
                if (now >= deadline)
                        return -ETIMEDOUT;
                struct pollfd p = {.fd = l->out, .events = POLLIN};
                int n = poll(&p, 1, (int)((deadline - now) / USEC_PER_MSEC) + 1);
                if (n < 0 && errno != EINTR)
                        return -errno;
                if (n <= 0)
                        continue;
                if (len + 1 >= size)
                        return -E2BIG;
                ssize_t k = read(l->out, buf + len, size - 1 - len);
                if (k < 0 && errno != EINTR && errno != EAGAIN)
                        return -errno;
                if (k == 0)
                        return 0;
                if (k > 0)
                        len += (size_t)k;
                buf[len] = 0;
        }
}

static void layer_done(Runner *r, size_t i) {
        PowerLayer *l = &r->layers[i];
        if (l->pid > 0) {
                /* Its exit: reaped here, or by runner_reap() before (the runner's children). */
                (void)waitpid(l->pid, NULL, 0);
        }
        l->pidfd = safe_close(l->pidfd);
        l->out = safe_close(l->out);
        l->pid = 0;
        r->layer_pids[i] = 0;
}

/* A layer that does not answer: killed, and its mount (dead without it) detached. */
static void layer_kill(Runner *r, size_t i) {
        (void)sys_pidfd_send_signal(r->layers[i].pidfd, SIGKILL, NULL, 0);
        if (umount2(arg_data[i], MNT_DETACH) < 0)
                fprintf(stderr, "svd-crashtest: the layer over %s hung and its mount stays: %m\n",
                        arg_data[i]);
}

static int layer_start(Runner *r, size_t i) {
        PowerLayer *l = &r->layers[i];
        char shadow[PATH_MAX], log[PATH_MAX], seed[32], line[256];
        int pipefd[2];

        snprintf(shadow, sizeof(shadow), "%s/powerfs-%zu", r->dir, i);
        snprintf(log, sizeof(log), "%s/powerfs-%zu.log", r->dir, i);
        /* Each layer's own choices of torn writes, replayed with the run's seed. */
        snprintf(seed, sizeof(seed), "%llu",
                 (unsigned long long)(arg_seed * 1000003ULL + r->layer_starts * 31ULL + i));
        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return runner_fail(r, "pipe: %m");
        pid_t parent = getpid();
        pid_t pid = fork();
        if (pid < 0) {
                close(pipefd[0]);
                close(pipefd[1]);
                return runner_fail(r, "fork: %m");
        }
        if (pid == 0) {
                /* Its own session: a ^C of the runner's terminal is the runner's to handle. If the
                 * runner dies, the layer unmounts and keeps the data. */
                (void)setsid();
                (void)prctl(PR_SET_PDEATHSIG, SIGTERM);
                if (getppid() != parent)
                        _exit(1);
                if (dup2(pipefd[1], STDOUT_FILENO) < 0)
                        _exit(127);
                int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
                if (null >= 0)
                        (void)dup2(null, STDIN_FILENO);
                runner_child_nofile();
                execl(arg_powerfs, "svd-powerfs", "--seed", seed, "--log", log, arg_data[i], shadow,
                      (char *)NULL);
                fprintf(stderr, "svd-crashtest: exec %s: %m\n", arg_powerfs);
                _exit(127);
        }
        close(pipefd[1]);
        *l = (PowerLayer){.pid = pid, .pidfd = sys_pidfd_open(pid, 0), .out = pipefd[0]};
        r->layer_pids[i] = pid;
        int q = layer_read_line(l, line, sizeof(line), now_usec(CLOCK_MONOTONIC) + LAYER_READY_TIMEOUT_USEC);
        if (q <= 0 || !streq(line, "ready")) {
                if (q == -ETIMEDOUT)
                        layer_kill(r, i);
                layer_done(r, i);
                return runner_fail(r, "svd-powerfs over %s did not mount it (%s; its error is above)",
                                   arg_data[i], q == -ETIMEDOUT ? "timed out" : "ended");
        }
        return 0;
}

int powerloss_start(Runner *r) {
        for (size_t i = 0; i < arg_n_data; i++) {
                int q = layer_start(r, i);
                if (q < 0) {
                        powerloss_stop(r);
                        return q;
                }
        }
        r->layer_starts++;
        return 0;
}

/* The paths of the "data PATH: ..." lines of a layer's log, into the round's list. */
static void note_dropped_files(Round *rd, const char *log) {
        _cleanup_fclose_ FILE *f = fopen(log, "re");
        char line[PATH_MAX + 256];

        while (f && fgets(line, sizeof(line), f)) {
                if (!strneq(line, "data ", 5))
                        continue;
                char *colon = strstr(line + 5, ": ");
                if (colon) {
                        *colon = 0;
                        text_append(rd->dropped_list, sizeof(rd->dropped_list), line + 5);
                }
        }
}

int powerloss_cut(Runner *r, Round *rd, bool torn) {
        int q = 0;

        for (size_t i = 0; i < arg_n_data; i++) {
                PowerLayer *l = &r->layers[i];
                char line[256], log[PATH_MAX], kept[PATH_MAX];
                uintmax_t bytes = 0;
                size_t files = 0, names = 0, torn_files = 0;

                if (l->pid <= 0)
                        return runner_fail(r, "no layer over %s to cut", arg_data[i]);
                (void)sys_pidfd_send_signal(l->pidfd, torn ? SIGUSR2 : SIGUSR1, NULL, 0);
                int k = layer_read_line(l, line, sizeof(line),
                                        now_usec(CLOCK_MONOTONIC) + LAYER_CUT_TIMEOUT_USEC);
                if (k == -ETIMEDOUT)
                        layer_kill(r, i);
                layer_done(r, i);
                if (k <= 0 ||
                    sscanf(line, "cut dropped-bytes=%ju dropped-files=%zu dropped-names=%zu torn=%zu",
                           &bytes, &files, &names, &torn_files) != 4 ||
                    strstr(line, "failed")) {
                        q = runner_fail(r, "svd-powerfs could not cut %s (%s)", arg_data[i],
                                        k <= 0 ? "no summary" : line);
                        continue;
                }
                rd->cut = true;
                rd->dropped_bytes += bytes;
                rd->dropped_files += files;
                rd->dropped_names += names;
                rd->torn_files += torn_files;
                snprintf(log, sizeof(log), "%s/powerfs-%zu.log", r->dir, i);
                snprintf(kept, sizeof(kept), "%s/round-%u.powerfs-%zu.log", r->dir, rd->number, i);
                if (rename(log, kept) == 0)
                        note_dropped_files(rd, kept);
        }
        if (q < 0)
                return q;
        return powerloss_start(r);
}

void powerloss_forget(Runner *r, const Round *rd) {
        char kept[PATH_MAX];
        if (!rd->cut || rd->failed)
                return;
        for (size_t i = 0; i < arg_n_data; i++) {
                snprintf(kept, sizeof(kept), "%s/round-%u.powerfs-%zu.log", r->dir, rd->number, i);
                (void)unlink(kept);
        }
}

void powerloss_stop(Runner *r) {
        for (size_t i = 0; i < DATA_MAX; i++) {
                PowerLayer *l = &r->layers[i];
                char line[256];
                if (l->pid <= 0)
                        continue;
                (void)sys_pidfd_send_signal(l->pidfd, SIGTERM, NULL, 0);
                /* EOF once it has unmounted and exited. */
                if (layer_read_line(l, line, sizeof(line), now_usec(CLOCK_MONOTONIC) + 30 * USEC_PER_SEC) ==
                    -ETIMEDOUT)
                        layer_kill(r, i);
                layer_done(r, i);
        }
}
