/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Restart policy: whether an end is restarted (Restart=), after how long
 * (RestartSec= with RestartSteps= back-off), and the start limit. Verdicts
 * and numbers only: the state machine (service.c) acts on them. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "basic/parse-util.h"
#include "basic/time-util.h"
#include "service-restart.h"

static bool service_exit_in_set(const ExitStatus *st, const ExitStatusSet *set) {
        if (st->code == CLD_EXITED)
                return exit_status_set_has_status(set, st->status);
        return exit_status_set_has_signal(set, st->status);
}

bool service_should_restart(Service *s, ServiceResult result) {
        if (s->ctx->shutting_down || !s->want_running || result == SERVICE_FAILURE_START_LIMIT_HIT)
                return false;
        /* systemd.service(5): the main process's exit status or signal in RestartPreventExitStatus=
         * prevents a restart whatever Restart= says, one in RestartForceExitStatus= forces it. */
        if (s->run.main_exited && service_exit_in_set(&s->last_exit, &s->def->unit->restart_prevent_exit_status))
                return false;
        if (s->run.main_exited && service_exit_in_set(&s->last_exit, &s->def->unit->restart_force_exit_status))
                return true;
        /* systemd.service(5), "Table 2. Exit causes and the effect of the Restart= settings". */
        switch (s->def->unit->restart) {
        case RESTART_ALWAYS:
                return true;
        case RESTART_ON_FAILURE:
                return result != SERVICE_SUCCESS;
        case RESTART_ON_SUCCESS:
                return result == SERVICE_SUCCESS;
        case RESTART_ON_ABNORMAL:
                return IN_SET(result, SERVICE_FAILURE_SIGNAL, SERVICE_FAILURE_CORE_DUMP, SERVICE_FAILURE_TIMEOUT,
                              SERVICE_FAILURE_WATCHDOG);
        case RESTART_ON_WATCHDOG:
                return result == SERVICE_FAILURE_WATCHDOG;
        case RESTART_ON_ABORT:
                return IN_SET(result, SERVICE_FAILURE_SIGNAL, SERVICE_FAILURE_CORE_DUMP);
        default:
                return false;
        }
}

/* StartLimitIntervalSec=/StartLimitBurst=: whether one more start fits into the window (systemd's
 * ratelimit_below()). A start by hand opens a new window (service_start_limit_reset). */
bool service_start_limit_test(Service *s) {
        const Unit *u = s->def->unit;
        uint64_t now = now_usec(CLOCK_MONOTONIC);

        if (u->start_limit_interval_usec == 0 || u->start_limit_burst == 0)
                return true;
        if (s->start_limit_begin == 0 ||
            (u->start_limit_interval_usec != USEC_INFINITY && now - s->start_limit_begin >= u->start_limit_interval_usec)) {
                s->start_limit_begin = now;
                s->start_limit_count = 0;
        }
        if (s->start_limit_count < u->start_limit_burst) {
                s->start_limit_count++;
                return true;
        }
        return false;
}

char *service_start_limit_message(const Service *s) {
        char t[FORMAT_TIMESPAN_MAX], *msg = NULL;
        if (asprintf(&msg,
                     "start limit hit: %u starts within StartLimitIntervalSec=%s (StartLimitBurst=%u); "
                     "'svctl reset-failed %s' clears it",
                     s->start_limit_count, format_timespan(t, sizeof(t), s->def->unit->start_limit_interval_usec),
                     s->def->unit->start_limit_burst, s->name) < 0)
                return NULL;
        return msg;
}

void service_start_limit_reset(Service *s, bool counting) {
        s->start_limit_begin = counting ? now_usec(CLOCK_MONOTONIC) : 0;
        s->start_limit_count = counting ? 1 : 0;
}

bool service_error_is_exhaustion(int r) {
        return IN_SET(r, -EMFILE, -ENFILE, -EAGAIN, -ENOMEM);
}

uint64_t service_restart_delay(const Service *s) {
        uint64_t delay = unit_restart_delay_usec(s->def->unit, s->restarts + 1);
        /* A start that failed for want of svd's own resources cannot succeed before something is
         * freed: whatever RestartSec= says, the next try waits 100 ms, doubled each time up to 6.4 s. */
        if (s->exhausted > 0) {
                uint64_t backoff = SERVICE_EXHAUSTED_DELAY_USEC << MIN(s->exhausted - 1, 6U);
                delay = MAX(delay, backoff);
        }
        return delay;
}
