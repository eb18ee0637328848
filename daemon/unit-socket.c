/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The [Socket] section (unit-socket.h): the values of its keys, parsed and checked, nothing bound. */
#include "unit-socket.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "basic/parse-util.h"
#include "basic/string-table.h"
#include "basic/strv.h"
#include "basic/unit-name.h"
#include "unit-parse.h"

static const char *const socket_listen_type_table[_SOCKET_LISTEN_TYPE_MAX] = {
        [SOCKET_LISTEN_STREAM] = "Stream",
        [SOCKET_LISTEN_DATAGRAM] = "Datagram",
        [SOCKET_LISTEN_SEQPACKET] = "SequentialPacket",
        [SOCKET_LISTEN_FIFO] = "FIFO",
};
DEFINE_STRING_TABLE_LOOKUP(socket_listen_type, SocketListenType);

static const char *const socket_bind_ipv6_only_table[_SOCKET_BIND_IPV6_MAX] = {
        [SOCKET_BIND_IPV6_DEFAULT] = "default",
        [SOCKET_BIND_IPV6_BOTH] = "both",
        [SOCKET_BIND_IPV6_ONLY] = "ipv6-only",
};
DEFINE_STRING_TABLE_LOOKUP(socket_bind_ipv6_only, SocketBindIPv6Only);

static void socket_listen_done(SocketListen *l) {
        free(l->address);
        free(l->path);
        *l = (SocketListen){};
}

void unit_socket_done(UnitSocket *s) {
        if (!s)
                return;
        for (size_t i = 0; i < s->n_listen; i++)
                socket_listen_done(&s->listen[i]);
        free(s->listen);
        free(s->socket_user);
        free(s->socket_group);
        free(s->service);
        free(s->fd_name);
        free(s->tcp_congestion);
        strv_free(s->symlinks);
        s->tcp_congestion = NULL;
        s->symlinks = NULL;
        s->listen = NULL;
        s->n_listen = 0;
        s->socket_user = s->socket_group = s->service = s->fd_name = NULL;
}

static int parse_port(const char *s, uint16_t *ret) {
        uint64_t v;

        if (safe_atou64(s, &v) < 0 || v == 0 || v > 65535)
                return -EINVAL;
        *ret = (uint16_t) v;
        return 0;
}

int socket_address_parse(const char *s, SocketListen *ret) {
        struct sockaddr_storage sa = {};
        socklen_t len;
        uint16_t port;

        assert(s);
        assert(ret);

        if (s[0] == '/' || s[0] == '@') {
                struct sockaddr_un *un = (struct sockaddr_un *) &sa;
                size_t n = strlen(s);
                /* A path needs its NUL within sun_path; an abstract name does not (unix(7)). */
                if (n < 2 || n > sizeof(un->sun_path) - (s[0] == '/'))
                        return n < 2 ? -EINVAL : -ENAMETOOLONG;
                un->sun_family = AF_UNIX;
                memcpy(un->sun_path, s, n);
                if (s[0] == '@')
                        un->sun_path[0] = '\0';
                len = (socklen_t) (offsetof(struct sockaddr_un, sun_path) + n + (s[0] == '/'));
                char *path = NULL;
                if (s[0] == '/' && !(path = strdup(s)))
                        return -ENOMEM;
                ret->path = path;
                ret->port_only = false;
        } else if (strneq(s, "vsock:", 6) || strneq(s, "vsock-", 6))
                return -EOPNOTSUPP;
        else if (parse_port(s, &port) >= 0) {
                struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) &sa;
                in6->sin6_family = AF_INET6;
                in6->sin6_addr = in6addr_any;
                in6->sin6_port = htons(port);
                len = sizeof(*in6);
                ret->path = NULL;
                ret->port_only = true;
        } else if (s[0] == '[') {
                struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) &sa;
                const char *e = strchr(s, ']');
                char host[INET6_ADDRSTRLEN];
                if (!e || e[1] != ':' || (size_t) (e - s - 1) >= sizeof(host))
                        return -EINVAL;
                memcpy(host, s + 1, (size_t) (e - s - 1));
                host[e - s - 1] = '\0';
                if (strchr(host, '%'))
                        return -EOPNOTSUPP; /* an interface scope: binding to it is not implemented */
                if (inet_pton(AF_INET6, host, &in6->sin6_addr) != 1 || parse_port(e + 2, &port) < 0)
                        return -EINVAL;
                in6->sin6_family = AF_INET6;
                in6->sin6_port = htons(port);
                len = sizeof(*in6);
                ret->path = NULL;
                ret->port_only = false;
        } else {
                struct sockaddr_in *in = (struct sockaddr_in *) &sa;
                const char *c = strrchr(s, ':');
                char host[INET_ADDRSTRLEN];
                if (!c || (size_t) (c - s) >= sizeof(host))
                        return -EINVAL;
                memcpy(host, s, (size_t) (c - s));
                host[c - s] = '\0';
                if (inet_pton(AF_INET, host, &in->sin_addr) != 1 || parse_port(c + 1, &port) < 0)
                        return -EINVAL;
                in->sin_family = AF_INET;
                in->sin_port = htons(port);
                len = sizeof(*in);
                ret->path = NULL;
                ret->port_only = false;
        }
        ret->sa = sa;
        ret->sa_len = len;
        return 0;
}

bool socket_fd_name_is_valid(const char *name) {
        size_t n = strlen(name);

        if (n == 0 || n > UNIT_SOCKET_FDNAME_MAX)
                return false;
        for (const char *c = name; *c; c++)
                if (*c < ' ' || *c > '~' || *c == ':')
                        return false;
        return true;
}

/* ListenStream=, ListenDatagram=, ListenSequentialPacket=, ListenFIFO=: k->max is the type. */
int parse_socket_listen(UnitParser *p, const UnitKey *k, void *field) {
        UnitSocket *us = field;
        _cleanup_free_ char *v = NULL;
        SocketListen l = { .type = (SocketListenType) k->max };
        int r;

        if (isempty(p->value)) {
                /* systemd.socket(5): an empty assignment drops the addresses of this unit so far. */
                for (size_t i = 0; i < us->n_listen; i++)
                        socket_listen_done(&us->listen[i]);
                us->n_listen = 0;
                return 0;
        }
        if (us->n_listen >= UNIT_SOCKET_LISTEN_MAX)
                return invalid_value(p, -E2BIG, "more than %u Listen*= in one socket unit", UNIT_SOCKET_LISTEN_MAX);
        r = unit_parse_string_value(p, &v);
        if (r < 0)
                return r;

        if (l.type == SOCKET_LISTEN_FIFO) {
                if (v[0] != '/' || strlen(v) >= PATH_MAX)
                        return invalid_value(p, -EINVAL, "expected an absolute path");
                l.path = strdup(v);
                if (!l.path)
                        return -ENOMEM;
        } else {
                r = socket_address_parse(v, &l);
                if (r == -ENOMEM)
                        return r;
                if (r == -EOPNOTSUPP)
                        return invalid_value(p, r, "vsock addresses and interface scopes are not supported");
                if (r == -ENAMETOOLONG)
                        return invalid_value(p, r, "a socket path is at most %zu bytes",
                                             sizeof(((struct sockaddr_un *) NULL)->sun_path) - 1);
                if (r < 0)
                        return invalid_value(p, r,
                                             "expected an absolute path, '@' and an abstract name, a port, "
                                             "ADDRESS:PORT or [IPv6 ADDRESS]:PORT");
                /* IP has no SOCK_SEQPACKET but SCTP's, which systemd asks for with SocketProtocol=. */
                if (l.type == SOCKET_LISTEN_SEQPACKET && ((struct sockaddr *) &l.sa)->sa_family != AF_UNIX) {
                        free(l.path);
                        return invalid_value(p, -EINVAL, "sequential packet sockets are AF_UNIX only");
                }
        }
        SocketListen *n = realloc(us->listen, (us->n_listen + 1) * sizeof(SocketListen));
        if (!n) {
                free(l.path);
                return -ENOMEM;
        }
        us->listen = n;
        l.address = TAKE_PTR(v);
        l.line = p->line;
        us->listen[us->n_listen++] = l;
        return 0;
}

int parse_bind_ipv6_only(UnitParser *p, const UnitKey *k, void *field) {
        SocketBindIPv6Only b;

        if (isempty(p->value)) {
                *(SocketBindIPv6Only *) field = SOCKET_BIND_IPV6_DEFAULT;
                return 0;
        }
        b = socket_bind_ipv6_only_from_string(p->value);
        if (b < 0)
                return invalid_value(p, -EINVAL, "expected default, both or ipv6-only");
        *(SocketBindIPv6Only *) field = b;
        return 0;
}

/* Service=: NAME.service (systemd.socket(5): only services); kept without the suffix. */
int parse_socket_service(UnitParser *p, const UnitKey *k, void *field) {
        UnitSocket *us = field;
        _cleanup_free_ char *v = NULL;
        int r;

        if (isempty(p->value)) {
                free(us->service);
                us->service = NULL;
                us->service_line = 0;
                return 0;
        }
        r = unit_parse_string_value(p, &v);
        if (r < 0)
                return r;
        if (!unit_name_has_suffix(v))
                return invalid_value(p, -EINVAL, "expected the name of a service, NAME.service");
        unit_name_strip_suffix(v);
        if (!unit_name_is_valid(v) || strchr(v, '@'))
                return invalid_value(p, -EINVAL, "expected the name of a service (not a template), NAME.service");
        free(us->service);
        us->service = TAKE_PTR(v);
        us->service_line = p->line;
        return 0;
}

/* Accept=: a boolean, its line kept for the checks once the whole file is read. */
int parse_socket_accept(UnitParser *p, const UnitKey *k, void *field) {
        UnitSocket *us = field;
        bool b;

        if (isempty(p->value)) {
                us->accept = false;
                us->accept_line = 0;
                return 0;
        }
        int r = parse_boolean(p->value, &b);
        if (r < 0)
                return invalid_value(p, r, "expected a boolean (yes/no, true/false, on/off, 1/0)");
        us->accept = b;
        us->accept_line = p->line;
        return 0;
}

int parse_fd_name(UnitParser *p, const UnitKey *k, void *field) {
        char **name = field;
        _cleanup_free_ char *v = NULL;
        int r;

        if (isempty(p->value)) {
                free(*name);
                *name = NULL;
                return 0;
        }
        r = unit_parse_string_value(p, &v);
        if (r < 0)
                return r;
        if (!socket_fd_name_is_valid(v))
                return invalid_value(p, -EINVAL, "expected 1 to %u printable ASCII characters, without ':'",
                                     UNIT_SOCKET_FDNAME_MAX);
        free(*name);
        *name = TAKE_PTR(v);
        return 0;
}

/* A key that would limit who reaches the socket, which svd does not apply: refused rather than a
 * socket open to more than its unit says. */
int parse_socket_refused(UnitParser *p, const UnitKey *k, void *field) {
        if (isempty(p->value))
                return 0;
        return parser_error(p, -EOPNOTSUPP, p->line,
                            "%s= is not supported: refusing a socket without the restriction it asks for",
                            k->name);
}
