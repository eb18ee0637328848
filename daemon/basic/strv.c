/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* NULL-terminated string vectors. */
#include "strv.h"

#include <malloc.h>
#include <stdint.h>
#include <string.h>

char **strv_free(char **l) {
        if (!l)
                return NULL;
        for (char **i = l; *i; i++)
                free(*i);
        free(l);
        return NULL;
}

size_t strv_length(char *const *l) {
        size_t n = 0;

        if (!l)
                return 0;
        while (l[n])
                n++;
        return n;
}

int strv_consume_with_size(char ***l, size_t *n, char *value) {
        _cleanup_free_ char *v = value;

        assert(l);
        assert(n);

        if (!v)
                return -ENOMEM;
        if (*n > SIZE_MAX / sizeof(char *) / 2 - 2)
                return -ENOMEM;

        /* Grows by half again when full, so that a list built one entry at a time costs linear time. */
        if (!*l || (*n + 2) * sizeof(char *) > malloc_usable_size(*l)) {
                char **c = realloc(*l, sizeof(char *) * (*n + 2 + *n / 2));
                if (!c)
                        return -ENOMEM;
                *l = c;
        }
        (*l)[*n] = TAKE_PTR(v);
        (*l)[++*n] = NULL;
        return 0;
}

int strv_consume(char ***l, char *value) {
        assert(l);
        size_t n = strv_length(*l);

        return strv_consume_with_size(l, &n, value);
}

int strv_extend_with_size(char ***l, size_t *n, const char *value) {
        assert(value);

        return strv_consume_with_size(l, n, strdup(value));
}

int strv_extend(char ***l, const char *value) {
        assert(l);
        assert(value);

        return strv_consume(l, strdup(value));
}

char **strv_copy(char *const *l) {
        _cleanup_strv_free_ char **c = NULL;
        size_t n = strv_length(l);

        c = calloc(n + 1, sizeof(char *));
        if (!c)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                c[i] = strdup(l[i]);
                if (!c[i])
                        return NULL;
        }
        return TAKE_PTR(c);
}

bool strv_contains(char *const *l, const char *s) {
        assert(s);

        if (!l)
                return false;
        for (char *const *i = l; *i; i++)
                if (streq(*i, s))
                        return true;
        return false;
}

int strv_env_replace_consume(char ***l, char *assignment) {
        _cleanup_free_ char *a = assignment;
        const char *eq;
        size_t k;

        assert(l);

        if (!a)
                return -ENOMEM;

        eq = strchr(a, '=');
        if (!eq)
                return -EINVAL;
        k = (size_t) (eq - a) + 1; /* compare "KEY=" so that "A" does not match "AB=" */

        for (char **i = *l; i && *i; i++)
                if (strneq(*i, a, k)) {
                        free(*i);
                        *i = TAKE_PTR(a);
                        return 0;
                }

        return strv_consume(l, TAKE_PTR(a));
}
