/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The socket options of a socket unit (unit-socket.h) onto its sockets, at the bind, with systemd's
 * meanings (systemd.socket(5)). As systemd, svd only warns when the kernel refuses an option (a
 * congestion control algorithm that is not loaded, Transparent= without CAP_NET_ADMIN, an option of
 * another address family): the socket is bound without it, and the warning names the option and
 * the errno. SocketProtocol= is the protocol the socket is made with: a kernel without it fails the
 * start.
 */

#include <stdbool.h>

#include "unit-socket.h"

/* The options of us onto the socket fd of family and type (SOCK_STREAM, ...), before its bind;
 * unit names the unit in the warnings. */
void socket_options_apply(const char *unit, const UnitSocket *us, int fd, int family, int type);
/* PipeSize= onto a FIFO. */
void socket_options_apply_fifo(const char *unit, const UnitSocket *us, int fd);
/* Symlinks= to target (the unit's one file-system socket or FIFO); a link that cannot be made is
 * warned about, as systemd does. */
void socket_symlinks_make(const char *unit, const UnitSocket *us, const char *target);
void socket_symlinks_remove(const UnitSocket *us);
/* FlushPending=: takes what is queued on fd (connections accepted and closed, datagrams and FIFO
 * data read), before svd watches it again. */
void socket_flush_pending(int fd);
/* The IP protocol of a socket of that type: SocketProtocol=, else 0 (the default). */
int socket_options_protocol(const UnitSocket *us, int family);
