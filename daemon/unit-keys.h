/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The table of keys (unit-keys.c), private to the files that load a unit: every section and key svd
 * knows, each key with the parser of its value (unit-parse.h) and the field of Unit it sets. The
 * reader (unit-load.c) looks up each assignment here.
 */

#include <stdbool.h>

#include "unit-parse.h"

/* The row of key `name` in [section], or NULL for a key svd does not know. */
const UnitKey *unit_key_find(const char *section, const char *name);

/* Whether svd knows [section] in a unit of that kind ("Unit", "Install", and "Service" or "Socket"). */
bool unit_section_is_known(UnitKind kind, const char *section);
