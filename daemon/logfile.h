/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A service's output file (StandardOutput=file:PATH / append:PATH): svd
 * writes each line the service wrote, as it wrote it plus a newline, and
 * rotates by size: once the file has reached rotate_size bytes, PATH.N-1 is
 * renamed to PATH.N ... PATH to PATH.1 (keeping `keep` old files) and a new
 * PATH is started. svd writes, not the service, so that rotation needs no
 * help from the service and the lines also reach the ring buffer.
 *
 * Writes are plain write(2)s on a regular file: like every logger, svd
 * accepts that a disk write may take a moment. A failed write is counted,
 * never retried (a full disk must not stall the loop).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/macros.h"

/* Defaults for LogRotateSize= and LogRotateKeep=. */
#define LOGFILE_ROTATE_SIZE_DEFAULT (10ULL << 20)
#define LOGFILE_ROTATE_KEEP_DEFAULT 5U
/* Upper bound of LogRotateKeep=. */
#define LOGFILE_ROTATE_KEEP_MAX 100U

typedef struct LogFile {
        int fd;
        char *path;
        uint64_t size;
        uint64_t rotate_size; /* 0: never rotate */
        unsigned keep;
        uint64_t write_errors;
        int last_error; /* -errno of the last failed write or rotation, 0 */
} LogFile;

/* Opens (creating, mode 0644) path; truncate: file: (true) or append: (false). */
int logfile_open(const char *path, bool truncate, uint64_t rotate_size, unsigned keep, LogFile **ret);
/* Re-exec: a LogFile for an fd the previous svd had open (takes fd). */
int logfile_adopt(int fd, const char *path, uint64_t size, uint64_t rotate_size, unsigned keep, LogFile **ret);
LogFile *logfile_free(LogFile *f);
DEFINE_TRIVIAL_CLEANUP_FUNC(LogFile *, logfile_free);

/* Writes text and a newline; rotates afterwards when the size is reached.
 * Returns 0 or -errno (also recorded in the LogFile). */
int logfile_write_line(LogFile *f, const char *text, size_t len);

/* Renames now, as described above. */
int logfile_rotate(LogFile *f);
