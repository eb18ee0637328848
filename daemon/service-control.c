/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The commands around a service's main process: ExecStartPre=, ExecStartPost=, ExecReload=, ExecStop=
 * and ExecStopPost= (systemd.service(5)). They run one at a time, each a process spawned exactly as
 * the main one (spawn_process() with the unit's credentials, sandbox, cgroup and output, and
 * CLONE_PIDFD_AUTOKILL where the kernel has it), so they die with svd as the main process does. Their
 * events come to the state machine's handlers (ServiceHandlers), which hand them here: the answer is
 * whether the list ended, and how; the machine decides what comes next. */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "basic/parse-util.h"
#include "basic/strv.h"
#include "basic/time-util.h"
#include "process-pidns.h"
#include "service-control.h"
#include "service-exec.h"
#include "svd-log.h"

#define CONTROL_EXIT_INFO_RETRIES 1000U
#define CONTROL_EXIT_INFO_RETRY_USEC (1 * USEC_PER_MSEC)

void service_control_init(ServiceControl *c) {
        *c = (ServiceControl){
                .proc = PROCESS_NULL,
                .kind = _UNIT_EXEC_INVALID,
                .report_fd = -EBADF,
        };
}

/* Forgets the process: its pidfd is closed (in autokill mode that SIGKILLs it). */
static void control_release(ServiceControl *c) {
        c->exit_source = sd_event_source_disable_unref(c->exit_source);
        c->report_source = sd_event_source_disable_unref(c->report_source);
        c->report_fd = safe_close(c->report_fd);
        c->timer_source = sd_event_source_disable_unref(c->timer_source);
        c->timer_what = SERVICE_CONTROL_TIMER_NONE;
        process_done(&c->proc);
        c->exit_wait_hangup = false;
        c->exit_info_retries = 0;
        c->have_spawn_failure = false;
        c->have_reported_exit = false;
        c->timed_out = false;
        c->pid1 = false;
}

void service_control_done(ServiceControl *c) {
        if (process_is_set(&c->proc) && c->proc.mode == SPAWN_MODE_FALLBACK) {
                /* Only when svd exits with the command still running. */
                (void) process_kill(&c->proc, SIGKILL);
                (void) waitid(P_PIDFD, (id_t) c->proc.pidfd, &(siginfo_t){}, WEXITED);
        }
        control_release(c);
        c->kind = _UNIT_EXEC_INVALID;
}

bool service_control_running(const Service *s) {
        return s->control.kind >= 0;
}

Process *service_control_process(Service *s) {
        return process_is_set(&s->control.proc) ? &s->control.proc : NULL;
}

static const ExecCommand *control_command(const Service *s) {
        const ExecCommandList *l = &s->def->unit->exec[s->control.kind];
        return s->control.index < l->n ? &l->commands[s->control.index] : NULL;
}

const char *service_control_command(const Service *s) {
        const ExecCommand *cmd = service_control_running(s) ? control_command(s) : NULL;
        return cmd ? cmd->argv[0] : NULL;
}

static uint64_t control_timeout_usec(const Service *s) {
        /* systemd.service(5): the start-up commands and ExecReload= are bound by TimeoutStartSec=, the
         * stop commands by TimeoutStopSec=. */
        return IN_SET(s->control.kind, UNIT_EXEC_STOP, UNIT_EXEC_STOP_POST) ? s->def->unit->timeout_stop_usec
                                                                           : s->def->unit->timeout_start_usec;
}

/* $MAINPID for every command while there is a main process; $SERVICE_RESULT, and $EXIT_CODE and
 * $EXIT_STATUS once the main process has exited, for ExecStop= and ExecStopPost= (systemd.exec(5)). */
static int control_environment(Service *s, char ***ret) {
        _cleanup_strv_free_ char **env = NULL;
        char *a;

        /* The daemon of Type=forking, not svd's own init in its PID namespace; its pid as the command
         * sees it: the namespace's when the command runs there. */
        const Process *m = service_main_process(s);
        if (process_is_set(m) && (m != &s->run.main || !s->run.main_pid1)) {
                pid_t pid = m->pid;
                if (service_exec_joins_pidns(s, control_command(s)) && pidns_inner_pid(m->pid, &pid) < 0)
                        pid = 0; /* gone: no $MAINPID */
                if (pid > 0 && (asprintf(&a, "MAINPID=%d", (int) pid) < 0 || strv_consume(&env, a) < 0))
                        return -ENOMEM;
        }
        if (IN_SET(s->control.kind, UNIT_EXEC_STOP, UNIT_EXEC_STOP_POST)) {
                ServiceResult result = s->result != SERVICE_SUCCESS ? s->result : s->run.exit_result;
                if (asprintf(&a, "SERVICE_RESULT=%s", service_result_to_string(result)) < 0 ||
                    strv_consume(&env, a) < 0)
                        return -ENOMEM;
                if (s->run.main_exited) {
                        const ExitStatus *st = &s->last_exit;
                        if (asprintf(&a, "EXIT_CODE=%s", exit_code_to_string(st->code)) < 0 || strv_consume(&env, a) < 0)
                                return -ENOMEM;
                        if (st->code == CLD_EXITED) {
                                if (asprintf(&a, "EXIT_STATUS=%d", st->status) < 0)
                                        return -ENOMEM;
                        } else {
                                /* The signal's name without "SIG", as systemd gives it. */
                                const char *name = signal_to_string(st->status);
                                if (name && strneq(name, "SIG", 3))
                                        name += 3;
                                if (name ? asprintf(&a, "EXIT_STATUS=%s", name) < 0
                                         : asprintf(&a, "EXIT_STATUS=%d", st->status) < 0)
                                        return -ENOMEM;
                        }
                        if (strv_consume(&env, a) < 0)
                                return -ENOMEM;
                }
        }
        *ret = TAKE_PTR(env);
        return 0;
}

/* Arms the command's one timer for what (the machine's handler hands it back here). */
static int control_arm_timer(Service *s, ServiceControlTimer what, clockid_t clock, uint64_t usec, bool relative) {
        ServiceControl *c = &s->control;
        int r = relative ? sd_event_add_time_relative(s->ctx->event, &c->timer_source, clock, usec,
                                                      /* accuracy= */ 0, s->handlers->control_timer, s)
                         : sd_event_add_time(s->ctx->event, &c->timer_source, clock, usec, /* accuracy= */ 0,
                                             s->handlers->control_timer, s);
        if (r >= 0)
                c->timer_what = what;
        return r;
}

/* The list ends: *ret says how, for the machine. */
static bool control_finish(Service *s, ServiceResult result, ServiceControlEnd *ret) {
        *ret = (ServiceControlEnd){ .kind = s->control.kind, .result = result };
        control_release(&s->control);
        s->control.kind = _UNIT_EXEC_INVALID;
        return true;
}

static void control_drain_report(Service *s) {
        ServiceControl *c = &s->control;

        while (c->report_fd >= 0) {
                SpawnFailure f;
                int r = spawn_read_failure(c->report_fd, &f);
                if (r == -EAGAIN)
                        return;
                if (r <= 0) {
                        c->report_source = sd_event_source_disable_unref(c->report_source);
                        c->report_fd = safe_close(c->report_fd);
                        return;
                }
                if (f.stage == SPAWN_REPORT_EXECED)
                        continue;
                if (f.stage == SPAWN_REPORT_EXIT_STATUS) {
                        c->reported_exit = exit_status_from_wait_status(f.error);
                        c->have_reported_exit = true;
                } else if (!c->have_spawn_failure) {
                        c->spawn_failure = f;
                        c->have_spawn_failure = true;
                }
        }
}

/* Spawns command c->index of c->kind. On failure the list ends as failed, from the loop: false. true
 * when it ended here (not even that could be arranged), with *ret. */
static bool control_spawn(Service *s, ServiceControlEnd *ret) {
        ServiceControl *c = &s->control;
        const ExecCommand *cmd = control_command(s);
        _cleanup_(service_exec_done) ServiceExec exec = {};
        _cleanup_strv_free_ char **extra = NULL;
        _cleanup_free_ char *log_error = NULL;
        _cleanup_close_ int report_fd = -EBADF;
        Process proc = PROCESS_NULL;
        int r;

        assert(cmd);
        assert(!process_is_set(&c->proc));

        r = control_environment(s, &extra);
        if (r >= 0)
                r = service_exec_prepare(s, cmd, extra, &exec);
        if (r < 0)
                goto fail;
        SpawnParams params = exec.params;
        r = c->log_fresh ? service_log_prepare(s->log, s->def->unit, &params.stdout_fd, &params.stderr_fd, &log_error)
                         : service_log_attach(s->log, s->def->unit, &params.stdout_fd, &params.stderr_fd, &log_error);
        if (r >= 0)
                service_exec_socket_outputs(&exec, s->def->unit, &params);
        if (r < 0)
                goto fail;
        c->log_fresh = false;
        r = spawn_process(&params, &proc, &report_fd);
        service_log_spawned(s->log);
        if (r < 0)
                goto fail;

        c->proc = proc;
        c->pid1 = params.private_pids;
        c->report_fd = TAKE_FD(report_fd);
        control_drain_report(s);
        r = process_watch(&c->proc);
        if (r >= 0)
                r = sd_event_add_io(s->ctx->event, &c->exit_source, c->proc.pidfd, PROCESS_EXIT_EVENTS, s->handlers->control_io, s);
        if (r >= 0 && c->report_fd >= 0)
                r = sd_event_add_io(s->ctx->event, &c->report_source, c->report_fd, EPOLLIN, s->handlers->control_io,
                                    s);
        if (r >= 0 && control_timeout_usec(s) != USEC_INFINITY)
                r = control_arm_timer(s, SERVICE_CONTROL_TIMER_TIMEOUT, CLOCK_MONOTONIC, control_timeout_usec(s),
                                      /* relative= */ true);
        if (r < 0) {
                /* Cannot watch it, so it must not run unwatched. */
                process_kill_and_reap(&c->proc);
                control_release(c);
                goto fail;
        }
        log_info("%s: %s= pid %d: %s", s->name, unit_exec_to_string(c->kind), (int) c->proc.pid, cmd->argv[0]);
        return false;

fail:
        {
                char *msg = NULL;
                s->cgroup = false;
                if (exec.error || log_error)
                        msg = strdup(exec.error ?: log_error);
                else if (asprintf(&msg, "Failed to spawn %s= '%s': %s", unit_exec_to_string(c->kind), cmd->argv[0],
                                  strerror(-r)) < 0)
                        msg = NULL;
                log_error("%s: %s", s->name, msg ?: "Failed to spawn");
                service_set_last_error(s, msg);
                /* Told from the loop, as every end of a command is. */
                c->result = SERVICE_FAILURE_RESOURCES;
                r = control_arm_timer(s, SERVICE_CONTROL_TIMER_SPAWN_FAILED, CLOCK_MONOTONIC, 0, /* relative= */ true);
                if (r < 0) {
                        log_error_errno(r, "%s: Failed to arm a timer: %m", s->name);
                        return control_finish(s, SERVICE_FAILURE_RESOURCES, ret);
                }
                return false;
        }
}

int service_control_start(Service *s, UnitExec kind, ServiceControlEnd *ret) {
        assert(s->def->unit);
        assert(!service_control_running(s));

        if (s->def->unit->exec[kind].n == 0)
                return 0;
        s->control.kind = kind;
        s->control.index = 0;
        s->control.result = SERVICE_SUCCESS;
        return control_spawn(s, ret) ? -ECANCELED : 1;
}

static bool control_handle_exit(Service *s, const ExitStatus *exit_status, ServiceControlEnd *ret) {
        ServiceControl *c = &s->control;
        const ExecCommand *cmd = control_command(s);
        const ExitStatus *st = exit_status;
        ServiceResult result;
        char *msg = NULL;

        service_log_drain(s->log);
        control_drain_report(s);
        if (c->have_reported_exit)
                st = &c->reported_exit;

        if (c->timed_out)
                result = SERVICE_FAILURE_TIMEOUT;
        else if (c->have_spawn_failure)
                result = SERVICE_FAILURE_EXEC;
        else if (st->code == CLD_EXITED)
                result = st->status == 0 ? SERVICE_SUCCESS : SERVICE_FAILURE_EXIT_CODE;
        else
                result = st->code == CLD_DUMPED ? SERVICE_FAILURE_CORE_DUMP : SERVICE_FAILURE_SIGNAL;

        const char *key = unit_exec_to_string(c->kind);
        if (result == SERVICE_SUCCESS)
                log_info("%s: %s= '%s' succeeded.", s->name, key, cmd->argv[0]);
        else {
                int k;
                if (c->timed_out)
                        k = asprintf(&msg, "%s= '%s' did not finish within %s", key, cmd->argv[0],
                                     IN_SET(c->kind, UNIT_EXEC_STOP, UNIT_EXEC_STOP_POST) ? "TimeoutStopSec="
                                                                                          : "TimeoutStartSec=");
                else if (c->have_spawn_failure && c->spawn_failure.stage == SPAWN_STAGE_EXEC)
                        k = asprintf(&msg, "%s= exec %s: %s", key, cmd->argv[0], strerror(c->spawn_failure.error));
                else if (c->have_spawn_failure)
                        k = asprintf(&msg, "%s= '%s' failed at %s: %s", key, cmd->argv[0],
                                     strna(spawn_stage_to_string(c->spawn_failure.stage)),
                                     strerror(c->spawn_failure.error));
                else if (st->code == CLD_EXITED)
                        k = asprintf(&msg, "%s= '%s' exited with status %d", key, cmd->argv[0], st->status);
                else
                        k = asprintf(&msg, "%s= '%s' %s by signal %s", key, cmd->argv[0],
                                     strna(exit_code_to_string(st->code)), strna(signal_to_string(st->status)));
                if (k < 0)
                        msg = NULL;
        }
        /* "-": a failed exit counts as success; a timeout does not (systemd.service(5)). */
        if (result != SERVICE_SUCCESS && (cmd->flags & EXEC_IGNORE_FAILURE) && !c->timed_out) {
                log_info("%s: %s, ignored ('-' prefix).", s->name, msg ?: "failed");
                free(msg);
                msg = NULL;
                result = SERVICE_SUCCESS;
        }
        control_release(c);

        if (result != SERVICE_SUCCESS) {
                log_warning("%s: %s.", s->name, msg ?: "a command failed");
                service_set_last_error(s, msg);
                return control_finish(s, result, ret);
        }
        free(msg);
        c->index++;
        if (control_command(s))
                return control_spawn(s, ret);
        return control_finish(s, SERVICE_SUCCESS, ret);
}

static bool control_collect_exit(Service *s, bool hangup, ServiceControlEnd *ret) {
        ServiceControl *c = &s->control;
        ExitStatus st;
        int r = process_exit_status(&c->proc, &st);

        if (r == -EAGAIN && !hangup && !c->exit_wait_hangup) {
                /* As for the main process (service.c): the exit information of an autoreaped child is
                 * published with the hang-up that follows. */
                r = sd_event_source_set_io_events(c->exit_source, PROCESS_HANGUP_EVENTS);
                if (r >= 0) {
                        c->exit_wait_hangup = true;
                        return false;
                }
                r = -EAGAIN;
        }
        if (r == -EAGAIN) {
                (void) sd_event_source_set_enabled(c->exit_source, SD_EVENT_OFF);
                c->timer_source = sd_event_source_disable_unref(c->timer_source);
                if (c->exit_info_retries++ < CONTROL_EXIT_INFO_RETRIES &&
                    control_arm_timer(s, SERVICE_CONTROL_TIMER_RETRY, CLOCK_MONOTONIC, CONTROL_EXIT_INFO_RETRY_USEC,
                                      /* relative= */ true) >= 0)
                        return false;
        }
        if (r < 0) {
                log_warning_errno(r, "%s: Failed to read the exit status of %s=, assuming killed: %m", s->name,
                                  unit_exec_to_string(c->kind));
                st = (ExitStatus){ .code = CLD_KILLED, .status = SIGKILL };
        }
        return control_handle_exit(s, &st, ret);
}

bool service_control_on_io(Service *s, sd_event_source *source, uint32_t revents, ServiceControlEnd *ret) {
        ServiceControl *c = &s->control;

        if (source == c->exit_source)
                return control_collect_exit(s, revents & EPOLLHUP, ret);
        if (source == c->report_source)
                control_drain_report(s);
        return false;
}

static void control_timed_out(Service *s) {
        ServiceControl *c = &s->control;

        log_warning("%s: %s= '%s' timed out, killing it.", s->name, unit_exec_to_string(c->kind),
                    strna(service_control_command(s)));
        c->timed_out = true;
        int r = process_kill(&c->proc, SIGKILL);
        if (r < 0 && r != -ESRCH)
                log_error_errno(r, "%s: Failed to kill %s=: %m", s->name, unit_exec_to_string(c->kind));
}

bool service_control_on_timer(Service *s, ServiceControlEnd *ret) {
        ServiceControl *c = &s->control;
        ServiceControlTimer what = c->timer_what;

        c->timer_source = sd_event_source_disable_unref(c->timer_source);
        c->timer_what = SERVICE_CONTROL_TIMER_NONE;
        switch (what) {
        case SERVICE_CONTROL_TIMER_TIMEOUT:
                control_timed_out(s);
                return false;
        case SERVICE_CONTROL_TIMER_RETRY:
                return control_collect_exit(s, /* hangup= */ true, ret);
        case SERVICE_CONTROL_TIMER_SPAWN_FAILED:
                return control_finish(s, SERVICE_FAILURE_RESOURCES, ret);
        default:
                return false;
        }
}

void service_control_abandon(Service *s) {
        ServiceControl *c = &s->control;

        if (!service_control_running(s) || !process_is_set(&c->proc))
                return;
        /* Its exit ends the list as failed (killed), and service.c goes on from there. */
        log_info("%s: killing %s= '%s'.", s->name, unit_exec_to_string(c->kind), strna(service_control_command(s)));
        int r = process_kill(&c->proc, SIGKILL);
        if (r < 0 && r != -ESRCH)
                log_error_errno(r, "%s: Failed to kill %s=: %m", s->name, unit_exec_to_string(c->kind));
}

int service_control_resume(Service *s, uint64_t deadline) {
        ServiceControl *c = &s->control;
        sd_event *e = s->ctx->event;
        int r;

        assert(service_control_running(s));

        if (!process_is_set(&c->proc))
                /* Its spawn had failed and the old svd had not said so yet. */
                return control_arm_timer(s, SERVICE_CONTROL_TIMER_SPAWN_FAILED, CLOCK_MONOTONIC, 0, /* relative= */ true);
        /* An exit meanwhile leaves the pidfd readable: seen at once. */
        r = sd_event_add_io(e, &c->exit_source, c->proc.pidfd, PROCESS_EXIT_EVENTS, s->handlers->control_io, s);
        if (r < 0)
                return r;
        if (c->report_fd >= 0) {
                r = sd_event_add_io(e, &c->report_source, c->report_fd, EPOLLIN, s->handlers->control_io, s);
                if (r < 0)
                        return r;
        }
        if (deadline != USEC_INFINITY && !c->timed_out) {
                r = control_arm_timer(s, SERVICE_CONTROL_TIMER_TIMEOUT, CLOCK_MONOTONIC, deadline, /* relative= */ false);
                if (r < 0)
                        return r;
        }
        return 0;
}
