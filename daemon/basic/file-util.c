/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "file-util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macros.h"

int read_small_file_at(int dir_fd, const char *name, char *buf, size_t size) {
        _cleanup_close_ int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        ssize_t n = read(fd, buf, size - 1);
        if (n < 0)
                return -errno;
        buf[n] = 0;
        return (int) n;
}

int write_file_at(int dir_fd, const char *name, const char *text) {
        _cleanup_close_ int fd = openat(dir_fd, name, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        size_t len = strlen(text);
        ssize_t n = write(fd, text, len);
        if (n < 0)
                return -errno;
        return (size_t) n == len ? 0 : -EIO;
}

int open_regular_file(const char *path, int *ret_fd) {
        /* O_NONBLOCK: a FIFO put in the file's place must not hang the caller. */
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        struct stat st;

        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (S_ISDIR(st.st_mode))
                return -EISDIR;
        if (!S_ISREG(st.st_mode))
                return -EBADFD;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int read_fd_prefix(int fd, size_t max, char **ret, size_t *ret_size, bool *ret_cut) {
        _cleanup_free_ char *buf = NULL;
        size_t n = 0, allocated = 0;

        /* The buffer grows as the data comes: a small file costs a small buffer, whatever max is. */
        for (;;) {
                if (n == allocated) {
                        if (allocated > max)
                                break;
                        size_t a = allocated ? allocated * 2 : 4096;
                        if (a > max + 1)
                                a = max + 1;
                        char *p = realloc(buf, a);
                        if (!p)
                                return -ENOMEM;
                        buf = p;
                        allocated = a;
                }
                ssize_t k = read(fd, buf + n, allocated - n);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (k == 0)
                        break;
                n += (size_t) k;
        }
        if (!buf && !(buf = malloc(1)))
                return -ENOMEM;
        *ret_cut = n > max;
        *ret_size = n > max ? max : n;
        *ret = TAKE_PTR(buf);
        return 0;
}

int read_full_fd(int fd, size_t max, char **ret, size_t *ret_size) {
        _cleanup_free_ char *buf = NULL;
        size_t n;
        bool cut;
        int r = read_fd_prefix(fd, max, &buf, &n, &cut);
        if (r < 0)
                return r;
        if (cut)
                return -EFBIG;
        *ret = TAKE_PTR(buf);
        *ret_size = n;
        return 0;
}
