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
