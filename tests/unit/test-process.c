/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reaping as an init: orphans are reaped, a watched child's exit status is
 * kept exactly for process_exit_status(), whichever reads it first. */
#include <check.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/missing-syscall.h"
#include "process.h"
#include "check-run.h"

/* Forks a child that ends as how says: >= 0 exits with that status, < 0 kills itself with -how. */
static pid_t child(int how) {
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                if (how < 0) {
                        signal(-how, SIG_DFL);
                        raise(-how);
                }
                _exit(how >= 0 ? how : 120);
        }
        return pid;
}

/* Blocks until pid has exited, without reaping it. */
static void wait_exited(pid_t pid) {
        siginfo_t si = {};
        ck_assert_int_eq(waitid(P_PID, (id_t) pid, &si, WEXITED | WNOWAIT), 0);
        ck_assert_int_eq(si.si_pid, pid);
}

static Process watched[2];

/* watched[i] for pid, in the index. */
static void watch(size_t i, pid_t pid) {
        int fd = sys_pidfd_open(pid, 0);
        ck_assert_int_ge(fd, 0);
        watched[i] = (Process){ .pid = pid, .pidfd = fd, .mode = SPAWN_MODE_FALLBACK };
        ck_assert_int_eq(process_watch(&watched[i]), 0);
        ck_assert(watched[i].indexed);
}

START_TEST(test_reap_orphans_keep_watched) {
        /* Orphans first and last, so that a watched zombie sits between them
         * in the kernel's list of children. */
        pid_t o1 = child(0);
        watch(0, child(3));
        watch(1, child(-SIGTERM));
        pid_t o2 = child(-SIGKILL);
        wait_exited(o1);
        wait_exited(watched[0].pid);
        wait_exited(watched[1].pid);
        wait_exited(o2);

        ck_assert_int_eq(process_reap_children(), 2);

        /* Nothing is left to wait for: every zombie is gone. */
        siginfo_t si = {};
        ck_assert_int_eq(waitid(P_ALL, 0, &si, WEXITED | WNOHANG), -1);
        ck_assert_int_eq(errno, ECHILD);

        ExitStatus st;
        ck_assert_int_eq(process_exit_status(&watched[0], &st), 0);
        ck_assert_int_eq(st.code, CLD_EXITED);
        ck_assert_int_eq(st.status, 3);
        ck_assert_int_eq(process_exit_status(&watched[1], &st), 0);
        ck_assert_int_eq(st.code, CLD_KILLED);
        ck_assert_int_eq(st.status, SIGTERM);
        /* Reaped: a signal cannot reach another process under that PID. */
        ck_assert_int_eq(process_kill(&watched[0], SIGKILL), -ESRCH);
        process_done(&watched[0]);
        process_done(&watched[1]);
        ck_assert(!watched[0].have_exit);

        /* No children at all. */
        ck_assert_int_eq(process_reap_children(), 0);
}
END_TEST

START_TEST(test_watched_read_first) {
        /* The pidfd is read before the reaper runs: the reaper then has
         * nothing of it, and still reaps the orphan. */
        watch(0, child(7));
        watched[1] = PROCESS_NULL;
        pid_t o = child(1);
        wait_exited(watched[0].pid);
        wait_exited(o);

        ExitStatus st;
        ck_assert_int_eq(process_exit_status(&watched[0], &st), 0);
        ck_assert_int_eq(st.code, CLD_EXITED);
        ck_assert_int_eq(st.status, 7);
        ck_assert(!watched[0].indexed); /* reaped: its PID may be another's now */
        ck_assert_int_eq(process_reap_children(), 1);
        process_done(&watched[0]);
}
END_TEST

START_TEST(test_index) {
        /* Many watched children: each is found among the others and reaped
         * through its pidfd with its own status; done ones leave the index. */
        enum { N = 64 };
        static Process many[N];
        for (int i = 0; i < N; i++) {
                int fd;
                pid_t pid = child(i);
                fd = sys_pidfd_open(pid, 0);
                ck_assert_int_ge(fd, 0);
                many[i] = (Process){ .pid = pid, .pidfd = fd, .mode = SPAWN_MODE_FALLBACK };
                ck_assert_int_eq(process_watch(&many[i]), 0);
        }
        /* The same PID twice cannot be indexed. */
        Process twin = many[5];
        twin.indexed = false;
        ck_assert_int_eq(process_watch(&twin), -EEXIST);
        /* An autokill-mode one is never indexed (its PID is not kept for it). */
        Process ak = { .pid = 1, .pidfd = 0, .mode = SPAWN_MODE_AUTOKILL };
        ck_assert_int_eq(process_watch(&ak), 0);
        ck_assert(!ak.indexed);
        /* One is done before it exits: a zombie nobody watches, an orphan. */
        pid_t gone = many[N - 1].pid;
        process_done(&many[N - 1]);
        ck_assert(!many[N - 1].indexed);
        for (int i = 0; i < N; i++)
                wait_exited(i == N - 1 ? gone : many[i].pid);

        ck_assert_int_eq(process_reap_children(), 1);
        for (int i = 0; i < N - 1; i++) {
                ExitStatus st;
                ck_assert(many[i].have_exit);
                ck_assert(!many[i].indexed);
                ck_assert_int_eq(process_exit_status(&many[i], &st), 0);
                ck_assert_int_eq(st.code, CLD_EXITED);
                ck_assert_int_eq(st.status, i);
                process_done(&many[i]);
        }
}
END_TEST

START_TEST(test_still_running_untouched) {
        /* A live child is neither reaped nor waited for. */
        int p[2];
        ck_assert_int_eq(pipe(p), 0);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                char c;
                close(p[1]);
                _exit(read(p[0], &c, 1) == 0 ? 5 : 6);
        }
        close(p[0]);
        ck_assert_int_eq(process_reap_children(), 0);
        close(p[1]);
        wait_exited(pid);
        ck_assert_int_eq(process_reap_children(), 1);
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("process");
        TCase *tc = tcase_create("reap");
        tcase_add_test(tc, test_reap_orphans_keep_watched);
        tcase_add_test(tc, test_watched_read_first);
        tcase_add_test(tc, test_still_running_untouched);
        tcase_add_test(tc, test_index);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(suite());
}
