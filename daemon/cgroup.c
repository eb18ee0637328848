/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cgroup v2 containment: a cgroup per service below svd's subtree, its limits, cgroup.kill. */
#include "cgroup.h"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/cgroup-util.h"
#include "basic/file-util.h"
#include "basic/macros.h"
#include "basic/missing-syscall.h"
#include "basic/time-util.h"

/* Enables whichever of memory, pids and cpu the cgroup offers for its children. */
static void enable_controllers(int dir_fd, CgroupRoot *r, bool record) {
        char buf[512];
        if (read_small_file_at(dir_fd, "cgroup.controllers", buf, sizeof(buf)) < 0)
                return;
        static const char *const names[] = { "memory", "pids", "cpu" };
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                bool ok = false;
                for (char *t = strtok(strdupa(buf), " \n"); t; t = strtok(NULL, " \n"))
                        if (streq(t, names[i]))
                                ok = true;
                char cmd[16];
                snprintf(cmd, sizeof(cmd), "+%s", names[i]);
                if (ok)
                        ok = write_file_at(dir_fd, "cgroup.subtree_control", cmd) >= 0;
                if (record) {
                        if (i == 0)
                                r->memory = ok;
                        else if (i == 1)
                                r->pids = ok;
                        else
                                r->cpu = ok;
                }
        }
}

void cgroup_root_setup(CgroupRoot *ret, const char *instance) {
        _cleanup_free_ char *mnt = NULL, *own = NULL, *own_path = NULL;
        _cleanup_close_ int own_fd = -EBADF;
        int r;

        *ret = (CgroupRoot){ .services_fd = -EBADF, .guard_fd = -EBADF };

        r = cgroup2_mount_point(&mnt);
        if (r < 0) {
                snprintf(ret->reason, sizeof(ret->reason), "no cgroup2 hierarchy mounted");
                return;
        }
        r = cgroup_path_of_pid(0, &own);
        if (r < 0) {
                snprintf(ret->reason, sizeof(ret->reason), "svd's cgroup2 path is unknown: %s", strerror(-r));
                return;
        }
        /* A previous svd in this cgroup moved itself into the leaf
         * "supervisor" (below), and once controllers are on, nothing may join
         * the delegated cgroup itself: whoever restarts svd there (a test
         * harness, systemd's DelegateSubgroup=supervisor) puts it into that
         * leaf. Then the delegated cgroup is the parent, and its "services"
         * are the ones a crashed predecessor left behind. */
        bool in_leaf = false;
        char *slash = strrchr(own, '/');
        if (slash && slash != own && streq(slash + 1, "supervisor")) {
                *slash = 0;
                in_leaf = true;
        }
        if (asprintf(&own_path, "%s%s", mnt, streq(own, "/") ? "" : own) < 0)
                return;
        own_fd = open(own_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (own_fd < 0 || faccessat(own_fd, "cgroup.procs", W_OK, 0) < 0 ||
            faccessat(own_fd, ".", W_OK, 0) < 0) {
                snprintf(ret->reason, sizeof(ret->reason), "svd's cgroup %s is not writable (not delegated)",
                         own_path);
                return;
        }

        const char *base = "svd";
        if (in_leaf)
                base = "services";
        else if (!streq(own, "/")) {
                /* Not the root: svd must leave its cgroup for a leaf of its own
                 * before the services' cgroups may get controllers. */
                if ((mkdirat(own_fd, "supervisor", 0755) < 0 && errno != EEXIST) ||
                    write_file_at(own_fd, "supervisor/cgroup.procs", "0") < 0) {
                        snprintf(ret->reason, sizeof(ret->reason), "cannot move svd into %s/supervisor: %s",
                                 own_path, strerror(errno));
                        return;
                }
                base = "services";
        }
        /* Another svd (another socket) in the same cgroup gets a subtree of its own. */
        char sub[64];
        snprintf(sub, sizeof(sub), "%s%s%s", base, instance ? "-" : "", instance ?: "");
        enable_controllers(own_fd, ret, /* record= */ false);
        if (mkdirat(own_fd, sub, 0755) < 0 && errno != EEXIST) {
                snprintf(ret->reason, sizeof(ret->reason), "cannot create %s/%s: %s", own_path, sub,
                         strerror(errno));
                return;
        }
        ret->services_fd = openat(own_fd, sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (ret->services_fd < 0) {
                snprintf(ret->reason, sizeof(ret->reason), "cannot open %s/%s: %s", own_path, sub, strerror(errno));
                return;
        }
        enable_controllers(ret->services_fd, ret, /* record= */ true);
        if (asprintf(&ret->services_path, "%s/%s", own_path, sub) < 0) {
                ret->services_fd = safe_close(ret->services_fd);
                return;
        }
        /* The guard's: no controller needed, nothing but the guard in it. */
        char gsub[80];
        snprintf(gsub, sizeof(gsub), "%s.guard", sub);
        if ((mkdirat(own_fd, gsub, 0755) >= 0 || errno == EEXIST) &&
            (ret->guard_fd = openat(own_fd, gsub, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0 &&
            asprintf(&ret->guard_path, "%s/%s", own_path, gsub) < 0) {
                ret->guard_path = NULL;
                ret->guard_fd = safe_close(ret->guard_fd);
        }
        ret->available = true;
        snprintf(ret->reason, sizeof(ret->reason), "services in %s (controllers:%s%s%s%s)", ret->services_path,
                 ret->memory ? " memory" : "", ret->pids ? " pids" : "", ret->cpu ? " cpu" : "",
                 ret->memory || ret->pids || ret->cpu ? "" : " none");
}

void cgroup_root_done(CgroupRoot *r) {
        r->services_fd = safe_close(r->services_fd);
        free(r->services_path);
        r->services_path = NULL;
        r->guard_fd = safe_close(r->guard_fd);
        free(r->guard_path);
        r->guard_path = NULL;
        r->available = false;
}

int cgroup_root_remove(CgroupRoot *r) {
        if (!r->available)
                return 0;
        if (rmdir(r->services_path) < 0 && errno != ENOENT)
                return -errno;
        if (r->guard_path && rmdir(r->guard_path) < 0 && errno != ENOENT)
                return -errno;
        return 0;
}

int cgroup_guard_renew(CgroupRoot *r) {
        if (!r->available || !r->guard_path)
                return 0;
        if (rmdir(r->guard_path) < 0)
                return errno == EBUSY ? 0 : -errno;
        r->guard_fd = safe_close(r->guard_fd);
        if (mkdir(r->guard_path, 0755) < 0 && errno != EEXIST)
                return -errno;
        r->guard_fd = open(r->guard_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (r->guard_fd < 0)
                return -errno;
        return 1;
}

int cgroup_service_open_existing(CgroupRoot *r, const char *name, int *ret_fd) {
        if (!r->available)
                return -EOPNOTSUPP;
        int fd = openat(r->services_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        *ret_fd = fd;
        return 0;
}

int cgroup_service_remove(CgroupRoot *r, const char *name) {
        if (!r->available)
                return -EOPNOTSUPP;
        if (unlinkat(r->services_fd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
                return -errno;
        return 0;
}

int cgroup_service_open(CgroupRoot *r, const char *name, int *ret_fd) {
        bool fresh = true;
        if (!r->available)
                return -EOPNOTSUPP;
        if (mkdirat(r->services_fd, name, 0755) < 0) {
                if (errno != EEXIST)
                        return -errno;
                /* Busy: still in use, so use it as it is. */
                if (cgroup_service_remove(r, name) < 0)
                        fresh = false;
                else if (mkdirat(r->services_fd, name, 0755) < 0)
                        return -errno;
        }
        int k = cgroup_service_open_existing(r, name, ret_fd);
        return k < 0 ? k : fresh;
}

/* Calls fn for each process that cgroup.procs lists in the cgroup dir_fd and in the cgroups below it,
 * depth first, until fn returns nonzero (which is returned). Cgroups that vanish meanwhile are
 * skipped. 0 when fn never stopped the walk, or -errno. With a cursor (at the top only), the walk
 * begins at the child the cursor names, or from the first one when there is no such child any more,
 * and a stop leaves the cursor at the child it stopped in. */
#define CGROUP_WALK_DEPTH_MAX 32
static int walk_procs(int dir_fd, unsigned depth, CgroupCursor *cursor, int (*fn)(pid_t pid, void *userdata),
                      void *userdata) {
        _cleanup_close_ int procs = openat(dir_fd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
        if (procs < 0)
                return errno == ENOENT ? 0 : -errno;
        _cleanup_fclose_ FILE *f = fdopen(procs, "re");
        if (!f)
                return -errno;
        TAKE_FD(procs);
        int pid, r;
        while (fscanf(f, "%d", &pid) == 1)
                if ((r = fn(pid, userdata)) != 0)
                        return r;
        if (depth >= CGROUP_WALK_DEPTH_MAX)
                return 0;

        int d = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (d < 0)
                return -errno;
        _cleanup_closedir_ DIR *dir = fdopendir(d);
        if (!dir) {
                r = -errno;
                (void) close(d);
                return r;
        }
        bool passing = cursor && cursor->name[0];
        for (;;) {
                struct dirent *de;
                while ((errno = 0, de = readdir(dir))) {
                        if (de->d_type != DT_DIR || streq(de->d_name, ".") || streq(de->d_name, ".."))
                                continue;
                        if (passing && !streq(de->d_name, cursor->name))
                                continue;
                        passing = false;
                        _cleanup_close_ int sub = openat(dirfd(dir), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        if (sub < 0) {
                                if (errno == ENOENT)
                                        continue;
                                return -errno;
                        }
                        if ((r = walk_procs(sub, depth + 1, NULL, fn, userdata)) != 0) {
                                if (cursor)
                                        snprintf(cursor->name, sizeof(cursor->name), "%s", de->d_name);
                                return r;
                        }
                }
                if (errno > 0)
                        return -errno;
                if (!passing)
                        return 0;
                /* The cursor's child is gone: from the first one. */
                passing = false;
                cursor->name[0] = 0;
                rewinddir(dir);
        }
}

static int stop_at_first(pid_t pid, void *userdata) {
        (void) pid;
        (void) userdata;
        return 1;
}

int cgroup_subtree_has_processes(int cg_fd) {
        return walk_procs(cg_fd, 0, NULL, stop_at_first, NULL);
}

int cgroup_subtree_has_processes_from(int cg_fd, CgroupCursor *cursor) {
        return walk_procs(cg_fd, 0, cursor, stop_at_first, NULL);
}

typedef struct Description {
        char *buf;
        size_t size, len;
        unsigned n;
} Description;

static int describe_one(pid_t pid, void *userdata) {
        Description *d = userdata;
        char path[64], stat[512] = "", comm[64] = "?", state = '?';

        if (d->n++ >= CGROUP_DESCRIBE_MAX)
                return 0;
        snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd < 0 ? -1 : read(fd, stat, sizeof(stat) - 1);
        if (n > 0) {
                stat[n] = 0;
                /* "PID (COMM) STATE ...": the name may hold anything, ")" too; the last ")" ends it. */
                char *open_paren = strchr(stat, '('), *close_paren = strrchr(stat, ')');
                if (open_paren && close_paren && close_paren > open_paren && close_paren[1] == ' ') {
                        snprintf(comm, sizeof(comm), "%.*s", (int) (close_paren - open_paren - 1), open_paren + 1);
                        state = close_paren[2];
                }
        }
        int k = snprintf(d->buf + d->len, d->size - d->len, "%s%d (%s) %c", d->len ? ", " : "", (int) pid, comm,
                         state);
        if (k > 0)
                d->len = MIN(d->len + (size_t) k, d->size - 1);
        return 0;
}

int cgroup_describe_processes(int cg_fd, char *buf, size_t size) {
        Description d = { .buf = buf, .size = size };

        assert(size > 0);
        buf[0] = 0;
        int r = walk_procs(cg_fd, 0, NULL, describe_one, &d);
        if (r < 0)
                return r;
        if (d.n > CGROUP_DESCRIBE_MAX && d.len < size - 1)
                snprintf(buf + d.len, size - d.len, " and %u more", d.n - CGROUP_DESCRIBE_MAX);
        return (int) d.n;
}

int cgroup_kill_and_wait(int cg_fd, int timeout_msec) {
        _cleanup_close_ int events = -EBADF;
        int k = cgroup_open_events(cg_fd, &events);
        if (k < 0)
                return k;
        k = cgroup_events_populated(events);
        if (k <= 0)
                return k;
        k = cgroup_kill(cg_fd);
        if (k < 0)
                return k;
        uint64_t deadline = now_usec(CLOCK_MONOTONIC) + (uint64_t) timeout_msec * USEC_PER_MSEC;
        struct pollfd p = { .fd = events, .events = POLLPRI };
        CgroupCursor cursor = {};
        while ((k = cgroup_events_populated(events)) > 0) {
                uint64_t now = now_usec(CLOCK_MONOTONIC);
                if (now >= deadline)
                        return -ETIMEDOUT;
                /* "populated" goes to 0 only once the last process has left, which for one that is
                 * exiting can come a while after it stopped running (an autoreaped child is released
                 * first, a slow machine takes its time). A process that cgroup.procs no longer lists
                 * anywhere below is such a one: it runs no more code of its own, and there is nothing
                 * left to wait for. No event says that a process began to exit, so look now and then.
                 * Each look goes on from the cgroup where the one before found a process: those before
                 * it were empty then, and with their processes killed nothing fills them again. So
                 * the looks of a whole wait open each cgroup about once, not once every look (with a
                 * thousand services, two thousand files every CGROUP_LOOK_MSEC, on the CPUs the dying
                 * need). */
                int n = poll(&p, 1, (int) MIN((deadline - now + USEC_PER_MSEC - 1) / USEC_PER_MSEC, CGROUP_LOOK_MSEC));
                if (n < 0 && errno != EINTR)
                        return -errno;
                if (n == 0 && cgroup_subtree_has_processes_from(cg_fd, &cursor) == 0)
                        return 1;
        }
        return k < 0 ? k : 1;
}

int cgroup_apply_limits(CgroupRoot *r, int cg_fd, bool fresh, uint64_t memory_max, uint64_t tasks_max,
                        uint64_t cpu_weight, unsigned *ret_skipped) {
        char buf[32];
        unsigned skipped = 0;
        int ret = 0, k;

        /* A cgroup made just now holds the kernel's defaults (memory.max and
         * pids.max "max", cpu.weight 100): writing them again would cost an
         * open, a write and a close each, three per start of every service. */
        if (fresh && cpu_weight == 100)
                cpu_weight = 0;
        if (memory_max != UINT64_MAX || (r->memory && !fresh)) {
                if (!r->memory)
                        skipped++;
                else {
                        if (memory_max == UINT64_MAX)
                                snprintf(buf, sizeof(buf), "max");
                        else
                                snprintf(buf, sizeof(buf), "%llu", (unsigned long long) memory_max);
                        k = write_file_at(cg_fd, "memory.max", buf);
                        if (k < 0 && ret == 0)
                                ret = k;
                }
        }
        if (tasks_max != UINT64_MAX || (r->pids && !fresh)) {
                if (!r->pids)
                        skipped++;
                else {
                        if (tasks_max == UINT64_MAX)
                                snprintf(buf, sizeof(buf), "max");
                        else
                                snprintf(buf, sizeof(buf), "%llu", (unsigned long long) tasks_max);
                        k = write_file_at(cg_fd, "pids.max", buf);
                        if (k < 0 && ret == 0)
                                ret = k;
                }
        }
        if (cpu_weight != 0 || (r->cpu && !fresh)) {
                if (!r->cpu)
                        skipped++;
                else {
                        snprintf(buf, sizeof(buf), "%llu", (unsigned long long) (cpu_weight ? cpu_weight : 100));
                        k = write_file_at(cg_fd, "cpu.weight", buf);
                        if (k < 0 && ret == 0)
                                ret = k;
                }
        }
        if (ret_skipped)
                *ret_skipped = skipped;
        return ret;
}

/* The limits svd applies: the key that sets one and the controller it needs. */
static const struct {
        const char *key, *controller;
} cgroup_limits[CGROUP_LIMIT_KEYS_MAX] = {
        { "MemoryMax=", "memory" },
        { "TasksMax=", "pids" },
        { "CPUWeight=", "cpu" },
};

static bool cgroup_root_has(const CgroupRoot *r, size_t i) {
        if (!r->available)
                return false;
        return i == 0 ? r->memory : i == 1 ? r->pids : r->cpu;
}

size_t cgroup_limits_not_applied(const CgroupRoot *r, uint64_t memory_max, uint64_t tasks_max, uint64_t cpu_weight,
                                 const char *ret_keys[static CGROUP_LIMIT_KEYS_MAX + 1],
                                 const char **ret_controllers) {
        const bool set[CGROUP_LIMIT_KEYS_MAX] = { memory_max != UINT64_MAX, tasks_max != UINT64_MAX, cpu_weight != 0 };
        size_t n = 0;

        assert(r);
        for (size_t i = 0; i < CGROUP_LIMIT_KEYS_MAX; i++)
                if (set[i] && !cgroup_root_has(r, i)) {
                        if (ret_controllers)
                                ret_controllers[n] = cgroup_limits[i].controller;
                        ret_keys[n++] = cgroup_limits[i].key;
                }
        ret_keys[n] = NULL;
        if (ret_controllers)
                ret_controllers[n] = NULL;
        return n;
}

size_t cgroup_root_controllers(const CgroupRoot *r, bool enabled, const char *ret[static CGROUP_LIMIT_KEYS_MAX + 1]) {
        size_t n = 0;

        assert(r);
        for (size_t i = 0; i < CGROUP_LIMIT_KEYS_MAX; i++)
                if (cgroup_root_has(r, i) == enabled)
                        ret[n++] = cgroup_limits[i].controller;
        ret[n] = NULL;
        return n;
}

static int parse_populated(const char *buf) {
        const char *p = strstr(buf, "populated ");
        if (!p)
                return -EBADMSG;
        return p[10] == '1';
}

int cgroup_is_populated(int cg_fd) {
        char buf[256];
        int r = read_small_file_at(cg_fd, "cgroup.events", buf, sizeof(buf));
        if (r < 0)
                return r;
        return parse_populated(buf);
}

int cgroup_events_populated(int events_fd) {
        char buf[256];
        ssize_t n = pread(events_fd, buf, sizeof(buf) - 1, 0);
        if (n < 0)
                return -errno;
        buf[n] = 0;
        return parse_populated(buf);
}

int cgroup_has_processes(int cg_fd) {
        char buf[32];
        int r = read_small_file_at(cg_fd, "cgroup.procs", buf, sizeof(buf));
        return r < 0 ? r : r > 0;
}

int cgroup_kill(int cg_fd) {
        return write_file_at(cg_fd, "cgroup.kill", "1");
}

int cgroup_signal(int cg_fd, int sig) {
        _cleanup_close_ int fd = openat(cg_fd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
        FILE *f = NULL;
        unsigned n = 0;
        int pid, r = 0;

        if (fd < 0)
                return -errno;
        f = fdopen(fd, "re");
        if (!f)
                return -errno;
        TAKE_FD(fd);
        /* Each through a pidfd of its own: a process that is gone by now is skipped, never another one
         * that got its number (a new process with that number would not be in this cgroup, which only
         * svd's spawns and their children enter). */
        while (n < CGROUP_SIGNAL_MAX && fscanf(f, "%d", &pid) == 1) {
                n++;
                int pidfd = sys_pidfd_open(pid, 0), k = 0;
                if (pidfd < 0 && errno != ENOSYS)
                        continue;
                /* Where the pidfd calls are ENOSYS (valgrind, as in fallback mode's process_kill()),
                 * kill() by the number just read from the cgroup. */
                if (pidfd >= 0)
                        k = sys_pidfd_send_signal(pidfd, sig, NULL, 0);
                if (pidfd < 0 || (k < 0 && errno == ENOSYS))
                        k = kill(pid, sig);
                if (k < 0 && errno != ESRCH && r == 0)
                        r = -errno;
                safe_close(pidfd);
        }
        fclose(f);
        return r;
}

int cgroup_open_events(int cg_fd, int *ret_fd) {
        int fd = openat(cg_fd, "cgroup.events", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        *ret_fd = fd;
        return 0;
}
