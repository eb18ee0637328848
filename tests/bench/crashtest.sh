#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Benchmark: svd-crashtest with ten services (BENCH_CRASH_SERVICES) wanted by
# default.target, BENCH_CRASH_ROUNDS (default 30) rounds of kill -9 of svd
# 0-100 ms after they are ready, no workload and no check: how many rounds
# a minute the runner gets through, and the median and 95th percentile of
# the time from the kill to the last death of svd's tree and of the time
# from the kill until all ten are ready again under a new svd. With
# BENCH_CRASH_CHILDREN=K each service's main process (a shell) has K
# children that it waits for (bench-crashtest-trees: 1000 services with two
# children each, so that the last death is that of a whole tree). Prints
# "# metric" lines in the spawn mode svd chose (the kernel lab runs it on
# its autokill kernels); asserts only that every round passed. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

N=${BENCH_CRASH_SERVICES:-10}
K=${BENCH_CRASH_CHILDREN:-0}
ROUNDS=${BENCH_CRASH_ROUNDS:-30}

setup_test

CRASHTEST=${SVD_CRASHTEST:-$(dirname "$SVCTL")/svd-crashtest}
[ -x "$CRASHTEST" ] || bail_out "no svd-crashtest at $CRASHTEST (SVD_CRASHTEST)"
WRAP=
[ -n "$TEST_CG" ] && WRAP="$SH $T/in-test-cgroup"

CMD="$SLEEP 10000"
if [ "$K" -gt 0 ]; then
        j=0 script=
        while [ "$j" -lt "$K" ]; do
                script="$script$SLEEP 10000 & "
                j=$((j + 1))
        done
        CMD="$SH -c '${script}wait'"
fi
i=1
while [ "$i" -le "$N" ]; do
        printf '%s\n' "[Service]" "ExecStart=$CMD" "[Install]" "WantedBy=default.target" \
                >"$UNITS/svc-$i.service"
        i=$((i + 1))
done

# shellcheck disable=SC2086
$WRAP "$CRASHTEST" --units "$UNITS" --svd "$SVD" --dir "$T/run" --seed 1 --rounds "$ROUNDS" \
        --at random:0-100 --json ${SVD_ARGS:-} >"$T/out.json" 2>"$T/err" </dev/null
RC=$?
grep '^summary' "$T/err" | sed 's/^/# /'
expect_eq "every round passed" 0 "$RC"

# The summary object of --json, flat: "key":value pairs.
summary=$(sed -n 's/.*"summary":{\([^}]*\)}.*/\1/p' "$T/out.json" | tr ',' '\n')
field() {
        printf '%s\n' "$summary" | sed -n "s/^\"$1\":\"*\([^\"]*\)\"*$/\1/p"
}
mode=$(field mode)
case="'$N services, $mode'"
[ "$K" -gt 0 ] && case="'$N services with $K children each, $mode'"

echo "# metric case=$case rounds=$(field rounds) rounds_per_minute=$(field roundsPerMinute)"
echo "# metric case=$case last_death_median_ms=$(field lastDeathMedianMs) last_death_p95_ms=$(field lastDeathP95Ms)"
echo "# metric case=$case recover_median_ms=$(field recoverMedianMs) recover_p95_ms=$(field recoverP95Ms)"

done_testing
