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
/* Whether the workload has ended by itself (r->workload_si says how), without reaping it. */
bool workload_has_ended(Runner *r);
/* How the workload that ended did, and when (WHEN: "before-fault", "after-fault"): "exited:N,WHEN",
 * "killed:SIGNAME,WHEN". */
void workload_describe_end(const Runner *r, const char *when, char *buf, size_t size);
/* SIGTERM to the workload's group; SIGKILL to what is left once the leader has gone or after
 * WORKLOAD_STOP_TIMEOUT_USEC; reaps it all. */
void workload_stop(Runner *r);

/* Runs cmd to its end, its output to log_path (NULL: /dev/null), in a process group of its own.
 * Its exit status (128+N for signal N); -ETIMEDOUT when it ran past deadline (CLOCK_MONOTONIC
 * usec), -EINTR when the runner was interrupted (its group SIGKILLed either way), or -errno. */
int command_run(const char *cmd, const Round *rd, const char *log_path, uint64_t deadline);
/* Runs --probe until it succeeds (0), the ready timeout passes (-ETIMEDOUT; a run that hangs is
 * killed then) or the runner is interrupted (-EINTR). */
int probe_until_ok(const Round *rd);
