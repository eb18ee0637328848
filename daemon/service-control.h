/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The commands around a service's main process, ExecStartPre= to ExecStopPost= (service-control.c).
 */

#include "service-def.h"

void service_control_init(ServiceControl *c);
/* Kills (fallback mode: and reaps) a command still running and forgets it. */
void service_control_done(ServiceControl *c);
bool service_control_running(const Service *s);
/* How a list of commands ended, for the state machine: the list, and SERVICE_SUCCESS (failures of '-'
 * commands included) or the first failure's result (s->last_error names the command). */
typedef struct ServiceControlEnd {
        UnitExec kind;
        ServiceResult result;
} ServiceControlEnd;

/* Runs the commands of kind one after another: 1 when the first was spawned, or its spawn failed (told
 * from the loop); 0 when the unit has none; -ECANCELED when not even a failure could be arranged to be
 * told from the loop: the list ended at once, as *ret says. */
int service_control_start(Service *s, UnitExec kind, ServiceControlEnd *ret);
/* The machine's handlers (ServiceHandlers) hand the command's events here: true when the list ended,
 * as *ret says; false while it goes on. */
bool service_control_on_io(Service *s, sd_event_source *source, uint32_t revents, ServiceControlEnd *ret);
bool service_control_on_timer(Service *s, ServiceControlEnd *ret);
/* After a re-exec: watches the command's process (and its report pipe) again, with its timeout at
 * deadline (CLOCK_MONOTONIC, USEC_INFINITY: none). */
int service_control_resume(Service *s, uint64_t deadline);
/* SIGKILLs the running command: its list ends as failed (its exit comes as an event). */
void service_control_abandon(Service *s);

/* The command of ExecStartPre= ... ExecStopPost= that runs (its process, its path as written; NULL when
 * none runs); s->control.kind is its key. */
Process *service_control_process(Service *s);
const char *service_control_command(const Service *s);
