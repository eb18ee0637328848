/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sandbox plan, child side: mounts in the child's own mount namespace and the loopback of its own
 * network namespace. Runs between clone and exec, possibly on svd's memory (the vfork path): system
 * calls only, no allocation, nothing written but the child's own stack. */
#include "spawn-sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <linux/keyctl.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <linux/seccomp.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/missing-syscall.h"

/* The host's nodes a private /dev gets, bind-mounted (the child may lack CAP_MKNOD, and a bind keeps
 * the host's node, whatever its permissions). */
static const struct {
        const char *path;
        bool directory;
} dev_nodes[] = {
        { "/dev/null", false }, { "/dev/zero", false }, { "/dev/full", false },  { "/dev/random", false },
        { "/dev/urandom", false }, { "/dev/tty", false }, { "/dev/pts", true }, { "/dev/shm", true },
        { "/dev/mqueue", true },
};
#define N_DEV_NODES (sizeof(dev_nodes) / sizeof(dev_nodes[0]))

static const struct {
        const char *target;
        const char *link;
} dev_links[] = {
        { "/proc/self/fd", "/dev/fd" },
        { "/proc/self/fd/0", "/dev/stdin" },
        { "/proc/self/fd/1", "/dev/stdout" },
        { "/proc/self/fd/2", "/dev/stderr" },
};

static void close_all(int *fds, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (fds[i] >= 0) {
                        (void) close(fds[i]);
                        fds[i] = -1;
                }
}

/* Sets (on) or clears a mount attribute (MOUNT_ATTR_RDONLY, MOUNT_ATTR_NOEXEC) on path and what is
 * mounted under it. "/" is changed in place (a bind of "/" onto itself would sit above the root the
 * process walks from); any other path gets a bind onto itself first, so that the change stays on that
 * path. */
static int set_attr(const char *path, uint64_t attr, bool on) {
        struct mount_attr a = { .attr_set = on ? attr : 0, .attr_clr = on ? 0 : attr };
        if (!(path[0] == '/' && path[1] == '\0') && mount(path, path, NULL, MS_BIND | MS_REC, NULL) < 0)
                return -errno;
        if (mount_setattr(AT_FDCWD, path, AT_RECURSIVE, &a, sizeof(a)) < 0)
                return -errno;
        return 0;
}

/* A private /dev: a tmpfs with the host's basic nodes (opened in nodes[] before it hid them). */
static int mount_dev(const char *path, int *nodes) {
        if (mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NOEXEC | MS_STRICTATIME, "mode=0755") < 0)
                return -errno;
        for (size_t i = 0; i < N_DEV_NODES; i++) {
                if (nodes[i] < 0)
                        continue;
                if (dev_nodes[i].directory) {
                        if (mkdir(dev_nodes[i].path, 0755) < 0)
                                return -errno;
                } else {
                        int fd = open(dev_nodes[i].path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
                        if (fd < 0)
                                return -errno;
                        (void) close(fd);
                }
                if (move_mount(nodes[i], "", AT_FDCWD, dev_nodes[i].path, MOVE_MOUNT_F_EMPTY_PATH) < 0)
                        return -errno;
        }
        for (size_t i = 0; i < sizeof(dev_links) / sizeof(dev_links[0]); i++)
                if (symlink(dev_links[i].target, dev_links[i].link) < 0)
                        return -errno;
        if (nodes[6] >= 0 && symlink("pts/ptmx", "/dev/ptmx") < 0) /* /dev/pts */
                return -errno;
        return 0;
}

/* A tmpfs of our own, detached (fsmount()), with one empty file "inaccessible" of mode 000. */
static int inaccessible_tmpfs(void) {
        int fs = fsopen("tmpfs", FSOPEN_CLOEXEC);
        if (fs < 0)
                return -errno;
        int r = 0;
        if (fsconfig(fs, FSCONFIG_SET_STRING, "mode", "0755", 0) < 0 ||
            fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
                r = -errno;
        int m = r < 0 ? -1 : fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
        if (r == 0 && m < 0)
                r = -errno;
        (void) close(fs);
        if (r < 0)
                return r;
        int f = openat(m, "inaccessible", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0000);
        if (f < 0) {
                r = -errno;
                (void) close(m);
                return r;
        }
        (void) close(f);
        return m;
}

/* An empty file system of mode 000 on a directory; on anything else an empty file of mode 000, as
 * systemd's inaccessible nodes are, cloned from a tmpfs of our own (*tmpfs_fd, made at the first
 * need). Linux 6.15 and later clone a file of a detached mount. Before, open_tree() clones only a
 * mount of the caller's namespace (EINVAL): then the tmpfs is attached on the path's parent directory,
 * which exists and hides nothing that is looked up before the tmpfs is detached again, right after
 * the clone (that costs an unmount, so it is the fallback, and the next file needs a new tmpfs).
 * FIXME: drop the fallback when 6.15 is the oldest kernel svd supports. */
static int mount_inaccessible(const char *path, const char *parent, int *tmpfs_fd) {
        struct stat st;
        if (stat(path, &st) < 0)
                return -errno;
        if (S_ISDIR(st.st_mode)) {
                if (mount("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=000") < 0)
                        return -errno;
                return 0;
        }

        if (*tmpfs_fd < 0) {
                int m = inaccessible_tmpfs();
                if (m < 0)
                        return m;
                *tmpfs_fd = m;
        }
        int r = 0;
        int t = open_tree(*tmpfs_fd, "inaccessible", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
        if (t < 0 && errno == EINVAL) {
                if (move_mount(*tmpfs_fd, "", AT_FDCWD, parent, MOVE_MOUNT_F_EMPTY_PATH) < 0)
                        return -errno;
                /* *tmpfs_fd now names the attached mount. */
                t = open_tree(*tmpfs_fd, "inaccessible", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
                if (t < 0)
                        r = -errno;
                /* The topmost mount on parent is the one just attached; once detached, it is of no
                 * more use. */
                if (umount2(parent, MNT_DETACH) < 0 && r == 0)
                        r = -errno;
                (void) close(*tmpfs_fd);
                *tmpfs_fd = -1;
        } else if (t < 0)
                r = -errno;
        if (r < 0) {
                if (t >= 0)
                        (void) close(t);
                return r;
        }

        struct mount_attr a = { .attr_set = MOUNT_ATTR_RDONLY };
        if (mount_setattr(t, "", AT_EMPTY_PATH, &a, sizeof(a)) < 0 ||
            move_mount(t, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH) < 0)
                r = -errno;
        (void) close(t);
        return r;
}

/* The interface ioctls are the socket layer's, not a family's: a kernel
 * built without IPv4 takes them on an AF_UNIX socket as well. */
static int loopback_up(void) {
        int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0 && errno == EAFNOSUPPORT)
                fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        struct ifreq ifr = { .ifr_name = "lo" };
        int r = 0;
        if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
                r = -errno;
        else {
                ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
                if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
                        r = -errno;
        }
        (void) close(fd);
        return r;
}

/* mkdir -p of path, mode 0755, on the stack: the child allocates nothing. */
static int mkdir_parents_child(const char *path) {
        char buf[PATH_MAX];
        size_t n = strlen(path);
        if (n >= sizeof(buf))
                return -ENAMETOOLONG;
        memcpy(buf, path, n + 1);
        for (size_t i = 1; i <= n; i++)
                if (buf[i] == '/' || buf[i] == '\0') {
                        char c = buf[i];
                        buf[i] = '\0';
                        if (mkdir(buf, 0755) < 0 && errno != EEXIST)
                                return -errno;
                        buf[i] = c;
                }
        return 0;
}

static int apply_mounts(const SandboxPlan *p, int *binds, int *nodes, SandboxKey *ret_key) {
        int tmpfs_fd = -1, r = 0;
        size_t b = 0;

        for (size_t i = 0; i < p->n_mounts; i++) {
                const SandboxMount *m = &p->mounts[i];
                *ret_key = m->key;
                switch (m->kind) {
                case SANDBOX_MOUNT_PROC:
                        r = mount("proc", m->path, "proc", m->flags, m->options) < 0 ? -errno : 0;
                        break;
                case SANDBOX_MOUNT_TMPFS:
                        r = mount("tmpfs", m->path, "tmpfs", m->flags, m->options) < 0 ? -errno : 0;
                        break;
                case SANDBOX_MOUNT_DEV:
                        r = mount_dev(m->path, nodes);
                        break;
                case SANDBOX_MOUNT_BIND: {
                        int fd = binds[b++];
                        if (fd < 0) /* a missing source with "-" */
                                continue;
                        /* DynamicUser='s directories go into an empty tmpfs (service-sandbox.c). */
                        if (m->key == SANDBOX_KEY_DYNAMIC_USER)
                                (void) mkdir_parents_child(m->path);
                        r = move_mount(fd, "", AT_FDCWD, m->path, MOVE_MOUNT_F_EMPTY_PATH) < 0 ? -errno : 0;
                        break;
                }
                case SANDBOX_MOUNT_READ_WRITE:
                case SANDBOX_MOUNT_READ_ONLY:
                        r = set_attr(m->path, MOUNT_ATTR_RDONLY, m->kind == SANDBOX_MOUNT_READ_ONLY);
                        break;
                case SANDBOX_MOUNT_EXEC:
                case SANDBOX_MOUNT_NO_EXEC:
                        r = set_attr(m->path, MOUNT_ATTR_NOEXEC, m->kind == SANDBOX_MOUNT_NO_EXEC);
                        break;
                case SANDBOX_MOUNT_INACCESSIBLE:
                        r = mount_inaccessible(m->path, m->source, &tmpfs_fd);
                        break;
                default:
                        r = -EINVAL;
                }
                if (r == -ENOENT && m->ignore_missing)
                        r = 0;
                if (r < 0)
                        break;
        }
        if (tmpfs_fd >= 0)
                (void) close(tmpfs_fd);
        return r;
}

int sandbox_child_apply(const SandboxPlan *p, SandboxKey *ret_key) {
        int r = 0;

        if (p->mount_namespace) {
                /* Nothing mounted here may propagate to the host; the host's new mounts still reach us.
                 * In a chroot whose "/" is no mount point this cannot be said (EINVAL), and every
                 * mount below "/" would reach the host if its mount is shared: refuse instead. */
                *ret_key = SANDBOX_KEY_PRIVATE_MOUNTS;
                if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0) {
                        if (errno == EINVAL)
                                *ret_key = SANDBOX_KEY_ROOT_MOUNT;
                        return -errno;
                }

                /* Bind sources and the host's device nodes, taken before any mount can hide them. */
                int binds[p->n_binds > 0 ? p->n_binds : 1];
                int nodes[N_DEV_NODES];
                size_t b = 0;
                bool dev = false;
                for (size_t i = 0; i < N_DEV_NODES; i++)
                        nodes[i] = -1;
                for (size_t i = 0; i < p->n_mounts && r >= 0; i++) {
                        const SandboxMount *m = &p->mounts[i];
                        if (m->kind == SANDBOX_MOUNT_DEV)
                                dev = true;
                        if (m->kind != SANDBOX_MOUNT_BIND)
                                continue;
                        *ret_key = m->key;
                        int fd = open_tree(AT_FDCWD, m->source,
                                           OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (m->recursive ? AT_RECURSIVE : 0));
                        if (fd < 0 && !(errno == ENOENT && m->ignore_missing))
                                r = -errno;
                        if (fd >= 0 && m->read_only) {
                                struct mount_attr a = { .attr_set = MOUNT_ATTR_RDONLY };
                                if (mount_setattr(fd, "", AT_EMPTY_PATH | (m->recursive ? AT_RECURSIVE : 0), &a,
                                                  sizeof(a)) < 0)
                                        r = -errno;
                        }
                        binds[b++] = fd;
                }
                for (size_t i = 0; dev && r >= 0 && i < N_DEV_NODES; i++) {
                        *ret_key = SANDBOX_KEY_PRIVATE_DEVICES;
                        nodes[i] = open_tree(AT_FDCWD, dev_nodes[i].path,
                                             OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
                        if (nodes[i] < 0 && errno != ENOENT)
                                r = -errno;
                }
                if (r >= 0)
                        r = apply_mounts(p, binds, nodes, ret_key);
                close_all(binds, b);
                close_all(nodes, N_DEV_NODES);
                if (r < 0)
                        return r;

                /* MountFlags=: the whole tree's propagation, last; what was cut off from the host stays
                 * so (shared makes the namespace's mounts peers of each other, not of the host's). */
                if (p->propagation != 0) {
                        *ret_key = SANDBOX_KEY_MOUNT_FLAGS;
                        if (mount(NULL, "/", NULL, MS_REC | p->propagation, NULL) < 0)
                                return -errno;
                }
        }

        if (p->private_network) {
                *ret_key = SANDBOX_KEY_PRIVATE_NETWORK;
                r = loopback_up();
                if (r < 0)
                        return r;
        }
        return 0;
}

int sandbox_child_keyring(const SandboxPlan *p) {
        if (p->keyring == SANDBOX_KEYRING_INHERIT)
                return 0;
        /* A new anonymous session keyring, owned by the (already changed) user. */
        if (sys_keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0, 0, 0, 0) < 0)
                return errno == ENOSYS ? 0 : -errno;
        if (p->keyring == SANDBOX_KEYRING_SHARED &&
            sys_keyctl(KEYCTL_LINK, (unsigned long) KEY_SPEC_USER_KEYRING, (unsigned long) KEY_SPEC_SESSION_KEYRING, 0,
                       0) < 0)
                return -errno;
        return 0;
}

int sandbox_child_load_filters(const SandboxPlan *p, SandboxKey *ret_key) {
        for (size_t i = 0; i < p->n_filters; i++) {
                *ret_key = p->filters[i].key;
                if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p->filters[i].prog, 0, 0) < 0)
                        return -errno;
        }
        return 0;
}
