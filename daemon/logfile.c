/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* StandardOutput=file:/append: files, rotated by size. */
#include "logfile.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/uio.h>

static int logfile_open_fd(const char *path, bool truncate, int *ret_fd, uint64_t *ret_size) {
        struct stat st;
        int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (truncate ? O_TRUNC : 0),
                      0644);
        if (fd < 0)
                return -errno;
        /* A FIFO or a device would let a reader stall svd, or mean something else entirely. */
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                int r = fstat(fd, &st) < 0 ? -errno : -EBADFD;
                safe_close(fd);
                return r;
        }
        *ret_fd = fd;
        *ret_size = (uint64_t) st.st_size;
        return 0;
}

int logfile_open(const char *path, bool truncate, uint64_t rotate_size, unsigned keep, LogFile **ret) {
        assert(path);
        assert(ret);

        LogFile *f = calloc(1, sizeof(*f));
        if (!f)
                return -ENOMEM;
        *f = (LogFile){ .fd = -EBADF, .rotate_size = rotate_size, .keep = keep };
        f->path = strdup(path);
        if (!f->path) {
                logfile_free(f);
                return -ENOMEM;
        }
        int r = logfile_open_fd(path, truncate, &f->fd, &f->size);
        if (r < 0) {
                logfile_free(f);
                return r;
        }
        *ret = f;
        return 0;
}

int logfile_adopt(int fd, const char *path, uint64_t size, uint64_t rotate_size, unsigned keep, LogFile **ret) {
        assert(fd >= 0);
        assert(path);
        assert(ret);

        LogFile *f = calloc(1, sizeof(*f));
        if (!f) {
                safe_close(fd);
                return -ENOMEM;
        }
        *f = (LogFile){ .fd = fd, .size = size, .rotate_size = rotate_size, .keep = keep };
        f->path = strdup(path);
        if (!f->path) {
                logfile_free(f);
                return -ENOMEM;
        }
        *ret = f;
        return 0;
}

LogFile *logfile_free(LogFile *f) {
        if (!f)
                return NULL;
        safe_close(f->fd);
        free(f->path);
        free(f);
        return NULL;
}

int logfile_rotate(LogFile *f) {
        char from[PATH_MAX], to[PATH_MAX];
        int r;

        assert(f);

        if (f->keep == 0) {
                /* Nothing to keep: start over in the same file. */
                if (ftruncate(f->fd, 0) < 0)
                        return f->last_error = -errno;
                f->size = 0;
                return 0;
        }
        for (unsigned i = f->keep; i > 1; i--) {
                if (snprintf(from, sizeof(from), "%s.%u", f->path, i - 1) >= (int) sizeof(from) ||
                    snprintf(to, sizeof(to), "%s.%u", f->path, i) >= (int) sizeof(to))
                        return f->last_error = -ENAMETOOLONG;
                if (rename(from, to) < 0 && errno != ENOENT)
                        return f->last_error = -errno;
        }
        if (snprintf(to, sizeof(to), "%s.1", f->path) >= (int) sizeof(to))
                return f->last_error = -ENAMETOOLONG;
        if (rename(f->path, to) < 0 && errno != ENOENT)
                return f->last_error = -errno;

        int fd;
        uint64_t size;
        r = logfile_open_fd(f->path, /* truncate= */ true, &fd, &size);
        if (r < 0)
                return f->last_error = r; /* keep writing to the renamed file rather than nowhere */
        safe_close(f->fd);
        f->fd = fd;
        f->size = size;
        return 0;
}

int logfile_write_line(LogFile *f, const char *text, size_t len) {
        struct iovec iov[2] = {
                { .iov_base = (void *) text, .iov_len = len },
                { .iov_base = (void *) "\n", .iov_len = 1 },
        };

        assert(f);

        ssize_t n = writev(f->fd, iov, 2);
        if (n < 0) {
                f->write_errors++;
                return f->last_error = -errno;
        }
        f->size += (uint64_t) n;
        if ((size_t) n < len + 1)
                f->write_errors++; /* short write: disk full; the rest is lost, as counted */
        if (f->rotate_size > 0 && f->size >= f->rotate_size)
                return logfile_rotate(f);
        return 0;
}
