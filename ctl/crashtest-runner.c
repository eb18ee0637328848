/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The runner's private svd: start, readiness, stop, its calls and its event stream. */
#include "crashtest-runner.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "crashtest-options.h"
#include "missing-syscall.h"
#include "varlink-wire.h"

_printf_(2, 3) int runner_fail(Runner *r, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->error, sizeof(r->error), fmt, ap);
        va_end(ap);
        fprintf(stderr, "svd-crashtest: %s\n", r->error);
        return -EINVAL;
}

Service *runner_find(Runner *r, const char *name) {
        for (size_t i = 0; i < r->n_services; i++)
                if (streq(r->services[i].name, name))
                        return &r->services[i];
        return NULL;
}

int runner_add_service(Runner *r, const char *name) {
        if (runner_find(r, name))
                return 0;
        if (r->n_services >= SERVICES_MAX)
                return -E2BIG;
        Service *n = realloc(r->services, (r->n_services + 1) * sizeof(*n));
        if (!n)
                return -ENOMEM;
        r->services = n;
        r->services[r->n_services] = (Service){.name = strdup(name)};
        if (!r->services[r->n_services].name)
                return -ENOMEM;
        r->n_services++;
        return 0;
}

/* The status of svd and of the workload is not needed beyond their end. */
void runner_reap(void *userdata) {
        Runner *r = userdata;
        for (;;) {
                siginfo_t si = {};
                if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid == 0)
                        return;
                pid_t pid = si.si_pid;
                (void)waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG);
                if (pid == r->svd_pid) {
                        r->svd_pid = 0;
                        r->svd_pidfd = safe_close(r->svd_pidfd);
                } else if (pid == r->workload_pid) {
                        r->workload_ended = true;
                        r->workload_si = si;
                        r->workload_pid = 0;
                        r->workload_pidfd = safe_close(r->workload_pidfd);
                }
        }
}

void runner_done(Runner *r) {
        for (size_t i = 0; i < OUTPUT_FOLLOW_MAX; i++)
                r->output[i] = varlink_client_free(r->output[i]);
        for (size_t i = 0; i < r->n_services; i++)
                free(r->services[i].name);
        free(r->services);
        free(r->dir);
        free(r->socket);
        free(r->notify_path);
        free(r->svd_log);
        r->notify_fd = safe_close(r->notify_fd);
        r->workload_log = safe_close(r->workload_log);
}

/* Whether a failed connection or call is one a re-exec of svd explains: svd
 * closes every client connection but the requester's when it re-executes. */
static bool cut_by_reexec(int q) {
        return IN_SET(q, -ECONNRESET, -ECONNREFUSED, -EPIPE, -ENOENT);
}

/* Waits a moment before trying svd again; false when svd itself is gone. */
static bool svd_still_there(Runner *r) {
        if (r->svd_pidfd < 0) {
                (void)poll(NULL, 0, 20);
                return true;
        }
        struct pollfd p = {.fd = r->svd_pidfd, .events = POLLIN};
        return poll(&p, 1, 20) <= 0;
}

/* One call on a connection of its own, answered within timeout. The
 * runner's calls (Info, List, Start) may be made twice, so one cut by a
 * re-exec (a workload may run daemon-reexec at any moment) is made again,
 * for up to that long. */
static int call_within(Runner *r, const char *method, json_t *params, uint64_t timeout, json_t **ret_reply,
                       const char **ret_error, VarlinkClient **ret_client) {
        uint64_t deadline = now_usec(CLOCK_MONOTONIC) + timeout;
        for (;;) {
                VarlinkClient *c = NULL;
                int q = varlink_client_connect(r->socket, &c);
                if (q >= 0) {
                        q = varlink_client_call(c, method, params, timeout, ret_reply, ret_error);
                        if (q >= 0) {
                                *ret_client = c; /* the error string is borrowed from the reply */
                                return 0;
                        }
                        varlink_client_free(c);
                }
                if (!cut_by_reexec(q) || now_usec(CLOCK_MONOTONIC) >= deadline || !svd_still_there(r))
                        return q;
        }
}

static int call(Runner *r, const char *method, json_t *params, json_t **ret_reply, const char **ret_error,
                VarlinkClient **ret_client) {
        return call_within(r, method, params, CALL_TIMEOUT_USEC, ret_reply, ret_error, ret_client);
}

static int runner_info(Runner *r) {
        _cleanup_json_ json_t *reply = NULL;
        const char *err = NULL;
        VarlinkClient *c = NULL;
        int q = call(r, "io.svd.Manager.Info", NULL, &reply, &err, &c);
        if (q < 0)
                return runner_fail(r, "Failed to call Info on '%s': %s", r->socket, strerror(-q));
        varlink_client_free(c);
        if (err)
                return runner_fail(r, "Info failed: %s", err);
        json_t *p = json_object_get(reply, "parameters");
        snprintf(r->mode, sizeof(r->mode), "%s", strna(json_string_value(json_object_get(p, "mode"))));
        r->cgroup = json_is_true(json_object_get(p, "cgroup"));
        return 0;
}

/* The notify socket svd's READY=1 comes to. It is bound only while the
 * runner waits for that message: svd's sd_notify() sends with a blocking
 * sendmsg(), and a datagram socket that nobody reads takes only
 * net.unix.max_dgram_qlen messages (10 by default) before the sender
 * blocks, so that a few re-executions (RELOADING=1, then READY=1 each) would
 * leave svd hanging in sd_notify(). With no socket at the path, svd's
 * message fails at once and svd carries on. */
static int notify_open(Runner *r) {
        struct sockaddr_un sun = {.sun_family = AF_UNIX};
        if (strlen(r->notify_path) >= sizeof(sun.sun_path))
                return runner_fail(r, "The notify socket's path '%s' is too long", r->notify_path);
        strcpy(sun.sun_path, r->notify_path);
        r->notify_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (r->notify_fd < 0)
                return runner_fail(r, "Failed to create the notify socket: %m");
        (void)unlink(r->notify_path);
        int one = 1;
        if (bind(r->notify_fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 ||
            setsockopt(r->notify_fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0)
                return runner_fail(r, "Failed to bind '%s': %m", r->notify_path);
        return 0;
}

static void notify_close(Runner *r) {
        if (r->notify_fd < 0)
                return;
        r->notify_fd = safe_close(r->notify_fd);
        (void)unlink(r->notify_path);
}

/* How a process ended, from its siginfo: "exited with status N" or "killed by SIGX". */
static void exit_describe(const siginfo_t *si, char *buf, size_t size) {
        if (si->si_code == CLD_EXITED)
                snprintf(buf, size, "exited with status %d", si->si_status);
        else
                snprintf(buf, size, "killed by signal %d (%s)", si->si_status, strsignal(si->si_status));
}

/* The last non-empty line of the file path (at most its last 4 KiB), without
 * "svd: " in front: false when there is none. */
static bool log_last_line(const char *path, char *buf, size_t size) {
        char tail[4096];
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return false;
        off_t end = lseek(fd, 0, SEEK_END);
        off_t from = end > (off_t)sizeof(tail) - 1 ? end - (off_t)sizeof(tail) + 1 : 0;
        ssize_t n = end > 0 ? pread(fd, tail, sizeof(tail) - 1, from) : 0;
        close(fd);
        if (n <= 0)
                return false;
        while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == ' '))
                n--;
        tail[n] = 0;
        char *line = strrchr(tail, '\n');
        line = line ? line + 1 : tail;
        line = (char *)svd_log_message(line);
        size_t l = strlen(line);
        if (l == 0)
                return false;
        if (l >= size)
                l = size - 1;
        memcpy(buf, line, l);
        buf[l] = 0;
        return true;
}

const char *svd_log_message(const char *line) {
        if (line[0] == '[') {
                const char *end = strstr(line, "] ");
                if (end)
                        line = end + 2;
        }
        return strneq(line, "svd: ", 5) ? line + 5 : line;
}

bool runner_svd_last_line(Runner *r, char *buf, size_t size) {
        return r->svd_log && log_last_line(r->svd_log, buf, size);
}

/* Waits for svd's READY=1 on the notify socket (from svd's pid only), or for its death. */
static int runner_wait_ready(Runner *r) {
        /* svd's own READY=1 is bound by --ready-timeout as the services' readiness is. */
        uint64_t deadline = now_usec(CLOCK_MONOTONIC) + arg_ready_timeout_usec;
        for (;;) {
                uint64_t now = now_usec(CLOCK_MONOTONIC);
                if (now >= deadline) {
                        (void)sys_pidfd_send_signal(r->svd_pidfd, SIGKILL, NULL, 0);
                        return runner_fail(r, "svd did not report READY=1 within %llu s (log: %s)",
                                           (unsigned long long)(arg_ready_timeout_usec / USEC_PER_SEC),
                                           r->svd_log);
                }
                struct pollfd p[2] = {{.fd = r->notify_fd, .events = POLLIN},
                                      {.fd = r->svd_pidfd, .events = POLLIN}};
                int k = poll(p, 2, (int)((deadline - now) / USEC_PER_MSEC) + 1);
                if (k < 0 && errno != EINTR)
                        return runner_fail(r, "poll: %m");
                if (k <= 0)
                        continue;
                if (p[0].revents & POLLIN) {
                        char buf[4096];
                        union {
                                struct cmsghdr h;
                                char b[CMSG_SPACE(sizeof(struct ucred))];
                        } cm;
                        struct iovec iov = {buf, sizeof(buf) - 1};
                        struct msghdr mh = {.msg_iov = &iov,
                                            .msg_iovlen = 1,
                                            .msg_control = &cm,
                                            .msg_controllen = sizeof(cm)};
                        ssize_t n = recvmsg(r->notify_fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
                        if (n < 0)
                                continue;
                        buf[n] = 0;
                        struct cmsghdr *h = CMSG_FIRSTHDR(&mh);
                        if (!h || h->cmsg_type != SCM_CREDENTIALS)
                                continue;
                        struct ucred uc;
                        memcpy(&uc, CMSG_DATA(h), sizeof(uc));
                        if (uc.pid != r->svd_pid)
                                continue;
                        if (strneq(buf, "READY=1", 7) || strstr(buf, "\nREADY=1"))
                                return 0;
                        continue;
                }
                if (p[1].revents & POLLIN) {
                        siginfo_t si = {};
                        char how[64] = "ended";
                        if (waitid(P_PIDFD, (id_t)r->svd_pidfd, &si, WEXITED | WNOHANG) >= 0 &&
                            si.si_pid > 0)
                                exit_describe(&si, how, sizeof(how));
                        r->svd_pid = 0;
                        r->svd_pidfd = safe_close(r->svd_pidfd);
                        /* svd says why in its last line: another svd runs on the socket, a bad unit
                         * directory. */
                        char last[512];
                        if (log_last_line(r->svd_log, last, sizeof(last)))
                                return runner_fail(r, "svd %s at start-up: %s (log: %s)", how, last,
                                                   r->svd_log);
                        return runner_fail(r, "svd %s at start-up (log: %s)", how, r->svd_log);
                }
        }
}

int runner_start_svd(Runner *r) {
        int q;

        assert(r->svd_pid == 0);

        int logfd = open(r->svd_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        if (logfd < 0)
                return runner_fail(r, "Failed to open '%s': %m", r->svd_log);
        q = notify_open(r);
        if (q < 0) {
                close(logfd);
                notify_close(r);
                return q;
        }

        pid_t pid = fork();
        if (pid < 0) {
                close(logfd);
                notify_close(r);
                return runner_fail(r, "Failed to fork: %m");
        }
        if (pid == 0) {
                /* A session of its own: the terminal's Ctrl-C is the runner's to handle. */
                (void)setsid();
                int devnull = open("/dev/null", O_RDONLY);
                if (devnull >= 0)
                        (void)dup2(devnull, 0);
                (void)dup2(logfd, 1);
                (void)dup2(logfd, 2);
                if (r->cg.available) {
                        int k = crash_cgroup_enter(&r->cg);
                        if (k < 0) {
                                dprintf(2, "svd-crashtest: cannot enter %s/supervisor: %s\n", r->cg.path,
                                        strerror(-k));
                                _exit(126);
                        }
                }
                (void)setenv("NOTIFY_SOCKET", r->notify_path, 1);
                (void)setenv("SVD_LOG_TIME", "1", 1);
                runner_child_nofile();
                const char *argv[] = {arg_svd,    "--units", arg_units,
                                      "--socket", r->socket, arg_fallback ? "--mode=fallback" : NULL,
                                      NULL};
                execv(arg_svd, (char **)argv);
                dprintf(2, "svd-crashtest: exec '%s': %m\n", arg_svd);
                _exit(127);
        }
        close(logfd);
        r->svd_pid = pid;
        r->svd_pidfd = sys_pidfd_open(pid, 0);
        if (r->svd_pidfd < 0) {
                notify_close(r);
                return runner_fail(r, "Failed to open a pidfd for svd: %m");
        }
        q = runner_wait_ready(r);
        notify_close(r);
        if (q < 0)
                return q;
        return runner_info(r);
}

void runner_stop_svd(Runner *r) {
        if (r->svd_pid == 0)
                return;
        (void)sys_pidfd_send_signal(r->svd_pidfd, SIGTERM, NULL, 0);
        struct pollfd p = {.fd = r->svd_pidfd, .events = POLLIN};
        if (poll(&p, 1, 60000) <= 0)
                (void)sys_pidfd_send_signal(r->svd_pidfd, SIGKILL, NULL, 0);
        siginfo_t si;
        (void)waitid(P_PIDFD, (id_t)r->svd_pidfd, &si, WEXITED);
        r->svd_pid = 0;
        r->svd_pidfd = safe_close(r->svd_pidfd);
}

void runner_wait_svd_exit(Runner *r) {
        if (r->svd_pid == 0)
                return;
        siginfo_t si;
        (void)waitid(P_PIDFD, (id_t)r->svd_pidfd, &si, WEXITED);
        r->svd_pid = 0;
        r->svd_pidfd = safe_close(r->svd_pidfd);
}

bool state_is_ready(const char *state) {
        return state && (streq(state, "running") || streq(state, "exited"));
}

/* List: each wanted service's state and pid. ret_all: every service in the
 * unit directory with (wanted start, or default and enabled), when asked. */
/* List's reply (*ret), and its array of services (*ret_services, borrowed from it). */
static int list_services(Runner *r, json_t **ret, json_t **ret_services) {
        const char *err = NULL;
        VarlinkClient *c = NULL;
        int q = call(r, "io.svd.Manager.List", NULL, ret, &err, &c);
        if (q < 0)
                return runner_fail(r, "Failed to call List: %s", strerror(-q));
        if (err) {
                q = runner_fail(r, "List failed: %s", err);
                varlink_client_free(c);
                return q;
        }
        varlink_client_free(c);
        *ret_services = json_object_get(json_object_get(*ret, "parameters"), "services");
        return 0;
}

int runner_list(Runner *r, bool collect_wanted) {
        _cleanup_json_ json_t *reply = NULL;
        json_t *v;
        int q = list_services(r, &reply, &v);
        if (q < 0)
                return q;
        size_t i;
        json_t *s;
        json_array_foreach(v, i, s) {
                const char *name = json_string_value(json_object_get(s, "name"));
                const char *wanted = json_string_value(json_object_get(s, "wanted"));
                if (!name)
                        continue;
                if (collect_wanted && wanted &&
                    (streq(wanted, "start") ||
                     (streq(wanted, "default") && json_is_true(json_object_get(s, "enabled"))))) {
                        q = runner_add_service(r, name);
                        if (q < 0)
                                return runner_fail(r, "Too many services: %s", strerror(-q));
                }
                Service *svc = runner_find(r, name);
                if (!svc)
                        continue;
                json_t *pid = json_object_get(s, "pid");
                svc->pid = json_is_integer(pid) ? (pid_t)json_integer_value(pid) : 0;
                /* systemd.service(5): a kill by a signal is "unclean signal", which
                 * on-failure, on-abnormal, on-abort and always restart. */
                const char *restart = json_string_value(json_object_get(s, "restart"));
                svc->restarts_on_kill =
                    restart && (streq(restart, "on-failure") || streq(restart, "on-abnormal") ||
                                streq(restart, "on-abort") || streq(restart, "always"));
                const char *state = json_string_value(json_object_get(s, "state"));
                svc->ready = state_is_ready(state) && (!svc->killed || svc->pid != svc->old_pid);
        }
        return 0;
}

int runner_state_directories(Runner *r, char ***ret, size_t *ret_n) {
        _cleanup_json_ json_t *reply = NULL;
        json_t *v, *s, *d;
        size_t i, j, n = 0;
        char **dirs = NULL;
        int q = list_services(r, &reply, &v);
        if (q < 0)
                return q;
        json_array_foreach(v, i, s) {
                const char *name = json_string_value(json_object_get(s, "name"));
                if (!name || !runner_find(r, name))
                        continue;
                json_array_foreach(json_object_get(s, "stateDirectories"), j, d) {
                        const char *path = json_string_value(d);
                        bool seen = false;
                        for (size_t k = 0; path && k < n; k++)
                                seen = seen || streq(dirs[k], path);
                        if (!path || seen)
                                continue;
                        if (n >= DATA_MAX) {
                                q = runner_fail(
                                    r,
                                    "The services' StateDirectory= name more than %u directories: "
                                    "name those to cut with --data",
                                    DATA_MAX);
                                goto fail;
                        }
                        char **nd = realloc(dirs, (n + 1) * sizeof(char *));
                        if (!nd || !(nd[n] = strdup(path))) {
                                if (nd)
                                        dirs = nd;
                                q = -ENOMEM;
                                goto fail;
                        }
                        dirs = nd;
                        n++;
                }
        }
        *ret = dirs;
        *ret_n = n;
        return 0;
fail:
        for (size_t k = 0; k < n; k++)
                free(dirs[k]);
        free(dirs);
        return q;
}

static struct rlimit nofile_saved;
static bool nofile_raised;

void runner_raise_nofile(void) {
        struct rlimit rl;
        if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
                return;
        nofile_saved = rl;
        nofile_raised = true;
        if (rl.rlim_cur < rl.rlim_max) {
                rl.rlim_cur = rl.rlim_max;
                (void)setrlimit(RLIMIT_NOFILE, &rl);
        }
}

void runner_child_nofile(void) {
        if (nofile_raised)
                (void)setrlimit(RLIMIT_NOFILE, &nofile_saved);
}

void runner_output_follow(Runner *r) {
        runner_output_done(r, 0, /* keep= */ false); /* a round that ended early left its own */
        size_t n = MIN(r->n_services, (size_t)OUTPUT_FOLLOW_MAX);
        /* Every call sent first, then every first reply read: one round trip for all of them. */
        for (size_t i = 0; i < n; i++) {
                VarlinkClient *c = NULL;
                _cleanup_json_ json_t *params =
                    json_pack("{s:s,s:i,s:b}", "name", r->services[i].name, "lines", 0, "follow", true);
                if (!params || varlink_client_connect(r->socket, &c) < 0)
                        continue;
                if (varlink_client_send(c, "io.svd.Manager.Logs", params, /* more= */ true) < 0) {
                        varlink_client_free(c);
                        continue;
                }
                r->output[i] = c;
        }
        for (size_t i = 0; i < n; i++) {
                _cleanup_json_ json_t *first = NULL;
                /* The first reply (the lines asked for: none) says the stream is on. */
                if (r->output[i] && (varlink_client_read(r->output[i], CALL_TIMEOUT_USEC, &first) < 0 ||
                                     json_object_get(first, "error")))
                        r->output[i] = varlink_client_free(r->output[i]);
        }
}

/* "[2026-12-06 10:01:11.123456] stdout: message" for one LogLine. */
static void log_line_write(FILE *f, json_t *line) {
        int64_t usec = json_integer_value(json_object_get(line, "timeUsec"));
        time_t t = (time_t)(usec / 1000000);
        struct tm tm;
        char when[32] = "";
        if (gmtime_r(&t, &tm))
                strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
        fprintf(f, "[%s.%06ld] %s: %s\n", when, (long)(usec % 1000000),
                strna(json_string_value(json_object_get(line, "stream"))),
                strna(json_string_value(json_object_get(line, "message"))));
}

void runner_output_done(Runner *r, unsigned round, bool keep) {
        for (size_t i = 0; i < OUTPUT_FOLLOW_MAX; i++) {
                if (!r->output[i])
                        continue;
                FILE *f = NULL;
                if (keep && i < r->n_services) {
                        char path[PATH_MAX];
                        snprintf(path, sizeof(path), "%s/round-%u.%s.before.log", r->dir, round, r->services[i].name);
                        f = fopen(path, "we");
                }
                /* What is there now, without waiting: svd sent it before it died, or up to now. */
                for (;;) {
                        _cleanup_json_ json_t *m = NULL;
                        if (varlink_client_read(r->output[i], 0, &m) < 0)
                                break;
                        json_t *p = json_object_get(m, "parameters");
                        size_t k;
                        json_t *line;
                        json_array_foreach(json_object_get(p, "lines"), k, line)
                                if (f)
                                        log_line_write(f, line);
                        json_t *dropped = json_object_get(p, "dropped");
                        if (f && json_integer_value(dropped) > 0)
                                fprintf(f, "(%lld lines dropped)\n", (long long)json_integer_value(dropped));
                }
                if (f)
                        fclose(f);
                r->output[i] = varlink_client_free(r->output[i]);
        }
}

void runner_save_logs(Runner *r, unsigned round) {
        for (size_t i = 0; i < r->n_services; i++) {
                const char *name = r->services[i].name;
                _cleanup_json_ json_t *params = json_pack("{s:s}", "name", name);
                _cleanup_json_ json_t *reply = NULL;
                const char *err = NULL;
                VarlinkClient *c = NULL;
                if (!params || call(r, "io.svd.Manager.Logs", params, &reply, &err, &c) < 0)
                        continue;
                char path[PATH_MAX];
                snprintf(path, sizeof(path), "%s/round-%u.%s.log", r->dir, round, name);
                FILE *f = fopen(path, "we");
                if (f) {
                        size_t k;
                        json_t *line;
                        if (err)
                                fprintf(f, "(Logs failed: %s)\n", err);
                        json_array_foreach(json_object_get(json_object_get(reply, "parameters"), "lines"), k, line)
                                log_line_write(f, line);
                        fclose(f);
                }
                varlink_client_free(c);
        }
}

int runner_check_names(Runner *r) {
        _cleanup_json_ json_t *reply = NULL;
        _cleanup_free_ char *errors = NULL;
        json_t *units, *s;
        size_t i;

        int q = list_services(r, &reply, &units);
        if (q < 0)
                return q;

        /* Every unit svd could not load, each with its file, line and reason. */
        json_array_foreach(units, i, s) {
                const char *why = json_string_value(json_object_get(s, "loadError"));
                if (!why)
                        continue;
                char *more;
                if (asprintf(&more, "%s\n  %s", strempty(errors), why) < 0)
                        return -ENOMEM;
                free(errors);
                errors = more;
        }
        if (r->n_services == 0) {
                if (errors)
                        return runner_fail(r, "No service to test: none is wanted in '%s' and --services names none. "
                                              "svd could not load:%s", arg_units, errors);
                return runner_fail(r, "No service to test: none is wanted in '%s' (WantedBy=default.target) and "
                                      "--services names none", arg_units);
        }
        for (size_t k = 0; k < r->n_services; k++) {
                json_t *found = NULL;
                json_array_foreach(units, i, s)
                        if (streq_ptr(json_string_value(json_object_get(s, "name")), r->services[k].name))
                                found = s;
                if (!found)
                        return runner_fail(r, "--services: svd has no unit '%s' in '%s'", r->services[k].name,
                                           arg_units);
                const char *why = json_string_value(json_object_get(found, "loadError"));
                if (why)
                        return runner_fail(r, "--services: svd could not load '%s': %s", r->services[k].name, why);
        }
        for (size_t k = 0; k < arg_n_targets; k++)
                if (!runner_find(r, arg_targets[k]))
                        return runner_fail(r, "--target '%s' is not one of the services under test", arg_targets[k]);
        if (IN_SET(arg_at, AT_STATE, AT_LOG)) {
                bool known = false;
                json_array_foreach(units, i, s)
                        if (streq_ptr(json_string_value(json_object_get(s, "name")), arg_at_name))
                                known = true;
                if (!known)
                        return runner_fail(r, "--at %s:%s=...: svd has no unit '%s' in '%s'",
                                           arg_at == AT_STATE ? "state" : "log", arg_at_name, arg_at_name, arg_units);
        }
        return 0;
}

int runner_start_services(Runner *r) {
        for (size_t i = 0; i < r->n_services; i++) {
                _cleanup_json_ json_t *params = json_pack("{s:s}", "name", r->services[i].name);
                _cleanup_json_ json_t *reply = NULL;
                const char *err = NULL;
                VarlinkClient *c = NULL;
                /* Start answers once the service is ready: as long as --ready-timeout allows, and a
                 * little longer for svd's own answer. */
                int q = call_within(r, "io.svd.Manager.Start", params, arg_ready_timeout_usec + CALL_TIMEOUT_USEC,
                                    &reply, &err, &c);
                if (q == -ETIMEDOUT)
                        return runner_fail(r, "'%s' was not ready within --ready-timeout (%llu s)",
                                           r->services[i].name,
                                           (unsigned long long)(arg_ready_timeout_usec / USEC_PER_SEC));
                if (q < 0)
                        return runner_fail(r, "Failed to start '%s': %s", r->services[i].name, strerror(-q));
                if (err) {
                        char *dump = json_dumps(json_object_get(reply, "parameters"), JSON_COMPACT);
                        runner_fail(r, "Failed to start '%s': %s %s", r->services[i].name, err, strna(dump));
                        free(dump);
                        varlink_client_free(c);
                        return -EIO;
                }
                varlink_client_free(c);
        }
        return 0;
}

static int subscribe_once(Runner *r, VarlinkClient **ret) {
        VarlinkClient *c = NULL;
        int q = varlink_client_connect(r->socket, &c);
        if (q < 0)
                return q;
        q = varlink_client_send(c, "io.svd.Manager.Subscribe", NULL, /* more= */ true);
        if (q >= 0) {
                _cleanup_json_ json_t *first = NULL;
                q = varlink_client_read(c, CALL_TIMEOUT_USEC, &first);
                if (q >= 0 && json_object_get(first, "error"))
                        q = -EPROTO;
        }
        if (q < 0) {
                varlink_client_free(c);
                return q;
        }
        *ret = c;
        return 0;
}

/* A workload may make svd re-execute (daemon-reexec) at any moment: svd then
 * closes every client connection but the requester's, and a connection made
 * meanwhile waits in the listen queue. So a subscription cut that way, or
 * refused, is made again, for up to CALL_TIMEOUT_USEC, as long as svd runs. */
int runner_subscribe(Runner *r, VarlinkClient **ret) {
        uint64_t deadline = now_usec(CLOCK_MONOTONIC) + CALL_TIMEOUT_USEC;
        for (;;) {
                int q = subscribe_once(r, ret);
                if (q >= 0 || !cut_by_reexec(q) || now_usec(CLOCK_MONOTONIC) >= deadline ||
                    !svd_still_there(r))
                        return q;
        }
}
