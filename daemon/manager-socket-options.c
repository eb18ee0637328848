/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Socket options onto a socket unit's sockets (manager-socket-options.h). */
#include "manager-socket-options.h"

#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "basic/macros.h"
#include "basic/strv.h"
#include "basic/time-util.h"
#include "svd-log.h"

static void set_int(const char *unit, int fd, int level, int name, int value, const char *what) {
        if (setsockopt(fd, level, name, &value, sizeof(value)) < 0)
                log_warning_errno(errno, "%s.socket: %s failed, the socket is bound without it: %m", unit, what);
}

static int seconds_up(uint64_t usec) {
        return (int) ((usec + USEC_PER_SEC - 1) / USEC_PER_SEC);
}

int socket_options_protocol(const UnitSocket *us, int family) {
        return IN_SET(family, AF_INET, AF_INET6) ? us->protocol : 0;
}

void socket_options_apply(const char *unit, const UnitSocket *us, int fd, int family, int type) {
        bool ip = IN_SET(family, AF_INET, AF_INET6), v6 = family == AF_INET6;
        bool tcp = ip && type == SOCK_STREAM && us->protocol == 0;

        if (us->keep_alive)
                set_int(unit, fd, SOL_SOCKET, SO_KEEPALIVE, 1, "SO_KEEPALIVE (KeepAlive=)");
        if (us->keep_alive_time_usec > 0)
                set_int(unit, fd, SOL_TCP, TCP_KEEPIDLE, seconds_up(us->keep_alive_time_usec),
                        "TCP_KEEPIDLE (KeepAliveTimeSec=)");
        if (us->keep_alive_interval_usec > 0)
                set_int(unit, fd, SOL_TCP, TCP_KEEPINTVL, seconds_up(us->keep_alive_interval_usec),
                        "TCP_KEEPINTVL (KeepAliveIntervalSec=)");
        if (us->keep_alive_probes > 0)
                set_int(unit, fd, SOL_TCP, TCP_KEEPCNT, (int) us->keep_alive_probes, "TCP_KEEPCNT (KeepAliveProbes=)");
        if (us->no_delay)
                /* SCTP's own option for an SCTP socket, as systemd. */
                set_int(unit, fd, us->protocol == IPPROTO_SCTP ? IPPROTO_SCTP : SOL_TCP,
                        us->protocol == IPPROTO_SCTP ? 3 /* SCTP_NODELAY */ : TCP_NODELAY, 1, "TCP_NODELAY (NoDelay=)");
        if (us->defer_accept_usec > 0 && tcp)
                set_int(unit, fd, SOL_TCP, TCP_DEFER_ACCEPT, seconds_up(us->defer_accept_usec),
                        "TCP_DEFER_ACCEPT (DeferAcceptSec=)");
        else if (us->defer_accept_usec > 0)
                log_warning("%s.socket: DeferAcceptSec= is for TCP sockets, ignoring it for this one.", unit);
        if (us->priority >= 0)
                set_int(unit, fd, SOL_SOCKET, SO_PRIORITY, us->priority, "SO_PRIORITY (Priority=)");
        if (us->receive_buffer > 0 && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &(int){ (int) us->receive_buffer },
                                                 sizeof(int)) < 0)
                /* Without CAP_NET_ADMIN, within net.core.rmem_max. */
                set_int(unit, fd, SOL_SOCKET, SO_RCVBUF, (int) us->receive_buffer, "SO_RCVBUF (ReceiveBuffer=)");
        if (us->send_buffer > 0 &&
            setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &(int){ (int) us->send_buffer }, sizeof(int)) < 0)
                set_int(unit, fd, SOL_SOCKET, SO_SNDBUF, (int) us->send_buffer, "SO_SNDBUF (SendBuffer=)");
        if (us->ip_tos >= 0)
                set_int(unit, fd, v6 ? SOL_IPV6 : SOL_IP, v6 ? IPV6_TCLASS : IP_TOS, us->ip_tos,
                        v6 ? "IPV6_TCLASS (IPTOS=)" : "IP_TOS (IPTOS=)");
        if (us->ip_ttl >= 0)
                set_int(unit, fd, v6 ? SOL_IPV6 : SOL_IP, v6 ? IPV6_UNICAST_HOPS : IP_TTL, us->ip_ttl,
                        v6 ? "IPV6_UNICAST_HOPS (IPTTL=)" : "IP_TTL (IPTTL=)");
        if (us->mark >= 0)
                set_int(unit, fd, SOL_SOCKET, SO_MARK, us->mark, "SO_MARK (Mark=)");
        if (us->broadcast)
                set_int(unit, fd, SOL_SOCKET, SO_BROADCAST, 1, "SO_BROADCAST (Broadcast=)");
        if (us->pass_credentials)
                set_int(unit, fd, SOL_SOCKET, SO_PASSCRED, 1, "SO_PASSCRED (PassCredentials=)");
        if (us->pass_security)
                set_int(unit, fd, SOL_SOCKET, SO_PASSSEC, 1, "SO_PASSSEC (PassSecurity=)");
        if (us->pass_packet_info && ip)
                set_int(unit, fd, v6 ? SOL_IPV6 : SOL_IP, v6 ? IPV6_RECVPKTINFO : IP_PKTINFO, 1,
                        v6 ? "IPV6_RECVPKTINFO (PassPacketInfo=)" : "IP_PKTINFO (PassPacketInfo=)");
        else if (us->pass_packet_info)
                log_warning("%s.socket: PassPacketInfo= is for IP sockets, ignoring it for this one.", unit);
        if (us->transparent && ip)
                set_int(unit, fd, v6 ? SOL_IPV6 : SOL_IP, v6 ? IPV6_TRANSPARENT : IP_TRANSPARENT, 1,
                        v6 ? "IPV6_TRANSPARENT (Transparent=)" : "IP_TRANSPARENT (Transparent=)");
        else if (us->transparent)
                log_warning("%s.socket: Transparent= is for IP sockets, ignoring it for this one.", unit);
        if (us->timestamping == SOCKET_TIMESTAMPING_US)
                set_int(unit, fd, SOL_SOCKET, SO_TIMESTAMP, 1, "SO_TIMESTAMP (Timestamping=)");
        else if (us->timestamping == SOCKET_TIMESTAMPING_NS)
                set_int(unit, fd, SOL_SOCKET, SO_TIMESTAMPNS, 1, "SO_TIMESTAMPNS (Timestamping=)");
        if (us->tcp_congestion && tcp) {
                if (setsockopt(fd, SOL_TCP, TCP_CONGESTION, us->tcp_congestion, strlen(us->tcp_congestion)) < 0)
                        log_warning_errno(errno, "%s.socket: TCP_CONGESTION '%s' (TCPCongestion=) failed, the socket is "
                                          "bound without it: %m", unit, us->tcp_congestion);
        } else if (us->tcp_congestion)
                log_warning("%s.socket: TCPCongestion= is for TCP sockets, ignoring it for this one.", unit);
}

void socket_options_apply_fifo(const char *unit, const UnitSocket *us, int fd) {
        if (us->pipe_size > 0 && fcntl(fd, F_SETPIPE_SZ, (int) us->pipe_size) < 0)
                log_warning_errno(errno, "%s.socket: F_SETPIPE_SZ (PipeSize=) failed, the FIFO keeps its size: %m", unit);
}

void socket_symlinks_make(const char *unit, const UnitSocket *us, const char *target) {
        for (char **l = us->symlinks; l && *l; l++) {
                char old[PATH_MAX];
                ssize_t n = readlink(*l, old, sizeof(old) - 1);
                if (n >= 0) {
                        old[n] = '\0';
                        if (streq(old, target))
                                continue;
                        (void) unlink(*l); /* a link to something else: replaced, as systemd does */
                }
                if (symlink(target, *l) < 0)
                        log_warning_errno(errno, "%s.socket: Failed to create the symbolic link '%s' (Symlinks=): %m",
                                          unit, *l);
        }
}

void socket_symlinks_remove(const UnitSocket *us) {
        for (char **l = us->symlinks; l && *l; l++)
                (void) unlink(*l);
}

void socket_flush_pending(int fd) {
        int type = 0, listening = 0;
        socklen_t l = sizeof(type);
        char buf[4096];

        if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l) < 0) {
                /* A FIFO: what it holds is read. */
                for (unsigned i = 0; i < 4096 && read(fd, buf, sizeof(buf)) > 0; i++)
                        ;
                return;
        }
        l = sizeof(listening);
        if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &l) >= 0 && listening) {
                for (unsigned i = 0; i < 4096; i++) {
                        int c = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
                        if (c < 0)
                                break;
                        safe_close(c);
                }
                return;
        }
        for (unsigned i = 0; i < 4096 && recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0; i++)
                ;
}
