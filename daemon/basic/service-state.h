/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A service's states and their names on the wire (the "state" of List,
 * Status and the event stream): svd's machine moves between them, svctl
 * and svd-crashtest read them.
 */

#include <errno.h>

typedef enum ServiceState {
        SERVICE_INACTIVE,
        SERVICE_STARTING,
        SERVICE_RUNNING,
        SERVICE_STOPPING,
        SERVICE_KILLING,
        SERVICE_AUTO_RESTART,
        SERVICE_FAILED,
        SERVICE_RELOADING,  /* Type=notify: RELOADING=1 until the next READY=1 */
        SERVICE_EXITED,     /* Type=oneshot with RemainAfterExit=yes, after a successful exit */
        SERVICE_START_PRE,  /* ExecStartPre= commands run */
        SERVICE_START_POST, /* ExecStartPost= commands run, the main process is ready */
        SERVICE_STOP_EXEC,  /* "stop": ExecStop= commands run */
        SERVICE_STOP_POST,  /* ExecStopPost= commands run, the main process is gone */
        _SERVICE_STATE_MAX,
        _SERVICE_STATE_INVALID = -EINVAL,
} ServiceState;

const char *service_state_to_string(ServiceState s);
ServiceState service_state_from_string(const char *s);
