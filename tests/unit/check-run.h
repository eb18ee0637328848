/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The main() of every unit test: its suite's cases, each in a child of its own (CK_FORK), and the
 * exit status that ctest reads. */
#pragma once

#include <check.h>
#include <stdlib.h>

static inline int check_run(Suite *s) {
        SRunner *sr = srunner_create(s);
        srunner_set_fork_status(sr, CK_FORK);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
