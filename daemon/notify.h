/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The receiving end of the sd_notify protocol (sd_notify(3)). svd owns one
 * datagram socket next to its control socket ("svd.sock" → "svd.notify"),
 * passed to services as $NOTIFY_SOCKET. A datagram is newline-separated
 * "KEY=VALUE" assignments; the kernel attaches the sender's credentials
 * (SO_PASSCRED), and only a service's own processes are believed: its main
 * process, any process in its cgroup, or, with PrivatePIDs=yes (where the
 * main process is svd's init), a descendant of the main process.
 *
 * Nothing here blocks: the socket is non-blocking, a datagram is at most
 * NOTIFY_DATAGRAM_MAX bytes, and a wake-up reads at most NOTIFY_BATCH_MAX
 * of them. Anything malformed, truncated or from a stranger is dropped with
 * a debug message. File descriptors sent along (FDSTORE=) are closed.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "service.h"

typedef struct Manager Manager;

#define NOTIFY_DATAGRAM_MAX 4096U /* bytes in one datagram, as systemd's PIPE_BUF limit */
#define NOTIFY_BATCH_MAX 64U      /* datagrams handled per wake-up, so that a flood cannot starve the loop */
#define NOTIFY_FDS_MAX 16U        /* file descriptors accepted (and closed) with one datagram */
#define NOTIFY_ANCESTRY_MAX 16U   /* parent links followed to find a PrivatePIDs= command's init */

/* What one datagram said: NotifyMessage (service.h), the state machine's input. */

/* Parses a datagram of n bytes (not NUL-terminated). Unknown keys and
 * malformed values of known keys are skipped; -EINVAL for a datagram that is
 * not text (a NUL byte) or has no assignment at all, -ENOMEM. Never logs. */
int notify_parse(const char *buf, size_t n, NotifyMessage *ret);
void notify_message_done(NotifyMessage *msg);

/* "DIR/svd.sock" → "DIR/svd.notify"; any other name gets ".notify" appended. */
int notify_socket_path(const char *control_socket, char **ret);

/* Binds m->notify_path and watches it. Returns -errno; svd then runs
 * without (Type=notify services fail to start, saying why). */
int notify_socket_open(Manager *m);
/* Re-exec: serves the socket the previous svd had bound (takes fd). */
int notify_socket_adopt(Manager *m, int fd);
void notify_socket_close(Manager *m);
