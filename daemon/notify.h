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

/* Where services send sd_notify() messages: every service must be able to reach it, whatever its
 * User= and sandbox (PrivateTmp= hides /tmp; a control socket's directory may be 0700). With
 * runtime_dir (svd as root: /run/svd, mode 0755, a socket of mode 0666 whose senders are told
 * apart by their credentials, as systemd's), "RUNTIME_DIR/notify.HASH" (socket_path_hash() of the
 * control socket), unless the control socket is in runtime_dir itself; else, and without
 * runtime_dir, next to the control socket: "DIR/svd.sock" → "DIR/svd.notify", any other name
 * with ".notify" appended. */
#define NOTIFY_RUNTIME_DIR "/run/svd" 
int notify_socket_path(const char *control_socket, const char *runtime_dir, char **ret);

/* Binds m->notify_path and watches it. Returns -errno; svd then runs
 * without (Type=notify services fail to start, saying why). */
int notify_socket_open(Manager *m);
/* Re-exec: serves the socket the previous svd had bound (takes fd). */
int notify_socket_adopt(Manager *m, int fd);
void notify_socket_close(Manager *m);
