/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Dependencies: the graph resolved from Requires=/Wants=/After=/Before=, and the start and stop jobs
 * that run in its order (deps.h). */
#include "deps.h"

#include <stdio.h>
#include <string.h>

#include "basic/macros.h"
#include "basic/strv.h"
#include "svd-log.h"
#include "service.h"
#include "unit-install.h"

/* ---- sets ---- */

static bool set_contains(const ServiceSet *set, const Service *s) {
        for (size_t i = 0; i < set->n; i++)
                if (set->items[i] == s)
                        return true;
        return false;
}

static int set_add(ServiceSet *set, Service *s) {
        if (set_contains(set, s))
                return 0;
        Service **a = reallocarray(set->items, set->n + 1, sizeof(Service *));
        if (!a)
                return -ENOMEM;
        set->items = a;
        set->items[set->n++] = s;
        return 1;
}

/* ---- load time ---- */

/* In the dependency graph: loaded, without an error. */
static bool service_in_graph(const Service *s) {
        return s->def->unit && !s->def->load_error;
}

/* Missing units: a Requires= is an error, a Wants= a warning. */
static int deps_check_missing(ServiceContext *c) {
        for (size_t i = 0; i < c->n_services; i++) {
                Service *s = c->services[i];
                if (!service_in_graph(s))
                        continue;
                for (char **n = s->def->unit->dependencies[UNIT_REQUIRES]; n && *n; n++) {
                        /* A socket unit is looked up when the start needs it: start_sockets(). */
                        if (unit_install_name_is_socket(*n) || service_lookup(c, *n))
                                continue;
                        char *msg;
                        if (asprintf(&msg, "%s: Requires=%s: no such unit '%s.service'", s->def->path, *n,
                                     *n) < 0)
                                return log_oom();
                        service_set_load_error(s, msg);
                        break;
                }
                for (char **n = service_in_graph(s) ? s->def->unit->dependencies[UNIT_WANTS] : NULL; n && *n; n++)
                        if (!unit_install_name_is_socket(*n) && !service_lookup(c, *n))
                                log_warning("%s: Wants=%s: no such unit '%s.service', ignoring.",
                                            s->def->path, *n, *n);
        }
        return 0;
}

static int deps_link(ServiceContext *c) {
        for (size_t i = 0; i < c->n_services; i++)
                service_deps_done(&c->services[i]->deps);

        for (size_t i = 0; i < c->n_services; i++) {
                Service *s = c->services[i];
                s->deps.index = (unsigned)i;
                if (!service_in_graph(s))
                        continue;
                for (UnitDependency d = 0; d < _UNIT_DEPENDENCY_MAX; d++)
                        for (char **n = s->def->unit->dependencies[d]; n && *n; n++) {
                                Service *o = unit_install_name_is_socket(*n) ? NULL : service_lookup(c, *n);
                                int r = 0;
                                if (!o)
                                        continue;
                                if (d == UNIT_REQUIRES) {
                                        /* Kept even when o failed to load: starting s then fails, naming o.
                                         */
                                        r = set_add(&s->deps.requires, o);
                                        if (r >= 0)
                                                r = set_add(&o->deps.required_by, s);
                                } else if (d == UNIT_WANTS && service_in_graph(o))
                                        r = set_add(&s->deps.wants, o);
                                /* Only After= and Before= order, as in systemd: two units that require
                                 * each other start together. */
                                if (r >= 0 && service_in_graph(o) && d == UNIT_AFTER) {
                                        r = set_add(&s->deps.after, o);
                                        if (r >= 0)
                                                r = set_add(&o->deps.before, s);
                                } else if (r >= 0 && service_in_graph(o) && d == UNIT_BEFORE) {
                                        r = set_add(&o->deps.after, s);
                                        if (r >= 0)
                                                r = set_add(&s->deps.before, o);
                                }
                                if (r < 0)
                                        return log_oom();
                        }
        }
        return deps_link_relations(c);
}

/* "a → b → c → a" from the DFS stack, starting at the entry of `from`. */
static char *cycle_chain(Service **stack, size_t n, size_t from, Service *first) {
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        if (!f)
                return NULL;
        /* Rotate so that the chain starts at `first`. */
        size_t len = n - from, start = 0;
        for (size_t i = 0; i < len; i++)
                if (stack[from + i] == first)
                        start = i;
        for (size_t i = 0; i <= len && i < DEPS_CHAIN_MAX; i++)
                fprintf(f, "%s%s", i > 0 ? " → " : "", stack[from + (start + i) % len]->name);
        if (len >= DEPS_CHAIN_MAX)
                fputs(" → …", f);
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

/* Whether another unit of the cycle stack[from..to) requires x: then x's start is no job to drop. */
static bool cycle_requires(Service **stack, size_t from, size_t to, const Service *x) {
        for (size_t i = from; i < to; i++)
                if (stack[i] != x && set_contains(&stack[i]->deps.requires, x))
                        return true;
        return false;
}

/* The cycle stack[from..depth), each ordered after the next and the last after the first: the unit
 * whose start breaks it (one that no other unit of it requires, as systemd prefers a job that was only
 * wanted), and the others in order from the one it is ordered after. */
static int cycle_record(Service **stack, size_t depth, size_t from) {
        size_t len = depth - from, b = 0;
        for (size_t i = 0; i < len; i++)
                if (!cycle_requires(stack, from, depth, stack[from + i])) {
                        b = i;
                        break;
                }
        Service *breaker = stack[from + b];
        if (breaker->deps.cycle_chain)
                return 0; /* it breaks a cycle already */
        for (size_t i = 1; i < len; i++)
                if (set_add(&breaker->deps.cycle, stack[from + (b + i) % len]) < 0)
                        return -ENOMEM;
        breaker->deps.cycle_chain = cycle_chain(stack, depth, from, breaker);
        if (!breaker->deps.cycle_chain)
                return -ENOMEM;
        log_warning("Ordering cycle: %s. When these units start together, one start is dropped to break it.",
                    breaker->deps.cycle_chain);
        return 0;
}

/* Iterative DFS over the `after` edges. A cycle is no load error: systemd loads such units and drops a
 * start to break the cycle when they start together (deps_dispatch()); the cycle is recorded on the
 * unit whose start that is. */
static int deps_find_cycles(ServiceContext *c) {
        enum { WHITE, GREY, BLACK };
        size_t n = c->n_services;
        _cleanup_free_ uint8_t *color = calloc(n ? n : 1, 1);
        _cleanup_free_ Service **stack = calloc(n ? n : 1, sizeof(Service *));
        _cleanup_free_ size_t *edge = calloc(n ? n : 1, sizeof(size_t));
        bool any = false;

        if (!color || !stack || !edge)
                return log_oom();

        for (size_t root = 0; root < n; root++) {
                if (color[root] != WHITE || !service_in_graph(c->services[root]))
                        continue;
                size_t depth = 0;
                stack[depth] = c->services[root];
                edge[depth] = 0;
                color[root] = GREY;
                depth++;
                while (depth > 0) {
                        Service *s = stack[depth - 1];
                        if (edge[depth - 1] >= s->deps.after.n) {
                                color[s->deps.index] = BLACK;
                                depth--;
                                continue;
                        }
                        Service *o = s->deps.after.items[edge[depth - 1]++];
                        if (color[o->deps.index] == WHITE) {
                                color[o->deps.index] = GREY;
                                stack[depth] = o;
                                edge[depth] = 0;
                                depth++;
                        } else if (color[o->deps.index] == GREY) {
                                /* o is on the stack: the cycle is o … s → o. */
                                size_t from = 0;
                                while (stack[from] != o)
                                        from++;
                                if (cycle_record(stack, depth, from) < 0)
                                        return log_oom();
                                any = true;
                        }
                }
        }
        return any ? 1 : 0;
}

/* The longest ordering chain below each unit; units deeper than DEPS_DEPTH_MAX get a load error, so
 * that the stops and failures that walk these chains stay bounded. An edge back to a unit on the
 * stack closes a cycle and adds nothing to a chain. */
static int deps_check_depth(ServiceContext *c) {
        size_t n = c->n_services;
        _cleanup_free_ unsigned *depth = calloc(n ? n : 1, sizeof(unsigned)); /* 0: not known yet */
        _cleanup_free_ Service **stack = calloc(n ? n : 1, sizeof(Service *));
        _cleanup_free_ size_t *edge = calloc(n ? n : 1, sizeof(size_t));
        _cleanup_free_ bool *on_stack = calloc(n ? n : 1, sizeof(bool));
        bool any = false;

        if (!depth || !stack || !edge || !on_stack)
                return log_oom();

        for (size_t root = 0; root < n; root++) {
                if (depth[root] > 0 || !service_in_graph(c->services[root]))
                        continue;
                size_t top = 0;
                stack[top] = c->services[root];
                on_stack[root] = true;
                edge[top++] = 0;
                while (top > 0) {
                        Service *s = stack[top - 1];
                        if (edge[top - 1] < s->deps.after.n) {
                                Service *o = s->deps.after.items[edge[top - 1]++];
                                if (depth[o->deps.index] == 0 && !on_stack[o->deps.index] && top < n) {
                                        on_stack[o->deps.index] = true;
                                        stack[top] = o;
                                        edge[top++] = 0;
                                }
                                continue;
                        }
                        unsigned d = 1;
                        for (size_t i = 0; i < s->deps.after.n; i++)
                                if (depth[s->deps.after.items[i]->deps.index] + 1 > d)
                                        d = depth[s->deps.after.items[i]->deps.index] + 1;
                        depth[s->deps.index] = d;
                        on_stack[s->deps.index] = false;
                        top--;
                }
        }
        for (size_t i = 0; i < n; i++) {
                if (depth[i] <= DEPS_DEPTH_MAX)
                        continue;
                Service *s = c->services[i];
                char *msg;
                if (asprintf(&msg, "%s: Dependency chain of %u units, more than %u", s->def->path, depth[i],
                             DEPS_DEPTH_MAX) < 0)
                        return log_oom();
                service_set_load_error(s, msg);
                any = true;
        }
        return any ? 1 : 0;
}

int deps_resolve(ServiceContext *c) {
        int r;

        assert(c);

        r = deps_check_missing(c);
        if (r < 0)
                return r;
        r = deps_link(c);
        if (r < 0)
                return r;
        r = deps_check_depth(c);
        if (r > 0) /* units too deep are dropped: link again without them */
                r = deps_link(c);
        if (r >= 0)
                r = deps_find_cycles(c);
        return r < 0 ? r : 0;
}

/* ---- run time ---- */

static void job_done(Service *s, bool success, const char *reason);

/* A queued start of s cannot run: dep, which it requires, failed. */
static void fail_dependency(Service *s, Service *dep, const char *reason) {
        service_fail_dependency(s, dep, reason);
        job_done(s, /* success= */ false, s->last_error ? s->last_error : "a dependency failed");
}

static bool start_in_progress(const Service *s) {
        return IN_SET(s->job, SERVICE_JOB_START, SERVICE_JOB_STARTING) ||
               IN_SET(s->state, SERVICE_STARTING, SERVICE_START_PRE, SERVICE_START_POST) ||
               (s->state == SERVICE_RUNNING && !s->run.ready);
}

/* Queues start jobs for root and what it requires and wants. */
static void queue_start(Service *root) {
        ServiceContext *c = root->ctx;
        _cleanup_free_ Service **work = NULL;
        size_t n = 0, cap = 0;

        if (!root->def->unit)
                return;
        if (root->job != SERVICE_JOB_STARTING) {
                root->job = SERVICE_JOB_START;
                root->deps.sockets_started = false;
        }
        c->jobs_queued = true;
        for (Service *s = root;;) {
                ServiceSet *sets[] = {&s->deps.requires, &s->deps.wants};
                for (size_t k = 0; k < ELEMENTSOF(sets); k++)
                        for (size_t i = 0; i < sets[k]->n; i++) {
                                Service *d = sets[k]->items[i];
                                if (!service_in_graph(d) ||
                                    IN_SET(d->job, SERVICE_JOB_START, SERVICE_JOB_STARTING) ||
                                    (service_is_active(d) && d->job == SERVICE_JOB_NONE))
                                        continue;
                                d->job = SERVICE_JOB_START;
                                d->deps.sockets_started = false;
                                d->want_running = true;
                                if (n == cap) {
                                        size_t nc = cap ? cap * 2 : 16;
                                        Service **a = reallocarray(work, nc, sizeof(Service *));
                                        if (!a) {
                                                log_oom();
                                                break;
                                        }
                                        work = a;
                                        cap = nc;
                                }
                                work[n++] = d;
                        }
                if (n == 0)
                        break;
                s = work[--n];
        }
        deps_schedule(c);
}

/* Queues stops of the units that require s. true when s must wait (its job is a stop job then),
 * false when it may stop now. */
static bool queue_stop(Service *s) {
        /* Those that require s go first (deps_stop() recurses through here). */
        for (size_t i = 0; i < s->deps.required_by.n; i++) {
                Service *x = s->deps.required_by.items[i];
                if (x->job == SERVICE_JOB_STOP || (service_is_settled(x) && x->job == SERVICE_JOB_NONE))
                        continue;
                if (!x->want_running && IN_SET(x->state, SERVICE_STOPPING, SERVICE_KILLING, SERVICE_STOP_EXEC, SERVICE_STOP_POST))
                        continue;
                log_info("%s: stopping, as it requires '%s'.", x->name, s->name);
                (void) deps_stop(x, NULL, NULL);
        }
        for (size_t i = 0; i < s->deps.before.n; i++) {
                Service *x = s->deps.before.items[i];
                if (x->job == SERVICE_JOB_STOP ||
                    (!x->want_running && IN_SET(x->state, SERVICE_STOPPING, SERVICE_KILLING, SERVICE_STOP_EXEC, SERVICE_STOP_POST))) {
                        s->job = SERVICE_JOB_STOP;
                        s->ctx->jobs_queued = true;
                        return true;
                }
        }
        return false;
}

/* s's start job finished: ready (success) or failed with reason, which fails the queued starts of
 * what requires s. */
static void job_done(Service *s, bool success, const char *reason) {
        if (s->job == SERVICE_JOB_STOP)
                return;
        s->job = SERVICE_JOB_NONE;
        if (!success)
                for (size_t i = 0; i < s->deps.required_by.n; i++) {
                        Service *x = s->deps.required_by.items[i];
                        if (x->job == SERVICE_JOB_START)
                                fail_dependency(x, s, reason); /* recurses through here */
                }
        deps_schedule(s->ctx);
}

static int on_jobs_event(sd_event_source *source, void *userdata) {
        deps_dispatch(userdata);
        return 0;
}

void deps_schedule(ServiceContext *c) {
        int r;

        if (!c->event)
                return;
        if (!c->jobs_source) {
                r = sd_event_add_defer(c->event, &c->jobs_source, on_jobs_event, c);
                if (r < 0) {
                        log_error_errno(r, "Failed to schedule jobs, running them now: %m");
                        deps_dispatch(c);
                        return;
                }
        }
        (void)sd_event_source_set_enabled(c->jobs_source, SD_EVENT_ONESHOT);
}

/* s breaks an ordering cycle, and every other unit of it waits to start: none can go before the others. */
static bool cycle_deadlocked(const Service *s) {
        if (s->deps.cycle.n == 0)
                return false;
        for (size_t i = 0; i < s->deps.cycle.n; i++)
                if (s->deps.cycle.items[i]->job != SERVICE_JOB_START)
                        return false;
        return true;
}

/* Whether another unit of s's cycle (s itself included) requires x. */
static bool cycle_member_requires(const Service *s, const Service *x) {
        if (s != x && set_contains(&s->deps.requires, x))
                return true;
        for (size_t i = 0; i < s->deps.cycle.n; i++) {
                const Service *y = s->deps.cycle.items[i];
                if (y != x && set_contains(&y->deps.requires, x))
                        return true;
        }
        return false;
}

/* s's cycle is deadlocked: the start to drop is, as systemd chooses, one that nobody asked for (no
 * waiter: it was only pulled in) and that no unit of the cycle requires; else one that no unit of the
 * cycle requires; else s's own. */
static void drop_start(Service *s) {
        Service *victim = NULL;
        for (int pass = 0; pass < 2 && !victim; pass++)
                for (size_t i = 0; i <= s->deps.cycle.n && !victim; i++) {
                        Service *x = i == 0 ? s : s->deps.cycle.items[i - 1];
                        if (!cycle_member_requires(s, x) && (pass == 1 || !x->waiters))
                                victim = x;
                }
        if (!victim)
                victim = s;
        _cleanup_free_ char *reason = NULL;
        if (asprintf(&reason, "start dropped to break the ordering cycle %s", s->deps.cycle_chain) < 0)
                reason = NULL;
        service_drop_start(victim, reason ?: "start dropped to break an ordering cycle");
        job_done(victim, /* success= */ false, reason ?: "start dropped to break an ordering cycle");
}

/* The socket units s requires and wants are started (their sockets bound), once per start job and
 * before s starts, as systemd starts them in one transaction. false when a required one failed: the
 * start job of s failed with its reason. */
static bool start_sockets(Service *s) {
        static const UnitDependency kinds[] = { UNIT_REQUIRES, UNIT_WANTS };
        const ServiceCallbacks *cb = s->ctx->callbacks;

        if (s->deps.sockets_started)
                return true;
        s->deps.sockets_started = true;
        for (size_t k = 0; k < ELEMENTSOF(kinds); k++)
                for (char **n = s->def->unit->dependencies[kinds[k]]; n && *n; n++) {
                        _cleanup_free_ char *reason = NULL;
                        if (!unit_install_name_is_socket(*n))
                                continue;
                        int r = cb && cb->start_socket ? cb->start_socket(*n, &reason, s->ctx->userdata) : -ESRCH;
                        if (r >= 0)
                                continue;
                        const char *why = r == -ESRCH ? "no such unit" : reason ?: strerror(-r);
                        if (kinds[k] == UNIT_WANTS) {
                                log_warning("%s: Wants=%s: %s, starting without it.", s->name, *n, why);
                                continue;
                        }
                        service_fail_dependency_name(s, *n, why);
                        job_done(s, /* success= */ false, s->last_error ? s->last_error : "a dependency failed");
                        return false;
                }
        return true;
}

/* After=NAME.socket: not while the socket unit's start goes on (its ExecStartPre=, the bind, its
 * ExecStartPost=). */
static bool sockets_started(Service *s) {
        const ServiceCallbacks *cb = s->ctx->callbacks;
        for (char **n = cb && cb->socket_state ? s->def->unit->dependencies[UNIT_AFTER] : NULL; n && *n; n++)
                if (unit_install_name_is_socket(*n) && cb->socket_state(*n, NULL, s->ctx->userdata) == 0)
                        return false;
        return true;
}

/* Requires= and After= a socket unit whose start ended failed: the start of s fails with its reason,
 * as with a required service (without After=, s starts with it, as in systemd). false then. */
static bool required_sockets_up(Service *s) {
        const ServiceCallbacks *cb = s->ctx->callbacks;
        for (char **n = cb && cb->socket_state ? s->def->unit->dependencies[UNIT_REQUIRES] : NULL; n && *n; n++) {
                _cleanup_free_ char *reason = NULL;
                if (!unit_install_name_is_socket(*n) || !strv_contains(s->def->unit->dependencies[UNIT_AFTER], *n))
                        continue;
                int r = cb->socket_state(*n, &reason, s->ctx->userdata);
                if (r >= 0)
                        continue;
                service_fail_dependency_name(s, *n, reason ?: r == -ESRCH ? "no such unit" : "it is not listening");
                job_done(s, /* success= */ false, s->last_error ? s->last_error : "a dependency failed");
                return false;
        }
        return true;
}

static bool start_may_run(Service *s) {
        for (size_t i = 0; i < s->deps.after.n; i++)
                if (start_in_progress(s->deps.after.items[i]))
                        return false;
        return sockets_started(s);
}

static bool stop_may_run(Service *s) {
        for (size_t i = 0; i < s->deps.before.n; i++) {
                Service *x = s->deps.before.items[i];
                if (x->job == SERVICE_JOB_STOP ||
                    (!x->want_running && IN_SET(x->state, SERVICE_STOPPING, SERVICE_KILLING, SERVICE_STOP_EXEC, SERVICE_STOP_POST)))
                        return false;
        }
        return true;
}

void deps_dispatch(ServiceContext *c) {
        bool changed = true;
        unsigned started = 0;

        /* A service's start or exit schedules this; with thousands of services, most of those find no
         * job waiting, and a walk of all of them for each would make a start of all quadratic. */
        if (!c->jobs_queued)
                return;
        /* Each round carries out at least one job, so this ends after n_services rounds at most. A job
         * queued meanwhile (queue_start(), queue_stop()) sets jobs_queued again. A batch that ends early
         * (DEPS_STARTS_PER_DISPATCH) leaves a cursor at the service it did not start; the next walk begins
         * there and wraps around, rather than going past the ones already started again, which would make
         * a start of thousands quadratic. */
        for (size_t round = 0; changed && round <= c->n_services; round++) {
                changed = false;
                c->jobs_queued = false;
                size_t first = c->jobs_cursor;
                for (size_t j = 0; j < c->n_services; j++) {
                        size_t i = (first + j) % c->n_services;
                        Service *s = c->services[i];

                        if (IN_SET(s->job, SERVICE_JOB_START, SERVICE_JOB_STOP))
                                c->jobs_queued = true; /* until it is carried out below */
                        if (s->job == SERVICE_JOB_START) {
                                if (IN_SET(s->state, SERVICE_STOPPING, SERVICE_KILLING, SERVICE_STOP_EXEC,
                                           SERVICE_STOP_POST))
                                        continue; /* finishes first, then starts again */
                                if (IN_SET(s->state, SERVICE_STARTING, SERVICE_START_PRE, SERVICE_START_POST) ||
                                    (s->state == SERVICE_RUNNING && !s->run.ready)) {
                                        s->job = SERVICE_JOB_STARTING; /* someone else spawned it */
                                        continue;
                                }
                                if (service_is_active(s)) {
                                        s->job = SERVICE_JOB_NONE;
                                        changed = true;
                                        continue;
                                }
                                Service *broken = NULL;
                                for (size_t k = 0; k < s->deps.requires.n && !broken; k++) {
                                        Service *r = s->deps.requires.items[k];
                                        if (!r->def->unit || (r->def->load_error && !service_is_active(r)))
                                                broken = r;
                                }
                                if (broken) {
                                        fail_dependency(s, broken,
                                                        broken->def->load_error ? broken->def->load_error : "not loaded");
                                        changed = true;
                                        continue;
                                }
                                if (!start_sockets(s) || !required_sockets_up(s)) {
                                        changed = true;
                                        continue;
                                }
                                if (!start_may_run(s)) {
                                        if (cycle_deadlocked(s)) {
                                                drop_start(s);
                                                changed = true;
                                        }
                                        continue;
                                }
                                if (started >= DEPS_STARTS_PER_DISPATCH) {
                                        /* The rest in the next batch, after the loop's other events. */
                                        c->jobs_cursor = i;
                                        c->jobs_queued = true;
                                        deps_schedule(c);
                                        return;
                                }
                                started++;
                                s->job = SERVICE_JOB_STARTING;
                                if (!service_start_now(s))
                                        job_done(s, /* success= */ false, "svd is shutting down");
                                changed = true;
                        } else if (s->job == SERVICE_JOB_STOP) {
                                if (!stop_may_run(s))
                                        continue;
                                s->job = SERVICE_JOB_NONE;
                                service_stop_now(s);
                                changed = true;
                        }
                }
        }
}

/* ---- the relations that order nothing (deps-unit.c links them) ---- */

/* Whether x is up or on its way up: what a stop passed on has to stop. */
static bool wants_or_runs(const Service *x) {
        return x->want_running || !service_is_settled(x);
}

static void relations_state_changed(Service *s, ServiceState old) {
        if (s->ctx->shutting_down || old == s->state || s->deps.propagating)
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
                (void) deps_stop(x, NULL, NULL);
        }
        for (size_t i = 0; s->state == SERVICE_FAILED && old != SERVICE_FAILED && i < s->deps.on_failure.n; i++) {
                Service *x = s->deps.on_failure.items[i];
                log_info("%s: failed, starting '%s' (OnFailure=).", s->name, x->name);
                (void) deps_start(x, NULL, NULL);
        }
        s->deps.propagating = false;
}

static void relations_stop(Service *s) {
        if (s->ctx->shutting_down || s->deps.propagating)
                return;
        s->deps.propagating = true;
        for (size_t i = 0; i < s->deps.consists_of.n; i++) {
                Service *x = s->deps.consists_of.items[i];
                if (!wants_or_runs(x) || x->deps.propagating)
                        continue;
                log_info("%s: stopping, as it is part of '%s' (PartOf=).", x->name, s->name);
                (void) deps_stop(x, NULL, NULL);
        }
        s->deps.propagating = false;
}

static void relations_restart(Service *s) {
        if (s->ctx->shutting_down || s->deps.propagating)
                return;
        s->deps.propagating = true;
        for (size_t i = 0; i < s->deps.consists_of.n; i++) {
                Service *x = s->deps.consists_of.items[i];
                /* systemd restarts only what runs: a restart job on an inactive unit is dropped. */
                if (x->deps.propagating || !(service_is_active(x) || x->state == SERVICE_STARTING))
                        continue;
                log_info("%s: restarting, as it is part of '%s' (PartOf=).", x->name, s->name);
                (void) deps_restart(x, NULL, NULL);
        }
        s->deps.propagating = false;
}

static bool requires(const Service *s, const Service *o) {
        for (size_t i = 0; i < s->deps.requires.n; i++)
                if (s->deps.requires.items[i] == o)
                        return true;
        return false;
}

static void conflicts_stop(Service *s) {
        /* What conflicts with s stops (both are never up together). */
        for (size_t i = 0; i < s->deps.conflicts.n; i++) {
                Service *o = s->deps.conflicts.items[i];
                if (!wants_or_runs(o) || requires(s, o) || o->deps.propagating)
                        continue;
                log_info("%s: stopping, as '%s' conflicts with it (Conflicts=).", o->name, s->name);
                (void) deps_stop(o, NULL, NULL);
        }
}

/* ---- the operations ---- */

int deps_start(Service *s, ServiceDoneFn done, void *userdata) {
        int r = service_want_start(s, done, userdata);
        if (r > 0)
                queue_start(s); /* deps_dispatch() calls service_start_now() when its turn comes */
        return r < 0 ? r : 0;
}

int deps_stop(Service *s, ServiceDoneFn done, void *userdata) {
        int r = service_want_stop(s, done, userdata);
        if (r < 0)
                return r;
        if (s->deps.queuing_stop)
                return 0; /* units that require each other: the stop of s below this call goes on */
        relations_stop(s); /* PartOf= */
        if (IN_SET(s->job, SERVICE_JOB_START, SERVICE_JOB_STARTING))
                job_done(s, /* success= */ false, "cancelled by a stop");
        s->deps.queuing_stop = true;
        bool wait = s->job == SERVICE_JOB_STOP || queue_stop(s);
        s->deps.queuing_stop = false;
        if (wait)
                return 0; /* deps_dispatch() calls service_stop_now() when the units before it are gone */
        service_stop_now(s);
        return 0;
}

int deps_restart(Service *s, ServiceDoneFn done, void *userdata) {
        if (service_refuse(s, done, userdata))
                return 0;
        relations_restart(s); /* PartOf= */
        int r = service_want_restart(s, done, userdata);
        if (r > 0)
                return deps_start(s, done, userdata);
        return r;
}

/* ---- what the state machine tells and asks ---- */

static void on_state_changed(Service *s, ServiceState old) {
        relations_state_changed(s, old); /* BindsTo=, OnFailure= */
        deps_schedule(s->ctx);
}

static void on_start_finished(Service *s, bool success, const char *reason) {
        job_done(s, success, reason);
}

static bool on_start_allowed(Service *s, const char **ret_dep, char **ret_reason) {
        if (deps_requisite_missing(s, ret_dep, ret_reason))
                return false;
        conflicts_stop(s);
        return true;
}

static const ServiceDepsHooks deps_hooks = {
        .state_changed = on_state_changed,
        .start_finished = on_start_finished,
        .start_allowed = on_start_allowed,
};

void deps_attach(ServiceContext *c) {
        c->deps = &deps_hooks;
}
