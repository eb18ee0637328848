/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Clock readings in microseconds, the unit of sd-event and of the protocol. */

#include <stdint.h>
#include <time.h>

uint64_t timespec_to_usec(const struct timespec *ts);

/* clock_gettime(clock) in microseconds; clock_gettime() cannot fail for the
 * clocks svd reads (CLOCK_REALTIME, CLOCK_MONOTONIC). */
uint64_t now_usec(clockid_t clock);
