#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Readiness end to end: Type=notify through libsystemd's sd_notify() (the
# notify-service helper), with STATUS=, ERRNO=, RELOADING=1, STOPPING=1,
# WatchdogSec= (keep-alives, a missed deadline, WATCHDOG=trigger), a READY=1
# from a stranger and from a child of the service, TimeoutStartSec=, an exit
# before READY=1; Type=oneshot with and without RemainAfterExit=; Type=exec.
#
# Synchronisation: Start replies when the service is ready, so the tests wait
# on svctl itself, on FIFOs the services read, and on svctl status polled with
# a bound; never on a fixed sleep. TAP output.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

NS=$(find_helper notify-service) || true
[ -n "$NS" ] || skip_all "the notify-service helper is not built"

fifo() {
        mkfifo "$T/$1.fifo" || bail_out "mkfifo failed"
}

# ---- units ----

fifo ready
write_unit ready <<EOF2
[Service]
Type=notify
ExecStart=$NS wait:$T/ready.fifo "notify:STATUS=Serving requests\nERRNO=5\nREADY=1" wait:$T/ready.fifo notify:RELOADING=1 wait:$T/ready.fifo notify:READY=1 wait:$T/ready.fifo notify:STOPPING=1 wait:$T/ready.fifo exit:0
EOF2

write_unit noready <<EOF2
[Service]
Type=notify
TimeoutStartSec=1s
ExecStart=$NS notify:STATUS=never pause
EOF2

write_unit early <<EOF2
[Service]
Type=notify
ExecStart=$NS exit:3
EOF2

fifo stranger
write_unit stranger <<EOF2
[Service]
Type=notify
ExecStart=$NS wait:$T/stranger.fifo notify:READY=1 pause
EOF2

write_unit child <<EOF2
[Service]
Type=notify
NotifyAccess=all
TimeoutStartSec=5s
ExecStart=$NS child:READY=1 pause
EOF2

# NotifyAccess=: main (the default for Type=notify) believes the main process only; none nobody;
# all lets a Type=simple service send STATUS=.
write_unit child-main <<EOF2
[Service]
Type=notify
TimeoutStartSec=2s
ExecStart=$NS child:READY=1 pause
EOF2
write_unit access-none <<EOF2
[Service]
Type=notify
NotifyAccess=none
TimeoutStartSec=2s
ExecStart=$NS notify:READY=1 pause
EOF2
write_unit access-all <<EOF2
[Service]
Type=simple
NotifyAccess=all
ExecStart=$NS notify:STATUS=simple-status pause
EOF2
write_unit access-default <<EOF2
[Service]
Type=oneshot
ExecStart=$SH -c 'echo "socket=\${NOTIFY_SOCKET:-none}"'
EOF2

write_unit child-ns <<EOF2
[Service]
Type=notify
PrivatePIDs=yes
TimeoutStartSec=10s
ExecStart=$NS notify:READY=1 pause
EOF2

write_unit wd <<EOF2
[Service]
Type=notify
WatchdogSec=1s
ExecStart=$NS notify:READY=1 watchdog
EOF2

write_unit wdfail <<EOF2
[Service]
Type=notify
WatchdogSec=500ms
LimitCORE=0
ExecStart=$NS notify:READY=1 pause
EOF2

fifo wdtrigger
write_unit wdtrigger <<EOF2
[Service]
Type=exec
WatchdogSec=1h
Restart=on-watchdog
RestartSec=1h
LimitCORE=0
ExecStart=$NS wait:$T/wdtrigger.fifo notify:WATCHDOG=trigger pause
EOF2

fifo once
write_unit once <<EOF2
[Service]
Type=oneshot
ExecStart=$SH -c 'read -r line <$T/once.fifo; exit 0'
EOF2

write_unit once-remain <<EOF2
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=$SH -c 'exit 0'
EOF2

write_unit once-fail <<EOF2
[Service]
Type=oneshot
ExecStart=$SH -c 'exit 4'
EOF2

write_unit exec <<EOF2
[Service]
Type=exec
ExecStart=$SLEEP 1000
EOF2

write_unit simple-bad <<EOF2
[Service]
Type=simple
ExecStart=/nonexistent/notify-test-binary
EOF2

start_svd

# ---- Type=notify: Start waits for READY=1 ----

bg_start ready
check "notify: the service is starting while it has not sent READY=1" wait_until 10 state_is ready starting
if start_returned ready; then
        not_ok "notify: ... and svctl start is still waiting"
else
        ok "notify: ... and svctl start is still waiting"
fi
check "notify: READY=1 (sd_notify through libsystemd)" poke "$T/ready.fifo"
check "notify: ... svctl start returns" wait_until 10 start_returned ready
expect_eq "notify: ... with status 0" 0 "$(start_rc ready)"
J=$(svc_json ready)
track_pid "$(json_field pid "$J")"
expect_eq "notify: ... and the service is running when it does" running "$(json_field state "$J")"
expect_eq "notify: STATUS= is kept" "Serving requests" "$(json_field statusText "$J")"
expect_eq "notify: ERRNO= is kept" 5 "$(json_field statusErrno "$J")"
expect_eq "notify: type is notify" notify "$(json_field type "$J")"
run svctl status ready
expect_contains "notify: svctl status shows STATUS=" "$OUT" 'Status: "Serving requests" (errno 5)'
expect_contains "notify: svctl status shows the type" "$OUT" "Type: notify"

check "notify: RELOADING=1" poke "$T/ready.fifo"
check "notify: ... the service is reloading" wait_until 10 state_is ready reloading
check "notify: READY=1 after reloading" poke "$T/ready.fifo"
check "notify: ... the service is running again" wait_until 10 state_is ready running
check "notify: STOPPING=1" poke "$T/ready.fifo"
check "notify: ... the service is stopping" wait_until 10 state_is ready stopping
check "notify: its exit after STOPPING=1" poke "$T/ready.fifo"
check "notify: ... ends inactive" wait_until 10 state_is ready inactive
expect_eq "notify: ... with result success" success "$(svc_field ready result)"

# ---- failures before READY=1 ----

run svctl start noready
expect_rc "TimeoutStartSec=1s without READY=1: start fails" 1
expect_contains "... saying so" "$ERR" "did not report READY=1 within TimeoutStartSec=1s"
check "... the service ends failed" wait_until 10 state_is noready failed
expect_eq "... with result timeout" timeout "$(svc_field noready result)"

run svctl start early
expect_rc "an exit before READY=1: start fails" 1
expect_contains "... naming the exit" "$ERR" "exited with status 3 before it reported READY=1"
expect_eq "... the service is failed" failed "$(svc_state early)"
expect_eq "... with result exit-code" exit-code "$(svc_field early result)"

# ---- who is believed ----

bg_start stranger
check "stranger: the service is starting" wait_until 10 state_is stranger starting
NOTIFY_PATH=$(svctl --json info | json_field notifySocket)
check "svd says where its notify socket is" test -S "$NOTIFY_PATH"
NOTIFY_SOCKET=$NOTIFY_PATH "$NS" notify:READY=1 2>/dev/null
if stays_for 1 state_is stranger starting; then
        ok "stranger: a READY=1 from a process outside the service is ignored"
else
        not_ok "stranger: a READY=1 from a process outside the service is ignored"
fi
check "stranger: the service's own READY=1" poke "$T/stranger.fifo"
check "stranger: ... start returns" wait_until 10 start_returned stranger
expect_eq "stranger: ... with status 0" 0 "$(start_rc stranger)"
track_pid "$(svc_pid stranger)"

CGROUP=$(svctl --json info | _json_field cgroup)
run svctl start child
if [ "$CGROUP" = true ]; then
        expect_rc "child: a READY=1 from a child in the service's cgroup is believed" 0
        track_pid "$(svc_pid child)"
else
        expect_rc "child: without a cgroup, a READY=1 from a child is not believed" 1
        expect_contains "... start times out" "$ERR" "did not report READY=1"
fi

# shellcheck disable=SC2317 # called through wait_until
status_text_is() {
        [ "$(svc_field "$1" statusText)" = "$2" ]
}

run svctl start child-main
expect_rc "child-main: NotifyAccess=main (the default): a child's READY=1 is not believed" 1
expect_contains "... start times out" "$ERR" "did not report READY=1"
run svctl start access-none
expect_rc "access-none: NotifyAccess=none: not even the main process's READY=1 is believed" 1
expect_contains "... start times out" "$ERR" "did not report READY=1"
run svctl start access-all
expect_rc "access-all: Type=simple with NotifyAccess=all starts" 0
track_pid "$(svc_pid access-all)"
check "access-all: its STATUS= is kept" wait_until 10 status_text_is access-all simple-status
run svctl start access-default
expect_rc "access-default: Type=oneshot without NotifyAccess= runs" 0
run svctl logs access-default
expect_contains "access-default: NotifyAccess=none (the default here) gives no \$NOTIFY_SOCKET" "$OUT" "socket=none"

run svctl start child-ns
if [ "$RC" -ne 0 ] && echo "$ERR" | grep -q -e "mount-proc" -e "user-namespace" -e "pid1-fork" -e "clone"; then
        skip "child-ns: PrivatePIDs=yes, READY=1 from the command (a child of svd's init)" \
                "this environment cannot create the namespaces"
else
        expect_rc "child-ns: PrivatePIDs=yes, READY=1 from the command (a child of svd's init)" 0
        track_pid "$(svc_pid child-ns)"
fi

# ---- the watchdog ----

run svctl start wd
expect_rc "watchdog: a service that sends WATCHDOG=1 starts" 0
WD_PID=$(svc_pid wd)
track_pid "$WD_PID"
if stays_for 3 running_with_new_pid wd 0; then
        ok "watchdog: ... and keeps running past WatchdogSec=1s (WATCHDOG_USEC passed, keep-alives counted)"
else
        not_ok "watchdog: ... and keeps running past WatchdogSec=1s (WATCHDOG_USEC passed, keep-alives counted)"
fi
expect_eq "watchdog: ... under the same pid" "$WD_PID" "$(svc_pid wd)"

run svctl start wdfail
expect_rc "watchdog: a service that never sends WATCHDOG=1 starts" 0
track_pid "$(svc_pid wdfail)"
check "watchdog: ... and fails once WatchdogSec=500ms passes" wait_until 10 state_is wdfail failed
expect_eq "watchdog: ... with result watchdog" watchdog "$(svc_field wdfail result)"
expect_contains "watchdog: ... and the reason" "$(svc_field wdfail lastError)" "watchdog timeout"

run svctl start wdtrigger
expect_rc "watchdog: Type=exec with WatchdogSec= starts" 0
OLD=$(svc_pid wdtrigger)
track_pid "$OLD"
check "watchdog: WATCHDOG=trigger" poke "$T/wdtrigger.fifo"
check "watchdog: ... is a watchdog failure and Restart=on-watchdog schedules a restart" \
        wait_until 10 state_is wdtrigger auto-restart
expect_eq "watchdog: ... result watchdog" watchdog "$(svc_field wdtrigger result)"
run svctl stop wdtrigger
expect_rc "watchdog: stop wins over the pending restart" 0
expect_eq "watchdog: ... inactive" inactive "$(svc_state wdtrigger)"

# ---- Type=oneshot ----

bg_start once
check "oneshot: activating while the command runs" wait_until 10 state_is once starting
if start_returned once; then
        not_ok "oneshot: ... and svctl start waits"
else
        ok "oneshot: ... and svctl start waits"
fi
check "oneshot: the command finishes" poke "$T/once.fifo"
check "oneshot: ... svctl start returns" wait_until 10 start_returned once
expect_eq "oneshot: ... with status 0" 0 "$(start_rc once)"
expect_eq "oneshot: ... the service is inactive" inactive "$(svc_state once)"
expect_eq "oneshot: ... result success" success "$(svc_field once result)"

run svctl start once-remain
expect_rc "oneshot RemainAfterExit=yes: start returns 0" 0
expect_eq "oneshot RemainAfterExit=yes: ... the service is exited (active)" exited "$(svc_state once-remain)"
run svctl start once-remain
expect_rc "oneshot RemainAfterExit=yes: a second start is a no-op" 0
run svctl stop once-remain
expect_rc "oneshot RemainAfterExit=yes: stop" 0
expect_eq "oneshot RemainAfterExit=yes: ... inactive" inactive "$(svc_state once-remain)"

run svctl start once-fail
expect_rc "oneshot: a failing command fails the start" 1
expect_contains "oneshot: ... with its exit" "$ERR" "exited with status 4"
expect_eq "oneshot: ... failed" failed "$(svc_state once-fail)"

# ---- exec and simple ----

run svctl --json start exec
expect_rc "exec: start returns once exec'd" 0
expect_eq "exec: ... running" running "$(json_field state "$OUT")"
track_pid "$(json_field pid "$OUT")"
run svctl start simple-bad
expect_rc "simple: a failed exec still fails the start" 1
expect_contains "simple: ... naming it" "$ERR" "exec /nonexistent/notify-test-binary"

# ---- a notify socket every service reaches ----

if [ "$(id -u)" -ne 0 ] || ! id nobody >/dev/null 2>&1; then
        skip "User=nobody with PrivateTmp=yes reaches the notify socket" "needs root and a user nobody"
        skip "a sandbox that hides the notify socket fails the start at once" "needs root"
else
        # The control socket's directory is $T, 0700 under /tmp: the notify socket is not there.
        expect_eq "as root, the notify socket is in /run/svd" /run/svd "$(dirname "$NOTIFY_PATH")"
        # The helper where PrivateTmp= does not hide it and nobody may run it.
        NSDIR=$(dir_outside_tmp) && chmod 0755 "$NSDIR" && cp "$NS" "$NSDIR/" &&
                chmod 0755 "$NSDIR/${NS##*/}" || bail_out "cannot copy the notify helper"
        write_unit nobody-notify <<EOF
[Service]
Type=notify
User=nobody
PrivateTmp=yes
TimeoutStartSec=30
ExecStart=$NSDIR/${NS##*/} notify:READY=1 pause
EOF
        write_unit hidden-notify <<EOF
[Service]
Type=notify
InaccessiblePaths=$(dirname "$NOTIFY_PATH")
TimeoutStartSec=60
ExecStart=$NSDIR/${NS##*/} notify:READY=1 pause
EOF
        run svctl reload
        run svctl start nobody-notify
        expect_rc "User=nobody with PrivateTmp=yes reaches the notify socket: READY=1 comes" 0
        track_pid "$(svc_pid nobody-notify)"
        T0=$(now_ms)
        run svctl start hidden-notify
        T1=$(now_ms)
        expect_rc "a sandbox that hides the notify socket fails the start" 1
        expect_contains "... at the notify socket, with its errno" "$ERR" "notify-socket"
        check "... at once, not after TimeoutStartSec=60 ($((T1 - T0)) ms)" test $((T1 - T0)) -lt 30000
        run svctl stop nobody-notify
        rm -rf "$NSDIR"
fi

stop_svd
expect_eq "svd exits 0 on SIGTERM" 0 "$SVD_RC"
check "svd removed its notify socket" test ! -e "$NOTIFY_PATH"

done_testing
