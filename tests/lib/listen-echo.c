/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A socket-activated echo service and its client, for tests/integration/socket-activation.sh and
 * socket-accept.sh.
 *
 *   listen-echo serve
 *     The service: takes the fds of sd_listen_fds(3) ($LISTEN_FDS from 3, only when $LISTEN_PID is its
 *     own pid: else it exits 3 saying so), prints "listen-echo: pid PID fds N names NAMES" and then,
 *     for ever, answers every connection of a stream socket (one read, echoed back, closed) and every
 *     datagram (sent back).
 *   listen-echo serve-stdio
 *     An instance of an Accept=yes socket unit with StandardInput=socket: one read from stdin, the same
 *     bytes written to stdout, exit 0. Exits 3 when stdin or stdout is no socket. When stdin is a
 *     listening socket (Accept=no), serves one connection accepted from it the same way.
 *   listen-echo serve-conn
 *     An instance of an Accept=yes socket unit given the connection as fd 3: checks $LISTEN_PID (its
 *     own pid) and $LISTEN_FDS=1 (else exits 3), reads once from fd 3 and answers
 *     "MESSAGE names=$LISTEN_FDNAMES remote=$REMOTE_ADDR stdin=null|other", exit 0.
 *   listen-echo hold ADDR MESSAGE
 *     A client that connects, prints "connected", then waits for a line on its stdin (or its end)
 *     before it sends MESSAGE; prints the answer (empty when the server closed without one).
 *   listen-echo connect unix:PATH|unix:@ABSTRACT|tcp:ADDR:PORT MESSAGE
 *     The client: sends MESSAGE, prints the answer (empty when the server closed the connection
 *     without one, before or after MESSAGE went); exits 2 when the connection is refused.
 *   listen-echo loop unix:PATH|tcp:ADDR:PORT STOPFILE
 *     Connects and checks the echo again and again until STOPFILE exists; prints the number of
 *     round trips; exits 2 at the first refusal or wrong answer, saying which.
 *
 * Plain C11 and libc only, as the other helpers.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#define FDS_MAX 64

static int serve(void) {
        const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS"), *names = getenv("LISTEN_FDNAMES");
        struct pollfd p[FDS_MAX];
        int n;

        if (!pid || !fds) {
                fprintf(stderr, "listen-echo: no LISTEN_PID/LISTEN_FDS\n");
                return 3;
        }
        if (atol(pid) != (long) getpid()) {
                fprintf(stderr, "listen-echo: LISTEN_PID=%s but my pid is %ld\n", pid, (long) getpid());
                return 3;
        }
        n = atoi(fds);
        if (n < 1 || n > FDS_MAX) {
                fprintf(stderr, "listen-echo: LISTEN_FDS=%s\n", fds);
                return 3;
        }
        printf("listen-echo: pid %ld fds %d names %s\n", (long) getpid(), n, names ? names : "(none)");
        fflush(stdout);
        for (int i = 0; i < n; i++)
                p[i] = (struct pollfd){ .fd = 3 + i, .events = POLLIN };
        for (;;) {
                if (poll(p, (nfds_t) n, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        perror("listen-echo: poll");
                        return 1;
                }
                for (int i = 0; i < n; i++) {
                        char buf[4096];
                        int type = 0;
                        socklen_t tl = sizeof(type);
                        if (!(p[i].revents & POLLIN))
                                continue;
                        if (getsockopt(p[i].fd, SOL_SOCKET, SO_TYPE, &type, &tl) < 0)
                                type = 0;
                        if (type == SOCK_DGRAM) {
                                struct sockaddr_storage from;
                                socklen_t fl = sizeof(from);
                                ssize_t k = recvfrom(p[i].fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *) &from, &fl);
                                if (k >= 0 && fl > 0)
                                        (void) sendto(p[i].fd, buf, (size_t) k, MSG_DONTWAIT, (struct sockaddr *) &from, fl);
                                continue;
                        }
                        int c = accept4(p[i].fd, NULL, NULL, SOCK_CLOEXEC);
                        if (c < 0)
                                continue; /* non-blocking: another took it */
                        ssize_t k = read(c, buf, sizeof(buf));
                        if (k > 0 && write(c, buf, (size_t) k) != k)
                                perror("listen-echo: write");
                        close(c);
                }
        }
}

static bool fd_is_socket(int fd) {
        int type = 0;
        socklen_t tl = sizeof(type);
        return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) == 0;
}

static int serve_stdio(void) {
        char buf[4096];
        int listening = 0;
        socklen_t ll = sizeof(listening);
        ssize_t k;

        if (!fd_is_socket(STDIN_FILENO) || !fd_is_socket(STDOUT_FILENO)) {
                fprintf(stderr, "listen-echo: stdin or stdout is no socket\n");
                return 3;
        }
        if (getsockopt(STDIN_FILENO, SOL_SOCKET, SO_ACCEPTCONN, &listening, &ll) == 0 && listening) {
                /* Accept=no: stdin and stdout are the listening socket; one connection is served. */
                int c = accept4(STDIN_FILENO, NULL, NULL, SOCK_CLOEXEC);
                if (c < 0)
                        return 1;
                do
                        k = read(c, buf, sizeof(buf));
                while (k < 0 && errno == EINTR);
                if (k > 0 && write(c, buf, (size_t) k) != k)
                        return 1;
                close(c);
                return 0;
        }
        do
                k = read(STDIN_FILENO, buf, sizeof(buf));
        while (k < 0 && errno == EINTR);
        if (k > 0 && write(STDOUT_FILENO, buf, (size_t) k) != k)
                return 1;
        return 0;
}

static int serve_conn(void) {
        const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS"), *names = getenv("LISTEN_FDNAMES");
        const char *remote = getenv("REMOTE_ADDR");
        char buf[4096], answer[8192];
        struct stat st;
        ssize_t k;

        if (!pid || atol(pid) != (long) getpid() || !fds || strcmp(fds, "1") != 0 || !fd_is_socket(3)) {
                fprintf(stderr, "listen-echo: LISTEN_PID=%s LISTEN_FDS=%s, my pid %ld\n", pid ? pid : "",
                        fds ? fds : "", (long) getpid());
                return 3;
        }
        bool null = fstat(STDIN_FILENO, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3);
        do
                k = read(3, buf, sizeof(buf) - 1);
        while (k < 0 && errno == EINTR);
        if (k < 0)
                return 1;
        buf[k] = '\0';
        int n = snprintf(answer, sizeof(answer), "%s names=%s remote=%s stdin=%s", buf, names ? names : "(none)",
                         remote ? remote : "(none)", null ? "null" : "other");
        return write(3, answer, (size_t) n) == n ? 0 : 1;
}

static int dial(const char *addr) {
        struct sockaddr_storage sa = {};
        socklen_t len;
        int fd;

        if (strncmp(addr, "unix:", 5) == 0) {
                struct sockaddr_un *un = (struct sockaddr_un *) &sa;
                un->sun_family = AF_UNIX;
                snprintf(un->sun_path, sizeof(un->sun_path), "%s", addr + 5);
                len = sizeof(*un);
                if (un->sun_path[0] == '@') { /* an abstract name: a NUL first, the length exact */
                        len = (socklen_t) (offsetof(struct sockaddr_un, sun_path) + strlen(un->sun_path));
                        un->sun_path[0] = '\0';
                }
        } else if (strncmp(addr, "tcp:", 4) == 0) {
                struct sockaddr_in *in = (struct sockaddr_in *) &sa;
                char host[64];
                const char *c = strrchr(addr + 4, ':');
                if (!c || (size_t) (c - addr - 4) >= sizeof(host))
                        return -EINVAL;
                memcpy(host, addr + 4, (size_t) (c - addr - 4));
                host[c - addr - 4] = '\0';
                in->sin_family = AF_INET;
                in->sin_port = htons((uint16_t) atoi(c + 1));
                if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
                        return -EINVAL;
                len = sizeof(*in);
        } else
                return -EINVAL;
        fd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        if (connect(fd, (struct sockaddr *) &sa, len) < 0) {
                int r = -errno;
                close(fd);
                return r;
        }
        return fd;
}

/* One round trip: 0 and the answer in buf, or -errno. */
static int round_trip(const char *addr, const char *msg, char *buf, size_t size) {
        int fd = dial(addr);
        size_t got = 0;
        if (fd < 0)
                return fd;
        if (write(fd, msg, strlen(msg)) != (ssize_t) strlen(msg)) {
                int r = -errno;
                close(fd);
                if (r == -EPIPE || r == -ECONNRESET) {
                        /* The server closed the connection before the message went: no answer. */
                        buf[0] = '\0';
                        return 0;
                }
                return r;
        }
        for (;;) {
                ssize_t k = read(fd, buf + got, size - 1 - got);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        break;
                got += (size_t) k;
        }
        buf[got] = '\0';
        close(fd);
        return 0;
}

int main(int argc, char **argv) {
        char buf[4096];

        signal(SIGPIPE, SIG_IGN);

        if (argc == 2 && strcmp(argv[1], "serve") == 0)
                return serve();
        if (argc == 4 && strcmp(argv[1], "connect") == 0) {
                int r = round_trip(argv[2], argv[3], buf, sizeof(buf));
                if (r < 0) {
                        fprintf(stderr, "listen-echo: %s: %s\n", argv[2], strerror(-r));
                        return r == -ECONNREFUSED || r == -ENOENT ? 2 : 1;
                }
                printf("%s\n", buf);
                return 0;
        }
        if (argc == 2 && strcmp(argv[1], "serve-stdio") == 0)
                return serve_stdio();
        if (argc == 2 && strcmp(argv[1], "serve-conn") == 0)
                return serve_conn();
        if (argc == 4 && strcmp(argv[1], "hold") == 0) {
                int fd = dial(argv[2]);
                size_t got = 0;
                if (fd < 0) {
                        fprintf(stderr, "listen-echo: %s: %s\n", argv[2], strerror(-fd));
                        return fd == -ECONNREFUSED || fd == -ENOENT ? 2 : 1;
                }
                printf("connected\n");
                fflush(stdout);
                if (!fgets(buf, sizeof(buf), stdin))
                        buf[0] = 0; /* its end says go as well */
                if (write(fd, argv[3], strlen(argv[3])) < 0) {
                        /* The server closed it already: no answer. */
                        printf("\n");
                        return 0;
                }
                for (;;) {
                        ssize_t k = read(fd, buf + got, sizeof(buf) - 1 - got);
                        if (k < 0 && errno == EINTR)
                                continue;
                        if (k <= 0)
                                break;
                        got += (size_t) k;
                }
                buf[got] = '\0';
                printf("%s\n", buf);
                return 0;
        }
        if (argc == 4 && strcmp(argv[1], "loop") == 0) {
                unsigned long n = 0;
                while (access(argv[3], F_OK) < 0) {
                        int r = round_trip(argv[2], "ping", buf, sizeof(buf));
                        if (r < 0 || strcmp(buf, "ping") != 0) {
                                printf("round trip %lu failed: %s\n", n + 1, r < 0 ? strerror(-r) : "wrong answer");
                                return 2;
                        }
                        n++;
                }
                printf("%lu\n", n);
                return 0;
        }
        fprintf(stderr, "usage: listen-echo serve | serve-stdio | serve-conn | connect ADDR MESSAGE | hold ADDR MESSAGE | "
                        "loop ADDR STOPFILE\n");
        return 1;
}
