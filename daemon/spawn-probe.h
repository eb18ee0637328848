/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * spawn_probe() asks the kernel once, at start-up, whether it accepts the
 * Linux 7.1 flags (CLONE_AUTOREAP, CLONE_NNP, CLONE_PIDFD_AUTOKILL) and can
 * report an autoreaped child's exit status through PIDFD_GET_INFO. It never
 * looks at the kernel version.
 */

#include <stdbool.h>
#include <stdint.h>

#include "process.h"

typedef struct SpawnProbe {
        SpawnMode mode;
        char reason[256];
        uint64_t flags;    /* the flags the kernel accepted */
        bool cap_sys_admin; /* autokill without CLONE_NNP is allowed */
        int cap_last;       /* highest capability the kernel knows */
} SpawnProbe;

/* Probes the kernel. Never fails: a kernel without the flags gives
 * SPAWN_MODE_FALLBACK with the reason. force_fallback records that the
 * fallback was asked for. */
void spawn_probe(bool force_fallback, SpawnProbe *ret);
