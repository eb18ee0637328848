/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* systemd's named system call sets for SystemCallFilter= ("@system-service", "@privileged", ...):
 * a static table, terminated by an entry whose name is NULL. A member is a system call name or
 * another group ("@aio"); names unknown to the running architecture are the user's to skip. */

typedef struct SyscallGroup {
        const char *name; /* with the '@' */
        const char *help;
        const char *const *members; /* NULL-terminated */
} SyscallGroup;

extern const SyscallGroup syscall_groups[];

const SyscallGroup *syscall_group_find(const char *name);
