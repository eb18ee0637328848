/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Re-exec: svd replaces its own program image without letting go of a
 * single service (svctl daemon-reexec, varlink Reexec, SIGHUP).
 *
 * In autokill mode closing a service's pidfd kills the service, so the
 * pidfds must survive: svd writes its whole state as one JSON document into
 * a memfd, clears close-on-exec on exactly the fds the state names (pidfds,
 * spawn-report pipes, log pipes and files, cgroup fds, the notify socket,
 * the listening control socket, and the connection of the client that asked
 * for the re-exec), and execve()s its binary on disk with
 * --deserialize=FD. The new svd restores every service from the document
 * (no spawn, no kill, no signal), takes the fds back (close-on-exec again)
 * and answers the waiting client. Nothing else survives: other clients'
 * connections close with the old image (their calls end with the
 * connection), log followers and event subscribers have to reconnect.
 *
 * Before the exec svd runs the binary with --state-version and needs it to
 * read the version it writes: a missing or broken binary, or one that only
 * knows older versions, fails the re-exec and the running svd carries on
 * with everything intact. A failed execve() does the same.
 *
 * The state document is described in README.md ("Upgrading svd"). Rules
 * for changing it: fields are only ever added, a reader ignores fields it
 * does not know and gives missing ones their default; anything else bumps
 * the version, and an svd reads every version from 1 to its own.
 */

#include <jansson.h>

#include "basic/serialize.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct Manager Manager;

/* Serializes svd and exec's its binary. Returns only on failure: -errno,
 * and a message in *ret_error (malloc'd); svd then runs on unchanged.
 * reply_fd (-EBADF for none) is the connection of the client that asked:
 * it is handed over and the new svd answers it (ManagerHooks.answer_reexec). */
int manager_reexec(Manager *m, int reply_fd, char **ret_error);

/* Reads the state document from fd (--deserialize=FD) and closes fd. */
int manager_state_read(int fd, json_t **ret);
/* Start-up of the new svd from that state, instead of loading units and
 * starting the wanted ones: the services and their processes first, then
 * (once the manager serves the control socket handed over as "listenFd")
 * the notify socket, the waiting client's answer and READY=1. */
int manager_state_restore(Manager *m, json_t *state);
int manager_state_resume(Manager *m, json_t *state);
