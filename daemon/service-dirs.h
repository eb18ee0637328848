/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * RuntimeDirectory= and the other directories of a service (service-dirs.c).
 */

#include "service-def.h"

/* Creates the unit's RuntimeDirectory= and the other directories (mode, owner) and adds their
 * $*_DIRECTORY variables to *env: 0, or -errno with *ret_error saying which (may stay NULL). */
int service_dirs_prepare(Service *s, char ***env, char **ret_error);
/* The service's processes are gone: removes RuntimeDirectory= unless RuntimeDirectoryPreserve=
 * keeps it; for_good: the service stopped (no restart follows), which ends =restart's keeping. */
void service_dirs_remove_runtime(Service *s, bool for_good);

/* The directory below which the directories of type t go (/run, /var/lib, ... for a privileged svd):
 * 0, -ENXIO when an unprivileged svd's environment names none, -ENOMEM. */
int service_dirs_base(ExecDirectoryType t, char **ret);

/* Where the directories of type t of s are, as absolute paths (below BASE/private for DynamicUser=,
 * where the data are), NULL-terminated in *ret (NULL when it has none): 0, -ENXIO (no base
 * directory), -ENOMEM. */
int service_dirs_paths(const Service *s, ExecDirectoryType t, char ***ret);

/* DynamicUser=: the uid a run of s had before, kept while its StateDirectory=, CacheDirectory= or
 * LogsDirectory= (below BASE/private) exist; (uid_t) -1 when none does. */
uid_t service_dirs_dynamic_hint(Service *s);
