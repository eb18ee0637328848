/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A lock file that names its holder (lock-file.h). */
#include "lock-file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macros.h"

/* How often a lock that was let go between F_SETLK and F_GETLK is tried again. */
#define LOCK_FILE_TRIES 8

/* The pid written in the file, or 0. */
static pid_t lock_file_read_pid(int fd) {
        char buf[32];
        ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
        if (n <= 0)
                return 0;
        buf[n] = 0;
        char *end;
        errno = 0;
        long pid = strtol(buf, &end, 10);
        if (errno != 0 || end == buf || (*end != '\n' && *end != '\0') || pid <= 0 || pid > INT32_MAX)
                return 0;
        return (pid_t) pid;
}

int lock_file_take(const char *path, int *ret_fd, pid_t *ret_holder) {
        _cleanup_close_ int fd = -EBADF;

        /* O_NONBLOCK: a FIFO put there must not hold svd up. */
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK, 0644);
        if (fd < 0)
                return errno == ELOOP ? -EEXIST : -errno;
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EEXIST;
        for (int i = 0; i < LOCK_FILE_TRIES; i++) {
                struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
                if (fcntl(fd, F_SETLK, &fl) >= 0) {
                        *ret_fd = TAKE_FD(fd);
                        return 0;
                }
                if (errno != EACCES && errno != EAGAIN)
                        return -errno;
                fl = (struct flock) { .l_type = F_WRLCK, .l_whence = SEEK_SET };
                if (fcntl(fd, F_GETLK, &fl) < 0)
                        return -errno;
                if (fl.l_type == F_UNLCK)
                        continue; /* its holder just exited: try again */
                if (ret_holder)
                        *ret_holder = fl.l_pid > 0 ? fl.l_pid : lock_file_read_pid(fd);
                return -EBUSY;
        }
        if (ret_holder)
                *ret_holder = lock_file_read_pid(fd);
        return -EBUSY;
}

int lock_file_write_pid(int fd, pid_t pid) {
        char buf[32];
        int n = snprintf(buf, sizeof(buf), "%d\n", (int) pid);
        if (ftruncate(fd, 0) < 0)
                return -errno;
        ssize_t k = pwrite(fd, buf, (size_t) n, 0);
        if (k < 0)
                return -errno;
        return k == n ? 0 : -EIO;
}
