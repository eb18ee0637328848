/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A lock file that names its holder: the "one svd per control socket" rule.
 *
 * The lock is a POSIX record lock (fcntl F_SETLK, F_WRLCK) on the whole
 * file. The kernel drops it when the process that holds it exits, however
 * it ends (kill -9, OOM), so a stale file never blocks anyone. It belongs
 * to the process, not to the file description: it survives an execve()
 * (re-exec) as long as the fd stays open across it, forked children do not
 * inherit it, and F_GETLK tells a second process the holder's pid straight
 * from the kernel. The one rule that comes with it: the holder must never
 * open and close the file a second time, since closing any fd of the file
 * drops the process's lock.
 *
 * The holder also writes its pid into the file, one line, for people and
 * for a reader in another PID namespace (where F_GETLK reports pid 0).
 */

#include <sys/types.h>

/* Opens (creating it 0644) and locks path. Returns 0 and the locked fd
 * (O_CLOEXEC) in *ret_fd; -EBUSY when another process holds the lock, with
 * its pid in *ret_holder (0 when it cannot be told); -EEXIST when path is
 * a symbolic link or anything but a regular file (never followed or
 * opened for long); or -errno. */
int lock_file_take(const char *path, int *ret_fd, pid_t *ret_holder);

/* Writes pid into the locked file, replacing what was there. */
int lock_file_write_pid(int fd, pid_t pid);
