/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The workload, the probe and the check. */
#include "crashtest-workload.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crashtest-options.h"
#include "missing-syscall.h"

static void environment_set(const Round *rd) {
        char b[64];
        snprintf(b, sizeof(b), "%u", rd->number);
        (void)setenv("SVD_CRASHTEST_ROUND", b, 1);
        snprintf(b, sizeof(b), "%llu", (unsigned long long)arg_seed);
        (void)setenv("SVD_CRASHTEST_SEED", b, 1);
        (void)setenv("SVD_CRASHTEST_FAULT", strna(fault_to_string(rd->fault)), 1);
        (void)setenv("SVD_CRASHTEST_TARGETS", rd->targets, 1);
        if (rd->fault_realtime_usec > 0) {
                snprintf(b, sizeof(b), "%llu", (unsigned long long)rd->fault_realtime_usec);
                (void)setenv("SVD_CRASHTEST_FAULT_USEC", b, 1);
        } else
                (void)unsetenv("SVD_CRASHTEST_FAULT_USEC");
}

/* Reads what is there on *fd without waiting, a line at a time into line (len of size used; a
 * longer line is cut): each chunk to on_chunk (may be NULL), each whole line to on_line. Closes
 * *fd at its end. */
static void lines_drain(Runner *r, int *fd, char *line, size_t size, size_t *len,
                        void (*on_chunk)(Runner *r, const char *buf, size_t n),
                        void (*on_line)(Runner *r, const char *line)) {
        while (*fd >= 0) {
                char buf[4096];
                ssize_t n = read(*fd, buf, sizeof(buf));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        if (n == 0 || errno != EAGAIN)
                                *fd = safe_close(*fd);
                        return;
                }
                if (on_chunk)
                        on_chunk(r, buf, (size_t)n);
                for (ssize_t i = 0; i < n; i++) {
                        if (buf[i] != '\n') {
                                if (*len < size - 1)
                                        line[(*len)++] = buf[i];
                                continue;
                        }
                        line[*len] = 0;
                        *len = 0;
                        on_line(r, line);
                }
        }
}

static void counter_line(Runner *r, const char *line) {
        if (!counters_set_line(&r->counters, line))
                fprintf(stderr, "svd-crashtest: the workload's counter line '%s' is no KEY=NUMBER "
                                "(or one key too many), ignored\n",
                        line);
}

static void workload_chunk(Runner *r, const char *buf, size_t n) {
        if (r->workload_log >= 0)
                (void)!write(r->workload_log, buf, n);
}

static void workload_line(Runner *r, const char *line) {
        if (arg_at == AT_MARKER && !r->marker_seen && regexec(&arg_at_regex, line, 0, NULL, 0) == 0) {
                r->marker_seen = true;
                r->marker_usec = now_usec(CLOCK_REALTIME);
                size_t l = strnlen(line, sizeof(r->marker_line) - 1);
                memcpy(r->marker_line, line, l);
                r->marker_line[l] = 0;
        }
}

void workload_drain(Runner *r) {
        lines_drain(r, &r->counters_fd, r->counters_line, sizeof(r->counters_line), &r->counters_line_len, NULL,
                    counter_line);
        lines_drain(r, &r->workload_out, r->workload_line, sizeof(r->workload_line), &r->workload_line_len,
                    workload_chunk, workload_line);
}

bool workload_has_ended(Runner *r) {
        if (r->workload_ended)
                return true;
        if (r->workload_pidfd < 0)
                return false;
        siginfo_t si = {};
        if (waitid(P_PIDFD, (id_t)r->workload_pidfd, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid == 0)
                return false;
        r->workload_ended = true;
        r->workload_si = si;
        return true;
}

void workload_describe_end(const Runner *r, const char *when, char *buf, size_t size) {
        const siginfo_t *si = &r->workload_si;
        if (si->si_code == CLD_EXITED)
                snprintf(buf, size, "exited:%d,%s", si->si_status, when);
        else
                snprintf(buf, size, "killed:SIG%s,%s", strna(sigabbrev_np(si->si_status)), when);
}

int workload_start(Runner *r, const Round *rd) {
        r->workload_ended = false;
        if (!arg_workload)
                return 0;
        if (r->workload_log >= 0)
                (void)!dprintf(r->workload_log, "--- round %u ---\n", rd->number);
        int p[2], c[2];
        if (pipe2(p, O_CLOEXEC) < 0)
                return runner_fail(r, "pipe2: %m");
        if (pipe2(c, O_CLOEXEC) < 0) {
                close(p[0]);
                close(p[1]);
                return runner_fail(r, "pipe2: %m");
        }
        pid_t pid = fork();
        if (pid < 0) {
                close(p[0]);
                close(p[1]);
                close(c[0]);
                close(c[1]);
                return runner_fail(r, "fork: %m");
        }
        if (pid == 0) {
                (void)setsid();
                (void)prctl(PR_SET_PDEATHSIG, SIGTERM);
                (void)dup2(p[1], 1);
                (void)dup2(p[1], 2);
                /* The counters' descriptor: 3, open across the exec (dup2() clears FD_CLOEXEC). */
                if (c[1] == 3)
                        (void)fcntl(3, F_SETFD, 0);
                else
                        (void)dup2(c[1], 3);
                (void)setenv("SVD_CRASHTEST_COUNTERS_FD", "3", 1);
                environment_set(rd);
                char b[32];
                snprintf(b, sizeof(b), "%d", (int)r->svd_pid);
                (void)setenv("SVD_CRASHTEST_SVD_PID", b, 1);
                runner_child_nofile();
                execl("/bin/sh", "sh", "-c", arg_workload, (char *)NULL);
                _exit(127);
        }
        close(p[1]);
        close(c[1]);
        (void)fcntl(p[0], F_SETFL, O_NONBLOCK);
        (void)fcntl(c[0], F_SETFL, O_NONBLOCK);
        r->workload_out = p[0];
        r->counters_fd = c[0];
        r->counters_line_len = 0;
        r->counters = (Counters){};
        r->workload_pid = pid;
        r->workload_pgid = pid;
        r->workload_pidfd = sys_pidfd_open(pid, 0);
        r->workload_line_len = 0;
        r->marker_seen = false;
        return 0;
}

/* Signals the workload's process group. The workload is a shell command
 * line (sh -c), whose shell may run the real workload as a child: the
 * group, which the runner made with setsid() and which cannot be reused
 * while a member lives, holds them all; a pidfd names one process only. */
static void workload_signal(Runner *r, int sig) {
        if (r->workload_pgid > 0)
                (void)kill(-r->workload_pgid, sig);
}

/* Its output is read meanwhile. */
void workload_stop(Runner *r) {
        if (r->workload_pid != 0) {
                workload_signal(r, SIGTERM);
                uint64_t deadline = now_usec(CLOCK_MONOTONIC) + WORKLOAD_STOP_TIMEOUT_USEC;
                while (r->workload_pid != 0) {
                        struct pollfd p[2] = {{.fd = r->workload_pidfd, .events = POLLIN},
                                              {.fd = r->workload_out, .events = POLLIN}};
                        uint64_t now = now_usec(CLOCK_MONOTONIC);
                        if (now >= deadline)
                                break;
                        (void)poll(p, r->workload_out >= 0 ? 2 : 1, (int)((deadline - now) / 1000) + 1);
                        workload_drain(r);
                        if (p[0].revents & POLLIN) {
                                siginfo_t si;
                                (void)waitid(P_PIDFD, (id_t)r->workload_pidfd, &si, WEXITED);
                                r->workload_pid = 0;
                                r->workload_pidfd = safe_close(r->workload_pidfd);
                        }
                }
        }
        workload_signal(r, SIGKILL);
        r->workload_pgid = 0;
        if (r->workload_pid != 0) {
                siginfo_t si;
                (void)waitid(P_PIDFD, (id_t)r->workload_pidfd, &si, WEXITED);
                r->workload_pid = 0;
                r->workload_pidfd = safe_close(r->workload_pidfd);
        }
        workload_drain(r);
        r->workload_out = safe_close(r->workload_out);
        r->counters_fd = safe_close(r->counters_fd);
        runner_reap(r); /* its other members were re-parented to the runner */
}

int command_run(const char *cmd, const Round *rd, const char *log_path, uint64_t deadline) {
        pid_t pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0) {
                /* A group of its own: what the command starts is killed with it when it overruns. */
                (void)setpgid(0, 0);
                int fd = log_path ? open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600)
                                  : open("/dev/null", O_WRONLY);
                if (fd >= 0) {
                        (void)dup2(fd, 1);
                        (void)dup2(fd, 2);
                }
                environment_set(rd);
                runner_child_nofile();
                execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
                _exit(127);
        }
        (void)setpgid(pid, pid);
        _cleanup_close_ int pidfd = sys_pidfd_open(pid, 0);
        int ret = 0;
        for (;;) {
                if (runner_interrupted) {
                        ret = -EINTR;
                        break;
                }
                uint64_t now = now_usec(CLOCK_MONOTONIC);
                if (now >= deadline) {
                        ret = -ETIMEDOUT;
                        break;
                }
                uint64_t ms = (deadline - now + USEC_PER_MSEC - 1) / USEC_PER_MSEC;
                struct pollfd p = {.fd = pidfd, .events = POLLIN};
                if (pidfd < 0 || poll(&p, 1, ms > INT_MAX ? INT_MAX : (int)ms) > 0)
                        break;
        }
        if (ret < 0)
                (void)kill(-pid, SIGKILL);
        int status;
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return -errno;
        if (ret < 0)
                return ret;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The probe has no event to wait on, hence the interval. */
int probe_until_ok(const Round *rd) {
        if (!arg_probe)
                return 0;
        uint64_t deadline = now_usec(CLOCK_MONOTONIC) + arg_ready_timeout_usec;
        for (;;) {
                int q = command_run(arg_probe, rd, NULL, deadline);
                if (q == 0 || q == -EINTR)
                        return q;
                if (now_usec(CLOCK_MONOTONIC) >= deadline)
                        return -ETIMEDOUT;
                (void)poll(NULL, 0, PROBE_INTERVAL_MSEC);
        }
}
