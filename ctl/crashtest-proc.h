/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The process side of svd-crashtest: a snapshot of /proc (one read of
 * /proc/PID/stat per process), the trees of the processes a fault is about to
 * kill, each held by a pidfd opened before the fault, and the aftermath: who
 * died when, who survived, who was left a zombie.
 *
 * A process is identified by pid and starttime (field 22 of /proc/PID/stat)
 * and, once tracked, by its pidfd. Alive means: one read of its stat file
 * found it with the same starttime and not in state Z or X; a second read is
 * never taken, so a zombie that another parent reaps in between cannot turn
 * into a survivor.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Bounds: a snapshot larger than this is an error, not a partial answer. */
#define PROC_SNAPSHOT_MAX 65536U
#define PROC_TRACK_MAX 8192U
#define PROC_OWNER_MAX 64U

typedef struct ProcEntry {
        pid_t pid;
        pid_t ppid;
        pid_t sid;
        char state;
        uint64_t starttime;
        char comm[32];
} ProcEntry;

/* One read of /proc/PID/stat. -ENOENT (or -ESRCH) when the process is gone. */
int proc_stat_read(pid_t pid, ProcEntry *ret);

/* Every process in /proc; *ret is malloc'd. */
int proc_snapshot(ProcEntry **ret, size_t *ret_n);

typedef struct TrackedProc {
        pid_t pid;
        uint64_t starttime;
        int pidfd;
        char comm[32];
        char owner[PROC_OWNER_MAX];
        bool dead;
        bool zombie;
        uint64_t death_usec; /* CLOCK_MONOTONIC, when its pidfd polled readable */
} TrackedProc;

typedef struct ProcRoot {
        pid_t pid;
        const char *owner;
} ProcRoot;

typedef struct ProcTracker {
        TrackedProc *procs;
        size_t n;
        const pid_t *skip; /* children of `self` that are the runner's own helpers: never "escaped" */
        size_t n_skip;
} ProcTracker;

/* Tracks every process below one of roots (and the roots themselves), each
 * attributed to its nearest root. A child of `self` that is none of the
 * roots and not in session `skip_sid` is tracked too, as owner "escaped":
 * the runner is a child subreaper, so a daemon that left its service by
 * setsid() and a double fork lands there. Every tracked process gets a
 * pidfd; one that is gone by then is not tracked, nor one tracked already:
 * a second call adds only what is new. */
int proc_tracker_collect(ProcTracker *t, const ProcRoot *roots, size_t n_roots, pid_t self, pid_t skip_sid,
                         bool include_escaped);

/* Waits until every tracked process has died or the deadline (CLOCK_MONOTONIC
 * usec) passes; reap() is called after each wake-up so that the runner's own
 * zombies are reaped. Returns how many are still alive. */
size_t proc_tracker_wait_dead(ProcTracker *t, uint64_t deadline, void (*reap)(void *userdata),
                              void *userdata);

/* One read each of the dead ones' stat: those still there as zombies (same
 * starttime, state Z). Returns the count; marks them. */
size_t proc_tracker_count_zombies(ProcTracker *t);

/* Time of the last death, 0 if none died. */
uint64_t proc_tracker_last_death(const ProcTracker *t);

/* SIGKILLs the survivors through their pidfds (the runner cleans up after
 * reporting them). */
void proc_tracker_kill_survivors(ProcTracker *t);

/* What a survivor is, for the report, on one line: its state, parent, PIDs
 * in each PID namespace, pending, blocked and ignored signals (from
 * /proc/PID/status) and its cgroup. "gone" when it is no more. */
void proc_describe(pid_t pid, char *buf, size_t size);

void proc_tracker_done(ProcTracker *t);
