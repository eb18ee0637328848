/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* DevicePolicy=, DeviceAllow=, IPAddressAllow=, IPAddressDeny=: their values as unit-parse.c and
 * unit-access.c parse them, and the IP lists as one longest-prefix table (unit_access_ip_rules())
 * against the rules of systemd.resource-control(5), address by address. */
#include <arpa/inet.h>
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "basic/macros.h"
#include "unit.h"
#include "check-run.h"

static Unit *load(const char *name, const char *body, char **ret_error) {
        char *text = NULL;
        Unit *u = NULL;
        ck_assert_int_ge(asprintf(&text, "[Service]\nExecStart=/bin/true\n%s", body), 0);
        (void) unit_load_string(text, strlen(text), "t.service", name, NULL, NULL, NULL, &u, ret_error);
        free(text);
        return u;
}

static Unit *load_ok(const char *body) {
        char *error = NULL;
        Unit *u = load("t", body, &error);
        ck_assert_msg(u, "load failed: %s", error ?: "?");
        free(error);
        return u;
}

static void assert_fails(const char *body, const char *needle) {
        char *error = NULL;
        Unit *u = load("t", body, &error);
        ck_assert_ptr_null(u);
        ck_assert_msg(error && strstr(error, needle), "error '%s' lacks '%s'", error ?: "", needle);
        free(error);
}

START_TEST(test_device_policy) {
        Unit *u = load_ok("User=nobody\n");
        ck_assert_int_eq(u->access.device_policy, DEVICE_POLICY_AUTO);
        ck_assert(!unit_access_restricts_devices(&u->access));
        ck_assert(!unit_access_restricts_ip(&u->access));
        ck_assert_uint_eq(u->access.line, 0);
        unit_free(u);

        u = load_ok("DevicePolicy=closed\n");
        ck_assert_int_eq(u->access.device_policy, DEVICE_POLICY_CLOSED);
        ck_assert(unit_access_restricts_devices(&u->access));
        ck_assert_uint_eq(u->access.line, 3);
        ck_assert_ptr_null(u->sandbox.not_applied); /* enforced, not recorded */
        unit_free(u);

        u = load_ok("DevicePolicy=strict\nDevicePolicy=\n");
        ck_assert_int_eq(u->access.device_policy, DEVICE_POLICY_AUTO);
        ck_assert(!unit_access_restricts_devices(&u->access));
        unit_free(u);

        u = load_ok("DevicePolicy=auto\n");
        ck_assert(!unit_access_restricts_devices(&u->access));
        unit_free(u);

        assert_fails("DevicePolicy=open\n", "expected 'auto', 'closed' or 'strict'");
        ck_assert_str_eq(device_policy_to_string(DEVICE_POLICY_STRICT), "strict");
        ck_assert_int_eq(device_policy_from_string("closed"), DEVICE_POLICY_CLOSED);
}
END_TEST

START_TEST(test_device_allow) {
        Unit *u = load_ok("DeviceAllow=/dev/null rw\nDeviceAllow=char-pts\nDeviceAllow=/dev/null m\n"
                          "DeviceAllow=\"/dev/disk/by-label/a b\" r\nDeviceAllow=block-* r\n"
                          "DeviceAllow=char-/dev/console rw\n");
        const UnitAccess *a = &u->access;
        ck_assert_uint_eq(a->n_device_allow, 5);
        ck_assert_str_eq(a->device_allow[0].specifier, "/dev/null");
        ck_assert_uint_eq(a->device_allow[0].access, UNIT_DEVICE_ALL); /* rw, then m */
        ck_assert_str_eq(a->device_allow[1].specifier, "char-pts");
        ck_assert_uint_eq(a->device_allow[1].access, UNIT_DEVICE_ALL); /* no access string: rwm */
        ck_assert_str_eq(a->device_allow[2].specifier, "/dev/disk/by-label/a b");
        ck_assert_uint_eq(a->device_allow[2].access, UNIT_DEVICE_READ);
        ck_assert_str_eq(a->device_allow[3].specifier, "block-*");
        ck_assert_str_eq(a->device_allow[4].specifier, "char-/dev/console");
        ck_assert_uint_eq(a->device_allow[4].access, UNIT_DEVICE_READ | UNIT_DEVICE_WRITE);
        /* A list under the default policy restricts: as closed. */
        ck_assert(unit_access_restricts_devices(a));
        ck_assert_uint_eq(u->access.line, 3);
        unit_free(u);

        u = load_ok("DeviceAllow=/dev/null rw\nDeviceAllow=\n");
        ck_assert_uint_eq(u->access.n_device_allow, 0);
        ck_assert(!unit_access_restricts_devices(&u->access));
        unit_free(u);

        /* Specifiers are resolved in the path, as in systemd. */
        char *error = NULL;
        u = load("tty@ttyS1", "DeviceAllow=/dev/%i rw\n", &error);
        ck_assert_msg(u, "%s", error ?: "?");
        ck_assert_str_eq(u->access.device_allow[0].specifier, "/dev/ttyS1");
        unit_free(u);

        assert_fails("DeviceAllow=/etc/passwd r\n", "expected a device node path below /dev");
        assert_fails("DeviceAllow=null r\n", "expected a device node path below /dev");
        assert_fails("DeviceAllow=/dev/../etc/shadow r\n", "expected a device node path below /dev");
        assert_fails("DeviceAllow=char- r\n", "expected a device node path below /dev");
        assert_fails("DeviceAllow=/dev/null rx\n", "combination of 'r' (read), 'w' (write), 'm' (mknod)");
        assert_fails("DeviceAllow=/dev/null r w\n", "then the access");
        assert_fails("DeviceAllow=\"/dev/null\n", "then the access");
}
END_TEST

static const UnitIPPrefix *find_prefix(const UnitIPPrefix *l, size_t n, int family, const char *addr,
                                       unsigned len) {
        uint8_t a[16] = {};
        ck_assert_int_eq(inet_pton(family, addr, a), 1);
        for (size_t i = 0; i < n; i++)
                if (l[i].family == family && l[i].prefixlen == len && memcmp(l[i].address, a, 16) == 0)
                        return &l[i];
        return NULL;
}

START_TEST(test_ip_lists) {
        Unit *u = load_ok("IPAddressAllow=localhost link-local multicast\nIPAddressAllow=10.1.2.3/8 192.0.2.1\n"
                          "IPAddressAllow=2001:db8::1/32 fe80::1\nIPAddressAllow=10.0.0.0/8\n"
                          "IPAddressDeny=any\n");
        const UnitAccess *a = &u->access;
        ck_assert_uint_eq(a->n_ip_allow, 10); /* 10.1.2.3/8 and 10.0.0.0/8 are one */
        ck_assert_ptr_nonnull(find_prefix(a->ip_allow, a->n_ip_allow, AF_INET, "127.0.0.0", 8));
        ck_assert_ptr_nonnull(find_prefix(a->ip_allow, a->n_ip_allow, AF_INET6, "::1", 128));
        ck_assert_ptr_nonnull(find_prefix(a->ip_allow, a->n_ip_allow, AF_INET, "169.254.0.0", 16));
        ck_assert_ptr_nonnull(find_prefix(a->ip_allow, a->n_ip_allow, AF_INET6, "fe80::", 64));
        ck_assert_ptr_nonnull(find_prefix(a->ip_allow, a->n_ip_allow, AF_INET, "224.0.0.0", 4));
        ck_assert_ptr_nonnull(find_prefix(a->ip_allow, a->n_ip_allow, AF_INET6, "ff00::", 8));
        ck_assert_ptr_nonnull(find_prefix(a->ip_allow, a->n_ip_allow, AF_INET, "10.0.0.0", 8)); /* host bits gone */
        ck_assert_ptr_nonnull(find_prefix(a->ip_allow, a->n_ip_allow, AF_INET, "192.0.2.1", 32)); /* a host */
        ck_assert_ptr_nonnull(find_prefix(a->ip_allow, a->n_ip_allow, AF_INET6, "2001:db8::", 32));
        ck_assert_ptr_nonnull(find_prefix(a->ip_allow, a->n_ip_allow, AF_INET6, "fe80::1", 128));
        ck_assert_uint_eq(a->n_ip_deny, 2);
        ck_assert_ptr_nonnull(find_prefix(a->ip_deny, a->n_ip_deny, AF_INET, "0.0.0.0", 0));
        ck_assert_ptr_nonnull(find_prefix(a->ip_deny, a->n_ip_deny, AF_INET6, "::", 0));
        ck_assert(unit_access_restricts_ip(a));
        ck_assert(!unit_access_restricts_devices(a));
        ck_assert_uint_eq(a->line, 7); /* the deny list: the allow list alone restricts nothing */
        unit_free(u);

        /* An allow list alone, or denies that allows contain, restrict nothing. */
        u = load_ok("IPAddressAllow=any\n");
        ck_assert(!unit_access_restricts_ip(&u->access));
        unit_free(u);
        u = load_ok("IPAddressAllow=any\nIPAddressDeny=10.0.0.0/8 ::1\n");
        ck_assert(!unit_access_restricts_ip(&u->access));
        UnitIPRule *rules = NULL;
        size_t n = 99;
        ck_assert_int_eq(unit_access_ip_rules(&u->access, &rules, &n), 0);
        ck_assert_uint_eq(n, 0);
        free(rules);
        unit_free(u);

        /* An empty assignment resets its own list only. */
        u = load_ok("IPAddressAllow=localhost\nIPAddressDeny=any\nIPAddressDeny=\n");
        ck_assert_uint_eq(u->access.n_ip_deny, 0);
        ck_assert_uint_eq(u->access.n_ip_allow, 2);
        ck_assert(!unit_access_restricts_ip(&u->access));
        unit_free(u);

        assert_fails("IPAddressDeny=10.0.0.0/33\n", "expected IPv4 or IPv6 addresses");
        assert_fails("IPAddressDeny=::/129\n", "expected IPv4 or IPv6 addresses");
        assert_fails("IPAddressDeny=10.0.0.0/\n", "expected IPv4 or IPv6 addresses");
        assert_fails("IPAddressDeny=10.0.0.0/+8\n", "expected IPv4 or IPv6 addresses");
        assert_fails("IPAddressDeny=10.0.0.0/-1\n", "expected IPv4 or IPv6 addresses");
        assert_fails("IPAddressDeny=10.0.0\n", "expected IPv4 or IPv6 addresses");
        assert_fails("IPAddressDeny=localhost6\n", "expected IPv4 or IPv6 addresses");
        assert_fails("IPAddressAllow=/8\n", "expected IPv4 or IPv6 addresses");
        assert_fails("IPAddressAllow=\"10.0.0.1\n", "separated by spaces");
}
END_TEST

START_TEST(test_limits) {
        /* More entries than UNIT_ACCESS_ENTRIES_MAX fail the unit, as every list of a unit does. */
        size_t size = (UNIT_ACCESS_ENTRIES_MAX + 1) * 32 + 64;
        char *body = malloc(size), *p = body;
        ck_assert_ptr_nonnull(body);
        p += sprintf(p, "IPAddressDeny=");
        for (unsigned i = 0; i <= UNIT_ACCESS_ENTRIES_MAX; i++)
                p += sprintf(p, "10.%u.%u.0/24 ", i / 256, i % 256);
        sprintf(p, "\n");
        assert_fails(body, "too many address prefixes");
        p = body;
        for (unsigned i = 0; i <= UNIT_ACCESS_ENTRIES_MAX; i++)
                p += sprintf(p, "DeviceAllow=/dev/d%u r\n", i);
        assert_fails(body, "too many DeviceAllow= entries");
        free(body);
}
END_TEST

/* ---- the IP table against the rules, address by address ---- */

static bool prefix_matches(const UnitIPPrefix *p, int family, const uint8_t addr[16]) {
        unsigned bytes = p->prefixlen / 8, bits = p->prefixlen % 8;
        if (p->family != family || memcmp(p->address, addr, bytes) != 0)
                return false;
        uint8_t mask = (uint8_t) (0xFF00U >> bits);
        return bits == 0 || (p->address[bytes] & mask) == (addr[bytes] & mask);
}

/* systemd.resource-control(5): allowed when an allow prefix matches, else denied when a deny one
 * does, else allowed. */
static bool verdict_by_the_rules(const UnitAccess *a, int family, const uint8_t addr[16]) {
        for (size_t i = 0; i < a->n_ip_allow; i++)
                if (prefix_matches(&a->ip_allow[i], family, addr))
                        return true;
        for (size_t i = 0; i < a->n_ip_deny; i++)
                if (prefix_matches(&a->ip_deny[i], family, addr))
                        return false;
        return true;
}

/* What an LPM trie of the rules says: the longest matching prefix, allowed when none matches. */
static bool verdict_by_the_table(const UnitIPRule *rules, size_t n, int family, const uint8_t addr[16]) {
        const UnitIPRule *best = NULL;
        for (size_t i = 0; i < n; i++)
                if (prefix_matches(&rules[i].prefix, family, addr) &&
                    (!best || rules[i].prefix.prefixlen > best->prefix.prefixlen))
                        best = &rules[i];
        return !best || best->allow;
}

static void assert_table_agrees(const char *body, const char *const *addresses) {
        Unit *u = load_ok(body);
        UnitIPRule *rules = NULL;
        size_t n = 0;
        ck_assert_int_eq(unit_access_ip_rules(&u->access, &rules, &n), 0);
        for (const char *const *s = addresses; *s; s++) {
                uint8_t addr[16] = {};
                int family = strchr(*s, ':') ? AF_INET6 : AF_INET;
                ck_assert_int_eq(inet_pton(family, *s, addr), 1);
                ck_assert_msg(verdict_by_the_table(rules, n, family, addr) ==
                                      verdict_by_the_rules(&u->access, family, addr),
                              "%s: %s: the table says otherwise than the rules", body, *s);
        }
        free(rules);
        unit_free(u);
}

START_TEST(test_ip_rules_examples) {
        static const char *const addresses[] = {
                "127.0.0.1", "127.0.0.2", "127.1.2.3", "127.1.0.1", "127.2.0.1", "10.0.0.1", "10.1.2.3",
                "10.1.3.1", "10.2.0.0", "192.0.2.1", "0.0.0.0", "255.255.255.255", "::1", "::2", "fe80::1",
                "2001:db8::1", "2001:db8:1::1", "ff02::1", "::ffff:127.0.0.1", NULL,
        };
        static const char *const bodies[] = {
                "IPAddressDeny=any\nIPAddressAllow=127.0.0.1\n",
                "IPAddressDeny=any 127.0.0.2\nIPAddressAllow=localhost\n",
                "IPAddressDeny=127.0.0.0/8\nIPAddressAllow=127.1.0.0/16\nIPAddressDeny=127.1.2.0/24\n",
                ("IPAddressDeny=10.0.0.0/8\nIPAddressAllow=10.1.0.0/16\nIPAddressDeny=10.1.2.0/24 10.1.2.3\n"
                 "IPAddressAllow=10.1.2.3\n"),
                "IPAddressDeny=::1/128\n",
                "IPAddressDeny=any\nIPAddressAllow=link-local multicast 2001:db8::/48\n",
                "IPAddressAllow=any\nIPAddressDeny=any\n",
                "IPAddressDeny=2001:db8::/32\nIPAddressAllow=2001:db8::/32\n",
        };
        for (size_t i = 0; i < ELEMENTSOF(bodies); i++)
                assert_table_agrees(bodies[i], addresses);

        /* The table keeps what decides: 127.0.0.1 allowed and the /0 denied; no deny inside an allow. */
        Unit *u = load_ok("IPAddressDeny=any 127.0.0.0/24\nIPAddressAllow=127.0.0.0/16 10.0.0.1\n");
        UnitIPRule *rules = NULL;
        size_t n = 0;
        ck_assert_int_eq(unit_access_ip_rules(&u->access, &rules, &n), 0);
        ck_assert_uint_eq(n, 4); /* allow 127.0.0.0/16 and 10.0.0.1, deny 0.0.0.0/0 and ::/0 */
        ck_assert(rules[0].allow && rules[1].allow && !rules[2].allow && !rules[3].allow);
        for (size_t i = 2; i < n; i++)
                ck_assert_uint_eq(rules[i].prefix.prefixlen, 0);
        free(rules);
        unit_free(u);
}
END_TEST

/* Random lists in a small space (10.0.0.0/24 and 2001:db8::/120, where prefixes overlap often),
 * every address of it checked. */
START_TEST(test_ip_rules_random) {
        unsigned seed = 1;
        for (unsigned round = 0; round < 100; round++) {
                char body[4096], *p = body;
                unsigned n_lines = 1 + rand_r(&seed) % 8;
                for (unsigned l = 0; l < n_lines; l++) {
                        bool v6 = rand_r(&seed) % 4 == 0;
                        unsigned len = (v6 ? 120 : 24) + rand_r(&seed) % 9;
                        unsigned host = rand_r(&seed) % 256;
                        if (rand_r(&seed) % 10 == 0)
                                len = rand_r(&seed) % 2 ? 0 : 8;
                        p += sprintf(p, "IPAddress%s=", rand_r(&seed) % 2 ? "Allow" : "Deny");
                        if (v6)
                                p += sprintf(p, "2001:db8::%x/%u\n", host, MIN(len, 128U));
                        else
                                p += sprintf(p, "10.0.0.%u/%u\n", host, MIN(len, 32U));
                }
                static const char *addresses[2 * 256 + 1];
                static char text[2 * 256][64];
                for (unsigned h = 0; h < 256; h++) {
                        snprintf(text[h], sizeof(text[h]), "10.0.0.%u", h);
                        snprintf(text[256 + h], sizeof(text[256 + h]), "2001:db8::%x", h);
                        addresses[h] = text[h];
                        addresses[256 + h] = text[256 + h];
                }
                addresses[512] = NULL;
                assert_table_agrees(body, addresses);
        }
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("unit-access");
        TCase *tc = tcase_create("keys");
        /* Thousands of rules and addresses: seconds under the sanitizers, past Check's default 4. */
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_device_policy);
        tcase_add_test(tc, test_device_allow);
        tcase_add_test(tc, test_ip_lists);
        tcase_add_test(tc, test_limits);
        tcase_add_test(tc, test_ip_rules_examples);
        tcase_add_test(tc, test_ip_rules_random);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(suite());
}
