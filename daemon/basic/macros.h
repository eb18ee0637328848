/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Scope-owned resources: every resource a function holds is declared with
 * _cleanup_ and handed over with TAKE_FD()/TAKE_PTR(). Destructors accept
 * "empty" values (NULL, negative fd) so that half-built objects can be freed.
 */

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _noreturn_ __attribute__((noreturn))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _likely_(x) __builtin_expect(!!(x), 1)
#define _unlikely_(x) __builtin_expect(!!(x), 0)

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

#define TAKE_GENERIC(var, type, nullvalue)                                                                   \
        ({                                                                                                   \
                type *_pvar_ = &(var);                                                                       \
                type _var_ = *_pvar_;                                                                        \
                *_pvar_ = (nullvalue);                                                                       \
                _var_;                                                                                       \
        })
#define TAKE_PTR(ptr) TAKE_GENERIC(ptr, __typeof__(ptr), NULL)
#define TAKE_FD(fd) TAKE_GENERIC(fd, int, -EBADF)

#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)                                                              \
        static inline void func##p(type *p) {                                                                \
                if (*p)                                                                                      \
                        *p = func(*p);                                                                       \
        }

static inline void freep(void *p) {
        free(*(void **) p);
        *(void **) p = NULL;
}
#define _cleanup_free_ _cleanup_(freep)

/* Closes fd if it is valid; keeps errno intact; always returns -EBADF. */
static inline int safe_close(int fd) {
        if (fd >= 0) {
                int saved = errno;
                (void) close(fd);
                errno = saved;
        }
        return -EBADF;
}

static inline void closep(int *fd) {
        *fd = safe_close(*fd);
}
#define _cleanup_close_ _cleanup_(closep)

static inline void close_pairp(int (*p)[2]) {
        (*p)[0] = safe_close((*p)[0]);
        (*p)[1] = safe_close((*p)[1]);
}
#define _cleanup_close_pair_ _cleanup_(close_pairp)

#define streq(a, b) (strcmp((a), (b)) == 0)
#define strneq(a, b, n) (strncmp((a), (b), (n)) == 0)
#define isempty(s) (!(s) || !*(s))
#define strna(s) ((s) ? (s) : "n/a")
#define strempty(s) ((s) ? (s) : "")
#define streq_ptr(a, b) ((a) && (b) && streq((a), (b)))

#define USEC_PER_SEC 1000000ULL
#define USEC_PER_MSEC 1000ULL
#define NSEC_PER_USEC 1000ULL
#define USEC_INFINITY ((uint64_t) UINT64_MAX)

#define _fallthrough_ __attribute__((fallthrough))

/* IN_SET(x, a, b, c): x equals one of the listed constants. */
#define IN_SET(x, first, ...)                                                                                \
        ({                                                                                                   \
                const __typeof__(first) _set_[] = { first, __VA_ARGS__ };                                    \
                __typeof__(x) _x_ = (x);                                                                     \
                bool _found_ = false;                                                                        \
                for (size_t _i_ = 0; _i_ < ELEMENTSOF(_set_); _i_++)                                         \
                        if (_set_[_i_] == _x_) {                                                             \
                                _found_ = true;                                                              \
                                break;                                                                       \
                        }                                                                                    \
                _found_;                                                                                     \
        })
#define UID_FMT "%u"
#define GID_FMT "%u"
#define GID_INVALID ((gid_t) -1)

#include <dirent.h>
static inline void closedirp(DIR **d) {
        if (*d) {
                (void) closedir(*d);
                *d = NULL;
        }
}
#define _cleanup_closedir_ _cleanup_(closedirp)

#include <stdio.h>
static inline void fclosep(FILE **f) {
        if (*f) {
                (void) fclose(*f);
                *f = NULL;
        }
}
#define _cleanup_fclose_ _cleanup_(fclosep)

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
