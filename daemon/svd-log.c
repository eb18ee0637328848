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

void log_open(void) {
        const char *e = getenv("SVD_LOG_LEVEL");
        /* syslog's priorities by their names in syslog.h, LOG_EMERG (0) to LOG_DEBUG (7). */
        static const char *const names[] = { "emerg",   "alert",  "crit", "err",
                                             "warning", "notice", "info", "debug" };
        ssize_t level = string_table_lookup(names, ELEMENTSOF(names), e);
        if (level >= 0)
                log_max_level = (int) level;
        /* Under systemd, stderr is a stream to journald and $JOURNAL_STREAM names it;
         * the "<N>" prefix then carries the priority. */
        log_prefix_priority = getenv("JOURNAL_STREAM") != NULL;
}

int log_internal(int level, int error, const char *file, int line, const char *func, const char *format, ...) {
        int saved = errno;
        char buf[4096];
        va_list ap;

        errno = abs(error);
        va_start(ap, format);
        (void) vsnprintf(buf, sizeof(buf), format, ap);
        va_end(ap);

        if (log_prefix_priority)
                fprintf(stderr, "<%d>%s\n", level, buf);
        else if (log_max_level >= LOG_DEBUG)
                fprintf(stderr, "svd[%d] %s:%d: %s\n", (int) getpid(), file, line, buf);
        else
                fprintf(stderr, "svd: %s\n", buf);
        fflush(stderr);
        errno = saved;
        return -abs(error);
}
