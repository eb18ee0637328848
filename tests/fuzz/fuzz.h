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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Optional: once, before the first input. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
