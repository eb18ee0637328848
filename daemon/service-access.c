/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* DevicePolicy=, DeviceAllow=, IPAddressAllow=, IPAddressDeny= (systemd.resource-control(5)) into the
 * programs on a service's cgroup (cgroup-bpf.h). */
#include "service-access.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macros.h"
#include "cgroup-bpf.h"
#include "svd-log.h"

/* What DevicePolicy=closed (and auto with a DeviceAllow=) allows besides the list: the standard
 * pseudo devices systemd.resource-control(5) names, and as systemd does, the controlling terminal,
 * the pseudo terminal multiplexer and the pseudo terminals it makes (whose number is the group's). */
static const struct {
        const char *specifier;
        unsigned access;
} implicit_devices[] = {
        { "/dev/null", UNIT_DEVICE_ALL },    { "/dev/zero", UNIT_DEVICE_ALL },
        { "/dev/full", UNIT_DEVICE_ALL },    { "/dev/random", UNIT_DEVICE_ALL },
        { "/dev/urandom", UNIT_DEVICE_ALL }, { "/dev/tty", UNIT_DEVICE_ALL },
        { "/dev/ptmx", UNIT_DEVICE_ALL },    { "char-pts", UNIT_DEVICE_READ | UNIT_DEVICE_WRITE },
};

bool service_access_wanted(const Unit *u) {
        return unit_access_restricts_devices(&u->access) || unit_access_restricts_ip(&u->access);
}

const char *service_access_keys(const Unit *u) {
        bool devices = unit_access_restricts_devices(&u->access), ip = unit_access_restricts_ip(&u->access);
        return devices && ip ? "DevicePolicy=/DeviceAllow= and IPAddressAllow=/IPAddressDeny="
               : devices     ? "DevicePolicy=/DeviceAllow="
                             : "IPAddressAllow=/IPAddressDeny=";
}

const char *service_access_unsupported(const ServiceContext *ctx, const Unit *u) {
        bool devices = unit_access_restricts_devices(&u->access), ip = unit_access_restricts_ip(&u->access);

        if (!devices && !ip)
                return NULL;
        if (!ctx->cgroup->available)
                return ctx->cgroup->reason;
        if ((devices && !ctx->bpf->devices) || (ip && !ctx->bpf->firewall))
                return ctx->bpf->reason;
        return NULL;
}

static uint32_t device_access(unsigned a) {
        return ((a & UNIT_DEVICE_READ) ? BPF_DEVCG_ACC_READ : 0) |
               ((a & UNIT_DEVICE_WRITE) ? BPF_DEVCG_ACC_WRITE : 0) |
               ((a & UNIT_DEVICE_MKNOD) ? BPF_DEVCG_ACC_MKNOD : 0);
}

/* One specifier into rules: a node path resolved with stat(2), a group matched against
 * /proc/devices (read at the first group, into *proc_devices). What does not resolve allows
 * nothing and is said at debug level; only running out of memory or rules fails. */
static int add_specifier(Service *s, CgroupDeviceRules *rules, const char *spec, unsigned access,
                         char **proc_devices) {
        uint32_t type = 0;
        const char *pattern = NULL;
        int r;

        if (strneq(spec, "char-", 5)) {
                type = BPF_DEVCG_DEV_CHAR;
                pattern = spec + 5;
        } else if (strneq(spec, "block-", 6)) {
                type = BPF_DEVCG_DEV_BLOCK;
                pattern = spec + 6;
        }
        if (!pattern) {
                r = cgroup_device_rules_add_node(rules, spec, device_access(access));
                if (r == -ENOMEM || r == -E2BIG)
                        return r;
                if (r < 0)
                        log_debug_errno(r, "%s: DeviceAllow= '%s' is no device node here (%m), "
                                        "allowing nothing for it.", s->name, spec);
                return 0;
        }
        if (!*proc_devices) {
                r = cgroup_read_proc_devices(proc_devices);
                if (r < 0)
                        return r;
        }
        r = cgroup_device_rules_add_group(rules, type, pattern, *proc_devices, device_access(access));
        if (r == 0)
                log_debug("%s: DeviceAllow= '%s' matches no device group of /proc/devices, "
                          "allowing nothing for it.", s->name, spec);
        return r < 0 ? r : 0;
}

static int device_rules(Service *s, const UnitAccess *a, CgroupDeviceRules *rules) {
        _cleanup_free_ char *proc_devices = NULL;
        int r;

        if (a->device_policy == DEVICE_POLICY_CLOSED || a->device_policy == DEVICE_POLICY_AUTO)
                for (size_t i = 0; i < ELEMENTSOF(implicit_devices); i++) {
                        r = add_specifier(s, rules, implicit_devices[i].specifier, implicit_devices[i].access,
                                          &proc_devices);
                        if (r < 0)
                                return r;
                }
        for (size_t i = 0; i < a->n_device_allow; i++) {
                r = add_specifier(s, rules, a->device_allow[i].specifier, a->device_allow[i].access, &proc_devices);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int ip_rules(const UnitAccess *a, CgroupIPRule **ret, size_t *ret_n) {
        _cleanup_free_ UnitIPRule *rules = NULL;
        size_t n = 0;
        int r = unit_access_ip_rules(a, &rules, &n);
        if (r < 0)
                return r;
        CgroupIPRule *c = calloc(n ?: 1, sizeof(CgroupIPRule));
        if (!c)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                c[i] = (CgroupIPRule){ .family = rules[i].prefix.family,
                                       .prefixlen = rules[i].prefix.prefixlen,
                                       .allow = rules[i].allow };
                memcpy(c[i].address, rules[i].prefix.address, sizeof(c[i].address));
        }
        *ret = c;
        *ret_n = n;
        return 0;
}

int service_access_apply(Service *s, int cg_fd, bool fresh, char **ret_error) {
        const Unit *u = s->def->unit;
        const char *why = service_access_unsupported(s->ctx, u);
        _cleanup_(cgroup_device_rules_done) CgroupDeviceRules devices = {};
        _cleanup_free_ CgroupIPRule *ip = NULL;
        size_t n_ip = 0;
        CgroupBpfStep step = NULL;
        int r;

        /* A cgroup made anew carries no program: nothing to replace when nothing is wanted. */
        if (fresh && !service_access_wanted(u))
                return 0;
        if (why) {
                if (asprintf(ret_error, "Failed to enforce %s: %s", service_access_keys(u), why) < 0)
                        *ret_error = NULL;
                return -EOPNOTSUPP;
        }
        if (unit_access_restricts_devices(&u->access)) {
                r = device_rules(s, &u->access, &devices);
                if (r < 0) {
                        if (r != -ENOMEM &&
                            asprintf(ret_error, "Failed to resolve DeviceAllow=: %s", strerror(-r)) < 0)
                                *ret_error = NULL;
                        return r;
                }
        }
        if (unit_access_restricts_ip(&u->access)) {
                r = ip_rules(&u->access, &ip, &n_ip);
                if (r < 0)
                        return r;
        }
        const CgroupBpfPolicy p = {
                .devices = unit_access_restricts_devices(&u->access),
                .device_rules = devices,
                .ip_rules = ip,
                .n_ip_rules = n_ip,
        };
        r = cgroup_bpf_attach(cg_fd, &p, /* replace= */ !fresh, &step);
        if (r < 0) {
                if (asprintf(ret_error, "Failed to %s for %s: %s", step, service_access_keys(u), strerror(-r)) < 0)
                        *ret_error = NULL;
                return r;
        }
        if (p.devices || n_ip > 0)
                log_debug("%s: %s enforced: %zu device rules, %zu IP prefixes.", s->name, service_access_keys(u),
                          devices.n, n_ip);
        return 0;
}
