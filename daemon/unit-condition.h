/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * [Unit] Condition*= and Assert*= (systemd.unit(5), "Conditions and Asserts"): checks made each
 * time a unit is about to start, automatic restarts included.
 *
 * A value is "[|][!]PARAMETER": '!' negates the check, '|' makes it a triggering condition. A
 * unit starts when every non-triggering condition holds and, if it has triggering ones, at least
 * one of them holds. A condition that is not met skips the start: the unit stays inactive, which
 * is no failure (a unit that Requires= it still starts). An assertion that is not met fails the
 * start. An empty assignment of any Condition*= key drops every condition so far, of any kind; of
 * any Assert*= key every assertion.
 *
 * Parameters are checked when the unit is loaded (a bad one fails the unit); user and group
 * names of ConditionUser=/ConditionGroup= are resolved then, as User=/Group= are. The checks
 * themselves read the file system, /proc and /sys at start time, as systemd's do; they never
 * block on anything but those.
 */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "basic/macros.h"

#define UNIT_CONDITIONS_MAX 256U /* Condition*= and Assert*= entries in one unit file */

typedef enum ConditionType {
        CONDITION_PATH_EXISTS,
        CONDITION_PATH_EXISTS_GLOB,
        CONDITION_PATH_IS_DIRECTORY,
        CONDITION_PATH_IS_SYMBOLIC_LINK,
        CONDITION_PATH_IS_MOUNT_POINT,
        CONDITION_PATH_IS_READ_WRITE,
        CONDITION_DIRECTORY_NOT_EMPTY,
        CONDITION_FILE_NOT_EMPTY,
        CONDITION_FILE_IS_EXECUTABLE,
        CONDITION_VIRTUALIZATION,
        CONDITION_HOST,
        CONDITION_KERNEL_COMMAND_LINE,
        CONDITION_SECURITY,
        CONDITION_CAPABILITY,
        CONDITION_AC_POWER,
        CONDITION_NEEDS_UPDATE,
        CONDITION_FIRST_BOOT,
        CONDITION_USER,
        CONDITION_GROUP,
        CONDITION_ENVIRONMENT,
        CONDITION_CPUS,
        CONDITION_ARCHITECTURE,
        CONDITION_CREDENTIAL,
        _CONDITION_TYPE_MAX,
        _CONDITION_TYPE_INVALID = -EINVAL,
} ConditionType;

/* "PathExists", ...: the key without its "Condition" or "Assert". */
const char *condition_type_to_string(ConditionType t);
ConditionType condition_type_from_string(const char *s);

typedef struct UnitCondition {
        ConditionType type;
        bool assertion; /* Assert*= */
        bool trigger;   /* '|' */
        bool negate;    /* '!' */
        char *parameter; /* after '|' and '!', specifiers resolved */
        /* Resolved at load time: ConditionUser=/ConditionGroup= by name (found: false when the
         * name does not exist), ConditionCapability= (the number), ConditionCPUs= (operator). */
        bool found;
        unsigned id;
        int op;
} UnitCondition;

typedef struct UnitConditions {
        UnitCondition *items;
        size_t n;
} UnitConditions;

/* Adds "Condition<type>=value" (assertion: "Assert<type>=") to l; an empty value drops every
 * condition (assertion) of l. 0, -ENOMEM, or -EINVAL/-E2BIG with *ret_reason saying why (a
 * static string). The value has its specifiers resolved already. */
int unit_conditions_add(UnitConditions *l, ConditionType type, bool assertion, const char *value,
                        const char **ret_reason);
void unit_conditions_done(UnitConditions *l);

/* Checks the conditions (assertions: asserts) of l now. 1 when they allow the start, 0 when not,
 * with *ret_failed the one that failed as written ("ConditionPathExists=!/run/x"; for triggering
 * ones that all failed, the first of them and how many), -ENOMEM. */
int unit_conditions_test(const UnitConditions *l, bool asserts, char **ret_failed);

/* What the Virtualization= check sees, as systemd-detect-virt names it: "none", a container
 * ("docker", "podman", "lxc", "systemd-nspawn", ...) if svd runs in one, else a hypervisor
 * ("kvm", "qemu", "vmware", "microsoft", "oracle", "xen", "amazon", ..., "vm-other").
 * ret_container says which of the two it is. */
const char *condition_detect_virtualization(bool *ret_container);
