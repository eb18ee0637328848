/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The sandbox plan of a unit's sandboxing keys (service-sandbox.c).
 */

#include "service-def.h"

/* The sandbox plan of u's sandboxing keys, compiled at the first start and kept with u (freed with
 * it): 0 and *ret (NULL when the unit has none), or -errno, with *ret_error naming the key when a
 * seccomp filter could not be built (may stay NULL). */
int service_sandbox_prepare(const Unit *u, const SandboxPlan **ret, char **ret_error);
