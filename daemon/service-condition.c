/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Condition*= and Assert*= at each start (systemd.unit(5)): a condition not met skips the start
 * and leaves the service inactive, which is no failure; an assertion not met fails the start.
 * Neither is a failed state of the service. */
#include <stdio.h>
#include <stdlib.h>

#include "basic/time-util.h"
#include "svd-log.h"
#include "service-private.h"

/* The start ends here: nothing runs, the service is inactive (a restart or automatic restart
 * came from another state), and the start's waiters are answered with result. */
static void service_start_ends(Service *s, const ServiceJobResult *result, bool success) {
        service_unset_timer(s);
        s->want_running = false;
        if (s->state != SERVICE_INACTIVE)
                service_set_state(s, SERVICE_INACTIVE);
        service_answer_start_waiters(s, result);
        if (IN_SET(s->job, SERVICE_JOB_START, SERVICE_JOB_STARTING))
                deps_job_done(s, success, result->message);
}

static void replace_string(char **field, char *s) {
        free(*field);
        *field = s;
}

void service_refuse_start_dependency(Service *s, const char *dep, const char *reason) {
        log_error("%s: Failed to start: %s", s->name, reason);
        service_set_last_error(s, strdup(reason));
        service_start_ends(s,
                           &(ServiceJobResult){ .outcome = SERVICE_OUTCOME_DEPENDENCY_FAILED,
                                                .message = reason,
                                                .dependency = dep },
                           /* success= */ false);
}

bool service_conditions_allow_start(Service *s) {
        const UnitConditions *l = &s->unit->conditions;
        char *failed = NULL;
        int r;

        assert(s->unit);

        /* Requisite= and Conflicts= (deps-unit.c) come first, as systemd's transaction does. */
        if (deps_relations_refuse_start(s))
                return false;

        /* Conditions first, then assertions, as systemd; a skipped start checks no assertion. */
        s->condition_usec = now_usec(CLOCK_REALTIME);
        replace_string(&s->condition_failed, NULL);
        r = unit_conditions_test(l, /* asserts= */ false, &failed);
        if (r != 0) {
                s->assert_usec = s->condition_usec;
                replace_string(&s->assert_failed, NULL);
        }
        if (r == 0) {
                log_info("%s: Start condition not met: %s, skipping the start.", s->name, failed);
                s->condition_failed = failed;
                service_start_ends(s, &(ServiceJobResult){ .outcome = SERVICE_OUTCOME_DONE }, /* success= */ true);
                return false;
        }
        r = r < 0 ? r : unit_conditions_test(l, /* asserts= */ true, &failed);
        if (r == 0) {
                _cleanup_free_ char *msg = NULL;
                log_error("%s: Failed to start: assertion not met: %s", s->name, failed);
                s->assert_failed = failed;
                if (asprintf(&msg, "assertion not met: %s", failed) < 0)
                        msg = NULL;
                service_start_ends(s,
                                   &(ServiceJobResult){ .outcome = SERVICE_OUTCOME_ASSERT_FAILED,
                                                        .message = msg ?: "assertion not met" },
                                   /* success= */ false);
                return false;
        }
        if (r < 0)
                log_warning_errno(r, "%s: Failed to check conditions, starting anyway: %m", s->name);
        return true;
}
