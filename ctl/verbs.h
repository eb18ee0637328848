/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * svctl's verbs: one function per command, each talking to svd over one
 * varlink connection. svctl.c parses the command line, checks the number of
 * arguments, strips a ".service" suffix from names and connects; a verb
 * gets argv with argv[0] the verb itself and argv[1..] the names.
 *
 * A verb returns the process exit code (>= 0, systemctl's codes below), or
 * a negative errno after it has printed its one line on stderr, which
 * svctl turns into EXIT_FAILURE.
 */

#include <stdbool.h>
#include <stdint.h>

#include "macros.h"
#include "varlink-client.h"

/* systemctl's (LSB's) exit codes for "status". */
#define EXIT_PROGRAM_NOT_RUNNING 3
#define EXIT_PROGRAM_OR_SERVICES_STATUS_UNKNOWN 4

/* Command-line flags, set by svctl.c before a verb runs. */
extern const char *arg_socket;
extern bool arg_json;
extern int arg_signal; /* for kill */
/* The timeout for each call, in force for this verb (USEC_INFINITY: none). */
extern uint64_t arg_timeout_usec;

DEFINE_TRIVIAL_CLEANUP_FUNC(VarlinkClient *, varlink_client_free);

typedef int (*VerbFunction)(VarlinkClient *c, int argc, char **argv);

int verb_start(VarlinkClient *c, int argc, char **argv);
int verb_stop(VarlinkClient *c, int argc, char **argv);
int verb_restart(VarlinkClient *c, int argc, char **argv);
int verb_status(VarlinkClient *c, int argc, char **argv);
int verb_list(VarlinkClient *c, int argc, char **argv);
int verb_info(VarlinkClient *c, int argc, char **argv);
int verb_kill(VarlinkClient *c, int argc, char **argv);
