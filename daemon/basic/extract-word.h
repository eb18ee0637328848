/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * systemd-style word splitting for ExecStart= and Environment=:
 * words are separated by whitespace; "double" and 'single' quotes group a
 * word; inside double quotes and bare words backslash escapes work as in C
 * (\n \t \\ \" \' \a \b \f \r \v \s, \xNN, \NNN octal, \uNNNN, \UNNNNNNNN);
 * inside single quotes too (systemd treats them alike for ExecStart=).
 * "\;" gives ";" (systemd knows it only as an ExecStart= word of its own).
 * An escape that yields a NUL byte (\x00, \000, \u0000) is a bad escape.
 * A quote may start mid-word ("a"b'c' is one word "abc"); "" is an empty word.
 * Errors: -EINVAL for an unterminated quote, a trailing backslash or a bad
 * escape; -E2BIG when more than max_words words.
 */

#include <stddef.h>

/* Splits s into a NULL-terminated argv (ExecStart=); an empty or blank s gives
 * an empty argv. A bare ";" word, which systemd takes as a separator between
 * command lines, gives -EOPNOTSUPP (write "\;" or ";" quoted for a literal one). */
int split_exec_line(const char *s, size_t max_words, char ***ret);

/* Splits an Environment= value into "K=V" assignments; each must have a
 * valid name ([A-Za-z_][A-Za-z0-9_]*) and '=' (else -EINVAL). */
int split_env_assignments(const char *s, size_t max, char ***ret);

/* Extracts one word at *p, advancing *p past it and the whitespace after it.
 * Returns 1 with a word, 0 (and *ret = NULL) when only whitespace is left. */
int extract_first_word(const char **p, char **ret);
