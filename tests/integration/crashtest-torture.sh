#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# svd's own crash torture, driven by svd-crashtest: seeded kill -9 of svd at
# random moments while a storm (tests/lib/torture-storm.sh) starts, stops,
# restarts plain, stubborn (SIGTERM ignored), forking (PrivatePIDs=yes)
# and flapping services and re-executes svd, and while two busy loops load
# both cores. Where svd has cgroups (its guard takes whole trees), also
# services that keep host PIDs and leave background jobs, one of which
# ignores SIGHUP and SIGTERM. After each kill the runner counts every process of svd's
# tree and every zombie (goal: none left); after the restart the check
# (tests/lib/torture-check.sh) wants exactly the services the acknowledged
# operations imply running, each once (an operation not acknowledged before
# the kill may go either way). Bounded for CI: TORTURE_ROUNDS (default 25)
# and TORTURE_SECONDS (default 150); TORTURE_SEED (default 2323);
# TORTURE_AT (the runner's --at, default random:100-2000). A long run is a
# measurement, not a test: TORTURE_ROUNDS=5000 TORTURE_SECONDS=86400. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

ROUNDS=${TORTURE_ROUNDS:-25}
SECONDS_MAX=${TORTURE_SECONDS:-150}
SEED=${TORTURE_SEED:-2323}
AT=${TORTURE_AT:-random:100-2000}

setup_test

CRASHTEST=${SVD_CRASHTEST:-$(dirname "$SVCTL")/svd-crashtest}
[ -x "$CRASHTEST" ] || bail_out "no svd-crashtest at $CRASHTEST (SVD_CRASHTEST)"
WRAP=
[ -n "$TEST_CG" ] && WRAP="$SH $T/in-test-cgroup"

printf '%s\n' "trap '' TERM" "exec $SLEEP \$1" >"$T/ignore-term.sh"
printf '%s\n' "$SLEEP \$1 &" "$SLEEP \$1 &" "wait" >"$T/forking.sh"
printf '%s\n' "$SLEEP 0.\$((\$\$ % 7 + 2))" "exit 1" >"$T/flap.sh"
printf '%s\n' "$SLEEP \$1 &" "( trap '' HUP TERM; exec $SLEEP \$1 ) &" "wait" >"$T/background.sh"

# The anchor: wanted by default.target, the service the runner waits for.
printf '%s\n' "[Service]" "ExecStart=$SLEEP 39000" "[Install]" "WantedBy=default.target" \
        >"$UNITS/anchor.service"

# The check counts processes by command line across the whole machine: a
# suffix of this run's own (the shell's pid) keeps those of another torture
# running at the same time (a CI run, another checkout) out of its counts.
U=$$
NAMES=
CHECKS=
# unit NAME MARKER COUNT LINE...: a unit with the [Service] LINEs; the check
# wants COUNT processes whose command line is MARKER while it runs (passed
# with its spaces as "+").
unit() {
        _n=$1 _m=$(echo "$2" | tr ' ' +) _c=$3
        shift 3
        printf '%s\n' "[Service]" "$@" "TimeoutStopSec=500ms" >"$UNITS/$_n.service"
        NAMES="$NAMES $_n"
        CHECKS="$CHECKS $_n:$_m:$_c"
}
for i in 1 2; do
        unit "plain-$i" "$SLEEP 3100$i$U" 1 "ExecStart=$SLEEP 3100$i$U"
        unit "stubborn-$i" "$SLEEP 3200$i$U" 1 "ExecStart=$SH $T/ignore-term.sh 3200$i$U"
        unit "forking-$i" "$SLEEP 3300$i$U" 2 "ExecStart=$SH $T/forking.sh 3300$i$U" "PrivatePIDs=yes"
        unit "flapping-$i" "$SH $T/flap.sh 3400$i" max1 "ExecStart=$SH $T/flap.sh 3400$i" \
                "Restart=always" "RestartSec=50ms" "StartLimitIntervalSec=0"
        [ -z "$TEST_CG" ] || unit "background-$i" "$SLEEP 3500$i$U" 2 "ExecStart=$SH $T/background.sh 3500$i$U"
done

# The load: two busy loops, for as long as the torture runs.
for i in 1 2; do
        "$SH" -c 'while :; do :; done' &
        TRACKED="$TRACKED $!:$(pid_start $!)"
done

# shellcheck disable=SC2086
$WRAP "$CRASHTEST" --units "$UNITS" --svd "$SVD" --dir "$T/run" --seed "$SEED" \
        --rounds "$ROUNDS" --duration "$SECONDS_MAX" --at "$AT" --death-timeout 5000 \
        --workload "$SH $TESTS_DIR/lib/torture-storm.sh $SVCTL $T/ops$NAMES" \
        --check "$SH $TESTS_DIR/lib/torture-check.sh $SVCTL $T/ops$CHECKS" \
        >"$T/out" 2>"$T/err" </dev/null
RC=$?
for ps in $TRACKED; do kill -KILL "${ps%%:*}" 2>/dev/null; done

sed 's/^/#   /' "$T/out"
for f in "$T"/run/round-*.check.log; do
        [ -f "$f" ] || continue
        diag "$f:"
        sed 's/^/#     /' "$f"
done
if [ "$RC" != 0 ]; then
        diag "the runner's stderr (last lines):" "$(tail -n 15 "$T/err")"
        for f in "$T"/run/*.log; do
                case $f in *.check.log) continue ;; esac
                [ -f "$f" ] || continue
                diag "$f (last lines):" "$(tail -n 25 "$f")"
        done
fi
rounds=$(grep -c '^round ' "$T/out")
survivors=$(sed -n 's/^round .* survivors=\([0-9]*\) .*/\1/p' "$T/out" | awk '{ s += $1 } END { print s + 0 }')
zombies=$(sed -n 's/^round .* zombies=\([0-9]*\) .*/\1/p' "$T/out" | awk '{ s += $1 } END { print s + 0 }')
acked=$(grep -c '^ack' "$T/ops" 2>/dev/null)
reexecs=$(grep -c '^ack .* daemon-reexec' "$T/ops" 2>/dev/null)
diag "$rounds rounds, $survivors survivors, $zombies zombies, $acked acknowledged operations ($reexecs re-execs)"
check "at least 5 rounds ran" test "$rounds" -ge 5
expect_eq "no process survived a kill of svd, over all rounds" 0 "$survivors"
expect_eq "no zombie was left" 0 "$zombies"
check "the storm's operations were acknowledged" test "${acked:-0}" -gt 0
expect_eq "every round passed (survivors, recovery, the acknowledged state, once each)" 0 "$RC"

done_testing
