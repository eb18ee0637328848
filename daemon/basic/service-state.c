/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "service-state.h"

#include "string-table.h"

static const char *const service_state_table[_SERVICE_STATE_MAX] = {
        [SERVICE_INACTIVE] = "inactive",   [SERVICE_STARTING] = "starting",
        [SERVICE_RUNNING] = "running",     [SERVICE_STOPPING] = "stopping",
        [SERVICE_KILLING] = "killing",     [SERVICE_AUTO_RESTART] = "auto-restart",
        [SERVICE_FAILED] = "failed",
        [SERVICE_RELOADING] = "reloading", [SERVICE_EXITED] = "exited",
        [SERVICE_START_PRE] = "start-pre", [SERVICE_START_POST] = "start-post",
        [SERVICE_STOP_EXEC] = "stop",      [SERVICE_STOP_POST] = "stop-post",
};

DEFINE_STRING_TABLE_LOOKUP(service_state, ServiceState);
