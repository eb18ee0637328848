/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The [Unit] relations that order nothing (Requisite=, BindsTo=, PartOf=, Conflicts=, OnFailure=):
 * linked into the graph at load time, and read by deps.c at run time.
 */

#include <stdbool.h>

#include "service-def.h"

/* Fills the relation sets of every unit in the graph (after deps_resolve()'s own links). */
int deps_link_relations(ServiceContext *c);
/* Before a spawn of s: whether a Requisite= unit is not active (true, with the unit's name in
 * *ret_dep, valid until the table changes, and the reason, malloc'd or NULL, in *ret_reason). */
bool deps_requisite_missing(Service *s, const char **ret_dep, char **ret_reason);
