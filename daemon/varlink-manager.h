/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* io.svd.Manager: the control protocol on top of the manager. */

#include "manager.h"
#include "varlink.h"

/* Makes the manager serve io.svd.Manager (methods and IDL) on its control
 * socket, and stream state changes to subscribers; freed with the manager. */
int varlink_manager_attach(Manager *m);
/* Who besides root and svd's own user may read every service's output
 * (output_group: NULL for the default, `adm` where it exists; "" for
 * none) and change state (manage_group: NULL or "" for none); names or
 * numbers, resolved now (varlink-access.h). Logs and returns -ESRCH for an
 * unknown group. Before manager_startup(). */
int varlink_manager_set_access(Manager *m, const char *output_group, const char *manage_group);
/* The server it runs (tests and the fuzzer feed it connections); NULL before manager_listen(). */
VarlinkServer *varlink_manager_server(Manager *m);
