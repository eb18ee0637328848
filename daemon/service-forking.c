/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Type=forking (systemd.service(5)): the command forks the daemon and exits; the start is complete
 * when it exits successfully, and from then on the daemon is the service's main process: the one
 * PIDFile= names, or the only process left when there is no PIDFile=.
 *
 * The daemon is a grandchild of svd, which the kernel's autokill (it kills the direct child only)
 * does not reach. So a forking service runs in a PID namespace of its own by default (PrivatePIDs=
 * defaults to yes for it): svd's init is PID 1 there and is the process svd created, with autokill
 * (or, in fallback mode, the parent-death signal); when svd dies, init dies and the kernel kills
 * every other process of the namespace, the daemon and whatever it forked. Init outlives the
 * command here: it reports the command's exit and every process it reaps after (the daemon, being
 * orphaned when the command exits, is its child), forwards signals to every process of the
 * namespace, and exits when none is left. A pid in the PID file is one of the namespace: svd finds
 * the process behind it among the namespace's processes only (process-pidns.h), so a PID file can
 * never make svd signal a process outside the service.
 *
 * With PrivatePIDs=no the daemon is found as systemd does (PIDFile=, else the one process left in
 * the service's cgroup) and becomes the main process svd watches; it does not die with svd then.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <unistd.h>

#include "process-pidns.h"
#include "service-exec.h"
#include "service-forking.h"
#include "svd-log.h"

static bool exit_ok(const Service *s, const ExitStatus *st) {
        return (st->code == CLD_EXITED && st->status == 0) || (s->def->unit->exec_start_flags & EXEC_IGNORE_FAILURE);
}

static char *exit_text(const ExitStatus *st) {
        char *msg = NULL;
        if (asprintf(&msg, "the command %s %s%d", st->code == CLD_EXITED ? "exited" : "was killed",
                     st->code == CLD_EXITED ? "with status " : "by signal ", st->status) < 0)
                return NULL;
        return msg;
}

/* The start failed: the machine kills the namespace (or what is left) and the exit settles it. */
static ServiceForkingStep forking_fail(Service *s, ServiceResult result, char *msg, ServiceResult *ret_result) {
        log_error("%s: %s", s->name, msg ? msg : "the start failed");
        service_set_last_error(s, msg);
        s->run.pid_file_source = sd_event_source_disable_unref(s->run.pid_file_source);
        *ret_result = result;
        return SERVICE_FORKING_FAILED;
}

/* The daemon is known (or cannot be): the start is complete. */
static ServiceForkingStep forking_running(Service *s) {
        s->run.pid_file_source = sd_event_source_disable_unref(s->run.pid_file_source);
        return SERVICE_FORKING_RUNNING;
}

/* /proc/INIT/root/PATH: the PID file as the service sees it (its mount namespace). */
static char *pid_file_path(Service *s) {
        char *p = NULL;
        if (asprintf(&p, "/proc/%d/root%s", (int) s->run.main.pid, s->def->unit->pid_file) < 0)
                return NULL;
        return p;
}


/* Waits for the PID file to name a process: it may be written after the command exited (nginx
 * does so), as systemd allows; TimeoutStartSec= bounds the wait. */
static int forking_watch_pid_file(Service *s, const char *path) {
        if (s->run.pid_file_source)
                return 0;
        _cleanup_free_ char *dir = strdup(path);
        if (!dir)
                return -ENOMEM;
        char *slash = strrchr(dir, '/');
        if (slash)
                *slash = 0;
        int r = sd_event_add_inotify(s->ctx->event, &s->run.pid_file_source, dir,
                                     IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB,
                                     s->handlers->pid_file, s);
        if (r < 0)
                return r;
        log_info("%s: PID file '%s' does not name a process of the service yet, waiting.", s->name,
                 s->def->unit->pid_file);
        return 0;
}

/* In the namespace: the daemon from PIDFile= or the only child init has. */
static ServiceForkingStep forking_find_main(Service *s, ServiceResult *ret_result) {
        pid_t init = s->run.main.pid, pid = 0, nspid = 0;
        int r;

        if (s->def->unit->pid_file) {
                _cleanup_free_ char *path = pid_file_path(s);
                if (!path) {
                        log_oom();
                        return SERVICE_FORKING_WAIT;
                }
                r = pidfile_read(path, &nspid);
                if (r >= 0)
                        r = pidns_find(init, nspid, &pid);
                if (IN_SET(r, -ENOENT, -EINVAL, -ESRCH)) {
                        /* Not there, not written yet, or not naming a process of the service yet. */
                        r = forking_watch_pid_file(s, path);
                        if (r < 0) {
                                char *msg = NULL;
                                if (asprintf(&msg, "Failed to watch for PID file '%s': %s", s->def->unit->pid_file,
                                             strerror(-r)) < 0)
                                        msg = NULL;
                                return forking_fail(s, SERVICE_FAILURE_RESOURCES, msg, ret_result);
                        }
                        /* A change may have come before the watch: look once more. */
                        if (pidfile_read(path, &nspid) >= 0 && pidns_find(init, nspid, &pid) >= 0)
                                r = 0;
                        if (r < 0 || pid == 0)
                                return SERVICE_FORKING_WAIT;
                } else if (r < 0) {
                        char *msg = NULL;
                        if (asprintf(&msg, "Failed to read PID file '%s': %s", s->def->unit->pid_file, strerror(-r)) < 0)
                                msg = NULL;
                        return forking_fail(s, SERVICE_FAILURE_RESOURCES, msg, ret_result);
                }
        } else {
                r = pidns_only_child(init, &pid, &nspid);
                if (r < 0)
                        log_warning_errno(r, "%s: Failed to look for the main process: %m", s->name);
                if (r != 1) {
                        if (r > 1)
                                log_notice("%s: several processes are left and there is no PIDFile=: running "
                                           "without a main process until the last one has exited.", s->name);
                        return forking_running(s);
                }
        }
        r = pidns_open(pid, init, nspid, SPAWN_MODE_AUTOKILL, &s->run.daemon);
        if (r < 0) {
                /* It exited in between: its exit is on the way from init. */
                log_debug_errno(r, "%s: the main process %d exited before svd could open it: %m", s->name, (int) pid);
                s->run.daemon_nspid = nspid;
                return forking_running(s);
        }
        s->run.daemon_nspid = nspid;
        log_info("%s: main process %d (%d in its PID namespace).", s->name, (int) pid, (int) nspid);
        return forking_running(s);
}

ServiceForkingStep service_forking_command_exited(Service *s, const ExitStatus *st, ServiceResult *ret_result) {
        if (s->state != SERVICE_STARTING) {
                /* A stop came first: init forwards it to every process and exits once they are gone. */
                s->run.control_exited = true;
                return SERVICE_FORKING_WAIT;
        }
        if (!exit_ok(s, st)) {
                s->run.have_reported_exit = true;
                s->run.reported_exit = *st;
                return forking_fail(s, st->code == CLD_EXITED ? SERVICE_FAILURE_EXIT_CODE : SERVICE_FAILURE_SIGNAL,
                                    exit_text(st), ret_result);
        }
        s->run.control_exited = true;
        return forking_find_main(s, ret_result);
}

/* Whether a start waits for the daemon to be named. */
static bool forking_waiting(const Service *s) {
        return s->def->unit && s->def->unit->type == SERVICE_TYPE_FORKING && s->run.main_pid1 && s->state == SERVICE_STARTING &&
               s->run.control_exited && !process_is_set(&s->run.daemon);
}

ServiceForkingStep service_forking_pid_file_changed(Service *s, ServiceResult *ret_result) {
        log_debug("%s: PID file directory changed.", s->name);
        return forking_waiting(s) ? forking_find_main(s, ret_result) : SERVICE_FORKING_WAIT;
}

void service_forking_reaped(Service *s, pid_t nspid, int wstatus) {
        if (nspid <= 0 || nspid != s->run.daemon_nspid)
                return;
        s->run.daemon_nspid = 0;
        s->run.have_reported_exit = true;
        s->run.reported_exit = exit_status_from_wait_status(wstatus);
        process_done(&s->run.daemon);
        /* The main process is gone: what it left goes with the namespace, as when a main process's
         * leftovers are killed through its cgroup. The exit of init settles the service. */
        int r = process_kill(&s->run.main, SIGKILL);
        if (r < 0 && r != -ESRCH)
                log_error_errno(r, "%s: Failed to kill the PID namespace's init: %m", s->name);
}

/* The one process in the service's cgroup. */
static int cgroup_only_process(int cg_fd, pid_t *ret) {
        int fd = openat(cg_fd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        FILE *f = fdopen(fd, "r");
        if (!f) {
                int r = -errno;
                (void) close(fd);
                return r;
        }
        int n = 0, pid;
        while (fscanf(f, "%d", &pid) == 1)
                if (n++ == 0)
                        *ret = (pid_t) pid;
        fclose(f);
        return n;
}

bool service_forking_take_over(Service *s, const ExitStatus *st) {
        pid_t pid = 0;
        int r;

        if (s->def->unit->type != SERVICE_TYPE_FORKING || s->run.main_pid1 || s->state != SERVICE_STARTING ||
            s->run.have_spawn_failure || !exit_ok(s, st))
                return false;

        char *msg = NULL;
        if (s->def->unit->pid_file) {
                r = pidfile_read(s->def->unit->pid_file, &pid);
                if (r < 0 && asprintf(&msg, "Failed to read PID file '%s' after the command exited: %s",
                                      s->def->unit->pid_file, strerror(-r)) < 0)
                        msg = NULL;
        } else if (s->cgroup) {
                _cleanup_close_ int cg = service_cgroup_open(s);
                r = cg < 0 ? cg : cgroup_only_process(cg, &pid);
                if (r != 1 && asprintf(&msg, "cannot tell the main process: %d processes are left in the "
                                             "service's cgroup and there is no PIDFile=", r) < 0)
                        msg = NULL;
                if (r != 1)
                        r = -ESRCH;
        } else {
                r = -ESRCH;
                msg = strdup("cannot tell the main process without PIDFile=: PrivatePIDs=no and svd has no cgroup");
        }
        Process daemon = PROCESS_NULL;
        if (r >= 0) {
                /* svd's own child (svd is a subreaper) is reaped by svd; any other process's exit status
                 * is read from pidfs (process.h). */
                pid_t ppid = 0;
                char path[64], buf[256];
                snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
                FILE *f = fopen(path, "re");
                if (f) {
                        if (fgets(buf, sizeof(buf), f) && strrchr(buf, ')'))
                                (void) sscanf(strrchr(buf, ')') + 1, " %*c %d", &ppid);
                        fclose(f);
                }
                r = pidns_open(pid, 0, 0, ppid == getpid() ? SPAWN_MODE_FALLBACK : SPAWN_MODE_AUTOKILL, &daemon);
                if (r < 0 && asprintf(&msg, "the main process %d named by '%s' does not exist", (int) pid,
                                      s->def->unit->pid_file ? s->def->unit->pid_file : "the cgroup") < 0)
                        msg = NULL;
        }
        if (r < 0) {
                log_error("%s: %s", s->name, msg ? msg : "cannot tell the main process");
                service_set_last_error(s, msg);
                return false; /* handled as the main process's exit: the start failed */
        }
        free(msg);

        /* The daemon is the main process now. */
        s->run.exit_source = sd_event_source_disable_unref(s->run.exit_source);
        process_done(&s->run.main);
        s->run.main = daemon;
        s->run.exit_wait_hangup = false;
        s->run.exit_info_retries = 0;
        s->run.control_exited = true;
        r = process_watch(&s->run.main);
        if (r >= 0)
                r = sd_event_add_io(s->ctx->event, &s->run.exit_source, s->run.main.pidfd, PROCESS_EXIT_EVENTS, s->handlers->main_exit,
                                    s);
        if (r < 0) {
                log_error_errno(r, "%s: Failed to watch the main process %d, killing it: %m", s->name, (int) pid);
                (void) process_kill(&s->run.main, SIGKILL);
                return false;
        }
        log_info("%s: main process %d.", s->name, (int) pid);
        (void) forking_running(s);
        return true;
}

void service_forking_exited(Service *s) {
        s->run.pid_file_source = sd_event_source_disable_unref(s->run.pid_file_source);
        process_done(&s->run.daemon);
        /* As systemd: the PID file goes once the service has stopped. */
        if (s->def->unit && s->def->unit->type == SERVICE_TYPE_FORKING && s->def->unit->pid_file && unlink(s->def->unit->pid_file) < 0 &&
            errno != ENOENT)
                log_debug_errno(errno, "%s: Failed to remove PID file '%s', ignoring: %m", s->name, s->def->unit->pid_file);
}

ServiceForkingStep service_forking_resume(Service *s, ServiceResult *ret_result) {
        return forking_waiting(s) ? forking_find_main(s, ret_result) : SERVICE_FORKING_WAIT;
}
