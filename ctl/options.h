/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * svctl's command-line options, the only globals of svctl. svctl.c defines
 * them and sets them from argv before a verb runs; the verbs and the modules
 * they share only read them.
 */

#include <stdbool.h>
#include <stdint.h>

extern const char *arg_socket; /* svd's socket, --socket or the default */
extern bool arg_json;          /* --json: svd's replies as JSON lines */
extern int arg_signal;         /* -s/--signal, for kill */
/* The timeout for each call, in force for this verb (USEC_INFINITY: none). */
extern uint64_t arg_timeout_usec;

/* For logs: -n/--lines (-1: all svd keeps), -f/--follow. */
extern int64_t arg_lines;
extern bool arg_follow;

/* For is-active/is-failed/is-enabled, enable and disable: -q/--quiet. For show: -p/--property (NULL:
 * all), --value. */
extern bool arg_quiet;
extern char **arg_properties;
extern bool arg_value;

/* For enable and disable: --now, also start or stop the units. */
extern bool arg_now;
