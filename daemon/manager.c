/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The manager: start-up, signals, shutdown, and what the services and the protocol layer are told. */
#include "manager.h"

#include <sys/reboot.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>

#include "basic/lock-file.h"
#include "basic/socket-path.h"
#include "basic/strv.h"
#include "deps.h"
#include "svd-log.h"
#include "notify.h"
#include "reexec.h"
#include "service.h"
#include "unit.h"
#include "version.h"
#include "wanted.h"

/* A service without LimitNOFILE= gets systemd's default: this soft limit (programs that use
 * select() break above it), and svd's hard limit. */
#define SERVICE_NOFILE_SOFT 1024U
/* How long start-up waits for a crashed predecessor's leftovers to die. */

static int env_path(const char *var, const char *suffix, char **ret) {
        const char *base = getenv(var);
        if (!base || base[0] != '/')
                return -ENXIO;
        return asprintf(ret, "%s/%s", base, suffix) < 0 ? -ENOMEM : 0;
}

int manager_default_unit_dir(char **ret) {
        if (getuid() == 0) {
                *ret = strdup("/etc/svd/units");
                return *ret ? 0 : -ENOMEM;
        }
        if (env_path("XDG_CONFIG_HOME", "svd/units", ret) >= 0)
                return 0;
        return env_path("HOME", ".config/svd/units", ret);
}

int manager_default_socket_path(char **ret) {
        if (getuid() == 0) {
                *ret = strdup("/run/svd/svd.sock");
                return *ret ? 0 : -ENOMEM;
        }
        if (env_path("XDG_RUNTIME_DIR", "svd/svd.sock", ret) >= 0)
                return 0;
        return asprintf(ret, "/run/user/%u/svd/svd.sock", (unsigned) getuid()) < 0 ? -ENOMEM : 0;
}

/* "" for the default socket, else a hash of the socket path (cgroup.h). */
static void manager_cgroup_instance(Manager *m, char *buf, size_t size) {
        _cleanup_free_ char *def = NULL;
        if (manager_default_socket_path(&def) >= 0 && streq(def, m->socket_path))
                return;
        char h[9];
        socket_path_hash(m->socket_path, h);
        snprintf(buf, size, "%s", h);
}

/* SIGKILL to every service that has not stopped: the number of them. */
static size_t manager_kill_unsettled(Manager *m) {
        size_t n = 0;
        for (size_t i = 0; i < m->ctx.n_services; i++) {
                Service *s = m->ctx.services[i];
                if (!service_is_settled(s) && service_kill(s, SIGKILL) >= 0)
                        n++;
        }
        return n;
}

static int on_shutdown_signal(sd_event_source *source, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = userdata;

        if (m->ctx.shutting_down) {
                /* A second request, as an engine's or an operator's
                 * impatience: what has not stopped yet is killed now. */
                size_t n = manager_kill_unsettled(m);
                log_notice("Received %s again while stopping services, killed %zu that had not stopped.",
                           si->ssi_signo == SIGINT ? "SIGINT" : "SIGTERM", n);
                if (n > 0)
                        m->shutdown_unclean = true;
                return 0;
        }
        log_info("Received %s, stopping %zu services.", si->ssi_signo == SIGINT ? "SIGINT" : "SIGTERM",
                 m->ctx.n_services);
        manager_shutdown(m);
        return 0;
}

void manager_shutdown(Manager *m) {
        if (m->ctx.shutting_down)
                return;
        m->ctx.shutting_down = true;
        m->shutdown_cursor = 0;
        (void) sd_notify(/* unset_environment= */ false, "STOPPING=1");
        /* Waiters of settled services are answered by the stop. */
        for (size_t i = 0; i < m->ctx.n_services; i++)
                (void) deps_stop(m->ctx.services[i], NULL, NULL);
        manager_check_shutdown(m);
}

/* The exit status a container's entrypoint gives for how its main service
 * ended: its exit status, 128 + the signal that killed it, or 1 when it
 * failed without an exit of its own (it could not be spawned, a
 * dependency failed, its start limit was hit). */
static int main_service_exit_status(const Service *s) {
        int st = 1;
        if (s->have_exit)
                st = s->last_exit.code == CLD_EXITED ? s->last_exit.status : 128 + s->last_exit.status;
        if (st == 0 && s->result != SERVICE_SUCCESS)
                st = 1;
        return st;
}

/* From a defer source, so that a restart that passes through inactive is
 * not taken for an end: the main service is settled now or it is not. */
static int on_main_service_check(sd_event_source *source, void *userdata) {
        Manager *m = userdata;
        Service *s = service_lookup(&m->ctx, m->main_service);

        if (m->ctx.shutting_down || !s || !service_is_settled(s))
                return 0;
        m->main_exit_status = main_service_exit_status(s);
        m->main_exited = true;
        log_notice("Main service %s is %s (result %s), stopping the other services and exiting with status %d.",
                   s->name, service_state_to_string(s->state), service_result_to_string(s->result),
                   m->main_exit_status);
        manager_shutdown(m);
        return 0;
}

static void manager_reap(Manager *m) {
        int r = process_reap_children();
        if (r < 0)
                log_warning_errno(r, "Failed to reap children: %m");
        else if (r > 0) {
                m->orphans_reaped += (uint64_t) r;
                log_debug("Reaped %d orphaned processes (%" PRIu64 " in all).", r, m->orphans_reaped);
        }
}

/* SIGCHLD: orphans reparented to svd (PID 1, or a child subreaper) are
 * reaped here; services' own exits are read through their pidfds. */
static int on_child_signal(sd_event_source *source, const struct signalfd_siginfo *si, void *userdata) {
        manager_reap(userdata);
        return 0;
}

/* SIGHUP: re-exec (reexec.h), as `svctl daemon-reexec` without a client to answer. */
static int on_reexec_signal(sd_event_source *source, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = userdata;
        _cleanup_free_ char *error = NULL;

        log_info("Received SIGHUP, re-executing.");
        int r = manager_reexec(m, -EBADF, &error);
        log_error_errno(r, "Re-exec failed, carrying on: %s", error ? error : strerror(-r));
        return 0;
}

void manager_check_shutdown(Manager *m) {
        if (!m->ctx.shutting_down)
                return;
        /* Called as each service settles: a walk from the first service each time would make a stop of
         * thousands quadratic. The cursor moves past settled services; once at the end, one walk from
         * the start makes sure that none passed has become unsettled again. */
        while (m->shutdown_cursor < m->ctx.n_services && service_is_settled(m->ctx.services[m->shutdown_cursor]))
                m->shutdown_cursor++;
        if (m->shutdown_cursor < m->ctx.n_services)
                return;
        for (size_t i = 0; i < m->ctx.n_services; i++)
                if (!service_is_settled(m->ctx.services[i])) {
                        m->shutdown_cursor = i;
                        return;
                }
        log_info("All services stopped, exiting.");
        (void) sd_event_exit(m->event, 0);
}

/* ---- what the services tell ---- */

static void manager_check_unit_action(Manager *m, Service *s, ServiceState previous);

static void on_service_state_changed(Service *s, ServiceState previous, void *userdata) {
        Manager *m = userdata;

        if (previous != s->state && m->hooks && m->hooks->state_changed)
                m->hooks->state_changed(s, previous, m->hooks_userdata);
        if (m->ctx.shutting_down && s->state == SERVICE_FAILED && previous != SERVICE_FAILED)
                m->shutdown_unclean = true; /* its stop timed out, or it failed while stopping */
        if (m->main_service && !m->ctx.shutting_down && previous != s->state &&
            IN_SET(s->state, SERVICE_INACTIVE, SERVICE_FAILED) && service_lookup(&m->ctx, m->main_service) == s) {
                int r = m->main_source ? sd_event_source_set_enabled(m->main_source, SD_EVENT_ONESHOT)
                                       : sd_event_add_defer(m->event, &m->main_source, on_main_service_check, m);
                if (r < 0)
                        log_error_errno(r, "Failed to watch the main service: %m");
        }
        if (IN_SET(s->state, SERVICE_INACTIVE, SERVICE_FAILED) && (s->removed || s->next))
                manager_schedule_gc(m); /* a reload is waiting for it to settle */
        manager_check_unit_action(m, s, previous);
        manager_sockets_service_changed(m, s);
}

/* SuccessAction=, FailureAction=, StartLimitAction= (unit.h): key names the one that applies. */
static void manager_unit_action(Manager *m, Service *s, UnitAction a, int exit_status, const char *key) {
        if (a == UNIT_ACTION_NONE || m->ctx.shutting_down)
                return;
        int reboot_cmd = unit_action_reboot_command(a);
        log_notice("%s: %s=%s: %s, exit status %d.", s->name, key, unit_action_to_string(a),
                   reboot_cmd == 0          ? "stopping every service and exiting"
                   : reboot_cmd == RB_AUTOBOOT ? "stopping every service and rebooting"
                   : reboot_cmd == RB_POWER_OFF ? "stopping every service and powering off"
                                                : "stopping every service and halting",
                   exit_status);
        m->main_exited = true;
        m->main_exit_status = exit_status;
        m->reboot_command = reboot_cmd;
        if (unit_action_is_immediate(a)) {
                sync();
                if (reboot(reboot_cmd) < 0)
                        log_error_errno(errno, "%s: reboot(2) failed, stopping the services instead: %m", s->name);
        }
        manager_shutdown(m);
        if (unit_action_is_force(a) || unit_action_is_immediate(a))
                log_notice("Killed %zu services at once (%s).", manager_kill_unsettled(m), unit_action_to_string(a));
}

/* The exit status an action passes on: the unit's *ActionExitStatus=, else its main process's. */
static int unit_action_exit_status(const Service *s, int configured, bool success) {
        if (configured >= 0)
                return configured;
        if (s->have_exit)
                return main_service_exit_status(s);
        return success ? EXIT_SUCCESS : EXIT_FAILURE;
}

static void manager_check_unit_action(Manager *m, Service *s, ServiceState previous) {
        const Unit *u = s->def->unit;
        if (!u || previous == s->state)
                return;
        if (s->state == SERVICE_FAILED) {
                if (s->result == SERVICE_FAILURE_START_LIMIT_HIT && u->start_limit_action != UNIT_ACTION_NONE)
                        manager_unit_action(m, s, u->start_limit_action,
                                            unit_action_exit_status(s, u->failure_action_exit_status, false),
                                            "StartLimitAction");
                else
                        manager_unit_action(m, s, u->failure_action,
                                            unit_action_exit_status(s, u->failure_action_exit_status, false),
                                            "FailureAction");
        } else if (s->state == SERVICE_INACTIVE && s->result == SERVICE_SUCCESS)
                manager_unit_action(m, s, u->success_action,
                                    unit_action_exit_status(s, u->success_action_exit_status, true), "SuccessAction");
}

static void on_service_settled(Service *s, void *userdata) {
        /* A service that ends while it starts (a Type=oneshot) settles only after its state changed:
         * its socket units watch again now. */
        manager_sockets_service_changed(userdata, s);
        manager_check_shutdown(userdata);
}

static void on_service_unit_changed(Service *s, void *userdata) {
        Manager *m = userdata;
        m->gc_resolve_deps = true;
        manager_schedule_gc(m);
}

static Service *on_service_instantiate(const char *name, void *userdata) {
        return manager_instantiate(userdata, name);
}

static size_t on_service_listen_fds(Service *s, const int **ret_fds, char **ret_names, void *userdata) {
        return manager_sockets_listen_fds(userdata, s, ret_fds, ret_names);
}

static int on_service_start_socket(const char *name, char **ret_reason, void *userdata) {
        return manager_socket_start_dependency(userdata, name, ret_reason);
}

static int on_service_socket_state(const char *name, char **ret_reason, void *userdata) {
        Socket *s = manager_socket_find(userdata, name);
        if (!s)
                return -ESRCH;
        /* A failed start's ExecStopPost= counts as the start still going: its end says how it ended. */
        if (manager_socket_is_busy(s))
                return 0;
        if (s->fds)
                return 1;
        if (ret_reason && s->state == SOCKET_FAILED && s->last_error)
                *ret_reason = strdup(s->last_error);
        return s->state == SOCKET_FAILED ? -EIO : -ENOTCONN;
}

static const ServiceCallbacks manager_service_callbacks = {
        .instantiate = on_service_instantiate,
        .listen_fds = on_service_listen_fds,
        .start_socket = on_service_start_socket,
        .socket_state = on_service_socket_state,
        .state_changed = on_service_state_changed,
        .settled = on_service_settled,
        .unit_changed = on_service_unit_changed,
};

/* After a re-exec: the guard the old image started watches on (svd's pid is the same); an svd that
 * handed none over gets one now. */
static void manager_guard_resume(Manager *m, json_t *state) {
        int fd = reexec_fd_take(state, "guardPidfd");
        json_t *pid = json_object_get(state, "guardPid");

        if (fd >= 0 && json_is_integer(pid) && guard_resume(&m->guard, (pid_t) json_integer_value(pid), fd) >= 0) {
                m->ctx.guarded = true;
                return;
        }
        safe_close(fd);
        m->ctx.guarded = guard_start(&m->guard) >= 0;
}

/* Creates the socket's directory if missing (0755, svd's user). */
static int mkdir_parent(const char *path) {
        _cleanup_free_ char *dir = strdup(path);
        if (!dir)
                return -ENOMEM;
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir)
                return 0;
        *slash = 0;
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return -errno;
        return 0;
}

/* svd.sock → svd.lock, beside it, as notify.c names the notify socket. */
static int manager_lock_path(const char *socket_path, char **ret) {
        size_t l = strlen(socket_path);
        if (l > 5 && streq(socket_path + l - 5, ".sock"))
                l -= 5;
        return asprintf(ret, "%.*s.lock", (int) l, socket_path) < 0 ? -ENOMEM : 0;
}

/* Makes this svd the one of its control socket (manager.h), or says which
 * svd is and fails, having touched nothing but the socket's directory. */
static int manager_lock(Manager *m) {
        _cleanup_free_ char *reason = NULL;
        pid_t holder = 0;
        int r;

        r = mkdir_parent(m->socket_path);
        if (r < 0)
                return log_error_errno(r, "Failed to create the directory of '%s': %m", m->socket_path);
        /* The lock file goes where the socket goes: only into a directory
         * that nobody else can change (socket-path.h). */
        r = socket_path_check(m->socket_path, m->uid, &reason);
        if (r < 0)
                return log_error_errno(r, "Refusing to listen on '%s': %s.", m->socket_path,
                                       reason ? reason : strerror(-r));
        r = lock_file_take(m->lock_path, &m->lock_fd, &holder);
        if (r == -EBUSY) {
                if (holder > 0)
                        return log_error_errno(r, "Another svd (pid %d) is running on '%s' (it holds '%s'); "
                                               "leaving it and its services alone.",
                                               (int) holder, m->socket_path, m->lock_path);
                return log_error_errno(r, "Another svd is running on '%s' (it holds '%s'); leaving it and its "
                                       "services alone.", m->socket_path, m->lock_path);
        }
        if (r == -EEXIST)
                return log_error_errno(r, "Refusing to lock '%s': it exists and is not a regular file.", m->lock_path);
        if (r < 0)
                return log_error_errno(r, "Failed to lock '%s': %m", m->lock_path);
        r = lock_file_write_pid(m->lock_fd, getpid());
        if (r < 0)
                log_warning_errno(r, "Failed to write svd's pid into '%s', ignoring: %m", m->lock_path);
        return 0;
}

/* The control socket's path and the files named after it: the notify socket and the lock. */
static int manager_set_socket_path(Manager *m, const char *path) {
        _cleanup_free_ char *s = NULL, *notify = NULL, *lock = NULL;
        int r;

        s = strdup(path);
        if (!s)
                return -ENOMEM;
        r = notify_socket_path(s, geteuid() == 0 ? NOTIFY_RUNTIME_DIR : NULL, &notify);
        if (r < 0)
                return r;
        r = manager_lock_path(s, &lock);
        if (r < 0)
                return r;
        free(m->socket_path);
        m->socket_path = TAKE_PTR(s);
        free(m->notify_path);
        m->notify_path = TAKE_PTR(notify);
        free(m->lock_path);
        m->lock_path = TAKE_PTR(lock);
        m->ctx.notify_path = m->notify_path;
        return 0;
}

int manager_new(const ManagerConfig *config, Manager **ret) {
        _cleanup_(manager_freep) Manager *m = NULL;
        int r;

        assert(config);
        assert(ret);

        m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        m->uid = getuid();
        m->cgroup.services_fd = -EBADF;
        m->cgroup.guard_fd = -EBADF;
        m->guard = (Guard){ .proc = PROCESS_NULL };
        m->notify_fd = -EBADF;
        m->lock_fd = -EBADF;
        m->state_fd = config->state_fd > 2 ? config->state_fd : -EBADF;
        if (config->exe_path && !(m->exe_path = strdup(config->exe_path)))
                return -ENOMEM;
        if (config->argv && !(m->argv = strv_copy(config->argv)))
                return -ENOMEM;
        m->reexec_check = config->reexec_check;
        m->reexec_check_userdata = config->reexec_check_userdata;

        if (config->main_service && !(m->main_service = strdup(config->main_service)))
                return -ENOMEM;
        if (config->unit_dir)
                m->unit_dir = strdup(config->unit_dir);
        else if ((r = manager_default_unit_dir(&m->unit_dir)) < 0)
                return r;
        if (!m->unit_dir)
                return -ENOMEM;
        _cleanup_free_ char *socket_path = NULL;
        if (!config->socket_path && (r = manager_default_socket_path(&socket_path)) < 0)
                return r;
        r = manager_set_socket_path(m, config->socket_path ?: socket_path);
        if (r < 0)
                return r;

        /* svd itself needs a descriptor or two per service (pidfds, output) and per connection: its
         * soft limit goes up to the hard one. Services get systemd's default instead (soft 1024, or
         * the hard limit where that is lower; hard as svd's). */
        struct rlimit raised;
        if (getrlimit(RLIMIT_NOFILE, &raised) < 0)
                return -errno;
        m->ctx.nofile = (struct rlimit){
                .rlim_cur = MIN(raised.rlim_max, (rlim_t) SERVICE_NOFILE_SOFT),
                .rlim_max = raised.rlim_max,
        };
        raised.rlim_cur = raised.rlim_max;
        (void) setrlimit(RLIMIT_NOFILE, &raised);

        r = sd_event_default(&m->event);
        if (r < 0)
                return r;
        guard_init(&m->guard, m->event, &m->cgroup, m->exe_path);
        r = service_log_console_open(config->console);
        if (r < 0)
                return log_error_errno(r, "Failed to open svd's stdout and stderr for service output: %m");

        spawn_probe(config->force_fallback, &m->probe);
        cgroup_bpf_probe(&m->bpf);
        m->allow_unsandboxed = config->allow_unsandboxed;
        m->ctx.event = m->event;
        m->ctx.probe = &m->probe;
        m->ctx.cgroup = &m->cgroup;
        m->ctx.bpf = &m->bpf;
        m->ctx.notify_path = m->notify_path;
        m->ctx.uid = m->uid;
        if (config->unit_defaults)
                m->unit_defaults = *config->unit_defaults;
        else
                unit_defaults_init(&m->unit_defaults);
        m->ctx.unit_defaults = &m->unit_defaults;
        m->ctx.callbacks = &manager_service_callbacks;
        deps_attach(&m->ctx);
        m->ctx.userdata = m;

        *ret = TAKE_PTR(m);
        return 0;
}

void manager_set_hooks(Manager *m, const ManagerHooks *hooks, void *userdata) {
        assert(m);
        assert(!m->hooks);
        m->hooks = hooks;
        m->hooks_userdata = userdata;
}

int manager_listen(Manager *m, int listen_fd) {
        if (!m->hooks || !m->hooks->listen)
                return log_error_errno(ENOPROTOOPT, "No control protocol to serve '%s'.", m->socket_path);
        /* The directory is there: manager_lock() made it. */
        return m->hooks->listen(m, listen_fd, m->hooks_userdata);
}

int manager_startup(Manager *m) {
        _cleanup_(json_decrefp) json_t *state = NULL;
        int r;
        sigset_t ss;

        assert(m);

        /* First of all: be the one svd of the socket. A re-exec is that svd
         * already and holds the lock through the exec: it only takes the fd
         * back (an svd from before the lock existed handed none over). */
        if (m->state_fd >= 0) {
                r = manager_state_read(TAKE_FD(m->state_fd), &state);
                if (r < 0)
                        return r;
                /* The socket, its lock and the services' cgroups are named after the socket's path: a
                 * re-exec keeps serving the one it was handed, whatever svd.conf says now. */
                const char *served = reexec_str(state, "socketPath");
                if (served && !streq(served, m->socket_path)) {
                        log_warning("The control socket is '%s' now, but svd serves '%s' and keeps it until it "
                                    "starts anew.", m->socket_path, served);
                        r = manager_set_socket_path(m, served);
                        if (r < 0)
                                return log_oom();
                }
                m->lock_fd = reexec_fd_take(state, "lockFd");
        }
        if (m->lock_fd < 0) {
                r = manager_lock(m);
                if (r < 0)
                        return r;
        }

        log_info("svd %s: spawn mode %s: %s.", svd_version, spawn_mode_to_string(m->probe.mode), m->probe.reason);

        /* sd-event's signal sources need the signals blocked. SIGPIPE is
         * ignored: every write uses MSG_NOSIGNAL, this catches the rest.
         * SIGCHLD reaps orphans; fallback children are reaped through their
         * pidfds. */
        sigemptyset(&ss);
        sigaddset(&ss, SIGCHLD);
        sigaddset(&ss, SIGTERM);
        sigaddset(&ss, SIGINT);
        sigaddset(&ss, SIGHUP);
        if (sigprocmask(SIG_BLOCK, &ss, NULL) < 0)
                return log_error_errno(errno, "Failed to block signals: %m");
        (void) signal(SIGPIPE, SIG_IGN);
        r = sd_event_add_signal(m->event, &m->sigterm_source, SIGTERM, on_shutdown_signal, m);
        if (r >= 0)
                r = sd_event_add_signal(m->event, &m->sigint_source, SIGINT, on_shutdown_signal, m);
        if (r >= 0)
                r = sd_event_add_signal(m->event, &m->sighup_source, SIGHUP, on_reexec_signal, m);
        if (r >= 0)
                /* At the services' priority: a lower one could starve while
                 * log floods keep the loop busy. Whichever of it and a
                 * service's exit source comes first, the status is kept
                 * (process.h). */
                r = sd_event_add_signal(m->event, &m->sigchld_source, SIGCHLD, on_child_signal, m);
        if (r < 0)
                return log_error_errno(r, "Failed to watch signals: %m");
        int subreaper = 0;
        (void) prctl(PR_GET_CHILD_SUBREAPER, &subreaper);
        if (getpid() == 1 || subreaper)
                log_info("Running as %s: orphaned processes are reaped.",
                         getpid() == 1 ? "PID 1" : "a child subreaper");

        char instance[17] = "";
        manager_cgroup_instance(m, instance, sizeof(instance));
        cgroup_root_setup(&m->cgroup, instance[0] ? instance : NULL);
        if (m->cgroup.available)
                log_info("cgroup: %s.", m->cgroup.reason);
        else
                log_notice("cgroup: not used: %s; a forking service's children are contained only with "
                           "PrivatePIDs=yes.", m->cgroup.reason);
        if (m->cgroup.available && m->bpf.devices && m->bpf.firewall)
                log_info("cgroup BPF: %s: DevicePolicy=, DeviceAllow=, IPAddressAllow=, IPAddressDeny= are enforced.",
                         m->bpf.reason);
        else
                log_notice("cgroup BPF: not usable: %s; units whose DevicePolicy=, DeviceAllow=, IPAddressAllow=, "
                           "IPAddressDeny= restrict anything fail to load.",
                           m->cgroup.available ? m->bpf.reason : "svd has no cgroup");

        if (state) {
                /* A re-exec: everything as it was, nothing started or killed.
                 * Orphans that exited meanwhile are reaped now. */
                r = manager_state_restore(m, state);
                if (r < 0)
                        return r;
                /* The links are read again: they may have changed while svd re-executed. */
                manager_refresh_unit_files(m, /* instantiate= */ false);
                r = manager_sockets_deserialize(m, json_object_get(state, "sockets"));
                if (r < 0)
                        return r;
                manager_guard_resume(m, state);
                int listen_fd = reexec_fd_take(state, "listenFd");
                if (listen_fd < 0)
                        return log_error_errno(listen_fd, "The control socket was not handed over: %m");
                r = manager_listen(m, listen_fd);
                if (r < 0)
                        return r;
                r = manager_state_resume(m, state);
                if (r < 0)
                        return r;
                manager_reap(m);
                /* The main service may have ended while svd re-executed. */
                if (m->main_service && sd_event_add_defer(m->event, &m->main_source, on_main_service_check, m) < 0)
                        return log_oom();
                return 0;
        }

        /* Before anything of this svd runs: a predecessor's guard and what its services left go. */
        (void) guard_takeover(&m->cgroup);
        m->ctx.guarded = guard_start(&m->guard) >= 0;

        r = manager_load_units(m);
        if (r == -ENOENT)
                log_warning("Unit directory '%s' does not exist, no services.", m->unit_dir);
        else if (r < 0)
                return log_error_errno(r, "Failed to load units from '%s': %m", m->unit_dir);
        r = manager_sockets_load(m);
        if (r < 0 && r != -ENOENT)
                return log_error_errno(r, "Failed to load socket units from '%s': %m", m->unit_dir);
        Service *main_service = NULL;
        if (m->main_service) {
                /* Started as an operator's start is, recorded as wanted by the loop below. */
                const char *refusal = NULL;
                r = manager_job_prepare(m, MANAGER_JOB_START, m->main_service, /* record= */ false, &main_service,
                                        &refusal);
                if (r == -ESRCH)
                        return log_error_errno(ENOENT, "Main service '%s': no such unit.", m->main_service);
                if (r < 0)
                        return log_error_errno(r, "Main service '%s': %s.", m->main_service, refusal ?: strerror(-r));
                if (!main_service->def->unit)
                        return log_error_errno(ENOENT, "Main service '%s': %s.", m->main_service,
                                               main_service->def->load_error ?: "not loaded");
        }

        r = manager_listen(m, -EBADF);
        if (r < 0)
                return r;
        r = notify_socket_open(m);
        m->ctx.notify_ready = r >= 0;
        if (r < 0)
                log_error_errno(r, "Failed to open the notify socket '%s', Type=notify and WatchdogSec= will "
                                "fail: %m", m->notify_path);

        /* Only now, with the socket ours: a second svd must not take the file. */
        manager_restore_prepare(m);

        /* The sockets before the services: a service started now finds them bound. */
        manager_sockets_start_wanted(m, m->crash_restored);

        size_t n = 0;
        for (size_t i = 0; i < m->ctx.n_services; i++) {
                Service *s = m->ctx.services[i];
                if (!s->def->unit || !(service_wanted_at_startup(s, m->crash_restored) || s == main_service))
                        continue;
                const char *refusal = NULL;
                Service *t = NULL;
                r = manager_job_prepare(m, MANAGER_JOB_START, s->name, /* record= */ false, &t, &refusal);
                if (r < 0) {
                        log_warning_errno(r, "%s: wanted, but not started: %s.", s->name, refusal ?: strerror(-r));
                        continue;
                }
                (void) manager_job_op(MANAGER_JOB_START)(t, NULL, NULL);
                n++;
        }
        if (m->crash_restored)
                log_notice("Restored %zu services wanted before svd's previous instance ended uncleanly.", n);
        else
                log_info("Started %zu services enabled to start with svd.", n);
        manager_save_wanted(m);

        (void) sd_notifyf(/* unset_environment= */ false, "READY=1\nSTATUS=Supervising %zu services\nMAINPID=%d",
                          m->ctx.n_services, (int) getpid());
        return 0;
}

int manager_run(Manager *m) {
        int r = sd_event_loop(m->event);
        if (r < 0)
                return log_error_errno(r, "Event loop failed: %m");
        if (m->ctx.shutting_down) {
                /* A clean exit: the next svd starts the default set (wanted.h). */
                int k = wanted_file_remove(m->socket_path);
                if (k < 0)
                        log_warning_errno(k, "Failed to remove the wanted-state file, ignoring: %m");
                /* Every service has stopped and its cgroup is gone: the
                 * guard and the subtree svd made for them go too. */
                guard_stop(&m->guard);
                k = cgroup_root_remove(&m->cgroup);
                if (k < 0)
                        log_warning_errno(k, "Failed to remove the cgroup %s, ignoring: %m", m->cgroup.services_path);
                if (m->reboot_command != 0) {
                        /* As PID 1 (unit.h): in a PID namespace, the kernel ends svd here and the
                         * engine sees why; on a machine, it reboots or powers off. */
                        sync();
                        if (reboot(m->reboot_command) < 0)
                                log_error_errno(errno, "reboot(2) failed: %m");
                }
                if (m->main_exited)
                        return m->main_exit_status;
                if (m->shutdown_unclean) {
                        log_warning("Not every service stopped cleanly, exiting with status 1.");
                        return EXIT_FAILURE;
                }
        }
        return r;
}

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        if (m->hooks && m->hooks->free)
                m->hooks->free(m->hooks_userdata);
        m->hooks = NULL;
        m->gc_source = sd_event_source_disable_unref(m->gc_source);
        m->main_source = sd_event_source_disable_unref(m->main_source);
        free(m->main_service);
        notify_socket_close(m);
        manager_sockets_free(m);
        free(m->listen_fds);
        service_context_done(&m->ctx);
        unit_install_links_done(&m->links);
        service_log_console_close();
        guard_done(&m->guard);
        cgroup_root_done(&m->cgroup);
        m->sigterm_source = sd_event_source_disable_unref(m->sigterm_source);
        m->sigint_source = sd_event_source_disable_unref(m->sigint_source);
        m->sighup_source = sd_event_source_disable_unref(m->sighup_source);
        m->sigchld_source = sd_event_source_disable_unref(m->sigchld_source);
        sd_event_unref(m->event);
        free(m->unit_dir);
        free(m->exe_path);
        strv_free(m->argv);
        safe_close(m->state_fd);
        safe_close(m->lock_fd); /* the lock goes with it */
        free(m->lock_path);
        free(m->socket_path);
        free(m->notify_path);
        free(m);
        return NULL;
}
