/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A socket-activated echo service and its client, for tests/integration/socket-activation.sh.
 *
 *   listen-echo serve
 *     The service: takes the fds of sd_listen_fds(3) ($LISTEN_FDS from 3, only when $LISTEN_PID is its
 *     own pid: else it exits 3 saying so), prints "listen-echo: pid PID fds N names NAMES" and then,
 *     for ever, answers every connection of a stream socket (one read, echoed back, closed) and every
 *     datagram (sent back).
 *   listen-echo connect unix:PATH|unix:@ABSTRACT|tcp:ADDR:PORT MESSAGE
 *     The client: sends MESSAGE, prints the answer; exits 2 when the connection is refused.
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
#include <sys/socket.h>
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
        fprintf(stderr, "usage: listen-echo serve | connect ADDR MESSAGE | loop ADDR STOPFILE\n");
        return 1;
}
