/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One round: its schedule, its moment, its fault, the aftermath and the recovery. */
#include "crashtest-round.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crashtest-cgroup.h"
#include "crashtest-options.h"
#include "crashtest-powerloss.h"
#include "crashtest-proc.h"
#include "crashtest-workload.h"
#include "missing-syscall.h"
#include "varlink-wire.h"

/* ---- the schedule ---- */

/* splitmix64, the generator of a round's schedule. */
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

/* ---- the moment ---- */

/* svd's own log, followed from its end: what --at svd-log: waits on. The
 * runner writes it (svd's stderr), so an inotify watch on the file wakes
 * the runner for each write. */
typedef struct LogFollower {
        int fd;
        int inotify_fd;
        char buf[4096];
        size_t n;
} LogFollower;

static void log_follower_done(LogFollower *f) {
        f->fd = safe_close(f->fd);
        f->inotify_fd = safe_close(f->inotify_fd);
}

static int log_follower_open(Runner *r, LogFollower *f) {
        *f = (LogFollower){.fd = -EBADF, .inotify_fd = -EBADF};
        f->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (f->inotify_fd < 0 || inotify_add_watch(f->inotify_fd, r->svd_log, IN_MODIFY) < 0)
                return runner_fail(r, "Failed to watch '%s': %m", r->svd_log);
        f->fd = open(r->svd_log, O_RDONLY | O_CLOEXEC);
        if (f->fd < 0 || lseek(f->fd, 0, SEEK_END) < 0)
                return runner_fail(r, "Failed to open '%s': %m", r->svd_log);
        return 0;
}

/* Reads what svd logged since the last call: true when a whole line matched
 * the regular expression (copied to match). A line longer than the buffer is
 * matched in pieces. */
static bool log_follower_matched(LogFollower *f, char *match, size_t size) {
        char ev[4096];
        while (read(f->inotify_fd, ev, sizeof(ev)) > 0)
                ;
        for (;;) {
                ssize_t k = read(f->fd, f->buf + f->n, sizeof(f->buf) - 1 - f->n);
                if (k <= 0)
                        return false;
                f->n += (size_t)k;
                f->buf[f->n] = 0;
                char *line = f->buf, *nl;
                while ((nl = strchr(line, '\n'))) {
                        *nl = 0;
                        const char *msg = svd_log_message(line);
                        if (regexec(&arg_at_regex, msg, 0, NULL, 0) == 0) {
                                snprintf(match, size, "%.*s", (int)size - 1, msg);
                                return true;
                        }
                        line = nl + 1;
                }
                size_t rest = f->n - (size_t)(line - f->buf);
                if (rest == sizeof(f->buf) - 1) {
                        bool m = regexec(&arg_at_regex, line, 0, NULL, 0) == 0;
                        rest = 0;
                        if (m) {
                                snprintf(match, size, "%.*s", (int)size - 1, line);
                                return true;
                        }
                }
                memmove(f->buf, line, rest);
                f->n = rest;
        }
}

/* The event source of an event moment, in place before the workload starts
 * (and before the round's clock runs), so that no event is missed: the
 * subscription's or the log follower's first reply has come back. */
static int moment_arm(Runner *r, VarlinkClient **ret) {
        _cleanup_(varlink_client_freep) VarlinkClient *ev = NULL;
        int q;

        if (arg_at == AT_STATE) {
                q = runner_subscribe(r, &ev);
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
static int wait_moment(Runner *r, const Schedule *s, VarlinkClient *ev, LogFollower *svd_log, Round *rd) {
        int q;

        uint64_t start = now_usec(CLOCK_MONOTONIC);
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
                                if (name && state && streq(name, arg_at_name) && streq(state, arg_at_value)) {
                                        snprintf(rd->trigger, sizeof(rd->trigger), "%s: %s → %s", name,
                                                 strna(json_string_value(json_object_get(e, "previousState"))),
                                                 state);
                                        rd->trigger_usec = (uint64_t)json_integer_value(json_object_get(e, "timeUsec"));
                                        return 1;
                                }
                        } else {
                                size_t i;
                                json_t *line;
                                json_array_foreach(json_object_get(p, "lines"), i, line) {
                                        const char *msg =
                                            json_string_value(json_object_get(line, "message"));
                                        if (msg && regexec(&arg_at_regex, msg, 0, NULL, 0) == 0) {
                                                snprintf(rd->trigger, sizeof(rd->trigger), "%s", msg);
                                                rd->trigger_usec = (uint64_t)json_integer_value(
                                                    json_object_get(line, "timeUsec"));
                                                return 1;
                                        }
                                }
                        }
                }
                workload_drain(r);
                if (arg_at == AT_MARKER && r->marker_seen) {
                        snprintf(rd->trigger, sizeof(rd->trigger), "%s", r->marker_line);
                        rd->trigger_usec = r->marker_usec;
                        return 1;
                }
                if (arg_at == AT_SVD_LOG && log_follower_matched(svd_log, rd->trigger, sizeof(rd->trigger))) {
                        rd->trigger_usec = now_usec(CLOCK_REALTIME);
                        return 1;
                }

                uint64_t now = now_usec(CLOCK_MONOTONIC);
                if (now >= deadline)
                        return IN_SET(arg_at, AT_RANDOM, AT_DELAY) ? 1 : 0;
                struct pollfd p[3];
                nfds_t np = 0;
                if (ev)
                        p[np++] = (struct pollfd){.fd = ev->fd, .events = POLLIN};
                if (arg_at == AT_SVD_LOG)
                        p[np++] = (struct pollfd){.fd = svd_log->inotify_fd, .events = POLLIN};
                if (r->workload_out >= 0)
                        p[np++] = (struct pollfd){.fd = r->workload_out, .events = POLLIN};
                uint64_t ms = (deadline - now + USEC_PER_MSEC - 1) / USEC_PER_MSEC;
                (void)poll(p, np, ms > INT_MAX ? INT_MAX : (int)ms);
        }
}

/* ---- the aftermath and the recovery ---- */

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
        uint64_t last = now_usec(CLOCK_MONOTONIC);
        for (;;) {
                bool all = true;
                for (size_t i = 0; i < r->n_services; i++)
                        all = all && (r->services[i].ready || !r->services[i].expected);
                if (all) {
                        *ret_ready = last;
                        return 0;
                }
                uint64_t now = now_usec(CLOCK_MONOTONIC);
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
                        q = runner_subscribe(r, evp);
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
                        last = now_usec(CLOCK_MONOTONIC);
                }
                svc->ready = ready;
                svc->pid = p;
        }
}

/* ---- the faults ---- */

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

        uint64_t deadline = now_usec(CLOCK_MONOTONIC) + arg_death_timeout_usec;
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

        uint64_t until = now_usec(CLOCK_MONOTONIC) + arg_stop_usec;
        for (uint64_t now; (now = now_usec(CLOCK_MONOTONIC)) < until;) {
                struct pollfd p = {.fd = r->workload_out, .events = POLLIN};
                (void)poll(&p, r->workload_out >= 0 ? 1 : 0, (int)((until - now) / 1000) + 1);
                workload_drain(r);
        }

        if (cg >= 0) {
                int k = cgroup_freeze(cg, /* freeze= */ false,
                                      now_usec(CLOCK_MONOTONIC) + arg_death_timeout_usec);
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

/* ---- the steps of a round ---- */

/* svd up, every wanted service started (a no-op for those that run), then the probe. 1 when
 * ready, 0 when the round failed there, or -errno. */
static int round_ready(Runner *r, Round *rd) {
        int q;

        if (r->svd_pid == 0) {
                q = runner_start_svd(r);
                if (q < 0)
                        return q;
        }
        snprintf(rd->mode, sizeof(rd->mode), "%s", r->mode);

        q = runner_start_services(r);
        if (q < 0) {
                round_fail(rd, "wanted services did not start: %s", r->error);
                return 0;
        }
        q = runner_list(r, /* collect_wanted= */ false);
        if (q < 0)
                return q;
        q = probe_until_ok(rd);
        if (q == -EINTR) {
                round_fail(rd, "the runner was interrupted (SIG%s) during the probe",
                           strna(sigabbrev_np(runner_interrupted)));
                return 0;
        }
        if (q < 0) {
                round_fail(rd, "the probe did not succeed within the ready timeout");
                return 0;
        }
        return 1;
}

/* Whom the fault hits, and what must be back after it: each service's pid before, and whether it
 * is expected ready again. */
static void round_aim(Runner *r, Round *rd, Schedule *s) {
        schedule_targets(s, r);
        if (fault_is_svd(s->fault))
                snprintf(rd->targets, sizeof(rd->targets), "svd");
        for (size_t i = 0; i < r->n_services; i++) {
                Service *svc = &r->services[i];
                svc->old_pid = svc->pid;
                svc->starts = 0;
                if (svc->killed)
                        text_append(rd->targets, sizeof(rd->targets), svc->name);
                if (fault_ends_svd(s->fault))
                        svc->killed = true; /* every service dies with svd */
                /* A service whose Restart= does not restart it after a kill is
                 * expected to stay down while svd runs; the next round starts it. */
                svc->expected = fault_is_svd(s->fault) || !svc->killed || svc->restarts_on_kill;
        }
}

/* The moment in words, for the report: "random:120ms", "state:web=running", "log:web", "marker". */
static void round_describe_moment(Round *rd, const Schedule *s) {
        switch (arg_at) {
        case AT_RANDOM:
        case AT_DELAY:
                snprintf(rd->moment, sizeof(rd->moment), "%s:%llums",
                         arg_at == AT_RANDOM ? "random" : "delay",
                         (unsigned long long)(s->delay_usec / USEC_PER_MSEC));
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
        case AT_SVD_LOG:
                snprintf(rd->moment, sizeof(rd->moment), "svd-log");
                break;
        default:
                assert(false);
        }
}

/* The moment's event source armed, the workload started, the moment awaited. 1 when it came, 0
 * when it did not (the round failed, the workload is stopped), or -errno. */
static int round_await_moment(Runner *r, Round *rd, const Schedule *s) {
        _cleanup_(varlink_client_freep) VarlinkClient *moment_ev = NULL;
        _cleanup_(log_follower_done) LogFollower svd_log = {.fd = -EBADF, .inotify_fd = -EBADF};
        int q;

        q = moment_arm(r, &moment_ev);
        if (q < 0)
                return q;
        if (arg_at == AT_SVD_LOG) {
                q = log_follower_open(r, &svd_log);
                if (q < 0)
                        return q;
        }

        q = workload_start(r, rd);
        if (q < 0)
                return q;

        q = wait_moment(r, s, moment_ev, &svd_log, rd);
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
        return 1;
}

/* The trees the fault kills, each process held by a pidfd before it. */
static int round_track(Runner *r, Round *rd, ProcTracker *t) {
        _cleanup_free_ ProcRoot *roots = NULL;
        size_t n_roots;

        round_snapshot_roots(r, rd, &roots, &n_roots);
        int q = proc_tracker_collect(t, roots, n_roots, r->self, r->workload_pgid,
                                     /* include_escaped= */ fault_is_svd(rd->fault));
        if (q < 0)
                return runner_fail(r, "Failed to read the process trees: %s", strerror(-q));
        rd->tracked = t->n;
        return 0;
}

/* SIGKILL to the main process of each service the fault hits. */
static void fault_kill_services(Runner *r, Round *rd) {
        for (size_t i = 0; i < r->n_services; i++) {
                Service *svc = &r->services[i];
                if (!svc->killed || svc->pid <= 0)
                        continue;
                _cleanup_close_ int fd = sys_pidfd_open(svc->pid, 0);
                if (fd >= 0)
                        (void)sys_pidfd_send_signal(fd, SIGKILL, NULL, 0);
        }
        snprintf(rd->via, sizeof(rd->via), "sigkill");
}

/* The fault itself. svd-oom: memory.events' oom_kill counter before, in *ret_oom_before. */
static void round_deal_fault(Runner *r, Round *rd, uint64_t *ret_oom_before) {
        switch (rd->fault) {
        case FAULT_SVD_KILL:
        case FAULT_POWER_LOSS:
        case FAULT_POWER_LOSS_TORN:
                (void)sys_pidfd_send_signal(r->svd_pidfd, SIGKILL, NULL, 0);
                snprintf(rd->via, sizeof(rd->via), "sigkill");
                break;
        case FAULT_SVD_TERM:
                (void)sys_pidfd_send_signal(r->svd_pidfd, SIGTERM, NULL, 0);
                snprintf(rd->via, sizeof(rd->via), "sigterm");
                break;
        case FAULT_SVD_OOM:
                fault_oom(r, rd, ret_oom_before);
                break;
        case FAULT_SVD_STOP:
        case FAULT_SERVICE_STOP:
                fault_stop(r, rd, rd->fault);
                break;
        case FAULT_SERVICE_KILL:
        case FAULT_SERVICE_KILL_SOME:
        case FAULT_SERVICE_KILL_ALL:
                fault_kill_services(r, rd);
                break;
        default:
                assert(false);
        }
}

/* Waits until every tracked process is dead: rd->survivors, rd->last_death_usec. */
static int round_wait_dead(Runner *r, Round *rd, ProcTracker *t, uint64_t t_fault) {
        uint64_t timeout = arg_death_timeout_usec;
        if (rd->fault == FAULT_SVD_TERM && timeout < 90 * USEC_PER_SEC)
                timeout = 90 * USEC_PER_SEC; /* a clean stop waits for TimeoutStopSec= */
        rd->survivors = proc_tracker_wait_dead(t, t_fault + timeout, runner_reap, r);
        if (fault_ends_svd(rd->fault)) {
                /* What svd created between the snapshot and the fault
                 * (a service's process still before its exec, with
                 * svd's listening socket in its fd table): svd's
                 * orphans, now re-parented to the runner. Held and
                 * waited for like the rest, so that the next svd
                 * never starts beside a piece of the last one. */
                size_t before = t->n;
                int q = proc_tracker_collect(t, NULL, 0, r->self, r->workload_pgid,
                                             /* include_escaped= */ true);
                if (q < 0)
                        return runner_fail(r, "Failed to read svd's orphans: %s", strerror(-q));
                if (t->n > before) {
                        rd->tracked = t->n;
                        rd->survivors = proc_tracker_wait_dead(t, t_fault + timeout, runner_reap, r);
                }
        }
        uint64_t last = proc_tracker_last_death(t);
        rd->last_death_usec = last > t_fault ? (int64_t)(last - t_fault) : 0;
        return 0;
}

/* A zombie has no event to wait on: its parent reaps it when it will. One
 * read of each per pass, passes until the deadline. */
static void round_wait_zombies(Runner *r, Round *rd, ProcTracker *t) {
        uint64_t zdeadline = now_usec(CLOCK_MONOTONIC) + arg_death_timeout_usec;
        for (;;) {
                runner_reap(r);
                rd->zombies = proc_tracker_count_zombies(t);
                if (rd->zombies == 0 || now_usec(CLOCK_MONOTONIC) >= zdeadline)
                        break;
                (void)poll(NULL, 0, 10);
        }
}

/* One line of rd->survivor_details: the survivor as /proc tells it, before it is killed. */
static void round_describe_survivor(Round *rd, const TrackedProc *p) {
        char d[TEXT_MAX];
        proc_describe(p->pid, d, sizeof(d));
        size_t l = strlen(rd->survivor_details);
        if (l < sizeof(rd->survivor_details))
                snprintf(rd->survivor_details + l, sizeof(rd->survivor_details) - l, "  survivor %d (%s) of %s: %s\n",
                         (int)p->pid, p->comm, p->owner, d);
}

/* What svd was doing when a fault of its own came: its children that were
 * still svd (a spawn before its exec) and the last line it logged (a
 * re-execution, a restore, a start). */
static void round_note_svd_doing(Runner *r, Round *rd, const ProcTracker *t) {
        char comm[32] = "", last[TEXT_MAX - 64];
        size_t spawning = 0;
        for (size_t i = 0; i < t->n; i++)
                if (t->procs[i].pid == r->svd_pid)
                        snprintf(comm, sizeof(comm), "%s", t->procs[i].comm);
        for (size_t i = 0; i < t->n; i++)
                if (t->procs[i].pid != r->svd_pid && streq(t->procs[i].owner, "svd") && streq(t->procs[i].comm, comm))
                        spawning++;
        if (!runner_svd_last_line(r, last, sizeof(last)))
                snprintf(last, sizeof(last), "-");
        snprintf(rd->svd_doing, sizeof(rd->svd_doing), "%zu spawn(s) before exec; last logged: %s", spawning, last);
}

/* The aftermath of a fault that kills: every tracked process dead, none a zombie. What is left
 * fails the round, and is then killed, out of the way of the next round. */
static int round_aftermath(Runner *r, Round *rd, ProcTracker *t, uint64_t t_fault) {
        int q = round_wait_dead(r, rd, t, t_fault);
        if (q < 0)
                return q;
        round_wait_zombies(r, rd, t);
        for (size_t i = 0; i < t->n; i++) {
                char s2[128];
                if (!t->procs[i].dead || t->procs[i].zombie) {
                        snprintf(s2, sizeof(s2), "%s:%d(%s)%s", t->procs[i].owner, (int)t->procs[i].pid,
                                 t->procs[i].comm, t->procs[i].zombie ? "zombie" : "");
                        text_append(rd->survivor_names, sizeof(rd->survivor_names), s2);
                        round_describe_survivor(rd, &t->procs[i]);
                }
        }
        if (rd->survivors > 0)
                round_fail(rd, "%zu survivor(s): %s", rd->survivors, rd->survivor_names);
        if (rd->zombies > 0)
                round_fail(rd, "%zu zombie(s) left", rd->zombies);
        proc_tracker_kill_survivors(t);
        (void)proc_tracker_wait_dead(t, now_usec(CLOCK_MONOTONIC) + arg_death_timeout_usec, runner_reap, r);
        return 0;
}

/* svd started again if the fault took it, then the wait until every wanted service is back: the
 * time to recover, or what is missing. *ev: the subscription, made here if svd is new. */
static int round_recover(Runner *r, Round *rd, VarlinkClient **ev, uint64_t t_fault) {
        int q;

        if (fault_ends_svd(rd->fault)) {
                runner_wait_svd_exit(r);
                q = runner_start_svd(r);
                if (q < 0)
                        return q;
                snprintf(rd->mode, sizeof(rd->mode), "%s", r->mode);
                q = runner_subscribe(r, ev);
                if (q < 0)
                        return runner_fail(r, "Failed to subscribe: %s", strerror(-q));
        }
        uint64_t ready_at;
        q = wait_recovered(r, ev, t_fault + arg_recover_timeout_usec, &ready_at);
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
                    !IN_SET(rd->fault, FAULT_SERVICE_KILL, FAULT_SERVICE_KILL_SOME, FAULT_SERVICE_KILL_ALL);
                for (size_t i = 0; i < r->n_services && !any; i++)
                        any = r->services[i].killed && r->services[i].expected;
                if (any)
                        rd->recover_usec = ready_at > t_fault ? (int64_t)(ready_at - t_fault) : 0;
        }
        return 0;
}

/* --check, its output kept only when it fails. */
static void round_check(Runner *r, Round *rd) {
        if (!arg_check)
                return;
        snprintf(rd->check_log, sizeof(rd->check_log), "%s/round-%u.check.log", r->dir, rd->number);
        int q = command_run(arg_check, rd, rd->check_log, now_usec(CLOCK_MONOTONIC) + arg_check_timeout_usec);
        rd->check_rc = q < 0 ? 255 : q;
        if (q == -ETIMEDOUT)
                round_fail(rd, "the check ran longer than --check-timeout (%llu s) and was killed (output: %s)",
                           (unsigned long long)(arg_check_timeout_usec / USEC_PER_SEC), rd->check_log);
        else if (q == -EINTR)
                round_fail(rd, "the runner was interrupted (SIG%s) during the check (output: %s)",
                           strna(sigabbrev_np(runner_interrupted)), rd->check_log);
        else if (q < 0)
                round_fail(rd, "the check could not run: %s", strerror(-q));
        else if (q != 0)
                round_fail(rd, "the check failed with %d (output: %s)", q, rd->check_log);
        else
                (void)unlink(rd->check_log);
}

/* A failed round's data, as the check found it: each --keep-data directory copied (cp -a, which
 * keeps modes, times, links and holes) into DIR/round-N.data/. */
static void round_keep_data(Runner *r, Round *rd) {
        if (arg_n_keep_data == 0)
                return;
        char dest[PATH_MAX];
        snprintf(dest, sizeof(dest), "%s/round-%u.data", r->dir, rd->number);
        if (mkdir(dest, 0700) < 0 && errno != EEXIST) {
                fprintf(stderr, "svd-crashtest: mkdir '%s': %m\n", dest);
                return;
        }
        for (size_t i = 0; i < arg_n_keep_data; i++) {
                pid_t pid = fork();
                if (pid < 0)
                        break;
                if (pid == 0) {
                        int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
                        if (null >= 0)
                                (void)dup2(null, 0);
                        execlp("cp", "cp", "-a", "--", arg_keep_data[i], dest, (char *)NULL);
                        _exit(127);
                }
                int status;
                while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                        ;
                if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                        fprintf(stderr, "svd-crashtest: round %u: could not copy '%s' into '%s'\n", rd->number,
                                arg_keep_data[i], dest);
        }
}

/* ---- a round ---- */

int round_run(Runner *r, unsigned number, Round *rd) {
        int q;

        *rd = (Round){.number = number, .last_death_usec = -1, .recover_usec = -1, .check_rc = -1,
                      .trigger_lag_usec = -1};
        Schedule s = schedule_for(number);
        rd->fault = s.fault;

        q = round_ready(r, rd);
        if (q <= 0)
                return q;
        round_aim(r, rd, &s);
        round_describe_moment(rd, &s);
        runner_output_follow(r);
        q = round_await_moment(r, rd, &s);
        if (q <= 0) {
                runner_output_done(r, number, rd->failed);
                return q;
        }

        /* For a fault that svd survives, subscribe first: no event of the recovery is missed. */
        _cleanup_(varlink_client_freep) VarlinkClient *ev = NULL;
        if (!fault_ends_svd(rd->fault)) {
                q = runner_subscribe(r, &ev);
                if (q < 0)
                        return runner_fail(r, "Failed to subscribe: %s", strerror(-q));
        }

        _cleanup_(proc_tracker_done) ProcTracker t = {.skip = r->layer_pids, .n_skip = DATA_MAX};
        if (fault_kills(rd->fault)) {
                q = round_track(r, rd, &t);
                if (q < 0)
                        return q;
        }

        if (fault_ends_svd(rd->fault) && fault_kills(rd->fault))
                round_note_svd_doing(r, rd, &t);
        if (arg_workload) {
                /* A workload that is gone before the fault tested nothing of what the fault does. */
                if (workload_has_ended(r)) {
                        workload_describe_end(r, "before-fault", rd->workload, sizeof(rd->workload));
                        if (!arg_workload_may_exit)
                                round_fail(rd, "the workload ended before the fault (%s; --workload-may-exit allows it)",
                                           rd->workload);
                } else
                        snprintf(rd->workload, sizeof(rd->workload), "running");
        }

        uint64_t oom_before = 0;
        uint64_t t_fault = now_usec(CLOCK_MONOTONIC);
        rd->fault_realtime_usec = now_usec(CLOCK_REALTIME);
        round_deal_fault(r, rd, &oom_before);
        if (rd->trigger_usec > 0)
                rd->trigger_lag_usec = (int64_t)(rd->fault_realtime_usec - rd->trigger_usec);

        if (fault_kills(rd->fault)) {
                q = round_aftermath(r, rd, &t, t_fault);
                if (q < 0)
                        return q;
        }
        if (rd->fault == FAULT_SVD_OOM)
                fault_oom_verify(r, rd, oom_before);
        if (fault_loses_power(rd->fault)) {
                /* Every process that could write is dead: what was not durable goes now. */
                q = powerloss_cut(r, rd, rd->fault == FAULT_POWER_LOSS_TORN);
                if (q < 0)
                        return q;
        }

        q = round_recover(r, rd, &ev, t_fault);
        if (q < 0)
                return q;
        ev = varlink_client_free(ev);

        if (arg_workload && streq(rd->workload, "running") && workload_has_ended(r))
                workload_describe_end(r, "after-fault", rd->workload, sizeof(rd->workload));
        workload_stop(r);
        rd->counters = r->counters;
        round_check(r, rd);
        runner_output_done(r, rd->number, rd->failed);
        powerloss_forget(r, rd);
        if (rd->failed) {
                round_keep_data(r, rd);
                if (r->svd_pid > 0)
                        runner_save_logs(r, rd->number);
        }
        return 0;
}
