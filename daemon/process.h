/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A process is a pid and a pidfd, together. The pidfd is the identity: every
 * signal goes through pidfd_send_signal(), every exit is learnt from it, so a
 * recycled pid can never be hit.
 *
 * In autokill mode the pidfd is the one clone3() returned with
 * CLONE_PIDFD_AUTOKILL: closing it (svd exiting for any reason included)
 * makes the kernel SIGKILL the process. The child is autoreaped; its exit
 * status is read with PIDFD_GET_INFO/PIDFD_INFO_EXIT. In fallback mode the
 * child is an ordinary SIGCHLD child reaped with waitid(P_PIDFD).
 */

#include <stdbool.h>
#include <sys/epoll.h>
#include <sys/types.h>

#include "basic/macros.h"

typedef enum SpawnMode {
        SPAWN_MODE_AUTOKILL,
        SPAWN_MODE_FALLBACK,
        _SPAWN_MODE_MAX,
        _SPAWN_MODE_INVALID = -EINVAL,
} SpawnMode;

const char *spawn_mode_to_string(SpawnMode m);
SpawnMode spawn_mode_from_string(const char *s);

/* How a process ended, in waitid(2) terms: code is CLD_EXITED, CLD_KILLED or
 * CLD_DUMPED; status the exit status or the signal number. */
typedef struct ExitStatus {
        int code;
        int status;
} ExitStatus;

typedef struct Process {
        pid_t pid;
        int pidfd;
        SpawnMode mode;
        bool reaped;    /* fallback: waited for, so the PID may be reused */
        bool have_exit; /* fallback: reaped by process_reap_children(), exit kept here */
        bool indexed;   /* in the index of process_watch() */
        ExitStatus exit;
} Process;

/* The epoll events to watch a pidfd with. Edge-triggered: an exit is one
 * event, and when thousands of processes exit at once (a stop of every
 * service) a level-triggered pidfd would be polled again by every
 * epoll_wait() of the loop until its turn came, which is quadratic. After
 * EPOLLIN without the exit information (autokill mode, process.c), watch
 * with PROCESS_HANGUP_EVENTS for the hang-up that follows. */
#define PROCESS_EXIT_EVENTS (EPOLLIN | EPOLLET)
#define PROCESS_HANGUP_EVENTS EPOLLET

#define PROCESS_NULL ((Process){ .pid = 0, .pidfd = -EBADF, .mode = _SPAWN_MODE_INVALID })

static inline bool process_is_set(const Process *p) {
        return p->pidfd >= 0;
}

const char *exit_code_to_string(int code); /* "exited", "killed", "dumped" */

/* Sends sig through the pidfd. -ESRCH when the process is already gone. */
int process_kill(Process *p, int sig);

/* Collects the exit status of a process whose pidfd polled readable.
 * Returns 0 with *ret, -EAGAIN when the kernel has not published it yet
 * (autokill mode: the pidfd can poll readable a moment before the exit
 * information is stored), or another -errno. */
int process_exit_status(Process *p, ExitStatus *ret);

/* A fallback-mode process at its final place (a Process that is never
 * copied from there): indexed by PID until it is reaped or done, so that
 * process_reap_children() tells it from an orphan in O(log n) among
 * thousands. Its PID is its own while it is unreaped. Nothing to do for an
 * autokill-mode one. -ENOMEM, or -EEXIST (a PID twice: cannot be). */
int process_watch(Process *p);

/* Reaps every exited child of svd. As PID 1 of a PID namespace or as a
 * child subreaper svd inherits orphans; they are reaped and forgotten. A
 * watched child (process_watch()) is reaped through its pidfd and its
 * status kept in the Process for process_exit_status(): nothing is lost
 * whichever of the two sees the exit first. Each exit is peeked at with
 * WNOWAIT before anything is reaped. Returns the number of orphans reaped,
 * or -errno. */
int process_reap_children(void);

/* Converts a wait(2) status word into an ExitStatus. */
ExitStatus exit_status_from_wait_status(int wstatus);

/* SIGKILLs the process, waits for it in fallback mode (so no zombie is
 * left), and closes the pidfd. For a process svd cannot supervise. */
void process_kill_and_reap(Process *p);

/* Closes the pidfd (in autokill mode this SIGKILLs a live process). */
void process_done(Process *p);
