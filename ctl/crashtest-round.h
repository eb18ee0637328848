/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * One round: svd and the wanted services ready (and the probe), the
 * workload started, the moment awaited (a delay, a state change from svd's
 * event stream, a log line of a service, a marker line of the workload),
 * the fault dealt, what of every killed tree is still alive or left a
 * zombie counted, svd started again if the fault took it, the time to
 * recover taken from svd's events, the check run.
 *
 * Each round's schedule (its fault, delay and targets) comes from a
 * generator of its own, seeded from the run's seed and the round's number,
 * so that --seed replays every round alike however the others went.
 */

#include "crashtest-report.h"
#include "crashtest-runner.h"

/* Runs round number into *rd. 0 when it ran (rd->failed says how it went), or -errno when the
 * runner itself could not go on (r->error says why). */
int round_run(Runner *r, unsigned number, Round *rd);
