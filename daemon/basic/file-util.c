/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "file-util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
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

int read_full_fd(int fd, size_t max, char **ret, size_t *ret_size) {
        _cleanup_free_ char *buf = malloc(max + 1);
        size_t n = 0;

        if (!buf)
                return -ENOMEM;
        while (n < max + 1) {
                ssize_t k = read(fd, buf + n, max + 1 - n);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (k == 0)
                        break;
                n += (size_t) k;
        }
        if (n > max)
                return -EFBIG;
        *ret = TAKE_PTR(buf);
        *ret_size = n;
        return 0;
}
