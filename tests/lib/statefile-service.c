/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * statefile-service: a Type=notify test service that keeps a counter in a
 * state file and recovers it at start, for svd-crashtest's own tests.
 *
 *   statefile-service correct|torn STATE JOURNAL
 *
 * At start it reads STATE: a record "count N\n", filler lines, "end N\n".
 * A whole record gives N; no file gives 0; anything else is a torn record,
 * which it takes as 0 (its recovery bug: it trusts what it finds). It
 * appends "start N" (or "start torn") to JOURNAL, fsyncs, sends READY=1 to
 * $NOTIFY_SOCKET, and then counts: for each N it rewrites STATE and, once
 * that is done, appends "ack N" to JOURNAL (fsync'd): N is acknowledged.
 *
 *   correct  writes STATE.tmp, fsync, rename over STATE, fsync of the
 *            directory: a kill at any instant leaves the old or the new record.
 *   torn     rewrites STATE in place (O_TRUNC, then the record in 1 KiB
 *            pieces with a pause between them, no fsync): a kill in that
 *            window leaves a torn record, and the recovered count goes back.
 *
 * The invariant a check tests: every "start" is a number no smaller than
 * the last "ack" before it.
 *
 * Plain C11 without project code (the kernel lab builds it on its own).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define RECORD_PIECES 16
#define PIECE_BYTES 1024

static void die(const char *what) {
        fprintf(stderr, "statefile-service: %s: %s\n", what, strerror(errno));
        exit(1);
}

static void pause_msec(long ms) {
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

static void notify_ready(void) {
        const char *path = getenv("NOTIFY_SOCKET");
        if (!path)
                return;
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        if (strlen(path) >= sizeof(sa.sun_path))
                return;
        strcpy(sa.sun_path, path);
        int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                die("socket");
        if (sendto(fd, "READY=1", 7, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
                die("sendto NOTIFY_SOCKET");
        close(fd);
}

/* The record for n: RECORD_PIECES pieces of PIECE_BYTES. */
static void record_build(char *buf, long n) {
        memset(buf, 'x', RECORD_PIECES * PIECE_BYTES);
        for (int i = 0; i < RECORD_PIECES; i++)
                buf[(i + 1) * PIECE_BYTES - 1] = '\n';
        char head[64], tail[64];
        int hl = snprintf(head, sizeof(head), "count %ld\n", n);
        int tl = snprintf(tail, sizeof(tail), "end %ld\n", n);
        memcpy(buf, head, (size_t)hl);
        memcpy(buf + RECORD_PIECES * PIECE_BYTES - tl, tail, (size_t)tl);
        buf[RECORD_PIECES * PIECE_BYTES - tl - 1] = '\n';
}

/* -1: torn; else the count. */
static long record_read(const char *path) {
        static char buf[RECORD_PIECES * PIECE_BYTES + 1], want[RECORD_PIECES * PIECE_BYTES];
        FILE *f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? 0 : -1;
        size_t n = fread(buf, 1, sizeof(buf), f);
        fclose(f);
        long c;
        if (n != RECORD_PIECES * PIECE_BYTES || sscanf(buf, "count %ld", &c) != 1)
                return -1;
        record_build(want, c);
        return memcmp(buf, want, n) == 0 ? c : -1;
}

static void write_all(int fd, const char *p, size_t l) {
        while (l > 0) {
                ssize_t k = write(fd, p, l);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        die("write");
                }
                p += k;
                l -= (size_t)k;
        }
}

static void journal_append(int jfd, const char *line) {
        write_all(jfd, line, strlen(line)); /* one write: O_APPEND, never interleaved */
        if (fsync(jfd) < 0)
                die("fsync journal");
}

int main(int argc, char *argv[]) {
        if (argc != 4 || (strcmp(argv[1], "correct") != 0 && strcmp(argv[1], "torn") != 0)) {
                fprintf(stderr, "usage: statefile-service correct|torn STATE JOURNAL\n");
                return 2;
        }
        int correct = strcmp(argv[1], "correct") == 0;
        const char *state = argv[2];
        char tmp[4096], dir[4096];
        snprintf(tmp, sizeof(tmp), "%s.tmp", state);
        snprintf(dir, sizeof(dir), "%s", state);
        char *d = dirname(dir);

        int jfd = open(argv[3], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (jfd < 0)
                die("open journal");

        long n = record_read(state);
        char line[64];
        if (n < 0)
                snprintf(line, sizeof(line), "start torn\n");
        else
                snprintf(line, sizeof(line), "start %ld\n", n);
        journal_append(jfd, line);
        if (n < 0)
                n = 0;
        notify_ready();

        static char rec[RECORD_PIECES * PIECE_BYTES];
        for (;;) {
                n++;
                record_build(rec, n);
                if (correct) {
                        int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                        if (fd < 0)
                                die("open state.tmp");
                        write_all(fd, rec, sizeof(rec));
                        if (fsync(fd) < 0)
                                die("fsync state.tmp");
                        close(fd);
                        if (rename(tmp, state) < 0)
                                die("rename");
                        int dfd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        if (dfd < 0 || fsync(dfd) < 0)
                                die("fsync directory");
                        close(dfd);
                } else {
                        int fd = open(state, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                        if (fd < 0)
                                die("open state");
                        for (int i = 0; i < RECORD_PIECES; i++) {
                                write_all(fd, rec + i * PIECE_BYTES, PIECE_BYTES);
                                pause_msec(2);
                        }
                        close(fd);
                }
                snprintf(line, sizeof(line), "ack %ld\n", n);
                journal_append(jfd, line);
                pause_msec(5);
        }
}
