/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The service state machine: states and their one setter, exits, readiness, stops, the operations
 * and their waiters, definitions and the table (service.h). */
#include "service.h"
#include "service-private.h"

#include <inttypes.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "basic/list.h"
#include "basic/parse-util.h"
#include "basic/string-table.h"
#include "basic/time-util.h"
#include "basic/unit-name.h"
#include "basic/strv.h"
#include "service-condition.h"
#include "service-control.h"
#include "service-dbus.h"
#include "service-dirs.h"
#include "service-dynuser.h"
#include "service-exec.h"
#include "service-forking.h"
#include "service-idle.h"
#include "service-ipc.h"
#include "service-restart.h"
#include "process-pidns.h"
#include "svd-log.h"

/* How often, 1 ms apart, the exit status is asked for again when pidfs has
 * not published it yet although the pidfd polled readable. */
#define SERVICE_EXIT_INFO_RETRIES 1000U
#define SERVICE_EXIT_INFO_RETRY_USEC (1 * USEC_PER_MSEC)

struct ServiceWaiter {
        Service *service;
        ServiceDoneFn done;
        void *userdata;
        ServiceOp op;
        LIST_FIELDS(ServiceWaiter, waiters);
};

static void service_on_control_done(Service *s, UnitExec kind, ServiceResult result);
static void service_enter_start_post(Service *s);
static void service_enter_failure_stop(Service *s, ServiceResult result, int sig);
static void service_set_state(Service *s, ServiceState state);
static int service_arm_timer(Service *s, uint64_t usec, sd_event_time_handler_t cb);
static void service_unset_timer(Service *s);
static int service_spawn(Service *s);
static void service_take_next_unit(Service *s);
static bool service_run_control(Service *s, UnitExec kind, ServiceState state);
static void service_forking_step(Service *s, ServiceForkingStep step, ServiceResult result);
static const ServiceHandlers service_handlers;

/* ---- the per-run state ---- */

static void service_run_init(ServiceRun *run) {
        *run = (ServiceRun){
                .main = PROCESS_NULL,
                .daemon = PROCESS_NULL,
                .report_fd = -EBADF,
                .status_errno = -1,
                .cgroup_events_fd = -EBADF,
        };
}

/* Releases what a run holds. The process itself must be gone or handed on:
 * only its pidfd is closed here. */
static void service_run_done(ServiceRun *run) {
        run->exit_source = sd_event_source_disable_unref(run->exit_source);
        run->report_source = sd_event_source_disable_unref(run->report_source);
        run->report_fd = safe_close(run->report_fd);
        run->watchdog_source = sd_event_source_disable_unref(run->watchdog_source);
        run->cgroup_source = sd_event_source_disable_unref(run->cgroup_source);
        run->cgroup_events_fd = safe_close(run->cgroup_events_fd);
        process_done(&run->main);
        run->pid_file_source = sd_event_source_disable_unref(run->pid_file_source);
        process_done(&run->daemon);
        run->bus_match = sd_bus_slot_unref(run->bus_match);
        run->bus_call = sd_bus_slot_unref(run->bus_call);
        free(run->status_text);
        run->status_text = NULL;
}

static void service_run_reset(ServiceRun *run) {
        service_run_done(run);
        service_run_init(run);
}

/* ---- waiters: callers told when the machine gets somewhere ---- */

static void waiter_unlink(ServiceWaiter *w) {
        LIST_REMOVE(waiters, w->service->waiters, w);
        free(w);
}

static int service_add_waiter(Service *s, ServiceDoneFn done, void *userdata, ServiceOp op) {
        if (!done)
                return 0;
        ServiceWaiter *w = calloc(1, sizeof(*w));
        if (!w)
                return log_oom();
        *w = (ServiceWaiter){ .service = s, .done = done, .userdata = userdata, .op = op };
        LIST_PREPEND(waiters, s->waiters, w);
        return 0;
}

void service_forget_waiters(Service *s, void *userdata) {
        ServiceWaiter *w, *next;
        LIST_FOREACH_SAFE(waiters, w, next, s->waiters)
                if (w->userdata == userdata)
                        waiter_unlink(w);
}

/* Tells every waiter whose op is in `ops` (a bit mask of 1 << ServiceOp). */
static void service_answer_waiters(Service *s, unsigned ops, const ServiceJobResult *result) {
        ServiceWaiter *w = s->waiters, *next;
        for (; w; w = next) {
                next = w->waiters_next;
                if (!(ops & (1U << w->op)))
                        continue;
                ServiceDoneFn done = w->done;
                void *userdata = w->userdata;
                waiter_unlink(w);
                done(s, result, userdata);
                /* done() may have answered others (a client's connection closing): start over. */
                next = s->waiters;
        }
}

static void service_answer(Service *s, unsigned ops, ServiceJobOutcome outcome, const char *message) {
        service_answer_waiters(s, ops, &(ServiceJobResult){ .outcome = outcome, .message = message });
}

#define OPS_START ((1U << SERVICE_OP_START) | (1U << SERVICE_OP_RESTART))
#define OPS_STOP (1U << SERVICE_OP_STOP)
#define OPS_RELOAD (1U << SERVICE_OP_RELOAD)

static void service_answer_start_waiters(Service *s, const ServiceJobResult *r) {
        service_answer_waiters(s, OPS_START, r);
}

static void service_cancel_waiters(Service *s, unsigned ops) {
        service_answer(s, ops, SERVICE_OUTCOME_CANCELLED, NULL);
}

/* ---- the dependency engine (ServiceDepsHooks) ---- */

static void service_tell_start_finished(Service *s, bool success, const char *reason) {
        if (s->ctx->deps)
                s->ctx->deps->start_finished(s, success, reason);
}

/* ---- the owner of the table (ServiceCallbacks) ---- */

static void service_tell_settled(Service *s) {
        if (s->ctx->callbacks && s->ctx->callbacks->settled)
                s->ctx->callbacks->settled(s, s->ctx->userdata);
}

/* ---- readiness ---- */


static void service_arm_watchdog(Service *s) {
        s->run.watchdog_source = sd_event_source_disable_unref(s->run.watchdog_source);
        if (s->run.watchdog_usec == 0 || !IN_SET(s->state, SERVICE_RUNNING, SERVICE_RELOADING))
                return;
        int r = sd_event_add_time_relative(s->ctx->event, &s->run.watchdog_source, CLOCK_MONOTONIC,
                                           s->run.watchdog_usec, /* accuracy= */ 0, service_on_watchdog_timeout, s);
        if (r < 0)
                log_warning_errno(r, "%s: Failed to arm the watchdog, running without: %m", s->name);
}

/* The start is complete, as Type= defines it: answer Start, let dependents go. */
static void service_ready(Service *s) {
        s->run.ready = true;
        service_answer(s, OPS_START, SERVICE_OUTCOME_DONE, NULL);
        service_tell_start_finished(s, /* success= */ true, NULL);
        service_arm_watchdog(s);
}

/* The start failed (s->result and s->last_error say why): answer Start, fail dependents' jobs. */
static void service_start_failed(Service *s) {
        const char *result = strna(service_result_to_string(s->result));
        _cleanup_free_ char *msg = NULL;
        bool job = IN_SET(s->job, SERVICE_JOB_START, SERVICE_JOB_STARTING);

        if (s->spawn_error) {
                s->spawn_error = false;
                service_answer(s, OPS_START, SERVICE_OUTCOME_SPAWN_FAILED,
                               s->last_error ? s->last_error : "Failed to spawn");
                if (job)
                        service_tell_start_finished(s, /* success= */ false,
                                                    s->last_error ? s->last_error : "spawn failed");
                return;
        }
        if (s->run.have_spawn_failure) {
                service_answer_waiters(s, OPS_START,
                                       &(ServiceJobResult){
                                               .outcome = SERVICE_OUTCOME_EXEC_FAILED,
                                               .message = s->last_error ? s->last_error : "spawn failed",
                                               .failure = &s->run.spawn_failure,
                                       });
                if (IN_SET(s->job, SERVICE_JOB_START, SERVICE_JOB_STARTING))
                        service_tell_start_finished(s, /* success= */ false,
                                                    s->last_error ? s->last_error : "spawn failed");
                return;
        }
        if (s->last_error)
                msg = strdup(s->last_error);
        else if (asprintf(&msg, "the start failed (result: %s)", result) < 0)
                msg = NULL;
        service_answer_waiters(s, OPS_START,
                               &(ServiceJobResult){
                                       .outcome = SERVICE_OUTCOME_START_FAILED,
                                       .message = msg ? msg : "the start failed",
                                       .result = s->result,
                               });
        if (IN_SET(s->job, SERVICE_JOB_START, SERVICE_JOB_STARTING))
                service_tell_start_finished(s, /* success= */ false, msg ? msg : result);
}

/* ---- the state setter ---- */

static void service_set_state(Service *s, ServiceState state) {
        ServiceState old = s->state;

        s->state = state;
        s->state_change_usec = now_usec(CLOCK_REALTIME);
        s->state_enter_usec[state] = s->state_change_usec;
        if (old != state)
                log_info("%s: %s → %s", s->name, service_state_to_string(old), service_state_to_string(state));
        if (s->ctx->callbacks && s->ctx->callbacks->state_changed)
                s->ctx->callbacks->state_changed(s, old, s->ctx->userdata);
        if (s->ctx->deps)
                s->ctx->deps->state_changed(s, old); /* BindsTo=, OnFailure=, the next jobs */

        if (!IN_SET(state, SERVICE_RUNNING, SERVICE_RELOADING))
                s->run.watchdog_source = sd_event_source_disable_unref(s->run.watchdog_source);
        if (state == SERVICE_RUNNING && s->run.execed && !s->run.ready)
                service_ready(s);
        /* The processes are gone: RuntimeDirectory= goes, unless RuntimeDirectoryPreserve= keeps it. */
        if (IN_SET(state, SERVICE_INACTIVE, SERVICE_FAILED) && !IN_SET(old, SERVICE_INACTIVE, SERVICE_FAILED))
                service_dirs_remove_runtime(s, /* for_good= */ true);
        else if (state == SERVICE_AUTO_RESTART && old != SERVICE_AUTO_RESTART)
                service_dirs_remove_runtime(s, /* for_good= */ false);
        /* DynamicUser=: the run is over, RemoveIPC= done (service_finish_exit()): the uid goes back. */
        if (IN_SET(state, SERVICE_INACTIVE, SERVICE_FAILED, SERVICE_AUTO_RESTART))
                service_dynamic_user_release(s);
        if (IN_SET(state, SERVICE_INACTIVE, SERVICE_FAILED) && !s->want_running)
                service_answer(s, OPS_STOP, SERVICE_OUTCOME_DONE, NULL);
        if (IN_SET(state, SERVICE_INACTIVE, SERVICE_FAILED))
                service_tell_settled(s);
}

/* ---- spawning ---- */

static void service_unwatch(Service *s) {
        s->run.exit_source = sd_event_source_disable_unref(s->run.exit_source);
        s->run.report_source = sd_event_source_disable_unref(s->run.report_source);
        s->run.report_fd = safe_close(s->run.report_fd);
}

static void service_unset_timer(Service *s) {
        s->timer_source = sd_event_source_disable_unref(s->timer_source);
        s->timer_cb = NULL;
}

static int service_arm_timer(Service *s, uint64_t usec, sd_event_time_handler_t cb) {
        service_unset_timer(s);
        if (usec == USEC_INFINITY)
                return 0;
        int r = sd_event_add_time_relative(s->ctx->event, &s->timer_source, CLOCK_MONOTONIC, usec,
                                           /* accuracy= */ 0, cb, s);
        if (r >= 0)
                s->timer_cb = cb;
        return r;
}

static void service_enter_dead(Service *s, ServiceResult result, bool allow_restart);

static void service_drain_report(Service *s);
static void service_note_execed(Service *s);
static int service_spawn_main(Service *s);
static void service_after_main(Service *s);

/* The command of ExecStart= that runs (or ran last): the only one but for Type=oneshot. */
static const ExecCommand *service_main_command(const Service *s) {
        static char *const none_argv[] = { (char *) "(none)", NULL };
        static const ExecCommand none = { .argv = (char **) none_argv };
        const ExecCommandList *l = &s->def->unit->exec[UNIT_EXEC_START];
        if (l->n == 0)
                return &none; /* Type=oneshot with ExecStop= only */
        return &l->commands[s->control.exec_start_index < l->n ? s->control.exec_start_index : l->n - 1];
}

/* ---- Type=dbus (the bus and its messages: service-dbus.c) ---- */

static void service_bus_owner(Service *s, const char *owner) {
        bool has = owner && owner[0];

        if (has && s->state == SERVICE_STARTING) {
                log_debug("%s: bus name '%s' acquired by %s", s->name, s->def->unit->bus_name, owner);
                service_unset_timer(s); /* TimeoutStartSec= */
                s->run.execed = true;
                service_set_state(s, SERVICE_RUNNING);
        } else if (!has && IN_SET(s->state, SERVICE_RUNNING, SERVICE_RELOADING) && s->run.ready) {
                /* As systemd: a D-Bus service without its name is done. */
                log_info("%s: released bus name '%s', stopping.", s->name, s->def->unit->bus_name);
                service_enter_failure_stop(s, SERVICE_SUCCESS, s->def->unit->kill_signal);
        }
}

static int service_on_bus_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Service *s = userdata;
        const char *owner = NULL;
        if (service_dbus_read_owner_changed(s, m, &owner) > 0)
                service_bus_owner(s, owner);
        return 0;
}

static int service_on_bus_owner_reply(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Service *s = userdata;
        const char *owner = NULL;
        if (service_dbus_read_owner_reply(s, m, &owner) > 0)
                service_bus_owner(s, owner);
        return 0;
}

/* The connection is gone: whoever waited for a name on it fails; the next start connects anew. */
static int service_on_bus_disconnected(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        ServiceContext *c = userdata;

        log_warning("The system bus connection was lost.");
        for (size_t i = 0; i < c->n_services; i++) {
                Service *s = c->services[i];
                if (!service_dbus_forget(s) || s->state != SERVICE_STARTING)
                        continue;
                char *msg = NULL;
                if (asprintf(&msg, "the system bus connection was lost before '%s' was acquired",
                             s->def->unit->bus_name) < 0)
                        msg = NULL;
                log_error("%s: %s", s->name, msg ? msg : "the system bus connection was lost");
                service_set_last_error(s, msg);
                service_enter_failure_stop(s, SERVICE_FAILURE_RESOURCES, s->def->unit->kill_signal);
        }
        service_dbus_disconnect(c);
        return 0;
}

static int service_watch_bus(Service *s, char **ret_error) {
        int r = service_dbus_connect(s->ctx, service_on_bus_disconnected, ret_error);
        if (r < 0)
                return r;
        return service_dbus_watch(s, service_on_bus_owner_changed, service_on_bus_owner_reply);
}

int service_dbus_resume(Service *s) {
        if (!s->def->unit || s->def->unit->type != SERVICE_TYPE_DBUS || !process_is_set(&s->run.main) ||
            !IN_SET(s->state, SERVICE_STARTING, SERVICE_RUNNING, SERVICE_RELOADING))
                return 0;
        _cleanup_free_ char *error = NULL;
        int r = service_watch_bus(s, &error);
        if (r < 0)
                log_warning_errno(r, "%s: Failed to watch bus name '%s' again after the re-exec: %s", s->name,
                                  s->def->unit->bus_name, error ? error : strerror(-r));
        return 0;
}

/* The start ends here: nothing runs, the service is inactive (a restart or automatic restart
 * came from another state), and the start's waiters are answered with result. */
static void service_start_ends(Service *s, const ServiceJobResult *result, bool success) {
        service_unset_timer(s);
        s->want_running = false;
        if (s->state != SERVICE_INACTIVE)
                service_set_state(s, SERVICE_INACTIVE);
        service_answer_start_waiters(s, result);
        if (IN_SET(s->job, SERVICE_JOB_START, SERVICE_JOB_STARTING))
                service_tell_start_finished(s, success, result->message);
}

/* The start of s cannot go on because of the unit named dep: it is answered with
 * DEPENDENCY_FAILED and s is left inactive. */
static void service_refuse_start_dependency(Service *s, const char *dep, const char *reason) {
        log_error("%s: Failed to start: %s", s->name, reason);
        service_set_last_error(s, strdup(reason));
        service_start_ends(s,
                           &(ServiceJobResult){ .outcome = SERVICE_OUTCOME_DEPENDENCY_FAILED,
                                                .message = reason,
                                                .dependency = dep },
                           /* success= */ false);
}

/* Before a spawn: Requisite= and Conflicts= first, as systemd's transaction has them, then
 * Condition*= and Assert*=. true: go on; false: the start ended here (answered). */
static bool service_start_allowed(Service *s) {
        const char *dep = NULL;
        _cleanup_free_ char *reason = NULL;
        int r;

        if (s->ctx->deps && !s->ctx->deps->start_allowed(s, &dep, &reason)) {
                service_refuse_start_dependency(s, dep, reason ?: "Requisite= unit not active");
                return false;
        }

        switch (service_conditions_test(s, &r)) {
        case SERVICE_CONDITIONS_SKIP:
                log_info("%s: Start condition not met: %s, skipping the start.", s->name, s->condition_failed);
                service_start_ends(s, &(ServiceJobResult){ .outcome = SERVICE_OUTCOME_DONE }, /* success= */ true);
                return false;
        case SERVICE_CONDITIONS_ASSERT_FAILED: {
                _cleanup_free_ char *msg = NULL;
                log_error("%s: Failed to start: assertion not met: %s", s->name, s->assert_failed);
                if (asprintf(&msg, "assertion not met: %s", s->assert_failed) < 0)
                        msg = NULL;
                service_start_ends(s,
                                   &(ServiceJobResult){ .outcome = SERVICE_OUTCOME_ASSERT_FAILED,
                                                        .message = msg ?: "assertion not met" },
                                   /* success= */ false);
                return false;
        }
        default:
                if (r < 0)
                        log_warning_errno(r, "%s: Failed to check conditions, starting anyway: %m", s->name);
                return true;
        }
}

/* A start begins: ExecStartPre=, then the main command. */
static int service_spawn(Service *s) {
        /* A restart is the next start: a reloaded unit file applies now. */
        service_take_next_unit(s);
        if (!service_start_allowed(s))
                return 0;

        assert(s->def->unit);
        assert(!process_is_set(&s->run.main));
        assert(!service_control_running(s));

        service_run_reset(&s->run);
        s->control.started = s->control.stop_done = s->control.stop_post_done = s->control.stopping = false;
        s->control.exec_start_index = 0;
        s->control.log_fresh = true; /* file: outputs are truncated by this start's first process */
        if (service_run_control(s, UNIT_EXEC_START_PRE, SERVICE_START_PRE))
                return 0;
        return service_spawn_main(s);
}

/* A start that failed for want of svd's own resources, in svd's log once a second at most. */
static void service_log_exhausted(Service *s, const char *msg) {
        ServiceContext *c = s->ctx;
        uint64_t now = now_usec(CLOCK_MONOTONIC);

        if (c->exhausted_log_usec != 0 && now - c->exhausted_log_usec < USEC_PER_SEC) {
                c->exhausted_suppressed++;
                return;
        }
        if (c->exhausted_suppressed > 0)
                log_error("%s: %s (retrying with a back-off; %u more start(s) failed for want of svd's resources "
                          "in the last second, not logged)",
                          s->name, msg ? msg : "Failed to spawn", c->exhausted_suppressed);
        else
                log_error("%s: %s (retrying with a back-off)", s->name, msg ? msg : "Failed to spawn");
        c->exhausted_log_usec = now;
        c->exhausted_suppressed = 0;
}

static int service_spawn_main(Service *s) {
        _cleanup_(service_exec_done) ServiceExec exec = {};
        _cleanup_free_ char *log_error = NULL;
        _cleanup_close_ int report_fd = -EBADF;
        ServiceContext *c = s->ctx;
        Unit *u = s->def->unit;
        Process proc = PROCESS_NULL;
        int r;

        assert(u);
        assert(!process_is_set(&s->run.main));

        if (u->exec[UNIT_EXEC_START].n == 0) {
                /* Type=oneshot with ExecStop= only: nothing to run, the start has succeeded. */
                s->run.execed = true;
                s->run.exit_was = SERVICE_STARTING;
                s->run.exit_result = SERVICE_SUCCESS;
                service_set_state(s, SERVICE_STARTING);
                service_after_main(s);
                return 0;
        }
        /* Type=dbus: with no bus to watch the name on, the start could only time out; say why now. */
        if (u->type == SERVICE_TYPE_DBUS) {
                r = service_dbus_connect(c, service_on_bus_disconnected, &exec.error);
                if (r < 0)
                        goto fail;
        }
        const ExecCommand *cmd = service_main_command(s);
        r = service_exec_prepare(s, cmd, /* extra_env= */ NULL, &exec);
        if (r < 0)
                goto fail;
        SpawnParams params = exec.params;
        r = s->control.log_fresh ? service_log_prepare(s->log, u, &params.stdout_fd, &params.stderr_fd, &log_error)
                                 : service_log_attach(s->log, u, &params.stdout_fd, &params.stderr_fd, &log_error);
        if (r >= 0)
                service_exec_socket_outputs(&exec, u, &params);
        if (r < 0) {
                if (!exec.error) /* said once, below */
                        exec.error = TAKE_PTR(log_error);
                goto fail;
        }
        s->control.log_fresh = false;
        r = spawn_process(&params, &proc, &report_fd);
        service_log_spawned(s->log);
        if (r < 0)
                goto fail;
        s->exhausted = 0;

        service_run_reset(&s->run);
        s->run.main = proc;
        s->run.main_pid1 = params.private_pids;
        s->run.watchdog_usec = u->watchdog_usec;
        s->run.active_enter_usec = now_usec(CLOCK_REALTIME);
        s->run.report_fd = TAKE_FD(report_fd);
        /* A child spawned the vfork way (spawn.h) has exec'd or failed by
         * now and its report is complete: read at once, no event source. */
        s->run.spawning = true;
        service_drain_report(s);
        s->run.spawning = false;
        r = process_watch(&s->run.main);
        if (r >= 0)
                r = sd_event_add_io(c->event, &s->run.exit_source, s->run.main.pidfd, PROCESS_EXIT_EVENTS, service_on_exit_event, s);
        if (r >= 0 && s->run.report_fd >= 0)
                r = sd_event_add_io(c->event, &s->run.report_source, s->run.report_fd, SPAWN_REPORT_EVENTS, service_on_report_event, s);
        if (r < 0) {
                /* Cannot watch it, so it must not run unwatched. */
                process_kill_and_reap(&s->run.main);
                service_unwatch(s);
                goto fail;
        }
        log_debug("%s: spawned pid %d (%s)", s->name, (int) s->run.main.pid, spawn_mode_to_string(s->run.main.mode));
        /* Type=simple (and idle) is running once created (after ExecStartPost=); Start still waits for
         * the exec (service_note_execed). */
        if (IN_SET(u->type, SERVICE_TYPE_SIMPLE, SERVICE_TYPE_IDLE))
                service_enter_start_post(s);
        else
                service_set_state(s, SERVICE_STARTING);
        if (s->run.have_command_exit) {
                ServiceResult result = SERVICE_SUCCESS;
                s->run.have_command_exit = false;
                ServiceForkingStep step = service_forking_command_exited(s, &s->run.command_exit, &result);
                service_forking_step(s, step, result);
        }
        if (s->run.report_fd < 0 && s->run.execed && !s->run.have_spawn_failure)
                service_note_execed(s);
        if (u->type == SERVICE_TYPE_DBUS) {
                r = service_dbus_watch(s, service_on_bus_owner_changed, service_on_bus_owner_reply);
                if (r < 0) {
                        char *msg = NULL;
                        if (asprintf(&msg, "Failed to watch bus name '%s': %s", u->bus_name, strerror(-r)) < 0)
                                msg = NULL;
                        log_error("%s: %s", s->name, msg ? msg : "Failed to watch the bus name");
                        service_set_last_error(s, msg);
                        service_enter_failure_stop(s, SERVICE_FAILURE_RESOURCES, SIGKILL);
                        return 0;
                }
        }
        if (IN_SET(u->type, SERVICE_TYPE_NOTIFY, SERVICE_TYPE_ONESHOT, SERVICE_TYPE_FORKING, SERVICE_TYPE_DBUS)) {
                r = service_arm_timer(s, u->timeout_start_usec, service_on_start_timeout);
                if (r < 0)
                        log_warning_errno(r, "%s: Failed to arm TimeoutStartSec=, waiting without: %m", s->name);
        }
        return 0;

fail:
        {
                char *msg = NULL;
                /* The cgroup may be what failed (removed under svd's feet:
                 * CLONE_INTO_CGROUP says ENOENT): the next start opens it anew. */
                s->cgroup = false;
                if (exec.error)
                        msg = strdup(exec.error);
                else if (asprintf(&msg, "Failed to spawn '%s': %s", service_main_command(s)->argv[0], strerror(-r)) < 0)
                        msg = NULL;
                if (service_error_is_exhaustion(r)) {
                        /* svd itself is out of descriptors, processes or memory: every start fails
                         * alike until something is freed, so say it once a second, with a count. */
                        s->exhausted++;
                        service_log_exhausted(s, msg);
                } else {
                        s->exhausted = 0;
                        log_error("%s: %s", s->name, msg ? msg : "Failed to spawn");
                }
                service_set_last_error(s, msg);
                s->spawn_error = true; /* service_start_failed answers with SpawnFailed */
                /* This start never got a process: the previous run's readiness must not make it look
                 * complete (its waiters would never be answered). */
                s->run.ready = false;
                service_enter_dead(s, SERVICE_FAILURE_RESOURCES, /* allow_restart= */ true);
                return r;
        }
}

/* ---- Restart= (the verdicts: service-restart.c) ---- */

int service_on_restart_timer(sd_event_source *source, uint64_t usec, void *userdata) {
        Service *s = userdata;

        assert(s->state == SERVICE_AUTO_RESTART);
        service_unset_timer(s);
        if (!service_start_limit_test(s)) {
                char *msg = service_start_limit_message(s);
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
        if (s->exhausted > 0)
                log_debug("%s: restarting (restart %u, after %u start(s) that svd's resources failed)",
                          s->name, s->restarts, s->exhausted);
        else
                log_info("%s: restarting (restart %u)", s->name, s->restarts);
        (void) service_spawn(s);
        return 0;
}

/* Arms the restart (RestartSec=, with back-off): 0, or -errno when the timer cannot be armed. */
static int service_schedule_restart(Service *s) {
        uint64_t delay = service_restart_delay(s);
        int r = service_arm_timer(s, delay, service_on_restart_timer);
        if (r < 0)
                return r;
        if (delay != s->def->unit->restart_usec && s->exhausted == 0)
                log_info("%s: restarting in %s (back-off step %u).", s->name,
                         format_timespan((char[FORMAT_TIMESPAN_MAX]){}, FORMAT_TIMESPAN_MAX, delay), s->restarts + 1);
        return 0;
}

/* ---- Type=idle (whether others' jobs are under way: service-idle.c) ---- */

static void service_idle_cancel(Service *s) {
        if (!s->idle_source && s->timer_cb != service_on_idle_timeout)
                return;
        s->idle_source = sd_event_source_disable_unref(s->idle_source);
        if (s->timer_cb == service_on_idle_timeout)
                service_unset_timer(s);
}

static void service_idle_go(Service *s) {
        service_idle_cancel(s);
        if (s->state == SERVICE_INACTIVE || s->state == SERVICE_FAILED)
                (void) service_spawn(s);
}

static int service_on_idle_post(sd_event_source *source, void *userdata) {
        Service *s = userdata;
        if (!service_idle_jobs_pending(s))
                service_idle_go(s);
        return 0;
}

int service_on_idle_timeout(sd_event_source *source, uint64_t usec, void *userdata) {
        Service *s = userdata;
        log_debug("%s: other jobs still run after %s, starting anyway (Type=idle).", s->name, "5s");
        service_idle_go(s);
        return 0;
}

/* Type=idle: true when s waits for other jobs before its spawn (spawned from the post source or
 * the timer then). */
static bool service_idle_wait(Service *s) {
        if (s->def->unit->type != SERVICE_TYPE_IDLE || s->idle_source || !service_idle_jobs_pending(s))
                return false;
        int r = sd_event_add_post(s->ctx->event, &s->idle_source, service_on_idle_post, s);
        if (r >= 0)
                r = service_arm_timer(s, SERVICE_IDLE_MAX_USEC, service_on_idle_timeout);
        if (r < 0) {
                log_warning_errno(r, "%s: Failed to wait for other jobs, starting now: %m", s->name);
                service_idle_cancel(s);
                return false;
        }
        log_debug("%s: waiting for other jobs to be dispatched (Type=idle).", s->name);
        return true;
}

/* ---- exits ---- */

static bool exit_is_clean_signal(int sig) {
        /* As systemd: these are how a service is asked to stop, so ending by
         * one of them is a clean exit. */
        return IN_SET(sig, SIGHUP, SIGINT, SIGTERM, SIGPIPE);
}

static ServiceResult result_from_exit(const Unit *u, const ExitStatus *st) {
        /* SuccessExitStatus=: further exit statuses and signals that are a clean end. */
        if (st->code == CLD_EXITED && exit_status_set_has_status(&u->success_exit_status, st->status))
                return SERVICE_SUCCESS;
        if (st->code != CLD_EXITED && exit_status_set_has_signal(&u->success_exit_status, st->status))
                return SERVICE_SUCCESS;
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

static void service_settle_dead(Service *s, ServiceResult result, bool allow_restart);

/* No process any more: settle in inactive/failed or schedule a restart. A
 * start that waited is answered after that, so that a client that hears of
 * the failure sees the state it left behind. */
static void service_enter_dead(Service *s, ServiceResult result, bool allow_restart) {
        service_settle_dead(s, result, allow_restart);
        if (!s->run.ready && !(s->run.execed && s->def->unit->type == SERVICE_TYPE_ONESHOT && s->result == SERVICE_SUCCESS))
                service_start_failed(s);
}

static void service_settle_dead(Service *s, ServiceResult result, bool allow_restart) {
        if (s->result == SERVICE_SUCCESS || result != SERVICE_SUCCESS)
                s->result = result;

        /* Type=oneshot: a successful exit is what its start waited for. */
        bool oneshot_done = !s->run.ready && s->run.execed && s->def->unit->type == SERVICE_TYPE_ONESHOT &&
                            s->result == SERVICE_SUCCESS;
        if (oneshot_done && s->def->unit->remain_after_exit) {
                service_unset_timer(s);
                service_set_state(s, SERVICE_EXITED);
                service_ready(s);
                return;
        }
        /* RemainAfterExit= of the other types: a started service whose processes ended successfully
         * on their own (not stopped) stays "exited" (active), as systemd keeps it. */
        if (s->def->unit->remain_after_exit && s->run.ready && allow_restart && s->result == SERVICE_SUCCESS) {
                service_unset_timer(s);
                service_set_state(s, SERVICE_EXITED);
                return;
        }
        if (allow_restart && service_should_restart(s, s->result)) {
                int r = service_schedule_restart(s);
                if (r >= 0) {
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
        const SpawnFailure *f = &s->run.spawn_failure;
        const char *stage = spawn_stage_to_string(f->stage);
        char *msg = NULL;
        int r;

        if (f->stage == SPAWN_STAGE_EXEC)
                r = asprintf(&msg, "exec %s: %s", service_main_command(s)->argv[0], strerror(f->error));
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
        while (s->run.report_fd >= 0) {
                SpawnFailure f;
                int r = spawn_read_failure(s->run.report_fd, &f);
                if (r == -EAGAIN)
                        return;
                if (r <= 0) {
                        if (r < 0)
                                log_warning_errno(r, "%s: Failed to read spawn report, ignoring: %m", s->name);
                        s->run.report_source = sd_event_source_disable_unref(s->run.report_source);
                        s->run.report_fd = safe_close(s->run.report_fd);
                        if (!s->run.main_pid1 && !s->run.have_spawn_failure)
                                s->run.execed = true;
                        return;
                }
                if (f.stage == SPAWN_REPORT_EXECED)
                        s->run.execed = true;
                else if (f.stage == SPAWN_REPORT_EXIT_STATUS && s->def->unit->type == SERVICE_TYPE_FORKING) {
                        ExitStatus st = exit_status_from_wait_status(f.error);
                        /* Read right after the spawn (the command was quick): the start has not begun
                         * yet, and the state would tell a stop. service_spawn_main() hands it on. */
                        if (s->run.spawning) {
                                s->run.command_exit = st;
                                s->run.have_command_exit = true;
                        } else {
                                ServiceResult result = SERVICE_SUCCESS;
                                ServiceForkingStep step = service_forking_command_exited(s, &st, &result);
                                service_forking_step(s, step, result);
                        }
                } else if (f.stage == SPAWN_REPORT_EXIT_STATUS) {
                        s->run.reported_exit = exit_status_from_wait_status(f.error);
                        s->run.have_reported_exit = true;
                } else if (f.stage == SPAWN_REPORT_REAPED_PID)
                        s->run.reaped_nspid = (pid_t) f.error;
                else if (f.stage == SPAWN_REPORT_REAPED_STATUS) {
                        pid_t nspid = s->run.reaped_nspid;
                        s->run.reaped_nspid = 0;
                        service_forking_reaped(s, nspid, f.error);
                } else if (!s->run.have_spawn_failure) {
                        s->run.spawn_failure = f;
                        s->run.have_spawn_failure = true;
                        service_note_spawn_failure(s);
                }
        }
}

/* The command has exec'd: the start is complete for Type=exec (running now) and Type=simple (running
 * already); notify and oneshot wait on. */
static void service_note_execed(Service *s) {
        if (s->state == SERVICE_STARTING && s->def->unit->type == SERVICE_TYPE_EXEC) {
                log_debug("%s: exec'd, pid %d", s->name, (int) s->run.main.pid);
                service_enter_start_post(s);
        } else if (s->state == SERVICE_RUNNING && !s->run.ready) {
                log_debug("%s: exec'd, pid %d", s->name, (int) s->run.main.pid);
                service_ready(s);
        }
}

int service_on_report_event(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        Service *s = userdata;

        service_drain_report(s);
        if (s->run.execed && !s->run.have_spawn_failure)
                service_note_execed(s);
        return 0;
}

static int service_kill_leftovers(Service *s);
static void service_after_main(Service *s);

static void service_handle_exit(Service *s, const ExitStatus *exit_status) {
        const ExitStatus *st = exit_status;

        /* Its last words go into the log before its state changes. */
        service_log_drain(s->log);
        /* The child wrote its report before it exited, and its end of the
         * pipe closed when it exec'd or died, so the report is complete now. What it says comes first:
         * Type=forking's init reports the command's exit, which completes the start, and may exit
         * itself before svd has read that. */
        service_drain_report(s);
        ServiceState was = s->state;

        /* While ExecStop= runs the main process is expected to go; while ExecStartPost= runs it counts as
         * running. */
        if (was == SERVICE_STOP_EXEC)
                was = SERVICE_STOPPING;
        else if (was == SERVICE_START_POST)
                was = SERVICE_RUNNING;
        /* Type=forking without a PID namespace: the command's exit hands over to its daemon. */
        if (service_forking_take_over(s, exit_status)) {
                service_forking_step(s, SERVICE_FORKING_RUNNING, SERVICE_SUCCESS);
                return;
        }
        if (!s->run.have_spawn_failure &&
            ((was == SERVICE_STARTING && s->def->unit->type == SERVICE_TYPE_EXEC) || (was == SERVICE_RUNNING && !s->run.ready))) {
                s->run.execed = true; /* it did exec: Start succeeded */
                service_note_execed(s);
                was = SERVICE_RUNNING;
        }
        /* After STOPPING=1 the exit is the service's own doing, judged by its status. */
        if (s->run.stop_by_notify && IN_SET(was, SERVICE_STOPPING, SERVICE_KILLING))
                was = s->run.ready ? SERVICE_RUNNING : SERVICE_STARTING;

        service_unwatch(s);
        process_done(&s->run.main);
        service_unset_timer(s);
        service_forking_exited(s);

        /* With PrivatePIDs= the process svd watched is our init; what counts
         * is how the command ended, which init reported. */
        if (s->run.have_reported_exit)
                st = &s->run.reported_exit;
        s->have_exit = true;
        s->last_exit = *st;
        if (st->code == CLD_EXITED)
                log_info("%s: main process exited, status=%d", s->name, st->status);
        else
                log_info("%s: main process %s, signal=%s", s->name, strna(exit_code_to_string(st->code)),
                         strna(signal_to_string(st->status)));

        ServiceResult result = SERVICE_SUCCESS;
        if (s->run.have_spawn_failure)
                result = SERVICE_FAILURE_EXEC;
        else if (IN_SET(was, SERVICE_STOPPING, SERVICE_KILLING))
                result = SERVICE_SUCCESS; /* we asked it to go; a timeout was recorded already */
        else
                result = result_from_exit(s->def->unit, st);
        /* ExecStart=-...: a failed exit is recorded but counts as success. */
        if (!s->run.have_spawn_failure && (service_main_command(s)->flags & EXEC_IGNORE_FAILURE) &&
            result != SERVICE_SUCCESS && !IN_SET(was, SERVICE_STOPPING, SERVICE_KILLING)) {
                log_info("%s: %s %d, ignored ('-' prefix).", s->name, strna(exit_code_to_string(st->code)), st->status);
                result = SERVICE_SUCCESS;
        }
        if (was == SERVICE_STARTING && !s->run.have_spawn_failure && s->def->unit->type == SERVICE_TYPE_FORKING) {
                /* The command's exit ends the start (service-forking.c); here it failed, or left no
                 * daemon to be found (service_forking_take_over() said why), or the service's
                 * processes ended before the PID file named one. */
                if (result == SERVICE_SUCCESS) {
                        result = SERVICE_FAILURE_RESOURCES;
                        if (!s->last_error)
                                service_set_last_error(s, strdup("the service's processes ended before the "
                                                                 "start was complete"));
                } else {
                        char *msg = NULL;
                        if (asprintf(&msg, "the command %s %s%d", strna(exit_code_to_string(st->code)),
                                     st->code == CLD_EXITED ? "with status " : "by signal ", st->status) < 0)
                                msg = NULL;
                        service_set_last_error(s, msg);
                }
        } else if (was == SERVICE_STARTING && !s->run.have_spawn_failure && s->def->unit->type != SERVICE_TYPE_ONESHOT) {
                char *msg = NULL;
                if (asprintf(&msg, "%s %s%d before it %s", strna(exit_code_to_string(st->code)),
                             st->code == CLD_EXITED ? "with status " : "by signal ", st->status,
                             s->def->unit->type == SERVICE_TYPE_DBUS ? "acquired its bus name" : "reported READY=1") < 0)
                        msg = NULL;
                service_set_last_error(s, msg);
                if (result == SERVICE_SUCCESS)
                        result = SERVICE_FAILURE_EXIT_CODE; /* gone before ready is no success */
        } else if (was == SERVICE_STARTING && !s->run.have_spawn_failure && result != SERVICE_SUCCESS) {
                char *msg = NULL;
                if (asprintf(&msg, "%s %s%d", strna(exit_code_to_string(st->code)),
                             st->code == CLD_EXITED ? "with status " : "by signal ", st->status) < 0)
                        msg = NULL;
                service_set_last_error(s, msg);
        }
        s->run.exit_was = was;
        s->run.exit_result = result;
        s->run.main_exited = true;

        if (service_control_running(s))
                return; /* ExecStartPost=, ExecReload= or ExecStop= runs: its end goes on from here */
        service_after_main(s);
}

/* Type=oneshot with RemainAfterExit=yes whose commands all succeeded: it stays "exited", without the
 * stop commands. */
static bool service_remains(const Service *s) {
        return s->def->unit->type == SERVICE_TYPE_ONESHOT && s->def->unit->remain_after_exit &&
               s->run.exit_was == SERVICE_STARTING && s->run.exit_result == SERVICE_SUCCESS && !s->run.failing &&
               !s->run.have_spawn_failure && s->result == SERVICE_SUCCESS;
}

/* The main process is gone and no command runs: the next ExecStart= of a oneshot, ExecStop= if the
 * start had completed, then the rest of the tree goes (service_finish_exit). */
static void service_after_main(Service *s) {
        const Unit *u = s->def->unit;

        if (u->type == SERVICE_TYPE_ONESHOT && !s->control.started && s->run.exit_was == SERVICE_STARTING &&
            s->run.exit_result == SERVICE_SUCCESS && !s->run.failing && !s->run.have_spawn_failure &&
            s->want_running) {
                if (s->control.exec_start_index + 1 < u->exec[UNIT_EXEC_START].n) {
                        s->control.exec_start_index++;
                        (void) service_spawn_main(s);
                        return;
                }
                service_enter_start_post(s); /* then service_enter_running(), which comes back here */
                return;
        }
        /* systemd.service(5): ExecStop= runs once the start had completed, also when the main process
         * ended by itself. */
        if (s->control.started && !s->control.stop_done && !service_remains(s)) {
                s->control.stop_done = true;
                if (service_run_control(s, UNIT_EXEC_STOP, SERVICE_STOP_EXEC))
                        return;
        }
        if (service_kill_leftovers(s) > 0)
                return; /* service_on_cgroup_event finishes once the cgroup is empty */
        service_finish_exit(s);
}

/* The main process is gone and so is the rest of its tree: ExecStopPost=, then what follows. */
void service_finish_exit(Service *s) {
        ServiceState was = s->run.exit_was;
        bool start_pending = false;

        if (!s->control.stop_post_done && !service_remains(s)) {
                s->control.stop_post_done = true;
                if (service_run_control(s, UNIT_EXEC_STOP_POST, SERVICE_STOP_POST))
                        return;
        }

        if (s->cgroup) {
                /* Empty now; the next start gets a fresh one (see cgroup.h). */
                s->cgroup = false;
                int r = cgroup_service_remove(s->ctx->cgroup, s->name);
                if (r < 0)
                        log_debug_errno(r, "%s: Failed to remove cgroup, ignoring: %m", s->name);
        }
        service_remove_ipc(s);

        if (was == SERVICE_STARTING || s->run.failing || s->run.have_spawn_failure) {
                /* The start ended (oneshot) or failed, or svd stopped it for a failure: policy decides. */
                service_enter_dead(s, s->run.exit_result, /* allow_restart= */ true);
                return;
        }
        for (ServiceWaiter *w = s->waiters; w; w = w->waiters_next)
                if ((1U << w->op) & OPS_START)
                        start_pending = true;
        if ((IN_SET(was, SERVICE_STOPPING, SERVICE_KILLING) || start_pending) && s->want_running &&
            !s->ctx->shutting_down) {
                /* A restart asked for by a client: start again at once. */
                if (s->result == SERVICE_FAILURE_TIMEOUT)
                        s->result = SERVICE_SUCCESS;
                service_dirs_remove_runtime(s, /* for_good= */ false);
                (void) service_spawn(s);
                return;
        }
        service_enter_dead(s, s->run.exit_result,
                           /* allow_restart= */ !IN_SET(was, SERVICE_STOPPING, SERVICE_KILLING));
}

void service_unwatch_cgroup(Service *s) {
        s->run.cgroup_source = sd_event_source_disable_unref(s->run.cgroup_source);
        s->run.cgroup_events_fd = safe_close(s->run.cgroup_events_fd);
}

int service_on_cgroup_event(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
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
 * when there was something and the caller must wait for service_on_cgroup_event,
 * 0 when the cgroup is empty (or there is none). A cgroup whose only
 * members are exiting (cgroup.procs empty, still populated: the main
 * process on its way out) is waited for without a kill, and a service
 * that is stopping stays "stopping" meanwhile: nothing was left behind. */
static int service_kill_leftovers(Service *s) {
        int r;

        if (!s->cgroup)
                return 0;
        /* systemd.kill(5): KillMode=process and none leave the other processes alone. */
        if (IN_SET(s->def->unit->kill_mode, KILL_MODE_PROCESS, KILL_MODE_NONE))
                return 0;
        _cleanup_close_ int cg = service_cgroup_open(s);
        if (cg < 0)
                return log_debug_errno(cg, "%s: Failed to open its cgroup, taking it for empty: %m", s->name), 0;
        /* Watch first, then kill, then look: no change can slip in between. */
        r = cgroup_open_events(cg, &s->run.cgroup_events_fd);
        if (r < 0)
                return log_warning_errno(r, "%s: Failed to open cgroup.events: %m", s->name), 0;
        r = cgroup_events_populated(s->run.cgroup_events_fd);
        if (r <= 0) {
                service_unwatch_cgroup(s);
                return 0;
        }
        bool leftovers = cgroup_has_processes(cg) != 0; /* an error: kill to be sure */
        if (leftovers) {
                log_info("%s: killing the processes the main process left behind.", s->name);
                r = cgroup_kill(cg);
                if (r < 0)
                        log_error_errno(r, "%s: Failed to write cgroup.kill: %m", s->name);
        } else
                log_debug("%s: waiting for the exiting processes to leave the cgroup.", s->name);
        r = sd_event_add_io(s->ctx->event, &s->run.cgroup_source, s->run.cgroup_events_fd, EPOLLPRI, service_on_cgroup_event,
                            s);
        if (r < 0) {
                log_error_errno(r, "%s: Failed to watch cgroup.events: %m", s->name);
                service_unwatch_cgroup(s);
                return 0;
        }
        if (cgroup_events_populated(s->run.cgroup_events_fd) == 0) {
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
        int r = process_exit_status(&s->run.main, &st);
        if (r == -EAGAIN && !hangup && !s->run.exit_wait_hangup) {
                /* An autoreaped child's pidfd polls readable when it exits,
                 * which can be before the kernel has released it and
                 * published PIDFD_INFO_EXIT; the release comes with EPOLLHUP
                 * and its own wake-up, after which the status is there. Ask
                 * for that hang-up (epoll always reports it). */
                r = sd_event_source_set_io_events(s->run.exit_source, PROCESS_HANGUP_EVENTS);
                if (r >= 0) {
                        s->run.exit_wait_hangup = true;
                        return;
                }
                r = -EAGAIN;
        }
        if (r == -EAGAIN && s->run.exit_info_retries++ < SERVICE_EXIT_INFO_RETRIES) {
                /* Hung up and still nothing (should not happen), or hang-up
                 * could not be asked for: ask again shortly, bounded. */
                (void) sd_event_source_set_enabled(s->run.exit_source, SD_EVENT_OFF);
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

int service_on_exit_event(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        service_collect_exit(userdata, revents & EPOLLHUP);
        return 0;
}

/* ---- stopping ---- */

int service_on_stop_timeout(sd_event_source *source, uint64_t usec, void *userdata) {
        Service *s = userdata;

        service_unset_timer(s);
        log_warning("%s: stop timed out after %s, killing", s->name,
                    format_timespan((char[64]){}, 64, s->def->unit->timeout_stop_usec));
        s->result = SERVICE_FAILURE_TIMEOUT;
        int r = process_kill(&s->run.main, SIGKILL);
        if (r < 0 && r != -ESRCH)
                log_error_errno(r, "%s: Failed to send SIGKILL: %m", s->name);
        if (s->cgroup && IN_SET(s->def->unit->kill_mode, KILL_MODE_CONTROL_GROUP, KILL_MODE_MIXED)) {
                _cleanup_close_ int cg = service_cgroup_open(s);
                r = cg < 0 ? cg : cgroup_kill(cg);
                if (r < 0)
                        log_error_errno(r, "%s: Failed to write cgroup.kill: %m", s->name);
        }
        service_set_state(s, SERVICE_KILLING);
        return 0;
}

/* Sends sig as KillMode= says (systemd.kill(5)): control-group to every process of the service (the
 * main one only when svd has no cgroup: the others cannot be told apart then), mixed and process to
 * the main process, none to no one. */
static int service_signal(Service *s, int sig) {
        int r = 0;

        if (s->def->unit->kill_mode == KILL_MODE_NONE)
                return 0;
        if (s->def->unit->kill_mode == KILL_MODE_CONTROL_GROUP && s->cgroup && !s->run.main_pid1) {
                _cleanup_close_ int cg = service_cgroup_open(s);
                r = cg < 0 ? cg : cgroup_signal(cg, sig);
                if (r >= 0)
                        return 0;
                log_warning_errno(r, "%s: Failed to signal the cgroup, signalling the main process: %m", s->name);
        }
        r = process_kill(&s->run.main, sig);
        return r == -ESRCH ? 0 : r;
}

static void service_enter_stopping_signal(Service *s, int sig) {
        assert(process_is_set(&s->run.main));

        s->control.stop_done = true;
        int r = service_signal(s, sig);
        if (r < 0)
                log_error_errno(r, "%s: Failed to send %s: %m", s->name, strna(signal_to_string(sig)));
        r = service_arm_timer(s, s->def->unit->timeout_stop_usec, service_on_stop_timeout);
        if (r < 0) {
                log_error_errno(r, "%s: Failed to arm stop timeout, killing now: %m", s->name);
                (void) process_kill(&s->run.main, SIGKILL);
                service_set_state(s, SERVICE_KILLING);
                return;
        }
        service_set_state(s, SERVICE_STOPPING);
}

/* A stop (or restart) by request: ExecStop= if the start had completed, then KillSignal=; a command
 * of the start or a reload that runs is cut short first. */
static void service_enter_stopping(Service *s) {
        if (service_control_running(s)) {
                if (IN_SET(s->state, SERVICE_STOP_EXEC, SERVICE_STOP_POST))
                        return; /* stopping already */
                s->control.stopping = true;
                service_control_abandon(s); /* service_on_control_done() goes on from its exit */
                return;
        }
        if (!process_is_set(&s->run.main))
                return; /* ending already (leftovers, ExecStopPost=) */
        if (s->control.started && !s->control.stop_done) {
                s->control.stop_done = true;
                if (service_run_control(s, UNIT_EXEC_STOP, SERVICE_STOP_EXEC))
                        return;
        }
        service_enter_stopping_signal(s, s->def->unit->kill_signal);
}

/* The start is complete as Type= defines it: ExecStartPost=, then running. */
static void service_enter_running(Service *s);

static void service_enter_start_post(Service *s) {
        if (service_run_control(s, UNIT_EXEC_START_POST, SERVICE_START_POST))
                return;
        service_enter_running(s);
}

static void service_enter_running(Service *s) {
        if (process_is_set(&s->run.main)) {
                s->control.started = true;
                service_set_state(s, SERVICE_RUNNING);
                return;
        }
        /* Type=oneshot: every command succeeded. Another type: the main process ended meanwhile. */
        if (s->def->unit->type == SERVICE_TYPE_ONESHOT)
                s->control.started = true;
        service_after_main(s);
}

/* The end of a list of commands (service-control.c): kind ended, all successfully (SERVICE_SUCCESS,
 * failures of '-' commands included) or with the first failure's result (s->last_error names the
 * command). */
static void service_on_control_done(Service *s, UnitExec kind, ServiceResult result) {
        bool stopping = s->control.stopping;

        s->control.stopping = false;
        switch (kind) {
        case UNIT_EXEC_START_PRE:
                if (stopping || !s->want_running) {
                        /* Stopped (or restarted) before the main command ran: nothing failed. */
                        s->run.exit_was = SERVICE_STOPPING;
                        s->run.exit_result = SERVICE_SUCCESS;
                } else if (result != SERVICE_SUCCESS) {
                        /* systemd.service(5): a failed ExecStartPre= fails the start; ExecStopPost= runs. */
                        s->run.exit_was = SERVICE_STARTING;
                        s->run.exit_result = result;
                } else {
                        (void) service_spawn_main(s);
                        return;
                }
                if (service_kill_leftovers(s) > 0)
                        return;
                service_finish_exit(s);
                return;

        case UNIT_EXEC_START_POST:
                if (!stopping && result != SERVICE_SUCCESS) {
                        if (s->result == SERVICE_SUCCESS)
                                s->result = result;
                        s->run.failing = true;
                        service_start_failed(s);
                }
                if (stopping || result != SERVICE_SUCCESS) {
                        s->control.stop_done = true;
                        if (process_is_set(&s->run.main))
                                service_enter_stopping_signal(s, s->def->unit->kill_signal);
                        else
                                service_after_main(s);
                        return;
                }
                service_enter_running(s);
                return;

        case UNIT_EXEC_RELOAD:
                if (result == SERVICE_SUCCESS)
                        service_answer(s, OPS_RELOAD, SERVICE_OUTCOME_DONE, NULL);
                else
                        service_answer(s, OPS_RELOAD, SERVICE_OUTCOME_RELOAD_FAILED,
                                       s->last_error ? s->last_error : "the reload failed");
                if (stopping)
                        service_enter_stopping(s);
                else if (process_is_set(&s->run.main))
                        service_set_state(s, SERVICE_RUNNING);
                else
                        service_after_main(s);
                return;

        case UNIT_EXEC_STOP:
                /* systemd: a failed stop command makes the result a failure; the stop goes on. */
                if (result != SERVICE_SUCCESS && s->result == SERVICE_SUCCESS)
                        s->result = result;
                if (process_is_set(&s->run.main))
                        service_enter_stopping_signal(s, s->def->unit->kill_signal);
                else
                        service_after_main(s);
                return;

        case UNIT_EXEC_STOP_POST:
                if (result != SERVICE_SUCCESS && s->result == SERVICE_SUCCESS)
                        s->result = result;
                if (service_kill_leftovers(s) > 0)
                        return;
                service_finish_exit(s);
                return;

        default:
                assert(!"bad command list");
        }
}

/* ---- the events of the parts' processes (ServiceHandlers) ---- */

/* Runs the commands of kind (service-control.c), in state: false when the unit has none. */
static bool service_run_control(Service *s, UnitExec kind, ServiceState state) {
        ServiceControlEnd end;
        int r = service_control_start(s, kind, &end);
        if (r == 0)
                return false;
        service_set_state(s, state);
        if (r < 0)
                service_on_control_done(s, end.kind, end.result);
        return true;
}

static int service_on_control_io(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        Service *s = userdata;
        ServiceControlEnd end;

        if (service_control_on_io(s, source, revents, &end))
                service_on_control_done(s, end.kind, end.result);
        return 0;
}

static int service_on_control_timer(sd_event_source *source, uint64_t usec, void *userdata) {
        Service *s = userdata;
        ServiceControlEnd end;

        if (service_control_on_timer(s, &end))
                service_on_control_done(s, end.kind, end.result);
        return 0;
}

/* What service-forking.c made of an event of a Type=forking start. */
static void service_forking_step(Service *s, ServiceForkingStep step, ServiceResult result) {
        switch (step) {
        case SERVICE_FORKING_RUNNING:
                service_unset_timer(s); /* TimeoutStartSec= */
                s->run.execed = true;
                service_enter_start_post(s); /* ExecStartPost=, then running: ExecStop= runs at the stop */
                break;
        case SERVICE_FORKING_FAILED:
                service_enter_failure_stop(s, result, SIGKILL); /* the exit settles it */
                break;
        default:
                break;
        }
}

static int service_on_pid_file_event(sd_event_source *source, const struct inotify_event *ev, void *userdata) {
        Service *s = userdata;
        ServiceResult result = SERVICE_SUCCESS;

        ServiceForkingStep step = service_forking_pid_file_changed(s, &result);
        service_forking_step(s, step, result);
        return 0;
}

void service_forking_resume_step(Service *s) {
        ServiceResult result = SERVICE_SUCCESS;

        ServiceForkingStep step = service_forking_resume(s, &result);
        service_forking_step(s, step, result);
}

static const ServiceHandlers service_handlers = {
        .main_exit = service_on_exit_event,
        .control_io = service_on_control_io,
        .control_timer = service_on_control_timer,
        .pid_file = service_on_pid_file_event,
};

/* svd ends the service because of a failure (start timeout, watchdog): the exit that follows is
 * judged by `result`, and Restart= applies. */
static void service_enter_failure_stop(Service *s, ServiceResult result, int sig) {
        if (s->result == SERVICE_SUCCESS)
                s->result = result;
        s->run.failing = true;
        if (!s->run.ready)
                service_start_failed(s);
        service_enter_stopping_signal(s, sig);
}

int service_on_start_timeout(sd_event_source *source, uint64_t usec, void *userdata) {
        Service *s = userdata;
        char t[FORMAT_TIMESPAN_MAX], *msg = NULL;

        service_unset_timer(s);
        if (asprintf(&msg, "%s within TimeoutStartSec=%s",
                     s->def->unit->type == SERVICE_TYPE_ONESHOT   ? "did not finish"
                     : s->def->unit->type == SERVICE_TYPE_FORKING ? "did not finish starting"
                     : s->def->unit->type == SERVICE_TYPE_DBUS    ? "did not acquire its bus name"
                                                             : "did not report READY=1",
                     format_timespan(t, sizeof(t), s->def->unit->timeout_start_usec)) < 0)
                msg = NULL;
        log_warning("%s: start timed out: %s, stopping.", s->name, msg ? msg : "timeout");
        service_set_last_error(s, msg);
        service_enter_failure_stop(s, SERVICE_FAILURE_TIMEOUT, s->def->unit->kill_signal);
        return 0;
}

static void service_watchdog_failed(Service *s, char *msg) {
        log_error("%s: %s, aborting it.", s->name, msg ? msg : "watchdog timeout");
        service_set_last_error(s, msg);
        s->run.watchdog_source = sd_event_source_disable_unref(s->run.watchdog_source);
        /* systemd's WatchdogSignal= default: SIGABRT, for a core dump of the hung process. */
        service_enter_failure_stop(s, SERVICE_FAILURE_WATCHDOG, SIGABRT);
}

int service_on_watchdog_timeout(sd_event_source *source, uint64_t usec, void *userdata) {
        Service *s = userdata;
        char t[FORMAT_TIMESPAN_MAX], *msg = NULL;

        if (asprintf(&msg, "watchdog timeout: no WATCHDOG=1 within %s",
                     format_timespan(t, sizeof(t), s->run.watchdog_usec)) < 0)
                msg = NULL;
        service_watchdog_failed(s, msg);
        return 0;
}

/* Whether NotifyAccess= lets pid (one of s's processes) send notifications. */
static bool service_notify_allowed(Service *s, pid_t pid) {
        switch (unit_notify_access(s->def->unit)) {
        case NOTIFY_ACCESS_ALL:
                return true; /* notify.c believes only the service's own processes */
        case NOTIFY_ACCESS_MAIN:
        case NOTIFY_ACCESS_EXEC:
                if (process_is_set(&s->run.daemon))
                        return pid == s->run.daemon.pid;
                if (s->run.main_pid1) {
                        /* The command: the first process svd's init forked, pid 2 of the namespace. A forking
                         * service's daemon, once known, is the main process (above). */
                        return !s->run.control_exited && pidns_pid_is(s->run.main.pid, pid, 2);
                }
                return pid == s->run.main.pid;
        default:
                return false;
        }
}

void service_notify(Service *s, pid_t pid, const NotifyMessage *msg) {
        assert(s);
        assert(msg);

        if (!s->def->unit || !process_is_set(&s->run.main))
                return;
        if (!service_notify_allowed(s, pid)) {
                log_debug("%s: notify message from pid %d refused by NotifyAccess=%s, ignoring.", s->name,
                          (int) pid, notify_access_to_string(unit_notify_access(s->def->unit)));
                return;
        }
        if (msg->main_pid > 0 && msg->main_pid != s->run.main.pid)
                log_debug("%s: MAINPID=%d ignored: svd follows the process it started.", s->name, (int) msg->main_pid);
        if (msg->status) {
                char *c = strdup(msg->status);
                if (c) {
                        free(s->run.status_text);
                        s->run.status_text = c;
                }
        }
        if (msg->errno_value >= 0)
                s->run.status_errno = msg->errno_value;
        if (msg->watchdog_usec > 0) {
                s->run.watchdog_usec = msg->watchdog_usec;
                service_arm_watchdog(s);
        }
        if (msg->watchdog_trigger) {
                service_watchdog_failed(s, strdup("the service triggered its watchdog (WATCHDOG=trigger)"));
                return;
        }
        if (msg->watchdog)
                service_arm_watchdog(s);

        if (msg->ready && s->state == SERVICE_STARTING && s->def->unit->type == SERVICE_TYPE_NOTIFY) {
                log_debug("%s: READY=1 from pid %d", s->name, (int) pid);
                s->run.execed = true; /* it runs our command, so it exec'd */
                service_unset_timer(s); /* TimeoutStartSec= */
                service_enter_start_post(s);
        } else if (msg->ready && s->state == SERVICE_RELOADING && !service_control_running(s))
                service_set_state(s, SERVICE_RUNNING);
        if (msg->reloading && s->state == SERVICE_RUNNING && s->def->unit->type == SERVICE_TYPE_NOTIFY)
                service_set_state(s, SERVICE_RELOADING);
        if (msg->stopping && IN_SET(s->state, SERVICE_STARTING, SERVICE_RUNNING, SERVICE_RELOADING) &&
            !service_control_running(s)) {
                s->run.stop_by_notify = true;
                int r = service_arm_timer(s, s->def->unit->timeout_stop_usec, service_on_stop_timeout);
                if (r < 0)
                        log_warning_errno(r, "%s: Failed to arm TimeoutStopSec=: %m", s->name);
                service_set_state(s, SERVICE_STOPPING);
        }
}

/* ---- operations ---- */

bool service_refuse(Service *s, ServiceDoneFn done, void *userdata) {
        ServiceJobResult r = {};

        if (!s->def->unit)
                r = (ServiceJobResult){ .outcome = SERVICE_OUTCOME_NOT_LOADED, .message = strna(s->def->load_error) };
        else if (s->ctx->shutting_down)
                r = (ServiceJobResult){ .outcome = SERVICE_OUTCOME_SHUTTING_DOWN, .message = "svd is shutting down" };
        else
                return false;
        if (done)
                done(s, &r, userdata);
        return true;
}

int service_want_start(Service *s, ServiceDoneFn done, void *userdata) {
        assert(s);

        if (service_refuse(s, done, userdata))
                return 0;
        if (service_add_waiter(s, done, userdata, SERVICE_OP_START) < 0)
                return -ENOMEM;
        service_cancel_waiters(s, OPS_STOP);
        s->want_running = true;
        if (s->job == SERVICE_JOB_STOP)
                s->job = SERVICE_JOB_NONE;

        switch (s->state) {
        case SERVICE_RUNNING:
        case SERVICE_RELOADING:
        case SERVICE_EXITED:
                if (s->run.ready)
                        service_answer(s, OPS_START, SERVICE_OUTCOME_DONE, NULL);
                break; /* else Type=simple before its exec: service_note_execed answers */
        case SERVICE_STARTING:
        case SERVICE_START_PRE:
        case SERVICE_START_POST:
        case SERVICE_STOPPING:
        case SERVICE_KILLING:
        case SERVICE_STOP_EXEC:
        case SERVICE_STOP_POST:
                break; /* readiness or the exit handler finishes the job */
        case SERVICE_AUTO_RESTART:
        case SERVICE_INACTIVE:
        case SERVICE_FAILED:
                return 1; /* the caller's: service_start_now() */
        default:
                assert(!"bad state");
        }
        return 0;
}

bool service_start_now(Service *s) {
        assert(s);

        if (!s->def->unit || s->ctx->shutting_down)
                return false;
        switch (s->state) {
        case SERVICE_AUTO_RESTART:
                service_unset_timer(s);
                _fallthrough_;
        case SERVICE_INACTIVE:
        case SERVICE_FAILED:
                s->restarts = 0;
                s->result = SERVICE_SUCCESS;
                service_start_limit_reset(s, /* counting= */ true);
                if (!service_idle_wait(s))
                        (void) service_spawn(s);
                break;
        default:
                break;
        }
        return true;
}

void service_fail_dependency(Service *s, Service *dep, const char *reason) {
        assert(dep);
        service_fail_dependency_name(s, dep->name, reason);
}

void service_fail_dependency_name(Service *s, const char *dep, const char *reason) {
        char *msg = NULL;

        assert(s);
        assert(dep);

        if (asprintf(&msg, "dependency '%s' failed to start: %s", dep, reason ? reason : "failed") < 0)
                msg = NULL;
        log_error("%s: Failed to start: %s", s->name, msg ? msg : "a dependency failed");
        service_set_last_error(s, msg);
        s->want_running = false;
        service_answer_waiters(s, OPS_START,
                               &(ServiceJobResult){
                                       .outcome = SERVICE_OUTCOME_DEPENDENCY_FAILED,
                                       .message = msg ? msg : "a dependency failed",
                                       .dependency = dep,
                               });
}

void service_drop_start(Service *s, const char *reason) {
        assert(s);
        assert(reason);

        log_warning("%s: %s", s->name, reason);
        service_set_last_error(s, strdup(reason));
        s->want_running = false;
        service_answer_waiters(s, OPS_START,
                               &(ServiceJobResult){ .outcome = SERVICE_OUTCOME_CANCELLED, .message = reason });
}

int service_want_stop(Service *s, ServiceDoneFn done, void *userdata) {
        assert(s);

        if (service_add_waiter(s, done, userdata, SERVICE_OP_STOP) < 0)
                return -ENOMEM;
        service_cancel_waiters(s, OPS_START);
        s->want_running = false;
        s->run.stop_by_notify = false;
        service_idle_cancel(s);
        return 0;
}

static bool service_has_stop_commands(const Service *s) {
        return s->def->unit && (s->def->unit->exec[UNIT_EXEC_STOP].n > 0 || s->def->unit->exec[UNIT_EXEC_STOP_POST].n > 0);
}

/* Type=oneshot with RemainAfterExit=yes, "exited": ExecStop=, ExecStopPost=, then inactive (or the start
 * again, for a restart). */
static void service_stop_exited(Service *s) {
        assert(s->state == SERVICE_EXITED);

        if (!service_has_stop_commands(s)) {
                service_set_state(s, SERVICE_INACTIVE);
                return;
        }
        s->run.exit_was = SERVICE_STOPPING;
        s->run.exit_result = SERVICE_SUCCESS;
        service_after_main(s);
}

void service_stop_now(Service *s) {
        assert(s);

        switch (s->state) {
        case SERVICE_INACTIVE:
        case SERVICE_FAILED:
                /* Without a change of state: a stop job that waited for the units ordered after s
                 * (they stop first) ends here, and s is settled by that alone. */
                service_answer(s, OPS_STOP, SERVICE_OUTCOME_DONE, NULL);
                service_tell_settled(s);
                break;
        case SERVICE_AUTO_RESTART:
                service_unset_timer(s);
                service_set_state(s, SERVICE_INACTIVE);
                break;
        case SERVICE_EXITED:
                service_stop_exited(s);
                break;
        case SERVICE_START_PRE:
        case SERVICE_STARTING:
        case SERVICE_START_POST:
        case SERVICE_RUNNING:
        case SERVICE_RELOADING:
                service_enter_stopping(s);
                break;
        case SERVICE_STOPPING:
        case SERVICE_KILLING:
        case SERVICE_STOP_EXEC:
        case SERVICE_STOP_POST:
                break;
        default:
                assert(!"bad state");
        }
}

int service_want_restart(Service *s, ServiceDoneFn done, void *userdata) {
        assert(s);

        s->run.failing = false;
        s->run.stop_by_notify = false;
        if (s->state == SERVICE_EXITED && !service_has_stop_commands(s))
                service_set_state(s, SERVICE_INACTIVE); /* nothing to stop: start again */
        if (!IN_SET(s->state, SERVICE_START_PRE, SERVICE_STARTING, SERVICE_START_POST, SERVICE_RUNNING,
                    SERVICE_RELOADING, SERVICE_STOPPING, SERVICE_KILLING, SERVICE_STOP_EXEC, SERVICE_STOP_POST,
                    SERVICE_EXITED))
                return 1; /* nothing runs: the restart is a start */
        if (service_add_waiter(s, done, userdata, SERVICE_OP_RESTART) < 0)
                return -ENOMEM;
        service_cancel_waiters(s, OPS_STOP | (1U << SERVICE_OP_START));
        s->want_running = true;
        s->restarts = 0;
        if (s->state == SERVICE_EXITED)
                service_stop_exited(s);
        else if (IN_SET(s->state, SERVICE_START_PRE, SERVICE_STARTING, SERVICE_START_POST, SERVICE_RUNNING,
                        SERVICE_RELOADING))
                service_enter_stopping(s);
        return 0;
}

int service_reload(Service *s, ServiceDoneFn done, void *userdata) {
        const char *why = NULL;

        assert(s);

        if (!s->def->unit)
                why = s->def->load_error ? s->def->load_error : "the unit is not loaded";
        else if (s->def->unit->exec[UNIT_EXEC_RELOAD].n == 0)
                why = "the unit has no ExecReload=";
        else if (!(IN_SET(s->state, SERVICE_RUNNING, SERVICE_RELOADING) && s->run.ready))
                why = "it is not running";
        if (why) {
                if (done)
                        done(s, &(ServiceJobResult){ .outcome = SERVICE_OUTCOME_RELOAD_FAILED, .message = why }, userdata);
                return 0;
        }
        if (service_add_waiter(s, done, userdata, SERVICE_OP_RELOAD) < 0)
                return -ENOMEM;
        if (service_control_running(s))
                return 0; /* a reload runs: its end answers this one too */
        (void) service_run_control(s, UNIT_EXEC_RELOAD, SERVICE_RELOADING);
        return 0;
}

int service_kill(Service *s, int sig) {
        assert(s);
        if (!process_is_set(&s->run.main))
                return -ESRCH;
        log_info("%s: sending %s on request.", s->name, strna(signal_to_string(sig)));
        return process_kill(process_is_set(&s->run.daemon) ? &s->run.daemon : &s->run.main, sig);
}

bool service_reset_failed(Service *s) {
        bool was_failed = s->state == SERVICE_FAILED;

        assert(s);

        service_start_limit_reset(s, /* counting= */ false);
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

int service_new(ServiceContext *c, const char *name, UnitDefinition *def, Service **ret) {
        _cleanup_(unit_definition_freep) UnitDefinition *d = def;
        _cleanup_(service_freep) Service *s = NULL;

        assert(c);
        assert(name);
        assert(def);
        assert(ret);

        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        *s = (Service){
                .ctx = c,
                .handlers = &service_handlers,
                .def = TAKE_PTR(d),
                .dynamic_user_fd = -EBADF,
                .connection_fd = -EBADF,
                .state = SERVICE_INACTIVE,
                .result = SERVICE_SUCCESS,
                .state_change_usec = now_usec(CLOCK_REALTIME),
        };
        service_run_init(&s->run);
        service_control_init(&s->control);
        s->state_enter_usec[SERVICE_INACTIVE] = s->state_change_usec;
        /* What its own file says, until the manager has read the links (unit-install.h). */
        s->file_state = unit_file_state(&(UnitInstallLinks){}, name, s->def->unit);
        s->name = strdup(name);
        if (!s->name || service_log_new(c->event, s->name, &s->log) < 0)
                return -ENOMEM;
        *ret = TAKE_PTR(s);
        return 0;
}

Service *service_free(Service *s) {
        if (!s)
                return NULL;
        service_cancel_waiters(s, OPS_START | OPS_STOP | OPS_RELOAD);
        s->idle_source = sd_event_source_disable_unref(s->idle_source);
        service_unset_timer(s);
        service_deps_done(&s->deps);
        service_control_done(&s->control);
        if (process_is_set(&s->run.main) && s->run.main.mode == SPAWN_MODE_FALLBACK) {
                /* Only at exit with the service still up after its stop sequence. */
                (void) process_kill(&s->run.main, SIGKILL);
                (void) waitid(P_PIDFD, (id_t) s->run.main.pidfd, &(siginfo_t){}, WEXITED);
        }
        service_run_done(&s->run);
        service_dynamic_user_release(s);
        s->log = service_log_free(s->log);
        unit_definition_free(s->next);
        unit_definition_free(s->def);
        free(s->name);
        free(s->last_error);
        free(s->condition_failed);
        free(s->assert_failed);
        safe_close(s->connection_fd);
        strv_free(s->connection_env);
        free(s);
        return NULL;
}


/* ---- definitions ---- */

void service_set_definition(Service *s, UnitDefinition *def) {
        assert(s);
        assert(def);

        /* A uid allocated for the old definition's user goes with it (no process of it is left). */
        service_dynamic_user_release(s);
        unit_definition_free(s->def);
        s->def = def;
        s->next = unit_definition_free(s->next);
}

void service_set_next_definition(Service *s, UnitDefinition *def) {
        assert(s);
        assert(def);

        unit_definition_free(s->next);
        s->next = def;
}

bool service_apply_next_unit(Service *s) {
        if (!s->next || !service_may_change(s))
                return false;
        service_set_definition(s, TAKE_PTR(s->next));
        log_info("%s: now settled, the reloaded unit file is in force.", s->name);
        return true;
}

static void service_take_next_unit(Service *s) {
        if (!s->next || !s->next->unit || process_is_set(&s->run.main))
                return;
        service_set_definition(s, TAKE_PTR(s->next));
        log_info("%s: starting again, the reloaded unit file is in force.", s->name);
        if (s->ctx->callbacks && s->ctx->callbacks->unit_changed)
                s->ctx->callbacks->unit_changed(s, s->ctx->userdata);
}

void service_set_load_error(Service *s, char *msg) {
        assert(s);

        log_error("Failed to load unit '%s': %s", s->name, msg);
        free(s->def->load_error);
        s->def->load_error = msg;
        service_deps_done(&s->deps);
        /* After a reload the service may be running on this unit: it keeps it until it settles (the
         * state machine needs it), outside the dependency graph. */
        if (process_is_set(&s->run.main) || !IN_SET(s->state, SERVICE_INACTIVE, SERVICE_FAILED))
                return;
        s->def->unit = unit_free(s->def->unit);
}

void service_set_removed(Service *s, bool removed) {
        s->removed = removed;
}

bool service_set_wanted(Service *s, WantedOverride w) {
        if (s->wanted == w)
                return false;
        s->wanted = w;
        return true;
}

bool service_set_file_state(Service *s, UnitFileState state) {
        bool was = s->file_state == UNIT_FILE_ENABLED;
        s->file_state = state;
        return was != (state == UNIT_FILE_ENABLED);
}

bool service_wanted_at_startup(Service *s, bool restored) {
        /* A template runs only as its instances; systemd's WantedBy= of a template needs
         * DefaultInstance=, which svd does not have. */
        if (unit_name_is_template(s->name))
                return false;
        bool want = s->wanted == WANTED_START ||
                    (s->wanted == WANTED_DEFAULT && s->def->unit && s->file_state == UNIT_FILE_ENABLED);
        if (want && restored)
                s->restored_usec = now_usec(CLOCK_REALTIME);
        return want;
}

/* ---- the table ---- */

void service_context_remove(ServiceContext *c, size_t i) {
        assert(i < c->n_services);
        Service *s = c->services[i];
        memmove(c->services + i, c->services + i + 1, (c->n_services - i - 1) * sizeof(Service *));
        c->n_services--;
        service_free(s);
}

void service_context_done(ServiceContext *c) {
        c->jobs_source = sd_event_source_disable_unref(c->jobs_source);
        for (size_t i = 0; i < c->n_services; i++)
                service_free(c->services[i]);
        c->bus_disconnected = sd_bus_slot_unref(c->bus_disconnected);
        c->bus = sd_bus_flush_close_unref(c->bus);
        free(c->services);
        c->services = NULL;
        c->n_services = 0;
}
