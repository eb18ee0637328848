/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Socket units (unit-socket.c): the [Socket] keys through the unit parser, their defaults, the
 * addresses they take and refuse, and the messages naming file, line and reason. */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "basic/macros.h"
#include "basic/strv.h"
#include "unit.h"
#include "check-run.h"

#define PATH "/units/echo.socket"

typedef struct Warnings {
        char text[4096];
        unsigned n;
} Warnings;

static void collect_warning(const char *message, void *userdata) {
        Warnings *w = userdata;
        size_t l = strlen(w->text);
        snprintf(w->text + l, sizeof(w->text) - l, "%s\n", message);
        w->n++;
}

static Unit *load(const char *text, Warnings *w) {
        _cleanup_free_ char *error = NULL;
        Unit *u = NULL;
        int r = unit_load_string(text, strlen(text), PATH, "echo", NULL, w ? collect_warning : NULL, w, &u, &error);
        ck_assert_msg(r == 0, "load failed: %s", error ?: "?");
        ck_assert_int_eq(u->kind, UNIT_KIND_SOCKET);
        return u;
}

static int load_error(const char *text, char **ret_error) {
        Unit *u = NULL;
        int r = unit_load_string(text, strlen(text), PATH, "echo", NULL, NULL, NULL, &u, ret_error);
        ck_assert_msg(r < 0, "'%s' loaded", text);
        ck_assert_ptr_null(u);
        return r;
}

START_TEST(test_defaults) {
        _cleanup_(unit_freep) Unit *u = load("[Socket]\nListenStream=/run/echo.sock\n", NULL);
        const UnitSocket *s = &u->socket;

        ck_assert_uint_eq(s->n_listen, 1);
        ck_assert_int_eq(s->listen[0].type, SOCKET_LISTEN_STREAM);
        ck_assert_str_eq(s->listen[0].address, "/run/echo.sock");
        ck_assert_str_eq(s->listen[0].path, "/run/echo.sock");
        ck_assert_int_eq(s->socket_mode, 0666);
        ck_assert_int_eq(s->directory_mode, 0755);
        ck_assert_uint_eq(s->backlog, SOMAXCONN);
        ck_assert(!s->accept && !s->reuse_port && !s->free_bind && !s->remove_on_stop);
        ck_assert_int_eq(s->bind_ipv6_only, SOCKET_BIND_IPV6_DEFAULT);
        ck_assert_ptr_null(s->service);
        ck_assert_ptr_null(s->fd_name);
        ck_assert_uint_eq(s->max_connections, 64);
        ck_assert_uint_eq(s->max_connections_per_source, 0);
        ck_assert(!u->wanted_by_default);
}
END_TEST

START_TEST(test_accept) {
        Warnings w = {};
        _cleanup_(unit_freep) Unit *u = load("[Socket]\nListenStream=22\nListenSequentialPacket=/run/a.seq\n"
                                             "Accept=yes\nMaxConnections=5\nMaxConnectionsPerSource=2\n",
                                             &w);
        ck_assert_msg(w.n == 0, "warnings: %s", w.text);
        ck_assert(u->socket.accept);
        ck_assert_uint_eq(u->socket.accept_line, 4);
        ck_assert_uint_eq(u->socket.max_connections, 5);
        ck_assert_uint_eq(u->socket.max_connections_per_source, 2);
        ck_assert_ptr_null(u->not_applied);
}
END_TEST

START_TEST(test_keys) {
        Warnings w = {};
        _cleanup_(unit_freep) Unit *u = load("[Unit]\nDescription=echo\n"
                                             "[Socket]\n"
                                             "ListenStream=127.0.0.1:8080\n"
                                             "ListenStream=[::1]:9090\n"
                                             "ListenStream=7070\n"
                                             "ListenDatagram=@echo-dgram\n"
                                             "ListenSequentialPacket=/run/echo.seq\n"
                                             "ListenFIFO=/run/echo.fifo\n"
                                             "SocketUser=nobody\nSocketGroup=nogroup\n"
                                             "SocketMode=0600\nDirectoryMode=0700\nBacklog=16\n"
                                             "ReusePort=yes\nFreeBind=true\nRemoveOnStop=yes\n"
                                             "BindIPv6Only=ipv6-only\nService=other.service\n"
                                             "FileDescriptorName=echo-fd\nAccept=no\n"
                                             "[Install]\nWantedBy=sockets.target\n",
                                             &w);
        const UnitSocket *s = &u->socket;

        ck_assert_msg(w.n == 0, "warnings: %s", w.text);
        ck_assert_uint_eq(s->n_listen, 6);

        const struct sockaddr_in *in = (const struct sockaddr_in *) &s->listen[0].sa;
        ck_assert_int_eq(in->sin_family, AF_INET);
        ck_assert_uint_eq(ntohs(in->sin_port), 8080);
        ck_assert_uint_eq(ntohl(in->sin_addr.s_addr), INADDR_LOOPBACK);
        ck_assert_uint_eq(s->listen[0].sa_len, sizeof(struct sockaddr_in));
        ck_assert_ptr_null(s->listen[0].path);

        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *) &s->listen[1].sa;
        ck_assert_int_eq(in6->sin6_family, AF_INET6);
        ck_assert_uint_eq(ntohs(in6->sin6_port), 9090);
        ck_assert(IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr));
        ck_assert(!s->listen[1].port_only);

        in6 = (const struct sockaddr_in6 *) &s->listen[2].sa;
        ck_assert_int_eq(in6->sin6_family, AF_INET6);
        ck_assert(IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr));
        ck_assert(s->listen[2].port_only);

        const struct sockaddr_un *un = (const struct sockaddr_un *) &s->listen[3].sa;
        ck_assert_int_eq(s->listen[3].type, SOCKET_LISTEN_DATAGRAM);
        ck_assert_int_eq(un->sun_family, AF_UNIX);
        ck_assert_int_eq(un->sun_path[0], 0);
        ck_assert_mem_eq(un->sun_path + 1, "echo-dgram", 10);
        ck_assert_uint_eq(s->listen[3].sa_len, offsetof(struct sockaddr_un, sun_path) + 11);
        ck_assert_ptr_null(s->listen[3].path);

        ck_assert_int_eq(s->listen[4].type, SOCKET_LISTEN_SEQPACKET);
        ck_assert_str_eq(s->listen[4].path, "/run/echo.seq");
        ck_assert_int_eq(s->listen[5].type, SOCKET_LISTEN_FIFO);
        ck_assert_str_eq(s->listen[5].path, "/run/echo.fifo");

        ck_assert_str_eq(s->socket_user, "nobody");
        ck_assert_str_eq(s->socket_group, "nogroup");
        ck_assert_int_eq(s->socket_mode, 0600);
        ck_assert_int_eq(s->directory_mode, 0700);
        ck_assert_uint_eq(s->backlog, 16);
        ck_assert(s->reuse_port && s->free_bind && s->remove_on_stop && !s->accept);
        ck_assert_int_eq(s->bind_ipv6_only, SOCKET_BIND_IPV6_ONLY);
        ck_assert_str_eq(s->service, "other");
        ck_assert_str_eq(s->fd_name, "echo-fd");
        ck_assert(u->wanted_by_default);
}
END_TEST

START_TEST(test_empty_resets) {
        _cleanup_(unit_freep) Unit *u = load("[Socket]\nListenStream=/a\nListenStream=\nListenDatagram=/b\n"
                                             "Service=x.service\nService=\nAccept=yes\nAccept=\n",
                                             NULL);
        ck_assert_uint_eq(u->socket.n_listen, 1);
        ck_assert_str_eq(u->socket.listen[0].address, "/b");
        ck_assert_ptr_null(u->socket.service);
        ck_assert(!u->socket.accept);
}
END_TEST

START_TEST(test_errors) {
        static const struct {
                const char *text;
                const char *message;
        } cases[] = {
                { "[Socket]\nListenStream=relative\n", PATH ":2: Invalid value 'relative' for ListenStream=" },
                { "[Socket]\nListenStream=0\n", PATH ":2: Invalid value '0' for ListenStream=" },
                { "[Socket]\nListenStream=65536\n", PATH ":2: Invalid value" },
                { "[Socket]\nListenStream=1.2.3:80\n", PATH ":2: Invalid value" },
                { "[Socket]\nListenStream=[::1:80\n", PATH ":2: Invalid value" },
                { "[Socket]\nListenStream=[fe80::1%%eth0]:80\n", "interface scopes are not supported" },
                { "[Socket]\nListenStream=vsock:2:1234\n", "vsock" },
                { "[Socket]\nListenSequentialPacket=127.0.0.1:80\n", "AF_UNIX only" },
                { "[Socket]\nListenFIFO=fifo\n", PATH ":2: Invalid value 'fifo' for ListenFIFO=: expected an absolute path" },
                { "[Socket]\nListenStream=/a\nSocketMode=999\n", PATH ":3: Invalid value '999' for SocketMode=" },
                { "[Socket]\nListenStream=/a\nBacklog=-1\n", PATH ":3: Invalid value" },
                { "[Socket]\nListenStream=/a\nBindIPv6Only=maybe\n", "expected default, both or ipv6-only" },
                { "[Socket]\nListenStream=/a\nService=foo\n", "NAME.service" },
                { "[Socket]\nListenStream=/a\nService=foo@.service\n", "not a template" },
                { "[Socket]\nListenStream=/a\nFileDescriptorName=a:b\n", "without ':'" },
                { "[Socket]\nListenStream=/a\nReusePort=maybe\n", "expected a boolean" },
                { "[Socket]\nListenStream=/a\nAccept=yes\nListenDatagram=/b\n",
                  PATH ":4: Accept=yes (line 3) takes stream and sequential packet sockets only, not ListenDatagram=" },
                { "[Socket]\nAccept=yes\nListenFIFO=/b\nListenStream=/a\n", PATH ":3: Accept=yes (line 2)" },
                { "[Socket]\nListenStream=/a\nService=x.service\nAccept=1\n",
                  PATH ":3: Service= cannot be used with Accept=yes (line 4): each connection starts an instance of "
                       "echo@.service" },
                { "[Socket]\nListenStream=/a\nAccept=maybe\n", PATH ":3: Invalid value 'maybe' for Accept=" },
                { "[Socket]\nListenStream=/a\nMaxConnections=0\n", PATH ":3: Invalid value '0' for MaxConnections=" },
                { "[Socket]\nListenStream=/a\nMaxConnectionsPerSource=-1\n",
                  PATH ":3: Invalid value '-1' for MaxConnectionsPerSource=" },
                { "[Socket]\nListenStream=/a\nBindToDevice=eth0\n", PATH ":3: BindToDevice= is not supported" },
                { "[Socket]\nListenStream=/a\nIPAddressDeny=any\n", "IPAddressDeny= is not supported" },
                { "[Socket]\nBacklog=5\n", PATH ": Missing ListenStream=" },
                { "[Service]\nExecStart=/bin/true\n", PATH ": Missing ListenStream=" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *error = NULL;
                (void) load_error(cases[i].text, &error);
                ck_assert_ptr_nonnull(error);
                ck_assert_msg(strstr(error, cases[i].message), "case %zu: '%s' lacks '%s'", i, error,
                              cases[i].message);
        }
        char long_path[200];
        memset(long_path, 'a', sizeof(long_path));
        long_path[0] = '/';
        long_path[sizeof(long_path) - 1] = '\0';
        _cleanup_free_ char *text = NULL, *error = NULL;
        ck_assert_int_ge(asprintf(&text, "[Socket]\nListenStream=%s\n", long_path), 0);
        ck_assert_int_eq(load_error(text, &error), -ENAMETOOLONG);
}
END_TEST

START_TEST(test_warnings) {
        Warnings w = {};
        _cleanup_(unit_freep) Unit *u = load("[Socket]\nListenStream=/a\nPassPIDFD=yes\nFoo=1\n"
                                             "[Service]\nExecStart=/bin/true\n",
                                             &w);
        ck_assert_msg(strstr(w.text, PATH ":3: Key 'PassPIDFD=' in [Socket] is not supported yet, ignoring."), "%s",
                      w.text);
        ck_assert_msg(strstr(w.text, PATH ":4: Unknown key 'Foo=' in [Socket], ignoring."), "%s", w.text);
        ck_assert_msg(strstr(w.text, "Unknown section 'Service', ignoring."), "%s", w.text);
        ck_assert_ptr_nonnull(u->not_applied);
        ck_assert_str_eq(u->not_applied[0], "PassPIDFD=");
        ck_assert_str_eq(u->not_applied[1], "Foo=");
}
END_TEST

START_TEST(test_commands) {
        _cleanup_(unit_freep) Unit *u = load("[Socket]\nListenStream=/a\n"
                                             "ExecStartPre=/bin/pre 1\nExecStartPre=-/bin/pre2\n"
                                             "ExecStartPost=/bin/post\nExecStopPre=/bin/stoppre\n"
                                             "ExecStopPost=+/bin/stoppost\nTimeoutSec=5s\n"
                                             "User=nobody\nGroup=nogroup\n",
                                             NULL);
        ck_assert_uint_eq(u->exec[UNIT_EXEC_START_PRE].n, 2);
        ck_assert_str_eq(u->exec[UNIT_EXEC_START_PRE].commands[0].argv[0], "/bin/pre");
        ck_assert_str_eq(u->exec[UNIT_EXEC_START_PRE].commands[0].argv[1], "1");
        ck_assert(u->exec[UNIT_EXEC_START_PRE].commands[1].flags & EXEC_IGNORE_FAILURE);
        ck_assert_str_eq(u->exec[UNIT_EXEC_START_POST].commands[0].argv[0], "/bin/post");
        /* ExecStopPre= in the slot of ExecStop= (manager-socket-exec.h). */
        ck_assert_str_eq(u->exec[UNIT_EXEC_STOP].commands[0].argv[0], "/bin/stoppre");
        ck_assert(u->exec[UNIT_EXEC_STOP_POST].commands[0].flags & EXEC_PRIVILEGED);
        ck_assert_uint_eq(u->socket.timeout_usec, 5000000);
        ck_assert_str_eq(u->user, "nobody");
        ck_assert_str_eq(u->group, "nogroup");
        unit_free(u);

        u = load("[Socket]\nListenStream=/a\n", NULL);
        ck_assert_uint_eq(u->socket.timeout_usec, UNIT_SOCKET_TIMEOUT_USEC_DEFAULT);
        ck_assert_uint_eq(u->exec[UNIT_EXEC_START_PRE].n, 0);
        unit_free(u);
        u = load("[Socket]\nListenStream=/a\nTimeoutSec=0\n", NULL);
        ck_assert_uint_eq(u->socket.timeout_usec, UINT64_MAX);
        unit_free(u);
        u = NULL;

        _cleanup_free_ char *e1 = NULL, *e2 = NULL, *e3 = NULL;
        (void) load_error("[Socket]\nListenStream=/a\nExecStartPre=/bin/x \"open\n", &e1);
        ck_assert_msg(strstr(e1, PATH ":3: Invalid value") && strstr(e1, "ExecStartPre="), "%s", e1);
        (void) load_error("[Socket]\nListenStream=/a\nTimeoutSec=soon\n", &e2);
        ck_assert_msg(strstr(e2, PATH ":3: Invalid value 'soon' for TimeoutSec="), "%s", e2);
        (void) load_error("[Socket]\nListenStream=/a\nUser=a:b\n", &e3);
        ck_assert_msg(strstr(e3, PATH ":3: Invalid value 'a:b' for User="), "%s", e3);
}
END_TEST

START_TEST(test_options) {
        Warnings w = {};
        _cleanup_(unit_freep) Unit *u = load("[Socket]\nListenStream=/run/a.sock\n"
                                             "KeepAlive=yes\nKeepAliveTimeSec=1min\nKeepAliveIntervalSec=10\n"
                                             "KeepAliveProbes=5\nNoDelay=yes\nPriority=6\nDeferAcceptSec=1500ms\n"
                                             "ReceiveBuffer=256K\nSendBuffer=1M\nIPTOS=low-delay\nIPTTL=64\n"
                                             "Mark=7\nBroadcast=yes\nPassCredentials=yes\nPassSecurity=yes\n"
                                             "PassPacketInfo=yes\nPipeSize=64K\nSymlinks=/run/b.sock /run/c.sock\n"
                                             "Writable=no\nFlushPending=yes\nSocketProtocol=sctp\n"
                                             "TCPCongestion=reno\nTransparent=yes\nTimestamping=ns\n",
                                             &w);
        const UnitSocket *s = &u->socket;
        ck_assert_msg(w.n == 0, "warnings: %s", w.text);
        ck_assert(s->keep_alive && s->no_delay && s->broadcast && s->pass_credentials && s->pass_security);
        ck_assert(s->pass_packet_info && s->flush_pending && s->transparent && !s->writable);
        ck_assert_uint_eq(s->keep_alive_time_usec, 60000000);
        ck_assert_uint_eq(s->keep_alive_interval_usec, 10000000);
        ck_assert_uint_eq(s->keep_alive_probes, 5);
        ck_assert_int_eq(s->priority, 6);
        ck_assert_uint_eq(s->defer_accept_usec, 1500000);
        ck_assert_uint_eq(s->receive_buffer, 256 * 1024);
        ck_assert_uint_eq(s->send_buffer, 1024 * 1024);
        ck_assert_int_eq(s->ip_tos, 0x10);
        ck_assert_int_eq(s->ip_ttl, 64);
        ck_assert_int_eq(s->mark, 7);
        ck_assert_uint_eq(s->pipe_size, 64 * 1024);
        ck_assert_uint_eq(strv_length(s->symlinks), 2);
        ck_assert_str_eq(s->symlinks[1], "/run/c.sock");
        ck_assert_int_eq(s->protocol, IPPROTO_SCTP);
        ck_assert_str_eq(s->tcp_congestion, "reno");
        ck_assert_int_eq(s->timestamping, SOCKET_TIMESTAMPING_NS);
        unit_free(u);

        /* The defaults leave the kernel's. */
        u = load("[Socket]\nListenStream=/a\nIPTOS=12\nIPTOS=\n", NULL);
        ck_assert(!u->socket.keep_alive && !u->socket.no_delay);
        ck_assert_int_eq(u->socket.priority, -1);
        ck_assert_int_eq(u->socket.ip_tos, -1);
        ck_assert_int_eq(u->socket.ip_ttl, -1);
        ck_assert_int_eq(u->socket.mark, -1);
        ck_assert_uint_eq(u->socket.receive_buffer, 0);
        ck_assert_int_eq(u->socket.protocol, 0);
        ck_assert_int_eq(u->socket.timestamping, SOCKET_TIMESTAMPING_OFF);

        static const struct {
                const char *line;
                const char *message;
        } cases[] = {
                { "KeepAlive=maybe", ":3: Invalid value 'maybe' for KeepAlive=: expected a boolean" },
                { "KeepAliveTimeSec=10h", ":3: Invalid value '10h' for KeepAliveTimeSec=: expected a time span of at most 32767 seconds" },
                { "KeepAliveIntervalSec=soon", ":3: Invalid value 'soon' for KeepAliveIntervalSec=" },
                { "KeepAliveProbes=128", ":3: Invalid value '128' for KeepAliveProbes=" },
                { "Priority=-1", ":3: Invalid value '-1' for Priority=: expected a number from 0 to" },
                { "DeferAcceptSec=infinity", ":3: Invalid value 'infinity' for DeferAcceptSec=" },
                { "ReceiveBuffer=0", ":3: Invalid value '0' for ReceiveBuffer=: expected a size from 1 byte" },
                { "SendBuffer=3G", ":3: Invalid value '3G' for SendBuffer=" },
                { "SendBuffer=lots", ":3: Invalid value 'lots' for SendBuffer=: expected a size" },
                { "IPTOS=256", ":3: Invalid value '256' for IPTOS=: expected a number from 0 to 255, or low-delay" },
                { "IPTTL=0", ":3: Invalid value '0' for IPTTL=: expected a number from 1 to 255" },
                { "Mark=x", ":3: Invalid value 'x' for Mark=" },
                { "PipeSize=-1", ":3: Invalid value '-1' for PipeSize=" },
                { "Symlinks=relative", ":3: Invalid value 'relative' for Symlinks=: expected absolute paths" },
                { "Writable=yes", ":3: Invalid value 'yes' for Writable=: Writable=yes is for ListenSpecial=" },
                { "SocketProtocol=tcp", ":3: Invalid value 'tcp' for SocketProtocol=: expected udplite or sctp" },
                { "TCPCongestion=no such", ":3: Invalid value 'no such' for TCPCongestion=" },
                { "TCPCongestion=averyveryverylongname", ":3: Invalid value 'averyveryverylongname' for TCPCongestion=" },
                { "Timestamping=ms", ":3: Invalid value 'ms' for Timestamping=: expected off, us or ns" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *text = NULL, *error = NULL, *want = NULL;
                ck_assert_int_ge(asprintf(&text, "[Socket]\nListenStream=/a\n%s\n", cases[i].line), 0);
                ck_assert_int_ge(asprintf(&want, PATH "%s", cases[i].message), 0);
                (void) load_error(text, &error);
                ck_assert_msg(error && strstr(error, want), "case %zu: '%s' lacks '%s'", i, error, want);
        }
        /* The links need the one file-system socket or FIFO they point to. */
        _cleanup_free_ char *e = NULL;
        (void) load_error("[Socket]\nListenStream=8080\nSymlinks=/run/x\n", &e);
        ck_assert_msg(strstr(e, PATH ": Symlinks= needs exactly one file-system socket or FIFO"), "%s", e);
}
END_TEST

START_TEST(test_service_has_no_socket_section) {
        Warnings w = {};
        _cleanup_free_ char *error = NULL;
        Unit *u = NULL;
        const char *text = "[Service]\nExecStart=/bin/true\n[Socket]\nListenStream=/a\n";
        ck_assert_int_eq(unit_load_string(text, strlen(text), "/units/x.service", "x", NULL, collect_warning, &w, &u, &error), 0);
        ck_assert_int_eq(u->kind, UNIT_KIND_SERVICE);
        ck_assert_uint_eq(u->socket.n_listen, 0);
        ck_assert_msg(strstr(w.text, "Unknown section 'Socket', ignoring."), "%s", w.text);
        unit_free(u);
}
END_TEST

START_TEST(test_address_parse) {
        SocketListen l = {};
        ck_assert_int_eq(socket_address_parse("@x", &l), 0);
        ck_assert_int_eq(socket_address_parse("/", &l), -EINVAL);
        ck_assert_int_eq(socket_address_parse("@", &l), -EINVAL);
        ck_assert_int_eq(socket_address_parse("", &l), -EINVAL);
        ck_assert_int_eq(socket_address_parse("host:80", &l), -EINVAL);
        ck_assert_int_eq(socket_address_parse("10.0.0.1:", &l), -EINVAL);
        ck_assert_int_eq(socket_address_parse("[::]:1", &l), 0);
        ck_assert_int_eq(socket_address_parse("0.0.0.0:65535", &l), 0);
        ck_assert(socket_fd_name_is_valid("stored"));
        ck_assert(!socket_fd_name_is_valid(""));
        ck_assert(!socket_fd_name_is_valid("a b\x01"));
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("unit-socket");
        TCase *tc = tcase_create("socket");

        tcase_add_test(tc, test_defaults);
        tcase_add_test(tc, test_keys);
        tcase_add_test(tc, test_accept);
        tcase_add_test(tc, test_empty_resets);
        tcase_add_test(tc, test_errors);
        tcase_add_test(tc, test_warnings);
        tcase_add_test(tc, test_commands);
        tcase_add_test(tc, test_options);
        tcase_add_test(tc, test_service_has_no_socket_section);
        tcase_add_test(tc, test_address_parse);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(suite());
}
