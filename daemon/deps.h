/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Dependencies between services and the order in which they start and stop.
 *
 * Load time: deps_resolve() turns every unit's Requires= Wants= After= Before=
 * names into pointers. A Requires= naming no unit file gets a load error (the
 * unit is dropped, its placeholder carries the message); a Wants= naming no
 * unit is a warning; After=/Before= naming no unit are ignored, as in systemd.
 * A unit at the end of an ordering chain longer than DEPS_DEPTH_MAX fails to
 * load too. Other units are not affected. An ordering cycle ("a → b → c → a")
 * loads, as in systemd: it is logged and recorded on one of its units, and
 * when all of its units wait to start, one start is dropped to break it.
 *
 * Run time: a start is a job. Starting a service queues start jobs for it
 * and, transitively, for what it requires and wants; a job runs once every
 * unit it is ordered after is done starting (ready, failed or not queued).
 * Only After= and Before= order: Requires= and Wants= alone start units
 * together. A required unit whose start fails fails the jobs still waiting of
 * the units that require it, with its reason. Stopping a service first stops the units that
 * require it; a stop waits for the units ordered after it that are stopping.
 *
 * deps_dispatch() runs from a defer event source, armed by deps_schedule(),
 * so that no state change re-enters the machine that caused it.
 */

#include <stdbool.h>
#include <stddef.h>

#include "deps-unit.h"
#include "service.h"

#define DEPS_CHAIN_MAX 64U  /* units named in one cycle message before it is cut short */
/* Starts carried out by one deps_dispatch(): a start of thousands of services (svd's start-up) goes
 * in batches, with the loop's other events (a client's call, an exit) between them. */
#define DEPS_STARTS_PER_DISPATCH 128U
#define DEPS_DEPTH_MAX 256U /* units in one ordering chain: stops and failures walk chains recursively */

/* ---- deps.c ---- */

/* Makes deps.c the dependency engine of c's services (ServiceDepsHooks). */
void deps_attach(ServiceContext *c);

/* The operator's operations, with what the unit's dependencies and relations make of them: a start
 * queues the start of what s requires and wants and runs in their order, a stop first stops what
 * requires s (and PartOf= units), a restart takes its PartOf= units along. As service.h says of
 * done: 0, or -ENOMEM when done cannot be queued. */
int deps_start(Service *s, ServiceDoneFn done, void *userdata);
int deps_stop(Service *s, ServiceDoneFn done, void *userdata);
int deps_restart(Service *s, ServiceDoneFn done, void *userdata);

/* Resolves all units' dependencies (again, after a reload); logs what it
 * finds and marks units with errors. */
int deps_resolve(ServiceContext *c);

void deps_schedule(ServiceContext *c);
void deps_dispatch(ServiceContext *c);
