/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* DynamicUser=: a service's uid for one run, from dynamic-user.c's allocator. The uid lives from the
 * first command of a start (ExecStartPre=) to the end of the last (ExecStopPost=) and RemoveIPC=; it
 * is given back when the service is inactive, failed or waits to restart. */
#include <stdio.h>
#include <string.h>

#include "dynamic-user.h"
#include "service-dirs.h"
#include "service-dynuser.h"
#include "svd-log.h"

int service_dynamic_user_acquire(Service *s, char **ret_error) {
        uid_t uid;
        int fd = -EBADF;

        assert(s);
        if (!s->def->creds.dynamic || s->dynamic_user_fd >= 0)
                return 0;
        int r = dynamic_user_acquire(DYNAMIC_USER_LOCK_DIR, s->def->creds.user, service_dirs_dynamic_hint(s), &uid, &fd);
        if (r < 0) {
                if (asprintf(ret_error, "DynamicUser=: Failed to allocate a user for '%s': %s", s->def->creds.user,
                             r == -EBUSY ? "every uid of 61184-65519 is taken" : strerror(-r)) < 0)
                        *ret_error = NULL;
                return r;
        }
        s->dynamic_user_fd = fd;
        s->def->creds.uid = uid;
        if (s->def->creds.dynamic_gid)
                s->def->creds.gid = (gid_t) uid;
        log_debug("%s: DynamicUser=: '%s' is uid %u.", s->name, s->def->creds.user, (unsigned) uid);
        return 0;
}

void service_dynamic_user_release(Service *s) {
        assert(s);
        if (s->dynamic_user_fd < 0)
                return;
        log_debug("%s: DynamicUser=: uid %u given back.", s->name, (unsigned) s->def->creds.uid);
        s->dynamic_user_fd = dynamic_user_release(DYNAMIC_USER_LOCK_DIR, s->def->creds.uid, s->dynamic_user_fd);
        /* Until the next allocation the service has no uid: 0 would be root's, never used (the next
         * spawn allocates first), but the RemoveIPC= and ownership code must not see a stale one. */
        s->def->creds.uid = 0;
        if (s->def->creds.dynamic_gid)
                s->def->creds.gid = 0;
}
