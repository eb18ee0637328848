#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# suite.sh: boot one of the lab's kernels and run svd's lab suite in it
# (vm-suite.sh: the flag selftests, our 6.12 series' own
# in-tree selftest pidfd_autoreap_test (build-6.12.sh --selftest; on every
# kernel, so Debian's mainline kernel checks the series' tests too),
# mainline's own pidfd and clone3 selftests against this kernel's known
# failures (build-kselftests.sh, kselftests.sh), every end-to-end test, the
# crash test with 100 services). This is what ctest's `vm` label runs.
#
# Usage: suite.sh --kernel debian|6.12|6.12-unpatched --build DIR [--timeout SEC]
#
#   debian          Debian's newest 7.x cloud kernel (get-kernel.sh): autokill
#   6.12            Debian's linux-source-6.12 with our series
#                   (build-6.12.sh): autokill
#   6.12-unpatched  the same source without the series: fallback
#
# A missing QEMU, busybox-static, cpio, kernel or kernel source is a skip
# (exit 77, "SKIP: reason") unless SVD_LAB_REQUIRED=1, which makes it a
# failure: contrib/test.sh (and so CI) sets it, having installed everything.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
which=""
build=""
timeout=2400

while [ $# -gt 0 ]; do
        case $1 in
        --kernel) which=${2:?}; shift ;;
        --build) build=${2:?}; shift ;;
        --timeout) timeout=${2:?}; shift ;;
        *) echo "suite: unknown argument '$1'" >&2; exit 2 ;;
        esac
        shift
done
[ -n "$which" ] && [ -n "$build" ] || { echo "usage: suite.sh --kernel debian|6.12|6.12-unpatched --build DIR" >&2; exit 2; }

required=${SVD_LAB_REQUIRED:-0}
missing() {
        if [ "$required" = 1 ]; then
                echo "suite: FAIL: $* (SVD_LAB_REQUIRED=1)" >&2
                exit 1
        fi
        echo "SKIP: $*"
        exit 77
}

skip_args=()
[ "$required" = 1 ] || skip_args=(--skip-missing)

case $which in
debian)
        mode=autokill
        kernel_args=()
        ;;
6.12 | 6.12-unpatched)
        if [ "$which" = 6.12 ]; then mode=autokill; flag=(); else mode=fallback; flag=(--unpatched); fi
        if [ "$required" != 1 ] && ! dpkg-query -W -f='${Status}' linux-source-6.12 2>/dev/null |
                grep -q 'install ok installed'; then
                missing "linux-source-6.12 is not installed (apt-get install linux-source-6.12, or run contrib/test.sh)"
        fi
        echo "suite: building (or finding the cached) $which kernel" >&2
        t0=$(date +%s)
        image=$("$here/build-6.12.sh" "${flag[@]}") || { echo "suite: FAIL: build-6.12.sh failed" >&2; exit 1; }
        echo "suite: kernel $image ($(( $(date +%s) - t0 )) s)" >&2
        kernel_args=(--kernel "$image")
        ;;
*)
        echo "suite: unknown kernel '$which'" >&2
        exit 2
        ;;
esac

# The series' selftest, built from the patched linux-source-6.12 (~20 s once).
env_args=()
# Debian's kernel lacks the exit_notify() fix of kernel/patches/upstream: a
# thread-group leader overtaken by its group's exit may be reported with its
# own exit code (tests/integration/e2e-group-exit.sh counts those instead of
# failing). The patched 6.12 has it; the unpatched one runs svd in fallback
# mode, where waitid() gives the group's code.
[ "$which" = debian ] && env_args+=(--env SVD_KERNEL_GROUP_EXIT=leader)
add_args=()
if [ "$required" = 1 ] || dpkg-query -W -f='${Status}' linux-source-6.12 2>/dev/null | grep -q 'install ok installed'; then
        kst=$("$here/build-6.12.sh" --selftest) || { echo "suite: FAIL: build-6.12.sh --selftest failed" >&2; exit 1; }
        add_args=(--add "$kst:/svd/bin/pidfd_autoreap_test")
        env_args+=(--env SVD_LAB_KST=1)
else
        env_args+=(--env "SVD_LAB_KST=linux-source-6.12 is not installed")
fi

# Mainline's own pidfd and clone3 selftests, built static from Debian's
# linux-source of the lab's 7.x kernel (build-kselftests.sh; once per
# source version and patch set), compared case by case with this kernel's
# known failures (kselftests-known.tsv) by kselftests.sh in the guest.
# SVD_LAB_MAINLINE_KST=0 leaves them out (contrib/test.sh does for the
# sanitizer build's second run on Debian's kernel).
if [ "${SVD_LAB_MAINLINE_KST:-1}" = 0 ]; then
        env_args+=(--env "SVD_LAB_MAINLINE_KST=left out (SVD_LAB_MAINLINE_KST=0)")
elif kst_dir=$("$here/build-kselftests.sh"); then
        add_args+=(--add "$kst_dir:/svd/kst" --add "$here/kselftests.sh"
                --add "$here/kselftests-known.tsv:/svd/lab/kselftests-known.tsv")
        env_args+=(--env SVD_LAB_MAINLINE_KST=1 --env "SVD_LAB_KERNEL=$which")
        [ -z "${SVD_LAB_KST_REPEAT:-}" ] || env_args+=(--env "SVD_LAB_KST_REPEAT=$SVD_LAB_KST_REPEAT")
elif [ "$required" = 1 ]; then
        echo "suite: FAIL: build-kselftests.sh failed" >&2
        exit 1
else
        env_args+=(--env "SVD_LAB_MAINLINE_KST=build-kselftests.sh failed (no linux-source of the lab's kernel?)")
fi

# ASan/UBSan builds: the guest's svd sees the same options as the host's,
# and vm-suite.sh leaves out the tests of code such a build does not have.
for v in ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS; do
        [ -z "${!v:-}" ] || env_args+=(--env "$v=${!v}")
done
if grep -q '^SVD_SANITIZE:BOOL=ON$' "$build/CMakeCache.txt" 2>/dev/null; then
        env_args+=(--env SVD_LAB_BUILD=sanitizer)
fi

t0=$(date +%s)
set +e
add_args+=(--add "$here/vm-suite.sh:/svd/lab/vm-suite.sh")
"$here/run.sh" "${skip_args[@]}" "${kernel_args[@]}" "${env_args[@]}" "${add_args[@]}" --build "$build" --timeout "$timeout" \
        -- sh /svd/lab/vm-suite.sh "$mode"
rc=$?
set -e
echo "suite: $which: exit $rc after $(( $(date +%s) - t0 )) s"
exit $rc
