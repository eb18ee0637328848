/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The command of ExecStart=: a name is looked up in PATH by the parent,
 * before the spawn, so that the child only execs. */

/* Looks up a command name in a PATH-like list of directories; an absolute
 * or relative path containing '/' is returned as is. *ret is malloc'd.
 * -ENOENT when no executable file of that name exists. */
int spawn_find_executable(const char *name, const char *search_path, char **ret);

#define SPAWN_DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
