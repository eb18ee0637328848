/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where cgroup v2 is: its mount point, and a process's cgroup in it. */
#pragma once

#include <sys/types.h>

/* The mount point of the cgroup2 hierarchy, from /proc/self/mountinfo: 0 and a new string, -ENOENT
 * when none is mounted, or -errno. */
int cgroup2_mount_point(char **ret);

/* The cgroup path ("/" or "/a/b") of process pid (0: this one), from the "0::" line of its
 * /proc/PID/cgroup: 0 and a new string, -ENOENT without one, or -errno. */
int cgroup_path_of_pid(pid_t pid, char **ret);
