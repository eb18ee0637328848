/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The programs of the access lists (cgroup-bpf.h), without root: device rules from nodes and from a
 * /proc/devices text, and the generated device and IP programs run by a small interpreter of the
 * instructions they use (helpers and map included), against what the rules say. Loading and
 * attaching them is tests/integration/sandbox-bpf.sh's part. */
#include <arpa/inet.h>
#include <check.h>
#include <linux/if_ether.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "basic/macros.h"
#include "cgroup-bpf.h"
#include "check-run.h"

/* ---- an interpreter of the instructions the programs use ---- */

#define MAP_FD 42 /* the map fd the IP programs are built with: the table below */
#define STEPS_MAX 100000U

typedef struct Table {
        const CgroupIPRule *rules;
        size_t n;
        uint8_t verdicts[CGROUP_IP_RULES_MAX];
} Table;

typedef struct Packet {
        const uint8_t *data; /* from the network header on, as a cgroup skb program sees it */
        size_t len;
} Packet;

static const Table *the_table;
static const Packet *the_packet;

/* The LPM trie's lookup: the value of the longest key whose first prefixlen bits are the key's. */
static uint64_t lpm_lookup(const CgroupIPKey *key) {
        const uint8_t *best = NULL;
        uint32_t best_len = 0;
        for (size_t i = 0; i < the_table->n; i++) {
                CgroupIPKey k = cgroup_ip_key(&the_table->rules[i]);
                if (k.prefixlen > key->prefixlen || (best && k.prefixlen <= best_len))
                        continue;
                bool match = true;
                for (uint32_t bit = 0; bit < k.prefixlen && match; bit++)
                        match = ((k.data[bit / 8] ^ key->data[bit / 8]) & (0x80U >> (bit % 8))) == 0;
                if (match) {
                        best = &the_table->verdicts[i];
                        best_len = k.prefixlen;
                }
        }
        return (uint64_t) (uintptr_t) best;
}

static uint64_t call(int32_t helper, const uint64_t r[11]) {
        switch (helper) {
        case BPF_FUNC_map_lookup_elem:
                ck_assert_uint_eq(r[1], MAP_FD);
                return lpm_lookup((const CgroupIPKey *) (uintptr_t) r[2]);
        case BPF_FUNC_skb_load_bytes:
                if (r[2] + r[4] > the_packet->len)
                        return (uint64_t) -EFAULT;
                memcpy((void *) (uintptr_t) r[3], the_packet->data + r[2], r[4]);
                return 0;
        default:
                ck_abort_msg("helper %d is not one the programs call", helper);
                return 0;
        }
}

static uint64_t load(uint8_t size, uint64_t addr) {
        switch (size) {
        case BPF_B:
                return *(const uint8_t *) (uintptr_t) addr;
        case BPF_H:
                return *(const uint16_t *) (uintptr_t) addr;
        case BPF_W:
                return *(const uint32_t *) (uintptr_t) addr;
        default:
                return *(const uint64_t *) (uintptr_t) addr;
        }
}

static void store(uint8_t size, uint64_t addr, uint64_t v) {
        switch (size) {
        case BPF_B:
                *(uint8_t *) (uintptr_t) addr = (uint8_t) v;
                break;
        case BPF_H:
                *(uint16_t *) (uintptr_t) addr = (uint16_t) v;
                break;
        case BPF_W:
                *(uint32_t *) (uintptr_t) addr = (uint32_t) v;
                break;
        default:
                *(uint64_t *) (uintptr_t) addr = v;
        }
}

/* Runs insn[0..n) on ctx; fails the test on an instruction the programs should not have, a jump out
 * of the program, or a stack access out of the frame. */
static uint64_t run(const struct bpf_insn *insn, size_t n, void *ctx) {
        uint8_t stack[512];
        uint64_t r[11] = {};

        memset(stack, 0xAA, sizeof(stack)); /* what the program does not write is not zero */
        r[1] = (uint64_t) (uintptr_t) ctx;
        r[10] = (uint64_t) (uintptr_t) (stack + sizeof(stack));
        for (size_t pc = 0, steps = 0; steps < STEPS_MAX; steps++) {
                ck_assert_uint_lt(pc, n);
                const struct bpf_insn *i = &insn[pc++];
                uint8_t cls = BPF_CLASS(i->code);
                uint64_t imm = (uint64_t) (int64_t) i->imm;
                if (i->dst_reg == BPF_REG_10 && cls == BPF_ST) {
                        ck_assert_int_lt(i->off, 0);
                        ck_assert_int_ge(i->off, -(int) sizeof(stack));
                }
                switch (cls) {
                case BPF_ALU64: {
                        uint64_t src = BPF_SRC(i->code) == BPF_X ? r[i->src_reg] : imm;
                        ck_assert_uint_ne(i->dst_reg, BPF_REG_10);
                        switch (BPF_OP(i->code)) {
                        case BPF_MOV:
                                r[i->dst_reg] = src;
                                break;
                        case BPF_ADD:
                                r[i->dst_reg] += src;
                                break;
                        case BPF_AND:
                                r[i->dst_reg] &= src;
                                break;
                        case BPF_OR:
                                r[i->dst_reg] |= src;
                                break;
                        case BPF_XOR:
                                r[i->dst_reg] ^= src;
                                break;
                        case BPF_RSH:
                                r[i->dst_reg] >>= src;
                                break;
                        default:
                                ck_abort_msg("ALU64 op %#x", BPF_OP(i->code));
                        }
                        break;
                }
                case BPF_LDX:
                        ck_assert_uint_eq(BPF_MODE(i->code), BPF_MEM);
                        r[i->dst_reg] = load(BPF_SIZE(i->code), r[i->src_reg] + (uint64_t) (int64_t) i->off);
                        break;
                case BPF_ST:
                        ck_assert_uint_eq(BPF_MODE(i->code), BPF_MEM);
                        store(BPF_SIZE(i->code), r[i->dst_reg] + (uint64_t) (int64_t) i->off, imm);
                        break;
                case BPF_LD:
                        ck_assert_uint_eq(i->code, BPF_LD | BPF_DW | BPF_IMM);
                        ck_assert_uint_eq(i->src_reg, BPF_PSEUDO_MAP_FD);
                        ck_assert_uint_lt(pc, n);
                        r[i->dst_reg] = (uint32_t) i->imm;
                        pc++;
                        break;
                case BPF_JMP: {
                        bool jump;
                        switch (BPF_OP(i->code)) {
                        case BPF_JA:
                                jump = true;
                                break;
                        case BPF_JEQ:
                                jump = r[i->dst_reg] == imm;
                                break;
                        case BPF_JNE:
                                jump = r[i->dst_reg] != imm;
                                break;
                        case BPF_JSET:
                                jump = (r[i->dst_reg] & imm) != 0;
                                break;
                        case BPF_CALL:
                                r[0] = call(i->imm, r);
                                continue;
                        case BPF_EXIT:
                                return r[0];
                        default:
                                ck_abort_msg("JMP op %#x", BPF_OP(i->code));
                                return 0;
                        }
                        if (jump) {
                                ck_assert_int_ge(i->off, 0); /* forward only: no loop */
                                pc += (size_t) i->off;
                        }
                        break;
                }
                default:
                        ck_abort_msg("instruction class %#x", cls);
                }
        }
        ck_abort_msg("no exit after %u steps", STEPS_MAX);
        return 0;
}

/* ---- devices ---- */

static const char proc_devices[] = "Character devices:\n"
                                   "  1 mem\n"
                                   "  4 /dev/vc/0\n"
                                   "  4 tty\n"
                                   "  5 /dev/tty\n"
                                   "  5 /dev/console\n"
                                   "136 pts\n"
                                   "203 cpu/cpuid\n"
                                   "202 cpu/msr\n"
                                   "\n"
                                   "Block devices:\n"
                                   "  7 loop\n"
                                   "259 blkext\n";

static uint64_t device_access(const CgroupDeviceRules *rules, uint32_t type, uint32_t major, uint32_t minor,
                              uint32_t access) {
        struct bpf_insn *insn = NULL;
        size_t n = 0;
        struct bpf_cgroup_dev_ctx ctx = { .access_type = (access << 16) | type, .major = major, .minor = minor };
        ck_assert_int_eq(cgroup_device_program(rules, &insn, &n), 0);
        uint64_t v = run(insn, n, &ctx);
        ck_assert(v == 0 || v == 1);
        free(insn);
        return v;
}

enum { R = BPF_DEVCG_ACC_READ, W = BPF_DEVCG_ACC_WRITE, M = BPF_DEVCG_ACC_MKNOD, C = BPF_DEVCG_DEV_CHAR,
       B = BPF_DEVCG_DEV_BLOCK };

START_TEST(test_device_rules) {
        CgroupDeviceRules r = {};

        ck_assert_int_eq(cgroup_device_rules_add(&r, C, 1, 3, R), 0);
        ck_assert_int_eq(cgroup_device_rules_add(&r, C, 1, 3, W), 0); /* the same device: one rule */
        ck_assert_int_eq(cgroup_device_rules_add(&r, C, 1, CGROUP_DEVICE_ANY_MINOR, R), 0);
        ck_assert_uint_eq(r.n, 2);
        ck_assert_uint_eq(r.rules[0].access, R | W);
        cgroup_device_rules_done(&r);

        /* The groups of /proc/devices, by section, with globs; '/' is an ordinary character. */
        ck_assert_int_eq(cgroup_device_rules_add_group(&r, C, "mem", proc_devices, R), 1);
        ck_assert_int_eq(cgroup_device_rules_add_group(&r, C, "cpu/*", proc_devices, R), 2);
        ck_assert_int_eq(cgroup_device_rules_add_group(&r, C, "/dev/console", proc_devices, R | W), 1);
        ck_assert_int_eq(cgroup_device_rules_add_group(&r, C, "loop", proc_devices, R), 0); /* a block group */
        ck_assert_int_eq(cgroup_device_rules_add_group(&r, B, "*", proc_devices, R), 2);
        ck_assert_int_eq(cgroup_device_rules_add_group(&r, C, "nosuch*", proc_devices, R), 0);
        ck_assert_uint_eq(r.n, 6);
        ck_assert_uint_eq(r.rules[0].major, 1);
        ck_assert_uint_eq(r.rules[0].minor, CGROUP_DEVICE_ANY_MINOR);
        ck_assert_uint_eq(r.rules[1].major, 203);
        ck_assert_uint_eq(r.rules[3].major, 5);
        ck_assert_uint_eq(r.rules[3].access, R | W);
        ck_assert_uint_eq(r.rules[4].type, (uint32_t) B);
        ck_assert_uint_eq(r.rules[5].major, 259);
        cgroup_device_rules_done(&r);

        /* Nodes: stat(2) of what every system has. */
        ck_assert_int_eq(cgroup_device_rules_add_node(&r, "/dev/null", R), 0);
        ck_assert_uint_eq(r.n, 1);
        ck_assert_uint_eq(r.rules[0].type, (uint32_t) C);
        ck_assert_uint_eq(r.rules[0].major, 1);
        ck_assert_uint_eq(r.rules[0].minor, 3);
        ck_assert_int_eq(cgroup_device_rules_add_node(&r, "/dev/nonexistent-svd-test", R), -ENOENT);
        ck_assert_int_eq(cgroup_device_rules_add_node(&r, "/", R), -ENODEV);
        ck_assert_uint_eq(r.n, 1);
        cgroup_device_rules_done(&r);

        /* A bounded number. */
        for (uint32_t i = 0; i < CGROUP_DEVICE_RULES_MAX; i++)
                ck_assert_int_eq(cgroup_device_rules_add(&r, C, 1, i, R), 0);
        ck_assert_int_eq(cgroup_device_rules_add(&r, C, 2, 0, R), -E2BIG);
        cgroup_device_rules_done(&r);
}
END_TEST

START_TEST(test_device_program) {
        CgroupDeviceRules r = {};

        /* No rule: nothing is allowed (DevicePolicy=strict without DeviceAllow=). */
        ck_assert_uint_eq(device_access(&r, C, 1, 3, R), 0);

        ck_assert_int_eq(cgroup_device_rules_add(&r, C, 1, 3, R | W | M), 0);     /* /dev/null rwm */
        ck_assert_int_eq(cgroup_device_rules_add(&r, C, 1, 11, R), 0);            /* /dev/kmsg r */
        ck_assert_int_eq(cgroup_device_rules_add(&r, C, 136, CGROUP_DEVICE_ANY_MINOR, R | W), 0); /* char-pts */
        ck_assert_int_eq(cgroup_device_rules_add(&r, B, 7, 0, M), 0);             /* /dev/loop0 m */

        ck_assert_uint_eq(device_access(&r, C, 1, 3, R), 1);
        ck_assert_uint_eq(device_access(&r, C, 1, 3, R | W), 1);
        ck_assert_uint_eq(device_access(&r, C, 1, 3, M), 1);
        ck_assert_uint_eq(device_access(&r, C, 1, 11, R), 1);
        ck_assert_uint_eq(device_access(&r, C, 1, 11, W), 0);     /* an access the rule lacks */
        ck_assert_uint_eq(device_access(&r, C, 1, 11, R | W), 0); /* ... also with one it has */
        ck_assert_uint_eq(device_access(&r, C, 1, 5, R), 0);      /* another minor */
        ck_assert_uint_eq(device_access(&r, B, 1, 3, R), 0);      /* another type */
        ck_assert_uint_eq(device_access(&r, C, 136, 0, R | W), 1);
        ck_assert_uint_eq(device_access(&r, C, 136, 4095, W), 1); /* every minor */
        ck_assert_uint_eq(device_access(&r, C, 136, 7, M), 0);
        ck_assert_uint_eq(device_access(&r, B, 7, 0, M), 1);
        ck_assert_uint_eq(device_access(&r, B, 7, 0, R), 0);
        ck_assert_uint_eq(device_access(&r, C, 7, 0, M), 0);
        cgroup_device_rules_done(&r);

        /* As many rules as there may be still run to the end (the jumps reach). */
        for (uint32_t i = 0; i < CGROUP_DEVICE_RULES_MAX; i++)
                ck_assert_int_eq(cgroup_device_rules_add(&r, C, 10, i, R), 0);
        ck_assert_uint_eq(device_access(&r, C, 10, CGROUP_DEVICE_RULES_MAX - 1, R), 1);
        ck_assert_uint_eq(device_access(&r, C, 10, CGROUP_DEVICE_RULES_MAX, R), 0);
        cgroup_device_rules_done(&r);
}
END_TEST

/* ---- IP addresses ---- */

static CgroupIPRule rule(const char *addr, unsigned len, bool allow) {
        CgroupIPRule r = { .family = strchr(addr, ':') ? AF_INET6 : AF_INET, .prefixlen = len, .allow = allow };
        ck_assert_int_eq(inet_pton(r.family, addr, r.address), 1);
        return r;
}

/* What the program for direction `ingress` says of a packet between src and dst. */
static uint64_t ip_verdict(const CgroupIPRule *rules, size_t n, bool ingress, const char *src, const char *dst) {
        uint8_t data[64] = {};
        struct __sk_buff skb = {};
        Packet packet = { .data = data };
        Table table = { .rules = rules, .n = n };
        struct bpf_insn insn[CGROUP_IP_PROGRAM_MAX];

        for (size_t i = 0; i < n; i++)
                table.verdicts[i] = rules[i].allow;
        if (strchr(src, ':')) {
                struct ip6_hdr *h = (struct ip6_hdr *) data;
                h->ip6_vfc = 6 << 4;
                ck_assert_int_eq(inet_pton(AF_INET6, src, &h->ip6_src), 1);
                ck_assert_int_eq(inet_pton(AF_INET6, dst, &h->ip6_dst), 1);
                skb.protocol = htons(ETH_P_IPV6);
                packet.len = sizeof(*h);
        } else {
                struct iphdr *h = (struct iphdr *) data;
                h->version = 4;
                h->ihl = 5;
                ck_assert_int_eq(inet_pton(AF_INET, src, &h->saddr), 1);
                ck_assert_int_eq(inet_pton(AF_INET, dst, &h->daddr), 1);
                skb.protocol = htons(ETH_P_IP);
                packet.len = sizeof(*h);
        }
        the_table = &table;
        the_packet = &packet;
        size_t len = cgroup_ip_program(MAP_FD, ingress, insn);
        ck_assert_uint_le(len, CGROUP_IP_PROGRAM_MAX);
        uint64_t v = run(insn, len, &skb);
        ck_assert(v == 0 || v == 1);
        return v;
}

START_TEST(test_ip_key) {
        CgroupIPRule r = rule("10.1.0.0", 16, true);
        CgroupIPKey k = cgroup_ip_key(&r);
        ck_assert_uint_eq(sizeof(k), CGROUP_IP_KEY_SIZE);
        ck_assert_uint_eq(k.prefixlen, 8 + 16);
        ck_assert_uint_eq(k.data[0], 4);
        ck_assert_uint_eq(k.data[1], 10);
        ck_assert_uint_eq(k.data[2], 1);

        r = rule("::", 0, false);
        k = cgroup_ip_key(&r);
        ck_assert_uint_eq(k.prefixlen, 8);
        ck_assert_uint_eq(k.data[0], 6);
}
END_TEST

START_TEST(test_ip_program) {
        /* IPAddressDeny=any, IPAddressAllow=127.0.0.1 ::1, as unit_access_ip_rules() gives it. */
        const CgroupIPRule rules[] = {
                rule("127.0.0.1", 32, true),
                rule("::1", 128, true),
                rule("0.0.0.0", 0, false),
                rule("::", 0, false),
        };
        const size_t n = ELEMENTSOF(rules);

        /* Egress: the destination decides. */
        ck_assert_uint_eq(ip_verdict(rules, n, false, "127.0.0.2", "127.0.0.1"), 1);
        ck_assert_uint_eq(ip_verdict(rules, n, false, "127.0.0.1", "127.0.0.2"), 0);
        ck_assert_uint_eq(ip_verdict(rules, n, false, "127.0.0.1", "192.0.2.1"), 0);
        ck_assert_uint_eq(ip_verdict(rules, n, false, "::2", "::1"), 1);
        ck_assert_uint_eq(ip_verdict(rules, n, false, "::1", "2001:db8::1"), 0);
        /* Ingress: the source decides. */
        ck_assert_uint_eq(ip_verdict(rules, n, true, "127.0.0.1", "127.0.0.2"), 1);
        ck_assert_uint_eq(ip_verdict(rules, n, true, "127.0.0.2", "127.0.0.1"), 0);
        ck_assert_uint_eq(ip_verdict(rules, n, true, "::1", "fe80::1"), 1);
        ck_assert_uint_eq(ip_verdict(rules, n, true, "fe80::1", "::1"), 0);

        /* A longer allow inside a deny, and an IPv4 prefix that must not match IPv6 (the family byte). */
        const CgroupIPRule nested[] = {
                rule("10.1.0.0", 16, true), rule("10.0.0.0", 8, false), rule("::", 0, false),
        };
        ck_assert_uint_eq(ip_verdict(nested, ELEMENTSOF(nested), false, "0.0.0.0", "10.1.2.3"), 1);
        ck_assert_uint_eq(ip_verdict(nested, ELEMENTSOF(nested), false, "0.0.0.0", "10.2.0.1"), 0);
        ck_assert_uint_eq(ip_verdict(nested, ELEMENTSOF(nested), false, "0.0.0.0", "11.0.0.1"), 1);
        ck_assert_uint_eq(ip_verdict(nested, ELEMENTSOF(nested), false, "::", "a01::1"), 0); /* 0a01:: */
        const CgroupIPRule v4only[] = { rule("0.0.0.0", 0, false) };
        ck_assert_uint_eq(ip_verdict(v4only, 1, false, "::", "::1"), 1);
        ck_assert_uint_eq(ip_verdict(v4only, 1, false, "::", "::ffff:127.0.0.1"), 1); /* an IPv6 packet */
        ck_assert_uint_eq(ip_verdict(v4only, 1, false, "127.0.0.1", "127.0.0.1"), 0);
}
END_TEST

START_TEST(test_ip_program_other_packets) {
        const CgroupIPRule rules[] = { rule("0.0.0.0", 0, false), rule("::", 0, false) };
        Table table = { .rules = rules, .n = 2 };
        uint8_t data[4] = {};
        Packet packet = { .data = data, .len = sizeof(data) };
        struct bpf_insn insn[CGROUP_IP_PROGRAM_MAX];
        struct __sk_buff skb = { .protocol = htons(ETH_P_ARP) };

        the_table = &table;
        the_packet = &packet;
        size_t len = cgroup_ip_program(MAP_FD, false, insn);
        ck_assert_uint_eq(run(insn, len, &skb), 1); /* neither IPv4 nor IPv6: not the lists' business */
        /* An IPv4 packet too short for its addresses: denied. */
        skb.protocol = htons(ETH_P_IP);
        ck_assert_uint_eq(run(insn, len, &skb), 0);
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("cgroup-bpf");
        TCase *tc = tcase_create("programs");
        /* Thousands of rules and addresses: seconds under the sanitizers, past Check's default 4. */
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_device_rules);
        tcase_add_test(tc, test_device_program);
        tcase_add_test(tc, test_ip_key);
        tcase_add_test(tc, test_ip_program);
        tcase_add_test(tc, test_ip_program_other_packets);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return check_run(suite());
}
