/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A small blocking varlink client for svctl and the tests: one connection,
 * one call at a time, replies read with a deadline (poll), never forever.
 */

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "varlink-wire.h"

typedef struct VarlinkClient {
        int fd;
        VarlinkBuffer in;
} VarlinkClient;

/* Connects to the Unix socket at path. -ENOENT/-ECONNREFUSED mean nobody listens. */
int varlink_client_connect(const char *path, VarlinkClient **ret);
VarlinkClient *varlink_client_free(VarlinkClient *c);

/* Sends {"method":..., "parameters":..., "more":true?}. parameters may be NULL. */
int varlink_client_send(VarlinkClient *c, const char *method, json_t *parameters, bool more);

/* Reads the next reply, waiting at most timeout_usec (UINT64_MAX: forever).
 * Returns 0 with the reply object, -ETIMEDOUT, -ECONNRESET when the server
 * closed the connection, -EBADMSG for a reply that is not varlink. */
int varlink_client_read(VarlinkClient *c, uint64_t timeout_usec, json_t **ret);

/* send + read: the final reply (one that does not continue). On a varlink
 * error returns 0 with *ret_error set to the error name (borrowed from the
 * reply) and *ret_reply the whole reply; otherwise *ret_error is NULL. */
int varlink_client_call(VarlinkClient *c, const char *method, json_t *parameters, uint64_t timeout_usec,
                        json_t **ret_reply, const char **ret_error);
