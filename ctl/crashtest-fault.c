/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The faults: their names and what each does. */
#include "crashtest-fault.h"

#include "macros.h"

static const char *const fault_table[_FAULT_MAX] = {
    [FAULT_SVD_KILL] = "svd-kill",
    [FAULT_SVD_STOP] = "svd-stop",
    [FAULT_SVD_TERM] = "svd-term",
    [FAULT_SVD_OOM] = "svd-oom",
    [FAULT_SERVICE_KILL] = "service-kill",
    [FAULT_SERVICE_KILL_SOME] = "service-kill-some",
    [FAULT_SERVICE_KILL_ALL] = "service-kill-all",
    [FAULT_SERVICE_STOP] = "service-stop",
    [FAULT_POWER_LOSS] = "power-loss",
    [FAULT_POWER_LOSS_TORN] = "power-loss-torn",
};

const char *fault_to_string(Fault f) {
        return f >= 0 && f < _FAULT_MAX ? fault_table[f] : NULL;
}

Fault fault_from_string(const char *s) {
        for (int i = 0; i < _FAULT_MAX; i++)
                if (streq(fault_table[i], s))
                        return (Fault)i;
        return _FAULT_INVALID;
}

bool fault_is_svd(Fault f) {
        return IN_SET(f, FAULT_SVD_KILL, FAULT_SVD_STOP, FAULT_SVD_TERM, FAULT_SVD_OOM, FAULT_POWER_LOSS,
                      FAULT_POWER_LOSS_TORN);
}

bool fault_ends_svd(Fault f) {
        return IN_SET(f, FAULT_SVD_KILL, FAULT_SVD_TERM, FAULT_SVD_OOM, FAULT_POWER_LOSS, FAULT_POWER_LOSS_TORN);
}

bool fault_loses_power(Fault f) {
        return IN_SET(f, FAULT_POWER_LOSS, FAULT_POWER_LOSS_TORN);
}

bool fault_kills(Fault f) {
        return !IN_SET(f, FAULT_SVD_STOP, FAULT_SERVICE_STOP);
}
