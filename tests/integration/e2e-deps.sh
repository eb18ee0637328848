#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Dependencies end to end: Requires= and Wants= start what they name, and
# with After= first, waiting for its readiness (a Type=notify unit held on a FIFO); After= and
# Before= order units wanted by default.target at svd's start-up; a required
# unit that fails fails its dependents with the reason, through a chain; a
# stop stops the units that require the stopped one first; a missing
# Requires= is a load error; an ordering cycle loads, and a start of it drops
# one start as systemd does (a wanted one if it can); unrelated units
# are not affected; a missing Wants= is only a warning. TAP output.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

NS=$(find_helper notify-service) || true
[ -n "$NS" ] || skip_all "the notify-service helper is not built"

# entered NAME STATE: when NAME last entered STATE (usec), from stateEnterUsec.
entered() {
        svc_field "$1" stateEnterUsec | _json_field "$2"
}

# not_after A B: A <= B (both usec numbers).
not_after() {
        [ -n "$1" ] && [ -n "$2" ] && [ "$1" -le "$2" ]
}

mkfifo "$T/db.fifo" "$T/boot-first.fifo" || bail_out "mkfifo failed"

# db is ready only when the test says so; app requires it, web wants cache.
write_unit db <<EOF2
[Service]
Type=notify
ExecStart=$NS wait:$T/db.fifo notify:READY=1 pause
EOF2
write_unit app <<EOF2
[Unit]
Requires=db.service
After=db
[Service]
ExecStart=$SLEEP 1000
EOF2
write_unit frontend <<EOF2
[Unit]
Requires=app
After=app
[Service]
ExecStart=$SLEEP 1000
EOF2
write_unit cache <<EOF2
[Service]
ExecStart=$SLEEP 1000
EOF2
write_unit web <<EOF2
[Unit]
Wants=cache nosuch-wanted
[Service]
ExecStart=$SLEEP 1000
EOF2

# Start-up order: boot-last After= boot-mid, boot-first Before= boot-mid.
write_unit boot-first <<EOF2
[Unit]
Before=boot-mid
[Service]
Type=notify
ExecStart=$NS wait:$T/boot-first.fifo notify:READY=1 pause
[Install]
WantedBy=default.target
EOF2
write_unit boot-mid <<EOF2
[Service]
ExecStart=$SLEEP 1000
[Install]
WantedBy=default.target
EOF2
write_unit boot-last <<EOF2
[Unit]
After=boot-mid.service
[Service]
ExecStart=$SLEEP 1000
[Install]
WantedBy=default.target
EOF2

# Failures.
write_unit broken <<EOF2
[Service]
ExecStart=/nonexistent/deps-test-binary
EOF2
write_unit needs-broken <<EOF2
[Unit]
Requires=broken
After=broken
[Service]
ExecStart=$SLEEP 1000
EOF2
write_unit top <<EOF2
[Unit]
Requires=needs-broken
After=needs-broken
[Service]
ExecStart=$SLEEP 1000
EOF2
write_unit wants-broken <<EOF2
[Unit]
Wants=broken
[Service]
ExecStart=$SLEEP 1000
EOF2

# Load errors.
write_unit r-missing <<EOF2
[Unit]
Requires=nosuch
[Service]
ExecStart=$SLEEP 1000
EOF2
# An ordering cycle whose units all require each other: no start can be dropped alone.
for u in c1:c2 c2:c3 c3:c1; do
        write_unit "${u%%:*}" <<EOF2
[Unit]
Requires=${u#*:}
After=${u#*:}
[Service]
ExecStart=$SLEEP 1000
EOF2
done
write_unit needs-cycle <<EOF2
[Unit]
Requires=c1
After=c1
[Service]
ExecStart=$SLEEP 1000
EOF2
# An ordering cycle with a unit that is only wanted: its start is dropped, the other starts.
write_unit o1 <<EOF2
[Unit]
Wants=o2
After=o2
[Service]
ExecStart=$SLEEP 1000
EOF2
write_unit o2 <<EOF2
[Unit]
After=o1
[Service]
ExecStart=$SLEEP 1000
EOF2
# Two units that require each other, one ordered after the other and bound to it: no cycle.
write_unit m1 <<EOF2
[Unit]
Requires=m2
After=m2
[Service]
ExecStart=$SLEEP 1000
EOF2
write_unit m2 <<EOF2
[Unit]
BindsTo=m1
[Service]
ExecStart=$SLEEP 1000
EOF2
# Requires= without After= orders nothing: both start together.
write_unit unordered <<EOF2
[Unit]
Requires=db
[Service]
ExecStart=$SLEEP 1000
EOF2
# An ordering chain of 258 units: the last two are deeper than svd's limit (256).
i=0
while [ $i -lt 258 ]; do
        {
                echo "[Unit]"
                [ $i -gt 0 ] && echo "After=chain$((i - 1))"
                echo "[Service]"
                echo "ExecStart=$SLEEP 1000"
        } >"$UNITS/chain$i.service"
        i=$((i + 1))
done
write_unit alone <<EOF2
[Service]
ExecStart=$SLEEP 1000
EOF2

start_svd

# ---- WantedBy=default.target respects ordering ----

check "start-up: boot-first starts and waits for READY=1" wait_until 10 state_is boot-first starting
if stays_for 1 state_is boot-mid inactive; then
        ok "start-up: boot-mid (ordered after boot-first by its Before=) waits"
else
        not_ok "start-up: boot-mid (ordered after boot-first by its Before=) waits"
fi
expect_eq "start-up: ... its job is queued" start-queued "$(svc_field boot-mid job)"
expect_eq "start-up: boot-last (After=boot-mid) waits too" inactive "$(svc_state boot-last)"
check "start-up: boot-first sends READY=1" poke "$T/boot-first.fifo"
check "start-up: all three run" wait_until 10 state_is boot-last running
expect_eq "start-up: boot-mid runs" running "$(svc_state boot-mid)"
check "start-up: boot-mid started after boot-first was ready" \
        not_after "$(entered boot-first running)" "$(entered boot-mid running)"
check "start-up: boot-last started after boot-mid" \
        not_after "$(entered boot-mid running)" "$(entered boot-last running)"

# ---- Requires= waits for readiness ----

bg_start frontend
check "requires: starting frontend starts db first (Requires= app, app Requires= db)" \
        wait_until 10 state_is db starting
expect_eq "requires: ... app waits for db" inactive "$(svc_state app)"
expect_eq "requires: ... frontend waits too" start-queued "$(svc_field frontend job)"
if start_returned frontend; then
        not_ok "requires: ... and svctl start frontend is still waiting"
else
        ok "requires: ... and svctl start frontend is still waiting"
fi
check "requires: db sends READY=1" poke "$T/db.fifo"
check "requires: ... svctl start frontend returns" wait_until 10 start_returned frontend
expect_eq "requires: ... with status 0" 0 "$(start_rc frontend)"
for u in db app frontend; do
        expect_eq "requires: $u runs" running "$(svc_state $u)"
        track_pid "$(svc_pid $u)"
done
check "requires: app started after db was ready" not_after "$(entered db running)" "$(entered app running)"
check "requires: frontend started after app" not_after "$(entered app running)" "$(entered frontend running)"
run svctl status frontend
expect_contains "requires: svctl status lists Requires=" "$OUT" "Requires: app.service"

# ---- stopping a unit stops what requires it, first ----

run svctl stop db
expect_rc "stop: svctl stop db" 0
for u in db app frontend; do
        expect_eq "stop: $u is inactive" inactive "$(svc_state $u)"
done
check "stop: frontend was gone before app began to stop" \
        not_after "$(entered frontend inactive)" "$(entered app stopping)"
check "stop: app was gone before db began to stop" not_after "$(entered app inactive)" "$(entered db stopping)"

# ---- Wants= ----

run svctl start web
expect_rc "wants: start web" 0
expect_eq "wants: ... started cache" running "$(svc_state cache)"
track_pid "$(svc_pid web)"
track_pid "$(svc_pid cache)"
check "wants: a missing Wants= was only a warning" grep -q "Wants=nosuch-wanted: no such unit" "$SVD_LOG"

run svctl start wants-broken
expect_rc "wants: a wanted unit that fails does not fail the start" 0
track_pid "$(svc_pid wants-broken)"

# ---- a required unit that fails ----

run svctl start needs-broken
expect_rc "failure: start of a unit whose required unit fails exits 1" 1
expect_contains "failure: ... naming the dependency and its failure" "$ERR" \
        "dependency 'broken' failed to start: exec /nonexistent/deps-test-binary"
expect_eq "failure: ... the dependent did not start" inactive "$(svc_state needs-broken)"
run svctl start top
expect_rc "failure: through a chain" 1
expect_contains "failure: ... the whole chain is named" "$ERR" \
        "dependency 'needs-broken' failed to start: dependency 'broken' failed to start"
run svctl --json status top
expect_contains "failure: ... lastError keeps it" "$OUT" "dependency 'needs-broken' failed to start"

# ---- load errors ----

expect_eq "load: a missing Requires= is a load error" error "$(svc_field r-missing loadState)"
expect_contains "load: ... naming it" "$(svc_field r-missing loadError)" "Requires=nosuch: no such unit 'nosuch.service'"
for u in c1 c2 c3; do
        expect_eq "cycle: $u on an ordering cycle loads (as in systemd)" loaded "$(svc_field $u loadState)"
done
check "cycle: svd says so at load, with the chain" grep -q "Ordering cycle: c1 → c2 → c3 → c1" "$SVD_LOG"
run svctl start c1
expect_rc "cycle: starting them together drops a start; all require each other, so all fail" 1
expect_contains "cycle: ... saying why" "$ERR" "start dropped to break the ordering cycle c1 → c2 → c3 → c1"
for u in c1 c2 c3; do
        expect_eq "cycle: ... $u did not start" inactive "$(svc_state $u)"
done
run svctl start needs-cycle
expect_rc "cycle: a unit that requires one fails to start" 1
expect_contains "cycle: ... naming it" "$ERR" "dependency 'c1' failed to start"
run svctl start o1
expect_rc "cycle: with a unit only wanted, the start asked for succeeds" 0
expect_eq "cycle: ... o1 runs" running "$(svc_state o1)"
track_pid "$(svc_pid o1)"
expect_eq "cycle: ... o2's start was dropped" inactive "$(svc_state o2)"
check "cycle: ... and svd says which" grep -q "o2: start dropped to break the ordering cycle" "$SVD_LOG"
run svctl start m1
expect_rc "requires both ways: no cycle, both start" 0
expect_eq "requires both ways: m2 runs" running "$(svc_state m2)"
track_pid "$(svc_pid m1)"
track_pid "$(svc_pid m2)"
run svctl stop db
bg_start unordered
check "requires without After=: unordered runs while db still waits for READY=1" \
        wait_until 10 state_is unordered running
expect_eq "requires without After=: ... db is starting" starting "$(svc_state db)"
check "requires without After=: db sends READY=1" poke "$T/db.fifo"
check "requires without After=: svctl start returns" wait_until 10 start_returned unordered
track_pid "$(svc_pid unordered)"
track_pid "$(svc_pid db)"
expect_eq "load: a unit 256 deep in an ordering chain loads" loaded "$(svc_field chain255 loadState)"
expect_contains "load: one 258 deep does not" "$(svc_field chain257 loadError)" \
        "Dependency chain of 258 units, more than 256"
run svctl start alone
expect_rc "load: unrelated units start" 0
track_pid "$(svc_pid alone)"

stop_svd
expect_eq "svd stops everything and exits 0" 0 "$SVD_RC"

# svd's own stop, when the last unit to stop is ordered after one that is not running: the stop of
# the inactive one waits for it (stops go in reverse order) and then ends without a change of state.
# svd counts that as the last service settled and exits.
rm -f "$UNITS"/*.service
write_unit alpha <<EOF2
[Unit]
After=zeta
[Service]
ExecStart=$NS pause
EOF2
write_unit zeta <<EOF2
[Service]
ExecStart=$NS pause
EOF2
start_svd
run svctl start alpha
expect_rc "stop after an inactive unit: alpha starts" 0
track_pid "$(svc_pid alpha)"
expect_eq "stop after an inactive unit: ... zeta does not run" inactive "$(svc_state zeta)"
stop_svd
expect_eq "stop after an inactive unit: svd stops and exits 0" 0 "$SVD_RC"

done_testing
