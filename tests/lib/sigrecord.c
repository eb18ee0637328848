/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sigrecord: a test service that notices everything svd could do to it.
 *
 *   sigrecord [--ignore-term] [--notify|--never-ready] [--interval MS] FILE
 *
 * Appends one line to FILE for every signal it receives ("signal N"), for a
 * change of its parent ("ppid OLD NEW") and for a failed write to stdout
 * ("write ERRNO"): a service that svd left alone leaves FILE empty. Every
 * MS milliseconds (default 100) it prints "seq N" on stdout, N counting
 * from 1, in two writes half an interval apart ("seq N", then the newline),
 * so that svd often holds half a line when something happens; a reader of
 * the log checks that every N is there, once, whole.
 *
 * A SIGTERM is recorded, then ends the process (exit 0), unless
 * --ignore-term. --notify sends READY=1 to $NOTIFY_SOCKET once running
 * (Type=notify); --never-ready sends nothing and stays "starting".
 * Plain C11, no project code: the kernel lab builds it on its own.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int record_fd = -1;
static int ignore_term;
static volatile sig_atomic_t term_seen;

static void record(const char *text) {
        size_t n = strlen(text);
        while (n > 0) {
                ssize_t w = write(record_fd, text, n);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0)
                        return;
                text += w;
                n -= (size_t) w;
        }
}

static void on_signal(int sig) {
        int saved = errno;
        char buf[32];
        /* snprintf is not async-signal-safe; build the line by hand. */
        char digits[12];
        int d = 0, v = sig;
        do
                digits[d++] = (char) ('0' + v % 10);
        while ((v /= 10) > 0);
        strcpy(buf, "signal ");
        size_t l = strlen(buf);
        while (d > 0)
                buf[l++] = digits[--d];
        buf[l++] = '\n';
        buf[l] = 0;
        record(buf);
        if (sig == SIGTERM && !ignore_term)
                term_seen = 1;
        errno = saved;
}

static void sleep_ms(long ms) {
        struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                if (term_seen)
                        return;
}

static void put(const char *text) {
        size_t n = strlen(text);
        while (n > 0) {
                ssize_t w = write(STDOUT_FILENO, text, n);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0) {
                        char line[64];
                        snprintf(line, sizeof(line), "write %d\n", errno);
                        record(line);
                        return;
                }
                text += w;
                n -= (size_t) w;
        }
}

static void notify_ready(void) {
        const char *path = getenv("NOTIFY_SOCKET");
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        if (!path || strlen(path) >= sizeof(sa.sun_path)) {
                record("no NOTIFY_SOCKET\n");
                return;
        }
        strcpy(sa.sun_path, path);
        if (sa.sun_path[0] == '@')
                sa.sun_path[0] = 0;
        int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || sendto(fd, "READY=1", 7, MSG_NOSIGNAL, (struct sockaddr *) &sa, sizeof(sa)) < 0)
                record("notify failed\n");
        if (fd >= 0)
                close(fd);
}

int main(int argc, char **argv) {
        long interval = 100;
        int notify = 0, i;

        for (i = 1; i < argc && argv[i][0] == '-'; i++) {
                if (strcmp(argv[i], "--ignore-term") == 0)
                        ignore_term = 1;
                else if (strcmp(argv[i], "--notify") == 0)
                        notify = 1;
                else if (strcmp(argv[i], "--never-ready") == 0)
                        notify = 0;
                else if (strcmp(argv[i], "--interval") == 0 && i + 1 < argc)
                        interval = atol(argv[++i]);
                else {
                        fprintf(stderr, "sigrecord: unknown option '%s'\n", argv[i]);
                        return 2;
                }
        }
        if (i + 1 != argc || interval < 2) {
                fprintf(stderr, "usage: sigrecord [--ignore-term] [--notify|--never-ready] [--interval MS] FILE\n");
                return 2;
        }
        record_fd = open(argv[i], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (record_fd < 0) {
                perror("sigrecord: open");
                return 1;
        }

        struct sigaction sa = { .sa_handler = on_signal };
        sigfillset(&sa.sa_mask);
        for (int sig = 1; sig < NSIG; sig++)
                if (sig != SIGKILL && sig != SIGSTOP)
                        (void) sigaction(sig, &sa, NULL);
        sigset_t all;
        sigemptyset(&all);
        sigprocmask(SIG_SETMASK, &all, NULL);

        pid_t parent = getppid();
        if (notify)
                notify_ready();
        for (unsigned long n = 1; !term_seen; n++) {
                char text[32];
                snprintf(text, sizeof(text), "seq %lu", n);
                put(text);
                sleep_ms(interval / 2);
                put("\n");
                pid_t now = getppid();
                if (now != parent) {
                        char line[64];
                        snprintf(line, sizeof(line), "ppid %d %d\n", (int) parent, (int) now);
                        record(line);
                        parent = now;
                }
                sleep_ms(interval - interval / 2);
        }
        return 0;
}
