/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The unit table over svd's lifetime: reload of the unit directory, the
 * removal of units whose file is gone once they have settled, and the
 * wanted state that survives a crash (wanted.h). Split from manager.c, which
 * sets the table up once at start-up.
 */
#include "manager.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "basic/strv.h"
#include "deps.h"
#include "svd-log.h"
#include "service.h"
#include "unit.h"

typedef struct ReloadEntry {
        char *name;
        char *path;
        Unit *unit;
        char *error;
        uint64_t hash;
} ReloadEntry;

static void reload_entries_free(ReloadEntry *e, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(e[i].name);
                free(e[i].path);
                unit_free(e[i].unit);
                free(e[i].error);
        }
        free(e);
}

/* FNV-1a over the file's bytes (up to UNIT_FILE_SIZE_MAX); 0 when unreadable. */
static uint64_t unit_file_hash(const char *path) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        uint64_t h = UINT64_C(14695981039346656037);
        char buf[8192];
        size_t total = 0;
        struct stat st;

        if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
                return 0;
        for (;;) {
                ssize_t n = read(fd, buf, sizeof(buf));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                for (ssize_t i = 0; i < n; i++) {
                        h ^= (unsigned char) buf[i];
                        h *= UINT64_C(1099511628211);
                }
                total += (size_t) n;
                if (total > UNIT_FILE_SIZE_MAX)
                        break;
        }
        return h ?: 1;
}

static char *mfree_str(char *p) {
        free(p);
        return NULL;
}

static uint64_t now_realtime_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / NSEC_PER_USEC;
}

static int string_compare(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static void strv_sort(char **l) {
        if (!l)
                return;
        qsort(l, strv_length(l), sizeof(char *), string_compare);
}

static int service_compare(const void *a, const void *b) {
        return strcmp((*(Service *const *) a)->name, (*(Service *const *) b)->name);
}

static void on_unit_warning(const char *message, void *userdata) {
        log_warning("%s", message);
}

/* Reads the directory without touching the table. */
static int reload_scan(Manager *m, ReloadEntry **ret, size_t *ret_n) {
        _cleanup_(closedirp) DIR *d = opendir(m->unit_dir);
        ReloadEntry *e = NULL;
        size_t n = 0;
        struct dirent *de;

        if (!d)
                return -errno;
        while ((errno = 0, de = readdir(d))) {
                _cleanup_free_ char *name = NULL;
                if (unit_name_from_filename(de->d_name, &name) < 0)
                        continue;
                if (n >= MANAGER_UNITS_MAX) {
                        log_error("More than %u unit files in '%s', ignoring the rest.", MANAGER_UNITS_MAX,
                                  m->unit_dir);
                        break;
                }
                ReloadEntry *a = reallocarray(e, n + 1, sizeof(ReloadEntry));
                if (!a) {
                        reload_entries_free(e, n);
                        return -ENOMEM;
                }
                e = a;
                ReloadEntry *x = &e[n++];
                *x = (ReloadEntry){ .name = TAKE_PTR(name) };
                if (asprintf(&x->path, "%s/%s", m->unit_dir, de->d_name) < 0) {
                        x->path = NULL;
                        reload_entries_free(e, n);
                        return -ENOMEM;
                }
                x->hash = unit_file_hash(x->path);
                int r = unit_load_file(x->path, x->name, on_unit_warning, m, &x->unit, &x->error);
                if (r < 0 && !x->error && asprintf(&x->error, "%s: %s", x->path, strerror(-r)) < 0)
                        x->error = NULL;
        }
        if (errno > 0) {
                int r = -errno;
                reload_entries_free(e, n);
                return r;
        }
        *ret = e;
        *ret_n = n;
        return 0;
}

/* Gives s the definition u (or the load error), as service_new() would. */
static int service_apply_unit(Manager *m, Service *s, const char *path, Unit *u, const char *error) {
        Service *tmp = NULL;
        int r = service_new(m, s->name, path, u, error, &tmp);
        if (r < 0)
                return r;
#define SWAP(a, b)                                                                                           \
        do {                                                                                                 \
                __typeof__(a) _t = (a);                                                                      \
                (a) = (b);                                                                                   \
                (b) = _t;                                                                                    \
        } while (0)
        SWAP(s->unit, tmp->unit);
        SWAP(s->creds, tmp->creds);
        SWAP(s->load_error, tmp->load_error);
        SWAP(s->unit_path, tmp->unit_path);
#undef SWAP
        service_free(tmp);
        return 0;
}

static bool service_may_change(const Service *s) {
        return service_is_settled(s) && !s->manager->shutting_down;
}

/* Applies a pending definition to a settled service. Returns true if it did. */
static bool service_apply_next(Manager *m, Service *s) {
        if (!s->have_next_unit || !service_may_change(s))
                return false;
        int r = service_apply_unit(m, s, s->unit_path, TAKE_PTR(s->next_unit), s->next_load_error);
        if (r < 0)
                log_error_errno(r, "%s: Failed to apply the reloaded unit: %m", s->name);
        s->next_load_error = mfree_str(s->next_load_error);
        s->have_next_unit = false;
        log_info("%s: now settled, the reloaded unit file is in force.", s->name);
        return true;
}

static void manager_remove_service(Manager *m, size_t i) {
        Service *s = m->services[i];
        memmove(m->services + i, m->services + i + 1, (m->n_services - i - 1) * sizeof(Service *));
        m->n_services--;
        log_info("%s: unit file removed, dropping the unit.", s->name);
        service_free(s);
}

void manager_take_pending_unit(Manager *m, Service *s) {
        if (!s->have_next_unit || !s->next_unit || process_is_set(&s->main))
                return;
        int r = service_apply_unit(m, s, s->unit_path, TAKE_PTR(s->next_unit), s->next_load_error);
        if (r < 0)
                log_error_errno(r, "%s: Failed to apply the reloaded unit: %m", s->name);
        s->next_load_error = mfree_str(s->next_load_error);
        s->have_next_unit = false;
        log_info("%s: starting again, the reloaded unit file is in force.", s->name);
        m->gc_resolve_deps = true;
        manager_schedule_gc(m);
}

static int on_gc(sd_event_source *source, void *userdata) {
        Manager *m = userdata;
        bool changed = TAKE_GENERIC(m->gc_resolve_deps, bool, false);

        for (size_t i = m->n_services; i > 0; i--) {
                Service *s = m->services[i - 1];
                if (s->removed && service_may_change(s)) {
                        manager_remove_service(m, i - 1);
                        changed = true;
                } else if (service_apply_next(m, s))
                        changed = true;
        }
        if (changed) {
                int r = deps_resolve(m);
                if (r < 0)
                        log_error_errno(r, "Failed to resolve dependencies: %m");
        }
        return 0;
}

void manager_apply_pending(Manager *m, Service *s) {
        if (!service_apply_next(m, s))
                return;
        int r = deps_resolve(m);
        if (r < 0)
                log_error_errno(r, "Failed to resolve dependencies: %m");
}

void manager_schedule_gc(Manager *m) {
        assert(m);
        if (!m->gc_source) {
                int r = sd_event_add_defer(m->event, &m->gc_source, on_gc, m);
                if (r < 0) {
                        log_error_errno(r, "Failed to schedule the removal of unit: %m");
                        return;
                }
        }
        (void) sd_event_source_set_enabled(m->gc_source, SD_EVENT_ONESHOT);
}

int manager_reload(Manager *m, char ***ret_added, char ***ret_changed, char ***ret_removed) {
        _cleanup_strv_free_ char **added = NULL, **changed = NULL, **removed = NULL;
        ReloadEntry *e = NULL;
        size_t n = 0;
        int r;

        assert(m);

        r = reload_scan(m, &e, &n);
        if (r < 0)
                return r; /* nothing changed */

        /* Which existing services still have a file. */
        _cleanup_free_ bool *seen = calloc(m->n_services ?: 1, sizeof(bool));
        if (!seen) {
                reload_entries_free(e, n);
                return -ENOMEM;
        }
        size_t n_old = m->n_services;

        for (size_t i = 0; i < n; i++) {
                ReloadEntry *x = &e[i];
                Service *s = NULL;
                for (size_t k = 0; k < n_old; k++)
                        if (streq(m->services[k]->name, x->name)) {
                                s = m->services[k];
                                seen[k] = true;
                                break;
                        }

                if (!s) {
                        if (m->n_services >= MANAGER_UNITS_MAX)
                                continue;
                        Service **a = reallocarray(m->services, m->n_services + 1, sizeof(Service *));
                        if (!a) {
                                r = -ENOMEM;
                                break;
                        }
                        m->services = a;
                        r = service_new(m, x->name, x->path, TAKE_PTR(x->unit), x->error, &s);
                        if (r < 0)
                                break;
                        s->unit_hash = x->hash;
                        m->services[m->n_services++] = s;
                        if (!s->unit)
                                log_error("Failed to load unit '%s': %s", s->name, strna(s->load_error));
                        log_info("%s: unit added.", s->name);
                        if (strv_extend(&added, x->name) < 0)
                                r = -ENOMEM;
                        continue;
                }

                bool was_removed = s->removed;
                s->removed = false;
                if (x->hash == s->unit_hash && !was_removed && x->hash != 0)
                        continue; /* the same file */
                s->unit_hash = x->hash;
                if (strv_extend(was_removed ? &added : &changed, x->name) < 0)
                        r = -ENOMEM;
                if (service_may_change(s)) {
                        unit_free(TAKE_PTR(s->next_unit));
                        s->next_load_error = mfree_str(s->next_load_error);
                        s->have_next_unit = false;
                        r = service_apply_unit(m, s, x->path, TAKE_PTR(x->unit), x->error);
                        if (r < 0)
                                break;
                        if (!s->unit)
                                log_error("Failed to load unit '%s': %s", s->name, strna(s->load_error));
                        log_info("%s: unit file changed, reloaded.", s->name);
                } else {
                        unit_free(s->next_unit);
                        free(s->next_load_error);
                        s->next_unit = TAKE_PTR(x->unit);
                        s->next_load_error = x->error ? strdup(x->error) : NULL;
                        s->have_next_unit = true;
                        log_info("%s: unit file changed; the running process keeps running, the new definition "
                                 "applies once it has stopped.", s->name);
                }
        }
        reload_entries_free(e, n);

        /* Units whose file is gone: dropped now if settled, else when they settle. */
        for (size_t k = n_old; k > 0; k--) {
                Service *s = m->services[k - 1];
                if (seen[k - 1] || s->removed)
                        continue;
                if (strv_extend(&removed, s->name) < 0)
                        r = -ENOMEM;
                if (service_may_change(s))
                        manager_remove_service(m, k - 1);
                else {
                        s->removed = true;
                        log_info("%s: unit file removed; the unit stays until it has stopped.", s->name);
                }
        }

        qsort(m->services, m->n_services, sizeof(Service *), service_compare);
        strv_sort(added);
        strv_sort(changed);
        strv_sort(removed);
        int k = deps_resolve(m);
        if (k < 0)
                log_error_errno(k, "Failed to resolve dependencies: %m");
        manager_save_wanted(m);
        if (r < 0)
                return r;

        log_info("Reloaded '%s': %zu added, %zu changed, %zu removed.", m->unit_dir, strv_length(added),
                 strv_length(changed), strv_length(removed));
        *ret_added = TAKE_PTR(added);
        *ret_changed = TAKE_PTR(changed);
        *ret_removed = TAKE_PTR(removed);
        return 0;
}

/* ---- the wanted state ---- */

void manager_save_wanted(Manager *m) {
        int r = wanted_file_save(m);
        if (r < 0)
                log_error_errno(r, "Failed to write the wanted-state file next to '%s': %m", m->socket_path);
}

void manager_record_wanted(Manager *m, Service *s, bool start) {
        WantedOverride w = start ? WANTED_START : WANTED_STOP;
        if (s->wanted == w)
                return;
        s->wanted = w;
        manager_save_wanted(m);
}

void manager_restore_prepare(Manager *m) {
        for (size_t i = 0; i < m->n_services; i++)
                m->services[i]->unit_hash = unit_file_hash(m->services[i]->unit_path);

        int r = wanted_file_load(m);
        if (r < 0)
                log_error_errno(r, "Failed to read the wanted-state file, starting the default set: %m");
        m->crash_restored = r > 0;
        if (m->crash_restored)
                log_notice("The wanted-state file is there: the previous svd did not exit cleanly, restoring "
                           "what was wanted.");
}

bool manager_wanted_at_startup(Manager *m, Service *s) {
        bool want = s->wanted == WANTED_START || (s->wanted == WANTED_DEFAULT && s->unit && s->unit->wanted_by_default);
        if (want && m->crash_restored)
                s->restored_usec = now_realtime_usec();
        return want;
}
