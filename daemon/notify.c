/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* $NOTIFY_SOCKET: the datagram socket services send sd_notify() messages to, and their parser. */
#include "notify.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "basic/macros.h"
#include "basic/socket-path.h"
#include "basic/utf8.h"
#include "basic/parse-util.h"
#include "svd-log.h"
#include "manager.h"
#include "service.h"

#define NOTIFY_PROC_LINE_MAX 512U /* bytes read from /proc/PID/status or /proc/PID/cgroup */

void notify_message_done(NotifyMessage *msg) {
        if (!msg)
                return;
        free(msg->status);
        msg->status = NULL;
}

int notify_parse(const char *buf, size_t n, NotifyMessage *ret) {
        NotifyMessage msg = {.errno_value = -1};
        _cleanup_free_ char *text = NULL;
        unsigned assignments = 0;

        assert(buf || n == 0);
        assert(ret);

        if (n == 0 || memchr(buf, '\0', n))
                return -EINVAL;
        text = strndup(buf, n);
        if (!text)
                return -ENOMEM;

        for (char *line = text, *next; line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                char *eq = strchr(line, '=');
                if (!eq)
                        continue;
                *eq = '\0';
                const char *key = line, *value = eq + 1;
                assignments++;

                if (streq(key, "READY"))
                        msg.ready = msg.ready || streq(value, "1");
                else if (streq(key, "STOPPING"))
                        msg.stopping = msg.stopping || streq(value, "1");
                else if (streq(key, "RELOADING"))
                        msg.reloading = msg.reloading || streq(value, "1");
                else if (streq(key, "WATCHDOG")) {
                        if (streq(value, "1"))
                                msg.watchdog = true;
                        else if (streq(value, "trigger"))
                                msg.watchdog_trigger = true;
                } else if (streq(key, "STATUS")) {
                        if (!utf8_is_valid(value))
                                continue;
                        char *c = strdup(value);
                        if (!c) {
                                notify_message_done(&msg);
                                return -ENOMEM;
                        }
                        free(msg.status);
                        msg.status = c;
                } else if (streq(key, "ERRNO")) {
                        int e;
                        if (safe_atoi(value, &e) >= 0 && e >= 0)
                                msg.errno_value = e;
                } else if (streq(key, "WATCHDOG_USEC")) {
                        uint64_t u;
                        if (safe_atou64(value, &u) >= 0 && u > 0 && u != UINT64_MAX)
                                msg.watchdog_usec = u;
                } else if (streq(key, "MAINPID")) {
                        int p;
                        if (safe_atoi(value, &p) >= 0 && p > 0)
                                msg.main_pid = p;
                }
        }
        if (assignments == 0) {
                notify_message_done(&msg);
                return -EINVAL;
        }
        *ret = msg;
        return 0;
}

int notify_socket_path(const char *control_socket, const char *runtime_dir, char **ret) {
        size_t l = strlen(control_socket);
        int r;

        if (runtime_dir) {
                size_t d = strlen(runtime_dir);
                bool beside = l > d + 1 && strneq(control_socket, runtime_dir, d) && control_socket[d] == '/' &&
                              !strchr(control_socket + d + 1, '/');
                if (!beside) {
                        char h[9];
                        socket_path_hash(control_socket, h);
                        r = asprintf(ret, "%s/notify.%s", runtime_dir, h);
                        return r < 0 ? -ENOMEM : 0;
                }
        }
        if (l > 5 && streq(control_socket + l - 5, ".sock"))
                r = asprintf(ret, "%.*s.notify", (int)(l - 5), control_socket);
        else
                r = asprintf(ret, "%s.notify", control_socket);
        return r < 0 ? -ENOMEM : 0;
}

/* Reads the first line of /proc/PID/FILE that starts with prefix into buf. */
static int proc_read_line(pid_t pid, const char *file, const char *prefix, char *buf, size_t size) {
        char path[64], data[NOTIFY_PROC_LINE_MAX * 4];
        _cleanup_close_ int fd = -EBADF;
        ssize_t n;

        snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        n = read(fd, data, sizeof(data) - 1);
        if (n < 0)
                return -errno;
        data[n] = '\0';
        for (char *line = data, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                if (strneq(line, prefix, strlen(prefix))) {
                        snprintf(buf, size, "%s", line + strlen(prefix));
                        return 0;
                }
        }
        return -ENOENT;
}

/* The service whose cgroup pid is in, from "0::/…/services/NAME". */
static Service *service_by_cgroup(Manager *m, pid_t pid) {
        char path[NOTIFY_PROC_LINE_MAX];

        if (!m->cgroup.available || !m->cgroup.services_path)
                return NULL;
        if (proc_read_line(pid, "cgroup", "0::", path, sizeof(path)) < 0)
                return NULL;
        char *slash = strrchr(path, '/');
        if (!slash || slash == path)
                return NULL;
        *slash = '\0';
        /* The parent must be svd's services directory: its path ends in the cgroup path (the
         * mount point, or a cgroup namespace, cuts off a prefix). */
        size_t lp = strlen(path), ls = strlen(m->cgroup.services_path);
        if (lp > ls || !streq(m->cgroup.services_path + ls - lp, path))
                return NULL;
        Service *s = service_lookup(&m->ctx, slash + 1);
        return s && s->cgroup ? s : NULL;
}

/* With PrivatePIDs=yes the command is a child of svd's init, the main process. */
static Service *service_by_ancestor(Manager *m, pid_t pid) {
        for (unsigned depth = 0; depth < NOTIFY_ANCESTRY_MAX && pid > 1; depth++) {
                char buf[32];
                int ppid;

                if (proc_read_line(pid, "status", "PPid:", buf, sizeof(buf)) < 0 ||
                    safe_atoi(buf + strspn(buf, " \t"), &ppid) < 0)
                        return NULL;
                pid = ppid;
                for (size_t i = 0; i < m->ctx.n_services; i++) {
                        Service *s = m->ctx.services[i];
                        if (s->run.main_pid1 && process_is_set(&s->run.main) && s->run.main.pid == pid)
                                return s;
                }
        }
        return NULL;
}

static Service *notify_find_service(Manager *m, pid_t pid) {
        for (size_t i = 0; i < m->ctx.n_services; i++) {
                Service *s = m->ctx.services[i];
                if (process_is_set(&s->run.main) && s->run.main.pid == pid)
                        return s;
        }
        Service *s = service_by_cgroup(m, pid);
        if (s)
                return s;
        return service_by_ancestor(m, pid);
}

/* Returns -errno when there was nothing to read, else 0 (whatever became of the datagram). */
static int notify_handle_datagram(Manager *m, int fd) {
        char buf[NOTIFY_DATAGRAM_MAX];
        union {
                struct cmsghdr cmsghdr;
                uint8_t buf[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int) * NOTIFY_FDS_MAX)];
        } control;
        struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
        struct msghdr mh = {
            .msg_iov = &iov,
            .msg_iovlen = 1,
            .msg_control = &control,
            .msg_controllen = sizeof(control),
        };
        const struct ucred *cred = NULL;
        NotifyMessage msg;
        ssize_t n;
        int r;

        n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC | MSG_TRUNC);
        if (n < 0)
                return -errno;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
                if (c->cmsg_level != SOL_SOCKET)
                        continue;
                if (c->cmsg_type == SCM_CREDENTIALS && c->cmsg_len == CMSG_LEN(sizeof(struct ucred)))
                        cred = (const struct ucred *)CMSG_DATA(c);
                else if (c->cmsg_type == SCM_RIGHTS) {
                        size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                        int fds[NOTIFY_FDS_MAX];
                        memcpy(fds, CMSG_DATA(c), (k < NOTIFY_FDS_MAX ? k : NOTIFY_FDS_MAX) * sizeof(int));
                        for (size_t i = 0; i < k && i < NOTIFY_FDS_MAX; i++)
                                safe_close(fds[i]);
                        log_debug("notify: file descriptors are not stored, closed %zu.", k);
                }
        }
        if (mh.msg_flags & MSG_TRUNC) {
                log_debug("notify: datagram larger than %u bytes, ignoring.", NOTIFY_DATAGRAM_MAX);
                return 0;
        }
        if (mh.msg_flags & MSG_CTRUNC) {
                log_debug("notify: control data truncated, ignoring.");
                return 0;
        }
        if (!cred || cred->pid <= 0) {
                log_debug("notify: datagram without credentials, ignoring.");
                return 0;
        }
        Service *s = notify_find_service(m, cred->pid);
        if (!s) {
                log_debug("notify: datagram from pid %d, which belongs to no service, ignoring.",
                          (int)cred->pid);
                return 0;
        }
        r = notify_parse(buf, (size_t)n, &msg);
        if (r < 0) {
                log_debug_errno(r, "%s: notify: malformed datagram from pid %d, ignoring: %m", s->name,
                                (int)cred->pid);
                return 0;
        }
        service_notify(s, cred->pid, &msg);
        notify_message_done(&msg);
        return 0;
}

static int on_notify_event(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        Manager *m = userdata;

        /* The io source is level-triggered: what is left after a batch comes in the next round. */
        for (unsigned i = 0; i < NOTIFY_BATCH_MAX; i++)
                if (notify_handle_datagram(m, fd) < 0)
                        break;
        return 0;
}

int notify_socket_open(Manager *m) {
        _cleanup_close_ int fd = -EBADF;
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        int r;

        assert(m);
        assert(m->notify_path);

        if (strlen(m->notify_path) >= sizeof(sa.sun_path))
                return -ENAMETOOLONG;
        strcpy(sa.sun_path, m->notify_path);

        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return -errno;
        if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &(int){1}, sizeof(int)) < 0)
                return -errno;
        /* The control socket is bound already, so no other svd uses this name: a socket file here
         * is a crashed predecessor's. Its directory (/run/svd) may not be there yet. */
        (void)unlink(m->notify_path);
        _cleanup_free_ char *dir = strndup(m->notify_path, strrchr(m->notify_path, '/') - m->notify_path);
        if (!dir)
                return -ENOMEM;
        if (*dir && mkdir(dir, 0755) < 0 && errno != EEXIST)
                return -errno;
        if (bind(fd, (const struct sockaddr *)&sa, sizeof(sa)) < 0)
                return -errno;
        /* Services under any User= send here; what they say is checked by their credentials. */
        if (chmod(m->notify_path, 0666) < 0) {
                r = -errno;
                (void)unlink(m->notify_path);
                return r;
        }
        r = sd_event_add_io(m->event, &m->notify_source, fd, EPOLLIN, on_notify_event, m);
        if (r < 0) {
                (void)unlink(m->notify_path);
                return r;
        }
        /* Before exits: a READY=1 sent just before the process ends is seen first (as in systemd). */
        (void)sd_event_source_set_priority(m->notify_source, SD_EVENT_PRIORITY_NORMAL - 10);
        m->notify_fd = TAKE_FD(fd);
        return 0;
}

int notify_socket_adopt(Manager *m, int fd) {
        _cleanup_close_ int owned = fd;
        int r;

        assert(m);
        assert(fd >= 0);

        if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
                return -errno;
        r = sd_event_add_io(m->event, &m->notify_source, fd, EPOLLIN, on_notify_event, m);
        if (r < 0)
                return r;
        (void)sd_event_source_set_priority(m->notify_source, SD_EVENT_PRIORITY_NORMAL - 10);
        m->notify_fd = TAKE_FD(owned);
        return 0;
}

void notify_socket_close(Manager *m) {
        if (!m)
                return;
        m->notify_source = sd_event_source_disable_unref(m->notify_source);
        if (m->notify_fd >= 0) {
                m->notify_fd = safe_close(m->notify_fd);
                if (m->notify_path)
                        (void)unlink(m->notify_path);
        }
}
