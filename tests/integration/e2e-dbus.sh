#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Type=dbus end to end on a private bus (dbus-daemon, named to svd and the
# services by $DBUS_SYSTEM_BUS_ADDRESS): with no bus the start fails at once
# saying so; a service is started once it has acquired BusName= (held back on
# a FIFO until the test lets it go); releasing the name stops it; a name never
# acquired ends in TimeoutStartSec=; a bus that goes away while a start waits
# fails that start. The services are tests/lib/dbus-service.c (sd-bus). TAP.
#
# lab: host only: the lab's image has no dbus-daemon (the bus code is the same on every kernel)

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

DS=$(find_helper dbus-service) || true
[ -n "$DS" ] || skip_all "the dbus-service helper is not built"
command -v dbus-daemon >/dev/null 2>&1 || skip_all "dbus-daemon is not installed"

BUS=unix:path=$T/bus
export DBUS_SYSTEM_BUS_ADDRESS="$BUS"
cat >"$T/bus.conf" <<EOF2
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>$BUS</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
EOF2

BUS_PID=
# start_bus: a private dbus-daemon on $T/bus, waited for until it accepts connections.
start_bus() {
        rm -f "$T/bus"
        dbus-daemon --config-file="$T/bus.conf" --nofork --nopidfile >>"$T/bus.log" 2>&1 &
        BUS_PID=$!
        track_pid "$BUS_PID"
        wait_until 10 test -S "$T/bus"
}

for f in gate release gate2; do # gate2 is never written: that start waits until the bus goes
        mkfifo "$T/$f.fifo" || bail_out "mkfifo failed"
done
write_unit named <<EOF2
[Service]
Type=dbus
BusName=org.example.Named
Environment=DBUS_SYSTEM_BUS_ADDRESS=$BUS
ExecStart=$DS org.example.Named --gate $T/gate.fifo --release $T/release.fifo
TimeoutStartSec=60
EOF2
write_unit never <<EOF2
[Service]
Type=dbus
BusName=org.example.Never
Environment=DBUS_SYSTEM_BUS_ADDRESS=$BUS
ExecStart=$DS org.example.Never --never
TimeoutStartSec=2
EOF2
write_unit orphaned <<EOF2
[Service]
Type=dbus
BusName=org.example.Orphaned
Environment=DBUS_SYSTEM_BUS_ADDRESS=$BUS
ExecStart=$DS org.example.Orphaned --gate $T/gate2.fifo
TimeoutStartSec=60
EOF2
write_unit nobusname <<EOF2
[Service]
Type=dbus
ExecStart=$DS org.example.Nothing
EOF2

# shellcheck disable=SC2317
not_returned() {
        ! start_returned "$1"
}

start_svd

run svctl status nobusname
expect_contains "Type=dbus without BusName= does not load" "$OUT$ERR" "Type=dbus needs BusName="

run svctl start named
expect_rc "with no bus, the start fails at once" 1
expect_contains "... saying which bus it could not reach" "$ERR" "cannot connect to the system bus ($BUS)"
expect_eq "... and the service is failed" failed "$(svc_state named)"

start_bus || bail_out "dbus-daemon did not start (see $T/bus.log)"
bg_start named
check "with the bus up, the service is starting" wait_until 10 state_is named starting
track_pid "$(svc_pid named)"
check "... and stays so while it has not acquired its name" stays_for 1 not_returned named
check "the service takes the line that lets it request its name" poke "$T/gate.fifo"
check "once it acquires org.example.Named, the start completes" wait_until 10 start_returned named
expect_eq "... successfully" 0 "$(cat "$T/named.rc")"
expect_eq "running" running "$(svc_state named)"
check "the service takes the line that makes it release its name" poke "$T/release.fifo"
check "releasing the name stops the service" wait_until 10 state_is named inactive
run svctl logs named
expect_contains "... after it said it would" "$OUT" "releasing org.example.Named"

run svctl start never
expect_rc "a name never acquired: the start fails after TimeoutStartSec=" 1
expect_contains "... saying so" "$ERR" "did not acquire its bus name"
expect_eq "... result timeout" timeout "$(svc_field never result)"

bg_start orphaned
check "orphaned: starting" wait_until 10 state_is orphaned starting
track_pid "$(svc_pid orphaned)"
kill -TERM "$BUS_PID"
check "the bus goes away while the start waits: the start fails" wait_until 10 start_returned orphaned
expect_eq "... with an error" 1 "$(cat "$T/orphaned.rc")"
expect_contains "... saying the connection was lost" "$(cat "$T/orphaned.out")" "system bus connection was lost"
check "... and the service is stopped" wait_until 10 state_is orphaned failed

start_bus || bail_out "dbus-daemon did not start again"
run svctl reset-failed named
bg_start named
check "the restarted service takes the gate line" poke "$T/gate.fifo"
check "after the bus came back, svd connects again" wait_until 10 start_returned named
expect_eq "... and the start succeeds" 0 "$(cat "$T/named.rc")"
track_pid "$(svc_pid named)"

stop_svd
kill -TERM "$BUS_PID"
check "the bus daemon ends" wait_until 10 pid_dead "$BUS_PID"
wait "$BUS_PID" 2>/dev/null

done_testing
