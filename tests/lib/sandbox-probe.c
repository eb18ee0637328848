/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sandbox-probe PROBE...: makes the system call each probe names and prints "PROBE=OK" or
 * "PROBE=ENAME" (the errno), one line each, so that tests/integration/sandbox-seccomp.sh sees from
 * inside a service what its seccomp filters let through (and sandbox-bpf.sh what its cgroup's
 * device and IP programs let through). A probe that is killed (SIGSYS) prints nothing more: the
 * output stops there. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/keyctl.h>
#include <mqueue.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/timex.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* sched_setattr(2)'s argument (linux/sched/types.h, which clashes with <sched.h>). */
struct probe_sched_attr {
        uint32_t size;
        uint32_t sched_policy;
        uint64_t sched_flags;
        int32_t sched_nice;
        uint32_t sched_priority;
        uint64_t sched_runtime, sched_deadline, sched_period;
};

static const char *result(long r) {
        return r < 0 ? strerrorname_np(errno) : "OK";
}

/* getpid() through the i386 entry (int $0x80, number 20): what SystemCallArchitectures=native kills. */
static long i386_getpid(void) {
#if defined(__x86_64__)
        long r;
        __asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory");
        if (r < 0) {
                errno = (int) -r;
                return -1;
        }
        return r;
#else
        errno = ENOSYS;
        return -1;
#endif
}

/* How long a packet may take to arrive over the loopback device, which delivers it before the
 * send returns on an idle machine: only a dropped one takes this long. */
#define PROBE_NET_WAIT_MS 2000

/* "ADDRESS", IPv4 or IPv6, with port 0: the kernel picks one when it is bound. */
static int probe_addr(const char *s, struct sockaddr_storage *ret, socklen_t *ret_len) {
        struct sockaddr_in *in = (struct sockaddr_in *) ret;
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) ret;

        memset(ret, 0, sizeof(*ret));
        if (inet_pton(AF_INET, s, &in->sin_addr) == 1) {
                in->sin_family = AF_INET;
                *ret_len = sizeof(*in);
                return 0;
        }
        if (inet_pton(AF_INET6, s, &in6->sin6_addr) == 1) {
                in6->sin6_family = AF_INET6;
                *ret_len = sizeof(*in6);
                return 0;
        }
        errno = EINVAL;
        return -1;
}

/* A socket of type bound to address s (port 0), its address with the port in *ret. */
static int probe_bound(const char *s, int type, struct sockaddr_storage *ret, socklen_t *ret_len) {
        if (probe_addr(s, ret, ret_len) < 0)
                return -1;
        int fd = socket(ret->ss_family, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return -1;
        if (bind(fd, (struct sockaddr *) ret, *ret_len) < 0 ||
            getsockname(fd, (struct sockaddr *) ret, ret_len) < 0 || (type == SOCK_STREAM && listen(fd, 1) < 0)) {
                int e = errno;
                close(fd);
                errno = e;
                return -1;
        }
        return fd;
}

/* tcp-connect:ADDRESS: a connection to a listener of its own on ADDRESS. A SYN that the egress
 * program drops is not an error to connect(2) (TCP sends it again): ETIMEDOUT once it did not
 * connect within PROBE_NET_WAIT_MS. */
static long probe_tcp_connect(const char *addr) {
        struct sockaddr_storage sa;
        socklen_t len;
        int l = probe_bound(addr, SOCK_STREAM, &sa, &len), c = -1, e = 0;
        long r = -1;

        if (l < 0)
                return -1;
        c = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (c >= 0 && (connect(c, (struct sockaddr *) &sa, len) == 0 || errno == EINPROGRESS)) {
                struct pollfd p = { .fd = c, .events = POLLOUT };
                socklen_t el = sizeof(e);
                int n = poll(&p, 1, PROBE_NET_WAIT_MS);
                if (n == 0)
                        e = ETIMEDOUT;
                else if (n < 0 || getsockopt(c, SOL_SOCKET, SO_ERROR, &e, &el) < 0)
                        e = errno;
                r = e ? -1 : 0;
        } else
                e = errno;
        if (c >= 0)
                close(c);
        close(l);
        errno = e;
        return r;
}

/* udp-send:ADDRESS: a datagram to a socket of its own on ADDRESS; what sendto(2) says (the egress
 * program's drop is EPERM). udp-recv:SOURCE,ADDRESS: the same from a socket bound to SOURCE, and
 * whether it arrived (the ingress program looks at the source): ETIMEDOUT when it did not. */
static long probe_udp(const char *arg, bool receive) {
        char src[64] = "";
        const char *dst = arg;
        if (receive) {
                const char *comma = strchr(arg, ',');
                if (!comma || (size_t) (comma - arg) >= sizeof(src)) {
                        errno = EINVAL;
                        return -1;
                }
                memcpy(src, arg, (size_t) (comma - arg));
                dst = comma + 1;
        }
        struct sockaddr_storage to, from;
        socklen_t to_len, from_len;
        int rx = probe_bound(dst, SOCK_DGRAM, &to, &to_len), tx = -1, e = 0;
        long r = -1;
        if (rx < 0)
                return -1;
        tx = receive ? probe_bound(src, SOCK_DGRAM, &from, &from_len)
                     : socket(to.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (tx >= 0 && sendto(tx, "x", 1, 0, (struct sockaddr *) &to, to_len) == 1) {
                r = 0;
                if (receive) {
                        struct pollfd p = { .fd = rx, .events = POLLIN };
                        int n = poll(&p, 1, PROBE_NET_WAIT_MS);
                        e = n == 0 ? ETIMEDOUT : n < 0 ? errno : 0;
                        r = e ? -1 : 0;
                }
        } else
                e = errno;
        if (tx >= 0)
                close(tx);
        close(rx);
        errno = e;
        return r;
}

static long probe_open(const char *path, int flags) {
        int fd = open(path, flags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd >= 0)
                close(fd);
        return fd;
}

static long probe(const char *what, const char *arg) {
        struct utsname u;
        if (strcmp(what, "uname") == 0)
                return uname(&u);
        if (strcmp(what, "mount") == 0) /* a bad target: ENOENT when allowed and privileged */
                return mount("none", "/nonexistent/svd-probe", "tmpfs", 0, NULL);
        if (strcmp(what, "socket-unix") == 0 || strcmp(what, "socket-inet") == 0 ||
            strcmp(what, "socket-inet6") == 0 || strcmp(what, "socket-netlink") == 0) {
                int af = what[7] == 'u' ? AF_UNIX : what[7] == 'n' ? AF_NETLINK : what[11] == '6' ? AF_INET6 : AF_INET;
                int fd = socket(af, SOCK_DGRAM | SOCK_CLOEXEC, 0);
                if (fd >= 0)
                        close(fd);
                return fd;
        }
        if (strcmp(what, "unshare-uts") == 0)
                return unshare(CLONE_NEWUTS);
        if (strcmp(what, "unshare-net") == 0)
                return unshare(CLONE_NEWNET);
        if (strcmp(what, "clone3") == 0) { /* a bad size: EINVAL when allowed */
                return syscall(SYS_clone3, NULL, 0);
        }
        if (strcmp(what, "sched-fifo") == 0) {
                struct sched_param sp = { .sched_priority = 1 };
                return sched_setscheduler(0, SCHED_FIFO, &sp);
        }
        if (strcmp(what, "sched-batch") == 0) {
                struct sched_param sp = { .sched_priority = 0 };
                return sched_setscheduler(0, SCHED_BATCH, &sp);
        }
        if (strcmp(what, "sched-setattr-fifo") == 0 || strcmp(what, "sched-setattr-other") == 0) {
                struct probe_sched_attr a = { .size = sizeof(a) };
                if (what[13] == 'f') {
                        a.sched_policy = SCHED_FIFO;
                        a.sched_priority = 1;
                } else
                        a.sched_policy = SCHED_OTHER;
                return syscall(SYS_sched_setattr, 0, &a, 0);
        }
        if (strcmp(what, "personality") == 0)
                return personality(PER_LINUX32);
        if (strcmp(what, "personality-query") == 0) { /* 0xffffffff changes nothing, returns the current one */
                long r = personality(0xffffffff);
                return r < 0 ? r : 0;
        }
        if (strcmp(what, "personality-norandom") == 0) /* PER_LINUX with ADDR_NO_RANDOMIZE */
                return personality(PER_LINUX | ADDR_NO_RANDOMIZE);
        if (strcmp(what, "personality-linux") == 0) { /* setting the one it has */
                long r = personality(PER_LINUX);
                return r < 0 ? r : 0;
        }
        if (strcmp(what, "umount") == 0) /* privileged: EINVAL on a path that is no mount point */
                return umount2(arg, 0);
        if (strcmp(what, "clock-settime-monotonic") == 0) { /* never sets anything: EINVAL when allowed */
                struct timespec ts = { .tv_sec = 1 };
                return clock_settime(CLOCK_MONOTONIC, &ts);
        }
        if (strcmp(what, "adjtimex-read") == 0) { /* modes 0 only reads the clock's state */
                struct timex tx = { .modes = 0 };
                return adjtimex(&tx) < 0 ? -1 : 0;
        }
        if (strcmp(what, "mmap-wx") == 0 || strcmp(what, "mmap-w") == 0) {
                int prot = PROT_READ | PROT_WRITE | (what[6] == 'x' ? PROT_EXEC : 0);
                void *p = mmap(NULL, 4096, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                if (p == MAP_FAILED)
                        return -1;
                munmap(p, 4096);
                return 0;
        }
        if (strcmp(what, "mprotect-x") == 0) {
                void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                if (p == MAP_FAILED)
                        return -1;
                long r = mprotect(p, 4096, PROT_READ | PROT_EXEC);
                int e = errno;
                munmap(p, 4096);
                errno = e;
                return r;
        }
        if (strcmp(what, "chmod-suid") == 0 || strcmp(what, "chmod-sgid") == 0)
                return chmod(arg, what[6] == 'u' ? 04755 : 02755);
        if (strcmp(what, "chmod-plain") == 0)
                return chmod(arg, 0755);
        if (strcmp(what, "create-suid") == 0) {
                int fd = open(arg, O_WRONLY | O_CREAT | O_CLOEXEC, 04755);
                if (fd >= 0)
                        close(fd);
                return fd;
        }
        if (strcmp(what, "openat2") == 0) { /* read-only open of "/" */
                struct {
                        uint64_t flags, mode, resolve;
                } how = { .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC };
                long fd = syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));
                if (fd >= 0)
                        close((int) fd);
                return fd;
        }
        if (strcmp(what, "mount-tmpfs") == 0) /* a real mount on arg: use it in a namespace of its own only */
                return mount("tmpfs", arg, "tmpfs", 0, "size=64k");
        if (strcmp(what, "keyring-session") == 0) /* the session keyring's serial, printed as the result */
                return syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0);
        if (strcmp(what, "keyring-user-linked") == 0) { /* is the user's keyring in the session keyring? */
                long user = syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, 1);
                int32_t ids[256];
                long n = user < 0 ? -1 : syscall(SYS_keyctl, KEYCTL_READ, KEY_SPEC_SESSION_KEYRING, ids, sizeof(ids));
                if (n < 0)
                        return -1;
                for (long i = 0; i < n / (long) sizeof(int32_t) && i < 256; i++)
                        if (ids[i] == user)
                                return 0;
                errno = ENOENT;
                return -1;
        }
        /* IPC objects that outlive the process (RemoveIPC=). */
        if (strcmp(what, "shmget") == 0)
                return shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
        if (strcmp(what, "semget") == 0)
                return semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
        if (strcmp(what, "msgget") == 0)
                return msgget(IPC_PRIVATE, IPC_CREAT | 0600);
        if (strcmp(what, "shm-open") == 0) { /* /dev/shm/ARG */
                int fd = shm_open(arg, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
                if (fd >= 0)
                        close(fd);
                return fd;
        }
        if (strcmp(what, "mq-open") == 0) { /* /dev/mqueue/ARG */
                mqd_t q = mq_open(arg, O_RDWR | O_CREAT | O_CLOEXEC, 0600, NULL);
                if (q == (mqd_t) -1)
                        return -1;
                mq_close(q);
                return 0;
        }
        /* Device access through the cgroup's device program: open for reading, for writing, and
         * mknod(2) of the character device MAJOR:MINOR at a path ("mknod:PATH:MAJOR:MINOR"). */
        if (strcmp(what, "open-read") == 0)
                return probe_open(arg, O_RDONLY);
        if (strcmp(what, "open-write") == 0)
                return probe_open(arg, O_WRONLY);
        if (strcmp(what, "mknod") == 0) {
                char path[4096];
                unsigned maj, min;
                const char *colon = strchr(arg, ':');
                if (!colon || (size_t) (colon - arg) >= sizeof(path) || sscanf(colon + 1, "%u:%u", &maj, &min) != 2) {
                        errno = EINVAL;
                        return -1;
                }
                memcpy(path, arg, (size_t) (colon - arg));
                path[colon - arg] = '\0';
                long r = mknod(path, S_IFCHR | 0600, makedev(maj, min));
                if (r == 0)
                        unlink(path);
                return r;
        }
        if (strcmp(what, "tcp-connect") == 0)
                return probe_tcp_connect(arg);
        if (strcmp(what, "udp-send") == 0 || strcmp(what, "udp-recv") == 0)
                return probe_udp(arg, what[4] == 'r');
        if (strcmp(what, "sethostname") == 0)
                return sethostname("svd-probe", 9);
        if (strcmp(what, "i386-getpid") == 0)
                return i386_getpid();
        errno = EINVAL;
        return -1;
}

int main(int argc, char *argv[]) {
        setvbuf(stdout, NULL, _IOLBF, 0);
        for (int i = 1; i < argc; i++) {
                const char *arg = strchr(argv[i], ':');
                char what[64];
                size_t n = arg ? (size_t) (arg - argv[i]) : strlen(argv[i]);
                if (n >= sizeof(what))
                        n = sizeof(what) - 1;
                memcpy(what, argv[i], n);
                what[n] = '\0';
                long r = probe(what, arg ? arg + 1 : "");
                if (r >= 0 && strcmp(what, "keyring-session") == 0)
                        printf("%s=%ld\n", what, r);
                else
                        printf("%s=%s\n", what, result(r));
        }
        return 0;
}
