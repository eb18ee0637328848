/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Socket activation (manager-socket.h): the socket units, their sockets, and the starts they make. */
#include "manager-socket.h"

#include <dirent.h>
#include <stdarg.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "basic/serialize.h"
#include "basic/string-table.h"
#include "basic/strv.h"
#include "basic/time-util.h"
#include "basic/unit-name.h"
#include "creds.h"
#include "deps.h"
#include "manager.h"
#include "manager-socket-exec.h"
#include "manager-socket-options.h"
#include "svd-log.h"
#include "wanted.h"

#define SOCKET_SUFFIX ".socket"
#define MANAGER_SOCKETS_MAX 4096U /* socket units in the unit directory */

#ifndef IPV6_FREEBIND
#define IPV6_FREEBIND 78
#endif

static void *mfree(void *p) {
        free(p);
        return NULL;
}

static const char *const socket_state_table[_SOCKET_STATE_MAX] = {
        [SOCKET_INACTIVE] = "inactive",
        [SOCKET_LISTENING] = "listening",
        [SOCKET_RUNNING] = "running",
        [SOCKET_FAILED] = "failed",
        [SOCKET_START_PRE] = "start-pre",
        [SOCKET_START_POST] = "start-post",
        [SOCKET_STOP_PRE] = "stop-pre",
        [SOCKET_STOP_POST] = "stop-post",
};
DEFINE_STRING_TABLE_LOOKUP_TO_STRING(socket_state, SocketState);

static void socket_set_state(Socket *s, SocketState state) {
        if (s->state == state)
                return;
        log_debug("%s.socket: %s → %s", s->name, socket_state_to_string(s->state), socket_state_to_string(state));
        s->state = state;
}

const char *socket_service_name(const Socket *s) {
        return s->unit && s->unit->socket.service ? s->unit->socket.service : s->name;
}

static void socket_close(Socket *s) {
        size_t n = s->unit ? s->unit->socket.n_listen : 0;
        socket_accept_close(s);
        for (size_t i = 0; s->sources && i < n; i++)
                s->sources[i] = sd_event_source_disable_unref(s->sources[i]);
        for (size_t i = 0; s->fds && i < n; i++)
                safe_close(s->fds[i]);
        free(s->sources);
        free(s->fds);
        s->sources = NULL;
        s->fds = NULL;
}

/* The start or stop under way ended: its waiters are told (r as SocketDoneFn says). */
static void socket_answer_waiters(Socket *s, int r) {
        while (s->n_waiters > 0) {
                SocketWaiter w = s->waiters[0];
                memmove(s->waiters, s->waiters + 1, --s->n_waiters * sizeof(SocketWaiter));
                w.done(s, r, w.userdata);
        }
        s->waiters = mfree(s->waiters);
}

static Socket *socket_free(Socket *s) {
        if (!s)
                return NULL;
        socket_answer_waiters(s, -ECANCELED);
        s->recheck_source = sd_event_source_disable_unref(s->recheck_source);
        socket_control_abandon(s);
        if (s->control)
                free(s->control->error);
        free(s->control);
        credentials_done(&s->exec_creds);
        socket_close(s);
        socket_accept_done(s);
        unit_free(s->unit);
        free(s->name);
        free(s->path);
        free(s->load_error);
        free(s->fd_names);
        free(s->last_error);
        free(s);
        return NULL;
}

void manager_sockets_free(Manager *m) {
        /* svd exits: its socket units stop (RemoveOnStop= removes their files). A re-exec does not get
         * here, and a crash leaves the files to the next svd, which replaces them. */
        for (size_t i = 0; i < m->n_sockets; i++) {
                manager_socket_stop(m->sockets[i]);
                socket_free(m->sockets[i]);
        }
        free(m->sockets);
        m->sockets = NULL;
        m->n_sockets = 0;
}

Socket *manager_socket_find(Manager *m, const char *name) {
        size_t n = strlen(name);
        if (n > strlen(SOCKET_SUFFIX) && streq(name + n - strlen(SOCKET_SUFFIX), SOCKET_SUFFIX))
                n -= strlen(SOCKET_SUFFIX);
        for (size_t i = 0; i < m->n_sockets; i++)
                if (strlen(m->sockets[i]->name) == n && strneq(m->sockets[i]->name, name, n))
                        return m->sockets[i];
        return NULL;
}

/* Whether the service the socket activates runs, or is on its way. An Accept=yes socket unit is
 * watched whatever its instances do. */
static bool socket_service_busy(Socket *s) {
        if (s->unit && s->unit->socket.accept)
                return false;
        Service *svc = service_lookup(&s->manager->ctx, socket_service_name(s));
        return svc && !service_is_settled(svc);
}

static void socket_sources_enable(Socket *s, bool on) {
        size_t n = s->unit->socket.n_listen;
        for (size_t i = 0; s->sources && i < n; i++)
                if (s->sources[i])
                        (void) sd_event_source_set_enabled(s->sources[i], on ? SD_EVENT_ON : SD_EVENT_OFF);
}

static void socket_watch(Socket *s, bool on) {
        socket_sources_enable(s, on);
        socket_set_state(s, on ? SOCKET_LISTENING : SOCKET_RUNNING);
}

/* Started by hand, it listens no more: a crash does not bring it back as started by hand. */
static void socket_drop_wanted_start(Socket *s) {
        if (s->wanted == WANTED_START && manager_socket_set_wanted(s, WANTED_DEFAULT))
                manager_save_wanted(s->manager);
}

/* Closes the sockets of s, which failed with the reason (a static or formatted string). */
static void socket_fail(Socket *s, const char *format, ...) _printf_(2, 3);
static void socket_fail(Socket *s, const char *format, ...) {
        va_list ap;
        char *e = NULL;

        va_start(ap, format);
        if (vasprintf(&e, format, ap) < 0)
                e = NULL;
        va_end(ap);
        free(s->last_error);
        s->last_error = e;
        log_error("%s.socket: %s; closing the socket.", s->name, e ?: "out of memory");
        socket_control_abandon(s);
        socket_close(s);
        socket_set_state(s, SOCKET_FAILED);
        socket_drop_wanted_start(s);
        socket_answer_waiters(s, -EIO);
}

static int on_socket_ready(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        Socket *s = userdata;
        Manager *m = s->manager;
        const char *service = socket_service_name(s);
        const char *refusal = NULL;
        Service *svc = NULL;

        if (s->unit->socket.accept) {
                _cleanup_free_ char *error = NULL;
                if (socket_accept_ready(s, fd, &error) < 0)
                        socket_fail(s, "%s", error ?: "out of memory");
                return 0;
        }
        /* Not accepted: the service takes the connection from the listening socket. Until it has
         * stopped, svd does not look at the socket again. */
        socket_watch(s, false);
        s->n_triggers++;
        if (m->ctx.shutting_down)
                return 0;
        uint64_t now = now_usec(CLOCK_MONOTONIC);
        if (now - s->trigger_window_usec > SOCKET_TRIGGER_LIMIT_USEC) {
                s->trigger_window_usec = now;
                s->trigger_window_n = 0;
        }
        if (++s->trigger_window_n > SOCKET_TRIGGER_LIMIT_BURST) {
                socket_fail(s, "Triggered more than %u times in %llu s: trigger limit hit", SOCKET_TRIGGER_LIMIT_BURST,
                            SOCKET_TRIGGER_LIMIT_USEC / 1000000ULL);
                return 0;
        }
        /* Recorded as wanted, as an operator's start is: after a crash, the next svd binds the
         * socket and starts the service that ran on it again (wanted.h). */
        int r = manager_job_prepare(m, MANAGER_JOB_START, service, /* record= */ true, &svc, &refusal);
        if (r >= 0 && !svc->def->unit)
                r = -ENOENT, refusal = svc->def->load_error;
        if (r >= 0)
                r = manager_job_op(MANAGER_JOB_START)(svc, NULL, NULL);
        if (r < 0) {
                socket_fail(s, "Failed to start '%s.service': %s", service,
                            refusal ?: (r == -ESRCH ? "no such unit" : strerror(-r)));
                return 0;
        }
        log_info("%s.socket: %s, starting '%s.service'.", s->name,
                 (revents & EPOLLIN) ? "incoming traffic" : "event", service);
        return 0;
}

static int mkdir_parents(const char *path, mode_t mode) {
        _cleanup_free_ char *p = strdup(path);
        if (!p)
                return -ENOMEM;
        for (char *c = strchr(p + 1, '/'); c; c = strchr(c + 1, '/')) {
                *c = '\0';
                if (mkdir(p, mode) < 0 && errno != EEXIST)
                        return -errno;
                *c = '/';
        }
        return 0;
}

/* A socket file left by a socket nobody listens on any more (svd was killed): connecting to it is
 * refused. */
static bool socket_file_is_stale(const struct sockaddr *sa, socklen_t len, int type) {
        _cleanup_close_ int fd = socket(AF_UNIX, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        return fd >= 0 && connect(fd, sa, len) < 0 && errno == ECONNREFUSED;
}

static int socket_bind_one(Socket *s, const SocketListen *l, int *ret_fd) {
        const UnitSocket *us = &s->unit->socket;
        struct sockaddr_storage sa = l->sa;
        socklen_t len = l->sa_len;
        int type, r;

        if (l->type == SOCKET_LISTEN_FIFO) {
                r = mkdir_parents(l->path, (mode_t) us->directory_mode);
                if (r < 0)
                        return r;
                if (mkfifo(l->path, (mode_t) us->socket_mode) < 0 && errno != EEXIST)
                        return -errno;
                _cleanup_close_ int fd = open(l->path, O_RDWR | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
                if (fd < 0)
                        return -errno;
                struct stat st;
                if (fstat(fd, &st) < 0)
                        return -errno;
                if (!S_ISFIFO(st.st_mode))
                        return -EEXIST;
                if (fchmod(fd, (mode_t) us->socket_mode) < 0)
                        return -errno;
                if ((s->uid != (uid_t) -1 || s->gid != (gid_t) -1) && fchown(fd, s->uid, s->gid) < 0)
                        return -errno;
                socket_options_apply_fifo(s->name, us, fd);
                *ret_fd = TAKE_FD(fd);
                return 0;
        }

        type = l->type == SOCKET_LISTEN_STREAM ? SOCK_STREAM
             : l->type == SOCKET_LISTEN_DATAGRAM ? SOCK_DGRAM
                                                  : SOCK_SEQPACKET;
        _cleanup_close_ int fd = socket(sa.ss_family, type | SOCK_CLOEXEC | SOCK_NONBLOCK,
                                        socket_options_protocol(us, sa.ss_family));
        if (fd < 0 && l->port_only && errno == EAFNOSUPPORT) {
                /* A bare port on a host without IPv6: IPv4's any address. */
                struct sockaddr_in *in = (struct sockaddr_in *) &sa;
                uint16_t port = ((struct sockaddr_in6 *) &l->sa)->sin6_port;
                sa = (struct sockaddr_storage){};
                in->sin_family = AF_INET;
                in->sin_port = port;
                in->sin_addr.s_addr = htonl(INADDR_ANY);
                len = sizeof(*in);
                fd = socket(AF_INET, type | SOCK_CLOEXEC | SOCK_NONBLOCK, socket_options_protocol(us, AF_INET));
        }
        if (fd < 0)
                return -errno;

        static const int one = 1;
        if (sa.ss_family != AF_UNIX && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0)
                return -errno;
        if (us->reuse_port && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0)
                return -errno;
        if (us->free_bind && sa.ss_family == AF_INET && setsockopt(fd, SOL_IP, IP_FREEBIND, &one, sizeof(one)) < 0)
                return -errno;
        if (us->free_bind && sa.ss_family == AF_INET6 &&
            setsockopt(fd, SOL_IPV6, IPV6_FREEBIND, &one, sizeof(one)) < 0)
                return -errno;
        if (sa.ss_family == AF_INET6 && us->bind_ipv6_only != SOCKET_BIND_IPV6_DEFAULT) {
                int only = us->bind_ipv6_only == SOCKET_BIND_IPV6_ONLY;
                if (setsockopt(fd, SOL_IPV6, IPV6_V6ONLY, &only, sizeof(only)) < 0)
                        return -errno;
        }
        socket_options_apply(s->name, us, fd, sa.ss_family, type);
        if (l->path) {
                r = mkdir_parents(l->path, (mode_t) us->directory_mode);
                if (r < 0)
                        return r;
        }
        r = bind(fd, (struct sockaddr *) &sa, len) < 0 ? -errno : 0;
        if (r == -EADDRINUSE && l->path) {
                struct stat st;
                if (lstat(l->path, &st) >= 0 && S_ISSOCK(st.st_mode) &&
                    socket_file_is_stale((struct sockaddr *) &sa, len, type) && unlink(l->path) >= 0)
                        r = bind(fd, (struct sockaddr *) &sa, len) < 0 ? -errno : 0;
        }
        if (r < 0)
                return r;
        if (l->path) {
                if (chmod(l->path, (mode_t) us->socket_mode) < 0)
                        return -errno;
                if ((s->uid != (uid_t) -1 || s->gid != (gid_t) -1) && lchown(l->path, s->uid, s->gid) < 0)
                        return -errno;
        }
        if (type != SOCK_DGRAM && listen(fd, (int) us->backlog) < 0)
                return -errno;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

/* Binds every Listen*= of s and watches none yet: 0, or -errno with s failed and *ret_error. */
static int socket_bind_all(Socket *s, char **ret_error) {
        const UnitSocket *us = &s->unit->socket;
        int r;

        s->fds = calloc(us->n_listen, sizeof(int));
        s->sources = calloc(us->n_listen, sizeof(sd_event_source *));
        if (!s->fds || !s->sources) {
                socket_close(s);
                return -ENOMEM;
        }
        for (size_t i = 0; i < us->n_listen; i++)
                s->fds[i] = -EBADF;
        for (size_t i = 0; i < us->n_listen; i++) {
                r = socket_bind_one(s, &us->listen[i], &s->fds[i]);
                if (r >= 0)
                        r = sd_event_add_io(s->manager->event, &s->sources[i], s->fds[i], EPOLLIN, on_socket_ready, s);
                if (r < 0) {
                        free(s->last_error);
                        if (asprintf(&s->last_error, "Failed to listen on '%s': %s", us->listen[i].address,
                                     strerror(-r)) < 0)
                                s->last_error = NULL;
                        if (ret_error)
                                *ret_error = s->last_error ? strdup(s->last_error) : NULL;
                        socket_close(s);
                        socket_set_state(s, SOCKET_FAILED);
                        return r;
                }
        }
        s->last_error = mfree(s->last_error);
        socket_sources_enable(s, false);
        for (size_t i = 0; us->symlinks && i < us->n_listen; i++)
                if (us->listen[i].path)
                        socket_symlinks_make(s->name, us, us->listen[i].path);
        return 0;
}

/* Its sockets are bound and its commands have run: it listens. */
static void socket_listen_now(Socket *s) {
        const UnitSocket *us = &s->unit->socket;
        log_info("%s.socket: listening on %zu %s.", s->name, us->n_listen, us->n_listen == 1 ? "socket" : "sockets");
        /* A service that runs already (started by hand) has had no sockets; it gets them at its next
         * start. Until it stops, svd does not watch. */
        socket_set_state(s, SOCKET_LISTENING);
        socket_watch(s, !socket_service_busy(s));
        socket_answer_waiters(s, 0);
        /* Services ordered After= it may start now. */
        deps_schedule(&s->manager->ctx);
}

static void socket_stop_sequence(Socket *s, bool failed);

/* A command list of the start failed: its reason is the unit's. */
static void socket_take_control_error(Socket *s) {
        const char *e = socket_control_error(s);
        free(s->last_error);
        s->last_error = e ? strdup(e) : NULL;
}

static void on_start_post_done(Socket *s, bool success) {
        if (success) {
                socket_listen_now(s);
                return;
        }
        socket_take_control_error(s);
        socket_stop_sequence(s, /* failed= */ true);
}

/* Binds, then runs ExecStartPost=. 0 (listening, or ExecStartPost= runs), or -errno with *ret_error. */
static int socket_bind_and_post(Socket *s, char **ret_error) {
        int r = socket_bind_all(s, ret_error);
        if (r < 0)
                return r;
        r = socket_control_start(s, UNIT_EXEC_START_POST, on_start_post_done);
        if (r > 0) {
                socket_set_state(s, SOCKET_START_POST);
                return 0;
        }
        if (r < 0) {
                socket_close(s);
                socket_set_state(s, SOCKET_FAILED);
                return r;
        }
        socket_listen_now(s);
        return 0;
}

static void on_start_pre_done(Socket *s, bool success) {
        if (!success) {
                socket_take_control_error(s);
                socket_stop_sequence(s, /* failed= */ true);
                return;
        }
        int r = socket_bind_and_post(s, NULL);
        if (r < 0) {
                log_error("%s.socket: %s", s->name, s->last_error ?: strerror(-r));
                socket_stop_sequence(s, /* failed= */ true);
        }
}

int manager_socket_start(Socket *s, char **ret_error) {
        int r;

        assert(s);

        if (!s->unit) {
                if (ret_error)
                        *ret_error = s->load_error ? strdup(s->load_error) : NULL;
                return -ENOEXEC;
        }
        if (IN_SET(s->state, SOCKET_STOP_PRE, SOCKET_STOP_POST)) {
                if (ret_error)
                        *ret_error = strdup("it is stopping (its ExecStopPre= or ExecStopPost= runs)");
                return -EBUSY;
        }
        if (s->fds || s->state == SOCKET_START_PRE)
                return 0;
        r = socket_control_start(s, UNIT_EXEC_START_PRE, on_start_pre_done);
        if (r < 0)
                return r;
        if (r > 0) {
                socket_set_state(s, SOCKET_START_PRE);
                return 0;
        }
        r = socket_bind_and_post(s, ret_error);
        if (r < 0 && s->unit->exec[UNIT_EXEC_STOP_POST].n > 0)
                socket_stop_sequence(s, /* failed= */ true); /* its ExecStopPost= runs after a failed start too */
        return r;
}

bool manager_socket_is_busy(const Socket *s) {
        return IN_SET(s->state, SOCKET_START_PRE, SOCKET_START_POST, SOCKET_STOP_PRE, SOCKET_STOP_POST);
}

int manager_socket_wait(Socket *s, SocketDoneFn done, void *userdata) {
        SocketWaiter *a = reallocarray(s->waiters, s->n_waiters + 1, sizeof(SocketWaiter));
        if (!a)
                return -ENOMEM;
        s->waiters = a;
        s->waiters[s->n_waiters++] = (SocketWaiter){ .done = done, .userdata = userdata };
        return 0;
}

void manager_socket_unwait(Socket *s, void *userdata) {
        for (size_t i = 0; i < s->n_waiters; i++)
                if (s->waiters[i].userdata == userdata) {
                        memmove(s->waiters + i, s->waiters + i + 1, (s->n_waiters - i - 1) * sizeof(SocketWaiter));
                        s->n_waiters--;
                        return;
                }
}

bool manager_socket_is_starting(const Socket *s) {
        return IN_SET(s->state, SOCKET_START_PRE, SOCKET_START_POST);
}

int manager_socket_start_dependency(Manager *m, const char *name, char **ret_reason) {
        Socket *s = manager_socket_find(m, name);
        if (!s)
                return -ESRCH;
        bool was = s->fds;
        int r = manager_socket_start(s, ret_reason);
        if (r < 0)
                return r;
        if (!was)
                log_info("%s.socket: started as a dependency.", s->name);
        return manager_socket_is_starting(s) ? 0 : 1;
}

/* Closes the sockets; RemoveOnStop= removes their files. */
static void socket_close_files(Socket *s) {
        bool bound = s->fds;
        socket_close(s);
        if (bound && s->unit && s->unit->socket.remove_on_stop) {
                for (size_t i = 0; i < s->unit->socket.n_listen; i++)
                        if (s->unit->socket.listen[i].path)
                                (void) unlink(s->unit->socket.listen[i].path);
                socket_symlinks_remove(&s->unit->socket);
        }
        if (bound)
                log_info("%s.socket: closed.", s->name);
}

void manager_socket_stop(Socket *s) {
        assert(s);

        socket_control_abandon(s);
        socket_close_files(s);
        socket_set_state(s, SOCKET_INACTIVE);
        socket_answer_waiters(s, -ECANCELED);
}

static void on_stop_post_done(Socket *s, bool success) {
        if (!success) {
                socket_take_control_error(s);
                s->stop_failed = true;
        }
        socket_set_state(s, s->stop_failed ? SOCKET_FAILED : SOCKET_INACTIVE);
        if (s->stop_failed)
                socket_drop_wanted_start(s);
        socket_answer_waiters(s, s->stop_failed ? -EIO : 0);
        deps_schedule(&s->manager->ctx);
}

static void on_stop_pre_done(Socket *s, bool success) {
        if (!success) {
                socket_take_control_error(s);
                s->stop_failed = true;
        }
        socket_close_files(s);
        int r = socket_control_start(s, UNIT_EXEC_STOP_POST, on_stop_post_done);
        if (r > 0) {
                socket_set_state(s, SOCKET_STOP_POST);
                return;
        }
        on_stop_post_done(s, r >= 0);
}

/* ExecStopPre= (while the sockets are open), close, ExecStopPost=; failed: it ends failed. */
static void socket_stop_sequence(Socket *s, bool failed) {
        s->stop_failed = failed;
        socket_sources_enable(s, false);
        int r = s->fds ? socket_control_start(s, UNIT_EXEC_STOP, on_stop_pre_done) : 0;
        if (r > 0) {
                socket_set_state(s, SOCKET_STOP_PRE);
                return;
        }
        on_stop_pre_done(s, r >= 0);
}

int manager_socket_begin_stop(Socket *s) {
        assert(s);

        if (IN_SET(s->state, SOCKET_STOP_PRE, SOCKET_STOP_POST))
                return 1;
        if (!s->unit || (!s->fds && !socket_control_running(s))) {
                manager_socket_stop(s);
                return 0;
        }
        /* A start under way is cut short: its command is killed. */
        socket_control_abandon(s);
        if (s->state == SOCKET_START_PRE) {
                socket_set_state(s, SOCKET_INACTIVE);
                socket_answer_waiters(s, -ECANCELED);
        }
        socket_stop_sequence(s, /* failed= */ false);
        return manager_socket_is_busy(s) ? 1 : 0;
}

static int on_socket_recheck(sd_event_source *source, void *userdata) {
        Socket *s = userdata;
        Service *svc = service_lookup(&s->manager->ctx, socket_service_name(s));
        s->recheck_source = sd_event_source_disable_unref(s->recheck_source);
        if (svc)
                manager_sockets_service_changed(s->manager, svc);
        return 0;
}

void manager_sockets_service_changed(Manager *m, Service *svc) {
        if (svc->transient) {
                manager_sockets_accept_service_changed(m, svc);
                return;
        }
        for (size_t i = 0; i < m->n_sockets; i++) {
                Socket *s = m->sockets[i];
                if (!s->fds || s->unit->socket.accept || !IN_SET(s->state, SOCKET_LISTENING, SOCKET_RUNNING) ||
                    !streq(socket_service_name(s), svc->name))
                        continue;
                if (svc->state == SERVICE_FAILED && svc->result == SERVICE_FAILURE_START_LIMIT_HIT) {
                        socket_fail(s, "'%s.service' hit its start limit", svc->name);
                        continue;
                }
                bool busy = !service_is_settled(svc);
                if (busy && svc->job == SERVICE_JOB_STARTING && IN_SET(svc->state, SERVICE_INACTIVE, SERVICE_FAILED) &&
                    !s->recheck_source)
                        /* It ended while its start job was not done yet (a Type=oneshot that exits at
                         * once): looked at again once the job is, from the loop. */
                        (void) sd_event_add_defer(m->event, &s->recheck_source, on_socket_recheck, s);
                /* FlushPending=: what the service left queued is dropped before svd watches again. */
                if (!busy && s->state == SOCKET_RUNNING && s->unit->socket.flush_pending)
                        for (size_t k = 0; k < s->unit->socket.n_listen; k++)
                                socket_flush_pending(s->fds[k]);
                if (busy != (s->state == SOCKET_RUNNING))
                        socket_watch(s, !busy);
        }
}

size_t manager_sockets_listen_fds(Manager *m, Service *svc, const int **ret_fds, char **ret_names) {
        size_t n = 0;

        m->listen_fds = mfree(m->listen_fds);
        *ret_fds = NULL;
        *ret_names = NULL;
        for (size_t i = 0; i < m->n_sockets; i++) {
                Socket *s = m->sockets[i];
                if (!s->fds || s->unit->socket.accept || !streq(socket_service_name(s), svc->name))
                        continue;
                size_t k = s->unit->socket.n_listen;
                int *a = realloc(m->listen_fds, (n + k) * sizeof(int));
                if (!a)
                        return 0;
                m->listen_fds = a;
                for (size_t j = 0; j < k; j++) {
                        const char *name = s->unit->socket.fd_name;
                        char *joined = NULL;
                        if (asprintf(&joined, "%s%s%s%s", *ret_names ?: "", *ret_names ? ":" : "", name ?: s->name,
                                     name ? "" : SOCKET_SUFFIX) < 0) {
                                *ret_names = mfree(*ret_names);
                                return 0;
                        }
                        free(*ret_names);
                        *ret_names = joined;
                        m->listen_fds[n++] = s->fds[j];
                }
        }
        *ret_fds = m->listen_fds;
        return n;
}

static void on_socket_unit_warning(const char *message, void *userdata) {
        log_warning("%s", message);
}

/* NAME of NAME.socket, or -EINVAL. */
static int socket_name_from_filename(const char *filename, char **ret) {
        size_t n = strlen(filename), l = strlen(SOCKET_SUFFIX);
        if (n <= l || !streq(filename + n - l, SOCKET_SUFFIX) || filename[0] == '.')
                return -EINVAL;
        _cleanup_free_ char *name = strndup(filename, n - l);
        if (!name)
                return -ENOMEM;
        if (!unit_name_is_valid(name) || strchr(name, '@'))
                return -EINVAL;
        *ret = TAKE_PTR(name);
        return 0;
}

static int socket_load(Manager *m, Socket *s) {
        _cleanup_free_ char *error = NULL;
        Unit *u = NULL;

        int r = unit_load_file(s->path, s->name, /* defaults= */ NULL, on_socket_unit_warning, m, &u, &error);
        if (r == -ENOMEM)
                return r;
        if (r < 0 && !error && asprintf(&error, "%s: %s", s->path, strerror(-r)) < 0)
                return -ENOMEM;
        s->uid = (uid_t) -1;
        s->gid = (gid_t) -1;
        if (u && (u->socket.socket_user || u->socket.socket_group)) {
                Credentials c = {};
                _cleanup_free_ char *why = NULL;
                r = credentials_resolve(u->socket.socket_user, u->socket.socket_group, NULL, &c, &why);
                if (r < 0) {
                        free(error);
                        if (asprintf(&error, "%s: SocketUser=/SocketGroup=: %s", s->path, why ?: strerror(-r)) < 0)
                                error = NULL;
                        u = unit_free(u);
                } else {
                        s->uid = u->socket.socket_user ? c.uid : (uid_t) -1;
                        s->gid = c.gid;
                }
                credentials_done(&c);
        }
        credentials_done(&s->exec_creds);
        if (u && (u->user || u->group)) {
                /* User=, Group= of its commands. */
                _cleanup_free_ char *why = NULL;
                r = credentials_resolve(u->user, u->group, NULL, &s->exec_creds, &why);
                if (r < 0) {
                        free(error);
                        if (asprintf(&error, "%s: User=/Group=: %s", s->path, why ?: strerror(-r)) < 0)
                                error = NULL;
                        u = unit_free(u);
                }
        }
        if (error)
                log_error("%s", error);
        unit_free(s->unit);
        s->unit = u;
        free(s->load_error);
        s->load_error = TAKE_PTR(error);
        return 0;
}

int manager_sockets_load(Manager *m) {
        _cleanup_(closedirp) DIR *d = opendir(m->unit_dir);
        struct dirent *de;
        bool *seen = calloc(m->n_sockets + 1, sizeof(bool));
        size_t n_old = m->n_sockets;
        int r = 0;

        if (!seen)
                return -ENOMEM;
        if (!d) {
                free(seen);
                return -errno;
        }
        while ((errno = 0, de = readdir(d))) {
                _cleanup_free_ char *name = NULL;
                if (socket_name_from_filename(de->d_name, &name) < 0)
                        continue;
                Socket *s = NULL;
                for (size_t i = 0; i < n_old; i++)
                        if (streq(m->sockets[i]->name, name)) {
                                s = m->sockets[i];
                                seen[i] = true;
                        }
                if (s) {
                        /* A bound socket unit keeps the definition it was bound with (and one whose
                         * commands run, theirs); a reload once it has stopped takes the file as it
                         * is then. */
                        if (!s->fds && !manager_socket_is_busy(s) && socket_load(m, s) < 0)
                                r = -ENOMEM;
                        continue;
                }
                if (m->n_sockets >= MANAGER_SOCKETS_MAX) {
                        log_error("More than %u socket units in '%s', ignoring the rest.", MANAGER_SOCKETS_MAX,
                                  m->unit_dir);
                        break;
                }
                s = calloc(1, sizeof(Socket));
                Socket **a = s ? reallocarray(m->sockets, m->n_sockets + 1, sizeof(Socket *)) : NULL;
                if (!a) {
                        free(s);
                        r = -ENOMEM;
                        break;
                }
                m->sockets = a;
                s->manager = m;
                s->name = TAKE_PTR(name);
                if (asprintf(&s->path, "%s/%s", m->unit_dir, de->d_name) < 0)
                        s->path = NULL;
                m->sockets[m->n_sockets++] = s;
                if (!s->path || socket_load(m, s) < 0)
                        r = -ENOMEM;
        }
        /* Removed files: their sockets close now (systemd stops a unit whose file is gone at its next
         * reload as well, once nothing needs it). */
        for (size_t i = n_old; i > 0; i--) {
                if (seen[i - 1])
                        continue;
                Socket *s = m->sockets[i - 1];
                log_info("%s.socket: unit file removed, closing and dropping the unit.", s->name);
                manager_socket_stop(s);
                socket_free(s);
                memmove(m->sockets + i - 1, m->sockets + i, (m->n_sockets - i) * sizeof(Socket *));
                m->n_sockets--;
        }
        free(seen);
        return r;
}

bool manager_socket_set_wanted(Socket *s, WantedOverride w) {
        if (s->wanted == w)
                return false;
        s->wanted = w;
        return true;
}

int manager_sockets_wanted_lines(Manager *m, char ***ret) {
        char **l = NULL;
        for (size_t i = 0; i < m->n_sockets; i++) {
                Socket *s = m->sockets[i];
                _cleanup_free_ char *line = NULL;
                if (s->wanted == WANTED_DEFAULT)
                        continue;
                if (asprintf(&line, "%s %s%s", wanted_override_to_string(s->wanted), s->name, SOCKET_SUFFIX) < 0 ||
                    strv_consume(&l, TAKE_PTR(line)) < 0) {
                        strv_free(l);
                        return -ENOMEM;
                }
        }
        *ret = l;
        return 0;
}

int manager_socket_apply_wanted(const char *name, WantedOverride w, void *userdata) {
        Manager *m = userdata;
        size_t n = strlen(name), l = strlen(SOCKET_SUFFIX);
        if (n <= l || !streq(name + n - l, SOCKET_SUFFIX))
                return 0;
        Socket *s = manager_socket_find(m, name);
        if (!s)
                return 0;
        s->wanted = w;
        return 1;
}

void manager_sockets_start_wanted(Manager *m, bool restored) {
        size_t n = 0;
        for (size_t i = 0; i < m->n_sockets; i++) {
                Socket *s = m->sockets[i];
                _cleanup_free_ char *error = NULL;
                bool want = s->wanted == WANTED_START ||
                            (s->wanted == WANTED_DEFAULT && manager_socket_file_state(m, s) == UNIT_FILE_ENABLED);
                if (!s->unit || !want || s->fds)
                        continue;
                n += s->wanted == WANTED_START;
                int r = manager_socket_start(s, &error);
                if (r < 0)
                        log_error("%s.socket: %s", s->name, error ?: strerror(-r));
        }
        if (restored && n > 0)
                log_notice("Bound %zu socket units started by hand before svd's previous instance ended uncleanly.", n);
}

json_t *manager_sockets_serialize(Manager *m, ReexecFds *fds) {
        json_t *a = json_array();
        if (!a)
                return NULL;
        for (size_t i = 0; i < m->n_sockets; i++) {
                Socket *s = m->sockets[i];
                /* A command that runs does not survive the exec: it is killed. A socket unit that was
                 * stopping is closed; one whose ExecStartPost= ran listens. */
                if (socket_control_running(s))
                        log_warning("%s.socket: svd re-executes while its %s= runs: killing it.", s->name,
                                    socket_exec_to_string(s->control->kind));
                socket_control_abandon(s);
                if (IN_SET(s->state, SOCKET_STOP_PRE, SOCKET_STOP_POST, SOCKET_START_PRE))
                        socket_close(s);
                json_t *f = s->fds ? json_array() : json_null();
                for (size_t k = 0; f && s->fds && k < s->unit->socket.n_listen; k++)
                        if (json_array_append_new(f, reexec_fd_to_json(fds, s->fds[k])) < 0)
                                f = NULL;
                json_t *o = json_pack("{s:s,s:s,s:o,s:s,s:s,s:I,s:o,s:o}", "name", s->name, "path", s->path ?: "",
                                      "source",
                                      s->unit ? reexec_bytes_to_json(s->unit->source, s->unit->source_len)
                                              : json_null(),
                                      "state", socket_state_to_string(s->state), "wanted",
                                      wanted_override_to_string(s->wanted), "triggers",
                                      (json_int_t) s->n_triggers, "lastError",
                                      s->last_error ? json_string(s->last_error) : json_null(), "fds",
                                      f ?: json_null());
                if (o && socket_accept_serialize(s, o) < 0) {
                        json_decref(o);
                        o = NULL;
                }
                if (!o || json_array_append_new(a, o) < 0) {
                        json_decref(a);
                        return NULL;
                }
        }
        return a;
}

/* The fd that a number of the state document names, taken back (close-on-exec again). */
static int fd_take(json_t *number) {
        _cleanup_(json_decrefp) json_t *one = json_pack("{s:O}", "fd", number);
        return one ? reexec_fd_take(one, "fd") : -ENOMEM;
}

static int socket_deserialize(Manager *m, json_t *o) {
        const char *name = reexec_str(o, "name"), *path = reexec_str(o, "path");
        _cleanup_free_ char *source = NULL, *error = NULL;
        size_t len = 0;
        Unit *u = NULL;

        if (!name || !path)
                return -EINVAL;
        Socket *s = calloc(1, sizeof(Socket));
        Socket **a = s ? reallocarray(m->sockets, m->n_sockets + 1, sizeof(Socket *)) : NULL;
        if (!a) {
                free(s);
                return -ENOMEM;
        }
        m->sockets = a;
        m->sockets[m->n_sockets++] = s;
        s->manager = m;
        s->uid = (uid_t) -1;
        s->gid = (gid_t) -1;
        s->name = strdup(name);
        s->path = strdup(path);
        if (!s->name || !s->path)
                return -ENOMEM;
        s->n_triggers = reexec_u64(o, "triggers", 0);
        if (socket_accept_deserialize(s, o) < 0)
                return -ENOMEM;
        if (reexec_str(o, "lastError") && !(s->last_error = strdup(reexec_str(o, "lastError"))))
                return -ENOMEM;
        const char *wanted = reexec_str(o, "wanted");
        s->wanted = wanted ? MAX(wanted_override_from_string(wanted), WANTED_DEFAULT) : WANTED_DEFAULT;
        const char *state = reexec_str(o, "state");
        s->state = state && streq(state, "failed") ? SOCKET_FAILED : SOCKET_INACTIVE;

        json_t *src = json_object_get(o, "source");
        if (json_is_null(src) || !src) {
                /* It had not loaded: its file again, for the error. */
                return socket_load(m, s);
        }
        int r = reexec_bytes_from_json(src, &source, &len);
        if (r < 0)
                return r;
        r = unit_load_string(source, len, s->path, s->name, /* defaults= */ NULL, NULL, NULL, &u, &error);
        if (r == -ENOMEM)
                return r;
        json_t *fds = json_object_get(o, "fds");
        if (r < 0) {
                /* This svd does not accept the unit any more: its sockets close. */
                s->load_error = TAKE_PTR(error);
                size_t k;
                json_t *j;
                json_array_foreach(fds, k, j)
                        safe_close(fd_take(j));
                return 0;
        }
        s->unit = u;
        if (u->socket.socket_user || u->socket.socket_group) {
                /* As at load: the ids the files are chowned to at the next start. */
                Credentials c = {};
                if (credentials_resolve(u->socket.socket_user, u->socket.socket_group, NULL, &c, NULL) >= 0) {
                        s->uid = u->socket.socket_user ? c.uid : (uid_t) -1;
                        s->gid = c.gid;
                }
                credentials_done(&c);
        }
        if ((u->user || u->group) && credentials_resolve(u->user, u->group, NULL, &s->exec_creds, NULL) < 0)
                log_warning("%s.socket: User=/Group= do not resolve any more; its commands will fail.", s->name);
        if (!json_is_array(fds) || json_array_size(fds) != u->socket.n_listen)
                return 0;
        s->fds = calloc(u->socket.n_listen, sizeof(int));
        s->sources = calloc(u->socket.n_listen, sizeof(sd_event_source *));
        if (!s->fds || !s->sources)
                return -ENOMEM;
        for (size_t k = 0; k < u->socket.n_listen; k++)
                s->fds[k] = -EBADF;
        for (size_t k = 0; k < u->socket.n_listen; k++) {
                s->fds[k] = fd_take(json_array_get(fds, k));
                r = s->fds[k];
                if (r >= 0)
                        r = sd_event_add_io(m->event, &s->sources[k], s->fds[k], EPOLLIN, on_socket_ready, s);
                if (r < 0) {
                        log_error_errno(r, "%s.socket: Failed to take listening socket %zu back, closing: %m", s->name, k);
                        socket_close(s);
                        socket_set_state(s, SOCKET_FAILED);
                        return 0;
                }
        }
        socket_set_state(s, SOCKET_LISTENING);
        socket_watch(s, !socket_service_busy(s));
        return 0;
}

int manager_sockets_deserialize(Manager *m, json_t *sockets) {
        size_t i;
        json_t *o;

        if (!sockets) {
                int r = manager_sockets_load(m);
                return r == -ENOENT ? 0 : r;
        }
        json_array_foreach(sockets, i, o) {
                int r = socket_deserialize(m, o);
                if (r < 0)
                        return log_error_errno(r, "Failed to restore socket unit %zu ('%s') from the re-exec state: %m",
                                               i, strna(reexec_str(o, "name")));
        }
        return 0;
}
