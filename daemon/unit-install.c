/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Enabling: the .wants/ and .requires/ links of the unit directory, read, judged, made and removed. */
#include "unit-install.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/string-table.h"
#include "basic/strv.h"
#include "basic/unit-name.h"

static const char *const unit_file_state_table[_UNIT_FILE_STATE_MAX] = {
        [UNIT_FILE_ENABLED] = "enabled",   [UNIT_FILE_DISABLED] = "disabled", [UNIT_FILE_STATIC] = "static",
        [UNIT_FILE_INDIRECT] = "indirect", [UNIT_FILE_ALIAS] = "alias",       [UNIT_FILE_BAD] = "bad",
};

DEFINE_STRING_TABLE_LOOKUP(unit_file_state, UnitFileState);

static const char *const unit_file_change_type_table[_UNIT_FILE_CHANGE_TYPE_MAX] = {
        [UNIT_FILE_SYMLINK] = "symlink",
        [UNIT_FILE_UNLINK] = "unlink",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(unit_file_change_type, UnitFileChangeType);

/* The kinds of link directory, after a target's name: for WantedBy= and for RequiredBy=. */
static const char *const link_kinds[] = { ".wants", ".requires" };
/* Every link directory: those of the targets unit_target_is_started() says svd starts, and those of
 * sockets.target, which svd starts with its sockets. */
static const char *const link_dirs[] = {
        "default.target.wants",
        "default.target.requires",
        "multi-user.target.wants",
        "multi-user.target.requires",
        "sockets.target.wants",
        "sockets.target.requires",
};
/* Where disable holds a unit back: a service, and a socket unit. */
#define HOLD_DIR "default.target.wants"
#define HOLD_DIR_SOCKET "sockets.target.wants"

bool unit_install_name_is_socket(const char *name) {
        size_t n = strlen(name), l = strlen(UNIT_INSTALL_SOCKET_SUFFIX);
        return n > l && streq(name + n - l, UNIT_INSTALL_SOCKET_SUFFIX);
}

/* The name an entry of a link directory stands for: NAME of NAME.service, NAME.socket of itself. */
static int link_entry_name(const char *filename, char **ret) {
        if (!unit_install_name_is_socket(filename))
                return unit_name_from_filename(filename, ret);
        _cleanup_free_ char *name = strdup(filename);
        if (!name)
                return -ENOMEM;
        name[strlen(name) - strlen(UNIT_INSTALL_SOCKET_SUFFIX)] = '\0';
        if (!unit_name_is_valid(name) || strchr(name, '@'))
                return -EINVAL;
        strcat(name, UNIT_INSTALL_SOCKET_SUFFIX);
        *ret = TAKE_PTR(name);
        return 0;
}

/* The file name of the links of name: NAME.service, or NAME.socket as it is. */
static int link_file_of(const char *name, char **ret) {
        if (unit_install_name_is_socket(name))
                return (*ret = strdup(name)) ? 0 : -ENOMEM;
        return asprintf(ret, "%s%s", name, UNIT_NAME_SUFFIX) < 0 ? -ENOMEM : 0;
}

/* ---- reading ---- */

/* A growing list of names, sorted and made unique once read (strv_consume() walks the list each time). */
typedef struct NameList {
        char **items;
        size_t n, allocated;
} NameList;

static int name_list_add(NameList *l, char *name) {
        _cleanup_free_ char *v = name;

        if (l->n + 1 >= l->allocated) {
                size_t a = l->allocated ? 2 * l->allocated : 16;
                char **p = reallocarray(l->items, a, sizeof(char *));
                if (!p)
                        return -ENOMEM;
                l->items = p;
                l->allocated = a;
        }
        l->items[l->n++] = TAKE_PTR(v);
        l->items[l->n] = NULL;
        return 0;
}

static int string_compare(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Sorts l, drops repeats, and hands the vector over (NULL when empty). */
static char **name_list_finish(NameList *l) {
        if (l->n == 0) {
                free(l->items);
                *l = (NameList){};
                return NULL;
        }
        qsort(l->items, l->n, sizeof(char *), string_compare);
        size_t k = 1;
        for (size_t i = 1; i < l->n; i++) {
                if (streq(l->items[i], l->items[k - 1]))
                        free(l->items[i]);
                else
                        l->items[k++] = l->items[i];
        }
        l->items[k] = NULL;
        char **v = l->items;
        *l = (NameList){};
        return v;
}

static void name_list_done(NameList *l) {
        for (size_t i = 0; i < l->n; i++)
                free(l->items[i]);
        free(l->items);
        *l = (NameList){};
}

/* The target of the symbolic link dir_fd/name in buf: 0, -EINVAL when it is no symbolic link, or -errno. */
static int read_link_at(int dir_fd, const char *name, char buf[static PATH_MAX]) {
        ssize_t n = readlinkat(dir_fd, name, buf, PATH_MAX - 1);
        if (n < 0)
                return -errno;
        buf[n] = '\0';
        return 0;
}

static void note_ignored(UnitInstallLinks *l, const char *dir, const char *name) {
        if (l->ignored++ == 0 && asprintf(&l->first_ignored, "%s/%s", dir, name) < 0)
                l->first_ignored = NULL;
}

static int read_one_dir(const char *dir, UnitInstallLinks *l, NameList *linked, NameList *held, size_t *budget) {
        _cleanup_(closedirp) DIR *d = opendir(dir);
        struct dirent *de;

        if (!d)
                return errno == ENOENT ? 0 : -errno;
        while ((errno = 0, de = readdir(d))) {
                _cleanup_free_ char *name = NULL;
                char target[PATH_MAX];

                if (de->d_name[0] == '.')
                        continue;
                if (*budget == 0) {
                        l->truncated = true;
                        return 0;
                }
                (*budget)--;
                if (link_entry_name(de->d_name, &name) < 0 ||
                    read_link_at(dirfd(d), de->d_name, target) < 0) {
                        note_ignored(l, dir, de->d_name);
                        continue;
                }
                int r = name_list_add(streq(target, UNIT_INSTALL_NULL) ? held : linked, TAKE_PTR(name));
                if (r < 0)
                        return r;
        }
        return errno > 0 ? -errno : 0;
}

int unit_install_links_read(const char *unit_dir, UnitInstallLinks *ret) {
        _cleanup_(name_list_done) NameList linked = {}, held = {};
        UnitInstallLinks l = {};
        size_t budget = UNIT_INSTALL_LINKS_MAX;
        int ret_r = 0;

        assert(unit_dir);
        assert(ret);

        for (size_t i = 0; i < ELEMENTSOF(link_dirs); i++) {
                _cleanup_free_ char *dir = NULL;
                if (asprintf(&dir, "%s/%s", unit_dir, link_dirs[i]) < 0) {
                        unit_install_links_done(&l);
                        return -ENOMEM;
                }
                int r = read_one_dir(dir, &l, &linked, &held, &budget);
                if (r == -ENOMEM) {
                        unit_install_links_done(&l);
                        return r;
                }
                if (r < 0 && ret_r == 0)
                        ret_r = r; /* the others are read all the same */
        }
        l.linked = name_list_finish(&linked);
        l.held = name_list_finish(&held);
        *ret = l;
        return ret_r;
}

void unit_install_links_done(UnitInstallLinks *l) {
        if (!l)
                return;
        strv_free(l->linked);
        strv_free(l->held);
        free(l->first_ignored);
        *l = (UnitInstallLinks){};
}

/* The index of the first entry of the sorted l that is >= key. */
static size_t lower_bound(char *const *l, size_t n, const char *key) {
        size_t lo = 0, hi = n;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (strcmp(l[mid], key) < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

static bool sorted_contains(char *const *l, const char *name) {
        size_t n = strv_length(l), i = lower_bound(l, n, name);
        return i < n && streq(l[i], name);
}

bool unit_install_is_linked(const UnitInstallLinks *l, const char *name) {
        return sorted_contains(l->linked, name);
}

bool unit_install_is_held(const UnitInstallLinks *l, const char *name) {
        return sorted_contains(l->held, name);
}

/* Whether an instance of the template `name` ("web@") is linked: they sort right after it. */
static bool instance_linked(const UnitInstallLinks *l, const char *name) {
        size_t n = strv_length(l->linked), i = lower_bound(l->linked, n, name);
        return i < n && strneq(l->linked[i], name, strlen(name));
}

/* ---- judging ---- */

bool unit_install_has_info(const Unit *u) {
        return u && (u->wanted_by || u->required_by || u->also);
}

/* Not enabled: what else u's [Install] makes of it. */
static UnitFileState state_not_enabled(const Unit *u) {
        if (u->wanted_by || u->required_by)
                return UNIT_FILE_DISABLED;
        return u->also ? UNIT_FILE_INDIRECT : UNIT_FILE_STATIC;
}

UnitFileState unit_file_state(const UnitInstallLinks *l, const char *name, const Unit *u) {
        assert(l);
        assert(name);

        if (!u)
                return UNIT_FILE_BAD;
        if (unit_name_is_template(name)) {
                /* A template never starts; what it can be enabled as is its instances. */
                if (!unit_install_has_info(u))
                        return UNIT_FILE_STATIC;
                return instance_linked(l, name) ? UNIT_FILE_INDIRECT : state_not_enabled(u);
        }
        if (unit_install_is_held(l, name))
                return unit_install_has_info(u) ? UNIT_FILE_DISABLED : UNIT_FILE_STATIC;
        if (unit_install_is_linked(l, name))
                return UNIT_FILE_ENABLED;
        /* An instance starts only through its own link, not through its template's WantedBy=. */
        if (u->wanted_by_default && !strchr(name, '@'))
                return UNIT_FILE_ENABLED;
        return state_not_enabled(u);
}

/* ---- changing ---- */

void unit_file_changes_done(UnitFileChanges *c) {
        if (!c)
                return;
        for (size_t i = 0; i < c->n; i++) {
                free(c->items[i].path);
                free(c->items[i].source);
        }
        free(c->items);
        *c = (UnitFileChanges){};
}

static int changes_add(UnitFileChanges *c, UnitFileChangeType type, const char *path, const char *source) {
        UnitFileChange *a = reallocarray(c->items, c->n + 1, sizeof(UnitFileChange));
        if (!a)
                return -ENOMEM;
        c->items = a;
        UnitFileChange *x = &c->items[c->n];
        *x = (UnitFileChange){ .type = type, .path = strdup(path), .source = source ? strdup(source) : NULL };
        if (!x->path || (source && !x->source)) {
                free(x->path);
                free(x->source);
                return -ENOMEM;
        }
        c->n++;
        return 0;
}

/* r (< 0), with *ret_path the path of dir_path/name (or dir_path without name). */
static int fail_at(int r, const char *dir_path, const char *name, char **ret_path) {
        assert(r < 0);
        int k = name ? asprintf(ret_path, "%s/%s", dir_path, name) : asprintf(ret_path, "%s", dir_path);
        if (k < 0) {
                *ret_path = NULL;
                return -ENOMEM;
        }
        return r;
}

/* Opens the link directory unit_dir/subdir, making it (and making that durable) when create. 0 and
 * the fd; -ENOENT when it is missing and not create; -errno with *ret_path. */
static int link_dir_open(const char *unit_dir, const char *subdir, bool create, int *ret_fd, char **ret_path) {
        _cleanup_free_ char *path = NULL;
        _cleanup_close_ int unit_fd = -EBADF;

        if (asprintf(&path, "%s/%s", unit_dir, subdir) < 0)
                return -ENOMEM;
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0) {
                *ret_fd = fd;
                return 0;
        }
        if (errno != ENOENT || !create)
                return errno == ENOENT ? -ENOENT : fail_at(-errno, path, NULL, ret_path);

        unit_fd = open(unit_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (unit_fd < 0)
                return fail_at(-errno, unit_dir, NULL, ret_path);
        if (mkdirat(unit_fd, subdir, 0755) < 0 && errno != EEXIST)
                return fail_at(-errno, path, NULL, ret_path);
        if (fsync(unit_fd) < 0)
                return fail_at(-errno, unit_dir, NULL, ret_path);
        fd = openat(unit_fd, subdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return fail_at(-errno, path, NULL, ret_path);
        *ret_fd = fd;
        return 0;
}

/* Makes dir_fd/file a link to target: under a temporary name first, renamed over whatever is there,
 * then the directory fsync'd. -errno of the step that failed. */
static int link_replace_at(int dir_fd, const char *file, const char *target) {
        _cleanup_free_ char *tmp = NULL;

        if (asprintf(&tmp, ".%s.svd-new", file) < 0)
                return -ENOMEM;
        /* A temporary link a crash left behind. */
        if (unlinkat(dir_fd, tmp, 0) < 0 && errno != ENOENT)
                return -errno;
        if (symlinkat(target, dir_fd, tmp) < 0)
                return -errno;
        if (renameat(dir_fd, tmp, dir_fd, file) < 0) {
                int r = -errno;
                (void) unlinkat(dir_fd, tmp, 0);
                return r;
        }
        return fsync(dir_fd) < 0 ? -errno : 0;
}

/* unit_dir/subdir/file -> target, unless a link to anything but /dev/null is there already (keep:
 * one that is not to /dev/null is kept). 1 when it made the link, 0 when one was there. */
static int link_make(const char *unit_dir, const char *subdir, const char *file, const char *target,
                     UnitFileChanges *changes, char **ret_path) {
        _cleanup_free_ char *dir_path = NULL, *path = NULL;
        _cleanup_close_ int fd = -EBADF;
        char old[PATH_MAX];

        int r = link_dir_open(unit_dir, subdir, /* create= */ true, &fd, ret_path);
        if (r < 0)
                return r;
        if (asprintf(&dir_path, "%s/%s", unit_dir, subdir) < 0 || asprintf(&path, "%s/%s", dir_path, file) < 0)
                return -ENOMEM;
        if (read_link_at(fd, file, old) >= 0 && !streq(old, UNIT_INSTALL_NULL))
                return 0;
        r = link_replace_at(fd, file, target);
        if (r < 0)
                return fail_at(r, dir_path, file, ret_path);
        r = changes_add(changes, UNIT_FILE_SYMLINK, path, target);
        return r < 0 ? r : 1;
}

/* Removes unit_dir/subdir/file when it is a symbolic link to /dev/null (null) or to anything else
 * (!null), and makes that durable. */
static int link_remove(const char *unit_dir, const char *subdir, const char *file, bool null,
                       UnitFileChanges *changes, char **ret_path) {
        _cleanup_free_ char *dir_path = NULL;
        _cleanup_close_ int fd = -EBADF;
        char old[PATH_MAX];

        int r = link_dir_open(unit_dir, subdir, /* create= */ false, &fd, ret_path);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        if (read_link_at(fd, file, old) < 0 || streq(old, UNIT_INSTALL_NULL) != null)
                return 0;
        if (asprintf(&dir_path, "%s/%s", unit_dir, subdir) < 0)
                return -ENOMEM;
        if (unlinkat(fd, file, 0) < 0 && errno != ENOENT)
                return fail_at(-errno, dir_path, file, ret_path);
        if (fsync(fd) < 0)
                return fail_at(-errno, dir_path, NULL, ret_path);
        _cleanup_free_ char *path = NULL;
        if (asprintf(&path, "%s/%s", dir_path, file) < 0)
                return -ENOMEM;
        return changes_add(changes, UNIT_FILE_UNLINK, path, NULL);
}

/* Whether unit_dir/subdir/file is a symbolic link to /dev/null. */
static bool link_is_null(const char *unit_dir, const char *subdir, const char *file) {
        _cleanup_free_ char *path = NULL;
        char old[PATH_MAX];

        if (asprintf(&path, "%s/%s/%s", unit_dir, subdir, file) < 0)
                return false;
        ssize_t n = readlink(path, old, sizeof(old) - 1);
        if (n < 0)
                return false;
        old[n] = '\0';
        return streq(old, UNIT_INSTALL_NULL);
}

int unit_install_enable(const char *unit_dir, const char *name, const char *file, const Unit *u,
                        UnitFileChanges *changes, char **ret_path) {
        _cleanup_free_ char *link_file = NULL, *target = NULL;
        char **lists[ELEMENTSOF(link_kinds)] = { u->wanted_by, u->required_by };
        int n = 0, r;

        assert(unit_dir);
        assert(name);
        assert(file);
        assert(changes);
        assert(ret_path);

        *ret_path = NULL;
        bool socket = unit_install_name_is_socket(name);
        if (link_file_of(name, &link_file) < 0 || asprintf(&target, "../%s", file) < 0)
                return -ENOMEM;
        for (size_t k = 0; k < ELEMENTSOF(link_kinds); k++)
                for (char **t = lists[k]; t && *t; t++) {
                        _cleanup_free_ char *subdir = NULL;
                        if (!unit_target_is_started(*t) && !(socket && streq(*t, "sockets.target")))
                                continue;
                        if (asprintf(&subdir, "%s%s", *t, link_kinds[k]) < 0)
                                return -ENOMEM;
                        r = link_make(unit_dir, subdir, link_file, target, changes, ret_path);
                        if (r < 0)
                                return r;
                        n++;
                }
        if (n == 0)
                return 0;
        /* Only now: until the links are there, what held the unit back still does. */
        for (size_t i = 0; i < ELEMENTSOF(link_dirs); i++) {
                r = link_remove(unit_dir, link_dirs[i], link_file, /* null= */ true, changes, ret_path);
                if (r < 0)
                        return r;
        }
        return n;
}

int unit_install_disable(const char *unit_dir, const char *name, bool hold, UnitFileChanges *changes,
                         char **ret_path) {
        _cleanup_free_ char *link_file = NULL;
        bool held = false;
        int r;

        assert(unit_dir);
        assert(name);
        assert(changes);
        assert(ret_path);

        *ret_path = NULL;
        if (link_file_of(name, &link_file) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < ELEMENTSOF(link_dirs); i++) {
                r = link_remove(unit_dir, link_dirs[i], link_file, /* null= */ false, changes, ret_path);
                if (r < 0)
                        return r;
                held = held || link_is_null(unit_dir, link_dirs[i], link_file);
        }
        if (!hold || held)
                return 0;
        /* Only now: while the links went, the unit's own file still started it, as they did. */
        r = link_make(unit_dir, unit_install_name_is_socket(name) ? HOLD_DIR_SOCKET : HOLD_DIR, link_file,
                      UNIT_INSTALL_NULL, changes, ret_path);
        return r < 0 ? r : 0;
}
