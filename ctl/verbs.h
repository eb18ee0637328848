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
#include <stdio.h>

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
int verb_logs(VarlinkClient *c, int argc, char **argv);
int verb_watch(VarlinkClient *c, int argc, char **argv);
/* reload NAME...: ExecReload= of each; reload alone and daemon-reload: the unit directory. */
int verb_reload(VarlinkClient *c, int argc, char **argv);
int verb_reload_services(VarlinkClient *c, int argc, char **argv);
int verb_daemon_reexec(VarlinkClient *c, int argc, char **argv);

/* For `logs` (set by svctl.c): -n/--lines (-1: all svd keeps), -f/--follow. */
extern int64_t arg_lines;
extern bool arg_follow;

/* Shared by the verb files (verbs.c). */
json_t *reply_parameters(json_t *reply); /* a reply's "parameters" */
/* One call of method without parameters. 0 with *ret_reply on success; else
 * prints "svctl: Failed to <action>: <reason>" and returns the exit code, or a
 * negative errno when the call itself failed. */
int call_or_fail(VarlinkClient *c, const char *method, const char *action, json_t **ret_reply);
void fputs_escaped(const char *s, FILE *f); /* control characters as \xNN */
int print_json(json_t *v);
/* Prints "svctl: Failed to <action> ['<name>']: <reason>" and returns the exit code. */
int log_call_failure(const char *action, const char *name, int r, const char *error, json_t *reply);
/* The last lines of a service's log after its status block (verbs-stream.c). */
void show_status_log_tail(VarlinkClient *c, const char *name);
/* The log tail that came with Status (logLines), printed as show_status_log_tail() does. */
void show_status_log_lines(json_t *lines);
int status_log_lines(void);
int verb_reset_failed(VarlinkClient *c, int argc, char **argv);

/* Reading replies and printing them (verbs.c), for the other verb files. */
const char *json_get_str(json_t *o, const char *key);
bool json_get_int(json_t *o, const char *key, int64_t *ret);
const char *format_ago(char *buf, size_t l, int64_t usec);       /* "5s ago" */
const char *format_timestamp(char *buf, size_t l, int64_t usec); /* "Thu 2026-12-03 08:00:00 UTC", or NULL */
_printf_(2, 3) void print_field(const char *label, const char *format, ...); /* "  Label: value" */
_printf_(1, 2) void log_error(const char *format, ...);                     /* "svctl: ..." on stderr */

/* Unit-level verbs and status lines (verbs-unit.c). */
int verb_is_active(VarlinkClient *c, int argc, char **argv);
int verb_is_failed(VarlinkClient *c, int argc, char **argv);
int verb_cat(VarlinkClient *c, int argc, char **argv);
int verb_show(VarlinkClient *c, int argc, char **argv);
/* The Condition:, Assert: and Docs: lines of `status` (after Active:). */
void print_status_unit(json_t *service);
/* systemd's ActiveState= for svd's state ("active" for running and exited, ...). */
const char *active_state_of(const char *state);

/* For is-active/is-failed (-q), show (-p, --value). */
extern bool arg_quiet;
extern char **arg_properties;
extern bool arg_value;
