#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Restart= policies end to end: on-failure brings a crashing service back
# under a new pid and counts the restart; a clean exit is not restarted under
# on-failure but is under always; Restart=no leaves the service failed with
# its exit status; a stop wins over a pending automatic restart.
#
# The services do not crash on a timer: each blocks opening its own FIFO
# (in the shell itself, so there is no child process) until the test writes
# a line into it, then exits with the status given in its unit. TAP output.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

# crash.sh FIFO STATUS: wait for a line on FIFO, then exit STATUS.
cat >"$T/crash.sh" <<'EOF'
read -r line <"$1"
exit "$2"
EOF

# unit NAME RESTART RESTART_SEC STATUS
unit() {
        mkfifo "$T/$1.fifo" || bail_out "mkfifo failed"
        write_unit "$1" <<EOF
[Service]
ExecStart=$SH $T/crash.sh $T/$1.fifo $4
Restart=$2
RestartSec=$3
EOF
}

unit onfail on-failure 100ms 1
unit onfail-clean on-failure 100ms 0
unit always always 100ms 0
unit no no 100ms 3
unit pending on-failure 2s 1

# poke NAME: makes the service exit. Opening the FIFO for writing blocks until
# the service has it open for reading, so this is bounded by a timeout.
# shellcheck disable=SC2317 # called through check
poke() {
        (echo x >"$T/$1.fifo") &
        _poker=$!
        track_pid "$_poker"
        if ! wait_until 10 pid_dead "$_poker"; then
                kill -KILL "$_poker" 2>/dev/null
                wait "$_poker"
                return 1
        fi
        wait "$_poker"
        return 0
}

# start_tracked NAME: svctl start, then sets PID and PSTART.
start_tracked() {
        run svctl --json start "$1"
        PID=$(json_field pid "$OUT")
        PSTART=$(pid_start "$PID")
        track_pid "$PID"
}

start_svd

# ---- Restart=on-failure, exit 1 ----

start_tracked onfail
expect_rc "start onfail" 0
OLD=$PID
OLD_START=$PSTART
check "poke makes onfail exit 1" poke onfail
check "onfail is back, running under a new pid" wait_until 10 running_with_new_pid onfail "$OLD"
J=$(svc_json onfail)
NEW=$(json_field pid "$J")
track_pid "$NEW"
check "... the old process is gone" pid_gone "$OLD" "$OLD_START"
check "... the new pid is alive" pid_alive "$NEW"
expect_eq "... restarts is 1" 1 "$(json_field restarts "$J")"
expect_eq "... lastExit code exited" exited "$(json_field code "$(json_field lastExit "$J")")"
expect_eq "... lastExit status 1" 1 "$(json_field status "$(json_field lastExit "$J")")"

check "a second crash" poke onfail
check "onfail is back again" wait_until 10 running_with_new_pid onfail "$NEW"
track_pid "$(svc_pid onfail)"
expect_eq "... restarts is 2" 2 "$(svc_field onfail restarts)"

run svctl restart onfail
expect_rc "restart by hand" 0
track_pid "$(svc_pid onfail)"
expect_eq "... resets the restarts counter" 0 "$(svc_field onfail restarts)"

run svctl stop onfail
expect_rc "stop onfail" 0
expect_eq "... a stop by hand after automatic restarts ends inactive, not failed" inactive "$(svc_state onfail)"

# ---- Restart=on-failure, exit 0 ----

start_tracked onfail-clean
expect_rc "start onfail-clean" 0
check "poke makes onfail-clean exit 0" poke onfail-clean
check "a clean exit under on-failure ends inactive" wait_until 10 state_is onfail-clean inactive
check "... the process is gone" pid_gone "$PID" "$PSTART"
if stays_for 1 state_is onfail-clean inactive; then
        ok "... and is not restarted (watched for 1 s, RestartSec=100ms)"
else
        not_ok "... and is not restarted (watched for 1 s, RestartSec=100ms)"
        diag "state: $(svc_state onfail-clean)"
        track_pid "$(svc_pid onfail-clean)"
fi
expect_eq "... restarts is 0" 0 "$(svc_field onfail-clean restarts)"

# ---- Restart=always, exit 0 ----

start_tracked always
expect_rc "start always" 0
OLD=$PID
check "poke makes always exit 0" poke always
check "Restart=always brings back a clean exit" wait_until 10 running_with_new_pid always "$OLD"
track_pid "$(svc_pid always)"
expect_eq "... restarts is 1" 1 "$(svc_field always restarts)"
run svctl stop always
expect_rc "stop always" 0
if stays_for 1 state_is always inactive; then
        ok "a stopped Restart=always service stays stopped"
else
        not_ok "a stopped Restart=always service stays stopped"
        track_pid "$(svc_pid always)"
fi

# ---- Restart=no, exit 3 ----

start_tracked no
expect_rc "start no" 0
check "poke makes no exit 3" poke no
check "Restart=no: the service ends failed" wait_until 10 state_is no failed
J=$(svc_json no)
expect_eq "... without a pid" null "$(json_field pid "$J")"
expect_eq "... lastExit code exited" exited "$(json_field code "$(json_field lastExit "$J")")"
expect_eq "... lastExit status 3" 3 "$(json_field status "$(json_field lastExit "$J")")"
expect_eq "... result exit-code" exit-code "$(json_field result "$J")"
expect_eq "... restarts 0" 0 "$(json_field restarts "$J")"
check "... the process is gone" pid_gone "$PID" "$PSTART"
run svctl status no
expect_rc "status of the failed service exits 3" 3
expect_contains "status shows the exit" "$OUT" "exited, status=3"

run svctl start no
expect_rc "a failed service starts again by hand" 0
track_pid "$(svc_pid no)"
run svctl stop no
expect_rc "stop no" 0

# ---- stop wins over a pending restart ----

start_tracked pending
expect_rc "start pending (RestartSec=2s)" 0
check "poke makes pending exit 1" poke pending
check "pending waits in auto-restart" wait_until 10 state_is pending auto-restart
expect_eq "... without a pid" null "$(svc_pid pending)"
run svctl stop pending
expect_rc "stop during auto-restart exits 0" 0
expect_eq "... the service is inactive" inactive "$(svc_state pending)"
if stays_for 3 state_is pending inactive; then
        ok "... and is not restarted after RestartSec (watched for 3 s)"
else
        not_ok "... and is not restarted after RestartSec (watched for 3 s)"
        diag "state: $(svc_state pending)"
        track_pid "$(svc_pid pending)"
fi

stop_svd
expect_eq "svd exits 0 on SIGTERM" 0 "$SVD_RC"

done_testing
