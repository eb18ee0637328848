/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The faults svd-crashtest deals, by the names --fault, the report and the
 * workload's environment (SVD_CRASHTEST_FAULT) use, and what each does: to
 * svd or to services, whether svd is gone afterwards, whether it kills.
 */

#include <errno.h>
#include <stdbool.h>

typedef enum Fault {
        FAULT_SVD_KILL,
        FAULT_SVD_STOP,
        FAULT_SVD_TERM,
        FAULT_SVD_OOM,
        FAULT_SERVICE_KILL,
        FAULT_SERVICE_KILL_SOME,
        FAULT_SERVICE_KILL_ALL,
        FAULT_SERVICE_STOP,
        FAULT_POWER_LOSS,      /* svd-kill, then what was not durable in the --data directories is lost */
        FAULT_POWER_LOSS_TORN, /* the same, and each file's last unsynced write survives in part */
        _FAULT_MAX,
        _FAULT_INVALID = -EINVAL,
} Fault;

const char *fault_to_string(Fault f);   /* NULL for none */
Fault fault_from_string(const char *s); /* _FAULT_INVALID for an unknown name */

bool fault_is_svd(Fault f);   /* dealt to svd, not to services */
bool fault_ends_svd(Fault f); /* svd is gone after the fault and the runner starts it again */
bool fault_kills(Fault f);    /* kills processes (all but the stop faults) */
bool fault_loses_power(Fault f); /* power-loss and power-loss-torn */
