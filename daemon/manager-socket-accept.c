/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Socket activation with Accept=yes (manager-socket.h): one instance of NAME@.service per connection. */
#include "manager-socket.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "basic/strv.h"
#include "basic/time-util.h"
#include "manager.h"
#include "svd-log.h"

#define SOCKET_ACCEPT_RETRY_MIN_USEC (10 * USEC_PER_MSEC)
#define SOCKET_ACCEPT_RETRY_MAX_USEC (1 * USEC_PER_SEC)

static void socket_connection_done(SocketConnection *c) {
        free(c->service);
        free(c->source);
        *c = (SocketConnection){};
}

static int socket_connection_add(Socket *s, const char *service, const char *source) {
        SocketConnection *a = reallocarray(s->connections, s->n_connections + 1, sizeof(SocketConnection));
        if (!a)
                return -ENOMEM;
        s->connections = a;
        SocketConnection c = { .service = strdup(service), .source = strdup(source) };
        if (!c.service || !c.source) {
                socket_connection_done(&c);
                return -ENOMEM;
        }
        s->connections[s->n_connections++] = c;
        return 0;
}

static void socket_connection_remove(Socket *s, size_t i) {
        socket_connection_done(&s->connections[i]);
        memmove(s->connections + i, s->connections + i + 1, (s->n_connections - i - 1) * sizeof(SocketConnection));
        s->n_connections--;
}

static unsigned socket_connections_from(const Socket *s, const char *source) {
        unsigned n = 0;
        for (size_t i = 0; i < s->n_connections; i++)
                if (streq(s->connections[i].source, source))
                        n++;
        return n;
}

void socket_accept_close(Socket *s) {
        s->accept_retry_source = sd_event_source_disable_unref(s->accept_retry_source);
        s->accept_retry_usec = 0;
}

void socket_accept_done(Socket *s) {
        socket_accept_close(s);
        for (size_t i = 0; i < s->n_connections; i++)
                socket_connection_done(&s->connections[i]);
        free(s->connections);
        s->connections = NULL;
        s->n_connections = 0;
}

static void socket_accept_watch(Socket *s, bool on) {
        for (size_t i = 0; s->sources && i < s->unit->socket.n_listen; i++)
                if (s->sources[i])
                        (void) sd_event_source_set_enabled(s->sources[i], on ? SD_EVENT_ON : SD_EVENT_OFF);
}

static int on_accept_retry(sd_event_source *source, uint64_t usec, void *userdata) {
        Socket *s = userdata;
        if (s->fds)
                socket_accept_watch(s, true);
        return 0;
}

/* accept() failed for want of resources (EMFILE, ENFILE, ENOBUFS, ENOMEM) or for a reason svd does not
 * know: the socket is not watched for a while, so that the loop does not wake at once for the same
 * connection again; the connection waits in the backlog meanwhile. */
static void socket_accept_pause(Socket *s, int error) {
        s->accept_retry_usec = s->accept_retry_usec == 0 ? SOCKET_ACCEPT_RETRY_MIN_USEC
                             : MIN(s->accept_retry_usec * 2, SOCKET_ACCEPT_RETRY_MAX_USEC);
        log_error_errno(error, "%s.socket: Failed to accept a connection: %m; not accepting for %" PRIu64 " ms.",
                        s->name, (uint64_t) (s->accept_retry_usec / USEC_PER_MSEC));
        socket_accept_watch(s, false);
        uint64_t when = now_usec(CLOCK_MONOTONIC) + s->accept_retry_usec;
        int r = s->accept_retry_source ? sd_event_source_set_time(s->accept_retry_source, when)
                                       : sd_event_add_time(s->manager->event, &s->accept_retry_source, CLOCK_MONOTONIC,
                                                           when, 0, on_accept_retry, s);
        if (r >= 0)
                r = sd_event_source_set_enabled(s->accept_retry_source, SD_EVENT_ONESHOT);
        if (r < 0) {
                /* Without the timer, watching again at once is all there is: better than never. */
                log_error_errno(r, "%s.socket: Failed to arm the accept retry timer, watching again: %m", s->name);
                socket_accept_watch(s, true);
        }
}

/* Whether a message about a refused connection may go to svd's log now (SOCKET_ACCEPT_LOG_BURST per
 * window); a window that suppressed some says how many when the next one opens. */
static bool socket_accept_log_allowed(Socket *s) {
        uint64_t now = now_usec(CLOCK_MONOTONIC);
        if (now - s->accept_log_window_usec >= SOCKET_ACCEPT_LOG_INTERVAL_USEC) {
                if (s->accept_log_suppressed > 0)
                        log_warning("%s.socket: %u more connections closed at once, not logged.", s->name,
                                    s->accept_log_suppressed);
                s->accept_log_window_usec = now;
                s->accept_log_count = s->accept_log_suppressed = 0;
        }
        if (s->accept_log_count >= SOCKET_ACCEPT_LOG_BURST) {
                s->accept_log_suppressed++;
                return false;
        }
        s->accept_log_count++;
        return true;
}

/* accept(2): errors of the connection that was to be accepted (Linux passes the pending network errors
 * on), after which the next one may be taken at once. */
static bool accept_error_is_connection(int e) {
        return IN_SET(e, ECONNABORTED, EPROTO, EPERM, ENETDOWN, ENOPROTOOPT, EHOSTDOWN, ENONET, EHOSTUNREACH,
                      EOPNOTSUPP, ENETUNREACH, ETIMEDOUT, ECONNRESET);
}

static int ip_to_string(const struct sockaddr_storage *sa, char *buf, size_t size, unsigned *ret_port) {
        if (sa->ss_family == AF_INET) {
                const struct sockaddr_in *in = (const struct sockaddr_in *) sa;
                *ret_port = ntohs(in->sin_port);
                return inet_ntop(AF_INET, &in->sin_addr, buf, (socklen_t) size) ? 0 : -errno;
        }
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *) sa;
        *ret_port = ntohs(in6->sin6_port);
        return inet_ntop(AF_INET6, &in6->sin6_addr, buf, (socklen_t) size) ? 0 : -errno;
}

/* An IPv4 peer on an IPv6 socket: as systemd, both ends are named in IPv4 form. */
static void unmap_ipv4(struct sockaddr_storage *sa) {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) sa;
        if (sa->ss_family != AF_INET6 || !IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr))
                return;
        struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = in6->sin6_port };
        memcpy(&in.sin_addr, in6->sin6_addr.s6_addr + 12, sizeof(in.sin_addr));
        *sa = (struct sockaddr_storage){};
        memcpy(sa, &in, sizeof(in));
}

/* The instance name of connection fd, its source, and the environment it adds. */
static int connection_describe(int fd, uint64_t nr, char **ret_instance, char **ret_source, char ***ret_env) {
        struct sockaddr_storage local = {}, peer = {};
        socklen_t ll = sizeof(local), pl = sizeof(peer);
        _cleanup_free_ char *instance = NULL, *source = NULL;
        _cleanup_strv_free_ char **env = NULL;

        if (getsockname(fd, (struct sockaddr *) &local, &ll) < 0 || getpeername(fd, (struct sockaddr *) &peer, &pl) < 0)
                return -errno;
        if (local.ss_family == AF_UNIX) {
                struct ucred uc = {};
                socklen_t n = sizeof(uc);
                /* A peer of another user or PID namespace may show as the overflow ids, or none. */
                if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &n) >= 0 && n == sizeof(uc) && uc.pid > 0) {
                        if (asprintf(&instance, "%" PRIu64 "-%d-%u", nr, (int) uc.pid, (unsigned) uc.uid) < 0 ||
                            asprintf(&source, "uid:%u", (unsigned) uc.uid) < 0)
                                return -ENOMEM;
                } else if (asprintf(&instance, "%" PRIu64 "-unknown", nr) < 0 || !(source = strdup("unknown")))
                        return -ENOMEM;
        } else if (IN_SET(local.ss_family, AF_INET, AF_INET6)) {
                char l[INET6_ADDRSTRLEN], p[INET6_ADDRSTRLEN];
                unsigned lport, pport;
                if (local.ss_family == AF_INET6 && peer.ss_family == AF_INET6) {
                        struct sockaddr_in6 *a = (struct sockaddr_in6 *) &local, *b = (struct sockaddr_in6 *) &peer;
                        if (IN6_IS_ADDR_V4MAPPED(&a->sin6_addr) && IN6_IS_ADDR_V4MAPPED(&b->sin6_addr)) {
                                unmap_ipv4(&local);
                                unmap_ipv4(&peer);
                        }
                }
                int r = ip_to_string(&local, l, sizeof(l), &lport);
                if (r >= 0)
                        r = ip_to_string(&peer, p, sizeof(p), &pport);
                if (r < 0)
                        return r;
                if (asprintf(&instance, "%" PRIu64 "-%s:%u-%s:%u", nr, l, lport, p, pport) < 0 || !(source = strdup(p)))
                        return -ENOMEM;
                char *a = NULL;
                if (asprintf(&a, "REMOTE_ADDR=%s", p) < 0 || strv_consume(&env, a) < 0)
                        return -ENOMEM;
                if (asprintf(&a, "REMOTE_PORT=%u", pport) < 0 || strv_consume(&env, a) < 0)
                        return -ENOMEM;
        } else
                return -EAFNOSUPPORT;
        *ret_instance = TAKE_PTR(instance);
        *ret_source = TAKE_PTR(source);
        *ret_env = TAKE_PTR(env);
        return 0;
}

/* The instance's start job has finished. A start that did not get as far as a process (a dependency
 * failed, a condition was not met, the start was dropped) leaves it inactive without a change of
 * state: the connection closes and the instance goes here. */
static void on_instance_start_done(Service *svc, const ServiceJobResult *result, void *userdata) {
        Manager *m = userdata;
        /* svd stopping everything (the waiters of the services it frees at exit are cancelled too):
         * nothing is dropped any more. */
        if (m->ctx.shutting_down || !IN_SET(svc->state, SERVICE_INACTIVE, SERVICE_FAILED))
                return;
        if (svc->connection_fd >= 0 && result->outcome != SERVICE_OUTCOME_DONE)
                log_warning("%s: connection instance did not start%s%s; dropping it.", svc->name,
                            result->message ? ": " : "", strempty(result->message));
        svc->connection_fd = safe_close(svc->connection_fd);
        svc->connection_env = strv_free(svc->connection_env);
        manager_schedule_gc(m);
}

/* One accepted connection (taken): an instance for it, or closed, with why in svd's log. -errno and
 * *ret_error when the socket unit is to fail. */
static int socket_accept_one(Socket *s, int cfd, char **ret_error) {
        _cleanup_close_ int fd = cfd;
        _cleanup_free_ char *instance = NULL, *source = NULL, *name = NULL;
        _cleanup_strv_free_ char **env = NULL;
        Manager *m = s->manager;
        const UnitSocket *us = &s->unit->socket;
        const char *refusal = NULL;
        Service *svc = NULL;

        if (m->ctx.shutting_down)
                return 0;
        int r = connection_describe(fd, s->n_accepted, &instance, &source, &env);
        if (r == -ENOMEM)
                return log_oom(), 0;
        if (r < 0) {
                /* A peer that reset the connection before svd looked at it. */
                if (socket_accept_log_allowed(s))
                        log_warning_errno(r, "%s.socket: Failed to get the addresses of a connection, closing it: %m",
                                          s->name);
                return 0;
        }
        if (s->n_connections >= us->max_connections) {
                if (socket_accept_log_allowed(s))
                        log_warning("%s.socket: Too many connections (%zu, MaxConnections=%u), closing the one from %s.",
                                    s->name, s->n_connections, us->max_connections, source);
                return 0;
        }
        unsigned from = us->max_connections_per_source > 0 ? socket_connections_from(s, source) : 0;
        if (us->max_connections_per_source > 0 && from >= us->max_connections_per_source) {
                if (socket_accept_log_allowed(s))
                        log_warning("%s.socket: Too many connections from %s (%u, MaxConnectionsPerSource=%u), closing "
                                    "the new one.",
                                    s->name, source, from, us->max_connections_per_source);
                return 0;
        }
        if (asprintf(&name, "%s@%s", s->name, instance) < 0)
                return log_oom(), 0;
        if (service_lookup(&m->ctx, name)) {
                /* Only an instance started by hand can have the name (the counter is svd's own). */
                log_warning("%s.socket: '%s.service' exists already, closing the connection.", s->name, name);
                s->n_accepted++;
                return 0;
        }
        r = manager_job_prepare(m, MANAGER_JOB_START, name, /* record= */ false, &svc, &refusal);
        if (r >= 0 && !svc->def->unit) {
                /* The template does not load: no connection can be served. The instance goes. */
                svc->transient = true;
                manager_schedule_gc(m);
                r = -ENOEXEC;
                refusal = svc->def->load_error;
        }
        if (r < 0) {
                if (asprintf(ret_error, "Failed to start an instance of '%s@.service' for a connection: %s", s->name,
                             refusal ?: (r == -ESRCH ? "no such unit" : strerror(-r))) < 0)
                        *ret_error = NULL;
                return r;
        }
        r = socket_connection_add(s, name, source);
        if (r < 0) {
                svc->transient = true;
                manager_schedule_gc(m);
                return log_oom(), 0;
        }
        s->n_accepted++;
        svc->transient = true;
        svc->connection_fd = TAKE_FD(fd);
        svc->connection_env = TAKE_PTR(env);
        log_info("%s.socket: connection from %s, starting '%s.service'.", s->name, source, name);
        r = manager_job_op(MANAGER_JOB_START)(svc, on_instance_start_done, m);
        if (r < 0) {
                log_error_errno(r, "%s.socket: Failed to start '%s.service', closing the connection: %m", s->name, name);
                svc->connection_fd = safe_close(svc->connection_fd);
                manager_schedule_gc(m);
        }
        return 0;
}

int socket_accept_ready(Socket *s, int fd, char **ret_error) {
        *ret_error = NULL;
        for (unsigned i = 0; i < SOCKET_ACCEPT_BURST && s->fds; i++) {
                int cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
                if (cfd < 0) {
                        if (errno == EAGAIN || errno == EWOULDBLOCK)
                                return 0;
                        if (errno == EINTR || accept_error_is_connection(errno))
                                continue;
                        socket_accept_pause(s, -errno);
                        return 0;
                }
                s->accept_retry_usec = 0;
                int r = socket_accept_one(s, cfd, ret_error);
                if (r < 0)
                        return r;
        }
        /* More may wait: the socket stays readable, and the loop comes back after the others had their
         * turn. */
        return 0;
}

/* The socket unit and record of a transient instance, or NULL. */
static Socket *socket_of_instance(Manager *m, const Service *svc, size_t *ret_index) {
        for (size_t i = 0; i < m->n_sockets; i++) {
                Socket *s = m->sockets[i];
                for (size_t k = 0; k < s->n_connections; k++)
                        if (streq(s->connections[k].service, svc->name)) {
                                *ret_index = k;
                                return s;
                        }
        }
        return NULL;
}

void manager_sockets_accept_service_changed(Manager *m, Service *svc) {
        /* Inactive or failed: its start job may still be on its way out (a start that failed is told
         * to its job after the state changed), so the instance is dropped from the defer source, once
         * settled (manager-reload.c). */
        if (!svc->transient || !IN_SET(svc->state, SERVICE_INACTIVE, SERVICE_FAILED))
                return;
        /* The connection ends with the instance: svd's copy closes now, its count goes with the instance
         * (manager_sockets_accept_service_gone()). */
        if (svc->connection_fd >= 0 && svc->state == SERVICE_FAILED)
                log_warning("%s: connection instance failed (%s)%s%s; dropping it.", svc->name,
                            service_result_to_string(svc->result), svc->last_error ? ": " : "", strempty(svc->last_error));
        svc->connection_fd = safe_close(svc->connection_fd);
        svc->connection_env = strv_free(svc->connection_env);
        manager_schedule_gc(m);
}

void manager_sockets_accept_service_gone(Manager *m, Service *svc) {
        size_t k;
        Socket *s = socket_of_instance(m, svc, &k);
        if (s)
                socket_connection_remove(s, k);
}

int socket_accept_serialize(Socket *s, json_t *o) {
        json_t *a = json_array();
        if (!a)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_connections; i++)
                if (json_array_append_new(a, json_pack("{s:s,s:s}", "service", s->connections[i].service, "source",
                                                       s->connections[i].source)) < 0) {
                        json_decref(a);
                        return -ENOMEM;
                }
        if (json_object_set_new(o, "connections", a) < 0 ||
            json_object_set_new(o, "accepted", json_integer((json_int_t) s->n_accepted)) < 0)
                return -ENOMEM;
        return 0;
}

int socket_accept_deserialize(Socket *s, json_t *o) {
        Manager *m = s->manager;
        size_t i;
        json_t *c;

        s->n_accepted = reexec_u64(o, "accepted", 0);
        json_array_foreach(json_object_get(o, "connections"), i, c) {
                const char *service = reexec_str(c, "service"), *source = reexec_str(c, "source");
                if (!service || !source)
                        continue;
                /* The instances came back with the services: they are this socket unit's again. */
                Service *svc = service_find(&m->ctx, service);
                if (!svc)
                        continue;
                int r = socket_connection_add(s, service, source);
                if (r < 0)
                        return r;
                svc->transient = true;
                if (service_is_settled(svc))
                        manager_schedule_gc(m);
        }
        return 0;
}
