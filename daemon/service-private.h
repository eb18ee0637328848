/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Between the parts of the service state machine: service.c (states,
 * exits, operations), service-exec.c (what a process is started with),
 * service-restart.c (Restart=, back-off, start limit) and
 * service-serialize.c (re-exec). Nothing outside them includes this.
 */

#include "basic/time-util.h"
#include "service.h"

/* ---- service-exec.c ---- */

typedef struct ServiceExec {
        SpawnParams params; /* stdout_fd/stderr_fd are the log's (service_log_prepare) */
        char **env;
        char *path;
        char **argv;  /* the command line with the variables of env substituted */
        char *error;  /* why preparing failed, when it was not memory (for the log and status) */
        const SandboxPlan *sandbox; /* params.sandbox, the unit's (compiled once per unit); NULL without */
} ServiceExec;

/* Fills e for the next spawn of s running cmd (the main command or one around it, with extra_env,
 * "NAME=VALUE" strings or NULL, over the unit's environment): environment, executable, credentials,
 * limits, sandbox and s's cgroup (opened if needed): every process of a service is made alike.
 * -ENOTCONN when the unit needs the notify socket and svd has none. */
int service_exec_prepare(Service *s, const ExecCommand *cmd, char **extra_env, ServiceExec *e);
void service_exec_done(ServiceExec *e);
bool service_exec_joins_pidns(const Service *s, const ExecCommand *cmd);

/* ---- service-sandbox.c ---- */

/* The sandbox plan of u's sandboxing keys, compiled at the first start and kept with u (freed with
 * it): 0 and *ret (NULL when the unit has none), or -errno, with *ret_error naming the key when a
 * seccomp filter could not be built (may stay NULL). */
int service_sandbox_prepare(const Unit *u, const SandboxPlan **ret, char **ret_error);

/* ---- service-control.c ---- */

void service_control_init(ServiceControl *c);
/* Kills (fallback mode: and reaps) a command still running and forgets it. */
void service_control_done(ServiceControl *c);
bool service_control_running(const Service *s);
/* Runs the commands of kind one after another: 1 when the first was spawned, or its spawn failed (then
 * from the loop) — service_on_control_done() follows; 0 when the unit has none. */
int service_control_start(Service *s, UnitExec kind);
/* After a re-exec: watches the command's process (and its report pipe) again, with its timeout at
 * deadline (CLOCK_MONOTONIC, USEC_INFINITY: none). */
int service_control_resume(Service *s, uint64_t deadline);
/* SIGKILLs the running command: its list ends as failed. */
void service_control_abandon(Service *s);
/* service.c: the commands of kind ended, all successfully (SERVICE_SUCCESS, failures of '-' commands
 * included) or with the first failure's result (s->last_error names the command). */
void service_on_control_done(Service *s, UnitExec kind, ServiceResult result);
/* ---- service-ipc.c ---- */

/* RemoveIPC=: once s has no process left, removes the IPC objects of its user and group (not root's),
 * unless a process still runs with either. Logs what it did. */
void service_remove_ipc(Service *s);

/* ---- service-restart.c ---- */

/* Whether Restart= restarts after an end with result. */
bool service_should_restart(Service *s, ServiceResult result);
/* StartLimitIntervalSec=/StartLimitBurst=: whether one more automatic start
 * fits into the window (counts it when it does). */
bool service_start_limit_test(Service *s);
/* A start by hand opens a new window and counts in it. */
void service_start_limit_reset(Service *s, bool counting);
/* Why the start limit refused a start, for the log and status (malloc'd; NULL without memory). */
char *service_start_limit_message(const Service *s);
/* How long the next restart waits (RestartSec=, with RestartSteps= back-off). */
uint64_t service_restart_delay(const Service *s);

/* ---- service-condition.c ---- */

typedef enum ServiceConditions {
        SERVICE_CONDITIONS_PASS,          /* go on */
        SERVICE_CONDITIONS_SKIP,          /* a condition is not met (s->condition_failed says which) */
        SERVICE_CONDITIONS_ASSERT_FAILED, /* an assertion is not met (s->assert_failed says which) */
} ServiceConditions;

/* Before a spawn: checks Condition*= and Assert*= of the unit in force and records when and what
 * failed in s. A check that could not be made passes, with its error in *ret_error. */
ServiceConditions service_conditions_test(Service *s, int *ret_error);

/* service.c: the start is complete as Type= defines it: ExecStartPost=, then running. */
void service_enter_start_post(Service *s);

/* ---- service-forking.c ---- */

/* Init reported the command's exit (Type=forking in a PID namespace). */
void service_forking_command_exited(Service *s, const ExitStatus *st);
/* Init reaped the process nspid (its pid in the namespace) with wstatus. */
void service_forking_reaped(Service *s, pid_t nspid, int wstatus);
/* Type=forking without a PID namespace: the command exited with st while starting. true when the
 * daemon it left was found and is the main process now (the exit is handled); false when the exit
 * is to be handled as usual (failed, or no daemon found: then last_error says why). */
bool service_forking_take_over(Service *s, const ExitStatus *st);
/* The service's processes are gone: drop what the forking start held, remove the PID file. */
void service_forking_exited(Service *s);
/* After a re-exec: a start that was waiting for its PID file waits again. */
int service_forking_resume(Service *s);

/* Whether NotifyAccess= lets pid (one of s's processes) send notifications. */
bool service_notify_allowed(Service *s, pid_t pid);

/* ---- service-dbus.c ---- */

/* Connects c to the system bus unless it is (on_disconnected, userdata c, runs when it is lost):
 * 0, or -errno with *ret_error saying which bus. */
int service_dbus_connect(ServiceContext *c, sd_bus_message_handler_t on_disconnected, char **ret_error);
/* Closes c's connection. */
void service_dbus_disconnect(ServiceContext *c);
/* Watches BusName= of s (userdata s): on_owner_changed gets NameOwnerChanged for it, then
 * on_owner_reply the answer to GetNameOwner. */
int service_dbus_watch(Service *s, sd_bus_message_handler_t on_owner_changed, sd_bus_message_handler_t on_owner_reply);
/* Reads those two messages: 1 and the owner ("" for none) when m tells it, 0 when it does not. */
int service_dbus_read_owner_changed(Service *s, sd_bus_message *m, const char **ret_owner);
int service_dbus_read_owner_reply(Service *s, sd_bus_message *m, const char **ret_owner);
/* Stops watching s's name: whether it was watched. */
bool service_dbus_forget(Service *s);
/* service.c: after a re-exec (the connection is not carried over), watch again. */
int service_dbus_resume(Service *s);

/* ---- service-dirs.c ---- */

/* Creates the unit's RuntimeDirectory= and the other directories (mode, owner) and adds their
 * $*_DIRECTORY variables to *env: 0, or -errno with *ret_error saying which (may stay NULL). */
int service_dirs_prepare(Service *s, char ***env, char **ret_error);
/* The service's processes are gone: removes RuntimeDirectory= unless RuntimeDirectoryPreserve=
 * keeps it; for_good: the service stopped (no restart follows), which ends =restart's keeping. */
void service_dirs_remove_runtime(Service *s, bool for_good);

/* The directory below which the directories of type t go (/run, /var/lib, ... for a privileged svd):
 * 0, -ENXIO when an unprivileged svd's environment names none, -ENOMEM. */
int service_dirs_base(ExecDirectoryType t, char **ret);

/* DynamicUser=: the uid a run of s had before, kept while its StateDirectory=, CacheDirectory= or
 * LogsDirectory= (below BASE/private) exist; (uid_t) -1 when none does. */
uid_t service_dirs_dynamic_hint(Service *s);

/* ---- service-dynuser.c ---- */

/* DynamicUser= without a static user: allocates the uid (and the gid with it) for this run of s
 * into s->creds, unless s holds one already. 0, or -errno with *ret_error saying why. */
int service_dynamic_user_acquire(Service *s, char **ret_error);
/* The run is over (its processes are gone): gives the uid back. */
void service_dynamic_user_release(Service *s);

/* ---- service-idle.c ---- */

#define SERVICE_IDLE_MAX_USEC (5 * USEC_PER_SEC) /* as systemd's IDLE_TIMEOUT_USEC */
/* Type=idle: whether another service has a start or stop under way (an idle one waiting does not
 * count). */
bool service_idle_jobs_pending(const Service *s);

/* ---- service.c, for the other parts ---- */

/* The timers' handlers, by name in the re-exec state (service-serialize.c). */
int service_on_restart_timer(sd_event_source *source, uint64_t usec, void *userdata);
int service_on_idle_timeout(sd_event_source *source, uint64_t usec, void *userdata);

/* Answers every waiting Start and Restart with r. */
void service_answer_start_waiters(Service *s, const ServiceJobResult *r);

int service_arm_timer(Service *s, uint64_t usec, sd_event_time_handler_t cb);
void service_unset_timer(Service *s);
void service_set_state(Service *s, ServiceState state);
void service_set_last_error(Service *s, char *msg);
int service_spawn(Service *s);
/* Before a spawn: a pending reloaded definition that loaded takes effect. */
void service_take_next_unit(Service *s);
void service_finish_exit(Service *s);
void service_unwatch_cgroup(Service *s);
/* svd ends the service because of a failure: the exit that follows is judged by result. */
void service_enter_failure_stop(Service *s, ServiceResult result, int sig);

int service_on_start_timeout(sd_event_source *source, uint64_t usec, void *userdata);
int service_on_stop_timeout(sd_event_source *source, uint64_t usec, void *userdata);
int service_on_watchdog_timeout(sd_event_source *source, uint64_t usec, void *userdata);
int service_on_exit_event(sd_event_source *source, int fd, uint32_t revents, void *userdata);
int service_on_report_event(sd_event_source *source, int fd, uint32_t revents, void *userdata);
int service_on_cgroup_event(sd_event_source *source, int fd, uint32_t revents, void *userdata);
