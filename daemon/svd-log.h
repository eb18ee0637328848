/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * svd's own log (its diagnostics, not the services' output, which
 * logstream.h handles): one line per message on stderr, prefixed "<N>" (sd-daemon
 * priority) when stderr is the journal, so systemd keeps the level.
 * log_*_errno() return -abs(error) so callbacks log and return in one
 * statement; "%m" in the format prints strerror(error).
 */

#include <errno.h>
#include <syslog.h>

#include "basic/macros.h"

extern int log_max_level;

/* Reads $SVD_LOG_LEVEL, $JOURNAL_STREAM and $SVD_LOG_TIME. */
void log_open(void);
/* A priority by its name in syslog.h without "LOG_" ("emerg" ... "debug") or its number (0-7);
 * -EINVAL for anything else (NULL included). */
int log_level_from_string(const char *s);
int log_internal(int level, int error, const char *file, int line, const char *func, const char *format, ...)
        _printf_(6, 7);

#define log_full_errno(level, error, ...)                                                                    \
        ({                                                                                                   \
                int _l = (level), _e = (error);                                                              \
                (_l <= log_max_level) ? log_internal(_l, _e, __FILE__, __LINE__, __func__, __VA_ARGS__)       \
                                      : -abs(_e);                                                            \
        })
#define log_full(level, ...) (void) log_full_errno((level), 0, __VA_ARGS__)

#define log_debug(...) log_full(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_full(LOG_INFO, __VA_ARGS__)
#define log_notice(...) log_full(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, __VA_ARGS__)
#define log_error(...) log_full(LOG_ERR, __VA_ARGS__)

#define log_debug_errno(e, ...) log_full_errno(LOG_DEBUG, (e), __VA_ARGS__)
#define log_info_errno(e, ...) log_full_errno(LOG_INFO, (e), __VA_ARGS__)
#define log_warning_errno(e, ...) log_full_errno(LOG_WARNING, (e), __VA_ARGS__)
#define log_error_errno(e, ...) log_full_errno(LOG_ERR, (e), __VA_ARGS__)

/* For allocation failures: there is nothing more useful to say. */
#define log_oom() log_error_errno(ENOMEM, "Out of memory.")
