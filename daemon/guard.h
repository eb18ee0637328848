/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The guard: what ends every service's whole process tree when svd dies.
 *
 * The kernel's autokill (and the parent-death signal of the fallback mode) reaches the process svd
 * created, not what that process forks. Where svd has cgroups, every process of every service is
 * below one cgroup (cgroup.h), and one write to its cgroup.kill ends them all, however they forked,
 * setsid'd or double-forked. The guard is a small process (svd's own binary, run as `svd --guard`)
 * that svd starts at start-up: it holds svd's pidfd and the services' parent cgroup, waits for the
 * pidfd to say that svd is gone (a kill -9, a crash, the OOM killer), then writes cgroup.kill, waits
 * until the subtree is empty and exits. It is neither autokilled nor given a parent-death signal, and
 * lives in a cgroup of its own (CgroupRoot.guard_fd), so what kills svd or svd's cgroup does not take
 * it along. A re-exec keeps svd's pid, so the guard keeps watching the same process and is handed
 * over with the state; the next svd's start-up ends a guard its predecessor left before it starts
 * anything; a clean exit stops it after every service has stopped. When the guard itself is killed,
 * svd starts it again. Without cgroups there is no guard: a service's tree then dies with svd only
 * with PrivatePIDs=yes.
 */

#include <stdint.h>
#include <systemd/sd-event.h>

#include "cgroup.h"
#include "process.h"

typedef struct Guard {
        Process proc;                   /* the guard, or unset */
        sd_event_source *exit_source;   /* proc's pidfd readable */
        sd_event_source *retry_source;  /* a restart after a quick death */
        uint64_t started_usec;          /* CLOCK_MONOTONIC */
        sd_event *event;
        CgroupRoot *cgroup;             /* its guard cgroup is made anew before each start */
        const char *exe_path;
} Guard;

#define GUARD_KILL_TIMEOUT_MSEC 5000 /* how long the guard waits for the subtree to empty */

void guard_init(Guard *g, sd_event *e, CgroupRoot *cg, const char *exe_path);

/* At start-up (not after a re-exec): a guard a crashed predecessor left is ended, then whatever it
 * had not killed yet. 1 when processes were found, 0 when none, -errno. */
int guard_takeover(const CgroupRoot *cg);

/* Starts the guard: 0, -EOPNOTSUPP without cgroups, or -errno. */
int guard_start(Guard *g);
/* After a re-exec: the guard the old image started (its pid and pidfd). */
int guard_resume(Guard *g, pid_t pid, int pidfd);
/* A clean exit: the guard is killed and reaped. */
void guard_stop(Guard *g);
void guard_done(Guard *g);

/* The guard process (`svd --guard`): fd 3 is svd's pidfd, fd 4 the services' parent cgroup. */
int guard_main(void);
