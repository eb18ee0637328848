/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Enabling (manager.h, unit-install.h): the links read into every service's state, and enable and
 * disable of the units svd loaded, with Also=, as systemctl has them. */
#include "manager.h"

#include <stdio.h>
#include <string.h>

#include "basic/strv.h"
#include "basic/unit-name.h"
#include "service.h"
#include "svd-log.h"

/* Also= chains are followed at most this deep (a cycle ends earlier: each unit is visited once). */
#define INSTALL_ALSO_DEPTH_MAX 16U

/* The definition a unit's [Install] is read from: the newest a reload read (pending while it runs). */
static const UnitDefinition *newest_def(const Service *s) {
        return s->next ?: s->def;
}

/* "web.service" of a unit, "web@.service" of an instance: the file its definition was read from. */
static const char *unit_file_of(const Service *s) {
        const char *path = newest_def(s)->path, *slash = strrchr(path, '/');
        return slash ? slash + 1 : path;
}

static bool is_instance(const char *name) {
        return strchr(name, '@') && !unit_name_is_template(name);
}

/* Gives every service its state from m->links, pinning the wish of those whose start-up changed
 * when pin (see manager.h). */
static void manager_apply_file_states(Manager *m, bool pin) {
        bool save = false;

        for (size_t i = 0; i < m->ctx.n_services; i++) {
                Service *s = m->ctx.services[i];
                bool was = s->file_state == UNIT_FILE_ENABLED;
                UnitFileState state = unit_file_state(&m->links, s->name, newest_def(s)->unit);
                if (!service_set_file_state(s, state) || !pin || s->wanted != WANTED_DEFAULT ||
                    unit_name_is_template(s->name))
                        continue;
                save = service_set_wanted(s, was ? WANTED_START : WANTED_STOP) || save;
        }
        /* A socket unit whose enabling changed keeps, until the next clean start, what it does now. */
        for (size_t i = 0; i < m->n_sockets; i++) {
                Socket *so = m->sockets[i];
                UnitFileState state = manager_socket_file_state(m, so);
                bool changed = (state == UNIT_FILE_ENABLED) != (so->file_state == UNIT_FILE_ENABLED);
                so->file_state = state;
                if (changed && pin && so->wanted == WANTED_DEFAULT)
                        save = manager_socket_set_wanted(so, so->fds ? WANTED_START : WANTED_STOP) || save;
        }
        if (save)
                manager_save_wanted(m);
}

UnitFileState manager_socket_file_state(Manager *m, const Socket *so) {
        _cleanup_free_ char *name = NULL;
        if (!so->unit)
                return UNIT_FILE_BAD;
        if (asprintf(&name, "%s%s", so->name, UNIT_INSTALL_SOCKET_SUFFIX) < 0)
                return so->file_state; /* out of memory: as it was */
        return unit_file_state(&m->links, name, so->unit);
}

/* Reads the links into m->links. What is wrong with them is told when warn (start-up, reload):
 * anybody may ask about unit files, and each question reads them again. */
static void manager_read_links(Manager *m, bool warn) {
        int level = warn ? LOG_WARNING : LOG_DEBUG;
        UnitInstallLinks l;

        int r = unit_install_links_read(m->unit_dir, &l);
        if (r == -ENOMEM) {
                log_oom();
                return; /* the last links read stay */
        }
        if (r < 0)
                log_full_errno(level, r, "Failed to read the .wants/ links of '%s', some are missing: %m",
                               m->unit_dir);
        if (l.truncated)
                log_full(warn ? LOG_ERR : LOG_DEBUG,
                         "More than %u entries in the .wants/ directories of '%s', ignoring the rest.",
                         UNIT_INSTALL_LINKS_MAX, m->unit_dir);
        if (l.ignored > 0)
                log_full(level,
                         "'%s' is no symbolic link named after a unit file (%u such entries in the .wants/ "
                         "directories of '%s'), ignoring.",
                         strna(l.first_ignored), l.ignored, m->unit_dir);
        unit_install_links_done(&m->links);
        m->links = l;
}

void manager_refresh_unit_files(Manager *m, bool instantiate) {
        assert(m);

        manager_read_links(m, /* warn= */ instantiate);
        for (char **n = instantiate ? m->links.linked : NULL; n && *n; n++) {
                /* Socket units are loaded after the services, and judged by manager-socket.c. */
                if (unit_install_name_is_socket(*n) || service_find(&m->ctx, *n))
                        continue;
                /* A link to an instance of a loaded template creates it, as a start would. */
                if (is_instance(*n) && manager_instantiate(m, *n))
                        continue;
                log_warning("'%s/*.wants/%s.service' names no unit svd has loaded, ignoring.", m->unit_dir,
                            *n);
        }
        manager_apply_file_states(m, /* pin= */ false);
}

void manager_install_failure_done(ManagerInstallFailure *f) {
        if (!f)
                return;
        free(f->name);
        free(f->message);
        free(f->path);
        *f = (ManagerInstallFailure){};
}

/* r, with the failure filled in (message and path may be NULL; they are copied). */
static int install_fail(ManagerInstallFailure *f, int r, const char *name, const char *message, char *path) {
        _cleanup_free_ char *p = path;

        assert(r < 0);
        manager_install_failure_done(f);
        f->name = strdup(name);
        f->message = message ? strdup(message) : NULL;
        f->path = TAKE_PTR(p);
        if (!f->name || (message && !f->message))
                return -ENOMEM;
        return r;
}

/* The unit file's service of name: the unit (or the one an alias names), or an instance of a loaded
 * template, created when create (an instance that is enabled is in the table, as one that is
 * started). NULL when there is none, or its file is gone. */
static Service *install_lookup(Manager *m, const char *name, bool create) {
        Service *s = service_lookup(&m->ctx, name);
        if (!s && create)
                s = manager_instantiate(m, name);
        return s && !s->removed ? s : NULL;
}

typedef struct InstallRun {
        bool enable;
        UnitFileChanges *changes;
        bool carries_install_info;
        char **visited;
        ManagerInstallFailure *failure;
} InstallRun;

static int install_one(Manager *m, InstallRun *run, const char *name, unsigned depth);

static int install_also(Manager *m, InstallRun *run, const Unit *u, unsigned depth) {
        if (!u || !u->also)
                return 0;
        run->carries_install_info = true;
        if (depth >= INSTALL_ALSO_DEPTH_MAX)
                return 0;
        for (char **a = u->also; *a; a++) {
                int r = install_one(m, run, *a, depth + 1);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The names of what u's [Install] names, for the refusal's message: "WantedBy=a.target b.target". */
static char *install_targets_text(const Unit *u) {
        _cleanup_free_ char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        if (!f)
                return NULL;
        for (char **t = u->wanted_by; t && *t; t++)
                fprintf(f, "%s%s", t == u->wanted_by ? "WantedBy=" : " ", *t);
        for (char **t = u->required_by; t && *t; t++)
                fprintf(f, "%s%s", t != u->required_by ? " " : u->wanted_by ? ", RequiredBy=" : "RequiredBy=",
                        *t);
        if (fclose(f) != 0)
                return NULL;
        return TAKE_PTR(buf);
}

static int install_enable(Manager *m, InstallRun *run, Service *s, unsigned depth) {
        const UnitDefinition *def = newest_def(s);
        const Unit *u = def->unit;
        char *path = NULL;

        if (unit_name_is_template(s->name))
                return install_fail(run->failure, -EBADR, s->name,
                                    "a template is enabled as an instance, NAME@INSTANCE", NULL);
        if (!u)
                return install_fail(run->failure, -ENOEXEC, s->name, def->load_error ?: "the unit file did not load",
                                    NULL);
        int r = unit_install_enable(m->unit_dir, s->name, unit_file_of(s), u, run->changes, &path);
        if (r < 0)
                return install_fail(run->failure, r, s->name, NULL, path);
        if (r > 0)
                run->carries_install_info = true;
        else if (u->wanted_by || u->required_by) {
                _cleanup_free_ char *targets = install_targets_text(u), *message = NULL;
                if (!targets || asprintf(&message,
                                         "%s names no target svd starts; svd starts what default.target and "
                                         "multi-user.target want",
                                         targets) < 0)
                        return -ENOMEM;
                return install_fail(run->failure, -EBADR, s->name, message, NULL);
        }
        log_info("%s: enabled%s.", s->name, r > 0 ? "" : " (static: nothing to enable)");
        return install_also(m, run, u, depth);
}

static int install_disable(Manager *m, InstallRun *run, Service *s, unsigned depth) {
        const Unit *u = newest_def(s)->unit;
        char *path = NULL;
        int r;

        if (unit_name_is_template(s->name)) {
                /* A template's links are those of its instances, as systemctl disable takes them. */
                _cleanup_strv_free_ char **instances = NULL;
                for (char **n = m->links.linked; n && *n; n++)
                        if (strneq(*n, s->name, strlen(s->name)) && strv_extend(&instances, *n) < 0)
                                return -ENOMEM;
                for (char **n = instances; n && *n; n++) {
                        r = unit_install_disable(m->unit_dir, *n, /* hold= */ false, run->changes, &path);
                        if (r < 0)
                                return install_fail(run->failure, r, *n, NULL, path);
                }
        } else {
                /* Held back only where its own file would start it: an instance never is. */
                bool hold = u && u->wanted_by_default && !is_instance(s->name);
                r = unit_install_disable(m->unit_dir, s->name, hold, run->changes, &path);
                if (r < 0)
                        return install_fail(run->failure, r, s->name, NULL, path);
        }
        if (unit_install_has_info(u))
                run->carries_install_info = true;
        log_info("%s: disabled.", s->name);
        return install_also(m, run, u, depth);
}

/* A socket unit's enable or disable: links named NAME.socket (unit-install.h). */
static int install_socket(Manager *m, InstallRun *run, Socket *so, unsigned depth) {
        _cleanup_free_ char *name = NULL;
        const char *file = strrchr(so->path, '/');
        char *path = NULL;
        int r;

        if (asprintf(&name, "%s%s", so->name, UNIT_INSTALL_SOCKET_SUFFIX) < 0)
                return -ENOMEM;
        if (strv_contains(run->visited, name))
                return 0;
        if (strv_extend(&run->visited, name) < 0)
                return -ENOMEM;
        if (!so->unit)
                return install_fail(run->failure, -ENOEXEC, name, so->load_error ?: "the unit file did not load",
                                    NULL);
        if (!run->enable) {
                r = unit_install_disable(m->unit_dir, name, so->unit->wanted_by_default, run->changes, &path);
                if (r < 0)
                        return install_fail(run->failure, r, name, NULL, path);
                if (unit_install_has_info(so->unit))
                        run->carries_install_info = true;
                log_info("%s: disabled.", name);
                return install_also(m, run, so->unit, depth);
        }
        r = unit_install_enable(m->unit_dir, name, file ? file + 1 : so->path, so->unit, run->changes, &path);
        if (r < 0)
                return install_fail(run->failure, r, name, NULL, path);
        if (r > 0)
                run->carries_install_info = true;
        else if (so->unit->wanted_by || so->unit->required_by) {
                _cleanup_free_ char *targets = install_targets_text(so->unit), *message = NULL;
                if (!targets || asprintf(&message,
                                         "%s names no target svd starts; svd starts what default.target, "
                                         "multi-user.target and sockets.target want",
                                         targets) < 0)
                        return -ENOMEM;
                return install_fail(run->failure, -EBADR, name, message, NULL);
        }
        log_info("%s: enabled%s.", name, r > 0 ? "" : " (static: nothing to enable)");
        return install_also(m, run, so->unit, depth);
}

static int install_one(Manager *m, InstallRun *run, const char *name, unsigned depth) {
        if (unit_install_name_is_socket(name)) {
                Socket *so = manager_socket_find(m, name);
                if (!so)
                        return install_fail(run->failure, -ESRCH, name, NULL, NULL);
                return install_socket(m, run, so, depth);
        }
        Service *s = install_lookup(m, name, /* create= */ run->enable);
        if (!s)
                return install_fail(run->failure, -ESRCH, name, NULL, NULL);
        if (strv_contains(run->visited, s->name))
                return 0;
        if (strv_extend(&run->visited, s->name) < 0)
                return -ENOMEM;
        return run->enable ? install_enable(m, run, s, depth) : install_disable(m, run, s, depth);
}

int manager_install(Manager *m, const char *name, bool enable, UnitFileChanges *changes,
                    bool *ret_carries_install_info, ManagerInstallFailure *ret_failure) {
        InstallRun run = { .enable = enable, .changes = changes, .failure = ret_failure };

        assert(m);
        assert(name);
        assert(changes);
        assert(ret_carries_install_info);
        assert(ret_failure);

        /* The links as they are now: a template's instances, what the states change from. */
        manager_read_links(m, /* warn= */ false);
        manager_apply_file_states(m, /* pin= */ false);
        int r = install_one(m, &run, name, 0);
        strv_free(run.visited);
        /* What changed, also when it failed half way, and the wishes that stay as they were. */
        manager_read_links(m, /* warn= */ false);
        manager_apply_file_states(m, /* pin= */ true);
        if (r == -ENOMEM)
                return log_oom();
        if (r >= 0)
                *ret_carries_install_info = run.carries_install_info;
        return r;
}

int manager_unit_file_state(Manager *m, const char *name, UnitFileState *ret_state, const char **ret_path) {
        _cleanup_free_ char *stripped = strdup(name), *template = NULL; /* "web@" */
        Service *s;

        assert(m);
        if (!stripped)
                return -ENOMEM;
        unit_name_strip_suffix(stripped);
        manager_refresh_unit_files(m, /* instantiate= */ false);

        if (unit_install_name_is_socket(stripped)) {
                Socket *so = manager_socket_find(m, stripped);
                if (!so)
                        return -ESRCH;
                *ret_state = so->file_state;
                *ret_path = so->path;
                return 0;
        }

        s = install_lookup(m, stripped, /* create= */ false);
        if (!s && is_instance(stripped) && unit_name_template_of(stripped, &template) >= 0) {
                /* An instance that is not in the table: its template's file. */
                Service *t = install_lookup(m, template, /* create= */ false);
                if (t) {
                        *ret_state = unit_file_state(&m->links, stripped, newest_def(t)->unit);
                        *ret_path = newest_def(t)->path;
                        return 0;
                }
        }
        if (!s)
                return -ESRCH;
        *ret_state = streq(s->name, stripped) ? s->file_state : UNIT_FILE_ALIAS;
        *ret_path = newest_def(s)->path;
        return 0;
}
