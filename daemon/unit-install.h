/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Enabling: whether a unit starts when svd starts, kept in the unit directory
 * as systemctl keeps it in /etc/systemd/system, so that it lasts across svd's
 * restarts and reboots, and a package or an admin can set it by hand.
 *
 * The directories are DIR/T.wants/ and DIR/T.requires/ of the unit directory
 * DIR, for each target T that svd starts (unit_target_is_started():
 * default.target, multi-user.target; and sockets.target, which svd starts
 * with its sockets). An entry NAME.service there counts when it is a
 * symbolic link (as does NAME.socket, a socket unit, named "NAME.socket"
 * in the lists below where a service is named without its suffix):
 *
 *   - to anything but /dev/null: NAME is linked. `svctl enable` makes
 *     "../NAME.service" ("../TEMPLATE@.service" for an instance), but where a
 *     link points is not looked at: its name says which unit it wants, as
 *     for systemd;
 *   - to /dev/null: NAME is held back, whatever its own file or another link
 *     says. `svctl disable` makes default.target.wants/NAME.service ->
 *     /dev/null for a unit whose own file names a target svd starts, which
 *     svd would start without any link.
 *
 * Anything else there (other names, files that are no symbolic link) is
 * ignored and counted; names that start with '.' (this module's temporary
 * links among them) are passed over in silence.
 *
 * A unit starts when svd starts (UNIT_FILE_ENABLED) when it is not held back
 * and it is linked, or its own file's WantedBy=/RequiredBy= names a target
 * svd starts. An instance of a template ("web@8080") starts only through a
 * link of its own: its template's WantedBy= names no instance. A template
 * itself never starts.
 *
 * Changes are made so that a crash or a power cut at any point leaves either
 * the old state or the new one, each durable when the call returns: a link
 * is made under a temporary name and renamed into place, and the directory
 * is fsync'd after each change (after a new directory, its parent too).
 * enable makes its links before it removes the /dev/null links that would
 * hold them back; disable removes the links before it makes one to
 * /dev/null. Nothing here logs.
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "basic/macros.h"
#include "unit.h"

#define UNIT_INSTALL_SOCKET_SUFFIX ".socket"

/* Whether name ("echo.socket") names a socket unit: the functions below take it with its suffix. */
bool unit_install_name_is_socket(const char *name);

/* The /dev/null a link holds a unit back with. */
#define UNIT_INSTALL_NULL "/dev/null"
/* Entries read from the directories together: past it, the rest are not read. */
#define UNIT_INSTALL_LINKS_MAX (4U * 65536U)

/* What `svctl is-enabled` prints, with systemd's names (systemctl(1), is-enabled). */
typedef enum UnitFileState {
        UNIT_FILE_ENABLED,  /* starts when svd starts */
        UNIT_FILE_DISABLED, /* has [Install] targets (or is held back), does not start */
        UNIT_FILE_STATIC,   /* no WantedBy=, RequiredBy= or Also=: nothing to enable */
        UNIT_FILE_INDIRECT, /* Also= only; a template with an instance linked */
        UNIT_FILE_ALIAS,    /* the name is an Alias= of another unit */
        UNIT_FILE_BAD,      /* the unit file did not load */
        _UNIT_FILE_STATE_MAX,
        _UNIT_FILE_STATE_INVALID = -EINVAL,
} UnitFileState;

const char *unit_file_state_to_string(UnitFileState s);
UnitFileState unit_file_state_from_string(const char *s);

/* The entries of the directories, as read at one moment. */
typedef struct UnitInstallLinks {
        char **linked;       /* names (without ".service") linked to anything but /dev/null; sorted */
        char **held;         /* names linked to /dev/null; sorted */
        unsigned ignored;    /* entries that count for nothing (see above) */
        char *first_ignored; /* the path of the first of them, or NULL */
        bool truncated;      /* more than UNIT_INSTALL_LINKS_MAX entries: the rest was not read */
} UnitInstallLinks;

/* Reads the directories of unit_dir; those missing count as empty. 0, or -errno of a directory that
 * could not be read (the links of the others are in *ret all the same), or -ENOMEM. */
int unit_install_links_read(const char *unit_dir, UnitInstallLinks *ret);
void unit_install_links_done(UnitInstallLinks *l);

bool unit_install_is_linked(const UnitInstallLinks *l, const char *name);
bool unit_install_is_held(const UnitInstallLinks *l, const char *name);

/* Whether u has a WantedBy=, RequiredBy= or Also= (anything `enable` could act on). */
bool unit_install_has_info(const Unit *u);

/* The state of the unit `name` (a unit, a template "web@" or an instance "web@8080", without
 * ".service"), whose [Install] is u's (the template's for an instance; NULL: it did not load). */
UnitFileState unit_file_state(const UnitInstallLinks *l, const char *name, const Unit *u);

/* One change to the directories, as systemctl reports it ("Created symlink PATH → SOURCE.",
 * "Removed \"PATH\"."). */
typedef enum UnitFileChangeType {
        UNIT_FILE_SYMLINK,
        UNIT_FILE_UNLINK,
        _UNIT_FILE_CHANGE_TYPE_MAX,
        _UNIT_FILE_CHANGE_TYPE_INVALID = -EINVAL,
} UnitFileChangeType;

const char *unit_file_change_type_to_string(UnitFileChangeType t);

typedef struct UnitFileChange {
        UnitFileChangeType type;
        char *path;   /* the link */
        char *source; /* where it points (UNIT_FILE_SYMLINK), else NULL */
} UnitFileChange;

typedef struct UnitFileChanges {
        UnitFileChange *items;
        size_t n;
} UnitFileChanges;

void unit_file_changes_done(UnitFileChanges *c);

/* Links `name` into the .wants/ directory of every target of u's WantedBy= that svd starts (a socket
 * unit's "NAME.socket" also into sockets.target.wants/), and the
 * .requires/ one of every such RequiredBy= target, pointing to "../FILE" (file: "web.service", or
 * "web@.service" for the instance "web@8080"); a link to anything but /dev/null that is there
 * already is kept. Then removes the links of name to /dev/null from every directory. Returns the
 * number of links svd will start name by (0: u names no target svd starts, and nothing was done),
 * or -errno with *ret_path the directory or link that could not be changed (malloc'd); what was
 * done until then stays done. Every change is appended to *changes. */
int unit_install_enable(const char *unit_dir, const char *name, const char *file, const Unit *u,
                        UnitFileChanges *changes, char **ret_path);

/* Removes every link of `name` that is not to /dev/null from the directories. Then, when hold (its
 * own file names a target svd starts), makes default.target.wants/NAME.service -> /dev/null
 * (sockets.target.wants/NAME.socket -> /dev/null),
 * unless a link to /dev/null holds it back already. 0, or -errno as unit_install_enable(). */
int unit_install_disable(const char *unit_dir, const char *name, bool hold, UnitFileChanges *changes,
                         char **ret_path);
