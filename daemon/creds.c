/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* User=, Group=, SupplementaryGroups= and capabilities: resolved in the parent, before the spawn. */
#include "creds.h"

#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macros.h"
#include "basic/parse-util.h"

/* Most supplementary groups taken from the group database (NGROUPS_MAX). */
#define CREDS_GROUPS_MAX 65536

void credentials_done(Credentials *c) {
        if (!c)
                return;
        free(c->groups);
        free(c->user);
        free(c->home);
        free(c->shell);
        *c = (Credentials){};
}

static int strdup_or_null(const char *s, char **ret) {
        if (!s) {
                *ret = NULL;
                return 0;
        }
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}

static int credentials_add_group(Credentials *c, gid_t g) {
        for (size_t i = 0; i < c->n_groups; i++)
                if (c->groups[i] == g)
                        return 0;
        if (c->n_groups >= CREDS_GROUPS_MAX)
                return -E2BIG;
        gid_t *a = reallocarray(c->groups, c->n_groups + 1, sizeof(gid_t));
        if (!a)
                return -ENOMEM;
        c->groups = a;
        c->groups[c->n_groups++] = g;
        return 0;
}

static int supplementary_add(Credentials *c, char *const *supplementary, char **ret_error) {
        for (char *const *g = supplementary; g && *g; g++) {
                struct group *gr;
                gid_t gid;
                if (parse_gid(*g, &gid) < 0) {
                        gr = getgrnam(*g);
                        if (!gr) {
                                if (ret_error && asprintf(ret_error, "Group '%s' does not exist", *g) < 0)
                                        *ret_error = NULL;
                                return -ESRCH;
                        }
                        gid = gr->gr_gid;
                }
                int r = credentials_add_group(c, gid);
                if (r < 0)
                        return r;
        }
        return 0;
}

_printf_(3, 4) static int fail_with(char **ret_error, int r, const char *format, ...) {
        va_list ap;
        va_start(ap, format);
        if (ret_error && vasprintf(ret_error, format, ap) < 0)
                *ret_error = NULL;
        va_end(ap);
        return r;
}

int credentials_resolve_dynamic(const char *user, const char *group, char *const *supplementary,
                                Credentials *ret, char **ret_error) {
        _cleanup_(credentials_done) Credentials c = {};
        struct group *gr;
        int r;

        assert(user);
        assert(ret);

        /* A static user of the name (or a number, which names no dynamic user): DynamicUser=
         * allocates nothing. */
        uid_t uid;
        if (parse_uid(user, &uid) >= 0 || getpwnam(user))
                return credentials_resolve(user, group, supplementary, ret, ret_error);
        if (!group && getgrnam(user))
                return fail_with(ret_error, -EEXIST,
                                 "DynamicUser=: a static group '%s' exists but no static user of that name", user);

        c.set = c.dynamic = true;
        c.dynamic_gid = true;
        if (group) {
                gid_t gid;
                gr = parse_gid(group, &gid) < 0 ? getgrnam(group) : NULL;
                if (parse_gid(group, &gid) >= 0) {
                        c.gid = gid;
                        c.dynamic_gid = false;
                } else if (gr) {
                        c.gid = gr->gr_gid;
                        c.dynamic_gid = false;
                } else if (getpwnam(group))
                        return fail_with(ret_error, -EEXIST,
                                         "DynamicUser=: a static user '%s' exists but no static group of that name",
                                         group);
        }
        if (strdup_or_null(user, &c.user) < 0 || strdup_or_null("/", &c.home) < 0 ||
            strdup_or_null("/usr/sbin/nologin", &c.shell) < 0)
                return -ENOMEM;
        r = supplementary_add(&c, supplementary, ret_error);
        if (r < 0)
                return r;
        *ret = c;
        c = (Credentials){};
        return 0;
}

int credentials_resolve(const char *user, const char *group, char *const *supplementary, Credentials *ret,
                        char **ret_error) {
        _cleanup_(credentials_done) Credentials c = {};
        struct passwd *pw = NULL;
        uid_t uid;
        gid_t gid;

        assert(ret);

        if (!user && !group && !(supplementary && *supplementary)) {
                *ret = (Credentials){};
                return 0;
        }
        c.set = true;

        if (user) {
                if (parse_uid(user, &uid) >= 0)
                        pw = getpwuid(uid);
                else
                        pw = getpwnam(user);
                if (!pw && parse_uid(user, &uid) < 0) {
                        if (ret_error && asprintf(ret_error, "User '%s' does not exist", user) < 0)
                                *ret_error = NULL;
                        return -ESRCH;
                }
                if (pw) {
                        c.uid = pw->pw_uid;
                        c.gid = pw->pw_gid;
                        if (strdup_or_null(pw->pw_name, &c.user) < 0 || strdup_or_null(pw->pw_dir, &c.home) < 0 ||
                            strdup_or_null(pw->pw_shell, &c.shell) < 0)
                                return -ENOMEM;
                } else {
                        /* A bare number without a passwd entry, as systemd allows. */
                        c.uid = uid;
                        c.gid = (gid_t) uid;
                }
        } else {
                c.uid = getuid();
                c.gid = getgid();
        }

        if (group) {
                struct group *gr;
                if (parse_gid(group, &gid) >= 0)
                        c.gid = gid;
                else if ((gr = getgrnam(group)))
                        c.gid = gr->gr_gid;
                else {
                        if (ret_error && asprintf(ret_error, "Group '%s' does not exist", group) < 0)
                                *ret_error = NULL;
                        return -ESRCH;
                }
        }

        /* Supplementary groups: those the user belongs to, as initgroups()
         * would set them; none for a user without a passwd entry. */
        if (pw) {
                int n = 64;
                for (;;) {
                        gid_t *g = reallocarray(c.groups, (size_t) n, sizeof(gid_t));
                        if (!g)
                                return -ENOMEM;
                        c.groups = g;
                        int k = n;
                        if (getgrouplist(pw->pw_name, c.gid, c.groups, &k) >= 0) {
                                c.n_groups = (size_t) k;
                                break;
                        }
                        if (k <= n || k > CREDS_GROUPS_MAX)
                                return -E2BIG;
                        n = k;
                }
        }

        int r = supplementary_add(&c, supplementary, ret_error);
        if (r < 0)
                return r;

        *ret = c;
        c = (Credentials){};
        return 0;
}
