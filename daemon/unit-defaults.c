/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The values of the keys a unit file does not set (unit.h's UnitDefaults): the built-in ones, and
 * others given as text, which the key's own row of the table parses as in a unit file. */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include "unit-keys.h"
#include "unit-parse.h"

/* A field of UnitDefaults and the field of Unit of the same name. */
#define DEFAULT_FIELD(key, f)                                                                                \
        { key, offsetof(UnitDefaults, f), offsetof(Unit, f), sizeof(((UnitDefaults *) NULL)->f) }
#define SAME_FIELD(f)                                                                                        \
        _Static_assert(sizeof(((UnitDefaults *) NULL)->f) == sizeof(((Unit *) NULL)->f), "Unit." #f)

SAME_FIELD(timeout_start_usec);
SAME_FIELD(timeout_stop_usec);
SAME_FIELD(restart_usec);
SAME_FIELD(start_limit_interval_usec);
SAME_FIELD(start_limit_burst);
SAME_FIELD(limit_nofile);
SAME_FIELD(limit_nproc);
SAME_FIELD(limit_core);

static const struct {
        const char *key; /* in [Service] */
        size_t offset;   /* in UnitDefaults */
        size_t unit_offset;
        size_t size;
} unit_default_fields[] = {
        DEFAULT_FIELD("TimeoutStartSec", timeout_start_usec),
        DEFAULT_FIELD("TimeoutStopSec", timeout_stop_usec),
        DEFAULT_FIELD("RestartSec", restart_usec),
        DEFAULT_FIELD("StartLimitIntervalSec", start_limit_interval_usec),
        DEFAULT_FIELD("StartLimitBurst", start_limit_burst),
        DEFAULT_FIELD("LimitNOFILE", limit_nofile),
        DEFAULT_FIELD("LimitNPROC", limit_nproc),
        DEFAULT_FIELD("LimitCORE", limit_core),
};

void unit_defaults_apply(Unit *u, const UnitDefaults *d) {
        assert(u);
        if (!d)
                return;
        for (size_t i = 0; i < ELEMENTSOF(unit_default_fields); i++)
                memcpy((uint8_t *) u + unit_default_fields[i].unit_offset,
                       (const uint8_t *) d + unit_default_fields[i].offset, unit_default_fields[i].size);
}

void unit_defaults_init(UnitDefaults *d) {
        assert(d);
        *d = (UnitDefaults){};
        for (size_t i = 0; i < ELEMENTSOF(unit_default_fields); i++)
                memcpy((uint8_t *) d + unit_default_fields[i].offset,
                       (const uint8_t *) &unit_defaults + unit_default_fields[i].unit_offset,
                       unit_default_fields[i].size);
}

static ssize_t unit_default_field_find(const char *key) {
        for (size_t i = 0; i < ELEMENTSOF(unit_default_fields); i++)
                if (streq(unit_default_fields[i].key, key))
                        return (ssize_t) i;
        return -ENOENT;
}

bool unit_defaults_has_key(const char *key) {
        return unit_default_field_find(key) >= 0;
}

int unit_defaults_set(UnitDefaults *d, const char *key, const char *value, const char *path, unsigned line,
                      const char *name, char **ret_error) {
        _cleanup_(unit_freep) Unit *u = NULL;
        ssize_t i;
        int r;

        assert(d);
        assert(key);
        assert(value);
        assert(path);
        assert(name);

        i = unit_default_field_find(key);
        if (i < 0)
                return (int) i;
        const UnitKey *k = unit_key_find("Service", key);
        assert(k && k->parse && k->offset == unit_default_fields[i].unit_offset);

        /* A unit with the defaults so far, whose field the key's parser sets as in a unit file: the
         * same syntax, limits and messages. An empty value goes back to the built-in default. */
        u = malloc(sizeof(Unit));
        if (!u)
                return -ENOMEM;
        *u = unit_defaults;
        unit_defaults_apply(u, d);
        UnitParser p = {
                .path = path,
                .unit = u,
                .base = &unit_defaults,
                .line = line,
                .key = name,
                .value = value,
        };
        r = k->parse(&p, k, (uint8_t *) u + k->offset);
        if (r < 0 || p.error < 0) {
                if (p.error == 0)
                        parser_oom(&p);
                if (ret_error)
                        *ret_error = TAKE_PTR(p.error_message);
                free(p.error_message);
                return p.error;
        }
        memcpy((uint8_t *) d + unit_default_fields[i].offset, (const uint8_t *) u + k->offset,
               unit_default_fields[i].size);
        return 0;
}
