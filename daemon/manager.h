/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The Manager owns svd's state: the sd-event loop, the table of services
 * (sorted by name), the control socket's varlink server, and the result of
 * the kernel probe. main() creates exactly one; everything else reaches it
 * through back pointers.
 */

#include <stdbool.h>
#include <sys/resource.h>
#include <systemd/sd-event.h>

#include "basic/macros.h"
#include "cgroup.h"
#include "events.h"
#include "spawn.h"

/* Most unit files svd loads from its directory. */
#define MANAGER_UNITS_MAX 65536U

typedef struct Service Service;
typedef struct VarlinkServer VarlinkServer;

typedef struct ManagerConfig {
        const char *unit_dir;
        const char *socket_path;
        bool force_fallback;
        const char *exe_path;  /* svd's binary on disk, exec'd by a re-exec (reexec.h) */
        char **argv;           /* the options svd was started with, for the same */
        int state_fd;          /* --deserialize=FD: start from a re-exec's state; 0 for none */
} ManagerConfig;

typedef struct Manager {
        sd_event *event;
        sd_event_source *sigterm_source, *sigint_source, *sighup_source;

        char *unit_dir;
        char *socket_path;

        Service **services; /* sorted by name */
        size_t n_services;

        VarlinkServer *varlink;
        SpawnProbe probe;
        CgroupRoot cgroup;

        char *notify_path;             /* $NOTIFY_SOCKET of the services (notify.h) */
        int notify_fd;                 /* -EBADF when there is none */
        sd_event_source *notify_source;
        sd_event_source *jobs_source;  /* runs deps_dispatch() once per loop iteration when armed */

        EventSubscribers events;       /* Subscribe calls (events.h) */
        sd_event_source *gc_source;    /* drops removed units once they are settled (manager-reload.c) */
        bool crash_restored;           /* the wanted file was found at start-up: svd had crashed */
        bool gc_resolve_deps;          /* a unit changed under a running service: deps_resolve() from gc */

        char *exe_path;         /* re-exec (reexec.h): the binary, */
        char **argv;            /*   the options, */
        int state_fd;           /*   the state to start from, -EBADF */

        uid_t uid;              /* svd's own user: may change state over varlink */
        struct rlimit nofile;   /* RLIMIT_NOFILE as svd found it, restored for services */
        bool shutting_down;
} Manager;

int manager_new(const ManagerConfig *config, Manager **ret);
Manager *manager_free(Manager *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(Manager *, manager_free);

/* Loads units, opens the control socket, starts wanted services. */
int manager_startup(Manager *m);
/* Runs the loop until shutdown; returns the exit code. */
int manager_run(Manager *m);

Service *manager_get_service(Manager *m, const char *name);
/* Appends a service to the table (-E2BIG beyond MANAGER_UNITS_MAX); then
 * manager_sort_services() before the next lookup. */
int manager_add_service(Manager *m, Service *s);
void manager_sort_services(Manager *m);
/* Serves the control socket: listen_fd when >= 0 (handed over by a
 * re-exec), else binds the socket path. */
int manager_listen(Manager *m, int listen_fd);

/* Called by services whenever they settle; ends the loop once shutdown is complete. */
void manager_check_shutdown(Manager *m);

/* Reload (manager-reload.c): re-reads the unit directory. Units added are
 * loaded (not started); changed ones take the new definition at once when
 * they are settled, else when they next settle (a running process keeps
 * running, as with systemd's daemon-reload); removed ones are dropped when
 * settled, else marked removed and dropped once they stop. *ret_added,
 * *ret_changed and *ret_removed get the names (NULL-terminated). On an
 * unreadable directory returns -errno and changes nothing. */
int manager_reload(Manager *m, char ***ret_added, char ***ret_changed, char ***ret_removed);
/* Drops removed units that have settled (from a defer source). */
void manager_schedule_gc(Manager *m);
/* Before an operator's start: a settled service takes a pending reloaded definition now. */
void manager_apply_pending(Manager *m, Service *s);
/* Before a spawn (a restart is a start): takes a pending reloaded definition
 * that loaded; dependencies are resolved again from the loop. */
void manager_take_pending_unit(Manager *m, Service *s);

/* An operator started (true) or stopped (false) s: records it in the wanted file. */
void manager_record_wanted(Manager *m, Service *s, bool start);
/* Start-up, socket bound: fingerprints the unit files (for reload) and reads
 * the wanted file (restore after a crash). */
void manager_restore_prepare(Manager *m);
/* Whether s starts at start-up: WantedBy= and the operator's overrides;
 * after a crash, marks it restored. */
bool manager_wanted_at_startup(Manager *m, Service *s);
/* Writes the wanted file, logging a failure. */
void manager_save_wanted(Manager *m);

/* Default paths for root and for other users (DESIGN.md, "Paths"). */
int manager_default_unit_dir(char **ret);
int manager_default_socket_path(char **ret);
