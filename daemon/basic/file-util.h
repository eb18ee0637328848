/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small files relative to a directory fd: cgroup and /proc attributes. */
#pragma once

#include <stddef.h>

/* Reads at most size - 1 bytes of dir_fd/name into buf, NUL-terminated: their count, or -errno. */
int read_small_file_at(int dir_fd, const char *name, char *buf, size_t size);
/* Writes text to dir_fd/name in one write(2): 0, -EIO when it was cut short, or -errno. */
int write_file_at(int dir_fd, const char *name, const char *text);
/* Reads fd to its end into a new buffer (not NUL-terminated): 0 with *ret and *ret_size, -EFBIG when
 * it holds more than max bytes, or -errno. */
int read_full_fd(int fd, size_t max, char **ret, size_t *ret_size);
