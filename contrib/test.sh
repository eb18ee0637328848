#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs what is missing, builds svd twice (plain and ASan+UBSan) and runs
# the whole test suite on both builds with ctest (the fuzz targets replay
# their corpora there too, label fuzz-regression). Then builds the libFuzzer
# targets with clang in build-fuzz and runs each for FUZZ_SECONDS (default
# 60; 0 skips this step), failing on any crash, leak or sanitizer report
# (tests/fuzz/run.sh says where the reproducer is).
set -eu
cd "$(dirname "$0")/.."

contrib/install-deps.sh --lab
jobs=$(nproc)

run() {
        dir=$1
        shift
        echo "=== build $dir ($*)"
        cmake -S . -B "$dir" "$@" >/dev/null
        cmake --build "$dir" -j"$jobs"
        echo "=== test $dir"
        (cd "$dir" && ctest --output-on-failure -j"$jobs")
}

run build -DCMAKE_BUILD_TYPE=RelWithDebInfo
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        run build-asan -DCMAKE_BUILD_TYPE=Debug -DSVD_SANITIZE=ON

fuzz_seconds=${FUZZ_SECONDS:-60}
if [ "$fuzz_seconds" -gt 0 ]; then
        if ! command -v clang >/dev/null 2>&1; then
                echo "=== fuzz: clang is missing (install clang and libclang-rt-dev, or set FUZZ_SECONDS=0)" >&2
                exit 1
        fi
        echo "=== build build-fuzz (clang, libFuzzer, ASan+UBSan)"
        cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DSVD_FUZZ=ON >/dev/null
        cmake --build build-fuzz -j"$jobs" --target fuzzers
        echo "=== fuzz build-fuzz (${fuzz_seconds} s per target)"
        FUZZ_SECONDS=$fuzz_seconds tests/fuzz/run.sh build-fuzz
fi
echo "=== all tests passed"
