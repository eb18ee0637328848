/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The wanted state, kept so that svd can restore it after a crash.
 *
 * What svd should run is WantedBy=default.target plus what an operator
 * changed: a unit started over varlink (Start, Restart) is wanted, one
 * stopped (Stop) is not, whatever its WantedBy=. svd writes those overrides
 * to the file "wanted" in its runtime directory (next to the control
 * socket) whenever one changes, and once at start-up. The file is replaced
 * crash-safely: written to a temporary file, fsync'd, renamed over the old
 * one, and the directory fsync'd, so a crash at any instant leaves either
 * the old or the new file.
 *
 * The file exists only while svd runs: a clean exit (SIGTERM/SIGINT, all
 * services stopped) removes it, so the next svd starts the default set, as
 * systemd does at boot. Finding it at start-up means the previous svd did
 * not exit cleanly (crash, kill -9, OOM): svd then starts what was wanted
 * (default set plus operator starts, minus operator stops) and marks those
 * services "restored".
 *
 * Format, one override a line: "start NAME" or "stop NAME"; '#' lines are
 * comments. Unknown or malformed lines are ignored (the file is ours, but a
 * half-understood file must not stop svd from starting).
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#define WANTED_FILE_NAME "wanted"
/* Bytes of the wanted file that are read. */
#define WANTED_FILE_MAX (8U << 20)

typedef enum WantedOverride {
        WANTED_DEFAULT, /* as WantedBy= says */
        WANTED_START,
        WANTED_STOP,
        _WANTED_OVERRIDE_MAX,
        _WANTED_OVERRIDE_INVALID = -EINVAL,
} WantedOverride;

const char *wanted_override_to_string(WantedOverride w);
WantedOverride wanted_override_from_string(const char *s);

typedef struct ServiceContext ServiceContext;

/* Path of the wanted file for a control socket path (malloc'd). */
int wanted_file_path(const char *socket_path, char **ret);

/* Reads the file into the services' `wanted` fields. Returns 1 when the
 * file was there (the previous svd crashed), 0 when not, or -errno. */
int wanted_file_load(ServiceContext *c, const char *socket_path);

/* Writes every service's override, crash-safely. */
int wanted_file_save(ServiceContext *c, const char *socket_path);

/* Removes the file (clean exit). */
int wanted_file_remove(const char *socket_path);
