/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The verdicts of Restart=, RestartSec=, RestartSteps= and the start limit (service-restart.c).
 */

#include "service-def.h"

/* Whether Restart= restarts after an end with result. */
bool service_should_restart(Service *s, ServiceResult result);
/* StartLimitIntervalSec=/StartLimitBurst=: whether one more automatic start
 * fits into the window (counts it when it does). */
bool service_start_limit_test(Service *s);
/* A start by hand opens a new window and counts in it. */
void service_start_limit_reset(Service *s, bool counting);
/* Why the start limit refused a start, for the log and status (malloc'd; NULL without memory). */
char *service_start_limit_message(const Service *s);
/* How long the next restart waits (RestartSec=, with RestartSteps= back-off). */
uint64_t service_restart_delay(const Service *s);

/* Whether a failed start failed for want of svd's own resources (EMFILE, ENFILE, EAGAIN, ENOMEM):
 * then the restart waits SERVICE_EXHAUSTED_DELAY_USEC at least, doubled for each such failure in a
 * row (s->exhausted) up to 64 times that. */
#define SERVICE_EXHAUSTED_DELAY_USEC (100 * USEC_PER_MSEC)
bool service_error_is_exhaustion(int r);
