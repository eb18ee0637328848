/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Type=idle (service-idle.c).
 */

#include "basic/time-util.h"
#include "service-def.h"

#define SERVICE_IDLE_MAX_USEC (5 * USEC_PER_SEC) /* as systemd's IDLE_TIMEOUT_USEC */
/* Type=idle: whether another service has a start or stop under way (an idle one waiting does not
 * count). */
bool service_idle_jobs_pending(const Service *s);
