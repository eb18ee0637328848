/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Killing a cgroup subtree and listing what is in it, on a cgroup of the test's own below the
 * cgroup2 root. Needs root (or a writable cgroup2 root); reports SKIP without. */
#include <check.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/cgroup-util.h"
#include "basic/file-util.h"
#include "basic/macros.h"
#include "basic/missing-syscall.h"
#include "cgroup.h"
#include "check-run.h"

static char top_path[512];

/* The test's cgroup with a child "a" and a grandchild "a/b"; -1 (and why in *reason) when this
 * machine does not let the test make them. */
static int make_tree(const char **reason) {
        _cleanup_free_ char *mnt = NULL;

        if (cgroup2_mount_point(&mnt) < 0) {
                *reason = "no cgroup2 hierarchy is mounted";
                return -1;
        }
        snprintf(top_path, sizeof(top_path), "%s/svd-test-cgroup-%d", mnt, (int) getpid());
        if (mkdir(top_path, 0755) < 0) {
                *reason = "the cgroup2 root is not writable (needs root)";
                return -1;
        }
        int fd = open(top_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(mkdirat(fd, "a", 0755), 0);
        ck_assert_int_eq(mkdirat(fd, "a/b", 0755), 0);
        return fd;
}

static void remove_tree(void) {
        char p[600];

        snprintf(p, sizeof(p), "%s/a/b", top_path);
        (void) rmdir(p);
        snprintf(p, sizeof(p), "%s/a", top_path);
        (void) rmdir(p);
        (void) rmdir(top_path);
}

/* A child that joins the cgroup sub (relative to top_fd), ignores SIGTERM and SIGHUP, and execs
 * sleep; returns once it has exec'd (its pipe end is close-on-exec), with its pidfd. */
static pid_t start_in(int top_fd, const char *sub, int *ret_pidfd) {
        int pipefd[2];

        ck_assert_int_eq(pipe2(pipefd, O_CLOEXEC), 0);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                int cg = openat(top_fd, sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (cg < 0 || write_file_at(cg, "cgroup.procs", "0") < 0)
                        _exit(1);
                (void) signal(SIGTERM, SIG_IGN);
                (void) signal(SIGHUP, SIG_IGN);
                execlp("sleep", "sleep", "300", (char *) NULL);
                _exit(127);
        }
        (void) close(pipefd[1]);
        char c;
        ck_assert_int_eq(read(pipefd[0], &c, 1), 0);
        (void) close(pipefd[0]);
        *ret_pidfd = sys_pidfd_open(pid, 0);
        ck_assert_int_ge(*ret_pidfd, 0);
        return pid;
}

START_TEST(test_kill_subtree) {
        const char *reason = NULL;
        int top = make_tree(&reason);
        if (top < 0) {
                printf("SKIP test_kill_subtree: %s\n", reason);
                return;
        }
        int a = openat(top, "a", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ck_assert_int_ge(a, 0);

        /* Empty: nothing to kill. */
        ck_assert_int_eq(cgroup_subtree_has_processes(top), 0);
        ck_assert_int_eq(cgroup_kill_and_wait(top, 1000), 0);

        int fd1, fd2;
        pid_t p1 = start_in(top, "a", &fd1), p2 = start_in(top, "a/b", &fd2);

        /* Listed below the top, which itself lists nothing. */
        ck_assert_int_eq(cgroup_has_processes(top), 0);
        ck_assert_int_eq(cgroup_subtree_has_processes(top), 1);
        ck_assert_int_eq(cgroup_subtree_has_processes(a), 1);

        char buf[256], expect[64];
        ck_assert_int_eq(cgroup_describe_processes(top, buf, sizeof(buf)), 2);
        printf("described: %s\n", buf);
        snprintf(expect, sizeof(expect), "%d (sleep) ", (int) p1); /* R until it sleeps */
        ck_assert_msg(strstr(buf, expect), "'%s' lacks '%s'", buf, expect);
        snprintf(expect, sizeof(expect), "%d (sleep) ", (int) p2);
        ck_assert_msg(strstr(buf, expect), "'%s' lacks '%s'", buf, expect);
        ck_assert_ptr_nonnull(strstr(buf, ", "));

        /* Cut to fit, never overrun. */
        char small[12];
        ck_assert_int_eq(cgroup_describe_processes(top, small, sizeof(small)), 2);
        ck_assert_uint_eq(strlen(small), sizeof(small) - 1);

        /* Killed through the top, both levels; they ignore SIGTERM, which cgroup.kill does not send. */
        ck_assert_int_eq(cgroup_kill_and_wait(top, 5000), 1);
        struct pollfd p[2] = { { .fd = fd1, .events = POLLIN }, { .fd = fd2, .events = POLLIN } };
        ck_assert_int_eq(poll(p, 2, 5000), 2);
        int st;
        ck_assert_int_eq(waitpid(p1, &st, 0), p1);
        ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
        ck_assert_int_eq(waitpid(p2, &st, 0), p2);
        ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
        ck_assert_int_eq(cgroup_subtree_has_processes(top), 0);
        ck_assert_int_eq(cgroup_describe_processes(top, buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "");
        ck_assert_int_eq(cgroup_kill_and_wait(top, 1000), 0);

        (void) close(fd1);
        (void) close(fd2);
        (void) close(a);
        (void) close(top);
        remove_tree();
}
END_TEST

START_TEST(test_walk_gone_cgroup) {
        const char *reason = NULL;
        int top = make_tree(&reason);
        if (top < 0) {
                printf("SKIP test_walk_gone_cgroup: %s\n", reason);
                return;
        }
        /* A cgroup removed while open: its files are gone, which the walk takes as empty. */
        int b = openat(top, "a/b", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ck_assert_int_ge(b, 0);
        char p[600];
        snprintf(p, sizeof(p), "%s/a/b", top_path);
        ck_assert_int_eq(rmdir(p), 0);
        ck_assert_int_eq(cgroup_subtree_has_processes(b), 0);
        ck_assert_int_eq(cgroup_subtree_has_processes(top), 0);
        (void) close(b);
        (void) close(top);
        remove_tree();
}
END_TEST

START_TEST(test_look_from_cursor) {
        const char *reason = NULL;
        int top = make_tree(&reason);
        if (top < 0) {
                printf("SKIP test_look_from_cursor: %s\n", reason);
                return;
        }
        /* Beside "a": c0 .. c3, a process in each of c0 .. c3. */
        char name[8];
        int fds[4];
        pid_t pids[4];
        for (int i = 0; i < 4; i++) {
                snprintf(name, sizeof(name), "c%d", i);
                ck_assert_int_eq(mkdirat(top, name, 0755), 0);
                pids[i] = start_in(top, name, &fds[i]);
        }
        CgroupCursor cursor = {};
        ck_assert_int_eq(cgroup_subtree_has_processes_from(top, &cursor), 1);
        /* The look stopped in one of them, and the cursor says which. */
        ck_assert_int_eq(cursor.name[0], 'c');
        int first = cursor.name[1] - '0';
        ck_assert(first >= 0 && first < 4);

        /* That one ends: the next look goes on and stops in another one. */
        ck_assert_int_eq(sys_pidfd_send_signal(fds[first], SIGKILL, NULL, 0), 0);
        ck_assert_int_eq(waitpid(pids[first], NULL, 0), pids[first]);
        ck_assert_int_eq(cgroup_subtree_has_processes_from(top, &cursor), 1);
        ck_assert_str_ne(cursor.name, "");
        int second = cursor.name[1] - '0';
        ck_assert_int_ne(second, first);

        /* A process put into the first look's cgroup, before the cursor, once every other one has
         * ended: the look passes over that cgroup without opening it, and finds nothing. (After a
         * kill of the whole subtree nothing can be put there; this shows that it is not looked at.) */
        snprintf(name, sizeof(name), "c%d", first);
        (void) close(fds[first]);
        pids[first] = start_in(top, name, &fds[first]);
        for (int i = 0; i < 4; i++)
                if (i != first) {
                        ck_assert_int_eq(sys_pidfd_send_signal(fds[i], SIGKILL, NULL, 0), 0);
                        ck_assert_int_eq(waitpid(pids[i], NULL, 0), pids[i]);
                }
        ck_assert_int_eq(cgroup_subtree_has_processes_from(top, &cursor), 0);
        ck_assert_int_eq(cgroup_subtree_has_processes(top), 1);

        /* The cursor's cgroup removed: the look starts from the first child again, and finds it. */
        ck_assert_int_eq(unlinkat(top, cursor.name, AT_REMOVEDIR), 0);
        ck_assert_int_eq(cgroup_subtree_has_processes_from(top, &cursor), 1);
        ck_assert_str_eq(cursor.name, name);

        ck_assert_int_eq(cgroup_kill_and_wait(top, 5000), 1);
        ck_assert_int_eq(waitpid(pids[first], NULL, 0), pids[first]);
        for (int i = 0; i < 4; i++) {
                (void) close(fds[i]);
                snprintf(name, sizeof(name), "c%d", i);
                (void) unlinkat(top, name, AT_REMOVEDIR);
        }
        (void) close(top);
        remove_tree();
}
END_TEST

static void teardown(void) {
        if (top_path[0])
                remove_tree();
}

static Suite *suite(void) {
        Suite *s = suite_create("cgroup");
        TCase *tc = tcase_create("cgroup");
        tcase_add_checked_fixture(tc, NULL, teardown);
        tcase_add_test(tc, test_kill_subtree);
        tcase_add_test(tc, test_walk_gone_cgroup);
        tcase_add_test(tc, test_look_from_cursor);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(suite());
}
