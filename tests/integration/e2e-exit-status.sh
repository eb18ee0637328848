#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# How a service's end is judged and what a stop signals, as
# systemd.service(5) and systemd.kill(5) say: SuccessExitStatus= (numbers,
# names, signals), RestartPreventExitStatus= and RestartForceExitStatus=
# against Restart=, and KillMode=control-group, mixed, process and none (with
# a cgroup: the main process and a child of it each record the SIGTERM they
# get). TAP output.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

write_unit success-status <<EOF
[Service]
Type=oneshot
SuccessExitStatus=7 TEMPFAIL
ExecStart=$SH -c 'exit 7'
EOF

write_unit success-name <<EOF
[Service]
Type=oneshot
SuccessExitStatus=7 TEMPFAIL
ExecStart=$SH -c 'exit 75'
EOF

write_unit other-status <<EOF
[Service]
Type=oneshot
SuccessExitStatus=7 TEMPFAIL
ExecStart=$SH -c 'exit 8'
EOF

write_unit success-signal <<EOF
[Service]
SuccessExitStatus=SIGUSR1
ExecStart=$SLEEP 1000
EOF

write_unit plain-signal <<EOF
[Service]
ExecStart=$SLEEP 1000
EOF

# Restart=always, but status 5 prevents it; status 6 of the same unit does not.
write_unit prevent <<EOF
[Service]
Restart=always
RestartSec=100ms
RestartPreventExitStatus=5 SIGUSR2
ExecStart=$SH -c 'echo run >>$T/prevent.count; exit 5'
EOF

write_unit prevent-other <<EOF
[Service]
Restart=always
RestartSec=100ms
StartLimitBurst=0
RestartPreventExitStatus=5
ExecStart=$SH -c 'echo run >>$T/prevent-other.count; exit 6'
EOF

# Restart=no, but status 6 forces a restart.
write_unit force <<EOF
[Service]
Restart=no
RestartSec=100ms
StartLimitBurst=0
RestartForceExitStatus=6
ExecStart=$SH -c 'echo run >>$T/force.count; exit 6'
EOF

# A status in both: RestartPreventExitStatus= wins.
write_unit force-prevent <<EOF
[Service]
Restart=always
RestartSec=100ms
RestartForceExitStatus=5
RestartPreventExitStatus=5
ExecStart=$SH -c 'echo run >>$T/force-prevent.count; exit 5'
EOF

# The process tree of a KillMode= service: the main process and one child, each recording SIGTERM.
# With control-group both get it at once; svd SIGKILLs what is left as soon as the main process is
# gone, so the main process waits (10 s at most) until the child has recorded its SIGTERM.
cat >"$T/tree.sh" <<EOF
#!$SH
n=\$1
$SH -c 'trap "echo term >>$T/\$0.child; exit 0" TERM; echo \$\$ >$T/\$0.childpid; while :; do $SLEEP 0.1; done' "\$n" &
child_recorded() {
        [ "\$n" = km-control-group ] || return 0
        i=0
        while [ ! -s "$T/\$n.child" ] && [ \$i -lt 100 ]; do $SLEEP 0.1; i=\$((i + 1)); done
}
trap "echo term >>$T/\$n.main; child_recorded; exit 0" TERM
while :; do $SLEEP 0.1; done
EOF
chmod +x "$T/tree.sh"
for mode in control-group mixed process none; do
        stop=
        [ "$mode" = none ] && stop="ExecStop=$SH -c 'kill \$\$MAINPID'"
        write_unit "km-$mode" <<EOF
[Service]
KillMode=$mode
TimeoutStopSec=60
ExecStart=$T/tree.sh km-$mode
$stop
EOF
done

start_svd

count() { wc -l <"$T/$1.count" 2>/dev/null | tr -d ' '; }
count_at_least() { [ "$(count "$1")" -ge "$2" ] 2>/dev/null; }

# ---- SuccessExitStatus= ----
run svctl start success-status
expect_rc "SuccessExitStatus=7: a oneshot that exits 7 starts" 0
expect_eq "... inactive, result success" inactive:success "$(svc_state success-status):$(svc_field success-status result)"
run svctl start success-name
expect_rc "SuccessExitStatus=TEMPFAIL: exit 75 is a success" 0
run svctl start other-status
expect_rc "... exit 8 is not" 1
expect_eq "... failed" failed "$(svc_state other-status)"

run svctl start success-signal plain-signal
run svctl kill --signal SIGUSR1 success-signal plain-signal
wait_until 30 state_is plain-signal failed
wait_until 30 state_is success-signal inactive
expect_eq "SuccessExitStatus=SIGUSR1: killed by SIGUSR1 ends inactive" inactive:success \
        "$(svc_state success-signal):$(svc_field success-signal result)"
expect_eq "... without it, failed (signal)" failed:signal "$(svc_state plain-signal):$(svc_field plain-signal result)"

# ---- RestartPreventExitStatus=, RestartForceExitStatus= ----
run svctl start prevent prevent-other force force-prevent
wait_until 30 state_is prevent failed
expect_eq "Restart=always with RestartPreventExitStatus=5: exit 5 ends failed, not restarted" \
        "failed:0:1" "$(svc_state prevent):$(svc_field prevent restarts):$(count prevent)"
wait_until 30 count_at_least prevent-other 3
expect_eq "... exit 6 of the same unit restarts" 1 "$(count_at_least prevent-other 3 && echo 1)"
wait_until 30 count_at_least force 3
expect_eq "Restart=no with RestartForceExitStatus=6: exit 6 restarts" 1 "$(count_at_least force 3 && echo 1)"
wait_until 30 state_is force-prevent failed
expect_eq "a status in both: RestartPreventExitStatus= wins" "failed:1" \
        "$(svc_state force-prevent):$(count force-prevent)"
run svctl stop prevent-other force
expect_rc "a stop ends the forced restarts" 0
expect_eq "... inactive" inactive:inactive "$(svc_state prevent-other):$(svc_state force)"

# ---- KillMode= ----
if [ -z "$TEST_CG" ]; then
        skip "KillMode= (4 modes)" "svd has no cgroup here: KillMode=control-group and mixed signal the main process only"
        done_testing
        exit
fi
for mode in control-group mixed process none; do
        run svctl start "km-$mode"
        wait_until 30 test -s "$T/km-$mode.childpid"
        eval "CHILD_$(echo "$mode" | tr - _)=\$(cat \"\$T/km-\$mode.childpid\")"
        run svctl stop "km-$mode"
        expect_eq "KillMode=$mode: stopped, inactive" 0:inactive "$RC:$(svc_state "km-$mode")"
        expect_eq "... the main process got SIGTERM" term "$(cat "$T/km-$mode.main" 2>/dev/null)"
done
expect_eq "KillMode=control-group: the child got SIGTERM too" term "$(cat "$T/km-control-group.child" 2>/dev/null)"
expect_eq "... and is gone" 1 "$(pid_gone "$CHILD_control_group" && echo 1)"
expect_eq "KillMode=mixed: the child got no SIGTERM" "" "$(cat "$T/km-mixed.child" 2>/dev/null)"
expect_eq "... but SIGKILL: it is gone" 1 "$(pid_gone "$CHILD_mixed" && echo 1)"
expect_eq "KillMode=process: the child got nothing" "" "$(cat "$T/km-process.child" 2>/dev/null)"
expect_eq "... and runs on" 1 "$(pid_alive "$CHILD_process" && echo 1)"
expect_eq "KillMode=none: ExecStop= stopped the main process, the child got nothing" "" \
        "$(cat "$T/km-none.child" 2>/dev/null)"
expect_eq "... and runs on" 1 "$(pid_alive "$CHILD_none" && echo 1)"
kill -KILL "$CHILD_process" "$CHILD_none" 2>/dev/null

done_testing
