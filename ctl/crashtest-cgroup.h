/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The cgroup side of svd-crashtest (cgroup v2 only).
 *
 * A fault that must hit svd alone needs svd in a cgroup of its own: the
 * runner makes one, Y = P/crashtest-PID, and starts svd in its leaf
 * Y/supervisor. svd takes a leaf named "supervisor" for the layout of a
 * delegated cgroup (its services then go to Y/services-ID), so the services
 * stay out of the leaf that the fault hits. P is the runner's own cgroup,
 * or its parent when the runner sits in a leaf named "supervisor" itself
 * (a delegated cgroup laid out the same way, as the tests do).
 *
 * With it: the freezer (cgroup.freeze, Linux 5.2) stops svd, or a
 * service's whole tree in the service's own cgroup, and thaws them; and
 * memory.max lowered under svd's usage makes the kernel's OOM killer kill
 * svd, which memory.events' oom_kill counter then proves.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct CrashCgroup {
        bool available;
        bool memory;  /* memory.max, memory.events and memory.oom.group in Y/supervisor */
        char *path;   /* Y */
        int fd;       /* Y */
        int svd_fd;   /* Y/supervisor, svd's leaf */
        char *svd_cg; /* Y/supervisor as a cgroup path ("/a/b"), as /proc/PID/cgroup says it */
} CrashCgroup;

#define CRASH_CGROUP_NULL ((CrashCgroup){.fd = -EBADF, .svd_fd = -EBADF})

/* Makes Y and Y/supervisor. With want_memory, the memory controller must be
 * had for Y/supervisor too: the OOM fault sets memory.oom.group=1 and
 * memory.swap.max=0 there (svd's memory cannot be swapped out of the way of
 * the limit). On failure, -errno and the reason in `reason`. */
int crash_cgroup_setup(CrashCgroup *cg, bool want_memory, char *reason, size_t reason_size);

/* In the child that becomes svd, before exec: into Y/supervisor. */
int crash_cgroup_enter(const CrashCgroup *cg);

/* Kills what is left below Y (cgroup.kill), waits for it to empty, and
 * removes Y and its cgroups. */
void crash_cgroup_done(CrashCgroup *cg);

/* Opens the cgroup of process `pid` for freezing: not the root cgroup, and
 * neither the cgroup of process `self` nor of `other` (nor one of their
 * ancestors) may be in it, as the freezer stops a cgroup's whole subtree.
 * -EPERM (with the reason) when that is not so. */
int cgroup_open_freezable(pid_t pid, pid_t self, pid_t other, int *ret_fd, char *reason, size_t reason_size);

/* Writes cgroup.freeze and waits, until the deadline (CLOCK_MONOTONIC usec),
 * for cgroup.events to say "frozen" as asked: the freezer's answer comes
 * when every process in the cgroup has stopped. -ETIMEDOUT past it. */
int cgroup_freeze(int cg_fd, bool freeze, uint64_t deadline);

/* The oom_kill counter of memory.events. */
int cgroup_oom_kills(int cg_fd, uint64_t *ret);

/* memory.current. */
int cgroup_memory_current(int cg_fd, uint64_t *ret);

/* Writes memory.max ("0", "max", a number of bytes). Lowered under the
 * cgroup's usage, the write reclaims and, when that is not enough, has the
 * OOM killer kill in the cgroup before it returns. */
int cgroup_memory_max(int cg_fd, const char *value);
