/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * One supervised service: its unit, its main process, and the state machine
 * that decides what happens next. The state is written by service_set_state()
 * only, which logs every transition. `want_running` is the desired state,
 * `state` the current one; the machine moves the second towards the first.
 *
 *   inactive ──start──▶ [start-pre] ──▶ starting ──ready──▶ [start-post] ──▶ running
 *   running ──stop──▶ [stop] ──▶ stopping ──TimeoutStopSec──▶ killing ──exit──▶ [stop-post] ──▶ inactive/failed
 *   running ──exit──▶ [stop] ──▶ [stop-post] ──▶ (restart? auto-restart : inactive/failed)
 *   running ──reload──▶ [reloading] ──▶ running
 *   auto-restart ──RestartSec──▶ [start-pre] ──▶ starting
 *
 * The bracketed states run the commands of ExecStartPre=, ExecStartPost=, ExecStop=, ExecStopPost= and
 * ExecReload= one after another (service-control.c), and are skipped when the unit has none, as in
 * systemd.service(5).
 *
 * Callers waiting for an outcome (a client's Start/Stop/Restart) are queued
 * as waiters and told through their callback when the machine gets there,
 * with a ServiceJobResult; how that is put on the wire is not the core's
 * business. What the core needs from the rest of svd (the loop, the kernel
 * probe, the table of services) comes in a ServiceContext, and what it
 * tells the rest goes out through the context's callbacks.
 *
 * The machine alone changes a service's state. The parts it consults (service-control.c,
 * service-forking.c, service-restart.c, service-condition.c, service-dbus.c, service-idle.c and what
 * prepares a process: service-exec.c and the files it uses) read the service and answer with a
 * verdict; they never call back here. Every event of a service's processes comes to a handler of the
 * machine (ServiceHandlers), which asks the part concerned what it means. Dependencies (deps.h) sit
 * above the machine: they make the operator's operations of it and hear of its changes through
 * ServiceDepsHooks.
 */

#include "service-def.h"

/* The table's end: service_context_remove() frees the service at index i. */
void service_context_remove(ServiceContext *c, size_t i);
void service_context_done(ServiceContext *c);


/* Creates a service named name with the definition def (taken, also on failure): a placeholder
 * when def's unit did not load, so that clients can see why. */
int service_new(ServiceContext *c, const char *name, UnitDefinition *def, Service **ret);
Service *service_free(Service *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(Service *, service_free);

/* The operations, as the state machine sees them: the operator's, with their dependencies, are
 * deps_start(), deps_stop() and deps_restart() (deps.h), which come here. done, when non-NULL, is
 * called with userdata once the operation completes or fails, possibly before these return.
 * service_forget_waiters() drops the waiters with userdata without calling them (the client went
 * away). */
typedef int (*ServiceOpFn)(Service *s, ServiceDoneFn done, void *userdata);

/* Whether an operation is refused before it begins (the unit did not load, svd is shutting down):
 * then done has been told why. */
bool service_refuse(Service *s, ServiceDoneFn done, void *userdata);
/* A start is wanted: s is to run, done waits for its start. 1 when nothing runs yet and the start is
 * the caller's to make (service_start_now(), once the dependencies allow), 0 when a start or a run is
 * under way already (done is told when it completes), -ENOMEM when the waiter cannot be queued
 * (nothing was done, done is not called). */
int service_want_start(Service *s, ServiceDoneFn done, void *userdata);
/* A stop is wanted: s is not to run, done waits for the stop, which is the caller's to make
 * (service_stop_now()). 0, or -ENOMEM as above. */
int service_want_stop(Service *s, ServiceDoneFn done, void *userdata);
/* A restart: what runs stops and starts again (done waits for the start). 1 when nothing runs and the
 * restart is a start (service_want_start() has not been called), else 0 or -ENOMEM as above. */
int service_want_restart(Service *s, ServiceDoneFn done, void *userdata);
/* Runs ExecReload= of an active service (systemctl reload NAME); done is told RELOAD_FAILED when the
 * unit has none, the service is not active, or a command failed. -ENOMEM as above, else 0. */
int service_reload(Service *s, ServiceDoneFn done, void *userdata);
void service_forget_waiters(Service *s, void *userdata);

/* Carry out a wanted start or stop now: false when the start cannot be made at all (the unit is not
 * loaded or svd is shutting down; nothing was answered). */
bool service_start_now(Service *s);
void service_stop_now(Service *s);
/* A start that waits is answered DEPENDENCY_FAILED: the required unit dep failed with reason. */
void service_fail_dependency(Service *s, Service *dep, const char *reason);
/* The same, for a unit that is no service (dep: "echo.socket"). */
void service_fail_dependency_name(Service *s, const char *dep, const char *reason);
/* A start that waits is dropped (answered CANCELLED with reason): an ordering cycle is broken. */
void service_drop_start(Service *s, const char *reason);

/* Sends sig to the main process (with PrivatePIDs=, svd's init forwards all
 * but SIGKILL/SIGSTOP to the command). -ESRCH when there is none. */
int service_kill(Service *s, int sig);

/* A datagram on $NOTIFY_SOCKET from one of the service's processes. */
void service_notify(Service *s, pid_t pid, const NotifyMessage *msg);

/* Forgets a failure: failed → inactive, result, start limit and restart
 * counter reset (systemctl reset-failed). Returns true when s was failed. */
bool service_reset_failed(Service *s);

/* Marks a unit that cannot be part of the dependency graph (takes msg). A running service keeps its
 * unit until it settles. */
void service_set_load_error(Service *s, char *msg);

/* Definitions (reload), each built once (unit-definition.h) and taken whole: service_set_definition()
 * puts def in force (s must be settled); service_set_next_definition() keeps it pending while s runs
 * (the running process keeps running), and service_apply_next_unit() puts a pending one in force
 * when s may change, saying whether it did. A start by itself puts a pending definition that loaded in
 * force. */
void service_set_definition(Service *s, UnitDefinition *def);
void service_set_next_definition(Service *s, UnitDefinition *def);
bool service_apply_next_unit(Service *s);
void service_set_removed(Service *s, bool removed);
/* The operator's start or stop, on top of its enabling. Returns true when it changed. */
bool service_set_wanted(Service *s, WantedOverride w);
/* Its enabling, as the manager read the unit directory's links (unit-install.h). Returns true when
 * whether it starts with svd changed. */
bool service_set_file_state(Service *s, UnitFileState state);
/* Whether s starts when svd starts: its enabling and the operator's override;
 * restored (after a crash) marks it as restored. */
bool service_wanted_at_startup(Service *s, bool restored);

/* Re-exec (service-serialize.c). service_serialize() gives the service as
 * JSON with its fds recorded in fds. service_deserialize() creates a
 * service from that (parsing the unit text it carries), without any event
 * source; service_resume(), given the same JSON, then watches its process,
 * pipes and timers again, and service_resume_settle(), from the loop,
 * finishes what the old svd was waiting for if it happened meanwhile (the
 * cgroup emptied). */
struct ReexecFds;
struct json_t;
struct json_t *service_serialize(Service *s, struct ReexecFds *fds);
int service_deserialize(ServiceContext *c, struct json_t *o, Service **ret);
int service_resume(Service *s, struct json_t *o);
void service_resume_settle(Service *s);
