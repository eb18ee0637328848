/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "reexec.h"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include "basic/macros.h"
#include "deps.h"
#include "svd-log.h"
#include "manager.h"
#include "notify.h"
#include "service.h"
#include "varlink-manager.h"
#include "varlink.h"
#include "version.h"

extern char **environ;

/* How long the new binary may take to say which state version it reads. */
#define REEXEC_CHECK_TIMEOUT_MSEC 10000

/* ---- JSON helpers ---- */

json_t *reexec_fd_to_json(ReexecFds *f, int fd) {
        if (fd < 0)
                return json_null();
        int *a = reallocarray(f->fds, f->n + 1, sizeof(int));
        if (!a)
                return NULL;
        f->fds = a;
        f->fds[f->n++] = fd;
        return json_integer(fd);
}

int reexec_fd_take(json_t *o, const char *key) {
        json_t *j = json_object_get(o, key);
        if (!json_is_integer(j))
                return -EBADF;
        json_int_t fd = json_integer_value(j);
        if (fd < 3 || fd > INT_MAX)
                return -EBADF;
        if (fcntl((int) fd, F_SETFD, FD_CLOEXEC) < 0)
                return -errno;
        return (int) fd;
}

json_t *reexec_bytes_to_json(const char *p, size_t n) {
        /* jansson refuses invalid UTF-8; NUL would need JSON_ALLOW_NUL on both ends. */
        if (!memchr(p, 0, n)) {
                json_t *j = json_stringn(p, n);
                if (j)
                        return j;
        }
        _cleanup_free_ char *hex = malloc(n * 2 + 1);
        if (!hex)
                return NULL;
        for (size_t i = 0; i < n; i++)
                snprintf(hex + 2 * i, 3, "%02x", (unsigned char) p[i]);
        hex[2 * n] = 0;
        return json_pack("{s:s}", "hex", hex);
}

static int unhex(char c) {
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        return -1;
}

int reexec_bytes_from_json(json_t *j, char **ret, size_t *ret_len) {
        const char *src;
        size_t n;

        if (json_is_string(j)) {
                src = json_string_value(j);
                n = json_string_length(j);
                char *c = malloc(n + 1);
                if (!c)
                        return -ENOMEM;
                memcpy(c, src, n);
                c[n] = 0;
                *ret = c;
                *ret_len = n;
                return 0;
        }
        src = reexec_str(j, "hex");
        if (!src || strlen(src) % 2 != 0)
                return -EINVAL;
        n = strlen(src) / 2;
        _cleanup_free_ char *c = malloc(n + 1);
        if (!c)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                int hi = unhex(src[2 * i]), lo = unhex(src[2 * i + 1]);
                if (hi < 0 || lo < 0)
                        return -EINVAL;
                c[i] = (char) (hi << 4 | lo);
        }
        c[n] = 0;
        *ret = TAKE_PTR(c);
        *ret_len = n;
        return 0;
}

uint64_t reexec_u64(json_t *o, const char *key, uint64_t def) {
        json_t *j = json_object_get(o, key);
        return json_is_integer(j) ? (uint64_t) json_integer_value(j) : def;
}

int64_t reexec_i64(json_t *o, const char *key, int64_t def) {
        json_t *j = json_object_get(o, key);
        return json_is_integer(j) ? (int64_t) json_integer_value(j) : def;
}

bool reexec_bool(json_t *o, const char *key, bool def) {
        json_t *j = json_object_get(o, key);
        return json_is_boolean(j) ? json_is_true(j) : def;
}

const char *reexec_str(json_t *o, const char *key) {
        return json_string_value(json_object_get(o, key));
}

/* ---- the old svd: check, serialize, exec ---- */

/* Runs `binary --state-version` and reads the newest state version it
 * reads. The answer is one line, "N". */
static int reexec_check_binary(const char *binary, unsigned *ret_version, char **ret_error) {
        _cleanup_close_ int rfd = -EBADF, wfd = -EBADF;
        char buf[64];
        size_t got = 0;
        pid_t pid;
        int fds[2], r;

        if (access(binary, X_OK) < 0) {
                r = -errno;
                if (asprintf(ret_error, "'%s': %s", binary, strerror(-r)) < 0)
                        *ret_error = NULL;
                return r;
        }
        if (pipe2(fds, O_CLOEXEC) < 0)
                return -errno;
        rfd = fds[0];
        wfd = fds[1];
        /* (daemon/spawn.h shadows <spawn.h>, and this is one exec.) */
        pid = fork();
        if (pid < 0) {
                r = -errno;
                if (asprintf(ret_error, "Failed to run '%s': %s", binary, strerror(-r)) < 0)
                        *ret_error = NULL;
                return r;
        }
        if (pid == 0) {
                if (dup2(wfd, STDOUT_FILENO) < 0)
                        _exit(127);
                execve(binary, (char *[]){ (char *) binary, (char *) "--state-version", NULL }, environ);
                _exit(127);
        }
        wfd = safe_close(wfd);

        struct timespec start;
        clock_gettime(CLOCK_MONOTONIC, &start);
        for (;;) {
                struct timespec now;
                clock_gettime(CLOCK_MONOTONIC, &now);
                long left = REEXEC_CHECK_TIMEOUT_MSEC - ((now.tv_sec - start.tv_sec) * 1000 +
                                                         (now.tv_nsec - start.tv_nsec) / 1000000);
                if (left <= 0) {
                        r = -ETIMEDOUT;
                        break;
                }
                struct pollfd p = { .fd = rfd, .events = POLLIN };
                r = poll(&p, 1, (int) left);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r < 0) {
                        r = -errno;
                        break;
                }
                if (r == 0)
                        continue;
                ssize_t n = read(rfd, buf + got, sizeof(buf) - 1 - got);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0 || (got += (size_t) n) >= sizeof(buf) - 1) {
                        r = n < 0 ? -errno : 0;
                        break;
                }
        }
        if (r == -ETIMEDOUT)
                (void) kill(pid, SIGKILL);
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        if (r == -ETIMEDOUT) {
                if (asprintf(ret_error, "'%s --state-version' did not answer within %d s", binary,
                             REEXEC_CHECK_TIMEOUT_MSEC / 1000) < 0)
                        *ret_error = NULL;
                return r;
        }
        buf[got] = 0;
        unsigned v = 0;
        char nl;
        if (r < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || sscanf(buf, "%u%c", &v, &nl) != 2 ||
            nl != '\n' || v == 0) {
                if (asprintf(ret_error, "'%s --state-version' failed (%s %d) or is not an svd that can re-exec",
                             binary, WIFEXITED(status) ? "exit status" : "signal",
                             WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status)) < 0)
                        *ret_error = NULL;
                return -ENOEXEC;
        }
        *ret_version = v;
        return 0;
}

static json_t *manager_serialize(Manager *m, ReexecFds *fds, int reply_fd) {
        json_t *services = json_array();
        json_t *o = json_pack("{s:i,s:s,s:o,s:o,s:b,s:{s:I,s:I},s:o,s:o}", "version", (int) svd_state_version, "svd",
                              svd_version, "listenFd", reexec_fd_to_json(fds, varlink_server_listen_fd(m->varlink)),
                              "notifyFd", reexec_fd_to_json(fds, m->notify_fd), "crashRestored", m->crash_restored,
                              "nofile", "cur", (json_int_t) m->nofile.rlim_cur, "max", (json_int_t) m->nofile.rlim_max,
                              "replyFd", reexec_fd_to_json(fds, reply_fd), "services", services);
        if (!o)
                return NULL;
        for (size_t i = 0; i < m->n_services; i++)
                if (json_array_append_new(services, service_serialize(m->services[i], fds)) < 0)
                        goto oom;
        json_t *list = json_array();
        if (json_object_set_new(o, "fds", list) < 0)
                goto oom;
        for (size_t i = 0; i < fds->n; i++)
                if (json_array_append_new(list, json_integer(fds->fds[i])) < 0)
                        goto oom;
        return o;
oom:
        json_decref(o);
        return NULL;
}

static void set_cloexec(const ReexecFds *fds, bool on) {
        for (size_t i = 0; i < fds->n; i++)
                (void) fcntl(fds->fds[i], F_SETFD, on ? FD_CLOEXEC : 0);
}

int manager_reexec(Manager *m, VarlinkCall *call, char **ret_error) {
        _cleanup_(json_decrefp) json_t *state = NULL;
        _cleanup_close_ int memfd = -EBADF;
        _cleanup_free_ char **argv = NULL;
        _cleanup_free_ char *arg = NULL;
        ReexecFds fds = {};
        unsigned version = 0;
        int r;

        assert(m);
        assert(ret_error);
        *ret_error = NULL;

        if (m->shutting_down) {
                *ret_error = strdup("svd is shutting down");
                return -ESHUTDOWN;
        }
        if (!m->exe_path) {
                *ret_error = strdup("svd does not know the path of its binary");
                return -ENOENT;
        }
        r = reexec_check_binary(m->exe_path, &version, ret_error);
        if (r < 0)
                return r;
        if (version < svd_state_version) {
                if (asprintf(ret_error, "'%s' reads re-exec state up to version %u, this svd writes version %u",
                             m->exe_path, version, svd_state_version) < 0)
                        *ret_error = NULL;
                return -EPROTONOSUPPORT;
        }

        int reply_fd = call ? varlink_call_connection_fd(call) : -EBADF;
        if (call && reply_fd < 0)
                log_notice("The connection that asked for the re-exec cannot be handed over (%s), it closes.",
                           strerror(-reply_fd));
        state = manager_serialize(m, &fds, reply_fd);
        if (!state) {
                r = -ENOMEM;
                goto fail;
        }
        memfd = memfd_create("svd-state", MFD_CLOEXEC);
        if (memfd < 0) {
                r = -errno;
                goto fail;
        }
        if (json_dumpfd(state, memfd, JSON_COMPACT) < 0 || lseek(memfd, 0, SEEK_SET) < 0) {
                r = errno > 0 ? -errno : -EIO;
                goto fail;
        }
        if (!reexec_fd_to_json(&fds, memfd)) { /* only to clear its close-on-exec below */
                r = -ENOMEM;
                goto fail;
        }
        if (asprintf(&arg, "--deserialize=%d", memfd) < 0) {
                r = -ENOMEM;
                goto fail;
        }
        size_t n = 0;
        while (m->argv && m->argv[n])
                n++;
        argv = calloc(n + 3, sizeof(char *));
        if (!argv) {
                r = -ENOMEM;
                goto fail;
        }
        argv[0] = m->exe_path;
        for (size_t i = 0; i < n; i++)
                argv[i + 1] = m->argv[i];
        argv[n + 1] = arg;

        log_info("Re-executing '%s' with %zu services (state version %u, %zu fds).", m->exe_path, m->n_services,
                 svd_state_version, fds.n);
        (void) sd_notify(/* unset_environment= */ false, "RELOADING=1\nSTATUS=Re-executing");
        fflush(NULL);
        set_cloexec(&fds, false);
        execve(m->exe_path, argv, environ);
        r = -errno;
        set_cloexec(&fds, true);
        if (asprintf(ret_error, "execve '%s': %s", m->exe_path, strerror(-r)) < 0)
                *ret_error = NULL;
        (void) sd_notify(/* unset_environment= */ false, "READY=1\nSTATUS=Re-exec failed");
        free(fds.fds);
        return r;

fail:
        free(fds.fds);
        if (asprintf(ret_error, "Failed to write the state: %s", strerror(-r)) < 0)
                *ret_error = NULL;
        return r;
}

/* ---- the new svd: restore ---- */

static int read_state(int fd, json_t **ret) {
        json_error_t err;
        json_t *state = json_loadfd(fd, 0, &err);
        if (!state)
                return log_error_errno(EINVAL, "Failed to parse the re-exec state: %s (line %d, column %d).",
                                       err.text, err.line, err.column);
        json_int_t v = json_integer_value(json_object_get(state, "version"));
        if (v < 1 || (uint64_t) v > svd_state_version) {
                json_decref(state);
                return log_error_errno(EPROTONOSUPPORT, "Re-exec state version %lld, this svd reads 1 to %u.",
                                       (long long) v, svd_state_version);
        }
        *ret = state;
        return 0;
}

static int on_resume(sd_event_source *source, void *userdata) {
        Manager *m = userdata;
        for (size_t i = 0; i < m->n_services; i++)
                service_resume_settle(m->services[i]);
        deps_schedule(m);
        manager_schedule_gc(m);
        return 0;
}

int manager_startup_from_state(Manager *m, int fd) {
        _cleanup_(json_decrefp) json_t *state = NULL;
        json_t *services, *o;
        size_t i;
        int r;

        r = read_state(fd, &state);
        safe_close(fd);
        if (r < 0)
                return r;

        json_t *nofile = json_object_get(state, "nofile");
        m->nofile.rlim_cur = reexec_u64(nofile, "cur", m->nofile.rlim_cur);
        m->nofile.rlim_max = reexec_u64(nofile, "max", m->nofile.rlim_max);
        m->crash_restored = reexec_bool(state, "crashRestored", false);

        services = json_object_get(state, "services");
        json_array_foreach(services, i, o) {
                Service *s = NULL;
                r = service_deserialize(m, o, &s);
                if (r < 0)
                        return log_error_errno(r, "Failed to restore service %zu ('%s') from the re-exec state: %m", i,
                                               strna(reexec_str(o, "name")));
                r = manager_add_service(m, s);
                if (r < 0) {
                        service_free(s);
                        return log_error_errno(r, "Failed to add service '%s': %m", strna(reexec_str(o, "name")));
                }
        }
        manager_sort_services(m);
        r = deps_resolve(m);
        if (r < 0)
                return r;
        json_array_foreach(services, i, o) {
                Service *s = manager_get_service(m, reexec_str(o, "name"));
                if (!s)
                        continue;
                r = service_resume(s, o);
                if (r < 0)
                        return log_error_errno(r, "%s: Failed to watch its process again: %m", s->name);
        }

        int listen_fd = reexec_fd_take(state, "listenFd");
        if (listen_fd < 0)
                return log_error_errno(listen_fd, "The control socket was not handed over: %m");
        r = manager_listen(m, listen_fd);
        if (r < 0)
                return r;
        int notify_fd = reexec_fd_take(state, "notifyFd");
        if (notify_fd >= 0) {
                r = notify_socket_adopt(m, notify_fd);
                if (r < 0)
                        log_error_errno(r, "Failed to serve the notify socket again: %m");
        }

        /* The rest settles from the loop, as after any event. */
        r = sd_event_add_defer(m->event, NULL, on_resume, m);
        if (r < 0)
                return log_error_errno(r, "Failed to schedule the resumption: %m");

        size_t running = 0;
        for (i = 0; i < m->n_services; i++)
                running += process_is_set(&m->services[i]->main);
        log_notice("Re-executed from state version %d of svd %s: %zu services restored, %zu processes.",
                   (int) reexec_i64(state, "version", 0), strna(reexec_str(state, "svd")), m->n_services, running);

        int reply_fd = reexec_fd_take(state, "replyFd");
        if (reply_fd >= 0) {
                r = varlink_server_add_connection_reply(
                        m->varlink, reply_fd,
                        json_pack("{s:s,s:i,s:I,s:I}", "version", svd_version, "pid", (int) getpid(), "services",
                                  (json_int_t) m->n_services, "processes", (json_int_t) running));
                if (r < 0)
                        log_warning_errno(r, "Failed to answer the re-exec request, ignoring: %m");
        }

        /* fds the state named that no part took back (close-on-exec still clear) are nobody's. */
        json_t *j;
        json_array_foreach(json_object_get(state, "fds"), i, j) {
                json_int_t x = json_integer_value(j);
                if (x > 2 && x <= INT_MAX) {
                        int flags = fcntl((int) x, F_GETFD);
                        if (flags >= 0 && !(flags & FD_CLOEXEC)) {
                                log_debug("fd %d of the re-exec state was not taken, closing it.", (int) x);
                                (void) close((int) x);
                        }
                }
        }

        (void) sd_notifyf(/* unset_environment= */ false, "READY=1\nSTATUS=Supervising %zu services\nMAINPID=%d",
                          m->n_services, (int) getpid());
        return 0;
}
