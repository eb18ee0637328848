/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * UTF-8 as JSON (jansson) accepts it: no overlong forms, no surrogates,
 * nothing above U+10FFFF. Everything svd puts into a JSON string passes
 * through one of these.
 */

#include <stdbool.h>
#include <stddef.h>

/* Length (1-4) of the valid UTF-8 character at s, reading at most n bytes;
 * 0 when the bytes there are not one, or s[0] is NUL. */
size_t utf8_char_len(const char *s, size_t n);

/* Whether the n bytes at s are valid UTF-8 without NUL. */
bool utf8_is_valid_n(const char *s, size_t n);

/* Whether the string s is valid UTF-8. */
bool utf8_is_valid(const char *s);

/* A new string: the n bytes at s with each byte that does not start a valid
 * character (and each NUL) replaced by U+FFFD. NULL when out of memory. */
char *utf8_escape_invalid(const char *s, size_t n);

/* A new string for a log line: s with its control characters, backslashes and bytes that do not
 * start a valid character escaped as in C (\n, \t, \\, \xNN); valid UTF-8 is kept.
 * NULL when out of memory. */
char *utf8_escape_for_log(const char *s);
