/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * DynamicUser= for one run of a service (service-dynuser.c).
 */

#include "service-def.h"

/* DynamicUser= without a static user: allocates the uid (and the gid with it) for this run of s
 * into s->def->creds, unless s holds one already. 0, or -errno with *ret_error saying why. */
int service_dynamic_user_acquire(Service *s, char **ret_error);
/* The run is over (its processes are gone): gives the uid back. */
void service_dynamic_user_release(Service *s);
