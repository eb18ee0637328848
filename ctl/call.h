/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * svctl's calls to svd: one call with the timeout in force (arg_timeout_usec),
 * and the one line a failed call prints. The contract is
 * daemon/io.svd.Manager.varlink; svctl sees nothing else of svd.
 *
 * The calls return 0 with the reply (and the varlink error name, borrowed
 * from the reply, or NULL), or a negative errno when the call itself failed.
 */

#include <jansson.h>

#include "macros.h"
#include "varlink-client.h"

/* systemctl's (LSB's) exit codes for "status", which the verbs and a failed call return. */
#define EXIT_PROGRAM_NOT_RUNNING 3
#define EXIT_PROGRAM_OR_SERVICES_STATUS_UNKNOWN 4

#define METHOD_STATUS "io.svd.Manager.Status"
#define ERROR_NO_SUCH_SERVICE "io.svd.Manager.NoSuchService"

DEFINE_TRIVIAL_CLEANUP_FUNC(VarlinkClient *, varlink_client_free);

/* One call; name, if any, is the only parameter (-EINVAL when it is not UTF-8). */
int call(VarlinkClient *c, const char *method, const char *name, json_t **ret_reply, const char **ret_error);
/* One call of method without parameters. 0 with *ret_reply on success; else
 * prints "svctl: Failed to <action>: <reason>" and returns the exit code, or a
 * negative errno when the call itself failed. */
int call_or_fail(VarlinkClient *c, const char *method, const char *action, json_t **ret_reply);
/* A method that svd answers in chunks with "more" (List, ListUnitFiles): the
 * arrays under key of every reply joined in *ret_all; or, when svd answers
 * with an error, *ret_error and the error reply in *ret_error_reply. */
int call_chunks(VarlinkClient *c, const char *method, const char *key, json_t **ret_all, json_t **ret_error_reply,
                const char **ret_error);
/* List, streamed in chunks by svd: one reply with every service, as the
 * one-shot call would give it, or the error reply. */
int call_list(VarlinkClient *c, json_t **ret_reply, const char **ret_error);

/* Prints "svctl: Failed to <action> ['<name>']: <reason>" for a transport
 * error (r < 0) or a varlink error, and returns the exit code. */
int log_call_failure(const char *action, const char *name, int r, const char *error, json_t *reply);
