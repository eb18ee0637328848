/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Who may read a service's output on the control socket, as journald
 * decides who reads which journal: root, svd's own user, the user the
 * service runs as (its own service only), and members of the output group
 * (by default `adm` where that group exists, as Debian's journal access).
 * Everybody else gets the state of every service but none of its lines.
 * Who may change state is the varlink server's VARLINK_RIGHT_MANAGE (root,
 * svd's own user, members of the manage group: none by default).
 *
 * Groups are resolved (names or numbers) once, when svd starts.
 */

#include <stdbool.h>
#include <sys/types.h>

#include "varlink.h"

/* The group that may read every service's output when svd is given none. */
#define VARLINK_OUTPUT_GROUP_DEFAULT "adm"

typedef struct VarlinkAccess {
        char *output_group; /* as given, or the default; NULL: none */
        gid_t output_gid;
        char *manage_group; /* NULL: none */
        gid_t manage_gid;
} VarlinkAccess;

/* Resolves the groups: output NULL means the default where it exists, ""
 * none; manage NULL or "" none. An unknown name or number gives -ESRCH
 * with *ret_which naming the option's group. */
int varlink_access_resolve(VarlinkAccess *a, const char *output, const char *manage, const char **ret_which);
void varlink_access_done(VarlinkAccess *a);
VarlinkGroups varlink_access_groups(const VarlinkAccess *a);

/* Whether the caller may read the output of a service that runs as service_uid. */
bool varlink_access_may_read_output(const VarlinkCall *call, uid_t service_uid);
/* Who may read it, as one sentence without a final period: the reason
 * given to those who may not. NULL when out of memory. */
char *varlink_access_output_hint(const VarlinkAccess *a, const char *name, uid_t owner, uid_t service_uid);
