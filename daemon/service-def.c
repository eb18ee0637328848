/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What a service is, as data (service-def.h): the names of its states, results and jobs, what may be
 * read off it, and the table's lookups. */
#include "service-def.h"

#include <stdlib.h>
#include <string.h>

#include "basic/string-table.h"
#include "basic/strv.h"
#include "basic/unit-name.h"


static const char *const service_job_table[_SERVICE_JOB_MAX] = {
        [SERVICE_JOB_NONE] = "none",
        [SERVICE_JOB_START] = "start-queued",
        [SERVICE_JOB_STARTING] = "start-running",
        [SERVICE_JOB_STOP] = "stop-queued",
};

DEFINE_STRING_TABLE_LOOKUP(service_job, ServiceJob);

static const char *const service_result_table[_SERVICE_RESULT_MAX] = {
        [SERVICE_SUCCESS] = "success",
        [SERVICE_FAILURE_EXIT_CODE] = "exit-code",
        [SERVICE_FAILURE_SIGNAL] = "signal",
        [SERVICE_FAILURE_CORE_DUMP] = "core-dump",
        [SERVICE_FAILURE_TIMEOUT] = "timeout",
        [SERVICE_FAILURE_EXEC] = "exec",
        [SERVICE_FAILURE_RESOURCES] = "resources",
        [SERVICE_FAILURE_WATCHDOG] = "watchdog",
        [SERVICE_FAILURE_START_LIMIT_HIT] = "start-limit-hit",
};

DEFINE_STRING_TABLE_LOOKUP(service_result, ServiceResult);

void service_set_last_error(Service *s, char *msg) {
        free(s->last_error);
        s->last_error = msg;
}

static void set_done(ServiceSet *set) {
        free(set->items);
        *set = (ServiceSet){};
}

void service_deps_done(ServiceDeps *d) {
        if (!d)
                return;
        ServiceSet *sets[] = { &d->requires,    &d->wants,       &d->after,       &d->before,
                               &d->required_by, &d->requisite,   &d->bound_by,    &d->consists_of,
                               &d->conflicts,   &d->on_failure,  &d->cycle };
        for (size_t i = 0; i < ELEMENTSOF(sets); i++)
                set_done(sets[i]);
        free(d->cycle_chain);
        d->cycle_chain = NULL;
}

/* ---- what may be read off a service ---- */

bool service_is_settled(const Service *s) {
        if (s->job != SERVICE_JOB_NONE)
                return false;
        return IN_SET(s->state, SERVICE_INACTIVE, SERVICE_FAILED) || (s->state == SERVICE_AUTO_RESTART && s->ctx->shutting_down);
}

bool service_is_active(const Service *s) {
        return IN_SET(s->state, SERVICE_RUNNING, SERVICE_RELOADING, SERVICE_EXITED) && s->run.ready;
}

bool service_may_change(const Service *s) {
        return service_is_settled(s) && !s->ctx->shutting_down;
}

const Process *service_main_process(const Service *s) {
        return process_is_set(&s->run.daemon) ? &s->run.daemon : &s->run.main;
}

uint64_t service_unit_hash(const Service *s) {
        return (s->next ?: s->def)->hash;
}

/* ---- the table ---- */

static int service_compare(const void *a, const void *b) {
        return strcmp((*(Service *const *) a)->name, (*(Service *const *) b)->name);
}

Service *service_find(ServiceContext *c, const char *name) {
        assert(c);
        if (!name)
                return NULL;
        /* Accept "web.service" as well as "web". */
        size_t l = strlen(name);
        _cleanup_free_ char *stripped = NULL;
        if (l > 8 && streq(name + l - 8, ".service")) {
                stripped = strndup(name, l - 8);
                if (!stripped)
                        return NULL;
                name = stripped;
        }
        Service **s = service_context_slot(c, c->n_services, name);
        return s ? *s : NULL;
}

Service **service_context_slot(ServiceContext *c, size_t n, const char *name) {
        if (n == 0)
                return NULL; /* the table may be NULL then, which bsearch() must not get */
        Service key = { .name = (char *) name }, *k = &key;
        return bsearch(&k, c->services, n, sizeof(Service *), service_compare);
}

/* The aliases are few and a lookup by one is rare (a client's or a
 * dependency's name that is no unit's own): a walk of the table. */
static Service *service_find_alias(ServiceContext *c, const char *name) {
        _cleanup_free_ char *stripped = strdup(name);

        if (!stripped)
                return NULL;
        unit_name_strip_suffix(stripped);
        for (size_t i = 0; i < c->n_services; i++) {
                Service *s = c->services[i];
                if (s->def->unit && strv_contains(s->def->unit->aliases, stripped))
                        return s;
        }
        return NULL;
}

Service *service_lookup(ServiceContext *c, const char *name) {
        assert(c);
        if (!name)
                return NULL;
        return service_find(c, name) ?: service_find_alias(c, name);
}

Service *service_find_or_instantiate(ServiceContext *c, const char *name) {
        Service *s = service_find(c, name);

        if (s || !name || !c->callbacks || !c->callbacks->instantiate)
                return s;
        return c->callbacks->instantiate(name, c->userdata);
}

int service_context_add(ServiceContext *c, Service *s) {
        if (c->n_services >= SERVICE_CONTEXT_MAX)
                return -E2BIG;
        Service **a = reallocarray(c->services, c->n_services + 1, sizeof(Service *));
        if (!a)
                return -ENOMEM;
        c->services = a;
        c->services[c->n_services++] = s;
        return 0;
}

void service_context_sort(ServiceContext *c) {
        if (c->n_services > 0)
                qsort(c->services, c->n_services, sizeof(Service *), service_compare);
}
