/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Who may read a service's output: the groups and the rule. */
#include "varlink-access.h"

#include <grp.h>
#include <stdio.h>
#include <stdlib.h>

#include "basic/macros.h"
#include "basic/parse-util.h"

/* A group name or number; the number need not name a group in the group
 * database (as SupplementaryGroups= takes numbers). */
static int group_resolve(const char *name, char **ret_name, gid_t *ret_gid) {
        gid_t gid;

        if (parse_gid(name, &gid) >= 0) {
                struct group *gr = getgrgid(gid);
                *ret_name = strdup(gr ? gr->gr_name : name);
        } else {
                errno = 0;
                struct group *gr = getgrnam(name);
                if (!gr)
                        return errno > 0 ? -errno : -ESRCH;
                gid = gr->gr_gid;
                *ret_name = strdup(gr->gr_name);
        }
        if (!*ret_name)
                return -ENOMEM;
        *ret_gid = gid;
        return 0;
}

int varlink_access_resolve(VarlinkAccess *a, const char *output, const char *manage, const char **ret_which) {
        int r;

        assert(a);
        *a = (VarlinkAccess){ .output_gid = GID_INVALID, .manage_gid = GID_INVALID };

        if (!output) {
                /* The default only where the group exists. */
                r = group_resolve(VARLINK_OUTPUT_GROUP_DEFAULT, &a->output_group, &a->output_gid);
                if (r < 0 && r != -ESRCH && r != -ENOENT)
                        return r;
        } else if (output[0]) {
                r = group_resolve(output, &a->output_group, &a->output_gid);
                if (r < 0) {
                        *ret_which = "log";
                        return r == -ENOENT ? -ESRCH : r;
                }
        }
        if (manage && manage[0]) {
                r = group_resolve(manage, &a->manage_group, &a->manage_gid);
                if (r < 0) {
                        varlink_access_done(a);
                        *ret_which = "manage";
                        return r == -ENOENT ? -ESRCH : r;
                }
        }
        return 0;
}

void varlink_access_done(VarlinkAccess *a) {
        if (!a)
                return;
        free(a->output_group);
        free(a->manage_group);
        *a = (VarlinkAccess){ .output_gid = GID_INVALID, .manage_gid = GID_INVALID };
}

VarlinkGroups varlink_access_groups(const VarlinkAccess *a) {
        return (VarlinkGroups){ .manage = a->manage_gid, .output = a->output_gid };
}

bool varlink_access_may_read_output(const VarlinkCall *call, uid_t service_uid) {
        return varlink_call_peer_has(call, VARLINK_RIGHT_OUTPUT) || varlink_call_peer_uid(call) == service_uid;
}

char *varlink_access_output_hint(const VarlinkAccess *a, const char *name, uid_t owner, uid_t service_uid) {
        char svd_user[64], service_user[64], group[300];
        const char *who[4] = { "root" };
        size_t n = 1;
        char *s;

        if (owner != 0) {
                (void) snprintf(svd_user, sizeof(svd_user), "svd's user (uid " UID_FMT ")", owner);
                who[n++] = svd_user;
        }
        if (service_uid != owner && service_uid != 0) {
                (void) snprintf(service_user, sizeof(service_user), "the service's user (uid " UID_FMT ")",
                                service_uid);
                who[n++] = service_user;
        }
        if (a->output_group) {
                char number[16];
                (void) snprintf(number, sizeof(number), GID_FMT, a->output_gid);
                if (streq(number, a->output_group)) /* a number the group database does not name */
                        (void) snprintf(group, sizeof(group), "members of group %s", number);
                else
                        (void) snprintf(group, sizeof(group), "members of group '%s' (gid " GID_FMT ")",
                                        a->output_group, a->output_gid);
                who[n++] = group;
        }
        /* "root", "root and B", "root, B and C", "root, B, C and D" */
        if (asprintf(&s, "the output of '%s' is shown only to %s%s%s%s%s%s%s", name, who[0],
                     n > 2 ? ", " : n == 2 ? " and " : "", n > 1 ? who[1] : "",
                     n > 3 ? ", " : n == 3 ? " and " : "", n > 2 ? who[2] : "", n > 3 ? " and " : "",
                     n > 3 ? who[3] : "") < 0)
                return NULL;
        return s;
}
