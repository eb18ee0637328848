/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* PrivateUsers= for a privileged svd, child side: a user namespace of the service's own, entered after
 * the other namespaces and the mounts, so that those stay owned by the host's user namespace and the
 * service's root cannot undo them. Runs between clone and exec, possibly on svd's memory (the vfork
 * path): system calls only, no allocation, nothing written but the child's own stack. */
#include "spawn-sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/macros.h"
#include "basic/missing-syscall.h"

/* Appends the decimal digits of v at buf + n; returns the new length. */
static size_t put_number(char *buf, size_t n, unsigned long v) {
        char digits[24];
        size_t k = 0;
        do
                digits[k++] = (char) ('0' + v % 10);
        while ((v /= 10) > 0);
        while (k > 0)
                buf[n++] = digits[--k];
        return n;
}

static size_t put_string(char *buf, size_t n, const char *s) {
        while (*s)
                buf[n++] = *s++;
        return n;
}

/* "INSIDE OUTSIDE COUNT\n" with inside = outside. */
static size_t put_map_line(char *buf, size_t n, unsigned long id, unsigned long count) {
        n = put_number(buf, n, id);
        buf[n++] = ' ';
        n = put_number(buf, n, id);
        buf[n++] = ' ';
        n = put_number(buf, n, count);
        buf[n++] = '\n';
        return n;
}

/* The mapping of systemd.exec(5): "self" maps root and the service's own id to themselves (everything
 * else shows as the overflow id, nobody); "identity" maps the first 65536 ids to themselves. */
static size_t format_map(char *buf, SandboxUsers mode, unsigned long own) {
        if (mode == SANDBOX_USERS_IDENTITY)
                return put_map_line(buf, 0, 0, 65536);
        size_t n = put_map_line(buf, 0, 0, 1);
        if (own != 0)
                n = put_map_line(buf, n, own, 1);
        return n;
}

static int write_proc_file(pid_t pid, const char *name, const char *text, size_t len) {
        char path[64];
        size_t n = put_string(path, 0, "/proc/");
        n = put_number(path, n, (unsigned long) pid);
        path[n++] = '/';
        n = put_string(path, n, name);
        path[n] = '\0';
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        ssize_t w = write(fd, text, len);
        int r = w < 0 ? -errno : (size_t) w == len ? 0 : -EIO;
        (void) close(fd);
        return r;
}

/* The helper: still in the host's user namespace with svd's privileges, it waits until the service
 * has entered its new one, then writes that namespace's maps (which needs CAP_SETUID and CAP_SETGID in
 * the parent namespace, which the service no longer has there). setgroups() is denied in it for good:
 * the supplementary groups were set before. Exits 0 or with the errno. */
static _noreturn_ void helper_run(pid_t target, int ready_fd, const char *uid_map, size_t uid_len,
                                  const char *gid_map, size_t gid_len) {
        char c;
        ssize_t n;
        do
                n = read(ready_fd, &c, 1);
        while (n < 0 && errno == EINTR);
        if (n != 1)
                _exit(ECANCELED); /* the service gave up before unshare() */
        int r = write_proc_file(target, "setgroups", "deny", 4);
        if (r >= 0)
                r = write_proc_file(target, "gid_map", gid_map, gid_len);
        if (r >= 0)
                r = write_proc_file(target, "uid_map", uid_map, uid_len);
        _exit(r < 0 && -r < 256 ? -r : r < 0 ? EIO : 0);
}

int sandbox_child_private_users(const SandboxPlan *p, uid_t uid, gid_t gid) {
        char uid_map[64], gid_map[64];
        size_t uid_len = format_map(uid_map, p->private_users, uid);
        size_t gid_len = format_map(gid_map, p->private_users, gid);
        int ready[2];

        if (pipe2(ready, O_CLOEXEC) < 0)
                return -errno;
        pid_t self = getpid();
        struct clone_args args = { .exit_signal = SIGCHLD };
        pid_t helper = sys_clone3(&args, sizeof(args));
        if (helper < 0 && errno == ENOSYS)
                helper = sys_clone_fork(SIGCHLD, NULL);
        if (helper < 0) {
                int r = -errno;
                (void) close(ready[0]);
                (void) close(ready[1]);
                return r;
        }
        if (helper == 0) {
                (void) close(ready[1]);
                helper_run(self, ready[0], uid_map, uid_len, gid_map, gid_len);
        }

        (void) close(ready[0]);
        int r = unshare(CLONE_NEWUSER) < 0 ? -errno : 0;
        if (r == 0 && write(ready[1], "u", 1) != 1)
                r = -errno;
        (void) close(ready[1]); /* on failure the helper reads EOF and exits */

        int status = 0;
        pid_t w;
        do
                w = waitpid(helper, &status, 0);
        while (w < 0 && errno == EINTR);
        if (r < 0)
                return r;
        if (w < 0)
                return -errno;
        if (!WIFEXITED(status))
                return -EIO;
        return -WEXITSTATUS(status);
}
