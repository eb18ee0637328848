/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RuntimeDirectory=, StateDirectory=, CacheDirectory=, LogsDirectory=, ConfigurationDirectory=
 * (systemd.exec(5)): svd creates them before each start, below /run, /var/lib, /var/cache,
 * /var/log and /etc (a svd that is not root: below $XDG_RUNTIME_DIR, $XDG_STATE_HOME,
 * $XDG_CACHE_HOME, $XDG_STATE_HOME/log and $XDG_CONFIG_HOME, with systemd's defaults under
 * $HOME), with their *Mode= (default 0755) and, but for ConfigurationDirectory=, owned by
 * User=/Group=; missing parents are made 0755 and keep their owner. The service gets their
 * paths in $RUNTIME_DIRECTORY and the others, colon-separated. The runtime directories go when the
 * service's processes are gone, unless RuntimeDirectoryPreserve= keeps them (yes: always;
 * restart: until the service stops for good).
 *
 * The last element is opened with O_NOFOLLOW and changed through the fd: a service user who
 * replaced its own directory with a symbolic link between two starts cannot make svd chown or
 * chmod what the link points to. The removal does not follow symbolic links either.
 *
 * DynamicUser= (systemd.exec(5)): StateDirectory=, CacheDirectory= and LogsDirectory= live in
 * BASE/private/NAME, BASE/private being root's and mode 0700, and BASE/NAME is a symbolic link to
 * it ($STATE_DIRECTORY and the others name the link). A uid given back may go to another unit;
 * that one cannot reach into the directories of the first through the closed BASE/private, while
 * the service itself sees its own through the mounts service-sandbox.c adds (an empty BASE/private
 * with its directories alone bound into it). A directory that a run with another uid left behind is
 * given to the new uid, with all it holds. A plain directory BASE/NAME from before DynamicUser= was
 * set moves into BASE/private.
 */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/env-util.h"
#include "basic/strv.h"
#include "dynamic-user.h"
#include "service-dirs.h"
#include "svd-log.h"

static const char *const exec_directory_env[_EXEC_DIRECTORY_TYPE_MAX] = {
        [EXEC_DIRECTORY_RUNTIME] = "RUNTIME_DIRECTORY",
        [EXEC_DIRECTORY_STATE] = "STATE_DIRECTORY",
        [EXEC_DIRECTORY_CACHE] = "CACHE_DIRECTORY",
        [EXEC_DIRECTORY_LOGS] = "LOGS_DIRECTORY",
        [EXEC_DIRECTORY_CONFIGURATION] = "CONFIGURATION_DIRECTORY",
};

static const char *const exec_directory_key[_EXEC_DIRECTORY_TYPE_MAX] = {
        [EXEC_DIRECTORY_RUNTIME] = "RuntimeDirectory=",
        [EXEC_DIRECTORY_STATE] = "StateDirectory=",
        [EXEC_DIRECTORY_CACHE] = "CacheDirectory=",
        [EXEC_DIRECTORY_LOGS] = "LogsDirectory=",
        [EXEC_DIRECTORY_CONFIGURATION] = "ConfigurationDirectory=",
};

/* The directory below which the directories of type t go. */
int service_dirs_base(ExecDirectoryType t, char **ret) {
        static const char *const system[_EXEC_DIRECTORY_TYPE_MAX] = { "/run", "/var/lib", "/var/cache", "/var/log",
                                                                      "/etc" };
        const char *v = NULL, *home = getenv("HOME");
        char *b = NULL;

        if (getuid() == 0) {
                b = strdup(system[t]);
                return b ? (*ret = b, 0) : -ENOMEM;
        }
        switch (t) {
        case EXEC_DIRECTORY_RUNTIME:
                v = getenv("XDG_RUNTIME_DIR");
                if (!v || v[0] != '/')
                        return -ENXIO;
                b = strdup(v);
                break;
        case EXEC_DIRECTORY_STATE:
        case EXEC_DIRECTORY_LOGS:
                v = getenv("XDG_STATE_HOME");
                if (v && v[0] == '/')
                        b = strdup(v);
                else if (home && home[0] == '/' && asprintf(&b, "%s/.local/state", home) < 0)
                        b = NULL;
                else if (!home || home[0] != '/')
                        return -ENXIO;
                if (b && t == EXEC_DIRECTORY_LOGS) {
                        char *l = NULL;
                        if (asprintf(&l, "%s/log", b) < 0)
                                l = NULL;
                        free(b);
                        b = l;
                }
                break;
        case EXEC_DIRECTORY_CACHE:
                v = getenv("XDG_CACHE_HOME");
                if (v && v[0] == '/')
                        b = strdup(v);
                else if (home && home[0] == '/' && asprintf(&b, "%s/.cache", home) < 0)
                        b = NULL;
                else if (!home || home[0] != '/')
                        return -ENXIO;
                break;
        case EXEC_DIRECTORY_CONFIGURATION:
                v = getenv("XDG_CONFIG_HOME");
                if (v && v[0] == '/')
                        b = strdup(v);
                else if (home && home[0] == '/' && asprintf(&b, "%s/.config", home) < 0)
                        b = NULL;
                else if (!home || home[0] != '/')
                        return -ENXIO;
                break;
        default:
                return -EINVAL;
        }
        if (!b)
                return -ENOMEM;
        *ret = b;
        return 0;
}

/* mkdir -p of path's parents, mode 0755. */
static int mkdir_parents(const char *path) {
        _cleanup_free_ char *p = strdup(path);
        if (!p)
                return -ENOMEM;
        for (char *slash = strchr(p + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
                *slash = 0;
                if (mkdir(p, 0755) < 0 && errno != EEXIST)
                        return -errno;
                *slash = '/';
        }
        return 0;
}

static int exec_directory_make(const char *path, mode_t mode, bool chown_it, uid_t uid, gid_t gid) {
        int r = mkdir_parents(path);
        if (r < 0)
                return r;
        if (mkdir(path, mode) < 0 && errno != EEXIST)
                return -errno;
        _cleanup_close_ int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return errno == ELOOP ? -ENOTDIR : -errno;
        if (chown_it && fchown(fd, uid, gid) < 0)
                return -errno;
        if (fchmod(fd, mode) < 0)
                return -errno;
        return 0;
}

/* Whether the directories of type t go below BASE/private (DynamicUser=). */
static bool exec_directory_private(const Service *s, ExecDirectoryType t) {
        return s->def->unit->dynamic_user && IN_SET(t, EXEC_DIRECTORY_STATE, EXEC_DIRECTORY_CACHE, EXEC_DIRECTORY_LOGS);
}

#define CHOWN_DEPTH_MAX 64 /* directory levels below a private directory that are walked */

/* What dfd holds, from the ids of an earlier run (from_uid, from_gid) to uid, gid; ids of others stay.
 * Follows no symbolic link and does not cross into another file system's mount. Takes dfd. */
static int chown_below(int dfd, dev_t dev, uid_t from_uid, gid_t from_gid, uid_t uid, gid_t gid, unsigned depth) {
        _cleanup_(closedirp) DIR *d = fdopendir(dfd);
        struct dirent *de;
        int r = 0;

        if (!d) {
                r = -errno;
                (void) close(dfd);
                return r;
        }
        while ((errno = 0, de = readdir(d))) {
                struct stat st;
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        return -errno;
                if (st.st_dev != dev)
                        continue;
                if (S_ISDIR(st.st_mode)) {
                        if (depth >= CHOWN_DEPTH_MAX)
                                return -ELOOP;
                        int sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                        if (sub < 0)
                                return -errno;
                        r = chown_below(sub, dev, from_uid, from_gid, uid, gid, depth + 1);
                        if (r < 0)
                                return r;
                }
                if (st.st_uid != from_uid && st.st_gid != from_gid)
                        continue;
                if (fchownat(dirfd(d), de->d_name, st.st_uid == from_uid ? uid : st.st_uid,
                             st.st_gid == from_gid ? gid : st.st_gid, AT_SYMLINK_NOFOLLOW) < 0)
                        return -errno;
        }
        return errno > 0 ? -errno : 0;
}

/* path (in BASE/private) with what is in it, from the ids of the run that made it to uid, gid: a
 * private directory belongs to its unit's uid of the moment. */
static int chown_tree(const char *path, uid_t uid, gid_t gid) {
        struct stat st;
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT ? 0 : errno == ELOOP ? -ENOTDIR : -errno;
        if (fstat(fd, &st) < 0) {
                int r = -errno;
                (void) close(fd);
                return r;
        }
        if (st.st_uid == uid && st.st_gid == gid) {
                (void) close(fd);
                return 0;
        }
        return chown_below(fd, st.st_dev, st.st_uid, st.st_gid, uid, gid, 0);
}

/* BASE/private for DynamicUser=: root's, mode 0700. */
static int private_base_make(const char *base) {
        _cleanup_free_ char *p = NULL;
        if (asprintf(&p, "%s/private", base) < 0)
                return -ENOMEM;
        int r = mkdir_parents(p);
        if (r < 0)
                return r;
        if (mkdir(p, 0700) < 0 && errno != EEXIST)
                return -errno;
        _cleanup_close_ int fd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return errno == ELOOP ? -ENOTDIR : -errno;
        if (fchown(fd, 0, 0) < 0 || fchmod(fd, 0700) < 0)
                return -errno;
        return 0;
}

/* BASE/NAME as a symbolic link to private/NAME (with a "../" for each '/' in NAME); a directory there
 * moves to BASE/private/NAME first, unless that exists. */
static int private_link_make(const char *base, const char *name) {
        _cleanup_free_ char *link = NULL, *target = NULL, *private = NULL;
        char buf[PATH_MAX];
        struct stat st;
        size_t up = 0;

        for (const char *c = name; *c; c++)
                up += *c == '/';
        if (asprintf(&link, "%s/%s", base, name) < 0 || asprintf(&private, "%s/private/%s", base, name) < 0)
                return -ENOMEM;
        target = malloc(up * 3 + strlen("private/") + strlen(name) + 1);
        if (!target)
                return -ENOMEM;
        char *t = target;
        for (size_t i = 0; i < up; i++)
                t = stpcpy(t, "../");
        (void) stpcpy(stpcpy(t, "private/"), name);

        if (lstat(link, &st) >= 0 && S_ISDIR(st.st_mode)) {
                int r = mkdir_parents(private);
                if (r < 0)
                        return r;
                if (rename(link, private) < 0)
                        return errno == EEXIST || errno == ENOTEMPTY ? -EEXIST : -errno;
        } else if (lstat(link, &st) >= 0) {
                ssize_t n = S_ISLNK(st.st_mode) ? readlink(link, buf, sizeof(buf) - 1) : -1;
                if (n >= 0 && (buf[n] = '\0', streq(buf, target)))
                        return 0;
                return -EEXIST; /* something else is there: not ours to replace */
        }
        int r = mkdir_parents(link);
        if (r < 0)
                return r;
        if (symlink(target, link) < 0 && errno != EEXIST)
                return -errno;
        return 0;
}

uid_t service_dirs_dynamic_hint(Service *s) {
        const Unit *u = s->def->unit;
        for (ExecDirectoryType t = 0; t < _EXEC_DIRECTORY_TYPE_MAX; t++) {
                _cleanup_free_ char *base = NULL;
                if (!exec_directory_private(s, t) || !u->exec_directories[t] || service_dirs_base(t, &base) < 0)
                        continue;
                for (char **d = u->exec_directories[t]; *d; d++) {
                        _cleanup_free_ char *path = NULL;
                        struct stat st;
                        if (asprintf(&path, "%s/private/%s", base, *d) < 0)
                                return (uid_t) -1;
                        if (lstat(path, &st) >= 0 && S_ISDIR(st.st_mode) && dynamic_uid_is_valid(st.st_uid))
                                return st.st_uid;
                }
        }
        return (uid_t) -1;
}

int service_dirs_paths(const Service *s, ExecDirectoryType t, char ***ret) {
        const Unit *u = s->def->unit;
        _cleanup_free_ char *base = NULL;
        size_t n = 0;

        *ret = NULL;
        if (!u || !u->exec_directories[t] || !u->exec_directories[t][0])
                return 0;
        int r = service_dirs_base(t, &base);
        if (r < 0)
                return r;
        while (u->exec_directories[t][n])
                n++;
        char **v = calloc(n + 1, sizeof(char *));
        if (!v)
                return -ENOMEM;
        bool private = exec_directory_private(s, t);
        for (size_t i = 0; i < n; i++)
                if (asprintf(&v[i], private ? "%s/private/%s" : "%s/%s", base, u->exec_directories[t][i]) < 0) {
                        v[i] = NULL;
                        strv_free(v);
                        return -ENOMEM;
                }
        *ret = v;
        return 0;
}

int service_dirs_prepare(Service *s, char ***env, char **ret_error) {
        const Unit *u = s->def->unit;

        for (ExecDirectoryType t = 0; t < _EXEC_DIRECTORY_TYPE_MAX; t++) {
                if (!u->exec_directories[t])
                        continue;
                _cleanup_free_ char *base = NULL, *value = NULL;
                int r = service_dirs_base(t, &base);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        if (asprintf(ret_error, "%s: no base directory for svd's user (set $XDG_RUNTIME_DIR or $HOME)",
                                     exec_directory_key[t]) < 0)
                                *ret_error = NULL;
                        return r;
                }
                bool private = exec_directory_private(s, t);
                if (private) {
                        r = private_base_make(base);
                        if (r < 0) {
                                if (asprintf(ret_error, "%s: Failed to set up '%s/private': %s", exec_directory_key[t],
                                             base, strerror(-r)) < 0)
                                        *ret_error = NULL;
                                return r;
                        }
                }
                for (char **d = u->exec_directories[t]; *d; d++) {
                        _cleanup_free_ char *path = NULL, *real = NULL;
                        if (asprintf(&path, "%s/%s", base, *d) < 0 ||
                            asprintf(&real, private ? "%s/private/%s" : "%s/%s", base, *d) < 0)
                                return -ENOMEM;
                        r = private ? private_link_make(base, *d) : 0;
                        if (r >= 0 && private)
                                r = chown_tree(real, s->def->creds.uid, s->def->creds.gid);
                        /* ConfigurationDirectory= stays the administrator's (systemd.exec(5)). */
                        if (r >= 0)
                                r = exec_directory_make(real, (mode_t) u->exec_directory_mode[t],
                                                        s->def->creds.set && t != EXEC_DIRECTORY_CONFIGURATION,
                                                        s->def->creds.uid, s->def->creds.gid);
                        if (r < 0) {
                                if (asprintf(ret_error, "%s: Failed to set up '%s': %s", exec_directory_key[t], path,
                                             strerror(-r)) < 0)
                                        *ret_error = NULL;
                                return r;
                        }
                        char *v = NULL;
                        if (asprintf(&v, "%s%s%s", value ? value : "", value ? ":" : "", path) < 0)
                                return -ENOMEM;
                        free(value);
                        value = v;
                }
                char *a = NULL;
                if (asprintf(&a, "%s=%s", exec_directory_env[t], value) < 0)
                        return -ENOMEM;
                r = strv_env_replace_consume(env, a);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        (void) st;
        (void) ftw;
        if ((flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT)
                log_debug_errno(errno, "Failed to remove '%s', ignoring: %m", path);
        return 0;
}

void service_dirs_remove_runtime(Service *s, bool for_good) {
        const Unit *u = s->def->unit;

        if (!u || !u->exec_directories[EXEC_DIRECTORY_RUNTIME] || u->runtime_directory_preserve == EXEC_PRESERVE_YES ||
            (u->runtime_directory_preserve == EXEC_PRESERVE_RESTART && !for_good))
                return;
        _cleanup_free_ char *base = NULL;
        if (service_dirs_base(EXEC_DIRECTORY_RUNTIME, &base) < 0)
                return;
        for (char **d = u->exec_directories[EXEC_DIRECTORY_RUNTIME]; *d; d++) {
                _cleanup_free_ char *path = NULL;
                if (asprintf(&path, "%s/%s", base, *d) < 0)
                        return;
                (void) nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
        }
}
