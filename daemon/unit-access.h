/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The access lists of systemd.resource-control(5) that a service's cgroup
 * enforces, as parsed: which devices its processes may open or create
 * (DevicePolicy=, DeviceAllow=) and which IP addresses they may exchange
 * packets with (IPAddressAllow=, IPAddressDeny=). unit-parse.c hands each
 * assignment to unit_access_parse(); the service core turns the result into
 * the programs that cgroup-bpf.h attaches to the service's cgroup.
 *
 * Nothing here looks at the machine: a device path is resolved, and a device
 * group matched against /proc/devices, when the service starts.
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UNIT_ACCESS_ENTRIES_MAX 1024U /* DeviceAllow= entries, and the prefixes of each IP list */

typedef enum DevicePolicy {
        DEVICE_POLICY_AUTO,   /* every device, unless DeviceAllow= lists some: then as closed */
        DEVICE_POLICY_CLOSED, /* DeviceAllow= and the standard pseudo devices */
        DEVICE_POLICY_STRICT, /* DeviceAllow= alone */
        _DEVICE_POLICY_MAX,
        _DEVICE_POLICY_INVALID = -EINVAL,
} DevicePolicy;

const char *device_policy_to_string(DevicePolicy p);
DevicePolicy device_policy_from_string(const char *s);

/* What a DeviceAllow= entry permits: the r, w and m of its access string. */
enum {
        UNIT_DEVICE_READ = 1U << 0,
        UNIT_DEVICE_WRITE = 1U << 1,
        UNIT_DEVICE_MKNOD = 1U << 2,
        UNIT_DEVICE_ALL = UNIT_DEVICE_READ | UNIT_DEVICE_WRITE | UNIT_DEVICE_MKNOD,
};

/* One DeviceAllow= entry. The specifier is a device node path ("/dev/sda5", "/dev/char/1:3") or a
 * device group of /proc/devices: "char-NAME" or "block-NAME", NAME a glob ("char-tty*"). The same
 * specifier twice is one entry with both accesses. */
typedef struct UnitDeviceAllow {
        char *specifier;
        unsigned access; /* UNIT_DEVICE_* */
} UnitDeviceAllow;

/* One address prefix of IPAddressAllow=/IPAddressDeny=, host bits cleared. */
typedef struct UnitIPPrefix {
        int family;          /* AF_INET or AF_INET6 */
        uint8_t address[16]; /* network byte order; an IPv4 address in the first 4 bytes */
        unsigned prefixlen;  /* 0..32 or 0..128 */
} UnitIPPrefix;

typedef struct UnitAccess {
        DevicePolicy device_policy;
        UnitDeviceAllow *device_allow;
        size_t n_device_allow;

        UnitIPPrefix *ip_allow, *ip_deny;
        size_t n_ip_allow, n_ip_deny;

        /* The line of the first of these keys that may restrict the service, for the load error of
         * a unit svd cannot enforce them for (unit-parse.c sets it). */
        unsigned line;
} UnitAccess;

/* Parses one assignment of key (DevicePolicy, DeviceAllow, IPAddressAllow, IPAddressDeny) into a:
 * lists grow with each assignment, an empty one resets the key. Returns 0, -ENOMEM, or another
 * -errno with *ret_reason (static text) for "Invalid value …: REASON"; -ENOENT when key is not
 * one of these. */
int unit_access_parse(UnitAccess *a, const char *key, const char *value, const char **ret_reason);

/* Whether a restricts what devices the service may use: a policy other than auto, or auto with
 * DeviceAllow= entries. */
bool unit_access_restricts_devices(const UnitAccess *a);

/* Whether a restricts the addresses the service may reach: IPAddressDeny= has a prefix that no
 * IPAddressAllow= prefix contains (allow wins, so a deny inside an allow denies nothing). */
bool unit_access_restricts_ip(const UnitAccess *a);

/* The two IP lists as one table in which the longest prefix that matches an address decides, as a
 * routing table or an LPM trie does, with the meaning of systemd.resource-control(5): an address in
 * an IPAddressAllow= prefix is allowed, else one in an IPAddressDeny= prefix is denied, else it is
 * allowed. So a deny prefix that an allow prefix contains is left out (it never decides), and so
 * is an allow prefix that no deny prefix left contains (nothing to allow it against); what is left
 * gives an allow prefix precedence wherever it overlaps a deny one, because it is the longer one.
 * No rule at all when nothing is denied (unit_access_restricts_ip() is false). Returns 0 with the
 * rules in *ret (allow ones first) and their number in *ret_n, or -ENOMEM. */
typedef struct UnitIPRule {
        UnitIPPrefix prefix;
        bool allow;
} UnitIPRule;
int unit_access_ip_rules(const UnitAccess *a, UnitIPRule **ret, size_t *ret_n);

void unit_access_done(UnitAccess *a);
