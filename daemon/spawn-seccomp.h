/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The seccomp filters of a service's sandboxing keys, compiled by svd with
 * libseccomp before the spawn (seccomp_plan_build()) into classic BPF
 * programs; the child only loads them (sandbox_child_load_filters(), the
 * last step before execve()). One program per key, as systemd does, so that a
 * failure names its key. Filters apply to x86-64, i386 and x32 system calls
 * alike, unless SystemCallArchitectures=native kills every non-native call.
 */

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spawn-sandbox.h"

typedef struct SeccompSettings {
        char *const *syscall_filter; /* "+name"/"-name" entries, names or @groups, in order; NULL: none */
        bool syscall_allow_list;     /* the filter is an allow list (else a deny list) */
        int syscall_errno;           /* what a filtered call returns; 0: the process is killed (SIGSYS) */
        bool native_only;            /* SystemCallArchitectures=native */
        const int *address_families; /* RestrictAddressFamilies= */
        size_t n_address_families;
        bool address_families_set;
        bool address_families_allow_list;
        uint64_t namespaces_allowed; /* RestrictNamespaces=: CLONE_NEW* flags still allowed; UINT64_MAX: all */
        bool restrict_realtime;
        bool lock_personality;
        bool memory_deny_write_execute;
        bool restrict_suid_sgid;
        bool protect_hostname;       /* sethostname(), setdomainname() */
        bool protect_kernel_modules; /* @module */
        bool protect_kernel_logs;    /* syslog() */
        bool private_devices;        /* @raw-io */
        bool protect_clock;          /* @clock */
} SeccompSettings;

/* Whether s asks for any filter. */
bool seccomp_settings_any(const SeccompSettings *s);

/* Compiles the filters of s into p->filters. 0, -ENOMEM, or another -errno with *ret_key the key whose
 * filter could not be built. */
int seccomp_plan_build(const SeccompSettings *s, SandboxPlan *p, SandboxKey *ret_key);
