/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The power-loss fault's layers: one svd-powerfs over each --data
 * directory, from before svd's first start to the end of the run. A
 * power-loss round kills svd and its services as svd-kill does; once the
 * judge has found them all dead, each layer cuts (what was never made
 * durable is gone from the directory) and a new layer covers it before svd
 * starts again.
 */

#include "crashtest-report.h"
#include "crashtest-runner.h"

/* A layer over each --data directory, each waited for until it is mounted. 0, or -EINVAL (said). */
int powerloss_start(Runner *r);
/* The cut, after every process of the round is dead: what each layer dropped goes into rd, its log
 * to DIR/round-N.powerfs-I.log; then new layers. 0, or -EINVAL (said). */
int powerloss_cut(Runner *r, Round *rd, bool torn);
/* A passed round keeps no log of what was dropped. */
void powerloss_forget(Runner *r, const Round *rd);
/* Unmounts every layer, keeping what is in the directories. */
void powerloss_stop(Runner *r);
