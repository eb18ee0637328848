/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The Unit of unit.h: the names of its values and what follows from its fields. The files that load a
 * unit build on this one: unit-load.c (the reader), unit-keys.c (the table of keys) and unit-parse.c
 * (the values). */
#include <sys/reboot.h>
#include "unit.h"

#include <math.h>
#include <string.h>

#include "basic/string-table.h"

static const char *const restart_policy_table[_RESTART_POLICY_MAX] = {
        [RESTART_NO] = "no",
        [RESTART_ON_FAILURE] = "on-failure",
        [RESTART_ALWAYS] = "always",
        [RESTART_ON_SUCCESS] = "on-success",
        [RESTART_ON_ABNORMAL] = "on-abnormal",
        [RESTART_ON_WATCHDOG] = "on-watchdog",
        [RESTART_ON_ABORT] = "on-abort",
};

static const char *const service_type_table[_SERVICE_TYPE_MAX] = {
        [SERVICE_TYPE_SIMPLE] = "simple",
        [SERVICE_TYPE_EXEC] = "exec",
        [SERVICE_TYPE_NOTIFY] = "notify",
        [SERVICE_TYPE_ONESHOT] = "oneshot",
        [SERVICE_TYPE_FORKING] = "forking",
        [SERVICE_TYPE_IDLE] = "idle",
        [SERVICE_TYPE_DBUS] = "dbus",
};

DEFINE_STRING_TABLE_LOOKUP(service_type, ServiceType);

static const char *const unit_action_table[_UNIT_ACTION_MAX] = {
        [UNIT_ACTION_NONE] = "none",
        [UNIT_ACTION_EXIT] = "exit",
        [UNIT_ACTION_EXIT_FORCE] = "exit-force",
        [UNIT_ACTION_REBOOT] = "reboot",
        [UNIT_ACTION_REBOOT_FORCE] = "reboot-force",
        [UNIT_ACTION_REBOOT_IMMEDIATE] = "reboot-immediate",
        [UNIT_ACTION_POWEROFF] = "poweroff",
        [UNIT_ACTION_POWEROFF_FORCE] = "poweroff-force",
        [UNIT_ACTION_POWEROFF_IMMEDIATE] = "poweroff-immediate",
        [UNIT_ACTION_HALT] = "halt",
        [UNIT_ACTION_HALT_FORCE] = "halt-force",
        [UNIT_ACTION_HALT_IMMEDIATE] = "halt-immediate",
};

DEFINE_STRING_TABLE_LOOKUP(unit_action, UnitAction);

int unit_action_reboot_command(UnitAction a) {
        switch (a) {
        case UNIT_ACTION_REBOOT:
        case UNIT_ACTION_REBOOT_FORCE:
        case UNIT_ACTION_REBOOT_IMMEDIATE:
                return RB_AUTOBOOT;
        case UNIT_ACTION_POWEROFF:
        case UNIT_ACTION_POWEROFF_FORCE:
        case UNIT_ACTION_POWEROFF_IMMEDIATE:
                return RB_POWER_OFF;
        case UNIT_ACTION_HALT:
        case UNIT_ACTION_HALT_FORCE:
        case UNIT_ACTION_HALT_IMMEDIATE:
                return RB_HALT_SYSTEM;
        default:
                return 0;
        }
}

bool unit_action_is_force(UnitAction a) {
        return IN_SET(a, UNIT_ACTION_EXIT_FORCE, UNIT_ACTION_REBOOT_FORCE, UNIT_ACTION_POWEROFF_FORCE,
                      UNIT_ACTION_HALT_FORCE);
}

bool unit_action_is_immediate(UnitAction a) {
        return IN_SET(a, UNIT_ACTION_REBOOT_IMMEDIATE, UNIT_ACTION_POWEROFF_IMMEDIATE, UNIT_ACTION_HALT_IMMEDIATE);
}

static const char *const notify_access_table[_NOTIFY_ACCESS_MAX] = {
        [NOTIFY_ACCESS_NONE] = "none",
        [NOTIFY_ACCESS_MAIN] = "main",
        [NOTIFY_ACCESS_EXEC] = "exec",
        [NOTIFY_ACCESS_ALL] = "all",
};

DEFINE_STRING_TABLE_LOOKUP(notify_access, NotifyAccess);

static const char *const unit_dependency_table[_UNIT_DEPENDENCY_MAX] = {
        [UNIT_REQUIRES] = "Requires",
        [UNIT_WANTS] = "Wants",
        [UNIT_AFTER] = "After",
        [UNIT_BEFORE] = "Before",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(unit_dependency, UnitDependency);
DEFINE_STRING_TABLE_LOOKUP(restart_policy, RestartPolicy);

UnitKind unit_kind_from_path(const char *path) {
        size_t n = strlen(path);
        return n >= 7 && streq(path + n - 7, ".socket") ? UNIT_KIND_SOCKET : UNIT_KIND_SERVICE;
}

static const char *const log_output_table[_LOG_OUTPUT_MAX] = {
        [LOG_OUTPUT_LOG] = "log",       [LOG_OUTPUT_NULL] = "null",     [LOG_OUTPUT_INHERIT] = "inherit",
        [LOG_OUTPUT_FILE] = "file",     [LOG_OUTPUT_APPEND] = "append", [LOG_OUTPUT_TTY] = "tty",
        [LOG_OUTPUT_SOCKET] = "socket",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(log_output, LogOutput);

bool unit_implies_no_new_privileges(const Unit *u) {
        const UnitSandbox *s = &u->sandbox;
        return s->syscall_filter || s->syscall_native_only || s->address_families_set ||
               s->namespaces_allowed != UNIT_NAMESPACES_ALL || s->private_devices || s->protect_kernel_modules ||
               s->protect_kernel_logs || s->protect_kernel_tunables || s->protect_clock || s->protect_hostname ||
               s->memory_deny_write_execute || s->restrict_realtime || s->restrict_suid_sgid || s->lock_personality;
}

NotifyAccess unit_notify_access(const Unit *u) {
        assert(u);
        if (u->notify_access >= 0)
                return u->notify_access;
        return u->type == SERVICE_TYPE_NOTIFY || u->watchdog_usec > 0 ? NOTIFY_ACCESS_MAIN : NOTIFY_ACCESS_NONE;
}

bool unit_private_pids(const Unit *u) {
        assert(u);
        return u->private_pids > 0 || (u->private_pids < 0 && u->type == SERVICE_TYPE_FORKING);
}

bool unit_target_is_started(const char *target) {
        return streq(target, "default.target") || streq(target, "multi-user.target");
}

uint64_t unit_restart_delay_usec(const Unit *u, unsigned n_next) {
        assert(u);

        if (n_next <= 1 || u->restart_steps == 0 || u->restart_usec == 0 ||
            u->restart_max_delay_usec == USEC_INFINITY || u->restart_usec >= u->restart_max_delay_usec)
                return u->restart_usec;
        if (n_next > u->restart_steps)
                return u->restart_max_delay_usec;
        /* r_i = r_0 * (r_n / r_0) ^ (i / n), with i = n_next - 1 and n = RestartSteps= */
        return (uint64_t) ((long double) u->restart_usec *
                           powl((long double) u->restart_max_delay_usec / (long double) u->restart_usec,
                                (long double) (n_next - 1) / (long double) u->restart_steps));
}
