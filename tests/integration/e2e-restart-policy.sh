#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Restart policy end to end, beyond e2e-restart.sh: Restart=on-success and
# on-abnormal (what restarts and what does not), the growing back-off of
# RestartSteps=/RestartMaxDelaySec=, StartLimitBurst=/StartLimitIntervalSec=
# ending a crash loop in failed with result start-limit-hit, svctl
# reset-failed (one service and all), and a stop that wins over a pending
# restart. Services exit when the test writes into their FIFO, or at once
# where a loop is the point. TAP output.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

# crash.sh FIFO STATUS: wait for a line on FIFO, then exit STATUS ("kill" sends itself SIGKILL).
# (until a line: an open can meet the previous writer just as it closes, and see EOF.)
cat >"$T/crash.sh" <<'EOF2'
until read -r line <"$1"; do :; done
[ "$2" = kill ] && kill -KILL $$
exit "$2"
EOF2

# unit NAME RESTART STATUS [EXTRA LINE]
unit() {
        mkfifo "$T/$1.fifo" || bail_out "mkfifo failed"
        write_unit "$1" <<EOF2
[Service]
ExecStart=$SH $T/crash.sh $T/$1.fifo $3
Restart=$2
RestartSec=100ms
${4:-}
EOF2
}

unit succ-0 on-success 0
unit succ-1 on-success 1
unit abn-kill on-abnormal kill
unit abn-1 on-abnormal 1

# A crash loop with a back-off 100ms, 200ms, 400ms, 800ms, 800ms ...; no start limit.
write_unit backoff <<EOF2
[Service]
ExecStart=$SH -c 'exit 1'
Restart=on-failure
RestartSec=100ms
RestartSteps=3
RestartMaxDelaySec=800ms
StartLimitBurst=0
EOF2

# A crash loop that the start limit ends: 3 starts in 10 s, then failed.
write_unit limited <<EOF2
[Unit]
StartLimitBurst=3
StartLimitIntervalSec=10s
[Service]
ExecStart=$SH -c 'exit 2'
Restart=always
RestartSec=50ms
EOF2
# The same keys in [Service], as older systemd units have them.
write_unit limited2 <<EOF2
[Service]
StartLimitBurst=2
StartLimitIntervalSec=1min
ExecStart=$SH -c 'exit 2'
Restart=on-failure
RestartSec=50ms
EOF2

write_unit pending <<EOF2
[Service]
ExecStart=$SH -c 'exit 1'
Restart=on-failure
RestartSec=1s
RestartSteps=2
RestartMaxDelaySec=1h
StartLimitBurst=0
EOF2

start_tracked() {
        run svctl --json start "$1"
        PID=$(json_field pid "$OUT")
        track_pid "$PID"
}

start_svd

# ---- Restart=on-success ----

start_tracked succ-0
expect_rc "on-success: start" 0
check "on-success: a clean exit" poke "$T/succ-0.fifo"
check "on-success: ... is restarted" wait_until 10 running_with_new_pid succ-0 "$PID"
track_pid "$(svc_pid succ-0)"
expect_eq "on-success: ... restarts is 1" 1 "$(svc_field succ-0 restarts)"

start_tracked succ-1
check "on-success: an exit with status 1" poke "$T/succ-1.fifo"
check "on-success: ... is not restarted, the service is failed" wait_until 10 state_is succ-1 failed
expect_eq "on-success: ... restarts is 0" 0 "$(svc_field succ-1 restarts)"

# ---- Restart=on-abnormal ----

start_tracked abn-kill
check "on-abnormal: SIGKILL" poke "$T/abn-kill.fifo"
check "on-abnormal: ... is restarted" wait_until 10 running_with_new_pid abn-kill "$PID"
track_pid "$(svc_pid abn-kill)"

start_tracked abn-1
check "on-abnormal: an exit with status 1" poke "$T/abn-1.fifo"
check "on-abnormal: ... is not restarted" wait_until 10 state_is abn-1 failed
expect_eq "on-abnormal: ... result exit-code" exit-code "$(svc_field abn-1 result)"

# ---- back-off ----

run svctl start backoff
expect_rc "back-off: start of a service that exits at once" 0
# shellcheck disable=SC2317 # called through check
restarts_at_least() {
        _r=$(svc_field "$1" restarts)
        [ -n "$_r" ] && [ "$_r" -ge "$2" ]
}
check "back-off: it is restarted over and over" wait_until 20 restarts_at_least backoff 5
run svctl stop backoff
expect_rc "back-off: stop" 0
check "back-off: step 2 waits 200ms" grep -q "backoff: restarting in 200ms (back-off step 2)" "$SVD_LOG"
check "back-off: step 3 waits 400ms" grep -q "backoff: restarting in 400ms (back-off step 3)" "$SVD_LOG"
check "back-off: step 4 reaches RestartMaxDelaySec=800ms" \
        grep -q "backoff: restarting in 800ms (back-off step 4)" "$SVD_LOG"
check "back-off: and stays there" grep -q "backoff: restarting in 800ms (back-off step 5)" "$SVD_LOG"

# ---- start limit ----

run svctl start limited
expect_rc "start limit: start of a crash loop" 0
check "start limit: the loop ends in failed" wait_until 20 state_is limited failed
J=$(svc_json limited)
expect_eq "start limit: ... result start-limit-hit" start-limit-hit "$(json_field result "$J")"
expect_eq "start limit: ... after 2 restarts (3 starts)" 2 "$(json_field restarts "$J")"
expect_contains "start limit: ... with the reason" "$(json_field lastError "$J")" \
        "start limit hit: 3 starts within StartLimitIntervalSec=10s (StartLimitBurst=3)"
run svctl status limited
expect_rc "start limit: status exits 3" 3
expect_contains "start limit: status shows the result" "$OUT" "failed (Result: start-limit-hit)"
if stays_for 1 state_is limited failed; then
        ok "start limit: ... and it stays failed"
else
        not_ok "start limit: ... and it stays failed"
fi

run svctl reset-failed limited
expect_rc "reset-failed NAME exits 0" 0
J=$(svc_json limited)
expect_eq "reset-failed: the service is inactive" inactive "$(json_field state "$J")"
expect_eq "reset-failed: ... result success" success "$(json_field result "$J")"
expect_eq "reset-failed: ... no error" null "$(json_field lastError "$J")"

run svctl start limited2
expect_rc "start limit in [Service]: start" 0
check "start limit in [Service]: the loop ends in failed" wait_until 20 state_is limited2 failed
expect_eq "start limit in [Service]: ... start-limit-hit" start-limit-hit "$(svc_field limited2 result)"
run svctl --json reset-failed
expect_rc "reset-failed without a name exits 0" 0
expect_contains "reset-failed: ... and lists what it reset" "$OUT" '"limited2"'
expect_eq "reset-failed: ... limited2 is inactive" inactive "$(svc_state limited2)"
expect_eq "reset-failed: ... as is succ-1" inactive "$(svc_state succ-1)"
run svctl reset-failed nosuch
expect_rc "reset-failed of an unknown service exits 4" 4

run svctl start limited
expect_rc "after reset-failed the service starts again" 0
check "... and the limit counts anew" wait_until 20 state_is limited failed

# ---- stop wins over a pending (backed-off) restart ----

run svctl start pending
expect_rc "pending: start" 0
check "pending: waits in auto-restart" wait_until 10 state_is pending auto-restart
run svctl stop pending
expect_rc "pending: stop during auto-restart exits 0" 0
expect_eq "pending: ... inactive" inactive "$(svc_state pending)"
if stays_for 2 state_is pending inactive; then
        ok "pending: ... and not restarted after RestartSec (watched for 2 s)"
else
        not_ok "pending: ... and not restarted after RestartSec (watched for 2 s)"
        track_pid "$(svc_pid pending)"
fi

stop_svd
expect_eq "svd exits 0 on SIGTERM" 0 "$SVD_RC"

done_testing
