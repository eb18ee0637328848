/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The lookup behind DEFINE_STRING_TABLE_LOOKUP(). */
#include "string-table.h"

#include <string.h>

ssize_t string_table_lookup(const char *const *table, size_t n, const char *key) {
        if (!key)
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (table[i] && strcmp(table[i], key) == 0)
                        return (ssize_t) i;
        return -EINVAL;
}
