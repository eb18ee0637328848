/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Where svd listens and svctl connects when no --socket is given: the same
 * path on both sides, so it is computed in one place.
 */

#include <sys/types.h>

#define SOCKET_PATH_SYSTEM "/run/svd/svd.sock"
#define SOCKET_PATH_USER_SUFFIX "/svd/svd.sock"

/* /run/svd/svd.sock for uid 0; $XDG_RUNTIME_DIR/svd/svd.sock for other
 * users, or /run/user/UID/svd/svd.sock when $XDG_RUNTIME_DIR is not an
 * absolute path (as systemd, a relative one is ignored). */
int socket_path_default(uid_t uid, char **ret);

/* Whether svd may listen on path without another user being able to
 * replace or intercept the socket. Nobody but uid and root may be able to
 * change the socket's directory or what its name resolves to:
 *  - the directory is a directory, not a symbolic link, owned by uid or
 *    root, and writable by neither group nor others;
 *  - every directory above it (symbolic links resolved) is owned by uid or
 *    root, and writable by group or others only with the sticky bit (as
 *    /tmp: there only an entry's owner may rename or remove it);
 *  - the path itself is missing, or a socket owned by uid or root (a stale
 *    one is replaced), never followed when it is a symbolic link.
 * Returns 0, or -errno with *ret_reason saying which rule the path breaks
 * and where (allocated). */
int socket_path_check(const char *path, uid_t uid, char **ret_reason);

/* A short name for one svd instance: 8 hex digits of an FNV-1a hash of its control socket's path
 * (the names of its cgroup and its notify socket). */
void socket_path_hash(const char *path, char buf[static 9]);
