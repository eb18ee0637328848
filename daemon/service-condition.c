/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Condition*= and Assert*= at each start (systemd.unit(5)): a condition not met skips the start
 * and leaves the service inactive, which is no failure; an assertion not met fails the start.
 * Neither is a failed state of the service. The verdict only: the state machine (service.c)
 * ends the start. */
#include <stdlib.h>

#include "basic/time-util.h"
#include "service-condition.h"

static void replace_string(char **field, char *s) {
        free(*field);
        *field = s;
}

ServiceConditions service_conditions_test(Service *s, int *ret_error) {
        const UnitConditions *l = &s->def->unit->conditions;
        char *failed = NULL;
        int r;

        assert(s->def->unit);

        *ret_error = 0;
        /* Conditions first, then assertions, as systemd; a skipped start checks no assertion. */
        s->condition_usec = now_usec(CLOCK_REALTIME);
        replace_string(&s->condition_failed, NULL);
        r = unit_conditions_test(l, /* asserts= */ false, &failed);
        if (r != 0) {
                s->assert_usec = s->condition_usec;
                replace_string(&s->assert_failed, NULL);
        }
        if (r == 0) {
                s->condition_failed = failed;
                return SERVICE_CONDITIONS_SKIP;
        }
        r = r < 0 ? r : unit_conditions_test(l, /* asserts= */ true, &failed);
        if (r == 0) {
                s->assert_failed = failed;
                return SERVICE_CONDITIONS_ASSERT_FAILED;
        }
        *ret_error = r < 0 ? r : 0;
        return SERVICE_CONDITIONS_PASS;
}
