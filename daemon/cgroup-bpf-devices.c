/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The device program (cgroup-bpf.h): device numbers and their access, from device nodes and the
 * groups of /proc/devices, into a BPF_PROG_TYPE_CGROUP_DEVICE program. */
#include "cgroup-bpf.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "basic/file-util.h"
#include "basic/macros.h"
#include "cgroup-bpf-insn.h"

int cgroup_device_rules_add(CgroupDeviceRules *r, uint32_t type, uint32_t major, uint32_t minor, uint32_t access) {
        for (size_t i = 0; i < r->n; i++)
                if (r->rules[i].type == type && r->rules[i].major == major && r->rules[i].minor == minor) {
                        r->rules[i].access |= access;
                        return 0;
                }
        if (r->n >= CGROUP_DEVICE_RULES_MAX)
                return -E2BIG;
        CgroupDeviceRule *a = reallocarray(r->rules, r->n + 1, sizeof(CgroupDeviceRule));
        if (!a)
                return -ENOMEM;
        r->rules = a;
        r->rules[r->n++] = (CgroupDeviceRule){ .type = type, .major = major, .minor = minor, .access = access };
        return 0;
}

int cgroup_device_rules_add_node(CgroupDeviceRules *r, const char *path, uint32_t access) {
        struct stat st;

        if (stat(path, &st) < 0)
                return -errno;
        if (!S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode))
                return -ENODEV;
        return cgroup_device_rules_add(r, S_ISCHR(st.st_mode) ? BPF_DEVCG_DEV_CHAR : BPF_DEVCG_DEV_BLOCK,
                                       major(st.st_rdev), minor(st.st_rdev), access);
}

/* /proc/devices: a "Character devices:" and a "Block devices:" section, each a line "MAJOR NAME" per
 * registered major (fs/proc/devices.c). */
int cgroup_device_rules_add_group(CgroupDeviceRules *r, uint32_t type, const char *pattern,
                                  const char *proc_devices, uint32_t access) {
        uint32_t section = 0;
        int added = 0;

        for (const char *line = proc_devices; line && *line;) {
                const char *end = strchrnul(line, '\n');
                size_t len = (size_t) (end - line);
                char name[256];
                unsigned maj;
                int k = 0;

                if (len >= 18 && strneq(line, "Character devices:", 18))
                        section = BPF_DEVCG_DEV_CHAR;
                else if (len >= 14 && strneq(line, "Block devices:", 14))
                        section = BPF_DEVCG_DEV_BLOCK;
                else if (section == type && len < sizeof(name) && sscanf(line, "%u %n", &maj, &k) == 1 && k > 0 &&
                         (size_t) k < len) {
                        memcpy(name, line + k, len - (size_t) k);
                        name[len - (size_t) k] = '\0';
                        if (fnmatch(pattern, name, 0) == 0) {
                                int e = cgroup_device_rules_add(r, type, maj, CGROUP_DEVICE_ANY_MINOR, access);
                                if (e < 0)
                                        return e;
                                added++;
                        }
                }
                line = *end ? end + 1 : end;
        }
        return added;
}

void cgroup_device_rules_done(CgroupDeviceRules *r) {
        free(r->rules);
        r->rules = NULL;
        r->n = 0;
}

int cgroup_read_proc_devices(char **ret) {
        _cleanup_close_ int fd = open("/proc/devices", O_RDONLY | O_CLOEXEC);
        _cleanup_free_ char *buf = NULL;
        size_t size = 0;

        if (fd < 0)
                return -errno;
        int r = read_full_fd(fd, CGROUP_PROC_DEVICES_MAX, &buf, &size);
        if (r < 0)
                return r;
        char *s = realloc(buf, size + 1);
        if (!s)
                return -ENOMEM;
        buf = NULL;
        s[size] = '\0';
        *ret = s;
        return 0;
}

/* The program reads the context (struct bpf_cgroup_dev_ctx) into registers once:
 *   r2 = the access asked for (BPF_DEVCG_ACC_*), r3 = the type (BPF_DEVCG_DEV_*),
 *   r4 = major, r5 = minor;
 * then tries each rule in turn, a block that goes on to the next rule on a mismatch and returns 1
 * at its end, and returns 0 after the last.
 *
 * A block compares in scratch registers (r0, r1: (type ^ T) | (major ^ M) | (minor ^ N) == 0, then
 * access & ~A == 0) rather than with a jump per field on r2..r5 themselves. The verifier walks
 * every path, and a jump on a context register teaches it that register's value on one side;
 * the paths that reach the next rule then differ in what it knows, cannot be pruned as the same,
 * and the walk grows with the square of the rules (4096 rules: over its million instructions).
 * Scratch registers are overwritten by the next block, so every path reaches it alike. */
#define DEVICE_PROLOGUE 6U
#define DEVICE_BLOCK_MAX 14U

static size_t device_block(const CgroupDeviceRule *rule, struct bpf_insn b[static DEVICE_BLOCK_MAX]) {
        const uint32_t all = BPF_DEVCG_ACC_READ | BPF_DEVCG_ACC_WRITE | BPF_DEVCG_ACC_MKNOD;
        size_t n = 0, jumps[2], n_jumps = 0;

        b[n++] = insn_mov64_reg(BPF_REG_0, BPF_REG_3);
        b[n++] = insn_alu64_imm(BPF_XOR, BPF_REG_0, (int32_t) rule->type);
        b[n++] = insn_mov64_reg(BPF_REG_1, BPF_REG_4);
        b[n++] = insn_alu64_imm(BPF_XOR, BPF_REG_1, (int32_t) rule->major);
        b[n++] = insn_alu64_reg(BPF_OR, BPF_REG_0, BPF_REG_1);
        if (rule->minor != CGROUP_DEVICE_ANY_MINOR) {
                b[n++] = insn_mov64_reg(BPF_REG_1, BPF_REG_5);
                b[n++] = insn_alu64_imm(BPF_XOR, BPF_REG_1, (int32_t) rule->minor);
                b[n++] = insn_alu64_reg(BPF_OR, BPF_REG_0, BPF_REG_1);
        }
        jumps[n_jumps++] = n;
        b[n++] = insn_jmp_imm(BPF_JNE, BPF_REG_0, 0, 0);
        /* Any access the rule lacks: next rule. */
        if ((rule->access & all) != all) {
                b[n++] = insn_mov64_reg(BPF_REG_1, BPF_REG_2);
                b[n++] = insn_alu64_imm(BPF_AND, BPF_REG_1, (int32_t) (~rule->access & all));
                jumps[n_jumps++] = n;
                b[n++] = insn_jmp_imm(BPF_JNE, BPF_REG_1, 0, 0);
        }
        b[n++] = insn_mov64_imm(BPF_REG_0, 1);
        b[n++] = insn_exit();
        /* The jumps go to the end of the block: the next rule. */
        for (size_t i = 0; i < n_jumps; i++)
                b[jumps[i]].off = (int16_t) (n - jumps[i] - 1);
        return n;
}

int cgroup_device_program(const CgroupDeviceRules *r, struct bpf_insn **ret, size_t *ret_n) {
        size_t n = 0, max = DEVICE_PROLOGUE + r->n * DEVICE_BLOCK_MAX + 2;
        struct bpf_insn *p = calloc(max, sizeof(struct bpf_insn));

        if (!p)
                return -ENOMEM;
        p[n++] = insn_ldx_mem(BPF_W, BPF_REG_2, BPF_REG_1, offsetof(struct bpf_cgroup_dev_ctx, access_type));
        p[n++] = insn_mov64_reg(BPF_REG_3, BPF_REG_2);
        p[n++] = insn_alu64_imm(BPF_AND, BPF_REG_3, 0xFFFF);
        p[n++] = insn_alu64_imm(BPF_RSH, BPF_REG_2, 16);
        p[n++] = insn_ldx_mem(BPF_W, BPF_REG_4, BPF_REG_1, offsetof(struct bpf_cgroup_dev_ctx, major));
        p[n++] = insn_ldx_mem(BPF_W, BPF_REG_5, BPF_REG_1, offsetof(struct bpf_cgroup_dev_ctx, minor));
        for (size_t i = 0; i < r->n; i++)
                n += device_block(&r->rules[i], p + n);
        p[n++] = insn_mov64_imm(BPF_REG_0, 0);
        p[n++] = insn_exit();
        *ret = p;
        *ret_n = n;
        return 0;
}
