/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A service across a re-exec: its state, process, pipes and timers as JSON
 * in the state document, and back (the format: README.md, "Upgrading svd"). */
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "basic/serialize.h"
#include "svd-log.h"
#include "service-control.h"
#include "service.h"
#include "service-private.h"
#include "wanted.h"

static const struct {
        const char *name;
        sd_event_time_handler_t cb;
} service_timers[] = {
        { "start-timeout", service_on_start_timeout },
        { "stop-timeout", service_on_stop_timeout },
        { "restart", service_on_restart_timer },
        { "idle", service_on_idle_timeout }, /* Type=idle: its start at the latest then */
        /* An exit-info retry is not carried over: the pidfd, watched again, says it. */
};

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
        SET("unitPath", json_string(s->def->path));
        SET("unit", unit_to_json(s->def->unit));
        SET("loadError", s->def->load_error ? json_string(s->def->load_error) : json_null());
        SET("unitHash", json_integer((json_int_t) s->def->hash));
        SET("removed", json_boolean(s->removed));
        SET("transient", json_boolean(s->transient));
        if (s->next)
                SET("nextUnit", json_pack("{s:o,s:o,s:o,s:I}", "unit", unit_to_json(s->next->unit), "loadError",
                                          s->next->load_error ? json_string(s->next->load_error) : json_null(),
                                          "path", json_string(s->next->path), "hash", (json_int_t) s->next->hash));

        SET("state", json_string(service_state_to_string(s->state)));
        SET("wantRunning", json_boolean(s->want_running));
        SET("result", json_string(service_result_to_string(s->result)));
        SET("stateChangeUsec", json_integer((json_int_t) s->state_change_usec));
        SET("activeEnterUsec", json_integer((json_int_t) s->run.active_enter_usec));
        if (process_is_set(&s->run.main))
                SET("main", json_pack("{s:i,s:o,s:s,s:b}", "pid", (int) s->run.main.pid, "pidfd",
                                      reexec_fd_to_json(fds, s->run.main.pidfd), "mode", spawn_mode_to_string(s->run.main.mode),
                                      "reaped", s->run.main.reaped));
        if (process_is_set(&s->run.main) && s->run.main.have_exit)
                /* Reaped as a child of svd before its exit was handled. */
                SET("mainExit", json_pack("{s:i,s:i}", "code", s->run.main.exit.code, "status", s->run.main.exit.status));
        SET("reportFd", reexec_fd_to_json(fds, s->run.report_fd));
        SET("mainPid1", json_boolean(s->run.main_pid1));
        /* Type=forking: the command's exit and the daemon found after it. */
        SET("controlExited", json_boolean(s->run.control_exited));
        if (process_is_set(&s->run.daemon))
                SET("daemon", json_pack("{s:i,s:o,s:i}", "pid", (int) s->run.daemon.pid, "pidfd",
                                        reexec_fd_to_json(fds, s->run.daemon.pidfd), "nspid", (int) s->run.daemon_nspid));
        else if (s->run.daemon_nspid > 0)
                SET("daemonNspid", json_integer(s->run.daemon_nspid));
        if (s->run.reaped_nspid > 0)
                SET("reapedNspid", json_integer(s->run.reaped_nspid));
        SET("execed", json_boolean(s->run.execed));
        if (s->run.have_reported_exit)
                SET("reportedExit", exit_status_to_json(&s->run.reported_exit));
        if (s->have_exit)
                SET("lastExit", exit_status_to_json(&s->last_exit));
        if (s->run.have_spawn_failure)
                SET("spawnFailure", json_pack("{s:i,s:i}", "stage", (int) s->run.spawn_failure.stage, "errno",
                                              s->run.spawn_failure.error));
        SET("spawnError", json_boolean(s->spawn_error));
        SET("cgroup", json_boolean(s->cgroup));
        /* DynamicUser=: the uid of this run and the lock that holds it (dynamic-user.h). */
        if (s->dynamic_user_fd >= 0) {
                SET("dynamicUserFd", reexec_fd_to_json(fds, s->dynamic_user_fd));
                SET("dynamicUid", json_integer((json_int_t) s->def->creds.uid));
                SET("dynamicGid", json_integer((json_int_t) s->def->creds.gid));
        }
        /* Waiting for the cgroup to empty after the main process exited. */
        if (s->run.cgroup_source)
                SET("cgroupEventsFd", reexec_fd_to_json(fds, s->run.cgroup_events_fd));
        /* How the main process ended: what the cgroup's emptying and the commands after it go on with. */
        if (s->run.cgroup_source || s->run.main_exited || service_control_running(s)) {
                SET("exitWas", json_string(service_state_to_string(s->run.exit_was)));
                SET("exitResult", json_string(service_result_to_string(s->run.exit_result)));
        }
        SET("mainExited", json_boolean(s->run.main_exited));
        /* The commands around the main one: where this start is, and the one that runs. */
        SET("started", json_boolean(s->control.started));
        SET("stopDone", json_boolean(s->control.stop_done));
        SET("stopPostDone", json_boolean(s->control.stop_post_done));
        SET("execStartIndex", json_integer((json_int_t) s->control.exec_start_index));
        SET("logFresh", json_boolean(s->control.log_fresh));
        if (service_control_running(s)) {
                json_t *c = json_pack("{s:s,s:I,s:b,s:s,s:b,s:b}", "kind", unit_exec_to_string(s->control.kind),
                                      "index", (json_int_t) s->control.index, "pid1", s->control.pid1, "result",
                                      service_result_to_string(s->control.result), "timedOut", s->control.timed_out,
                                      "stopping", s->control.stopping);
                if (!c)
                        goto oom;
                if (process_is_set(&s->control.proc) &&
                    (json_object_set_new(c, "pid", json_integer(s->control.proc.pid)) < 0 ||
                     json_object_set_new(c, "pidfd", reexec_fd_to_json(fds, s->control.proc.pidfd)) < 0 ||
                     json_object_set_new(c, "mode", json_string(spawn_mode_to_string(s->control.proc.mode))) < 0 ||
                     json_object_set_new(c, "reaped", json_boolean(s->control.proc.reaped)) < 0 ||
                     (s->control.proc.have_exit &&
                      json_object_set_new(c, "exit", exit_status_to_json(&s->control.proc.exit)) < 0) ||
                     json_object_set_new(c, "reportFd", reexec_fd_to_json(fds, s->control.report_fd)) < 0)) {
                        json_decref(c);
                        goto oom;
                }
                if (s->control.have_reported_exit &&
                    json_object_set_new(c, "reportedExit", exit_status_to_json(&s->control.reported_exit)) < 0) {
                        json_decref(c);
                        goto oom;
                }
                if (s->control.timer_source && sd_event_source_get_time(s->control.timer_source, &usec) >= 0 &&
                    json_object_set_new(c, "deadline", json_integer((json_int_t) usec)) < 0) {
                        json_decref(c);
                        goto oom;
                }
                SET("control", c);
        }
        SET("lastError", s->last_error ? json_string(s->last_error) : json_null());
        SET("conditionFailed", s->condition_failed ? json_string(s->condition_failed) : json_null());
        SET("conditionUsec", json_integer((json_int_t) s->condition_usec));
        SET("assertFailed", s->assert_failed ? json_string(s->assert_failed) : json_null());
        SET("assertUsec", json_integer((json_int_t) s->assert_usec));
        SET("restarts", json_integer(s->restarts));
        SET("wanted", json_string(wanted_override_to_string(s->wanted)));
        SET("restoredUsec", json_integer((json_int_t) s->restored_usec));
        SET("ready", json_boolean(s->run.ready));
        SET("failing", json_boolean(s->run.failing));
        SET("stopByNotify", json_boolean(s->run.stop_by_notify));
        SET("statusText", s->run.status_text ? json_string(s->run.status_text) : json_null());
        SET("statusErrno", json_integer(s->run.status_errno));
        SET("watchdogUsec", json_integer((json_int_t) s->run.watchdog_usec));
        if (s->run.watchdog_source && sd_event_source_get_time(s->run.watchdog_source, &usec) >= 0)
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

/* Parses a unit as the previous svd had it, with this svd's defaults (svd.conf is read again by a
 * re-exec). 0 with *ret_unit (or NULL and *ret_error) as unit_load_string gives them. */
static int unit_from_json(json_t *j, const char *path, const char *name, const UnitDefaults *defaults,
                          Unit **ret_unit, char **ret_error) {
        _cleanup_free_ char *text = NULL;
        size_t len;

        *ret_unit = NULL;
        *ret_error = NULL;
        if (!j || json_is_null(j))
                return 0;
        int r = reexec_bytes_from_json(j, &text, &len);
        if (r < 0)
                return r;
        r = unit_load_string(text, len, path, name, defaults, on_unit_warning, NULL, ret_unit, ret_error);
        if (r < 0 && !*ret_error && asprintf(ret_error, "%s: %s", path, strerror(-r)) < 0)
                return -ENOMEM;
        return 0;
}

int service_deserialize(ServiceContext *c, json_t *o, Service **ret) {
        _cleanup_(service_freep) Service *s = NULL;
        _cleanup_free_ char *error = NULL;
        UnitDefinition *def = NULL;
        Unit *u = NULL;
        int r;

        const char *name = reexec_str(o, "name"), *path = reexec_str(o, "unitPath");
        if (!name || !path)
                return -EINVAL;
        r = unit_from_json(json_object_get(o, "unit"), path, name, c->unit_defaults, &u, &error);
        if (r < 0)
                return r;
        bool had_unit = json_is_string(json_object_get(o, "unit")) || json_is_object(json_object_get(o, "unit"));
        const char *old_error = reexec_str(o, "loadError");
        r = unit_definition_new(path, u, u ? NULL : (error ? error : old_error), c->uid, &def);
        if (r < 0)
                return r;
        def->hash = reexec_u64(o, "unitHash", def->hash);
        r = service_new(c, name, def, &s);
        if (r < 0)
                return r;

        s->removed = reexec_bool(o, "removed", false);
        s->transient = reexec_bool(o, "transient", false);
        json_t *next = json_object_get(o, "nextUnit");
        if (json_is_object(next)) {
                _cleanup_free_ char *next_error = NULL;
                Unit *nu = NULL;
                const char *next_path = reexec_str(next, "path") ?: path;
                r = unit_from_json(json_object_get(next, "unit"), next_path, name, c->unit_defaults, &nu,
                                   &next_error);
                if (r < 0)
                        return r;
                const char *e = next_error ?: reexec_str(next, "loadError");
                r = unit_definition_new(next_path, nu, nu ? NULL : (e ?: "failed to load"), c->uid, &s->next);
                if (r < 0)
                        return r;
                s->next->hash = reexec_u64(next, "hash", s->next->hash);
        }

        ServiceState state = service_state_from_string(reexec_str(o, "state"));
        s->state = state >= 0 ? state : SERVICE_INACTIVE;
        s->want_running = reexec_bool(o, "wantRunning", false);
        r = service_result_from_string(reexec_str(o, "result"));
        s->result = r >= 0 ? (ServiceResult) r : SERVICE_SUCCESS;
        s->state_change_usec = reexec_u64(o, "stateChangeUsec", s->state_change_usec);
        json_t *enter = json_object_get(o, "stateEnterUsec");
        for (int i = 0; i < _SERVICE_STATE_MAX; i++)
                s->state_enter_usec[i] = reexec_u64(enter, service_state_to_string(i), 0);
        s->run.active_enter_usec = reexec_u64(o, "activeEnterUsec", 0);

        json_t *main_proc = json_object_get(o, "main");
        if (json_is_object(main_proc)) {
                int fd = reexec_fd_take(main_proc, "pidfd");
                if (fd < 0)
                        return log_error_errno(fd, "%s: The pidfd of pid %d was not handed over: %m", name,
                                               (int) reexec_i64(main_proc, "pid", 0));
                SpawnMode mode = spawn_mode_from_string(reexec_str(main_proc, "mode"));
                s->run.main = (Process){ .pid = (pid_t) reexec_i64(main_proc, "pid", 0), .pidfd = fd,
                                     .mode = mode >= 0 ? mode : c->probe->mode,
                                     .reaped = reexec_bool(main_proc, "reaped", false) };
                json_t *ex = json_object_get(o, "mainExit");
                if (json_is_object(ex)) {
                        s->run.main.have_exit = true;
                        s->run.main.exit = (ExitStatus){ .code = (int) reexec_i64(ex, "code", CLD_KILLED),
                                                         .status = (int) reexec_i64(ex, "status", SIGKILL) };
                }
                r = process_watch(&s->run.main);
                if (r < 0)
                        return log_error_errno(r, "%s: Failed to watch pid %d: %m", name, (int) s->run.main.pid);
        }
        r = reexec_fd_take(o, "reportFd");
        if (r >= 0)
                s->run.report_fd = r;
        s->run.main_pid1 = reexec_bool(o, "mainPid1", false);
        s->run.control_exited = reexec_bool(o, "controlExited", false);
        json_t *daemon = json_object_get(o, "daemon");
        if (json_is_object(daemon)) {
                int fd = reexec_fd_take(daemon, "pidfd");
                if (fd >= 0) {
                        s->run.daemon = (Process){ .pid = (pid_t) reexec_i64(daemon, "pid", 0), .pidfd = fd,
                                                   .mode = SPAWN_MODE_AUTOKILL };
                        s->run.daemon_nspid = (pid_t) reexec_i64(daemon, "nspid", 0);
                }
        } else
                s->run.daemon_nspid = (pid_t) reexec_i64(o, "daemonNspid", 0);
        s->run.reaped_nspid = (pid_t) reexec_i64(o, "reapedNspid", 0);
        s->run.execed = reexec_bool(o, "execed", false);
        json_t *j;
        if ((j = json_object_get(o, "reportedExit"))) {
                s->run.have_reported_exit = true;
                s->run.reported_exit = exit_status_from_json(j);
        }
        if ((j = json_object_get(o, "lastExit"))) {
                s->have_exit = true;
                s->last_exit = exit_status_from_json(j);
        }
        if ((j = json_object_get(o, "spawnFailure"))) {
                s->run.have_spawn_failure = true;
                s->run.spawn_failure = (SpawnFailure){ .stage = (SpawnStage) reexec_i64(j, "stage", 0),
                                                   .error = (int) reexec_i64(j, "errno", EIO) };
        }
        s->spawn_error = reexec_bool(o, "spawnError", false);
        s->cgroup = reexec_bool(o, "cgroup", false);
        r = reexec_fd_take(o, "cgroupFd"); /* a state from before svd opened cgroups only where needed */
        if (r >= 0) {
                s->cgroup = true;
                (void) close(r);
        }
        r = reexec_fd_take(o, "dynamicUserFd");
        if (r >= 0 && s->def->creds.dynamic) {
                s->dynamic_user_fd = r;
                s->def->creds.uid = (uid_t) reexec_i64(o, "dynamicUid", 0);
                s->def->creds.gid = (gid_t) reexec_i64(o, "dynamicGid", 0);
        } else if (r >= 0)
                (void) close(r); /* the unit lost DynamicUser= meanwhile: nothing runs with it */
        r = reexec_fd_take(o, "cgroupEventsFd");
        if (r >= 0)
                s->run.cgroup_events_fd = r;
        if (reexec_str(o, "exitWas")) {
                state = service_state_from_string(reexec_str(o, "exitWas"));
                s->run.exit_was = state >= 0 ? state : SERVICE_RUNNING;
                r = service_result_from_string(reexec_str(o, "exitResult"));
                s->run.exit_result = r >= 0 ? (ServiceResult) r : SERVICE_SUCCESS;
        }
        s->run.main_exited = reexec_bool(o, "mainExited", false);
        /* From an svd before the command keys: a service whose start had completed runs its ExecStop=. */
        bool started = reexec_bool(o, "ready", false) &&
                       IN_SET(s->state, SERVICE_RUNNING, SERVICE_RELOADING, SERVICE_EXITED);
        s->control.started = reexec_bool(o, "started", started);
        s->control.stop_done = reexec_bool(o, "stopDone", false);
        s->control.stop_post_done = reexec_bool(o, "stopPostDone", false);
        s->control.exec_start_index = (size_t) reexec_u64(o, "execStartIndex", 0);
        s->control.log_fresh = reexec_bool(o, "logFresh", false);
        json_t *control = json_object_get(o, "control");
        if (json_is_object(control) && s->def->unit) {
                UnitExec kind = _UNIT_EXEC_INVALID;
                const char *kind_name = reexec_str(control, "kind");
                for (UnitExec k = 0; kind_name && k < _UNIT_EXEC_MAX; k++)
                        if (streq(kind_name, unit_exec_to_string(k)))
                                kind = k;
                size_t index = (size_t) reexec_u64(control, "index", 0);
                if (kind < 0 || index >= s->def->unit->exec[kind].n)
                        return log_error_errno(-EINVAL, "%s: The running command's key is not in the unit: %m", name);
                s->control.kind = kind;
                s->control.index = index;
                s->control.pid1 = reexec_bool(control, "pid1", false);
                s->control.timed_out = reexec_bool(control, "timedOut", false);
                s->control.stopping = reexec_bool(control, "stopping", false);
                r = service_result_from_string(reexec_str(control, "result"));
                s->control.result = r >= 0 ? (ServiceResult) r : SERVICE_SUCCESS;
                if (json_object_get(control, "pidfd")) {
                        int fd = reexec_fd_take(control, "pidfd");
                        if (fd < 0)
                                return log_error_errno(fd, "%s: The pidfd of the running command was not handed over: %m",
                                                       name);
                        SpawnMode mode = spawn_mode_from_string(reexec_str(control, "mode"));
                        s->control.proc = (Process){ .pid = (pid_t) reexec_i64(control, "pid", 0), .pidfd = fd,
                                                     .mode = mode >= 0 ? mode : c->probe->mode,
                                                     .reaped = reexec_bool(control, "reaped", false) };
                        if ((j = json_object_get(control, "exit"))) {
                                s->control.proc.have_exit = true;
                                s->control.proc.exit = exit_status_from_json(j);
                        }
                        r = process_watch(&s->control.proc);
                        if (r < 0)
                                return log_error_errno(r, "%s: Failed to watch pid %d: %m", name,
                                                       (int) s->control.proc.pid);
                        r = reexec_fd_take(control, "reportFd");
                        if (r >= 0)
                                s->control.report_fd = r;
                }
                if ((j = json_object_get(control, "reportedExit"))) {
                        s->control.have_reported_exit = true;
                        s->control.reported_exit = exit_status_from_json(j);
                }
        }
        const char *t = reexec_str(o, "lastError");
        if (t && !(s->last_error = strdup(t)))
                return -ENOMEM;
        t = reexec_str(o, "conditionFailed");
        if (t && !(s->condition_failed = strdup(t)))
                return -ENOMEM;
        t = reexec_str(o, "assertFailed");
        if (t && !(s->assert_failed = strdup(t)))
                return -ENOMEM;
        s->condition_usec = reexec_u64(o, "conditionUsec", 0);
        s->assert_usec = reexec_u64(o, "assertUsec", 0);
        s->restarts = (unsigned) reexec_u64(o, "restarts", 0);
        WantedOverride w = wanted_override_from_string(reexec_str(o, "wanted"));
        s->wanted = w >= 0 ? w : WANTED_DEFAULT;
        s->restored_usec = reexec_u64(o, "restoredUsec", 0);
        s->run.ready = reexec_bool(o, "ready", false);
        s->run.failing = reexec_bool(o, "failing", false);
        s->run.stop_by_notify = reexec_bool(o, "stopByNotify", false);
        t = reexec_str(o, "statusText");
        if (t && !(s->run.status_text = strdup(t)))
                return -ENOMEM;
        s->run.status_errno = (int) reexec_i64(o, "statusErrno", -1);
        s->run.watchdog_usec = reexec_u64(o, "watchdogUsec", 0);
        s->start_limit_begin = reexec_u64(o, "startLimitBegin", 0);
        s->start_limit_count = (unsigned) reexec_u64(o, "startLimitCount", 0);
        r = service_job_from_string(reexec_str(o, "job"));
        s->job = r >= 0 ? (ServiceJob) r : SERVICE_JOB_NONE;

        r = service_log_deserialize(s->log, json_object_get(o, "log"), s->def->unit);
        if (r < 0)
                return log_error_errno(r, "%s: Failed to restore the log: %m", name);

        if (!s->def->unit && had_unit) {
                /* The new svd does not accept the unit the old one ran: it
                 * cannot supervise the process, which must not run on
                 * unwatched. */
                log_error("%s: %s; stopping its process.", name, strna(s->def->load_error));
                process_kill_and_reap(&s->run.main);
                s->state = SERVICE_FAILED;
                s->want_running = false;
                s->job = SERVICE_JOB_NONE;
                s->run.report_fd = safe_close(s->run.report_fd);
                /* The same for a command that ran. */
                if (json_is_object(control) && json_object_get(control, "pidfd")) {
                        int fd = reexec_fd_take(control, "pidfd");
                        if (fd >= 0) {
                                Process p = { .pid = (pid_t) reexec_i64(control, "pid", 0), .pidfd = fd,
                                              .mode = spawn_mode_from_string(reexec_str(control, "mode")) };
                                if (p.mode < 0)
                                        p.mode = c->probe->mode;
                                process_kill_and_reap(&p);
                        }
                        safe_close(reexec_fd_take(control, "reportFd"));
                }
        }
        *ret = TAKE_PTR(s);
        return 0;
}

int service_resume(Service *s, json_t *o) {
        sd_event *e = s->ctx->event;
        json_t *timer = json_object_get(o, "timer");
        int r;

        if (!s->def->unit)
                return 0; /* nothing runs (service_deserialize) */
        if (process_is_set(&s->run.main)) {
                /* An exit meanwhile leaves the pidfd readable: seen at once. */
                r = sd_event_add_io(e, &s->run.exit_source, s->run.main.pidfd, PROCESS_EXIT_EVENTS, service_on_exit_event, s);
                if (r < 0)
                        return r;
        }
        if (s->run.report_fd >= 0) {
                r = sd_event_add_io(e, &s->run.report_source, s->run.report_fd, SPAWN_REPORT_EVENTS, service_on_report_event, s);
                if (r < 0)
                        return r;
        }
        if (s->run.cgroup_events_fd >= 0) {
                r = sd_event_add_io(e, &s->run.cgroup_source, s->run.cgroup_events_fd, EPOLLPRI, service_on_cgroup_event, s);
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
        json_t *control = json_object_get(o, "control");
        if (service_control_running(s)) {
                r = service_control_resume(s, reexec_u64(control, "deadline", USEC_INFINITY));
                if (r < 0)
                        return r;
        }
        service_forking_resume_step(s);
        r = service_dbus_resume(s);
        if (r < 0)
                return r;
        if (json_object_get(o, "watchdogDeadline") && IN_SET(s->state, SERVICE_RUNNING, SERVICE_RELOADING)) {
                r = sd_event_add_time(e, &s->run.watchdog_source, CLOCK_MONOTONIC, reexec_u64(o, "watchdogDeadline", 0),
                                      /* accuracy= */ 0, service_on_watchdog_timeout, s);
                if (r < 0)
                        return r;
        }
        return 0;
}

void service_resume_settle(Service *s) {
        /* The cgroup may have emptied while no one watched it. */
        if (s->run.cgroup_source && cgroup_events_populated(s->run.cgroup_events_fd) == 0) {
                service_unwatch_cgroup(s);
                service_finish_exit(s);
        }
}
