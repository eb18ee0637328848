/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* svd-crashtest: svd's own cgroup, the freezer, memory.max and the OOM killer's count. */
#include "crashtest-cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup-util.h"
#include "file-util.h"
#include "macros.h"

/* How long the clean-up waits for Y to empty after cgroup.kill. */
#define CG_KILL_TIMEOUT_MSEC 10000
/* Depth of the cgroups below Y that the clean-up removes (Y/services-ID/NAME). */
#define CG_DEPTH_MAX 8

static uint64_t mono_usec(void) {
        struct timespec ts;
        (void)clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * USEC_PER_SEC + (uint64_t)ts.tv_nsec / NSEC_PER_USEC;
}

/* The value of `key` in a flat keyed file ("key value" lines). */
static int keyed_value(const char *buf, const char *key, uint64_t *ret) {
        size_t kl = strlen(key);
        for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
                if (strneq(p, key, kl) && p[kl] == ' ') {
                        char *end;
                        errno = 0;
                        unsigned long long v = strtoull(p + kl + 1, &end, 10);
                        if (errno || end == p + kl + 1)
                                return -EBADMSG;
                        *ret = v;
                        return 0;
                }
        return -ENOENT;
}

static bool has_word(const char *list, const char *word) {
        size_t l = strlen(word);
        for (const char *p = list; (p = strstr(p, word)); p += l)
                if ((p == list || p[-1] == ' ') && (p[l] == 0 || p[l] == ' ' || p[l] == '\n'))
                        return true;
        return false;
}

_printf_(3, 4) static int why(char *reason, size_t size, const char *fmt, ...) {
        int saved = errno;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(reason, size, fmt, ap);
        va_end(ap);
        errno = saved;
        return -(saved ? saved : EOPNOTSUPP);
}

int crash_cgroup_setup(CrashCgroup *cg, bool want_memory, char *reason, size_t reason_size) {
        _cleanup_free_ char *mnt = NULL, *own = NULL, *parent = NULL, *y = NULL;
        _cleanup_close_ int parent_fd = -EBADF;
        char buf[512];
        int r;

        *cg = CRASH_CGROUP_NULL;
        errno = 0;
        r = cgroup2_mount_point(&mnt);
        if (r < 0)
                return errno = -r, why(reason, reason_size, "no cgroup2 hierarchy is mounted");
        r = cgroup_path_of_pid(getpid(), &own);
        if (r < 0)
                return errno = -r, why(reason, reason_size, "the runner's cgroup2 path is unknown");

        /* P: the runner's cgroup, or the delegated cgroup whose leaf "supervisor" holds the runner. */
        char *slash = strrchr(own, '/');
        if (slash && slash != own && streq(slash + 1, "supervisor"))
                *slash = 0;
        if (asprintf(&parent, "%s%s", mnt, streq(own, "/") ? "" : own) < 0)
                return -ENOMEM;
        parent_fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (parent_fd < 0 || faccessat(parent_fd, ".", W_OK, 0) < 0)
                return why(reason, reason_size, "the cgroup %s is not writable (not delegated): %m", parent);

        if (want_memory) {
                if (read_small_file_at(parent_fd, "cgroup.controllers", buf, sizeof(buf)) < 0 ||
                    !has_word(buf, "memory"))
                        return errno = EOPNOTSUPP, why(reason, reason_size,
                                                       "the cgroup2 hierarchy offers no memory controller "
                                                       "at %s (cgroup.controllers: "
                                                       "'%.*s'; a cgroup v1 hierarchy may hold it)",
                                                       parent, (int)strcspn(buf, "\n"), buf);
                r = write_file_at(parent_fd, "cgroup.subtree_control", "+memory");
                if (r < 0)
                        return errno = -r, why(reason, reason_size,
                                               "cannot enable the memory controller below %s "
                                               "(a cgroup that holds processes cannot): %m",
                                               parent);
        }

        char name[64];
        snprintf(name, sizeof(name), "crashtest-%d", (int)getpid());
        if (mkdirat(parent_fd, name, 0755) < 0)
                return why(reason, reason_size, "cannot create %s/%s: %m", parent, name);
        if (asprintf(&y, "%s/%s", parent, name) < 0)
                return -ENOMEM;
        cg->path = TAKE_PTR(y);
        cg->fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (cg->fd < 0)
                return why(reason, reason_size, "cannot open %s: %m", cg->path);
        if (want_memory) {
                r = write_file_at(cg->fd, "cgroup.subtree_control", "+memory");
                if (r < 0)
                        return errno = -r, why(reason, reason_size,
                                               "cannot enable the memory controller in %s: %m", cg->path);
        }
        if (mkdirat(cg->fd, "supervisor", 0755) < 0)
                return why(reason, reason_size, "cannot create %s/supervisor: %m", cg->path);
        cg->svd_fd = openat(cg->fd, "supervisor", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (cg->svd_fd < 0)
                return why(reason, reason_size, "cannot open %s/supervisor: %m", cg->path);
        if (faccessat(cg->svd_fd, "cgroup.freeze", W_OK, 0) < 0)
                return why(reason, reason_size,
                           "%s/supervisor has no writable cgroup.freeze (Linux 5.2): %m", cg->path);
        if (asprintf(&cg->svd_cg, "%s/supervisor", cg->path + strlen(mnt)) < 0)
                return -ENOMEM;

        if (want_memory) {
                /* memory.oom.group: the OOM killer takes everything in svd's
                 * leaf at once (a child between fork and its move into a
                 * service's cgroup too), as a kill -9 of svd's group would. */
                r = write_file_at(cg->svd_fd, "memory.oom.group", "1");
                if (r < 0)
                        return errno = -r, why(reason, reason_size,
                                               "cannot write %s/supervisor/memory.oom.group: %m", cg->path);
                /* Without swap for svd, reclaim cannot make room under the
                 * lowered limit by swapping svd out: the OOM killer must act.
                 * No memory.swap.max: no swap accounting, nothing to swap to. */
                r = write_file_at(cg->svd_fd, "memory.swap.max", "0");
                if (r < 0 && r != -ENOENT)
                        return errno = -r, why(reason, reason_size,
                                               "cannot write %s/supervisor/memory.swap.max: %m", cg->path);
                cg->memory = true;
        }
        cg->available = true;
        return 0;
}

int crash_cgroup_enter(const CrashCgroup *cg) {
        return write_file_at(cg->svd_fd, "cgroup.procs", "0");
}

static int cgroup_populated(int fd) {
        char buf[256];
        uint64_t v;
        int r = read_small_file_at(fd, "cgroup.events", buf, sizeof(buf));
        if (r < 0)
                return r;
        r = keyed_value(buf, "populated", &v);
        return r < 0 ? r : v != 0;
}

/* Removes the cgroups below dir_fd, deepest first, then `name` itself. */
static void remove_tree(int dir_fd, const char *name, unsigned depth) {
        if (depth >= CG_DEPTH_MAX)
                return;
        int fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return;
        DIR *d = fdopendir(fd);
        if (!d) {
                close(fd);
                return;
        }
        struct dirent *de;
        while ((de = readdir(d)))
                if (de->d_type == DT_DIR && !streq(de->d_name, ".") && !streq(de->d_name, ".."))
                        remove_tree(dirfd(d), de->d_name, depth + 1);
        closedir(d);
        (void)unlinkat(dir_fd, name, AT_REMOVEDIR);
}

void crash_cgroup_done(CrashCgroup *cg) {
        if (cg->fd >= 0) {
                /* Thawed first: a frozen process cannot die. */
                (void)write_file_at(cg->svd_fd, "cgroup.freeze", "0");
                if (cgroup_populated(cg->fd) > 0 && write_file_at(cg->fd, "cgroup.kill", "1") >= 0) {
                        _cleanup_close_ int ev = openat(cg->fd, "cgroup.events", O_RDONLY | O_CLOEXEC);
                        uint64_t deadline = mono_usec() + CG_KILL_TIMEOUT_MSEC * USEC_PER_MSEC;
                        while (ev >= 0 && cgroup_populated(cg->fd) > 0 && mono_usec() < deadline) {
                                struct pollfd p = {.fd = ev, .events = POLLPRI};
                                (void)poll(&p, 1, 100);
                        }
                }
                char *slash = strrchr(cg->path, '/');
                if (slash) {
                        *slash = 0;
                        _cleanup_close_ int parent_fd = open(cg->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        *slash = '/';
                        if (parent_fd >= 0)
                                remove_tree(parent_fd, slash + 1, 0);
                }
        }
        cg->svd_fd = safe_close(cg->svd_fd);
        cg->fd = safe_close(cg->fd);
        free(cg->path);
        free(cg->svd_cg);
        *cg = CRASH_CGROUP_NULL;
}

/* Whether cgroup `inner` is `outer` or lies below it. */
static bool cgroup_within(const char *inner, const char *outer) {
        if (streq(outer, "/"))
                return true;
        size_t l = strlen(outer);
        return strneq(inner, outer, l) && (inner[l] == 0 || inner[l] == '/');
}

int cgroup_open_freezable(pid_t pid, pid_t self, pid_t other, int *ret_fd, char *reason,
                          size_t reason_size) {
        _cleanup_free_ char *mnt = NULL, *cg = NULL, *self_cg = NULL, *other_cg = NULL, *path = NULL;
        int r;

        errno = 0;
        r = cgroup2_mount_point(&mnt);
        if (r < 0)
                return errno = -r, why(reason, reason_size, "no cgroup2 hierarchy is mounted");
        r = cgroup_path_of_pid(pid, &cg);
        if (r < 0)
                return errno = -r, why(reason, reason_size, "cannot read the cgroup of %d: %m", (int)pid);
        if (streq(cg, "/"))
                return errno = EPERM, why(reason, reason_size, "process %d is in the root cgroup", (int)pid);
        if (cgroup_path_of_pid(self, &self_cg) >= 0 && cgroup_within(self_cg, cg))
                return errno = EPERM, why(reason, reason_size, "the runner is in %s too", cg);
        if (other > 0 && cgroup_path_of_pid(other, &other_cg) >= 0 && cgroup_within(other_cg, cg))
                return errno = EPERM, why(reason, reason_size, "svd is in %s too", cg);
        if (asprintf(&path, "%s%s", mnt, cg) < 0)
                return -ENOMEM;
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0 || faccessat(fd, "cgroup.freeze", W_OK, 0) < 0) {
                r = why(reason, reason_size, "cannot use %s/cgroup.freeze: %m", path);
                safe_close(fd);
                return r;
        }
        *ret_fd = fd;
        return 0;
}

int cgroup_freeze(int cg_fd, bool freeze, uint64_t deadline) {
        _cleanup_close_ int ev = openat(cg_fd, "cgroup.events", O_RDONLY | O_CLOEXEC);
        if (ev < 0)
                return -errno;
        int r = write_file_at(cg_fd, "cgroup.freeze", freeze ? "1" : "0");
        if (r < 0)
                return r;
        /* cgroup.events polls POLLPRI on every change; it is read again on each. */
        for (;;) {
                char buf[256];
                uint64_t frozen;
                ssize_t n = pread(ev, buf, sizeof(buf) - 1, 0);
                if (n < 0)
                        return -errno;
                buf[n] = 0;
                r = keyed_value(buf, "frozen", &frozen);
                if (r < 0)
                        return r;
                if ((frozen != 0) == freeze)
                        return 0;
                uint64_t now = mono_usec();
                if (now >= deadline)
                        return -ETIMEDOUT;
                uint64_t ms = (deadline - now + USEC_PER_MSEC - 1) / USEC_PER_MSEC;
                struct pollfd p = {.fd = ev, .events = POLLPRI};
                if (poll(&p, 1, ms > INT_MAX ? INT_MAX : (int)ms) < 0 && errno != EINTR)
                        return -errno;
        }
}

int cgroup_oom_kills(int cg_fd, uint64_t *ret) {
        char buf[512];
        int r = read_small_file_at(cg_fd, "memory.events", buf, sizeof(buf));
        if (r < 0)
                return r;
        return keyed_value(buf, "oom_kill", ret);
}

int cgroup_memory_current(int cg_fd, uint64_t *ret) {
        char buf[64];
        int r = read_small_file_at(cg_fd, "memory.current", buf, sizeof(buf));
        if (r < 0)
                return r;
        char *end;
        errno = 0;
        unsigned long long v = strtoull(buf, &end, 10);
        if (errno || end == buf)
                return -EBADMSG;
        *ret = v;
        return 0;
}

int cgroup_memory_max(int cg_fd, const char *value) {
        return write_file_at(cg_fd, "memory.max", value);
}
