/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * group-exit: a process whose main thread ends first, with pthread_exit(),
 * while a worker thread then ends the process with exit(CODE).
 *
 *   group-exit [CODE]         (CODE defaults to 3)
 *
 * The worker joins the main thread, which returns as soon as the kernel has
 * cleared the main thread's TID in its exit (CLONE_CHILD_CLEARTID), and
 * calls exit(CODE) right away: so the process's end races with the rest of
 * the main thread's exit. wait(2) reports CODE. So must svd: the process's
 * status is the group's exit code, not what the main thread passed to the
 * exit system call (0 for pthread_exit()).
 *
 * Kept self-contained (C11 + POSIX threads, no project code) so that the
 * kernel lab can build it into an initramfs on its own.
 */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_t main_thread;
static int code = 3;

static void *worker(void *arg) {
        (void) arg;
        if (pthread_join(main_thread, NULL) != 0)
                _Exit(100);
        exit(code);
}

int main(int argc, char **argv) {
        pthread_t t;

        if (argc > 1)
                code = atoi(argv[1]);
        main_thread = pthread_self();
        if (pthread_create(&t, NULL, worker, NULL) != 0) {
                perror("group-exit: pthread_create");
                return 101;
        }
        pthread_exit(NULL);
}
