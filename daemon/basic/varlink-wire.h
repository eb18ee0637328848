/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Varlink framing shared by svd and svctl: a message is one JSON object
 * followed by a NUL byte on a stream socket. One read may carry several
 * messages and one message may span several reads, so input is buffered
 * until its NUL. The buffer refuses to grow beyond its limit: a peer that
 * sends an endless message gets -EMSGSIZE, never unbounded memory.
 */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Largest single message (JSON text plus NUL) either side accepts. */
#define VARLINK_MESSAGE_MAX (1U << 20)
/* Deepest JSON nesting accepted in a message; jansson itself stops at 2048. */
#define VARLINK_NESTING_MAX 64U

typedef struct VarlinkBuffer {
        char *data;
        size_t allocated;
        size_t start; /* first byte not yet handed out */
        size_t end;   /* one past the last byte read */
        size_t scanned; /* bytes from start known to hold no NUL */
        size_t max;
} VarlinkBuffer;

void varlink_buffer_init(VarlinkBuffer *b, size_t max);
void varlink_buffer_done(VarlinkBuffer *b);

/* Reads once from a non-blocking fd. Returns bytes read (>0), 0 on EOF,
 * -EAGAIN when nothing is there, -EMSGSIZE when a message outgrows the
 * limit, or another -errno. */
ssize_t varlink_buffer_read(VarlinkBuffer *b, int fd);

/* Sends the pending bytes to a non-blocking stream socket without raising
 * SIGPIPE, as far as the socket takes them. Returns the bytes sent (0 when
 * the socket is full), or -errno (-EPIPE: the peer is gone). Nothing is
 * handed out by varlink_buffer_next() from a buffer used this way. */
ssize_t varlink_buffer_write(VarlinkBuffer *b, int fd);

/* Appends bytes: queued output, or input fed without a socket (tests, fuzzers). */
int varlink_buffer_append(VarlinkBuffer *b, const void *data, size_t n);

/* Hands out the next complete message (NUL-terminated, without the NUL in
 * *ret_len). The pointer is valid until the next call on the buffer.
 * Returns 1 with a message, 0 when none is complete yet, -EMSGSIZE when the
 * incomplete tail is already larger than the limit. */
int varlink_buffer_next(VarlinkBuffer *b, const char **ret, size_t *ret_len);

/* Bytes buffered that are not yet handed out. */
size_t varlink_buffer_pending(const VarlinkBuffer *b);

/* Parses one message: valid UTF-8 JSON, an object, no duplicate keys, at
 * most VARLINK_NESTING_MAX deep. Returns 0 or -EBADMSG. */
int varlink_message_parse(const char *text, size_t len, json_t **ret);

/* The same, but a string may hold \u0000: for a server that answers such a call with an error
 * (json_string_length() tells where a NUL cut json_string_value() short). */
int varlink_message_parse_allow_nul(const char *text, size_t len, json_t **ret);

/* Serialises obj compactly and appends the NUL terminator.
 * *ret_len includes the NUL. Returns 0, -ENOMEM or -EMSGSIZE. */
int varlink_message_format(json_t *obj, char **ret, size_t *ret_len);

/* Depth of the deepest container in v (a scalar is 0). */
unsigned json_depth(json_t *v);

/* jansson provides json_decrefp() for its own json_auto_t. */
#define _cleanup_json_ __attribute__((cleanup(json_decrefp)))
