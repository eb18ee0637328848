/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Re-exec: check the new binary, write the state document, exec; and the new svd's start from it. */
#include "reexec.h"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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
#include "version.h"

extern char **environ;

/* How long the new binary may take to say which state version it reads. */
#define REEXEC_CHECK_TIMEOUT_MSEC 10000

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

static int write_all(int fd, const char *p, size_t n) {
        while (n > 0) {
                ssize_t k = write(fd, p, n);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                p += k;
                n -= (size_t) k;
        }
        return 0;
}

static json_t *manager_serialize(Manager *m, ReexecFds *fds, int reply_fd) {
        json_t *services = json_array();
        json_t *o = json_pack("{s:i,s:s,s:o,s:o,s:b,s:o,s:o,s:I,s:{s:I,s:I},s:o,s:o}", "version", (int) svd_state_version, "svd",
                              svd_version, "listenFd", reexec_fd_to_json(fds, m->hooks && m->hooks->listen_fd ? m->hooks->listen_fd(m->hooks_userdata) : -EBADF),
                              "notifyFd", reexec_fd_to_json(fds, m->notify_fd), "crashRestored", m->crash_restored,
                              "lockFd", reexec_fd_to_json(fds, m->lock_fd),
                              "guardPidfd", reexec_fd_to_json(fds, m->guard.proc.pidfd), "guardPid",
                              (json_int_t) m->guard.proc.pid,
                              "nofile", "cur", (json_int_t) m->ctx.nofile.rlim_cur, "max", (json_int_t) m->ctx.nofile.rlim_max,
                              "replyFd", reexec_fd_to_json(fds, reply_fd), "services", services);
        if (!o)
                return NULL;
        if (json_object_set_new(o, "socketPath", json_string(m->socket_path)) < 0)
                goto oom;
        for (size_t i = 0; i < m->ctx.n_services; i++)
                if (json_array_append_new(services, service_serialize(m->ctx.services[i], fds)) < 0)
                        goto oom;
        /* The listening sockets of the socket units, carried as the pidfds are (manager-socket.h). */
        json_t *sockets = manager_sockets_serialize(m, fds);
        if (!sockets || json_object_set_new(o, "sockets", sockets) < 0)
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

int manager_reexec(Manager *m, int reply_fd, char **ret_error) {
        _cleanup_(json_decrefp) json_t *state = NULL;
        _cleanup_close_ int memfd = -EBADF;
        _cleanup_free_ char **argv = NULL;
        _cleanup_free_ char *arg = NULL, *text = NULL;
        ReexecFds fds = {};
        unsigned version = 0;
        int r;

        assert(m);
        assert(ret_error);
        *ret_error = NULL;

        if (m->ctx.shutting_down) {
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
        /* The new svd reads its configuration again and cannot refuse it then without ending every
         * service: a file that would not load is refused here, while this svd can run on. */
        if (m->reexec_check) {
                r = m->reexec_check(ret_error, m->reexec_check_userdata);
                if (r < 0)
                        return r;
        }
        if (version < svd_state_version) {
                if (asprintf(ret_error, "'%s' reads re-exec state up to version %u, this svd writes version %u",
                             m->exe_path, version, svd_state_version) < 0)
                        *ret_error = NULL;
                return -EPROTONOSUPPORT;
        }

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
        /* Serialized whole, then written: json_dumpfd() makes a write(2) of
         * every token. */
        text = json_dumps(state, JSON_COMPACT);
        if (!text) {
                r = -ENOMEM;
                goto fail;
        }
        r = write_all(memfd, text, strlen(text));
        if (r < 0)
                goto fail;
        free(text);
        text = NULL;
        if (lseek(memfd, 0, SEEK_SET) < 0) {
                r = -errno;
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

        log_info("Re-executing '%s' with %zu services (state version %u, %zu fds).", m->exe_path, m->ctx.n_services,
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

/* The state is read whole from its memfd: json_loadfd() would read(2) it
 * one byte at a time (it cannot know where the JSON ends), a syscall per
 * byte of every service's log ring. */
int manager_state_read(int state_fd, json_t **ret) {
        _cleanup_close_ int fd = state_fd;
        json_error_t err;
        struct stat st;
        if (fstat(fd, &st) < 0)
                return log_error_errno(errno, "Failed to stat the re-exec state: %m");
        if (st.st_size <= 0)
                return log_error_errno(EINVAL, "The re-exec state is empty.");
        void *p = mmap(NULL, (size_t) st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED)
                return log_error_errno(errno, "Failed to map the re-exec state: %m");
        json_t *state = json_loadb(p, (size_t) st.st_size, 0, &err);
        (void) munmap(p, (size_t) st.st_size);
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
        for (size_t i = 0; i < m->ctx.n_services; i++)
                service_resume_settle(m->ctx.services[i]);
        m->ctx.jobs_queued = true; /* the jobs the state carried over */
        deps_schedule(&m->ctx);
        manager_schedule_gc(m);
        return 0;
}

int manager_state_restore(Manager *m, json_t *state) {
        json_t *services, *o;
        size_t i;
        int r;

        json_t *nofile = json_object_get(state, "nofile");
        m->ctx.nofile.rlim_cur = reexec_u64(nofile, "cur", m->ctx.nofile.rlim_cur);
        m->ctx.nofile.rlim_max = reexec_u64(nofile, "max", m->ctx.nofile.rlim_max);
        m->crash_restored = reexec_bool(state, "crashRestored", false);

        services = json_object_get(state, "services");
        json_array_foreach(services, i, o) {
                Service *s = NULL;
                r = service_deserialize(&m->ctx, o, &s);
                if (r < 0)
                        return log_error_errno(r, "Failed to restore service %zu ('%s') from the re-exec state: %m", i,
                                               strna(reexec_str(o, "name")));
                r = service_context_add(&m->ctx, s);
                if (r < 0) {
                        service_free(s);
                        return log_error_errno(r, "Failed to add service '%s': %m", strna(reexec_str(o, "name")));
                }
        }
        service_context_sort(&m->ctx);
        r = deps_resolve(&m->ctx);
        if (r < 0)
                return r;
        json_array_foreach(services, i, o) {
                Service *s = service_lookup(&m->ctx, reexec_str(o, "name"));
                if (!s)
                        continue;
                r = service_resume(s, o);
                if (r < 0)
                        return log_error_errno(r, "%s: Failed to watch its process again: %m", s->name);
        }
        return 0;
}

int manager_state_resume(Manager *m, json_t *state) {
        size_t i;
        int r;

        int notify_fd = reexec_fd_take(state, "notifyFd");
        if (notify_fd >= 0) {
                r = notify_socket_adopt(m, notify_fd);
                m->ctx.notify_ready = r >= 0;
                if (r < 0)
                        log_error_errno(r, "Failed to serve the notify socket again: %m");
        }

        /* The rest settles from the loop, as after any event. */
        r = sd_event_add_defer(m->event, NULL, on_resume, m);
        if (r < 0)
                return log_error_errno(r, "Failed to schedule the resumption: %m");

        size_t running = 0;
        for (i = 0; i < m->ctx.n_services; i++)
                running += process_is_set(&m->ctx.services[i]->run.main);
        log_notice("Re-executed from state version %d of svd %s: %zu services restored, %zu processes.",
                   (int) reexec_i64(state, "version", 0), strna(reexec_str(state, "svd")), m->ctx.n_services, running);

        int reply_fd = reexec_fd_take(state, "replyFd");
        if (reply_fd >= 0 && m->hooks && m->hooks->answer_reexec) {
                r = m->hooks->answer_reexec(
                        reply_fd,
                        json_pack("{s:s,s:i,s:I,s:I}", "version", svd_version, "pid", (int) getpid(), "services",
                                  (json_int_t) m->ctx.n_services, "processes", (json_int_t) running),
                        m->hooks_userdata);
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
                          m->ctx.n_services, (int) getpid());
        return 0;
}
