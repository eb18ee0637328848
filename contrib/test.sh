#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The whole test suite, from a fresh Debian 12 machine: installs what is
# missing (contrib/install-deps.sh --lab --test), then
#
#   build       plain build: unit, integration, fuzz-regression, selftests
#               and bench (prints numbers) tests in parallel; the .deb built,
#               installed, run and purged in a fresh bookworm root (label
#               packaging, tests/packaging/deb-chroot.sh); svd under
#               valgrind through the e2e tests; the kernel lab (label vm),
#               one VM at a time: Debian's 7.x kernel and our 6.12 with and
#               without the series (built once, then cached), after the
#               sanitizer build's host tests
#   build-asan  ASan+UBSan build: every host test, and the lab suite on
#               Debian's 7.x kernel (beside the plain build's lab runs: one
#               VM per core), failing on any sanitizer report
#   build-fuzz  the whole tree built with clang; the libFuzzer targets,
#               each run for FUZZ_SECONDS
#               (default 30; 0 skips this step), failing on any crash, leak
#               or sanitizer report (tests/fuzz/run.sh says where the
#               reproducer is)
#
# SVD_LAB_REQUIRED=1 (the default here) makes a missing QEMU or kernel a
# failure instead of a skip. SVD_LAB=0 leaves the lab out (a quick run).
set -eu
cd "$(dirname "$0")/.."

contrib/install-deps.sh --lab --test
jobs=$(nproc)
: "${SVD_LAB_REQUIRED:=1}"
: "${SVD_LAB:=1}"
export SVD_LAB_REQUIRED

stamp() { echo "=== $(date -u +%H:%M:%S) $*"; }

build() {
        dir=$1
        shift
        stamp "build $dir ($*)"
        cmake -S . -B "$dir" "$@" >/dev/null
        cmake --build "$dir" -j"$jobs"
}

ctest_in() {
        dir=$1
        shift
        stamp "test $dir: ctest $*"
        (cd "$dir" && ctest --output-on-failure "$@")
}

# asan_env CMD...: CMD (a function too) with the sanitizers' options.
asan_env() (
        export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
        export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
        "$@"
)

build build -DCMAKE_BUILD_TYPE=RelWithDebInfo
ctest_in build -j"$jobs" -LE 'vm|valgrind|packaging'
ctest_in build -L packaging
ctest_in build -L valgrind

build build-asan -DCMAKE_BUILD_TYPE=Debug -DSVD_SANITIZE=ON
asan_env ctest_in build-asan -j"$jobs" -LE 'vm|valgrind|bench|packaging'

if [ "$SVD_LAB" != 0 ]; then
        # A lab VM is one QEMU thread (TCG): the sanitizer build's run on
        # Debian's kernel goes beside the plain build's three, one VM per
        # core; its output follows theirs. Mainline's pidfd and clone3
        # selftests test the kernel, not svd: the plain build's vm-debian
        # run has them.
        SVD_LAB_MAINLINE_KST=0 asan_env ctest_in build-asan -R '^vm-debian$' -V >build-asan/lab.log 2>&1 &
        asan_lab=$!
        lab_rc=0
        ctest_in build -L vm -V || lab_rc=$?
        asan_rc=0
        wait "$asan_lab" || asan_rc=$?
        cat build-asan/lab.log
        stamp "lab: plain build exit $lab_rc, sanitizer build exit $asan_rc"
        [ "$lab_rc" = 0 ] && [ "$asan_rc" = 0 ] || exit 1
fi

fuzz_seconds=${FUZZ_SECONDS:-30}
if [ "$fuzz_seconds" -gt 0 ]; then
        # The whole tree with clang (its warnings differ from gcc's), the
        # fuzz targets with libFuzzer, ASan and UBSan.
        stamp "build build-fuzz (clang; libFuzzer, ASan+UBSan)"
        cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DSVD_FUZZ=ON >/dev/null
        cmake --build build-fuzz -j"$jobs"
        cmake --build build-fuzz -j"$jobs" --target fuzzers
        stamp "fuzz build-fuzz (${fuzz_seconds} s per target)"
        FUZZ_SECONDS=$fuzz_seconds tests/fuzz/run.sh build-fuzz
fi
stamp "all tests passed"
