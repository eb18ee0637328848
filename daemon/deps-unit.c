/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The [Unit] relations that order nothing, with systemd.unit(5)'s meanings: Requisite=, BindsTo=,
 * PartOf=, Conflicts=, OnFailure=, linked into the graph; what they make happen at run time is
 * deps.c's (deps.h). */
#include <stdio.h>
#include <string.h>

#include "basic/macros.h"
#include "basic/strv.h"
#include "basic/unit-name.h"
#include "svd-log.h"
#include "deps-unit.h"

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

int deps_link_relations(ServiceContext *c) {
        for (size_t i = 0; i < c->n_services; i++) {
                Service *s = c->services[i];
                if (!s->def->unit || s->def->load_error)
                        continue;
                for (UnitRelation rel = 0; rel < _UNIT_RELATION_MAX; rel++)
                        for (char **n = s->def->unit->relations[rel]; n && *n; n++) {
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

bool deps_requisite_missing(Service *s, const char **ret_dep, char **ret_reason) {
        /* Looked up by name now, so that one svd does not know fails the start as well. */
        for (char **n = s->def->unit->relations[UNIT_REQUISITE]; n && *n; n++) {
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
