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
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct Manager Manager;
typedef struct VarlinkCall VarlinkCall;

/* The fds named in a state document. */
typedef struct ReexecFds {
        int *fds;
        size_t n;
} ReexecFds;

/* fd as a JSON number, recorded in f (null for fd < 0). NULL on OOM. */
json_t *reexec_fd_to_json(ReexecFds *f, int fd);
/* Takes the fd named by o[key] back: close-on-exec set again. -EBADF when
 * the field is null or missing, -errno when the fd is not open. */
int reexec_fd_take(json_t *o, const char *key);

/* Bytes as a JSON string when they are UTF-8 without NUL, else {"hex": ...}. */
json_t *reexec_bytes_to_json(const char *p, size_t n);
/* The reverse; *ret is NUL-terminated (for text) and malloc'd. */
int reexec_bytes_from_json(json_t *j, char **ret, size_t *ret_len);

/* Field readers with defaults: a missing field or one of another type gives def. */
uint64_t reexec_u64(json_t *o, const char *key, uint64_t def);
int64_t reexec_i64(json_t *o, const char *key, int64_t def);
bool reexec_bool(json_t *o, const char *key, bool def);
const char *reexec_str(json_t *o, const char *key); /* NULL when missing or not a string */

/* Serializes svd and exec's its binary. Returns only on failure: -errno,
 * and a message in *ret_error (malloc'd); svd then runs on unchanged.
 * `call` (may be NULL) is the Reexec call: its connection is handed over
 * and the new svd answers it. */
int manager_reexec(Manager *m, VarlinkCall *call, char **ret_error);

/* Start-up of the new svd from the state in fd (--deserialize=FD):
 * instead of loading units and starting the wanted ones. */
int manager_startup_from_state(Manager *m, int fd);
