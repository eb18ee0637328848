/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "service.h"

#include <inttypes.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "basic/parse-util.h"
#include "basic/strv.h"
#include "basic/varlink-wire.h"
#include "svd-log.h"
#include "manager.h"
#include "reexec.h"
#include "varlink.h"

/* How often, 1 ms apart, the exit status is asked for again when pidfs has
 * not published it yet although the pidfd polled readable. */
#define SERVICE_EXIT_INFO_RETRIES 1000U
#define SERVICE_EXIT_INFO_RETRY_USEC (1 * USEC_PER_MSEC)

struct ServiceWaiter {
        Service *service;
        VarlinkCall *call;
        ServiceOp op;
        ServiceWaiter *next, *prev;
};

static const char *const service_state_table[_SERVICE_STATE_MAX] = {
        [SERVICE_INACTIVE] = "inactive",   [SERVICE_STARTING] = "starting",
        [SERVICE_RUNNING] = "running",     [SERVICE_STOPPING] = "stopping",
        [SERVICE_KILLING] = "killing",     [SERVICE_AUTO_RESTART] = "auto-restart",
        [SERVICE_FAILED] = "failed",
        [SERVICE_RELOADING] = "reloading", [SERVICE_EXITED] = "exited",
};

static const char *const service_job_table[_SERVICE_JOB_MAX] = {
        [SERVICE_JOB_NONE] = "none",
        [SERVICE_JOB_START] = "start-queued",
        [SERVICE_JOB_STARTING] = "start-running",
        [SERVICE_JOB_STOP] = "stop-queued",
};

const char *service_job_to_string(ServiceJob j) {
        return j >= 0 && j < _SERVICE_JOB_MAX ? service_job_table[j] : NULL;
}

static const char *const service_result_table[_SERVICE_RESULT_MAX] = {
        [SERVICE_SUCCESS] = "success",
        [SERVICE_FAILURE_EXIT_CODE] = "exit-code",
        [SERVICE_FAILURE_SIGNAL] = "signal",
        [SERVICE_FAILURE_CORE_DUMP] = "core-dump",
        [SERVICE_FAILURE_TIMEOUT] = "timeout",
        [SERVICE_FAILURE_EXEC] = "exec",
        [SERVICE_FAILURE_RESOURCES] = "resources",
        [SERVICE_FAILURE_WATCHDOG] = "watchdog",
        [SERVICE_FAILURE_START_LIMIT_HIT] = "start-limit-hit",
};

const char *service_state_to_string(ServiceState s) {
        return s >= 0 && s < _SERVICE_STATE_MAX ? service_state_table[s] : NULL;
}

ServiceState service_state_from_string(const char *s) {
        for (int i = 0; s && i < _SERVICE_STATE_MAX; i++)
                if (streq(s, service_state_table[i]))
                        return (ServiceState) i;
        return _SERVICE_STATE_INVALID;
}

const char *service_result_to_string(ServiceResult r) {
        return r >= 0 && r < _SERVICE_RESULT_MAX ? service_result_table[r] : NULL;
}

static uint64_t now_realtime_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / NSEC_PER_USEC;
}

static uint64_t now_monotonic_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / NSEC_PER_USEC;
}

static void service_set_last_error(Service *s, char *msg) {
        free(s->last_error);
        s->last_error = msg;
}

/* ---- waiters: varlink calls answered when the machine gets somewhere ---- */

static void waiter_unlink(ServiceWaiter *w) {
        Service *s = w->service;
        if (w->prev)
                w->prev->next = w->next;
        else
                s->waiters = w->next;
        if (w->next)
                w->next->prev = w->prev;
        free(w);
}

static void on_waiter_cancel(VarlinkCall *call, void *userdata) {
        waiter_unlink(userdata); /* the peer went away; the call is freed by varlink.c */
}

static int service_add_waiter(Service *s, VarlinkCall *call, ServiceOp op) {
        if (!call)
                return 0;
        ServiceWaiter *w = calloc(1, sizeof(*w));
        if (!w) {
                (void) varlink_call_error_errno(call, ENOMEM);
                return log_oom();
        }
        *w = (ServiceWaiter){ .service = s, .call = call, .op = op, .next = s->waiters };
        if (s->waiters)
                s->waiters->prev = w;
        s->waiters = w;
        varlink_call_set_cancel(call, on_waiter_cancel, w);
        return 0;
}

typedef json_t *(*WaiterErrorFn)(Service *s, const char **ret_error);

/* Answers every waiter whose op is in `ops` (a bit mask of 1 << ServiceOp):
 * with the service on success (error == NULL), else with the error and params. */
static void service_answer_waiters(Service *s, unsigned ops, const char *error, json_t *params) {
        ServiceWaiter *w = s->waiters, *next;
        for (; w; w = next) {
                next = w->next;
                if (!(ops & (1U << w->op)))
                        continue;
                VarlinkCall *call = w->call;
                varlink_call_set_cancel(call, NULL, NULL);
                waiter_unlink(w);
                if (error)
                        (void) varlink_call_error(call, error, params ? json_incref(params) : NULL);
                else
                        (void) varlink_call_reply(call, json_pack("{s:o}", "service", service_to_json(s)));
        }
        json_decref(params);
}

#define OPS_START ((1U << SERVICE_OP_START) | (1U << SERVICE_OP_RESTART))
#define OPS_STOP (1U << SERVICE_OP_STOP)

static void service_cancel_waiters(Service *s, unsigned ops) {
        service_answer_waiters(s, ops, "io.svd.Manager.Cancelled", json_pack("{s:s}", "name", s->name));
}

/* ---- readiness ---- */

static int on_watchdog_timeout(sd_event_source *source, uint64_t usec, void *userdata);

static void service_arm_watchdog(Service *s) {
        s->watchdog_source = sd_event_source_disable_unref(s->watchdog_source);
        if (s->watchdog_usec == 0 || !IN_SET(s->state, SERVICE_RUNNING, SERVICE_RELOADING))
                return;
        int r = sd_event_add_time_relative(s->manager->event, &s->watchdog_source, CLOCK_MONOTONIC,
                                           s->watchdog_usec, /* accuracy= */ 0, on_watchdog_timeout, s);
        if (r < 0)
                log_warning_errno(r, "%s: Failed to arm the watchdog, running without: %m", s->name);
}

/* The start is complete, as Type= defines it: answer Start, let dependents go. */
static void service_ready(Service *s) {
        s->ready = true;
        service_answer_waiters(s, OPS_START, NULL, NULL);
        deps_job_done(s, /* success= */ true, NULL);
        service_arm_watchdog(s);
}

/* The start failed (s->result and s->last_error say why): answer Start, fail dependents' jobs. */
static void service_start_failed(Service *s) {
        const char *result = strna(service_result_to_string(s->result));
        _cleanup_free_ char *msg = NULL;

        if (s->spawn_error) {
                s->spawn_error = false;
                service_answer_waiters(s, OPS_START, "io.svd.Manager.SpawnFailed",
                                       json_pack("{s:s,s:s}", "name", s->name, "message",
                                                 s->last_error ? s->last_error : "Failed to spawn"));
                if (IN_SET(s->job, SERVICE_JOB_START, SERVICE_JOB_STARTING))
                        deps_job_done(s, /* success= */ false, s->last_error ? s->last_error : "spawn failed");
                return;
        }
        if (s->have_spawn_failure) {
                const SpawnFailure *f = &s->spawn_failure;
                service_answer_waiters(s, OPS_START, "io.svd.Manager.ExecFailed",
                                       json_pack("{s:s,s:s,s:i,s:s,s:s}", "name", s->name, "stage",
                                                 strna(spawn_stage_to_string(f->stage)), "errno", f->error,
                                                 "errnoName", strna(strerrorname_np(f->error)), "message",
                                                 s->last_error ? s->last_error : "spawn failed"));
                if (IN_SET(s->job, SERVICE_JOB_START, SERVICE_JOB_STARTING))
                        deps_job_done(s, /* success= */ false, s->last_error ? s->last_error : "spawn failed");
                return;
        }
        if (s->last_error)
                msg = strdup(s->last_error);
        else if (asprintf(&msg, "the start failed (result: %s)", result) < 0)
                msg = NULL;
        service_answer_waiters(s, OPS_START, "io.svd.Manager.StartFailed",
                               json_pack("{s:s,s:s,s:s}", "name", s->name, "result", result, "message",
                                         msg ? msg : "the start failed"));
        if (IN_SET(s->job, SERVICE_JOB_START, SERVICE_JOB_STARTING))
                deps_job_done(s, /* success= */ false, msg ? msg : result);
}

/* ---- the state setter ---- */

static void service_set_state(Service *s, ServiceState state) {
        ServiceState old = s->state;

        s->state = state;
        s->state_change_usec = now_realtime_usec();
        s->state_enter_usec[state] = s->state_change_usec;
        if (old != state) {
                log_info("%s: %s → %s", s->name, service_state_to_string(old), service_state_to_string(state));
                events_emit_state_change(&s->manager->events, s, old);
        }
        if (IN_SET(state, SERVICE_INACTIVE, SERVICE_FAILED) && (s->removed || s->have_next_unit))
                manager_schedule_gc(s->manager); /* a reload is waiting for it to settle */

        if (!IN_SET(state, SERVICE_RUNNING, SERVICE_RELOADING))
                s->watchdog_source = sd_event_source_disable_unref(s->watchdog_source);
        if (state == SERVICE_RUNNING && s->execed && !s->ready)
                service_ready(s);
        deps_schedule(s->manager);
        if (IN_SET(state, SERVICE_INACTIVE, SERVICE_FAILED) && !s->want_running)
                service_answer_waiters(s, OPS_STOP, NULL, NULL);
        if (IN_SET(state, SERVICE_INACTIVE, SERVICE_FAILED))
                manager_check_shutdown(s->manager);
}

/* ---- spawning ---- */

static void service_unwatch(Service *s) {
        s->exit_source = sd_event_source_disable_unref(s->exit_source);
        s->report_source = sd_event_source_disable_unref(s->report_source);
        s->report_fd = safe_close(s->report_fd);
}

static void service_unset_timer(Service *s) {
        s->timer_source = sd_event_source_disable_unref(s->timer_source);
        s->timer_cb = NULL;
}

static int service_arm_timer(Service *s, uint64_t usec, sd_event_time_handler_t cb) {
        service_unset_timer(s);
        if (usec == USEC_INFINITY)
                return 0;
        int r = sd_event_add_time_relative(s->manager->event, &s->timer_source, CLOCK_MONOTONIC, usec,
                                           /* accuracy= */ 0, cb, s);
        if (r >= 0)
                s->timer_cb = cb;
        return r;
}

/* The environment a service starts with: a fixed PATH, the user's identity
 * when User= is set (as systemd does), then Environment= on top. */
static int service_build_environment(Service *s, char ***ret) {
        _cleanup_strv_free_ char **env = NULL;
        char *a;

        if (asprintf(&a, "PATH=%s", SPAWN_DEFAULT_PATH) < 0 || strv_consume(&env, a) < 0)
                return -ENOMEM;
        if (s->creds.set && s->creds.user) {
                const char *home = s->creds.home ? s->creds.home : "/";
                const char *shell = s->creds.shell ? s->creds.shell : "/bin/sh";
                if (asprintf(&a, "HOME=%s", home) < 0 || strv_consume(&env, a) < 0)
                        return -ENOMEM;
                if (asprintf(&a, "USER=%s", s->creds.user) < 0 || strv_consume(&env, a) < 0)
                        return -ENOMEM;
                if (asprintf(&a, "LOGNAME=%s", s->creds.user) < 0 || strv_consume(&env, a) < 0)
                        return -ENOMEM;
                if (asprintf(&a, "SHELL=%s", shell) < 0 || strv_consume(&env, a) < 0)
                        return -ENOMEM;
        }
        /* sd_notify(3): where to send READY=1 and the watchdog keep-alives, as systemd does. */
        if ((s->unit->type == SERVICE_TYPE_NOTIFY || s->unit->watchdog_usec > 0) && s->manager->notify_path) {
                if (asprintf(&a, "NOTIFY_SOCKET=%s", s->manager->notify_path) < 0 || strv_consume(&env, a) < 0)
                        return -ENOMEM;
        }
        if (s->unit->watchdog_usec > 0) {
                if (asprintf(&a, "WATCHDOG_USEC=%" PRIu64, s->unit->watchdog_usec) < 0 || strv_consume(&env, a) < 0)
                        return -ENOMEM;
        }
        for (char **e = s->unit->environment; e && *e; e++) {
                char *c = strdup(*e);
                if (!c || strv_env_replace_consume(&env, c) < 0)
                        return -ENOMEM;
        }
        if (!env && strv_extend(&env, NULL) < 0)
                return -ENOMEM;
        *ret = TAKE_PTR(env);
        return 0;
}

static uint64_t capability_mask(int last) {
        return last >= 63 ? UINT64_MAX : (UINT64_C(1) << (last + 1)) - 1;
}

static int on_exit_event(sd_event_source *source, int fd, uint32_t revents, void *userdata);
static int on_report_event(sd_event_source *source, int fd, uint32_t revents, void *userdata);
static void service_enter_dead(Service *s, ServiceResult result, bool allow_restart);
static int on_start_timeout(sd_event_source *source, uint64_t usec, void *userdata);

static void service_drain_report(Service *s);
static void service_note_execed(Service *s);

static int service_spawn(Service *s) {
        /* A restart is the next start: a reloaded unit file applies now. */
        manager_take_pending_unit(s->manager, s);

        _cleanup_strv_free_ char **env = NULL;
        _cleanup_free_ char *path = NULL, *log_error = NULL;
        _cleanup_close_ int report_fd = -EBADF;
        Manager *m = s->manager;
        Unit *u = s->unit;
        Process proc = PROCESS_NULL;
        int r;

        assert(u);
        assert(!process_is_set(&s->main));

        if ((u->type == SERVICE_TYPE_NOTIFY || u->watchdog_usec > 0) && m->notify_fd < 0) {
                r = -ENOTCONN; /* svd has no notify socket: said at start-up */
                goto fail;
        }
        r = service_build_environment(s, &env);
        if (r < 0)
                goto fail;

        /* A name without '/' is looked up here; if it is nowhere, exec of the
         * bare name fails in the child with ENOENT and that is what the user sees. */
        const char *search = NULL;
        for (char **e = env; *e; e++)
                if (strneq(*e, "PATH=", 5))
                        search = *e + 5;
        if (spawn_find_executable(u->exec_start[0], search, &path) < 0) {
                path = strdup(u->exec_start[0]);
                if (!path) {
                        r = -ENOMEM;
                        goto fail;
                }
        }

        const char *wd = u->working_directory;
        if (u->working_directory_home)
                wd = s->creds.home ? s->creds.home : "/";
        else if (!wd)
                wd = "/";

        SpawnParams params = {
                .path = path,
                .argv = u->exec_start,
                .envp = env,
                .working_directory = wd,
                .working_directory_missing_ok = u->working_directory_missing_ok,
                .change_credentials = s->creds.set,
                .uid = s->creds.uid,
                .gid = s->creds.gid,
                .groups = s->creds.groups,
                .n_groups = s->creds.n_groups,
                .no_new_privileges = u->no_new_privileges,
                .umask = u->umask >= 0 ? u->umask : 0022,
                .bounding_drop = ~u->capability_bounding_set & capability_mask(m->probe.cap_last),
                .ambient = u->ambient_capabilities,
                .cap_last = m->probe.cap_last,
                .private_pids = u->private_pids > 0,
                .user_namespace = u->private_pids > 0 && m->uid != 0,
                .outer_uid = getuid(),
                .outer_gid = getgid(),
                .cgroup_fd = -EBADF,
                .mode = m->probe.mode,
                .cap_sys_admin = m->probe.cap_sys_admin,
        };
        /* Limits: the unit's, else (for NOFILE) the one svd started with. */
        const struct {
                int resource;
                const struct rlimit_setting *set;
        } limits[] = {
                { RLIMIT_NOFILE, &u->limit_nofile },
                { RLIMIT_NPROC, &u->limit_nproc },
                { RLIMIT_CORE, &u->limit_core },
        };
        for (size_t i = 0; i < ELEMENTSOF(limits); i++) {
                if (limits[i].set->set)
                        params.rlimits[params.n_rlimits++] = (SpawnRlimit){
                                limits[i].resource, { .rlim_cur = limits[i].set->soft, .rlim_max = limits[i].set->hard }
                        };
                else if (limits[i].resource == RLIMIT_NOFILE)
                        params.rlimits[params.n_rlimits++] = (SpawnRlimit){ RLIMIT_NOFILE, m->nofile };
        }

        if (m->cgroup.available) {
                if (s->cgroup_fd < 0) {
                        r = cgroup_service_open(&m->cgroup, s->name, &s->cgroup_fd);
                        if (r < 0)
                                log_warning_errno(r, "%s: Failed to create cgroup, running without: %m", s->name);
                }
                if (s->cgroup_fd >= 0) {
                        unsigned skipped = 0;
                        r = cgroup_apply_limits(&m->cgroup, s->cgroup_fd, u->memory_max, u->tasks_max,
                                                u->cpu_weight, &skipped);
                        if (r < 0)
                                log_warning_errno(r, "%s: Failed to set cgroup limits, ignoring: %m", s->name);
                        if (skipped > 0)
                                log_warning("%s: %u cgroup limits set but their controllers are not available, ignoring.",
                                            s->name, skipped);
                        params.cgroup_fd = s->cgroup_fd;
                }
        } else if (u->memory_max != UINT64_MAX || u->tasks_max != UINT64_MAX || u->cpu_weight != 0)
                log_warning("%s: MemoryMax=/TasksMax=/CPUWeight= need a cgroup and svd has none (%s), ignoring.",
                            s->name, m->cgroup.reason);

        r = service_log_prepare(s->log, u, &params.stdout_fd, &params.stderr_fd, &log_error);
        if (r < 0) {
                log_error("%s: %s", s->name, strna(log_error));
                goto fail;
        }
        r = spawn_process(&params, &proc, &report_fd);
        service_log_spawned(s->log);
        if (r < 0)
                goto fail;

        s->main = proc;
        s->main_pid1 = params.private_pids;
        s->execed = false;
        s->have_reported_exit = false;
        s->have_spawn_failure = false;
        s->exit_info_retries = 0;
        s->exit_wait_hangup = false;
        s->ready = false;
        s->failing = false;
        s->stop_by_notify = false;
        free(s->status_text);
        s->status_text = NULL;
        s->status_errno = -1;
        s->watchdog_usec = u->watchdog_usec;
        s->active_enter_usec = now_realtime_usec();
        s->report_fd = TAKE_FD(report_fd);
        /* A child spawned the vfork way (spawn.h) has exec'd or failed by
         * now and its report is complete: read at once, no event source. */
        service_drain_report(s);
        r = sd_event_add_io(m->event, &s->exit_source, s->main.pidfd, EPOLLIN, on_exit_event, s);
        if (r >= 0 && s->report_fd >= 0)
                r = sd_event_add_io(m->event, &s->report_source, s->report_fd, EPOLLIN, on_report_event, s);
        if (r < 0) {
                /* Cannot watch it, so it must not run unwatched. */
                process_kill_and_reap(&s->main);
                service_unwatch(s);
                goto fail;
        }
        log_debug("%s: spawned pid %d (%s)", s->name, (int) s->main.pid, spawn_mode_to_string(s->main.mode));
        /* Type=simple is running once created; Start still waits for the exec (service_note_execed). */
        service_set_state(s, u->type == SERVICE_TYPE_SIMPLE ? SERVICE_RUNNING : SERVICE_STARTING);
        if (s->report_fd < 0 && s->execed && !s->have_spawn_failure)
                service_note_execed(s);
        if (IN_SET(u->type, SERVICE_TYPE_NOTIFY, SERVICE_TYPE_ONESHOT)) {
                r = service_arm_timer(s, u->timeout_start_usec, on_start_timeout);
                if (r < 0)
                        log_warning_errno(r, "%s: Failed to arm TimeoutStartSec=, waiting without: %m", s->name);
        }
        return 0;

fail:
        {
                char *msg = NULL;
                /* The cgroup may be what failed (removed under svd's feet:
                 * CLONE_INTO_CGROUP says ENOENT): the next start opens it anew. */
                s->cgroup_fd = safe_close(s->cgroup_fd);
                if (asprintf(&msg, "Failed to spawn '%s': %s", u->exec_start[0], strerror(-r)) < 0)
                        msg = NULL;
                service_set_last_error(s, msg);
                log_error_errno(r, "%s: Failed to spawn '%s': %m", s->name, u->exec_start[0]);
                s->spawn_error = true; /* service_start_failed answers with SpawnFailed */
                service_enter_dead(s, SERVICE_FAILURE_RESOURCES, /* allow_restart= */ true);
                return r;
        }
}

/* ---- exits ---- */

static bool exit_is_clean_signal(int sig) {
        /* As systemd: these are how a service is asked to stop, so ending by
         * one of them is a clean exit. */
        return IN_SET(sig, SIGHUP, SIGINT, SIGTERM, SIGPIPE);
}

static ServiceResult result_from_exit(const ExitStatus *st) {
        switch (st->code) {
        case CLD_EXITED:
                return st->status == 0 ? SERVICE_SUCCESS : SERVICE_FAILURE_EXIT_CODE;
        case CLD_KILLED:
                return exit_is_clean_signal(st->status) ? SERVICE_SUCCESS : SERVICE_FAILURE_SIGNAL;
        case CLD_DUMPED:
                return SERVICE_FAILURE_CORE_DUMP;
        default:
                return SERVICE_FAILURE_SIGNAL;
        }
}

static bool service_should_restart(Service *s, ServiceResult result) {
        if (s->manager->shutting_down || !s->want_running || result == SERVICE_FAILURE_START_LIMIT_HIT)
                return false;
        /* systemd.service(5), "Table 2. Exit causes and the effect of the Restart= settings". */
        switch (s->unit->restart) {
        case RESTART_ALWAYS:
                return true;
        case RESTART_ON_FAILURE:
                return result != SERVICE_SUCCESS;
        case RESTART_ON_SUCCESS:
                return result == SERVICE_SUCCESS;
        case RESTART_ON_ABNORMAL:
                return IN_SET(result, SERVICE_FAILURE_SIGNAL, SERVICE_FAILURE_CORE_DUMP, SERVICE_FAILURE_TIMEOUT,
                              SERVICE_FAILURE_WATCHDOG);
        case RESTART_ON_WATCHDOG:
                return result == SERVICE_FAILURE_WATCHDOG;
        case RESTART_ON_ABORT:
                return IN_SET(result, SERVICE_FAILURE_SIGNAL, SERVICE_FAILURE_CORE_DUMP);
        default:
                return false;
        }
}

/* StartLimitIntervalSec=/StartLimitBurst=: whether one more start fits into the window (systemd's
 * ratelimit_below()). A start by hand opens a new window (service_start_now). */
static bool service_start_limit_test(Service *s) {
        const Unit *u = s->unit;
        uint64_t now = now_monotonic_usec();

        if (u->start_limit_interval_usec == 0 || u->start_limit_burst == 0)
                return true;
        if (s->start_limit_begin == 0 ||
            (u->start_limit_interval_usec != USEC_INFINITY && now - s->start_limit_begin >= u->start_limit_interval_usec)) {
                s->start_limit_begin = now;
                s->start_limit_count = 0;
        }
        if (s->start_limit_count < u->start_limit_burst) {
                s->start_limit_count++;
                return true;
        }
        return false;
}

static int on_restart_timer(sd_event_source *source, uint64_t usec, void *userdata) {
        Service *s = userdata;

        assert(s->state == SERVICE_AUTO_RESTART);
        service_unset_timer(s);
        if (!service_start_limit_test(s)) {
                char t[FORMAT_TIMESPAN_MAX], *msg = NULL;
                if (asprintf(&msg,
                             "start limit hit: %u starts within StartLimitIntervalSec=%s (StartLimitBurst=%u); "
                             "'svctl reset-failed %s' clears it",
                             s->start_limit_count, format_timespan(t, sizeof(t), s->unit->start_limit_interval_usec),
                             s->unit->start_limit_burst, s->name) < 0)
                        msg = NULL;
                log_error("%s: Start request repeated too quickly, refusing to start: %s", s->name,
                          msg ? msg : "start limit hit");
                service_set_last_error(s, msg);
                s->result = SERVICE_FAILURE_START_LIMIT_HIT;
                s->want_running = false;
                service_set_state(s, SERVICE_FAILED);
                return 0;
        }
        s->restarts++;
        s->result = SERVICE_SUCCESS; /* the failure that caused the restart is history now */
        log_info("%s: restarting (restart %u)", s->name, s->restarts);
        (void) service_spawn(s);
        return 0;
}

static void service_settle_dead(Service *s, ServiceResult result, bool allow_restart);

/* No process any more: settle in inactive/failed or schedule a restart. A
 * start that waited is answered after that, so that a client that hears of
 * the failure sees the state it left behind. */
static void service_enter_dead(Service *s, ServiceResult result, bool allow_restart) {
        service_settle_dead(s, result, allow_restart);
        if (!s->ready && !(s->execed && s->unit->type == SERVICE_TYPE_ONESHOT && s->result == SERVICE_SUCCESS))
                service_start_failed(s);
}

static void service_settle_dead(Service *s, ServiceResult result, bool allow_restart) {
        if (s->result == SERVICE_SUCCESS || result != SERVICE_SUCCESS)
                s->result = result;

        /* Type=oneshot: a successful exit is what its start waited for. */
        bool oneshot_done = !s->ready && s->execed && s->unit->type == SERVICE_TYPE_ONESHOT &&
                            s->result == SERVICE_SUCCESS;
        if (oneshot_done && s->unit->remain_after_exit) {
                service_unset_timer(s);
                service_set_state(s, SERVICE_EXITED);
                service_ready(s);
                return;
        }
        if (allow_restart && service_should_restart(s, s->result)) {
                uint64_t delay = unit_restart_delay_usec(s->unit, s->restarts + 1);
                int r = service_arm_timer(s, delay, on_restart_timer);
                if (r >= 0) {
                        if (delay != s->unit->restart_usec)
                                log_info("%s: restarting in %s (back-off step %u).", s->name,
                                         format_timespan((char[FORMAT_TIMESPAN_MAX]){}, FORMAT_TIMESPAN_MAX, delay),
                                         s->restarts + 1);
                        service_set_state(s, SERVICE_AUTO_RESTART);
                        if (oneshot_done)
                                service_ready(s);
                        return;
                }
                log_error_errno(r, "%s: Failed to schedule restart: %m", s->name);
        }
        service_unset_timer(s);
        s->want_running = false;
        service_set_state(s, s->result == SERVICE_SUCCESS ? SERVICE_INACTIVE : SERVICE_FAILED);
        if (oneshot_done)
                service_ready(s);
}

static void service_note_spawn_failure(Service *s) {
        const SpawnFailure *f = &s->spawn_failure;
        const char *stage = spawn_stage_to_string(f->stage);
        char *msg = NULL;
        int r;

        if (f->stage == SPAWN_STAGE_EXEC)
                r = asprintf(&msg, "exec %s: %s", s->unit->exec_start[0], strerror(f->error));
        else
                r = asprintf(&msg, "failed at %s: %s", strna(stage), strerror(f->error));
        if (r < 0)
                msg = NULL;
        log_error("%s: %s", s->name, msg ? msg : "spawn failed");
        service_set_last_error(s, msg);

        /* The start that waits for it is answered once the child's exit
         * has put the service in its final state (service_start_failed). */
}

/* Reads what the child reported: failure records, the PID-namespace init's
 * "exec'd" and "exited" records, or EOF (without an init: it exec'd). */
static void service_drain_report(Service *s) {
        while (s->report_fd >= 0) {
                SpawnFailure f;
                int r = spawn_read_failure(s->report_fd, &f);
                if (r == -EAGAIN)
                        return;
                if (r <= 0) {
                        if (r < 0)
                                log_warning_errno(r, "%s: Failed to read spawn report, ignoring: %m", s->name);
                        s->report_source = sd_event_source_disable_unref(s->report_source);
                        s->report_fd = safe_close(s->report_fd);
                        if (!s->main_pid1 && !s->have_spawn_failure)
                                s->execed = true;
                        return;
                }
                if (f.stage == SPAWN_REPORT_EXECED)
                        s->execed = true;
                else if (f.stage == SPAWN_REPORT_EXIT_STATUS) {
                        s->reported_exit = exit_status_from_wait_status(f.error);
                        s->have_reported_exit = true;
                } else if (!s->have_spawn_failure) {
                        s->spawn_failure = f;
                        s->have_spawn_failure = true;
                        service_note_spawn_failure(s);
                }
        }
}

/* The command has exec'd: the start is complete for Type=exec (running now) and Type=simple (running
 * already); notify and oneshot wait on. */
static void service_note_execed(Service *s) {
        if (s->state == SERVICE_STARTING && s->unit->type == SERVICE_TYPE_EXEC) {
                log_debug("%s: exec'd, pid %d", s->name, (int) s->main.pid);
                service_set_state(s, SERVICE_RUNNING);
        } else if (s->state == SERVICE_RUNNING && !s->ready) {
                log_debug("%s: exec'd, pid %d", s->name, (int) s->main.pid);
                service_ready(s);
        }
}

static int on_report_event(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        Service *s = userdata;

        service_drain_report(s);
        if (s->execed && !s->have_spawn_failure)
                service_note_execed(s);
        return 0;
}

static void service_finish_exit(Service *s);
static int service_kill_leftovers(Service *s);

static void service_handle_exit(Service *s, const ExitStatus *exit_status) {
        ServiceState was = s->state;
        const ExitStatus *st = exit_status;

        /* Its last words go into the log before its state changes. */
        service_log_drain(s->log);
        /* The child wrote its report before it exited, and its end of the
         * pipe closed when it exec'd or died, so the report is complete now. */
        service_drain_report(s);
        if (!s->have_spawn_failure &&
            ((was == SERVICE_STARTING && s->unit->type == SERVICE_TYPE_EXEC) || (was == SERVICE_RUNNING && !s->ready))) {
                s->execed = true; /* it did exec: Start succeeded */
                service_note_execed(s);
                was = SERVICE_RUNNING;
        }
        /* After STOPPING=1 the exit is the service's own doing, judged by its status. */
        if (s->stop_by_notify && IN_SET(was, SERVICE_STOPPING, SERVICE_KILLING))
                was = s->ready ? SERVICE_RUNNING : SERVICE_STARTING;

        service_unwatch(s);
        process_done(&s->main);
        service_unset_timer(s);

        /* With PrivatePIDs= the process svd watched is our init; what counts
         * is how the command ended, which init reported. */
        if (s->have_reported_exit)
                st = &s->reported_exit;
        s->have_exit = true;
        s->last_exit = *st;
        if (st->code == CLD_EXITED)
                log_info("%s: main process exited, status=%d", s->name, st->status);
        else
                log_info("%s: main process %s, signal=%s", s->name, strna(exit_code_to_string(st->code)),
                         strna(signal_to_string(st->status)));

        ServiceResult result;
        if (s->have_spawn_failure)
                result = SERVICE_FAILURE_EXEC;
        else if (IN_SET(was, SERVICE_STOPPING, SERVICE_KILLING))
                result = SERVICE_SUCCESS; /* we asked it to go; a timeout was recorded already */
        else
                result = result_from_exit(st);
        if (was == SERVICE_STARTING && !s->have_spawn_failure && s->unit->type != SERVICE_TYPE_ONESHOT) {
                char *msg = NULL;
                if (asprintf(&msg, "%s %s%d before it reported READY=1", strna(exit_code_to_string(st->code)),
                             st->code == CLD_EXITED ? "with status " : "by signal ", st->status) < 0)
                        msg = NULL;
                service_set_last_error(s, msg);
                if (result == SERVICE_SUCCESS)
                        result = SERVICE_FAILURE_EXIT_CODE; /* gone before ready is no success */
        } else if (was == SERVICE_STARTING && !s->have_spawn_failure && result != SERVICE_SUCCESS) {
                char *msg = NULL;
                if (asprintf(&msg, "%s %s%d", strna(exit_code_to_string(st->code)),
                             st->code == CLD_EXITED ? "with status " : "by signal ", st->status) < 0)
                        msg = NULL;
                service_set_last_error(s, msg);
        }
        s->exit_was = was;
        s->exit_result = result;

        if (service_kill_leftovers(s) > 0)
                return; /* on_cgroup_event finishes once the cgroup is empty */
        service_finish_exit(s);
}

/* The main process is gone; the rest of its tree goes now. */
static void service_finish_exit(Service *s) {
        ServiceState was = s->exit_was;
        bool start_pending = false;

        if (s->cgroup_fd >= 0) {
                /* Empty now; the next start gets a fresh one (see cgroup.h). */
                s->cgroup_fd = safe_close(s->cgroup_fd);
                int r = cgroup_service_remove(&s->manager->cgroup, s->name);
                if (r < 0)
                        log_debug_errno(r, "%s: Failed to remove cgroup, ignoring: %m", s->name);
        }

        if (was == SERVICE_STARTING || s->failing || s->have_spawn_failure) {
                /* The start ended (oneshot) or failed, or svd stopped it for a failure: policy decides. */
                service_enter_dead(s, s->exit_result, /* allow_restart= */ true);
                return;
        }
        for (ServiceWaiter *w = s->waiters; w; w = w->next)
                if ((1U << w->op) & OPS_START)
                        start_pending = true;
        if ((IN_SET(was, SERVICE_STOPPING, SERVICE_KILLING) || start_pending) && s->want_running &&
            !s->manager->shutting_down) {
                /* A restart asked for by a client: start again at once. */
                if (s->result == SERVICE_FAILURE_TIMEOUT)
                        s->result = SERVICE_SUCCESS;
                (void) service_spawn(s);
                return;
        }
        service_enter_dead(s, s->exit_result,
                           /* allow_restart= */ !IN_SET(was, SERVICE_STOPPING, SERVICE_KILLING));
}

static void service_unwatch_cgroup(Service *s) {
        s->cgroup_source = sd_event_source_disable_unref(s->cgroup_source);
        s->cgroup_events_fd = safe_close(s->cgroup_events_fd);
}

static int on_cgroup_event(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        Service *s = userdata;
        int r = cgroup_events_populated(fd);
        if (r > 0)
                return 0;
        if (r < 0)
                log_warning_errno(r, "%s: Failed to read cgroup.events, assuming empty: %m", s->name);
        service_unwatch_cgroup(s);
        service_finish_exit(s);
        return 0;
}

/* SIGKILLs what the main process left in the service's cgroup. Returns 1
 * when there was something and the caller must wait for on_cgroup_event,
 * 0 when the cgroup is empty (or there is none). A cgroup whose only
 * members are exiting (cgroup.procs empty, still populated: the main
 * process on its way out) is waited for without a kill, and a service
 * that is stopping stays "stopping" meanwhile: nothing was left behind. */
static int service_kill_leftovers(Service *s) {
        int r;

        if (s->cgroup_fd < 0)
                return 0;
        /* Watch first, then kill, then look: no change can slip in between. */
        r = cgroup_open_events(s->cgroup_fd, &s->cgroup_events_fd);
        if (r < 0)
                return log_warning_errno(r, "%s: Failed to open cgroup.events: %m", s->name), 0;
        r = cgroup_events_populated(s->cgroup_events_fd);
        if (r <= 0) {
                service_unwatch_cgroup(s);
                return 0;
        }
        bool leftovers = cgroup_has_processes(s->cgroup_fd) != 0; /* an error: kill to be sure */
        if (leftovers) {
                log_info("%s: killing the processes the main process left behind.", s->name);
                r = cgroup_kill(s->cgroup_fd);
                if (r < 0)
                        log_error_errno(r, "%s: Failed to write cgroup.kill: %m", s->name);
        } else
                log_debug("%s: waiting for the exiting processes to leave the cgroup.", s->name);
        r = sd_event_add_io(s->manager->event, &s->cgroup_source, s->cgroup_events_fd, EPOLLPRI, on_cgroup_event,
                            s);
        if (r < 0) {
                log_error_errno(r, "%s: Failed to watch cgroup.events: %m", s->name);
                service_unwatch_cgroup(s);
                return 0;
        }
        if (cgroup_events_populated(s->cgroup_events_fd) == 0) {
                service_unwatch_cgroup(s);
                return 0;
        }
        if (leftovers || !IN_SET(s->state, SERVICE_STOPPING, SERVICE_KILLING))
                service_set_state(s, SERVICE_KILLING);
        return 1;
}

static int on_exit_info_retry(sd_event_source *source, uint64_t usec, void *userdata);

static void service_collect_exit(Service *s, bool hangup) {
        ExitStatus st;
        int r = process_exit_status(&s->main, &st);
        if (r == -EAGAIN && !hangup && !s->exit_wait_hangup) {
                /* An autoreaped child's pidfd polls readable when it exits,
                 * which can be before the kernel has released it and
                 * published PIDFD_INFO_EXIT; the release comes with EPOLLHUP
                 * and its own wake-up, after which the status is there. Ask
                 * for hang-up only (epoll always reports it), so that the
                 * level-triggered EPOLLIN does not spin the loop meanwhile. */
                r = sd_event_source_set_io_events(s->exit_source, 0);
                if (r >= 0) {
                        s->exit_wait_hangup = true;
                        return;
                }
                r = -EAGAIN;
        }
        if (r == -EAGAIN && s->exit_info_retries++ < SERVICE_EXIT_INFO_RETRIES) {
                /* Hung up and still nothing (should not happen), or hang-up
                 * could not be asked for: ask again shortly, bounded. */
                (void) sd_event_source_set_enabled(s->exit_source, SD_EVENT_OFF);
                r = service_arm_timer(s, SERVICE_EXIT_INFO_RETRY_USEC, on_exit_info_retry);
                if (r >= 0)
                        return;
        }
        if (r < 0) {
                log_warning_errno(r, "%s: Failed to read exit status, assuming killed: %m", s->name);
                st = (ExitStatus){ .code = CLD_KILLED, .status = SIGKILL };
        }
        service_handle_exit(s, &st);
}

static int on_exit_info_retry(sd_event_source *source, uint64_t usec, void *userdata) {
        Service *s = userdata;
        service_unset_timer(s);
        service_collect_exit(s, /* hangup= */ true);
        return 0;
}

static int on_exit_event(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        service_collect_exit(userdata, revents & EPOLLHUP);
        return 0;
}

/* ---- stopping ---- */

static int on_stop_timeout(sd_event_source *source, uint64_t usec, void *userdata) {
        Service *s = userdata;

        service_unset_timer(s);
        log_warning("%s: stop timed out after %s, killing", s->name,
                    format_timespan((char[64]){}, 64, s->unit->timeout_stop_usec));
        s->result = SERVICE_FAILURE_TIMEOUT;
        int r = process_kill(&s->main, SIGKILL);
        if (r < 0 && r != -ESRCH)
                log_error_errno(r, "%s: Failed to send SIGKILL: %m", s->name);
        service_set_state(s, SERVICE_KILLING);
        return 0;
}

static void service_enter_stopping_signal(Service *s, int sig) {
        assert(process_is_set(&s->main));

        int r = process_kill(&s->main, sig);
        if (r < 0 && r != -ESRCH)
                log_error_errno(r, "%s: Failed to send %s: %m", s->name, strna(signal_to_string(sig)));
        r = service_arm_timer(s, s->unit->timeout_stop_usec, on_stop_timeout);
        if (r < 0) {
                log_error_errno(r, "%s: Failed to arm stop timeout, killing now: %m", s->name);
                (void) process_kill(&s->main, SIGKILL);
                service_set_state(s, SERVICE_KILLING);
                return;
        }
        service_set_state(s, SERVICE_STOPPING);
}

static void service_enter_stopping(Service *s) {
        service_enter_stopping_signal(s, s->unit->kill_signal);
}

/* svd ends the service because of a failure (start timeout, watchdog): the exit that follows is
 * judged by `result`, and Restart= applies. */
static void service_enter_failure_stop(Service *s, ServiceResult result, int sig) {
        if (s->result == SERVICE_SUCCESS)
                s->result = result;
        s->failing = true;
        if (!s->ready)
                service_start_failed(s);
        service_enter_stopping_signal(s, sig);
}

static int on_start_timeout(sd_event_source *source, uint64_t usec, void *userdata) {
        Service *s = userdata;
        char t[FORMAT_TIMESPAN_MAX], *msg = NULL;

        service_unset_timer(s);
        if (asprintf(&msg, "%s within TimeoutStartSec=%s",
                     s->unit->type == SERVICE_TYPE_ONESHOT ? "did not finish" : "did not report READY=1",
                     format_timespan(t, sizeof(t), s->unit->timeout_start_usec)) < 0)
                msg = NULL;
        log_warning("%s: start timed out: %s, stopping.", s->name, msg ? msg : "timeout");
        service_set_last_error(s, msg);
        service_enter_failure_stop(s, SERVICE_FAILURE_TIMEOUT, s->unit->kill_signal);
        return 0;
}

static void service_watchdog_failed(Service *s, char *msg) {
        log_error("%s: %s, aborting it.", s->name, msg ? msg : "watchdog timeout");
        service_set_last_error(s, msg);
        s->watchdog_source = sd_event_source_disable_unref(s->watchdog_source);
        /* systemd's WatchdogSignal= default: SIGABRT, for a core dump of the hung process. */
        service_enter_failure_stop(s, SERVICE_FAILURE_WATCHDOG, SIGABRT);
}

static int on_watchdog_timeout(sd_event_source *source, uint64_t usec, void *userdata) {
        Service *s = userdata;
        char t[FORMAT_TIMESPAN_MAX], *msg = NULL;

        if (asprintf(&msg, "watchdog timeout: no WATCHDOG=1 within %s",
                     format_timespan(t, sizeof(t), s->watchdog_usec)) < 0)
                msg = NULL;
        service_watchdog_failed(s, msg);
        return 0;
}

void service_notify(Service *s, pid_t pid, const NotifyMessage *msg) {
        assert(s);
        assert(msg);

        if (!s->unit || !process_is_set(&s->main))
                return;
        if (s->unit->type != SERVICE_TYPE_NOTIFY && s->unit->watchdog_usec == 0) {
                log_debug("%s: notify message from pid %d, but Type=%s and no WatchdogSec=, ignoring.", s->name,
                          (int) pid, service_type_to_string(s->unit->type));
                return;
        }
        if (msg->main_pid > 0 && msg->main_pid != s->main.pid)
                log_debug("%s: MAINPID=%d ignored: svd follows the process it started.", s->name, (int) msg->main_pid);
        if (msg->status) {
                char *c = strdup(msg->status);
                if (c) {
                        free(s->status_text);
                        s->status_text = c;
                }
        }
        if (msg->errno_value >= 0)
                s->status_errno = msg->errno_value;
        if (msg->watchdog_usec > 0) {
                s->watchdog_usec = msg->watchdog_usec;
                service_arm_watchdog(s);
        }
        if (msg->watchdog_trigger) {
                service_watchdog_failed(s, strdup("the service triggered its watchdog (WATCHDOG=trigger)"));
                return;
        }
        if (msg->watchdog)
                service_arm_watchdog(s);

        if (msg->ready && s->state == SERVICE_STARTING && s->unit->type == SERVICE_TYPE_NOTIFY) {
                log_debug("%s: READY=1 from pid %d", s->name, (int) pid);
                s->execed = true; /* it runs our command, so it exec'd */
                service_unset_timer(s); /* TimeoutStartSec= */
                service_set_state(s, SERVICE_RUNNING);
        } else if (msg->ready && s->state == SERVICE_RELOADING)
                service_set_state(s, SERVICE_RUNNING);
        if (msg->reloading && s->state == SERVICE_RUNNING && s->unit->type == SERVICE_TYPE_NOTIFY)
                service_set_state(s, SERVICE_RELOADING);
        if (msg->stopping && IN_SET(s->state, SERVICE_STARTING, SERVICE_RUNNING, SERVICE_RELOADING)) {
                s->stop_by_notify = true;
                int r = service_arm_timer(s, s->unit->timeout_stop_usec, on_stop_timeout);
                if (r < 0)
                        log_warning_errno(r, "%s: Failed to arm TimeoutStopSec=: %m", s->name);
                service_set_state(s, SERVICE_STOPPING);
        }
}

/* ---- operations ---- */

static bool service_refuse(Service *s, VarlinkCall *call) {
        if (!s->unit) {
                if (call)
                        (void) varlink_call_error(call, "io.svd.Manager.UnitNotLoaded",
                                                  json_pack("{s:s,s:s}", "name", s->name, "message",
                                                            strna(s->load_error)));
                return true;
        }
        if (s->manager->shutting_down) {
                if (call)
                        (void) varlink_call_error(call, "io.svd.Manager.SpawnFailed",
                                                  json_pack("{s:s,s:s}", "name", s->name, "message",
                                                            "svd is shutting down"));
                return true;
        }
        return false;
}

void service_start(Service *s, VarlinkCall *call) {
        assert(s);

        if (service_refuse(s, call))
                return;
        if (service_add_waiter(s, call, SERVICE_OP_START) < 0)
                return;
        service_cancel_waiters(s, OPS_STOP);
        s->want_running = true;
        if (s->job == SERVICE_JOB_STOP)
                s->job = SERVICE_JOB_NONE;

        switch (s->state) {
        case SERVICE_RUNNING:
        case SERVICE_RELOADING:
        case SERVICE_EXITED:
                if (s->ready)
                        service_answer_waiters(s, OPS_START, NULL, NULL);
                break; /* else Type=simple before its exec: service_note_execed answers */
        case SERVICE_STARTING:
        case SERVICE_STOPPING:
        case SERVICE_KILLING:
                break; /* readiness or the exit handler finishes the job */
        case SERVICE_AUTO_RESTART:
        case SERVICE_INACTIVE:
        case SERVICE_FAILED:
                deps_queue_start(s); /* deps_dispatch() calls service_start_now() when its turn comes */
                break;
        default:
                assert(!"bad state");
        }
}

void service_start_now(Service *s) {
        assert(s);

        if (!s->unit || s->manager->shutting_down) {
                deps_job_done(s, /* success= */ false, "svd is shutting down");
                return;
        }
        switch (s->state) {
        case SERVICE_AUTO_RESTART:
                service_unset_timer(s);
                _fallthrough_;
        case SERVICE_INACTIVE:
        case SERVICE_FAILED:
                s->restarts = 0;
                s->result = SERVICE_SUCCESS;
                /* A start by hand opens a new StartLimitIntervalSec= window and counts in it. */
                s->start_limit_begin = now_monotonic_usec();
                s->start_limit_count = 1;
                (void) service_spawn(s);
                break;
        default:
                break;
        }
}

void service_fail_dependency(Service *s, Service *dep, const char *reason) {
        char *msg = NULL;

        assert(s);
        assert(dep);

        if (asprintf(&msg, "dependency '%s' failed to start: %s", dep->name, reason ? reason : "failed") < 0)
                msg = NULL;
        log_error("%s: Failed to start: %s", s->name, msg ? msg : "a dependency failed");
        service_set_last_error(s, msg);
        s->want_running = false;
        service_answer_waiters(s, OPS_START, "io.svd.Manager.DependencyFailed",
                               json_pack("{s:s,s:s,s:s}", "name", s->name, "dependency", dep->name, "message",
                                         msg ? msg : "a dependency failed"));
        deps_job_done(s, /* success= */ false, msg ? msg : "a dependency failed");
}

void service_stop(Service *s, VarlinkCall *call) {
        assert(s);

        if (service_add_waiter(s, call, SERVICE_OP_STOP) < 0)
                return;
        service_cancel_waiters(s, OPS_START);
        s->want_running = false;
        s->stop_by_notify = false;
        if (IN_SET(s->job, SERVICE_JOB_START, SERVICE_JOB_STARTING))
                deps_job_done(s, /* success= */ false, "cancelled by a stop");
        if (s->job == SERVICE_JOB_STOP || deps_queue_stop(s))
                return; /* deps_dispatch() calls service_stop_now() when the units before it are gone */
        service_stop_now(s);
}

void service_stop_now(Service *s) {
        assert(s);

        switch (s->state) {
        case SERVICE_INACTIVE:
        case SERVICE_FAILED:
                service_answer_waiters(s, OPS_STOP, NULL, NULL);
                break;
        case SERVICE_AUTO_RESTART:
                service_unset_timer(s);
                service_set_state(s, SERVICE_INACTIVE);
                break;
        case SERVICE_EXITED:
                service_set_state(s, SERVICE_INACTIVE);
                break;
        case SERVICE_STARTING:
        case SERVICE_RUNNING:
        case SERVICE_RELOADING:
                service_enter_stopping(s);
                break;
        case SERVICE_STOPPING:
        case SERVICE_KILLING:
                break;
        default:
                assert(!"bad state");
        }
}

void service_restart(Service *s, VarlinkCall *call) {
        assert(s);

        if (service_refuse(s, call))
                return;
        s->failing = false;
        s->stop_by_notify = false;
        if (s->state == SERVICE_EXITED)
                service_set_state(s, SERVICE_INACTIVE); /* nothing to stop: start again */
        if (!IN_SET(s->state, SERVICE_STARTING, SERVICE_RUNNING, SERVICE_RELOADING, SERVICE_STOPPING,
                    SERVICE_KILLING)) {
                service_start(s, call);
                return;
        }
        if (service_add_waiter(s, call, SERVICE_OP_RESTART) < 0)
                return;
        service_cancel_waiters(s, OPS_STOP | (1U << SERVICE_OP_START));
        s->want_running = true;
        s->restarts = 0;
        if (IN_SET(s->state, SERVICE_STARTING, SERVICE_RUNNING, SERVICE_RELOADING))
                service_enter_stopping(s);
}

int service_kill(Service *s, int sig) {
        assert(s);
        if (!process_is_set(&s->main))
                return -ESRCH;
        log_info("%s: sending %s on request.", s->name, strna(signal_to_string(sig)));
        return process_kill(&s->main, sig);
}

bool service_is_settled(const Service *s) {
        if (s->job != SERVICE_JOB_NONE)
                return false;
        return IN_SET(s->state, SERVICE_INACTIVE, SERVICE_FAILED) || (s->state == SERVICE_AUTO_RESTART && s->manager->shutting_down);
}

bool service_is_active(const Service *s) {
        return IN_SET(s->state, SERVICE_RUNNING, SERVICE_RELOADING, SERVICE_EXITED) && s->ready;
}

bool service_reset_failed(Service *s) {
        bool was_failed = s->state == SERVICE_FAILED;

        assert(s);

        s->start_limit_begin = 0;
        s->start_limit_count = 0;
        if (IN_SET(s->state, SERVICE_INACTIVE, SERVICE_FAILED)) {
                s->result = SERVICE_SUCCESS;
                s->restarts = 0;
                service_set_last_error(s, NULL);
        }
        if (was_failed)
                service_set_state(s, SERVICE_INACTIVE);
        return was_failed;
}

/* ---- life cycle ---- */

int service_new(Manager *m, const char *name, const char *unit_path, Unit *unit, const char *load_error,
                Service **ret) {
        _cleanup_(service_freep) Service *s = NULL;

        assert(m);
        assert(name);
        assert(ret);

        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        *s = (Service){
                .manager = m,
                .main = PROCESS_NULL,
                .report_fd = -EBADF,
                .cgroup_fd = -EBADF,
                .cgroup_events_fd = -EBADF,
                .state = SERVICE_INACTIVE,
                .result = SERVICE_SUCCESS,
                .state_change_usec = now_realtime_usec(),
                .status_errno = -1,
        };
        s->state_enter_usec[SERVICE_INACTIVE] = s->state_change_usec;
        s->name = strdup(name);
        s->unit_path = strdup(unit_path ? unit_path : "");
        if (!s->name || !s->unit_path || service_log_new(m->event, s->name, &s->log) < 0)
                return -ENOMEM;
        if (load_error && !(s->load_error = strdup(load_error)))
                return -ENOMEM;

        if (unit) {
                char *err = NULL;
                int r = credentials_resolve(unit->user, unit->group, unit->supplementary_groups, &s->creds, &err);
                if (r < 0) {
                        if (err)
                                r = asprintf(&s->load_error, "%s: %s", s->unit_path, err) < 0 ? -ENOMEM : 0;
                        else
                                r = asprintf(&s->load_error, "%s: Failed to resolve User=/Group=: %s",
                                             s->unit_path, strerror(-r)) < 0 ? -ENOMEM : 0;
                        free(err);
                        unit_free(unit);
                        if (r < 0)
                                return r;
                } else
                        s->unit = unit;
        }

        *ret = TAKE_PTR(s);
        return 0;
}

Service *service_free(Service *s) {
        if (!s)
                return NULL;
        while (s->waiters) {
                ServiceWaiter *w = s->waiters;
                VarlinkCall *call = w->call;
                varlink_call_set_cancel(call, NULL, NULL);
                waiter_unlink(w);
                (void) varlink_call_error(call, "io.svd.Manager.Cancelled", json_pack("{s:s}", "name", s->name));
        }
        service_unwatch(s);
        service_unset_timer(s);
        s->watchdog_source = sd_event_source_disable_unref(s->watchdog_source);
        free(s->status_text);
        service_deps_done(&s->deps);
        s->cgroup_source = sd_event_source_disable_unref(s->cgroup_source);
        s->cgroup_events_fd = safe_close(s->cgroup_events_fd);
        s->cgroup_fd = safe_close(s->cgroup_fd);
        if (process_is_set(&s->main) && s->main.mode == SPAWN_MODE_FALLBACK) {
                /* Only at exit with the service still up after its stop sequence. */
                (void) process_kill(&s->main, SIGKILL);
                (void) waitid(P_PIDFD, (id_t) s->main.pidfd, &(siginfo_t){}, WEXITED);
        }
        process_done(&s->main);
        credentials_done(&s->creds);
        s->log = service_log_free(s->log);
        unit_free(s->next_unit);
        free(s->next_load_error);
        unit_free(s->unit);
        free(s->name);
        free(s->unit_path);
        free(s->load_error);
        free(s->last_error);
        free(s);
        return NULL;
}

/* ---- wire representation ---- */

json_t *service_to_json(const Service *s) {
        json_t *o = json_object(), *argv = json_array();
        if (!o || !argv) {
                json_decref(o);
                json_decref(argv);
                return NULL;
        }
        for (char **a = s->unit ? s->unit->exec_start : NULL; a && *a; a++)
                json_array_append_new(argv, json_string(*a));

        json_object_set_new(o, "name", json_string(s->name));
        json_object_set_new(o, "description",
                            json_string(s->unit && s->unit->description ? s->unit->description : ""));
        json_object_set_new(o, "unitPath", json_string(s->unit_path));
        json_object_set_new(o, "loadState", json_string(s->removed ? "removed" : s->unit ? "loaded" : "error"));
        json_object_set_new(o, "loadError", s->load_error ? json_string(s->load_error) : json_null());
        json_object_set_new(o, "state", json_string(service_state_to_string(s->state)));
        json_object_set_new(o, "stateChangeUsec", json_integer((json_int_t) s->state_change_usec));
        json_t *enter = json_object();
        for (int i = 0; i < _SERVICE_STATE_MAX; i++)
                if (s->state_enter_usec[i] > 0)
                        json_object_set_new(enter, service_state_to_string(i),
                                            json_integer((json_int_t) s->state_enter_usec[i]));
        json_object_set_new(o, "stateEnterUsec", enter);
        json_object_set_new(o, "activeEnterUsec",
                            process_is_set(&s->main) ? json_integer((json_int_t) s->active_enter_usec)
                                                     : json_null());
        json_object_set_new(o, "pid", process_is_set(&s->main) ? json_integer(s->main.pid) : json_null());
        json_object_set_new(o, "result", json_string(service_result_to_string(s->result)));
        json_object_set_new(o, "lastExit",
                            s->have_exit ? json_pack("{s:s,s:i}", "code",
                                                     strna(exit_code_to_string(s->last_exit.code)), "status",
                                                     s->last_exit.status)
                                         : json_null());
        json_object_set_new(o, "lastError", s->last_error ? json_string(s->last_error) : json_null());
        json_object_set_new(o, "restarts", json_integer(s->restarts));
        json_object_set_new(o, "restart",
                            json_string(s->unit ? restart_policy_to_string(s->unit->restart) : "no"));
        json_object_set_new(o, "enabled", json_boolean(s->unit && s->unit->wanted_by_default));
        json_object_set_new(o, "mode", process_is_set(&s->main)
                                               ? json_string(spawn_mode_to_string(s->main.mode))
                                               : json_null());
        json_object_set_new(o, "execStart", argv);
        json_object_set_new(o, "type", json_string(s->unit ? service_type_to_string(s->unit->type) : "simple"));
        json_object_set_new(o, "statusText", s->status_text ? json_string(s->status_text) : json_null());
        json_object_set_new(o, "statusErrno", s->status_errno >= 0 ? json_integer(s->status_errno) : json_null());
        json_object_set_new(o, "job", s->job != SERVICE_JOB_NONE ? json_string(service_job_to_string(s->job))
                                                                 : json_null());
        static const char *const dep_keys[_UNIT_DEPENDENCY_MAX] = {
                [UNIT_REQUIRES] = "requires",
                [UNIT_WANTS] = "wants",
                [UNIT_AFTER] = "after",
                [UNIT_BEFORE] = "before",
        };
        for (UnitDependency d = 0; d < _UNIT_DEPENDENCY_MAX; d++) {
                json_t *a = json_array();
                for (char **n = s->unit ? s->unit->dependencies[d] : NULL; n && *n; n++)
                        json_array_append_new(a, json_string(*n));
                json_object_set_new(o, dep_keys[d], a);
        }
        json_object_set_new(o, "logDropped", json_integer((json_int_t) (s->log ? s->log->dropped : 0)));
        json_object_set_new(o, "wanted", json_string(wanted_override_to_string(s->wanted)));
        json_object_set_new(o, "restoredUsec",
                            s->restored_usec > 0 ? json_integer((json_int_t) s->restored_usec) : json_null());
        json_object_set_new(o, "reloadPending", json_boolean(s->have_next_unit));
        return o;
}

/* ---- re-exec ---- */

static const struct {
        const char *name;
        sd_event_time_handler_t cb;
} service_timers[] = {
        { "start-timeout", on_start_timeout },
        { "stop-timeout", on_stop_timeout },
        { "restart", on_restart_timer },
        /* An exit-info retry is not carried over: the pidfd, watched again, says it. */
};

static int lookup(const char *const *table, int n, const char *s) {
        for (int i = 0; s && i < n; i++)
                if (table[i] && streq(table[i], s))
                        return i;
        return -EINVAL;
}

static json_t *exit_status_to_json(const ExitStatus *st) {
        return json_pack("{s:i,s:i}", "code", st->code, "status", st->status);
}

static ExitStatus exit_status_from_json(json_t *o) {
        return (ExitStatus){ .code = (int) reexec_i64(o, "code", CLD_KILLED),
                             .status = (int) reexec_i64(o, "status", SIGKILL) };
}

static json_t *unit_to_json(const Unit *u) {
        return u ? reexec_bytes_to_json(u->source, u->source_len) : json_null();
}

#define SET(key, value)                                                         \
        do {                                                                    \
                if (json_object_set_new(o, key, value) < 0)                     \
                        goto oom;                                               \
        } while (false)

json_t *service_serialize(Service *s, ReexecFds *fds) {
        json_t *o = json_object(), *enter = json_object();
        uint64_t usec;

        if (!o || !enter) {
                json_decref(enter);
                goto oom;
        }
        SET("stateEnterUsec", enter);
        for (int i = 0; i < _SERVICE_STATE_MAX; i++)
                if (s->state_enter_usec[i] > 0 &&
                    json_object_set_new(enter, service_state_to_string(i), json_integer((json_int_t) s->state_enter_usec[i])) < 0)
                        goto oom;
        SET("name", json_string(s->name));
        SET("unitPath", json_string(s->unit_path));
        SET("unit", unit_to_json(s->unit));
        SET("loadError", s->load_error ? json_string(s->load_error) : json_null());
        SET("unitHash", json_integer((json_int_t) s->unit_hash));
        SET("removed", json_boolean(s->removed));
        if (s->have_next_unit)
                SET("nextUnit", json_pack("{s:o,s:o}", "unit", unit_to_json(s->next_unit), "loadError",
                                          s->next_load_error ? json_string(s->next_load_error) : json_null()));

        SET("state", json_string(service_state_to_string(s->state)));
        SET("wantRunning", json_boolean(s->want_running));
        SET("result", json_string(service_result_to_string(s->result)));
        SET("stateChangeUsec", json_integer((json_int_t) s->state_change_usec));
        SET("activeEnterUsec", json_integer((json_int_t) s->active_enter_usec));
        if (process_is_set(&s->main))
                SET("main", json_pack("{s:i,s:o,s:s,s:b}", "pid", (int) s->main.pid, "pidfd",
                                      reexec_fd_to_json(fds, s->main.pidfd), "mode", spawn_mode_to_string(s->main.mode),
                                      "reaped", s->main.reaped));
        SET("reportFd", reexec_fd_to_json(fds, s->report_fd));
        SET("mainPid1", json_boolean(s->main_pid1));
        SET("execed", json_boolean(s->execed));
        if (s->have_reported_exit)
                SET("reportedExit", exit_status_to_json(&s->reported_exit));
        if (s->have_exit)
                SET("lastExit", exit_status_to_json(&s->last_exit));
        if (s->have_spawn_failure)
                SET("spawnFailure", json_pack("{s:i,s:i}", "stage", (int) s->spawn_failure.stage, "errno",
                                              s->spawn_failure.error));
        SET("spawnError", json_boolean(s->spawn_error));
        SET("cgroupFd", reexec_fd_to_json(fds, s->cgroup_fd));
        /* Waiting for the cgroup to empty after the main process exited. */
        if (s->cgroup_source) {
                SET("cgroupEventsFd", reexec_fd_to_json(fds, s->cgroup_events_fd));
                SET("exitWas", json_string(service_state_to_string(s->exit_was)));
                SET("exitResult", json_string(service_result_to_string(s->exit_result)));
        }
        SET("lastError", s->last_error ? json_string(s->last_error) : json_null());
        SET("restarts", json_integer(s->restarts));
        SET("wanted", json_string(wanted_override_to_string(s->wanted)));
        SET("restoredUsec", json_integer((json_int_t) s->restored_usec));
        SET("ready", json_boolean(s->ready));
        SET("failing", json_boolean(s->failing));
        SET("stopByNotify", json_boolean(s->stop_by_notify));
        SET("statusText", s->status_text ? json_string(s->status_text) : json_null());
        SET("statusErrno", json_integer(s->status_errno));
        SET("watchdogUsec", json_integer((json_int_t) s->watchdog_usec));
        if (s->watchdog_source && sd_event_source_get_time(s->watchdog_source, &usec) >= 0)
                SET("watchdogDeadline", json_integer((json_int_t) usec));
        SET("startLimitBegin", json_integer((json_int_t) s->start_limit_begin));
        SET("startLimitCount", json_integer(s->start_limit_count));
        SET("job", json_string(service_job_to_string(s->job)));
        for (size_t i = 0; s->timer_source && i < ELEMENTSOF(service_timers); i++)
                if (s->timer_cb == service_timers[i].cb && sd_event_source_get_time(s->timer_source, &usec) >= 0)
                        SET("timer", json_pack("{s:s,s:I}", "kind", service_timers[i].name, "deadline", (json_int_t) usec));
        SET("log", service_log_serialize(s->log, fds));
        return o;
oom:
        json_decref(o);
        return NULL;
}

#undef SET

static void on_unit_warning(const char *message, void *userdata) {
        log_debug("%s", message); /* said when it was first loaded */
}

/* Parses a unit as the previous svd had it. 0 with *ret_unit (or NULL and
 * *ret_error) as unit_load_string gives them. */
static int unit_from_json(json_t *j, const char *path, const char *name, Unit **ret_unit, char **ret_error) {
        _cleanup_free_ char *text = NULL;
        size_t len;

        *ret_unit = NULL;
        *ret_error = NULL;
        if (!j || json_is_null(j))
                return 0;
        int r = reexec_bytes_from_json(j, &text, &len);
        if (r < 0)
                return r;
        r = unit_load_string(text, len, path, name, on_unit_warning, NULL, ret_unit, ret_error);
        if (r < 0 && !*ret_error && asprintf(ret_error, "%s: %s", path, strerror(-r)) < 0)
                return -ENOMEM;
        return 0;
}

int service_deserialize(Manager *m, json_t *o, Service **ret) {
        _cleanup_(service_freep) Service *s = NULL;
        _cleanup_free_ char *error = NULL;
        Unit *u = NULL;
        int r;

        const char *name = reexec_str(o, "name"), *path = reexec_str(o, "unitPath");
        if (!name || !path)
                return -EINVAL;
        r = unit_from_json(json_object_get(o, "unit"), path, name, &u, &error);
        if (r < 0)
                return r;
        bool had_unit = json_is_string(json_object_get(o, "unit")) || json_is_object(json_object_get(o, "unit"));
        const char *old_error = reexec_str(o, "loadError");
        r = service_new(m, name, path, u, u ? NULL : (error ? error : old_error), &s);
        if (r < 0)
                return r;

        s->unit_hash = reexec_u64(o, "unitHash", 0);
        s->removed = reexec_bool(o, "removed", false);
        json_t *next = json_object_get(o, "nextUnit");
        if (json_is_object(next)) {
                _cleanup_free_ char *next_error = NULL;
                r = unit_from_json(json_object_get(next, "unit"), path, name, &s->next_unit, &next_error);
                if (r < 0)
                        return r;
                const char *e = next_error ?: reexec_str(next, "loadError");
                if (!s->next_unit && !(s->next_load_error = strdup(e ?: "failed to load")))
                        return -ENOMEM;
                s->have_next_unit = true;
        }

        ServiceState state = service_state_from_string(reexec_str(o, "state"));
        s->state = state >= 0 ? state : SERVICE_INACTIVE;
        s->want_running = reexec_bool(o, "wantRunning", false);
        r = lookup(service_result_table, _SERVICE_RESULT_MAX, reexec_str(o, "result"));
        s->result = r >= 0 ? (ServiceResult) r : SERVICE_SUCCESS;
        s->state_change_usec = reexec_u64(o, "stateChangeUsec", s->state_change_usec);
        json_t *enter = json_object_get(o, "stateEnterUsec");
        for (int i = 0; i < _SERVICE_STATE_MAX; i++)
                s->state_enter_usec[i] = reexec_u64(enter, service_state_to_string(i), 0);
        s->active_enter_usec = reexec_u64(o, "activeEnterUsec", 0);

        json_t *main_proc = json_object_get(o, "main");
        if (json_is_object(main_proc)) {
                int fd = reexec_fd_take(main_proc, "pidfd");
                if (fd < 0)
                        return log_error_errno(fd, "%s: The pidfd of pid %d was not handed over: %m", name,
                                               (int) reexec_i64(main_proc, "pid", 0));
                SpawnMode mode = spawn_mode_from_string(reexec_str(main_proc, "mode"));
                s->main = (Process){ .pid = (pid_t) reexec_i64(main_proc, "pid", 0), .pidfd = fd,
                                     .mode = mode >= 0 ? mode : m->probe.mode,
                                     .reaped = reexec_bool(main_proc, "reaped", false) };
        }
        r = reexec_fd_take(o, "reportFd");
        if (r >= 0)
                s->report_fd = r;
        s->main_pid1 = reexec_bool(o, "mainPid1", false);
        s->execed = reexec_bool(o, "execed", false);
        json_t *j;
        if ((j = json_object_get(o, "reportedExit"))) {
                s->have_reported_exit = true;
                s->reported_exit = exit_status_from_json(j);
        }
        if ((j = json_object_get(o, "lastExit"))) {
                s->have_exit = true;
                s->last_exit = exit_status_from_json(j);
        }
        if ((j = json_object_get(o, "spawnFailure"))) {
                s->have_spawn_failure = true;
                s->spawn_failure = (SpawnFailure){ .stage = (SpawnStage) reexec_i64(j, "stage", 0),
                                                   .error = (int) reexec_i64(j, "errno", EIO) };
        }
        s->spawn_error = reexec_bool(o, "spawnError", false);
        r = reexec_fd_take(o, "cgroupFd");
        if (r >= 0)
                s->cgroup_fd = r;
        r = reexec_fd_take(o, "cgroupEventsFd");
        if (r >= 0) {
                s->cgroup_events_fd = r;
                state = service_state_from_string(reexec_str(o, "exitWas"));
                s->exit_was = state >= 0 ? state : SERVICE_RUNNING;
                r = lookup(service_result_table, _SERVICE_RESULT_MAX, reexec_str(o, "exitResult"));
                s->exit_result = r >= 0 ? (ServiceResult) r : SERVICE_SUCCESS;
        }
        const char *t = reexec_str(o, "lastError");
        if (t && !(s->last_error = strdup(t)))
                return -ENOMEM;
        s->restarts = (unsigned) reexec_u64(o, "restarts", 0);
        WantedOverride w = wanted_override_from_string(reexec_str(o, "wanted"));
        s->wanted = w >= 0 ? w : WANTED_DEFAULT;
        s->restored_usec = reexec_u64(o, "restoredUsec", 0);
        s->ready = reexec_bool(o, "ready", false);
        s->failing = reexec_bool(o, "failing", false);
        s->stop_by_notify = reexec_bool(o, "stopByNotify", false);
        t = reexec_str(o, "statusText");
        if (t && !(s->status_text = strdup(t)))
                return -ENOMEM;
        s->status_errno = (int) reexec_i64(o, "statusErrno", -1);
        s->watchdog_usec = reexec_u64(o, "watchdogUsec", 0);
        s->start_limit_begin = reexec_u64(o, "startLimitBegin", 0);
        s->start_limit_count = (unsigned) reexec_u64(o, "startLimitCount", 0);
        r = lookup(service_job_table, _SERVICE_JOB_MAX, reexec_str(o, "job"));
        s->job = r >= 0 ? (ServiceJob) r : SERVICE_JOB_NONE;

        r = service_log_deserialize(s->log, json_object_get(o, "log"), s->unit);
        if (r < 0)
                return log_error_errno(r, "%s: Failed to restore the log: %m", name);

        if (!s->unit && had_unit) {
                /* The new svd does not accept the unit the old one ran: it
                 * cannot supervise the process, which must not run on
                 * unwatched. */
                log_error("%s: %s; stopping its process.", name, strna(s->load_error));
                process_kill_and_reap(&s->main);
                s->state = SERVICE_FAILED;
                s->want_running = false;
                s->job = SERVICE_JOB_NONE;
                s->report_fd = safe_close(s->report_fd);
        }
        *ret = TAKE_PTR(s);
        return 0;
}

int service_resume(Service *s, json_t *o) {
        sd_event *e = s->manager->event;
        json_t *timer = json_object_get(o, "timer");
        int r;

        if (!s->unit)
                return 0; /* nothing runs (service_deserialize) */
        if (process_is_set(&s->main)) {
                /* An exit meanwhile leaves the pidfd readable: seen at once. */
                r = sd_event_add_io(e, &s->exit_source, s->main.pidfd, EPOLLIN, on_exit_event, s);
                if (r < 0)
                        return r;
        }
        if (s->report_fd >= 0) {
                r = sd_event_add_io(e, &s->report_source, s->report_fd, EPOLLIN, on_report_event, s);
                if (r < 0)
                        return r;
        }
        if (s->cgroup_events_fd >= 0) {
                r = sd_event_add_io(e, &s->cgroup_source, s->cgroup_events_fd, EPOLLPRI, on_cgroup_event, s);
                if (r < 0)
                        return r;
        }
        /* Deadlines are CLOCK_MONOTONIC, which an exec does not change: a
         * timeout or restart delay ends when it would have. */
        const char *kind = reexec_str(timer, "kind");
        for (size_t i = 0; kind && i < ELEMENTSOF(service_timers); i++) {
                if (!streq(kind, service_timers[i].name))
                        continue;
                r = sd_event_add_time(e, &s->timer_source, CLOCK_MONOTONIC, reexec_u64(timer, "deadline", 0),
                                      /* accuracy= */ 0, service_timers[i].cb, s);
                if (r < 0)
                        return r;
                s->timer_cb = service_timers[i].cb;
        }
        if (json_object_get(o, "watchdogDeadline") && IN_SET(s->state, SERVICE_RUNNING, SERVICE_RELOADING)) {
                r = sd_event_add_time(e, &s->watchdog_source, CLOCK_MONOTONIC, reexec_u64(o, "watchdogDeadline", 0),
                                      /* accuracy= */ 0, on_watchdog_timeout, s);
                if (r < 0)
                        return r;
        }
        return 0;
}

void service_resume_settle(Service *s) {
        /* The cgroup may have emptied while no one watched it. */
        if (s->cgroup_source && cgroup_events_populated(s->cgroup_events_fd) == 0) {
                service_unwatch_cgroup(s);
                service_finish_exit(s);
        }
}
