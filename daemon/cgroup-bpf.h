/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Device and IP access lists enforced by the kernel on a service's cgroup,
 * with BPF programs as systemd does (systemd.resource-control(5),
 * DeviceAllow= and IPAddressAllow=): a BPF_PROG_TYPE_CGROUP_DEVICE program
 * that says which device numbers the cgroup's processes may read, write or
 * mknod, and a pair of BPF_PROG_TYPE_CGROUP_SKB programs (ingress: the
 * source address of what arrives; egress: the destination of what leaves)
 * that look the address up in an LPM trie map of allowed and denied
 * prefixes.
 *
 * The programs are generated at run time as raw instruction arrays from the
 * rules (cgroup-bpf-devices.c, cgroup-bpf-firewall.c), loaded with bpf(2)
 * and attached with BPF_F_ALLOW_MULTI to the service's own cgroup2 directory
 * before the service's first process is cloned into it. They need that
 * directory alone, not a controller: they work where the controllers are in
 * cgroup v1 (a hybrid hierarchy) as well. svd keeps no fd of them: the
 * attachment holds the program, and the program its map, until the cgroup
 * is removed, which frees them.
 *
 * Nothing here decides what a unit allows or logs: the service core resolves
 * the unit's lists (which devices DevicePolicy=closed adds, which IP prefix
 * decides) into the rules below, and reports the failures.
 */

#include <linux/bpf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the kernel takes, asked once at start-up by loading a trivial program of each type (and, for
 * the IP lists, creating an LPM trie map). No version is compared. */
typedef struct CgroupBpfProbe {
        bool devices;      /* device programs load */
        bool firewall;     /* skb programs and LPM trie maps */
        char reason[256];  /* what failed, or what works */
} CgroupBpfProbe;

void cgroup_bpf_probe(CgroupBpfProbe *ret);

/* ---- devices (cgroup-bpf-devices.c) ---- */

#define CGROUP_DEVICE_RULES_MAX 4096U     /* rules of one program: resolved paths and group majors */
#define CGROUP_DEVICE_ANY_MINOR UINT32_MAX
#define CGROUP_PROC_DEVICES_MAX (64U * 1024U)

/* One allowed device, or every minor of a major: type BPF_DEVCG_DEV_CHAR or BPF_DEVCG_DEV_BLOCK,
 * access BPF_DEVCG_ACC_READ | _WRITE | _MKNOD. A device access is allowed when one rule matches
 * its type and numbers and has every access it asks for. */
typedef struct CgroupDeviceRule {
        uint32_t type;
        uint32_t major, minor;
        uint32_t access;
} CgroupDeviceRule;

typedef struct CgroupDeviceRules {
        CgroupDeviceRule *rules;
        size_t n;
} CgroupDeviceRules;

/* Adds a rule; the same type and numbers again get the access added to the rule there. 0, -ENOMEM,
 * or -E2BIG past CGROUP_DEVICE_RULES_MAX. */
int cgroup_device_rules_add(CgroupDeviceRules *r, uint32_t type, uint32_t major, uint32_t minor, uint32_t access);
/* The device node at path (stat(2), symbolic links followed): 0, -ENODEV when it is no device node,
 * or -errno (-ENOENT when there is none). */
int cgroup_device_rules_add_node(CgroupDeviceRules *r, const char *path, uint32_t access);
/* Every major of /proc/devices (its text in proc_devices) whose name matches the glob pattern
 * (fnmatch(3)) in the section of type: how many were added, or -errno. */
int cgroup_device_rules_add_group(CgroupDeviceRules *r, uint32_t type, const char *pattern,
                                  const char *proc_devices, uint32_t access);
void cgroup_device_rules_done(CgroupDeviceRules *r);

/* /proc/devices, NUL-terminated, in a new buffer: 0 or -errno. */
int cgroup_read_proc_devices(char **ret);

/* The device program of the rules: every access a rule allows returns 1, everything else 0. Returns
 * 0 with the instructions in *ret (freed by the caller) and their number, or -ENOMEM. */
int cgroup_device_program(const CgroupDeviceRules *r, struct bpf_insn **ret, size_t *ret_n);

/* ---- IP addresses (cgroup-bpf-firewall.c) ---- */

#define CGROUP_IP_RULES_MAX 2048U /* prefixes in one map */

/* One prefix of the table, with its verdict: the longest prefix that matches an address decides
 * (an address that none matches is allowed). */
typedef struct CgroupIPRule {
        int family;          /* AF_INET or AF_INET6 */
        uint8_t address[16]; /* network byte order, host bits clear; IPv4 in the first 4 bytes */
        unsigned prefixlen;
        bool allow;
} CgroupIPRule;

/* The LPM trie's key: one map for both families, the family ahead of the address, so that an IPv4
 * prefix of length L is the key of length 8 + L whose first byte is 4 (6 for IPv6). */
#define CGROUP_IP_KEY_DATA 17U
typedef struct CgroupIPKey {
        uint32_t prefixlen; /* in bits, the family byte included */
        uint8_t data[CGROUP_IP_KEY_DATA];
} __attribute__((packed)) CgroupIPKey;
#define CGROUP_IP_KEY_SIZE (sizeof(uint32_t) + CGROUP_IP_KEY_DATA)

/* The map key of a rule. */
CgroupIPKey cgroup_ip_key(const CgroupIPRule *rule);

/* The program for one direction (ingress: the packet's source address; egress: its destination),
 * looking the address up in the map map_fd (an LPM trie of CgroupIPKey to a one-byte verdict, 1
 * allow, 0 deny). Packets other than IPv4 and IPv6 pass. Writes at most CGROUP_IP_PROGRAM_MAX
 * instructions and returns their number. */
#define CGROUP_IP_PROGRAM_MAX 48U
size_t cgroup_ip_program(int map_fd, bool ingress, struct bpf_insn insn[static CGROUP_IP_PROGRAM_MAX]);

/* ---- attaching (cgroup-bpf.c) ---- */

/* What a service's cgroup is to enforce. */
typedef struct CgroupBpfPolicy {
        bool devices;               /* a device program: only what device_rules allow */
        CgroupDeviceRules device_rules;
        const CgroupIPRule *ip_rules; /* an IP program pair when there are any (the caller's) */
        size_t n_ip_rules;
} CgroupBpfPolicy;

/* What cgroup_bpf_attach() was doing when it failed, for the message: "load the device program",
 * "create the IP address map", "attach the egress program", ... (static text). */
typedef const char *CgroupBpfStep;

/* Builds, loads and attaches the programs of policy p to the cgroup cg_fd, closing every fd of them
 * again. With replace, the cgroup is one that was in use already (it may carry svd's programs of an
 * earlier start): the new programs are attached first, then svd's earlier ones detached, so that
 * the cgroup is never without them in between; without, it is one made anew, and nothing is looked
 * for. Returns 0, or -errno with *ret_step; on an error the programs attached so far stay until
 * the cgroup is removed (a start that fails never runs without them). */
int cgroup_bpf_attach(int cg_fd, const CgroupBpfPolicy *p, bool replace, CgroupBpfStep *ret_step);
