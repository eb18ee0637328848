/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The default control socket path of svd and svctl. */
#include "socket-path.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

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

static bool owner_trusted(const struct stat *st, uid_t uid) {
        return st->st_uid == uid || st->st_uid == 0;
}

/* Sets *ret_reason to "'PATH' " and the formatted rest; returns error. */
_printf_(4, 5) static int refuse(int error, char **ret_reason, const char *path, const char *format, ...) {
        _cleanup_free_ char *what = NULL;
        va_list ap;

        va_start(ap, format);
        int k = vasprintf(&what, format, ap);
        va_end(ap);
        if (k < 0 || asprintf(ret_reason, "'%s' %s", path, what) < 0)
                return -ENOMEM;
        return error;
}

/* Whether nobody but uid and root can change what is in the directory st:
 * writable by group or others only with the sticky bit. */
static int ancestor_check(const char *path, uid_t uid, char **ret_reason) {
        struct stat st;

        if (lstat(path, &st) < 0)
                return refuse(-errno, ret_reason, path, "cannot be examined: %m");
        if (!owner_trusted(&st, uid))
                return refuse(-EPERM, ret_reason, path, "is owned by uid " UID_FMT, st.st_uid);
        if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
                return refuse(-EPERM, ret_reason, path,
                              "is writable by group or others without the sticky bit (mode %04o)",
                              (unsigned) (st.st_mode & 07777));
        return 0;
}

int socket_path_check(const char *path, uid_t uid, char **ret_reason) {
        struct stat st;
        int r;

        assert(path);
        assert(ret_reason);
        *ret_reason = NULL;

        _cleanup_free_ char *dir = strdup(path);
        if (!dir)
                return -ENOMEM;
        char *slash = strrchr(dir, '/');
        if (!slash)
                strcpy(dir, ".");
        else if (slash == dir)
                dir[1] = 0;
        else
                *slash = 0;

        /* The directory itself, not what a link there points to. */
        if (lstat(dir, &st) < 0)
                return refuse(-errno, ret_reason, dir, "cannot be examined: %m");
        if (S_ISLNK(st.st_mode))
                return refuse(-ELOOP, ret_reason, dir, "is a symbolic link");
        if (!S_ISDIR(st.st_mode))
                return refuse(-ENOTDIR, ret_reason, dir, "is not a directory");
        if (!owner_trusted(&st, uid))
                return refuse(-EPERM, ret_reason, dir, "is owned by uid " UID_FMT, st.st_uid);
        if (st.st_mode & (S_IWGRP | S_IWOTH))
                return refuse(-EPERM, ret_reason, dir, "is writable by group or others (mode %04o)",
                              (unsigned) (st.st_mode & 07777));

        /* Every directory above it, on the path as the kernel resolves it. */
        _cleanup_free_ char *real = realpath(dir, NULL);
        if (!real)
                return refuse(-errno, ret_reason, dir, "cannot be resolved: %m");
        size_t n = strlen(real);
        for (size_t i = 0; i < n; i++) {
                if (real[i] != '/')
                        continue;
                _cleanup_free_ char *prefix = strndup(real, i > 0 ? i : 1); /* "/" first */
                if (!prefix)
                        return -ENOMEM;
                r = ancestor_check(prefix, uid, ret_reason);
                if (r < 0)
                        return r;
        }

        /* The socket: missing, or a socket of uid's or root's. */
        if (lstat(path, &st) < 0) {
                if (errno == ENOENT)
                        return 0;
                return refuse(-errno, ret_reason, path, "cannot be examined: %m");
        }
        if (!S_ISSOCK(st.st_mode))
                return refuse(-EEXIST, ret_reason, path, "exists and is not a socket");
        if (!owner_trusted(&st, uid))
                return refuse(-EPERM, ret_reason, path, "is owned by uid " UID_FMT, st.st_uid);
        return 0;
}

void socket_path_hash(const char *path, char buf[static 9]) {
        uint64_t h = UINT64_C(14695981039346656037);
        for (const char *c = path; *c; c++) {
                h ^= (unsigned char) *c;
                h *= UINT64_C(1099511628211);
        }
        snprintf(buf, 9, "%08x", (unsigned) (h ^ (h >> 32)));
}
