/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The processes of a service's PID namespace, seen from svd's. A service
 * that runs under svd's init (PrivatePIDs=) sees pids of its own namespace:
 * what it writes into a PID file is such a pid. These functions find the
 * process behind it by reading /proc (NSpid: in /proc/PID/status lists a
 * process's pid in every namespace from svd's down to its own) and only
 * among the processes whose /proc/PID/ns/pid is init's namespace, so a pid
 * file can only ever name a process of that service. Nothing here blocks
 * beyond reading procfs; nothing logs.
 */

#include <stdbool.h>
#include <sys/types.h>

#include "process.h"

/* The pid (in svd's namespace) of the process whose pid in the PID
 * namespace of init (svd's pid of that namespace's init) is nspid: 0 and
 * *ret, -ESRCH when there is none (or it is a zombie), -errno otherwise. */
int pidns_find(pid_t init, pid_t nspid, pid_t *ret);

/* The children of init other than its first (the command): how many there
 * are (at most 2 counted), and, when there is exactly one, its pid in svd's
 * namespace and in init's. A zombie counts as none. */
int pidns_only_child(pid_t init, pid_t *ret_pid, pid_t *ret_nspid);

/* Whether pid (in svd's namespace) is in init's PID namespace and is nspid there. */
bool pidns_pid_is(pid_t init, pid_t pid, pid_t nspid);

/* The pid of a process as its own PID namespace sees it (the last NSpid:
 * field): 0 and *ret, or -errno. */
int pidns_inner_pid(pid_t pid, pid_t *ret);

/* Opens a pidfd for pid (not a child of svd's: it is watched and signalled
 * through the pidfd only) and checks that it still is the process that
 * check_init's namespace calls check_nspid (when check_init > 0): a pid
 * recycled between the look-up and the open is refused with -ESRCH.
 * *ret gets mode, which says how its exit status is read (process.h). */
int pidns_open(pid_t pid, pid_t check_init, pid_t check_nspid, SpawnMode mode, Process *ret);

/* Reads a PID file: one positive decimal number, surrounding white space
 * allowed. 0 and *ret; -ENOENT when it is missing, -EINVAL when it does not
 * hold a pid (yet: a daemon may be writing it), -errno otherwise. */
int pidfile_read(const char *path, pid_t *ret);
