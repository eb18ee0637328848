#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The commands around the main one, as systemd.service(5) runs them:
# ExecStartPre=, ExecStartPost=, ExecReload= (svctl reload NAME), ExecStop=,
# ExecStopPost=, several ExecStart= of a oneshot; their order (each appends
# to a file), the environment of the stop commands ($MAINPID,
# $SERVICE_RESULT, $EXIT_CODE, $EXIT_STATUS), a failing and a timed-out
# ExecStartPre=, the states they run in, and that each is a process of the
# service (its cgroup, killed with svd). TAP output.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test
# The path svd names a command by: the first word ("/bin/busybox" of "/bin/busybox sh" in the lab).
SH0=${SH%% *}
SLEEP0=${SLEEP%% *}

# Each command appends one line "WHAT [env]" to $T/NAME.order.
rec() { # rec NAME WHAT [SHELL-WORDS]: an Exec line's command that records WHAT
        printf '%s -c '\''echo "%s %s" >>%s/%s.order'\''' "$SH" "$2" "${3:-}" "$T" "$1"
}

write_unit order <<EOF
[Service]
ExecStartPre=$(rec order pre1)
ExecStartPre=$(rec order pre2)
ExecStart=$SH -c 'echo "main \$\$\$\$" >>$T/order.main; exec $SLEEP 1000'
ExecStartPost=$(rec order post 'main=$$MAINPID')
ExecReload=$(rec order reload 'main=$$MAINPID')
ExecStop=$(rec order stop 'main=$$MAINPID result=$$SERVICE_RESULT code=$${EXIT_CODE-unset}')
ExecStop=$SH -c 'kill \$\$MAINPID'
ExecStopPost=$(rec order stoppost 'main=$${MAINPID-unset} result=$$SERVICE_RESULT code=$$EXIT_CODE status=$$EXIT_STATUS')
EOF

# The main process ends by itself with status 4 once $T/go exists: ExecStop= still runs (the start had
# completed), without $MAINPID, and both stop commands see how it ended.
write_unit selfexit <<EOF
[Service]
ExecStart=$SH -c 'while [ ! -e $T/go ]; do $SLEEP 0.1; done; exit 4'
ExecStop=$(rec selfexit stop 'main=$${MAINPID-unset} result=$$SERVICE_RESULT code=$$EXIT_CODE status=$$EXIT_STATUS')
ExecStopPost=$(rec selfexit stoppost 'result=$$SERVICE_RESULT code=$$EXIT_CODE status=$$EXIT_STATUS')
EOF

write_unit prefail <<EOF
[Service]
ExecStartPre=$(rec prefail pre1)
ExecStartPre=$SH -c 'exit 3'
ExecStartPre=$(rec prefail pre3)
ExecStart=$(rec prefail main)
ExecStop=$(rec prefail stop)
ExecStopPost=$(rec prefail stoppost 'result=$$SERVICE_RESULT')
EOF

write_unit preignored <<EOF
[Service]
Type=oneshot
ExecStartPre=-$SH -c 'exit 3'
ExecStart=$(rec preignored main)
EOF

write_unit pretimeout <<EOF
[Service]
TimeoutStartSec=1
ExecStartPre=$SLEEP 1000
ExecStart=$(rec pretimeout main)
ExecStopPost=$(rec pretimeout stoppost 'result=$$SERVICE_RESULT')
EOF

# ExecStartPre= waits for $T/pre-go: its state and process can be looked at meanwhile.
write_unit prewait <<EOF
[Service]
ExecStartPre=$SH -c 'while [ ! -e $T/pre-go ]; do $SLEEP 0.1; done'
ExecStart=$SLEEP 1000
EOF

write_unit oneshot <<EOF
[Service]
Type=oneshot
ExecStart=$(rec oneshot one)
ExecStart=-$SH -c 'echo two >>$T/oneshot.order; exit 1'
ExecStart=$(rec oneshot three)
ExecStartPost=$(rec oneshot post)
ExecStopPost=$(rec oneshot stoppost 'result=$$SERVICE_RESULT')
EOF

write_unit oneshotfail <<EOF
[Service]
Type=oneshot
ExecStart=$(rec oneshotfail one)
ExecStart=$SH -c 'exit 2'
ExecStart=$(rec oneshotfail three)
EOF

write_unit remain <<EOF
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=$(rec remain main)
ExecStop=$(rec remain stop)
ExecStopPost=$(rec remain stoppost)
EOF

# Type=oneshot with ExecStop= only, as lvm2's blk-availability.service.
write_unit stoponly <<EOF
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStop=$(rec stoponly stop)
EOF

write_unit noreload <<EOF
[Service]
ExecStart=$SLEEP 1000
EOF

write_unit reloadfail <<EOF
[Service]
ExecStart=$SLEEP 1000
ExecReload=$SH -c 'exit 9'
EOF

start_svd

order() { cat "$T/$1.order" 2>/dev/null | tr '\n' '|'; }

# ---- the order of a start, a reload and a stop ----
run svctl start order
expect_rc "start of a service with every command key" 0
expect_eq "... running" running "$(svc_state order)"
MAIN=$(svc_pid order)
# Type=simple: ExecStartPost= runs once the main process is created, as in systemd (not after its
# first line).
expect_eq "pre1, pre2, then ExecStartPost= with \$MAINPID" "pre1 |pre2 |post main=$MAIN|" "$(order order)"
wait_until 30 test -s "$T/order.main"
expect_eq "... the main command is the process \$MAINPID named" "main $MAIN|" "$(tr '\n' '|' <"$T/order.main")"

run svctl reload order
expect_rc "svctl reload NAME runs ExecReload=" 0
expect_eq "... with \$MAINPID, the main process untouched" \
        "pre1 |pre2 |post main=$MAIN|reload main=$MAIN|" "$(order order)"
expect_eq "... and it is running again" running "$(svc_state order)"
expect_eq "... same main process" "$MAIN" "$(svc_pid order)"

run svctl stop order
expect_rc "stop" 0
expect_eq "ExecStop= sees \$MAINPID and no exit yet; ExecStopPost= sees how the main process ended" \
        "pre1 |pre2 |post main=$MAIN|reload main=$MAIN|stop main=$MAIN result=success code=unset|stoppost main=unset result=success code=killed status=TERM|" \
        "$(order order)"
expect_eq "... inactive, not failed: the main process went when asked" inactive "$(svc_state order)"
expect_eq "... the main process is gone" 1 "$(pid_gone "$MAIN" && echo 1)"
expect_contains "svctl status shows when each state was entered" "$(svc_field order stateEnterUsec)" '"stop-post":'

# ---- the main process ends by itself ----
run svctl start selfexit
expect_rc "start of a service whose main process ends by itself" 0
touch "$T/go"
wait_until 30 state_is selfexit failed
expect_eq "... it ends failed (status 4)" failed "$(svc_state selfexit)"
expect_eq "ExecStop= runs after the main process ended, without \$MAINPID; both see the exit" \
        "stop main=unset result=exit-code code=exited status=4|stoppost result=exit-code code=exited status=4|" \
        "$(order selfexit)"

# ---- a failing ExecStartPre= ----
run svctl start prefail
expect_rc "a failing ExecStartPre= fails the start" 1
expect_contains "... naming the command and its status" "$ERR" "ExecStartPre= '$SH0' exited with status 3"
expect_eq "... failed" failed "$(svc_state prefail)"
expect_eq "... the commands after it and the main one never ran, ExecStop= neither; ExecStopPost= did" \
        "pre1 |stoppost result=exit-code|" "$(order prefail)"
expect_contains "... svctl status names it" "$(svctl status prefail 2>&1)" "ExecStartPre= '$SH0' exited with status 3"

run svctl start preignored
expect_rc "a failing ExecStartPre=- is ignored" 0
expect_eq "... the main command ran" "main |" "$(order preignored)"

run svctl start pretimeout
expect_rc "an ExecStartPre= that outlives TimeoutStartSec= fails the start" 1
expect_contains "... saying so" "$ERR" "ExecStartPre= '$SLEEP0' did not finish within TimeoutStartSec="
expect_eq "... result timeout" timeout "$(svc_field pretimeout result)"
expect_eq "... ExecStopPost= ran, the main command did not" "stoppost result=timeout|" "$(order pretimeout)"

# ---- states and processes of a command ----
svctl start prewait >/dev/null 2>&1 &
START_PID=$!
wait_until 30 state_is prewait start-pre
expect_eq "while ExecStartPre= runs the state is start-pre" start-pre "$(svc_state prewait)"
CONTROL=$(json_field pid "$(svc_field prewait control)")
expect_contains "svctl status names the command" "$(svctl status prewait 2>&1)" "Control: $CONTROL (ExecStartPre=$SH0)"
expect_eq "... and has no main process yet" null "$(svc_pid prewait)"
CONTROL_CG=$(cat "/proc/$CONTROL/cgroup" 2>/dev/null)
touch "$T/pre-go"
wait_until 30 state_is prewait running
wait "$START_PID"
expect_eq "... then the start goes on: running" running "$(svc_state prewait)"
expect_eq "... the command is gone" 1 "$(pid_gone "$CONTROL" && echo 1)"
if [ -n "$TEST_CG" ]; then
        expect_eq "the command ran in the cgroup the main process runs in" "$(cat "/proc/$(svc_pid prewait)/cgroup")" \
                "$CONTROL_CG"
else
        skip "the command ran in the service's cgroup" "svd has no cgroup here"
fi
svctl stop prewait >/dev/null 2>&1

# ---- several ExecStart= of a oneshot ----
run svctl start oneshot
expect_rc "a oneshot with three ExecStart= (the second failing with '-')" 0
expect_eq "... they run in order, then ExecStartPost=, then ExecStopPost=" \
        "one |two|three |post |stoppost result=success|" "$(order oneshot)"
expect_eq "... inactive" inactive "$(svc_state oneshot)"

run svctl start oneshotfail
expect_rc "a oneshot whose second ExecStart= fails" 1
expect_eq "... the third never runs" "one |" "$(order oneshotfail)"
expect_eq "... failed" failed "$(svc_state oneshotfail)"

run svctl start remain
expect_rc "RemainAfterExit=yes" 0
expect_eq "... exited, no stop command yet" "exited:main |" "$(svc_state remain):$(order remain)"
run svctl stop remain
expect_rc "... its stop" 0
expect_eq "... runs ExecStop= and ExecStopPost=" "inactive:main |stop |stoppost |" "$(svc_state remain):$(order remain)"

run svctl start stoponly
expect_rc "a oneshot with ExecStop= only starts" 0
expect_eq "... exited, nothing ran" "exited:" "$(svc_state stoponly):$(order stoponly)"
run svctl stop stoponly
expect_eq "... its stop runs ExecStop=" "0:inactive:stop |" "$RC:$(svc_state stoponly):$(order stoponly)"

# ---- reload: what cannot be reloaded ----
run svctl start noreload reloadfail
run svctl reload noreload
expect_rc "svctl reload NAME without ExecReload= fails" 1
expect_contains "... saying so" "$ERR" "no ExecReload="
run svctl reload reloadfail
expect_rc "a failing ExecReload= fails the reload" 1
expect_contains "... naming the command" "$ERR" "ExecReload= '$SH0' exited with status 9"
expect_eq "... the service runs on" running "$(svc_state reloadfail)"
run svctl reload order
expect_rc "svctl reload NAME of an inactive service fails" 1
expect_contains "... it is not running" "$ERR" "not running"
run svctl reload
expect_rc "svctl reload without a name re-reads the unit directory" 0
expect_eq "... as before" "No changes." "$OUT"
run svctl daemon-reload
expect_rc "svctl daemon-reload does the same" 0
expect_eq "... as before" "No changes." "$OUT"
run svctl reload nosuch
expect_rc "svctl reload of no such service" 4

# ---- a command across a re-exec of svd ----
rm -f "$T/pre-go"
svctl start prewait >/dev/null 2>&1 &
wait_until 30 state_is prewait start-pre
CONTROL=$(json_field pid "$(svc_field prewait control)")
run svctl daemon-reexec
expect_rc "svctl daemon-reexec while ExecStartPre= runs" 0
expect_eq "... the same command process runs on, still in start-pre" "start-pre:$CONTROL" \
        "$(svc_state prewait):$(json_field pid "$(svc_field prewait control)")"
touch "$T/pre-go"
wait_until 30 state_is prewait running
expect_eq "... the new svd sees it end and goes on: running" running "$(svc_state prewait)"
run svctl stop prewait
expect_rc "... and stops it" 0

# ---- a command dies with svd ----
rm -f "$T/pre-go"
svctl start prewait >/dev/null 2>&1 &
wait_until 30 state_is prewait start-pre
CONTROL=$(json_field pid "$(svc_field prewait control)")
kill -KILL "$SVD_PID"
wait "$SVD_JOB"
SVD_PID=
expect_eq "kill -9 of svd: the running ExecStartPre= dies too" 0 "$(wait_until 30 pid_gone "$CONTROL" && echo 0)"

done_testing
