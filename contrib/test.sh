#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs what is missing, builds svd twice (plain and ASan+UBSan) and runs
# the whole test suite on both builds with ctest.
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
echo "=== all tests passed"
