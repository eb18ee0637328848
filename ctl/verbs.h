/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * svctl's verbs: one function per command, each talking to svd over one
 * varlink connection. svctl.c parses the command line (options.h), checks
 * the number of arguments, strips a ".service" suffix from names and
 * connects; a verb gets argv with argv[0] the verb itself and argv[1..] the
 * names.
 *
 * A verb returns the process exit code (>= 0, systemctl's codes, call.h), or
 * a negative errno after it has printed its one line on stderr, which
 * svctl turns into EXIT_FAILURE.
 *
 * The verb files share output.h, call.h and log-lines.h, and never one
 * another's functions.
 */

#include <stdbool.h>

#include <jansson.h>

#include "varlink-client.h"

typedef int (*VerbFunction)(VarlinkClient *c, int argc, char **argv);

/* Services (verbs-service.c): start, stop, restart, reload NAME (ExecReload=), kill, reset-failed. */
int verb_start(VarlinkClient *c, int argc, char **argv);
int verb_stop(VarlinkClient *c, int argc, char **argv);
int verb_restart(VarlinkClient *c, int argc, char **argv);
int verb_reload_services(VarlinkClient *c, int argc, char **argv);
int verb_kill(VarlinkClient *c, int argc, char **argv);
int verb_reset_failed(VarlinkClient *c, int argc, char **argv);

/* Socket units (verbs-socket.c), for the verbs above when a name ends in ".socket": start, stop and
 * restart, status (both set *ret to the exit code, return < 0 when the connection failed), and the
 * sockets for list (NULL from an svd without socket units). */
bool name_is_socket(const char *name);
int socket_change(VarlinkClient *c, const char *verb, const char *name, int *ret);
int socket_status(VarlinkClient *c, const char *name, int *ret);
json_t *socket_list(VarlinkClient *c);

/* status (verbs-status.c) and list (verbs-list.c). */
int verb_status(VarlinkClient *c, int argc, char **argv);
int verb_list(VarlinkClient *c, int argc, char **argv);

/* Unit-level verbs (verbs-unit.c): is-active, is-failed, cat, show. */
int verb_is_active(VarlinkClient *c, int argc, char **argv);
int verb_is_failed(VarlinkClient *c, int argc, char **argv);
int verb_cat(VarlinkClient *c, int argc, char **argv);
int verb_show(VarlinkClient *c, int argc, char **argv);

/* Enabling (verbs-enable.c): enable, disable, is-enabled, list-unit-files. */
int verb_enable(VarlinkClient *c, int argc, char **argv);
int verb_disable(VarlinkClient *c, int argc, char **argv);
int verb_is_enabled(VarlinkClient *c, int argc, char **argv);
int verb_list_unit_files(VarlinkClient *c, int argc, char **argv);

/* svd's streams (verbs-stream.c): logs, watch. */
int verb_logs(VarlinkClient *c, int argc, char **argv);
int verb_watch(VarlinkClient *c, int argc, char **argv);

/* svd itself (verbs-daemon.c): info; daemon-reload and reload without names (the unit
 * directory); daemon-reexec. */
int verb_info(VarlinkClient *c, int argc, char **argv);
int verb_daemon_reload(VarlinkClient *c, int argc, char **argv);
int verb_daemon_reexec(VarlinkClient *c, int argc, char **argv);
