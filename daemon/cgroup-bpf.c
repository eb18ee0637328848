/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The programs of a service's access lists (cgroup-bpf.h): the start-up probe, loading, attaching to
 * the service's cgroup, detaching those of an earlier start. */
#include "cgroup-bpf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "basic/macros.h"
#include "basic/missing-syscall.h"

/* The names svd's programs carry (bpf_prog_info.name, at most 15 bytes): how svd tells its own
 * programs on a cgroup from any other. */
#define PROG_DEVICES "svd_devices"
#define PROG_INGRESS "svd_ip_ingress"
#define PROG_EGRESS "svd_ip_egress"

#define CGROUP_PROGS_MAX 64U /* the kernel's BPF_CGROUP_MAX_PROGS per cgroup and attach type */

static uint64_t ptr_to_u64(const void *p) {
        return (uint64_t) (uintptr_t) p;
}

/* The kernel refuses an attribute whose bytes past the command's fields are not zero, and a union's
 * initializer leaves the bytes of its other members unspecified: every attribute starts zeroed. */
static void attr_zero(union bpf_attr *attr) {
        memset(attr, 0, sizeof(*attr));
}

static int bpf(int cmd, union bpf_attr *attr) {
        long r = sys_bpf(cmd, attr, sizeof(*attr));
        return r < 0 ? -errno : (int) r;
}

/* A program's fd (O_CLOEXEC, as every bpf(2) fd), or -errno. The programs use no GPL-only helper;
 * the license string is what they are under. */
static int prog_load(enum bpf_prog_type type, enum bpf_attach_type attach, const char *name,
                     const struct bpf_insn *insn, size_t n) {
        union bpf_attr a;
        attr_zero(&a);
        a.prog_type = type;
        a.expected_attach_type = attach;
        a.insns = ptr_to_u64(insn);
        a.insn_cnt = (uint32_t) n;
        a.license = ptr_to_u64("GPL");
        snprintf(a.prog_name, sizeof(a.prog_name), "%s", name);
        return bpf(BPF_PROG_LOAD, &a);
}

static int map_create_ip(uint32_t max_entries) {
        union bpf_attr a;
        attr_zero(&a);
        a.map_type = BPF_MAP_TYPE_LPM_TRIE;
        a.key_size = CGROUP_IP_KEY_SIZE;
        a.value_size = 1;
        a.max_entries = max_entries;
        a.map_flags = BPF_F_NO_PREALLOC; /* the only way an LPM trie comes */
        snprintf(a.map_name, sizeof(a.map_name), "svd_ip");
        return bpf(BPF_MAP_CREATE, &a);
}

static int prog_attach(int cg_fd, int prog_fd, enum bpf_attach_type type) {
        /* BPF_F_ALLOW_MULTI: programs of the cgroups above (systemd's, where svd runs under it) run
         * as well, and every one must allow; and svd's next program can be attached before this one
         * is detached. */
        union bpf_attr a;
        attr_zero(&a);
        a.target_fd = (uint32_t) cg_fd;
        a.attach_bpf_fd = (uint32_t) prog_fd;
        a.attach_type = type;
        a.attach_flags = BPF_F_ALLOW_MULTI;
        return bpf(BPF_PROG_ATTACH, &a);
}

static int prog_info(int fd, struct bpf_prog_info *ret) {
        *ret = (struct bpf_prog_info){};
        union bpf_attr a;
        attr_zero(&a);
        a.info.bpf_fd = (uint32_t) fd;
        a.info.info_len = sizeof(*ret);
        a.info.info = ptr_to_u64(ret);
        return bpf(BPF_OBJ_GET_INFO_BY_FD, &a);
}

/* Loads and attaches one program; its id in *ret_id (to keep it when the earlier ones go). */
static int load_and_attach(int cg_fd, enum bpf_prog_type type, enum bpf_attach_type attach, const char *name,
                           const struct bpf_insn *insn, size_t n, uint32_t *ret_id, CgroupBpfStep load_step,
                           CgroupBpfStep attach_step, CgroupBpfStep *ret_step) {
        _cleanup_close_ int fd = prog_load(type, attach, name, insn, n);
        if (fd < 0) {
                *ret_step = load_step;
                return fd;
        }
        int r = prog_attach(cg_fd, fd, attach);
        if (r < 0) {
                *ret_step = attach_step;
                return r;
        }
        struct bpf_prog_info info;
        *ret_id = prog_info(fd, &info) >= 0 ? info.id : 0;
        return 0;
}

/* Detaches the programs named `name` from the cgroup but the one of id keep: those an earlier start
 * attached. Programs of other names are somebody else's and stay. */
static int detach_earlier(int cg_fd, enum bpf_attach_type type, const char *name, uint32_t keep) {
        uint32_t ids[CGROUP_PROGS_MAX];
        union bpf_attr q;
        attr_zero(&q);
        q.query.target_fd = (uint32_t) cg_fd;
        q.query.attach_type = type;
        q.query.prog_ids = ptr_to_u64(ids);
        q.query.prog_cnt = CGROUP_PROGS_MAX;
        int r = bpf(BPF_PROG_QUERY, &q);
        if (r < 0)
                return r;
        for (uint32_t i = 0; i < MIN(q.query.prog_cnt, CGROUP_PROGS_MAX); i++) {
                if (ids[i] == keep)
                        continue;
                union bpf_attr g;
                attr_zero(&g);
                g.prog_id = ids[i];
                _cleanup_close_ int fd = bpf(BPF_PROG_GET_FD_BY_ID, &g);
                if (fd == -ENOENT)
                        continue; /* gone meanwhile */
                if (fd < 0)
                        return fd;
                struct bpf_prog_info info;
                r = prog_info(fd, &info);
                if (r < 0)
                        return r;
                if (!streq(info.name, name))
                        continue;
                union bpf_attr d;
                attr_zero(&d);
                d.target_fd = (uint32_t) cg_fd;
                d.attach_bpf_fd = (uint32_t) fd;
                d.attach_type = type;
                r = bpf(BPF_PROG_DETACH, &d);
                if (r < 0 && r != -ENOENT)
                        return r;
        }
        return 0;
}

static int attach_devices(int cg_fd, const CgroupDeviceRules *rules, uint32_t *ret_id, CgroupBpfStep *ret_step) {
        _cleanup_free_ struct bpf_insn *insn = NULL;
        size_t n;
        int r = cgroup_device_program(rules, &insn, &n);
        if (r < 0) {
                *ret_step = "build the device program";
                return r;
        }
        return load_and_attach(cg_fd, BPF_PROG_TYPE_CGROUP_DEVICE, BPF_CGROUP_DEVICE, PROG_DEVICES, insn, n, ret_id,
                               "load the device program", "attach the device program", ret_step);
}

static int attach_ip(int cg_fd, const CgroupIPRule *rules, size_t n_rules, uint32_t ret_ids[static 2],
                     CgroupBpfStep *ret_step) {
        if (n_rules > CGROUP_IP_RULES_MAX) {
                *ret_step = "create the IP address map";
                return -E2BIG;
        }
        /* The map lives as long as a program that uses it: the fd goes once they are loaded. */
        _cleanup_close_ int map = map_create_ip((uint32_t) n_rules);
        if (map < 0) {
                *ret_step = "create the IP address map";
                return map;
        }
        for (size_t i = 0; i < n_rules; i++) {
                CgroupIPKey key = cgroup_ip_key(&rules[i]);
                uint8_t verdict = rules[i].allow;
                union bpf_attr u;
                attr_zero(&u);
                u.map_fd = (uint32_t) map;
                u.key = ptr_to_u64(&key);
                u.value = ptr_to_u64(&verdict);
                u.flags = BPF_ANY;
                int r = bpf(BPF_MAP_UPDATE_ELEM, &u);
                if (r < 0) {
                        *ret_step = "fill the IP address map";
                        return r;
                }
        }
        struct bpf_insn insn[CGROUP_IP_PROGRAM_MAX];
        size_t n = cgroup_ip_program(map, /* ingress= */ true, insn);
        int r = load_and_attach(cg_fd, BPF_PROG_TYPE_CGROUP_SKB, BPF_CGROUP_INET_INGRESS, PROG_INGRESS, insn, n,
                                &ret_ids[0], "load the ingress IP program", "attach the ingress IP program",
                                ret_step);
        if (r < 0)
                return r;
        n = cgroup_ip_program(map, /* ingress= */ false, insn);
        return load_and_attach(cg_fd, BPF_PROG_TYPE_CGROUP_SKB, BPF_CGROUP_INET_EGRESS, PROG_EGRESS, insn, n,
                               &ret_ids[1], "load the egress IP program", "attach the egress IP program", ret_step);
}

int cgroup_bpf_attach(int cg_fd, const CgroupBpfPolicy *p, bool replace, CgroupBpfStep *ret_step) {
        uint32_t ids[3] = {};
        int r;

        assert(cg_fd >= 0);
        assert(p);
        assert(ret_step);

        if (p->devices) {
                r = attach_devices(cg_fd, &p->device_rules, &ids[0], ret_step);
                if (r < 0)
                        return r;
        }
        if (p->n_ip_rules > 0) {
                r = attach_ip(cg_fd, p->ip_rules, p->n_ip_rules, ids + 1, ret_step);
                if (r < 0)
                        return r;
        }
        if (!replace)
                return 0;
        static const struct {
                enum bpf_attach_type type;
                const char *name;
        } ours[] = {
                { BPF_CGROUP_DEVICE, PROG_DEVICES },
                { BPF_CGROUP_INET_INGRESS, PROG_INGRESS },
                { BPF_CGROUP_INET_EGRESS, PROG_EGRESS },
        };
        for (size_t i = 0; i < ELEMENTSOF(ours); i++) {
                r = detach_earlier(cg_fd, ours[i].type, ours[i].name, ids[i]);
                /* Where svd may not look (no CAP_BPF), or the kernel has no cgroup BPF, svd attached
                 * nothing either: nothing to detach. */
                if (r < 0 && !(ids[i] == 0 && IN_SET(r, -ENOSYS, -EINVAL, -EOPNOTSUPP, -EPERM, -EACCES))) {
                        *ret_step = "detach the programs of an earlier start";
                        return r;
                }
        }
        return 0;
}

void cgroup_bpf_probe(CgroupBpfProbe *ret) {
        _cleanup_free_ struct bpf_insn *dev = NULL;
        CgroupDeviceRules none = {};
        size_t n;
        int r;

        *ret = (CgroupBpfProbe){};
        /* The programs svd generates, with no rule: what the verifier of this kernel says of them. */
        r = cgroup_device_program(&none, &dev, &n);
        if (r >= 0) {
                r = prog_load(BPF_PROG_TYPE_CGROUP_DEVICE, BPF_CGROUP_DEVICE, PROG_DEVICES, dev, n);
                safe_close(r);
        }
        ret->devices = r >= 0;
        if (r < 0) {
                snprintf(ret->reason, sizeof(ret->reason), "the kernel does not load a cgroup device program: %s",
                         strerror(-r));
                return;
        }
        _cleanup_close_ int map = map_create_ip(1);
        if (map < 0) {
                snprintf(ret->reason, sizeof(ret->reason), "the kernel does not create an LPM trie map: %s",
                         strerror(-map));
                return;
        }
        struct bpf_insn insn[CGROUP_IP_PROGRAM_MAX];
        n = cgroup_ip_program(map, /* ingress= */ false, insn);
        r = prog_load(BPF_PROG_TYPE_CGROUP_SKB, BPF_CGROUP_INET_EGRESS, PROG_EGRESS, insn, n);
        safe_close(r);
        ret->firewall = r >= 0;
        if (r < 0) {
                snprintf(ret->reason, sizeof(ret->reason), "the kernel does not load a cgroup skb program: %s",
                         strerror(-r));
                return;
        }
        snprintf(ret->reason, sizeof(ret->reason), "device and IP programs load");
}
