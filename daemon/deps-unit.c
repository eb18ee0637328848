/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The [Unit] relations that order nothing, with systemd.unit(5)'s meanings: Requisite=, BindsTo=,
 * PartOf=, Conflicts=, OnFailure=; and the names [Install] Alias= gives a unit (deps.h). */
#include <stdio.h>
#include <string.h>

#include "basic/macros.h"
#include "basic/strv.h"
#include "basic/unit-name.h"
#include "svd-log.h"
#include "service.h"

static int rel_add(ServiceSet *set, Service *s) {
        for (size_t i = 0; i < set->n; i++)
                if (set->items[i] == s)
                        return 0;
        Service **a = reallocarray(set->items, set->n + 1, sizeof(Service *));
        if (!a)
                return -ENOMEM;
        set->items = a;
        set->items[set->n++] = s;
        return 1;
}

static void rel_done(ServiceSet *set) {
        free(set->items);
        *set = (ServiceSet){};
}

void deps_relations_done(ServiceDeps *d) {
        rel_done(&d->requisite);
        rel_done(&d->bound_by);
        rel_done(&d->consists_of);
        rel_done(&d->conflicts);
        rel_done(&d->on_failure);
}

int deps_link_relations(ServiceContext *c) {
        for (size_t i = 0; i < c->n_services; i++) {
                Service *s = c->services[i];
                if (!s->unit || s->load_error)
                        continue;
                for (UnitRelation rel = 0; rel < _UNIT_RELATION_MAX; rel++)
                        for (char **n = s->unit->relations[rel]; n && *n; n++) {
                                Service *o = service_lookup(c, *n);
                                int r = 0;
                                if (!o || o == s)
                                        continue; /* Requisite= names are looked up again at start */
                                switch (rel) {
                                case UNIT_REQUISITE:
                                        r = rel_add(&s->deps.requisite, o);
                                        break;
                                case UNIT_BINDS_TO:
                                        r = rel_add(&o->deps.bound_by, s);
                                        break;
                                case UNIT_PART_OF:
                                        r = rel_add(&o->deps.consists_of, s);
                                        break;
                                case UNIT_CONFLICTS:
                                        r = rel_add(&s->deps.conflicts, o);
                                        if (r >= 0)
                                                r = rel_add(&o->deps.conflicts, s);
                                        break;
                                case UNIT_ON_FAILURE:
                                        r = rel_add(&s->deps.on_failure, o);
                                        break;
                                default:
                                        break;
                                }
                                if (r < 0)
                                        return log_oom();
                        }
        }
        return 0;
}

/* Whether x is up or on its way up: what a stop passed on has to stop. */
static bool wants_or_runs(const Service *x) {
        return x->want_running || !service_is_settled(x);
}

void deps_relations_state_changed(Service *s, int old) {
        if (s->ctx->shutting_down || old == (int) s->state || s->deps.propagating)
                return;
        bool down = IN_SET(s->state, SERVICE_INACTIVE, SERVICE_FAILED) &&
                    !IN_SET(old, SERVICE_INACTIVE, SERVICE_FAILED);

        s->deps.propagating = true;
        for (size_t i = 0; down && i < s->deps.bound_by.n; i++) {
                Service *x = s->deps.bound_by.items[i];
                if (!x->want_running || x->deps.propagating)
                        continue;
                log_info("%s: stopping, as it is bound to '%s' (BindsTo=), which is %s now.", x->name, s->name,
                         service_state_to_string(s->state));
                (void) service_stop(x, NULL, NULL);
        }
        for (size_t i = 0; s->state == SERVICE_FAILED && old != SERVICE_FAILED && i < s->deps.on_failure.n; i++) {
                Service *x = s->deps.on_failure.items[i];
                log_info("%s: failed, starting '%s' (OnFailure=).", s->name, x->name);
                (void) service_start(x, NULL, NULL);
        }
        s->deps.propagating = false;
}

void deps_relations_stop(Service *s) {
        if (s->ctx->shutting_down || s->deps.propagating)
                return;
        s->deps.propagating = true;
        for (size_t i = 0; i < s->deps.consists_of.n; i++) {
                Service *x = s->deps.consists_of.items[i];
                if (!wants_or_runs(x) || x->deps.propagating)
                        continue;
                log_info("%s: stopping, as it is part of '%s' (PartOf=).", x->name, s->name);
                (void) service_stop(x, NULL, NULL);
        }
        s->deps.propagating = false;
}

void deps_relations_restart(Service *s) {
        if (s->ctx->shutting_down || s->deps.propagating)
                return;
        s->deps.propagating = true;
        for (size_t i = 0; i < s->deps.consists_of.n; i++) {
                Service *x = s->deps.consists_of.items[i];
                /* systemd restarts only what runs: a restart job on an inactive unit is dropped. */
                if (x->deps.propagating || !(service_is_active(x) || x->state == SERVICE_STARTING))
                        continue;
                log_info("%s: restarting, as it is part of '%s' (PartOf=).", x->name, s->name);
                (void) service_restart(x, NULL, NULL);
        }
        s->deps.propagating = false;
}

static bool service_requires(const Service *s, const Service *o) {
        for (size_t i = 0; i < s->deps.requires.n; i++)
                if (s->deps.requires.items[i] == o)
                        return true;
        return false;
}

bool deps_requisite_missing(Service *s, const char **ret_dep, char **ret_reason) {
        /* Looked up by name now, so that one svd does not know fails the start as well. */
        for (char **n = s->unit->relations[UNIT_REQUISITE]; n && *n; n++) {
                Service *o = service_lookup(s->ctx, *n);
                if (o && service_is_active(o))
                        continue;
                char *msg = NULL;
                if (asprintf(&msg, "Requisite= unit '%s' is %s", *n,
                             o ? service_state_to_string(o->state) : "not loaded") < 0)
                        msg = NULL;
                *ret_dep = o ? o->name : *n;
                *ret_reason = msg;
                return true;
        }
        return false;
}

void deps_conflicts_stop(Service *s) {
        /* What conflicts with s stops (both are never up together). */
        for (size_t i = 0; i < s->deps.conflicts.n; i++) {
                Service *o = s->deps.conflicts.items[i];
                if (!wants_or_runs(o) || service_requires(s, o) || o->deps.propagating)
                        continue;
                log_info("%s: stopping, as '%s' conflicts with it (Conflicts=).", o->name, s->name);
                (void) service_stop(o, NULL, NULL);
        }
}
