/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * statefile-service: a Type=notify test service that keeps a counter in a
 * state file and recovers it at start, for svd-crashtest's own tests.
 *
 *   statefile-service MODE STATE JOURNAL
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
 * Modes whose only flaw, if any, is durability (what a power cut loses and
 * a kill does not), for the power-loss fault:
 *
 *   rename-nodirsync  as correct, but the directory is never fsynced: the
 *                     rename is not durable, and a power cut brings back
 *                     an older record.
 *   append-sync       appends "rec N" lines to STATE, each fdatasync'd
 *                     before its ack (the file, when it made it, fsynced
 *                     with its directory); the count is the number of
 *                     whole lines, a torn last line is no record.
 *   append-nosync     the same without any fsync: acknowledged after
 *                     write() alone.
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

/* The count of an append log: its whole "rec N" lines, numbered from 1 (a torn last line is none);
 * -1 when a whole line is not the record expected there. */
static long append_read(const char *path) {
        FILE *f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? 0 : -1;
        char line[64];
        long n = 0, k;
        while (fgets(line, sizeof(line), f)) {
                if (!strchr(line, '\n'))
                        break; /* torn: the write that was cut */
                if (sscanf(line, "rec %ld", &k) != 1 || k != n + 1) {
                        fclose(f);
                        return -1;
                }
                n = k;
        }
        fclose(f);
        return n;
}

static void fsync_dir(const char *d) {
        int dfd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0 || fsync(dfd) < 0)
                die("fsync directory");
        close(dfd);
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
        /* A terminal or a pipe (the kernel lab's console) has nothing to sync: EINVAL. */
        if (fsync(jfd) < 0 && errno != EINVAL)
                die("fsync journal");
}

int main(int argc, char *argv[]) {
        static const char *const modes[] = {"correct", "torn", "rename-nodirsync", "append-sync", "append-nosync"};
        int mode = -1;
        for (int i = 0; argc == 4 && i < 5; i++)
                if (strcmp(argv[1], modes[i]) == 0)
                        mode = i;
        if (mode < 0) {
                fprintf(stderr, "usage: statefile-service correct|torn|rename-nodirsync|append-sync|append-nosync "
                                "STATE JOURNAL\n");
                return 2;
        }
        int correct = mode == 0 || mode == 2, dirsync = mode == 0, append = mode >= 3, datasync = mode == 3;
        const char *state = argv[2];
        char tmp[4096], dir[4096];
        snprintf(tmp, sizeof(tmp), "%s.tmp", state);
        snprintf(dir, sizeof(dir), "%s", state);
        char *d = dirname(dir);

        int jfd = open(argv[3], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (jfd < 0)
                die("open journal");

        long n = append ? append_read(state) : record_read(state);
        char line[64];
        if (n < 0)
                snprintf(line, sizeof(line), "start torn\n");
        else
                snprintf(line, sizeof(line), "start %ld\n", n);
        journal_append(jfd, line);
        if (n < 0)
                n = 0;
        notify_ready();

        int afd = -1;
        if (append) {
                struct stat st;
                int fresh = stat(state, &st) < 0;
                afd = open(state, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
                if (afd < 0)
                        die("open state");
                /* A torn last line ends the log: the next record starts on a line of its own. */
                if (!fresh && st.st_size > 0) {
                        char last = '\n';
                        int rfd = open(state, O_RDONLY | O_CLOEXEC);
                        if (rfd >= 0 && pread(rfd, &last, 1, st.st_size - 1) == 1 && last != '\n')
                                write_all(afd, "\n", 1);
                        if (rfd >= 0)
                                close(rfd);
                }
                if (datasync && (fsync(afd) < 0 || (fresh && (fsync_dir(d), 0))))
                        die("fsync state");
        }

        static char rec[RECORD_PIECES * PIECE_BYTES];
        for (;;) {
                n++;
                if (append) {
                        snprintf(line, sizeof(line), "rec %ld\n", n);
                        write_all(afd, line, strlen(line));
                        if (datasync && fdatasync(afd) < 0)
                                die("fdatasync state");
                        snprintf(line, sizeof(line), "ack %ld\n", n);
                        journal_append(jfd, line);
                        pause_msec(5);
                        continue;
                }
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
                        if (dirsync)
                                fsync_dir(d);
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
