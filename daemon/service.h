/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * One supervised service: its unit, its main process, and the state machine
 * that decides what happens next. The state is written by service_set_state()
 * only, which logs every transition. `want_running` is the desired state,
 * `state` the current one; the machine moves the second towards the first.
 *
 *   inactive ──start──▶ starting ──exec'd──▶ running ──exit──▶ (restart? auto-restart : inactive/failed)
 *   running/starting ──stop──▶ stopping ──TimeoutStopSec──▶ killing ──exit──▶ inactive/failed
 *   auto-restart ──RestartSec──▶ starting
 *
 * Callers waiting for an outcome (varlink Start/Stop/Restart) are queued as
 * waiters and answered when the machine gets there.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "basic/macros.h"
#include "creds.h"
#include "deps.h"
#include "logstream.h"
#include "wanted.h"
#include "notify.h"
#include "process.h"
#include "spawn.h"
#include "unit.h"

typedef struct Manager Manager;
typedef struct VarlinkCall VarlinkCall;

typedef enum ServiceState {
        SERVICE_INACTIVE,
        SERVICE_STARTING,
        SERVICE_RUNNING,
        SERVICE_STOPPING,
        SERVICE_KILLING,
        SERVICE_AUTO_RESTART,
        SERVICE_FAILED,
        SERVICE_RELOADING, /* Type=notify: RELOADING=1 until the next READY=1 */
        SERVICE_EXITED,    /* Type=oneshot with RemainAfterExit=yes, after a successful exit */
        _SERVICE_STATE_MAX,
        _SERVICE_STATE_INVALID = -EINVAL,
} ServiceState;

typedef enum ServiceResult {
        SERVICE_SUCCESS,
        SERVICE_FAILURE_EXIT_CODE,
        SERVICE_FAILURE_SIGNAL,
        SERVICE_FAILURE_CORE_DUMP,
        SERVICE_FAILURE_TIMEOUT,
        SERVICE_FAILURE_EXEC,
        SERVICE_FAILURE_RESOURCES,
        SERVICE_FAILURE_WATCHDOG,
        SERVICE_FAILURE_START_LIMIT_HIT,
        _SERVICE_RESULT_MAX,
        _SERVICE_RESULT_INVALID = -EINVAL,
} ServiceResult;

const char *service_state_to_string(ServiceState s);
ServiceState service_state_from_string(const char *s);
const char *service_result_to_string(ServiceResult r);

typedef enum ServiceOp {
        SERVICE_OP_START,
        SERVICE_OP_STOP,
        SERVICE_OP_RESTART,
        _SERVICE_OP_MAX,
} ServiceOp;

typedef struct ServiceWaiter ServiceWaiter;

/* The pending operation of deps.c's ordering (see deps.h). */
typedef enum ServiceJob {
        SERVICE_JOB_NONE,
        SERVICE_JOB_START,    /* queued: waits for the units it is ordered after */
        SERVICE_JOB_STARTING, /* spawned: waits for readiness */
        SERVICE_JOB_STOP,     /* queued: waits for the units that stop before it */
        _SERVICE_JOB_MAX,
        _SERVICE_JOB_INVALID = -EINVAL,
} ServiceJob;

const char *service_job_to_string(ServiceJob j);

/* Everything about one process of the service: reset when the next one is
 * spawned (service_run_reset), so that nothing of a previous run leaks into
 * the next. */
typedef struct ServiceRun {
        Process main;
        bool main_pid1;                 /* main is svd's init of a PID namespace (PrivatePIDs=yes) */
        uint64_t active_enter_usec;     /* CLOCK_REALTIME, when it was spawned */
        sd_event_source *exit_source;   /* main.pidfd readable */
        sd_event_source *report_source; /* spawn report pipe */
        int report_fd;
        unsigned exit_info_retries;
        bool exit_wait_hangup;          /* autoreaped: waiting for EPOLLHUP before reading the exit info */
        bool execed;                    /* the command has exec'd */
        bool have_spawn_failure;
        SpawnFailure spawn_failure;
        bool have_reported_exit;        /* the PID-namespace init reported the command's exit */
        ExitStatus reported_exit;
        bool ready;                     /* the start is complete, as Type= defines it */
        bool failing;                   /* svd is stopping it because of a failure: restart policy applies */
        bool stop_by_notify;            /* it announced STOPPING=1 and is expected to exit */
        char *status_text;              /* STATUS= */
        int status_errno;               /* ERRNO=, -1 for none */
        uint64_t watchdog_usec;         /* in force: WatchdogSec= or the service's WATCHDOG_USEC= */
        sd_event_source *watchdog_source;
        int cgroup_events_fd;           /* cgroup.events, while leftovers are being killed */
        sd_event_source *cgroup_source; /* cgroup.events changed */
        ServiceState exit_was;          /* the state when the main process exited */
        ServiceResult exit_result;      /* the result that exit gives */
} ServiceRun;

typedef struct Service {
        Manager *manager;
        char *name;
        char *unit_path;
        Unit *unit;       /* NULL when the unit file failed to load */
        char *load_error; /* why, with file and line */
        Credentials creds;      /* User=/Group= resolved at load time */

        ServiceState state;
        bool want_running;
        ServiceResult result;
        uint64_t state_change_usec;  /* CLOCK_REALTIME */
        uint64_t state_enter_usec[_SERVICE_STATE_MAX]; /* last entry into each state, 0 = never */

        ServiceRun run;                 /* the current (or last) process; reset at each spawn */
        sd_event_source *timer_source;  /* stop timeout, restart delay, exit-info retry */
        sd_event_time_handler_t timer_cb; /* which of them (re-exec carries the deadline over) */
        bool spawn_error;               /* clone failed: the waiting start gets SpawnFailed */
        bool have_exit;
        ExitStatus last_exit;
        int cgroup_fd;                  /* the service's cgroup, when svd has a subtree */
        char *last_error;
        unsigned restarts;

        ServiceWaiter *waiters;

        /* Output, reload and restore (logstream.h, manager-reload.c, wanted.h). */
        ServiceLog *log;        /* stdout/stderr: pipes, ring buffer, files, followers */
        WantedOverride wanted;  /* the operator's last start or stop, on top of WantedBy= */
        uint64_t restored_usec; /* CLOCK_REALTIME: started to restore the state before svd crashed; 0 */
        bool removed;           /* the unit file went away at a reload: dropped once settled */
        uint64_t unit_hash;     /* of the unit file's bytes as last loaded: reload tells changes by it */
        bool have_next_unit;    /* a reload changed the unit while it ran: */
        Unit *next_unit;        /*   the new definition, applied once settled */
        char *next_load_error;  /*   or why it does not load */

        /* Restart policy and dependencies. */
        uint64_t start_limit_begin; /* CLOCK_MONOTONIC start of the StartLimitIntervalSec= window */
        unsigned start_limit_count; /* starts in that window */
        ServiceJob job;
        ServiceDeps deps;
} Service;

/* Creates a service from a loaded unit (takes ownership) or, when unit is
 * NULL, a placeholder carrying load_error so that clients can see why. */
int service_new(Manager *m, const char *name, const char *unit_path, Unit *unit, const char *load_error,
                Service **ret);
Service *service_free(Service *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(Service *, service_free);

/* Desired-state changes. `call`, when non-NULL, is answered when the
 * operation completes (or fails); the service owns it from here on. */
void service_start(Service *s, VarlinkCall *call);
void service_stop(Service *s, VarlinkCall *call);
void service_restart(Service *s, VarlinkCall *call);

/* Sends sig to the main process (with PrivatePIDs=, svd's init forwards all
 * but SIGKILL/SIGSTOP to the command). -ESRCH when there is none. */
int service_kill(Service *s, int sig);

bool service_is_settled(const Service *s); /* inactive or failed, nothing pending */
bool service_is_active(const Service *s);  /* running, reloading or exited (a start is complete) */

/* A datagram on $NOTIFY_SOCKET from one of the service's processes. */
void service_notify(Service *s, pid_t pid, const NotifyMessage *msg);

/* Forgets a failure: failed → inactive, result, start limit and restart
 * counter reset (systemctl reset-failed). Returns true when s was failed. */
bool service_reset_failed(Service *s);

/* For deps.c: carry out a queued start or stop now that its order allows;
 * fail a queued start because the required unit dep failed. */
void service_start_now(Service *s);
void service_stop_now(Service *s);
void service_fail_dependency(Service *s, Service *dep, const char *reason);

/* Re-exec (reexec.h). service_serialize() gives the service as JSON with
 * its fds recorded in fds. service_deserialize() creates a service from
 * that (parsing the unit text it carries), without any event source;
 * service_resume(), given the same JSON, then watches its process, pipes and timers again, and
 * service_resume_settle(), from the loop, finishes what the old svd was
 * waiting for if it happened meanwhile (the cgroup emptied). */
struct ReexecFds;
struct json_t *service_serialize(Service *s, struct ReexecFds *fds);
int service_deserialize(Manager *m, struct json_t *o, Service **ret);
int service_resume(Service *s, struct json_t *o);
void service_resume_settle(Service *s);

/* The wire representation (io.svd.Manager Service type). */
struct json_t *service_to_json(const Service *s);
