/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Prints every key of svd.conf's [Manager] (svd-conf.c's table), one a line, so that the man page
 * check (man-check.sh) compares svd(8) with the table itself. */
#include <stdio.h>

#include "svd-conf.h"

static void print_key(const char *key, void *userdata) {
        printf("%s\n", key);
}

int main(void) {
        svd_conf_foreach_key(print_key, NULL);
        return 0;
}
