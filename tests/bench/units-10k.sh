#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Benchmark: svd with many unit files (default 10 000; BENCH_UNITS=N).
# Prints numbers, asserts only that everything worked: start-up to the
# first answer (unit loading dominates), `svctl list`, `svctl --json list`,
# one `status`, `reload` with nothing changed, VmRSS. None of the units is
# wanted by default.target, so nothing is spawned. TAP output, like the
# integration tests; every number is also a "# metric" line.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"
# shellcheck source=../lib/hostile.sh
. "$TESTS_DIR/lib/hostile.sh"

N=${BENCH_UNITS:-10000}

# now_ms with sub-centisecond resolution where date(1) has %N (GNU, and
# busybox built with it); else lib.sh's /proc/uptime clock (10 ms steps).
if [ "$(date +%N 2>/dev/null | tr -d 0-9)" = "" ] && [ -n "$(date +%N 2>/dev/null)" ]; then
        now_ms() {
                _ns=$(date +%s%N)
                echo $((_ns / 1000000))
        }
fi

setup_test
HOSTILE=$(find_helper hostile) || skip_all "the hostile helper (tests/lib/hostile.c) is not built"

t0=$(now_ms)
awk -v n="$N" -v dir="$UNITS" -v sleep="$SLEEP" 'BEGIN {
        for (i = 0; i < n; i++) {
                f = sprintf("%s/bench-%05d.service", dir, i)
                printf "[Unit]\nDescription=benchmark unit %d\n[Service]\nExecStart=%s %d\nRestart=on-failure\nEnvironment=N=%d\n", i, sleep, 1000 + i, i > f
                close(f)
        }
}'
t1=$(now_ms)
diag "wrote $N unit files in $((t1 - t0)) ms"

t0=$(now_ms)
start_svd
t1=$(now_ms)
SVD_READY_MS=$((t1 - t0))
echo "# metric case='$N units' startup_to_first_answer_ms=$SVD_READY_MS"
loaded=$(sed -n 's/.*Loaded \([0-9]*\) units.*/\1/p' "$SVD_LOG" | tail -n 1)
expect_eq "svd loaded $N units" "$N" "$loaded"

expect_in() {
        case $1 in *"$2"*) return 0 ;; esac
        return 1
}

# timed NAME COMMAND...: runs COMMAND via run(), prints and stores its time in $MS.
timed() {
        _n=$1
        shift
        _t0=$(now_ms)
        run "$@"
        _t1=$(now_ms)
        MS=$((_t1 - _t0))
        echo "# metric case='$N units' $_n=$MS"
}

timed list_ms svctl list
check "svctl list exits 0" test "$RC" = 0
check "svctl list shows them all" expect_in "$OUT" "$N services listed."
[ "$RC" = 0 ] || diag "svctl list: $ERR"
timed list_json_ms svctl --json list
check "svctl --json list exits 0" test "$RC" = 0
lines=$(printf '%s\n' "$OUT" | grep -o '"name":"bench-[0-9]*"' | wc -l)
check "svctl --json list prints $N services" test "$lines" = "$N"
mid=$(printf 'bench-%05d' $((N / 2)))
timed status_ms svctl status "$mid"
expect_rc "svctl status of one of them exits 3 (inactive)" 3
l=$("$HOSTILE" "$SOCK" latency "$(printf 'bench-%05d' $((N - 1)))")
echo "# metric case='$N units' status_latency_ms=$(fmt_ms "$(printf '%s' "$l" | sed -n 's/^latency_us=\([0-9]*\).*/\1/p')")"
timed reload_ms svctl --json reload
expect_rc "svctl reload (nothing changed) exits 0" 0
echo "# metric case='$N units' rss_kb=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$SVD_PID/status")"
t0=$(now_ms)
stop_svd
t1=$(now_ms)
echo "# metric case='$N units' shutdown_ms=$((t1 - t0))"
expect_eq "svd exits 0" 0 "$SVD_RC"
done_testing
