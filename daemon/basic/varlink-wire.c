/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* varlink framing shared by svd and svctl: NUL-terminated JSON messages and their limits. */
#include "varlink-wire.h"

#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "macros.h"

#define VARLINK_READ_CHUNK 65536U

void varlink_buffer_init(VarlinkBuffer *b, size_t max) {
        assert(b);
        *b = (VarlinkBuffer){ .max = max };
}

void varlink_buffer_done(VarlinkBuffer *b) {
        assert(b);
        free(b->data);
        *b = (VarlinkBuffer){ .max = b->max };
}

size_t varlink_buffer_pending(const VarlinkBuffer *b) {
        assert(b);
        return b->end - b->start;
}

/* Makes room for at least n more bytes after end. Consumed bytes before
 * start are reclaimed only when that moves no more than it frees, or when
 * the buffer has to grow anyway; growth doubles. Either way each byte is
 * copied a bounded number of times, however the appends and the consumer
 * interleave: the output of a connection whose reader lags by a megabyte
 * is not moved or reallocated whole for every reply appended. */
static int buffer_reserve(VarlinkBuffer *b, size_t n) {
        if (b->allocated - b->end >= n)
                return 0;
        size_t pending = b->end - b->start;
        if (b->start > 0 && (b->start >= pending || b->allocated - pending < n)) {
                memmove(b->data, b->data + b->start, pending);
                b->end = pending;
                b->start = 0;
                if (b->allocated - b->end >= n)
                        return 0;
        }
        size_t want = b->end + n;
        if (want < n)
                return -ENOMEM;
        size_t a = b->allocated ? b->allocated : 4096;
        while (a < want) {
                if (a > SIZE_MAX / 2)
                        return -ENOMEM;
                a *= 2;
        }
        char *p = realloc(b->data, a);
        if (!p)
                return -ENOMEM;
        b->data = p;
        b->allocated = a;
        return 0;
}

/* The unterminated tail (bytes after the last handed-out message) is larger
 * than any message may be. */
static bool buffer_overflowing(const VarlinkBuffer *b) {
        return b->end - b->start > b->max && !memchr(b->data + b->start, 0, b->max);
}

ssize_t varlink_buffer_read(VarlinkBuffer *b, int fd) {
        assert(b);
        assert(fd >= 0);

        if (buffer_overflowing(b))
                return -EMSGSIZE;
        if (b->allocated - b->end >= VARLINK_READ_CHUNK) {
                ssize_t n = read(fd, b->data + b->end, b->allocated - b->end);
                if (n < 0)
                        return errno == EINTR ? -EAGAIN : -errno;
                b->end += (size_t) n;
                return n;
        }
        /* A call is a few hundred bytes: read onto the stack and keep only what came. Reserving a
         * whole chunk in the buffer instead costs every connection a 64 KiB allocation, which is
         * where glibc's malloc is slowest (it consolidates the small chunks freed since the last
         * large one), and more so the larger svd's heap is. */
        char chunk[VARLINK_READ_CHUNK];
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0)
                return errno == EINTR ? -EAGAIN : -errno;
        int r = varlink_buffer_append(b, chunk, (size_t) n);
        if (r < 0)
                return r;
        return n;
}

int varlink_buffer_append(VarlinkBuffer *b, const void *data, size_t n) {
        assert(b);
        assert(data || n == 0);

        if (n == 0)
                return 0;
        int r = buffer_reserve(b, n);
        if (r < 0)
                return r;
        memcpy(b->data + b->end, data, n);
        b->end += n;
        return 0;
}

ssize_t varlink_buffer_write(VarlinkBuffer *b, int fd) {
        assert(b);
        assert(fd >= 0);

        size_t total = 0;
        while (b->start < b->end) {
                ssize_t n = send(fd, b->data + b->start, b->end - b->start, MSG_DONTWAIT | MSG_NOSIGNAL);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EAGAIN)
                                break;
                        return -errno;
                }
                b->start += (size_t) n;
                total += (size_t) n;
        }
        if (b->start == b->end)
                b->start = b->end = 0;
        return (ssize_t) total;
}

int varlink_buffer_next(VarlinkBuffer *b, const char **ret, size_t *ret_len) {
        assert(b);
        assert(ret);
        assert(ret_len);

        size_t avail = b->end - b->start;
        if (avail == 0) {
                /* Also covers a buffer never allocated (data == NULL): no pointer arithmetic on it. */
                b->scanned = 0;
                return 0;
        }
        if (b->scanned > avail)
                b->scanned = 0;
        char *base = b->data + b->start;
        char *nul = avail > b->scanned ? memchr(base + b->scanned, 0, avail - b->scanned) : NULL;
        if (!nul) {
                b->scanned = avail;
                return avail > b->max ? -EMSGSIZE : 0;
        }
        size_t len = (size_t) (nul - base);
        if (len + 1 > b->max)
                return -EMSGSIZE;
        b->start += len + 1;
        b->scanned = 0;
        if (b->start == b->end)
                b->start = b->end = 0; /* keeps base valid: nothing moves until the next reserve */
        *ret = base;
        *ret_len = len;
        return 1;
}

unsigned json_depth(json_t *v) {
        unsigned max = 0;
        if (json_is_object(v)) {
                const char *k;
                json_t *c;
                json_object_foreach(v, k, c) {
                        unsigned d = json_depth(c);
                        if (d > max)
                                max = d;
                }
                return max + 1;
        }
        if (json_is_array(v)) {
                size_t i;
                json_t *c;
                json_array_foreach(v, i, c) {
                        unsigned d = json_depth(c);
                        if (d > max)
                                max = d;
                }
                return max + 1;
        }
        return 0;
}

/* Cheap pre-scan so that hostile nesting is refused before jansson's
 * recursive parser sees it. Counts brackets outside strings. */
static bool text_too_deep(const char *t, size_t len) {
        unsigned depth = 0;
        bool in_string = false;
        for (size_t i = 0; i < len; i++) {
                char c = t[i];
                if (in_string) {
                        if (c == '\\')
                                i++;
                        else if (c == '"')
                                in_string = false;
                        continue;
                }
                if (c == '"')
                        in_string = true;
                else if (c == '{' || c == '[') {
                        if (++depth > VARLINK_NESTING_MAX)
                                return true;
                } else if ((c == '}' || c == ']') && depth > 0)
                        depth--;
        }
        return false;
}

static int message_parse(const char *text, size_t len, size_t flags, json_t **ret) {
        assert(text || len == 0);
        assert(ret);

        if (text_too_deep(text, len))
                return -EBADMSG;
        json_error_t err;
        json_t *v = json_loadb(text, len, JSON_REJECT_DUPLICATES | flags, &err);
        if (!v)
                return -EBADMSG;
        if (!json_is_object(v)) {
                json_decref(v);
                return -EBADMSG;
        }
        *ret = v;
        return 0;
}

int varlink_message_parse(const char *text, size_t len, json_t **ret) {
        return message_parse(text, len, 0, ret);
}

int varlink_message_parse_allow_nul(const char *text, size_t len, json_t **ret) {
        return message_parse(text, len, JSON_ALLOW_NUL, ret);
}

int varlink_message_format(json_t *obj, char **ret, size_t *ret_len) {
        assert(obj);
        assert(ret);
        assert(ret_len);

        char *s = json_dumps(obj, JSON_COMPACT);
        if (!s)
                return -ENOMEM;
        size_t n = strlen(s) + 1; /* the NUL terminator is the frame delimiter */
        if (n > VARLINK_MESSAGE_MAX) {
                free(s);
                return -EMSGSIZE;
        }
        *ret = s;
        *ret_len = n;
        return 0;
}
