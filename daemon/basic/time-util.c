/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Clock readings in microseconds. */
#include "time-util.h"

#include "macros.h"

uint64_t timespec_to_usec(const struct timespec *ts) {
        assert(ts);
        return (uint64_t) ts->tv_sec * USEC_PER_SEC + (uint64_t) ts->tv_nsec / NSEC_PER_USEC;
}

uint64_t now_usec(clockid_t clock) {
        struct timespec ts;

        (void) clock_gettime(clock, &ts);
        return timespec_to_usec(&ts);
}
