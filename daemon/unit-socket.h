/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The [Socket] section of a NAME.socket unit file (systemd.socket(5)), as data. unit_load_file() reads
 * a file whose path ends in ".socket" as a socket unit: [Unit], [Socket] and [Install], no [Service].
 * The parsers of the [Socket] keys live in unit-socket.c; they check every value and bind nothing: the
 * manager binds the sockets when the socket unit starts (manager-socket.c).
 *
 * What a socket unit may say, and what svd does with it:
 *   ListenStream=, ListenDatagram=, ListenSequentialPacket=: an absolute path (an AF_UNIX socket in the
 *     file system), "@name" (abstract), a port ("8080": [::] with IPv4 too, or 0.0.0.0 where the host
 *     has no IPv6), "ADDR:PORT" (IPv4) or "[ADDR]:PORT" (IPv6). ListenFIFO=: an absolute path. Each
 *     assignment adds one; an empty one drops those before it. At most UNIT_SOCKET_LISTEN_MAX.
 *   SocketUser=, SocketGroup=: owner of the file-system sockets and FIFOs (names or numbers, resolved
 *     by the manager); SocketMode= (default 0666) and DirectoryMode= (0755, for directories svd creates
 *     above them); Backlog= (default SOMAXCONN); ReusePort=, FreeBind=, BindIPv6Only= (default, both,
 *     ipv6-only); RemoveOnStop= (the file-system sockets and FIFOs are removed when the unit stops);
 *     Service= (the service it activates, default the same NAME.service); FileDescriptorName= (in
 *     $LISTEN_FDNAMES, default NAME.socket).
 *   ExecStartPre=, ExecStartPost=, ExecStopPre= (kept in Unit.exec[UNIT_EXEC_STOP]), ExecStopPost=: as
 *     [Service]'s command lines; TimeoutSec= bounds each; User=, Group= for them (manager-socket-exec.h).
 *   KeepAlive=, KeepAliveTimeSec=, KeepAliveIntervalSec=, KeepAliveProbes=, NoDelay=, Priority=,
 *     DeferAcceptSec=, ReceiveBuffer=, SendBuffer=, IPTOS=, IPTTL=, Mark=, Broadcast=, PassCredentials=,
 *     PassSecurity=, PassPacketInfo=, PipeSize=, Symlinks=, Writable= (no only: svd has no
 *     ListenSpecial=), FlushPending=, SocketProtocol= (udplite, sctp), TCPCongestion=, Transparent=,
 *     Timestamping=: unit-socket-options.c, with systemd's meanings.
 *   Accept=: no (the service NAME.service gets the listening sockets), or yes: svd accepts each
 *     connection and starts an instance of the template NAME@.service for it (manager-socket-accept.c).
 *     Accept=yes takes stream and sequential packet sockets only, and no Service= (as in systemd).
 *   MaxConnections= (default 64, at least 1) and MaxConnectionsPerSource= (default 0: no limit of its
 *     own, so MaxConnections= bounds it): with Accept=yes, the connections that may have an instance at
 *     once, in all and from one source (an IP address; for AF_UNIX the peer's uid).
 *   Other systemd [Socket] keys are warned about and listed in Unit.not_applied; the label keys
 *   (SmackLabel*=, SELinuxContextFromNet=) are refused, since without them the socket would be reachable
 *   by more than the unit allows.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "basic/macros.h"

#define UNIT_SOCKET_LISTEN_MAX 64U  /* Listen*= of one socket unit */
#define UNIT_SOCKET_FDNAME_MAX 255U /* bytes in FileDescriptorName= (as sd_listen_fds_with_names(3)) */

typedef enum SocketListenType {
        SOCKET_LISTEN_STREAM,
        SOCKET_LISTEN_DATAGRAM,
        SOCKET_LISTEN_SEQPACKET,
        SOCKET_LISTEN_FIFO,
        _SOCKET_LISTEN_TYPE_MAX,
        _SOCKET_LISTEN_TYPE_INVALID = -EINVAL,
} SocketListenType;

/* "Stream", "Datagram", "SequentialPacket", "FIFO": systemd's names, on the wire too. */
const char *socket_listen_type_to_string(SocketListenType t);
SocketListenType socket_listen_type_from_string(const char *s);

typedef enum SocketBindIPv6Only {
        SOCKET_BIND_IPV6_DEFAULT, /* the kernel's net.ipv6.bindv6only */
        SOCKET_BIND_IPV6_BOTH,
        SOCKET_BIND_IPV6_ONLY,
        _SOCKET_BIND_IPV6_MAX,
        _SOCKET_BIND_IPV6_INVALID = -EINVAL,
} SocketBindIPv6Only;

const char *socket_bind_ipv6_only_to_string(SocketBindIPv6Only b);
SocketBindIPv6Only socket_bind_ipv6_only_from_string(const char *s);

/* Timestamping= (SO_TIMESTAMP, SO_TIMESTAMPNS). */
typedef enum SocketTimestamping {
        SOCKET_TIMESTAMPING_OFF,
        SOCKET_TIMESTAMPING_US,
        SOCKET_TIMESTAMPING_NS,
        _SOCKET_TIMESTAMPING_MAX,
        _SOCKET_TIMESTAMPING_INVALID = -EINVAL,
} SocketTimestamping;

/* One Listen*= assignment. */
typedef struct SocketListen {
        SocketListenType type;
        char *address;                /* as written (specifiers resolved): for status and messages */
        struct sockaddr_storage sa;   /* not for FIFOs */
        socklen_t sa_len;
        bool port_only;               /* a bare port: [::], falling back to 0.0.0.0 without IPv6 */
        char *path;                   /* a file-system socket's or FIFO's path, else NULL */
        unsigned line;                /* of its Listen*= line, for messages */
} SocketListen;

typedef struct UnitSocket {
        SocketListen *listen;
        size_t n_listen;
        char *socket_user, *socket_group; /* NULL: svd's own */
        int socket_mode;                  /* SocketMode=, default 0666 */
        int directory_mode;               /* DirectoryMode=, default 0755 */
        unsigned backlog;                 /* Backlog=, default SOMAXCONN */
        bool reuse_port, free_bind, remove_on_stop, accept;
        SocketBindIPv6Only bind_ipv6_only;
        char *service;                    /* Service=, without ".service"; NULL: the unit's own name */
        char *fd_name;                    /* FileDescriptorName=; NULL: NAME.socket */
        uint64_t timeout_usec;            /* TimeoutSec= of each of its commands, default 90 s; USEC_INFINITY: none */
        /* The socket options (unit-socket-options.c parses them, manager-socket-options.c applies them
         * at the bind). Booleans: set when true; numbers: set when not -1 (0 for the times and sizes). */
        bool keep_alive, no_delay, broadcast, pass_credentials, pass_security, pass_packet_info;
        bool transparent, flush_pending, writable;
        uint64_t keep_alive_time_usec, keep_alive_interval_usec, defer_accept_usec;
        unsigned keep_alive_probes;
        int priority, ip_tos, ip_ttl, mark;
        uint64_t receive_buffer, send_buffer, pipe_size;
        int protocol;                     /* SocketProtocol=: 0, IPPROTO_UDPLITE or IPPROTO_SCTP */
        char *tcp_congestion;             /* TCPCongestion= */
        SocketTimestamping timestamping;  /* Timestamping= */
        char **symlinks;                  /* Symlinks=: absolute paths */
        unsigned accept_line, service_line; /* of Accept= and Service= in force, for messages; 0: none */
        unsigned max_connections;         /* MaxConnections=, default UNIT_SOCKET_MAX_CONNECTIONS */
        unsigned max_connections_per_source; /* MaxConnectionsPerSource=; 0: MaxConnections= only */
} UnitSocket;

#define UNIT_SOCKET_MAX_CONNECTIONS 64U /* systemd.socket(5)'s default */
#define UNIT_SOCKET_TIMEOUT_USEC_DEFAULT (90ULL * 1000000ULL)
#define UNIT_SOCKET_DEFAULTS                                                                                  \
        { .socket_mode = 0666, .directory_mode = 0755, .backlog = SOMAXCONN,                                \
          .timeout_usec = UNIT_SOCKET_TIMEOUT_USEC_DEFAULT, .priority = -1, .ip_tos = -1, .ip_ttl = -1,      \
          .mark = -1, .max_connections = UNIT_SOCKET_MAX_CONNECTIONS }
#define UNIT_SOCKET_SYMLINKS_MAX 64U /* Symlinks= of one socket unit */

void unit_socket_done(UnitSocket *s);

/* Parses a Listen*= value of type t (not FIFO) into *ret: its address, family and path. -EINVAL for
 * what is no address, -EOPNOTSUPP for forms svd does not bind (vsock:, netlink, an interface scope),
 * -ENAMETOOLONG for a path longer than sun_path. Fills ret->sa, sa_len, port_only and path; the caller
 * owns ret->path (ret->address is left alone). */
int socket_address_parse(const char *s, SocketListen *ret);

/* Whether name is a valid FileDescriptorName= (sd_listen_fds_with_names(3)): 1..255 printable ASCII
 * bytes but ':'. */
bool socket_fd_name_is_valid(const char *name);

/* The checks of the socket options once the whole file is read (unit-socket-options.c): a reason
 * (static) when they do not fit the Listen*= of the unit, else NULL. */
const char *unit_socket_options_check(const UnitSocket *s);
