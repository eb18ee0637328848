/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers for svd's re-exec state document: fds, bytes and fields with defaults. */
#include "serialize.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macros.h"

json_t *reexec_fd_to_json(ReexecFds *f, int fd) {
        if (fd < 0)
                return json_null();
        int *a = reallocarray(f->fds, f->n + 1, sizeof(int));
        if (!a)
                return NULL;
        f->fds = a;
        f->fds[f->n++] = fd;
        return json_integer(fd);
}

int reexec_fd_take(json_t *o, const char *key) {
        json_t *j = json_object_get(o, key);
        if (!json_is_integer(j))
                return -EBADF;
        json_int_t fd = json_integer_value(j);
        if (fd < 3 || fd > INT_MAX)
                return -EBADF;
        if (fcntl((int) fd, F_SETFD, FD_CLOEXEC) < 0)
                return -errno;
        return (int) fd;
}

json_t *reexec_bytes_to_json(const char *p, size_t n) {
        /* jansson refuses invalid UTF-8; NUL would need JSON_ALLOW_NUL on both ends. */
        if (!memchr(p, 0, n)) {
                json_t *j = json_stringn(p, n);
                if (j)
                        return j;
        }
        _cleanup_free_ char *hex = malloc(n * 2 + 1);
        if (!hex)
                return NULL;
        for (size_t i = 0; i < n; i++)
                snprintf(hex + 2 * i, 3, "%02x", (unsigned char) p[i]);
        hex[2 * n] = 0;
        return json_pack("{s:s}", "hex", hex);
}

static int unhex(char c) {
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        return -1;
}

int reexec_bytes_from_json(json_t *j, char **ret, size_t *ret_len) {
        const char *src;
        size_t n;

        if (json_is_string(j)) {
                src = json_string_value(j);
                n = json_string_length(j);
                char *c = malloc(n + 1);
                if (!c)
                        return -ENOMEM;
                memcpy(c, src, n);
                c[n] = 0;
                *ret = c;
                *ret_len = n;
                return 0;
        }
        src = reexec_str(j, "hex");
        if (!src || strlen(src) % 2 != 0)
                return -EINVAL;
        n = strlen(src) / 2;
        _cleanup_free_ char *c = malloc(n + 1);
        if (!c)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                int hi = unhex(src[2 * i]), lo = unhex(src[2 * i + 1]);
                if (hi < 0 || lo < 0)
                        return -EINVAL;
                c[i] = (char) (hi << 4 | lo);
        }
        c[n] = 0;
        *ret = TAKE_PTR(c);
        *ret_len = n;
        return 0;
}

uint64_t reexec_u64(json_t *o, const char *key, uint64_t def) {
        json_t *j = json_object_get(o, key);
        return json_is_integer(j) ? (uint64_t) json_integer_value(j) : def;
}

int64_t reexec_i64(json_t *o, const char *key, int64_t def) {
        json_t *j = json_object_get(o, key);
        return json_is_integer(j) ? (int64_t) json_integer_value(j) : def;
}

bool reexec_bool(json_t *o, const char *key, bool def) {
        json_t *j = json_object_get(o, key);
        return json_is_boolean(j) ? json_is_true(j) : def;
}

const char *reexec_str(json_t *o, const char *key) {
        return json_string_value(json_object_get(o, key));
}

