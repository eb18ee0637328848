/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * svd-crashtest: crash-recovery rounds against a private svd.
 *
 * The runner starts and owns its own svd (own socket and state directory, on
 * the given unit directory) and runs seeded rounds: wait until the wanted
 * services are ready (+ a probe command), start the user's workload outside
 * svd, wait for the moment (a delay, or an event from svd's own event
 * stream, a log line of a service, a marker line of the workload), inject the
 * fault, count what of every killed tree is still alive or left a zombie,
 * restart svd, time the recovery from svd's events, run the user's check.
 *
 * The runner is a child subreaper: svd is its child, and a process that
 * escaped its service (setsid() and a double fork) is re-parented to the
 * runner rather than to the host's init, where it could no longer be told
 * from anyone else's. The workload runs in a session of its own, so that
 * its orphans are not taken for escaped service processes.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "crashtest-cgroup.h"
#include "crashtest-proc.h"
#include "macros.h"
#include "missing-syscall.h"
#include "varlink-client.h"

#define CALL_TIMEOUT_USEC (30 * USEC_PER_SEC)
#define WORKLOAD_STOP_TIMEOUT_USEC (5 * USEC_PER_SEC)
#define PROBE_INTERVAL_MSEC 100
#define SERVICES_MAX 1024U
#define ROUNDS_MAX 1000000U
#define LINE_MAX_BYTES 4096U
#define TEXT_MAX 512U

static void varlink_client_freep(VarlinkClient **c) {
        *c = varlink_client_free(*c);
}

typedef enum Fault {
        FAULT_SVD_KILL,
        FAULT_SVD_STOP,
        FAULT_SVD_TERM,
        FAULT_SVD_OOM,
        FAULT_SERVICE_KILL,
        FAULT_SERVICE_KILL_SOME,
        FAULT_SERVICE_KILL_ALL,
        FAULT_SERVICE_STOP,
        _FAULT_MAX,
        _FAULT_INVALID = -EINVAL,
} Fault;

static const char *const fault_table[_FAULT_MAX] = {
    [FAULT_SVD_KILL] = "svd-kill",
    [FAULT_SVD_STOP] = "svd-stop",
    [FAULT_SVD_TERM] = "svd-term",
    [FAULT_SVD_OOM] = "svd-oom",
    [FAULT_SERVICE_KILL] = "service-kill",
    [FAULT_SERVICE_KILL_SOME] = "service-kill-some",
    [FAULT_SERVICE_KILL_ALL] = "service-kill-all",
    [FAULT_SERVICE_STOP] = "service-stop",
};

static const char *fault_to_string(Fault f) {
        return f >= 0 && f < _FAULT_MAX ? fault_table[f] : NULL;
}

static Fault fault_from_string(const char *s) {
        for (int i = 0; i < _FAULT_MAX; i++)
                if (streq(fault_table[i], s))
                        return (Fault)i;
        return _FAULT_INVALID;
}

static bool fault_is_svd(Fault f) {
        return IN_SET(f, FAULT_SVD_KILL, FAULT_SVD_STOP, FAULT_SVD_TERM, FAULT_SVD_OOM);
}

/* svd is gone after the fault and the runner starts it again. */
static bool fault_ends_svd(Fault f) {
        return IN_SET(f, FAULT_SVD_KILL, FAULT_SVD_TERM, FAULT_SVD_OOM);
}

static bool fault_kills(Fault f) {
        return !IN_SET(f, FAULT_SVD_STOP, FAULT_SERVICE_STOP);
}

/* How the stop faults stop: the cgroup freezer where svd's or the service's
 * cgroup allows it, else SIGSTOP (auto); or only the one asked for. */
typedef enum StopBy {
        STOP_BY_AUTO,
        STOP_BY_FREEZE,
        STOP_BY_SIGNAL,
} StopBy;

typedef enum AtKind {
        _AT_INVALID = -1,
        AT_RANDOM,
        AT_DELAY,
        AT_STATE,
        AT_LOG,
        AT_MARKER,
} AtKind;

/* Command-line flags (the only globals, as in svctl). */
static const char *arg_units;
static const char *arg_svd;
static const char *arg_dir;
static bool arg_fallback;
static char **arg_services;
static size_t arg_n_services;
static const char *arg_probe;
static const char *arg_workload;
static const char *arg_check;
static bool arg_fault_set[_FAULT_MAX];
static char **arg_targets;
static size_t arg_n_targets;
static AtKind arg_at = AT_RANDOM;
static uint64_t arg_at_min_usec = 0, arg_at_max_usec = USEC_PER_SEC;
static char *arg_at_name;
static char *arg_at_value;
static regex_t arg_at_regex;
static uint64_t arg_seed;
static bool arg_seed_set;
static unsigned arg_rounds;
static uint64_t arg_duration_usec;
static bool arg_stop_on_failure;
static bool arg_json;
static bool arg_keep;
static const char *arg_chart;
static uint64_t arg_stop_usec = USEC_PER_SEC;
static StopBy arg_stop_by = STOP_BY_AUTO;
static uint64_t arg_ready_timeout_usec = 60 * USEC_PER_SEC;
static uint64_t arg_death_timeout_usec = 5 * USEC_PER_SEC;
static uint64_t arg_recover_timeout_usec = 60 * USEC_PER_SEC;
static uint64_t arg_trigger_timeout_usec = 60 * USEC_PER_SEC;

static uint64_t mono_usec(void) {
        struct timespec ts;
        (void)clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * USEC_PER_SEC + (uint64_t)ts.tv_nsec / NSEC_PER_USEC;
}

static uint64_t real_usec(void) {
        struct timespec ts;
        (void)clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t)ts.tv_sec * USEC_PER_SEC + (uint64_t)ts.tv_nsec / NSEC_PER_USEC;
}

_printf_(1, 2) static int fail(const char *fmt, ...) {
        va_list ap;
        fputs("svd-crashtest: ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        return -EINVAL;
}

/* splitmix64: each round's schedule comes from its own generator, seeded
 * from the run's seed and the round number, so that --seed replays every
 * round alike however the others went. */
typedef struct Rng {
        uint64_t s;
} Rng;

static uint64_t rng_next(Rng *g) {
        uint64_t z = (g->s += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
}

static uint64_t rng_below(Rng *g, uint64_t n) {
        return n == 0 ? 0 : rng_next(g) % n;
}

/* ---- the private svd ---- */

typedef struct Service {
        char *name;
        pid_t pid;
        bool ready;
        bool killed;           /* by this round's fault: must come back under a new pid */
        bool restarts_on_kill; /* its Restart= brings it back after a SIGKILL */
        pid_t old_pid;
        unsigned starts; /* times it entered a ready state while recovering */
        bool expected;   /* must be ready again after this round's fault */
} Service;

typedef struct Runner {
        char *dir;
        bool dir_owned;
        char *socket;
        char *notify_path;
        char *svd_log;
        int notify_fd;
        pid_t self;
        pid_t svd_pid;
        int svd_pidfd;
        char mode[32];
        bool cgroup;
        CrashCgroup cg;       /* svd's own cgroup, for the freezer and the OOM fault */
        char error[TEXT_MAX]; /* why the runner itself could not go on */
        pid_t workload_pid;
        pid_t workload_pgid; /* its session and process group (setsid()) */
        int workload_pidfd;
        int workload_out;
        int workload_log;
        char workload_line[LINE_MAX_BYTES];
        size_t workload_line_len;
        bool marker_seen;
        Service *services;
        size_t n_services;
} Runner;

typedef struct Round {
        unsigned number;
        Fault fault;
        char targets[TEXT_MAX];
        char moment[TEXT_MAX];
        char mode[32];
        char via[48];       /* how the fault was dealt: sigkill, sigterm, sigstop, freeze, oom-killer(+N) */
        uint64_t oom_usage; /* svd-oom: svd's memory.current when its limit was lowered */
        uint64_t oom_kills; /* svd-oom: what memory.events oom_kill counted */
        bool fired;
        size_t tracked;
        size_t survivors;
        size_t zombies;
        char survivor_names[TEXT_MAX];
        int64_t last_death_usec; /* -1: not measured */
        int64_t recover_usec;    /* -1: did not recover */
        char missing[TEXT_MAX];
        int check_rc; /* -1: no check */
        char check_log[PATH_MAX];
        uint64_t fault_realtime_usec;
        bool failed;
        char reason[TEXT_MAX];
} Round;

/* The runner's own failure, not a round's finding: printed, and kept in
 * r->error for the round that met it to give as its reason. */
_printf_(2, 3) static int runner_fail(Runner *r, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->error, sizeof(r->error), fmt, ap);
        va_end(ap);
        fprintf(stderr, "svd-crashtest: %s\n", r->error);
        return -EINVAL;
}

static void text_append(char *buf, size_t size, const char *s) {
        size_t l = strlen(buf);
        if (l + 2 >= size)
                return;
        snprintf(buf + l, size - l, "%s%s", l > 0 ? "," : "", s);
}

_printf_(2, 3) static void round_fail(Round *rd, const char *fmt, ...) {
        va_list ap;
        char s[TEXT_MAX];
        va_start(ap, fmt);
        vsnprintf(s, sizeof(s), fmt, ap);
        va_end(ap);
        rd->failed = true;
        if (isempty(rd->reason))
                snprintf(rd->reason, sizeof(rd->reason), "%s", s);
        else {
                size_t l = strlen(rd->reason);
                snprintf(rd->reason + l, sizeof(rd->reason) - l, "; %s", s);
        }
}

static Service *runner_find(Runner *r, const char *name) {
        for (size_t i = 0; i < r->n_services; i++)
                if (streq(r->services[i].name, name))
                        return &r->services[i];
        return NULL;
}

static int runner_add_service(Runner *r, const char *name) {
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

/* Reaps the runner's own children: svd, the workload (their status is not
 * needed beyond their end) and orphans re-parented to the runner. */
static void runner_reap(void *userdata) {
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
                        r->workload_pid = 0;
                        r->workload_pidfd = safe_close(r->workload_pidfd);
                }
        }
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

/* One call on a connection of its own. The runner's calls (Info, List,
 * Start) may be made twice, so one cut by a re-exec (a workload may run
 * daemon-reexec at any moment) is made again, for up to CALL_TIMEOUT_USEC. */
static int call(Runner *r, const char *method, json_t *params, json_t **ret_reply, const char **ret_error,
                VarlinkClient **ret_client) {
        uint64_t deadline = mono_usec() + CALL_TIMEOUT_USEC;
        for (;;) {
                VarlinkClient *c = NULL;
                int q = varlink_client_connect(r->socket, &c);
                if (q >= 0) {
                        q = varlink_client_call(c, method, params, CALL_TIMEOUT_USEC, ret_reply, ret_error);
                        if (q >= 0) {
                                *ret_client = c; /* the error string is borrowed from the reply */
                                return 0;
                        }
                        varlink_client_free(c);
                }
                if (!cut_by_reexec(q) || mono_usec() >= deadline || !svd_still_there(r))
                        return q;
        }
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
        if (strneq(line, "svd: ", 5))
                line += 5;
        size_t l = strlen(line);
        if (l == 0)
                return false;
        if (l >= size)
                l = size - 1;
        memcpy(buf, line, l);
        buf[l] = 0;
        return true;
}
/* Waits for svd's READY=1 on the notify socket (from svd's pid only), or for its death. */
static int runner_wait_ready(Runner *r) {
        /* svd's own READY=1 is bound by --ready-timeout as the services' readiness is. */
        uint64_t deadline = mono_usec() + arg_ready_timeout_usec;
        for (;;) {
                uint64_t now = mono_usec();
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
                        /* svd says why in its last line: another svd runs on the socket, a bad unit directory. */
                        char last[512];
                        if (log_last_line(r->svd_log, last, sizeof(last)))
                                return runner_fail(r, "svd %s at start-up: %s (log: %s)", how, last, r->svd_log);
                        return runner_fail(r, "svd %s at start-up (log: %s)", how, r->svd_log);
                }
        }
}

/* Starts svd (in its own cgroup when the runner made one) and waits for its READY=1. */
static int runner_start_svd(Runner *r) {
        int q;

        assert(r->svd_pid == 0);

        int logfd = open(r->svd_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
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

/* SIGTERM, then SIGKILL if svd has not stopped within 60 s. */
static void runner_stop_svd(Runner *r) {
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

static bool state_is_ready(const char *state) {
        return state && (streq(state, "running") || streq(state, "exited"));
}

/* List: each wanted service's state and pid. ret_all: every service in the
 * unit directory with (wanted start, or default and enabled), when asked. */
static int runner_list(Runner *r, bool collect_wanted) {
        _cleanup_json_ json_t *reply = NULL;
        const char *err = NULL;
        VarlinkClient *c = NULL;
        int q = call(r, "io.svd.Manager.List", NULL, &reply, &err, &c);
        if (q < 0)
                return runner_fail(r, "Failed to call List: %s", strerror(-q));
        varlink_client_free(c);
        if (err)
                return runner_fail(r, "List failed: %s", err);
        json_t *v = json_object_get(json_object_get(reply, "parameters"), "services");
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

/* Start each wanted service (a no-op for one that runs): the reply comes when it is ready. */
static int runner_start_services(Runner *r) {
        for (size_t i = 0; i < r->n_services; i++) {
                _cleanup_json_ json_t *params = json_pack("{s:s}", "name", r->services[i].name);
                _cleanup_json_ json_t *reply = NULL;
                const char *err = NULL;
                VarlinkClient *c = NULL;
                int q = call(r, "io.svd.Manager.Start", params, &reply, &err, &c);
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
static int subscribe(Runner *r, VarlinkClient **ret) {
        uint64_t deadline = mono_usec() + CALL_TIMEOUT_USEC;
        for (;;) {
                int q = subscribe_once(r, ret);
                if (q >= 0 || !cut_by_reexec(q) || mono_usec() >= deadline || !svd_still_there(r))
                        return q;
        }
}

/* ---- the workload ---- */

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

/* Reads what the workload printed: into its log, and line by line against
 * the marker expression. */
static void workload_drain(Runner *r) {
        if (r->workload_out < 0)
                return;
        for (;;) {
                char buf[4096];
                ssize_t n = read(r->workload_out, buf, sizeof(buf));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        if (n == 0 || errno != EAGAIN)
                                r->workload_out = safe_close(r->workload_out);
                        return;
                }
                if (r->workload_log >= 0)
                        (void)!write(r->workload_log, buf, (size_t)n);
                for (ssize_t i = 0; i < n; i++) {
                        if (buf[i] != '\n') {
                                if (r->workload_line_len < sizeof(r->workload_line) - 1)
                                        r->workload_line[r->workload_line_len++] = buf[i];
                                continue;
                        }
                        r->workload_line[r->workload_line_len] = 0;
                        r->workload_line_len = 0;
                        if (arg_at == AT_MARKER && regexec(&arg_at_regex, r->workload_line, 0, NULL, 0) == 0)
                                r->marker_seen = true;
                }
        }
}

static int workload_start(Runner *r, const Round *rd) {
        if (!arg_workload)
                return 0;
        int p[2];
        if (pipe2(p, O_CLOEXEC) < 0)
                return runner_fail(r, "pipe2: %m");
        pid_t pid = fork();
        if (pid < 0) {
                close(p[0]);
                close(p[1]);
                return runner_fail(r, "fork: %m");
        }
        if (pid == 0) {
                (void)setsid();
                (void)prctl(PR_SET_PDEATHSIG, SIGTERM);
                (void)dup2(p[1], 1);
                (void)dup2(p[1], 2);
                environment_set(rd);
                char b[32];
                snprintf(b, sizeof(b), "%d", (int)r->svd_pid);
                (void)setenv("SVD_CRASHTEST_SVD_PID", b, 1);
                execl("/bin/sh", "sh", "-c", arg_workload, (char *)NULL);
                _exit(127);
        }
        close(p[1]);
        (void)fcntl(p[0], F_SETFL, O_NONBLOCK);
        r->workload_out = p[0];
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

/* SIGTERM to the workload's group; SIGKILL to what is left of it once the
 * leader has gone or after 5 s; its output is read meanwhile. */
static void workload_stop(Runner *r) {
        if (r->workload_pid != 0) {
                workload_signal(r, SIGTERM);
                uint64_t deadline = mono_usec() + WORKLOAD_STOP_TIMEOUT_USEC;
                while (r->workload_pid != 0) {
                        struct pollfd p[2] = {{.fd = r->workload_pidfd, .events = POLLIN},
                                              {.fd = r->workload_out, .events = POLLIN}};
                        uint64_t now = mono_usec();
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
        runner_reap(r); /* its other members were re-parented to the runner */
}

/* ---- commands: probe and check ---- */

static int command_run(const char *cmd, const Round *rd, const char *log_path) {
        pid_t pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0) {
                int fd = log_path ? open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644)
                                  : open("/dev/null", O_WRONLY);
                if (fd >= 0) {
                        (void)dup2(fd, 1);
                        (void)dup2(fd, 2);
                }
                environment_set(rd);
                execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
                _exit(127);
        }
        int status;
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return -errno;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The probe has no event to wait on: it is run again every 100 ms until it
 * succeeds or the ready timeout passes. */
static int probe_until_ok(const Round *rd) {
        if (!arg_probe)
                return 0;
        uint64_t deadline = mono_usec() + arg_ready_timeout_usec;
        for (;;) {
                if (command_run(arg_probe, rd, NULL) == 0)
                        return 0;
                if (mono_usec() >= deadline)
                        return -ETIMEDOUT;
                (void)poll(NULL, 0, PROBE_INTERVAL_MSEC);
        }
}

/* ---- one round ---- */

typedef struct Schedule {
        Fault fault;
        uint64_t delay_usec;
        Rng rng;
} Schedule;

static Schedule schedule_for(unsigned round) {
        Schedule s = {.rng = {arg_seed ^ (0xd1b54a32d192ed03ULL * (uint64_t)round)}};
        (void)rng_next(&s.rng);
        Fault choice[_FAULT_MAX];
        size_t n = 0;
        for (int f = 0; f < _FAULT_MAX; f++)
                if (arg_fault_set[f])
                        choice[n++] = (Fault)f;
        s.fault = choice[rng_below(&s.rng, n)];
        if (arg_at == AT_RANDOM)
                s.delay_usec = arg_at_min_usec + rng_below(&s.rng, arg_at_max_usec - arg_at_min_usec + 1);
        else if (arg_at == AT_DELAY)
                s.delay_usec = arg_at_min_usec;
        return s;
}

/* Picks the services a service fault hits: --target names, else the wanted ones. */
static void schedule_targets(Schedule *s, Runner *r) {
        char **pool = arg_targets;
        size_t n = arg_n_targets;
        _cleanup_free_ char **names = NULL;
        if (n == 0) {
                names = calloc(r->n_services ? r->n_services : 1, sizeof(char *));
                if (!names)
                        return;
                for (size_t i = 0; i < r->n_services; i++)
                        names[i] = r->services[i].name;
                pool = names;
                n = r->n_services;
        }
        for (size_t i = 0; i < r->n_services; i++)
                r->services[i].killed = false;
        if (n == 0)
                return;
        if (s->fault == FAULT_SERVICE_KILL || s->fault == FAULT_SERVICE_STOP) {
                Service *svc = runner_find(r, pool[rng_below(&s->rng, n)]);
                if (svc)
                        svc->killed = true;
        } else if (s->fault == FAULT_SERVICE_KILL_ALL) {
                for (size_t i = 0; i < n; i++) {
                        Service *svc = runner_find(r, pool[i]);
                        if (svc)
                                svc->killed = true;
                }
        } else if (s->fault == FAULT_SERVICE_KILL_SOME) {
                /* A non-empty random subset. */
                bool any = false;
                for (size_t i = 0; i < n; i++) {
                        Service *svc = runner_find(r, pool[i]);
                        if (svc && rng_below(&s->rng, 2)) {
                                svc->killed = true;
                                any = true;
                        }
                }
                if (!any) {
                        Service *svc = runner_find(r, pool[rng_below(&s->rng, n)]);
                        if (svc)
                                svc->killed = true;
                }
        }
}

/* The event source of an event moment, in place before the workload starts
 * (and before the round's clock runs), so that no event is missed: the
 * subscription's or the log follower's first reply has come back. */
static int moment_arm(Runner *r, VarlinkClient **ret) {
        _cleanup_(varlink_client_freep) VarlinkClient *ev = NULL;
        int q;

        if (arg_at == AT_STATE) {
                q = subscribe(r, &ev);
                if (q < 0)
                        return runner_fail(r, "Failed to subscribe: %s", strerror(-q));
        } else if (arg_at == AT_LOG) {
                q = varlink_client_connect(r->socket, &ev);
                if (q < 0)
                        return runner_fail(r, "Failed to connect: %s", strerror(-q));
                _cleanup_json_ json_t *params =
                    json_pack("{s:s,s:i,s:b}", "name", arg_at_name, "lines", 0, "follow", true);
                q = varlink_client_send(ev, "io.svd.Manager.Logs", params, /* more= */ true);
                _cleanup_json_ json_t *first = NULL;
                if (q >= 0)
                        q = varlink_client_read(ev, CALL_TIMEOUT_USEC, &first);
                if (q < 0)
                        return runner_fail(r, "Failed to follow the log of '%s': %s", arg_at_name,
                                           strerror(-q));
                if (json_object_get(first, "error"))
                        return runner_fail(r, "Failed to follow the log of '%s': %s", arg_at_name,
                                           json_string_value(json_object_get(first, "error")));
        }
        *ret = TAKE_PTR(ev);
        return 0;
}

/* Waits for the round's moment. Returns 1 when it came, 0 on timeout. */
static int wait_moment(Runner *r, const Schedule *s, VarlinkClient *ev) {
        int q;

        uint64_t start = mono_usec();
        uint64_t deadline =
            IN_SET(arg_at, AT_RANDOM, AT_DELAY) ? start + s->delay_usec : start + arg_trigger_timeout_usec;
        for (;;) {
                /* Whatever is already buffered first: poll() does not see it. */
                while (ev) {
                        _cleanup_json_ json_t *m = NULL;
                        q = varlink_client_read(ev, 0, &m);
                        if (q == -ETIMEDOUT)
                                break;
                        if (q < 0)
                                return runner_fail(r, "The event stream ended: %s", strerror(-q));
                        if (json_object_get(m, "error"))
                                return runner_fail(r, "The event stream failed: %s",
                                                   json_string_value(json_object_get(m, "error")));
                        json_t *p = json_object_get(m, "parameters");
                        if (arg_at == AT_STATE) {
                                json_t *e = json_object_get(p, "event");
                                const char *name = json_string_value(json_object_get(e, "name"));
                                const char *state = json_string_value(json_object_get(e, "state"));
                                if (name && state && streq(name, arg_at_name) && streq(state, arg_at_value))
                                        return 1;
                        } else {
                                size_t i;
                                json_t *line;
                                json_array_foreach(json_object_get(p, "lines"), i, line) {
                                        const char *msg =
                                            json_string_value(json_object_get(line, "message"));
                                        if (msg && regexec(&arg_at_regex, msg, 0, NULL, 0) == 0)
                                                return 1;
                                }
                        }
                }
                workload_drain(r);
                if (arg_at == AT_MARKER && r->marker_seen)
                        return 1;

                uint64_t now = mono_usec();
                if (now >= deadline)
                        return IN_SET(arg_at, AT_RANDOM, AT_DELAY) ? 1 : 0;
                struct pollfd p[2];
                nfds_t np = 0;
                if (ev)
                        p[np++] = (struct pollfd){.fd = ev->fd, .events = POLLIN};
                if (r->workload_out >= 0)
                        p[np++] = (struct pollfd){.fd = r->workload_out, .events = POLLIN};
                uint64_t ms = (deadline - now + USEC_PER_MSEC - 1) / USEC_PER_MSEC;
                (void)poll(p, np, ms > INT_MAX ? INT_MAX : (int)ms);
        }
}

static void round_snapshot_roots(Runner *r, const Round *rd, ProcRoot **ret, size_t *ret_n) {
        ProcRoot *roots = calloc(r->n_services + 1, sizeof(*roots));
        size_t n = 0;
        if (!roots) {
                *ret = NULL;
                *ret_n = 0;
                return;
        }
        if (fault_is_svd(rd->fault) && r->svd_pid > 0)
                roots[n++] = (ProcRoot){.pid = r->svd_pid, .owner = "svd"};
        for (size_t i = 0; i < r->n_services; i++) {
                Service *svc = &r->services[i];
                if (svc->pid > 0 && (fault_is_svd(rd->fault) || svc->killed))
                        roots[n++] = (ProcRoot){.pid = svc->pid, .owner = svc->name};
        }
        *ret = roots;
        *ret_n = n;
}

/* Waits until every wanted service is ready again: svd's events, after a
 * List that gives the state at the moment of subscribing. Sets ready time. */
static int wait_recovered(Runner *r, VarlinkClient **evp, uint64_t deadline, uint64_t *ret_ready) {
        VarlinkClient *ev = *evp;
        int q = runner_list(r, /* collect_wanted= */ false);
        if (q < 0)
                return q;
        uint64_t last = mono_usec();
        for (;;) {
                bool all = true;
                for (size_t i = 0; i < r->n_services; i++)
                        all = all && (r->services[i].ready || !r->services[i].expected);
                if (all) {
                        *ret_ready = last;
                        return 0;
                }
                uint64_t now = mono_usec();
                if (now >= deadline)
                        return -ETIMEDOUT;
                workload_drain(r);
                _cleanup_json_ json_t *m = NULL;
                uint64_t wait = deadline - now;
                if (r->workload_out >= 0 && wait > 100 * USEC_PER_MSEC)
                        wait = 100 * USEC_PER_MSEC; /* keep reading the workload's output */
                q = varlink_client_read(ev, wait, &m);
                if (q == -ETIMEDOUT)
                        continue;
                if (q == -ECONNRESET) {
                        /* Cut by a re-exec of the workload's: subscribe again
                         * and take the state from a fresh List. */
                        *evp = ev = varlink_client_free(ev);
                        q = subscribe(r, evp);
                        if (q < 0)
                                return q;
                        ev = *evp;
                        q = runner_list(r, /* collect_wanted= */ false);
                        if (q < 0)
                                return q;
                        continue;
                }
                if (q < 0)
                        return q;
                json_t *e = json_object_get(json_object_get(m, "parameters"), "event");
                const char *name = json_string_value(json_object_get(e, "name"));
                const char *state = json_string_value(json_object_get(e, "state"));
                Service *svc = name ? runner_find(r, name) : NULL;
                if (!svc)
                        continue;
                json_t *pid = json_object_get(e, "pid");
                pid_t p = json_is_integer(pid) ? (pid_t)json_integer_value(pid) : 0;
                bool ready = state_is_ready(state) && (!svc->killed || p != svc->old_pid);
                if (ready && !svc->ready) {
                        svc->starts++;
                        last = mono_usec();
                }
                svc->ready = ready;
                svc->pid = p;
        }
}

static void round_print(const Round *rd, FILE *f) {
        char death[32], rec[32], check[32];
        if (rd->last_death_usec >= 0)
                snprintf(death, sizeof(death), "%.1fms", (double)rd->last_death_usec / 1000.0);
        else
                snprintf(death, sizeof(death), "-");
        if (rd->recover_usec >= 0)
                snprintf(rec, sizeof(rec), "%.1fms", (double)rd->recover_usec / 1000.0);
        else
                snprintf(rec, sizeof(rec), "-");
        if (rd->check_rc < 0)
                snprintf(check, sizeof(check), "-");
        else if (rd->check_rc == 0)
                snprintf(check, sizeof(check), "ok");
        else
                snprintf(check, sizeof(check), "FAIL(%d)", rd->check_rc);
        fprintf(f,
                "round %u %s fault=%s targets=%s at=%s mode=%s via=%s tracked=%zu survivors=%zu zombies=%zu "
                "last-death=%s recover=%s check=%s",
                rd->number, rd->failed ? "FAIL" : "ok", fault_to_string(rd->fault),
                isempty(rd->targets) ? "-" : rd->targets, rd->moment, rd->mode,
                isempty(rd->via) ? "-" : rd->via, rd->tracked, rd->survivors, rd->zombies, death, rec,
                check);
        if (rd->failed)
                fprintf(f, " reason=\"%s\"", rd->reason);
        fputc('\n', f);
        fflush(f);
}

static json_t *round_json(const Round *rd) {
        json_t *o = json_pack("{s:i,s:b,s:s,s:s,s:s,s:s,s:b,s:i,s:i,s:i,s:s,s:s}", "round", (int)rd->number,
                              "ok", !rd->failed, "fault", fault_to_string(rd->fault), "targets", rd->targets,
                              "at", rd->moment, "mode", rd->mode, "fired", rd->fired, "tracked",
                              (int)rd->tracked, "survivors", (int)rd->survivors, "zombies", (int)rd->zombies,
                              "survivorNames", rd->survivor_names, "missing", rd->missing);
        if (!o)
                return NULL;
        (void)json_object_set_new(o, "faultUsec", json_integer((json_int_t)rd->fault_realtime_usec));
        (void)json_object_set_new(o, "via", json_string(rd->via));
        if (rd->fault == FAULT_SVD_OOM) {
                (void)json_object_set_new(o, "oomKills", json_integer((json_int_t)rd->oom_kills));
                (void)json_object_set_new(o, "oomMemoryCurrent", json_integer((json_int_t)rd->oom_usage));
        }
        (void)json_object_set_new(
            o, "lastDeathUsec", rd->last_death_usec >= 0 ? json_integer(rd->last_death_usec) : json_null());
        (void)json_object_set_new(o, "recoverUsec",
                                  rd->recover_usec >= 0 ? json_integer(rd->recover_usec) : json_null());
        (void)json_object_set_new(o, "check", rd->check_rc >= 0 ? json_integer(rd->check_rc) : json_null());
        if (rd->check_rc > 0)
                (void)json_object_set_new(o, "checkLog", json_string(rd->check_log));
        if (rd->failed)
                (void)json_object_set_new(o, "reason", json_string(rd->reason));
        return o;
}

/* svd-stop, service-stop: the freezer on svd's cgroup or on the service's
 * (its whole tree), else SIGSTOP to svd or the service's main process; held
 * for --stop-time from the moment the freezer reports the cgroup frozen (or
 * from the signal), then thawed (SIGCONT). */
static void fault_stop(Runner *r, Round *rd, Fault f) {
        _cleanup_close_ int fd = -EBADF, cg = -EBADF;
        char why[256] = "";
        Service *target = NULL;

        if (f == FAULT_SERVICE_STOP)
                for (size_t i = 0; i < r->n_services && !target; i++)
                        if (r->services[i].killed && r->services[i].pid > 0)
                                target = &r->services[i];
        if (f == FAULT_SVD_STOP ? r->svd_pid <= 0 : !target) {
                round_fail(rd, "no process to stop");
                return;
        }
        if (arg_stop_by != STOP_BY_SIGNAL) {
                if (f == FAULT_SVD_STOP) {
                        if (r->cg.available)
                                cg = fcntl(r->cg.svd_fd, F_DUPFD_CLOEXEC, 3);
                        else
                                snprintf(why, sizeof(why), "svd has no cgroup of its own");
                } else
                        (void)cgroup_open_freezable(target->pid, r->self, r->svd_pid, &cg, why, sizeof(why));
                if (cg < 0 && arg_stop_by == STOP_BY_FREEZE) {
                        round_fail(rd, "cannot freeze: %s", why);
                        return;
                }
        }

        uint64_t deadline = mono_usec() + arg_death_timeout_usec;
        if (cg >= 0) {
                snprintf(rd->via, sizeof(rd->via), "freeze");
                int k = cgroup_freeze(cg, /* freeze= */ true, deadline);
                if (k < 0)
                        round_fail(rd, "the cgroup did not freeze within %llu ms: %s",
                                   (unsigned long long)(arg_death_timeout_usec / USEC_PER_MSEC),
                                   strerror(-k));
        } else {
                snprintf(rd->via, sizeof(rd->via), "sigstop");
                fd = f == FAULT_SVD_STOP ? fcntl(r->svd_pidfd, F_DUPFD_CLOEXEC, 3)
                                         : sys_pidfd_open(target->pid, 0);
                if (fd < 0) {
                        round_fail(rd, "no process to stop: %m");
                        return;
                }
                (void)sys_pidfd_send_signal(fd, SIGSTOP, NULL, 0);
        }

        uint64_t until = mono_usec() + arg_stop_usec;
        for (uint64_t now; (now = mono_usec()) < until;) {
                struct pollfd p = {.fd = r->workload_out, .events = POLLIN};
                (void)poll(&p, r->workload_out >= 0 ? 1 : 0, (int)((until - now) / 1000) + 1);
                workload_drain(r);
        }

        if (cg >= 0) {
                int k = cgroup_freeze(cg, /* freeze= */ false, mono_usec() + arg_death_timeout_usec);
                if (k < 0)
                        round_fail(rd, "the cgroup did not thaw within %llu ms: %s",
                                   (unsigned long long)(arg_death_timeout_usec / USEC_PER_MSEC),
                                   strerror(-k));
        } else
                (void)sys_pidfd_send_signal(fd, SIGCONT, NULL, 0);
        for (size_t i = 0; i < r->n_services; i++)
                r->services[i].killed = false; /* stopped, not killed: same pid afterwards */
}

/* svd-oom: memory.max of svd's cgroup lowered to 0, under anything reclaim
 * can give back (svd's cgroup may not swap), so the write ends in the
 * kernel's OOM killer, which kills svd (memory.oom.group: everything in
 * svd's leaf). Its memory.events oom_kill counter before, for the proof. */
static void fault_oom(Runner *r, Round *rd, uint64_t *ret_before) {
        uint64_t cur = 0;
        int k;

        assert(r->cg.memory);
        k = cgroup_oom_kills(r->cg.svd_fd, ret_before);
        if (k < 0) {
                round_fail(rd, "cannot read %s/supervisor/memory.events: %s", r->cg.path, strerror(-k));
                return;
        }
        (void)cgroup_memory_current(r->cg.svd_fd, &cur);
        snprintf(rd->via, sizeof(rd->via), "oom-killer");
        rd->oom_usage = cur;
        k = cgroup_memory_max(r->cg.svd_fd, "0");
        if (k < 0)
                round_fail(rd, "cannot lower %s/supervisor/memory.max: %s", r->cg.path, strerror(-k));
}

/* After svd-oom's aftermath: the OOM killer's own count says that it was
 * the one that killed svd; then svd's limit is lifted for the restart. */
static void fault_oom_verify(Runner *r, Round *rd, uint64_t before) {
        uint64_t after = before;
        int k = cgroup_oom_kills(r->cg.svd_fd, &after);
        if (k < 0)
                round_fail(rd, "cannot read %s/supervisor/memory.events: %s", r->cg.path, strerror(-k));
        else if (after <= before)
                round_fail(rd,
                           "svd was not killed by the OOM killer (memory.events oom_kill stayed at %llu)",
                           (unsigned long long)after);
        rd->oom_kills = after > before ? after - before : 0;
        snprintf(rd->via, sizeof(rd->via), "oom-killer(+%llu)", (unsigned long long)rd->oom_kills);
        k = cgroup_memory_max(r->cg.svd_fd, "max");
        if (k < 0)
                round_fail(rd, "cannot lift %s/supervisor/memory.max: %s", r->cg.path, strerror(-k));
}

static int round_run(Runner *r, unsigned number, Round *rd) {
        int q;
        *rd = (Round){.number = number, .last_death_usec = -1, .recover_usec = -1, .check_rc = -1};
        Schedule s = schedule_for(number);
        rd->fault = s.fault;

        if (r->svd_pid == 0) {
                q = runner_start_svd(r);
                if (q < 0)
                        return q;
        }
        snprintf(rd->mode, sizeof(rd->mode), "%s", r->mode);

        /* Ready: every wanted service started (a no-op for those that run), then the probe. */
        q = runner_start_services(r);
        if (q < 0) {
                round_fail(rd, "wanted services did not start: %s", r->error);
                return 0;
        }
        q = runner_list(r, /* collect_wanted= */ false);
        if (q < 0)
                return q;
        if (probe_until_ok(rd) < 0) {
                round_fail(rd, "the probe did not succeed within the ready timeout");
                return 0;
        }

        schedule_targets(&s, r);
        if (fault_is_svd(s.fault))
                snprintf(rd->targets, sizeof(rd->targets), "svd");
        for (size_t i = 0; i < r->n_services; i++) {
                Service *svc = &r->services[i];
                svc->old_pid = svc->pid;
                svc->starts = 0;
                if (svc->killed)
                        text_append(rd->targets, sizeof(rd->targets), svc->name);
                if (fault_ends_svd(s.fault))
                        svc->killed = true; /* every service dies with svd */
                /* A service whose Restart= does not restart it after a kill is
                 * expected to stay down while svd runs; the next round starts it. */
                svc->expected = fault_is_svd(s.fault) || !svc->killed || svc->restarts_on_kill;
        }
        switch (arg_at) {
        case AT_RANDOM:
        case AT_DELAY:
                snprintf(rd->moment, sizeof(rd->moment), "%s:%llums",
                         arg_at == AT_RANDOM ? "random" : "delay",
                         (unsigned long long)(s.delay_usec / USEC_PER_MSEC));
                break;
        case AT_STATE:
                snprintf(rd->moment, sizeof(rd->moment), "state:%s=%s", arg_at_name, arg_at_value);
                break;
        case AT_LOG:
                snprintf(rd->moment, sizeof(rd->moment), "log:%s", arg_at_name);
                break;
        case AT_MARKER:
                snprintf(rd->moment, sizeof(rd->moment), "marker");
                break;
        default:
                assert(false);
        }

        _cleanup_(varlink_client_freep) VarlinkClient *moment_ev = NULL;
        q = moment_arm(r, &moment_ev);
        if (q < 0)
                return q;

        q = workload_start(r, rd);
        if (q < 0)
                return q;

        q = wait_moment(r, &s, moment_ev);
        if (q < 0)
                return q;
        rd->fired = q > 0;
        moment_ev = varlink_client_free(moment_ev);
        if (!rd->fired) {
                round_fail(rd, "the moment never came within %llu s",
                           (unsigned long long)(arg_trigger_timeout_usec / USEC_PER_SEC));
                workload_stop(r);
                return 0;
        }

        /* For a fault that svd survives, subscribe first: no event of the recovery is missed. */
        _cleanup_(varlink_client_freep) VarlinkClient *ev = NULL;
        if (!fault_ends_svd(s.fault)) {
                q = subscribe(r, &ev);
                if (q < 0)
                        return runner_fail(r, "Failed to subscribe: %s", strerror(-q));
        }

        /* The trees the fault kills, each process held by a pidfd before it. */
        _cleanup_(proc_tracker_done) ProcTracker t = {};
        if (fault_kills(s.fault)) {
                _cleanup_free_ ProcRoot *roots = NULL;
                size_t n_roots;
                round_snapshot_roots(r, rd, &roots, &n_roots);
                q = proc_tracker_collect(&t, roots, n_roots, r->self, r->workload_pgid,
                                         /* include_escaped= */ fault_is_svd(s.fault));
                if (q < 0)
                        return runner_fail(r, "Failed to read the process trees: %s", strerror(-q));
                rd->tracked = t.n;
        }

        /* The fault. */
        uint64_t oom_before = 0;
        uint64_t t_fault = mono_usec();
        rd->fault_realtime_usec = real_usec();
        switch (s.fault) {
        case FAULT_SVD_KILL:
                (void)sys_pidfd_send_signal(r->svd_pidfd, SIGKILL, NULL, 0);
                snprintf(rd->via, sizeof(rd->via), "sigkill");
                break;
        case FAULT_SVD_TERM:
                (void)sys_pidfd_send_signal(r->svd_pidfd, SIGTERM, NULL, 0);
                snprintf(rd->via, sizeof(rd->via), "sigterm");
                break;
        case FAULT_SVD_OOM:
                fault_oom(r, rd, &oom_before);
                break;
        case FAULT_SVD_STOP:
        case FAULT_SERVICE_STOP:
                fault_stop(r, rd, s.fault);
                break;
        case FAULT_SERVICE_KILL:
        case FAULT_SERVICE_KILL_SOME:
        case FAULT_SERVICE_KILL_ALL:
                for (size_t i = 0; i < r->n_services; i++) {
                        Service *svc = &r->services[i];
                        if (!svc->killed || svc->pid <= 0)
                                continue;
                        _cleanup_close_ int fd = sys_pidfd_open(svc->pid, 0);
                        if (fd >= 0)
                                (void)sys_pidfd_send_signal(fd, SIGKILL, NULL, 0);
                }
                snprintf(rd->via, sizeof(rd->via), "sigkill");
                break;
        default:
                assert(false);
        }

        /* The aftermath: every tracked process dead, none a zombie. */
        if (fault_kills(s.fault)) {
                uint64_t timeout = arg_death_timeout_usec;
                if (s.fault == FAULT_SVD_TERM && timeout < 90 * USEC_PER_SEC)
                        timeout = 90 * USEC_PER_SEC; /* a clean stop waits for TimeoutStopSec= */
                rd->survivors = proc_tracker_wait_dead(&t, t_fault + timeout, runner_reap, r);
                if (fault_ends_svd(s.fault)) {
                        /* What svd created between the snapshot and the fault
                         * (a service's process still before its exec, with
                         * svd's listening socket in its fd table): svd's
                         * orphans, now re-parented to the runner. Held and
                         * waited for like the rest, so that the next svd
                         * never starts beside a piece of the last one. */
                        size_t before = t.n;
                        q = proc_tracker_collect(&t, NULL, 0, r->self, r->workload_pgid,
                                                 /* include_escaped= */ true);
                        if (q < 0)
                                return runner_fail(r, "Failed to read svd's orphans: %s", strerror(-q));
                        if (t.n > before) {
                                rd->tracked = t.n;
                                rd->survivors =
                                    proc_tracker_wait_dead(&t, t_fault + timeout, runner_reap, r);
                        }
                }
                uint64_t last = proc_tracker_last_death(&t);
                rd->last_death_usec = last > t_fault ? (int64_t)(last - t_fault) : 0;
                /* A zombie has no event to wait on: its parent reaps it when it
                 * will. One read of each per pass, passes until the deadline. */
                uint64_t zdeadline = mono_usec() + arg_death_timeout_usec;
                for (;;) {
                        runner_reap(r);
                        rd->zombies = proc_tracker_count_zombies(&t);
                        if (rd->zombies == 0 || mono_usec() >= zdeadline)
                                break;
                        (void)poll(NULL, 0, 10);
                }
                for (size_t i = 0; i < t.n; i++) {
                        char s2[128];
                        if (!t.procs[i].dead || t.procs[i].zombie) {
                                snprintf(s2, sizeof(s2), "%s:%d(%s)%s", t.procs[i].owner,
                                         (int)t.procs[i].pid, t.procs[i].comm,
                                         t.procs[i].zombie ? "zombie" : "");
                                text_append(rd->survivor_names, sizeof(rd->survivor_names), s2);
                        }
                }
                if (rd->survivors > 0)
                        round_fail(rd, "%zu survivor(s): %s", rd->survivors, rd->survivor_names);
                if (rd->zombies > 0)
                        round_fail(rd, "%zu zombie(s) left", rd->zombies);
                /* Reported; now out of the way of the next round. */
                proc_tracker_kill_survivors(&t);
                (void)proc_tracker_wait_dead(&t, mono_usec() + arg_death_timeout_usec, runner_reap, r);
        }

        if (s.fault == FAULT_SVD_OOM)
                fault_oom_verify(r, rd, oom_before);

        /* Restart svd if the fault took it, and wait until every wanted service is back. */
        if (fault_ends_svd(s.fault)) {
                if (r->svd_pid != 0) {
                        siginfo_t si;
                        (void)waitid(P_PIDFD, (id_t)r->svd_pidfd, &si, WEXITED);
                        r->svd_pid = 0;
                        r->svd_pidfd = safe_close(r->svd_pidfd);
                }
                q = runner_start_svd(r);
                if (q < 0)
                        return q;
                snprintf(rd->mode, sizeof(rd->mode), "%s", r->mode);
                q = subscribe(r, &ev);
                if (q < 0)
                        return runner_fail(r, "Failed to subscribe: %s", strerror(-q));
        }
        uint64_t ready_at;
        q = wait_recovered(r, &ev, t_fault + arg_recover_timeout_usec, &ready_at);
        if (q == -ETIMEDOUT) {
                for (size_t i = 0; i < r->n_services; i++)
                        if (!r->services[i].ready && r->services[i].expected)
                                text_append(rd->missing, sizeof(rd->missing), r->services[i].name);
                round_fail(rd, "not back within %llu s: %s",
                           (unsigned long long)(arg_recover_timeout_usec / USEC_PER_SEC), rd->missing);
        } else if (q < 0)
                round_fail(rd, "lost svd while recovering: %s", strerror(-q));
        else {
                /* A service fault whose targets all stay down (their Restart=
                 * does not restart them) has nothing to recover. */
                bool any =
                    !IN_SET(s.fault, FAULT_SERVICE_KILL, FAULT_SERVICE_KILL_SOME, FAULT_SERVICE_KILL_ALL);
                for (size_t i = 0; i < r->n_services && !any; i++)
                        any = r->services[i].killed && r->services[i].expected;
                if (any)
                        rd->recover_usec = ready_at > t_fault ? (int64_t)(ready_at - t_fault) : 0;
        }
        ev = varlink_client_free(ev);

        workload_stop(r);

        if (arg_check) {
                snprintf(rd->check_log, sizeof(rd->check_log), "%s/round-%u.check.log", r->dir, number);
                rd->check_rc = command_run(arg_check, rd, rd->check_log);
                if (rd->check_rc != 0)
                        round_fail(rd, "the check failed with %d (output: %s)", rd->check_rc, rd->check_log);
                else
                        (void)unlink(rd->check_log);
        }
        return 0;
}

/* ---- options ---- */

static int parse_msec(const char *s, uint64_t *ret) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        if (errno || end == s)
                return -EINVAL;
        uint64_t mul = USEC_PER_MSEC;
        if (streq(end, "s"))
                mul = USEC_PER_SEC;
        else if (streq(end, "us"))
                mul = 1;
        else if (!streq(end, "") && !streq(end, "ms"))
                return -EINVAL;
        if (v > UINT64_MAX / mul / 2)
                return -ERANGE;
        *ret = (uint64_t)v * mul;
        return 0;
}

static int split_list(const char *s, char ***ret, size_t *ret_n) {
        char *copy = strdup(s), *save = NULL;
        if (!copy)
                return -ENOMEM;
        for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                char **n = realloc(*ret, (*ret_n + 1) * sizeof(char *));
                if (!n)
                        return -ENOMEM;
                *ret = n;
                (*ret)[(*ret_n)++] = strdup(tok);
        }
        free(copy);
        return 0;
}

static int parse_at(const char *s) {
        const char *colon = strchr(s, ':');
        if (!colon)
                return fail("--at '%s': expected KIND:VALUE", s);
        size_t kl = (size_t)(colon - s);
        const char *v = colon + 1;
        if (kl == 6 && strneq(s, "random", 6)) {
                const char *dash = strchr(v, '-');
                if (!dash)
                        return fail("--at random:MIN-MAX, in ms");
                _cleanup_free_ char *a = strndup(v, (size_t)(dash - v));
                if (!a || parse_msec(a, &arg_at_min_usec) < 0 ||
                    parse_msec(dash + 1, &arg_at_max_usec) < 0 || arg_at_max_usec < arg_at_min_usec)
                        return fail("--at random:MIN-MAX, in ms: '%s'", v);
                arg_at = AT_RANDOM;
                return 0;
        }
        if (kl == 5 && strneq(s, "delay", 5)) {
                if (parse_msec(v, &arg_at_min_usec) < 0)
                        return fail("--at delay:MS: '%s'", v);
                arg_at = AT_DELAY;
                return 0;
        }
        if (kl == 6 && strneq(s, "marker", 6)) {
                arg_at = AT_MARKER;
                arg_at_value = strdup(v);
        } else {
                const char *eq = strchr(v, '=');
                if (!eq)
                        return fail("--at '%s': expected state:NAME=STATE or log:NAME=REGEX", s);
                arg_at_name = strndup(v, (size_t)(eq - v));
                arg_at_value = strdup(eq + 1);
                if (kl == 5 && strneq(s, "state", 5))
                        arg_at = AT_STATE;
                else if (kl == 3 && strneq(s, "log", 3))
                        arg_at = AT_LOG;
                else
                        return fail("Unknown --at kind in '%s'", s);
        }
        if (!arg_at_value)
                return -ENOMEM;
        if (IN_SET(arg_at, AT_LOG, AT_MARKER) &&
            regcomp(&arg_at_regex, arg_at_value, REG_EXTENDED | REG_NOSUB))
                return fail("Invalid regular expression '%s'", arg_at_value);
        return 0;
}

static void help(void) {
        printf("svd-crashtest --units DIR [OPTIONS]\n\n"
               "Crash-recovery rounds against a private svd on DIR.\n\n"
               "  -u --units DIR           Unit directory\n"
               "     --svd PATH            The svd binary (default: $SVD, else next to this program)\n"
               "     --dir DIR             Socket, svd's state and logs (default: a new temporary one)\n"
               "     --mode=fallback       Run svd in fallback mode\n"
               "     --services A,B        Services to start and expect back (default: the wanted ones)\n"
               "     --probe CMD           Must succeed before the fault (sh -c)\n"
               "     --workload CMD        Runs outside svd from ready to after the recovery\n"
               "     --check CMD           Run after recovery: exit 0 means consistent\n"
               "     --fault F[,F...]      svd-kill (default), svd-stop, svd-term, svd-oom,\n"
               "                           service-kill, service-kill-some, service-kill-all,\n"
               "                           service-stop; each round picks one of the list\n"
               "     --target A,B          Services a service fault picks from (default: all wanted)\n"
               "     --at WHEN             random:MIN-MAX (ms, default random:0-1000), delay:MS,\n"
               "                           state:NAME=STATE, log:NAME=REGEX, marker:REGEX\n"
               "     --stop-time MS        How long svd-stop/service-stop keep it stopped (1000)\n"
               "     --stop-by HOW         auto (default: the cgroup freezer where it can, else\n"
               "                           SIGSTOP), freeze, signal\n"
               "     --seed N              Replay the schedule of a run\n"
               "     --rounds N            Rounds (default 10 unless --duration)\n"
               "     --duration SEC        Start no round after this\n"
               "     --stop-on-failure     End at the first failed round\n"
               "     --ready-timeout SEC   --death-timeout MS   --recover-timeout SEC\n"
               "     --trigger-timeout SEC\n"
               "     --json                The rounds and the summary as JSON on stdout\n"
               "     --keep                Keep the directory (kept anyway when a round failed)\n"
               "     --chart FILE.png      Time to recover and to last death per round (gnuplot)\n");
}

static int parse_argv(int argc, char *argv[]) {
        enum {
                ARG_SVD = 0x100,
                ARG_DIR,
                ARG_MODE,
                ARG_SERVICES,
                ARG_PROBE,
                ARG_WORKLOAD,
                ARG_CHECK,
                ARG_FAULT,
                ARG_TARGET,
                ARG_AT,
                ARG_STOP_TIME,
                ARG_STOP_BY,
                ARG_SEED,
                ARG_ROUNDS,
                ARG_DURATION,
                ARG_STOP_ON_FAILURE,
                ARG_READY_TIMEOUT,
                ARG_DEATH_TIMEOUT,
                ARG_RECOVER_TIMEOUT,
                ARG_TRIGGER_TIMEOUT,
                ARG_JSON,
                ARG_KEEP,
                ARG_CHART,
        };
        static const struct option options[] = {
            {"help", no_argument, NULL, 'h'},
            {"units", required_argument, NULL, 'u'},
            {"svd", required_argument, NULL, ARG_SVD},
            {"dir", required_argument, NULL, ARG_DIR},
            {"mode", required_argument, NULL, ARG_MODE},
            {"services", required_argument, NULL, ARG_SERVICES},
            {"probe", required_argument, NULL, ARG_PROBE},
            {"workload", required_argument, NULL, ARG_WORKLOAD},
            {"check", required_argument, NULL, ARG_CHECK},
            {"fault", required_argument, NULL, ARG_FAULT},
            {"target", required_argument, NULL, ARG_TARGET},
            {"at", required_argument, NULL, ARG_AT},
            {"stop-time", required_argument, NULL, ARG_STOP_TIME},
            {"stop-by", required_argument, NULL, ARG_STOP_BY},
            {"seed", required_argument, NULL, ARG_SEED},
            {"rounds", required_argument, NULL, ARG_ROUNDS},
            {"duration", required_argument, NULL, ARG_DURATION},
            {"stop-on-failure", no_argument, NULL, ARG_STOP_ON_FAILURE},
            {"ready-timeout", required_argument, NULL, ARG_READY_TIMEOUT},
            {"death-timeout", required_argument, NULL, ARG_DEATH_TIMEOUT},
            {"recover-timeout", required_argument, NULL, ARG_RECOVER_TIMEOUT},
            {"trigger-timeout", required_argument, NULL, ARG_TRIGGER_TIMEOUT},
            {"json", no_argument, NULL, ARG_JSON},
            {"keep", no_argument, NULL, ARG_KEEP},
            {"chart", required_argument, NULL, ARG_CHART},
            {},
        };
        int c, q;
        bool any_fault = false;
        while ((c = getopt_long(argc, argv, "hu:", options, NULL)) >= 0) {
                uint64_t u;
                char *end;
                switch (c) {
                case 'h':
                        help();
                        exit(EXIT_SUCCESS);
                case 'u':
                        arg_units = optarg;
                        break;
                case ARG_SVD:
                        arg_svd = optarg;
                        break;
                case ARG_DIR:
                        arg_dir = optarg;
                        break;
                case ARG_MODE:
                        if (!streq(optarg, "fallback") && !streq(optarg, "auto"))
                                return fail("Unknown --mode '%s' (expected 'auto' or 'fallback')", optarg);
                        arg_fallback = streq(optarg, "fallback");
                        break;
                case ARG_SERVICES:
                        if (split_list(optarg, &arg_services, &arg_n_services) < 0)
                                return -ENOMEM;
                        break;
                case ARG_PROBE:
                        arg_probe = optarg;
                        break;
                case ARG_WORKLOAD:
                        arg_workload = optarg;
                        break;
                case ARG_CHECK:
                        arg_check = optarg;
                        break;
                case ARG_FAULT: {
                        _cleanup_free_ char *copy = strdup(optarg);
                        char *save = NULL;
                        if (!copy)
                                return -ENOMEM;
                        for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                                Fault f = fault_from_string(tok);
                                if (f < 0)
                                        return fail("Unknown --fault '%s'", tok);
                                arg_fault_set[f] = any_fault = true;
                        }
                        break;
                }
                case ARG_TARGET:
                        if (split_list(optarg, &arg_targets, &arg_n_targets) < 0)
                                return -ENOMEM;
                        break;
                case ARG_AT:
                        q = parse_at(optarg);
                        if (q < 0)
                                return q;
                        break;
                case ARG_STOP_TIME:
                        if (parse_msec(optarg, &arg_stop_usec) < 0)
                                return fail("Invalid --stop-time '%s'", optarg);
                        break;
                case ARG_STOP_BY:
                        if (streq(optarg, "auto"))
                                arg_stop_by = STOP_BY_AUTO;
                        else if (streq(optarg, "freeze"))
                                arg_stop_by = STOP_BY_FREEZE;
                        else if (streq(optarg, "signal"))
                                arg_stop_by = STOP_BY_SIGNAL;
                        else
                                return fail("Unknown --stop-by '%s' (expected auto, freeze or signal)",
                                            optarg);
                        break;
                case ARG_SEED:
                        errno = 0;
                        arg_seed = strtoull(optarg, &end, 10);
                        if (errno || *end || end == optarg)
                                return fail("Invalid --seed '%s'", optarg);
                        arg_seed_set = true;
                        break;
                case ARG_ROUNDS:
                        errno = 0;
                        u = strtoull(optarg, &end, 10);
                        if (errno || *end || u == 0 || u > ROUNDS_MAX)
                                return fail("Invalid --rounds '%s' (1..%u)", optarg, ROUNDS_MAX);
                        arg_rounds = (unsigned)u;
                        break;
                case ARG_DURATION:
                case ARG_READY_TIMEOUT:
                case ARG_RECOVER_TIMEOUT:
                case ARG_TRIGGER_TIMEOUT:
                        errno = 0;
                        u = strtoull(optarg, &end, 10);
                        if (errno || *end || end == optarg || u == 0 || u > 365ULL * 24 * 3600)
                                return fail("Invalid '%s' (seconds)", optarg);
                        u *= USEC_PER_SEC;
                        if (c == ARG_DURATION)
                                arg_duration_usec = u;
                        else if (c == ARG_READY_TIMEOUT)
                                arg_ready_timeout_usec = u;
                        else if (c == ARG_RECOVER_TIMEOUT)
                                arg_recover_timeout_usec = u;
                        else
                                arg_trigger_timeout_usec = u;
                        break;
                case ARG_DEATH_TIMEOUT:
                        if (parse_msec(optarg, &arg_death_timeout_usec) < 0 || arg_death_timeout_usec == 0)
                                return fail("Invalid --death-timeout '%s'", optarg);
                        break;
                case ARG_STOP_ON_FAILURE:
                        arg_stop_on_failure = true;
                        break;
                case ARG_JSON:
                        arg_json = true;
                        break;
                case ARG_KEEP:
                        arg_keep = true;
                        break;
                case ARG_CHART:
                        arg_chart = optarg;
                        break;
                default:
                        return -EINVAL;
                }
        }
        if (optind < argc)
                return fail("Unexpected argument '%s'", argv[optind]);
        if (!arg_units)
                return fail("--units DIR is required");
        if (!any_fault)
                arg_fault_set[FAULT_SVD_KILL] = true;
        if (arg_at == AT_MARKER && !arg_workload)
                return fail("--at marker: needs --workload");
        if (arg_rounds == 0 && arg_duration_usec == 0)
                arg_rounds = 10;
        return 0;
}

/* svd next to this program: build/ctl/svd-crashtest → build/daemon/svd,
 * /usr/bin/svd-crashtest → /usr/sbin/svd. */
static char *find_svd(void) {
        const char *env = getenv("SVD");
        if (env)
                return strdup(env);
        char self[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
        if (n > 0) {
                self[n] = 0;
                char *slash = strrchr(self, '/');
                if (slash) {
                        *slash = 0;
                        const char *rel[] = {"/../daemon/svd", "/svd", "/../sbin/svd"};
                        for (size_t i = 0; i < ELEMENTSOF(rel); i++) {
                                char *p;
                                if (asprintf(&p, "%s%s", self, rel[i]) < 0)
                                        return NULL;
                                if (access(p, X_OK) == 0)
                                        return p;
                                free(p);
                        }
                }
        }
        return strdup("/usr/sbin/svd");
}

static double percentile(int64_t *v, size_t n, double p) {
        if (n == 0)
                return 0;
        /* nearest rank */
        size_t k = (size_t)(p * (double)n + 0.999999);
        if (k < 1)
                k = 1;
        if (k > n)
                k = n;
        return (double)v[k - 1];
}

static int cmp_i64(const void *a, const void *b) {
        int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
        return x < y ? -1 : x > y;
}

static void strv_list_free(char **v, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(v[i]);
        free(v);
}

static void runner_done(Runner *r) {
        for (size_t i = 0; i < r->n_services; i++)
                free(r->services[i].name);
        free(r->services);
        free(r->dir);
        free(r->socket);
        free(r->notify_path);
        free(r->svd_log);
        r->notify_fd = safe_close(r->notify_fd);
        r->workload_log = safe_close(r->workload_log);
        strv_list_free(arg_services, arg_n_services);
        strv_list_free(arg_targets, arg_n_targets);
        free(arg_at_name);
        free(arg_at_value);
        if (IN_SET(arg_at, AT_LOG, AT_MARKER))
                regfree(&arg_at_regex);
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *f) {
        (void)remove(path);
        return 0;
}

/* The chart: one point per round, from DIR/rounds.dat, drawn by gnuplot
 * (a script on its stdin). Returns gnuplot's exit status, or -errno. */
static int chart_write(const Runner *r, json_t *rounds) {
        char dat[PATH_MAX];
        snprintf(dat, sizeof(dat), "%s/rounds.dat", r->dir);
        FILE *f = fopen(dat, "we");
        if (!f)
                return -errno;
        fprintf(f, "# round recover_ms last_death_ms\n");
        size_t i;
        json_t *o;
        json_array_foreach(rounds, i, o) {
                json_t *rec = json_object_get(o, "recoverUsec"),
                       *death = json_object_get(o, "lastDeathUsec");
                fprintf(f, "%d ", (int)json_integer_value(json_object_get(o, "round")));
                if (json_is_integer(rec))
                        fprintf(f, "%.3f ", (double)json_integer_value(rec) / 1000.0);
                else
                        fprintf(f, "NaN ");
                if (json_is_integer(death))
                        fprintf(f, "%.3f\n", (double)json_integer_value(death) / 1000.0);
                else
                        fprintf(f, "NaN\n");
        }
        if (fclose(f) != 0)
                return -errno;

        int p[2];
        if (pipe2(p, O_CLOEXEC) < 0)
                return -errno;
        pid_t pid = fork();
        if (pid < 0) {
                close(p[0]);
                close(p[1]);
                return -errno;
        }
        if (pid == 0) {
                (void)dup2(p[0], 0);
                execlp("gnuplot", "gnuplot", (char *)NULL);
                dprintf(2, "svd-crashtest: exec gnuplot: %m\n");
                _exit(127);
        }
        close(p[0]);
        FILE *g = fdopen(p[1], "w");
        if (!g) {
                close(p[1]);
        } else {
                fprintf(g,
                        "set terminal pngcairo size 1000,420\n"
                        "set output '%s'\n"
                        "set title 'svd-crashtest: seed %llu, mode %s'\n"
                        "set xlabel 'round'\nset ylabel 'ms'\nset grid\nset key top left\n"
                        "plot '%s' using 1:2 with linespoints title 'time to recover', "
                        "'%s' using 1:3 with linespoints title 'time to last death'\n",
                        arg_chart, (unsigned long long)arg_seed, r->mode, dat, dat);
                fclose(g);
        }
        int status;
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return -errno;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static volatile sig_atomic_t interrupted;

static void on_signal(int sig) {
        interrupted = 1;
}

int main(int argc, char *argv[]) {
        Runner r = {.notify_fd = -EBADF,
                    .cg = CRASH_CGROUP_NULL,
                    .svd_pidfd = -EBADF,
                    .workload_pidfd = -EBADF,
                    .workload_out = -EBADF,
                    .workload_log = -EBADF};
        int q;

        if (parse_argv(argc, argv) < 0)
                return 2;
        _cleanup_free_ char *svd = arg_svd ? strdup(arg_svd) : find_svd();
        if (!svd)
                return 2;
        arg_svd = svd;
        if (!arg_seed_set && getrandom(&arg_seed, sizeof(arg_seed), 0) != sizeof(arg_seed))
                arg_seed = real_usec();
        arg_seed &= (1ULL << 53) - 1; /* a JSON number without loss */

        /* Orphans of svd's services come to us, not to the host's init. */
        if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
                return fail("PR_SET_CHILD_SUBREAPER: %m"), 2;
        r.self = getpid();

        struct sigaction sa = {.sa_handler = on_signal};
        (void)sigaction(SIGINT, &sa, NULL);
        (void)sigaction(SIGTERM, &sa, NULL);
        (void)signal(SIGPIPE, SIG_IGN);

        /* svd in a cgroup of its own: the OOM fault needs it, with the
         * memory controller; the stop faults freeze it where it can be had. */
        bool want_memory = arg_fault_set[FAULT_SVD_OOM];
        if (want_memory || (arg_fault_set[FAULT_SVD_STOP] && arg_stop_by != STOP_BY_SIGNAL)) {
                char why[256] = "";
                q = crash_cgroup_setup(&r.cg, want_memory, why, sizeof(why));
                if (q < 0) {
                        crash_cgroup_done(&r.cg);
                        if (want_memory)
                                q = fail(
                                    "svd-oom needs a cgroup of svd's own with the memory controller: %s",
                                    why);
                        else if (arg_stop_by == STOP_BY_FREEZE)
                                q = fail("--stop-by freeze needs a cgroup of svd's own: %s", why);
                        else {
                                fprintf(stderr, "svd-crashtest: svd-stop stops svd with SIGSTOP: %s\n", why);
                                q = 0;
                        }
                        if (q < 0) {
                                runner_done(&r);
                                return 2;
                        }
                } else
                        fprintf(stderr, "svd-crashtest: svd runs in the cgroup %s/supervisor\n", r.cg.path);
        }

        if (arg_dir) {
                if (mkdir(arg_dir, 0700) < 0 && errno != EEXIST)
                        return fail("mkdir '%s': %m", arg_dir), 2;
                r.dir = realpath(arg_dir, NULL);
        } else {
                char tmpl[PATH_MAX];
                snprintf(tmpl, sizeof(tmpl), "%s/svd-crashtest.XXXXXX", getenv("TMPDIR") ?: "/tmp");
                if (mkdtemp(tmpl))
                        r.dir = strdup(tmpl);
                r.dir_owned = true;
        }
        if (!r.dir)
                return fail("Failed to create the directory: %m"), 2;
        if (asprintf(&r.socket, "%s/svd.sock", r.dir) < 0 ||
            asprintf(&r.notify_path, "%s/notify", r.dir) < 0 ||
            asprintf(&r.svd_log, "%s/svd.log", r.dir) < 0)
                return 2;

        char wl[PATH_MAX];
        snprintf(wl, sizeof(wl), "%s/workload.log", r.dir);
        if (arg_workload)
                r.workload_log = open(wl, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

        /* Workload and check talk to this svd: svctl and the others find it here. */
        (void)setenv("SVD_SOCKET", r.socket, 1);
        (void)setenv("SVD_CRASHTEST_DIR", r.dir, 1);

        fprintf(stderr, "svd-crashtest: seed %llu (replay with --seed %llu), directory %s\n",
                (unsigned long long)arg_seed, (unsigned long long)arg_seed, r.dir);

        /* First start: the wanted services, or those asked for. */
        q = runner_start_svd(&r);
        if (q < 0)
                goto finish_setup;
        for (size_t i = 0; i < arg_n_services && q >= 0; i++)
                q = runner_add_service(&r, arg_services[i]);
        if (q >= 0 && arg_n_services == 0)
                q = runner_list(&r, /* collect_wanted= */ true);
        if (q >= 0 && r.n_services == 0)
                q = fail("No service to test: none is wanted in '%s' and --services names none", arg_units);
        if (q >= 0)
                q = runner_start_services(&r);
finish_setup:
        if (q < 0) {
                runner_stop_svd(&r);
                crash_cgroup_done(&r.cg);
                runner_done(&r);
                return 2;
        }

        json_t *jrounds = json_array();
        _cleanup_free_ int64_t *deaths = NULL, *recovers = NULL;
        size_t n_deaths = 0, n_recovers = 0, allocated = 0;
        unsigned failures = 0, done = 0;
        uint64_t begin = mono_usec();
        bool tty = isatty(STDERR_FILENO);
        FILE *lines = arg_json ? stderr : stdout;

        for (unsigned i = 1; !interrupted; i++) {
                if (arg_rounds > 0 && i > arg_rounds)
                        break;
                if (arg_duration_usec > 0 && mono_usec() - begin >= arg_duration_usec)
                        break;
                Round rd;
                r.error[0] = 0;
                q = round_run(&r, i, &rd);
                if (q < 0) {
                        /* The runner itself could not go on: that fails the run. */
                        round_fail(&rd, "runner error: %s", isempty(r.error) ? strerror(-q) : r.error);
                }
                done++;
                if (rd.failed)
                        failures++;
                if (done > allocated) {
                        allocated = allocated ? allocated * 2 : 64;
                        int64_t *a = realloc(deaths, allocated * sizeof(*a));
                        if (a)
                                deaths = a;
                        int64_t *b = realloc(recovers, allocated * sizeof(*b));
                        if (b)
                                recovers = b;
                        if (!a || !b)
                                break;
                }
                if (rd.last_death_usec >= 0)
                        deaths[n_deaths++] = rd.last_death_usec;
                if (rd.recover_usec >= 0)
                        recovers[n_recovers++] = rd.recover_usec;
                if (tty)
                        fputs("\r\033[K", stderr);
                round_print(&rd, lines);
                (void)json_array_append_new(jrounds, round_json(&rd));
                if (tty) {
                        fprintf(stderr, "[round %u", i);
                        if (arg_rounds)
                                fprintf(stderr, " of %u", arg_rounds);
                        fprintf(stderr, "] failures %u, last recovery %.1f ms", failures,
                                rd.recover_usec >= 0 ? (double)rd.recover_usec / 1000.0 : -1.0);
                        fflush(stderr);
                }
                if (q < 0 || (rd.failed && arg_stop_on_failure))
                        break;
        }
        if (tty)
                fputs("\r\033[K", stderr);

        qsort(deaths, n_deaths, sizeof(int64_t), cmp_i64);
        qsort(recovers, n_recovers, sizeof(int64_t), cmp_i64);
        double d50 = percentile(deaths, n_deaths, 0.5) / 1000.0,
               d95 = percentile(deaths, n_deaths, 0.95) / 1000.0;
        double r50 = percentile(recovers, n_recovers, 0.5) / 1000.0,
               r95 = percentile(recovers, n_recovers, 0.95) / 1000.0;
        double minutes = (double)(mono_usec() - begin) / 60e6;
        char sd50[32] = "-", sd95[32] = "-", sr50[32] = "-", sr95[32] = "-";
        if (n_deaths > 0) {
                snprintf(sd50, sizeof(sd50), "%.1f ms", d50);
                snprintf(sd95, sizeof(sd95), "%.1f ms", d95);
        }
        if (n_recovers > 0) {
                snprintf(sr50, sizeof(sr50), "%.1f ms", r50);
                snprintf(sr95, sizeof(sr95), "%.1f ms", r95);
        }
        fprintf(lines,
                "summary: %u rounds, %u failed, seed %llu, mode %s; last death median %s p95 %s; "
                "recover median %s p95 %s; %.1f rounds/min\n",
                done, failures, (unsigned long long)arg_seed, r.mode, sd50, sd95, sr50, sr95,
                minutes > 0 ? done / minutes : 0.0);
        if (arg_chart) {
                int c = chart_write(&r, jrounds);
                if (c != 0)
                        fprintf(stderr, "svd-crashtest: Failed to draw '%s' (gnuplot: %d), ignoring\n",
                                arg_chart, c);
                else
                        fprintf(stderr, "svd-crashtest: chart in %s\n", arg_chart);
        }
        if (arg_json) {
                json_t *o = json_pack(
                    "{s:I,s:o,s:{s:i,s:i,s:s,s:f,s:f,s:f,s:f,s:f}}", "seed", (json_int_t)arg_seed, "rounds",
                    jrounds, "summary", "rounds", (int)done, "failed", (int)failures, "mode", r.mode,
                    "lastDeathMedianMs", d50, "lastDeathP95Ms", d95, "recoverMedianMs", r50, "recoverP95Ms",
                    r95, "roundsPerMinute", minutes > 0 ? done / minutes : 0.0);
                char *s = o ? json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(6)) : NULL;
                if (s)
                        printf("%s\n", s);
                free(s);
                json_decref(o);
        } else
                json_decref(jrounds);

        workload_stop(&r);
        runner_stop_svd(&r);
        runner_reap(&r);
        crash_cgroup_done(&r.cg);
        if (r.dir_owned && !arg_keep && failures == 0) {
                /* Our own fresh directory: svd's socket, state, logs. */
                (void)nftw(r.dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        } else
                fprintf(stderr, "svd-crashtest: kept %s\n", r.dir);
        runner_done(&r);
        return failures > 0 || interrupted ? 1 : 0;
}
