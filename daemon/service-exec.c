/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What a service's process is started with: environment, executable,
 * credentials, limits and cgroup, turned from the unit into SpawnParams. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "basic/env-util.h"
#include "basic/strv.h"
#include "svd-log.h"
#include "service-access.h"
#include "service-dirs.h"
#include "service-dynuser.h"
#include "service-exec.h"
#include "service-sandbox.h"

/* The environment a service starts with: a fixed PATH, the user's identity
 * when User= is set (as systemd does), then Environment= on top. */
static int service_build_environment(Service *s, char **extra, char ***ret, char **ret_error) {
        _cleanup_strv_free_ char **env = NULL;
        char *a;

        if (asprintf(&a, "PATH=%s", SPAWN_DEFAULT_PATH) < 0 || strv_consume(&env, a) < 0)
                return -ENOMEM;
        if (s->def->creds.set && s->def->creds.user) {
                const char *home = s->def->creds.home ? s->def->creds.home : "/";
                const char *shell = s->def->creds.shell ? s->def->creds.shell : "/bin/sh";
                if (asprintf(&a, "HOME=%s", home) < 0 || strv_consume(&env, a) < 0)
                        return -ENOMEM;
                if (asprintf(&a, "USER=%s", s->def->creds.user) < 0 || strv_consume(&env, a) < 0)
                        return -ENOMEM;
                if (asprintf(&a, "LOGNAME=%s", s->def->creds.user) < 0 || strv_consume(&env, a) < 0)
                        return -ENOMEM;
                if (asprintf(&a, "SHELL=%s", shell) < 0 || strv_consume(&env, a) < 0)
                        return -ENOMEM;
        }
        /* sd_notify(3): where to send READY=1 and the watchdog keep-alives, as systemd does. */
        if ((s->def->unit->type == SERVICE_TYPE_NOTIFY || unit_notify_access(s->def->unit) != NOTIFY_ACCESS_NONE) &&
            s->ctx->notify_path) {
                if (asprintf(&a, "NOTIFY_SOCKET=%s", s->ctx->notify_path) < 0 || strv_consume(&env, a) < 0)
                        return -ENOMEM;
        }
        if (s->def->unit->watchdog_usec > 0) {
                if (asprintf(&a, "WATCHDOG_USEC=%" PRIu64, s->def->unit->watchdog_usec) < 0 || strv_consume(&env, a) < 0)
                        return -ENOMEM;
        }
        for (char **e = s->def->unit->environment; e && *e; e++) {
                char *c = strdup(*e);
                if (!c || strv_env_replace_consume(&env, c) < 0)
                        return -ENOMEM;
        }
        /* EnvironmentFile=: read at every start, in order, over Environment= (systemd.exec(5)). A
         * missing file fails the start unless its name has '-' in front; other errors always do. */
        for (char **f = s->def->unit->environment_files; f && *f; f++) {
                bool missing_ok = (*f)[0] == '-';
                const char *path = *f + missing_ok;
                int r = env_file_load(path, &env);
                if (r == -ENOENT && missing_ok)
                        continue;
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        if (ret_error && asprintf(ret_error, "Failed to load environment file '%s': %s", path,
                                                  strerror(-r)) < 0)
                                *ret_error = NULL;
                        return r;
                }
        }
        /* $MAINPID, $SERVICE_RESULT, $EXIT_CODE, $EXIT_STATUS of the commands around the main one: svd's,
         * over the unit's (systemd.exec(5), "Environment Variables in Spawned Processes"). */
        for (char **e = extra; e && *e; e++) {
                char *c = strdup(*e);
                if (!c || strv_env_replace_consume(&env, c) < 0)
                        return -ENOMEM;
        }
        if (!env && strv_extend(&env, NULL) < 0)
                return -ENOMEM;
        *ret = TAKE_PTR(env);
        return 0;
}

/* A cgroup that a service with access lists cannot do without: the start fails with why. */
static int cgroup_error(ServiceExec *e, int r, const char *what) {
        if (asprintf(&e->error, "%s, which its DevicePolicy=/DeviceAllow=/IPAddressAllow=/IPAddressDeny= need: %s",
                     what, strerror(-r)) < 0)
                e->error = NULL;
        return r;
}

static uint64_t capability_mask(int last) {
        return last >= 63 ? UINT64_MAX : (UINT64_C(1) << (last + 1)) - 1;
}

void service_exec_socket_outputs(const ServiceExec *e, const Unit *u, SpawnParams *params) {
        /* StandardError=inherit is whatever stdout gets (logstream.c). */
        LogOutput err = u->std_error == LOG_OUTPUT_INHERIT ? u->std_output : u->std_error;
        if (e->socket_fd < 3)
                return;
        if (u->std_output == LOG_OUTPUT_SOCKET)
                params->stdout_fd = e->socket_fd;
        if (err == LOG_OUTPUT_SOCKET)
                params->stderr_fd = e->socket_fd;
}

void service_exec_done(ServiceExec *e) {
        if (e->owns_cgroup_fd) {
                e->params.cgroup_fd = safe_close(e->params.cgroup_fd);
                e->owns_cgroup_fd = false;
        }
        e->env = strv_free(e->env);
        free(e->path);
        e->path = NULL;
        e->argv = strv_free(e->argv);
        free(e->error);
        e->error = NULL;
        e->sandbox = NULL; /* the unit's */
}

int service_cgroup_open(const Service *s) {
        int fd = -EBADF;
        if (!s->cgroup)
                return -ENOENT;
        int r = cgroup_service_open_existing(s->ctx->cgroup, s->name, &fd);
        return r < 0 ? r : fd;
}

static bool exec_is_main(const Unit *u, const ExecCommand *cmd) {
        const ExecCommandList *starts = &u->exec[UNIT_EXEC_START];
        return cmd >= starts->commands && cmd < starts->commands + starts->n;
}

/* The commands around the main one of a service in the PID namespace Type=forking has by default
 * run in that namespace while svd's init there lives, so that a PID file the daemon wrote names the
 * daemon for them too (nginx -s reload, start-stop-daemon --pidfile). ExecStartPre= runs before the
 * namespace exists and ExecStopPost= after it, both outside. An explicit PrivatePIDs=yes gives every
 * command a namespace of its own instead, as systemd does. Entering another namespace takes
 * CAP_SYS_ADMIN there, which only a privileged svd has. */
bool service_exec_joins_pidns(const Service *s, const ExecCommand *cmd) {
        const Unit *u = s->def->unit;
        return cmd && !exec_is_main(u, cmd) && u->private_pids < 0 && unit_private_pids(u) && s->run.main_pid1 &&
               process_is_set(&s->run.main) && s->ctx->uid == 0;
}

int service_exec_prepare(Service *s, const ExecCommand *cmd, char **extra_env, ServiceExec *e) {
        ServiceContext *c = s->ctx;
        const Unit *u = s->def->unit;
        int r;

        assert(u);
        assert(!e->env && !e->path && !e->sandbox);

        if ((u->type == SERVICE_TYPE_NOTIFY || u->watchdog_usec > 0) && !c->notify_ready)
                return -ENOTCONN; /* svd has no notify socket: said at start-up */
        /* A user or group that did not exist when the unit was loaded: looked up again, and no
         * process of the service starts while it still does not. */
        r = unit_definition_resolve_pending(s->def, &e->error);
        if (r < 0)
                return r;
        r = service_build_environment(s, extra_env, &e->env, &e->error);
        if (r < 0)
                return r;
        /* DynamicUser=: the uid before the directories it is to own. */
        r = service_dynamic_user_acquire(s, &e->error);
        if (r < 0)
                return r;
        r = service_dirs_prepare(s, &e->env, &e->error);
        if (r < 0)
                return r;
        /* An instance of an Accept=yes socket unit: $REMOTE_ADDR and $REMOTE_PORT of its connection
         * (systemd.socket(5)), for every command. */
        for (char **v = s->connection_env; v && *v; v++) {
                char *a = strdup(*v);
                if (!a || strv_env_replace_consume(&e->env, a) < 0)
                        return -ENOMEM;
        }
        /* sd_listen_fds(3): the main command gets the listening sockets of the socket units that
         * activate the service, however it was started, or the connection of an Accept=yes instance
         * (one fd, named "connection"); LISTEN_PID= is written by the child. StandardInput=,
         * StandardOutput= or StandardError=socket (systemd.exec(5)) take that one socket instead, for
         * every command: an Accept=no socket unit must have exactly one. */
        bool socket_io = u->std_input == EXEC_INPUT_SOCKET || u->std_output == LOG_OUTPUT_SOCKET ||
                         u->std_error == LOG_OUTPUT_SOCKET;
        const int *listen_fds = NULL;
        size_t n_listen = 0;
        _cleanup_free_ char *names = NULL;
        e->socket_fd = -EBADF;
        if (s->connection_fd >= 0) {
                if (socket_io)
                        e->socket_fd = s->connection_fd;
                else if (exec_is_main(u, cmd)) {
                        listen_fds = &s->connection_fd;
                        n_listen = 1;
                        names = strdup("connection");
                        if (!names)
                                return -ENOMEM;
                }
        } else if ((exec_is_main(u, cmd) || socket_io) && c->callbacks && c->callbacks->listen_fds)
                n_listen = c->callbacks->listen_fds(s, &listen_fds, &names, c->userdata);
        if (socket_io && s->connection_fd < 0) {
                if (n_listen != 1) {
                        if (asprintf(&e->error,
                                     "StandardInput=/StandardOutput=/StandardError=socket needs the connection of an "
                                     "Accept=yes socket unit, or a socket unit with exactly one socket (%zu here)",
                                     n_listen) < 0)
                                e->error = NULL;
                        return -EBADF;
                }
                e->socket_fd = listen_fds[0];
                n_listen = 0;
        }
        if (n_listen > SPAWN_LISTEN_FDS_MAX)
                n_listen = SPAWN_LISTEN_FDS_MAX;
        if (n_listen > 0) {
                char *a = NULL;
                if (asprintf(&a, "LISTEN_FDS=%zu", n_listen) < 0 || strv_env_replace_consume(&e->env, a) < 0)
                        return -ENOMEM;
                if (asprintf(&a, "LISTEN_FDNAMES=%s", names ?: "") < 0 ||
                    strv_env_replace_consume(&e->env, a) < 0)
                        return -ENOMEM;
                if (asprintf(&a, "LISTEN_PID=%0*d", (int) SPAWN_PID_DIGITS, 0) < 0 ||
                    strv_env_replace_consume(&e->env, a) < 0)
                        return -ENOMEM;
        }
        if (cmd->flags & EXEC_NO_ENV_EXPAND) {
                e->argv = strv_copy(cmd->argv);
                if (!e->argv)
                        return -ENOMEM;
        } else {
                r = env_replace_argv(cmd->argv, e->env, &e->argv);
                if (r == -E2BIG &&
                    asprintf(&e->error, "More than %u words after substituting variables", ENV_ARGV_MAX) < 0)
                        e->error = NULL;
                if (r < 0)
                        return r;
        }
        /* "@": the path stays argv[0] as written; argv[0] is the word after it (substituted too). */
        if (cmd->argv0) {
                char *a0 = NULL;
                char *one[] = { cmd->argv0, NULL };
                _cleanup_strv_free_ char **x = NULL;
                if (cmd->flags & EXEC_NO_ENV_EXPAND)
                        a0 = strdup(cmd->argv0);
                else if (env_replace_argv(one, e->env, &x) >= 0)
                        a0 = strdup(x[0] ?: "");
                if (!a0)
                        return -ENOMEM;
                free(e->argv[0]);
                e->argv[0] = a0;
        }
        /* "+" runs with full privileges, "!" without the user and group change (systemd.service(5)). */
        bool privileged = cmd->flags & EXEC_PRIVILEGED;
        bool keep_ids = privileged || (cmd->flags & EXEC_NO_SETUID);

        /* A name without '/' is looked up here; if it is nowhere, exec of the
         * bare name fails in the child with ENOENT and that is what the user sees. */
        const char *search = NULL;
        for (char **v = e->env; *v; v++)
                if (strneq(*v, "PATH=", 5))
                        search = *v + 5;
        if (spawn_find_executable(cmd->argv[0], search, &e->path) < 0) {
                e->path = strdup(cmd->argv[0]);
                if (!e->path)
                        return -ENOMEM;
        }

        /* "+" leaves out the sandbox too: its namespaces and its seccomp filters. */
        _cleanup_free_ char *sandbox_error = NULL;
        r = privileged ? 0 : service_sandbox_prepare(u, &e->sandbox, &sandbox_error);
        if (r < 0) {
                if (sandbox_error)
                        log_error("%s: %s", s->name, sandbox_error);
                return r;
        }

        const char *wd = u->working_directory;
        if (u->working_directory_home)
                wd = s->def->creds.home ? s->def->creds.home : "/";
        else if (!wd)
                wd = "/";

        /* The main command gets the unit's PID namespace (Type=forking's by default); the commands
         * around it a namespace of their own only with an explicit PrivatePIDs=yes, else the main
         * command's where service_exec_joins_pidns() says so. */
        bool main_command = exec_is_main(u, cmd);
        bool private_pids = main_command ? unit_private_pids(u) : u->private_pids > 0;
        bool join_pidns = service_exec_joins_pidns(s, cmd);
        e->params = (SpawnParams){
                .path = e->path,
                .argv = e->argv,
                .envp = e->env,
                .working_directory = wd,
                .working_directory_missing_ok = u->working_directory_missing_ok,
                .change_credentials = s->def->creds.set && !keep_ids,
                .uid = s->def->creds.uid,
                .gid = s->def->creds.gid,
                .groups = s->def->creds.groups,
                .n_groups = s->def->creds.n_groups,
                .no_new_privileges = u->no_new_privileges && !privileged,
                .umask = u->umask >= 0 ? u->umask : 0022,
                .bounding_drop = privileged ? 0
                                            : (~u->capability_bounding_set | (e->sandbox ? e->sandbox->bounding_drop : 0)) &
                                                      capability_mask(c->probe->cap_last),
                .ambient = privileged ? 0 : u->ambient_capabilities,
                .cap_last = c->probe->cap_last,
                .private_pids = private_pids,
                /* Type=forking: svd's init stays as the namespace's reaper once the command has exited. */
                .pid1_stays = private_pids && main_command && u->type == SERVICE_TYPE_FORKING,
                /* An unprivileged svd's service gets a user namespace mapping svd's own ids to
                 * themselves whenever it needs one: that is PrivateUsers= of a per-user manager too. */
                .ignore_sigpipe = u->ignore_sigpipe,
                .notify_socket = u->type == SERVICE_TYPE_NOTIFY && main_command ? s->ctx->notify_path : NULL,
                .join_pidns = join_pidns,
                .pidns_pidfd = join_pidns ? s->run.main.pidfd : -EBADF,
                .user_namespace = (private_pids ||
                                   (e->sandbox && (sandbox_plan_clone_flags(e->sandbox) != 0 ||
                                                   e->sandbox->private_users != SANDBOX_USERS_NONE))) &&
                                  c->uid != 0,
                .sandbox = e->sandbox,
                .outer_uid = getuid(),
                .outer_gid = getgid(),
                .cgroup_fd = -EBADF,
                .tty_path = u->tty_path ? u->tty_path : "/dev/console",
                .stdin_tty = IN_SET(u->std_input, EXEC_INPUT_TTY, EXEC_INPUT_TTY_FORCE, EXEC_INPUT_TTY_FAIL),
                .stdin_fd = u->std_input == EXEC_INPUT_SOCKET ? e->socket_fd : 0,
                .tty_force = u->std_input == EXEC_INPUT_TTY_FORCE,
                .stdout_tty = u->std_output == LOG_OUTPUT_TTY,
                .stderr_tty = u->std_error == LOG_OUTPUT_TTY ||
                              (u->std_error == LOG_OUTPUT_INHERIT && u->std_output == LOG_OUTPUT_TTY),
                .mode = c->probe->mode,
                .cap_sys_admin = c->probe->cap_sys_admin,
        };
        SpawnParams *params = &e->params;
        if (n_listen > 0) {
                params->listen_fds = listen_fds;
                params->n_listen_fds = n_listen;
                for (char **v = e->env; *v; v++)
                        if (strneq(*v, "LISTEN_PID=", strlen("LISTEN_PID=")))
                                params->listen_pid_env = *v;
        }
        /* systemd.exec(5), NoNewPrivileges=: the sandboxing keys enforced by seccomp filters and
         * mounts imply no_new_privs for a service without CAP_SYS_ADMIN (a User= one, or one whose
         * bounding set lacks it), and for every service of an unprivileged svd (user mode). Loading a
         * seccomp filter needs it then anyway. "+" commands have no sandbox. */
        if (!privileged && (unit_implies_no_new_privileges(u) || (e->sandbox && e->sandbox->n_filters > 0))) {
                const uint64_t sys_admin = UINT64_C(1) << 21 /* CAP_SYS_ADMIN */;
                bool root = params->change_credentials ? params->uid == 0 : getuid() == 0;
                bool keeps_sys_admin = !(params->bounding_drop & sys_admin) && (root || (params->ambient & sys_admin));
                if (c->uid != 0 || !keeps_sys_admin)
                        params->no_new_privileges = true;
        }
        params->set_personality = u->personality != UNIT_PERSONALITY_KEEP;
        params->personality = u->personality;
        /* Limits: the unit's, else (for NOFILE) the one svd started with. */
        const struct {
                int resource;
                const struct rlimit_setting *set;
        } limits[] = {
                { RLIMIT_NOFILE, &u->limit_nofile },
                { RLIMIT_NPROC, &u->limit_nproc },
                { RLIMIT_CORE, &u->limit_core },
        };
        for (size_t i = 0; i < ELEMENTSOF(limits); i++) {
                if (limits[i].set->set)
                        params->rlimits[params->n_rlimits++] = (SpawnRlimit){
                                limits[i].resource, { .rlim_cur = limits[i].set->soft, .rlim_max = limits[i].set->hard }
                        };
                else if (limits[i].resource == RLIMIT_NOFILE)
                        params->rlimits[params->n_rlimits++] = (SpawnRlimit){ RLIMIT_NOFILE, c->nofile };
        }

        /* The device and IP access lists are enforced on the service's cgroup, or the service does
         * not run: without a cgroup, or with a kernel that does not take the programs, it fails
         * here (and, known since start-up, the unit was refused when it was loaded). */
        bool access = service_access_wanted(u);
        const char *why = service_access_unsupported(c, u);
        if (why) {
                if (asprintf(&e->error, "Failed to enforce %s: %s", service_access_keys(u), why) < 0)
                        e->error = NULL;
                return -EOPNOTSUPP;
        }
        if (c->cgroup->available) {
                bool fresh = false, made = false;
                int cg = -EBADF;
                /* Made at the first start, and again when it was removed (the service stopped, or
                 * someone else removed it); opened for this spawn only. */
                r = s->cgroup ? cgroup_service_open_existing(c->cgroup, s->name, &cg) : -ENOENT;
                if (r == -ENOENT) {
                        r = cgroup_service_open(c->cgroup, s->name, &cg);
                        made = r >= 0;
                        fresh = r > 0;
                        if (r < 0 && access)
                                return cgroup_error(e, r, "Failed to create the service's cgroup");
                        if (r < 0)
                                log_warning_errno(r, "%s: Failed to create cgroup, running without: %m", s->name);
                } else if (r < 0 && access)
                        return cgroup_error(e, r, "Failed to open the service's cgroup");
                else if (r < 0)
                        log_warning_errno(r, "%s: Failed to open its cgroup, running without: %m", s->name);
                s->cgroup = cg >= 0;
                if (cg >= 0) {
                        e->params.cgroup_fd = cg;
                        e->owns_cgroup_fd = true;
                        /* The programs go on the cgroup before any process of this start enters it,
                         * once per start: the later commands of the start find them there. A cgroup
                         * still in use from before gets them replaced. */
                        if (made) {
                                r = service_access_apply(s, cg, fresh, &e->error);
                                if (r < 0)
                                        return r;
                        }
                        unsigned skipped = 0;
                        r = cgroup_apply_limits(c->cgroup, cg, fresh, u->memory_max, u->tasks_max,
                                                u->cpu_weight, &skipped);
                        if (r < 0)
                                log_warning_errno(r, "%s: Failed to set cgroup limits, ignoring: %m", s->name);
                        if (skipped > 0) /* warned about at load, and listed in NotApplied */
                                log_debug("%s: %u cgroup limits set but their controllers are not available, ignoring.",
                                          s->name, skipped);
                }
        } else if (u->memory_max != UINT64_MAX || u->tasks_max != UINT64_MAX || u->cpu_weight != 0)
                log_debug("%s: MemoryMax=/TasksMax=/CPUWeight= need a cgroup and svd has none (%s), ignoring.",
                          s->name, c->cgroup->reason);

        return 0;
}
