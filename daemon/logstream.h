/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The output of one service: a pipe into svd for stdout and stderr together
 * when both go to the log or to one file (the default; the lines' stream is
 * "stdout", as systemd's journal takes both as one stream), or one for each
 * that goes to a place of its own (StandardOutput=/StandardError= log,
 * file: or append:), read without
 * ever blocking the loop, split into lines (logbuf.h), kept in the
 * service's ring buffer, written to the unit's file if it names one
 * (logfile.h), and sent to the clients that follow the log.
 *
 * Bounds. A read takes at most LOGSTREAM_READ_MAX bytes per pipe and event, so a
 * flooding service shares the loop with everything else; while svd has not
 * read, the pipe is full and the service's write() blocks, which is the
 * back-pressure systemd's journal gives as well. Past LOGBUF_RATE_BURST lines
 * per interval, lines are dropped and counted (`logDropped`), and the ring
 * and followers get one "N lines dropped" line from svd when the next
 * interval starts. The file gets every line (it is the complete record and
 * is bounded by rotation).
 *
 * Watchers (a client following the log) are told of every new line
 * through their callback, and when the log goes away.
 */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "basic/list.h"
#include "basic/macros.h"
#include "logbuf.h"
#include "logfile.h"
#include "unit.h"

struct json_t;

/* Bytes read from one pipe per loop event. */
#define LOGSTREAM_READ_MAX (64U << 10)
/* Bytes read from the pipes when the main process exits, so that its last
 * words are in the log before its state changes. */
#define LOGSTREAM_DRAIN_MAX (1U << 20)
/* Watchers of one service. */
#define LOGSTREAM_WATCHERS_MAX 64U

typedef struct LogWatcher LogWatcher;
struct LogWatcher {
        void (*line)(LogWatcher *w, const LogLine *line); /* a new line */
        void (*closed)(LogWatcher *w);                    /* the log is going away; w is unwatched already */
        LIST_FIELDS(LogWatcher, watchers);
};

typedef struct ServiceLog ServiceLog;

typedef struct LogPipe {
        ServiceLog *log;
        LogStream stream;
        int fd; /* read end, -EBADF when closed */
        int child_fd; /* write end until the child has it */
        sd_event_source *source;
        LogSplitter splitter;
        LogFile *file; /* borrowed from ServiceLog.files */
} LogPipe;

struct ServiceLog {
        sd_event *event;
        const char *name; /* borrowed from the Service */
        LogBuffer buffer;
        LogPipe pipes[2]; /* stdout (with stderr when they share it), stderr */
        LogFile *files[2]; /* owned; stderr uses files[0] when both name one path */
        int null_fd;       /* /dev/null for StandardOutput=null, until the child has it */
        LogRateLimit rate;
        uint64_t dropped; /* lines the rate limit dropped, in all */
        LogWatcher *watchers;
        size_t n_watchers;
};

/* svd's own stdout and stderr as a log, as a container engine collects
 * it: with service_log_console_open(), every line a service's stdout or
 * stderr pipe gives (after the line cut and rate limit of the ring) is
 * also written to svd's stdout or stderr as "NAME: LINE", or
 * "TIME NAME: LINE" (ISO 8601, UTC) with LOG_CONSOLE_TIME. svd never blocks
 * on them: a pipe or terminal is written through a non-blocking open file
 * description of its own, a socket with MSG_DONTWAIT; a line that does not
 * fit is dropped and counted, and svd says how many on stderr once lines
 * fit again. */
typedef enum LogConsoleMode {
        LOG_CONSOLE_OFF,
        LOG_CONSOLE_PLAIN,
        LOG_CONSOLE_TIME,
} LogConsoleMode;
int service_log_console_open(LogConsoleMode mode);
void service_log_console_close(void);

int service_log_new(sd_event *event, const char *name, ServiceLog **ret);
ServiceLog *service_log_free(ServiceLog *l);
DEFINE_TRIVIAL_CLEANUP_FUNC(ServiceLog *, service_log_free);

/* Before a spawn: reads and closes what is left of the previous process's
 * pipes, then opens pipes and files as the unit says. *ret_stdout_fd and
 * *ret_stderr_fd are for SpawnParams (0: keep svd's own); they stay owned by
 * l until service_log_spawned(). Returns 0, or -errno with a message in
 * *ret_error (file and reason) when a file cannot be opened. */
int service_log_prepare(ServiceLog *l, const Unit *u, int *ret_stdout_fd, int *ret_stderr_fd, char **ret_error);
/* After the spawn (successful or not): closes svd's copies of the write ends. */
void service_log_spawned(ServiceLog *l);
/* The same for a further process of the same start (ExecStartPre=, ExecStartPost=, ExecReload=,
 * ExecStop=, ExecStopPost=, the next ExecStart= of a oneshot): its output joins the service's, in
 * the pipes already open, or in new ones; a file: output is not truncated again. */
int service_log_attach(ServiceLog *l, const Unit *u, int *ret_stdout_fd, int *ret_stderr_fd, char **ret_error);
/* Reads what the pipes hold now, up to LOGSTREAM_DRAIN_MAX (the main process exited). */
void service_log_drain(ServiceLog *l);

/* w is told of every new line until service_log_unwatch() or the end of l.
 * -EBUSY beyond LOGSTREAM_WATCHERS_MAX watchers. */
int service_log_watch(ServiceLog *l, LogWatcher *w);
void service_log_unwatch(ServiceLog *l, LogWatcher *w);

/* Re-exec: the ring, partial lines, pipes and files as JSON,
 * fds recorded in fds; and back, for a ServiceLog fresh from
 * service_log_new(), with the unit for the files' rotation settings. */
struct ReexecFds;
struct json_t *service_log_serialize(ServiceLog *l, struct ReexecFds *fds);
int service_log_deserialize(ServiceLog *l, struct json_t *o, const Unit *u);
