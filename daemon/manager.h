/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The Manager owns svd's state: the sd-event loop, the table of services
 * (in its ServiceContext), the result of the kernel probe, the unit
 * directory (loads and reloads), re-exec and the wanted state. main()
 * creates exactly one; everything else reaches it through back pointers.
 * It knows nothing of the control protocol: whoever serves the socket
 * (varlink-manager.c) registers ManagerHooks, through which the manager
 * has the socket served and passes state changes on.
 */

#include <errno.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <systemd/sd-event.h>

#include <jansson.h>

#include "basic/macros.h"
#include "cgroup.h"
#include "cgroup-bpf.h"
#include "guard.h"
#include "manager-socket.h"
#include "service.h"
#include "spawn.h"
#include "unit-install.h"

/* Most unit files svd loads from its directory. */
#define MANAGER_UNITS_MAX SERVICE_CONTEXT_MAX

typedef struct Manager Manager;

/* What the protocol layer does for the manager. */
typedef struct ManagerHooks {
        /* Serves the control socket: listen_fd when >= 0 (handed over by a re-exec), else binds it. */
        int (*listen)(Manager *m, int listen_fd, void *userdata);
        /* The listening socket, for a re-exec to hand over. */
        int (*listen_fd)(void *userdata);
        /* After a re-exec: answers the client that asked for it on its connection fd. */
        int (*answer_reexec)(int fd, json_t *parameters, void *userdata);
        /* A service's state changed (previous != s->state). */
        void (*state_changed)(Service *s, ServiceState previous, void *userdata);
        /* svd is exiting: end every call, free userdata. */
        void (*free)(void *userdata);
} ManagerHooks;

typedef struct ManagerConfig {
        const char *unit_dir;
        const char *socket_path;
        bool force_fallback;
        bool allow_unsandboxed; /* run units with sandboxing keys svd does not enforce, with a warning */
        const char *exe_path;  /* svd's binary on disk, exec'd by a re-exec (reexec.h) */
        char **argv;           /* the options svd was started with, for the same */
        int state_fd;          /* --deserialize=FD: start from a re-exec's state; 0 for none */
        const char *main_service; /* --main-service: svd exits when it ends for good */
        LogConsoleMode console;   /* --forward-output: services' lines on svd's stdout/stderr */
        const UnitDefaults *unit_defaults; /* for the keys unit files do not set; NULL: built-in */
        /* Before a re-exec: whether the new svd will start with its configuration (the file it reads
         * again); -errno and a malloc'd message refuse the re-exec. NULL: nothing to check. */
        int (*reexec_check)(char **ret_error, void *userdata);
        void *reexec_check_userdata;
} ManagerConfig;

struct Manager {
        sd_event *event;
        sd_event_source *sigterm_source, *sigint_source, *sighup_source, *sigchld_source;
        uint64_t orphans_reaped;       /* children svd reaped that were no service of its own */

        char *unit_dir;
        char *socket_path;

        ServiceContext ctx;     /* the services, sorted by name, and what they share */
        Socket **sockets;       /* the socket units (manager-socket.h) */
        size_t n_sockets;
        int *listen_fds;        /* the fds of the spawn under way (manager_sockets_listen_fds()) */
        SpawnProbe probe;
        CgroupRoot cgroup;
        CgroupBpfProbe bpf;            /* the programs of the device and IP access lists (cgroup-bpf.h) */
        Guard guard;                   /* ends the services' trees when svd dies (guard.h) */

        const ManagerHooks *hooks;
        void *hooks_userdata;

        char *lock_path;               /* the lock file beside the control socket */
        int lock_fd;                   /*   held from start-up to exit, across re-execs */

        char *notify_path;             /* $NOTIFY_SOCKET of the services (notify.h) */
        int notify_fd;                 /* -EBADF when there is none */
        sd_event_source *notify_source;

        sd_event_source *gc_source;    /* drops removed units once they are settled (manager-reload.c) */
        char *main_service;            /* the container's main service (its name), or NULL */
        sd_event_source *main_source;  /* checks it once it may have ended */
        bool main_exited;              /* it ended for good: svd exits with */
        int main_exit_status;          /*   this status */
        bool shutdown_unclean;         /* a service failed or was killed by the stop (exit status 1) */
        size_t shutdown_cursor;        /* the services before it were settled when manager_check_shutdown() passed */
        bool crash_restored;           /* the wanted file was found at start-up: svd had crashed */
        int reboot_command;            /* reboot(2) after the stop (SuccessAction=reboot, ...), 0: none */
        int wanted_save_error;         /* the last write of the wanted file failed with it; 0 */
        bool gc_resolve_deps;          /* a unit changed under a running service: deps_resolve() from gc */
        UnitInstallLinks links;        /* the unit directory's .wants/ links as last read (manager-install.c) */

        char *exe_path;         /* re-exec (reexec.h): the binary, */
        char **argv;            /*   the options, */
        int state_fd;           /*   the state to start from, -EBADF */
        int (*reexec_check)(char **ret_error, void *userdata); /*   the configuration's check */
        void *reexec_check_userdata;

        UnitDefaults unit_defaults; /* what ctx.unit_defaults points to */
        uid_t uid;              /* svd's own user: may change state over varlink */
        bool allow_unsandboxed; /* --allow-unsandboxed */
};

int manager_new(const ManagerConfig *config, Manager **ret);
Manager *manager_free(Manager *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(Manager *, manager_free);

/* Loads units, opens the control socket, starts wanted services. */
int manager_startup(Manager *m);
/* Runs the loop until shutdown; returns the exit code. */
int manager_run(Manager *m);

/* Registers the protocol layer (once, before manager_startup()). */
void manager_set_hooks(Manager *m, const ManagerHooks *hooks, void *userdata);

/* Serves the control socket through the hooks. */
int manager_listen(Manager *m, int listen_fd);

/* Stops every service, then ends the loop (SIGTERM, or the main service ended). */
void manager_shutdown(Manager *m);
/* Ends the loop once shutdown is complete. */
void manager_check_shutdown(Manager *m);

/* Reload (manager-reload.c): re-reads the unit directory. Units added are
 * loaded (not started); changed ones take the new definition at once when
 * they are settled, else when they next settle (a running process keeps
 * running, as with systemd's daemon-reload); removed ones are dropped when
 * settled, else marked removed and dropped once they stop. *ret_added,
 * *ret_changed and *ret_removed get the names (NULL-terminated; each may be
 * NULL when not wanted). On an unreadable directory returns -errno and
 * changes nothing. manager_load_units() is start-up: the same into the
 * empty table, without writing the wanted file. */
int manager_reload(Manager *m, char ***ret_added, char ***ret_changed, char ***ret_removed);
int manager_load_units(Manager *m);
/* Creates the instance `name` ("web@8080") of the loaded template "web@" (web@.service) in the
 * table and returns it; NULL when there is no such template. The instance lives as long as its
 * template: a reload gives it the template's new definition, and drops it with the template. */
Service *manager_instantiate(Manager *m, const char *name);
/* Drops removed units that have settled (from a defer source). */
void manager_schedule_gc(Manager *m);
/* ---- manager-job.c: the operator's start, stop and restart ----
 *
 * The one place of the operator's policy, for the protocol and for start-up
 * alike. manager_job_prepare() says what name means: the service (a start
 * or restart creates an instance of a template), or -ESRCH when there is
 * none, or -EBADR when it may not start (a template itself, a unit whose
 * file a reload removed), with the service in *ret and the reason, a static
 * string, in *ret_refusal. A start or restart of a settled service applies
 * the definition a reload left pending for it. With record, the operator's
 * wish goes into the wanted state (wanted.h): start-up starts what is
 * wanted already and records nothing. manager_job_op() is then the job's
 * operation (deps_start(), deps_stop(), deps_restart()). */
typedef enum ManagerJob {
        MANAGER_JOB_START,
        MANAGER_JOB_STOP,
        MANAGER_JOB_RESTART,
        _MANAGER_JOB_MAX,
        _MANAGER_JOB_INVALID = -EINVAL,
} ManagerJob;

const char *manager_job_to_string(ManagerJob j);
ManagerJob manager_job_from_string(const char *s);
int manager_job_prepare(Manager *m, ManagerJob job, const char *name, bool record, Service **ret,
                        const char **ret_refusal);
ServiceOpFn manager_job_op(ManagerJob job);

/* Before an operator's start: a settled service takes a pending reloaded definition now. */
void manager_apply_pending(Manager *m, Service *s);

/* An operator started (true) or stopped (false) s: records it in the wanted file. */
void manager_record_wanted(Manager *m, Service *s, bool start);
/* Start-up, socket bound: reads the wanted file (restore after a crash). */
void manager_restore_prepare(Manager *m);
/* Writes the wanted file, logging a failure. */
void manager_save_wanted(Manager *m);

/* ---- manager-install.c: enabling (unit-install.h) ----
 *
 * What starts with svd is kept in the unit directory's .wants/ links. The
 * manager reads them at start-up and at each reload (creating the
 * instances they name, when their template is loaded), after a re-exec,
 * and whenever it is asked about or changes a unit file, and gives every
 * service its state. The unit-file operations act on the units as svd
 * loaded them: a file added since is known after a reload. Enable and
 * disable are about start-up, not about what runs now: a unit whose
 * start-up they change and that has no operator's override gets its
 * present wish pinned as one (wanted.h), so that a restore after a crash
 * brings back what ran, not what will start at the next clean start. */

/* Reads the links again and gives every service its state; with instantiate, creates the instances
 * that links name and are not in the table yet. Logs what it could not read or ignored. */
void manager_refresh_unit_files(Manager *m, bool instantiate);

/* Why manager_install() or manager_unit_file_state() failed: the unit it concerns (the name asked
 * for, or one of Also=), what the error means (by its value: -ESRCH no such unit, -ENOEXEC the unit
 * file did not load, -EBADR refused; any other: a file), and for a file, its path. */
typedef struct ManagerInstallFailure {
        char *name;
        char *message; /* -ENOEXEC: the load error; -EBADR: why, a sentence without a period */
        char *path;    /* any other error: the link or directory that could not be changed */
} ManagerInstallFailure;

void manager_install_failure_done(ManagerInstallFailure *f);

/* Enables (enable) or disables `name` and the units its Also= names, as systemctl does, and reads
 * the links again. *changes gets what was changed (also on failure: what was done stays done);
 * *ret_carries_install_info whether there was anything to enable (false: a static unit). 0, or a
 * negative errno with *ret_failure (see there). */
int manager_install(Manager *m, const char *name, bool enable, UnitFileChanges *changes,
                    bool *ret_carries_install_info, ManagerInstallFailure *ret_failure);

/* The state of name's unit file and its path (an instance's is its template's), as the links are
 * now: 0, -ESRCH, or -ENOMEM. */
int manager_unit_file_state(Manager *m, const char *name, UnitFileState *ret_state, const char **ret_path);

/* Default paths: /etc/svd/units and /run/svd/svd.sock for root, under
 * $XDG_CONFIG_HOME and $XDG_RUNTIME_DIR for other users. */
int manager_default_unit_dir(char **ret);
int manager_default_socket_path(char **ret);
