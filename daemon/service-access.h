/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A unit's device and IP access lists (unit-access.h) on its service's cgroup, with the meaning
 * systemd.resource-control(5) gives them, through the programs of cgroup-bpf.h. Never runs a
 * service without them: where svd has no cgroup for it, or the kernel does not take the programs,
 * the start fails with the reason.
 */

#include "service-def.h"

/* Whether u has a list the service's cgroup must enforce. */
bool service_access_wanted(const Unit *u);

/* The keys of u that restrict it, for messages: "DevicePolicy=/DeviceAllow=",
 * "IPAddressAllow=/IPAddressDeny=", or both joined by " and " (static text). */
const char *service_access_keys(const Unit *u);

/* Why svd cannot enforce u's lists on this machine (no cgroup, or a kernel without the programs),
 * as text for "…: REASON" (static, or ctx's), or NULL when it can. Known from start-up on, so the
 * unit is refused when it is loaded already. */
const char *service_access_unsupported(const ServiceContext *ctx, const Unit *u);

/* Attaches u's programs to the cgroup cg_fd of s for a start: the cgroup was made anew (fresh), or
 * was in use already and may carry svd's programs of an earlier start, which the new ones replace
 * (also when u has none any more). Device paths and groups are resolved now: one that does not
 * exist allows nothing, as in systemd. Returns 0, or -errno with *ret_error saying what failed. */
int service_access_apply(Service *s, int cg_fd, bool fresh, char **ret_error);
