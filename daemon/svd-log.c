/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* svd's own diagnostics on stderr (not the services' output: logstream.c). */
#include "svd-log.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "basic/string-table.h"

int log_max_level = LOG_INFO;

static bool log_prefix_priority = false;
static bool log_prefix_time = false;

int log_level_from_string(const char *s) {
        /* syslog's priorities by their names in syslog.h, LOG_EMERG (0) to LOG_DEBUG (7). */
        static const char *const names[] = { "emerg",   "alert",  "crit", "err",
                                             "warning", "notice", "info", "debug" };
        ssize_t level = string_table_lookup(names, ELEMENTSOF(names), s);
        if (level >= 0)
                return (int) level;
        /* The number, as systemd takes it too. */
        if (s && s[0] >= '0' && s[0] <= '7' && s[1] == '\0')
                return s[0] - '0';
        return -EINVAL;
}

void log_open(void) {
        const char *e;
        int level = log_level_from_string(getenv("SVD_LOG_LEVEL"));
        if (level >= 0)
                log_max_level = level;
        /* Under systemd, stderr is a stream to journald and $JOURNAL_STREAM names it;
         * the "<N>" prefix then carries the priority. */
        log_prefix_priority = getenv("JOURNAL_STREAM") != NULL;
        /* A log that is a file of its own (svd-crashtest's) wants the time of each line. */
        e = getenv("SVD_LOG_TIME");
        log_prefix_time = e && streq(e, "1");
}

/* "[2026-12-06 10:01:11.123456] ": the wall clock, in UTC. */
static void log_time(char *buf, size_t size) {
        struct timespec ts;
        struct tm tm;
        (void) clock_gettime(CLOCK_REALTIME, &ts);
        if (!gmtime_r(&ts.tv_sec, &tm)) {
                buf[0] = 0;
                return;
        }
        size_t n = strftime(buf, size, "[%Y-%m-%d %H:%M:%S", &tm);
        (void) snprintf(buf + n, size - n, ".%06ld] ", ts.tv_nsec / 1000);
}

int log_internal(int level, int error, const char *file, int line, const char *func, const char *format, ...) {
        int saved = errno;
        char buf[4096];
        va_list ap;

        errno = abs(error);
        va_start(ap, format);
        (void) vsnprintf(buf, sizeof(buf), format, ap);
        va_end(ap);

        char when[48] = "";
        if (log_prefix_time)
                log_time(when, sizeof(when));
        if (log_prefix_priority)
                fprintf(stderr, "<%d>%s\n", level, buf);
        else if (log_max_level >= LOG_DEBUG)
                fprintf(stderr, "%ssvd[%d] %s:%d: %s\n", when, (int) getpid(), file, line, buf);
        else
                fprintf(stderr, "%ssvd: %s\n", when, buf);
        fflush(stderr);
        errno = saved;
        return -abs(error);
}
