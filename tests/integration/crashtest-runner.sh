#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# svd-crashtest end to end, against the real svd:
# - a service with a recovery bug (it rewrites its state file in place, no
#   fsync, no rename: tests/lib/statefile-service.c "torn") is caught by the
#   check within 30 rounds of seed 23; the correct variant (temporary file,
#   fsync, rename) passes all of its rounds;
# - a daemon that escapes its service (setsid and a double fork, no
#   PrivatePIDs=, and where there are cgroups a move of its own into the
#   cgroup2 root, the one way out that svd's guard cannot follow: it kills
#   the services' cgroups) is reported as a survivor of kill -9 of svd, by
#   pid, in fallback mode: the survivor count is not zero by construction;
# - a log trigger fires at the line: the kill lands after "step 3" and
#   before "step 4" of a service that writes its steps to a file too; a
#   state trigger fires when a flapping service enters auto-restart.
# TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

CRASHTEST=${SVD_CRASHTEST:-$(dirname "$SVCTL")/svd-crashtest}
[ -x "$CRASHTEST" ] || bail_out "no svd-crashtest at $CRASHTEST (SVD_CRASHTEST)"
STATEFILE=$(find_helper statefile-service)
[ -n "$STATEFILE" ] || bail_out "no statefile-service helper"
AWK=$(path_of awk) || bail_out "no awk"

# The runner goes into the test's own cgroup (as root), like every svd of the tests.
WRAP=
[ -n "$TEST_CG" ] && WRAP="$SH $T/in-test-cgroup"

# crashtest NAME ARG...: runs svd-crashtest on $T/NAME.units, output in
# $T/NAME.out (stdout) and $T/NAME.err; sets RC.
crashtest() {
        _n=$1
        shift
        # shellcheck disable=SC2086
        $WRAP "$CRASHTEST" --units "$T/$_n.units" --svd "$SVD" --dir "$T/$_n.dir" "$@" \
                >"$T/$_n.out" 2>"$T/$_n.err" </dev/null
        RC=$?
        sed 's/^/#   /' "$T/$_n.out"
}

# The invariant: every "start N" is at least the last "ack" before it.
cat >"$T/check-journal.sh" <<EOF
$AWK '\$1 == "ack" { a = \$2 }
      \$1 == "start" { if (\$2 == "torn" || \$2 + 0 < a + 0) { print "round " ENVIRON["SVD_CRASHTEST_ROUND"] ": start " \$2 " after ack " a; bad = 1 } }
      END { exit bad }' "\$1"
EOF

# counter_units NAME VARIANT: a unit dir with the counter service.
counter_units() {
        mkdir -p "$T/$1.units"
        cat >"$T/$1.units/counter.service" <<EOF
[Service]
Type=notify
ExecStart=$STATEFILE $2 $T/$1.state $T/$1.journal
[Install]
WantedBy=default.target
EOF
}

# ---- the recovery bug is caught ----

counter_units torn torn
crashtest torn --seed 23 --rounds 30 --at random:20-300 --stop-on-failure \
        --check "$SH $T/check-journal.sh $T/torn.journal"
expect_eq "the torn variant fails the run" 1 "$RC"
failed=$(grep -c '^round [0-9]* FAIL' "$T/torn.out")
expect_eq "... at exactly one round (--stop-on-failure)" 1 "$failed"
expect_contains "... by its check" "$(grep FAIL "$T/torn.out")" "the check failed"
check "... and the check's output is kept" grep -q "after ack\|start torn" "$T"/torn.dir/round-*.check.log
diag "caught at: $(grep FAIL "$T/torn.out" | cut -d' ' -f1-2)"
diag "journal: $(grep -c '^start' "$T/torn.journal") starts, $(grep -c '^ack' "$T/torn.journal") acks"

counter_units good correct
crashtest good --seed 23 --rounds 10 --at random:20-300 --check "$SH $T/check-journal.sh $T/good.journal"
expect_eq "the correct variant passes" 0 "$RC"
expect_eq "... all 10 rounds, each checked" 10 "$(grep -c '^round [0-9]* ok .* check=ok' "$T/good.out")"
expect_eq "... every round restarted it (11 starts)" 11 "$(grep -c '^start' "$T/good.journal")"
check "the seed is printed" grep -q "seed 23 (replay with --seed 23)" "$T/good.err"

# The same seed gives the same schedule.
sched() { sed -n 's/^round \([0-9]*\) .*fault=\([^ ]*\) targets=\([^ ]*\) at=\([^ ]*\).*/\1 \2 \3 \4/p' "$1"; }
counter_units replay correct
crashtest replay --seed 23 --rounds 3 --at random:20-300 --fault svd-kill,service-kill,svd-stop --stop-time 100
first=$(sched "$T/replay.out")
crashtest replay --seed 23 --rounds 3 --at random:20-300 --fault svd-kill,service-kill,svd-stop --stop-time 100
expect_eq "--seed replays the schedule" "$first" "$(sched "$T/replay.out")"

# ---- a survivor is reported ----

SETSID=$(path_of setsid) || bail_out "no setsid"
mkdir -p "$T/escape.units"
CG2=$(grep ' - cgroup2 ' /proc/self/mountinfo 2>/dev/null | head -n 1 | cut -d' ' -f5)
LEAVE_CG=:
[ -n "$CG2" ] && LEAVE_CG="echo 0 >$CG2/cgroup.procs"
cat >"$T/escape.sh" <<EOF
# A daemon that leaves its service: a subshell starts it in a session of
# its own and exits, so that it is re-parented away from the service, and
# the daemon moves itself out of the service's cgroup (root may).
( $SETSID $SH -c '$LEAVE_CG 2>/dev/null; exec $SLEEP 10000' </dev/null >/dev/null 2>&1 &
  echo \$! >>"$T/escaped.pid" )
exec $SLEEP 10000
EOF
cat >"$T/escape.units/escape.service" <<EOF
[Service]
ExecStart=$SH $T/escape.sh
[Install]
WantedBy=default.target
EOF
crashtest escape --mode=fallback --seed 1 --rounds 1 --at delay:100 --death-timeout 2000 --json
mode=$(sed -n 's/^round 1 .* mode=\([a-z]*\) .*/\1/p' "$T/escape.err")
diag "mode: $mode"
# The first instance's daemon is the survivor; the instance svd restores
# after the kill escapes too, and outlives the runner's final stop where
# svd has no cgroups: the cleanup kills them all.
escaped=$(head -n 1 "$T/escaped.pid" 2>/dev/null)
for p in $(cat "$T/escaped.pid" 2>/dev/null); do
        TRACKED="$TRACKED $p:$(pid_start "$p")"
done
expect_eq "a run with an escaped daemon fails" 1 "$RC"
expect_contains "... naming it a survivor, by pid" "$(cat "$T/escape.err")" "escaped:$escaped(sleep)"
expect_contains "... in the JSON too" "$(cat "$T/escape.out")" '"survivors":1'
expect_contains "... the service's own process is not one" "$(cat "$T/escape.err")" "survivors=1 "
check "the runner killed it after reporting it" wait_until 10 pid_gone "$escaped"

# ---- an event trigger fires at the event ----

mkdir -p "$T/step.units"
cat >"$T/stepper.sh" <<EOF
i=0
while :; do
        i=\$((i + 1))
        echo "\$\$ step \$i" >>"$T/steps"
        echo "step \$i"
        $SLEEP 2
done
EOF
cat >"$T/step.units/stepper.service" <<EOF
[Service]
ExecStart=$SH $T/stepper.sh
[Install]
WantedBy=default.target
EOF
# The first instance's last step, as the check sees it after the recovery.
cat >"$T/check-steps.sh" <<EOF
first=\$($AWK 'NR == 1 { print \$1 }' "$T/steps")
last=\$($AWK -v p="\$first" '\$1 == p { s = \$3 } END { print s }' "$T/steps")
echo "last step of \$first: \$last"
[ "\$last" = 3 ]
EOF
crashtest step --seed 1 --rounds 1 --at 'log:stepper=^step 3$' --check "$SH $T/check-steps.sh"
expect_eq "the log trigger round passes its check (killed after step 3, before step 4)" 0 "$RC"
first=$($AWK 'NR == 1 { print $1 }' "$T/steps")
expect_eq "... the killed instance wrote steps 1-3 only" "1 2 3 " \
        "$($AWK -v p="$first" '$1 == p { printf "%s ", $3 }' "$T/steps")"
check "... and a new instance started" test "$(cut -d' ' -f1 "$T/steps" | sort -u | wc -l)" -ge 2

# A state trigger: the kill comes when a flapping service has just exited
# (auto-restart), an event only the event stream sees in time.
mkdir -p "$T/state.units"
printf '%s\n' "[Service]" "ExecStart=$SLEEP 10000" "[Install]" "WantedBy=default.target" \
        >"$T/state.units/anchor.service"
printf '%s\n' "[Service]" "ExecStart=$SH -c '$SLEEP 0.5; exit 1'" "Restart=always" "RestartSec=200ms" \
        "StartLimitIntervalSec=0" "[Install]" "WantedBy=default.target" >"$T/state.units/flap.service"
crashtest state --seed 1 --rounds 2 --services anchor --at state:flap=auto-restart --trigger-timeout 30
expect_eq "a state trigger fires (flap entered auto-restart), each round" 2 \
        "$(grep -c '^round [0-9] ok .*at=state:flap=auto-restart' "$T/state.out")"

# ---- svd never blocks on the runner's notify socket ----

# Each re-exec sends RELOADING=1 and READY=1 to $NOTIFY_SOCKET with a
# blocking send. A datagram socket nobody reads takes 10 messages
# (net.unix.max_dgram_qlen) before a sender blocks: were the runner's socket
# still bound after svd's READY=1, the sixth re-exec of one svd's life
# would hang svd. Every one of eight must be answered (within 20 s each).
TIMEOUT=$(path_of timeout) || bail_out "no timeout"
mkdir -p "$T/reexec.units"
printf '%s\n' "[Service]" "ExecStart=$SLEEP 10000" "[Install]" "WantedBy=default.target" \
        >"$T/reexec.units/anchor.service"
cat >"$T/reexec.sh" <<EOF
i=0
while [ \$i -lt 8 ]; do
        i=\$((i + 1))
        $TIMEOUT 20 $SVCTL daemon-reexec >/dev/null 2>&1
        echo "reexec \$i \$?" >>"$T/reexec.log"
done
echo REEXECS-DONE
exec $SLEEP 1000
EOF
crashtest reexec --seed 1 --rounds 1 --at 'marker:^REEXECS-DONE$' --trigger-timeout 240 --workload "$SH $T/reexec.sh"
expect_eq "a round whose workload re-executes svd 8 times passes" 0 "$RC"
expect_eq "... and svd answered every re-exec" 8 "$(grep -c ' 0$' "$T/reexec.log")"

# A run whose directory another svd already serves: the runner's svd is
# refused at start-up, and the runner says why; the other svd's service lives.
mkdir -p "$T/taken.units" "$T/taken.dir"
printf '%s\n' "[Service]" "ExecStart=$SLEEP 10001" "[Install]" "WantedBy=default.target" \
        >"$T/taken.units/anchor.service"
SOCK=$T/taken.dir/svd.sock UNITS=$T/taken.units start_svd
taken_pid=$(SOCK=$T/taken.dir/svd.sock svc_pid anchor)
track_pid "$taken_pid"
crashtest taken --seed 1 --rounds 1
expect_ne "a run on a directory another svd serves fails" 0 "$RC"
expect_contains "... and says which svd runs there" "$(cat "$T/taken.err")" \
        "Another svd (pid $SVD_PID) is running on '$T/taken.dir/svd.sock'"
check "... and that svd's service is untouched" pid_alive "$taken_pid"
stop_svd

done_testing
