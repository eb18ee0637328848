/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A socket unit's ExecStartPre=, ExecStartPost=, ExecStopPre= and ExecStopPost= (manager-socket-exec.h). */
#include "manager-socket-exec.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/env-util.h"
#include "basic/parse-util.h"
#include "basic/strv.h"
#include "basic/time-util.h"
#include "manager.h"
#include "spawn-path.h"
#include "svd-log.h"

#define SOCKET_EXIT_INFO_RETRIES 1000U
#define SOCKET_EXIT_INFO_RETRY_USEC (1 * USEC_PER_MSEC)

const char *socket_exec_to_string(UnitExec kind) {
        switch (kind) {
        case UNIT_EXEC_START_PRE:
                return "ExecStartPre";
        case UNIT_EXEC_START_POST:
                return "ExecStartPost";
        case UNIT_EXEC_STOP:
                return "ExecStopPre";
        case UNIT_EXEC_STOP_POST:
                return "ExecStopPost";
        default:
                return NULL;
        }
}

bool socket_control_running(const Socket *s) {
        return s->control && s->control->kind >= 0;
}

const char *socket_control_error(const Socket *s) {
        return s->control ? s->control->error : NULL;
}

static const ExecCommand *control_command(const Socket *s) {
        const ExecCommandList *l = &s->unit->exec[s->control->kind];
        return s->control->index < l->n ? &l->commands[s->control->index] : NULL;
}

/* Forgets the process: its pidfd is closed (in autokill mode that kills it). */
static void control_release(SocketControl *c) {
        c->exit_source = sd_event_source_disable_unref(c->exit_source);
        c->report_source = sd_event_source_disable_unref(c->report_source);
        c->report_fd = safe_close(c->report_fd);
        c->timer_source = sd_event_source_disable_unref(c->timer_source);
        process_done(&c->proc);
        c->exit_info_retries = 0;
        c->timed_out = false;
        c->have_spawn_failure = false;
}

void socket_control_abandon(Socket *s) {
        SocketControl *c = s->control;
        if (!c)
                return;
        if (process_is_set(&c->proc)) {
                log_info("%s.socket: killing %s= '%s'.", s->name, socket_exec_to_string(c->kind),
                         control_command(s) ? control_command(s)->argv[0] : "?");
                (void) process_kill(&c->proc, SIGKILL);
                if (c->proc.mode == SPAWN_MODE_FALLBACK && !c->proc.reaped && !c->proc.have_exit)
                        (void) waitid(P_PIDFD, (id_t) c->proc.pidfd, &(siginfo_t){}, WEXITED);
        }
        control_release(c);
        c->kind = _UNIT_EXEC_INVALID;
}

/* The list ends: done is told (it may start another list, or free nothing: c stays). */
static void control_finish(Socket *s, bool success) {
        SocketControl *c = s->control;
        SocketControlDoneFn done = c->done;
        control_release(c);
        c->kind = _UNIT_EXEC_INVALID;
        c->done = NULL;
        if (done)
                done(s, success);
}

static void control_fail(Socket *s, char *msg) {
        SocketControl *c = s->control;
        log_warning("%s.socket: %s.", s->name, msg ?: "a command failed");
        free(c->error);
        c->error = msg;
        control_finish(s, false);
}

static void control_drain_report(SocketControl *c) {
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
                if (f.stage == SPAWN_REPORT_EXECED || f.stage >= SPAWN_REPORT_EXIT_STATUS)
                        continue;
                if (!c->have_spawn_failure) {
                        c->spawn_failure = f;
                        c->have_spawn_failure = true;
                }
        }
}

static int on_control_io(sd_event_source *source, int fd, uint32_t revents, void *userdata);
static int on_control_timer(sd_event_source *source, uint64_t usec, void *userdata);
static void control_spawn(Socket *s);

/* The command exited with st: the next one, or the end of the list. */
static void control_handle_exit(Socket *s, const ExitStatus *st) {
        SocketControl *c = s->control;
        const ExecCommand *cmd = control_command(s);
        const char *key = socket_exec_to_string(c->kind);
        char *msg = NULL;
        int k = 0;

        control_drain_report(c);
        bool ok = !c->timed_out && !c->have_spawn_failure && st->code == CLD_EXITED && st->status == 0;
        if (ok)
                log_info("%s.socket: %s= '%s' succeeded.", s->name, key, cmd->argv[0]);
        else if (c->timed_out)
                k = asprintf(&msg, "%s= '%s' did not finish within TimeoutSec=", key, cmd->argv[0]);
        else if (c->have_spawn_failure && c->spawn_failure.stage == SPAWN_STAGE_EXEC)
                k = asprintf(&msg, "%s= exec %s: %s", key, cmd->argv[0], strerror(c->spawn_failure.error));
        else if (c->have_spawn_failure)
                k = asprintf(&msg, "%s= '%s' failed at %s: %s", key, cmd->argv[0],
                             strna(spawn_stage_to_string(c->spawn_failure.stage)), strerror(c->spawn_failure.error));
        else if (st->code == CLD_EXITED)
                k = asprintf(&msg, "%s= '%s' exited with status %d", key, cmd->argv[0], st->status);
        else
                k = asprintf(&msg, "%s= '%s' %s by signal %s", key, cmd->argv[0], strna(exit_code_to_string(st->code)),
                             strna(signal_to_string(st->status)));
        if (k < 0)
                msg = NULL;
        /* "-": a failed exit counts as success; a timeout does not (systemd.service(5)). */
        if (!ok && (cmd->flags & EXEC_IGNORE_FAILURE) && !c->timed_out) {
                log_info("%s.socket: %s, ignored ('-' prefix).", s->name, msg ?: "failed");
                free(msg);
                ok = true;
        } else if (!ok) {
                control_fail(s, msg);
                return;
        }
        control_release(c);
        c->index++;
        if (control_command(s))
                control_spawn(s);
        else
                control_finish(s, true);
}

static void control_collect_exit(Socket *s) {
        SocketControl *c = s->control;
        ExitStatus st;
        int r = process_exit_status(&c->proc, &st);
        if (r == -EAGAIN && c->exit_info_retries++ < SOCKET_EXIT_INFO_RETRIES) {
                /* Autokill mode: the pidfd polls readable a moment before the exit is published. */
                c->timer_source = sd_event_source_disable_unref(c->timer_source);
                if (sd_event_add_time_relative(s->manager->event, &c->timer_source, CLOCK_MONOTONIC,
                                               SOCKET_EXIT_INFO_RETRY_USEC, 0, on_control_timer, s) >= 0)
                        return;
        }
        if (r < 0) {
                log_error_errno(r, "%s.socket: Failed to read the exit status of %s=: %m", s->name,
                                socket_exec_to_string(c->kind));
                st = (ExitStatus){ .code = CLD_KILLED, .status = SIGKILL };
        }
        control_handle_exit(s, &st);
}

static int on_control_io(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        Socket *s = userdata;
        SocketControl *c = s->control;

        if (source == c->report_source) {
                control_drain_report(c);
                return 0;
        }
        control_collect_exit(s);
        return 0;
}

static int on_control_timer(sd_event_source *source, uint64_t usec, void *userdata) {
        Socket *s = userdata;
        SocketControl *c = s->control;

        if (!process_is_set(&c->proc)) {
                /* Its spawn had failed: told from the loop. */
                char *msg = c->error;
                c->error = NULL;
                control_fail(s, msg);
                return 0;
        }
        if (c->timed_out || c->exit_info_retries > 0) {
                control_collect_exit(s);
                return 0;
        }
        c->timed_out = true;
        c->timer_source = sd_event_source_disable_unref(c->timer_source);
        log_warning("%s.socket: %s= '%s' did not finish within TimeoutSec=, killing it.", s->name,
                    socket_exec_to_string(c->kind), control_command(s)->argv[0]);
        int r = process_kill(&c->proc, SIGKILL);
        if (r < 0 && r != -ESRCH)
                log_error_errno(r, "%s.socket: Failed to kill %s=: %m", s->name, socket_exec_to_string(c->kind));
        return 0;
}

/* The environment of a command: $PATH, and with User= the user's $USER, $LOGNAME, $HOME, $SHELL. */
static int control_environment(Socket *s, char ***ret) {
        _cleanup_strv_free_ char **env = NULL;
        char *a;

        if (asprintf(&a, "PATH=%s", SPAWN_DEFAULT_PATH) < 0 || strv_consume(&env, a) < 0)
                return -ENOMEM;
        if (s->exec_creds.set && s->exec_creds.user) {
                if (asprintf(&a, "USER=%s", s->exec_creds.user) < 0 || strv_consume(&env, a) < 0 ||
                    asprintf(&a, "LOGNAME=%s", s->exec_creds.user) < 0 || strv_consume(&env, a) < 0)
                        return -ENOMEM;
                if (s->exec_creds.home && (asprintf(&a, "HOME=%s", s->exec_creds.home) < 0 || strv_consume(&env, a) < 0))
                        return -ENOMEM;
                if (s->exec_creds.shell && (asprintf(&a, "SHELL=%s", s->exec_creds.shell) < 0 || strv_consume(&env, a) < 0))
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(env);
        return 0;
}

/* Spawns command c->index of c->kind. A failure ends the list from the loop. */
static void control_spawn(Socket *s) {
        SocketControl *c = s->control;
        const ExecCommand *cmd = control_command(s);
        const SpawnProbe *probe = &s->manager->probe;
        _cleanup_strv_free_ char **env = NULL, **argv = NULL;
        _cleanup_free_ char *path = NULL;
        _cleanup_close_ int report_fd = -EBADF;
        Process proc = PROCESS_NULL;
        int r;

        assert(cmd);
        r = control_environment(s, &env);
        if (r >= 0)
                r = cmd->flags & EXEC_NO_ENV_EXPAND ? ((argv = strv_copy(cmd->argv)) ? 0 : -ENOMEM)
                                                    : env_replace_argv(cmd->argv, env, &argv);
        if (r >= 0 && cmd->argv0) {
                /* "@": the path stays as written; argv[0] is the word after it. */
                char *a0 = strdup(cmd->argv0);
                if (!a0)
                        r = -ENOMEM;
                else {
                        free(argv[0]);
                        argv[0] = a0;
                }
        }
        if (r >= 0 && spawn_find_executable(cmd->argv[0], SPAWN_DEFAULT_PATH, &path) < 0 &&
            !(path = strdup(cmd->argv[0])))
                r = -ENOMEM;
        if (r < 0)
                goto fail;

        /* "+" and "!": without the user and group change (systemd.service(5)). */
        bool keep_ids = cmd->flags & (EXEC_PRIVILEGED | EXEC_NO_SETUID);
        SpawnParams params = {
                .path = path,
                .argv = argv,
                .envp = env,
                .working_directory = "/",
                .change_credentials = s->exec_creds.set && !keep_ids,
                .uid = s->exec_creds.uid,
                .gid = s->exec_creds.gid,
                .groups = s->exec_creds.groups,
                .n_groups = s->exec_creds.n_groups,
                .umask = 0022,
                .cap_last = probe->cap_last,
                .ignore_sigpipe = true,
                .outer_uid = getuid(),
                .outer_gid = getgid(),
                .cgroup_fd = -EBADF,
                .pidns_pidfd = -EBADF,
                .mode = probe->mode,
                .cap_sys_admin = probe->cap_sys_admin,
        };
        r = spawn_process(&params, &proc, &report_fd);
        if (r < 0)
                goto fail;
        c->proc = proc;
        c->report_fd = TAKE_FD(report_fd);
        control_drain_report(c);
        sd_event *e = s->manager->event;
        r = process_watch(&c->proc);
        if (r >= 0)
                r = sd_event_add_io(e, &c->exit_source, c->proc.pidfd, PROCESS_EXIT_EVENTS, on_control_io, s);
        if (r >= 0 && c->report_fd >= 0)
                r = sd_event_add_io(e, &c->report_source, c->report_fd, EPOLLIN, on_control_io, s);
        if (r >= 0 && s->unit->socket.timeout_usec != USEC_INFINITY)
                r = sd_event_add_time_relative(e, &c->timer_source, CLOCK_MONOTONIC, s->unit->socket.timeout_usec, 0,
                                               on_control_timer, s);
        if (r < 0) {
                /* Cannot watch it, so it must not run unwatched. */
                process_kill_and_reap(&c->proc);
                control_release(c);
                goto fail;
        }
        log_info("%s.socket: %s= pid %d: %s", s->name, socket_exec_to_string(c->kind), (int) c->proc.pid,
                 cmd->argv[0]);
        return;
fail:
        free(c->error);
        if (asprintf(&c->error, "Failed to spawn %s= '%s': %s", socket_exec_to_string(c->kind), cmd->argv[0],
                     strerror(-r)) < 0)
                c->error = NULL;
        /* Told from the loop, as every end of a command is. */
        c->timer_source = sd_event_source_disable_unref(c->timer_source);
        if (sd_event_add_time_relative(s->manager->event, &c->timer_source, CLOCK_MONOTONIC, 0, 0, on_control_timer,
                                       s) < 0) {
                log_oom();
                char *msg = c->error;
                c->error = NULL;
                control_fail(s, msg);
        }
}

int socket_control_start(Socket *s, UnitExec kind, SocketControlDoneFn done) {
        assert(s->unit);
        assert(!socket_control_running(s));

        if (s->unit->exec[kind].n == 0)
                return 0;
        if (!s->control) {
                s->control = calloc(1, sizeof(SocketControl));
                if (!s->control)
                        return -ENOMEM;
                s->control->proc = PROCESS_NULL;
                s->control->report_fd = -EBADF;
        }
        SocketControl *c = s->control;
        c->kind = kind;
        c->index = 0;
        c->done = done;
        free(c->error);
        c->error = NULL;
        control_spawn(s);
        return 1;
}
