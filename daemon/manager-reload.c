/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The unit table over svd's lifetime: loading the unit directory (start-up
 * is a reload into the empty table), the removal of units whose file is gone
 * once they have settled, and the wanted state that survives a crash
 * (wanted.h).
 */
#include "manager.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "basic/strv.h"
#include "basic/utf8.h"
#include "deps.h"
#include "svd-log.h"
#include "service.h"
#include "service-access.h"
#include "unit.h"
#include "wanted.h"

/* A unit file of the directory, as the reload read it. */
typedef struct ReloadEntry {
        char *name;
        UnitDefinition *def;
} ReloadEntry;

static void reload_entries_free(ReloadEntry *e, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(e[i].name);
                unit_definition_free(e[i].def);
        }
        free(e);
}

static int string_compare(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static void strv_sort(char **l) {
        if (!l)
                return;
        qsort(l, strv_length(l), sizeof(char *), string_compare);
}

static void on_unit_warning(const char *message, void *userdata) {
        log_warning("%s", message);
}

/* "a, b, c" of the NULL-terminated l (static strings), in buf. */
static const char *join_words(const char *const *l, char *buf, size_t size) {
        size_t n = 0;
        buf[0] = '\0';
        for (const char *const *w = l; *w && n < size; w++)
                n += (size_t) snprintf(buf + n, size - n, "%s%s", w == l ? "" : ", ", *w);
        return buf;
}

/* The cgroup limits of u that svd cannot apply (cgroup.h) are warned about at load, as every key
 * svd ignores is; svctl status lists them under "Not applied", svctl info says how to get the
 * controllers. */
static void warn_limits_not_applied(const CgroupRoot *cg, const char *path, const Unit *u) {
        const char *keys[CGROUP_LIMIT_KEYS_MAX + 1], *lack[CGROUP_LIMIT_KEYS_MAX + 1];
        char k[64], l[64];

        if (!u || cgroup_limits_not_applied(cg, u->memory_max, u->tasks_max, u->cpu_weight, keys, lack) == 0)
                return;
        if (!cg->available) {
                log_warning("%s: %s set, but svd has no cgroup (%s), ignoring.", path, join_words(keys, k, sizeof(k)),
                            cg->reason);
                return;
        }
        log_warning("%s: %s set, but svd's cgroup %s lacks the controllers %s (see svctl info), ignoring.", path,
                    join_words(keys, k, sizeof(k)), cg->services_path, join_words(lack, l, sizeof(l)));
}

/* The unit `name` ("web@8080") from template t's definition: the same bytes, parsed for the
 * instance's name (specifiers). A definition that fails for this instance is its load error. */
static int instance_load(Service *t, const char *name, UnitDefinition **ret) {
        const Unit *tu = t->def->unit;
        _cleanup_free_ char *error = NULL;
        Unit *u = NULL;
        int r;

        r = unit_load_string(tu->source, tu->source_len, tu->path, name, t->ctx->unit_defaults, on_unit_warning,
                             NULL, &u, &error);
        if (r == -ENOMEM)
                return r;
        if (r < 0 && !error && asprintf(&error, "%s: %s", tu->path, strerror(-r)) < 0)
                return -ENOMEM;
        warn_limits_not_applied(t->ctx->cgroup, tu->path, u);
        return unit_definition_new(t->def->path, u, error, t->ctx->uid, ret);
}

/* The template of instance `name` in the table, loaded and not removed, or NULL. While a reload
 * goes through the table (unsorted, seen[] telling which of the first n_old units still have a
 * file), seen is given. */
static Service *template_of(Manager *m, const char *name, const bool *seen, size_t n_old) {
        _cleanup_free_ char *tn = NULL;
        Service *t = NULL;

        if (unit_name_template_of(name, &tn) < 0)
                return NULL;
        unit_name_strip_suffix(tn);
        if (!seen)
                t = service_find(&m->ctx, tn);
        else
                for (size_t i = 0; i < m->ctx.n_services && !t; i++)
                        if (streq(m->ctx.services[i]->name, tn) && (i >= n_old || seen[i]))
                                t = m->ctx.services[i];
        return t && t->def->unit && !t->removed ? t : NULL;
}

Service *manager_instantiate(Manager *m, const char *name) {
        _cleanup_free_ char *n = NULL;
        UnitDefinition *def = NULL;
        Service *s = NULL, *t;
        int r;

        assert(m);

        n = strdup(name);
        if (!n)
                return NULL;
        unit_name_strip_suffix(n);
        if (!unit_name_is_valid(n) || m->ctx.n_services >= MANAGER_UNITS_MAX)
                return NULL;
        t = template_of(m, n, /* seen= */ NULL, 0);
        if (!t)
                return NULL;
        r = instance_load(t, n, &def);
        if (r < 0)
                return NULL;
        r = service_new(&m->ctx, n, def, &s);
        if (r < 0)
                return NULL;
        r = service_context_add(&m->ctx, s);
        if (r < 0) {
                service_free(s);
                return NULL;
        }
        service_context_sort(&m->ctx);
        (void) service_set_file_state(s, unit_file_state(&m->links, s->name, s->def->unit));
        if (!s->def->unit)
                log_error("Failed to load unit '%s': %s", s->name, strna(s->def->load_error));
        else
                log_info("%s: instance of '%s' created.", s->name, t->name);
        r = deps_resolve(&m->ctx);
        if (r < 0)
                log_error_errno(r, "Failed to resolve dependencies: %m");
        return s;
}

/* A unit that sets sandboxing keys svd does not enforce fails to load, naming them, unless the
 * operator said --allow-unsandboxed: then it loads, with a warning, and `svctl status` lists them. */
static int reload_check_sandbox(Manager *m, const char *path, Unit **u, char **error) {
        char **keys = (*u)->sandbox.not_applied;
        if (!keys)
                return 0;
        _cleanup_free_ char *list = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&list, &len);
        if (!f)
                return -ENOMEM;
        for (char **k = keys; *k; k++)
                fprintf(f, "%s%s", k == keys ? "" : " ", *k);
        if (fclose(f) != 0 || !list)
                return -ENOMEM;
        if (m->allow_unsandboxed) {
                log_warning("%s:%u: Sandboxing not enforced by svd: %s (running it without, as "
                            "--allow-unsandboxed says).",
                            path, (*u)->sandbox.not_applied_line, list);
                return 0;
        }
        if (asprintf(error,
                     "%s:%u: Sandboxing keys svd does not enforce: %s; refusing to run the unit without "
                     "them (svd --allow-unsandboxed runs it anyway)",
                     path, (*u)->sandbox.not_applied_line, list) < 0) {
                *error = NULL;
                return -ENOMEM;
        }
        *u = unit_free(*u);
        return 0;
}

/* A unit whose device or IP access lists restrict the service needs a cgroup of the service's own
 * and a kernel that takes their programs (service-access.h). Where svd knows from start-up that it
 * has neither, the unit fails to load with why, as a sandboxing key svd does not enforce does:
 * svd never runs a service without the lists. */
static int reload_check_access(Manager *m, const char *path, Unit **u, char **error) {
        const char *why = service_access_unsupported(&m->ctx, *u);
        if (!why)
                return 0;
        if (asprintf(error, "%s:%u: %s cannot be enforced here: %s; refusing to run the unit without them", path,
                     (*u)->access.line, service_access_keys(*u), why) < 0) {
                *error = NULL;
                return -ENOMEM;
        }
        *u = unit_free(*u);
        return 0;
}

/* A unit file whose name svd cannot use is told, with the reason, as systemd tells an invalid unit
 * name; at each load, since the file is skipped each time. Hidden files (".web.service") and
 * files of other types are passed over in silence. */
static void reload_warn_bad_name(Manager *m, const char *filename) {
        if (filename[0] == '.' || !unit_name_has_suffix(filename))
                return;
        _cleanup_free_ char *name = strdup(filename), *escaped = utf8_escape_for_log(filename);
        if (!name || !escaped) {
                log_oom();
                return;
        }
        const char *reason = unit_name_invalid_reason(unit_name_strip_suffix(name));
        if (reason)
                log_warning("Unit file '%s/%s' has a name svd cannot use: %s, ignoring.", m->unit_dir, escaped,
                            reason);
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
                if (unit_name_from_filename(de->d_name, &name) < 0) {
                        reload_warn_bad_name(m, de->d_name);
                        continue;
                }
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
                _cleanup_free_ char *path = NULL, *error = NULL;
                Unit *u = NULL;
                if (asprintf(&path, "%s/%s", m->unit_dir, de->d_name) < 0) {
                        path = NULL;
                        reload_entries_free(e, n);
                        return -ENOMEM;
                }
                int r = unit_load_file(path, x->name, m->ctx.unit_defaults, on_unit_warning, m, &u, &error);
                if (r < 0 && !error && asprintf(&error, "%s: %s", path, strerror(-r)) < 0)
                        error = NULL;
                if (r >= 0 && (reload_check_sandbox(m, path, &u, &error) < 0 ||
                               (u && reload_check_access(m, path, &u, &error) < 0))) {
                        unit_free(u);
                        reload_entries_free(e, n);
                        return -ENOMEM;
                }
                warn_limits_not_applied(&m->cgroup, path, u);
                if (unit_definition_new(path, u, error, m->ctx.uid, &x->def) < 0) {
                        reload_entries_free(e, n);
                        return -ENOMEM;
                }
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

static void manager_remove_service(Manager *m, size_t i) {
        Service *s = m->ctx.services[i];
        if (s->transient) {
                log_info("%s: connection instance ended, dropping it.", s->name);
                manager_sockets_accept_service_gone(m, s);
        } else
                log_info("%s: unit file removed, dropping the unit.", s->name);
        service_context_remove(&m->ctx, i);
}

static int on_gc(sd_event_source *source, void *userdata) {
        Manager *m = userdata;
        bool changed = TAKE_GENERIC(m->gc_resolve_deps, bool, false);

        for (size_t i = m->ctx.n_services; i > 0; i--) {
                Service *s = m->ctx.services[i - 1];
                if ((s->removed || s->transient) && service_may_change(s)) {
                        manager_remove_service(m, i - 1);
                        changed = true;
                } else if (service_apply_next_unit(s))
                        changed = true;
        }
        if (changed) {
                int r = deps_resolve(&m->ctx);
                if (r < 0)
                        log_error_errno(r, "Failed to resolve dependencies: %m");
        }
        return 0;
}

void manager_apply_pending(Manager *m, Service *s) {
        if (!service_apply_next_unit(s))
                return;
        int r = deps_resolve(&m->ctx);
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

/* Start-up (startup, into the empty table) and reload are one job, told differently. */
static int manager_load_dir(Manager *m, bool startup, char ***ret_added, char ***ret_changed, char ***ret_removed) {
        _cleanup_strv_free_ char **added = NULL, **changed = NULL, **removed = NULL;
        size_t n_added = 0, n_changed = 0, n_removed = 0;
        ReloadEntry *e = NULL;
        size_t n = 0;
        int r;

        assert(m);
        assert(!startup || m->ctx.n_services == 0);

        r = reload_scan(m, &e, &n);
        if (r < 0)
                return r; /* nothing changed */

        /* Which existing services still have a file. */
        _cleanup_free_ bool *seen = calloc(m->ctx.n_services ?: 1, sizeof(bool));
        if (!seen) {
                reload_entries_free(e, n);
                return -ENOMEM;
        }
        size_t n_old = m->ctx.n_services;

        for (size_t i = 0; i < n; i++) {
                ReloadEntry *x = &e[i];
                /* The table is sorted up to n_old; what this loop adds goes after that. */
                Service *s = NULL, **found = service_context_slot(&m->ctx, n_old, x->name);
                if (found) {
                        s = *found;
                        seen[found - m->ctx.services] = true;
                }

                if (!s) {
                        if (m->ctx.n_services >= MANAGER_UNITS_MAX)
                                continue;
                        r = service_new(&m->ctx, x->name, TAKE_PTR(x->def), &s);
                        if (r < 0)
                                break;
                        r = service_context_add(&m->ctx, s);
                        if (r < 0) {
                                service_free(s);
                                break;
                        }
                        if (!s->def->unit)
                                log_error("Failed to load unit '%s': %s", s->name, strna(s->def->load_error));
                        if (!startup)
                                log_info("%s: unit added.", s->name);
                        if (strv_extend_with_size(&added, &n_added, x->name) < 0)
                                r = -ENOMEM;
                        continue;
                }

                bool was_removed = s->removed;
                service_set_removed(s, false);
                if (x->def->hash == service_unit_hash(s) && !was_removed)
                        continue; /* the same file */
                if ((was_removed ? strv_extend_with_size(&added, &n_added, x->name)
                                 : strv_extend_with_size(&changed, &n_changed, x->name)) < 0)
                        r = -ENOMEM;
                if (service_may_change(s)) {
                        service_set_definition(s, TAKE_PTR(x->def));
                        if (!s->def->unit)
                                log_error("Failed to load unit '%s': %s", s->name, strna(s->def->load_error));
                        log_info("%s: unit file changed, reloaded.", s->name);
                } else {
                        service_set_next_definition(s, TAKE_PTR(x->def));
                        log_info("%s: unit file changed; the running process keeps running, the new definition "
                                 "applies once it has stopped.", s->name);
                }
        }
        reload_entries_free(e, n);

        /* Units whose file is gone: dropped now if settled, else when they settle. */
        for (size_t k = n_old; k > 0; k--) {
                Service *s = m->ctx.services[k - 1];
                if (seen[k - 1] || s->removed)
                        continue;
                /* An instance lives as long as its template: it takes the template's new definition. */
                Service *t = template_of(m, s->name, seen, n_old);
                if (t) {
                        _cleanup_(unit_definition_freep) UnitDefinition *def = NULL;
                        if (instance_load(t, s->name, &def) < 0) {
                                r = -ENOMEM;
                                continue;
                        }
                        if (def->hash == service_unit_hash(s))
                                continue;
                        if (strv_extend_with_size(&changed, &n_changed, s->name) < 0)
                                r = -ENOMEM;
                        if (service_may_change(s)) {
                                service_set_definition(s, TAKE_PTR(def));
                                log_info("%s: template changed, reloaded.", s->name);
                        } else {
                                service_set_next_definition(s, TAKE_PTR(def));
                                log_info("%s: template changed; the running process keeps running, the new "
                                         "definition applies once it has stopped.", s->name);
                        }
                        continue;
                }
                if (strv_extend_with_size(&removed, &n_removed, s->name) < 0)
                        r = -ENOMEM;
                if (service_may_change(s))
                        manager_remove_service(m, k - 1);
                else {
                        service_set_removed(s, true);
                        log_info("%s: unit file removed; the unit stays until it has stopped.", s->name);
                }
        }

        service_context_sort(&m->ctx);
        strv_sort(added);
        strv_sort(changed);
        strv_sort(removed);
        int k = deps_resolve(&m->ctx);
        if (k < 0) {
                if (startup)
                        return k;
                log_error_errno(k, "Failed to resolve dependencies: %m");
        }
        /* What starts with svd: the links as they are now, and the instances they name. */
        manager_refresh_unit_files(m, /* instantiate= */ true);
        if (startup) {
                /* The wanted file is read later (manager_restore_prepare): not overwritten here. */
                if (r < 0)
                        return r;
                /* Counted after the dependencies, whose errors (a Requires= of a unit that is not there, a
                 * chain too long) fail units too. */
                size_t failed = 0;
                for (size_t i = 0; i < m->ctx.n_services; i++)
                        failed += !m->ctx.services[i]->def->unit || m->ctx.services[i]->def->load_error;
                log_info("Loaded %zu units from '%s' (%zu failed).", m->ctx.n_services, m->unit_dir, failed);
                return 0;
        }
        manager_save_wanted(m);
        if (r < 0)
                return r;

        log_info("Reloaded '%s': %zu added, %zu changed, %zu removed.", m->unit_dir, n_added, n_changed, n_removed);
        if (ret_added)
                *ret_added = TAKE_PTR(added);
        if (ret_changed)
                *ret_changed = TAKE_PTR(changed);
        if (ret_removed)
                *ret_removed = TAKE_PTR(removed);
        return 0;
}

int manager_reload(Manager *m, char ***ret_added, char ***ret_changed, char ***ret_removed) {
        int r = manager_load_dir(m, /* startup= */ false, ret_added, ret_changed, ret_removed);
        if (r >= 0) {
                int k = manager_sockets_load(m);
                if (k < 0)
                        log_error_errno(k, "Failed to load the socket units: %m");
        }
        return r;
}

int manager_load_units(Manager *m) {
        return manager_load_dir(m, /* startup= */ true, NULL, NULL, NULL);
}

/* ---- the wanted state ---- */

void manager_save_wanted(Manager *m) {
        _cleanup_strv_free_ char **sockets = NULL;
        int r = manager_sockets_wanted_lines(m, &sockets);
        if (r >= 0)
                r = wanted_file_save(&m->ctx, m->socket_path, sockets);
        /* Told once while it keeps failing the same way (a directory in the file's place fails
         * every write), and once when it works again. */
        if (r < 0 && r != m->wanted_save_error)
                log_error_errno(r, "Failed to write the wanted-state file next to '%s', svd keeps no state "
                                "across a crash until it can: %m", m->socket_path);
        else if (r >= 0 && m->wanted_save_error < 0)
                log_notice("The wanted-state file next to '%s' is written again.", m->socket_path);
        m->wanted_save_error = r < 0 ? r : 0;
}

void manager_record_wanted(Manager *m, Service *s, bool start) {
        if (service_set_wanted(s, start ? WANTED_START : WANTED_STOP))
                manager_save_wanted(m);
}

void manager_restore_prepare(Manager *m) {
        _cleanup_free_ char *path = NULL;
        WantedProblems p;

        if (wanted_file_path(m->socket_path, &path) < 0) {
                log_oom();
                return;
        }
        int r = wanted_file_load(&m->ctx, m->socket_path, manager_socket_apply_wanted, m, &p);
        if (r == -EISDIR || r == -EBADFD)
                log_error("The wanted-state file '%s' is %s: svd cannot keep what is wanted across a crash "
                          "until it is removed; starting the default set.", path,
                          r == -EISDIR ? "a directory" : "not a regular file");
        else if (r < 0)
                log_error_errno(r, "Failed to read the wanted-state file '%s', starting the default set: %m", path);
        if (r > 0 && p.bad_lines > 0) {
                if (p.kept < 0)
                        log_warning("%s:%u: %s; %u bad lines in all, ignored; could not keep a copy (%s), "
                                    "writing a good file.", path, p.first_bad, p.first_bad_reason, p.bad_lines,
                                    strerror(-p.kept));
                else
                        log_warning("%s:%u: %s; %u bad lines in all, ignored; a copy of the file is kept as "
                                    "'%s%s', writing a good file.", path, p.first_bad, p.first_bad_reason,
                                    p.bad_lines, path, WANTED_CORRUPT_SUFFIX);
        }
        if (r > 0 && p.unknown_units > 0)
                log_warning("%s:%u: no unit '%s' (%u lines name units svd does not have), ignoring.", path,
                            p.first_unknown, p.first_unknown_name, p.unknown_units);
        m->crash_restored = r > 0;
        if (m->crash_restored)
                log_notice("The wanted-state file is there: the previous svd did not exit cleanly, restoring "
                           "what was wanted.");
}
