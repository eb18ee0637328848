/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A service's output on the wire: Logs(name, lines, follow) and the log
 * tail of Status. A follower (Logs with follow and "more") gets each new
 * line as one streamed reply. A follower that reads too slowly, with more
 * than VARLINK_LOGS_BACKLOG_MAX bytes still queued on its connection, misses
 * lines: they are skipped and counted, and its next reply carries `dropped`
 * with the number. svd never buffers more than that for it, and never drops
 * the connection for being slow.
 */

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "logstream.h"
#include "varlink.h"

/* Output queued for a follower beyond which its lines are skipped. */
#define VARLINK_LOGS_BACKLOG_MAX (256U << 10)
/* JSON bytes of line objects in one Logs reply (below VARLINK_MESSAGE_MAX):
 * older lines are left out when the requested ones do not fit. */
#define VARLINK_LOGS_REPLY_BYTES_MAX (512U << 10)

/* The line as a LogLine wire object (io.svd.Manager LogLine type). */
json_t *log_line_to_json(const LogLine *line);
/* Up to n of the newest lines (within VARLINK_LOGS_REPLY_BYTES_MAX), oldest first. */
json_t *varlink_log_lines(ServiceLog *l, uint64_t n);
/* Answers the call with the last `lines` lines (all with UINT64_MAX); with
 * follow, keeps it and streams new lines. */
void varlink_log_query(ServiceLog *l, VarlinkCall *call, uint64_t lines, bool follow);
