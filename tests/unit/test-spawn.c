/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The kernel probe and clone3() spawning, in whichever mode this kernel
 * allows (fallback on kernels without CLONE_PIDFD_AUTOKILL). Autokill-only
 * cases report SKIP on such kernels; the kernel lab runs them for real. */
#include <check.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/missing-syscall.h"
#include "spawn.h"
#include "check-run.h"

static SpawnProbe probe;

static void setup(void) {
        spawn_probe(/* force_fallback= */ false, &probe);
}

START_TEST(test_probe_consistent) {
        const char *expect = getenv("SVD_EXPECT_MODE");

        printf("probe: mode=%s reason=%s flags=%#llx\n", spawn_mode_to_string(probe.mode), probe.reason,
               (unsigned long long) probe.flags);
        ck_assert(probe.mode == SPAWN_MODE_AUTOKILL || probe.mode == SPAWN_MODE_FALLBACK);
        ck_assert_msg(probe.reason[0], "the probe must say why");
        if (probe.mode == SPAWN_MODE_AUTOKILL)
                ck_assert_uint_eq(probe.flags & (CLONE_AUTOREAP | CLONE_NNP | CLONE_PIDFD_AUTOKILL),
                                  CLONE_AUTOREAP | CLONE_NNP | CLONE_PIDFD_AUTOKILL);
        else
                ck_assert_uint_eq(probe.flags & CLONE_PIDFD_AUTOKILL, 0);
        if (expect)
                ck_assert_str_eq(spawn_mode_to_string(probe.mode), expect);

        SpawnProbe forced;
        spawn_probe(/* force_fallback= */ true, &forced);
        ck_assert_int_eq(forced.mode, SPAWN_MODE_FALLBACK);
        ck_assert_ptr_nonnull(strstr(forced.reason, "--mode=fallback"));
}
END_TEST

static char *const env_empty[] = { NULL };

static int wait_readable(int fd, int msec) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        return poll(&p, 1, msec);
}

/* Spawns argv in `mode`, returns the process and its report fd. */
static void spawn(SpawnMode mode, char *const *argv, const char *wd, Process *ret, int *ret_report) {
        SpawnParams p = {
                .path = argv[0],
                .argv = argv,
                .envp = env_empty,
                .working_directory = wd,
                .umask = -1,
                .cgroup_fd = -EBADF,
                .cap_last = probe.cap_last,
                .mode = mode,
                .cap_sys_admin = probe.cap_sys_admin,
        };
        ck_assert_int_eq(spawn_process(&p, ret, ret_report), 0);
        ck_assert_int_gt(ret->pid, 0);
        ck_assert_int_ge(ret->pidfd, 0);
}

static ExitStatus wait_exit(Process *p) {
        ExitStatus st;
        int r;
        ck_assert_int_eq(wait_readable(p->pidfd, 5000), 1);
        for (int i = 0; (r = process_exit_status(p, &st)) == -EAGAIN && i < 1000; i++)
                (void) wait_readable(-1, 1);
        ck_assert_int_eq(r, 0);
        return st;
}

START_TEST(test_exec_success_and_exit_status) {
        char *argv[] = { "/bin/sh", "-c", "exit 7", NULL };
        Process p;
        int report;
        SpawnFailure f;

        spawn(probe.mode, argv, "/", &p, &report);
        ck_assert_int_eq(wait_readable(report, 5000), 1);
        ck_assert_int_eq(spawn_read_failure(report, &f), 0); /* EOF: it exec'd */
        ExitStatus st = wait_exit(&p);
        ck_assert_int_eq(st.code, CLD_EXITED);
        ck_assert_int_eq(st.status, 7);
        close(report);
        process_done(&p);
}
END_TEST

START_TEST(test_exec_failure_reported) {
        char *argv[] = { "/nonexistent/program", NULL };
        Process p;
        int report;
        SpawnFailure f;

        spawn(probe.mode, argv, "/", &p, &report);
        ck_assert_int_eq(wait_readable(report, 5000), 1);
        ck_assert_int_eq(spawn_read_failure(report, &f), 1);
        ck_assert_int_eq(f.stage, SPAWN_STAGE_EXEC);
        ck_assert_int_eq(f.error, ENOENT);
        ck_assert_str_eq(spawn_stage_to_string(f.stage), "exec");
        ExitStatus st = wait_exit(&p);
        ck_assert_int_eq(st.code, CLD_EXITED);
        ck_assert_int_eq(st.status, 127);
        close(report);
        process_done(&p);
}
END_TEST

START_TEST(test_chdir_failure_reported) {
        char *argv[] = { "/bin/true", NULL };
        Process p;
        int report;
        SpawnFailure f;

        spawn(probe.mode, argv, "/nonexistent-dir", &p, &report);
        ck_assert_int_eq(wait_readable(report, 5000), 1);
        ck_assert_int_eq(spawn_read_failure(report, &f), 1);
        ck_assert_int_eq(f.stage, SPAWN_STAGE_CHDIR);
        ck_assert_int_eq(f.error, ENOENT);
        (void) wait_exit(&p);
        close(report);
        process_done(&p);
}
END_TEST

START_TEST(test_only_stdio_inherited) {
        /* An fd svd forgot to mark O_CLOEXEC must still not reach the service. */
        int leak = dup(STDERR_FILENO);
        ck_assert_int_ge(leak, 3);
        char script[128];
        snprintf(script, sizeof(script), "test -e /proc/self/fd/%d && exit 1; test -e /proc/self/fd/0 || exit 2; exit 0",
                 leak);
        char *argv[] = { "/bin/sh", "-c", script, NULL };
        Process p;
        int report;

        spawn(probe.mode, argv, "/", &p, &report);
        ExitStatus st = wait_exit(&p);
        ck_assert_int_eq(st.code, CLD_EXITED);
        ck_assert_int_eq(st.status, 0);
        close(leak);
        close(report);
        process_done(&p);
}
END_TEST

START_TEST(test_kill_through_pidfd) {
        char *argv[] = { "/bin/sleep", "100", NULL };
        Process p;
        int report;

        spawn(probe.mode, argv, "/", &p, &report);
        ck_assert_int_eq(process_kill(&p, SIGTERM), 0);
        ExitStatus st = wait_exit(&p);
        ck_assert_int_eq(st.code, CLD_KILLED);
        ck_assert_int_eq(st.status, SIGTERM);
        /* Gone (and, in fallback mode, reaped): signalling fails cleanly. */
        ck_assert_int_eq(process_kill(&p, SIGTERM), -ESRCH);
        close(report);
        process_done(&p);
}
END_TEST

START_TEST(test_autokill_on_close) {
        if (probe.mode != SPAWN_MODE_AUTOKILL) {
                printf("SKIP test_autokill_on_close: kernel lacks autokill (%s)\n", probe.reason);
                return;
        }
        char *argv[] = { "/bin/sleep", "100", NULL };
        Process p;
        int report;

        spawn(SPAWN_MODE_AUTOKILL, argv, "/", &p, &report);
        int watch = sys_pidfd_open(p.pid, 0); /* never carries autokill */
        ck_assert_int_ge(watch, 0);
        ck_assert_int_eq(wait_readable(watch, 0), 0);
        process_done(&p); /* the last reference to the clone3 pidfd */
        ck_assert_int_eq(wait_readable(watch, 5000), 1);
        struct svd_pidfd_info info = { .mask = SVD_PIDFD_INFO_EXIT };
        int r = -1;
        for (int i = 0; i < 1000; i++) {
                r = ioctl(watch, SVD_PIDFD_GET_INFO, &info);
                if (r == 0 && (info.mask & SVD_PIDFD_INFO_EXIT))
                        break;
                (void) wait_readable(-1, 1);
        }
        ck_assert_int_eq(r, 0);
        ck_assert(info.mask & SVD_PIDFD_INFO_EXIT);
        ck_assert(WIFSIGNALED(info.exit_code));
        ck_assert_int_eq(WTERMSIG(info.exit_code), SIGKILL);
        close(watch);
        close(report);
}
END_TEST

/* Runs a shell snippet with extra parameters and returns its exit status. */
static ExitStatus run_with(const char *script, SpawnParams extra, int *ret_report) {
        char *argv[] = { "/bin/sh", "-c", (char *) script, NULL };
        Process p;
        extra.path = argv[0];
        extra.argv = argv;
        extra.envp = env_empty;
        extra.working_directory = "/";
        extra.mode = probe.mode;
        extra.cap_sys_admin = probe.cap_sys_admin;
        extra.cap_last = probe.cap_last;
        ck_assert_int_eq(spawn_process(&extra, &p, ret_report), 0);
        ExitStatus st = wait_exit(&p);
        process_done(&p);
        return st;
}

START_TEST(test_umask_and_rlimits) {
        SpawnParams p = { .umask = 027, .cgroup_fd = -EBADF };
        p.rlimits[p.n_rlimits++] = (SpawnRlimit){ RLIMIT_NOFILE, { 100, 200 } };
        p.rlimits[p.n_rlimits++] = (SpawnRlimit){ RLIMIT_CORE, { 0, 0 } };
        int report;
        ExitStatus st = run_with("test \"$(umask)\" = 0027 || exit 1; "
                                 "test \"$(ulimit -n)\" = 100 || exit 2; "
                                 "test \"$(ulimit -c)\" = 0 || exit 3; exit 0",
                                 p, &report);
        ck_assert_int_eq(st.code, CLD_EXITED);
        ck_assert_int_eq(st.status, 0);
        close(report);
}
END_TEST

START_TEST(test_private_pids) {
        if (geteuid() != 0) {
                printf("SKIP test_private_pids: needs root (unprivileged PrivatePIDs= goes through a user namespace, "
                       "tested end to end)\n");
                return;
        }
        /* The command is PID 2 under our init, sees only its namespace in
         * /proc, and its exit status reaches us through init. */
        SpawnParams p = { .umask = -1, .cgroup_fd = -EBADF, .private_pids = true };
        int report;
        char script[256];
        snprintf(script, sizeof(script),
                 "test $$ = 2 || exit 1; test -e /proc/1 || exit 2; test ! -e /proc/%d || exit 3; exit 42",
                 (int) getpid());
        ExitStatus st = run_with(script, p, &report);
        ck_assert_int_eq(st.code, CLD_EXITED);
        ck_assert_int_eq(st.status, 42); /* init exits with the command's status */
        SpawnFailure f;
        ck_assert_int_eq(spawn_read_failure(report, &f), 1);
        ck_assert_int_eq(f.stage, SPAWN_REPORT_EXECED);
        ck_assert_int_eq(spawn_read_failure(report, &f), 1);
        ck_assert_int_eq(f.stage, SPAWN_REPORT_EXIT_STATUS);
        ck_assert(WIFEXITED(f.error) && WEXITSTATUS(f.error) == 42);
        ck_assert_int_eq(spawn_read_failure(report, &f), 0);
        close(report);

        /* A signal that kills the command is reported as such. */
        st = run_with("kill -SEGV $$", p, &report);
        ck_assert_int_eq(spawn_read_failure(report, &f), 1);
        ck_assert_int_eq(f.stage, SPAWN_REPORT_EXECED);
        ck_assert_int_eq(spawn_read_failure(report, &f), 1);
        ck_assert_int_eq(f.stage, SPAWN_REPORT_EXIT_STATUS);
        ck_assert(WIFSIGNALED(f.error) && WTERMSIG(f.error) == SIGSEGV);
        close(report);
}
END_TEST

/* Runs a PrivatePIDs= command that checks it is PID 2 with a /proc. */
static void check_private_pids_command(void) {
        SpawnParams p = { .umask = -1, .cgroup_fd = -EBADF, .private_pids = true };
        int report;
        ExitStatus st = run_with("test $$ = 2 || exit 1; test -e /proc/1 || exit 2; exit 42", p, &report);
        SpawnFailure f;
        ck_assert_int_eq(spawn_read_failure(report, &f), 1);
        ck_assert_msg(f.stage == SPAWN_REPORT_EXECED, "failed at %s: %s", spawn_stage_to_string(f.stage),
                      strerror(f.error));
        ck_assert_int_eq(st.code, CLD_EXITED);
        ck_assert_int_eq(st.status, 42);
        close(report);
}

/* svd in a chroot (a minbase test system, a build root): its "/" is no
 * mount point, so it cannot be made private; PrivatePIDs= still works. */
START_TEST(test_private_pids_in_chroot) {
        if (geteuid() != 0) {
                printf("SKIP test_private_pids_in_chroot: needs root (mounts and chroot)\n");
                return;
        }
        /* A mount namespace of this test's own (the test runs forked). */
        ck_assert_int_eq(unshare(CLONE_NEWNS), 0);
        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
                /* This test already runs in a chroot: the case itself. */
                ck_assert_int_eq(errno, EINVAL);
                check_private_pids_command();
                return;
        }
        /* A directory that is no mount point, with /usr and /dev bound in and
         * a /proc. */
        char dir[] = "/tmp/svd-chroot.XXXXXX";
        ck_assert_ptr_nonnull(mkdtemp(dir));
        char path[PATH_MAX];
        static const char *const links[][2] = { { "bin", "usr/bin" }, { "lib", "usr/lib" }, { "lib64", "usr/lib64" } };
        snprintf(path, sizeof(path), "%s/usr", dir);
        ck_assert_int_eq(mkdir(path, 0755), 0);
        ck_assert_int_eq(mount("/usr", path, NULL, MS_BIND | MS_REC, NULL), 0);
        snprintf(path, sizeof(path), "%s/dev", dir);
        ck_assert_int_eq(mkdir(path, 0755), 0);
        ck_assert_int_eq(mount("/dev", path, NULL, MS_BIND | MS_REC, NULL), 0);
        snprintf(path, sizeof(path), "%s/proc", dir);
        ck_assert_int_eq(mkdir(path, 0755), 0);
        ck_assert_int_eq(mount("proc", path, "proc", 0, NULL), 0);
        for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
                snprintf(path, sizeof(path), "%s/%s", dir, links[i][0]);
                ck_assert_int_eq(symlink(links[i][1], path), 0);
        }
        int root_fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ck_assert_int_ge(root_fd, 0);
        ck_assert_int_eq(chroot(dir), 0);
        ck_assert_int_eq(chdir("/"), 0);

        check_private_pids_command();

        /* Back to the real root (LeakSanitizer reads /proc at exit), then
         * clean up: the mounts would go with the namespace, the directories
         * would stay. */
        ck_assert_int_eq(fchdir(root_fd), 0);
        ck_assert_int_eq(chroot("."), 0);
        close(root_fd);
        static const char *const mounts[] = { "usr", "dev", "proc" };
        for (size_t i = 0; i < sizeof(mounts) / sizeof(mounts[0]); i++) {
                snprintf(path, sizeof(path), "%s/%s", dir, mounts[i]);
                ck_assert_int_eq(umount2(path, MNT_DETACH), 0);
                ck_assert_int_eq(rmdir(path), 0);
        }
        for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
                snprintf(path, sizeof(path), "%s/%s", dir, links[i][0]);
                ck_assert_int_eq(unlink(path), 0);
        }
        ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

START_TEST(test_bounding_set) {
        if (geteuid() != 0) {
                printf("SKIP test_bounding_set: dropping from the bounding set needs CAP_SETPCAP\n");
                return;
        }
        /* Drop CAP_NET_RAW (13): CapBnd must lack bit 13. */
        SpawnParams p = { .umask = -1, .cgroup_fd = -EBADF, .bounding_drop = UINT64_C(1) << 13 };
        int report;
        ExitStatus st = run_with("b=$(sed -n 's/^CapBnd:[[:space:]]*//p' /proc/self/status); "
                                 "test $(( 0x$b & (1 << 13) )) = 0 || exit 1; "
                                 "test $(( 0x$b & (1 << 12) )) != 0 || exit 2; exit 0",
                                 p, &report);
        ck_assert_int_eq(st.code, CLD_EXITED);
        ck_assert_int_eq(st.status, 0);
        close(report);
}
END_TEST

START_TEST(test_find_executable) {
        char *p = NULL;
        ck_assert_int_eq(spawn_find_executable("sh", "/nonexistent:/bin", &p), 0);
        ck_assert_str_eq(p, "/bin/sh");
        free(p);
        ck_assert_int_eq(spawn_find_executable("/x/y", NULL, &p), 0);
        ck_assert_str_eq(p, "/x/y");
        free(p);
        ck_assert_int_eq(spawn_find_executable("no-such-program-svd", "/bin:/usr/bin", &p), -ENOENT);
        ck_assert_int_eq(spawn_find_executable("", "/bin", &p), -ENOENT);
        /* Directories are not executables. */
        ck_assert_int_eq(spawn_find_executable("bin", "/", &p), -ENOENT);
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("spawn");
        TCase *tc = tcase_create("spawn");
        tcase_add_checked_fixture(tc, setup, NULL);
        tcase_add_test(tc, test_probe_consistent);
        tcase_add_test(tc, test_exec_success_and_exit_status);
        tcase_add_test(tc, test_exec_failure_reported);
        tcase_add_test(tc, test_chdir_failure_reported);
        tcase_add_test(tc, test_only_stdio_inherited);
        tcase_add_test(tc, test_kill_through_pidfd);
        tcase_add_test(tc, test_autokill_on_close);
        tcase_add_test(tc, test_umask_and_rlimits);
        tcase_add_test(tc, test_private_pids);
        tcase_add_test(tc, test_private_pids_in_chroot);
        tcase_add_test(tc, test_bounding_set);
        tcase_add_test(tc, test_find_executable);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(suite());
}
