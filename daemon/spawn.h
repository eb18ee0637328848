/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Creating service processes with clone3(). spawn-probe.h decides the mode
 * once at start-up, spawn-path.h resolves the command, spawn-child.c is
 * what the child runs until exec.
 *
 * spawn_process() creates one child. The parent prepares everything (argv,
 * envp, resolved path, uid/gid/groups); the child only applies it, in the
 * order of SpawnStage, and execs. A failed step is written to a close-on-exec
 * pipe as {stage, errno} and the child _exit()s; a successful exec closes the
 * pipe, so EOF on it means "exec'd". The child never logs and never
 * allocates. Where it can, the child is created as posix_spawn() does
 * (CLONE_VM | CLONE_VFORK): svd waits until it has exec'd, and the report
 * is complete when spawn_process() returns.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "process.h"
/* The callers of spawn_process() probe first and resolve the command first. */
#include "spawn-path.h"
#include "spawn-probe.h"
#include "spawn-sandbox.h"

/* The steps of child setup, in order. Their names are used in messages and
 * on the wire ("failed at setgroups"). */
typedef enum SpawnStage {
        SPAWN_STAGE_CGROUP,
        SPAWN_STAGE_CLOSE_FDS,
        SPAWN_STAGE_SIGNALS,
        SPAWN_STAGE_SETSID,
        SPAWN_STAGE_USER_NAMESPACE,
        SPAWN_STAGE_MOUNT_PROC,
        SPAWN_STAGE_PID1_FORK,
        SPAWN_STAGE_STDIN,
        SPAWN_STAGE_RLIMITS,
        SPAWN_STAGE_UMASK,
        SPAWN_STAGE_CHDIR,
        SPAWN_STAGE_SETGROUPS,
        SPAWN_STAGE_SETGID,
        SPAWN_STAGE_BOUNDING_SET,
        SPAWN_STAGE_KEEPCAPS,
        SPAWN_STAGE_SETUID,
        SPAWN_STAGE_CAPABILITIES,
        SPAWN_STAGE_AMBIENT,
        SPAWN_STAGE_NO_NEW_PRIVS,
        SPAWN_STAGE_PDEATHSIG,
        SPAWN_STAGE_PARENT,
        SPAWN_STAGE_EXEC,
        SPAWN_STAGE_PERSONALITY,
        SPAWN_STAGE_NOTIFY_SOCKET,
        _SPAWN_STAGE_MAX,
        _SPAWN_STAGE_INVALID = -EINVAL,

        /* A sandboxing key's setup (spawn-sandbox.h): SPAWN_STAGE_SANDBOX + SandboxKey, named after
         * the key ("ProtectSystem="). */
        SPAWN_STAGE_SANDBOX = 200,

        /* Not failures: records the PID-namespace init sends on the same pipe. */
        SPAWN_REPORT_EXECED = 100,      /* the command exec'd */
        SPAWN_REPORT_EXIT_STATUS = 101, /* the command ended; `error` holds its wait status */
        SPAWN_REPORT_REAPED_PID = 102,  /* with pid1_stays: init reaped another process, `error` holds its
                                         * pid in the namespace; a SPAWN_REPORT_REAPED_STATUS follows */
        SPAWN_REPORT_REAPED_STATUS = 103, /* ... and its wait status */
} SpawnStage;

const char *spawn_stage_to_string(SpawnStage s);

typedef struct SpawnFailure {
        int32_t stage;
        int32_t error; /* positive errno */
} SpawnFailure;

/* Resource limits a service gets, applied in the child. */
typedef struct SpawnRlimit {
        int resource;
        struct rlimit limit;
} SpawnRlimit;
#define SPAWN_RLIMITS_MAX 4

typedef struct SpawnParams {
        const char *path;   /* what to execve() */
        char *const *argv;
        char *const *envp;
        const char *working_directory; /* NULL: stay in svd's cwd */
        bool working_directory_missing_ok;
        bool change_credentials;
        uid_t uid;
        gid_t gid;
        const gid_t *groups;
        size_t n_groups;
        bool no_new_privileges;
        bool set_personality;      /* Personality=: personality(2) with the value below */
        unsigned long personality;
        SpawnRlimit rlimits[SPAWN_RLIMITS_MAX];
        size_t n_rlimits;
        int umask; /* -1: leave svd's */
        uint64_t bounding_drop; /* capabilities to drop from the bounding set */
        uint64_t ambient;       /* capabilities to raise as ambient */
        int cap_last;           /* /proc/sys/kernel/cap_last_cap */
        bool private_pids;      /* PID namespace with svd's init as PID 1 and a fresh /proc */
        bool pid1_stays;        /* with private_pids: init outlives the command (Type=forking): it reports
                                 * the command's exit and every process it reaps after, forwards signals
                                 * to every process of the namespace, and exits once none is left */
        bool user_namespace;    /* with private_pids or sandbox, for an unprivileged svd: map own uid/gid */
        bool ignore_sigpipe;    /* SIGPIPE ignored across the exec (IgnoreSIGPIPE=) */
        bool join_pidns;        /* created in the PID namespace of pidns_pidfd's process (not as its init),
                                 * with a /proc of that namespace in a mount namespace of its own */
        int pidns_pidfd;        /* with join_pidns: pidfd of a process of that namespace */
        const SandboxPlan *sandbox; /* namespaces and mounts of the sandboxing keys; NULL: none */
        uid_t outer_uid;        /* svd's uid/gid, for that mapping */
        gid_t outer_gid;
        int cgroup_fd;          /* CLONE_INTO_CGROUP target, or -1 */
        /* Installed as the child's stdout/stderr (pipes into svd, /dev/null).
         * A value below 3 (0, the default) keeps svd's own: svd keeps fds
         * 0-2 open, so none of its pipes can have such a number. */
        int stdout_fd;
        int stderr_fd;
        /* Installed as the child's stdin (StandardInput=socket: a connection or a listening socket);
         * below 3 (the default): /dev/null, or the terminal of stdin_tty. */
        int stdin_fd;
        /* StandardInput=/StandardOutput=/StandardError= on a terminal: tty_path is opened in the
         * child; with stdin_tty it becomes the controlling terminal (TIOCSCTTY, forced with
         * tty_force), and the child fails at "stdin" when it cannot. */
        const char *tty_path;
        bool stdin_tty, tty_force, stdout_tty, stderr_tty;
        SpawnMode mode;
        bool cap_sys_admin; /* from the probe: whether autokill works without CLONE_NNP */
        /* $NOTIFY_SOCKET of a service svd waits for (Type=notify): the child, in its namespaces and
         * with its credentials, fails at "notify-socket" when it cannot write to it, rather than
         * svd waiting out TimeoutStartSec= for a READY=1 that cannot come. NULL: no check. */
        const char *notify_socket;
        /* Socket activation (sd_listen_fds(3)): these fds become the child's 3, 4, ... in this order.
         * listen_pid_env is the entry of envp "LISTEN_PID=" followed by room for SPAWN_PID_DIGITS
         * digits, which the process that execs fills with its own pid (in its PID namespace) just
         * before execve(): only it knows that pid. NULL: no LISTEN_PID=. */
        const int *listen_fds;
        size_t n_listen_fds;
        char *listen_pid_env;
} SpawnParams;

#define SPAWN_LISTEN_FDS_MAX 256U /* fds passed by socket activation */
#define SPAWN_PID_DIGITS 10U      /* decimal digits of the largest pid (pid_max is at most 2^22) */

/* Creates the child. On success returns 0, *ret (pid, pidfd, mode) and
 * *ret_report_fd, the read end of the failure pipe (O_CLOEXEC|O_NONBLOCK). */
int spawn_process(const SpawnParams *p, Process *ret, int *ret_report_fd);

/* Reads one record from the report pipe: 1 with *ret, 0 on EOF (the child
 * exec'd or died without reaching exec), -EAGAIN if nothing yet. A record is
 * a failure {stage, errno}, or, from a PID-namespace init, SPAWN_REPORT_*. */
int spawn_read_failure(int fd, SpawnFailure *ret);

/* How svd watches a report pipe: edge-triggered, as a pidfd (process.h), since its reader drains it
 * to -EAGAIN or EOF. When thousands of children exec at once (a start of every service spawned
 * fork-like: PrivatePIDs=, the sanitizer build, valgrind), a level-triggered pipe at EOF would be
 * polled again by every epoll_wait() of the loop until its turn came, which is quadratic. */
#define SPAWN_REPORT_EVENTS (EPOLLIN | EPOLLET)

/* Reserves three fds at the bottom of the fd table for the vfork path of
 * spawn_process() (spawn.c). main() calls it first thing, while low
 * numbers are free; spawn_process() does otherwise, once. */
int spawn_reserve_fds(void);
