/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * User=/Group= resolved to numbers in svd, before any child exists: the
 * child between clone3() and exec only applies them (no NSS in the child,
 * where a lock held by another thread of an NSS module could hang it).
 */

#include <stdbool.h>
#include <sys/types.h>

typedef struct Credentials {
        bool set;       /* change credentials at all (User= or Group= given) */
        /* DynamicUser=yes and no static user of that name: uid (and gid, unless dynamic_gid is
         * false because Group= names a static group) are allocated at each start
         * (dynamic-user.h) and written here by the service then. */
        bool dynamic;
        bool dynamic_gid;
        uid_t uid;
        gid_t gid;
        gid_t *groups;  /* supplementary groups of the user (initgroups semantics) */
        size_t n_groups;
        char *user;     /* resolved name, for USER/LOGNAME */
        char *home;
        char *shell;
} Credentials;

/* Resolves user (name or number; NULL: svd's own) and group (name or number;
 * NULL: the user's primary group), plus SupplementaryGroups= (names or
 * numbers) on top of the user's own groups. Returns 0, or -ESRCH with *ret_error
 * saying which name is unknown, or another -errno. */
int credentials_resolve(const char *user, const char *group, char *const *supplementary, Credentials *ret,
                        char **ret_error);
void credentials_done(Credentials *c);

/* DynamicUser=yes (systemd.exec(5)): user is the name (User=, or the one dynamic_user_name() derives
 * from the unit's). A static user of that name is used as credentials_resolve() would; so is a static
 * Group=. Otherwise ret->dynamic is set, the ids are left to the allocation at each start, there
 * are no supplementary groups but SupplementaryGroups=, the home is "/" and the shell
 * /usr/sbin/nologin, as systemd's dynamic users have. As systemd, a static group of the user's name
 * without a static user of that name (and the other way round for Group=) is an error: the pair
 * would not be the one the unit means. */
int credentials_resolve_dynamic(const char *user, const char *group, char *const *supplementary,
                                Credentials *ret, char **ret_error);
