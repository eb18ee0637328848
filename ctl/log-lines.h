/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A service's log as svd's Logs sends it: the parameters of the call, and
 * the lines printed with time and stream, or as JSON lines with --json. The
 * logs verb and the tail that status prints share them.
 */

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#define METHOD_LOGS "io.svd.Manager.Logs"

/* {"name": name, "lines": lines (left out when < 0), "follow": true (when follow)}; NULL without memory. */
json_t *logs_parameters(const char *name, int64_t lines, bool follow);
/* A reply's parameters: "-- N lines not shown --" for "dropped", then each of "lines". */
void print_log_reply(json_t *p);
/* {"dropped": N} as a JSON line. */
void print_dropped_json(json_t *dropped);
