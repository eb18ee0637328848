/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Prints every key of the unit parser's table, one "Section Key implemented|not-yet" line each, so
 * that the man page check (man-check.sh) compares the manual with the table itself. The table is
 * private to unit-keys.c, so this program compiles unit-keys.c into itself; svd-core supplies the rest. */
#include <stdio.h>

#include "unit-keys.c"

int main(void) {
        for (size_t i = 0; i < ELEMENTSOF(unit_keys); i++)
                printf("%s %s %s\n", unit_keys[i].section, unit_keys[i].name,
                       unit_keys[i].parse ? "implemented" : "not-yet");
        return 0;
}
