/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The socket options of [Socket] (unit-socket.h), with systemd.socket(5)'s meanings: parsed and checked
 * here, applied at the bind by manager-socket-options.c. */
#include "unit-socket.h"

#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <stdlib.h>
#include <string.h>

#include "basic/extract-word.h"
#include "basic/parse-util.h"
#include "basic/strv.h"
#include "basic/time-util.h"
#include "unit-parse.h"

/* The kernel's limits: TCP_KEEPIDLE and TCP_KEEPINTVL take at most MAX_TCP_KEEPIDLE seconds. */
#define SOCKET_KEEPALIVE_SEC_MAX 32767U
#define SOCKET_TCP_CONGESTION_MAX 15U /* TCP_CA_NAME_MAX - 1 */

/* KeepAliveTimeSec=, KeepAliveIntervalSec=, DeferAcceptSec=: a time span of whole seconds at the
 * socket (rounded up), at most k->max seconds; 0 leaves the kernel's. */
int parse_socket_sec(UnitParser *p, const UnitKey *k, void *field) {
        uint64_t usec;
        int r;

        if (isempty(p->value)) {
                *(uint64_t *) field = 0;
                return 0;
        }
        r = parse_sec(p->value, &usec);
        if (r < 0 || usec == USEC_INFINITY || (usec + USEC_PER_SEC - 1) / USEC_PER_SEC > k->max)
                return invalid_value(p, r < 0 ? r : -ERANGE,
                                     "expected a time span of at most %" PRIu64 " seconds, such as '30s' or '2min'",
                                     k->max);
        *(uint64_t *) field = usec;
        return 0;
}

/* Priority=, IPTTL=, Mark=: a number from 0 (1 for IPTTL=) to k->max; empty: the kernel's. */
int parse_socket_int(UnitParser *p, const UnitKey *k, void *field) {
        uint64_t min = (k->flags & KEY_POSITIVE) ? 1 : 0, v;

        if (isempty(p->value)) {
                *(int *) field = -1;
                return 0;
        }
        if (safe_atou64(p->value, &v) < 0 || v < min || v > k->max)
                return invalid_value(p, -ERANGE, "expected a number from %" PRIu64 " to %" PRIu64, min, k->max);
        *(int *) field = (int) v;
        return 0;
}

/* IPTOS=: a number from 0 to 255, or low-delay, throughput, reliability, low-cost (ip(7)). */
int parse_socket_ip_tos(UnitParser *p, const UnitKey *k, void *field) {
        static const struct {
                const char *name;
                int value;
        } names[] = {
                { "low-delay", IPTOS_LOWDELAY },
                { "throughput", IPTOS_THROUGHPUT },
                { "reliability", IPTOS_RELIABILITY },
                { "low-cost", IPTOS_MINCOST },
        };
        uint64_t v;

        if (isempty(p->value)) {
                *(int *) field = -1;
                return 0;
        }
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (streq(p->value, names[i].name)) {
                        *(int *) field = names[i].value;
                        return 0;
                }
        if (safe_atou64(p->value, &v) < 0 || v > 255)
                return invalid_value(p, -EINVAL,
                                     "expected a number from 0 to 255, or low-delay, throughput, reliability or low-cost");
        *(int *) field = (int) v;
        return 0;
}

/* ReceiveBuffer=, SendBuffer=, PipeSize=: bytes (K, M, G suffixes, base 1024), 1 to INT_MAX. */
int parse_socket_size(UnitParser *p, const UnitKey *k, void *field) {
        uint64_t v;
        int r;

        if (isempty(p->value)) {
                *(uint64_t *) field = 0;
                return 0;
        }
        r = parse_size_key(p, k, &v);
        if (r < 0)
                return r;
        if (v == 0 || v > INT_MAX)
                return invalid_value(p, -ERANGE, "expected a size from 1 byte to 2G - 1, such as '256K'");
        *(uint64_t *) field = v;
        return 0;
}

/* SocketProtocol=: udplite (for ListenDatagram=) or sctp (for ListenStream=). */
int parse_socket_protocol(UnitParser *p, const UnitKey *k, void *field) {
        if (isempty(p->value))
                *(int *) field = 0;
        else if (streq(p->value, "udplite"))
                *(int *) field = IPPROTO_UDPLITE;
        else if (streq(p->value, "sctp"))
                *(int *) field = IPPROTO_SCTP;
        else
                return invalid_value(p, -EINVAL, "expected udplite or sctp");
        return 0;
}

/* TCPCongestion=: the name of a congestion control algorithm, as tcp(7) takes it. */
int parse_tcp_congestion(UnitParser *p, const UnitKey *k, void *field) {
        char **name = field;

        if (isempty(p->value)) {
                free(*name);
                *name = NULL;
                return 0;
        }
        size_t n = strlen(p->value);
        bool ok = n <= SOCKET_TCP_CONGESTION_MAX;
        for (const char *c = p->value; ok && *c; c++)
                ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                     *c == '_' || *c == '-';
        if (!ok)
                return invalid_value(p, -EINVAL, "expected the name of a congestion control algorithm (at most %u "
                                     "letters, digits, '_' or '-'), such as 'cubic'", SOCKET_TCP_CONGESTION_MAX);
        char *v = strdup(p->value);
        if (!v)
                return -ENOMEM;
        free(*name);
        *name = v;
        return 0;
}

/* Timestamping=: off, us (usec, µs), ns (nsec). */
int parse_timestamping(UnitParser *p, const UnitKey *k, void *field) {
        SocketTimestamping t;

        if (isempty(p->value) || streq(p->value, "off"))
                t = SOCKET_TIMESTAMPING_OFF;
        else if (streq(p->value, "us") || streq(p->value, "usec") || streq(p->value, "µs"))
                t = SOCKET_TIMESTAMPING_US;
        else if (streq(p->value, "ns") || streq(p->value, "nsec"))
                t = SOCKET_TIMESTAMPING_NS;
        else
                return invalid_value(p, -EINVAL, "expected off, us or ns");
        *(SocketTimestamping *) field = t;
        return 0;
}

/* Symlinks=: absolute paths, space-separated; each assignment adds, an empty one resets. */
int parse_socket_symlinks(UnitParser *p, const UnitKey *k, void *field) {
        char ***list = field;
        const char *v = p->value;
        int r;

        if (isempty(v)) {
                *list = strv_free(*list);
                return 0;
        }
        for (;;) {
                _cleanup_free_ char *word = NULL;
                r = extract_first_word(&v, &word);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        return invalid_value(p, r, "unbalanced quotes or invalid escape sequence");
                if (r == 0)
                        return 0;
                if (word[0] != '/' || strlen(word) >= PATH_MAX)
                        return invalid_value(p, -EINVAL, "expected absolute paths");
                if (strv_contains(*list, word))
                        continue;
                if (strv_length(*list) >= UNIT_SOCKET_SYMLINKS_MAX)
                        return invalid_value(p, -E2BIG, "more than %u symbolic links", UNIT_SOCKET_SYMLINKS_MAX);
                r = strv_consume(list, TAKE_PTR(word));
                if (r < 0)
                        return r;
        }
}

/* Writable=: for ListenSpecial= only, which svd does not have: yes is refused, so that a unit that
 * relies on it does not run with a read-only file. */
int parse_socket_writable(UnitParser *p, const UnitKey *k, void *field) {
        bool b = false;

        if (!isempty(p->value) && parse_boolean(p->value, &b) < 0)
                return invalid_value(p, -EINVAL, "expected a boolean (yes/no, true/false, on/off, 1/0)");
        if (b)
                return invalid_value(p, -EOPNOTSUPP, "Writable=yes is for ListenSpecial=, which svd does not support");
        *(bool *) field = false;
        return 0;
}

const char *unit_socket_options_check(const UnitSocket *s) {
        size_t nodes = 0;

        for (size_t i = 0; i < s->n_listen; i++)
                nodes += s->listen[i].path != NULL;
        /* systemd.socket(5): the links point to the one file-system socket or FIFO of the unit. */
        if (s->symlinks && nodes != 1)
                return "Symlinks= needs exactly one file-system socket or FIFO among the Listen*= of the unit";
        return NULL;
}
