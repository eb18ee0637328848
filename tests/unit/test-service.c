/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* service.c without processes: refusals, the outcomes waiters are told, a
 * spawn that fails before clone3() (Type=notify without a notify socket),
 * Restart= with the start limit, stop and reset-failed, cancelled and
 * forgotten waiters, and what the context's callbacks hear. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macros.h"
#include "deps.h"
#include "service.h"
#include "service-private.h"
#include "check-run.h"

#define MAX_SEEN 32

typedef struct World {
        ServiceContext ctx;
        SpawnProbe probe;
        CgroupRoot cgroup;
        /* what the callbacks heard */
        ServiceState states[MAX_SEEN];
        size_t n_states;
        size_t n_settled;
} World;

typedef struct Outcome {
        size_t n;
        ServiceJobOutcome outcome;
        ServiceResult result;
        char message[256];
        char dependency[64];
} Outcome;

static void on_state_changed(Service *s, ServiceState previous, void *userdata) {
        World *w = userdata;
        if (previous != s->state && w->n_states < MAX_SEEN)
                w->states[w->n_states++] = s->state;
}

static void on_settled(Service *s, void *userdata) {
        World *w = userdata;
        w->n_settled++;
}

static const ServiceCallbacks callbacks = {
        .state_changed = on_state_changed,
        .settled = on_settled,
};

static void on_done(Service *s, const ServiceJobResult *r, void *userdata) {
        Outcome *o = userdata;
        o->n++;
        o->outcome = r->outcome;
        o->result = r->result;
        snprintf(o->message, sizeof(o->message), "%s", r->message ? r->message : "");
        snprintf(o->dependency, sizeof(o->dependency), "%s", r->dependency ? r->dependency : "");
}

static void world_init(World *w) {
        *w = (World){ .cgroup = { .services_fd = -EBADF, .guard_fd = -EBADF } };
        ck_assert_int_ge(sd_event_new(&w->ctx.event), 0);
        deps_attach(&w->ctx);
        w->ctx.probe = &w->probe;
        w->ctx.cgroup = &w->cgroup;
        w->ctx.notify_path = "/nonexistent/svd.notify";
        w->ctx.notify_ready = false; /* Type=notify cannot start: the spawn fails before clone3() */
        w->ctx.nofile = (struct rlimit){ 1024, 1024 };
        w->ctx.callbacks = &callbacks;
        w->ctx.userdata = w;
}

static void world_done(World *w) {
        service_context_done(&w->ctx);
        w->ctx.event = sd_event_unref(w->ctx.event);
}

static Service *add(World *w, const char *name, const char *text) {
        Unit *u = NULL;
        char *error = NULL, path[128];
        Service *s = NULL;

        snprintf(path, sizeof(path), "/test/%s.service", name);
        if (text)
                ck_assert_int_eq(unit_load_string(text, strlen(text), path, name, NULL, NULL, NULL, &u, &error), 0);
        UnitDefinition *def = NULL;
        ck_assert_int_eq(unit_definition_new(path, u, text ? NULL : "/test: broken", w->ctx.uid, &def), 0);
        ck_assert_int_eq(service_new(&w->ctx, name, def, &s), 0);
        free(error);
        ck_assert_int_eq(service_context_add(&w->ctx, s), 0);
        service_context_sort(&w->ctx);
        return s;
}

#define NOTIFY_UNIT(extra) "[Service]\nType=notify\nExecStart=/bin/true\n" extra

START_TEST(test_not_loaded) {
        World w;
        Outcome o = {};
        world_init(&w);
        Service *s = add(&w, "broken", NULL);

        ck_assert_int_eq(deps_start(s, on_done, &o), 0);
        ck_assert_uint_eq(o.n, 1);
        ck_assert_int_eq(o.outcome, SERVICE_OUTCOME_NOT_LOADED);
        ck_assert_str_eq(o.message, "/test: broken");
        ck_assert_int_eq(s->state, SERVICE_INACTIVE);
        ck_assert_ptr_null(s->waiters);
        world_done(&w);
}
END_TEST

START_TEST(test_shutting_down) {
        World w;
        Outcome o = {};
        world_init(&w);
        Service *s = add(&w, "web", NOTIFY_UNIT(""));
        w.ctx.shutting_down = true;

        ck_assert_int_eq(deps_restart(s, on_done, &o), 0);
        ck_assert_uint_eq(o.n, 1);
        ck_assert_int_eq(o.outcome, SERVICE_OUTCOME_SHUTTING_DOWN);
        ck_assert_int_eq(s->state, SERVICE_INACTIVE);
        world_done(&w);
}
END_TEST

START_TEST(test_spawn_failure) {
        World w;
        Outcome o = {};
        world_init(&w);
        Service *s = add(&w, "web", NOTIFY_UNIT(""));

        /* Queued as a job: nothing happens until the jobs run. */
        ck_assert_int_eq(deps_start(s, on_done, &o), 0);
        ck_assert_uint_eq(o.n, 0);
        ck_assert_int_eq(s->job, SERVICE_JOB_START);
        ck_assert(s->want_running);
        deps_dispatch(&w.ctx);

        ck_assert_uint_eq(o.n, 1);
        ck_assert_int_eq(o.outcome, SERVICE_OUTCOME_SPAWN_FAILED);
        ck_assert_ptr_nonnull(strstr(o.message, "Failed to spawn '/bin/true'"));
        ck_assert_int_eq(s->state, SERVICE_FAILED);
        ck_assert_int_eq(s->result, SERVICE_FAILURE_RESOURCES);
        ck_assert_int_eq(s->job, SERVICE_JOB_NONE);
        ck_assert(!s->want_running);
        ck_assert(!process_is_set(&s->run.main));
        ck_assert_uint_eq(w.n_states, 1);
        ck_assert_int_eq(w.states[0], SERVICE_FAILED);
        ck_assert_uint_eq(w.n_settled, 1);

        /* reset-failed: failed → inactive, the failure forgotten. */
        ck_assert(service_reset_failed(s));
        ck_assert_int_eq(s->state, SERVICE_INACTIVE);
        ck_assert_int_eq(s->result, SERVICE_SUCCESS);
        ck_assert_ptr_null(s->last_error);
        ck_assert(!service_reset_failed(s));
        world_done(&w);
}
END_TEST

START_TEST(test_restart_and_start_limit) {
        World w;
        Outcome o = {};
        world_init(&w);
        Service *s = add(&w, "flap", NOTIFY_UNIT("Restart=always\nRestartSec=1h\n[Unit]\nStartLimitBurst=2\n"));

        ck_assert_int_eq(deps_start(s, on_done, &o), 0);
        deps_dispatch(&w.ctx);
        /* The failed start is answered; Restart=always schedules the next one. */
        ck_assert_uint_eq(o.n, 1);
        ck_assert_int_eq(o.outcome, SERVICE_OUTCOME_SPAWN_FAILED);
        ck_assert_int_eq(s->state, SERVICE_AUTO_RESTART);
        ck_assert_ptr_nonnull(s->timer_source);
        ck_assert(s->timer_cb == service_on_restart_timer);
        ck_assert_uint_eq(s->start_limit_count, 1); /* the start by hand counts */

        /* The restart timer: one more start fits (burst 2), it fails again. */
        ck_assert_int_eq(service_on_restart_timer(s->timer_source, 0, s), 0);
        ck_assert_uint_eq(s->restarts, 1);
        ck_assert_int_eq(s->state, SERVICE_AUTO_RESTART);
        ck_assert_uint_eq(s->start_limit_count, 2);

        /* The third does not: failed, start-limit-hit. */
        ck_assert_int_eq(service_on_restart_timer(s->timer_source, 0, s), 0);
        ck_assert_int_eq(s->state, SERVICE_FAILED);
        ck_assert_int_eq(s->result, SERVICE_FAILURE_START_LIMIT_HIT);
        ck_assert_ptr_nonnull(strstr(s->last_error, "start limit hit"));
        ck_assert(!s->want_running);
        ck_assert_ptr_null(s->timer_source);

        ck_assert(service_reset_failed(s));
        ck_assert_uint_eq(s->start_limit_count, 0);
        ck_assert_uint_eq(s->restarts, 0);
        world_done(&w);
}
END_TEST

START_TEST(test_stop_during_auto_restart) {
        World w;
        Outcome start = {}, stop = {};
        world_init(&w);
        Service *s = add(&w, "flap", NOTIFY_UNIT("Restart=on-failure\nRestartSec=1h\n"));

        ck_assert_int_eq(deps_start(s, on_done, &start), 0);
        deps_dispatch(&w.ctx);
        ck_assert_int_eq(s->state, SERVICE_AUTO_RESTART);

        ck_assert_int_eq(deps_stop(s, on_done, &stop), 0);
        ck_assert_uint_eq(stop.n, 1);
        ck_assert_int_eq(stop.outcome, SERVICE_OUTCOME_DONE);
        ck_assert_int_eq(s->state, SERVICE_INACTIVE);
        ck_assert_ptr_null(s->timer_source);
        ck_assert(!s->want_running);

        /* Stopping what is stopped is done at once. */
        memset(&stop, 0, sizeof(stop));
        ck_assert_int_eq(deps_stop(s, on_done, &stop), 0);
        ck_assert_uint_eq(stop.n, 1);
        ck_assert_int_eq(stop.outcome, SERVICE_OUTCOME_DONE);
        world_done(&w);
}
END_TEST

START_TEST(test_cancel_and_forget) {
        World w;
        Outcome start = {}, stop = {}, forgotten = {};
        world_init(&w);
        Service *s = add(&w, "web", NOTIFY_UNIT(""));

        /* A stop replaces a queued start: the start's waiter is told so. */
        ck_assert_int_eq(deps_start(s, on_done, &start), 0);
        ck_assert_int_eq(deps_stop(s, on_done, &stop), 0);
        ck_assert_uint_eq(start.n, 1);
        ck_assert_int_eq(start.outcome, SERVICE_OUTCOME_CANCELLED);
        ck_assert_uint_eq(stop.n, 1);
        ck_assert_int_eq(stop.outcome, SERVICE_OUTCOME_DONE);
        ck_assert_int_eq(s->job, SERVICE_JOB_NONE);

        /* A client that went away is never called. */
        ck_assert_int_eq(deps_start(s, on_done, &forgotten), 0);
        ck_assert_ptr_nonnull(s->waiters);
        service_forget_waiters(s, &forgotten);
        ck_assert_ptr_null(s->waiters);
        deps_dispatch(&w.ctx);
        ck_assert_uint_eq(forgotten.n, 0);
        ck_assert_int_eq(s->state, SERVICE_FAILED);

        /* Waiters still queued when the service goes away are cancelled. */
        memset(&start, 0, sizeof(start));
        ck_assert(service_reset_failed(s));
        ck_assert_int_eq(deps_start(s, on_done, &start), 0);
        service_context_remove(&w.ctx, 0);
        ck_assert_uint_eq(start.n, 1);
        ck_assert_int_eq(start.outcome, SERVICE_OUTCOME_CANCELLED);
        world_done(&w);
}
END_TEST

START_TEST(test_table_and_definitions) {
        World w;
        world_init(&w);
        Service *b = add(&w, "b", NOTIFY_UNIT(""));
        Service *a = add(&w, "a", NOTIFY_UNIT("[Install]\nWantedBy=default.target\n"));

        ck_assert_ptr_eq(service_find(&w.ctx, "a"), a);
        ck_assert_ptr_eq(service_find(&w.ctx, "b.service"), b);
        ck_assert_ptr_null(service_find(&w.ctx, "c"));
        ck_assert_ptr_eq(w.ctx.services[0], a);

        /* WantedBy= and the operator's override. */
        ck_assert(service_wanted_at_startup(a, /* restored= */ false));
        ck_assert_uint_eq(a->restored_usec, 0);
        ck_assert(!service_wanted_at_startup(b, false));
        ck_assert(service_set_wanted(b, WANTED_START));
        ck_assert(!service_set_wanted(b, WANTED_START));
        ck_assert(service_wanted_at_startup(b, /* restored= */ true));
        ck_assert_uint_gt(b->restored_usec, 0);
        ck_assert(service_set_wanted(a, WANTED_STOP));
        ck_assert(!service_wanted_at_startup(a, false));

        /* A settled service takes a new definition at once ... */
        ck_assert(service_may_change(b));
        UnitDefinition *def = NULL;
        ck_assert_int_eq(unit_definition_new("/test/b.service", NULL, "/test/b.service:3: bad", w.ctx.uid, &def), 0);
        uint64_t bad_hash = def->hash;
        service_set_definition(b, def);
        ck_assert_ptr_null(b->def->unit);
        ck_assert_str_eq(b->def->load_error, "/test/b.service:3: bad");
        ck_assert_uint_eq(service_unit_hash(b), bad_hash);

        /* ... and a pending one when it may change. */
        Unit *u = NULL;
        const char *text = NOTIFY_UNIT("");
        ck_assert_int_eq(unit_load_string(text, strlen(text), "/test/b.service", "b", NULL, NULL, NULL, &u, NULL), 0);
        ck_assert_int_eq(unit_definition_new("/test/b.service", u, NULL, w.ctx.uid, &def), 0);
        uint64_t good_hash = def->hash;
        ck_assert_uint_ne(good_hash, bad_hash);
        service_set_next_definition(b, def);
        ck_assert_ptr_nonnull(b->next);
        ck_assert_uint_eq(service_unit_hash(b), good_hash);
        w.ctx.shutting_down = true;
        ck_assert(!service_apply_next_unit(b));
        w.ctx.shutting_down = false;
        ck_assert(service_apply_next_unit(b));
        ck_assert_ptr_null(b->next);
        ck_assert_ptr_nonnull(b->def->unit);
        ck_assert_ptr_null(b->def->load_error);
        ck_assert_uint_eq(service_unit_hash(b), good_hash);
        world_done(&w);
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("service");
        TCase *tc = tcase_create("outcomes");
        tcase_add_test(tc, test_not_loaded);
        tcase_add_test(tc, test_shutting_down);
        tcase_add_test(tc, test_spawn_failure);
        tcase_add_test(tc, test_cancel_and_forget);
        suite_add_tcase(s, tc);

        tc = tcase_create("policy");
        tcase_add_test(tc, test_restart_and_start_limit);
        tcase_add_test(tc, test_stop_during_auto_restart);
        suite_add_tcase(s, tc);

        tc = tcase_create("definitions");
        tcase_add_test(tc, test_table_and_definitions);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(suite());
}
