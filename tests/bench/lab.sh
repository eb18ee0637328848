#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# lab.sh: the benchmark on a kernel with CLONE_PIDFD_AUTOKILL, in a VM of
# the kernel lab (whose image has tests/bench): compare.sh runs in the guest with svd in autokill mode
# beside svd --mode=fallback on the same kernel, the same machine and the
# same run, so the two modes compare as ratios (QEMU TCG makes every
# absolute figure slower than on the host). The floors run in the same
# boot, the kill floor among them: the report sets each mode's kill -9 to
# the last death against it (the target, 1.2 x, is autokill's).
#
#   tests/bench/lab.sh [--kernel debian|6.12] [--out DIR]
#
# Defaults: Debian's 7.x kernel, N = 1000, 5 runs, the results in
# build/bench-results/lab-KERNEL-DATE/ (results.md, raw.tsv, console.log).
# BENCH_N, BENCH_RUNS, BENCH_RESTARTS, BENCH_CONTROLS, BENCH_IDLE_SEC and
# BENCH_CRASH_WINDOW_MS (default 60000 here: under TCG, 1000 processes take
# seconds to die) are passed on to compare.sh. Not part of ctest (it runs for tens of minutes).
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${SVD_BUILD:-$src/build}
which=debian
out=""
while [ $# -gt 0 ]; do
        case $1 in
        --kernel) which=${2:?}; shift ;;
        --out) out=${2:?}; shift ;;
        *) echo "lab.sh: unknown argument '$1'" >&2; exit 2 ;;
        esac
        shift
done
case $which in
debian) kernel_args=() ;;
6.12) kernel_args=(--kernel "$("$src/kernel/lab/build-6.12.sh")") ;;
*) echo "lab.sh: unknown kernel '$which' (debian, 6.12)" >&2; exit 2 ;;
esac
: "${out:=$build/bench-results/lab-$which-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$out"

cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" --target svd svctl bench-svc benchtool >/dev/null

env_args=(--env BENCH_NO_INSTALL=1 --env BENCH_NO_BUILD=1 --env SVD_BUILD=/svd/build
        --env BENCH_ALLOW_SYSTEM_INSTANCES=1 --env "BENCH_SUPERVISORS=svd svd-fallback"
        --env "BENCH_N=${BENCH_N:-1000}" --env "BENCH_RUNS=${BENCH_RUNS:-5}"
        --env "BENCH_RESTARTS=${BENCH_RESTARTS:-20}" --env "BENCH_CONTROLS=${BENCH_CONTROLS:-50}"
        --env "BENCH_IDLE_SEC=${BENCH_IDLE_SEC:-3}" --env BENCH_OUT=/tmp/bench-out
        --env "BENCH_CRASH_WINDOW_MS=${BENCH_CRASH_WINDOW_MS:-60000}")
# The guest prints the raw figures between markers; the report is made here.
"$src/kernel/lab/run.sh" "${kernel_args[@]}" --build "$build" --timeout 5400 "${env_args[@]}" \
        -- sh -c 'sh /svd/tests/bench/compare.sh >/dev/null; rc=$?;
                  echo "lab-bench: kernel $(uname -r)"; echo "lab-bench: raw begin";
                  cat /tmp/bench-out/raw.tsv; echo "lab-bench: raw end";
                  sed -n "s/^/lab-bench: info /p" /tmp/bench-out/svd-info.txt;
                  sed -n "s/^/lab-bench: cgroupfloor /p" /tmp/bench-out/cgroupfloor.txt 2>/dev/null; exit $rc' |
        tee "$out/console.log"
sed -n '/lab-bench: raw begin/,/lab-bench: raw end/{/lab-bench:/d;p}' "$out/console.log" | tr -d '\r' >"$out/raw.tsv"
[ -s "$out/raw.tsv" ] || { echo "lab.sh: no figures came back (see $out/console.log)" >&2; exit 1; }
# where the guest's cgroup floor ran, or why it did not (the report quotes it)
sed -n 's/^lab-bench: cgroupfloor //p' "$out/console.log" | tr -d '\r' >"$out/cgroupfloor.txt"
kver=$(sed -n 's/^lab-bench: kernel //p' "$out/console.log" | tr -d '\r' | head -n 1)
{
        echo "Kernel lab, QEMU TCG, kernel $kver; svd in autokill mode beside svd --mode=fallback, $(awk '{print $1}' "$out/raw.tsv" | sort -u | wc -l) runs."
        echo
        sh "$src/tests/bench/report.sh" "$out" "${BENCH_N:-1000}" "svd svd-fallback"
} | tee "$out/results.md"
