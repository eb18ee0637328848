/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Type=idle (systemd.service(5)): a simple service whose command starts only once every other
 * start or stop that is under way has been dispatched, so that its output does not interleave
 * with theirs (a getty on the console), and at the latest after SERVICE_IDLE_MAX_USEC, as in
 * systemd. The wait is a post source of the loop (it runs after each round of events, only while
 * some idle service waits) and a timer for the bound.
 */
#include "service-private.h"
#include "svd-log.h"

/* Whether another service has a start or stop under way (an idle one waiting does not count). */
static bool jobs_pending(Service *s) {
        ServiceContext *c = s->ctx;
        for (size_t i = 0; i < c->n_services; i++) {
                Service *o = c->services[i];
                if (o != s && !o->idle_source && o->job != SERVICE_JOB_NONE)
                        return true;
        }
        return false;
}

static void idle_go(Service *s) {
        service_idle_cancel(s);
        if (s->state == SERVICE_INACTIVE || s->state == SERVICE_FAILED)
                (void) service_spawn(s);
}

static int on_idle_post(sd_event_source *source, void *userdata) {
        Service *s = userdata;
        if (!jobs_pending(s))
                idle_go(s);
        return 0;
}

int service_on_idle_timeout(sd_event_source *source, uint64_t usec, void *userdata) {
        Service *s = userdata;
        log_debug("%s: other jobs still run after %s, starting anyway (Type=idle).", s->name, "5s");
        idle_go(s);
        return 0;
}

bool service_idle_wait(Service *s) {
        if (s->unit->type != SERVICE_TYPE_IDLE || s->idle_source || !jobs_pending(s))
                return false;
        int r = sd_event_add_post(s->ctx->event, &s->idle_source, on_idle_post, s);
        if (r >= 0)
                r = service_arm_timer(s, SERVICE_IDLE_MAX_USEC, service_on_idle_timeout);
        if (r < 0) {
                log_warning_errno(r, "%s: Failed to wait for other jobs, starting now: %m", s->name);
                service_idle_cancel(s);
                return false;
        }
        log_debug("%s: waiting for other jobs to be dispatched (Type=idle).", s->name);
        return true;
}

void service_idle_cancel(Service *s) {
        if (!s->idle_source && s->timer_cb != service_on_idle_timeout)
                return;
        s->idle_source = sd_event_source_disable_unref(s->idle_source);
        if (s->timer_cb == service_on_idle_timeout)
                service_unset_timer(s);
}
