/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* DevicePolicy=, DeviceAllow=, IPAddressAllow=, IPAddressDeny= (systemd.resource-control(5)): their
 * values, parsed into UnitAccess. */
#include "unit-access.h"

#include <arpa/inet.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "basic/extract-word.h"
#include "basic/macros.h"
#include "basic/parse-util.h"
#include "basic/strv.h"
#include "basic/string-table.h"
#include "basic/utf8.h"

#define ACCESS_WORDS_MAX 4096U /* words in one IPAddressAllow=/IPAddressDeny= assignment */

static const char *const device_policy_table[_DEVICE_POLICY_MAX] = {
        [DEVICE_POLICY_AUTO] = "auto",
        [DEVICE_POLICY_CLOSED] = "closed",
        [DEVICE_POLICY_STRICT] = "strict",
};

DEFINE_STRING_TABLE_LOOKUP(device_policy, DevicePolicy);

#define WHITESPACE " \t\n\r"

static const char *skip_prefix(const char *s, const char *prefix) {
        size_t n = strlen(prefix);
        return strneq(s, prefix, n) ? s + n : NULL;
}

/* The device node paths systemd accepts: below /dev or /sys, or its own inaccessible nodes; no ".."
 * component, nothing that is not UTF-8. Whether the path is a device node is seen at the start. */
static bool device_path_is_ok(const char *p) {
        size_t n = strlen(p);
        if (!skip_prefix(p, "/dev/") && !skip_prefix(p, "/sys/") && !skip_prefix(p, "/run/systemd/inaccessible/"))
                return false;
        return n < PATH_MAX && utf8_is_valid(p) && !strstr(p, "/../") && !(n >= 3 && streq(p + n - 3, "/.."));
}

/* "char-NAME", "block-NAME": a group of /proc/devices, NAME a glob without white space. */
static bool device_group_is_ok(const char *p) {
        const char *name = skip_prefix(p, "char-") ?: skip_prefix(p, "block-");
        return name && *name && utf8_is_valid(name) && !strpbrk(name, WHITESPACE);
}

/* DeviceAllow=SPECIFIER [rwm]: a missing access string means all three, as in systemd. */
static int parse_device_allow(UnitAccess *a, const char *value, const char **ret_reason) {
        _cleanup_free_ char *spec = NULL, *rights = NULL;
        const char *v = value;
        unsigned access = 0;
        int r;

        r = extract_first_word(&v, &spec);
        if (r == -ENOMEM)
                return r;
        if (r <= 0) {
                *ret_reason = "expected a device node path or a device group, then the access (r, w, m)";
                return -EINVAL;
        }
        r = extract_first_word(&v, &rights);
        if (r == -ENOMEM)
                return r;
        if (r < 0 || *v) {
                *ret_reason = "expected a device node path or a device group, then the access (r, w, m)";
                return -EINVAL;
        }
        if (!device_path_is_ok(spec) && !device_group_is_ok(spec)) {
                *ret_reason = "expected a device node path below /dev, or 'char-' or 'block-' and a device "
                              "group of /proc/devices";
                return -EINVAL;
        }
        for (const char *c = rights ?: "rwm"; *c; c++)
                switch (*c) {
                case 'r':
                        access |= UNIT_DEVICE_READ;
                        break;
                case 'w':
                        access |= UNIT_DEVICE_WRITE;
                        break;
                case 'm':
                        access |= UNIT_DEVICE_MKNOD;
                        break;
                default:
                        *ret_reason = "the access is a combination of 'r' (read), 'w' (write), 'm' (mknod)";
                        return -EINVAL;
                }
        if (access == 0)
                access = UNIT_DEVICE_ALL;

        for (size_t i = 0; i < a->n_device_allow; i++)
                if (streq(a->device_allow[i].specifier, spec)) {
                        a->device_allow[i].access |= access;
                        return 0;
                }
        if (a->n_device_allow >= UNIT_ACCESS_ENTRIES_MAX) {
                *ret_reason = "too many DeviceAllow= entries";
                return -E2BIG;
        }
        UnitDeviceAllow *n = reallocarray(a->device_allow, a->n_device_allow + 1, sizeof(UnitDeviceAllow));
        if (!n)
                return -ENOMEM;
        a->device_allow = n;
        a->device_allow[a->n_device_allow++] = (UnitDeviceAllow){ .specifier = TAKE_PTR(spec), .access = access };
        return 0;
}

static void ip_prefix_mask(UnitIPPrefix *p) {
        unsigned bytes = p->family == AF_INET ? 4 : 16;
        for (unsigned i = 0; i < bytes; i++) {
                unsigned keep = p->prefixlen > i * 8 ? p->prefixlen - i * 8 : 0;
                p->address[i] &= keep >= 8 ? 0xFF : (uint8_t) (0xFF << (8 - keep));
        }
}

/* Whether prefix `outer` contains prefix `inner` (the same family, a prefix length no longer, the
 * same leading bits); a prefix contains itself. */
static bool ip_prefix_contains(const UnitIPPrefix *outer, const UnitIPPrefix *inner) {
        if (outer->family != inner->family || outer->prefixlen > inner->prefixlen)
                return false;
        UnitIPPrefix cut = *inner;
        cut.prefixlen = outer->prefixlen;
        ip_prefix_mask(&cut);
        return memcmp(cut.address, outer->address, sizeof(cut.address)) == 0;
}

/* The symbolic names of systemd.resource-control(5), each an IPv4 and an IPv6 prefix. */
static const struct {
        const char *name;
        uint8_t ipv4[4], ipv6[16];
        unsigned len4, len6;
} ip_names[] = {
        { "any", {}, {}, 0, 0 },                                    /* 0.0.0.0/0, ::/0 */
        { "localhost", { 127 }, { [15] = 1 }, 8, 128 },             /* 127.0.0.0/8, ::1/128 */
        { "link-local", { 169, 254 }, { 0xfe, 0x80 }, 16, 64 },     /* 169.254.0.0/16, fe80::/64 */
        { "multicast", { 224 }, { 0xff }, 4, 8 },                   /* 224.0.0.0/4, ff00::/8 */
};

/* "ADDRESS[/PREFIXLENGTH]": without a length, the whole address (a host). */
static int parse_ip_prefix(const char *word, UnitIPPrefix *ret) {
        char addr[INET6_ADDRSTRLEN + 1];
        const char *slash = strchr(word, '/');
        size_t n = slash ? (size_t) (slash - word) : strlen(word);
        UnitIPPrefix p = {};

        if (n == 0 || n >= sizeof(addr))
                return -EINVAL;
        memcpy(addr, word, n);
        addr[n] = '\0';
        if (inet_pton(AF_INET, addr, p.address) == 1)
                p.family = AF_INET;
        else if (inet_pton(AF_INET6, addr, p.address) == 1)
                p.family = AF_INET6;
        else
                return -EINVAL;
        unsigned max = p.family == AF_INET ? 32 : 128;
        p.prefixlen = max;
        if (slash) {
                uint64_t len;
                if (safe_atou64(slash + 1, &len) < 0 || len > max)
                        return -EINVAL;
                p.prefixlen = (unsigned) len;
        }
        ip_prefix_mask(&p);
        *ret = p;
        return 0;
}

static int ip_list_add(UnitIPPrefix **list, size_t *n, const UnitIPPrefix *p, const char **ret_reason) {
        for (size_t i = 0; i < *n; i++)
                if ((*list)[i].family == p->family && (*list)[i].prefixlen == p->prefixlen &&
                    memcmp((*list)[i].address, p->address, sizeof(p->address)) == 0)
                        return 0;
        if (*n >= UNIT_ACCESS_ENTRIES_MAX) {
                *ret_reason = "too many address prefixes";
                return -E2BIG;
        }
        UnitIPPrefix *l = reallocarray(*list, *n + 1, sizeof(UnitIPPrefix));
        if (!l)
                return -ENOMEM;
        *list = l;
        (*list)[(*n)++] = *p;
        return 0;
}

static int parse_ip_list(UnitIPPrefix **list, size_t *n, const char *value, const char **ret_reason) {
        _cleanup_strv_free_ char **words = NULL;
        int r = split_exec_line(value, ACCESS_WORDS_MAX, &words);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                *ret_reason = "expected addresses with an optional prefix length, separated by spaces";
                return r;
        }
        for (char **w = words; *w; w++) {
                UnitIPPrefix p[2];
                size_t np = 0;
                for (size_t i = 0; i < ELEMENTSOF(ip_names) && np == 0; i++)
                        if (streq(*w, ip_names[i].name)) {
                                p[0] = (UnitIPPrefix){ .family = AF_INET, .prefixlen = ip_names[i].len4 };
                                p[1] = (UnitIPPrefix){ .family = AF_INET6, .prefixlen = ip_names[i].len6 };
                                memcpy(p[0].address, ip_names[i].ipv4, sizeof(ip_names[i].ipv4));
                                memcpy(p[1].address, ip_names[i].ipv6, sizeof(ip_names[i].ipv6));
                                np = 2;
                        }
                if (np == 0) {
                        if (parse_ip_prefix(*w, &p[0]) < 0) {
                                *ret_reason = "expected IPv4 or IPv6 addresses, each with an optional '/' and "
                                              "prefix length, or 'any', 'localhost', 'link-local', 'multicast'";
                                return -EINVAL;
                        }
                        np = 1;
                }
                for (size_t i = 0; i < np; i++) {
                        r = ip_list_add(list, n, &p[i], ret_reason);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

static void device_allow_free(UnitAccess *a) {
        for (size_t i = 0; i < a->n_device_allow; i++)
                free(a->device_allow[i].specifier);
        free(a->device_allow);
        a->device_allow = NULL;
        a->n_device_allow = 0;
}

int unit_access_parse(UnitAccess *a, const char *key, const char *value, const char **ret_reason) {
        bool empty = isempty(value);

        *ret_reason = NULL;
        if (streq(key, "DevicePolicy")) {
                DevicePolicy p = empty ? DEVICE_POLICY_AUTO : device_policy_from_string(value);
                if (p < 0) {
                        *ret_reason = "expected 'auto', 'closed' or 'strict'";
                        return p;
                }
                a->device_policy = p;
                return 0;
        }
        if (streq(key, "DeviceAllow")) {
                if (empty) {
                        device_allow_free(a);
                        return 0;
                }
                return parse_device_allow(a, value, ret_reason);
        }
        if (streq(key, "IPAddressAllow") || streq(key, "IPAddressDeny")) {
                bool allow = streq(key, "IPAddressAllow");
                UnitIPPrefix **list = allow ? &a->ip_allow : &a->ip_deny;
                size_t *n = allow ? &a->n_ip_allow : &a->n_ip_deny;
                if (empty) {
                        free(*list);
                        *list = NULL;
                        *n = 0;
                        return 0;
                }
                return parse_ip_list(list, n, value, ret_reason);
        }
        return -ENOENT;
}

bool unit_access_restricts_devices(const UnitAccess *a) {
        return a->device_policy != DEVICE_POLICY_AUTO || a->n_device_allow > 0;
}

/* Whether an IPAddressAllow= prefix contains deny prefix d: then d never decides. */
static bool ip_deny_is_void(const UnitAccess *a, const UnitIPPrefix *d) {
        for (size_t i = 0; i < a->n_ip_allow; i++)
                if (ip_prefix_contains(&a->ip_allow[i], d))
                        return true;
        return false;
}

bool unit_access_restricts_ip(const UnitAccess *a) {
        for (size_t d = 0; d < a->n_ip_deny; d++)
                if (!ip_deny_is_void(a, &a->ip_deny[d]))
                        return true;
        return false;
}

int unit_access_ip_rules(const UnitAccess *a, UnitIPRule **ret, size_t *ret_n) {
        _cleanup_free_ UnitIPRule *rules = NULL;
        _cleanup_free_ bool *deny_kept = NULL;
        size_t n = 0, n_deny = 0;

        deny_kept = calloc(a->n_ip_deny ?: 1, sizeof(bool));
        if (!deny_kept)
                return -ENOMEM;
        for (size_t d = 0; d < a->n_ip_deny; d++)
                if ((deny_kept[d] = !ip_deny_is_void(a, &a->ip_deny[d])))
                        n_deny++;
        if (n_deny == 0) {
                *ret = NULL;
                *ret_n = 0;
                return 0;
        }
        rules = calloc(a->n_ip_allow + n_deny, sizeof(UnitIPRule));
        if (!rules)
                return -ENOMEM;
        /* An allow prefix matters only inside a deny prefix that is kept; there it is the longer one
         * (were it not, it would contain the deny prefix, and that would not be kept). */
        for (size_t i = 0; i < a->n_ip_allow; i++)
                for (size_t d = 0; d < a->n_ip_deny; d++)
                        if (deny_kept[d] && ip_prefix_contains(&a->ip_deny[d], &a->ip_allow[i])) {
                                rules[n++] = (UnitIPRule){ .prefix = a->ip_allow[i], .allow = true };
                                break;
                        }
        for (size_t d = 0; d < a->n_ip_deny; d++)
                if (deny_kept[d])
                        rules[n++] = (UnitIPRule){ .prefix = a->ip_deny[d], .allow = false };
        *ret = TAKE_PTR(rules);
        *ret_n = n;
        return 0;
}

void unit_access_done(UnitAccess *a) {
        if (!a)
                return;
        device_allow_free(a);
        free(a->ip_allow);
        free(a->ip_deny);
        a->ip_allow = a->ip_deny = NULL;
        a->n_ip_allow = a->n_ip_deny = 0;
}
