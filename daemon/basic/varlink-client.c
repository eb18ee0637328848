/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The varlink client of svctl and the tests: one connection, one call at a time, with deadlines. */
#include "varlink-client.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "macros.h"

/* A stuck server with a full listen backlog makes a blocking connect() on an
 * AF_UNIX socket wait for room; SO_SNDTIMEO bounds that wait (see
 * unix_stream_connect() in net/unix/af_unix.c, which honours it). */
#define VARLINK_CLIENT_CONNECT_TIMEOUT_USEC (10 * USEC_PER_SEC)

/* How long a call may wait for room in the socket buffer when the server
 * does not read. Calls are small, so this only matters for a stuck server. */
#define VARLINK_CLIENT_SEND_TIMEOUT_USEC (10 * USEC_PER_SEC)

static uint64_t now_usec(void) {
        struct timespec ts;

        /* CLOCK_MONOTONIC cannot fail with a valid pointer. */
        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / NSEC_PER_USEC;
}

static uint64_t deadline_after(uint64_t timeout_usec) {
        if (timeout_usec == USEC_INFINITY)
                return USEC_INFINITY;
        uint64_t n = now_usec();
        return timeout_usec >= USEC_INFINITY - n ? USEC_INFINITY : n + timeout_usec;
}

static uint64_t remaining_until(uint64_t deadline) {
        if (deadline == USEC_INFINITY)
                return USEC_INFINITY;
        uint64_t n = now_usec();
        return n >= deadline ? 0 : deadline - n;
}

/* Waits until fd reports one of events, or the deadline passes. Returns 0
 * when the fd is ready (or has an error or hang-up that the next I/O call
 * will report), -ETIMEDOUT, or another -errno. */
static int fd_wait_until(int fd, short events, uint64_t deadline) {
        for (;;) {
                int timeout_ms = -1;

                if (deadline != USEC_INFINITY) {
                        uint64_t left = remaining_until(deadline);
                        if (left == 0)
                                return -ETIMEDOUT;
                        /* Round up, so that poll() never returns just before the deadline. */
                        uint64_t ms = (left + USEC_PER_MSEC - 1) / USEC_PER_MSEC;
                        timeout_ms = ms > INT_MAX ? INT_MAX : (int) ms;
                }

                struct pollfd p = { .fd = fd, .events = events };
                int n = poll(&p, 1, timeout_ms);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        continue; /* the deadline check above decides */
                if (p.revents & POLLNVAL)
                        return -EBADF;
                return 0;
        }
}

/* After a protocol error or a lost reply the stream cannot be resynchronised:
 * the connection is closed and later calls get -ENOTCONN. */
static int client_poison(VarlinkClient *c, int r) {
        c->fd = safe_close(c->fd);
        return r;
}

int varlink_client_connect(const char *path, VarlinkClient **ret) {
        assert(path);
        assert(ret);

        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        size_t l = strlen(path);
        if (l == 0)
                return -EINVAL;
        if (l >= sizeof(sa.sun_path))
                return -ENAMETOOLONG;
        memcpy(sa.sun_path, path, l);

        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;

        struct timeval tv = {
                .tv_sec = VARLINK_CLIENT_CONNECT_TIMEOUT_USEC / USEC_PER_SEC,
                .tv_usec = VARLINK_CLIENT_CONNECT_TIMEOUT_USEC % USEC_PER_SEC,
        };
        if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
                return -errno;

        socklen_t salen = (socklen_t) (offsetof(struct sockaddr_un, sun_path) + l + 1);
        for (;;) {
                if (connect(fd, (const struct sockaddr *) &sa, salen) >= 0)
                        break;
                if (errno == EINTR)
                        continue;
                if (errno == EISCONN) /* an interrupted attempt went through after all */
                        break;
                /* AF_UNIX connect() reports an expired SO_SNDTIMEO as EAGAIN. */
                return errno == EAGAIN ? -ETIMEDOUT : -errno;
        }

        /* From here on every wait is a poll() with a deadline. */
        int flags = fcntl(fd, F_GETFL);
        if (flags < 0)
                return -errno;
        if (fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
                return -errno;

        VarlinkClient *c = malloc(sizeof(*c));
        if (!c)
                return -ENOMEM;
        *c = (VarlinkClient){ .fd = TAKE_FD(fd) };
        varlink_buffer_init(&c->in, VARLINK_MESSAGE_MAX);

        *ret = c;
        return 0;
}

VarlinkClient *varlink_client_free(VarlinkClient *c) {
        if (!c)
                return NULL;

        c->fd = safe_close(c->fd);
        varlink_buffer_done(&c->in);
        free(c);
        return NULL;
}

static int send_all(int fd, const char *buf, size_t len, uint64_t deadline) {
        size_t done = 0;

        while (done < len) {
                /* MSG_NOSIGNAL: a server that went away gives EPIPE, not a SIGPIPE that kills svctl. */
                ssize_t n = send(fd, buf + done, len - done, MSG_NOSIGNAL);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EAGAIN) {
                                int r = fd_wait_until(fd, POLLOUT, deadline);
                                if (r < 0)
                                        return r;
                                continue;
                        }
                        return errno == EPIPE ? -ECONNRESET : -errno;
                }
                done += (size_t) n;
        }

        return 0;
}

int varlink_client_send(VarlinkClient *c, const char *method, json_t *parameters, bool more) {
        int r;

        assert(c);
        assert(method);

        if (c->fd < 0)
                return -ENOTCONN;
        if (parameters && !json_is_object(parameters))
                return -EINVAL;

        _cleanup_json_ json_t *call = json_object();
        if (!call)
                return -ENOMEM;

        json_t *m = json_string(method);
        if (!m) /* not UTF-8 */
                return -EINVAL;
        if (json_object_set_new(call, "method", m) < 0)
                return -ENOMEM;
        if (parameters && json_object_set(call, "parameters", parameters) < 0)
                return -ENOMEM;
        if (more && json_object_set_new(call, "more", json_true()) < 0)
                return -ENOMEM;

        _cleanup_free_ char *text = NULL;
        size_t len;
        r = varlink_message_format(call, &text, &len);
        if (r < 0)
                return r;

        r = send_all(c->fd, text, len, deadline_after(VARLINK_CLIENT_SEND_TIMEOUT_USEC));
        if (r < 0)
                /* Part of the call may be on the wire: the stream is no longer in a known state. */
                return client_poison(c, r);

        return 0;
}

/* A reply is an object with only "parameters" (an object; null is taken as
 * absent), "continues" (a bool) and "error" (a non-empty string); an error is
 * always final. sd-varlink's client drops the connection on anything else,
 * and so do we. */
static int reply_validate(json_t *reply) {
        const char *key;
        json_t *v;

        json_object_foreach(reply, key, v) {
                if (streq(key, "parameters")) {
                        if (!json_is_object(v) && !json_is_null(v))
                                return -EBADMSG;
                } else if (streq(key, "continues")) {
                        if (!json_is_boolean(v))
                                return -EBADMSG;
                } else if (streq(key, "error")) {
                        if (!json_is_string(v) || json_string_length(v) == 0)
                                return -EBADMSG;
                } else
                        return -EBADMSG;
        }

        if (json_is_true(json_object_get(reply, "continues")) && json_object_get(reply, "error"))
                return -EBADMSG;

        return 0;
}

static int client_read_until(VarlinkClient *c, uint64_t deadline, json_t **ret) {
        int r;

        if (c->fd < 0)
                return -ENOTCONN;

        for (;;) {
                const char *text;
                size_t len;

                r = varlink_buffer_next(&c->in, &text, &len);
                if (r < 0)
                        return client_poison(c, r);
                if (r > 0) {
                        _cleanup_json_ json_t *reply = NULL;

                        r = varlink_message_parse(text, len, &reply);
                        if (r < 0)
                                return client_poison(c, r);
                        r = reply_validate(reply);
                        if (r < 0)
                                return client_poison(c, r);

                        *ret = TAKE_PTR(reply);
                        return 0;
                }

                ssize_t n = varlink_buffer_read(&c->in, c->fd);
                if (n > 0)
                        continue;
                if (n == 0) /* EOF, possibly in the middle of a message */
                        return client_poison(c, -ECONNRESET);
                if (n != -EAGAIN)
                        return client_poison(c, n == -EPIPE ? -ECONNRESET : (int) n);

                /* A timeout leaves the stream intact: nothing was consumed, and
                 * the caller may read again. */
                r = fd_wait_until(c->fd, POLLIN, deadline);
                if (r == -ETIMEDOUT)
                        return r;
                if (r < 0)
                        return client_poison(c, r);
        }
}

int varlink_client_read(VarlinkClient *c, uint64_t timeout_usec, json_t **ret) {
        assert(c);
        assert(ret);

        return client_read_until(c, deadline_after(timeout_usec), ret);
}

int varlink_client_call(VarlinkClient *c, const char *method, json_t *parameters, uint64_t timeout_usec,
                        json_t **ret_reply, const char **ret_error) {
        _cleanup_json_ json_t *reply = NULL;
        int r;

        assert(c);
        assert(method);
        assert(ret_reply);

        uint64_t deadline = deadline_after(timeout_usec);

        r = varlink_client_send(c, method, parameters, /* more= */ false);
        if (r < 0)
                return r;

        r = client_read_until(c, deadline, &reply);
        if (r < 0)
                /* A reply that comes late would be taken for the answer to the next call. */
                return client_poison(c, r);

        /* We never ask for more, so a server that streams anyway breaks the
         * protocol (sd-varlink's client drops the connection, too). */
        if (json_is_true(json_object_get(reply, "continues")))
                return client_poison(c, -EBADMSG);

        if (ret_error)
                *ret_error = json_string_value(json_object_get(reply, "error"));
        *ret_reply = TAKE_PTR(reply);
        return 0;
}
