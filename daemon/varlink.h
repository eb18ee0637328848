/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The varlink server: the only code that reads the control socket.
 *
 * Framing and JSON come from basic/varlink-wire. This file enforces the
 * protocol (a call is an object with a string `method`, optional object
 * `parameters`, optional bool `more`/`oneway`; anything else closes the
 * connection), dispatches to method tables registered per interface,
 * answers org.varlink.service itself, decides who may call what from the
 * peer's credentials (below), logs every call that changes state with its
 * caller and outcome, and bounds everything a peer controls (VARLINK_*
 * limits).
 *
 * A connection runs one call at a time; replies go out in call order. A
 * handler either replies before returning, or keeps the VarlinkCall and
 * replies later (the connection then reads no further call until it does).
 * If the peer goes away first, the call's cancel callback runs and the call
 * is freed: the holder must forget it there.
 */

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "basic/macros.h"

/* Open connections in all, and per peer uid (as sd-varlink). */
#define VARLINK_CONNECTIONS_MAX 4096U
#define VARLINK_CONNECTIONS_PER_UID_MAX 1024U
/* Replies queued for a slow reader before the connection is dropped. */
#define VARLINK_OUTPUT_MAX (16U << 20)
/* While this much output is queued, no further call is read. */
#define VARLINK_OUTPUT_HIGH (1U << 20)

typedef struct VarlinkServer VarlinkServer;
typedef struct VarlinkCall VarlinkCall;

typedef int (*VarlinkMethodFn)(VarlinkCall *call, json_t *parameters, void *userdata);
typedef void (*VarlinkCancelFn)(VarlinkCall *call, void *userdata);

typedef enum VarlinkMethodFlags {
        VARLINK_METHOD_WRITE = 1 << 0, /* changes state: VARLINK_RIGHT_MANAGE; logged with caller and outcome */
        VARLINK_METHOD_REQUIRES_MORE = 1 << 1, /* streams: without "more" the call gets ExpectedMore */
        VARLINK_METHOD_OWNER = 1 << 2, /* with WRITE: VARLINK_RIGHT_OWNER, not the manage group */
} VarlinkMethodFlags;

typedef struct VarlinkMethod {
        const char *name; /* without the interface, e.g. "Start" */
        VarlinkMethodFn fn;
        VarlinkMethodFlags flags;
} VarlinkMethod;

/* What a peer may do beyond reading state. Decided once per connection,
 * when it is accepted, from the credentials the kernel recorded at
 * connect(): SO_PEERCRED (uid, gid, pid) and SO_PEERGROUPS (supplementary
 * groups). Nothing the client can change later (its ids, its groups, the
 * process behind the fd) is looked at again. Root and svd's own user have
 * every right; members of a group (primary or supplementary) have that
 * group's right. */
typedef enum VarlinkRight {
        VARLINK_RIGHT_MANAGE = 1 << 0, /* may call VARLINK_METHOD_WRITE methods */
        VARLINK_RIGHT_OUTPUT = 1 << 1, /* may read every service's output (the handlers check it) */
        VARLINK_RIGHT_OWNER = 1 << 2,  /* root or svd's own user: VARLINK_METHOD_OWNER methods */
} VarlinkRight;

/* The groups that grant the rights; GID_INVALID: none. */
typedef struct VarlinkGroups {
        gid_t manage;
        gid_t output;
} VarlinkGroups;

typedef struct VarlinkServerInfo {
        const char *vendor, *product, *version, *url;
} VarlinkServerInfo;

/* Listens on path (unlinking a stale socket first), mode 0666: access is
 * decided per method from SO_PEERCRED, so readers must be able to connect. */
int varlink_server_new(sd_event *event, const char *path, const VarlinkServerInfo *info, uid_t owner,
                       VarlinkServer **ret);
VarlinkServer *varlink_server_free(VarlinkServer *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(VarlinkServer *, varlink_server_free);

/* Adds an interface: its name, its IDL text (returned verbatim by
 * GetInterfaceDescription) and a method table terminated by a NULL name. */
int varlink_server_add_interface(VarlinkServer *s, const char *name, const char *idl,
                                 const VarlinkMethod *methods, void *userdata);

/* Sets the groups that grant rights; applies to connections accepted (or
 * handed over) from then on. Default: none. */
void varlink_server_set_groups(VarlinkServer *s, const VarlinkGroups *groups);

size_t varlink_server_n_connections(const VarlinkServer *s);

/* Replies. Each takes ownership of `parameters` (may be NULL). The final
 * reply or an error ends the call and frees it unless the handler that got
 * it is still running. */
int varlink_call_reply(VarlinkCall *c, json_t *parameters);
int varlink_call_error(VarlinkCall *c, const char *error, json_t *parameters);
int varlink_call_error_invalid_parameter(VarlinkCall *c, const char *parameter);
/* io.svd.Manager.InternalError with errno, its name and strerror() for a
 * call svd could not carry out for a reason of its own (-ENOMEM, ...).
 * `error` is a negative or positive errno. A handler that returns < 0
 * without having answered gets this reply from the server. */
#define VARLINK_ERROR_INTERNAL "io.svd.Manager.InternalError"
int varlink_call_error_errno(VarlinkCall *c, int error);

/* Streaming: sends {"continues":true,"parameters":...} and keeps the call
 * open; only for calls with "more" (else -EPROTO and nothing is sent). The
 * final reply or an error ends the stream. A reply that does not fit in
 * VARLINK_OUTPUT_MAX drops the connection (-ENOBUFS; the cancel callback
 * runs from the loop, not from here): streamers check
 * varlink_call_output_queued() first and skip what a slow reader cannot take. */
int varlink_call_notify(VarlinkCall *c, json_t *parameters);
/* Bytes queued on the call's connection and not yet taken by the peer. */
size_t varlink_call_output_queued(const VarlinkCall *c);

void varlink_call_set_cancel(VarlinkCall *c, VarlinkCancelFn fn, void *userdata);
uid_t varlink_call_peer_uid(const VarlinkCall *c);
pid_t varlink_call_peer_pid(const VarlinkCall *c);
bool varlink_call_peer_has(const VarlinkCall *c, VarlinkRight right);
bool varlink_call_wants_more(const VarlinkCall *c);
const char *varlink_call_method(const VarlinkCall *c);

/* Checks `parameters` against a list of expected fields: each present field
 * must have the given jansson type; required ones must be there; any other
 * field is refused. Sends InvalidParameter naming the field and returns
 * -EINVAL on the first problem. */
typedef struct VarlinkField {
        const char *name;
        json_type type;
        bool required;
} VarlinkField;
int varlink_call_check_parameters(VarlinkCall *c, json_t *parameters, const VarlinkField *fields);

/* Re-exec (reexec.h). The listening socket, to hand over; a server on a
 * socket that is bound and listening already (takes the fd, leaves the
 * socket file alone). */
int varlink_server_listen_fd(const VarlinkServer *s);
int varlink_server_new_from_fd(sd_event *event, const char *path, int listen_fd, const VarlinkServerInfo *info,
                               uid_t owner, VarlinkServer **ret);
/* The fd of the call's connection when the connection can be handed over
 * to the next svd with this call pending: no reply queued, no further call
 * buffered, not oneway or streaming. -ENOTCONN or -EBUSY otherwise. */
int varlink_call_connection_fd(const VarlinkCall *c);
/* Serves a handed-over connection (takes fd) and answers the call that was
 * pending on it with {"parameters": parameters} (takes parameters). */
int varlink_server_add_connection_reply(VarlinkServer *s, int fd, json_t *parameters);

/* Serves an already connected stream socket (takes fd): the tests and
 * the fuzzer use one end of a socketpair. The peer's credentials come from
 * SO_PEERCRED as for accepted connections. */
int varlink_server_add_connection(VarlinkServer *s, int fd);
