/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A unit as loaded: its file, the unit parsed from it (or why it did not load), the credentials of
 * its User=/Group= and the hash a reload tells a changed file by. A reload builds one per unit file
 * and a service takes it whole (service_set_definition()), or keeps it pending while it runs.
 */

#include <stdint.h>
#include <sys/types.h>

#include "basic/macros.h"
#include "creds.h"
#include "unit.h"

typedef struct UnitDefinition {
        char *path;        /* the unit file as svd read it; "" for none */
        Unit *unit;        /* NULL when it did not load */
        char *load_error;  /* why it did not load (file, line, reason), or why it left the graph */
        Credentials creds; /* User=/Group= resolved when it was built */
        /* Why User=/Group= could not be resolved when it was built (the user or a group does not exist
         * yet: a package's postinst makes it after it installs the unit), or NULL. creds are empty then,
         * and every start looks them up again first (unit_definition_resolve_pending()). */
        char *creds_error;
        uint64_t hash;     /* of the bytes the unit was parsed from (of the error when it did not load) */
} UnitDefinition;

/* Builds a definition from the unit u (taken) loaded from path, or from its load_error when u is NULL.
 * User=/Group= are resolved now. When a user or group does not exist (yet), the unit loads with
 * creds_error set, as systemd loads it and fails its start; any other failure leaves the definition
 * with the error instead of the unit. svd_uid is svd's own user: DynamicUser= needs root. 0, or
 * -ENOMEM (u is freed). */
int unit_definition_new(const char *path, Unit *u, const char *load_error, uid_t svd_uid, UnitDefinition **ret);
UnitDefinition *unit_definition_free(UnitDefinition *d);

/* For a definition with creds_error: looks User=/Group= up again. 0 once they resolve (creds set,
 * creds_error cleared), else -errno with *ret_error saying which does not exist (may stay NULL). */
int unit_definition_resolve_pending(UnitDefinition *d, char **ret_error);
DEFINE_TRIVIAL_CLEANUP_FUNC(UnitDefinition *, unit_definition_free);
