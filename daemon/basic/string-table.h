/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * enum <-> string. An enum Foo has _FOO_MAX and _FOO_INVALID = -EINVAL, and
 * a table "static const char *const foo_table[_FOO_MAX]" whose strings are
 * the names used on the wire; then
 *
 *     DEFINE_STRING_TABLE_LOOKUP(foo, Foo);
 *
 * defines foo_to_string() (NULL for a value out of range) and
 * foo_from_string() (_FOO_INVALID for NULL or an unknown string).
 */

#include <errno.h>
#include <stddef.h>
#include <sys/types.h>

/* The index of key in table (NULL entries never match), or -EINVAL. */
ssize_t string_table_lookup(const char *const *table, size_t n, const char *key);

#define DEFINE_STRING_TABLE_LOOKUP_TO_STRING(name, type)                                                     \
        const char *name##_to_string(type i) {                                                               \
                if ((ssize_t) i < 0 || (size_t) i >= sizeof(name##_table) / sizeof(name##_table[0]))         \
                        return NULL;                                                                         \
                return name##_table[i];                                                                      \
        }

#define DEFINE_STRING_TABLE_LOOKUP_FROM_STRING(name, type)                                                   \
        type name##_from_string(const char *s) {                                                             \
                return (type) string_table_lookup(name##_table,                                              \
                                                  sizeof(name##_table) / sizeof(name##_table[0]), s);        \
        }

#define DEFINE_STRING_TABLE_LOOKUP(name, type)                                                               \
        DEFINE_STRING_TABLE_LOOKUP_TO_STRING(name, type)                                                     \
        DEFINE_STRING_TABLE_LOOKUP_FROM_STRING(name, type)
