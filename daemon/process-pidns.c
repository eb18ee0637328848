/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Finding processes of a service's PID namespace from svd's: /proc/PID/status and /proc/PID/ns/pid. */
#include "process-pidns.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/missing-syscall.h"

/* What /proc/PID/status says that matters here. */
typedef struct ProcStatus {
        pid_t ppid;
        pid_t nspid; /* the last NSpid: field: the pid in its own namespace */
        bool zombie;
} ProcStatus;

static int read_small_file(const char *path, char *buf, size_t size) {
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        size_t n = 0;
        while (n < size - 1) {
                ssize_t k = read(fd, buf + n, size - 1 - n);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        int r = -errno;
                        (void) close(fd);
                        return r;
                }
                if (k == 0)
                        break;
                n += (size_t) k;
        }
        (void) close(fd);
        buf[n] = 0;
        return (int) n;
}

static int proc_status(pid_t pid, ProcStatus *ret) {
        char path[64], buf[4096];
        snprintf(path, sizeof(path), "/proc/%d/status", (int) pid);
        int r = read_small_file(path, buf, sizeof(buf));
        if (r < 0)
                return r;
        ProcStatus st = {};
        for (char *line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
                if (strncmp(line, "State:", 6) == 0) {
                        const char *v = line + 6 + strspn(line + 6, " \t");
                        st.zombie = *v == 'Z' || *v == 'X';
                }
                else if (strncmp(line, "PPid:", 5) == 0)
                        st.ppid = (pid_t) strtol(line + 5, NULL, 10);
                else if (strncmp(line, "NSpid:", 6) == 0) {
                        char *p = line + 6, *end;
                        for (;;) {
                                long v = strtol(p, &end, 10);
                                if (end == p || v <= 0)
                                        break;
                                st.nspid = (pid_t) v;
                                p = end;
                                if (*p == '\n' || *p == 0)
                                        break;
                        }
                }
        }
        if (st.nspid <= 0)
                return -ENODATA; /* no NSpid: (a kernel before 4.1) */
        *ret = st;
        return 0;
}

static int pidns_of(pid_t pid, struct stat *ret) {
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int) pid);
        return stat(path, ret) < 0 ? -errno : 0;
}

static bool same_ns(const struct stat *a, const struct stat *b) {
        return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

int pidns_inner_pid(pid_t pid, pid_t *ret) {
        ProcStatus st;
        int r = proc_status(pid, &st);
        if (r < 0)
                return r;
        *ret = st.nspid;
        return 0;
}

bool pidns_pid_is(pid_t init, pid_t pid, pid_t nspid) {
        struct stat a, b;
        ProcStatus st;
        return pidns_of(init, &a) >= 0 && pidns_of(pid, &b) >= 0 && same_ns(&a, &b) && proc_status(pid, &st) >= 0 &&
               st.nspid == nspid;
}

/* Calls f for every process in init's namespace but init; stops when f returns non-zero. */
static int pidns_walk(pid_t init, int (*f)(pid_t pid, const ProcStatus *st, void *userdata), void *userdata) {
        struct stat ns;
        int r = pidns_of(init, &ns);
        if (r < 0)
                return r;
        DIR *d = opendir("/proc");
        if (!d)
                return -errno;
        r = 0;
        for (struct dirent *de; (de = readdir(d));) {
                char *end;
                long pid = strtol(de->d_name, &end, 10);
                if (*end != 0 || pid <= 0 || pid == init)
                        continue;
                struct stat st_ns;
                if (pidns_of((pid_t) pid, &st_ns) < 0 || !same_ns(&ns, &st_ns))
                        continue; /* gone, or another namespace */
                ProcStatus st;
                if (proc_status((pid_t) pid, &st) < 0)
                        continue;
                r = f((pid_t) pid, &st, userdata);
                if (r != 0)
                        break;
        }
        closedir(d);
        return r < 0 ? r : 0;
}

typedef struct FindArgs {
        pid_t nspid, found;
        bool zombie;
} FindArgs;

static int find_one(pid_t pid, const ProcStatus *st, void *userdata) {
        FindArgs *a = userdata;
        if (st->nspid != a->nspid)
                return 0;
        a->found = pid;
        a->zombie = st->zombie;
        return 1;
}

int pidns_find(pid_t init, pid_t nspid, pid_t *ret) {
        if (nspid == 1)
                return -ESRCH; /* init is svd's, no process of the service */
        FindArgs a = { .nspid = nspid };
        int r = pidns_walk(init, find_one, &a);
        if (r < 0)
                return r;
        if (a.found <= 0 || a.zombie)
                return -ESRCH;
        *ret = a.found;
        return 0;
}

typedef struct ChildArgs {
        pid_t init;
        int n;
        pid_t pid, nspid;
} ChildArgs;

static int count_child(pid_t pid, const ProcStatus *st, void *userdata) {
        ChildArgs *a = userdata;
        if (st->ppid != a->init || st->zombie)
                return 0;
        a->pid = pid;
        a->nspid = st->nspid;
        return ++a->n >= 2;
}

int pidns_only_child(pid_t init, pid_t *ret_pid, pid_t *ret_nspid) {
        ChildArgs a = { .init = init };
        int r = pidns_walk(init, count_child, &a);
        if (r < 0)
                return r;
        if (a.n == 1) {
                *ret_pid = a.pid;
                *ret_nspid = a.nspid;
        }
        return a.n;
}

int pidns_open(pid_t pid, pid_t check_init, pid_t check_nspid, SpawnMode mode, Process *ret) {
        int fd = sys_pidfd_open(pid, 0);
        if (fd < 0)
                return -errno;
        if (check_init > 0) {
                struct stat a, b;
                ProcStatus st;
                if (pidns_of(check_init, &a) < 0 || pidns_of(pid, &b) < 0 || !same_ns(&a, &b) ||
                    proc_status(pid, &st) < 0 || st.nspid != check_nspid) {
                        (void) close(fd);
                        return -ESRCH;
                }
        }
        *ret = (Process){ .pid = pid, .pidfd = fd, .mode = mode };
        return 0;
}

int pidfile_read(const char *path, pid_t *ret) {
        char buf[64];
        int r = read_small_file(path, buf, sizeof(buf));
        if (r < 0)
                return r;
        char *p = buf, *end;
        while (*p == ' ' || *p == '\t' || *p == '\n')
                p++;
        if (*p < '0' || *p > '9')
                return -EINVAL;
        long v = strtol(p, &end, 10);
        while (*end == ' ' || *end == '\t' || *end == '\n')
                end++;
        if (*end != 0 || v <= 0 || v > INT_MAX)
                return -EINVAL;
        *ret = (pid_t) v;
        return 0;
}
