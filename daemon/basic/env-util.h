/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Environment lists ("K=V" strv) as systemd builds and uses them for a service:
 *
 * EnvironmentFile= files (systemd.exec(5)): one NAME=VALUE per line; lines starting with '#' or
 * ';' are comments; whitespace around the name and around an unquoted value is dropped; a value
 * may be 'single quoted' (taken literally) or "double quoted" (a backslash escapes '"', '\\', '`'
 * and '$' and joins lines before a newline; before any other character it stays); outside quotes a
 * backslash takes the next character literally and a backslash before a newline continues the
 * value on the next line; a comment ending in a backslash continues on the next line. A line
 * without '=' is skipped; a name that is not a valid variable name is dropped; invalid UTF-8 fails
 * the file. Later assignments of a name win.
 *
 * Variables in command lines (systemd.service(5), "Command lines"): a word that is "$NAME" alone
 * becomes the value split at whitespace (quotes in the value group words), no word at all when
 * NAME is unset; "${NAME}" anywhere in a word becomes the value as it is ("" when unset); "$$" is
 * a literal '$'; any other '$' stays as it is.
 */

#include <stdbool.h>
#include <stddef.h>

#define ENV_FILE_SIZE_MAX (1U << 20)   /* bytes in one environment file */
#define ENV_FILE_ASSIGNMENTS_MAX 4096U /* assignments in one environment file */
#define ENV_ARGV_MAX 65536U            /* words in a command line after substitution */

/* A variable name: [A-Za-z_][A-Za-z0-9_]*, the first n bytes of s. */
bool env_name_is_valid_n(const char *s, size_t n);

/* The value of NAME (n bytes of name) in env, or NULL. */
const char *env_get_n(char *const *env, const char *name, size_t n);

/* Parses the contents of an environment file and merges its assignments into *env (replacing
 * earlier ones of the same name). -EINVAL for invalid UTF-8, -E2BIG for more than
 * ENV_FILE_ASSIGNMENTS_MAX assignments, -ENOMEM. On failure *env is left as it was. */
int env_file_parse(const char *text, size_t len, char ***env);

/* Reads path (a regular file of at most ENV_FILE_SIZE_MAX bytes; a FIFO does not block) and merges
 * it into *env as env_file_parse(). -errno of open()/read(), -EFBIG, -EBADFD not a regular file. */
int env_file_load(const char *path, char ***env);

/* Substitutes the variables of env in argv as described above, into a new argv in *ret.
 * -E2BIG for more than ENV_ARGV_MAX words, -ENOMEM. */
int env_replace_argv(char *const *argv, char *const *env, char ***ret);
