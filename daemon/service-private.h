/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Between the two files of the service state machine: service.c (states, exits, operations) and
 * service-serialize.c (its state across a re-exec), and the machine's unit test.
 */

#include "service-def.h"

/* The timers' handlers, by name in the re-exec state. */
int service_on_restart_timer(sd_event_source *source, uint64_t usec, void *userdata);
int service_on_idle_timeout(sd_event_source *source, uint64_t usec, void *userdata);
int service_on_start_timeout(sd_event_source *source, uint64_t usec, void *userdata);
int service_on_stop_timeout(sd_event_source *source, uint64_t usec, void *userdata);
int service_on_watchdog_timeout(sd_event_source *source, uint64_t usec, void *userdata);
/* The handlers of the main process's pidfd, its report pipe and its cgroup's events. */
int service_on_exit_event(sd_event_source *source, int fd, uint32_t revents, void *userdata);
int service_on_report_event(sd_event_source *source, int fd, uint32_t revents, void *userdata);
int service_on_cgroup_event(sd_event_source *source, int fd, uint32_t revents, void *userdata);

void service_unwatch_cgroup(Service *s);
/* The main process is gone and so is the rest of its tree: ExecStopPost=, then what follows. */
void service_finish_exit(Service *s);
/* After a re-exec: Type=dbus watches its name again; a Type=forking start waiting for its PID file
 * looks again. */
int service_dbus_resume(Service *s);
void service_forking_resume_step(Service *s);
