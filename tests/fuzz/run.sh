#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Runs every libFuzzer target of a build configured with -DSVD_FUZZ=ON for a
# bounded time and fails on any crash, leak, timeout or sanitizer report.
#
#   tests/fuzz/run.sh BUILD_DIR [TARGET...]
#
# Environment:
#   FUZZ_SECONDS   time per target (default 60)
#   FUZZ_JOBS      targets run at the same time (default: all of them, so
#                  that the step takes FUZZ_SECONDS however many CPUs there are)
#   FUZZ_WORKDIR   where the growing corpora and crash files go (default: a
#                  new directory under ${TMPDIR:-/tmp}; kept on failure)
#
# Each target starts from its seed corpus (tests/fuzz/corpus/NAME) and the
# regression inputs (tests/fuzz/regressions/NAME), copied to the work
# directory so that the tree never changes under a test run. A crasher is
# left in the work directory as NAME-crash-*; to keep it, copy it to
# tests/fuzz/regressions/NAME/ with a name saying what it broke: from then
# on the fuzz-regression tests replay it in every build.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: run.sh BUILD_DIR [TARGET...]}
shift
[ $# -gt 0 ] || set -- fuzz-varlink fuzz-unit fuzz-exec-line fuzz-env-file fuzz-svd-conf

seconds=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-$#}
work=${FUZZ_WORKDIR:-$(mktemp -d "${TMPDIR:-/tmp}/svd-fuzz.XXXXXX")}
mkdir -p "$work"

# libFuzzer's own limits: 2 GiB of RSS, 10 s for one input. LeakSanitizer
# runs after every input that grows the heap, and at exit.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

fuzz_one() {
        t=$1
        bin=$build/tests/fuzz/$t
        if [ ! -x "$bin" ]; then
                echo "fuzz: $bin missing (configure with -DSVD_FUZZ=ON and build the 'fuzzers' target)" >&2
                return 1
        fi
        corpus=$work/$t-corpus
        mkdir -p "$corpus"
        cp "$here/corpus/$t/"* "$corpus/" 2>/dev/null || true
        cp "$here/regressions/$t/"* "$corpus/" 2>/dev/null || true
        dict=
        [ -f "$here/$t.dict" ] && dict=-dict=$here/$t.dict
        # shellcheck disable=SC2086 # $dict is one word or none
        "$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
                -print_final_stats=1 -artifact_prefix="$work/$t-" $dict "$corpus" \
                >"$work/$t.log" 2>&1
}

targets=$*
failed=
while [ $# -gt 0 ]; do
        batch=
        i=0
        while [ $# -gt 0 ] && [ "$i" -lt "$jobs" ]; do
                fuzz_one "$1" &
                batch="$batch $!:$1"
                shift
                i=$((i + 1))
        done
        for p in $batch; do
                wait "${p%%:*}" || failed="$failed ${p#*:}"
        done
done

for t in $targets; do
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t.log" | tail -n 1)
        cov=$(grep -o 'cov: [0-9]*' "$work/$t.log" | tail -n 1)
        echo "fuzz: $t: ${execs:-?} inputs in ${seconds}s, ${cov:-cov: ?}"
done

if [ -n "$failed" ]; then
        for t in $failed; do
                echo "fuzz: $t FAILED; last lines of $work/$t.log:" >&2
                tail -n 40 "$work/$t.log" | sed 's/^/    /' >&2
                for a in "$work/$t-"crash-* "$work/$t-"leak-* "$work/$t-"timeout-* "$work/$t-"oom-*; do
                        [ -e "$a" ] && echo "fuzz: reproducer: $a (keep it in tests/fuzz/regressions/$t/)" >&2
                done
        done
        echo "fuzz: work directory kept: $work" >&2
        exit 1
fi
[ -n "${FUZZ_WORKDIR:-}" ] || rm -rf "$work"
echo "fuzz: all targets ran ${seconds}s without a finding"
