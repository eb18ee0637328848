/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * cgroup v2 containment. When svd finds a cgroup2 subtree it may write to
 * (root, or a delegated subtree under systemd's Delegate=yes), each service
 * gets a cgroup of its own below svd's: the process is created in it with
 * CLONE_INTO_CGROUP, so its whole tree stays there however it forks, and
 * cgroup.kill (Linux 5.14) ends that tree in one write. Without a usable
 * subtree svd carries on without, and says why (CgroupRoot.reason).
 *
 * Layout: svd in the root cgroup → /svd/NAME; svd in cgroup X → svd moves
 * itself to X/supervisor (no processes in inner nodes, cgroups(7)) and the
 * services live in X/services/NAME. An svd on another than the default
 * socket uses /svd-ID and X/services-ID, ID a hash of the socket path: the
 * same for every svd on that socket (a restart after a crash finds what its
 * predecessor left), different from every other svd. Beside the services'
 * parent, "<parent>.guard" (/svd.guard, X/services.guard) holds svd's guard
 * (guard.h), out of reach of what kills svd's own cgroup.
 */

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct CgroupRoot {
        bool available;
        int services_fd; /* directory fd of the parent of the service cgroups */
        char *services_path;
        /* The guard's cgroup, beside the services' parent (guard.h): "<services>.guard"; -EBADF when it
         * could not be made (the guard then stays in svd's cgroup). */
        int guard_fd;
        char *guard_path;
        char reason[256];
        /* controllers enabled for the service cgroups */
        bool memory, pids, cpu;
} CgroupRoot;

/* Finds svd's cgroup2 subtree and prepares it. Never fails: on any problem
 * returns with available = false and the reason. `instance`, when not NULL,
 * is appended to the directory of the service cgroups ("svd-INSTANCE",
 * "services-INSTANCE"): svds on different sockets in the same cgroup must
 * not share (and kill) each other's service cgroups. */
void cgroup_root_setup(CgroupRoot *ret, const char *instance);
void cgroup_root_done(CgroupRoot *r);

/* Removes the (empty) directory of the service cgroups, for a clean exit
 * once every service has stopped; -EBUSY while a service cgroup is left. */
int cgroup_root_remove(CgroupRoot *r);
/* Makes the guard's cgroup anew when it is empty: a cgroup that cgroup.kill was written to goes on
 * killing every child cloned into it with CLONE_INTO_CGROUP on some kernels (6.18 does), and the
 * guard of a predecessor that svd's start-up ended, or a guard killed through its cgroup, would
 * leave it so: no guard could start again. 1 when made anew, 0 when it is in use (or there is
 * none), -errno. */
int cgroup_guard_renew(CgroupRoot *r);

/* Creates the cgroup for a service and returns its directory fd
 * (O_CLOEXEC), for CLONE_INTO_CGROUP and the calls below. A cgroup left from
 * before is removed and made anew when it is empty: a cgroup that once got
 * cgroup.kill SIGKILLs processes cloned into it later (seen on 6.18), and a
 * fresh one carries no stale limits either. Returns 1 for a cgroup made
 * anew (the kernel's default limits), 0 for one still busy and used as it
 * is, or -errno. */
int cgroup_service_open(CgroupRoot *r, const char *name, int *ret_fd);

/* Removes a service's (empty) cgroup; -EBUSY while processes remain. */
int cgroup_service_remove(CgroupRoot *r, const char *name);

/* Kills everything in the cgroup cg_fd and below it (cgroup.kill) and waits, at most timeout_msec in
 * all, until it is empty, or until no cgroup.procs in it lists a process (what is left is exiting;
 * see cgroup_has_processes()): 1 when there was something, 0 when it was empty, -ETIMEDOUT, -errno. */
#define CGROUP_LOOK_MSEC 10 /* how often the wait looks for processes that are only exiting */
int cgroup_kill_and_wait(int cg_fd, int timeout_msec);

/* Whether cgroup.procs lists a process in the cgroup cg_fd or in any cgroup below it: 1, 0, -errno. */
int cgroup_subtree_has_processes(int cg_fd);

/* The same, for looks again and again at a subtree whose processes were all killed: each look goes on
 * from the child of cg_fd where the one before found a process (a directory lists its children in the
 * same order each time), passing over the children before it without opening them: they were empty
 * then, and with what was in them killed, nothing fills them again. A cursor whose child is gone
 * starts from the first one again. Zero-initialise the cursor before the first look. */
typedef struct CgroupCursor {
        char name[NAME_MAX + 1]; /* "": from the first child */
} CgroupCursor;
int cgroup_subtree_has_processes_from(int cg_fd, CgroupCursor *cursor);

/* "PID (COMM) STATE" of each process that cgroup.procs lists in the cgroup cg_fd and below it, the
 * first CGROUP_DESCRIBE_MAX of them, joined by ", " into buf (cut to fit). Returns how many were
 * listed, or -errno. For a report of what would not die. */
#define CGROUP_DESCRIBE_MAX 16U
int cgroup_describe_processes(int cg_fd, char *buf, size_t size);

/* Opens an existing service cgroup; -ENOENT when there is none. */
int cgroup_service_open_existing(CgroupRoot *r, const char *name, int *ret_fd);

/* Writes memory.max, pids.max and cpu.weight (UINT64_MAX / 0: no limit,
 * weight 100), writing nothing when the cgroup is fresh (as
 * cgroup_service_open() returned it) and every value is the default.
 * Returns 0 or the first error; limits whose controller is missing are
 * skipped and counted in *ret_skipped. */
int cgroup_apply_limits(CgroupRoot *r, int cg_fd, bool fresh, uint64_t memory_max, uint64_t tasks_max,
                        uint64_t cpu_weight, unsigned *ret_skipped);

/* The limits of a unit (as cgroup_apply_limits() takes them) that svd cannot apply for want of a
 * cgroup or of the limit's controller in it: the keys that set them ("MemoryMax=", "TasksMax=",
 * "CPUWeight=") in ret_keys and, when ret_controllers is not NULL, the controllers they need
 * ("memory", "pids", "cpu") in it; static strings, NULL-terminated. Returns their number. */
#define CGROUP_LIMIT_KEYS_MAX 3U
size_t cgroup_limits_not_applied(const CgroupRoot *r, uint64_t memory_max, uint64_t tasks_max, uint64_t cpu_weight,
                                 const char *ret_keys[static CGROUP_LIMIT_KEYS_MAX + 1],
                                 const char **ret_controllers);

/* The controllers ("memory", "pids", "cpu") that svd's service cgroups have (enabled = true) or lack
 * (false), NULL-terminated in ret; all are lacking without a cgroup. Returns their number. */
size_t cgroup_root_controllers(const CgroupRoot *r, bool enabled, const char *ret[static CGROUP_LIMIT_KEYS_MAX + 1]);

/* Whether any process is left in the cgroup (cgroup.events "populated"). */
int cgroup_is_populated(int cg_fd);

/* Whether cgroup.procs lists any process. It does not list processes that
 * are exiting, which still count as "populated" until they are gone: on
 * 7.x an autoreaped main process is released (PIDFD_INFO_EXIT set, its
 * pidfd hung up) a moment before it leaves its cgroup. 1, 0 or -errno. */
int cgroup_has_processes(int cg_fd);

/* Sends sig to every process in the cgroup (KillMode=control-group), at most CGROUP_SIGNAL_MAX of
 * them; 0 or the first -errno. */
#define CGROUP_SIGNAL_MAX 65536U
int cgroup_signal(int cg_fd, int sig);

/* SIGKILLs every process in the cgroup (cgroup.kill). */
int cgroup_kill(int cg_fd);

/* Opens cgroup.events for polling (EPOLLPRI on change). */
int cgroup_open_events(int cg_fd, int *ret_fd);

/* Reads "populated" through an fd from cgroup_open_events(); reading is
 * also what re-arms the fd's poll notification. */
int cgroup_events_populated(int events_fd);
