/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What a service is, as data: its states and results and their names, its current run and command,
 * its place in the dependency graph, and the table of services with its lookups. The state machine
 * (service.h) changes it; the parts the machine asks for verdicts (service-control.h,
 * service-forking.h, service-restart.h and the others) and the dependency engine (deps.h) read it.
 * Nothing here moves a service from one state to another.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "basic/macros.h"
#include "cgroup.h"
#include "cgroup-bpf.h"
#include "creds.h"
#include "logstream.h"
#include "process.h"
#include "basic/service-state.h"
#include "spawn.h"
#include "unit-definition.h"
#include "unit-install.h"
#include "unit.h"

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

const char *service_result_to_string(ServiceResult r);
ServiceResult service_result_from_string(const char *s);

typedef enum ServiceOp {
        SERVICE_OP_START,
        SERVICE_OP_STOP,
        SERVICE_OP_RESTART,
        SERVICE_OP_RELOAD,
        _SERVICE_OP_MAX,
} ServiceOp;

typedef struct ServiceWaiter ServiceWaiter;

/* How a start, stop or restart ended, as its waiter is told. */
typedef enum ServiceJobOutcome {
        SERVICE_OUTCOME_DONE,              /* started (ready, as Type= says) or stopped */
        SERVICE_OUTCOME_CANCELLED,         /* replaced by an opposite request, or the service went away */
        SERVICE_OUTCOME_NOT_LOADED,        /* the unit did not load: message */
        SERVICE_OUTCOME_SHUTTING_DOWN,     /* svd is stopping everything */
        SERVICE_OUTCOME_SPAWN_FAILED,      /* the process could not be created: message */
        SERVICE_OUTCOME_EXEC_FAILED,       /* the child failed at a setup stage or exec: failure, message */
        SERVICE_OUTCOME_START_FAILED,      /* it exited or timed out before it was ready: result, message */
        SERVICE_OUTCOME_DEPENDENCY_FAILED, /* a required unit failed: dependency, message */
        SERVICE_OUTCOME_ASSERT_FAILED,     /* an Assert*= was not met: message */
        SERVICE_OUTCOME_RELOAD_FAILED,     /* no ExecReload=, not running, or a command failed: message */
        _SERVICE_OUTCOME_MAX,
        _SERVICE_OUTCOME_INVALID = -EINVAL,
} ServiceJobOutcome;

typedef struct ServiceJobResult {
        ServiceJobOutcome outcome;
        const char *message;         /* never NULL but for DONE and CANCELLED */
        ServiceResult result;        /* START_FAILED */
        const SpawnFailure *failure; /* EXEC_FAILED */
        const char *dependency;      /* DEPENDENCY_FAILED: the unit's name */
} ServiceJobResult;

typedef struct Service Service;
/* Called once per waiter; the waiter is gone when it returns. */
typedef void (*ServiceDoneFn)(Service *s, const ServiceJobResult *result, void *userdata);

/* What a datagram on $NOTIFY_SOCKET said (sd_notify(3)). Absent fields:
 * false, NULL, -1 or 0. */
typedef struct NotifyMessage {
        bool ready;             /* READY=1 */
        bool stopping;          /* STOPPING=1 */
        bool reloading;         /* RELOADING=1 */
        bool watchdog;          /* WATCHDOG=1 */
        bool watchdog_trigger;  /* WATCHDOG=trigger */
        char *status;           /* STATUS=..., valid UTF-8 */
        int errno_value;        /* ERRNO=, -1 when absent */
        uint64_t watchdog_usec; /* WATCHDOG_USEC=, 0 when absent */
        pid_t main_pid;         /* MAINPID=, 0 when absent */
} NotifyMessage;

/* The operator's last start or stop of a service, on top of its enabling (wanted.h keeps them). */
typedef enum WantedOverride {
        WANTED_DEFAULT, /* as its enabling says (unit-install.h) */
        WANTED_START,
        WANTED_STOP,
        _WANTED_OVERRIDE_MAX,
        _WANTED_OVERRIDE_INVALID = -EINVAL,
} WantedOverride;

/* A service's place in the dependency graph, filled by deps_resolve() and deps_link_relations()
 * (deps.h). */
typedef struct ServiceSet {
        Service **items;
        size_t n;
} ServiceSet;

typedef struct ServiceDeps {
        ServiceSet requires;    /* Requires= that name a unit */
        ServiceSet wants;       /* Wants= that name a unit */
        ServiceSet after;       /* start after these: After= ∪ others' Before= */
        ServiceSet before;      /* the reverse of `after`: these start after us and stop before us */
        ServiceSet required_by; /* the reverse of `requires` */
        /* The relations that order nothing (deps-unit.c), resolved with the rest. */
        ServiceSet requisite;   /* Requisite=: must be active when this one starts */
        ServiceSet bound_by;    /* units with BindsTo= this one: stopped when it stops */
        ServiceSet consists_of; /* units with PartOf= this one: stopped and restarted with it */
        ServiceSet conflicts;   /* Conflicts= either way: starting one stops the other */
        ServiceSet on_failure;  /* OnFailure=: started when this one fails */
        /* An ordering cycle this unit's start breaks (deps.c): the others of the cycle, each ordered
         * after the next, the first one the unit's own `after`. When they all wait to start, this
         * unit's start is dropped, as systemd drops a job to break a cycle. */
        ServiceSet cycle;
        char *cycle_chain;      /* "a → b → a", for the log */
        bool propagating;       /* passing a stop or restart on right now (cycles end here) */
        bool queuing_stop;      /* deps_stop() is stopping what requires it (Requires= both ways end here) */
        bool sockets_started;   /* this start job has started the socket units it requires and wants */
        unsigned index;         /* position in the manager's table, while resolving */
} ServiceDeps;

/* Empties every set. */
void service_deps_done(ServiceDeps *d);

/* What the state machine tells the dependency engine and asks of it: deps_attach() (deps.h) puts
 * deps.c's here. Without an engine every service starts and stops on its own. */
typedef struct ServiceDepsHooks {
        /* s changed state from old: BindsTo=, OnFailure=, and the queued jobs that may go on now. */
        void (*state_changed)(Service *s, ServiceState old);
        /* The start of s that a job waits for ended: ready (success) or failed with reason. */
        void (*start_finished)(Service *s, bool success, const char *reason);
        /* Before each spawn of a start: false when a Requisite= unit is not active (its name in *ret_dep,
         * valid until the table changes, the reason, malloc'd or NULL, in *ret_reason); true when the start
         * may go on, what conflicts with s (Conflicts=) being stopped. */
        bool (*start_allowed)(Service *s, const char **ret_dep, char **ret_reason);
} ServiceDepsHooks;

/* The state machine's handlers of the events of a service's processes (service.c). The parts that
 * watch a process for it (service-control.c, service-forking.c) arm their event sources with these:
 * every event comes to the machine, which asks the part what it means and acts on the answer. */
typedef struct ServiceHandlers {
        sd_event_io_handler_t main_exit;       /* the main process's pidfd */
        sd_event_io_handler_t control_io;      /* a command's pidfd or its report pipe */
        sd_event_time_handler_t control_timer; /* a command's timeout, exit-information retry or failed spawn */
        sd_event_inotify_handler_t pid_file;   /* Type=forking: the PID file's directory changed */
} ServiceHandlers;

/* What the core tells the owner of the table. */
typedef struct ServiceCallbacks {
        /* Every service_set_state(); previous == s->state when a state is entered again. */
        void (*state_changed)(Service *s, ServiceState previous, void *userdata);
        /* s is inactive or failed now, after its stop waiters were answered: it entered that state, or a
         * stop of it ended without a change of state. */
        void (*settled)(Service *s, void *userdata);
        /* s took a pending reloaded definition: dependencies need resolving again. */
        void (*unit_changed)(Service *s, void *userdata);
        /* name ("web@8080") is no unit yet: the instance of its template, added to the table, or NULL
         * when there is no such template. */
        Service *(*instantiate)(const char *name, void *userdata);
        /* Socket activation: the listening fds of the socket units that activate s, in order, and their
         * names joined by ':' ($LISTEN_FDNAMES), both owned by the caller and valid until the spawn
         * returns; the number of fds, 0 for none. NULL: no socket units. */
        size_t (*listen_fds)(Service *s, const int **ret_fds, char **ret_names, void *userdata);
        /* Socket units a service's Requires=, Wants= and After= name ("echo.socket"): start_socket
         * starts one (binds its sockets) and returns 1 when it listens, 0 when its start goes on
         * (deps_schedule() is called when it ends), -ESRCH when there is no such socket unit, or
         * another -errno with *ret_reason (malloc'd, or NULL) saying why it failed; socket_state
         * says where it is: 1 listening, 0 starting, -ESRCH no such unit, -EIO failed (with
         * *ret_reason), -ENOTCONN inactive. NULL: no socket units. */
        int (*start_socket)(const char *name, char **ret_reason, void *userdata);
        int (*socket_state)(const char *name, char **ret_reason, void *userdata);
} ServiceCallbacks;

/* What all services share: the loop, what the kernel and svd's start-up
 * found, and the table of services (sorted by name). */
typedef struct ServiceContext {
        sd_event *event;
        const SpawnProbe *probe;
        CgroupRoot *cgroup;
        const CgroupBpfProbe *bpf; /* what the kernel takes of the access lists' programs (cgroup-bpf.h) */
        const char *notify_path; /* $NOTIFY_SOCKET given to services */
        bool notify_ready;       /* ... and it is bound: else Type=notify and WatchdogSec= cannot start */
        uid_t uid;               /* svd's own user */
        struct rlimit nofile;    /* RLIMIT_NOFILE for services without LimitNOFILE= */
        const UnitDefaults *unit_defaults; /* for the keys a unit file does not set; NULL: built-in */
        bool shutting_down;
        bool guarded;            /* svd's guard ends every service's whole tree when svd dies (guard.h) */
        /* Starts that failed for want of svd's own descriptors, processes or memory are logged once a
         * second at most: when the last was logged, and how many were not since. */
        uint64_t exhausted_log_usec;
        unsigned exhausted_suppressed;

        Service **services;
        size_t n_services;
        sd_event_source *jobs_source; /* runs deps_dispatch() once per loop iteration when armed */
        bool jobs_queued;             /* a service may have a start or stop job waiting: deps_dispatch() walks them */
        size_t jobs_cursor;           /* where deps_dispatch()'s next walk begins (an index of services) */
        sd_bus *bus;                  /* the system bus, for Type=dbus (service-dbus.c); NULL: not connected */
        sd_bus_slot *bus_disconnected;

        const ServiceCallbacks *callbacks;
        void *userdata;
        const ServiceDepsHooks *deps; /* NULL: no dependency engine */
} ServiceContext;


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
ServiceJob service_job_from_string(const char *s);

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
        bool main_exited;               /* the main process of this start exited (last_exit is its status) */
        bool spawning;                  /* the report is read right after the spawn, before the state is set */
        bool have_command_exit;         /* Type=forking: the command's exit, read then, judged once STARTING */
        ExitStatus command_exit;
        /* Type=forking (service-forking.c). */
        bool control_exited;            /* the command exited successfully: the daemon is the service */
        Process daemon;                 /* in a PID namespace: the daemon, signalled in place of init */
        pid_t daemon_nspid;             /* its pid in the namespace; 0: none known */
        pid_t reaped_nspid;             /* init's SPAWN_REPORT_REAPED_PID, until its status comes */
        sd_event_source *pid_file_source; /* waiting for PIDFile= to name a process of the service */
        /* Type=dbus (service-dbus.c). */
        sd_bus_slot *bus_match;         /* NameOwnerChanged of BusName= */
        sd_bus_slot *bus_call;          /* GetNameOwner */
        ServiceState exit_was;          /* the state when the main process exited */
        ServiceResult exit_result;      /* the result that exit gives */
} ServiceRun;

/* The process of a command around the main one (ExecStartPre= ... ExecStopPost=), spawned exactly as the
 * main one is: one at a time, the next when it has exited (service-control.c). `started`,
 * `stop_done` and `stop_post_done` are about the current start, from its first command on. */
/* What the one timer of a command is for. */
typedef enum ServiceControlTimer {
        SERVICE_CONTROL_TIMER_NONE,
        SERVICE_CONTROL_TIMER_TIMEOUT,      /* TimeoutStartSec=/TimeoutStopSec= */
        SERVICE_CONTROL_TIMER_RETRY,        /* the exit information is asked for again */
        SERVICE_CONTROL_TIMER_SPAWN_FAILED, /* the failed spawn is told from the loop */
} ServiceControlTimer;

typedef struct ServiceControl {
        Process proc;
        UnitExec kind;                /* the list it runs, _UNIT_EXEC_INVALID when none */
        size_t index;                 /* which command of it */
        bool pid1;                    /* proc is svd's init of a PID namespace (PrivatePIDs=yes) */
        sd_event_source *exit_source;
        sd_event_source *report_source;
        int report_fd;
        bool exit_wait_hangup;
        unsigned exit_info_retries;
        bool have_spawn_failure;
        SpawnFailure spawn_failure;
        bool have_reported_exit;
        ExitStatus reported_exit;
        bool timed_out;               /* TimeoutStartSec=/TimeoutStopSec= passed: SIGKILLed */
        sd_event_source *timer_source;
        ServiceControlTimer timer_what;
        ServiceResult result;         /* of the commands of this list so far */

        bool started;        /* the start completed: ExecStop= runs at the end */
        bool stop_done;      /* ExecStop= ran (or is not to run) in this start */
        bool stop_post_done; /* ExecStopPost= ran in this start */
        bool stopping;       /* a stop or restart cut the running command short */
        size_t exec_start_index; /* Type=oneshot: which ExecStart= runs */
        bool log_fresh;      /* the next process is the start's first: its output files are truncated */
} ServiceControl;

struct Service {
        ServiceContext *ctx;
        const ServiceHandlers *handlers; /* the state machine's (service_new()) */
        char *name;
        UnitDefinition *def; /* the unit in force (never NULL; its unit is NULL when it did not load) */

        ServiceState state;
        bool want_running;
        ServiceResult result;
        uint64_t state_change_usec;  /* CLOCK_REALTIME */
        uint64_t state_enter_usec[_SERVICE_STATE_MAX]; /* last entry into each state, 0 = never */

        ServiceRun run;                 /* the current (or last) process; reset at each spawn */
        ServiceControl control;         /* the command around it that runs, if any */
        sd_event_source *timer_source;  /* stop timeout, restart delay, exit-info retry */
        sd_event_time_handler_t timer_cb; /* which of them (re-exec carries the deadline over) */
        bool spawn_error;               /* clone failed: the waiting start gets SpawnFailed */
        bool have_exit;
        ExitStatus last_exit;
        bool cgroup;                    /* its cgroup exists (made at a start): opened where needed
                                         * (service_cgroup_open), so that it costs no descriptor */
        int dynamic_user_fd;            /* DynamicUser=: the lock of creds.uid while allocated (dynamic-user.h) */
        char *last_error;
        unsigned restarts;
        unsigned exhausted; /* starts in a row that failed for want of svd's own resources */
        /* Condition*=/Assert*= at the last start (service-condition.c): the one not met, as written,
         * or NULL; when they were checked (CLOCK_REALTIME, 0 = never). */
        char *condition_failed, *assert_failed;
        uint64_t condition_usec, assert_usec;

        ServiceWaiter *waiters;

        /* Output, reload and restore (logstream.h, manager-reload.c, wanted.h). */
        ServiceLog *log;        /* stdout/stderr: pipes, ring buffer, files, watchers */
        WantedOverride wanted;  /* the operator's last start or stop, on top of its enabling */
        UnitFileState file_state; /* its enabling (unit-install.h) as last read: UNIT_FILE_ENABLED starts
                                   * it with svd; until the manager reads the links, its own file's */
        uint64_t restored_usec; /* CLOCK_REALTIME: started to restore the state before svd crashed; 0 */
        bool removed;           /* the unit file went away at a reload: dropped once settled */
        UnitDefinition *next;   /* a reload changed the unit while it ran: the new definition, in force once
                                 * settled (its unit NULL: it does not load) */

        /* Restart policy and dependencies. */
        uint64_t start_limit_begin; /* CLOCK_MONOTONIC start of the StartLimitIntervalSec= window */
        unsigned start_limit_count; /* starts in that window */
        ServiceJob job;
        ServiceDeps deps;
        sd_event_source *idle_source; /* Type=idle: waiting for the other jobs (service-idle.c) */

        /* An instance started for one connection of an Accept=yes socket unit (manager-socket.h):
         * the connection, which its commands get (as fd 3 with $LISTEN_FDS=1, or as stdin/stdout
         * with StandardInput=socket) until it settles, and the $REMOTE_ADDR/$REMOTE_PORT of its
         * main command. -EBADF / NULL for other services, and once it has settled. */
        int connection_fd;
        char **connection_env;
        bool transient; /* dropped from the table once it has settled (manager-reload.c) */
};

/* The table. service_find() accepts "web.service" as well as "web".
 * service_context_add() appends (-E2BIG beyond SERVICE_CONTEXT_MAX); then
 * service_context_sort() before the next lookup. service_context_remove()
 * frees the service at index i. */
#define SERVICE_CONTEXT_MAX 65536U
Service *service_find(ServiceContext *c, const char *name);
/* The slot of the service named exactly name among the first n of the table, which are sorted (NULL
 * if none): for a caller that appends while it looks up. */
Service **service_context_slot(ServiceContext *c, size_t n, const char *name);
/* A unit's own name first, then the names its Alias= gives it, as systemctl
 * takes them: what a client's or a dependency's name means. */
Service *service_lookup(ServiceContext *c, const char *name);
/* The same, and an instance of a template ("web@8080" of web@.service) is created when it is not
 * in the table yet (the instantiate callback). */
Service *service_find_or_instantiate(ServiceContext *c, const char *name);
int service_context_add(ServiceContext *c, Service *s);
void service_context_sort(ServiceContext *c);

bool service_is_settled(const Service *s); /* inactive or failed, nothing pending */
bool service_is_active(const Service *s);  /* running, reloading or exited (a start is complete) */
bool service_may_change(const Service *s); /* settled and svd not shutting down: its unit may be replaced */

/* The hash of the unit file as last loaded (the pending definition's, when there is one): a reload
 * tells a changed file by it. */
uint64_t service_unit_hash(const Service *s);

/* Replaces the message of the last failure (takes msg, which may be NULL). */
void service_set_last_error(Service *s, char *msg);

/* The service's main process: for Type=forking in a PID namespace the daemon once known
 * (service-forking.c), else the process svd created. */
const Process *service_main_process(const Service *s);
