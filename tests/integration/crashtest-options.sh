#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# svd-crashtest says what is wrong instead of passing rounds that tested
# nothing, and never hangs on the user's commands:
# - options it cannot honour fail the start (exit 2) with the option named:
#   a negative --seed, --duration 0, --stop-by or --stop-time without a stop
#   fault, --at state: with no state of svd's, a --chart path that cannot
#   be written (nothing on stdout but the report), a --units that is no
#   directory; once svd runs: a --target or an --at log:/state: NAME that is
#   no service of the run;
# - a unit svd cannot load is named with file, line and reason, and the
#   temporary directory of a start that failed is kept and said so;
# - a workload that ends before the fault fails the round (unless
#   --workload-may-exit), and each round says how the workload did;
# - a failed round keeps the --keep-data directories as its check found
#   them, and the workload's log marks each round;
# - a failed round's line ends with the command that replays it alone
#   (--seed S --round N), which runs that round of the schedule only;
# - a check that hangs is killed after --check-timeout and fails the round;
#   a runner interrupted by SIGTERM during the check says so, kills the
#   check's process group and exits 143;
# - a Type=notify service with User= becomes ready: the runner's directory
#   lets it reach svd's notify socket (root).
# TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

CRASHTEST=${SVD_CRASHTEST:-$(dirname "$SVCTL")/svd-crashtest}
[ -x "$CRASHTEST" ] || bail_out "no svd-crashtest at $CRASHTEST (SVD_CRASHTEST)"
WRAP=
[ -n "$TEST_CG" ] && WRAP="$SH $T/in-test-cgroup"

mkdir -p "$T/ok.units" "$T/bad.units"
printf '%s\n' "[Service]" "ExecStart=$SLEEP 31000" "[Install]" "WantedBy=default.target" >"$T/ok.units/anchor.service"
printf '%s\n' "[Service]" "ExecStart=$SH -c 'i=0; while :; do i=\$((i + 1)); echo \"said \$i\"; $SLEEP 0.1; done'" \
        "[Install]" "WantedBy=default.target" >"$T/ok.units/talker.service"
printf '%s\n' "[Service]" "ExecStart=$SLEEP 31001" "Restart=sometimes" "[Install]" "WantedBy=default.target" \
        >"$T/bad.units/broken.service"

# ct NAME UNITS ARG...: svd-crashtest on $T/UNITS.units, stdout in
# $T/NAME.out, stderr in $T/NAME.err; sets RC.
ct() {
        _n=$1 _u=$2
        shift 2
        # shellcheck disable=SC2086
        $WRAP "$CRASHTEST" --units "$T/$_u.units" --svd "$SVD" "$@" >"$T/$_n.out" 2>"$T/$_n.err" </dev/null
        RC=$?
}
# refused NAME TEXT ARG...: the start is refused, exit 2, stderr says TEXT.
refused() {
        _n=$1 _t=$2
        shift 2
        ct "$_n" ok --rounds 1 "$@"
        expect_eq "$_n: refused (exit 2)" 2 "$RC"
        expect_contains "$_n: says why" "$(cat "$T/$_n.err")" "$_t"
}

refused seed "Invalid --seed '-5'" --seed -5
refused duration "Invalid --duration '0'" --duration 0
refused stopby "--stop-by applies to the faults svd-stop and service-stop" --stop-by freeze
refused stoptime "--stop-time applies to the faults svd-stop and service-stop" --stop-time 500
refused state "'bogus' is no state of svd's" --at state:anchor=bogus
refused chart "--chart '/nonexistent/x.png'" --json --chart /nonexistent/x.png
expect_eq "chart: nothing on stdout" "" "$(cat "$T/chart.out")"
refused target "--target 'nosuch' is not one of the services under test" --fault service-kill --target nosuch
refused atlog "svd has no unit 'nosuch'" --at log:nosuch=x
refused targetfault "--target applies to the service faults" --target anchor

"$CRASHTEST" --units "$T/nowhere" --svd "$SVD" >"$T/nounits.out" 2>"$T/nounits.err" </dev/null
expect_eq "a --units that does not exist: exit 2" 2 "$?"
expect_contains "... named, with the error" "$(cat "$T/nounits.err")" "--units '$T/nowhere': No such file or directory"

TMPDIR=$T ct broken bad --rounds 1
expect_eq "a unit with a bad value: exit 2" 2 "$RC"
expect_contains "... says what svd said: file, line, reason" "$(cat "$T/broken.err")" \
        "$T/bad.units/broken.service:3: Invalid value 'sometimes' for Restart="
kept=$(sed -n 's/^svd-crashtest: kept \([^ ]*\) .*/\1/p' "$T/broken.err")
check "... keeps its temporary directory and says so" test -n "$kept" -a -f "$kept/svd.log"
check "... whose svd.log has the time of each line" grep -q '^\[20[0-9-]* [0-9:.]*\] svd: ' "$kept/svd.log"

# ---- the workload ----
ct early ok --seed 1 --rounds 2 --at random:300-400 --workload "exit 3"
expect_eq "a workload that exits at once fails the rounds" 1 "$RC"
expect_eq "... each of them, with how it ended" 2 \
        "$(grep -c '^round [12] FAIL .* workload=exited:3,before-fault reason="the workload ended before the fault' "$T/early.out")"
# The failed round's line ends with the command that replays it alone.
line=$(grep '^round 2 FAIL' "$T/early.out")
replay=${line##* replay: }
expect_contains "a failed round's line ends with its replay command" "$replay" "--seed 1 --round 2"
# shellcheck disable=SC2086
$WRAP sh -c "$replay" >"$T/replay.out" 2>"$T/replay.err" </dev/null
expect_eq "... which fails again" 1 "$?"
expect_eq "... running that round alone" 1 "$(grep -c '^round ' "$T/replay.out")"
at() { sed -n 's/^round 2 .* at=\([^ ]*\) .*/\1/p' "$1"; }
expect_eq "... at the same moment of the same schedule" "$(at "$T/early.out")" "$(at "$T/replay.out")"
ct json ok --seed 1 --rounds 1 --at random:100-200 --json --dir "$T/json.dir"
expect_contains "the JSON names the directory" "$(cat "$T/json.out")" "\"directory\":\"$T/json.dir\""
expect_contains "... and each round's replay command" "$(cat "$T/json.out")" "--seed 1 --round 1\""
refused roundseed "--round N replays round N of a run: it needs that run's --seed" --round 2
ct mayexit ok --seed 1 --rounds 1 --at random:300-400 --workload "true" --workload-may-exit
expect_eq "--workload-may-exit: the round passes" 0 "$RC"
check "... and says the workload exited before the fault" grep -q '^round 1 ok .* workload=exited:0,before-fault' "$T/mayexit.out"
# The runner raises its own limit of open files (a pidfd per tracked process); the workload and the
# check get the one it was started with.
hard=$(ulimit -Hn)
if [ "$hard" = unlimited ] || [ "$hard" -gt 1000 ]; then
        (
                ulimit -Sn 1000
                ct nofile ok --seed 1 --rounds 1 --at random:100-200 --workload "ulimit -n >$T/nofile.workload; exec $SLEEP 1000" \
                        --check "ulimit -n >$T/nofile.check"
        )
        expect_eq "the workload runs with the runner's own limit of open files" 1000 "$(cat "$T/nofile.workload" 2>/dev/null)"
        expect_eq "... and so does the check" 1000 "$(cat "$T/nofile.check" 2>/dev/null)"
else
        skip "the workload runs with the runner's own limit of open files" "the hard limit is $hard"
        skip "... and so does the check" "the hard limit is $hard"
fi
ct steady ok --seed 1 --rounds 1 --at random:100-200 --workload "exec $SLEEP 1000"
expect_eq "a workload that runs through the round" 0 "$RC"
check "... is reported running" grep -q '^round 1 ok .* workload=running' "$T/steady.out"

# The workload's counters: KEY=VALUE lines on $SVD_CRASHTEST_COUNTERS_FD, the last value of each
# key per round, summed over the rounds.
cat >"$T/counting.sh" <<'EOF'
i=0
while :; do
        i=$((i + 1))
        echo "acked=$i" >&"$SVD_CRASHTEST_COUNTERS_FD"
        [ "$i" = 3 ] && { echo "failed=1"; echo "not a counter"; } >&"$SVD_CRASHTEST_COUNTERS_FD"
        [ "$i" -ge 5 ] && exec sleep 1000
done
EOF
ct counters ok --seed 1 --rounds 2 --at random:300-400 --json --workload "sh $T/counting.sh"
expect_eq "a workload that reports counters" 0 "$RC"
expect_eq "... each round line has the last value of each key" 2 \
        "$(grep -c '^round [12] ok .* counters=acked:5,failed:1' "$T/counters.err")"
expect_contains "... the summary sums them" "$(cat "$T/counters.err")" "counters over all rounds: acked:10,failed:2"
expect_contains "... so does the JSON" "$(cat "$T/counters.out")" '"counters":{"acked":10,"failed":2}'
expect_contains "... and a line that is no counter is named" "$(cat "$T/counters.err")" "'not a counter' is no KEY=NUMBER"

ct marker ok --seed 1 --rounds 1 --json --at 'marker:^go [0-9]+$' --workload "echo 'go 7'; exec $SLEEP 1000"
expect_eq "a marker moment" 0 "$RC"
check "... the round says how long after the event the fault came" grep -q '^round 1 ok .* trigger-lag=[0-9.]*ms' "$T/marker.err"
expect_contains "... the JSON names the line that matched" "$(cat "$T/marker.out")" '"trigger":"go 7"'

mkdir -p "$T/data/sub" && echo "state 42" >"$T/data/sub/file"
ct keepdata ok --seed 1 --rounds 1 --at random:600-700 --dir "$T/kd.dir" --keep-data "$T/data" --check "exit 1" \
        --workload "echo working; exec $SLEEP 1000"
expect_eq "a round whose check fails" 1 "$RC"
expect_eq "... keeps the data directory as the check found it (--keep-data)" "state 42" \
        "$(cat "$T/kd.dir/round-1.data/data/sub/file" 2>/dev/null)"
expect_eq "... and the workload's log says which round each line is of" "--- round 1 ---,working" \
        "$(paste -s -d, "$T/kd.dir/workload.log")"
check "... each service's output since svd restarted it" grep -q '^\[20.*\] stdout: said [0-9]' "$T/kd.dir/round-1.talker.log"
check "... and what it printed in the round before svd died" grep -q '^\[20.*\] stdout: said [0-9]' \
        "$T/kd.dir/round-1.talker.before.log"
refused keeprel "--keep-data 'data': an absolute path" --keep-data data

# ---- a check that hangs ----
ct hang ok --seed 1 --rounds 1 --at random:100-200 --check "exec $SLEEP 1000" --check-timeout 2
expect_eq "a check that hangs fails the round (exit 1), the run goes on" 1 "$RC"
expect_contains "... killed after --check-timeout" "$(cat "$T/hang.out")" "the check ran longer than --check-timeout (2 s) and was killed"

MARK=$T/check-started
# shellcheck disable=SC2086
$WRAP "$CRASHTEST" --units "$T/ok.units" --svd "$SVD" --seed 1 --rounds 3 --at random:100-200 \
        --check "echo \$\$ >$MARK; exec $SLEEP 4243$$" >"$T/term.out" 2>"$T/term.err" </dev/null &
CT=$!
check "the check runs" wait_until 30 test -s "$MARK"
kill -TERM "$CT"
wait "$CT"
expect_eq "SIGTERM during the check: exit 143" 143 "$?"
expect_contains "... the round says so" "$(cat "$T/term.out")" "the runner was interrupted (SIGTERM) during the check"
expect_contains "... and the runner" "$(cat "$T/term.err")" "svd-crashtest: interrupted by SIGTERM"
no_check_left() {
        ! grep -q "4243$$" "/proc/$(cat "$MARK")/cmdline" 2>/dev/null
}
check "... the check's process group is gone" wait_until 5 no_check_left
expect_eq "... only the interrupted round ran" 1 "$(grep -c '^round ' "$T/term.out")"

# ---- Type=notify with User= ----
# Debian's python3, which any user may run (not one of root's own, as a pyenv shim would be).
PY=/usr/bin/python3
[ -x "$PY" ] || PY=
if [ "$(id -u)" != 0 ]; then
        skip "Type=notify with User=nobody becomes ready" "needs root (User=)"
elif [ -z "$PY" ]; then
        skip "Type=notify with User=nobody becomes ready" "no /usr/bin/python3"
else
        mkdir -p "$T/notify.units"
        cat >"$T/notify.units/n.service" <<EOF
[Service]
Type=notify
User=nobody
ExecStart=$PY -c 'import socket, os, time; s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.connect(os.environ["NOTIFY_SOCKET"]); s.send(b"READY=1"); time.sleep(1000)'
[Install]
WantedBy=default.target
EOF
        # The runner's own temporary directory, in /tmp as a user gets it (the test's own is 0700).
        ct notify notify --seed 1 --rounds 2 --ready-timeout 20
        expect_eq "Type=notify with User=nobody becomes ready and comes back after each kill" 0 "$RC"
        [ "$RC" = 0 ] || diag "$(tail -n 5 "$T/notify.err")"
fi

done_testing
