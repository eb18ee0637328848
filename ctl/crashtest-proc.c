/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* svd-crashtest: process trees from /proc, pidfds, deaths, survivors and zombies. */
#include "crashtest-proc.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "macros.h"
#include "missing-syscall.h"

/* How deep a parent chain may be before it is taken as a loop of pid reuse. */
#define PROC_DEPTH_MAX 4096U

static uint64_t mono_usec(void) {
        struct timespec ts;
        (void)clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * USEC_PER_SEC + (uint64_t)ts.tv_nsec / NSEC_PER_USEC;
}

int proc_stat_read(pid_t pid, ProcEntry *ret) {
        char path[64], buf[1024];

        assert(ret);

        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return errno == ESRCH ? -ENOENT : -errno;
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        if (n < 0)
                return errno == ESRCH ? -ENOENT : -errno;
        buf[n] = 0;

        /* "pid (comm) S ppid pgrp session ...": comm may hold spaces and ')'. */
        char *open_paren = strchr(buf, '('), *close_paren = strrchr(buf, ')');
        if (!open_paren || !close_paren || close_paren < open_paren || close_paren[1] != ' ')
                return -EBADMSG;

        ProcEntry e = {.pid = pid};
        size_t cl = (size_t)(close_paren - open_paren - 1);
        if (cl >= sizeof(e.comm))
                cl = sizeof(e.comm) - 1;
        memcpy(e.comm, open_paren + 1, cl);

        /* Fields from 3 (state) on; starttime is field 22. */
        char *p = close_paren + 2, *save = NULL;
        unsigned field = 3;
        for (char *tok = strtok_r(p, " ", &save); tok; tok = strtok_r(NULL, " ", &save), field++) {
                if (field == 3)
                        e.state = tok[0];
                else if (field == 4)
                        e.ppid = (pid_t)strtol(tok, NULL, 10);
                else if (field == 6)
                        e.sid = (pid_t)strtol(tok, NULL, 10);
                else if (field == 22) {
                        e.starttime = strtoull(tok, NULL, 10);
                        *ret = e;
                        return 0;
                }
        }
        return -EBADMSG;
}

/* Appends e to the snapshot *v (*n of *allocated): -E2BIG beyond PROC_SNAPSHOT_MAX. */
static int entry_append(ProcEntry **v, size_t *n, size_t *allocated, const ProcEntry *e) {
        if (*n >= PROC_SNAPSHOT_MAX)
                return -E2BIG;
        if (*n == *allocated) {
                size_t na = *allocated ? *allocated * 2 : 512;
                ProcEntry *nv = realloc(*v, na * sizeof(**v));
                if (!nv)
                        return -ENOMEM;
                *v = nv;
                *allocated = na;
        }
        (*v)[(*n)++] = *e;
        return 0;
}

int proc_snapshot(ProcEntry **ret, size_t *ret_n) {
        assert(ret);
        assert(ret_n);

        DIR *d = opendir("/proc");
        if (!d)
                return -errno;

        ProcEntry *v = NULL;
        size_t n = 0, allocated = 0;
        int r = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                char *end;
                long pid = strtol(de->d_name, &end, 10);
                if (*end || pid <= 0 || pid > INT_MAX)
                        continue;
                ProcEntry e;
                if (proc_stat_read((pid_t)pid, &e) < 0)
                        continue; /* gone between readdir and open */
                r = entry_append(&v, &n, &allocated, &e);
                if (r < 0)
                        break;
        }
        closedir(d);
        if (r < 0) {
                free(v);
                return r;
        }
        *ret = v;
        *ret_n = n;
        return 0;
}

static const ProcEntry *snapshot_find(const ProcEntry *v, size_t n, pid_t pid) {
        for (size_t i = 0; i < n; i++)
                if (v[i].pid == pid)
                        return &v[i];
        return NULL;
}

static const char *root_owner(const ProcRoot *roots, size_t n_roots, pid_t pid) {
        for (size_t i = 0; i < n_roots; i++)
                if (roots[i].pid == pid)
                        return roots[i].owner;
        return NULL;
}

/* The owner of e: its nearest root ancestor (or itself), "escaped" for a
 * stray child of self, NULL for a process that is none of ours. */
static bool pid_in(const pid_t *v, size_t n, pid_t pid) {
        for (size_t i = 0; i < n; i++)
                if (v[i] == pid)
                        return true;
        return false;
}

static const char *entry_owner(const ProcTracker *t, const ProcEntry *v, size_t n, const ProcEntry *e,
                               const ProcRoot *roots, size_t n_roots, pid_t self, pid_t skip_sid,
                               bool include_escaped) {
        const ProcEntry *cur = e;
        for (unsigned depth = 0; cur && depth < PROC_DEPTH_MAX; depth++) {
                const char *o = root_owner(roots, n_roots, cur->pid);
                if (o)
                        return o;
                if (cur->ppid == self) {
                        /* A child of the runner that is no root: an orphan that
                         * was reparented to the runner (a child subreaper). The
                         * workload's own are in its session. */
                        if (include_escaped && cur->pid != self && cur->sid != skip_sid &&
                            !pid_in(t->skip, t->n_skip, cur->pid))
                                return "escaped";
                        return NULL;
                }
                if (cur->ppid <= 1)
                        return NULL;
                cur = snapshot_find(v, n, cur->ppid);
        }
        return NULL;
}

static bool proc_tracker_has(const ProcTracker *t, pid_t pid, uint64_t starttime) {
        for (size_t i = 0; i < t->n; i++)
                if (t->procs[i].pid == pid && t->procs[i].starttime == starttime)
                        return true;
        return false;
}

/* Appends pid to the array *v (*n of *allocated). */
static int pid_append(pid_t **v, size_t *n, size_t *allocated, pid_t pid) {
        if (*n == *allocated) {
                size_t na = *allocated ? *allocated * 2 : 256;
                pid_t *nv = realloc(*v, na * sizeof(pid_t));
                if (!nv)
                        return -ENOMEM;
                *v = nv;
                *allocated = na;
        }
        (*v)[(*n)++] = pid;
        return 0;
}

/* Appends the children of every thread of pid (/proc/PID/task/TID/children) to the queue; a
 * process that is gone has none. */
static int children_append(pid_t pid, pid_t **queue, size_t *n, size_t *allocated) {
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
        _cleanup_(closedirp) DIR *d = opendir(path);
        if (!d)
                return 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                char cpath[96 + sizeof(de->d_name)];
                snprintf(cpath, sizeof(cpath), "/proc/%d/task/%s/children", (int)pid, de->d_name);
                FILE *f = fopen(cpath, "re");
                if (!f)
                        continue;
                int c, r = 0;
                while (r >= 0 && fscanf(f, "%d", &c) == 1)
                        r = pid_append(queue, n, allocated, (pid_t)c);
                fclose(f);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int cmp_pid(const void *a, const void *b) {
        pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
        return x < y ? -1 : x > y;
}

/* top and every process below it, by the children files: a walk of the tree, not of every
 * process on the machine, which keeps the fault close to its moment. -ENOENT when the kernel
 * has no children files (CONFIG_PROC_CHILDREN). */
static int proc_snapshot_below(pid_t top, ProcEntry **ret, size_t *ret_n) {
        _cleanup_free_ pid_t *queue = NULL;
        ProcEntry *v = NULL;
        size_t nq = 0, aq = 0, n = 0, allocated = 0;
        int r;

        if (access("/proc/thread-self/children", F_OK) < 0)
                return -ENOENT;
        r = pid_append(&queue, &nq, &aq, top);
        /* A process that dies while the tree is walked leaves its children to a child subreaper
         * above it (svd, or the runner), whose children may have been read already: the
         * children of everything found are read again, and what is new walked too, until a
         * pass finds nothing new. */
        _cleanup_free_ pid_t *seen = NULL; /* the pids of v, sorted, from the second pass on */
        size_t n_seen = 0;
        for (unsigned pass = 0; r >= 0 && pass < 4; pass++) {
                size_t from = n;
                for (size_t i = 0; r >= 0 && i < nq; i++) {
                        if (seen && bsearch(&queue[i], seen, n_seen, sizeof(pid_t), cmp_pid))
                                continue;
                        ProcEntry e;
                        if (proc_stat_read(queue[i], &e) < 0)
                                continue;
                        r = entry_append(&v, &n, &allocated, &e);
                        if (r >= 0)
                                r = children_append(queue[i], &queue, &nq, &aq);
                }
                if (r < 0 || (pass > 0 && n == from))
                        break;
                /* Again: every child of every process found. */
                pid_t *ns = realloc(seen, (n ? n : 1) * sizeof(pid_t));
                if (!ns) {
                        r = -ENOMEM;
                        break;
                }
                seen = ns;
                n_seen = n;
                for (size_t i = 0; i < n; i++)
                        seen[i] = v[i].pid;
                qsort(seen, n_seen, sizeof(pid_t), cmp_pid);
                nq = 0;
                for (size_t i = 0; r >= 0 && i < n; i++)
                        r = children_append(v[i].pid, &queue, &nq, &aq);
        }
        if (r < 0) {
                free(v);
                return r;
        }
        *ret = v;
        *ret_n = n;
        return 0;
}

int proc_tracker_collect(ProcTracker *t, const ProcRoot *roots, size_t n_roots, pid_t self, pid_t skip_sid,
                         bool include_escaped) {
        _cleanup_free_ ProcEntry *v = NULL;
        size_t n;
        int r;

        assert(t);

        /* Every root is below the runner (svd is its child, the services svd's), and so is what
         * escaped to it, a child subreaper: the runner's own tree holds all there is to track. */
        r = proc_snapshot_below(self, &v, &n);
        if (r == -ENOENT)
                r = proc_snapshot(&v, &n);
        if (r < 0)
                return r;

        for (size_t i = 0; i < n; i++) {
                if (v[i].pid == self || v[i].state == 'Z' || v[i].state == 'X')
                        continue;
                const char *owner =
                    entry_owner(t, v, n, &v[i], roots, n_roots, self, skip_sid, include_escaped);
                if (!owner || proc_tracker_has(t, v[i].pid, v[i].starttime))
                        continue;
                if (t->n >= PROC_TRACK_MAX)
                        return -E2BIG;

                int fd = sys_pidfd_open(v[i].pid, 0);
                if (fd < 0) {
                        /* Gone, or gone and its number taken by a thread of another process
                         * (pidfd_open() says EINVAL for a thread that leads no group). */
                        if (IN_SET(errno, ESRCH, EINVAL))
                                continue;
                        return -errno;
                }
                /* The pidfd names whichever process has the pid now: the
                 * starttime, read once more, says it is the one we saw. */
                ProcEntry now;
                if (proc_stat_read(v[i].pid, &now) < 0 || now.starttime != v[i].starttime ||
                    now.state == 'Z') {
                        close(fd);
                        continue;
                }

                TrackedProc *np = realloc(t->procs, (t->n + 1) * sizeof(*np));
                if (!np) {
                        close(fd);
                        return -ENOMEM;
                }
                t->procs = np;
                TrackedProc *p = &t->procs[t->n++];
                *p = (TrackedProc){.pid = v[i].pid, .starttime = v[i].starttime, .pidfd = fd};
                memcpy(p->comm, v[i].comm, sizeof(p->comm));
                snprintf(p->owner, sizeof(p->owner), "%s", owner);
        }
        return 0;
}

size_t proc_tracker_wait_dead(ProcTracker *t, uint64_t deadline, void (*reap)(void *userdata),
                              void *userdata) {
        struct epoll_event ev[256];
        size_t alive = 0;

        assert(t);

        /* One epoll set, each pidfd added once: a wake-up costs what died, not what is tracked
         * (poll() over thousands of pidfds would register every one of them again each time). */
        _cleanup_close_ int ep = epoll_create1(EPOLL_CLOEXEC);
        if (ep < 0)
                return t->n; /* cannot wait: every one counts as alive, which fails loudly */
        for (size_t i = 0; i < t->n; i++) {
                if (t->procs[i].dead)
                        continue;
                struct epoll_event e = {.events = EPOLLIN, .data.u64 = i};
                if (epoll_ctl(ep, EPOLL_CTL_ADD, t->procs[i].pidfd, &e) < 0)
                        return t->n;
                alive++;
        }

        for (;;) {
                if (reap)
                        reap(userdata);
                if (alive == 0)
                        return 0;

                uint64_t now = mono_usec();
                if (now >= deadline)
                        return alive;
                uint64_t ms = (deadline - now + USEC_PER_MSEC - 1) / USEC_PER_MSEC;
                int k = epoll_wait(ep, ev, (int)ELEMENTSOF(ev), ms > INT_MAX ? INT_MAX : (int)ms);
                if (k < 0 && errno != EINTR)
                        return alive;
                now = mono_usec();
                for (int j = 0; j < k; j++) {
                        TrackedProc *p = &t->procs[ev[j].data.u64];
                        (void)epoll_ctl(ep, EPOLL_CTL_DEL, p->pidfd, NULL);
                        if (p->dead)
                                continue;
                        p->dead = true;
                        p->death_usec = now;
                        alive--;
                }
        }
}

size_t proc_tracker_count_zombies(ProcTracker *t) {
        size_t z = 0;

        assert(t);

        for (size_t i = 0; i < t->n; i++) {
                TrackedProc *p = &t->procs[i];
                p->zombie = false;
                if (!p->dead)
                        continue;
                ProcEntry e;
                if (proc_stat_read(p->pid, &e) < 0 || e.starttime != p->starttime)
                        continue;
                if (e.state == 'Z') {
                        p->zombie = true;
                        z++;
                }
        }
        return z;
}

uint64_t proc_tracker_last_death(const ProcTracker *t) {
        uint64_t last = 0;
        for (size_t i = 0; i < t->n; i++)
                if (t->procs[i].dead && t->procs[i].death_usec > last)
                        last = t->procs[i].death_usec;
        return last;
}

void proc_tracker_kill_survivors(ProcTracker *t) {
        for (size_t i = 0; i < t->n; i++)
                if (!t->procs[i].dead)
                        (void)sys_pidfd_send_signal(t->procs[i].pidfd, SIGKILL, NULL, 0);
}

/* Appends the value of each of keys' lines of /proc/PID/status to buf. */
static void status_fields(pid_t pid, char *buf, size_t size) {
        static const char *const keys[] = {"State", "PPid", "NSpid", "SigPnd", "ShdPnd", "SigBlk", "SigIgn"};
        char path[64], line[512];

        snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
        FILE *f = fopen(path, "re");
        if (!f) {
                snprintf(buf, size, "gone");
                return;
        }
        size_t l = 0;
        buf[0] = 0;
        while (fgets(line, sizeof(line), f)) {
                char *colon = strchr(line, ':');
                if (!colon)
                        continue;
                *colon = 0;
                for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                        if (!streq(line, keys[i]))
                                continue;
                        char *v = colon + 1;
                        v += strspn(v, " \t");
                        v[strcspn(v, "\n")] = 0;
                        for (char *c = v; *c; c++)
                                if (*c == '\t')
                                        *c = ' ';
                        int n = snprintf(buf + l, size - l, "%s%s=%s", l > 0 ? " " : "", keys[i], v);
                        if (n > 0 && (size_t)n < size - l)
                                l += (size_t)n;
                }
        }
        fclose(f);
}

void proc_describe(pid_t pid, char *buf, size_t size) {
        char path[64], cg[256] = "?";

        assert(buf && size > 0);

        status_fields(pid, buf, size);
        snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
        FILE *f = fopen(path, "re");
        if (f) {
                char line[sizeof(cg)];
                while (fgets(line, sizeof(line), f))
                        if (strneq(line, "0::", 3)) {
                                line[strcspn(line, "\n")] = 0;
                                snprintf(cg, sizeof(cg), "%s", line + 3);
                        }
                fclose(f);
        }
        size_t l = strlen(buf);
        if (l + 1 < size)
                snprintf(buf + l, size - l, " cgroup=%s", cg);
}

void proc_tracker_done(ProcTracker *t) {
        if (!t)
                return;
        for (size_t i = 0; i < t->n; i++)
                safe_close(t->procs[i].pidfd);
        free(t->procs);
        *t = (ProcTracker){};
}
