/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * runas: run a command as another uid and gid, with no supplementary groups
 * or with those listed after the gid.
 *
 *   runas UID GID[,GROUP...] COMMAND [ARG...]
 *
 * Numeric ids only: no NSS lookups, so that it works in an initramfs without
 * /etc/passwd. The tests use it to play an unprivileged varlink peer (or an
 * unprivileged svd) when they run as root. Like setpriv --reuid --regid
 * --clear-groups, which busybox lacks.
 *
 * Exit status: COMMAND's, or 125 when the switch failed, 126/127 when COMMAND
 * could not be executed.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* setresuid(), pidfd syscalls, prctl() and friends */
#endif

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int parse_id(const char *s, unsigned *ret) {
        char *end;

        errno = 0;
        unsigned long v = strtoul(s, &end, 10);
        if (errno != 0 || end == s || *end != 0 || s[0] == '-' || v >= UINT_MAX)
                return -EINVAL;
        *ret = (unsigned) v;
        return 0;
}

#define GROUPS_MAX 64

/* "GID[,GROUP...]": the gid, then the supplementary groups. */
static int parse_gids(char *s, unsigned *ret_gid, gid_t *groups, size_t *ret_n) {
        size_t n = 0;
        char *comma = strchr(s, ',');
        if (comma)
                *comma = 0;
        if (parse_id(s, ret_gid) < 0)
                return -EINVAL;
        for (char *g = comma ? comma + 1 : NULL; g; g = comma ? comma + 1 : NULL) {
                unsigned v;
                comma = strchr(g, ',');
                if (comma)
                        *comma = 0;
                if (n >= GROUPS_MAX || parse_id(g, &v) < 0)
                        return -EINVAL;
                groups[n++] = (gid_t) v;
        }
        *ret_n = n;
        return 0;
}

int main(int argc, char *argv[]) {
        unsigned uid, gid;
        gid_t groups[GROUPS_MAX];
        size_t n_groups = 0;

        if (argc < 4 || parse_id(argv[1], &uid) < 0 || parse_gids(argv[2], &gid, groups, &n_groups) < 0) {
                fprintf(stderr, "usage: runas UID GID[,GROUP...] COMMAND [ARG...]\n");
                return 125;
        }

        /* Groups first, then gid, then uid: after setresuid() we could not change them any more. */
        if (setgroups(n_groups, n_groups > 0 ? groups : NULL) < 0) {
                fprintf(stderr, "runas: setgroups: %s\n", strerror(errno));
                return 125;
        }
        if (setresgid(gid, gid, gid) < 0) {
                fprintf(stderr, "runas: setresgid(%u): %s\n", gid, strerror(errno));
                return 125;
        }
        if (setresuid(uid, uid, uid) < 0) {
                fprintf(stderr, "runas: setresuid(%u): %s\n", uid, strerror(errno));
                return 125;
        }
        if (getuid() != uid || geteuid() != uid || getgid() != gid || getegid() != gid) {
                fprintf(stderr, "runas: ids did not change\n");
                return 125;
        }

        execvp(argv[3], argv + 3);
        int r = errno;
        fprintf(stderr, "runas: exec %s: %s\n", argv[3], strerror(r));
        return r == ENOENT ? 127 : 126;
}
