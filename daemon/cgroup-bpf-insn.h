/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * BPF instructions as values, for the programs cgroup-bpf-*.c generate. The
 * uapi header has the opcodes but not the kernel's BPF_MOV64_REG()-style
 * macros (tools/include/linux/filter.h); these are the few the programs use,
 * named after them: the kernel's documentation of the instruction set
 * (Documentation/bpf/standardization/instruction-set.rst) reads the same.
 */

#include <linux/bpf.h>
#include <stdint.h>

static inline struct bpf_insn insn_mov64_reg(uint8_t dst, uint8_t src) {
        return (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = dst, .src_reg = src };
}

static inline struct bpf_insn insn_mov64_imm(uint8_t dst, int32_t imm) {
        return (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = dst, .imm = imm };
}

/* dst = dst OP imm, 64 bits: BPF_ADD, BPF_AND, BPF_XOR, BPF_RSH, ... */
static inline struct bpf_insn insn_alu64_imm(uint8_t op, uint8_t dst, int32_t imm) {
        return (struct bpf_insn){ .code = BPF_ALU64 | op | BPF_K, .dst_reg = dst, .imm = imm };
}

/* dst = dst OP src, 64 bits */
static inline struct bpf_insn insn_alu64_reg(uint8_t op, uint8_t dst, uint8_t src) {
        return (struct bpf_insn){ .code = BPF_ALU64 | op | BPF_X, .dst_reg = dst, .src_reg = src };
}

/* dst = *(size *)(src + off), size BPF_B, BPF_H, BPF_W or BPF_DW */
static inline struct bpf_insn insn_ldx_mem(uint8_t size, uint8_t dst, uint8_t src, int16_t off) {
        return (struct bpf_insn){ .code = BPF_LDX | size | BPF_MEM, .dst_reg = dst, .src_reg = src, .off = off };
}

/* *(size *)(dst + off) = imm */
static inline struct bpf_insn insn_st_mem(uint8_t size, uint8_t dst, int16_t off, int32_t imm) {
        return (struct bpf_insn){ .code = BPF_ST | size | BPF_MEM, .dst_reg = dst, .off = off, .imm = imm };
}

/* if (dst OP imm) skip off instructions: BPF_JEQ, BPF_JNE, BPF_JSET, ... */
static inline struct bpf_insn insn_jmp_imm(uint8_t op, uint8_t dst, int32_t imm, int16_t off) {
        return (struct bpf_insn){ .code = BPF_JMP | op | BPF_K, .dst_reg = dst, .off = off, .imm = imm };
}

static inline struct bpf_insn insn_ja(int16_t off) {
        return (struct bpf_insn){ .code = BPF_JMP | BPF_JA, .off = off };
}

static inline struct bpf_insn insn_call(int32_t helper) {
        return (struct bpf_insn){ .code = BPF_JMP | BPF_CALL, .imm = helper };
}

static inline struct bpf_insn insn_exit(void) {
        return (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT };
}

/* dst = the map of map_fd: a 16-byte instruction, two slots (insn[0] and insn[1]). */
static inline void insn_ld_map_fd(struct bpf_insn insn[static 2], uint8_t dst, int map_fd) {
        insn[0] = (struct bpf_insn){
                .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = dst, .src_reg = BPF_PSEUDO_MAP_FD, .imm = map_fd,
        };
        insn[1] = (struct bpf_insn){ 0 };
}
