/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The IP programs (cgroup-bpf.h): a BPF_PROG_TYPE_CGROUP_SKB program per direction that looks a
 * packet's address up in an LPM trie of allowed and denied prefixes. */
#include "cgroup-bpf.h"

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <string.h>
#include <sys/socket.h>

#include "basic/macros.h"
#include "cgroup-bpf-insn.h"

CgroupIPKey cgroup_ip_key(const CgroupIPRule *rule) {
        CgroupIPKey k = { .prefixlen = 8 + rule->prefixlen };
        k.data[0] = rule->family == AF_INET ? 4 : 6;
        memcpy(k.data + 1, rule->address, rule->family == AF_INET ? 4 : 16);
        return k;
}

/* The key is built on the stack, at KEY (below the frame pointer r10): its prefix length, the
 * family byte, then the address that bpf_skb_load_bytes() copies out of the packet (a cgroup skb
 * program sees the packet from its network header on). The 24 bytes are zeroed first: the lookup
 * reads the whole key, the IPv4 one included. */
#define KEY (-24)
#define KEY_FAMILY (KEY + 4)
#define KEY_ADDRESS (KEY + 5)

enum { L_IPV4, L_IPV6, L_LOAD, L_ALLOW, L_DENY, _L_MAX };

typedef struct Asm {
        struct bpf_insn *insn;
        size_t n;
        size_t label[_L_MAX];
        struct {
                size_t at;
                int label;
        } fix[8];
        size_t n_fix;
} Asm;

static void emit(Asm *a, struct bpf_insn i) {
        assert(a->n < CGROUP_IP_PROGRAM_MAX);
        a->insn[a->n++] = i;
}

/* A jump to a label, its offset filled in by resolve(). */
static void emit_jump(Asm *a, struct bpf_insn i, int label) {
        assert(a->n_fix < ELEMENTSOF(a->fix));
        a->fix[a->n_fix].at = a->n;
        a->fix[a->n_fix++].label = label;
        emit(a, i);
}

static void label(Asm *a, int label) {
        a->label[label] = a->n;
}

static void resolve(Asm *a) {
        for (size_t i = 0; i < a->n_fix; i++)
                a->insn[a->fix[i].at].off = (int16_t) (a->label[a->fix[i].label] - a->fix[i].at - 1);
}

size_t cgroup_ip_program(int map_fd, bool ingress, struct bpf_insn insn[static CGROUP_IP_PROGRAM_MAX]) {
        /* Ingress looks at where a packet comes from, egress at where it goes. */
        const int32_t off4 = ingress ? offsetof(struct iphdr, saddr) : offsetof(struct iphdr, daddr);
        const int32_t off6 = ingress ? offsetof(struct ip6_hdr, ip6_src) : offsetof(struct ip6_hdr, ip6_dst);
        Asm a = { .insn = insn };

        emit(&a, insn_mov64_reg(BPF_REG_6, BPF_REG_1));
        emit(&a, insn_ldx_mem(BPF_W, BPF_REG_7, BPF_REG_6, offsetof(struct __sk_buff, protocol)));
        emit(&a, insn_st_mem(BPF_DW, BPF_REG_10, KEY, 0));
        emit(&a, insn_st_mem(BPF_DW, BPF_REG_10, KEY + 8, 0));
        emit(&a, insn_st_mem(BPF_DW, BPF_REG_10, KEY + 16, 0));
        /* skb->protocol is the ethertype as it is on the wire. */
        emit_jump(&a, insn_jmp_imm(BPF_JEQ, BPF_REG_7, htons(ETH_P_IP), 0), L_IPV4);
        emit_jump(&a, insn_jmp_imm(BPF_JEQ, BPF_REG_7, htons(ETH_P_IPV6), 0), L_IPV6);
        emit_jump(&a, insn_ja(0), L_ALLOW);

        label(&a, L_IPV4);
        emit(&a, insn_st_mem(BPF_W, BPF_REG_10, KEY, 8 + 32));
        emit(&a, insn_st_mem(BPF_B, BPF_REG_10, KEY_FAMILY, 4));
        emit(&a, insn_mov64_imm(BPF_REG_2, off4));
        emit(&a, insn_mov64_imm(BPF_REG_4, 4));
        emit_jump(&a, insn_ja(0), L_LOAD);

        label(&a, L_IPV6);
        emit(&a, insn_st_mem(BPF_W, BPF_REG_10, KEY, 8 + 128));
        emit(&a, insn_st_mem(BPF_B, BPF_REG_10, KEY_FAMILY, 6));
        emit(&a, insn_mov64_imm(BPF_REG_2, off6));
        emit(&a, insn_mov64_imm(BPF_REG_4, 16));

        /* bpf_skb_load_bytes(skb, offset, to, len); a packet too short for its address header is
         * denied: the kernel checked the header before, so this never happens to a real one. */
        label(&a, L_LOAD);
        emit(&a, insn_mov64_reg(BPF_REG_1, BPF_REG_6));
        emit(&a, insn_mov64_reg(BPF_REG_3, BPF_REG_10));
        emit(&a, insn_alu64_imm(BPF_ADD, BPF_REG_3, KEY_ADDRESS));
        emit(&a, insn_call(BPF_FUNC_skb_load_bytes));
        emit_jump(&a, insn_jmp_imm(BPF_JNE, BPF_REG_0, 0, 0), L_DENY);

        /* bpf_map_lookup_elem(map, &key): the value of the longest prefix that matches, or NULL. */
        insn_ld_map_fd(insn + a.n, BPF_REG_1, map_fd);
        a.n += 2;
        emit(&a, insn_mov64_reg(BPF_REG_2, BPF_REG_10));
        emit(&a, insn_alu64_imm(BPF_ADD, BPF_REG_2, KEY));
        emit(&a, insn_call(BPF_FUNC_map_lookup_elem));
        emit_jump(&a, insn_jmp_imm(BPF_JEQ, BPF_REG_0, 0, 0), L_ALLOW);
        emit(&a, insn_ldx_mem(BPF_B, BPF_REG_0, BPF_REG_0, 0));
        /* The verdict byte is 0 or 1; the verifier wants to see that the return value is. */
        emit(&a, insn_alu64_imm(BPF_AND, BPF_REG_0, 1));
        emit(&a, insn_exit());

        label(&a, L_ALLOW);
        emit(&a, insn_mov64_imm(BPF_REG_0, 1));
        emit(&a, insn_exit());
        label(&a, L_DENY);
        emit(&a, insn_mov64_imm(BPF_REG_0, 0));
        emit(&a, insn_exit());

        resolve(&a);
        return a.n;
}
