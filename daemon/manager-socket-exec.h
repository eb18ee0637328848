/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The commands of a socket unit (systemd.socket(5)): ExecStartPre= before its sockets are bound,
 * ExecStartPost= after, ExecStopPre= before they are closed, ExecStopPost= after. They run one at a
 * time, each a process spawned as a service's is (spawn_process(): clone3 with a pidfd, killed with
 * svd in autokill mode), with the socket unit's User= and Group= (none: svd's own), "/" as working
 * directory, $PATH only, and svd's own standard output and error (its log). Each command is bound
 * by TimeoutSec= (default 90 s); one that takes longer is killed (SIGKILL) and fails. A command
 * that fails (an exit status other than 0, a signal, a timeout, a failed exec) ends its list
 * failed, unless its "-" prefix says to ignore its exit status; the reason is kept.
 *
 * A socket unit keeps its ExecStopPre= in Unit.exec[UNIT_EXEC_STOP], which it has no other use for.
 */

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "process.h"
#include "spawn.h"
#include "unit.h"

typedef struct Socket Socket;

/* Called from the loop when a list ended: success, else socket_control_error() says why. */
typedef void (*SocketControlDoneFn)(Socket *s, bool success);

typedef struct SocketControl {
        UnitExec kind;       /* the list that runs */
        size_t index;        /* its command that runs */
        Process proc;
        int report_fd;       /* the spawn's failure pipe */
        sd_event_source *exit_source, *report_source, *timer_source;
        unsigned exit_info_retries;
        bool timed_out;
        bool have_spawn_failure;
        SpawnFailure spawn_failure;
        char *error;         /* why the list failed */
        SocketControlDoneFn done;
} SocketControl;

/* "ExecStartPre", "ExecStartPost", "ExecStopPre", "ExecStopPost" of a socket unit's list. */
const char *socket_exec_to_string(UnitExec kind);

/* Runs the commands of kind of s's unit one after another, then calls done from the loop. 0 when
 * the unit has none (done is not called), 1 when they run, -ENOMEM. A spawn that fails ends the
 * list failed, told from the loop too. */
int socket_control_start(Socket *s, UnitExec kind, SocketControlDoneFn done);
bool socket_control_running(const Socket *s);
/* Why the last list failed (NULL: it did not, or out of memory). */
const char *socket_control_error(const Socket *s);
/* Kills the running command (SIGKILL, reaped in fallback mode) and forgets it: done is not called.
 * When svd exits or re-executes. */
void socket_control_abandon(Socket *s);
