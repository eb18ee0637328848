/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* notify.c's parser: what a datagram on $NOTIFY_SOCKET may say, and what is dropped. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macros.h"
#include "basic/socket-path.h"
#include "notify.h"
#include "check-run.h"

static NotifyMessage parse_ok(const char *text) {
        NotifyMessage m;
        ck_assert_int_eq(notify_parse(text, strlen(text), &m), 0);
        return m;
}

START_TEST(test_ready_and_status) {
        NotifyMessage m = parse_ok("READY=1\nSTATUS=Serving 3 clients\nERRNO=2\nMAINPID=42\n");
        ck_assert(m.ready);
        ck_assert(!m.stopping && !m.reloading && !m.watchdog && !m.watchdog_trigger);
        ck_assert_str_eq(m.status, "Serving 3 clients");
        ck_assert_int_eq(m.errno_value, 2);
        ck_assert_int_eq(m.main_pid, 42);
        ck_assert_uint_eq(m.watchdog_usec, 0);
        notify_message_done(&m);
        ck_assert_ptr_null(m.status);
}
END_TEST

START_TEST(test_other_keys) {
        NotifyMessage m = parse_ok("STOPPING=1\nRELOADING=1\nWATCHDOG=1\nWATCHDOG_USEC=5000000");
        ck_assert(m.stopping && m.reloading && m.watchdog);
        ck_assert(!m.ready && !m.watchdog_trigger);
        ck_assert_uint_eq(m.watchdog_usec, 5000000);
        ck_assert_int_eq(m.errno_value, -1);
        ck_assert_ptr_null(m.status);
        notify_message_done(&m);

        m = parse_ok("WATCHDOG=trigger");
        ck_assert(m.watchdog_trigger && !m.watchdog);
        notify_message_done(&m);
}
END_TEST

START_TEST(test_bad_values_are_skipped) {
        /* Unknown keys, READY=0, malformed numbers and a STATUS= that is not UTF-8 are dropped. */
        NotifyMessage m = parse_ok("READY=0\nFOO=bar\nERRNO=-3\nERRNO=x\nWATCHDOG_USEC=0\nMAINPID=abc\n"
                                   "STATUS=\xff\xfe\nno equals sign\nSTATUS=ok");
        ck_assert(!m.ready);
        ck_assert_int_eq(m.errno_value, -1);
        ck_assert_uint_eq(m.watchdog_usec, 0);
        ck_assert_int_eq(m.main_pid, 0);
        ck_assert_str_eq(m.status, "ok");
        notify_message_done(&m);

        /* A later STATUS= wins; an empty one is kept as empty. */
        m = parse_ok("STATUS=a\nSTATUS=");
        ck_assert_str_eq(m.status, "");
        notify_message_done(&m);
}
END_TEST

START_TEST(test_rejected) {
        NotifyMessage m;
        ck_assert_int_eq(notify_parse("", 0, &m), -EINVAL);
        ck_assert_int_eq(notify_parse("READY=1\0x", 9, &m), -EINVAL);
        ck_assert_int_eq(notify_parse("no assignment\n", 14, &m), -EINVAL);
        /* Not NUL-terminated: only n bytes are read. */
        char buf[8];
        memcpy(buf, "READY=1X", 8);
        m = (NotifyMessage){};
        ck_assert_int_eq(notify_parse(buf, 7, &m), 0);
        ck_assert(m.ready);
        notify_message_done(&m);
}
END_TEST

START_TEST(test_socket_path) {
        _cleanup_free_ char *a = NULL, *b = NULL, *c = NULL, *d = NULL, *e = NULL;
        char h[9];
        ck_assert_int_eq(notify_socket_path("/run/svd/svd.sock", NULL, &a), 0);
        ck_assert_str_eq(a, "/run/svd/svd.notify");
        ck_assert_int_eq(notify_socket_path("/tmp/ctl", NULL, &b), 0);
        ck_assert_str_eq(b, "/tmp/ctl.notify");
        /* As root: in /run/svd, next to the control socket when that is there too ... */
        ck_assert_int_eq(notify_socket_path("/run/svd/svd.sock", "/run/svd", &c), 0);
        ck_assert_str_eq(c, "/run/svd/svd.notify");
        /* ... else named after it, whatever hides or closes its own directory. */
        ck_assert_int_eq(notify_socket_path("/tmp/x/svd.sock", "/run/svd", &d), 0);
        socket_path_hash("/tmp/x/svd.sock", h);
        ck_assert_int_eq(strlen(h), 8);
        ck_assert_ptr_nonnull(strstr(d, h));
        ck_assert(strneq(d, "/run/svd/notify.", strlen("/run/svd/notify.")));
        ck_assert_int_eq(notify_socket_path("/run/svd/sub/svd.sock", "/run/svd", &e), 0);
        ck_assert(strneq(e, "/run/svd/notify.", strlen("/run/svd/notify.")));
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("notify");
        TCase *tc = tcase_create("parse");
        tcase_add_test(tc, test_ready_and_status);
        tcase_add_test(tc, test_other_keys);
        tcase_add_test(tc, test_bad_values_are_skipped);
        tcase_add_test(tc, test_rejected);
        tcase_add_test(tc, test_socket_path);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(suite());
}
