/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* reexec.c's JSON helpers and logstream.c's part of the re-exec state: bytes
 * that are not UTF-8 or hold NUL survive, a log ring comes back line by line
 * with its counters, a half-read line and the pipe come back and the next
 * bytes complete that line. (The whole re-exec: tests/integration/e2e-reexec.sh.) */
#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/macros.h"
#include "logstream.h"
#include "reexec.h"
#include "check-run.h"

static void no_line(const char *text, size_t len, unsigned flags, void *userdata) {
        ck_abort_msg("a line where none is complete");
}

static void roundtrip(const char *p, size_t n, bool expect_hex) {
        json_t *j = reexec_bytes_to_json(p, n);
        ck_assert_ptr_nonnull(j);
        ck_assert_int_eq(json_is_object(j), expect_hex);
        /* Through text, as through the memfd. */
        char *text = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
        json_decref(j);
        ck_assert_ptr_nonnull(text);
        json_error_t err;
        j = json_loads(text, JSON_DECODE_ANY, &err);
        free(text);
        ck_assert_ptr_nonnull(j);
        char *back;
        size_t len;
        ck_assert_int_eq(reexec_bytes_from_json(j, &back, &len), 0);
        ck_assert_uint_eq(len, n);
        ck_assert_int_eq(memcmp(back, p, n), 0);
        ck_assert_int_eq(back[n], 0);
        free(back);
        json_decref(j);
}

START_TEST(test_bytes) {
        roundtrip("", 0, false);
        roundtrip("[Service]\nExecStart=/bin/true\n", 30, false);
        roundtrip("h\xc3\xa9llo", 6, false);
        roundtrip("a\0b", 3, true);
        roundtrip("\xff\xfe latin-1 \xe9", 13, true);

        char *out;
        size_t n;
        json_t *bad = json_pack("{s:s}", "hex", "abc");
        ck_assert_int_eq(reexec_bytes_from_json(bad, &out, &n), -EINVAL);
        json_decref(bad);
        bad = json_pack("{s:s}", "hex", "zz");
        ck_assert_int_eq(reexec_bytes_from_json(bad, &out, &n), -EINVAL);
        json_decref(bad);
        bad = json_integer(1);
        ck_assert_int_eq(reexec_bytes_from_json(bad, &out, &n), -EINVAL);
        json_decref(bad);
}
END_TEST

START_TEST(test_fields) {
        json_t *o = json_pack("{s:I,s:b,s:s,s:i}", "big", (json_int_t) -2, "yes", 1, "name", "x", "fd", 1);
        ck_assert_uint_eq(reexec_u64(o, "big", 0), UINT64_MAX - 1); /* unit hashes use all 64 bits */
        ck_assert_uint_eq(reexec_u64(o, "missing", 7), 7);
        ck_assert_uint_eq(reexec_u64(o, "name", 7), 7);
        ck_assert(reexec_bool(o, "yes", false));
        ck_assert(!reexec_bool(o, "big", false));
        ck_assert_str_eq(reexec_str(o, "name"), "x");
        ck_assert_ptr_null(reexec_str(o, "yes"));
        /* 0-2 are never handed over; a missing fd is -EBADF. */
        ck_assert_int_eq(reexec_fd_take(o, "fd"), -EBADF);
        ck_assert_int_eq(reexec_fd_take(o, "missing"), -EBADF);
        json_decref(o);

        ReexecFds fds = {};
        int p[2];
        ck_assert_int_eq(pipe(p), 0); /* no O_CLOEXEC: take must set it */
        json_t *j = reexec_fd_to_json(&fds, p[0]);
        ck_assert(json_is_integer(j));
        json_t *n = reexec_fd_to_json(&fds, -EBADF);
        ck_assert(json_is_null(n));
        ck_assert_uint_eq(fds.n, 1);
        o = json_pack("{s:o,s:o}", "a", j, "b", n);
        ck_assert_int_eq(reexec_fd_take(o, "a"), p[0]);
        ck_assert_int_eq(fcntl(p[0], F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
        ck_assert_int_eq(reexec_fd_take(o, "b"), -EBADF);
        close(p[1]);
        ck_assert_int_eq(reexec_fd_take(o, "a"), p[0]);
        close(p[0]);
        ck_assert_int_eq(reexec_fd_take(o, "a"), -EBADF); /* closed now */
        json_decref(o);
        free(fds.fds);
}
END_TEST

START_TEST(test_log) {
        sd_event *e = NULL;
        ServiceLog *a = NULL, *b = NULL;
        ReexecFds fds = {};
        int p[2];

        ck_assert_int_ge(sd_event_new(&e), 0);
        ck_assert_int_eq(service_log_new(e, "svc", &a), 0);
        /* 1200 lines into a ring of 1000: the first 200 are evicted. */
        for (int i = 1; i <= 1200; i++) {
                char line[32];
                int n = snprintf(line, sizeof(line), "line %d", i);
                ck_assert_int_eq(logbuf_append(&a->buffer, i % 2 ? LOGBUF_STREAM_STDOUT : LOGBUF_STREAM_STDERR,
                                               1000000 + (uint64_t) i, 0, line, (size_t) n, NULL), 0);
        }
        ck_assert_int_eq(logbuf_append(&a->buffer, LOGBUF_STREAM_STDOUT, 5, LOGBUF_LINE_PARTIAL, "bin\0\xff", 5, NULL), 0);
        a->dropped = 42;
        a->rate = (LogRateLimit){ .begin_usec = 99, .n = 3, .dropped = 4 };
        /* A pipe with half a line read already and the rest still in it. */
        ck_assert_int_eq(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
        a->pipes[0].fd = p[0];
        log_splitter_feed(&a->pipes[0].splitter, "half ", 5, no_line, NULL);
        ck_assert_int_eq(write(p[1], "a line\n", 7), 7);

        json_t *state = service_log_serialize(a, &fds);
        ck_assert_ptr_nonnull(state);
        ck_assert_uint_eq(fds.n, 1);
        char *text = json_dumps(state, JSON_COMPACT);
        json_decref(state);
        /* The old svd is gone, its fd is left (as after the exec). */
        a->pipes[0].fd = -EBADF;
        service_log_free(a);

        json_error_t err;
        state = json_loads(text, 0, &err);
        free(text);
        ck_assert_ptr_nonnull(state);
        ck_assert_int_eq(service_log_new(e, "svc", &b), 0);
        ck_assert_int_eq(service_log_deserialize(b, state, NULL), 0);
        json_decref(state);

        ck_assert_uint_eq(b->buffer.n_lines, 1000);
        ck_assert_uint_eq(b->buffer.evicted, 201);
        ck_assert_uint_eq(b->buffer.next_seqnum, 1202);
        ck_assert_uint_eq(b->dropped, 42);
        ck_assert_uint_eq(b->rate.begin_usec, 99);
        ck_assert_uint_eq(b->rate.n, 3);
        ck_assert_uint_eq(b->rate.dropped, 4);
        const LogLine *l = logbuf_last(&b->buffer, 1000);
        ck_assert_uint_eq(l->seqnum, 202);
        ck_assert_str_eq(l->text, "line 202");
        ck_assert_uint_eq(l->usec, 1000202);
        ck_assert_int_eq(l->stream, LOGBUF_STREAM_STDERR);
        l = logbuf_last(&b->buffer, 1);
        ck_assert_uint_eq(l->len, 5);
        ck_assert_int_eq(memcmp(l->text, "bin\0\xff", 5), 0);
        ck_assert_uint_eq(l->flags, LOGBUF_LINE_PARTIAL);

        /* The pipe is watched again; the rest of the half line completes it. */
        ck_assert_int_eq(b->pipes[0].fd, p[0]);
        ck_assert_int_ge(sd_event_run(e, 1000000), 0);
        /* First the report of the 4 lines the carried-over rate limit had dropped. */
        l = logbuf_last(&b->buffer, 2);
        ck_assert_int_eq(l->stream, LOGBUF_STREAM_SVD);
        ck_assert_uint_eq(l->seqnum, 1202);
        ck_assert_ptr_nonnull(strstr(l->text, "4 lines dropped"));
        l = l->next;
        ck_assert_str_eq(l->text, "half a line");
        ck_assert_uint_eq(l->seqnum, 1203);

        close(p[1]);
        service_log_free(b);
        sd_event_unref(e);
        free(fds.fds);
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("reexec");
        TCase *tc = tcase_create("state");
        tcase_add_test(tc, test_bytes);
        tcase_add_test(tc, test_fields);
        tcase_add_test(tc, test_log);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(suite());
}
