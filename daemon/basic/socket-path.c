/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The default control socket path of svd and svctl. */
#include "socket-path.h"

#include <stdio.h>

#include "macros.h"

int socket_path_default(uid_t uid, char **ret) {
        const char *e;
        char *path;
        int r;

        assert(ret);

        if (uid == 0) {
                *ret = strdup(SOCKET_PATH_SYSTEM);
                return *ret ? 0 : -ENOMEM;
        }
        e = getenv("XDG_RUNTIME_DIR");
        if (e && e[0] == '/')
                r = asprintf(&path, "%s" SOCKET_PATH_USER_SUFFIX, e);
        else
                r = asprintf(&path, "/run/user/%u" SOCKET_PATH_USER_SUFFIX, (unsigned) uid);
        if (r < 0)
                return -ENOMEM;
        *ret = path;
        return 0;
}
