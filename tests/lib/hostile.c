/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hostile: a misbehaving varlink client, for tests/integration/hostile-*.sh
 * and exhaust-*.sh. It does the socket work that POSIX sh cannot: bytes that
 * are not text, connections by the thousand, writes without reads, closing
 * in the middle of a call, and timing with a monotonic clock.
 *
 *   hostile SOCKET latency [NAME]
 *       connect, call io.svd.Manager.Status {name: NAME} (Info without NAME),
 *       read the reply. Prints "latency_us=N reply=ok|error|closed|timeout".
 *       Exit 0 only for a reply without "error".
 *   hostile SOCKET call JSON...
 *       one connection; each JSON is sent as a message and its reply read
 *       before the next. Prints each reply on a line, "closed" or "timeout".
 *   hostile SOCKET batch JSON...
 *       one connection; sends all messages in one write, then prints every
 *       reply, one a line, until the server closes ("closed") or goes quiet
 *       ("timeout" after 2 s).
 *   hostile SOCKET stream HOLD_MS READ_MS JSON
 *       sends the call (it should ask for "more"), reads nothing for
 *       HOLD_MS (a slow reader), then reads for READ_MS, or until the
 *       server reports that it skipped something for it, or sends its final
 *       reply. Prints "replies=N bytes=N dropped=N closed=yes|no
 *       final=yes|no", dropped being the sum of the "dropped" counts the
 *       server reported (what it skipped for us).
 *   hostile SOCKET send JSON...
 *       one connection; sends the messages and closes without reading.
 *   hostile SOCKET half JSON
 *       sends the first half of the message (no NUL) and closes.
 *   hostile SOCKET random BYTES SEED
 *       sends BYTES pseudo-random bytes (NULs included), then reads until
 *       the server closes. Prints "sent=N received=N closed=yes|no".
 *   hostile SOCKET endless BYTES
 *       starts a call and sends BYTES more bytes of one string, never a NUL.
 *       Prints "sent=N closed=yes|no"; exit 0 when the server closed first.
 *   hostile SOCKET nested DEPTH
 *       a call whose parameters nest DEPTH arrays. Prints the reply or "closed".
 *   hostile SOCKET partial CONNS BYTES HOLD_MS
 *       CONNS connections, each with an unterminated message of BYTES bytes,
 *       held HOLD_MS. Prints "connections=N" once they are all sent, then
 *       "closed_by_server=N" at the end.
 *   hostile SOCKET idle CONNS HOLD_MS [JSON...]
 *       opens CONNS connections and sends nothing. Once the server has
 *       dealt with them (below) prints "open=N closed_by_server=M"; then sends each JSON in turn on the
 *       first connection still open and prints "first: latency_us=N REPLY".
 *       Holds them HOLD_MS, then closes them all.
 *   hostile SOCKET pipeline N HOLD_MS NAME...
 *       sends N Status calls (NAME cycling) without reading, until all are
 *       sent or the socket has been full for 500 ms. Prints "sent=N", holds
 *       HOLD_MS without reading, then reads every reply while sending the
 *       rest. Prints "replies=N in_order=yes|no errors=N". HOLD_MS < 0:
 *       close after the hold instead of reading ("closed_unread").
 *
 * Timeouts: 10 s for any reply (HOSTILE_TIMEOUT_MS overrides). Exit 0 on
 * success, 1 when the server did not behave as described, 2 on bad usage or
 * a local failure.
 *
 * Self-contained (C11 and Linux headers, no project code, no JSON library)
 * like the other helpers here, so that the kernel lab can build it.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define CONNS_MAX 65536
#define REPLY_MAX (64U << 20)
#define DEFAULT_TIMEOUT_MS 10000
#define PIPELINE_STALL_MS 500

static const char *sock_path;
static int timeout_ms = DEFAULT_TIMEOUT_MS;

static int64_t now_us(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void sleep_ms(long ms) {
        struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

static _Noreturn void die(const char *what) {
        fprintf(stderr, "hostile: %s: %s\n", what, strerror(errno));
        exit(2);
}

/* Returns a connected, non-blocking socket, or -errno. */
static int connect_server(void) {
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        if (strlen(sock_path) >= sizeof(sa.sun_path)) {
                errno = ENAMETOOLONG;
                return -ENAMETOOLONG;
        }
        strcpy(sa.sun_path, sock_path);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        if (connect(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
                int r = -errno;
                close(fd);
                return r;
        }
        if (fcntl(fd, F_SETFL, O_NONBLOCK) < 0) {
                int r = -errno;
                close(fd);
                return r;
        }
        return fd;
}

static int connect_or_die(void) {
        int fd = connect_server();
        if (fd < 0) {
                errno = -fd;
                die("connect");
        }
        return fd;
}

/* Writes all of data, waiting up to stall_ms at a time for room. Returns the
 * bytes written; stops early when the peer closed or the socket stayed full. */
static size_t send_all(int fd, const void *data, size_t n, int stall_ms, bool *ret_closed) {
        size_t off = 0;
        *ret_closed = false;
        while (off < n) {
                ssize_t w = send(fd, (const char *) data + off, n - off, MSG_NOSIGNAL | MSG_DONTWAIT);
                if (w > 0) {
                        off += (size_t) w;
                        continue;
                }
                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0 && errno != EAGAIN) {
                        *ret_closed = true; /* EPIPE, ECONNRESET */
                        break;
                }
                struct pollfd p = {.fd = fd, .events = POLLOUT};
                int k = poll(&p, 1, stall_ms);
                if (k == 0)
                        break;
                if (k > 0 && (p.revents & (POLLHUP | POLLERR)) && !(p.revents & POLLOUT)) {
                        *ret_closed = true;
                        break;
                }
        }
        return off;
}

typedef struct Input {
        char *data;
        size_t size, allocated, start;
} Input;

typedef enum ReadResult { READ_MESSAGE, READ_CLOSED, READ_TIMEOUT } ReadResult;

/* Reads until a whole message is there; *ret points into in (valid until
 * the next call). */
static ReadResult read_message(int fd, Input *in, int wait_ms, char **ret) {
        int64_t deadline = now_us() + (int64_t) wait_ms * 1000;
        for (;;) {
                char *nul =
                    in->size > in->start ? memchr(in->data + in->start, 0, in->size - in->start) : NULL;
                if (nul) {
                        *ret = in->data + in->start;
                        in->start = (size_t) (nul - in->data) + 1;
                        return READ_MESSAGE;
                }
                if (in->start > 0) {
                        memmove(in->data, in->data + in->start, in->size - in->start);
                        in->size -= in->start;
                        in->start = 0;
                }
                if (in->allocated - in->size < 65536) {
                        if (in->allocated >= REPLY_MAX) {
                                errno = EMSGSIZE;
                                die("reply too large");
                        }
                        in->allocated = in->allocated ? in->allocated * 2 : 131072;
                        in->data = realloc(in->data, in->allocated);
                        if (!in->data)
                                die("realloc");
                }
                ssize_t n = recv(fd, in->data + in->size, in->allocated - in->size, MSG_DONTWAIT);
                if (n > 0) {
                        in->size += (size_t) n;
                        continue;
                }
                if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
                        return READ_CLOSED;
                int64_t left = deadline - now_us();
                if (left <= 0)
                        return READ_TIMEOUT;
                struct pollfd p = {.fd = fd, .events = POLLIN};
                (void) poll(&p, 1, (int) ((left + 999) / 1000));
        }
}

/* Sends one message (text plus NUL). */
static bool send_message(int fd, const char *json) {
        bool closed;
        size_t n = strlen(json) + 1;
        return send_all(fd, json, n, timeout_ms, &closed) == n;
}

static const char *result_name(ReadResult r) {
        return r == READ_CLOSED ? "closed" : "timeout";
}

/* ---- commands ---- */

static int cmd_latency(int argc, char **argv) {
        char call[512];
        if (argc > 0)
                snprintf(call, sizeof(call),
                         "{\"method\":\"io.svd.Manager.Status\",\"parameters\":{\"name\":\"%s\"}}", argv[0]);
        else
                snprintf(call, sizeof(call), "{\"method\":\"io.svd.Manager.Info\"}");

        int64_t t0 = now_us();
        int fd = connect_or_die();
        Input in = {};
        char *reply;
        const char *result;
        if (!send_message(fd, call))
                result = "closed";
        else {
                ReadResult r = read_message(fd, &in, timeout_ms, &reply);
                if (r != READ_MESSAGE)
                        result = result_name(r);
                else
                        result = strstr(reply, "\"error\"") ? "error" : "ok";
        }
        int64_t t = now_us() - t0;
        close(fd);
        free(in.data);
        printf("latency_us=%lld reply=%s\n", (long long) t, result);
        return strcmp(result, "ok") == 0 ? 0 : 1;
}

static int cmd_call(int argc, char **argv) {
        int fd = connect_or_die();
        Input in = {};
        int r = 0;
        for (int i = 0; i < argc; i++) {
                char *reply;
                if (!send_message(fd, argv[i])) {
                        printf("closed\n");
                        r = 1;
                        break;
                }
                ReadResult k = read_message(fd, &in, timeout_ms, &reply);
                if (k != READ_MESSAGE) {
                        printf("%s\n", result_name(k));
                        r = 1;
                        break;
                }
                printf("%s\n", reply);
        }
        close(fd);
        free(in.data);
        return r;
}

static int cmd_batch(int argc, char **argv) {
        size_t len = 0;
        for (int i = 0; i < argc; i++)
                len += strlen(argv[i]) + 1;
        char *buf = malloc(len ? len : 1), *p = buf;
        if (!buf)
                die("malloc");
        for (int i = 0; i < argc; i++)
                p = stpcpy(p, argv[i]) + 1;
        int fd = connect_or_die();
        bool closed;
        (void) send_all(fd, buf, len, timeout_ms, &closed);
        Input in = {};
        for (;;) {
                char *reply;
                ReadResult k = read_message(fd, &in, 2000, &reply);
                if (k != READ_MESSAGE) {
                        printf("%s\n", result_name(k));
                        break;
                }
                printf("%s\n", reply);
        }
        close(fd);
        free(in.data);
        free(buf);
        return 0;
}

/* The integer after "key": in text, or 0. */
static long long json_number_after(const char *text, const char *key) {
        const char *p = strstr(text, key);
        return p ? strtoll(p + strlen(key), NULL, 10) : 0;
}

static int cmd_stream(int argc, char **argv) {
        if (argc != 3)
                return 2;
        long hold = strtol(argv[0], NULL, 10), read_ms = strtol(argv[1], NULL, 10);
        int fd = connect_or_die();
        if (!send_message(fd, argv[2])) {
                printf("replies=0 bytes=0 dropped=0 closed=yes\n");
                close(fd);
                return 1;
        }
        sleep_ms(hold);
        Input in = {};
        size_t replies = 0, bytes = 0;
        long long dropped = 0;
        bool closed = false, final = false;
        int64_t deadline = now_us() + (int64_t) read_ms * 1000;
        for (;;) {
                int64_t left = deadline - now_us();
                if (left <= 0)
                        break;
                char *reply;
                ReadResult k = read_message(fd, &in, (int) ((left + 999) / 1000), &reply);
                if (k == READ_CLOSED) {
                        closed = true;
                        break;
                }
                if (k == READ_TIMEOUT)
                        break;
                replies++;
                bytes += strlen(reply) + 1;
                dropped += json_number_after(reply, "\"dropped\":");
                if (dropped > 0)
                        break; /* what a slow reader waits for */
                if (!strstr(reply, "\"continues\":true")) {
                        final = true; /* the last reply, or an error */
                        break;
                }
        }
        printf("replies=%zu bytes=%zu dropped=%lld closed=%s final=%s\n", replies, bytes, dropped,
               closed ? "yes" : "no", final ? "yes" : "no");
        close(fd);
        free(in.data);
        return 0;
}

static int cmd_send(int argc, char **argv) {
        int fd = connect_or_die();
        for (int i = 0; i < argc; i++)
                if (!send_message(fd, argv[i]))
                        break;
        close(fd);
        return 0;
}

static int cmd_half(int argc, char **argv) {
        if (argc != 1)
                return 2;
        int fd = connect_or_die();
        bool closed;
        (void) send_all(fd, argv[0], strlen(argv[0]) / 2, timeout_ms, &closed);
        close(fd);
        return 0;
}

/* Reads and discards until the server closes or wait_ms pass; returns true when it closed. */
static bool drain_until_closed(int fd, int wait_ms, size_t *received) {
        int64_t deadline = now_us() + (int64_t) wait_ms * 1000;
        char buf[65536];
        for (;;) {
                ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
                if (n > 0) {
                        *received += (size_t) n;
                        continue;
                }
                if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
                        return true;
                int64_t left = deadline - now_us();
                if (left <= 0)
                        return false;
                struct pollfd p = {.fd = fd, .events = POLLIN};
                (void) poll(&p, 1, (int) ((left + 999) / 1000));
        }
}

static int cmd_random(int argc, char **argv) {
        if (argc != 2)
                return 2;
        size_t n = strtoul(argv[0], NULL, 10);
        uint32_t seed = (uint32_t) strtoul(argv[1], NULL, 10);
        char *buf = malloc(n ? n : 1);
        if (!buf)
                die("malloc");
        for (size_t i = 0; i < n; i++) {
                seed = seed * 1664525U + 1013904223U;
                buf[i] = (char) (seed >> 24);
        }
        int fd = connect_or_die();
        bool closed;
        size_t sent = send_all(fd, buf, n, 1000, &closed);
        size_t received = 0;
        /* No NUL in the data means nothing to answer: then our EOF ends it. */
        (void) shutdown(fd, SHUT_WR);
        closed = drain_until_closed(fd, timeout_ms, &received);
        printf("sent=%zu received=%zu closed=%s\n", sent, received, closed ? "yes" : "no");
        close(fd);
        free(buf);
        return closed ? 0 : 1;
}

static int cmd_endless(int argc, char **argv) {
        if (argc != 1)
                return 2;
        size_t n = strtoul(argv[0], NULL, 10);
        const char *head = "{\"method\":\"io.svd.Manager.Info\",\"parameters\":{\"x\":\"";
        int fd = connect_or_die();
        bool closed;
        size_t sent = send_all(fd, head, strlen(head), timeout_ms, &closed);
        char chunk[65536];
        memset(chunk, 'a', sizeof(chunk));
        while (!closed && sent < n + strlen(head)) {
                size_t want = n + strlen(head) - sent;
                if (want > sizeof(chunk))
                        want = sizeof(chunk);
                size_t w = send_all(fd, chunk, want, timeout_ms, &closed);
                sent += w;
                if (w < want)
                        break;
        }
        size_t received = 0;
        if (!closed)
                closed = drain_until_closed(fd, timeout_ms, &received);
        printf("sent=%zu closed=%s\n", sent, closed ? "yes" : "no");
        close(fd);
        return closed ? 0 : 1;
}

static int cmd_nested(int argc, char **argv) {
        if (argc != 1)
                return 2;
        size_t depth = strtoul(argv[0], NULL, 10);
        const char *head = "{\"method\":\"io.svd.Manager.Info\",\"parameters\":{\"a\":";
        size_t n = strlen(head) + 2 * depth + 3;
        char *msg = malloc(n);
        if (!msg)
                die("malloc");
        char *p = stpcpy(msg, head);
        memset(p, '[', depth);
        p += depth;
        memset(p, ']', depth);
        p += depth;
        strcpy(p, "}}");
        int fd = connect_or_die();
        Input in = {};
        char *reply;
        ReadResult r = send_message(fd, msg) ? read_message(fd, &in, timeout_ms, &reply) : READ_CLOSED;
        printf("%s\n", r == READ_MESSAGE ? reply : result_name(r));
        close(fd);
        free(in.data);
        free(msg);
        return 0;
}

static void raise_nofile(size_t want) {
        struct rlimit rl;
        if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
                die("getrlimit");
        if (rl.rlim_cur < want + 16) {
                rl.rlim_cur = rl.rlim_max < want + 16 ? rl.rlim_max : want + 16;
                (void) setrlimit(RLIMIT_NOFILE, &rl);
        }
}

/* Opens n connections; fds[i] < 0 for those that failed. Returns how many opened. */
static size_t open_many(int *fds, size_t n) {
        size_t opened = 0;
        for (size_t i = 0; i < n; i++) {
                fds[i] = connect_server();
                if (fds[i] >= 0)
                        opened++;
                else if (i == 0)
                        die("connect");
        }
        return opened;
}

/* How many of the connections the server has closed (EOF or reset). */
static size_t count_closed(int *fds, size_t n) {
        size_t closed = 0;
        for (size_t i = 0; i < n; i++) {
                if (fds[i] < 0)
                        continue;
                char c;
                ssize_t k = recv(fds[i], &c, 1, MSG_DONTWAIT | MSG_PEEK);
                if (k == 0 || (k < 0 && errno != EAGAIN && errno != EINTR)) {
                        close(fds[i]);
                        fds[i] = -1;
                        closed++;
                }
        }
        return closed;
}

/* Waits until the server has accepted every connection this process made
 * so far, and so closed at once those past its limits: it accepts in the
 * order of connect(), so once it has dealt with one more connection, made
 * last, with a call on it (a reply, or that connection closed too), it has
 * dealt with all before. Returns 0, or -ETIMEDOUT. */
static int server_caught_up(void) {
        static const char call[] = "{\"method\":\"org.varlink.service.GetInfo\"}";
        int fd = connect_server();
        if (fd < 0)
                return fd == -ECONNREFUSED || fd == -EAGAIN ? -ETIMEDOUT : fd;
        bool closed = false;
        (void) send_all(fd, call, sizeof(call), timeout_ms, &closed);
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int n = closed ? 1 : poll(&p, 1, timeout_ms);
        close(fd);
        return n > 0 ? 0 : -ETIMEDOUT;
}

static int cmd_idle(int argc, char **argv) {
        if (argc < 2)
                return 2;
        size_t n = strtoul(argv[0], NULL, 10);
        long hold = strtol(argv[1], NULL, 10);
        if (n == 0 || n > CONNS_MAX)
                return 2;
        raise_nofile(n);
        int *fds = calloc(n, sizeof(int));
        if (!fds)
                die("calloc");
        size_t opened = open_many(fds, n);
        if (server_caught_up() < 0)
                fprintf(stderr, "hostile: the server did not answer within %d ms\n", timeout_ms);
        size_t closed = count_closed(fds, n);
        printf("open=%zu closed_by_server=%zu\n", opened - closed, closed);
        fflush(stdout);

        int r = 0;
        int fd = -1;
        for (size_t i = 0; i < n && fd < 0; i++)
                fd = fds[i];
        Input in = {};
        for (int a = 2; a < argc; a++) {
                if (fd < 0) {
                        printf("first: none open\n");
                        r = 1;
                        break;
                }
                char *reply;
                int64_t t0 = now_us();
                ReadResult k =
                    send_message(fd, argv[a]) ? read_message(fd, &in, timeout_ms, &reply) : READ_CLOSED;
                printf("first: latency_us=%lld %s\n", (long long) (now_us() - t0),
                       k == READ_MESSAGE ? reply : result_name(k));
                if (k != READ_MESSAGE) {
                        r = 1;
                        break;
                }
        }
        free(in.data);
        fflush(stdout);

        sleep_ms(hold);
        for (size_t i = 0; i < n; i++)
                if (fds[i] >= 0)
                        close(fds[i]);
        free(fds);
        return r;
}

static int cmd_partial(int argc, char **argv) {
        if (argc != 3)
                return 2;
        size_t n = strtoul(argv[0], NULL, 10);
        size_t bytes = strtoul(argv[1], NULL, 10);
        long hold = strtol(argv[2], NULL, 10);
        if (n == 0 || n > CONNS_MAX)
                return 2;
        raise_nofile(n);
        int *fds = calloc(n, sizeof(int));
        char *msg = malloc(bytes + 64);
        if (!fds || !msg)
                die("malloc");
        size_t l = (size_t) sprintf(msg, "{\"method\":\"io.svd.Manager.Info\",\"parameters\":{\"x\":\"");
        memset(msg + l, 'b', bytes > l ? bytes - l : 0);
        if (bytes < l)
                bytes = l;
        size_t opened = open_many(fds, n);
        for (size_t i = 0; i < n; i++) {
                bool closed;
                if (fds[i] >= 0)
                        (void) send_all(fds[i], msg, bytes, timeout_ms, &closed);
        }
        printf("connections=%zu\n", opened);
        fflush(stdout);
        sleep_ms(hold);
        printf("closed_by_server=%zu\n", count_closed(fds, n));
        for (size_t i = 0; i < n; i++)
                if (fds[i] >= 0)
                        close(fds[i]);
        free(fds);
        free(msg);
        return 0;
}

static int cmd_pipeline(int argc, char **argv) {
        if (argc < 3)
                return 2;
        size_t n = strtoul(argv[0], NULL, 10);
        long hold = strtol(argv[1], NULL, 10);
        char **names = argv + 2;
        size_t n_names = (size_t) argc - 2;

        /* All calls in one buffer; offsets remember where each ends. */
        size_t cap = n * (96 + 256), len = 0;
        char *buf = malloc(cap);
        if (!buf)
                die("malloc");
        for (size_t i = 0; i < n; i++) {
                int k = snprintf(buf + len, cap - len,
                                 "{\"method\":\"io.svd.Manager.Status\",\"parameters\":{\"name\":\"%s\"}}",
                                 names[i % n_names]);
                if (k < 0 || (size_t) k + 1 >= cap - len)
                        return 2;
                len += (size_t) k + 1;
        }

        int fd = connect_or_die();
        bool closed;
        size_t sent = send_all(fd, buf, len, PIPELINE_STALL_MS, &closed);
        size_t calls_sent = 0;
        for (size_t i = 0; i < sent; i++)
                if (buf[i] == 0)
                        calls_sent++;
        printf("sent=%zu of %zu calls (%zu bytes)%s\n", calls_sent, n, sent, closed ? " closed" : "");
        fflush(stdout);
        sleep_ms(hold < 0 ? -hold : hold);
        if (hold < 0) {
                printf("closed_unread\n");
                close(fd);
                free(buf);
                return 0;
        }

        /* Read every reply, sending the rest as room appears. */
        Input in = {};
        size_t replies = 0, errors = 0;
        bool in_order = true;
        while (replies < n) {
                if (sent < len) {
                        ssize_t w = send(fd, buf + sent, len - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
                        if (w > 0)
                                sent += (size_t) w;
                }
                char *reply;
                ReadResult k = read_message(fd, &in, sent < len ? 10 : timeout_ms, &reply);
                if (k == READ_TIMEOUT && sent < len)
                        continue;
                if (k != READ_MESSAGE)
                        break;
                char want[300];
                snprintf(want, sizeof(want), "\"name\":\"%s\"", names[replies % n_names]);
                if (strstr(reply, "\"error\""))
                        errors++;
                else if (!strstr(reply, want))
                        in_order = false;
                replies++;
        }
        printf("replies=%zu in_order=%s errors=%zu\n", replies, in_order ? "yes" : "no", errors);
        close(fd);
        free(in.data);
        free(buf);
        return replies == n && in_order && errors == 0 ? 0 : 1;
}

int main(int argc, char *argv[]) {
        static const struct {
                const char *name;
                int (*fn)(int argc, char **argv);
        } commands[] = {
            {"latency", cmd_latency}, {"call", cmd_call},       {"batch", cmd_batch},
            {"send", cmd_send},       {"stream", cmd_stream},   {"half", cmd_half},
            {"random", cmd_random},   {"endless", cmd_endless}, {"nested", cmd_nested},
            {"partial", cmd_partial}, {"idle", cmd_idle},       {"pipeline", cmd_pipeline},
        };

        if (argc < 3) {
                fprintf(stderr, "usage: hostile SOCKET COMMAND [ARG...] (see tests/lib/hostile.c)\n");
                return 2;
        }
        sock_path = argv[1];
        const char *t = getenv("HOSTILE_TIMEOUT_MS");
        if (t)
                timeout_ms = atoi(t);
        setvbuf(stdout, NULL, _IOLBF, 0);
        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
                if (strcmp(argv[2], commands[i].name) == 0)
                        return commands[i].fn(argc - 3, argv + 3);
        fprintf(stderr, "hostile: unknown command '%s'\n", argv[2]);
        return 2;
}
