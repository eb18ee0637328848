/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* deps.c without processes: resolving Requires=/Wants=/After=/Before= into
 * the graph, the load errors of missing requirements, cycles and overlong
 * chains, and jobs: a start queues what it requires, a required unit that
 * fails (here: Type=notify without a notify socket, which fails before
 * clone3()) fails the units that require it, a stop stops what requires it. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macros.h"
#include "deps.h"
#include "check-run.h"

typedef struct World {
        ServiceContext ctx;
        SpawnProbe probe;
        CgroupRoot cgroup;
} World;

typedef struct Outcome {
        size_t n;
        ServiceJobOutcome outcome;
        char dependency[64];
        char message[512];
} Outcome;

static void on_done(Service *s, const ServiceJobResult *r, void *userdata) {
        Outcome *o = userdata;
        o->n++;
        o->outcome = r->outcome;
        snprintf(o->dependency, sizeof(o->dependency), "%s", r->dependency ? r->dependency : "");
        snprintf(o->message, sizeof(o->message), "%s", r->message ? r->message : "");
}

static void world_init(World *w) {
        *w = (World){ .cgroup = { .services_fd = -EBADF, .guard_fd = -EBADF } };
        ck_assert_int_ge(sd_event_new(&w->ctx.event), 0);
        deps_attach(&w->ctx);
        w->ctx.probe = &w->probe;
        w->ctx.cgroup = &w->cgroup;
        w->ctx.notify_ready = false;
        w->ctx.nofile = (struct rlimit){ 1024, 1024 };
}

static void world_done(World *w) {
        service_context_done(&w->ctx);
        w->ctx.event = sd_event_unref(w->ctx.event);
}

/* A Type=notify unit with the given [Unit] lines. */
static Service *add(World *w, const char *name, const char *unit_lines) {
        char text[4096], path[128];
        Unit *u = NULL;
        Service *s = NULL;

        snprintf(text, sizeof(text), "[Unit]\n%s\n[Service]\nType=notify\nExecStart=/bin/true\n", unit_lines);
        snprintf(path, sizeof(path), "/test/%s.service", name);
        ck_assert_int_eq(unit_load_string(text, strlen(text), path, name, NULL, NULL, NULL, &u, NULL), 0);
        UnitDefinition *def = NULL;
        ck_assert_int_eq(unit_definition_new(path, u, NULL, w->ctx.uid, &def), 0);
        ck_assert_int_eq(service_new(&w->ctx, name, def, &s), 0);
        ck_assert_int_eq(service_context_add(&w->ctx, s), 0);
        return s;
}

static bool set_has(const ServiceSet *set, const Service *s) {
        for (size_t i = 0; i < set->n; i++)
                if (set->items[i] == s)
                        return true;
        return false;
}

START_TEST(test_resolve_edges) {
        World w;
        world_init(&w);
        Service *a = add(&w, "a", "Requires=b\nWants=c\nAfter=d");
        Service *b = add(&w, "b", "");
        Service *c = add(&w, "c", "Before=d");
        Service *d = add(&w, "d", "Wants=nowhere");
        service_context_sort(&w.ctx);
        ck_assert_int_eq(deps_resolve(&w.ctx), 0);

        ck_assert(set_has(&a->deps.requires, b));
        ck_assert(set_has(&b->deps.required_by, a));
        ck_assert(set_has(&a->deps.wants, c));
        /* Only After= and Before= order, as in systemd; Before= is After= seen from the other side. */
        ck_assert(!set_has(&a->deps.after, b));
        ck_assert(!set_has(&a->deps.after, c));
        ck_assert(set_has(&a->deps.after, d));
        ck_assert(set_has(&d->deps.after, c));
        ck_assert(set_has(&c->deps.before, d));
        ck_assert(!set_has(&b->deps.before, a));
        /* A Wants= naming no unit is only a warning. */
        ck_assert_ptr_null(d->def->load_error);
        ck_assert_ptr_nonnull(d->def->unit);
        world_done(&w);
}
END_TEST

START_TEST(test_missing_requirement) {
        World w;
        world_init(&w);
        Service *a = add(&w, "a", "Requires=gone");
        Service *b = add(&w, "b", "Requires=a");
        service_context_sort(&w.ctx);
        ck_assert_int_eq(deps_resolve(&w.ctx), 0);

        ck_assert_ptr_null(a->def->unit);
        ck_assert_ptr_nonnull(strstr(a->def->load_error, "Requires=gone: no such unit 'gone.service'"));
        /* b keeps its unit; starting it fails, naming a. */
        ck_assert_ptr_nonnull(b->def->unit);
        Outcome o = {};
        ck_assert_int_eq(deps_start(b, on_done, &o), 0);
        deps_dispatch(&w.ctx);
        ck_assert_uint_eq(o.n, 1);
        ck_assert_int_eq(o.outcome, SERVICE_OUTCOME_DEPENDENCY_FAILED);
        ck_assert_str_eq(o.dependency, "a");
        ck_assert_int_eq(b->job, SERVICE_JOB_NONE);
        world_done(&w);
}
END_TEST

START_TEST(test_cycle) {
        World w;
        world_init(&w);
        Service *a = add(&w, "a", "After=b");
        Service *b = add(&w, "b", "After=c");
        Service *c = add(&w, "c", "After=a");
        Service *d = add(&w, "d", "After=a");
        service_context_sort(&w.ctx);
        ck_assert_int_eq(deps_resolve(&w.ctx), 0);

        /* An ordering cycle is no load error: it is recorded on the unit whose start breaks it. */
        Service *all[] = { a, b, c, d };
        for (size_t i = 0; i < 4; i++) {
                ck_assert_ptr_null(all[i]->def->load_error);
                ck_assert_ptr_nonnull(all[i]->def->unit);
        }
        ck_assert_str_eq(a->deps.cycle_chain, "a → b → c → a");
        ck_assert_uint_eq(a->deps.cycle.n, 2);
        ck_assert_ptr_eq(a->deps.cycle.items[0], b);
        ck_assert_ptr_eq(a->deps.cycle.items[1], c);
        ck_assert_ptr_null(b->deps.cycle_chain);
        ck_assert(set_has(&d->deps.after, a));

        /* Started alone, a unit of the cycle starts. */
        Outcome o = {};
        ck_assert_int_eq(deps_start(d, on_done, &o), 0);
        deps_dispatch(&w.ctx);
        ck_assert_int_ne(d->job, SERVICE_JOB_START);

        /* Started together, they would wait for each other for ever: one start is dropped (a, on
         * which nothing else waits), and the others go on. */
        Outcome oa = {}, ob = {}, oc = {};
        ck_assert_int_eq(deps_start(a, on_done, &oa), 0);
        ck_assert_int_eq(deps_start(b, on_done, &ob), 0);
        ck_assert_int_eq(deps_start(c, on_done, &oc), 0);
        deps_dispatch(&w.ctx);
        ck_assert_uint_eq(oa.n, 1);
        ck_assert_int_eq(oa.outcome, SERVICE_OUTCOME_CANCELLED);
        ck_assert_ptr_nonnull(strstr(oa.message, "start dropped to break the ordering cycle a → b → c → a"));
        ck_assert_int_eq(a->job, SERVICE_JOB_NONE);
        ck_assert_int_ne(c->job, SERVICE_JOB_START);
        world_done(&w);
}
END_TEST

START_TEST(test_chain_too_long) {
        World w;
        char name[16], after[32];
        world_init(&w);
        for (unsigned i = 0; i <= DEPS_DEPTH_MAX; i++) {
                snprintf(name, sizeof(name), "u%04u", i);
                if (i > 0)
                        snprintf(after, sizeof(after), "After=u%04u", i - 1);
                else
                        after[0] = 0;
                add(&w, name, after);
        }
        service_context_sort(&w.ctx);
        ck_assert_int_eq(deps_resolve(&w.ctx), 0);

        snprintf(name, sizeof(name), "u%04u", DEPS_DEPTH_MAX - 1);
        ck_assert_ptr_null(service_find(&w.ctx, name)->def->load_error);
        snprintf(name, sizeof(name), "u%04u", DEPS_DEPTH_MAX);
        Service *last = service_find(&w.ctx, name);
        ck_assert_ptr_nonnull(strstr(last->def->load_error, "Dependency chain of"));
        world_done(&w);
}
END_TEST

START_TEST(test_required_start_fails) {
        World w;
        world_init(&w);
        Service *top = add(&w, "top", "Requires=mid\nAfter=mid");
        Service *mid = add(&w, "mid", "Requires=base\nAfter=base");
        Service *base = add(&w, "base", "");
        Service *other = add(&w, "other", "Wants=base\nAfter=base");
        service_context_sort(&w.ctx);
        ck_assert_int_eq(deps_resolve(&w.ctx), 0);

        Outcome o = {}, other_o = {};
        ck_assert_int_eq(deps_start(top, on_done, &o), 0);
        ck_assert_int_eq(deps_start(other, on_done, &other_o), 0);
        /* What top requires is queued with it, transitively. */
        ck_assert_int_eq(top->job, SERVICE_JOB_START);
        ck_assert_int_eq(mid->job, SERVICE_JOB_START);
        ck_assert_int_eq(base->job, SERVICE_JOB_START);
        ck_assert(mid->want_running);

        deps_dispatch(&w.ctx);
        /* base runs first and fails; mid and then top fail with it. */
        ck_assert_int_eq(base->state, SERVICE_FAILED);
        ck_assert_int_eq(mid->state, SERVICE_INACTIVE);
        ck_assert_ptr_nonnull(strstr(mid->last_error, "dependency 'base' failed to start"));
        ck_assert_uint_eq(o.n, 1);
        ck_assert_int_eq(o.outcome, SERVICE_OUTCOME_DEPENDENCY_FAILED);
        ck_assert_str_eq(o.dependency, "mid");
        ck_assert_int_eq(top->job, SERVICE_JOB_NONE);
        ck_assert_int_eq(mid->job, SERVICE_JOB_NONE);
        /* Wants= does not fail other: it runs after base is done, and fails on its own. */
        ck_assert_uint_eq(other_o.n, 1);
        ck_assert_int_eq(other_o.outcome, SERVICE_OUTCOME_SPAWN_FAILED);
        world_done(&w);
}
END_TEST

START_TEST(test_stop_queued_start) {
        World w;
        world_init(&w);
        Service *top = add(&w, "top", "Requires=base");
        Service *base = add(&w, "base", "");
        service_context_sort(&w.ctx);
        ck_assert_int_eq(deps_resolve(&w.ctx), 0);

        Outcome start = {}, stop = {};
        ck_assert_int_eq(deps_start(top, on_done, &start), 0);
        /* A stop of base cancels base's queued start, which fails top's. */
        ck_assert_int_eq(deps_stop(base, on_done, &stop), 0);
        ck_assert_uint_eq(stop.n, 1);
        ck_assert_int_eq(stop.outcome, SERVICE_OUTCOME_DONE);
        ck_assert_uint_eq(start.n, 1);
        ck_assert_int_eq(start.outcome, SERVICE_OUTCOME_DEPENDENCY_FAILED);
        ck_assert_str_eq(start.dependency, "base");
        ck_assert_ptr_nonnull(strstr(start.message, "cancelled by a stop"));
        ck_assert(!top->want_running);
        ck_assert_int_eq(top->job, SERVICE_JOB_NONE);
        ck_assert_int_eq(base->job, SERVICE_JOB_NONE);
        world_done(&w);
}
END_TEST

/* Starts of more services than one dispatch carries out (DEPS_STARTS_PER_DISPATCH): each dispatch
 * starts one batch, the next goes on from where the last stopped, and a unit passed over because
 * of its order (u000, After= the last unit) starts once the walk has wrapped around to it. */
typedef struct Seq {
        size_t *next;
        size_t at;
        size_t n;
} Seq;

static void on_seq_done(Service *s, const ServiceJobResult *r, void *userdata) {
        Seq *q = userdata;
        q->n++;
        q->at = (*q->next)++;
}

START_TEST(test_dispatch_batches) {
        enum { N = 2 * DEPS_STARTS_PER_DISPATCH + 44 };
        World w;
        Service *s[N];
        Seq seq[N] = {};
        size_t next = 0;
        char name[16], lines[64];

        world_init(&w);
        snprintf(lines, sizeof(lines), "After=u%03d", N - 1);
        for (int i = 0; i < N; i++) {
                snprintf(name, sizeof(name), "u%03d", i);
                s[i] = add(&w, name, i == 0 ? lines : "");
        }
        service_context_sort(&w.ctx);
        ck_assert_int_eq(deps_resolve(&w.ctx), 0);
        for (int i = 0; i < N; i++) {
                seq[i].next = &next;
                ck_assert_int_eq(deps_start(s[i], on_seq_done, &seq[i]), 0);
        }

        deps_dispatch(&w.ctx);
        ck_assert_uint_eq(next, DEPS_STARTS_PER_DISPATCH);
        ck_assert_uint_eq(seq[0].n, 0); /* waits for u(N-1) */
        for (int i = 1; i <= (int) DEPS_STARTS_PER_DISPATCH; i++)
                ck_assert_uint_eq(seq[i].at, (size_t) i - 1);
        deps_dispatch(&w.ctx);
        ck_assert_uint_eq(next, 2 * DEPS_STARTS_PER_DISPATCH);
        deps_dispatch(&w.ctx);
        /* The last batch, u000 with it after the walk wrapped around. */
        ck_assert_uint_eq(next, N);
        for (int i = 0; i < N; i++) {
                ck_assert_uint_eq(seq[i].n, 1);
                ck_assert_int_eq(s[i]->job, SERVICE_JOB_NONE);
        }
        ck_assert_uint_gt(seq[0].at, seq[N - 1].at);
        world_done(&w);
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("deps");
        TCase *tc = tcase_create("resolve");
        tcase_add_test(tc, test_resolve_edges);
        tcase_add_test(tc, test_missing_requirement);
        tcase_add_test(tc, test_cycle);
        tcase_add_test(tc, test_chain_too_long);
        suite_add_tcase(s, tc);

        tc = tcase_create("jobs");
        tcase_add_test(tc, test_required_start_fails);
        tcase_add_test(tc, test_stop_queued_start);
        tcase_add_test(tc, test_dispatch_batches);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(suite());
}
