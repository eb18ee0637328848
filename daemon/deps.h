/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Dependencies between services and the order in which they start and stop.
 *
 * Load time: deps_resolve() turns every unit's Requires= Wants= After= Before=
 * names into pointers. A Requires= naming no unit file, or a unit that is
 * part of an ordering cycle ("a → b → c → a"), gets a load error (the unit is
 * dropped, its placeholder carries the message); a Wants= naming no unit is a
 * warning; After=/Before= naming no unit are ignored, as in systemd. A unit
 * at the end of an ordering chain longer than DEPS_DEPTH_MAX fails to load
 * too. Other units are not affected.
 *
 * Run time: a start is a job. Starting a service queues start jobs for it
 * and, transitively, for what it requires and wants; a job runs once every
 * unit it is ordered after is done starting (ready, failed or not queued).
 * Requires= and Wants= imply that order (svd always starts dependencies
 * first). A required unit whose start fails fails the jobs of the units that
 * require it, with its reason. Stopping a service first stops the units that
 * require it; a stop waits for the units ordered after it that are stopping.
 *
 * deps_dispatch() runs from a defer event source, armed by deps_schedule(),
 * so that no state change re-enters the machine that caused it.
 */

#include <stdbool.h>
#include <stddef.h>

typedef struct ServiceContext ServiceContext;
typedef struct Service Service;

#define DEPS_CHAIN_MAX 64U  /* units named in one cycle message before it is cut short */
#define DEPS_DEPTH_MAX 256U /* units in one ordering chain: stops and failures walk chains recursively */

typedef struct ServiceSet {
        Service **items;
        size_t n;
} ServiceSet;

typedef struct ServiceDeps {
        ServiceSet requires;    /* Requires= that name a unit */
        ServiceSet wants;       /* Wants= that name a unit */
        ServiceSet after;       /* start after these: Requires= ∪ Wants= ∪ After= ∪ others' Before= */
        ServiceSet before;      /* the reverse of `after`: these start after us and stop before us */
        ServiceSet required_by; /* the reverse of `requires` */
        /* The relations that order nothing (deps-unit.c), resolved with the rest. */
        ServiceSet requisite;   /* Requisite=: must be active when this one starts */
        ServiceSet bound_by;    /* units with BindsTo= this one: stopped when it stops */
        ServiceSet consists_of; /* units with PartOf= this one: stopped and restarted with it */
        ServiceSet conflicts;   /* Conflicts= either way: starting one stops the other */
        ServiceSet on_failure;  /* OnFailure=: started when this one fails */
        bool propagating;       /* passing a stop or restart on right now (cycles end here) */
        unsigned index;         /* position in the manager's table, while resolving */
} ServiceDeps;

void service_deps_done(ServiceDeps *d);

/* ---- deps-unit.c: [Unit] relations and [Install] Alias= ---- */

/* Fills the relation sets of every unit in the graph (after deps_resolve()'s own links). */
int deps_link_relations(ServiceContext *c);
void deps_relations_done(ServiceDeps *d);
/* s changed state from old: a stop reaches the units bound to it (BindsTo=), a failure starts
 * its OnFailure= units. */
void deps_relations_state_changed(Service *s, int old);
/* s is being stopped / restarted by request: its PartOf= units go with it. */
void deps_relations_stop(Service *s);
void deps_relations_restart(Service *s);
/* Before a spawn of s: whether a Requisite= unit is not active (true, with the unit's name in
 * *ret_dep, valid until the table changes, and the reason, malloc'd or NULL, in *ret_reason). */
bool deps_requisite_missing(Service *s, const char **ret_dep, char **ret_reason);
/* Before a spawn of s: stops what conflicts with it (Conflicts=). */
void deps_conflicts_stop(Service *s);

/* Resolves all units' dependencies (again, after a reload); logs what it
 * finds and marks units with errors. */
int deps_resolve(ServiceContext *c);

/* Queues start jobs for s and what it requires and wants. */
void deps_queue_start(Service *s);
/* Queues stops of the units that require s. Returns true when s must wait
 * (its job is then a stop job), false when it may stop now. */
bool deps_queue_stop(Service *s);
/* s's start job finished: ready (success) or failed with reason. */
void deps_job_done(Service *s, bool success, const char *reason);

void deps_schedule(ServiceContext *c);
void deps_dispatch(ServiceContext *c);
