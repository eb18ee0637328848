/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* NULL-terminated string vectors. Functions return 0 or -ENOMEM. */

#include <stdbool.h>
#include <stddef.h>

#include "macros.h"

char **strv_free(char **l);
DEFINE_TRIVIAL_CLEANUP_FUNC(char **, strv_free);
#define _cleanup_strv_free_ _cleanup_(strv_freep)

size_t strv_length(char *const *l);
/* Takes ownership of value (freed on failure). */
int strv_consume(char ***l, char *value);
int strv_extend(char ***l, const char *value);
/* The same for a list whose length the caller keeps in *n (updated): linear time for a long list
 * built one entry at a time. */
int strv_consume_with_size(char ***l, size_t *n, char *value);
int strv_extend_with_size(char ***l, size_t *n, const char *value);
char **strv_copy(char *const *l);
bool strv_contains(char *const *l, const char *s);
/* Sets "KEY=VALUE" in an environment block, replacing an earlier KEY. Takes ownership.
 * Returns -EINVAL (and frees assignment) when it has no '='. */
int strv_env_replace_consume(char ***l, char *assignment);
