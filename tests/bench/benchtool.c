/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * benchtool: the measuring half of tests/bench/compare.sh. Every timing is
 * CLOCK_MONOTONIC; every wait is on an event (a datagram, a pidfd, a child's
 * exit) with a deadline; processes are signalled through pidfds, and only
 * processes below the given root (the benchmark's own) are ever touched.
 *
 *   benchtool stamp FILE CMD...             write now (ns) to FILE, exec CMD
 *   benchtool collect SOCK COUNT TIMEOUT_MS READY [STAMPFILE]
 *        bind SOCK, write "ready" to the file/fifo READY, then take datagrams
 *        from bench-svc until COUNT distinct pids reported: got=K ms=X
 *        (X: last report minus STAMPFILE's time, else minus ready)
 *   benchtool floor SOCK COUNT TIMEOUT_MS SVC [vfork|fork|cgroup]
 *        clone3()+execve() COUNT copies of SVC and time them the same way,
 *        then SIGKILL and reap them: got=K ms=X. vfork (the default) is the
 *        primitive svd ships: clone3() with CLONE_VM | CLONE_VFORK |
 *        CLONE_FILES on a stack of the child's own, the child unsharing fds
 *        0-2 only, so nothing of the parent is copied; fork
 *        is clone3() without them (a copy of the page tables per child);
 *        cgroup is vfork with a cgroup per child, as svd contains its
 *        services: mkdir in a cgroup v2 of the run's own (below ours,
 *        memory, pids and cpu on where offered), open, clone3() with
 *        CLONE_INTO_CGROUP, close; all removed at the end. It adds
 *        cgroup=PATH controllers=LIST, or prints "skip: WHY" and exits 3
 *        (not root, no writable cgroup2)
 *   benchtool autokillfloor SOCK COUNT TIMEOUT_MS SVC [cgroup]
 *        a holder process starts COUNT copies of SVC as svd does where the
 *        kernel has CLONE_PIDFD_AUTOKILL (with CLONE_AUTOREAP, CLONE_NNP),
 *        then is SIGKILLed: time until the last has exited (pidfds):
 *        got=K ms=X dead_ms=Y left=L, or "skip: WHY" and exit 3
 *   benchtool killfloor SOCK COUNT TIMEOUT_MS SVC [cgroup]
 *        start COUNT copies of SVC as floor does, in one process group,
 *        wait for every report, then kill(-pgid, SIGKILL) and time until the
 *        last has exited (pidfds): got=K ms=X dead_ms=Y left=L
 *        With cgroup, both kill floors put each copy in a cgroup of its own
 *        as the cgroup floor does (and add its cgroup= controllers=): what
 *        the kernel's teardown of a cgroup per service adds to the deaths.
 *        BENCH_CG_CONTROLLERS (e.g. "memory pids") limits the controllers
 *        the cgroup floors turn on
 *   benchtool mem ROOT SVC                  procs=K rss_kib=R pss_kib=P
 *   benchtool idle ROOT SVC MS              settle_ms=T procs=K switches=S per_min=X
 *        (after a quiet second, at most 5 s, then a window of MS)
 *   benchtool restart SOCK ROOT SVC COUNT GAP_MS TIMEOUT_MS
 *        SIGKILL one service, time until its successor reports; the next
 *        kill waits until the successor has run GAP_MS (runsv delays a
 *        restart by 1 s after a run shorter than 1 s): samples= median_ms=
 *        p99_ms= max_ms=
 *   benchtool lat COUNT TIMEOUT_MS CMD...   run CMD COUNT times: samples=
 *        median_ms= p99_ms= rc= (first exit status) rc_other= (how many differed)
 *   benchtool latpair COUNT TIMEOUT_MS CMD_A... -- CMD_B...
 *        run A and B in turn (A B, B A, ...) COUNT times each: samples= a_median_ms=
 *        b_median_ms= ratio_median= (the median of the pairs' A/B) rc= rc_other=
 *   benchtool stopall ROOT SVC TIMEOUT_MS SIGNAL   (or: -- CMD... instead of SIGNAL)
 *        signal ROOT (or run CMD), time until every service process of ROOT's
 *        tree has exited, then until ROOT has: svc=N dead_ms=X left=K sup_ms=Y
 *   benchtool crash ROOT SVC WINDOW_MS
 *        SIGKILL ROOT, watch its services for WINDOW_MS: svc=N alive=K
 *        last_dead_ms=X (-1: not all died) first_dead_ms=F root_dead_ms=R
 *        (when the first service, and ROOT itself, had exited)
 *   benchtool count ROOT SVC                live service processes below ROOT
 *   benchtool killorphans REAPER KEEP TIMEOUT_MS
 *        SIGKILL every process below REAPER except KEEP's tree (what a crash
 *        left behind), until none is left: killed=K
 *   benchtool foreign NAME...               pid and name of running processes
 *        called NAME (system instances of the supervisors)
 *   benchtool reaper CMD...                 run CMD as a child subreaper,
 *        reap orphans; when CMD exits, SIGKILL whatever is left below
 *
 * SVC is the path of bench-svc: a process below ROOT whose /proc/PID/exe is
 * SVC is a service, every other one (not below a service) the supervisor's.
 */

#include <ctype.h>
#include <stdarg.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/close_range.h>
#include <linux/sched.h>

#include "missing-syscall.h"

extern char **environ;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...) {
        va_list ap;
        int e = errno;

        fputs("benchtool: ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        if (e && strchr(fmt, '%') == NULL)
                fprintf(stderr, ": %s", strerror(e));
        fputc('\n', stderr);
        exit(2);
}

static int64_t now_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ns(int64_t ns) {
        struct timespec ts = { .tv_sec = ns / 1000000000LL, .tv_nsec = ns % 1000000000LL };

        while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
                ;
}

static double ms(int64_t ns) {
        return (double) ns / 1e6;
}

static long num(const char *s) {
        char *end;
        long v;

        errno = 0;
        v = strtol(s, &end, 10);
        if (errno || end == s || *end)
                die("not a number: '%s'", s);
        return v;
}

static int pidfd_open(pid_t pid) {
        return (int) syscall(SYS_pidfd_open, pid, 0);
}

static int pidfd_kill(int pidfd, int sig) {
        return (int) syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

/* ---- /proc ---- */

typedef struct {
        pid_t pid, ppid;
        char state;
} Proc;

typedef struct {
        Proc *p;
        size_t n;
} Procs;

static bool read_stat(pid_t pid, Proc *ret) {
        char path[64], buf[1024], *c;
        ssize_t n;
        int fd;

        snprintf(path, sizeof path, "/proc/%d/stat", (int) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return false;
        n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n <= 0)
                return false;
        buf[n] = 0;
        c = strrchr(buf, ')');
        if (!c || sscanf(c + 1, " %c %d", &ret->state, &ret->ppid) != 2)
                return false;
        ret->pid = pid;
        return true;
}

static Procs scan(void) {
        Procs ps = { 0 };
        size_t cap = 0;
        struct dirent *de;
        DIR *d = opendir("/proc");

        if (!d)
                die("opendir /proc");
        while ((de = readdir(d))) {
                Proc p;

                if (!isdigit((unsigned char) de->d_name[0]))
                        continue;
                if (!read_stat((pid_t) atoi(de->d_name), &p))
                        continue;
                if (ps.n == cap) {
                        cap = cap ? 2 * cap : 1024;
                        ps.p = realloc(ps.p, cap * sizeof *ps.p);
                        if (!ps.p)
                                die("out of memory");
                }
                ps.p[ps.n++] = p;
        }
        closedir(d);
        return ps;
}

static bool is_svc(pid_t pid, const char *svc) {
        char path[64], exe[PATH_MAX];
        ssize_t n;

        snprintf(path, sizeof path, "/proc/%d/exe", (int) pid);
        n = readlink(path, exe, sizeof exe - 1);
        if (n < 0)
                return false;
        exe[n] = 0;
        return strcmp(exe, svc) == 0;
}

/* The tree below ROOT (ROOT included unless skip_root), split into service
 * processes and the rest; nothing below a service is the supervisor's.
 * Zombies are left out. Either output may be NULL. */
typedef struct {
        pid_t *v;
        size_t n, cap;
} Pids;

static void pids_add(Pids *l, pid_t pid) {
        if (l->n == l->cap) {
                l->cap = l->cap ? 2 * l->cap : 256;
                l->v = realloc(l->v, l->cap * sizeof *l->v);
                if (!l->v)
                        die("out of memory");
        }
        l->v[l->n++] = pid;
}

static void walk(const Procs *ps, pid_t root, bool below_svc, const char *svc, pid_t skip, Pids *sup, Pids *svcs) {
        for (size_t i = 0; i < ps->n; i++) {
                const Proc *p = &ps->p[i];
                bool s;

                if (p->ppid != root || p->pid == skip)
                        continue;
                s = below_svc || is_svc(p->pid, svc);
                if (p->state != 'Z') {
                        if (s && svcs)
                                pids_add(svcs, p->pid);
                        else if (!s && sup)
                                pids_add(sup, p->pid);
                }
                walk(ps, p->pid, s, svc, skip, sup, svcs);
        }
}

static void tree(pid_t root, const char *svc, Pids *sup, Pids *svcs) {
        Procs ps = scan();
        Proc r;

        if (!read_stat(root, &r) || r.state == 'Z')
                die("process %d is not running", (int) root);
        if (is_svc(root, svc)) {
                if (svcs)
                        pids_add(svcs, root);
        } else if (sup)
                pids_add(sup, root);
        walk(&ps, root, false, svc, 0, sup, svcs);
        free(ps.p);
}

/* pidfds for a list of pids; a pid that is already gone gets -1. */
static int *open_pidfds(const Pids *l) {
        int *fds = calloc(l->n + 1, sizeof *fds);

        if (!fds)
                die("out of memory");
        for (size_t i = 0; i < l->n; i++)
                fds[i] = pidfd_open(l->v[i]);
        return fds;
}

/* An epoll set of the pidfds in fds (-1 entries left out), made before a
 * measurement starts, so that registering N pidfds is not timed. One set
 * for all of them: a poll() over the live ones per wake-up costs O(N) each
 * time, O(N^2) in all, and at thousands of services that lag would show
 * in the time measured. */
static int watch_pidfds(const int *fds, size_t n) {
        int ep = epoll_create1(EPOLL_CLOEXEC);

        if (ep < 0)
                die("epoll_create1");
        for (size_t i = 0; i < n; i++) {
                struct epoll_event e = { .events = EPOLLIN, .data.u64 = i };

                if (fds[i] >= 0 && epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &e) < 0)
                        die("epoll_ctl");
        }
        return ep;
}

/* Waits until every pidfd in fds (in the set ep, which it closes) polls
 * readable (its process exited) or the deadline passes; returns how many
 * are still alive; *last gets the time the last one was seen to exit. The
 * pidfds of the dead are closed and become -1. */
static size_t wait_watched_each(int ep, int *fds, size_t n, int64_t deadline, int64_t *last, int64_t *when);

static size_t wait_watched(int ep, int *fds, size_t n, int64_t deadline, int64_t *last) {
        return wait_watched_each(ep, fds, n, deadline, last, NULL);
}

/* wait_watched(), and when[i] (unless NULL) the time fds[i] was seen to exit (0: not). */
static size_t wait_watched_each(int ep, int *fds, size_t n, int64_t deadline, int64_t *last, int64_t *when) {
        struct epoll_event ev[256];
        size_t alive = 0;

        for (size_t i = 0; i < n; i++)
                if (fds[i] >= 0)
                        alive++;
        while (alive > 0) {
                int64_t left = deadline - now_ns(), t;
                int r;

                if (left <= 0)
                        break;
                r = epoll_wait(ep, ev, (int) (sizeof ev / sizeof ev[0]), (int) ((left + 999999) / 1000000));
                if (r < 0 && errno != EINTR)
                        die("epoll_wait");
                if (r <= 0)
                        continue;
                t = now_ns();
                for (int j = 0; j < r; j++) {
                        size_t i = (size_t) ev[j].data.u64;

                        if (i >= n || fds[i] < 0)
                                continue;
                        (void) epoll_ctl(ep, EPOLL_CTL_DEL, fds[i], NULL);
                        close(fds[i]);
                        fds[i] = -1;
                        alive--;
                        if (last)
                                *last = t;
                        if (when)
                                when[i] = t;
                }
        }
        close(ep);
        return alive;
}

static size_t wait_pidfds(int *fds, size_t n, int64_t deadline, int64_t *last) {
        return wait_watched(watch_pidfds(fds, n), fds, n, deadline, last);
}

/* Commands that hold a pidfd per service need more than the usual soft
 * limit of 1024 descriptors at thousands of services: the hard limit, as
 * svd takes it for itself. Only this process; what it execs (a supervisor)
 * keeps the limit it was given. */
static void raise_nofile(void) {
        struct rlimit rl;

        if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
                rl.rlim_cur = rl.rlim_max;
                (void) setrlimit(RLIMIT_NOFILE, &rl);
        }
}

/* ---- datagrams from bench-svc ---- */

static int bind_sock(const char *path) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int fd, sz = 8 << 20;

        if (strlen(path) >= sizeof sa.sun_path)
                die("socket path too long: %s", path);
        strcpy(sa.sun_path, path);
        (void) unlink(path);
        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                die("socket");
        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof sz) < 0)
                (void) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
        if (bind(fd, (struct sockaddr *) &sa, sizeof sa) < 0)
                die("bind %s: %s", path, strerror(errno));
        return fd;
}

/* One report, or false at the deadline. */
static bool recv_report(int fd, int64_t deadline, pid_t *pid, int64_t *ts) {
        for (;;) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                int64_t left = deadline - now_ns();
                char buf[128];
                long long t;
                ssize_t n;
                int ipid;

                if (left <= 0)
                        return false;
                if (poll(&p, 1, (int) ((left + 999999) / 1000000)) <= 0)
                        continue;
                n = recv(fd, buf, sizeof buf - 1, MSG_DONTWAIT);
                if (n <= 0)
                        continue;
                buf[n] = 0;
                if (sscanf(buf, "%d %lld", &ipid, &t) != 2)
                        continue;
                *pid = ipid;
                *ts = t;
                return true;
        }
}

/* Counts distinct pids until count or the deadline; returns the count, *last
 * the latest ts. A byte per pid marks the ones seen: the collector runs
 * beside the supervisor it times, so it must not do O(N^2) work. */
static long collect_reports(int fd, long count, int64_t deadline, int64_t *last) {
        unsigned char *seen = NULL;
        size_t seen_n = 0;
        long got = 0;

        *last = 0;
        while (got < count) {
                pid_t pid;
                int64_t ts;

                if (!recv_report(fd, deadline, &pid, &ts))
                        break;
                if (pid <= 0)
                        continue;
                if ((size_t) pid >= seen_n) {
                        size_t nn = seen_n ? seen_n : 65536;

                        while (nn <= (size_t) pid)
                                nn *= 2;
                        seen = realloc(seen, nn);
                        if (!seen)
                                die("out of memory");
                        memset(seen + seen_n, 0, nn - seen_n);
                        seen_n = nn;
                }
                if (seen[pid])
                        continue;
                seen[pid] = 1;
                got++;
                if (ts > *last)
                        *last = ts;
        }
        free(seen);
        return got;
}

static int64_t read_stamp(const char *path) {
        FILE *f = fopen(path, "re");
        long long v = 0;

        if (!f)
                die("open %s: %s", path, strerror(errno));
        if (fscanf(f, "%lld", &v) != 1)
                die("no time in %s", path);
        fclose(f);
        return v;
}

static int cmd_stamp(int argc, char **argv) {
        FILE *f;

        if (argc < 3)
                die("usage: stamp FILE CMD...");
        f = fopen(argv[1], "we");
        if (!f)
                die("open %s: %s", argv[1], strerror(errno));
        fprintf(f, "%lld\n", (long long) now_ns());
        if (fclose(f) != 0)
                die("write %s", argv[1]);
        execvp(argv[2], argv + 2);
        die("exec %s: %s", argv[2], strerror(errno));
}

static int cmd_collect(int argc, char **argv) {
        long count, got;
        int64_t t0, last, deadline;
        int fd, rfd;

        if (argc != 5 && argc != 6)
                die("usage: collect SOCK COUNT TIMEOUT_MS READY [STAMPFILE]");
        count = num(argv[2]);
        fd = bind_sock(argv[1]);
        rfd = open(argv[4], O_WRONLY | O_CLOEXEC);
        if (rfd < 0 || write(rfd, "ready\n", 6) != 6)
                die("write ready to %s: %s", argv[4], strerror(errno));
        close(rfd);
        t0 = now_ns();
        deadline = t0 + num(argv[3]) * 1000000LL;
        got = collect_reports(fd, count, deadline, &last);
        if (argc == 6)
                t0 = read_stamp(argv[5]);
        printf("got=%ld ms=%.3f\n", got, got > 0 ? ms(last - t0) : -1.0);
        unlink(argv[1]);
        return got == count ? 0 : 1;
}

struct floor_exec {
        char **args, **env;
        bool setpgid;       /* killfloor: join the process group pgid (0: a new one) */
        pid_t pgid;
        volatile int err;   /* the child's errno when it fails: it shares our memory (CLONE_VM) */
};

/* The vfork child: runs on its own stack in the parent's memory until
 * execve() (or _exit) lets the parent go on. */
static int floor_child(void *userdata) {
        struct floor_exec *e = userdata;

        /* As svd's spawn does: the child shares the parent's fd table
         * (CLONE_FILES) and takes a copy of fds 0-2 only. Without it every
         * clone copies, and every execve() closes, the parent's pidfds of
         * all earlier children: a floor quadratic in COUNT. */
        if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_UNSHARE) < 0) {
                e->err = errno;
                return 127;
        }
        if (e->setpgid && setpgid(0, e->pgid) < 0) {
                e->err = errno;
                return 127;
        }
        execve(e->args[0], e->args, e->env);
        e->err = errno;
        return 127;
}

/* SIGKILLs and reaps the floor's children; their pidfds become -1. */
static void floor_reap(int *pidfds, long count) {
        for (long i = 0; i < count; i++) {
                siginfo_t si;

                if (pidfds[i] < 0)
                        continue;
                (void) pidfd_kill(pidfds[i], SIGKILL);
                (void) waitid(P_PIDFD, (id_t) pidfds[i], &si, WEXITED);
                close(pidfds[i]);
                pidfds[i] = -1;
        }
}

/* ---- the cgroup floor's cgroups ----
 *
 * As svd does: below this process's own cgroup v2 (svd's tests make their
 * cgroup in the same place, tests/lib/lib.sh), a cgroup of the run's own
 * with whichever of memory, pids and cpu it offers turned on for its
 * children (as svd turns them on for its services' cgroups), and in it a
 * cgroup per child, made right before the clone. Everything is removed at
 * exit, also when die() ends the run half-way: the children are killed
 * and reaped first, as a populated cgroup cannot be removed. */
static struct {
        char *path;
        char controllers[64];
        int fd;     /* the run's cgroup; -1: none made */
        long made;  /* child cgroups c0 .. c<made - 1> */
        int *pidfds;
        long count;
} cgf = { .fd = -1 };

/* Whether the space-separated list has the word w. */
static bool has_word(const char *list, const char *w) {
        size_t n = strlen(w);

        for (const char *p = list; (p = strstr(p, w)); p += n)
                if ((p == list || p[-1] == ' ') && (p[n] == 0 || p[n] == ' ' || p[n] == '\n'))
                        return true;
        return false;
}

/* Turns on for dir's children whichever of memory, pids and cpu dir offers
 * (of those BENCH_CG_CONTROLLERS names, space-separated, where it is set);
 * the ones it got, comma-separated, into got. */
static void cg_enable(const char *dir, char *got, size_t size) {
        static const char *const names[] = { "memory", "pids", "cpu" };
        const char *only = getenv("BENCH_CG_CONTROLLERS");
        char *path, avail[512] = "";
        FILE *f;

        if (got)
                got[0] = 0;
        if (asprintf(&path, "%s/cgroup.controllers", dir) < 0)
                die("out of memory");
        f = fopen(path, "re");
        free(path);
        if (!f)
                return;
        if (!fgets(avail, sizeof avail, f))
                avail[0] = 0;
        fclose(f);
        if (asprintf(&path, "%s/cgroup.subtree_control", dir) < 0)
                die("out of memory");
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
                if (!has_word(avail, names[i]) || (only && !has_word(only, names[i])) || !(f = fopen(path, "we")))
                        continue;
                fprintf(f, "+%s", names[i]);
                if (fclose(f) == 0 && got) /* the write is done at fclose(); EBUSY shows there */
                        snprintf(got + strlen(got), size - strlen(got), "%s%s", got[0] ? "," : "", names[i]);
        }
        free(path);
}

static void cg_floor_cleanup(void) {
        if (cgf.fd < 0)
                return;
        if (cgf.pidfds)
                floor_reap(cgf.pidfds, cgf.count);
        for (long i = 0; i < cgf.made; i++) {
                char name[32];

                snprintf(name, sizeof name, "c%ld", i);
                /* a reaped child leaves its cgroup at once, but do not count on it */
                for (int tries = 0; unlinkat(cgf.fd, name, AT_REMOVEDIR) < 0 && errno == EBUSY && tries < 100; tries++)
                        sleep_ns(10000000);
        }
        close(cgf.fd);
        cgf.fd = -1;
        if (rmdir(cgf.path) < 0)
                fprintf(stderr, "benchtool: rmdir %s: %s\n", cgf.path, strerror(errno));
}

/* Makes the run's cgroup; false and why (for the "skip:" line) where it cannot. */
static bool cg_floor_setup(char *why, size_t size) {
        char line[PATH_MAX + 256], mnt[PATH_MAX] = "", *own = NULL, *parent, *procs;
        FILE *f;

        if (geteuid() != 0) {
                snprintf(why, size, "not running as root");
                return false;
        }
        f = fopen("/proc/self/mountinfo", "re");
        while (f && fgets(line, sizeof line, f)) {
                char *sep = strstr(line, " - ");

                if (sep && strncmp(sep + 3, "cgroup2 ", 8) == 0 &&
                    sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1)
                        break;
                mnt[0] = 0;
        }
        if (f)
                fclose(f);
        if (!mnt[0]) {
                snprintf(why, size, "no cgroup2 hierarchy mounted");
                return false;
        }
        f = fopen("/proc/self/cgroup", "re");
        while (f && fgets(line, sizeof line, f))
                if (strncmp(line, "0::", 3) == 0) {
                        line[strcspn(line, "\n")] = 0;
                        own = strdup(line + 3);
                        break;
                }
        if (f)
                fclose(f);
        if (!own || !own[0]) {
                snprintf(why, size, "this process's cgroup2 path is unknown (no 0:: line in /proc/self/cgroup)");
                return false;
        }
        if (asprintf(&parent, "%s%s", mnt, strcmp(own, "/") == 0 ? "" : own) < 0 ||
            asprintf(&procs, "%s/cgroup.procs", parent) < 0)
                die("out of memory");
        if (access(procs, W_OK) < 0 || access(parent, W_OK) < 0) {
                snprintf(why, size, "cgroup %s is not writable (not delegated): %s", parent, strerror(errno));
                return false;
        }
        /* As svd does in its own cgroup; refused (EBUSY) in a non-root
         * cgroup that holds processes, as ours does, and then the run's
         * cgroup gets no controllers, as svd's services would not either. */
        cg_enable(parent, NULL, 0);
        if (asprintf(&cgf.path, "%s/svdbench-cgfloor.%d", parent, (int) getpid()) < 0)
                die("out of memory");
        if (mkdir(cgf.path, 0755) < 0) {
                snprintf(why, size, "cannot create %s: %s", cgf.path, strerror(errno));
                return false;
        }
        cgf.fd = open(cgf.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (cgf.fd < 0) {
                snprintf(why, size, "cannot open %s: %s", cgf.path, strerror(errno));
                (void) rmdir(cgf.path);
                return false;
        }
        atexit(cg_floor_cleanup);
        cg_enable(cgf.path, cgf.controllers, sizeof cgf.controllers);
        return true;
}

enum floor_mode { FLOOR_VFORK, FLOOR_FORK, FLOOR_PGROUP, FLOOR_AUTOKILL };

/* Starts count copies of e->args[0], their pidfds in pidfds[] (which holds
 * -1 for each to begin with), each in a cgroup of its own in the run's
 * cgroup when cgroups (cg_floor_setup() made it); returns the time the
 * first one was begun. */
static int64_t floor_spawn(long count, enum floor_mode mode, bool cgroups, struct floor_exec *e, int *pidfds) {
        size_t stack_size = 64 * 1024;
        void *stack = NULL;
        int64_t t0;

        /* One stack serves every child: CLONE_VFORK holds the parent until
         * the child has execve()d, so no two children ever share it. */
        if (mode != FLOOR_FORK) {
                stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
                if (stack == MAP_FAILED)
                        die("mmap: %s", strerror(errno));
        }
        t0 = now_ns();
        for (long i = 0; i < count; i++) {
                struct clone_args ca = {
                        .flags = CLONE_PIDFD,
                        .pidfd = (uint64_t) (uintptr_t) &pidfds[i],
                        .exit_signal = SIGCHLD,
                };
                int cg = -1;
                long pid;

                if (cgroups) {
                        char name[32];

                        snprintf(name, sizeof name, "c%ld", i);
                        if (mkdirat(cgf.fd, name, 0755) < 0)
                                die("mkdir %s/%s: %s", cgf.path, name, strerror(errno));
                        cgf.made = i + 1;
                        cg = openat(cgf.fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        if (cg < 0)
                                die("open %s/%s: %s", cgf.path, name, strerror(errno));
                        ca.flags |= CLONE_INTO_CGROUP;
                        ca.cgroup = (uint64_t) cg;
                }
                if (mode == FLOOR_AUTOKILL) {
                        /* As svd spawns where the kernel has the flags (NNP: no CAP_SYS_ADMIN needed). */
                        ca.flags |= CLONE_AUTOREAP | CLONE_PIDFD_AUTOKILL | CLONE_NNP;
                        ca.exit_signal = 0;
                }
                if (mode != FLOOR_FORK) {
                        ca.flags |= CLONE_VM | CLONE_VFORK | CLONE_FILES;
                        ca.stack = (uint64_t) (uintptr_t) stack;
                        ca.stack_size = stack_size;
#ifdef HAVE_SYS_CLONE3_RUN
                        pid = sys_clone3_run(&ca, floor_child, e);
#else
                        (void) floor_child;
                        pid = -ENOSYS;
#endif
                        /* The autokill floor's holder is a fork: it exits without the cleanup,
                         * which is its parent's (the run's cgroup). */
                        if (pid == -EINVAL && mode == FLOOR_AUTOKILL && i == 0) {
                                printf("skip: clone3() refuses CLONE_AUTOREAP | CLONE_PIDFD_AUTOKILL | "
                                       "CLONE_NNP (EINVAL): the kernel lacks them\n");
                                fflush(stdout);
                                _exit(3);
                        }
                        if (pid < 0 && cgroups && i == 0) {
                                printf("skip: clone3() with CLONE_INTO_CGROUP into %s: %s\n", cgf.path,
                                       strerror((int) -pid));
                                fflush(stdout);
                                if (mode == FLOOR_AUTOKILL)
                                        _exit(3);
                                exit(3);
                        }
                        if (pid < 0)
                                die("clone3: %s", strerror((int) -pid));
                        if (e->err)
                                die("child %ld: %s: %s", i, e->setpgid ? "close_range, setpgid or execve" : "close_range or execve",
                                    strerror(e->err));
                } else {
                        pid = syscall(SYS_clone3, &ca, sizeof ca);
                        if (pid < 0)
                                die("clone3: %s", strerror(errno));
                        if (pid == 0) {
                                execve(e->args[0], e->args, e->env);
                                _exit(127);
                        }
                }
                if (cg >= 0)
                        close(cg);
                if (mode == FLOOR_PGROUP && i == 0)
                        e->pgid = (pid_t) pid; /* the first is the group's leader, the rest join it */
        }
        if (stack)
                munmap(stack, stack_size);
        return t0;
}

/* The floors' common start: the socket, SVC's argv and environment, the pidfds. */
static int floor_prepare(const char *sock, const char *svc, long count, struct floor_exec *e, int **ret_pidfds) {
        static char *env[2], *args[2];
        int fd = bind_sock(sock);
        int *pidfds;

        if (asprintf(&env[0], "BENCH_SOCK=%s", sock) < 0)
                die("out of memory");
        args[0] = (char *) svc;
        *e = (struct floor_exec) { .args = args, .env = env };
        pidfds = malloc(((size_t) count + 1) * sizeof *pidfds);
        if (!pidfds)
                die("out of memory");
        for (long i = 0; i < count; i++)
                pidfds[i] = -1;
        *ret_pidfds = pidfds;
        return fd;
}

/* The run's cgroup for a floor with a cgroup per child, or "skip: WHY"
 * and exit 3 where there can be none (not root, no writable cgroup2). */
static void floor_cgroups(void) {
        char why[PATH_MAX + 128];

        if (!cg_floor_setup(why, sizeof why)) {
                printf("skip: %s\n", why);
                exit(3);
        }
}

/* " cgroup=PATH controllers=LIST" after a floor's figures, when it made cgroups. */
static void floor_print_cgroups(bool cgroups) {
        if (cgroups)
                printf(" cgroup=%s controllers=%s", cgf.path, cgf.controllers[0] ? cgf.controllers : "none");
}

static int cmd_floor(int argc, char **argv) {
        enum floor_mode mode = FLOOR_VFORK;
        bool cgroups = false;
        struct floor_exec e;
        long count, got;
        int64_t t0, last;
        int fd, *pidfds;

        if (argc != 5 && argc != 6)
                die("usage: floor SOCK COUNT TIMEOUT_MS SVC [vfork|fork|cgroup]");
        if (argc == 6) {
                if (strcmp(argv[5], "fork") == 0)
                        mode = FLOOR_FORK;
                else if (strcmp(argv[5], "cgroup") == 0)
                        cgroups = true;
                else if (strcmp(argv[5], "vfork") != 0)
                        die("floor: %s: neither vfork, fork nor cgroup", argv[5]);
        }
        raise_nofile();
        count = num(argv[2]);
        if (cgroups)
                floor_cgroups();
        fd = floor_prepare(argv[1], argv[4], count, &e, &pidfds);
        cgf.pidfds = pidfds;
        cgf.count = count;
        t0 = floor_spawn(count, mode, cgroups, &e, pidfds);
        got = collect_reports(fd, count, t0 + num(argv[3]) * 1000000LL, &last);
        printf("got=%ld ms=%.3f", got, got > 0 ? ms(last - t0) : -1.0);
        floor_print_cgroups(cgroups);
        putchar('\n');
        floor_reap(pidfds, count);
        cg_floor_cleanup();
        unlink(argv[1]);
        return got == count ? 0 : 1;
}

/* One parent, N services in one process group, one kill(2) of the group:
 * the time from that kill to the last death, seen through the pidfds as
 * `crash` sees svd's services die. What svd's kill -9 to the last death
 * is compared with: no supervisor can make the kernel end its services
 * faster than this. */
/* The kill floors' common start: the arguments (NAME SOCK COUNT TIMEOUT_MS SVC [cgroup]), the run's
 * cgroup when asked for, then floor_prepare(). Returns the socket. */
static int kill_floor_prepare(int argc, char **argv, struct floor_exec *e, int **ret_pidfds, long *ret_count,
                              int64_t *ret_to, bool *ret_cgroups) {
        if ((argc != 5 && argc != 6) || (argc == 6 && strcmp(argv[5], "cgroup") != 0))
                die("usage: %s SOCK COUNT TIMEOUT_MS SVC [cgroup]", argv[0]);
        *ret_cgroups = argc == 6;
        raise_nofile();
        *ret_count = num(argv[2]);
        *ret_to = num(argv[3]) * 1000000LL;
        if (*ret_cgroups)
                floor_cgroups();
        return floor_prepare(argv[1], argv[4], *ret_count, e, ret_pidfds);
}

static int cmd_killfloor(int argc, char **argv) {
        struct floor_exec e;
        long count, got;
        int64_t t0, t1, last, dead = 0, to;
        int fd, *pidfds, ep;
        size_t left;

        bool cgroups;
        fd = kill_floor_prepare(argc, argv, &e, &pidfds, &count, &to, &cgroups);
        cgf.pidfds = pidfds;
        cgf.count = count;
        e.setpgid = true;
        t0 = floor_spawn(count, FLOOR_PGROUP, cgroups, &e, pidfds);
        got = collect_reports(fd, count, t0 + to, &last);
        ep = watch_pidfds(pidfds, (size_t) count);
        t1 = now_ns();
        if (kill(-e.pgid, SIGKILL) < 0)
                die("kill -%d", (int) e.pgid);
        left = wait_watched(ep, pidfds, (size_t) count, t1 + to, &dead);
        printf("got=%ld ms=%.3f dead_ms=%.3f left=%zu", got, got > 0 ? ms(last - t0) : -1.0,
               left ? -1.0 : ms(dead - t1), left);
        floor_print_cgroups(cgroups);
        putchar('\n');
        floor_reap(pidfds, count); /* those still alive at the deadline */
        cg_floor_cleanup();
        for (;;)
                if (waitpid(-1, NULL, 0) < 0 && errno != EINTR)
                        break;
        unlink(argv[1]);
        return got == count && left == 0 ? 0 : 1;
}

/* The kill floor of autokill: a holder process starts N services with
 * CLONE_PIDFD | CLONE_AUTOREAP | CLONE_PIDFD_AUTOKILL | CLONE_NNP, as svd
 * does where the kernel has the flags, holds their pidfds and nothing else,
 * and is SIGKILLed: the time to the last death is what the kernel's
 * autokill takes to end them, the best any supervisor that relies on it
 * can do. Prints "skip: WHY" and exits 3 on a kernel without the flags. */
static int cmd_autokillfloor(int argc, char **argv) {
        struct floor_exec e;
        long count, got;
        int64_t t0, last = 0, dead = 0, to;
        int fd, *pidfds, sync[2], status;
        Pids svcs = { 0 };
        size_t left;
        char c;

        bool cgroups;
        fd = kill_floor_prepare(argc, argv, &e, &pidfds, &count, &to, &cgroups);
        if (pipe2(sync, O_CLOEXEC) < 0)
                die("pipe2: %s", strerror(errno));
        fflush(stdout);
        pid_t holder = fork();
        if (holder < 0)
                die("fork: %s", strerror(errno));
        if (holder == 0) {
                close(fd);
                close(sync[0]);
                (void) floor_spawn(count, FLOOR_AUTOKILL, cgroups, &e, pidfds);
                if (write(sync[1], "s", 1) != 1)
                        _exit(1);
                for (;;)
                        pause();
        }
        close(sync[1]);
        /* The holder makes the cgroups, in its own copy of cgf: the cleanup here removes as many as
         * it may have made (one it did not make is not there, and rmdir passes over it). */
        if (cgroups)
                cgf.made = count;
        t0 = now_ns();
        if (read(sync[0], &c, 1) != 1) {
                /* The holder ended before it had started them all: a skip (3, said) or a failure. */
                if (waitpid(holder, &status, 0) < 0)
                        die("waitpid: %s", strerror(errno));
                unlink(argv[1]);
                if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
                        return 3;
                die("the holder failed (status %d)", status);
        }
        close(sync[0]);
        got = collect_reports(fd, count, t0 + to, &last);
        tree(holder, argv[4], NULL, &svcs);
        int *fds = open_pidfds(&svcs);
        int ep = watch_pidfds(fds, svcs.n);
        int64_t t1 = now_ns();
        if (kill(holder, SIGKILL) < 0)
                die("kill %d: %s", (int) holder, strerror(errno));
        left = wait_watched(ep, fds, svcs.n, t1 + to, &dead);
        (void) waitpid(holder, NULL, 0);
        printf("got=%ld ms=%.3f dead_ms=%.3f left=%zu", got, got > 0 ? ms(last - t0) : -1.0,
               left || !svcs.n ? -1.0 : ms(dead - t1), left);
        floor_print_cgroups(cgroups);
        putchar('\n');
        cg_floor_cleanup();
        unlink(argv[1]);
        return got == count && left == 0 && (long) svcs.n == count ? 0 : 1;
}

static long kib_field(const char *path, const char *key) {
        FILE *f = fopen(path, "re");
        char line[256];
        size_t kl = strlen(key);
        long v = -1;

        if (!f)
                return -1;
        while (fgets(line, sizeof line, f))
                if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
                        v = atol(line + kl + 1);
                        break;
                }
        fclose(f);
        return v;
}

static int cmd_mem(int argc, char **argv) {
        Pids sup = { 0 };
        long rss = 0, pss = 0;

        if (argc != 3)
                die("usage: mem ROOT SVC");
        tree((pid_t) num(argv[1]), argv[2], &sup, NULL);
        for (size_t i = 0; i < sup.n; i++) {
                char path[64];

                snprintf(path, sizeof path, "/proc/%d/smaps_rollup", (int) sup.v[i]);
                rss += kib_field(path, "Rss");
                pss += kib_field(path, "Pss");
        }
        printf("procs=%zu rss_kib=%ld pss_kib=%ld\n", sup.n, rss, pss);
        return 0;
}

/* Context switches of every thread of every process in l. */
static long switches(const Pids *l) {
        long sum = 0;

        for (size_t i = 0; i < l->n; i++) {
                char path[384];
                struct dirent *de;
                DIR *d;

                snprintf(path, sizeof path, "/proc/%d/task", (int) l->v[i]);
                d = opendir(path);
                if (!d)
                        continue;
                while ((de = readdir(d))) {
                        if (!isdigit((unsigned char) de->d_name[0]))
                                continue;
                        snprintf(path, sizeof path, "/proc/%d/task/%s/status", (int) l->v[i], de->d_name);
                        sum += kib_field(path, "voluntary_ctxt_switches");
                        sum += kib_field(path, "nonvoluntary_ctxt_switches");
                }
                closedir(d);
        }
        return sum;
}

static int cmd_idle(int argc, char **argv) {
        Pids sup = { 0 };
        long a, b;
        int64_t t0, t1;

        if (argc != 4)
                die("usage: idle ROOT SVC MS");
        tree((pid_t) num(argv[1]), argv[2], &sup, NULL);
        /* Settle first: the start's tail (a supervisor still finishing its
         * bookkeeping after the last service reported) is not idleness.
         * Settled = one quiet second, or 5 s have passed (a supervisor with
         * a periodic timer never has a quiet second). */
        t0 = now_ns();
        for (a = switches(&sup);;) {
                sleep_ns(1000000000LL);
                b = switches(&sup);
                if (b == a || now_ns() - t0 >= 5000000000LL)
                        break;
                a = b;
        }
        printf("settle_ms=%.0f ", ms(now_ns() - t0));
        t0 = now_ns();
        a = switches(&sup);
        sleep_ns(num(argv[3]) * 1000000LL); /* the measurement window itself */
        b = switches(&sup);
        t1 = now_ns();
        printf("procs=%zu switches=%ld per_min=%.1f\n", sup.n, b - a, (double) (b - a) * 60e9 / (double) (t1 - t0));
        return 0;
}

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;

        return (x > y) - (x < y);
}

/* Sorts v: its median, -1 when it is empty. */
static double median_of(double *v, size_t n) {
        if (n == 0)
                return -1;
        qsort(v, n, sizeof *v, cmp_double);
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void print_stats(double *v, size_t n) {
        double med;
        size_t r;

        if (n == 0) {
                printf("samples=0 median_ms=-1 p99_ms=-1 max_ms=-1");
                return;
        }
        med = median_of(v, n);
        r = (size_t) ((99 * n + 99) / 100); /* nearest rank */
        printf("samples=%zu median_ms=%.3f p99_ms=%.3f max_ms=%.3f", n, med, v[r - 1], v[n - 1]);
}

static int cmd_restart(int argc, char **argv) {
        Pids svcs = { 0 };
        long count, gap_ms, timeout_ms;
        double *v;
        size_t n = 0;
        pid_t victim;
        int64_t ready;
        int fd;

        if (argc != 7)
                die("usage: restart SOCK ROOT SVC COUNT GAP_MS TIMEOUT_MS");
        count = num(argv[4]);
        gap_ms = num(argv[5]);
        timeout_ms = num(argv[6]);
        v = calloc((size_t) count + 1, sizeof *v);
        fd = bind_sock(argv[1]);
        tree((pid_t) num(argv[2]), argv[3], NULL, &svcs);
        if (svcs.n == 0)
                die("no service process below %s", argv[2]);
        victim = svcs.v[0];
        ready = now_ns() + gap_ms * 1000000LL;
        while ((long) n < count) {
                int64_t t0, ts;
                pid_t pid;
                int pfd;

                if (ready > now_ns())
                        sleep_ns(ready - now_ns()); /* pacing: see the usage above */
                pfd = pidfd_open(victim);
                if (pfd < 0 || !is_svc(victim, argv[3]))
                        die("service process %d is gone", (int) victim);
                t0 = now_ns();
                if (pidfd_kill(pfd, SIGKILL) < 0)
                        die("pidfd_send_signal");
                close(pfd);
                do {
                        if (!recv_report(fd, t0 + timeout_ms * 1000000LL, &pid, &ts)) {
                                fprintf(stderr, "benchtool: no new instance within %ld ms after killing %d\n",
                                        timeout_ms, (int) victim);
                                goto out;
                        }
                } while (pid == victim);
                v[n++] = ms(ts - t0);
                victim = pid;
                ready = ts + gap_ms * 1000000LL;
        }
out:
        print_stats(v, n);
        putchar('\n');
        unlink(argv[1]);
        return (long) n == count ? 0 : 1;
}

/* Runs argv with its output to /dev/null and waits: the whole process's
 * wall time in ms; *rc its exit status (128 + signal). */
static double run_timed(char **argv, int *rc) {
        static posix_spawn_file_actions_t fa;
        static bool fa_ready;
        int64_t t0;
        pid_t pid;
        int st, r;

        if (!fa_ready) {
                posix_spawn_file_actions_init(&fa);
                posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
                posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
                posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
                fa_ready = true;
        }
        t0 = now_ns();
        r = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
        if (r != 0)
                die("spawn %s: %s", argv[0], strerror(r));
        if (waitpid(pid, &st, 0) < 0)
                die("waitpid");
        *rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        return ms(now_ns() - t0);
}

/* Counts an exit status against the first one seen. */
static void note_rc(int rc, int *rc0, int *other) {
        if (*rc0 < 0)
                *rc0 = rc;
        else if (rc != *rc0)
                (*other)++;
}

static int cmd_lat(int argc, char **argv) {
        long count;
        int64_t deadline;
        double *v;
        size_t n = 0;
        int rc0 = -1, other = 0;

        if (argc < 4)
                die("usage: lat COUNT TIMEOUT_MS CMD...");
        count = num(argv[1]);
        deadline = now_ns() + num(argv[2]) * 1000000LL;
        v = calloc((size_t) count + 1, sizeof *v);
        while ((long) n < count && now_ns() < deadline) {
                int rc;

                v[n++] = run_timed(argv + 3, &rc);
                note_rc(rc, &rc0, &other);
        }
        print_stats(v, n);
        printf(" rc=%d rc_other=%d\n", rc0, other);
        return 0;
}

/* A and B in turn, A B B A A B ...: the ratio of each pair is taken while
 * the machine runs at one speed, and their median is the comparison. */
static int cmd_latpair(int argc, char **argv) {
        long count;
        int64_t deadline;
        double *a, *b, *q;
        size_t n = 0;
        int rc0 = -1, other = 0;
        char **cmd_b = NULL;

        for (int i = 3; i < argc; i++)
                if (strcmp(argv[i], "--") == 0) {
                        argv[i] = NULL;
                        cmd_b = argv + i + 1;
                        break;
                }
        if (argc < 6 || !cmd_b || !argv[3] || !cmd_b[0])
                die("usage: latpair COUNT TIMEOUT_MS CMD_A... -- CMD_B...");
        count = num(argv[1]);
        deadline = now_ns() + num(argv[2]) * 1000000LL;
        a = calloc((size_t) count + 1, sizeof *a);
        b = calloc((size_t) count + 1, sizeof *b);
        q = calloc((size_t) count + 1, sizeof *q);
        while ((long) n < count && now_ns() < deadline) {
                int rc;

                /* Every other pair runs B first: the first of two runs
                 * pays for the caches the other warmed. */
                if (n % 2 == 0) {
                        a[n] = run_timed(argv + 3, &rc);
                        note_rc(rc, &rc0, &other);
                }
                b[n] = run_timed(cmd_b, &rc);
                note_rc(rc, &rc0, &other);
                if (n % 2 == 1) {
                        a[n] = run_timed(argv + 3, &rc);
                        note_rc(rc, &rc0, &other);
                }
                q[n] = b[n] > 0 ? a[n] / b[n] : 0;
                n++;
        }
        printf("samples=%zu a_median_ms=%.3f b_median_ms=%.3f ratio_median=%.3f rc=%d rc_other=%d\n", n,
               median_of(a, n), median_of(b, n), median_of(q, n), rc0, other);
        return 0;
}

static int cmd_stopall(int argc, char **argv) {
        Pids svcs = { 0 };
        pid_t root;
        int64_t t0, last = 0, deadline, sup_last = 0;
        int rootfd, *fds, ep;
        size_t left;
        pid_t helper = 0;

        if (argc < 5)
                die("usage: stopall ROOT SVC TIMEOUT_MS SIGNAL | -- CMD...");
        raise_nofile();
        root = (pid_t) num(argv[1]);
        tree(root, argv[2], NULL, &svcs);
        fds = open_pidfds(&svcs);
        rootfd = pidfd_open(root);
        if (rootfd < 0)
                die("pidfd_open %d", (int) root);
        ep = watch_pidfds(fds, svcs.n);
        t0 = now_ns();
        deadline = t0 + num(argv[3]) * 1000000LL;
        if (strcmp(argv[4], "--") == 0) {
                int r = posix_spawnp(&helper, argv[5], NULL, NULL, argv + 5, environ);

                if (r != 0)
                        die("spawn %s: %s", argv[5], strerror(r));
        } else if (pidfd_kill(rootfd, (int) num(argv[4])) < 0)
                die("pidfd_send_signal");
        left = wait_watched(ep, fds, svcs.n, deadline, &last);
        if (wait_pidfds(&rootfd, 1, deadline, &sup_last) != 0)
                sup_last = 0;
        if (helper > 0)
                (void) waitpid(helper, NULL, 0);
        printf("svc=%zu dead_ms=%.3f left=%zu sup_ms=%.3f\n", svcs.n,
               left ? -1.0 : svcs.n ? ms(last - t0) : 0.0, left, sup_last ? ms(sup_last - t0) : -1.0);
        return left == 0 && sup_last ? 0 : 1;
}

static int cmd_crash(int argc, char **argv) {
        Pids svcs = { 0 };
        int64_t t0, last = 0, first = 0, *when;
        int rootfd, *fds, ep;
        size_t alive;

        if (argc != 4)
                die("usage: crash ROOT SVC WINDOW_MS");
        raise_nofile();
        tree((pid_t) num(argv[1]), argv[2], NULL, &svcs);
        /* The services' pidfds, and ROOT's own last: when ROOT itself was gone tells its exit apart
         * from the time the kernel then takes to end the services. */
        fds = realloc(open_pidfds(&svcs), (svcs.n + 1) * sizeof *fds);
        when = calloc(svcs.n + 1, sizeof *when);
        if (!fds || !when)
                die("out of memory");
        rootfd = pidfd_open((pid_t) num(argv[1]));
        if (rootfd < 0)
                die("pidfd_open %s", argv[1]);
        fds[svcs.n] = dup(rootfd);
        if (fds[svcs.n] < 0)
                die("dup");
        ep = watch_pidfds(fds, svcs.n + 1);
        t0 = now_ns();
        if (pidfd_kill(rootfd, SIGKILL) < 0)
                die("pidfd_send_signal");
        alive = wait_watched_each(ep, fds, svcs.n + 1, t0 + num(argv[3]) * 1000000LL, NULL, when);
        if (when[svcs.n] == 0)
                die("%s did not die", argv[1]);
        alive = 0;
        for (size_t i = 0; i < svcs.n; i++) {
                if (when[i] == 0)
                        alive++;
                if (when[i] > last)
                        last = when[i];
                if (when[i] && (!first || when[i] < first))
                        first = when[i];
        }
        printf("svc=%zu alive=%zu last_dead_ms=%.3f first_dead_ms=%.3f root_dead_ms=%.3f\n", svcs.n, alive,
               alive || !svcs.n ? -1.0 : ms(last - t0), first ? ms(first - t0) : -1.0, ms(when[svcs.n] - t0));
        return 0;
}

static int cmd_count(int argc, char **argv) {
        Pids svcs = { 0 };

        if (argc != 3)
                die("usage: count ROOT SVC");
        tree((pid_t) num(argv[1]), argv[2], NULL, &svcs);
        printf("%zu\n", svcs.n);
        return 0;
}

/* SIGKILLs everything below reaper but keep's tree; repeats (orphans of
 * killed processes come back to reaper) until nothing is left or the
 * deadline. Returns how many it signalled. */
static long kill_below(pid_t reaper, pid_t keep, int64_t deadline) {
        long killed = 0;

        for (;;) {
                Pids l = { 0 };
                Procs ps = scan();
                int *fds;

                walk(&ps, reaper, false, "", keep, &l, NULL);
                free(ps.p);
                if (l.n == 0 || now_ns() >= deadline) {
                        free(l.v);
                        return l.n ? -killed - 1 : killed;
                }
                fds = open_pidfds(&l);
                for (size_t i = 0; i < l.n; i++)
                        if (fds[i] >= 0 && pidfd_kill(fds[i], SIGKILL) == 0)
                                killed++;
                (void) wait_pidfds(fds, l.n, deadline, NULL);
                free(fds);
                free(l.v);
                /* reaper reaps them; the next scan no longer sees zombies */
        }
}

static int cmd_killorphans(int argc, char **argv) {
        pid_t keep;
        long k;

        if (argc != 4)
                die("usage: killorphans REAPER KEEP TIMEOUT_MS");
        raise_nofile();
        keep = (pid_t) num(argv[2]);
        if (keep == 0)
                keep = getpid(); /* KEEP 0: everything below REAPER but ourselves */
        k = kill_below((pid_t) num(argv[1]), keep, now_ns() + num(argv[3]) * 1000000LL);
        printf("killed=%ld\n", k < 0 ? -k - 1 : k);
        return k < 0 ? 1 : 0;
}

static int cmd_foreign(int argc, char **argv) {
        Procs ps = scan();

        for (size_t i = 0; i < ps.n; i++) {
                char path[64], comm[64] = "";
                FILE *f;

                snprintf(path, sizeof path, "/proc/%d/comm", (int) ps.p[i].pid);
                f = fopen(path, "re");
                if (!f)
                        continue;
                if (fgets(comm, sizeof comm, f))
                        comm[strcspn(comm, "\n")] = 0;
                fclose(f);
                for (int a = 1; a < argc; a++)
                        if (strcmp(comm, argv[a]) == 0)
                                printf("%d %s\n", (int) ps.p[i].pid, comm);
        }
        free(ps.p);
        return 0;
}

static volatile sig_atomic_t reaper_child;

static void forward(int sig) {
        if (reaper_child > 0)
                kill(reaper_child, sig);
}

static int cmd_reaper(int argc, char **argv) {
        struct sigaction sa = { .sa_handler = forward };
        pid_t child;
        int st = 0, rc;

        if (argc < 2)
                die("usage: reaper CMD...");
        if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
                die("PR_SET_CHILD_SUBREAPER");
        child = fork();
        if (child < 0)
                die("fork");
        if (child == 0) {
                execvp(argv[1], argv + 1);
                die("exec %s: %s", argv[1], strerror(errno));
        }
        reaper_child = child;
        raise_nofile(); /* for kill_below() at the end; CMD keeps its limit */
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);
        for (;;) {
                int s;
                pid_t p = waitpid(-1, &s, 0);

                if (p < 0 && errno == EINTR)
                        continue;
                if (p < 0)
                        die("waitpid");
                if (p == child) {
                        st = s;
                        break;
                }
        }
        rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        /* What is left below us was started by CMD: end it. */
        if (kill_below(getpid(), 0, now_ns() + 30 * 1000000000LL) < 0)
                fprintf(stderr, "benchtool reaper: processes left below pid %d after 30 s\n", (int) getpid());
        while (waitpid(-1, NULL, WNOHANG) > 0)
                ;
        return rc;
}

int main(int argc, char **argv) {
        static const struct {
                const char *name;
                int (*fn)(int, char **);
        } cmds[] = {
                { "stamp", cmd_stamp },     { "collect", cmd_collect }, { "floor", cmd_floor },
                { "killfloor", cmd_killfloor },
                { "autokillfloor", cmd_autokillfloor },
                { "mem", cmd_mem },         { "idle", cmd_idle },       { "restart", cmd_restart },
                { "lat", cmd_lat },         { "latpair", cmd_latpair }, { "stopall", cmd_stopall },
                { "crash", cmd_crash },     { "count", cmd_count },     { "killorphans", cmd_killorphans },
                { "foreign", cmd_foreign }, { "reaper", cmd_reaper },
        };

        if (argc < 2)
                die("usage: benchtool COMMAND ARGS... (see the top of tests/bench/benchtool.c)");
        setvbuf(stdout, NULL, _IOLBF, 0);
        for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
                if (strcmp(argv[1], cmds[i].name) == 0)
                        return cmds[i].fn(argc - 1, argv + 1);
        die("unknown command '%s'", argv[1]);
}
