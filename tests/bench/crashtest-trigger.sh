#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Benchmark: how precisely svd-crashtest's event moments fire. For each kind
# of moment, BENCH_TRIGGER_ROUNDS (default 20) rounds of kill -9 of svd:
# log:NAME=REGEX (a service prints a numbered line every 50 ms), state:
# NAME=STATE (a service that fails after 200 ms enters auto-restart), marker:
# REGEX (the workload prints a line every 50 ms), svd-log:REGEX (svd's own
# "Re-executing", the workload re-executes svd over and over). The time from
# the event (svd's time of the line or state change; the runner's reading
# of a marker or of svd's log) to the fault, median and 95th percentile, as
# "# metric" lines in the spawn mode svd chose. Asserts only that every
# round passed. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

ROUNDS=${BENCH_TRIGGER_ROUNDS:-20}

setup_test

CRASHTEST=${SVD_CRASHTEST:-$(dirname "$SVCTL")/svd-crashtest}
[ -x "$CRASHTEST" ] || bail_out "no svd-crashtest at $CRASHTEST (SVD_CRASHTEST)"
WRAP=
[ -n "$TEST_CG" ] && WRAP="$SH $T/in-test-cgroup"

write_unit ticker <<EOF
[Service]
ExecStart=$SH -c 'i=0; while :; do i=\$((i + 1)); echo "tick \$i"; $SLEEP 0.05; done'
[Install]
WantedBy=default.target
EOF
write_unit flapper <<EOF
[Service]
ExecStart=$SH -c '$SLEEP 0.2; exit 1'
Restart=always
RestartSec=100ms
StartLimitIntervalSec=0
EOF

# trigger KIND ARG...: the rounds, and the metric line of KIND.
trigger() {
        _k=$1
        shift
        # shellcheck disable=SC2086
        $WRAP "$CRASHTEST" --units "$UNITS" --svd "$SVD" --dir "$T/$_k" --seed 1 --rounds "$ROUNDS" --json \
                "$@" >"$T/$_k.json" 2>"$T/$_k.err" </dev/null
        _rc=$?
        grep -e '^summary' -e '^trigger' "$T/$_k.err" | sed "s/^/# $_k: /"
        expect_eq "$_k: every round passed" 0 "$_rc"
        [ "$_rc" = 0 ] || diag "$(tail -n 5 "$T/$_k.err")"
        _s=$(sed -n 's/.*"summary":{\([^}]*\)}.*/\1/p' "$T/$_k.json" | tr ',' '\n')
        _f() { printf '%s\n' "$_s" | sed -n "s/^\"$1\":\"*\([^\"]*\)\"*$/\1/p"; }
        echo "# metric case='$_k, $(_f mode)' trigger_lag_median_ms=$(_f triggerLagMedianMs) trigger_lag_p95_ms=$(_f triggerLagP95Ms)"
}

trigger log --services ticker --at 'log:ticker=^tick [0-9]*5$'
trigger state --services ticker,flapper --at state:flapper=auto-restart
trigger marker --services ticker --at 'marker:^mark [0-9]*5$' \
        --workload "i=0; while :; do i=\$((i + 1)); echo \"mark \$i\"; $SLEEP 0.05; done"
trigger svd-log --services ticker --at 'svd-log:^Re-executing' \
        --workload "while :; do $SVCTL daemon-reexec >/dev/null 2>&1; done"

done_testing
