#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The stop sequence end to end: KillSignal= first (SIGTERM by default, SIGINT
# when asked), SIGKILL after TimeoutStopSec= for a service that ignores it,
# both for svctl stop and for svd's own shutdown. svctl stop returns once the
# process is gone, so its duration is the stop sequence's. TAP output.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

# SIG_IGN survives exec: sleep itself ignores SIGTERM, and there is no shell left.
cat >"$T/ignore-term.sh" <<'EOF'
trap '' TERM
exec "$SLEEP" 1000
EOF

# Writes which signal stopped it to $1, kills its own child and exits 0.
# The shell runs a trap as soon as `wait` is interrupted by the signal.
cat >"$T/traps.sh" <<'EOF'
trap 'echo int >"$1"; kill "$child"; exit 0' INT
trap 'echo term >"$1"; kill "$child"; exit 0' TERM
"$SLEEP" 1000 &
child=$!
echo "$child" >"$1.child.tmp"
mv "$1.child.tmp" "$1.child"
wait "$child"
EOF

write_unit stubborn <<EOF
[Service]
ExecStart=$SH $T/ignore-term.sh
Environment=SLEEP=$SLEEP
TimeoutStopSec=1
EOF

write_unit polite <<EOF
[Service]
ExecStart=$SLEEP 1000
TimeoutStopSec=5
EOF

write_unit sigint <<EOF
[Service]
ExecStart=$SH $T/traps.sh $T/sigint.mark
Environment=SLEEP=$SLEEP
KillSignal=SIGINT
TimeoutStopSec=5
EOF

# start_tracked NAME: svctl start; sets PID and PSTART.
start_tracked() {
        run svctl --json start "$1"
        PID=$(json_field pid "$OUT")
        PSTART=$(pid_start "$PID")
        track_pid "$PID"
}

# timed COMMAND...: run() and set ELAPSED (ms).
timed() {
        _t0=$(now_ms)
        run "$@"
        ELAPSED=$(($(now_ms) - _t0))
}

start_svd

# ---- SIGTERM ignored: SIGKILL after TimeoutStopSec=1 ----

start_tracked stubborn
expect_rc "start stubborn" 0
# The shell has exec'd sleep once svctl returns; sleep is the main process.
check "stubborn's main process ignores SIGTERM" sig_ignored "$PID" 15
timed svctl stop stubborn
expect_rc "stop stubborn exits 0" 0
# Not before TimeoutStopSec=1; how much later depends on the machine's load (a figure, not a check).
check "stop of a service ignoring SIGTERM waits TimeoutStopSec=1 ($ELAPSED ms)" test "$ELAPSED" -ge 950
check "... the process is gone when stop returns" pid_gone "$PID" "$PSTART"
J=$(svc_json stubborn)
L=$(json_field lastExit "$J")
expect_eq "... lastExit code killed" killed "$(json_field code "$L")"
expect_eq "... lastExit signal 9" 9 "$(json_field status "$L")"
expect_eq "... result timeout" timeout "$(json_field result "$J")"
diag "state after the SIGKILL: $(json_field state "$J")"
run svctl status stubborn
expect_rc "... status exits 3" 3
expect_contains "... status shows the SIGKILL" "$OUT" "killed, signal=SIGKILL"

# ---- default KillSignal=SIGTERM ----

start_tracked polite
expect_rc "start polite" 0
timed svctl stop polite
expect_rc "stop polite exits 0" 0
diag "stop of a service that obeys SIGTERM took $ELAPSED ms"
check "... the process is gone when stop returns" pid_gone "$PID" "$PSTART"
J=$(svc_json polite)
L=$(json_field lastExit "$J")
expect_eq "... result success: SIGTERM ended it, not the timeout's SIGKILL" success "$(json_field result "$J")"
expect_eq "... lastExit code killed" killed "$(json_field code "$L")"
expect_eq "... lastExit signal 15" 15 "$(json_field status "$L")"
expect_eq "... state inactive" inactive "$(json_field state "$J")"

# ---- KillSignal=SIGINT ----

start_tracked sigint
expect_rc "start sigint" 0
check "sigint has started its child" wait_until 10 test -s "$T/sigint.mark.child"
read -r CHILD <"$T/sigint.mark.child"
track_pid "$CHILD"
timed svctl stop sigint
expect_rc "stop sigint exits 0" 0
diag "stop with KillSignal=SIGINT took $ELAPSED ms"
expect_eq "... result success: SIGINT ended it, not the timeout's SIGKILL" success "$(svc_field sigint result)"
expect_eq "the service got SIGINT, not SIGTERM" int "$(cat "$T/sigint.mark" 2>/dev/null)"
check "... the process is gone when stop returns" pid_gone "$PID" "$PSTART"
L=$(svc_field sigint lastExit)
expect_eq "... it exited 0 from its trap" "exited 0" "$(json_field code "$L") $(json_field status "$L")"
check "... its child, killed by the trap, is gone" wait_until 5 pid_dead "$CHILD"

# ---- svd's shutdown runs the same stop sequence ----

start_tracked stubborn
expect_rc "start stubborn again" 0
T0=$(now_ms)
stop_svd
ELAPSED=$(($(now_ms) - T0))
expect_eq "svd exits 1 on SIGTERM: a stop timed out" 1 "$SVD_RC"
check "svd's shutdown waits for TimeoutStopSec=1 of the stubborn service ($ELAPSED ms)" test "$ELAPSED" -ge 950
check "... which is gone when svd has exited" pid_gone "$PID" "$PSTART"

done_testing
