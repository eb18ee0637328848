/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "manager.h"
#include "varlink.h"

/* Registers io.svd.Manager (methods and IDL) on the server. */
int varlink_manager_register(Manager *m, VarlinkServer *server);
