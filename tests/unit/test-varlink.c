/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Varlink framing (basic/varlink-wire) and the server's dispatch (varlink.c),
 * driven through a real socketpair and a real sd-event loop. */
#include <check.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "basic/macros.h"
#include "basic/varlink-wire.h"
#include "varlink.h"
#include "check-run.h"

/* ---- framing ---- */

START_TEST(test_buffer_split_and_join) {
        VarlinkBuffer b;
        const char *m;
        size_t l;

        varlink_buffer_init(&b, 64);
        ck_assert_int_eq(varlink_buffer_next(&b, &m, &l), 0);
        /* Two messages in one chunk, the second one incomplete. */
        ck_assert_int_eq(varlink_buffer_append(&b, "{\"a\":1}\0{\"b\"", 12), 0);
        ck_assert_int_eq(varlink_buffer_next(&b, &m, &l), 1);
        ck_assert_uint_eq(l, 7);
        ck_assert_mem_eq(m, "{\"a\":1}", 7);
        ck_assert_int_eq(varlink_buffer_next(&b, &m, &l), 0);
        /* The rest arrives byte by byte. */
        const char *rest = ":2}";
        for (size_t i = 0; i < 3; i++) {
                ck_assert_int_eq(varlink_buffer_append(&b, rest + i, 1), 0);
                ck_assert_int_eq(varlink_buffer_next(&b, &m, &l), 0);
        }
        ck_assert_int_eq(varlink_buffer_append(&b, "", 1), 0);
        ck_assert_int_eq(varlink_buffer_next(&b, &m, &l), 1);
        ck_assert_str_eq(m, "{\"b\":2}");
        ck_assert_uint_eq(varlink_buffer_pending(&b), 0);
        varlink_buffer_done(&b);
}
END_TEST

START_TEST(test_buffer_oversize) {
        VarlinkBuffer b;
        const char *m;
        size_t l;
        char big[100];

        memset(big, 'x', sizeof(big));
        varlink_buffer_init(&b, 64);
        ck_assert_int_eq(varlink_buffer_append(&b, big, 60), 0);
        ck_assert_int_eq(varlink_buffer_next(&b, &m, &l), 0);
        ck_assert_int_eq(varlink_buffer_append(&b, big, 10), 0);
        ck_assert_int_eq(varlink_buffer_next(&b, &m, &l), -EMSGSIZE);
        varlink_buffer_done(&b);

        /* A complete message larger than the limit is refused too. */
        varlink_buffer_init(&b, 64);
        ck_assert_int_eq(varlink_buffer_append(&b, big, 64), 0);
        ck_assert_int_eq(varlink_buffer_append(&b, "", 1), 0);
        ck_assert_int_eq(varlink_buffer_next(&b, &m, &l), -EMSGSIZE);
        varlink_buffer_done(&b);
}
END_TEST

/* Output queued behind a reader that lags: 4 MiB pass through a buffer
 * that never holds more than 64 KiB unsent. The allocation stays within a
 * small multiple of what is pending (consumed bytes are reclaimed, not
 * carried along), the bytes arrive intact and in order, and a peer that
 * is gone is reported as -EPIPE without a SIGPIPE. */
START_TEST(test_buffer_output_queue) {
        int sv[2];
        ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv), 0);

        VarlinkBuffer b;
        varlink_buffer_init(&b, 1U << 20);
        char piece[100], got[16384];
        size_t queued = 0, received = 0, max_alloc = 0;
        uint8_t expect = 0;
        bool intact = true;
        while (received < (4U << 20)) {
                while (varlink_buffer_pending(&b) < 65536) {
                        for (size_t i = 0; i < sizeof(piece); i++)
                                piece[i] = (char) (uint8_t) (queued + i);
                        ck_assert_int_eq(varlink_buffer_append(&b, piece, sizeof(piece)), 0);
                        queued += sizeof(piece);
                }
                if (b.allocated > max_alloc)
                        max_alloc = b.allocated;
                ck_assert_int_ge(varlink_buffer_write(&b, sv[0]), 0);
                ssize_t n = read(sv[1], got, sizeof(got));
                ck_assert_int_gt(n, 0);
                for (ssize_t i = 0; i < n; i++, expect++)
                        intact = intact && (uint8_t) got[i] == expect;
                received += (size_t) n;
        }
        ck_assert(intact);
        ck_assert_uint_le(max_alloc, 4U * 65536);

        safe_close(sv[1]);
        ck_assert_int_eq(varlink_buffer_append(&b, piece, sizeof(piece)), 0);
        ck_assert_int_eq(varlink_buffer_write(&b, sv[0]), -EPIPE);
        safe_close(sv[0]);
        varlink_buffer_done(&b);
}
END_TEST

START_TEST(test_message_parse) {
        json_t *v = NULL;

        ck_assert_int_eq(varlink_message_parse("{\"method\":\"a.B\"}", 16, &v), 0);
        ck_assert(json_is_object(v));
        json_decref(v);
        ck_assert_int_eq(varlink_message_parse("[1]", 3, &v), -EBADMSG);
        ck_assert_int_eq(varlink_message_parse("{", 1, &v), -EBADMSG);
        ck_assert_int_eq(varlink_message_parse("{\"a\":1,\"a\":2}", 13, &v), -EBADMSG);
        ck_assert_int_eq(varlink_message_parse("{\"a\":\"\xff\"}", 8, &v), -EBADMSG);

        /* Nesting beyond the limit, even inside an otherwise valid object. */
        char deep[4 * VARLINK_NESTING_MAX + 16];
        size_t n = 0;
        deep[n++] = '{';
        deep[n++] = '"';
        deep[n++] = 'a';
        deep[n++] = '"';
        deep[n++] = ':';
        for (unsigned i = 0; i < VARLINK_NESTING_MAX; i++)
                deep[n++] = '[';
        for (unsigned i = 0; i < VARLINK_NESTING_MAX; i++)
                deep[n++] = ']';
        deep[n++] = '}';
        ck_assert_int_eq(varlink_message_parse(deep, n, &v), -EBADMSG);
        /* Brackets inside strings do not count. */
        char shallow[2 * VARLINK_NESTING_MAX + 16];
        n = (size_t) snprintf(shallow, sizeof(shallow), "{\"a\":\"");
        for (unsigned i = 0; i <= VARLINK_NESTING_MAX; i++)
                shallow[n++] = '[';
        n += (size_t) snprintf(shallow + n, sizeof(shallow) - n, "\"}");
        ck_assert_int_eq(varlink_message_parse(shallow, n, &v), 0);
        json_decref(v);
}
END_TEST

START_TEST(test_message_format) {
        json_t *o = json_pack("{s:s}", "a", "b");
        char *s;
        size_t l;
        ck_assert_int_eq(varlink_message_format(o, &s, &l), 0);
        ck_assert_uint_eq(l, 10);
        ck_assert_mem_eq(s, "{\"a\":\"b\"}\0", 10);
        free(s);
        json_decref(o);
}
END_TEST

/* ---- dispatch through a socketpair ---- */

typedef struct Fixture {
        sd_event *event;
        VarlinkServer *server;
        int client;
        char dir[64];
        VarlinkCall *held;
        bool cancelled;
} Fixture;

static Fixture fx;

static int method_echo(VarlinkCall *call, json_t *parameters, void *userdata) {
        static const VarlinkField fields[] = { { "text", JSON_STRING, true }, { "n", JSON_INTEGER, false }, {} };
        if (varlink_call_check_parameters(call, parameters, fields) < 0)
                return 0;
        return varlink_call_reply(call, json_pack("{s:O}", "text", json_object_get(parameters, "text")));
}

static void on_cancel(VarlinkCall *call, void *userdata) {
        Fixture *f = userdata;
        f->held = NULL;
        f->cancelled = true;
}

static int method_hold(VarlinkCall *call, json_t *parameters, void *userdata) {
        Fixture *f = userdata;
        f->held = call;
        varlink_call_set_cancel(call, on_cancel, f);
        return 0;
}

static int method_fail(VarlinkCall *call, json_t *parameters, void *userdata) {
        return -EIO; /* the server turns an unanswered failure into an error reply */
}

static int method_write(VarlinkCall *call, json_t *parameters, void *userdata) {
        return varlink_call_reply(call, NULL);
}

static const VarlinkMethod test_methods[] = {
        { "Echo", method_echo, 0 },
        { "Hold", method_hold, 0 },
        { "Fail", method_fail, 0 },
        { "Write", method_write, VARLINK_METHOD_WRITE },
        {},
};

static const char test_idl[] = "interface io.svd.Test\n\nmethod Echo(text: string, n: ?int) -> (text: string)\n";

static void setup(void) {
        int sp[2];
        VarlinkServerInfo info = { "vendor", "product", "1.0", "https://example.invalid" };

        fx = (Fixture){};
        snprintf(fx.dir, sizeof(fx.dir), "/tmp/test-varlink-XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(fx.dir));
        char path[128];
        snprintf(path, sizeof(path), "%s/sock", fx.dir);
        ck_assert_int_ge(sd_event_new(&fx.event), 0);
        ck_assert_int_eq(varlink_server_new(fx.event, path, &info, getuid(), &fx.server), 0);
        ck_assert_int_eq(varlink_server_add_interface(fx.server, "io.svd.Test", test_idl, test_methods, &fx), 0);
        ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
        ck_assert_int_eq(varlink_server_add_connection(fx.server, sp[0]), 0);
        fx.client = sp[1];
}

static void teardown(void) {
        safe_close(fx.client);
        varlink_server_free(fx.server);
        sd_event_unref(fx.event);
        char path[128];
        snprintf(path, sizeof(path), "%s/sock", fx.dir);
        unlink(path);
        rmdir(fx.dir);
}

static void send_raw(const void *data, size_t n) {
        ck_assert_int_eq(send(fx.client, data, n, MSG_NOSIGNAL), (ssize_t) n);
}

static void send_str(const char *s) {
        send_raw(s, strlen(s) + 1);
}

/* Runs the loop until the client has a complete reply (returned, malloc'd),
 * or the server closed the connection (returns NULL), within 5 s. */
static char *read_reply(void) {
        static char buf[1 << 16];
        static size_t have;
        struct timespec start, now;
        clock_gettime(CLOCK_MONOTONIC, &start);

        for (;;) {
                char *nul = memchr(buf, 0, have);
                if (nul) {
                        size_t l = (size_t) (nul - buf);
                        char *r = strndup(buf, l);
                        memmove(buf, nul + 1, have - l - 1);
                        have -= l + 1;
                        return r;
                }
                (void) sd_event_run(fx.event, 1000);
                struct pollfd p = { .fd = fx.client, .events = POLLIN };
                if (poll(&p, 1, 0) > 0) {
                        ssize_t n = recv(fx.client, buf + have, sizeof(buf) - have, MSG_DONTWAIT);
                        if (n == 0) {
                                have = 0;
                                return NULL;
                        }
                        if (n > 0)
                                have += (size_t) n;
                }
                clock_gettime(CLOCK_MONOTONIC, &now);
                ck_assert_msg(now.tv_sec - start.tv_sec < 5, "no reply within 5 s");
        }
}

/* Runs the loop for a while and returns whether the server closed the connection. */
static bool connection_closed(void) {
        char *r = read_reply();
        bool closed = !r;
        free(r);
        return closed;
}

static json_t *reply_json(void) {
        char *r = read_reply();
        ck_assert_ptr_nonnull(r);
        json_error_t e;
        json_t *v = json_loads(r, 0, &e);
        ck_assert_ptr_nonnull(v);
        free(r);
        return v;
}

static void assert_error(const char *error, const char *param_key, const char *param_value) {
        json_t *v = reply_json();
        ck_assert_str_eq(json_string_value(json_object_get(v, "error")), error);
        if (param_key)
                ck_assert_str_eq(json_string_value(json_object_get(json_object_get(v, "parameters"), param_key)),
                                 param_value);
        json_decref(v);
}

START_TEST(test_echo_and_order) {
        /* Three calls in one write: three replies, in order. */
        const char msgs[] = "{\"method\":\"io.svd.Test.Echo\",\"parameters\":{\"text\":\"1\"}}\0"
                            "{\"method\":\"io.svd.Test.Echo\",\"parameters\":{\"text\":\"2\"}}\0"
                            "{\"method\":\"io.svd.Test.Echo\",\"parameters\":{\"text\":\"3\"}}";
        send_raw(msgs, sizeof(msgs));
        for (int i = 1; i <= 3; i++) {
                json_t *v = reply_json();
                char want[2] = { (char) ('0' + i), 0 };
                ck_assert_str_eq(json_string_value(json_object_get(json_object_get(v, "parameters"), "text")), want);
                ck_assert_ptr_null(json_object_get(v, "error"));
                json_decref(v);
        }
}
END_TEST

START_TEST(test_partial_writes) {
        const char *m = "{\"method\":\"io.svd.Test.Echo\",\"parameters\":{\"text\":\"slow\"}}";
        for (size_t i = 0; i <= strlen(m); i++) {
                send_raw(m + i, 1);
                (void) sd_event_run(fx.event, 0);
        }
        json_t *v = reply_json();
        ck_assert_str_eq(json_string_value(json_object_get(json_object_get(v, "parameters"), "text")), "slow");
        json_decref(v);
}
END_TEST

START_TEST(test_errors) {
        send_str("{\"method\":\"io.svd.Test.Nope\"}");
        assert_error("org.varlink.service.MethodNotFound", "method", "io.svd.Test.Nope");
        send_str("{\"method\":\"io.svd.Nope.Echo\"}");
        assert_error("org.varlink.service.InterfaceNotFound", "interface", "io.svd.Nope");
        send_str("{\"method\":\"io.svd.Test.Echo\",\"parameters\":{\"text\":5}}");
        assert_error("org.varlink.service.InvalidParameter", "parameter", "text");
        send_str("{\"method\":\"io.svd.Test.Echo\",\"parameters\":{}}");
        assert_error("org.varlink.service.InvalidParameter", "parameter", "text");
        /* A string that is no method name, a NUL in it or not: MethodNotFound, and the connection
         * stays; a NUL in a parameter: InvalidParameter. */
        send_str("{\"method\":\"nodot\"}");
        assert_error("org.varlink.service.MethodNotFound", "method", "nodot");
        send_str("{\"method\":\"io.svd.Test.Ec\\u0000ho\"}");
        char *r = read_reply();
        ck_assert_ptr_nonnull(r);
        /* The name comes back with the text \u0000 for its NUL: a reply any JSON parser reads. */
        ck_assert_str_eq(r, "{\"error\":\"org.varlink.service.MethodNotFound\",\"parameters\":{\"method\":"
                            "\"io.svd.Test.Ec\\\\u0000ho\"}}");
        json_error_t je;
        json_t *jr = json_loads(r, 0, &je);
        ck_assert_ptr_nonnull(jr);
        json_decref(jr);
        free(r);
        send_str("{\"method\":\"io.svd.Test.Echo\",\"parameters\":{\"text\":\"a\\u0000b\"}}");
        assert_error("org.varlink.service.InvalidParameter", "parameter", "text");
        send_str("{\"method\":\"io.svd.Test.Echo\",\"parameters\":{\"text\":\"a\",\"extra\":1}}");
        assert_error("org.varlink.service.InvalidParameter", "parameter", "extra");
        send_str("{\"method\":\"io.svd.Test.Echo\",\"parameters\":{\"text\":\"a\",\"n\":\"x\"}}");
        assert_error("org.varlink.service.InvalidParameter", "parameter", "n");
        send_str("{\"method\":\"io.svd.Test.Echo\",\"upgrade\":true,\"parameters\":{\"text\":\"a\"}}");
        assert_error("org.varlink.service.InvalidParameter", "parameter", "upgrade");
        send_str("{\"method\":\"io.svd.Test.Fail\"}");
        assert_error("io.svd.Manager.InternalError", "errnoName", "EIO");
        /* The connection survived all of that. */
        send_str("{\"method\":\"io.svd.Test.Echo\",\"parameters\":{\"text\":\"still here\"}}");
        json_t *v = reply_json();
        ck_assert_ptr_null(json_object_get(v, "error"));
        json_decref(v);
}
END_TEST

START_TEST(test_protocol_violations_close) {
        static const char *const bad[] = {
                "not json",
                "[1,2]",
                "{\"parameters\":{}}",
                "{\"method\":5}",
                "{\"method\":\"io.svd.Test.Echo\",\"more\":\"yes\"}",
                "{\"method\":\"io.svd.Test.Echo\",\"more\":true,\"oneway\":true}",
                "{\"method\":\"io.svd.Test.Echo\",\"bogus\":1}",
                "{\"method\":\"io.svd.Test.Echo\",\"parameters\":[]}",
                "{\"method\":\"io.svd.Test.Echo\",\"parameters\":{\"te\\u0000xt\":\"a\"}}",
        };
        int i = _i;
        send_str(bad[i]);
        ck_assert_msg(connection_closed(), "connection not closed after '%s'", bad[i]);
        ck_assert_uint_eq(varlink_server_n_connections(fx.server), 0);
}
END_TEST

START_TEST(test_oversize_closes) {
        size_t n = VARLINK_MESSAGE_MAX + 4096;
        char *big = malloc(n);
        memset(big, ' ', n);
        /* Written in pieces while the loop reads: no NUL ever comes. */
        for (size_t off = 0; off < n;) {
                ssize_t w = send(fx.client, big + off, n - off, MSG_DONTWAIT | MSG_NOSIGNAL);
                if (w > 0)
                        off += (size_t) w;
                else if (w < 0 && errno != EAGAIN)
                        break; /* closed by the server: fine */
                (void) sd_event_run(fx.event, 10000);
        }
        free(big);
        ck_assert(connection_closed());
        ck_assert_uint_eq(varlink_server_n_connections(fx.server), 0);
}
END_TEST

START_TEST(test_service_interface) {
        send_str("{\"method\":\"org.varlink.service.GetInfo\"}");
        json_t *v = reply_json();
        json_t *p = json_object_get(v, "parameters");
        ck_assert_str_eq(json_string_value(json_object_get(p, "vendor")), "vendor");
        ck_assert_str_eq(json_string_value(json_object_get(p, "product")), "product");
        ck_assert_str_eq(json_string_value(json_object_get(p, "version")), "1.0");
        ck_assert_str_eq(json_string_value(json_object_get(p, "url")), "https://example.invalid");
        json_t *ifaces = json_object_get(p, "interfaces");
        ck_assert_uint_eq(json_array_size(ifaces), 2);
        ck_assert_str_eq(json_string_value(json_array_get(ifaces, 0)), "org.varlink.service");
        ck_assert_str_eq(json_string_value(json_array_get(ifaces, 1)), "io.svd.Test");
        json_decref(v);

        send_str("{\"method\":\"org.varlink.service.GetInterfaceDescription\",\"parameters\":{\"interface\":\"io.svd.Test\"}}");
        v = reply_json();
        ck_assert_str_eq(json_string_value(json_object_get(json_object_get(v, "parameters"), "description")), test_idl);
        json_decref(v);

        send_str("{\"method\":\"org.varlink.service.GetInterfaceDescription\",\"parameters\":{\"interface\":\"x.Y\"}}");
        assert_error("org.varlink.service.InterfaceNotFound", "interface", "x.Y");
}
END_TEST

START_TEST(test_held_call_blocks_and_cancels) {
        send_str("{\"method\":\"io.svd.Test.Hold\"}");
        send_str("{\"method\":\"io.svd.Test.Echo\",\"parameters\":{\"text\":\"after\"}}");
        for (int i = 0; i < 20; i++)
                (void) sd_event_run(fx.event, 1000);
        ck_assert_ptr_nonnull(fx.held);
        /* Nothing may be answered while the first call is pending. */
        struct pollfd p = { .fd = fx.client, .events = POLLIN };
        ck_assert_int_eq(poll(&p, 1, 0), 0);

        ck_assert_int_eq(varlink_call_reply(fx.held, json_pack("{s:s}", "done", "yes")), 0);
        fx.held = NULL;
        json_t *v = reply_json();
        ck_assert_str_eq(json_string_value(json_object_get(json_object_get(v, "parameters"), "done")), "yes");
        json_decref(v);
        v = reply_json();
        ck_assert_str_eq(json_string_value(json_object_get(json_object_get(v, "parameters"), "text")), "after");
        json_decref(v);

        /* A held call whose peer disappears is cancelled. */
        send_str("{\"method\":\"io.svd.Test.Hold\"}");
        for (int i = 0; i < 20 && !fx.held; i++)
                (void) sd_event_run(fx.event, 1000);
        ck_assert_ptr_nonnull(fx.held);
        fx.client = safe_close(fx.client);
        for (int i = 0; i < 20 && !fx.cancelled; i++)
                (void) sd_event_run(fx.event, 1000);
        ck_assert(fx.cancelled);
        ck_assert_ptr_null(fx.held);
        ck_assert_uint_eq(varlink_server_n_connections(fx.server), 0);
}
END_TEST

START_TEST(test_oneway) {
        send_str("{\"method\":\"io.svd.Test.Echo\",\"oneway\":true,\"parameters\":{\"text\":\"x\"}}");
        send_str("{\"method\":\"io.svd.Test.Echo\",\"parameters\":{\"text\":\"y\"}}");
        json_t *v = reply_json(); /* only the second call answers */
        ck_assert_str_eq(json_string_value(json_object_get(json_object_get(v, "parameters"), "text")), "y");
        json_decref(v);
}
END_TEST

START_TEST(test_write_permission_owner) {
        /* We are the server's owner (or root): write methods are allowed. */
        send_str("{\"method\":\"io.svd.Test.Write\"}");
        json_t *v = reply_json();
        ck_assert_ptr_null(json_object_get(v, "error"));
        json_decref(v);
}
END_TEST

START_TEST(test_write_permission_other) {
        if (getuid() == 0)
                return; /* root may always write; tests/integration/e2e-permissions.sh covers other uids */
        /* A server owned by someone else refuses our write calls but answers reads. */
        VarlinkServerInfo info = { "v", "p", "1", "u" };
        sd_event *e = fx.event;
        VarlinkServer *s2;
        char path[128];
        snprintf(path, sizeof(path), "%s/sock2", fx.dir);
        ck_assert_int_eq(varlink_server_new(e, path, &info, getuid() + 1, &s2), 0);
        ck_assert_int_eq(varlink_server_add_interface(s2, "io.svd.Test", test_idl, test_methods, &fx), 0);
        int sp[2];
        ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
        ck_assert_int_eq(varlink_server_add_connection(s2, sp[0]), 0);
        safe_close(fx.client);
        fx.client = sp[1];
        send_str("{\"method\":\"io.svd.Test.Write\"}");
        assert_error("org.varlink.service.PermissionDenied", NULL, NULL);
        send_str("{\"method\":\"io.svd.Test.Echo\",\"parameters\":{\"text\":\"r\"}}");
        json_t *v = reply_json();
        ck_assert_ptr_null(json_object_get(v, "error"));
        json_decref(v);
        varlink_server_free(s2);
        unlink(path);
}
END_TEST

START_TEST(test_second_server_refused) {
        VarlinkServerInfo info = { "v", "p", "1", "u" };
        VarlinkServer *s2 = NULL;
        char path[128];
        snprintf(path, sizeof(path), "%s/sock", fx.dir);
        /* A live server on the path is never replaced. */
        ck_assert_int_eq(varlink_server_new(fx.event, path, &info, getuid(), &s2), -EADDRINUSE);
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("varlink");
        TCase *tc = tcase_create("framing");
        /* Megabytes through a lagging queue, byte by byte checked: seconds under ASan on a busy
         * machine, more than Check's default of 4. */
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_buffer_split_and_join);
        tcase_add_test(tc, test_buffer_oversize);
        tcase_add_test(tc, test_buffer_output_queue);
        tcase_add_test(tc, test_message_parse);
        tcase_add_test(tc, test_message_format);
        suite_add_tcase(s, tc);

        tc = tcase_create("dispatch");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_echo_and_order);
        tcase_add_test(tc, test_partial_writes);
        tcase_add_test(tc, test_errors);
        tcase_add_loop_test(tc, test_protocol_violations_close, 0, 9);
        tcase_add_test(tc, test_oversize_closes);
        tcase_add_test(tc, test_service_interface);
        tcase_add_test(tc, test_held_call_blocks_and_cancels);
        tcase_add_test(tc, test_oneway);
        tcase_add_test(tc, test_write_permission_owner);
        tcase_add_test(tc, test_write_permission_other);
        tcase_add_test(tc, test_second_server_refused);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(suite());
}
