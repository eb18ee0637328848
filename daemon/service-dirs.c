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
 */
#define _XOPEN_SOURCE 700
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/env-util.h"
#include "basic/strv.h"
#include "service-private.h"
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
static int exec_directory_base(ExecDirectoryType t, char **ret) {
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

int service_dirs_prepare(Service *s, char ***env, char **ret_error) {
        const Unit *u = s->unit;

        for (ExecDirectoryType t = 0; t < _EXEC_DIRECTORY_TYPE_MAX; t++) {
                if (!u->exec_directories[t])
                        continue;
                _cleanup_free_ char *base = NULL, *value = NULL;
                int r = exec_directory_base(t, &base);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        if (asprintf(ret_error, "%s: no base directory for svd's user (set $XDG_RUNTIME_DIR or $HOME)",
                                     exec_directory_key[t]) < 0)
                                *ret_error = NULL;
                        return r;
                }
                for (char **d = u->exec_directories[t]; *d; d++) {
                        _cleanup_free_ char *path = NULL;
                        if (asprintf(&path, "%s/%s", base, *d) < 0)
                                return -ENOMEM;
                        /* ConfigurationDirectory= stays the administrator's (systemd.exec(5)). */
                        r = exec_directory_make(path, (mode_t) u->exec_directory_mode[t],
                                                s->creds.set && t != EXEC_DIRECTORY_CONFIGURATION, s->creds.uid,
                                                s->creds.gid);
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
        const Unit *u = s->unit;

        if (!u || !u->exec_directories[EXEC_DIRECTORY_RUNTIME] || u->runtime_directory_preserve == EXEC_PRESERVE_YES ||
            (u->runtime_directory_preserve == EXEC_PRESERVE_RESTART && !for_good))
                return;
        _cleanup_free_ char *base = NULL;
        if (exec_directory_base(EXEC_DIRECTORY_RUNTIME, &base) < 0)
                return;
        for (char **d = u->exec_directories[EXEC_DIRECTORY_RUNTIME]; *d; d++) {
                _cleanup_free_ char *path = NULL;
                if (asprintf(&path, "%s/%s", base, *d) < 0)
                        return;
                (void) nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
        }
}
