/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* io.svd.Manager: the control protocol on top of the manager. */

#include "manager.h"
#include "varlink.h"

/* Makes the manager serve io.svd.Manager (methods and IDL) on its control
 * socket, and stream state changes to subscribers; freed with the manager. */
int varlink_manager_attach(Manager *m);
/* The server it runs (tests and the fuzzer feed it connections); NULL before manager_listen(). */
VarlinkServer *varlink_manager_server(Manager *m);
