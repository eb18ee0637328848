/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The user's commands, each run by /bin/sh -c with the round in its
 * environment (SVD_CRASHTEST_ROUND, _SEED, _FAULT, _TARGETS, _FAULT_USEC):
 *
 * - the workload runs outside svd, in a session and process group of its
 *   own (so that its orphans are not taken for escaped service processes),
 *   from ready until after the recovery; its output goes to its log and is
 *   matched line by line against the marker expression;
 * - the probe is run again every PROBE_INTERVAL_MSEC until it succeeds;
 * - the check runs once after the recovery, its output in a file.
 */

#include "crashtest-report.h"
#include "crashtest-runner.h"

#define WORKLOAD_STOP_TIMEOUT_USEC (5 * USEC_PER_SEC)
#define PROBE_INTERVAL_MSEC 100

/* Starts --workload, if any. */
int workload_start(Runner *r, const Round *rd);
/* Reads what the workload printed, without waiting: into its log, and against the marker. */
void workload_drain(Runner *r);
/* SIGTERM to the workload's group; SIGKILL to what is left once the leader has gone or after
 * WORKLOAD_STOP_TIMEOUT_USEC; reaps it all. */
void workload_stop(Runner *r);

/* Runs cmd to its end, its output to log_path (NULL: /dev/null). Its exit status (128+N for
 * signal N), or -errno. */
int command_run(const char *cmd, const Round *rd, const char *log_path);
/* Runs --probe until it succeeds (0) or the ready timeout passes (-ETIMEDOUT). */
int probe_until_ok(const Round *rd);
