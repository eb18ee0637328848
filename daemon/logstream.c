/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A service's output: pipes into svd, lines into the ring, the file and the watchers. */
#include "logstream.h"

#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "basic/list.h"
#include "basic/serialize.h"
#include "basic/time-util.h"
#include "svd-log.h"

/* ---- watchers ---- */

int service_log_watch(ServiceLog *l, LogWatcher *w) {
        assert(l);
        assert(w);
        if (l->n_watchers >= LOGSTREAM_WATCHERS_MAX)
                return -EBUSY;
        LIST_PREPEND(watchers, l->watchers, w);
        l->n_watchers++;
        return 0;
}

void service_log_unwatch(ServiceLog *l, LogWatcher *w) {
        assert(l);
        assert(w);
        LIST_REMOVE(watchers, l->watchers, w);
        l->n_watchers--;
}

static void watchers_send(ServiceLog *l, const LogLine *line) {
        LogWatcher *w, *next;
        LIST_FOREACH_SAFE(watchers, w, next, l->watchers)
                w->line(w, line); /* may unlink itself, not others */
}

/* ---- svd's stdout and stderr ---- */

static struct {
        LogConsoleMode mode;
        int fd[2];          /* stdout, stderr: ours, -EBADF when not written */
        bool socket[2];
        uint64_t dropped[2]; /* lines that did not fit since the last one that did */
} console = { .fd = { -EBADF, -EBADF } };

/* A descriptor for svd's fd target that a write never blocks on. */
static int console_fd(int target, bool *ret_socket) {
        struct stat st;
        char path[32];

        if (fstat(target, &st) < 0)
                return -errno;
        *ret_socket = S_ISSOCK(st.st_mode);
        if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
                /* Opening the pipe or terminal again gives a file description
                 * of our own: O_NONBLOCK there leaves the one that services
                 * with StandardOutput=inherit share untouched. */
                snprintf(path, sizeof(path), "/proc/self/fd/%d", target);
                int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
                if (fd >= 0)
                        return fd;
        }
        /* A socket (sent to with MSG_DONTWAIT), a file, or no /proc. */
        int fd = fcntl(target, F_DUPFD_CLOEXEC, 3);
        return fd < 0 ? -errno : fd;
}

int service_log_console_open(LogConsoleMode mode) {
        service_log_console_close();
        if (mode == LOG_CONSOLE_OFF)
                return 0;
        for (int i = 0; i < 2; i++) {
                int fd = console_fd(STDOUT_FILENO + i, &console.socket[i]);
                if (fd < 0) {
                        service_log_console_close();
                        return fd;
                }
                console.fd[i] = fd;
        }
        console.mode = mode;
        return 0;
}

void service_log_console_close(void) {
        for (int i = 0; i < 2; i++) {
                console.fd[i] = safe_close(console.fd[i]);
                console.dropped[i] = 0;
        }
        console.mode = LOG_CONSOLE_OFF;
}

static ssize_t console_send(int i, const struct iovec *iov, int n) {
        if (console.socket[i])
                return sendmsg(console.fd[i], &(struct msghdr){ .msg_iov = (struct iovec *) iov, .msg_iovlen = n },
                               MSG_DONTWAIT | MSG_NOSIGNAL);
        return writev(console.fd[i], iov, n);
}

static void console_write(const char *name, LogStream stream, uint64_t usec, const char *text, size_t len) {
        int i = stream == LOGBUF_STREAM_STDERR ? 1 : 0;
        char stamp[64] = "";

        if (console.fd[i] < 0)
                return;
        if (console.mode == LOG_CONSOLE_TIME) {
                time_t t = (time_t) (usec / USEC_PER_SEC);
                struct tm tm;
                if (gmtime_r(&t, &tm)) {
                        size_t k = strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
                        snprintf(stamp + k, sizeof(stamp) - k, ".%06uZ ", (unsigned) (usec % USEC_PER_SEC));
                }
        }
        struct iovec iov[] = {
                { .iov_base = stamp, .iov_len = strlen(stamp) },
                { .iov_base = (char *) name, .iov_len = strlen(name) },
                { .iov_base = (char *) ": ", .iov_len = 2 },
                { .iov_base = (char *) text, .iov_len = len },
                { .iov_base = (char *) "\n", .iov_len = 1 },
        };
        size_t total = 0;
        for (size_t k = 0; k < ELEMENTSOF(iov); k++)
                total += iov[k].iov_len;

        ssize_t n = console_send(i, iov, ELEMENTSOF(iov));
        if (n < 0 && errno == EINTR)
                n = console_send(i, iov, ELEMENTSOF(iov));
        if (n < 0) {
                if (errno == EAGAIN) {
                        if (console.dropped[i]++ == 0)
                                log_warning("svd's %s is full: services' lines are not written there until it has "
                                            "room.", i ? "stderr" : "stdout");
                        return;
                }
                log_warning_errno(errno, "Failed to write service output to svd's %s, no longer doing so: %m",
                                  i ? "stderr" : "stdout");
                console.fd[i] = safe_close(console.fd[i]);
                return;
        }
        /* Lines over PIPE_BUF may go in part: the rest follows, waiting
         * for room a bounded time, so that lines never interleave. */
        size_t done = (size_t) n;
        for (int tries = 0; done < total && tries < 10; tries++) {
                struct pollfd pfd = { .fd = console.fd[i], .events = POLLOUT };
                (void) poll(&pfd, 1, 100);
                size_t skip = done;
                struct iovec rest[ELEMENTSOF(iov)];
                int m = 0;
                for (size_t k = 0; k < ELEMENTSOF(iov); k++) {
                        if (skip >= iov[k].iov_len) {
                                skip -= iov[k].iov_len;
                                continue;
                        }
                        rest[m++] = (struct iovec){ .iov_base = (char *) iov[k].iov_base + skip,
                                                    .iov_len = iov[k].iov_len - skip };
                        skip = 0;
                }
                n = console_send(i, rest, m);
                if (n > 0)
                        done += (size_t) n;
                else if (n < 0 && errno != EAGAIN && errno != EINTR)
                        break;
        }
        if (console.dropped[i] > 0) {
                log_notice("%" PRIu64 " lines of service output were not written to svd's %s: it was full.",
                            console.dropped[i], i ? "stderr" : "stdout");
                console.dropped[i] = 0;
        }
}

/* ---- lines in ---- */

static void service_log_add(ServiceLog *l, LogStream stream, unsigned flags, const char *text, size_t len) {
        const LogLine *line;
        if (logbuf_append(&l->buffer, stream, now_usec(CLOCK_REALTIME), flags, text, len, &line) < 0) {
                log_oom();
                return;
        }
        if (console.mode != LOG_CONSOLE_OFF && stream != LOGBUF_STREAM_SVD)
                console_write(l->name, stream, line->usec, line->text, line->len);
        watchers_send(l, line);
}

static void on_line(const char *text, size_t len, unsigned flags, void *userdata) {
        LogPipe *p = userdata;
        ServiceLog *l = p->log;
        uint64_t report;

        if (p->file) {
                int r = logfile_write_line(p->file, text, len);
                if (r < 0 && p->file->write_errors <= 1)
                        log_warning_errno(r, "%s: Failed to write to '%s', counting further failures: %m", l->name,
                                          p->file->path);
        }
        bool pass = log_rate_limit_test(&l->rate, now_usec(CLOCK_MONOTONIC), &report);
        if (report > 0) {
                char msg[128];
                int n = snprintf(msg, sizeof(msg), "%" PRIu64 " lines dropped (more than %u lines in %llu ms)",
                                 report, LOGBUF_RATE_BURST, (unsigned long long) (LOGBUF_RATE_INTERVAL_USEC / USEC_PER_MSEC));
                log_notice("%s: %s", l->name, msg);
                service_log_add(l, LOGBUF_STREAM_SVD, 0, msg, (size_t) n);
        }
        if (!pass) {
                l->dropped++;
                return;
        }
        service_log_add(l, p->stream, flags, text, len);
}

static void log_files_close(ServiceLog *l) {
        if (l->files[1] != l->files[0])
                logfile_free(l->files[1]);
        logfile_free(l->files[0]);
        l->files[0] = l->files[1] = NULL;
}

static void log_pipe_close(LogPipe *p) {
        ServiceLog *l = p->log;

        if (p->fd >= 0)
                log_splitter_flush(&p->splitter, on_line, p);
        log_splitter_done(&p->splitter);
        p->source = sd_event_source_disable_unref(p->source);
        p->fd = safe_close(p->fd);
        p->child_fd = safe_close(p->child_fd);
        p->file = NULL;
        /* Nobody writes to the files any more: a stopped service holds no fd (a later process of the
         * same start opens them again, to append). */
        bool open = false;
        for (size_t i = 0; i < ELEMENTSOF(l->pipes); i++)
                open = open || l->pipes[i].fd >= 0 || l->pipes[i].child_fd >= 0;
        if (!open)
                log_files_close(l);
}

/* The pipes are watched edge-triggered, as pidfds are (process.h): when a thousand services end at
 * once, their pipes' EOFs would otherwise be polled again by every epoll_wait() until each one's turn.
 * So a read goes on to EAGAIN, or stops at its bound and arms the edge again, which reports the pipe
 * at once when it still holds data. */
#define LOG_PIPE_EVENTS (EPOLLIN | EPOLLET)

/* Reads up to max bytes. Returns 1 when the pipe is still open, 0 when it was closed (EOF or error). */
static int log_pipe_read(LogPipe *p, size_t max) {
        char buf[8192];
        size_t total = 0;

        while (p->fd >= 0) {
                if (total >= max) {
                        int r = sd_event_source_set_io_events(p->source, LOG_PIPE_EVENTS);
                        if (r < 0) {
                                log_warning_errno(r, "%s: Failed to watch %s again, closing it: %m", p->log->name,
                                                  log_stream_to_string(p->stream));
                                log_pipe_close(p);
                        }
                        break;
                }
                ssize_t n = read(p->fd, buf, sizeof(buf));
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EAGAIN)
                                return 1;
                        log_debug_errno(errno, "%s: Failed to read %s, closing it: %m", p->log->name,
                                        log_stream_to_string(p->stream));
                        log_pipe_close(p);
                        return 0;
                }
                if (n == 0) {
                        log_pipe_close(p);
                        return 0;
                }
                log_splitter_feed(&p->splitter, buf, (size_t) n, on_line, p);
                total += (size_t) n;
        }
        return p->fd >= 0;
}

static int on_pipe_event(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        (void) log_pipe_read(userdata, LOGSTREAM_READ_MAX);
        return 0;
}

void service_log_drain(ServiceLog *l) {
        assert(l);
        for (size_t i = 0; i < ELEMENTSOF(l->pipes); i++)
                (void) log_pipe_read(&l->pipes[i], LOGSTREAM_DRAIN_MAX);
}

/* ---- spawning ---- */

static void service_log_close(ServiceLog *l) {
        for (size_t i = 0; i < ELEMENTSOF(l->pipes); i++) {
                (void) log_pipe_read(&l->pipes[i], LOGSTREAM_DRAIN_MAX);
                log_pipe_close(&l->pipes[i]);
        }
        log_files_close(l);
        l->null_fd = safe_close(l->null_fd);
}

static int log_pipe_open(ServiceLog *l, LogPipe *p, LogFile *file) {
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) < 0)
                return -errno;
        p->fd = fds[0];
        p->child_fd = fds[1];
        p->file = file;
        p->splitter.len = 0;
        /* Only svd's end: the service's stays blocking, as a program expects of its stdout. */
        if (fcntl(p->fd, F_SETFL, O_NONBLOCK) < 0)
                return -errno;
        return sd_event_add_io(l->event, &p->source, p->fd, LOG_PIPE_EVENTS, on_pipe_event, p);
}

/* A write end of p's pipe for one more process: the pipe is opened anew through /proc/self/fd (a pipe
 * opened there by path is the same pipe, with a file description of its own, blocking). */
static int log_pipe_reopen(LogPipe *p) {
        char path[sizeof("/proc/self/fd/") + 12];

        snprintf(path, sizeof(path), "/proc/self/fd/%d", p->fd);
        int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        safe_close(p->child_fd);
        p->child_fd = fd;
        return 0;
}

/* The output fds of one process of a start: attach false for the start's first one (the files
 * opened and truncated as the unit says, new pipes), true for the processes after it (the same files,
 * the same pipes opened once more; a file closed since is opened again, appended to). */
static int log_setup(ServiceLog *l, const Unit *u, bool attach, int *ret_stdout_fd, int *ret_stderr_fd,
                     char **ret_error) {
        LogOutput out[2] = { u->std_output, u->std_error };
        const char *path[2] = { u->std_output_path, u->std_error_path };
        int fd[2] = { 0, 0 };
        int r;

        assert(l);
        assert(u);

        if (!attach)
                service_log_close(l);

        /* StandardError=inherit: whatever stdout gets (systemd's meaning). */
        if (out[1] == LOG_OUTPUT_INHERIT) {
                out[1] = out[0];
                path[1] = path[0];
        }
        /* Both to the log, or both to one file: one pipe, one stream, as systemd's journal takes them
         * (its _TRANSPORT=stdout covers both), and one fd in svd per service. */
        bool shared = (out[0] == LOG_OUTPUT_LOG && out[1] == LOG_OUTPUT_LOG) ||
                      (IN_SET(out[0], LOG_OUTPUT_FILE, LOG_OUTPUT_APPEND) &&
                       IN_SET(out[1], LOG_OUTPUT_FILE, LOG_OUTPUT_APPEND) && streq_ptr(path[0], path[1]));

        for (size_t i = 0; i < 2; i++) {
                LogFile *file = NULL;
                if (i == 1 && shared) {
                        l->files[1] = l->files[0];
                        fd[1] = fd[0];
                        break;
                }
                switch (out[i]) {
                case LOG_OUTPUT_INHERIT:
                        fd[i] = 0; /* svd's own stdout, or stderr */
                        break;
                case LOG_OUTPUT_TTY:
                        fd[i] = 0; /* the child opens TTYPath= itself (SpawnParams.stdout_tty) */
                        break;
                case LOG_OUTPUT_SOCKET:
                        fd[i] = 0; /* the connection, which the caller puts in (service-exec.h) */
                        break;
                case LOG_OUTPUT_NULL:
                        if (l->null_fd < 0) {
                                l->null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC | O_NOCTTY);
                                if (l->null_fd < 0) {
                                        r = -errno;
                                        goto fail;
                                }
                        }
                        fd[i] = l->null_fd;
                        break;
                case LOG_OUTPUT_FILE:
                case LOG_OUTPUT_APPEND:
                        if (i == 1 && l->files[0] && streq(l->files[0]->path, path[1]))
                                file = l->files[0];
                        else if (attach && l->files[i])
                                file = l->files[i];
                        else {
                                r = logfile_open(path[i], !attach && out[i] == LOG_OUTPUT_FILE, u->log_rotate_size,
                                                 u->log_rotate_keep, &file);
                                if (r < 0) {
                                        if (ret_error && asprintf(ret_error, "Failed to open '%s' for %s: %s",
                                                                  path[i], i == 0 ? "StandardOutput=" : "StandardError=",
                                                                  strerror(-r)) < 0)
                                                *ret_error = NULL;
                                        if (!attach)
                                                service_log_close(l);
                                        return r;
                                }
                        }
                        l->files[i] = file;
                        _fallthrough_;
                case LOG_OUTPUT_LOG:
                        if (attach && l->pipes[i].fd >= 0)
                                r = log_pipe_reopen(&l->pipes[i]);
                        else
                                r = log_pipe_open(l, &l->pipes[i], file);
                        if (r < 0)
                                goto fail;
                        fd[i] = l->pipes[i].child_fd;
                        break;
                default:
                        assert(!"bad LogOutput");
                }
        }
        *ret_stdout_fd = fd[0];
        *ret_stderr_fd = fd[1];
        return 0;

fail:
        if (ret_error && asprintf(ret_error, "Failed to set up the output pipes: %s", strerror(-r)) < 0)
                *ret_error = NULL;
        if (attach)
                service_log_spawned(l);
        else
                service_log_close(l);
        return r;
}

int service_log_prepare(ServiceLog *l, const Unit *u, int *ret_stdout_fd, int *ret_stderr_fd, char **ret_error) {
        return log_setup(l, u, /* attach= */ false, ret_stdout_fd, ret_stderr_fd, ret_error);
}

int service_log_attach(ServiceLog *l, const Unit *u, int *ret_stdout_fd, int *ret_stderr_fd, char **ret_error) {
        return log_setup(l, u, /* attach= */ true, ret_stdout_fd, ret_stderr_fd, ret_error);
}

void service_log_spawned(ServiceLog *l) {
        assert(l);
        for (size_t i = 0; i < ELEMENTSOF(l->pipes); i++)
                l->pipes[i].child_fd = safe_close(l->pipes[i].child_fd);
        l->null_fd = safe_close(l->null_fd);
}

/* ---- life cycle ---- */

int service_log_new(sd_event *event, const char *name, ServiceLog **ret) {
        assert(event);
        assert(name);
        assert(ret);

        ServiceLog *l = calloc(1, sizeof(*l));
        if (!l)
                return -ENOMEM;
        *l = (ServiceLog){ .event = event, .name = name, .null_fd = -EBADF };
        for (size_t i = 0; i < ELEMENTSOF(l->pipes); i++)
                l->pipes[i] = (LogPipe){ .log = l, .stream = (LogStream) i, .fd = -EBADF, .child_fd = -EBADF };
        logbuf_init(&l->buffer, LOGBUF_LINES_MAX, LOGBUF_BYTES_MAX);
        *ret = l;
        return 0;
}

ServiceLog *service_log_free(ServiceLog *l) {
        if (!l)
                return NULL;
        /* Watchers are told: the stream ends with the service. */
        while (l->watchers) {
                LogWatcher *w = l->watchers;
                service_log_unwatch(l, w);
                w->closed(w);
        }
        service_log_close(l);
        logbuf_done(&l->buffer);
        free(l);
        return NULL;
}

/* ---- re-exec ---- */

static json_t *log_file_serialize(LogFile *f, ReexecFds *fds) {
        if (!f)
                return json_null();
        return json_pack("{s:o,s:s,s:I,s:I,s:i}", "fd", reexec_fd_to_json(fds, f->fd), "path", f->path, "size",
                         (json_int_t) f->size, "writeErrors", (json_int_t) f->write_errors, "lastError",
                         f->last_error);
}

json_t *service_log_serialize(ServiceLog *l, ReexecFds *fds) {
        json_t *lines = json_array(), *pipes = json_array(), *files = json_array();
        json_t *o = json_pack("{s:o,s:o,s:o}", "lines", lines, "pipes", pipes, "files", files);
        if (!o)
                return NULL;
        for (const LogLine *line = l->buffer.head; line; line = line->next)
                if (json_array_append_new(lines, json_pack("{s:I,s:I,s:i,s:i,s:o}", "seqnum", (json_int_t) line->seqnum,
                                                           "usec", (json_int_t) line->usec, "stream", (int) line->stream,
                                                           "flags", (int) line->flags, "text",
                                                           reexec_bytes_to_json(line->text, line->len))) < 0)
                        goto oom;
        for (size_t i = 0; i < ELEMENTSOF(l->pipes); i++) {
                LogPipe *p = &l->pipes[i];
                /* child_fd and null_fd live only between prepare and spawn, within one event. */
                assert(p->child_fd < 0);
                if (json_array_append_new(pipes, json_pack("{s:o,s:o}", "fd", reexec_fd_to_json(fds, p->fd),
                                                           "partial",
                                                           reexec_bytes_to_json(p->splitter.buf ?: "", p->splitter.len))) < 0)
                        goto oom;
        }
        if (json_array_append_new(files, log_file_serialize(l->files[0], fds)) < 0 ||
            json_array_append_new(files, l->files[1] && l->files[1] == l->files[0] ? json_string("same")
                                                                                  : log_file_serialize(l->files[1], fds)) < 0)
                goto oom;
        if (json_object_set_new(o, "nextSeqnum", json_integer((json_int_t) l->buffer.next_seqnum)) < 0 ||
            json_object_set_new(o, "evicted", json_integer((json_int_t) l->buffer.evicted)) < 0 ||
            json_object_set_new(o, "rate", json_pack("{s:I,s:i,s:I}", "beginUsec", (json_int_t) l->rate.begin_usec, "n",
                                                     (int) l->rate.n, "dropped", (json_int_t) l->rate.dropped)) < 0 ||
            json_object_set_new(o, "dropped", json_integer((json_int_t) l->dropped)) < 0)
                goto oom;
        return o;
oom:
        json_decref(o);
        return NULL;
}

static int log_file_deserialize(json_t *j, const Unit *u, LogFile **ret) {
        *ret = NULL;
        if (!json_is_object(j))
                return 0;
        int fd = reexec_fd_take(j, "fd");
        const char *path = reexec_str(j, "path");
        if (fd < 0 || !path)
                return fd < 0 ? fd : -EINVAL;
        /* The path it was opened as, the unit's rotation settings. */
        int r = logfile_adopt(fd, path, reexec_u64(j, "size", 0), u ? u->log_rotate_size : 0,
                              u ? u->log_rotate_keep : 0, ret);
        if (r < 0)
                return r;
        (*ret)->write_errors = reexec_u64(j, "writeErrors", 0);
        (*ret)->last_error = (int) reexec_i64(j, "lastError", 0);
        return 0;
}

int service_log_deserialize(ServiceLog *l, json_t *o, const Unit *u) {
        json_t *lines = json_object_get(o, "lines"), *pipes = json_object_get(o, "pipes"),
               *files = json_object_get(o, "files"), *line;
        size_t i;
        int r;

        assert(l);
        if (!json_is_object(o))
                return -EINVAL;

        json_array_foreach(lines, i, line) {
                _cleanup_free_ char *text = NULL;
                size_t len;
                LogStream stream = (LogStream) reexec_i64(line, "stream", LOGBUF_STREAM_STDOUT);
                if (stream < 0 || stream >= _LOGBUF_STREAM_MAX)
                        stream = LOGBUF_STREAM_SVD;
                r = reexec_bytes_from_json(json_object_get(line, "text"), &text, &len);
                if (r < 0)
                        return r;
                if (i == 0)
                        l->buffer.next_seqnum = reexec_u64(line, "seqnum", 1);
                r = logbuf_append(&l->buffer, stream, reexec_u64(line, "usec", 0),
                                  (unsigned) reexec_i64(line, "flags", 0), text, len, NULL);
                if (r < 0)
                        return r;
        }
        l->buffer.next_seqnum = reexec_u64(o, "nextSeqnum", l->buffer.next_seqnum);
        l->buffer.evicted = reexec_u64(o, "evicted", 0);
        json_t *rate = json_object_get(o, "rate");
        l->rate = (LogRateLimit){ .begin_usec = reexec_u64(rate, "beginUsec", 0),
                                  .n = (unsigned) reexec_u64(rate, "n", 0),
                                  .dropped = reexec_u64(rate, "dropped", 0) };
        l->dropped = reexec_u64(o, "dropped", 0);

        for (i = 0; i < 2; i++) {
                json_t *f = json_array_get(files, i);
                if (i == 1 && json_is_string(f) && streq(json_string_value(f), "same"))
                        l->files[1] = l->files[0];
                else {
                        r = log_file_deserialize(f, u, &l->files[i]);
                        if (r < 0)
                                return r;
                }
        }
        for (i = 0; i < ELEMENTSOF(l->pipes); i++) {
                json_t *pj = json_array_get(pipes, i);
                LogPipe *p = &l->pipes[i];
                int fd = reexec_fd_take(pj, "fd");
                if (fd == -EBADF)
                        continue;
                if (fd < 0)
                        return fd;
                p->fd = fd;
                p->file = l->files[i];
                r = sd_event_add_io(l->event, &p->source, p->fd, LOG_PIPE_EVENTS, on_pipe_event, p);
                if (r < 0)
                        return r;
                _cleanup_free_ char *partial = NULL;
                size_t len = 0;
                r = reexec_bytes_from_json(json_object_get(pj, "partial"), &partial, &len);
                if (r < 0)
                        return r;
                /* Less than a line, so it only fills the splitter's buffer again. */
                log_splitter_feed(&p->splitter, partial, len, on_line, p);
        }
        return 0;
}
