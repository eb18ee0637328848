/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small files relative to a directory fd: cgroup and /proc attributes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Reads at most size - 1 bytes of dir_fd/name into buf, NUL-terminated: their count, or -errno. */
int read_small_file_at(int dir_fd, const char *name, char *buf, size_t size);
/* Writes text to dir_fd/name in one write(2): 0, -EIO when it was cut short, or -errno. */
int write_file_at(int dir_fd, const char *name, const char *text);
/* Opens path to read it, when it is a regular file (a FIFO in its place does not block): 0 and the fd
 * (O_CLOEXEC) in *ret_fd, -EISDIR for a directory, -EBADFD for anything else but a file, or -errno. */
int open_regular_file(const char *path, int *ret_fd);
/* Reads fd to its end or to max bytes, whichever comes first, into a new buffer (not NUL-terminated):
 * 0 with *ret and *ret_size, and *ret_cut telling whether more was there; or -errno. */
int read_fd_prefix(int fd, size_t max, char **ret, size_t *ret_size, bool *ret_cut);
/* Reads fd to its end into a new buffer (not NUL-terminated): 0 with *ret and *ret_size, -EFBIG when
 * it holds more than max bytes, or -errno. */
int read_full_fd(int fd, size_t max, char **ret, size_t *ret_size);
