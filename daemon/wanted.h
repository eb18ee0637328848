/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The wanted state, kept so that svd can restore it after a crash.
 *
 * What svd should run is what is enabled to start with it (its own
 * WantedBy=default.target, or the .wants/ links: unit-install.h) plus what
 * an operator changed: a unit started over varlink (Start, Restart) is
 * wanted, one stopped (Stop) is not, whatever its enabling. svd writes
 * those overrides to the file "wanted" in its runtime directory (next to
 * the control socket) whenever one changes, and once at start-up. The file
 * is replaced crash-safely: written to a temporary file, fsync'd, renamed
 * over the old one, and the directory fsync'd, so a crash at any instant
 * leaves either the old or the new file.
 *
 * Enabling and disabling are about the next clean start, not about what is
 * wanted now: when they change whether a unit without an override starts
 * with svd, the manager records what was wanted until then as its override
 * (a unit disabled while its enabling wanted it stays wanted, one enabled
 * while unwanted stays unwanted), so that a restore after a crash brings
 * back what ran, and a clean start what is enabled.
 *
 * The file exists only while svd runs: a clean exit (SIGTERM/SIGINT, all
 * services stopped) removes it, so the next svd starts what is enabled, as
 * systemd does at boot. Finding it at start-up means the previous svd did
 * not exit cleanly (crash, kill -9, OOM): svd then starts what was wanted
 * (what is enabled, plus operator starts, minus operator stops) and marks those
 * services "restored".
 *
 * Socket units are kept the same way, as "start NAME.socket" or "stop
 * NAME.socket" (manager-socket.h): one started by hand is bound again after a
 * crash, one stopped by hand is not, whatever its enabling.
 *
 * Format, one override a line: "start NAME" or "stop NAME"; '#' lines are
 * comments. A malformed file (cut short, binary, a line too long, an unknown
 * verb, an invalid name) must not stop svd from starting: the lines that
 * parse are honoured, the rest ignored, the loader reports the first bad
 * line and keeps a copy of the file as "wanted.corrupt" next to it for the
 * operator, and the start-up's write replaces the file by a good one. A
 * well-formed line naming a unit svd no longer has (its file removed while
 * svd was down) is reported too, but is no corruption.
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "service-def.h"

#define WANTED_FILE_NAME "wanted"
#define WANTED_CORRUPT_SUFFIX ".corrupt"
/* Bytes of the wanted file that are read. */
#define WANTED_FILE_MAX (8U << 20)
/* A line svd writes is a verb, a space and a unit name (at most 255 bytes). */
#define WANTED_LINE_MAX 512U

const char *wanted_override_to_string(WantedOverride w);
WantedOverride wanted_override_from_string(const char *s);


/* Path of the wanted file for a control socket path (malloc'd). */
int wanted_file_path(const char *socket_path, char **ret);

/* What wanted_file_load() found wrong; the reasons are static strings. */
typedef struct WantedProblems {
        unsigned bad_lines;     /* malformed lines, ignored */
        unsigned first_bad;     /* the first one's number */
        const char *first_bad_reason;
        int kept;               /* bad_lines > 0: 0 when the copy (WANTED_CORRUPT_SUFFIX) was made, or -errno */
        unsigned unknown_units; /* well-formed lines naming no unit svd has, ignored */
        unsigned first_unknown;
        char first_unknown_name[WANTED_LINE_MAX];
} WantedProblems;

/* Applies the override of a line naming a unit that is no service (NAME.socket, whose name has a
 * '.'): 1 when it names such a unit, 0 when not (the name is then looked up as a service's). */
typedef int (*WantedApplyFn)(const char *name, WantedOverride w, void *userdata);

/* Reads the file into the services' `wanted` fields (and, through other, the other units'), and
 * what was wrong with it into *ret_problems. Returns 1 when the file was there (the previous
 * svd crashed), 0 when not, -EISDIR when its path is a directory, -EBADFD
 * when it is not a regular file, or another -errno. */
int wanted_file_load(ServiceContext *c, const char *socket_path, WantedApplyFn other, void *userdata,
                     WantedProblems *ret_problems);

/* Writes every service's override, and the lines of other ("start NAME.socket"), crash-safely. */
int wanted_file_save(ServiceContext *c, const char *socket_path, char **other);

/* Removes the file (clean exit). */
int wanted_file_remove(const char *socket_path);
