/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench-svc: the trivial service of tests/bench/compare.sh.
 *
 * First thing in main(): one datagram "PID MONOTONIC_NS\n" to the Unix
 * datagram socket named by $BENCH_SOCK (nothing when it is unset or nobody
 * listens), then pause() until a signal ends it. Arguments are ignored
 * (s6-supervise passes the service's name). Linked statically, so that what
 * a start costs is the supervisor's work plus one execve().
 */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

int main(void) {
        struct timespec ts;
        const char *path;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        path = getenv("BENCH_SOCK");
        if (path && strlen(path) < sizeof(((struct sockaddr_un *) NULL)->sun_path)) {
                struct sockaddr_un sa = { .sun_family = AF_UNIX };
                char buf[64];
                int fd, n;

                strcpy(sa.sun_path, path);
                n = snprintf(buf, sizeof buf, "%d %lld\n", (int) getpid(),
                             (long long) ts.tv_sec * 1000000000LL + ts.tv_nsec);
                fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
                if (fd >= 0) {
                        (void) sendto(fd, buf, (size_t) n, 0, (struct sockaddr *) &sa, sizeof sa);
                        close(fd);
                }
        }
        for (;;)
                pause();
}
