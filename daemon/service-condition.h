/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Condition*= and Assert*= at a start (service-condition.c).
 */

#include "service-def.h"

typedef enum ServiceConditions {
        SERVICE_CONDITIONS_PASS,          /* go on */
        SERVICE_CONDITIONS_SKIP,          /* a condition is not met (s->condition_failed says which) */
        SERVICE_CONDITIONS_ASSERT_FAILED, /* an assertion is not met (s->assert_failed says which) */
} ServiceConditions;

/* Before a spawn: checks Condition*= and Assert*= of the unit in force and records when and what
 * failed in s. A check that could not be made passes, with its error in *ret_error. */
ServiceConditions service_conditions_test(Service *s, int *ret_error);
