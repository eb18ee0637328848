/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Type=forking: finding the daemon the command leaves (service-forking.c). Each function answers the
 * state machine with what the event means for the start; the machine acts on it.
 */

#include "service-def.h"

typedef enum ServiceForkingStep {
        SERVICE_FORKING_WAIT,    /* nothing changes yet (no start to finish, or the PID file is awaited) */
        SERVICE_FORKING_RUNNING, /* the daemon is known (or cannot be): the start is complete */
        SERVICE_FORKING_FAILED,  /* the start failed (s->last_error says why), with *ret_result */
} ServiceForkingStep;

/* Init reported the command's exit (Type=forking in a PID namespace). */
ServiceForkingStep service_forking_command_exited(Service *s, const ExitStatus *st, ServiceResult *ret_result);
/* The PID file's directory changed (the machine's ServiceHandlers.pid_file). */
ServiceForkingStep service_forking_pid_file_changed(Service *s, ServiceResult *ret_result);
/* After a re-exec: a start that was waiting for its PID file looks again, and waits again. */
ServiceForkingStep service_forking_resume(Service *s, ServiceResult *ret_result);
/* Init reaped the process nspid (its pid in the namespace) with wstatus. */
void service_forking_reaped(Service *s, pid_t nspid, int wstatus);
/* Type=forking without a PID namespace: the command exited with st while starting. true when the
 * daemon it left was found and is the main process now: the start is complete (SERVICE_FORKING_RUNNING);
 * false when the exit is to be handled as usual (failed, or no daemon found: then last_error says why). */
bool service_forking_take_over(Service *s, const ExitStatus *st);
/* The service's processes are gone: drop what the forking start held, remove the PID file. */
void service_forking_exited(Service *s);
