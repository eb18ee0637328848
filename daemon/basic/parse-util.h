/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Value parsers with systemd's syntax. Each returns 0 and writes *ret only
 * on success, -EINVAL (or -ERANGE) otherwise. They never log.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* 1/yes/y/true/t/on and 0/no/n/false/f/off, case-insensitive. */
int parse_boolean(const char *s, bool *ret);

/* systemd time spans: "5", "5s", "100ms", "1min 30s", "2h", "1.5s", "infinity".
 * A bare number is seconds. "infinity" gives UINT64_MAX. */
int parse_sec(const char *s, uint64_t *ret);

/* "SIGTERM", "TERM" or a number 1..SIGRTMAX (also "RTMIN+3", "SIGRTMAX-1"). Names are
 * case-sensitive, as in systemd; a number takes no "SIG" prefix. */
int signal_from_string(const char *s, int *ret);
/* "SIGTERM", "SIGRTMIN+3"; NULL for an unknown number. */
const char *signal_to_string(int sig);

/* A decimal uid/gid: 0 .. 2^32-2, no sign, no spaces. (uid_t)-1 and 65535 (the 16-bit -1) are
 * refused with -ERANGE, like systemd's uid_is_valid(). */
int parse_uid(const char *s, uid_t *ret);
int parse_gid(const char *s, gid_t *ret);

/* Decimal with overflow checking (-ERANGE): digits only, no '+', no whitespace, no base prefix.
 * safe_atoi() also takes a leading '-'. */
int safe_atou64(const char *s, uint64_t *ret);
int safe_atoi(const char *s, int *ret);

/* Writes a time span like "1min 30s" / "100ms" / "1.5s" / "infinity" (truncated to fit l) and
 * returns buf; the text parses back to the same value with parse_sec(). */
#define FORMAT_TIMESPAN_MAX 64U /* enough for any uint64_t */
char *format_timespan(char *buf, size_t l, uint64_t usec);
