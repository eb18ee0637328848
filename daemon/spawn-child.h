/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The child side of spawn_process(): what runs between clone3() and
 * execve(). The child may share svd's memory (the vfork path), so it uses
 * only async-signal-safe calls, never allocates, never logs and writes
 * nothing of svd's but its own stack (and errno). It only applies what the
 * parent prepared in SpawnParams, in the order of SpawnStage; a failed step
 * is written to report_fd as a SpawnFailure and the child _exit()s with 127.
 */

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "spawn.h"

/* Sets the child up as p says and execs p->path; never returns. ignored:
 * the signals svd ignores, which would stay ignored across exec, so the
 * child resets them; parent: svd's pid, for the fallback mode's parent
 * check; legacy: spawned by clone(), without CLONE_INTO_CGROUP and
 * CLONE_CLEAR_SIGHAND (the child resets every signal and joins its
 * cgroup itself). */
_noreturn_ void spawn_child_run(const SpawnParams *p, const sigset_t *ignored, int report_fd, pid_t parent,
                                bool legacy);

/* The vfork path's child, started by sys_clone3_run() on its own stack
 * with CLONE_VM | CLONE_VFORK | CLONE_FILES: unshares its fd table, keeping
 * only the fds below keep (the reserved slots), then spawn_child_run(). */
typedef struct SpawnVforkChild {
        const SpawnParams *p;
        const sigset_t *ignored;
        int report_fd;
        pid_t parent;
        unsigned keep;
} SpawnVforkChild;

int spawn_child_vfork(void *arg); /* arg: a SpawnVforkChild */
