/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A socket-activated service for tests/integration/socket-units.sh: prints, for each fd that
 * sd_listen_fds(3) hands it ($LISTEN_FDS from 3), the socket options the socket unit sets, as
 * getsockopt(2) reads them back, one line per fd:
 *
 *   sockopt-dump: fd 3 keepalive=1 keepidle=60 keepintvl=10 keepcnt=5 nodelay=1 deferaccept=2
 *     priority=6 rcvbuf=N sndbuf=N mark=7 broadcast=0 passcred=1 timestamp=0 timestampns=1 tos=16 ttl=64
 *
 * (-1 where the option does not apply to the socket), then waits for ever.
 *
 * Plain C11 and libc only, as the other helpers.
 */
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

static int get(int fd, int level, int name) {
        int v = -1;
        socklen_t l = sizeof(v);
        if (getsockopt(fd, level, name, &v, &l) < 0)
                return -1;
        return v;
}

int main(void) {
        const char *fds = getenv("LISTEN_FDS");
        int n = fds ? atoi(fds) : 0;

        if (n < 1) {
                fprintf(stderr, "sockopt-dump: no LISTEN_FDS\n");
                return 3;
        }
        for (int fd = 3; fd < 3 + n; fd++) {
                struct sockaddr_storage sa;
                socklen_t sl = sizeof(sa);
                int family = getsockname(fd, (struct sockaddr *) &sa, &sl) < 0 ? -1 : sa.ss_family;
                int ip = family == AF_INET || family == AF_INET6, v6 = family == AF_INET6;
                printf("sockopt-dump: fd %d keepalive=%d keepidle=%d keepintvl=%d keepcnt=%d nodelay=%d "
                       "deferaccept=%d priority=%d rcvbuf=%d sndbuf=%d mark=%d broadcast=%d passcred=%d "
                       "timestamp=%d timestampns=%d tos=%d ttl=%d\n",
                       fd, get(fd, SOL_SOCKET, SO_KEEPALIVE), ip ? get(fd, SOL_TCP, TCP_KEEPIDLE) : -1,
                       ip ? get(fd, SOL_TCP, TCP_KEEPINTVL) : -1, ip ? get(fd, SOL_TCP, TCP_KEEPCNT) : -1,
                       ip ? get(fd, SOL_TCP, TCP_NODELAY) : -1, ip ? get(fd, SOL_TCP, TCP_DEFER_ACCEPT) : -1,
                       get(fd, SOL_SOCKET, SO_PRIORITY), get(fd, SOL_SOCKET, SO_RCVBUF), get(fd, SOL_SOCKET, SO_SNDBUF),
                       get(fd, SOL_SOCKET, SO_MARK), get(fd, SOL_SOCKET, SO_BROADCAST), get(fd, SOL_SOCKET, SO_PASSCRED),
                       get(fd, SOL_SOCKET, SO_TIMESTAMP), get(fd, SOL_SOCKET, SO_TIMESTAMPNS),
                       ip ? get(fd, v6 ? SOL_IPV6 : SOL_IP, v6 ? IPV6_TCLASS : IP_TOS) : -1,
                       ip ? get(fd, v6 ? SOL_IPV6 : SOL_IP, v6 ? IPV6_UNICAST_HOPS : IP_TTL) : -1);
        }
        fflush(stdout);
        for (;;)
                pause();
}
