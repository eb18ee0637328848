/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* logbuf.c: line splitting, the ring buffer's bounds, the rate limit, UTF-8 on the way out;
 * logfile.c: size-based rotation. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "basic/macros.h"
#include "basic/utf8.h"
#include "logbuf.h"
#include "logfile.h"
#include "check-run.h"

#define MAX_SEEN 64

typedef struct Seen {
        size_t n;
        char *text[MAX_SEEN];
        size_t len[MAX_SEEN];
        unsigned flags[MAX_SEEN];
} Seen;

static void collect(const char *text, size_t len, unsigned flags, void *userdata) {
        Seen *s = userdata;
        ck_assert_uint_lt(s->n, MAX_SEEN);
        s->text[s->n] = strndup(text, len);
        s->len[s->n] = len;
        s->flags[s->n] = flags;
        s->n++;
}

static void seen_done(Seen *s) {
        for (size_t i = 0; i < s->n; i++)
                free(s->text[i]);
}

START_TEST(test_split_lines) {
        LogSplitter sp = {};
        Seen s = {};

        log_splitter_feed(&sp, "zero\n", 5, collect, &s);
        ck_assert_ptr_null(sp.buf); /* whole lines need no buffer */
        ck_assert_uint_eq(s.n, 1);
        ck_assert_str_eq(s.text[0], "zero");
        seen_done(&s);
        s = (Seen){};

        log_splitter_feed(&sp, "one\ntwo\n\nthr", 12, collect, &s);
        ck_assert_ptr_nonnull(sp.buf); /* "thr" waits for its end */
        ck_assert_uint_eq(s.n, 3);
        ck_assert_str_eq(s.text[0], "one");
        ck_assert_str_eq(s.text[1], "two");
        ck_assert_str_eq(s.text[2], "");
        log_splitter_feed(&sp, "ee\nfour", 7, collect, &s);
        ck_assert_uint_eq(s.n, 4);
        ck_assert_str_eq(s.text[3], "three"); /* joined across reads */
        ck_assert_uint_eq(s.flags[3], 0);
        log_splitter_flush(&sp, collect, &s);
        ck_assert_uint_eq(s.n, 5);
        ck_assert_str_eq(s.text[4], "four");
        ck_assert_uint_eq(s.flags[4], LOGBUF_LINE_PARTIAL);
        log_splitter_flush(&sp, collect, &s); /* nothing left */
        ck_assert_uint_eq(s.n, 5);
        log_splitter_done(&sp);
        ck_assert_ptr_null(sp.buf);
        seen_done(&s);
}
END_TEST

/* A line of 2 * LOGBUF_LINE_MAX + 10 bytes, seen from s->text[first] on: two
 * full pieces marked split, then the last 10 bytes as the line's end. */
static void assert_two_pieces_and_10(const Seen *s, size_t first) {
        for (size_t i = first; i < first + 2; i++) {
                ck_assert_uint_eq(s->len[i], LOGBUF_LINE_MAX);
                ck_assert_uint_eq(s->flags[i], LOGBUF_LINE_SPLIT);
        }
        ck_assert_uint_eq(s->len[first + 2], 10);
        ck_assert_uint_eq(s->flags[first + 2], 0);
}

START_TEST(test_split_long_lines) {
        LogSplitter sp = {};
        Seen s = {};
        size_t n = LOGBUF_LINE_MAX * 2 + 10;
        char *big = malloc(n + 1);

        memset(big, 'x', n);
        big[n] = '\n';
        /* In odd-sized pieces, to cross the buffer at every offset. */
        for (size_t off = 0; off <= n; off += 333)
                log_splitter_feed(&sp, big + off, off + 333 > n + 1 ? n + 1 - off : 333, collect, &s);
        ck_assert_uint_eq(s.n, 3);
        assert_two_pieces_and_10(&s, 0);
        seen_done(&s);

        /* Exactly LOGBUF_LINE_MAX bytes and a newline: one line, not split. */
        Seen t = {};
        memset(big, 'y', LOGBUF_LINE_MAX);
        big[LOGBUF_LINE_MAX] = '\n';
        log_splitter_feed(&sp, big, LOGBUF_LINE_MAX, collect, &t);
        ck_assert_uint_eq(t.n, 0);
        log_splitter_feed(&sp, big + LOGBUF_LINE_MAX, 1, collect, &t);
        ck_assert_uint_eq(t.n, 1);
        ck_assert_uint_eq(t.len[0], LOGBUF_LINE_MAX);
        ck_assert_uint_eq(t.flags[0], 0);
        seen_done(&t);

        /* The same two cases in one read each: straight from the data. */
        Seen u = {};
        log_splitter_feed(&sp, big, LOGBUF_LINE_MAX + 1, collect, &u);
        ck_assert_uint_eq(u.n, 1);
        ck_assert_uint_eq(u.len[0], LOGBUF_LINE_MAX);
        ck_assert_uint_eq(u.flags[0], 0);
        memset(big, 'x', n);
        big[n] = '\n';
        log_splitter_feed(&sp, big, n + 1, collect, &u);
        ck_assert_uint_eq(u.n, 4);
        assert_two_pieces_and_10(&u, 1);
        ck_assert_uint_eq(sp.len, 0);
        seen_done(&u);
        log_splitter_done(&sp);
        free(big);
}
END_TEST

START_TEST(test_ring_line_bound) {
        LogBuffer b;
        char text[32];

        logbuf_init(&b, 5, 1 << 20);
        for (int i = 0; i < 12; i++) {
                int n = snprintf(text, sizeof(text), "line %d", i);
                ck_assert_int_eq(logbuf_append(&b, LOGBUF_STREAM_STDOUT, (uint64_t) i, 0, text, (size_t) n, NULL), 0);
        }
        ck_assert_uint_eq(b.n_lines, 5);
        ck_assert_uint_eq(b.evicted, 7);
        const LogLine *l = logbuf_last(&b, 100);
        ck_assert_str_eq(l->text, "line 7");
        ck_assert_uint_eq(l->seqnum, 8);
        l = logbuf_last(&b, 2);
        ck_assert_str_eq(l->text, "line 10");
        ck_assert_str_eq(l->next->text, "line 11");
        ck_assert_ptr_null(l->next->next);
        ck_assert_ptr_null(logbuf_last(&b, 0));
        ck_assert_ptr_eq(logbuf_last(&b, 5), b.head);
        ck_assert_ptr_eq(logbuf_last(&b, 1), b.tail);
        /* older links run back to the head after evictions */
        size_t back = 1;
        for (l = b.tail; l->prev; l = l->prev)
                back++;
        ck_assert_ptr_eq(l, b.head);
        ck_assert_uint_eq(back, 5);
        logbuf_done(&b);
        ck_assert_uint_eq(b.n_lines, 0);
        ck_assert_ptr_null(logbuf_last(&b, 3));
        ck_assert_uint_eq(b.n_bytes, 0);
}
END_TEST

START_TEST(test_ring_byte_bound) {
        LogBuffer b;
        char text[1000];
        size_t max = 4 * (sizeof(LogLine) + sizeof(text));

        memset(text, 'a', sizeof(text));
        logbuf_init(&b, 1000, max);
        for (int i = 0; i < 50; i++) {
                ck_assert_int_eq(logbuf_append(&b, LOGBUF_STREAM_STDERR, 0, 0, text, sizeof(text), NULL), 0);
                ck_assert_uint_le(b.n_bytes, max);
        }
        ck_assert_uint_eq(b.n_lines, 4);

        /* A line larger than the whole buffer is cut to fit and flagged. */
        char *huge = calloc(1, max * 2);
        const LogLine *l;
        ck_assert_int_eq(logbuf_append(&b, LOGBUF_STREAM_STDOUT, 0, 0, huge, max * 2, &l), 0);
        ck_assert_uint_eq(b.n_lines, 1);
        ck_assert_uint_le(b.n_bytes, max);
        ck_assert(l->flags & LOGBUF_LINE_SPLIT);
        free(huge);
        logbuf_done(&b);
}
END_TEST

START_TEST(test_rate_limit) {
        LogRateLimit rl = {};
        uint64_t report, t = 1000;
        unsigned passed = 0;

        for (unsigned i = 0; i < LOGBUF_RATE_BURST + 500; i++) {
                if (log_rate_limit_test(&rl, t, &report))
                        passed++;
                ck_assert_uint_eq(report, 0);
        }
        ck_assert_uint_eq(passed, LOGBUF_RATE_BURST);
        ck_assert_uint_eq(rl.dropped, 500);
        /* The next interval passes again and reports what was dropped, once. */
        ck_assert(log_rate_limit_test(&rl, t + LOGBUF_RATE_INTERVAL_USEC, &report));
        ck_assert_uint_eq(report, 500);
        ck_assert(log_rate_limit_test(&rl, t + LOGBUF_RATE_INTERVAL_USEC + 1, &report));
        ck_assert_uint_eq(report, 0);
}
END_TEST

START_TEST(test_utf8) {
        char *s = utf8_escape_invalid("ok \xc3\xa9 \xff\x00x \xe2\x82", 12);
        ck_assert_str_eq(s, "ok \xc3\xa9 \xef\xbf\xbd\xef\xbf\xbdx \xef\xbf\xbd\xef\xbf\xbd");
        free(s);
        s = utf8_escape_invalid("\xc0\xaf\xed\xa0\x80", 5); /* overlong '/', a surrogate */
        for (const char *p = s; *p; p += 3)
                ck_assert(strneq(p, "\xef\xbf\xbd", 3));
        free(s);
        s = utf8_escape_invalid("", 0);
        ck_assert_str_eq(s, "");
        free(s);
        ck_assert_str_eq(log_stream_to_string(LOGBUF_STREAM_STDERR), "stderr");
        ck_assert_ptr_null(log_stream_to_string(_LOGBUF_STREAM_MAX));
}
END_TEST

static size_t file_size(const char *path) {
        struct stat st;
        return stat(path, &st) < 0 ? (size_t) -1 : (size_t) st.st_size;
}

START_TEST(test_logfile_rotation) {
        char dir[] = "/tmp/test-logbuf.XXXXXX", path[256], p1[300], p2[300], p3[300];
        LogFile *f;

        ck_assert_ptr_nonnull(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/out.log", dir);
        snprintf(p1, sizeof(p1), "%s.1", path);
        snprintf(p2, sizeof(p2), "%s.2", path);
        snprintf(p3, sizeof(p3), "%s.3", path);

        ck_assert_int_eq(logfile_open(path, /* truncate= */ true, /* rotate_size= */ 100, /* keep= */ 2, &f), 0);
        for (int i = 0; i < 50; i++) /* 10 bytes a line: a rotation every 10 lines */
                ck_assert_int_eq(logfile_write_line(f, "123456789", 9), 0);
        logfile_free(f);
        ck_assert_uint_eq(file_size(path), 0); /* just rotated */
        ck_assert_uint_eq(file_size(p1), 100);
        ck_assert_uint_eq(file_size(p2), 100);
        ck_assert_uint_eq(file_size(p3), (size_t) -1); /* keep=2 */

        /* append: keeps what is there; file: truncates. */
        ck_assert_int_eq(logfile_open(p1, /* truncate= */ false, 0, 0, &f), 0);
        ck_assert_int_eq(logfile_write_line(f, "x", 1), 0);
        logfile_free(f);
        ck_assert_uint_eq(file_size(p1), 102);
        ck_assert_int_eq(logfile_open(p1, /* truncate= */ true, 0, 0, &f), 0);
        logfile_free(f);
        ck_assert_uint_eq(file_size(p1), 0);

        /* Not a regular file: refused, without blocking on a FIFO. */
        snprintf(p3, sizeof(p3), "%s/fifo", dir);
        ck_assert_int_eq(mkfifo(p3, 0600), 0);
        ck_assert_int_lt(logfile_open(p3, false, 0, 0, &f), 0);

        char cmd[300];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        ck_assert_int_eq(system(cmd), 0);
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("logbuf");
        TCase *tc = tcase_create("lines");
        tcase_add_test(tc, test_split_lines);
        tcase_add_test(tc, test_split_long_lines);
        tcase_add_test(tc, test_utf8);
        suite_add_tcase(s, tc);

        tc = tcase_create("ring");
        tcase_add_test(tc, test_ring_line_bound);
        tcase_add_test(tc, test_ring_byte_bound);
        tcase_add_test(tc, test_rate_limit);
        suite_add_tcase(s, tc);

        tc = tcase_create("file");
        tcase_add_test(tc, test_logfile_rotation);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(suite());
}
