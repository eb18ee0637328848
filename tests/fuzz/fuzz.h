/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The libFuzzer entry points every target in tests/fuzz/ defines. The same
 * source is linked either with libFuzzer (SVD_FUZZ=ON, clang) or with
 * regress-main.c, which replays files once each (the fuzz-regression tests
 * that every build runs).
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* An invariant of the code under test: a failure aborts, which the fuzzer
 * (and the regression replay) reports with the input. */
#define fuzz_assert(expr)                                                                                   \
        do {                                                                                                \
                if (!(expr)) {                                                                              \
                        fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__, #expr);        \
                        abort();                                                                            \
                }                                                                                           \
        } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Optional: once, before the first input. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
