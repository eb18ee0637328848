/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * How svctl shows what svd sends. Every string that svd, a unit file or a
 * peer controls is written with its control characters (C0, DEL, C1) as
 * \xNN, so that it cannot move the cursor or retitle the terminal. Every
 * field of a reply may be missing or mistyped: the getters say so, and the
 * formatters print "-" or "?" for it. Nothing here talks to svd.
 */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "macros.h"

/* ---- escaped output ---- */

void fputs_escaped(const char *s, FILE *f); /* control characters as \xNN */
size_t escaped_width(const char *s);        /* the columns fputs_escaped() takes for s */
/* The strings of a JSON array joined by spaces, each quoted as an ExecStart= word when
 * exec_quoting; NULL when there are none (or no memory). */
char *join_strings(json_t *array, bool exec_quoting);

_printf_(1, 2) void log_error(const char *format, ...);                     /* "svctl: ..." on stderr */
_printf_(2, 3) void print_field(const char *label, const char *format, ...); /* "  Label: value", as status */
_printf_(2, 3) void print_info_line(const char *key, const char *format, ...); /* "Key: value", unaligned */
int print_json(json_t *v); /* one compact line; "{}" for NULL; -ENOMEM after the message */
bool use_colors(void);     /* stdout is a terminal that wants colours */

/* ---- reading svd's replies ---- */

const char *json_get_str(json_t *o, const char *key);      /* NULL unless a string */
bool json_get_int(json_t *o, const char *key, int64_t *ret); /* false unless an integer */
json_t *reply_parameters(json_t *reply);                   /* a reply's "parameters" */

/* ---- formatting ---- */

const char *format_ago(char *buf, size_t l, int64_t usec);       /* "5s ago"; "-" for no time */
const char *format_timestamp(char *buf, size_t l, int64_t usec); /* "Thu 2026-12-03 08:00:00 UTC", or NULL */
const char *format_time(char *buf, size_t l, json_t *usec);     /* "2026-12-03 08:00:00.123", or "-" */
/* "exited, status=1", "killed, signal=SIGKILL", "dumped, signal=SIGSEGV", or "-". */
const char *format_exit(char *buf, size_t l, json_t *exit_status);

/* systemd's ActiveState= ("active" for running and exited, ...; "inactive" for
 * an unknown state) and SubState= ("dead" for an unknown one) of svd's state. */
const char *active_state_of(const char *state);
const char *sub_state_of(const char *state);
