/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The pieces of svd's re-exec state document (a JSON object handed to the
 * new image in a memfd): fds that are to survive the exec, byte strings
 * that need not be UTF-8, and field readers that give a default for a
 * missing field or one of another type, so that a reader copes with an
 * older writer.
 */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The fds named in a state document. */
typedef struct ReexecFds {
        int *fds;
        size_t n;
} ReexecFds;

/* fd as a JSON number, recorded in f (null for fd < 0). NULL on OOM. */
json_t *reexec_fd_to_json(ReexecFds *f, int fd);
/* Takes the fd named by o[key] back: close-on-exec set again. -EBADF when
 * the field is null or missing, -errno when the fd is not open. */
int reexec_fd_take(json_t *o, const char *key);

/* Bytes as a JSON string when they are UTF-8 without NUL, else {"hex": ...}. */
json_t *reexec_bytes_to_json(const char *p, size_t n);
/* The reverse; *ret is NUL-terminated (for text) and malloc'd. */
int reexec_bytes_from_json(json_t *j, char **ret, size_t *ret_len);

/* Field readers with defaults: a missing field or one of another type gives def. */
uint64_t reexec_u64(json_t *o, const char *key, uint64_t def);
int64_t reexec_i64(json_t *o, const char *key, int64_t def);
bool reexec_bool(json_t *o, const char *key, bool def);
const char *reexec_str(json_t *o, const char *key); /* NULL when missing or not a string */

