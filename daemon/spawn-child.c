/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The child side of spawn_process(), from clone3() to execve(): only async-signal-safe calls, no
 * allocation, no logging; a failed step is reported as {stage, errno} on the report pipe. */
#include "spawn-child.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/missing-syscall.h"

static void child_report(int fd, int32_t stage, int32_t value) {
        SpawnFailure f = { .stage = stage, .error = value };
        (void) !write(fd, &f, sizeof(f));
}

static _noreturn_ void child_fail(int report_fd, SpawnStage stage, int error) {
        child_report(report_fd, stage, error);
        _exit(127);
}

/* Writes a whole short string to a /proc file; returns 0 or -errno. */
static int child_write_file(const char *path, const char *text, size_t len) {
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        ssize_t n = write(fd, text, len);
        int r = n < 0 ? -errno : (size_t) n == len ? 0 : -EIO;
        (void) close(fd);
        return r;
}

/* "U U 1\n" without stdio (async-signal-safe). */
static size_t format_id_map(char *buf, unsigned id) {
        char digits[16];
        size_t n = 0, k = 0;
        do
                digits[k++] = (char) ('0' + id % 10);
        while ((id /= 10) > 0);
        for (int rep = 0; rep < 2; rep++) {
                for (size_t i = k; i > 0; i--)
                        buf[n++] = digits[i - 1];
                buf[n++] = ' ';
        }
        buf[n++] = '1';
        buf[n++] = '\n';
        return n;
}

/* In a new user namespace (unprivileged svd): map our own uid and gid onto
 * themselves, which the kernel allows without privilege once setgroups is
 * denied (user_namespaces(7)). */
static void child_setup_user_namespace(const SpawnParams *p, int report_fd) {
        char map[48];
        int r = child_write_file("/proc/self/setgroups", "deny", 4);
        if (r >= 0)
                r = child_write_file("/proc/self/uid_map", map, format_id_map(map, p->outer_uid));
        if (r >= 0)
                r = child_write_file("/proc/self/gid_map", map, format_id_map(map, p->outer_gid));
        if (r < 0)
                child_fail(report_fd, SPAWN_STAGE_USER_NAMESPACE, -r);
}

/* The PID namespace's init. It is PID 1 there: the kernel only delivers
 * signals to it for which it has a handler, and when it exits everything
 * else in the namespace is SIGKILLed. It forwards stop signals to the
 * command, reaps orphans, and reports the command's exit through the pipe
 * (its own exit status could not carry a signal), then exits.
 *
 * With stays (Type=forking) the command's exit is the end of the start, not
 * of the service: init reports it and carries on, forwards signals to every
 * process of the namespace (kill(-1) spares init itself), reports the pid
 * and status of every process it reaps (the daemon, orphaned when the
 * command exited, is reaped here), and exits once it has no child left,
 * which in a PID namespace means no process left. */
static _noreturn_ void pid1_run(pid_t main_pid, int report_fd, int exec_fd, const sigset_t *all, bool stays) {
        SpawnFailure f;
        ssize_t n;

        /* The command's end of exec_fd closes on exec; a record means it failed. */
        do
                n = read(exec_fd, &f, sizeof(f));
        while (n < 0 && errno == EINTR);
        (void) close(exec_fd);
        if (n == (ssize_t) sizeof(f)) {
                child_report(report_fd, f.stage, f.error);
                (void) waitpid(main_pid, NULL, 0);
                _exit(127);
        }
        child_report(report_fd, SPAWN_REPORT_EXECED, 0);

        for (;;) {
                siginfo_t si;
                int sig = sigwaitinfo(all, &si);
                if (sig < 0)
                        continue;
                if (sig != SIGCHLD) {
                        (void) kill(stays ? -1 : main_pid, sig);
                        continue;
                }
                for (;;) {
                        int status;
                        pid_t pid = waitpid(-1, &status, WNOHANG);
                        if (pid < 0 && errno == ECHILD && stays && main_pid == 0)
                                _exit(0);
                        if (pid <= 0)
                                break;
                        if (pid == main_pid) {
                                child_report(report_fd, SPAWN_REPORT_EXIT_STATUS, status);
                                if (!stays)
                                        _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
                                main_pid = 0;
                        } else if (stays) {
                                child_report(report_fd, SPAWN_REPORT_REAPED_PID, pid);
                                child_report(report_fd, SPAWN_REPORT_REAPED_STATUS, status);
                        }
                }
        }
}

/* Whether svd is still there, asked once the parent-death signal is set: svd is the parent. Where svd is
 * outside the child's PID namespace getppid() is 0; the report pipe tells instead: no reader means svd
 * is gone. */
static bool child_parent_alive(int report_fd, pid_t parent) {
        pid_t ppid = getppid();
        if (ppid != 0)
                return ppid == parent;
        struct pollfd pfd = { .fd = report_fd, .events = POLLOUT };
        return poll(&pfd, 1, 0) >= 0 && !(pfd.revents & POLLERR);
}

/* Limit*= as systemd sets them: where the process may not raise a hard limit (no CAP_SYS_RESOURCE, as
 * in many containers), both values are clamped to the hard limit it has. */
static int child_setrlimit_closest(int resource, const struct rlimit *want) {
        if (setrlimit(resource, want) >= 0)
                return 0;
        if (errno != EPERM)
                return -1;
        struct rlimit have;
        if (getrlimit(resource, &have) < 0)
                return -1;
        struct rlimit closest = {
                .rlim_cur = want->rlim_cur < have.rlim_max ? want->rlim_cur : have.rlim_max,
                .rlim_max = want->rlim_max < have.rlim_max ? want->rlim_max : have.rlim_max,
        };
        return setrlimit(resource, &closest);
}

/* A /proc of the PID namespace the process is in, without leaking the mount to the host: every
 * mount private, so that nothing mounted in here propagates out. In a chroot "/" is no mount point
 * (EINVAL); then at least the /proc mount that the new one stacks on is made private, which is what
 * decides where the new one propagates. */
static void child_mount_proc(int report_fd) {
        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 &&
            (errno != EINVAL || mount(NULL, "/proc", NULL, MS_REC | MS_PRIVATE, NULL) < 0))
                child_fail(report_fd, SPAWN_STAGE_MOUNT_PROC, errno);
        if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
                child_fail(report_fd, SPAWN_STAGE_MOUNT_PROC, errno);
}

/* Becomes init of the new PID namespace and returns in the command's
 * process, with *report_fd switched to the pipe that init relays. */
static void child_become_pid1(const SpawnParams *p, int *report_fd) {
        int exec_pipe[2];

        if (p->user_namespace)
                child_setup_user_namespace(p, *report_fd);

        child_mount_proc(*report_fd);

        if (pipe2(exec_pipe, O_CLOEXEC) < 0)
                child_fail(*report_fd, SPAWN_STAGE_PID1_FORK, errno);

        /* Every signal stays blocked in init, taken with sigwaitinfo(). */
        sigset_t all;
        sigfillset(&all);
        if (sigprocmask(SIG_SETMASK, &all, NULL) < 0)
                child_fail(*report_fd, SPAWN_STAGE_SIGNALS, errno);

        struct clone_args args = { .exit_signal = SIGCHLD };
        pid_t pid = sys_clone3(&args, sizeof(args));
        if (pid < 0 && errno == ENOSYS)
                pid = sys_clone_fork(SIGCHLD, NULL);
        if (pid < 0)
                child_fail(*report_fd, SPAWN_STAGE_PID1_FORK, errno);
        if (pid > 0) {
                (void) close(exec_pipe[1]);
                pid1_run(pid, *report_fd, exec_pipe[0], &all, p->pid1_stays);
        }

        /* The command: failures go to init, which relays them. */
        (void) close(exec_pipe[0]);
        (void) close(*report_fd);
        *report_fd = exec_pipe[1];
        sigset_t none;
        sigemptyset(&none);
        if (sigprocmask(SIG_SETMASK, &none, NULL) < 0)
                child_fail(*report_fd, SPAWN_STAGE_SIGNALS, errno);
}

static int child_apply_capabilities(const SpawnParams *p) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct d[2] = {};

        if (sys_capget(&h, d) < 0)
                return -errno;
        for (int i = 0; i < 2; i++) {
                uint32_t amb = (uint32_t) (p->ambient >> (32 * i));
                d[i].permitted |= 0; /* keep: KEEPCAPS preserved them across setuid */
                d[i].inheritable |= amb;
                d[i].effective |= amb & d[i].permitted;
        }
        if (sys_capset(&h, d) < 0)
                return -errno;
        return 0;
}

void spawn_child_run(const SpawnParams *p, const sigset_t *ignored, int report_fd, pid_t parent, bool legacy) {
        /* clone() has no CLONE_INTO_CGROUP: join the service's cgroup before
         * anything else happens in the child. */
        if (legacy && p->cgroup_fd >= 0) {
                int fd = openat(p->cgroup_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
                if (fd < 0 || write(fd, "0", 1) != 1)
                        child_fail(report_fd, SPAWN_STAGE_CGROUP, errno);
                (void) close(fd);
        }

        /* First of all drop every fd but 0-2 and the report pipe: until then
         * the child holds copies of svd's other pidfds, which would keep
         * those services alive past svd in autokill mode. stdout/stderr go
         * to 1 and 2 before that (dup2 clears O_CLOEXEC there); both numbers
         * are free to overwrite, and the report pipe, >= 3, is untouched. */
        if (p->stdout_fd >= 3 && dup2(p->stdout_fd, STDOUT_FILENO) < 0)
                child_fail(report_fd, SPAWN_STAGE_CLOSE_FDS, errno);
        if (p->stderr_fd >= 3 && dup2(p->stderr_fd, STDERR_FILENO) < 0)
                child_fail(report_fd, SPAWN_STAGE_CLOSE_FDS, errno);
        if (p->stdin_fd >= 3 && dup2(p->stdin_fd, STDIN_FILENO) < 0)
                child_fail(report_fd, SPAWN_STAGE_STDIN, errno);
        /* Socket activation: the listening fds go to 3 ... 3+n-1 and the report pipe after them.
         * Copies above that range first, so that no move overwrites a listening fd still to move;
         * dup2() clears O_CLOEXEC on the final numbers. */
        int n_listen = (int) (p->n_listen_fds <= SPAWN_LISTEN_FDS_MAX ? p->n_listen_fds : SPAWN_LISTEN_FDS_MAX);
        if (n_listen > 0) {
                int copies[SPAWN_LISTEN_FDS_MAX];
                for (int i = 0; i < n_listen; i++) {
                        copies[i] = fcntl(p->listen_fds[i], F_DUPFD_CLOEXEC, 3 + n_listen + 1);
                        if (copies[i] < 0)
                                child_fail(report_fd, SPAWN_STAGE_CLOSE_FDS, errno);
                }
                int r = report_fd == 3 + n_listen ? report_fd : fcntl(report_fd, F_DUPFD_CLOEXEC, 3 + n_listen + 1);
                if (r < 0 || (r != 3 + n_listen && dup3(r, 3 + n_listen, O_CLOEXEC) < 0))
                        child_fail(report_fd, SPAWN_STAGE_CLOSE_FDS, errno);
                report_fd = 3 + n_listen;
                for (int i = 0; i < n_listen; i++)
                        if (dup2(copies[i], 3 + i) < 0)
                                child_fail(report_fd, SPAWN_STAGE_CLOSE_FDS, errno);
        } else if (report_fd != 3) {
                if (dup3(report_fd, 3, O_CLOEXEC) < 0)
                        child_fail(report_fd, SPAWN_STAGE_CLOSE_FDS, errno);
                report_fd = 3;
        }
        if (sys_close_range((unsigned) report_fd + 1, ~0U, 0) < 0)
                child_fail(report_fd, SPAWN_STAGE_CLOSE_FDS, errno);

        /* CLONE_CLEAR_SIGHAND reset the handlers; ignored signals stay
         * ignored across exec, so reset those too (all of them after
         * clone()), and unblock everything svd blocked for its signalfds. */
        for (int sig = 1; sig < NSIG; sig++) {
                if (sig == SIGKILL || sig == SIGSTOP || (!legacy && !sigismember(ignored, sig)))
                        continue;
                struct sigaction sa = { .sa_handler = SIG_DFL };
                if (sigaction(sig, &sa, NULL) < 0 && errno != EINVAL)
                        child_fail(report_fd, SPAWN_STAGE_SIGNALS, errno);
        }
        /* IgnoreSIGPIPE=: ignored across the exec, as systemd does by default. */
        if (p->ignore_sigpipe && sigaction(SIGPIPE, &(struct sigaction){ .sa_handler = SIG_IGN }, NULL) < 0)
                child_fail(report_fd, SPAWN_STAGE_SIGNALS, errno);
        sigset_t none;
        sigemptyset(&none);
        if (sigprocmask(SIG_SETMASK, &none, NULL) < 0)
                child_fail(report_fd, SPAWN_STAGE_SIGNALS, errno);

        if (setsid() < 0)
                child_fail(report_fd, SPAWN_STAGE_SETSID, errno);

        if (p->mode == SPAWN_MODE_FALLBACK) {
                /* FIXME: drop when 7.1 is the oldest kernel we support.
                 * Without autokill the leash is the parent-death signal. The
                 * kernel clears it on a credential change, so unless init
                 * (which keeps its credentials) holds it, it is set after the
                 * last change below; and svd may already have died, so check
                 * that svd is still the parent. */
                if (p->private_pids) {
                        if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
                                child_fail(report_fd, SPAWN_STAGE_PDEATHSIG, errno);
                        if (!child_parent_alive(report_fd, parent))
                                child_fail(report_fd, SPAWN_STAGE_PARENT, ESRCH);
                }
        }

        if (p->private_pids)
                child_become_pid1(p, &report_fd);
        else if (p->join_pidns)
                child_mount_proc(report_fd);
        else if (p->user_namespace)
                child_setup_user_namespace(p, report_fd);

        /* The sandbox's namespaces before credentials and paths (the working directory is looked up
         * in them), as in systemd. */
        if (p->sandbox) {
                SandboxKey key = SANDBOX_KEY_PRIVATE_MOUNTS;
                int r = sandbox_child_apply(p->sandbox, &key);
                if (r < 0)
                        child_fail(report_fd, (SpawnStage) (SPAWN_STAGE_SANDBOX + key), -r);
        }

        if (p->stdin_tty || p->stdout_tty || p->stderr_tty) {
                /* The terminal: for stdin opened to become the controlling terminal of this new
                 * session (setsid() above), as systemd's StandardInput=tty*; else only for output. */
                int tty = open(p->tty_path, (p->stdin_tty ? O_RDWR : O_WRONLY) | O_NOCTTY | O_CLOEXEC);
                if (tty < 0)
                        child_fail(report_fd, SPAWN_STAGE_STDIN, errno);
                if (p->stdin_tty && ioctl(tty, TIOCSCTTY, p->tty_force ? 1 : 0) < 0)
                        child_fail(report_fd, SPAWN_STAGE_STDIN, errno);
                if ((p->stdin_tty && dup2(tty, STDIN_FILENO) < 0) || (p->stdout_tty && dup2(tty, STDOUT_FILENO) < 0) ||
                    (p->stderr_tty && dup2(tty, STDERR_FILENO) < 0))
                        child_fail(report_fd, SPAWN_STAGE_STDIN, errno);
                if (tty > STDERR_FILENO)
                        (void) close(tty);
        }
        int null = p->stdin_tty || p->stdin_fd >= 3 ? STDIN_FILENO : open("/dev/null", O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (null < 0)
                child_fail(report_fd, SPAWN_STAGE_STDIN, errno);
        if (null != STDIN_FILENO) {
                if (dup2(null, STDIN_FILENO) < 0)
                        child_fail(report_fd, SPAWN_STAGE_STDIN, errno);
                (void) close(null);
        } else if (fcntl(STDIN_FILENO, F_SETFD, 0) < 0)
                child_fail(report_fd, SPAWN_STAGE_STDIN, errno);

        for (size_t i = 0; i < p->n_rlimits; i++)
                if (child_setrlimit_closest(p->rlimits[i].resource, &p->rlimits[i].limit) < 0)
                        child_fail(report_fd, SPAWN_STAGE_RLIMITS, errno);
        if (p->umask >= 0)
                (void) umask((mode_t) p->umask);

        if (p->working_directory && chdir(p->working_directory) < 0 &&
            !(p->working_directory_missing_ok && errno == ENOENT))
                child_fail(report_fd, SPAWN_STAGE_CHDIR, errno);

        if (p->change_credentials) {
                if (setgroups(p->n_groups, p->groups) < 0)
                        child_fail(report_fd, SPAWN_STAGE_SETGROUPS, errno);
                if (setresgid(p->gid, p->gid, p->gid) < 0)
                        child_fail(report_fd, SPAWN_STAGE_SETGID, errno);
        }

        /* PrivateUsers= of a privileged svd: the user namespace after the others and the groups, so
         * that the mounts belong to the host's and the service's root cannot take them apart; before
         * the user change, whose uid it maps (systemd's order). */
        if (p->sandbox && p->sandbox->private_users != SANDBOX_USERS_NONE && !p->user_namespace) {
                int r = sandbox_child_private_users(p->sandbox, p->change_credentials ? p->uid : getuid(),
                                                    p->change_credentials ? p->gid : getgid());
                if (r < 0)
                        child_fail(report_fd, (SpawnStage) (SPAWN_STAGE_SANDBOX + SANDBOX_KEY_PRIVATE_USERS), -r);
        }

        /* The bounding set needs CAP_SETPCAP, so it goes before setuid. */
        for (int cap = 0; cap <= p->cap_last && cap < 64; cap++)
                if ((p->bounding_drop & (UINT64_C(1) << cap)) && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0)
                        child_fail(report_fd, SPAWN_STAGE_BOUNDING_SET, errno);

        /* SecureBits= needs CAP_SETPCAP, which the user change may take: before it. keep-caps is the
         * bit PR_SET_KEEPCAPS sets below, kept when ambient capabilities need it. */
        if (p->sandbox && p->sandbox->secure_bits != 0 &&
            prctl(PR_SET_SECUREBITS, p->sandbox->secure_bits | (p->ambient && p->change_credentials ? 1U << 4 : 0),
                  0, 0, 0) < 0)
                child_fail(report_fd, (SpawnStage) (SPAWN_STAGE_SANDBOX + SANDBOX_KEY_SECURE_BITS), errno);

        if (p->change_credentials) {
                /* Ambient capabilities must survive the switch away from uid 0. */
                if (p->ambient && !(p->sandbox && p->sandbox->secure_bits != 0) &&
                    prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
                        child_fail(report_fd, SPAWN_STAGE_KEEPCAPS, errno);
                if (setresuid(p->uid, p->uid, p->uid) < 0)
                        child_fail(report_fd, SPAWN_STAGE_SETUID, errno);
        }

        /* KeyringMode=: the session keyring of the user the service runs as. */
        if (p->sandbox && p->sandbox->keyring != SANDBOX_KEYRING_INHERIT) {
                int r = sandbox_child_keyring(p->sandbox);
                if (r < 0)
                        child_fail(report_fd, (SpawnStage) (SPAWN_STAGE_SANDBOX + SANDBOX_KEY_KEYRING_MODE), -r);
        }

        if (p->ambient) {
                int r = child_apply_capabilities(p);
                if (r < 0)
                        child_fail(report_fd, SPAWN_STAGE_CAPABILITIES, -r);
                for (int cap = 0; cap <= p->cap_last && cap < 64; cap++)
                        if ((p->ambient & (UINT64_C(1) << cap)) &&
                            prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0) < 0)
                                child_fail(report_fd, SPAWN_STAGE_AMBIENT, errno);
        }

        /* Personality=: before the seccomp filters, LockPersonality='s among them. */
        if (p->set_personality && personality(p->personality) < 0)
                child_fail(report_fd, SPAWN_STAGE_PERSONALITY, errno);

        if (p->no_new_privileges && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                child_fail(report_fd, SPAWN_STAGE_NO_NEW_PRIVS, errno);

        if (p->mode == SPAWN_MODE_FALLBACK && !p->private_pids) {
                if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
                        child_fail(report_fd, SPAWN_STAGE_PDEATHSIG, errno);
                if (!child_parent_alive(report_fd, parent))
                        child_fail(report_fd, SPAWN_STAGE_PARENT, ESRCH);
        }

        /* Its namespaces and credentials are the service's now: can it reach svd's notify socket? */
        if (p->notify_socket && access(p->notify_socket, W_OK) < 0)
                child_fail(report_fd, SPAWN_STAGE_NOTIFY_SOCKET, errno);

        /* seccomp last: nothing above needs to pass a filter. */
        if (p->sandbox && p->sandbox->n_filters > 0) {
                SandboxKey key = SANDBOX_KEY_SYSTEM_CALL_FILTER;
                int r = sandbox_child_load_filters(p->sandbox, &key);
                if (r < 0)
                        child_fail(report_fd, (SpawnStage) (SPAWN_STAGE_SANDBOX + key), -r);
        }

        /* LISTEN_PID= is this process's pid as it sees it: known only here (a PID namespace's
         * command is init's child). Written in place, digits only, no allocation. */
        if (p->listen_pid_env) {
                char *d = p->listen_pid_env + sizeof("LISTEN_PID=") - 1;
                char digits[SPAWN_PID_DIGITS];
                unsigned v = (unsigned) getpid(), n = 0;
                do {
                        digits[n++] = (char) ('0' + v % 10);
                        v /= 10;
                } while (v > 0 && n < SPAWN_PID_DIGITS);
                for (unsigned i = 0; i < n; i++)
                        d[i] = digits[n - 1 - i];
                d[n] = '\0';
        }

        execve(p->path, p->argv, p->envp);
        child_fail(report_fd, SPAWN_STAGE_EXEC, errno);
}

int spawn_child_vfork(void *arg) {
        const SpawnVforkChild *c = arg;
        /* First, before anything touches the shared table: a table of our own. */
        if (sys_close_range(c->keep, ~0U, CLOSE_RANGE_UNSHARE) < 0)
                child_fail(c->report_fd, SPAWN_STAGE_CLOSE_FDS, errno);
        spawn_child_run(c->p, c->ignored, c->report_fd, c->parent, /* legacy= */ false);
}
