/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * DynamicUser= (systemd.exec(5)): a uid/gid pair from 61184-65519, allocated when a service starts
 * and released once its processes are gone.
 *
 * An allocation is a lock file named after the uid in a directory shared by every svd of the
 * machine (DYNAMIC_USER_LOCK_DIR), holding the user's name for the operator, with an exclusive
 * flock() on it. The kernel drops the lock with the last fd of it, so:
 *   - a crash of svd releases every uid it held, which is right: its services die with it
 *     (autokill, or PR_SET_PDEATHSIG in fallback mode), and the next svd allocates anew;
 *   - a re-exec keeps them, the service handing its lock fd over with the rest of its state;
 *   - two svds (another --socket) never hand out the same uid at once.
 * A uid in that directory whose file nobody holds locked is free: a lock file left by a crash
 * costs nothing. Locks rather than a table in svd's memory or a file rewritten at each change, for
 * the crash case above: nothing has to be cleaned up, and nothing can be left claimed forever.
 *
 * Which uid: a hint first (the owner of the unit's StateDirectory=, CacheDirectory= or
 * LogsDirectory= from an earlier run, so that the uid stays the same as long as those exist),
 * then one derived from a hash of the name, then the next ones in the range, wrapping around: the
 * same unit usually gets the same uid without any state, and a collision costs one more lock
 * attempt. A uid is skipped when the user or group database knows it (passwd, group), when
 * systemd holds it for a dynamic user of its own (/run/systemd/dynamic-uid/UID), when another
 * allocation holds it, or when some process still runs with it (one left over by KillMode=none,
 * say), so that no service ever shares its uid with what it did not start.
 */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define DYNAMIC_UID_MIN ((uid_t) 61184)
#define DYNAMIC_UID_MAX ((uid_t) 65519)
#define DYNAMIC_USER_LOCK_DIR "/run/svd/dynamic-uid"

bool dynamic_uid_is_valid(uid_t uid);

/* The uid the hash of name starts the search at. */
uid_t dynamic_user_hash_uid(const char *name);

/* Allocates a uid for name in lock_dir (created 0755 if missing): hint first when it is in the
 * range and free. Returns 0 with *ret_uid and *ret_lock_fd (O_CLOEXEC; the allocation lasts as
 * long as it is open), -EBUSY when every uid of the range is taken, or another -errno. */
int dynamic_user_acquire(const char *lock_dir, const char *name, uid_t hint, uid_t *ret_uid, int *ret_lock_fd);

/* Gives the uid back: removes its lock file and closes lock_fd. Returns -EBADF (closed). */
int dynamic_user_release(const char *lock_dir, uid_t uid, int lock_fd);

/* Whether some process (zombies aside) runs with uid as its real, effective, saved or file-system
 * uid or gid as one of those gids; 0 (root) is not looked for. true when /proc cannot tell. */
bool dynamic_user_ids_in_use(uid_t uid, gid_t gid);
