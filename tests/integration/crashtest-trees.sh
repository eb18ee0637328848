#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Whole process trees through svd-crashtest, the judge that holds a pidfd of
# every process of svd's tree (and of every one that escaped to the runner,
# a child subreaper) before the fault and waits for each to die. Services
# with host PIDs (no PID namespace of their own): one that leaves
# background jobs, one whose helper setsid's and double-forks, a master
# whose workers ignore SIGHUP and SIGTERM, and one that keeps forking. Every
# seeded round must end with no process alive and no zombie:
# - svd-kill at random moments;
# - svd-kill inside a re-execution: a workload re-executes svd over and
#   over, and each round kills svd as soon as it logs "Re-executing" (before
#   the new image has restored its services);
# - svd-oom, the kernel's OOM killer (skipped without the cgroup2 memory
#   controller).
# Needs root and a writable cgroup2 hierarchy: svd's guard takes the trees
# through their cgroups. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

[ -n "$TEST_CG" ] || skip_all "needs root and a writable cgroup2 hierarchy (svd's guard kills whole trees by their cgroups)"
CRASHTEST=${SVD_CRASHTEST:-$(dirname "$SVCTL")/svd-crashtest}
[ -x "$CRASHTEST" ] || bail_out "no svd-crashtest at $CRASHTEST (SVD_CRASHTEST)"
SETSID=$(path_of setsid) || SETSID=

write_unit bg <<EOF
[Service]
ExecStart=$SH -c '$SLEEP 20011 & $SLEEP 20012 & $SLEEP 20013'
[Install]
WantedBy=default.target
EOF
[ -z "$SETSID" ] || write_unit escape <<EOF
[Service]
ExecStart=$SH -c '$SETSID $SH -c "$SLEEP 20021 & $SLEEP 20022 &" ; exec $SLEEP 20023'
[Install]
WantedBy=default.target
EOF
write_unit pool <<EOF
[Service]
ExecStart=$SH -c 'for i in 1 2 3; do ( trap "" HUP TERM; exec $SLEEP 2003\$\$i ) & done; wait'
[Install]
WantedBy=default.target
EOF
write_unit forker <<EOF
[Service]
ExecStart=$SH -c 'while :; do $SLEEP 20041 & $SLEEP 0.2; done'
[Install]
WantedBy=default.target
EOF

# crashtest NAME ARG...: svd-crashtest in the test's cgroup, the rounds as
# JSON in $T/NAME.json, the round lines in $T/NAME.err; sets RC.
crashtest() {
        _n=$1
        shift
        "$SH" "$T/in-test-cgroup" "$CRASHTEST" --units "$UNITS" --svd "$SVD" --dir "$T/$_n.dir" \
                --death-timeout $((2000 * ${TIMEOUT_FACTOR:-1})) --json "$@" >"$T/$_n.json" 2>"$T/$_n.err" </dev/null
        RC=$?
        grep -e '^round' -e '^  ' -e '^summary' "$T/$_n.err" | sed 's/^/#   /'
        [ "$RC" = 0 ] || diag "stderr:" "$(tail -n 5 "$T/$_n.err")"
}
# rounds NAME FIELD VALUE: how many rounds of NAME's JSON have FIELD equal to VALUE.
rounds() {
        tr '{}' '\n\n' <"$T/$1.json" | grep -c "\"$2\": *$3[,}]*"
}
# least_tracked NAME: the fewest processes a round of NAME tracked.
least_tracked() {
        tr '{},' '\n\n\n' <"$T/$1.json" | sed -n 's/^ *"tracked": *\([0-9]*\)$/\1/p' | sort -n | head -n 1
}

crashtest kill --seed 3434 --rounds 8 --fault svd-kill --at random:100-1500
expect_eq "svd-kill: every round passes (no survivor, no zombie, every service back)" 0 "$RC"
expect_eq "... 8 rounds with 0 survivors" 8 "$(rounds kill survivors 0)"
least=$(least_tracked kill)
diag "the fewest processes tracked in a round: $least"
check "... each round tracked the trees, not only the main processes (at least 10)" test "${least:-0}" -ge 10

crashtest reexec --seed 4545 --rounds 6 --fault svd-kill --at 'svd-log:^Re-executing' \
        --workload "while :; do $SVCTL daemon-reexec >/dev/null 2>&1; done"
expect_eq "svd-kill inside a re-execution: every round passes" 0 "$RC"
expect_eq "... 6 rounds with 0 survivors" 6 "$(rounds reexec survivors 0)"
expect_eq "... each fired by svd's 'Re-executing'" 6 "$(rounds reexec at '"svd-log"')"
inside=$(tr '{}' '\n\n' <"$T/reexec.json" | grep -c '"svdDoing"')
before_done=$(tr '{}' '\n\n' <"$T/reexec.json" | grep '"svdDoing"' | grep -vc 'last logged: Re-executed from')
diag "rounds whose kill came before the new image said 'Re-executed': $before_done of $inside"
check "... at least one kill came inside the window (before the new image had restored)" test "$before_done" -ge 1

crashtest oom --seed 5656 --rounds 3 --fault svd-oom --at random:100-800
if [ "$RC" = 2 ] && grep -q "svd-oom needs" "$T/oom.err"; then
        why=$(grep "svd-oom needs" "$T/oom.err" | sed 's/^svd-crashtest: //')
        skip "svd-oom: the OOM killer kills svd" "$why"
else
        expect_eq "svd-oom: every round passes (no survivor, every service back)" 0 "$RC"
        expect_eq "... 3 rounds with 0 survivors" 3 "$(rounds oom survivors 0)"
fi

done_testing
