/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * svd-powerfs: a FUSE layer over a data directory that can lose, on
 * command, everything written to it that was not made durable, as a power
 * cut would (svd-powerfs(1)).
 *
 * The layer passes every operation through to the directory beneath it
 * (the backing directory, opened before the mount covers it), so that the
 * services see their data as usual. Beside it, in a shadow directory, it
 * keeps what a disk would hold after a power cut: the durable state. Data
 * written to a file reaches the shadow when the file is fsync()ed or
 * fdatasync()ed, or at once when the file was opened O_SYNC or O_DSYNC;
 * the names in a directory (create, link, symlink, mkdir, rename, unlink,
 * rmdir) reach it when the directory is fsync()ed. The shadow is a tree
 * (shadow/tree, as the data directory looks durably) and a store
 * (shadow/store): a hard link to each file of the shadow by the backing
 * inode it stands for, and the shadow's directories that no durable name
 * reaches (yet, or any more).
 *
 * SIGUSR1 is the power cut: the layer unmounts, then replaces the backing
 * directory's contents with the shadow's tree, writes what it dropped to
 * its log and one summary line to stdout, and exits. SIGUSR2 is the same
 * cut with torn writes: the last unsynced write of each durable file
 * survives in part, a prefix of it that ends at a block boundary inside
 * it. SIGTERM, SIGINT and SIGHUP unmount and keep everything. Run it when nothing uses the data directory,
 * and cut only once every process that wrote to it is dead.
 */
#define FUSE_USE_VERSION 31

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <fuse_lowlevel.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <search.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <unistd.h>

#include "macros.h"

#define BLOCK_SIZE 4096U
#define COPY_CHUNK (1U << 20)

typedef struct Range {
        uint64_t start, end;
} Range;

/* An inode of the backing directory, by its inode number. */
typedef struct Node {
        ino_t ino;
        mode_t type;  /* S_IFMT bits */
        Range *dirty; /* data written since the last fsync, sorted, disjoint */
        size_t n_dirty, n_dirty_alloc;
        uint64_t last_off, last_len; /* the last unsynced write (--torn) */
        bool has_last;
        bool stored; /* a non-directory: shadow/store/INO exists */
        ino_t sino;  /* the shadow's inode for it, when stored or a directory there */
        int sdir_fd; /* a directory: O_PATH fd of its shadow directory, or -1 */
        int read_fd; /* a file with unsynced data: the backing file, read-only, for the cut */
        char *path;  /* where it was last seen, for the log */
        char **ops;  /* a directory: its name operations since its last fsync, for the log */
        size_t n_ops;
        struct Node *next; /* every Node, the forgotten too: the cut accounts for all */
} Node;

static int backing_fd = -EBADF; /* the data directory beneath the mount */
static int tree_fd = -EBADF;    /* shadow/tree */
static int store_fd = -EBADF;   /* shadow/store */
static void *nodes_by_ino;      /* tsearch() trees of Node * */
static void *nodes_by_sino;
static Node *all_nodes;
static bool arg_torn;
static uint64_t arg_seed = 1;
static const char *arg_log;
static volatile sig_atomic_t cut_requested;
static struct fuse *fuse_instance;
static bool is_root;

static int cmp_ino(const void *a, const void *b) {
        ino_t x = ((const Node *)a)->ino, y = ((const Node *)b)->ino;
        return x < y ? -1 : x > y;
}

static int cmp_sino(const void *a, const void *b) {
        ino_t x = ((const Node *)a)->sino, y = ((const Node *)b)->sino;
        return x < y ? -1 : x > y;
}

static Node *node_find(ino_t ino) {
        Node key = {.ino = ino};
        Node **p = tfind(&key, &nodes_by_ino, cmp_ino);
        return p ? *p : NULL;
}

static Node *node_find_sino(ino_t sino) {
        Node key = {.sino = sino};
        Node **p = tfind(&key, &nodes_by_sino, cmp_sino);
        return p ? *p : NULL;
}

static void node_set_path(Node *n, const char *path) {
        char *p = strdup(path);
        if (p) {
                free(n->path);
                n->path = p;
        }
}

static Node *node_get(ino_t ino, mode_t mode, const char *path) {
        Node *n = node_find(ino);
        if (n) {
                if (path)
                        node_set_path(n, path);
                return n;
        }
        n = calloc(1, sizeof(Node));
        if (!n)
                return NULL;
        *n = (Node){.ino = ino, .type = mode & S_IFMT, .sdir_fd = -EBADF, .read_fd = -EBADF};
        if (path)
                node_set_path(n, path);
        if (!tsearch(n, &nodes_by_ino, cmp_ino)) {
                free(n->path);
                free(n);
                return NULL;
        }
        n->next = all_nodes;
        all_nodes = n;
        return n;
}

static void node_set_sino(Node *n, ino_t sino) {
        if (n->sino)
                (void)tdelete(n, &nodes_by_sino, cmp_sino);
        n->sino = sino;
        if (sino)
                (void)tsearch(n, &nodes_by_sino, cmp_sino);
}

/* A new inode got the number of one the layer knew (which is gone from the backing directory):
 * the old one's shadow stays where the shadow's tree names it, but is no longer this number's. */
static void node_forget(ino_t ino) {
        char name[32];
        Node *n = node_find(ino);

        if (!n)
                return;
        (void)tdelete(n, &nodes_by_ino, cmp_ino);
        node_set_sino(n, 0);
        if (n->stored) {
                snprintf(name, sizeof(name), "%ju", (uintmax_t)ino);
                (void)unlinkat(store_fd, name, 0);
        }
        n->sdir_fd = safe_close(n->sdir_fd);
        n->stored = false;
        /* Its unsynced writes stay in the cut's account (all_nodes); its read_fd too, for --torn. */
}

/* ---- ranges ---- */

static void range_add(Node *n, uint64_t start, uint64_t end) {
        if (start >= end)
                return;
        /* Merge with every range it touches. */
        size_t i = 0, j;
        while (i < n->n_dirty && n->dirty[i].end < start)
                i++;
        j = i;
        while (j < n->n_dirty && n->dirty[j].start <= end) {
                start = MIN(start, n->dirty[j].start);
                end = end > n->dirty[j].end ? end : n->dirty[j].end;
                j++;
        }
        if (j == i) {
                if (n->n_dirty == n->n_dirty_alloc) {
                        size_t a = n->n_dirty_alloc ? n->n_dirty_alloc * 2 : 8;
                        Range *r = realloc(n->dirty, a * sizeof(Range));
                        if (!r)
                                abort(); /* losing track would make the layer lie */
                        n->dirty = r;
                        n->n_dirty_alloc = a;
                }
                memmove(n->dirty + i + 1, n->dirty + i, (n->n_dirty - i) * sizeof(Range));
                n->n_dirty++;
        } else if (j > i + 1) {
                memmove(n->dirty + i + 1, n->dirty + j, (n->n_dirty - j) * sizeof(Range));
                n->n_dirty -= j - i - 1;
        }
        n->dirty[i] = (Range){start, end};
}

static uint64_t ranges_bytes(const Node *n) {
        uint64_t b = 0;
        for (size_t i = 0; i < n->n_dirty; i++)
                b += n->dirty[i].end - n->dirty[i].start;
        return b;
}

/* ---- copying ---- */

static int copy_range(int from, int to, uint64_t start, uint64_t end) {
        static char buf[COPY_CHUNK];
        while (start < end) {
                size_t want = (size_t)MIN(end - start, (uint64_t)sizeof(buf));
                ssize_t k = pread(from, buf, want, (off_t)start);
                if (k < 0)
                        return -errno;
                if (k == 0)
                        break; /* past the end: the size says the rest */
                for (ssize_t done = 0; done < k;) {
                        ssize_t w =
                            pwrite(to, buf + done, (size_t)(k - done), (off_t)(start + (uint64_t)done));
                        if (w < 0)
                                return -errno;
                        done += w;
                }
                start += (uint64_t)k;
        }
        return 0;
}

static void copy_meta(int fd, const struct stat *st) {
        if (is_root)
                (void)!fchown(fd, st->st_uid, st->st_gid);
        (void)fchmod(fd, st->st_mode & 07777);
}

/* A copy of the non-directory (from, from_name) at (to, to_name), which must not exist: a regular
 * file (empty unless with_data), a symbolic link, a node; its mode and owner. *ret_ino: the copy's. */
static int clone_object(int from, const char *from_name, const struct stat *st, int to, const char *to_name,
                        bool with_data, ino_t *ret_ino) {
        struct stat cst;
        int r;

        if (S_ISREG(st->st_mode)) {
                _cleanup_close_ int fd = openat(to, to_name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
                if (fd < 0)
                        return -errno;
                if (with_data) {
                        _cleanup_close_ int src = openat(from, from_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
                        if (src < 0)
                                return -errno;
                        if ((r = copy_range(src, fd, 0, (uint64_t)st->st_size)) < 0)
                                return r;
                        if (ftruncate(fd, st->st_size) < 0)
                                return -errno;
                        struct timespec ts[2] = {st->st_atim, st->st_mtim};
                        (void)futimens(fd, ts);
                }
                copy_meta(fd, st);
                if (fstat(fd, &cst) < 0)
                        return -errno;
        } else {
                if (S_ISLNK(st->st_mode)) {
                        char target[PATH_MAX + 1];
                        ssize_t k = readlinkat(from, from_name, target, sizeof(target) - 1);
                        if (k < 0)
                                return -errno;
                        target[k] = 0;
                        if (symlinkat(target, to, to_name) < 0)
                                return -errno;
                } else if (mknodat(to, to_name, st->st_mode & (S_IFMT | 07777), st->st_rdev) < 0)
                        return -errno;
                if (is_root)
                        (void)!fchownat(to, to_name, st->st_uid, st->st_gid, AT_SYMLINK_NOFOLLOW);
                if (fstatat(to, to_name, &cst, AT_SYMLINK_NOFOLLOW) < 0)
                        return -errno;
        }
        if (ret_ino)
                *ret_ino = cst.st_ino;
        return 0;
}

/* The shadow object of the backing inode n (at dir, name) in the store, as shadow/store/INO. */
static int store_create(Node *n, int dir, const char *name, const struct stat *st, bool with_data) {
        char sname[32];
        ino_t sino;

        snprintf(sname, sizeof(sname), "%ju", (uintmax_t)n->ino);
        (void)unlinkat(store_fd, sname, 0);
        int r = clone_object(dir, name, st, store_fd, sname, with_data, &sino);
        if (r < 0)
                return r;
        n->stored = true;
        node_set_sino(n, sino);
        return 0;
}

static int link_stored(const Node *n, int sdir, const char *name) {
        char sname[32];
        snprintf(sname, sizeof(sname), "%ju", (uintmax_t)n->ino);
        return linkat(store_fd, sname, sdir, name, 0) < 0 ? -errno : 0;
}

static int open_sdir(Node *n, int parent, const char *name) {
        struct stat st;
        int fd = openat(parent, name, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0) {
                int r = -errno;
                close(fd);
                return r;
        }
        safe_close(n->sdir_fd);
        n->sdir_fd = fd;
        node_set_sino(n, st.st_ino);
        return 0;
}

/* A directory stream of the directory dir (which may be an O_PATH fd): 0, or -errno. */
static int dir_open(int dir, DIR **ret) {
        int d = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (d < 0)
                return -errno;
        *ret = fdopendir(d);
        if (!*ret) {
                int r = -errno;
                close(d);
                return r;
        }
        return 0;
}

/* The next entry of dp but "." and "..", or NULL at the end (errno > 0 for an error). */
static struct dirent *dir_next(DIR *dp) {
        struct dirent *de;
        while ((errno = 0, de = readdir(dp)))
                if (!streq(de->d_name, ".") && !streq(de->d_name, ".."))
                        return de;
        return NULL;
}

/* Mirrors the backing directory (dir) into the shadow directory sdir, recursively: at the start,
 * everything there is durable. path: dir's path below the data directory, for the log. */
static int mirror(int dir, int sdir, const char *path, unsigned depth) {
        int r = 0;

        if (depth > 256)
                return -ELOOP;
        _cleanup_closedir_ DIR *dp = NULL;
        int k = dir_open(dir, &dp);
        if (k < 0)
                return k;
        struct dirent *de;
        while ((de = dir_next(dp))) {
                struct stat st;
                char sub[PATH_MAX];
                if (fstatat(dirfd(dp), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        return -errno;
                snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "/" : "", de->d_name);
                Node *n = node_get(st.st_ino, st.st_mode, sub);
                if (!n)
                        return -ENOMEM;
                if (S_ISDIR(st.st_mode)) {
                        if (mkdirat(sdir, de->d_name, 0700) < 0)
                                return -errno;
                        _cleanup_close_ int child =
                            openat(dirfd(dp), de->d_name, O_PATH | O_DIRECTORY | O_CLOEXEC);
                        if (child < 0)
                                return -errno;
                        if ((r = open_sdir(n, sdir, de->d_name)) < 0)
                                return r;
                        _cleanup_close_ int sd =
                            openat(sdir, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        if (sd < 0)
                                return -errno;
                        if ((r = mirror(child, n->sdir_fd, sub, depth + 1)) < 0)
                                return r;
                        copy_meta(sd, &st);
                        continue;
                }
                if (!n->stored && (r = store_create(n, dirfd(dp), de->d_name, &st, true)) < 0)
                        return r;
                if ((r = link_stored(n, sdir, de->d_name)) < 0)
                        return r;
        }
        return errno > 0 ? -errno : 0;
}

/* Empties the directory dir (recursively), leaving it in place. */
static int empty_dir(int dir, unsigned depth) {
        if (depth > 256)
                return -ELOOP;
        _cleanup_closedir_ DIR *dp = NULL;
        int r = dir_open(dir, &dp);
        if (r < 0)
                return r;
        struct dirent *de;
        while ((de = dir_next(dp))) {
                if (unlinkat(dirfd(dp), de->d_name, 0) == 0)
                        continue;
                if (errno != EISDIR && errno != EPERM)
                        return -errno;
                _cleanup_close_ int sub =
                    openat(dirfd(dp), de->d_name, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
                if (sub < 0)
                        return -errno;
                if ((r = empty_dir(sub, depth + 1)) < 0)
                        return r;
                if (unlinkat(dirfd(dp), de->d_name, AT_REMOVEDIR) < 0)
                        return -errno;
        }
        return errno > 0 ? -errno : 0;
}

/* Copies the tree sdir into dir (which is empty), keeping hard links, modes, owners and times. */
typedef struct Copied {
        ino_t sino;
        char *path; /* relative to the data directory */
} Copied;

static int cmp_copied(const void *a, const void *b) {
        ino_t x = ((const Copied *)a)->sino, y = ((const Copied *)b)->sino;
        return x < y ? -1 : x > y;
}

static void *copied;

static int restore_tree(int sdir, int dir, const char *path, unsigned depth) {
        int r;
        if (depth > 256)
                return -ELOOP;
        _cleanup_closedir_ DIR *dp = NULL;
        int k = dir_open(sdir, &dp);
        if (k < 0)
                return k;
        struct dirent *de;
        while ((de = dir_next(dp))) {
                struct stat st;
                char sub[PATH_MAX];
                if (fstatat(dirfd(dp), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        return -errno;
                snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "/" : "", de->d_name);
                if (S_ISDIR(st.st_mode)) {
                        if (mkdirat(dir, de->d_name, 0700) < 0)
                                return -errno;
                        _cleanup_close_ int child =
                            openat(dir, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        _cleanup_close_ int schild =
                            openat(dirfd(dp), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        if (child < 0 || schild < 0)
                                return -errno;
                        if ((r = restore_tree(schild, child, sub, depth + 1)) < 0)
                                return r;
                        copy_meta(child, &st);
                        struct timespec ts[2] = {st.st_atim, st.st_mtim};
                        (void)futimens(child, ts);
                        continue;
                }
                Copied key = {.sino = st.st_ino}, **seen = tfind(&key, &copied, cmp_copied);
                if (seen) {
                        if (linkat(backing_fd, (*seen)->path, dir, de->d_name, 0) < 0)
                                return -errno;
                        continue;
                }
                if ((r = clone_object(dirfd(dp), de->d_name, &st, dir, de->d_name, true, NULL)) < 0)
                        return r;
                Copied *c = calloc(1, sizeof(Copied));
                if (!c || !(c->path = strdup(sub)))
                        return -ENOMEM;
                c->sino = st.st_ino;
                (void)tsearch(c, &copied, cmp_copied);
        }
        return errno > 0 ? -errno : 0;
}

/* ---- making things durable ---- */

static const char *rel(const char *path) {
        return path[1] ? path + 1 : ".";
}

static int dir_of(const char *path, char *buf, size_t size, const char **ret_name) {
        const char *slash = strrchr(path, '/');
        if (!slash || slash == path)
                snprintf(buf, size, ".");
        else
                snprintf(buf, size, "%.*s", (int)(slash - path - 1), path + 1);
        *ret_name = slash ? slash + 1 : path;
        return 0;
}

static int ensure_read_fd(Node *n, int fd) {
        char p[64];
        if (n->read_fd >= 0)
                return 0;
        snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
        n->read_fd = open(p, O_RDONLY | O_CLOEXEC);
        return n->read_fd < 0 ? -errno : 0;
}

static void range_remove(Node *n, uint64_t start, uint64_t end) {
        for (size_t i = 0; i < n->n_dirty && start < end;) {
                Range *r = &n->dirty[i];
                if (r->end <= start || r->start >= end) {
                        i++;
                        continue;
                }
                if (r->start < start && r->end > end) { /* split */
                        Range tail = {end, r->end};
                        r->end = start;
                        range_add(n, tail.start, tail.end);
                        return;
                }
                if (r->start < start)
                        r->end = start;
                else if (r->end > end)
                        r->start = end;
                else {
                        memmove(r, r + 1, (n->n_dirty - i - 1) * sizeof(Range));
                        n->n_dirty--;
                        continue;
                }
                i++;
        }
}

static int open_stored(const Node *n) {
        char sname[32];
        snprintf(sname, sizeof(sname), "%ju", (uintmax_t)n->ino);
        int fd = openat(store_fd, sname, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
        return fd < 0 ? -errno : fd;
}

/* Makes [start, end) of the file n durable (all of its unsynced data when end is UINT64_MAX, and
 * then its size, mode and owner too). fd: a backing fd of it. */
static int sync_file(Node *n, int fd, uint64_t start, uint64_t end) {
        struct stat st;
        int r;

        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return 0;
        if (!n->stored && (r = store_create(n, -1, NULL, &st, false)) < 0)
                return r;
        _cleanup_close_ int sfd = open_stored(n);
        if (sfd < 0)
                return sfd;
        bool all = end == UINT64_MAX;
        if (n->n_dirty > 0 && (r = ensure_read_fd(n, fd)) < 0)
                return r;
        for (size_t i = 0; i < n->n_dirty; i++) {
                uint64_t a = MAX(n->dirty[i].start, start), b = MIN(n->dirty[i].end, end);
                b = MIN(b, (uint64_t)st.st_size);
                if (a < b && (r = copy_range(n->read_fd, sfd, a, b)) < 0)
                        return r;
        }
        if (all) {
                if (ftruncate(sfd, st.st_size) < 0)
                        return -errno;
                copy_meta(sfd, &st);
                n->n_dirty = 0;
                n->has_last = false;
                n->read_fd = safe_close(n->read_fd);
                return 0;
        }
        struct stat sst;
        if (fstat(sfd, &sst) < 0)
                return -errno;
        uint64_t top = MIN(end, (uint64_t)st.st_size);
        if ((uint64_t)sst.st_size < top && ftruncate(sfd, (off_t)top) < 0)
                return -errno;
        range_remove(n, start, end);
        if (n->has_last && n->last_off >= start && n->last_off + n->last_len <= end)
                n->has_last = false;
        return 0;
}

static int dir_note(const char *path, const char *fmt, ...) _printf_(2, 3);

/* Notes a name operation in the directory that holds path: lost unless that directory is fsynced. */
static int dir_note(const char *path, const char *fmt, ...) {
        char dir[PATH_MAX], *text = NULL;
        const char *name;
        struct stat st;
        va_list ap;

        dir_of(path, dir, sizeof(dir), &name);
        if (fstatat(backing_fd, dir, &st, 0) < 0)
                return -errno;
        Node *d = node_get(st.st_ino, st.st_mode, dir);
        if (!d)
                return -ENOMEM;
        va_start(ap, fmt);
        int k = vasprintf(&text, fmt, ap);
        va_end(ap);
        if (k < 0)
                return -ENOMEM;
        char **ops = realloc(d->ops, (d->n_ops + 1) * sizeof(char *));
        if (!ops) {
                free(text);
                return -ENOMEM;
        }
        d->ops = ops;
        d->ops[d->n_ops++] = text;
        return 0;
}

/* Where the O_PATH fd fd is, for a rename from there. */
static int fd_path(int fd, char *buf, size_t size) {
        char p[64];
        snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
        ssize_t k = readlink(p, buf, size - 1);
        if (k < 0)
                return -errno;
        buf[k] = 0;
        return 0;
}

/* Makes the names in the backing directory dpath (node d) durable: the shadow's directory gets
 * exactly its entries, each the shadow of the same backing inode. */
static int sync_dir(Node *d, const char *dpath) {
        char sname[40], where[PATH_MAX];
        int r;

        _cleanup_close_ int bd = openat(backing_fd, dpath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (bd < 0)
                return -errno;
        if (d->sdir_fd < 0) {
                /* Not reachable in the shadow yet (its own name is not durable): it waits in the store. */
                snprintf(sname, sizeof(sname), "d%ju", (uintmax_t)d->ino);
                if (mkdirat(store_fd, sname, 0700) < 0 && errno != EEXIST)
                        return -errno;
                if ((r = open_sdir(d, store_fd, sname)) < 0)
                        return r;
        }
        _cleanup_closedir_ DIR *sdp = NULL;
        r = dir_open(d->sdir_fd, &sdp);
        if (r < 0)
                return r;
        int sd = dirfd(sdp);
        struct dirent *de;
        /* What the shadow names that the backing directory does not (or names as another inode). */
        while ((de = dir_next(sdp))) {
                struct stat sst, bst;
                if (fstatat(sd, de->d_name, &sst, AT_SYMLINK_NOFOLLOW) < 0)
                        return -errno;
                Node *n = node_find_sino(sst.st_ino);
                if (n && fstatat(bd, de->d_name, &bst, AT_SYMLINK_NOFOLLOW) == 0 && bst.st_ino == n->ino)
                        continue;
                if (!S_ISDIR(sst.st_mode)) {
                        if (unlinkat(sd, de->d_name, 0) < 0)
                                return -errno;
                        continue;
                }
                if (n) {
                        /* Renamed away or removed: it waits in the store, in case a name comes back to it.
                         */
                        snprintf(sname, sizeof(sname), "d%ju", (uintmax_t)n->ino);
                        if (renameat(sd, de->d_name, store_fd, sname) < 0)
                                return -errno;
                        continue;
                }
                _cleanup_close_ int gone =
                    openat(sd, de->d_name, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
                if (gone < 0 || empty_dir(gone, 0) < 0 || unlinkat(sd, de->d_name, AT_REMOVEDIR) < 0)
                        return -errno;
        }
        if (errno > 0)
                return -errno;

        _cleanup_closedir_ DIR *bdp = NULL;
        r = dir_open(bd, &bdp);
        if (r < 0)
                return r;
        while ((de = dir_next(bdp))) {
                struct stat bst, sst;
                char sub[PATH_MAX];
                if (fstatat(sd, de->d_name, &sst, AT_SYMLINK_NOFOLLOW) == 0)
                        continue; /* the same inode (the first pass left only those) */
                if (fstatat(bd, de->d_name, &bst, AT_SYMLINK_NOFOLLOW) < 0) {
                        if (errno == ENOENT)
                                continue;
                        return -errno;
                }
                snprintf(sub, sizeof(sub), "%s%s%s", streq(dpath, ".") ? "" : dpath,
                         streq(dpath, ".") ? "" : "/", de->d_name);
                Node *n = node_get(bst.st_ino, bst.st_mode, sub);
                if (!n)
                        return -ENOMEM;
                if (S_ISDIR(bst.st_mode)) {
                        if (n->sdir_fd >= 0) {
                                if ((r = fd_path(n->sdir_fd, where, sizeof(where))) < 0)
                                        return r;
                                if (renameat(AT_FDCWD, where, sd, de->d_name) < 0)
                                        return -errno;
                        } else {
                                if (mkdirat(sd, de->d_name, 0700) < 0)
                                        return -errno;
                                if ((r = open_sdir(n, sd, de->d_name)) < 0)
                                        return r;
                        }
                        _cleanup_close_ int m = openat(sd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        if (m >= 0)
                                copy_meta(m, &bst);
                        continue;
                }
                /* A name for an inode whose data were never fsynced: the data are not durable either. */
                if (!n->stored && (r = store_create(n, bd, de->d_name, &bst, false)) < 0)
                        return r;
                if ((r = link_stored(n, sd, de->d_name)) < 0)
                        return r;
        }
        if (errno > 0)
                return -errno;
        for (size_t i = 0; i < d->n_ops; i++)
                free(d->ops[i]);
        d->n_ops = 0;
        return 0;
}

/* ---- the file system ---- */

typedef struct Handle {
        int fd;
        Node *node;
        int flags;
        DIR *dir; /* a directory's */
} Handle;

static Handle *handle(const struct fuse_file_info *fi) {
        return (Handle *)(uintptr_t)fi->fh;
}

/* The caller's owner for what it creates, as the kernel would have made it (a directory with the
 * set-group-ID bit passes its group on). Only root can give files away; others create their own. */
static void own(const char *path) {
        struct fuse_context *c = fuse_get_context();
        char dir[PATH_MAX];
        const char *name;
        struct stat pst;

        if (!is_root)
                return;
        gid_t gid = c->gid;
        dir_of(path, dir, sizeof(dir), &name);
        if (fstatat(backing_fd, dir, &pst, 0) == 0 && (pst.st_mode & S_ISGID))
                gid = pst.st_gid;
        (void)!fchownat(backing_fd, rel(path), c->uid, gid, AT_SYMLINK_NOFOLLOW);
}

/* A name now stands for a new inode: whatever the layer knew by its number is another one. */
static Node *created(const char *path, const char *what) {
        struct stat st;
        const char *name = strrchr(path, '/') + 1;

        own(path);
        if (fstatat(backing_fd, rel(path), &st, AT_SYMLINK_NOFOLLOW) < 0)
                return NULL;
        node_forget(st.st_ino);
        (void)dir_note(path, "%s %s", what, name);
        return node_get(st.st_ino, st.st_mode, rel(path));
}

static int pf_getattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
        if (fi && fi->fh)
                return fstat(handle(fi)->fd, st) < 0 ? -errno : 0;
        return fstatat(backing_fd, rel(path), st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

static int pf_readlink(const char *path, char *buf, size_t size) {
        ssize_t k = readlinkat(backing_fd, rel(path), buf, size - 1);
        if (k < 0)
                return -errno;
        buf[k] = 0;
        return 0;
}

static int pf_mknod(const char *path, mode_t mode, dev_t rdev) {
        if (mknodat(backing_fd, rel(path), mode, rdev) < 0)
                return -errno;
        (void)created(path, "mknod");
        return 0;
}

static int pf_mkdir(const char *path, mode_t mode) {
        if (mkdirat(backing_fd, rel(path), mode) < 0)
                return -errno;
        (void)created(path, "mkdir");
        return 0;
}

static int pf_unlink(const char *path) {
        if (unlinkat(backing_fd, rel(path), 0) < 0)
                return -errno;
        (void)dir_note(path, "unlink %s", strrchr(path, '/') + 1);
        return 0;
}

static int pf_rmdir(const char *path) {
        if (unlinkat(backing_fd, rel(path), AT_REMOVEDIR) < 0)
                return -errno;
        (void)dir_note(path, "rmdir %s", strrchr(path, '/') + 1);
        return 0;
}

static int pf_symlink(const char *target, const char *path) {
        if (symlinkat(target, backing_fd, rel(path)) < 0)
                return -errno;
        (void)created(path, "symlink");
        return 0;
}

static int pf_rename(const char *from, const char *to, unsigned flags) {
        struct stat st;
        if (renameat2(backing_fd, rel(from), backing_fd, rel(to), flags) < 0)
                return -errno;
        (void)dir_note(from, "rename %s -> %s", from + 1, to + 1);
        char a[PATH_MAX], b[PATH_MAX];
        const char *n;
        dir_of(from, a, sizeof(a), &n);
        dir_of(to, b, sizeof(b), &n);
        if (!streq(a, b))
                (void)dir_note(to, "rename %s -> %s", from + 1, to + 1);
        if (fstatat(backing_fd, rel(to), &st, AT_SYMLINK_NOFOLLOW) == 0) {
                Node *x = node_find(st.st_ino);
                if (x)
                        node_set_path(x, rel(to));
        }
        return 0;
}

static int pf_link(const char *from, const char *to) {
        if (linkat(backing_fd, rel(from), backing_fd, rel(to), 0) < 0)
                return -errno;
        (void)dir_note(to, "link %s (to %s)", strrchr(to, '/') + 1, from + 1);
        return 0;
}

static int pf_chmod(const char *path, mode_t mode, struct fuse_file_info *fi) {
        if (fi && fi->fh)
                return fchmod(handle(fi)->fd, mode) < 0 ? -errno : 0;
        return fchmodat(backing_fd, rel(path), mode, 0) < 0 ? -errno : 0;
}

static int pf_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi) {
        if (fi && fi->fh)
                return fchown(handle(fi)->fd, uid, gid) < 0 ? -errno : 0;
        return fchownat(backing_fd, rel(path), uid, gid, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

/* The bytes between the old and the new size are changed data: lost unless fsynced. */
static int resized(Node *n, int fd, uint64_t old, uint64_t new) {
        if (old == new)
                return 0;
        range_add(n, MIN(old, new), MAX(old, new));
        return ensure_read_fd(n, fd);
}

static int pf_truncate(const char *path, off_t size, struct fuse_file_info *fi) {
        struct stat st;
        _cleanup_close_ int own_fd = -EBADF;
        int fd;

        if (fi && fi->fh)
                fd = handle(fi)->fd;
        else {
                own_fd = openat(backing_fd, rel(path), O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
                if (own_fd < 0)
                        return -errno;
                fd = own_fd;
        }
        if (fstat(fd, &st) < 0)
                return -errno;
        if (ftruncate(fd, size) < 0)
                return -errno;
        Node *n = node_get(st.st_ino, st.st_mode, rel(path));
        if (!n)
                return -ENOMEM;
        (void)resized(n, fd, (uint64_t)st.st_size, (uint64_t)size);
        return 0;
}

static int pf_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi) {
        if (fi && fi->fh)
                return futimens(handle(fi)->fd, tv) < 0 ? -errno : 0;
        return utimensat(backing_fd, rel(path), tv, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

static int open_common(const char *path, struct fuse_file_info *fi, bool create, mode_t mode) {
        struct stat st;
        /* The kernel gives the offsets of appends; an O_APPEND fd here would ignore them. */
        int flags = (fi->flags & ~(O_NOCTTY | O_APPEND)) | O_CLOEXEC;
        bool existed = true;
        uint64_t old_size = 0;

        if (fstatat(backing_fd, rel(path), &st, AT_SYMLINK_NOFOLLOW) == 0)
                old_size = (uint64_t)st.st_size;
        else
                existed = false;
        int fd = create ? openat(backing_fd, rel(path), flags | O_CREAT, mode)
                        : openat(backing_fd, rel(path), flags);
        if (fd < 0)
                return -errno;
        Handle *h = calloc(1, sizeof(Handle));
        if (!h) {
                close(fd);
                return -ENOMEM;
        }
        h->fd = fd;
        h->flags = fi->flags;
        if (create && !existed)
                h->node = created(path, "create");
        if (!h->node && fstat(fd, &st) == 0)
                h->node = node_get(st.st_ino, st.st_mode, rel(path));
        if (!h->node) {
                close(fd);
                free(h);
                return -ENOMEM;
        }
        if (existed && (fi->flags & O_TRUNC))
                (void)resized(h->node, fd, old_size, 0);
        fi->fh = (uintptr_t)h;
        fi->keep_cache = 1; /* nothing but this layer changes the files beneath it */
        return 0;
}

static int pf_open(const char *path, struct fuse_file_info *fi) {
        return open_common(path, fi, false, 0);
}

static int pf_create(const char *path, mode_t mode, struct fuse_file_info *fi) {
        return open_common(path, fi, true, mode);
}

static int pf_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi) {
        ssize_t k = pread(handle(fi)->fd, buf, size, off);
        return k < 0 ? -errno : (int)k;
}

static int pf_write(const char *path, const char *buf, size_t size, off_t off, struct fuse_file_info *fi) {
        Handle *h = handle(fi);
        ssize_t k = pwrite(h->fd, buf, size, off);
        if (k < 0)
                return -errno;
        Node *n = h->node;
        range_add(n, (uint64_t)off, (uint64_t)off + (uint64_t)k);
        n->last_off = (uint64_t)off;
        n->last_len = (uint64_t)k;
        n->has_last = true;
        /* The data are written: a file this layer cannot read back (an ordinary user's write-only
         * file) fails its fsync later, not this write. */
        int r = ensure_read_fd(n, h->fd);
        if (r < 0)
                fprintf(stderr, "svd-powerfs: %s: cannot read it back for an fsync: %s\n", path,
                        strerror(-r));
        /* O_SYNC and O_DSYNC (O_SYNC holds O_DSYNC's bit): durable when write() returns. */
        if ((h->flags & O_DSYNC) &&
            (r = sync_file(n, h->fd, (uint64_t)off, (uint64_t)off + (uint64_t)k)) < 0)
                return r;
        return (int)k;
}

static int pf_statfs(const char *path, struct statvfs *st) {
        return fstatvfs(backing_fd, st) < 0 ? -errno : 0;
}

static int pf_release(const char *path, struct fuse_file_info *fi) {
        Handle *h = handle(fi);
        safe_close(h->fd);
        free(h);
        return 0;
}

static int pf_fsync(const char *path, int datasync, struct fuse_file_info *fi) {
        Handle *h = handle(fi);
        int r = sync_file(h->node, h->fd, 0, UINT64_MAX);
        if (r < 0)
                fprintf(stderr, "svd-powerfs: fsync of %s: %s\n", path, strerror(-r));
        return r < 0 ? -EIO : 0;
}

static int pf_fallocate(const char *path, int mode, off_t off, off_t len, struct fuse_file_info *fi) {
        Handle *h = handle(fi);
        struct stat st;
        if (fstat(h->fd, &st) < 0)
                return -errno;
        if (fallocate(h->fd, mode, off, len) < 0)
                return -errno;
        range_add(h->node, (uint64_t)off, (uint64_t)(off + len));
        (void)ensure_read_fd(h->node, h->fd); /* as for a write: a failure shows at the fsync */
        return 0;
}

static int pf_opendir(const char *path, struct fuse_file_info *fi) {
        struct stat st;
        int fd = openat(backing_fd, rel(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        Handle *h = calloc(1, sizeof(Handle));
        if (!h || fstat(fd, &st) < 0 || !(h->node = node_get(st.st_ino, st.st_mode, rel(path))) ||
            !(h->dir = fdopendir(fd))) {
                int r = h ? -errno : -ENOMEM;
                close(fd);
                free(h);
                return r ? r : -ENOMEM;
        }
        h->fd = dirfd(h->dir);
        fi->fh = (uintptr_t)h;
        return 0;
}

static int pf_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t off,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags) {
        Handle *h = handle(fi);
        struct dirent *de;

        seekdir(h->dir, off);
        while ((errno = 0, de = readdir(h->dir))) {
                struct stat st = {.st_ino = de->d_ino, .st_mode = (mode_t)DTTOIF(de->d_type)};
                if (filler(buf, de->d_name, &st, telldir(h->dir), 0))
                        break;
        }
        return errno > 0 ? -errno : 0;
}

static int pf_releasedir(const char *path, struct fuse_file_info *fi) {
        Handle *h = handle(fi);
        closedir(h->dir);
        free(h);
        return 0;
}

static int pf_fsyncdir(const char *path, int datasync, struct fuse_file_info *fi) {
        Handle *h = handle(fi);
        int r = sync_dir(h->node, rel(path));
        if (r < 0)
                fprintf(stderr, "svd-powerfs: fsync of directory %s: %s\n", path, strerror(-r));
        return r < 0 ? -EIO : 0;
}

static void *pf_init(struct fuse_conn_info *conn, struct fuse_config *cfg) {
        cfg->use_ino = 1;
        cfg->kernel_cache = 1;
        cfg->entry_timeout = cfg->attr_timeout = cfg->negative_timeout = 1.0;
        return NULL;
}

static const struct fuse_operations ops = {
    .init = pf_init,
    .getattr = pf_getattr,
    .readlink = pf_readlink,
    .mknod = pf_mknod,
    .mkdir = pf_mkdir,
    .unlink = pf_unlink,
    .rmdir = pf_rmdir,
    .symlink = pf_symlink,
    .rename = pf_rename,
    .link = pf_link,
    .chmod = pf_chmod,
    .chown = pf_chown,
    .truncate = pf_truncate,
    .utimens = pf_utimens,
    .open = pf_open,
    .create = pf_create,
    .read = pf_read,
    .write = pf_write,
    .statfs = pf_statfs,
    .release = pf_release,
    .fsync = pf_fsync,
    .fallocate = pf_fallocate,
    .opendir = pf_opendir,
    .readdir = pf_readdir,
    .releasedir = pf_releasedir,
    .fsyncdir = pf_fsyncdir,
};

/* ---- the cut ---- */

static uint64_t splitmix(uint64_t *x) {
        uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
}

/* --torn: of the last unsynced write of a durable file, a prefix that ends at a block boundary
 * inside it (none when it lies within one block) reaches the disk. Returns the bytes kept. */
static uint64_t tear(Node *n, uint64_t *rng) {
        if (!n->has_last || !n->stored || n->read_fd < 0 || n->last_len == 0)
                return 0;
        uint64_t first = (n->last_off / BLOCK_SIZE + 1) * BLOCK_SIZE, end = n->last_off + n->last_len;
        if (first >= end)
                return 0;
        uint64_t boundaries = (end - 1 - first) / BLOCK_SIZE + 1;
        uint64_t cut = first + splitmix(rng) % boundaries * BLOCK_SIZE;
        _cleanup_close_ int sfd = open_stored(n);
        struct stat sst;
        if (sfd < 0 || fstat(sfd, &sst) < 0 || copy_range(n->read_fd, sfd, n->last_off, cut) < 0)
                return 0;
        if ((uint64_t)sst.st_size < cut && ftruncate(sfd, (off_t)cut) < 0)
                return 0;
        return cut - n->last_off;
}

typedef struct Dropped {
        uint64_t bytes;
        size_t files, names, torn;
} Dropped;

/* Writes what the cut drops to f, and counts it. */
static void account(FILE *f, Dropped *d) {
        uint64_t rng = arg_seed;
        for (Node *n = all_nodes; n; n = n->next) {
                if (n->n_dirty > 0) {
                        uint64_t b = ranges_bytes(n);
                        d->bytes += b;
                        d->files++;
                        fprintf(f, "data %s: %" PRIu64 " byte(s) written and never made durable:",
                                strna(n->path), b);
                        for (size_t i = 0; i < n->n_dirty && i < 16; i++)
                                fprintf(f, " [%" PRIu64 ",%" PRIu64 ")", n->dirty[i].start, n->dirty[i].end);
                        fprintf(f, "%s\n", n->n_dirty > 16 ? " ..." : "");
                        if (arg_torn) {
                                uint64_t kept = tear(n, &rng);
                                if (kept > 0) {
                                        d->torn++;
                                        fprintf(f,
                                                "torn %s: %" PRIu64 " of the %" PRIu64
                                                " byte(s) of its last write at %" PRIu64
                                                " reached the disk\n",
                                                strna(n->path), kept, n->last_len, n->last_off);
                                }
                        }
                }
                for (size_t i = 0; i < n->n_ops; i++) {
                        d->names++;
                        fprintf(f, "name %s: %s (the directory was not fsynced)\n",
                                streq(strna(n->path), "") ? "." : strna(n->path), n->ops[i]);
                }
        }
}

/* After the unmount: the data directory becomes what the shadow's tree holds. */
static int cut(Dropped *d) {
        FILE *f = arg_log ? fopen(arg_log, "we") : NULL;
        if (arg_log && !f)
                fprintf(stderr, "svd-powerfs: %s: %m\n", arg_log);
        account(f ? f : stderr, d);
        if (f)
                fclose(f);
        int r = empty_dir(backing_fd, 0);
        if (r < 0) {
                fprintf(stderr, "svd-powerfs: emptying the data directory: %s\n", strerror(-r));
                return r;
        }
        _cleanup_close_ int t = openat(tree_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (t < 0)
                return -errno;
        r = restore_tree(t, backing_fd, "", 0);
        if (r < 0)
                fprintf(stderr, "svd-powerfs: restoring the durable state: %s\n", strerror(-r));
        return r;
}

/* ---- main ---- */

static struct fuse_session *session;

static void on_cut(int sig) {
        cut_requested = 1;
        arg_torn = sig == SIGUSR2;
        if (session)
                fuse_session_exit(session);
}

static void help(void) {
        printf("svd-powerfs [--seed N] [--log FILE] DATA SHADOW\n\n"
               "Mounts a layer over the directory DATA that keeps, in SHADOW (made anew), what\n"
               "a power cut would leave of it. Prints 'ready' once mounted. SIGUSR1 cuts the power:\n"
               "unmount, DATA becomes what was durable, the dropped operations go to the log, one\n"
               "summary line to stdout. SIGUSR2: the same, and a prefix of each durable file's last\n"
               "unsynced write survives, up to a block boundary inside it. SIGTERM, SIGINT, SIGHUP:\n"
               "unmount and keep everything.\n\n"
               "  --seed N    seed of the torn writes' cut points (default 1)\n"
               "  --log FILE  what the cut dropped (default: stderr)\n");
}

static int prepare_shadow(const char *shadow) {
        if (mkdir(shadow, 0700) < 0 && errno != EEXIST)
                return -errno;
        _cleanup_close_ int s = open(shadow, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (s < 0)
                return -errno;
        int r = empty_dir(s, 0);
        if (r < 0)
                return r;
        if (mkdirat(s, "tree", 0700) < 0 || mkdirat(s, "store", 0700) < 0)
                return -errno;
        store_fd = openat(s, "store", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (store_fd < 0)
                return -errno;
        struct stat st;
        if (fstat(backing_fd, &st) < 0)
                return -errno;
        Node *root = node_get(st.st_ino, st.st_mode, "");
        if (!root)
                return -ENOMEM;
        if ((r = open_sdir(root, s, "tree")) < 0)
                return r;
        tree_fd = root->sdir_fd;
        return mirror(backing_fd, tree_fd, "", 0);
}

int main(int argc, char *argv[]) {
        static const struct option options[] = {
            {"help", no_argument, NULL, 'h'},
            {"seed", required_argument, NULL, 's'},
            {"log", required_argument, NULL, 'l'},
            {},
        };
        int c, r;

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case 's': {
                        char *end;
                        errno = 0;
                        arg_seed = strtoull(optarg, &end, 10);
                        if (errno || *end || !*optarg) {
                                fprintf(stderr, "svd-powerfs: --seed '%s': not a number\n", optarg);
                                return 2;
                        }
                        break;
                }
                case 'l':
                        arg_log = optarg;
                        break;
                default:
                        return 2;
                }
        if (argc - optind != 2) {
                fprintf(stderr, "svd-powerfs: expected DATA and SHADOW (--help)\n");
                return 2;
        }
        const char *data = argv[optind], *shadow = argv[optind + 1];
        is_root = geteuid() == 0;
        umask(0);

        backing_fd = open(data, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (backing_fd < 0) {
                fprintf(stderr, "svd-powerfs: %s: %m\n", data);
                return 1;
        }
        r = prepare_shadow(shadow);
        if (r < 0) {
                fprintf(stderr, "svd-powerfs: copying %s into %s: %s\n", data, shadow, strerror(-r));
                return 1;
        }

        char opts[160];
        snprintf(opts, sizeof(opts), "default_permissions,fsname=svd-powerfs,subtype=powerfs%s",
                 is_root ? ",allow_other" : "");
        char *fargv[] = {argv[0], "-o", opts, NULL};
        struct fuse_args args = FUSE_ARGS_INIT(3, fargv);
        fuse_instance = fuse_new(&args, &ops, sizeof(ops), NULL);
        if (!fuse_instance)
                return 1;
        if (fuse_mount(fuse_instance, data) < 0) {
                fprintf(stderr, "svd-powerfs: cannot mount over %s\n", data);
                return 1;
        }
        session = fuse_get_session(fuse_instance);
        if (fuse_set_signal_handlers(session) < 0)
                return 1;
        struct sigaction sa = {.sa_handler = on_cut};
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGUSR1, &sa, NULL) < 0 || sigaction(SIGUSR2, &sa, NULL) < 0)
                return 1;
        printf("ready\n");
        fflush(stdout);

        r = fuse_loop(fuse_instance);
        fuse_remove_signal_handlers(session);
        fuse_unmount(fuse_instance);
        if (cut_requested) {
                Dropped d = {};
                r = cut(&d);
                printf("cut dropped-bytes=%" PRIu64 " dropped-files=%zu dropped-names=%zu torn=%zu%s\n",
                       d.bytes, d.files, d.names, d.torn, r < 0 ? " failed" : "");
                fflush(stdout);
                int s = open(shadow, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (s >= 0) {
                        (void)empty_dir(s, 0);
                        close(s);
                        (void)rmdir(shadow);
                }
        }
        fuse_destroy(fuse_instance);
        return r < 0 ? 1 : 0;
}
