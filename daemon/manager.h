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
#include "spawn.h"

/* Most unit files svd loads from its directory. */
#define MANAGER_UNITS_MAX 65536U

typedef struct Service Service;
typedef struct VarlinkServer VarlinkServer;

typedef struct ManagerConfig {
        const char *unit_dir;
        const char *socket_path;
        bool force_fallback;
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

/* Called by services whenever they settle; ends the loop once shutdown is complete. */
void manager_check_shutdown(Manager *m);

/* Default paths for root and for other users (DESIGN.md, "Paths"). */
int manager_default_unit_dir(char **ret);
int manager_default_socket_path(char **ret);
