/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Type=idle (systemd.service(5)): a simple service whose command starts only once every other
 * start or stop that is under way has been dispatched, so that its output does not interleave
 * with theirs (a getty on the console), and at the latest after SERVICE_IDLE_MAX_USEC, as in
 * systemd. This file says whether such jobs are under way; the state machine (service.c) waits
 * with a post source of the loop (it runs after each round of events, only while some idle
 * service waits) and a timer for the bound.
 */
#include "service-idle.h"

bool service_idle_jobs_pending(const Service *s) {
        const ServiceContext *c = s->ctx;
        for (size_t i = 0; i < c->n_services; i++) {
                const Service *o = c->services[i];
                /* An idle one waiting does not count. */
                if (o != s && !o->idle_source && o->job != SERVICE_JOB_NONE)
                        return true;
        }
        return false;
}
