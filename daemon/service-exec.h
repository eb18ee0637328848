/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What a service's process is started with: the one preparation of every process of a service
 * (service-exec.c), for the state machine and for service-control.c.
 */

#include "service-def.h"

typedef struct ServiceExec {
        SpawnParams params; /* stdout_fd/stderr_fd are the log's (service_log_prepare) */
        char **env;
        char *path;
        char **argv;  /* the command line with the variables of env substituted */
        char *error;  /* why preparing failed, when it was not memory (for the log and status) */
        const SandboxPlan *sandbox; /* params.sandbox, the unit's (compiled once per unit); NULL without */
        bool owns_cgroup_fd;        /* params.cgroup_fd is open for this spawn, closed with the rest */
        int socket_fd;              /* StandardInput=/StandardOutput=/StandardError=socket: the socket (not
                                     * owned: the service's connection or a socket unit's), else -EBADF */
} ServiceExec;

/* Fills e for the next spawn of s running cmd (the main command or one around it, with extra_env,
 * "NAME=VALUE" strings or NULL, over the unit's environment): environment, executable, credentials,
 * limits, sandbox and s's cgroup (opened if needed): every process of a service is made alike.
 * -ENOTCONN when the unit needs the notify socket and svd has none. */
int service_exec_prepare(Service *s, const ExecCommand *cmd, char **extra_env, ServiceExec *e);
void service_exec_done(ServiceExec *e);
/* After service_log_prepare()/service_log_attach() filled params' stdout_fd and stderr_fd: those
 * that are StandardOutput=/StandardError=socket get the socket. */
void service_exec_socket_outputs(const ServiceExec *e, const Unit *u, SpawnParams *params);

/* The cgroup of s, opened for one use (it is not kept open while the service runs): the fd, or
 * -ENOENT when s has none (svd has no cgroups, or it was not made), or -errno. */
int service_cgroup_open(const Service *s);
bool service_exec_joins_pidns(const Service *s, const ExecCommand *cmd);
