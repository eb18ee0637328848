/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A unit as loaded (unit-definition.h). */
#include "unit-definition.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svd-log.h"

/* FNV-1a over the bytes u was parsed from (for a unit that did not load: over error), never 0. */
static uint64_t unit_definition_hash(const Unit *u, const char *error) {
        const char *p = u ? u->source : error;
        size_t n = u ? u->source_len : (error ? strlen(error) : 0);
        uint64_t h = UINT64_C(14695981039346656037);

        for (size_t i = 0; p && i < n; i++) {
                h ^= (unsigned char) p[i];
                h *= UINT64_C(1099511628211);
        }
        return h ?: 1;
}

/* User=/Group= of u into d->creds: 0, or -errno with *ret_error saying why (may stay NULL). */
static int definition_resolve(UnitDefinition *d, const Unit *u, uid_t svd_uid, char **ret_error) {
        if (u->dynamic_user && svd_uid != 0) {
                *ret_error = strdup("DynamicUser= needs svd to run as root (it changes to users it allocates): "
                                    "refusing to run the service as svd's own user");
                return -EPERM;
        }
        if (u->dynamic_user)
                return credentials_resolve_dynamic(u->user, u->group, u->supplementary_groups, &d->creds, ret_error);
        return credentials_resolve(u->user, u->group, u->supplementary_groups, &d->creds, ret_error);
}

int unit_definition_new(const char *path, Unit *u, const char *load_error, uid_t svd_uid, UnitDefinition **ret) {
        _cleanup_(unit_definition_freep) UnitDefinition *d = NULL;
        _cleanup_(unit_freep) Unit *unit = u;

        d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        d->hash = unit_definition_hash(unit, load_error);
        d->path = strdup(path ?: "");
        if (!d->path)
                return -ENOMEM;
        if (load_error && !(d->load_error = strdup(load_error)))
                return -ENOMEM;
        if (unit) {
                _cleanup_free_ char *err = NULL;
                int r = definition_resolve(d, unit, svd_uid, &err);
                if (r == -ESRCH && !unit->dynamic_user) {
                        /* Not there yet: loaded, and every start looks again (systemd's 217/USER). */
                        credentials_done(&d->creds);
                        if (!err && !(err = strdup("User=/Group= names a user or group that does not exist")))
                                return -ENOMEM;
                        log_warning("%s: %s: loaded, and each start fails while it does not.", d->path, err);
                        d->creds_error = TAKE_PTR(err);
                        d->unit = TAKE_PTR(unit);
                } else if (r < 0) {
                        credentials_done(&d->creds);
                        free(d->load_error);
                        if ((err ? asprintf(&d->load_error, "%s: %s", d->path, err)
                                 : asprintf(&d->load_error, "%s: Failed to resolve User=/Group=: %s", d->path,
                                            strerror(-r))) < 0) {
                                d->load_error = NULL;
                                return -ENOMEM;
                        }
                } else
                        d->unit = TAKE_PTR(unit);
        }
        *ret = TAKE_PTR(d);
        return 0;
}

UnitDefinition *unit_definition_free(UnitDefinition *d) {
        if (!d)
                return NULL;
        free(d->path);
        unit_free(d->unit);
        free(d->load_error);
        free(d->creds_error);
        credentials_done(&d->creds);
        free(d);
        return NULL;
}

int unit_definition_resolve_pending(UnitDefinition *d, char **ret_error) {
        Credentials c = {};

        assert(d && d->unit);
        if (!d->creds_error)
                return 0;
        int r = credentials_resolve(d->unit->user, d->unit->group, d->unit->supplementary_groups, &c, ret_error);
        if (r < 0)
                return r;
        credentials_done(&d->creds);
        d->creds = c;
        free(d->creds_error);
        d->creds_error = NULL;
        return 0;
}
